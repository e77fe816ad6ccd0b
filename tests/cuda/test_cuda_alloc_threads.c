/* 8 threads allocate, free, record_stream, complete streams, read statistics and empty the cache of two
 * devices at once, each with its own current stream (thread-local), for ThreadSanitizer and for the
 * invariants: every block's pattern survives until its free, and at the end the statistics match a walk
 * and empty_cache gives every byte back. TH_CUDA_THREADS_OPS sets the operations per thread (10000). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "cuda_test.h"

enum { THREADS = 8, DEVICES = 2, STREAMS = 4, LIVE = 16 };

static test_env env;
static void *streams[DEVICES][STREAMS];
static long ops_per_thread = 10000;
static atomic_int violations;
static atomic_long n_ooms, n_allocs;

typedef struct tblock {
    int dev;
    char *ptr;
    size_t size;
    uint64_t tag;
    bool via_allocator;
} tblock;

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static void stamp(const tblock *b, bool check)
{
    size_t n = b->size >= 16 ? 8 : b->size / 2;
    for (size_t i = 0; i < n; i++) {
        char head = (char)(b->tag >> (8 * i)), tail = (char)~head;
        if (check && (b->ptr[i] != head || b->ptr[b->size - n + i] != tail)) {
            if (atomic_fetch_add(&violations, 1) < 10)
                fprintf(stderr, "thread test: block %p (%zu bytes) was overwritten while live\n", (void *)b->ptr,
                        b->size);
            return;
        }
        if (!check) {
            b->ptr[i] = head;
            b->ptr[b->size - n + i] = tail;
        }
    }
}

static void release(tblock *b)
{
    stamp(b, true);
    if (b->via_allocator) {
        void *ctx = NULL;
        const th_allocator *al = th__cuda_caching_allocator(env.c, b->dev, &ctx);
        al->free(ctx, b->ptr, b->size);
    } else if (th__cuda_caching_release(th__cuda_caching_dev_get(env.c, b->dev), b->ptr)) {
        atomic_fetch_add(&violations, 1);
        fprintf(stderr, "thread test: release: %s\n", th_last_error());
    }
}

static void *worker(void *arg)
{
    uint64_t rng = (uint64_t)(uintptr_t)arg * UINT64_C(0x9E3779B97F4A7C15) + 1;
    tblock live[LIVE];
    int nlive = 0;
    for (long i = 0; i < ops_per_thread; i++) {
        uint64_t r = next_rand(&rng) % 100;
        int dev = (int)(next_rand(&rng) % DEVICES);
        th__cuda_caching_dev *d = th__cuda_caching_dev_get(env.c, dev);
        if (r < 45 && nlive < LIVE) {
            uint64_t k = next_rand(&rng) % 100;
            size_t size = k < 70 ? 1 + next_rand(&rng) % (64 * KiB)
                          : k < 95 ? MiB + next_rand(&rng) % (3 * MiB) : 10 * MiB + next_rand(&rng) % (10 * MiB);
            void *stream = streams[dev][next_rand(&rng) % STREAMS];
            tblock *b = &live[nlive];
            b->via_allocator = next_rand(&rng) % 4 == 0;
            void *p = NULL;
            int rc;
            if (b->via_allocator) {
                void *ctx = NULL;
                const th_allocator *al = th__cuda_caching_allocator(env.c, dev, &ctx);
                th__cuda_set_current_stream(dev, stream);
                p = al->alloc(ctx, size);
                rc = p ? 0 : th_last_status();
                if (p && next_rand(&rng) % 16 == 0 && block_at(d, p, NULL).stream != stream) {
                    atomic_fetch_add(&violations, 1);
                    fprintf(stderr, "thread test: a block on another stream than the thread's current one\n");
                }
            } else {
                rc = th__cuda_caching_malloc(d, size, stream, &p);
            }
            if (rc == TH_ERR_NOMEM) {
                atomic_fetch_add(&n_ooms, 1);
                continue;
            }
            if (rc) {
                atomic_fetch_add(&violations, 1);
                fprintf(stderr, "thread test: malloc: %s\n", th_last_error());
                continue;
            }
            atomic_fetch_add(&n_allocs, 1);
            b->dev = dev;
            b->ptr = (char *)p;
            b->size = size;
            b->tag = next_rand(&rng);
            stamp(b, false);
            nlive++;
        } else if (r < 85 && nlive) {
            int j = (int)(next_rand(&rng) % (uint64_t)nlive);
            release(&live[j]);
            live[j] = live[--nlive];
        } else if (r < 92 && nlive) {
            tblock *b = &live[next_rand(&rng) % (uint64_t)nlive];
            void *stream = streams[b->dev][next_rand(&rng) % STREAMS];
            if (th__cuda_caching_record_stream(th__cuda_caching_dev_get(env.c, b->dev), b->ptr, stream)) {
                atomic_fetch_add(&violations, 1);
                fprintf(stderr, "thread test: record_stream: %s\n", th_last_error());
            }
        } else if (r < 97) {
            fake_stream_complete(env.f, dev, streams[dev][next_rand(&rng) % STREAMS]);
        } else if (r < 99) {
            th__cuda_memory_stats s;
            th__cuda_caching_get_stats(d, &s);
            if (s.allocations[0].current < 0 || s.reserved_bytes[0].current < s.allocated_bytes[0].current) {
                atomic_fetch_add(&violations, 1);
                fprintf(stderr, "thread test: inconsistent statistics\n");
            }
        } else {
            if (th__cuda_caching_empty_cache(d)) {
                atomic_fetch_add(&violations, 1);
                fprintf(stderr, "thread test: empty_cache: %s\n", th_last_error());
            }
        }
    }
    while (nlive) release(&live[--nlive]);
    return NULL;
}

int main(void)
{
    test_begin();
    const char *v = getenv("TH_CUDA_THREADS_OPS");
    if (v && *v) ops_per_thread = strtol(v, NULL, 10);
    env = env_new(DEVICES, (size_t)512 << 20, NULL);
    for (int d = 0; d < DEVICES; d++) {
        streams[d][0] = NULL;
        for (int s = 1; s < STREAMS; s++) streams[d][s] = fake_stream_new(env.f, d);
    }
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) CHECK_INT_EQ(pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)(t + 1)), 0);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    CHECK_INT_EQ(atomic_load(&violations), 0);
    for (int d = 0; d < DEVICES; d++) {
        th__cuda_caching_dev *dev = th__cuda_caching_dev_get(env.c, d);
        check_stats_walk(&env, dev, d);
        CHECK_INT_EQ(env_stats(dev).allocations[0].current, 0);
        CHECK_INT_EQ(th__cuda_caching_empty_cache(dev), 0);
        CHECK_INT_EQ(fake_backend_live_bytes(env.f, d), 0);
        check_stats_walk(&env, dev, d);
    }
    env_end(&env);
    printf("%d threads x %ld ops: %ld allocations, %ld out of memory\n", THREADS, ops_per_thread,
           atomic_load(&n_allocs), atomic_load(&n_ooms));
    return test_end("test_cuda_alloc_threads");
}
