/* The caching device allocator's rules, each as an exact case over the fake backend: rounding, segment
 * sizes, splitting, oversize blocks, merging, streams and record_stream, the out-of-memory sequence and its
 * message, statistics against a walk of the blocks, empty_cache, caching off, the environment, errors. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv, pthreads */
#endif
#include <pthread.h>
#include <stdlib.h>

#include "cuda_test.h"

static void test_rounding(void)
{
    CHECK_INT_EQ(th__cuda_caching_round_size(0), 512);
    CHECK_INT_EQ(th__cuda_caching_round_size(1), 512);
    CHECK_INT_EQ(th__cuda_caching_round_size(511), 512);
    CHECK_INT_EQ(th__cuda_caching_round_size(512), 512);
    CHECK_INT_EQ(th__cuda_caching_round_size(513), 1024);
    CHECK_INT_EQ(th__cuda_caching_round_size(1000), 1024);
    CHECK_INT_EQ(th__cuda_caching_round_size(MiB), MiB);
    CHECK_INT_EQ(th__cuda_caching_round_size(MiB + 1), MiB + 512);
    CHECK_INT_EQ(th__cuda_caching_round_size(100 * MiB + 3), 100 * MiB + 512);

    CHECK_INT_EQ(th__cuda_caching_segment_size(512), 2 * MiB);
    CHECK_INT_EQ(th__cuda_caching_segment_size(MiB), 2 * MiB);
    CHECK_INT_EQ(th__cuda_caching_segment_size(MiB + 512), 20 * MiB);
    CHECK_INT_EQ(th__cuda_caching_segment_size(10 * MiB - 512), 20 * MiB);
    CHECK_INT_EQ(th__cuda_caching_segment_size(10 * MiB), 10 * MiB);
    CHECK_INT_EQ(th__cuda_caching_segment_size(10 * MiB + 512), 12 * MiB);
    CHECK_INT_EQ(th__cuda_caching_segment_size(21 * MiB), 22 * MiB);
    CHECK_INT_EQ(th__cuda_caching_segment_size(22 * MiB), 22 * MiB);

    /* What the backend is asked for, and what the block is. */
    test_env e = env_new(1, 0, NULL);
    char *a = env_alloc(&e, 1, NULL);
    th__cuda_block_info ia = block_at(e.d, a, NULL);
    CHECK_INT_EQ(ia.size, 512);
    CHECK_INT_EQ(ia.requested, 1);
    CHECK(ia.small);
    CHECK_INT_EQ(ia.segment_size, 2 * MiB);
    CHECK(ia.segment == a);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, 0), 2 * MiB);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 1);
    /* The next small request comes from the rest of the same segment, right after. */
    char *b = env_alloc(&e, 1000, NULL);
    CHECK(b == a + 512);
    CHECK_INT_EQ(block_at(e.d, b, NULL).size, 1024);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 1);
    th__cuda_memory_stats s = env_stats(e.d);
    CHECK_INT_EQ(s.cache_hits, 1);
    CHECK_INT_EQ(s.backend_mallocs, 1);
    CHECK_INT_EQ(s.allocated_bytes[TH__CUDA_POOL_SMALL].current, 1536);
    CHECK_INT_EQ(s.requested_bytes[TH__CUDA_POOL_SMALL].current, 1001);
    /* 1 MiB + 1 byte is a large request: a 20 MiB segment. */
    char *c = env_alloc(&e, MiB + 1, NULL);
    th__cuda_block_info ic = block_at(e.d, c, NULL);
    CHECK(!ic.small);
    CHECK_INT_EQ(ic.size, MiB + 512);
    CHECK_INT_EQ(ic.segment_size, 20 * MiB);
    /* 10 MiB gets a segment of its own, exactly 10 MiB; 11 MiB one of 12 MiB, not split (1 MiB left). On
     * another stream: on this one, the rest of c's segment (18.5 MiB) would serve them. */
    void *s2 = fake_stream_new(e.f, 0);
    char *d10 = env_alloc(&e, 10 * MiB, s2);
    CHECK_INT_EQ(block_at(e.d, d10, NULL).segment_size, 10 * MiB);
    CHECK_INT_EQ(block_at(e.d, d10, NULL).size, 10 * MiB);
    char *d11 = env_alloc(&e, 11 * MiB, s2);
    CHECK_INT_EQ(block_at(e.d, d11, NULL).segment_size, 12 * MiB);
    CHECK_INT_EQ(block_at(e.d, d11, NULL).size, 12 * MiB);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 4);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, 0), (2 + 20 + 10 + 12) * MiB);
    check_stats_walk(&e, e.d, 0);
    env_free(&e, a);
    env_free(&e, b);
    env_free(&e, c);
    env_free(&e, d10);
    env_free(&e, d11);
    check_stats_walk(&e, e.d, 0);
    env_end(&e);
}

static void test_small_split(void)
{
    test_env e = env_new(1, 0, NULL);
    /* Two 1 MiB requests fill one 2 MiB segment exactly: the second takes the rest, unsplit. */
    char *a = env_alloc(&e, MiB, NULL);
    char *b = env_alloc(&e, MiB, NULL);
    CHECK(b == a + MiB);
    CHECK_INT_EQ(block_at(e.d, b, NULL).size, MiB);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 1);
    char *c = env_alloc(&e, 512, NULL); /* nothing left: a new segment */
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 2);
    env_free(&e, b);
    /* 1 MiB - 512 from the freed 1 MiB leaves exactly 512 bytes: still split (>= 512 in the small pool). */
    char *d = env_alloc(&e, MiB - 512, NULL);
    CHECK(d == b);
    CHECK_INT_EQ(block_at(e.d, d, NULL).size, MiB - 512);
    bool found = false;
    th__cuda_block_info rest = block_at(e.d, d + MiB - 512, &found);
    CHECK(found);
    CHECK_INT_EQ(rest.size, 512);
    CHECK_INT_EQ(rest.state, TH__CUDA_BLOCK_FREE);
    /* ... and a 512-byte request takes that rest: best fit over the larger rest of c's segment. */
    char *f = env_alloc(&e, 100, NULL);
    CHECK(f == d + MiB - 512);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 2);
    check_stats_walk(&e, e.d, 0);
    env_free(&e, a);
    env_free(&e, c);
    env_free(&e, d);
    env_free(&e, f);
    check_stats_walk(&e, e.d, 0);
    env_end(&e);
}

static void test_large_split(void)
{
    test_env e = env_new(1, 0, NULL);
    /* 1..10 MiB requests share 20 MiB segments. */
    char *a = env_alloc(&e, 3 * MiB, NULL);
    char *b = env_alloc(&e, 3 * MiB, NULL);
    CHECK(b == a + 3 * MiB);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 1);
    env_free(&e, a);
    env_free(&e, b);
    CHECK_INT_EQ(block_at(e.d, a, NULL).size, 20 * MiB); /* merged back into one block */
    /* 19 MiB from the 20 MiB block leaves exactly 1 MiB: not split (the large pool needs more than 1 MiB). */
    char *c = env_alloc(&e, 19 * MiB, NULL);
    CHECK(c == a);
    CHECK_INT_EQ(block_at(e.d, c, NULL).size, 20 * MiB);
    th__cuda_memory_stats s = env_stats(e.d);
    CHECK_INT_EQ(s.allocated_bytes[0].current, 20 * MiB);
    CHECK_INT_EQ(s.requested_bytes[0].current, 19 * MiB);
    CHECK_INT_EQ(s.inactive_split[0].current, 0);
    env_free(&e, c);
    /* 512 bytes less leaves 1 MiB + 512: split. */
    char *d = env_alloc(&e, 19 * MiB - 512, NULL);
    CHECK(d == a);
    CHECK_INT_EQ(block_at(e.d, d, NULL).size, 19 * MiB - 512);
    CHECK_INT_EQ(block_at(e.d, d + 19 * MiB - 512, NULL).size, MiB + 512);
    s = env_stats(e.d);
    CHECK_INT_EQ(s.inactive_split[TH__CUDA_POOL_LARGE].current, 1);
    CHECK_INT_EQ(s.inactive_split_bytes[TH__CUDA_POOL_LARGE].current, MiB + 512);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 1);
    check_stats_walk(&e, e.d, 0);
    env_free(&e, d);
    env_end(&e);
}

static void test_best_fit(void)
{
    test_env e = env_new(1, 0, NULL);
    /* Large: three segments of their own, all freed: 12, 16 and 14 MiB blocks in the pool. */
    char *a = env_alloc(&e, 12 * MiB, NULL);
    char *b = env_alloc(&e, 16 * MiB, NULL);
    char *c = env_alloc(&e, 14 * MiB, NULL);
    env_free(&e, a);
    env_free(&e, b);
    env_free(&e, c);
    char *x = env_alloc(&e, 13 * MiB, NULL);
    CHECK(x == c); /* 14 MiB: the smallest that fits */
    char *y = env_alloc(&e, 11 * MiB, NULL);
    CHECK(y == a);
    char *z = env_alloc(&e, 15 * MiB, NULL);
    CHECK(z == b);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 3);
    CHECK_INT_EQ(env_stats(e.d).cache_hits, 3);
    env_free(&e, x);
    env_free(&e, y);
    env_free(&e, z);

    /* Small: holes of 4, 8 and 2 KiB between allocated 512-byte blocks. */
    char *h4 = env_alloc(&e, 4 * KiB, NULL);
    char *p1 = env_alloc(&e, 512, NULL);
    char *h8 = env_alloc(&e, 8 * KiB, NULL);
    char *p2 = env_alloc(&e, 512, NULL);
    char *h2 = env_alloc(&e, 2 * KiB, NULL);
    char *p3 = env_alloc(&e, 512, NULL);
    CHECK(p3 == h4 + 4 * KiB + 512 + 8 * KiB + 512 + 2 * KiB);
    env_free(&e, h4);
    env_free(&e, h8);
    env_free(&e, h2);
    CHECK(env_alloc(&e, 2 * KiB, NULL) == h2);          /* exact hole */
    char *q = env_alloc(&e, 3 * KiB, NULL);
    CHECK(q == h4);                                     /* the 4 KiB hole, split */
    CHECK_INT_EQ(block_at(e.d, h4 + 3 * KiB, NULL).size, KiB);
    /* 4 KiB: the 8 KiB hole (the 1 KiB rest is too small), split; then its 4 KiB rest exactly. */
    char *r = env_alloc(&e, 4 * KiB, NULL);
    CHECK(r == h8);
    char *t = env_alloc(&e, 4 * KiB, NULL);
    CHECK(t == h8 + 4 * KiB);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 4);
    check_stats_walk(&e, e.d, 0);
    /* Equal sizes: the lower address first. */
    env_free(&e, r);
    env_free(&e, h2);
    CHECK_INT_EQ(block_at(e.d, r, NULL).size, 4 * KiB);
    CHECK_INT_EQ(block_at(e.d, h2, NULL).size, 2 * KiB);
    env_free(&e, q); /* q's 3 KiB merge with the 1 KiB after: 4 KiB at h4, below r */
    CHECK_INT_EQ(block_at(e.d, h4, NULL).size, 4 * KiB);
    char *u = env_alloc(&e, 4 * KiB, NULL);
    CHECK(u == h4);
    char *v = env_alloc(&e, 4 * KiB, NULL);
    CHECK(v == r);
    check_stats_walk(&e, e.d, 0);
    env_free(&e, u);
    env_free(&e, v);
    env_free(&e, t);
    env_free(&e, p1);
    env_free(&e, p2);
    env_free(&e, p3);
    check_stats_walk(&e, e.d, 0);
    CHECK_INT_EQ(env_stats(e.d).inactive_split[0].current, 0);
    env_end(&e);
}

static void test_merge(void)
{
    test_env e = env_new(1, 0, NULL);
    char *a = env_alloc(&e, 1024, NULL);
    char *b = env_alloc(&e, 2048, NULL);
    char *c = env_alloc(&e, 4096, NULL);
    char *r = c + 4096; /* the rest of the segment */
    th__cuda_memory_stats s = env_stats(e.d);
    CHECK_INT_EQ(s.inactive_split[0].current, 1);
    CHECK_INT_EQ(s.inactive_split_bytes[0].current, 2 * MiB - 7 * KiB);
    env_free(&e, b); /* both neighbours in use: alone */
    th__cuda_block_info ib = block_at(e.d, b, NULL);
    CHECK_INT_EQ(ib.state, TH__CUDA_BLOCK_FREE);
    CHECK_INT_EQ(ib.size, 2048);
    s = env_stats(e.d);
    CHECK_INT_EQ(s.inactive_split[0].current, 2);
    CHECK_INT_EQ(s.inactive_split_bytes[0].current, 2 * MiB - 5 * KiB);
    env_free(&e, a); /* merges with b */
    bool found = true;
    block_at(e.d, b, &found);
    CHECK(!found);
    CHECK_INT_EQ(block_at(e.d, a, NULL).size, 3 * KiB);
    CHECK_INT_EQ(env_stats(e.d).inactive_split[0].current, 2);
    check_stats_walk(&e, e.d, 0);
    env_free(&e, c); /* merges with a+b before it and the rest after it: the whole segment */
    th__cuda_block_info ia = block_at(e.d, a, NULL);
    CHECK_INT_EQ(ia.size, 2 * MiB);
    block_at(e.d, r, &found);
    CHECK(!found);
    s = env_stats(e.d);
    CHECK_INT_EQ(s.inactive_split[0].current, 0);
    CHECK_INT_EQ(s.inactive_split_bytes[0].current, 0);
    CHECK_INT_EQ(s.allocated_bytes[0].current, 0);
    CHECK_INT_EQ(s.reserved_bytes[0].current, 2 * MiB);
    CHECK_INT_EQ(s.allocated_bytes[0].peak, 7 * KiB);
    CHECK_INT_EQ(s.allocations[0].allocated, 3);
    CHECK_INT_EQ(s.allocations[0].freed, 3);
    check_stats_walk(&e, e.d, 0);
    env_end(&e);
}

static void test_oversize(void)
{
    /* Default: no max split size, so a cached 50 MiB block serves a 30 MiB request and is split. */
    test_env e = env_new(1, 0, NULL);
    char *a = env_alloc(&e, 50 * MiB, NULL);
    env_free(&e, a);
    char *b = env_alloc(&e, 30 * MiB, NULL);
    CHECK(b == a);
    CHECK_INT_EQ(block_at(e.d, b, NULL).size, 30 * MiB);
    CHECK_INT_EQ(block_at(e.d, b + 30 * MiB, NULL).size, 20 * MiB);
    CHECK_INT_EQ(env_stats(e.d).max_split_size, SIZE_MAX);
    env_free(&e, b);
    env_end(&e);

    th__cuda_caching_config cfg = {false, 40 * MiB};
    e = env_new(1, 0, &cfg);
    CHECK_INT_EQ(env_stats(e.d).max_split_size, 40 * MiB);
    a = env_alloc(&e, 50 * MiB, NULL);
    env_free(&e, a); /* a cached oversize block */
    /* Below the max split size: never an oversize block. */
    b = env_alloc(&e, 30 * MiB, NULL);
    CHECK(b != a);
    CHECK_INT_EQ(block_at(e.d, b, NULL).segment_size, 30 * MiB);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 2);
    /* At or above it: an oversize block less than 20 MiB larger, whole (never split). */
    char *c = env_alloc(&e, 42 * MiB, NULL);
    CHECK(c == a);
    CHECK_INT_EQ(block_at(e.d, c, NULL).size, 50 * MiB);
    CHECK_INT_EQ(env_stats(e.d).inactive_split[0].current, 0);
    env_free(&e, c);
    char *d = env_alloc(&e, 40 * MiB, NULL); /* 10 MiB larger: taken */
    CHECK(d == a);
    env_free(&e, d);
    char *big = env_alloc(&e, 60 * MiB, NULL);
    env_free(&e, big);
    env_free(&e, b);
    /* Cached now: 30, 50 and 60 MiB. 40 MiB takes the 50 (best fit); with it in use, the 60 MiB block is
     * 20 MiB too large: a new segment. */
    d = env_alloc(&e, 40 * MiB, NULL);
    CHECK(d == a);
    int64_t mallocs = fake_backend_counters(e.f).mallocs;
    char *f = env_alloc(&e, 40 * MiB, NULL);
    CHECK(f != big);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, mallocs + 1);
    CHECK_INT_EQ(block_at(e.d, f, NULL).segment_size, 40 * MiB);
    /* 41 MiB does take the 60 MiB block (19 MiB larger), whole. */
    char *g = env_alloc(&e, 41 * MiB, NULL);
    CHECK(g == big);
    CHECK_INT_EQ(block_at(e.d, g, NULL).size, 60 * MiB);
    check_stats_walk(&e, e.d, 0);
    env_free(&e, d);
    env_free(&e, f);
    env_free(&e, g);
    env_end(&e);
}

typedef struct thread_stream_arg {
    void *seen;
} thread_stream_arg;

static void *read_current_stream(void *arg)
{
    ((thread_stream_arg *)arg)->seen = th__cuda_current_stream(0);
    return NULL;
}

static void test_streams(void)
{
    test_env e = env_new(1, 0, NULL);
    void *s1 = fake_stream_new(e.f, 0), *s2 = fake_stream_new(e.f, 0);
    char *a = env_alloc(&e, 4096, s1);
    env_free(&e, a);
    /* The free block is s1's: s2 gets a segment of its own. */
    char *b = env_alloc(&e, 4096, s2);
    CHECK(b != a);
    CHECK(block_at(e.d, b, NULL).segment != a);
    CHECK(block_at(e.d, b, NULL).stream == s2);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 2);
    CHECK(env_alloc(&e, 4096, s1) == a);
    env_free(&e, a);
    env_free(&e, b);

    /* The th_allocator takes the thread's current stream; another thread has its own (NULL until set). */
    void *ctx = NULL;
    const th_allocator *al = th__cuda_caching_allocator(e.c, 0, &ctx);
    CHECK(al && ctx == e.d);
    CHECK_INT_EQ(al->device.type, TH_DEVICE_CUDA);
    CHECK_INT_EQ(al->device.index, 0);
    CHECK(al->realloc == NULL);
    CHECK_INT_EQ(th__cuda_set_current_stream(0, s2), 0);
    CHECK(th__cuda_current_stream(0) == s2);
    char *c = al->alloc(ctx, 4096);
    CHECK(c == b);
    CHECK(block_at(e.d, c, NULL).stream == s2);
    thread_stream_arg arg = {s1};
    pthread_t th;
    CHECK_INT_EQ(pthread_create(&th, NULL, read_current_stream, &arg), 0);
    pthread_join(th, NULL);
    CHECK(arg.seen == NULL);
    al->free(ctx, c, 4096);
    CHECK_INT_EQ(th__cuda_set_current_stream(0, NULL), 0);
    char *dflt = al->alloc(ctx, 4096);
    CHECK(block_at(e.d, dflt, NULL).stream == NULL);
    al->free(ctx, dflt, 4096);
    CHECK_FAILS(th__cuda_set_current_stream(TH__CUDA_MAX_DEVICES, s1), TH_ERR_RANGE, "th__cuda_set_current_stream",
                "out of range");
    CHECK(th__cuda_current_stream(-1) == NULL);
    check_stats_walk(&e, e.d, 0);
    env_end(&e);
}

static void test_record_stream(void)
{
    test_env e = env_new(1, 0, NULL);
    void *s1 = fake_stream_new(e.f, 0), *s2 = fake_stream_new(e.f, 0), *s3 = fake_stream_new(e.f, 0);
    char *p = env_alloc(&e, 512, s1);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, p, s2), 0);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, p, s1), 0); /* its own stream: ignored */
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, p, s3), 0);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, p, s2), 0); /* once per stream */
    CHECK_INT_EQ(fake_backend_counters(e.f).event_records, 0);   /* events only at the free */
    env_free(&e, p);
    fake_counters fc = fake_backend_counters(e.f);
    CHECK_INT_EQ(fc.event_records, 2);
    CHECK_INT_EQ(fc.event_creates, 2);
    CHECK_INT_EQ(fake_stream_recorded(e.f, 0, s2), 1);
    CHECK_INT_EQ(fake_stream_recorded(e.f, 0, s3), 1);
    th__cuda_block_info ip = block_at(e.d, p, NULL);
    CHECK_INT_EQ(ip.state, TH__CUDA_BLOCK_PENDING);
    CHECK_INT_EQ(ip.events, 2);
    th__cuda_memory_stats s = env_stats(e.d);
    CHECK_INT_EQ(s.allocations[0].current, 0);
    CHECK_INT_EQ(s.active[0].current, 1);
    CHECK_INT_EQ(s.active_bytes[0].current, 512);
    CHECK_INT_EQ(s.events_pending, 2);
    check_stats_walk(&e, e.d, 0);
    /* Not reused while pending: the next 512 bytes come after it. */
    char *q = env_alloc(&e, 512, s1);
    CHECK(q == p + 512);
    fake_stream_complete(e.f, 0, s2);
    char *r = env_alloc(&e, 512, s1); /* s3 is not done: still pending */
    CHECK(r == q + 512);
    CHECK_INT_EQ(block_at(e.d, p, NULL).state, TH__CUDA_BLOCK_PENDING);
    CHECK_INT_EQ(block_at(e.d, p, NULL).events, 1);
    /* Completion alone changes nothing: events are polled at the next allocation. */
    fake_stream_complete(e.f, 0, s3);
    CHECK_INT_EQ(block_at(e.d, p, NULL).state, TH__CUDA_BLOCK_PENDING);
    char *t = env_alloc(&e, 512, s1);
    CHECK(t == p); /* back in the pool at this allocation, and the best fit */
    CHECK_INT_EQ(env_stats(e.d).events_pending, 0);
    /* The two events went back to a pool of idle events: the next such free creates none. */
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, t, s2), 0);
    env_free(&e, t);
    CHECK_INT_EQ(fake_backend_counters(e.f).event_creates, 2);
    CHECK_INT_EQ(fake_backend_counters(e.f).event_records, 3);
    /* Events on one stream complete in order: completing up to the first leaves the second pending. */
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, q, s2), 0);
    env_free(&e, q);
    CHECK_INT_EQ(fake_stream_recorded(e.f, 0, s2), 3);
    fake_stream_complete_to(e.f, 0, s2, 2);
    char *u = env_alloc(&e, 512, s1);
    CHECK(u == t); /* t's event (2nd on s2) is done: t is free again; q (3rd) is not */
    CHECK_INT_EQ(block_at(e.d, q, NULL).state, TH__CUDA_BLOCK_PENDING);
    check_stats_walk(&e, e.d, 0);
    /* record_stream of a pointer that is not a block. */
    CHECK_FAILS(th__cuda_caching_record_stream(e.d, p + 1, s2), TH_ERR_INVALID, "th__cuda_caching_record_stream",
                "not a block");
    /* empty_cache waits for pending events, then releases the free segments. */
    env_free(&e, u);
    env_free(&e, r);
    int64_t event_syncs = fake_backend_counters(e.f).event_syncs;
    CHECK_INT_EQ(th__cuda_caching_empty_cache(e.d), 0);
    CHECK_INT_EQ(fake_backend_counters(e.f).event_syncs, event_syncs + 1);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, 0), 0);
    s = env_stats(e.d);
    CHECK_INT_EQ(s.reserved_bytes[0].current, 0);
    CHECK_INT_EQ(s.events_pending, 0);
    check_stats_walk(&e, e.d, 0);
    env_end(&e);
}

/* A stream destroyed while a block is marked as used on it (th_cuda_stream_free, after synchronising it): the
 * allocator forgets it, so the block's release records no event on it and the block is free at once; marks on
 * other streams stay. */
static void test_forget_stream(void)
{
    test_env e = env_new(1, 0, NULL);
    void *s1 = fake_stream_new(e.f, 0), *s2 = fake_stream_new(e.f, 0), *s3 = fake_stream_new(e.f, 0);
    char *p = env_alloc(&e, 512, s1), *q = env_alloc(&e, 512, s1);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, p, s2), 0);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, q, s2), 0);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, q, s3), 0);
    CHECK_INT_EQ(th__cuda_caching_forget_stream(e.d, s2), 0);
    env_free(&e, p);
    CHECK_INT_EQ(fake_stream_recorded(e.f, 0, s2), 0);
    CHECK_INT_EQ(block_at(e.d, p, NULL).state, TH__CUDA_BLOCK_FREE);
    env_free(&e, q); /* still waits for s3 */
    CHECK_INT_EQ(fake_stream_recorded(e.f, 0, s2), 0);
    CHECK_INT_EQ(fake_stream_recorded(e.f, 0, s3), 1);
    CHECK_INT_EQ(block_at(e.d, q, NULL).state, TH__CUDA_BLOCK_PENDING);
    CHECK_FAILS(th__cuda_caching_forget_stream(NULL, s2), TH_ERR_INVALID, "th__cuda_caching_forget_stream",
                "NULL device allocator");
    fake_stream_complete(e.f, 0, s3);
    check_stats_walk(&e, e.d, 0);
    env_end(&e);
}

/* The out-of-memory sequence: synchronise, look again, release free segments, retry once; the message. */
static void test_oom(void)
{
    /* 1. Releasing a cached free segment makes room. */
    test_env e = env_new(1, 64 * MiB, NULL);
    char *a = env_alloc(&e, 30 * MiB, NULL);
    env_free(&e, a);
    char *b = env_alloc(&e, 40 * MiB, NULL);
    CHECK(b != NULL);
    fake_counters fc = fake_backend_counters(e.f);
    CHECK_INT_EQ(fc.mallocs, 3); /* 30, 40 (failed), 40 */
    CHECK_INT_EQ(fc.malloc_fails, 1);
    CHECK_INT_EQ(fc.frees, 1);
    CHECK_INT_EQ(fc.device_syncs, 1);
    th__cuda_memory_stats s = env_stats(e.d);
    CHECK_INT_EQ(s.oom_retries, 1);
    CHECK_INT_EQ(s.ooms, 0);
    CHECK_INT_EQ(s.syncs, 1);
    CHECK_INT_EQ(s.backend_malloc_fails, 1);
    CHECK_INT_EQ(s.backend_frees, 1);
    CHECK_INT_EQ(s.reserved_bytes[0].current, 40 * MiB);
    check_stats_walk(&e, e.d, 0);
    env_free(&e, b);
    env_end(&e);

    /* 2. The synchronisation completes a block waiting on another stream, which then fits: nothing is
     * released. */
    e = env_new(1, 64 * MiB, NULL);
    void *s1 = fake_stream_new(e.f, 0), *s2 = fake_stream_new(e.f, 0);
    char *small = env_alloc(&e, 512, s1); /* a free segment that must survive */
    env_free(&e, small);
    a = env_alloc(&e, 40 * MiB, s1);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, a, s2), 0);
    env_free(&e, a);
    b = env_alloc(&e, 40 * MiB, s1);
    CHECK(b == a);
    fc = fake_backend_counters(e.f);
    CHECK_INT_EQ(fc.device_syncs, 1);
    CHECK_INT_EQ(fc.frees, 0);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, 0), 42 * MiB);
    s = env_stats(e.d);
    CHECK_INT_EQ(s.oom_retries, 1);
    CHECK_INT_EQ(s.cache_hits, 1);
    check_stats_walk(&e, e.d, 0);
    env_free(&e, b);
    env_end(&e);

    /* 3. Nothing to release: the error, with the fragmentation figures. Three streams each hold 4 MiB of
     * a 20 MiB segment; an 8 MiB request on a fourth needs another 20 MiB. */
    e = env_new(1, 64 * MiB, NULL);
    void *st[4];
    char *held[3];
    for (int i = 0; i < 4; i++) st[i] = fake_stream_new(e.f, 0);
    for (int i = 0; i < 3; i++) held[i] = env_alloc(&e, 4 * MiB, st[i]);
    th_clear_error();
    void *p = (void *)1;
    int rc = th__cuda_caching_malloc(e.d, 8 * MiB, st[3], &p);
    CHECK_INT_EQ(rc, TH_ERR_NOMEM);
    CHECK(p == NULL);
    CHECK_INT_EQ(th_last_status(), TH_ERR_NOMEM);
    const char *msg = th_last_error();
    printf("OOM message: %s\n", msg);
    CHECK(strncmp(msg, "th__cuda_caching_malloc: CUDA out of memory on device 0", 55) == 0);
    CHECK(strstr(msg, "tried to allocate 20.00 MiB (8388608 bytes requested)") != NULL);
    CHECK(strstr(msg, "capacity 64.00 MiB, free 4.00 MiB") != NULL);
    CHECK(strstr(msg, "allocated 12.00 MiB") != NULL);
    CHECK(strstr(msg, "reserved 60.00 MiB") != NULL);
    CHECK(strstr(msg, "reserved but unallocated 48.00 MiB") != NULL);
    CHECK(strstr(msg, "largest free block 16.00 MiB") != NULL);
    CHECK(strstr(msg, "released 0 cached segments (0 bytes)") != NULL);
    fc = fake_backend_counters(e.f);
    CHECK_INT_EQ(fc.mallocs, 5); /* 3, then the failure and its one retry */
    CHECK_INT_EQ(fc.device_syncs, 1);
    s = env_stats(e.d);
    CHECK_INT_EQ(s.oom_retries, 1);
    CHECK_INT_EQ(s.ooms, 1);
    CHECK_INT_EQ(s.backend_malloc_fails, 2);
    /* The same through the th_allocator: NULL, and the message is there. */
    void *ctx = NULL;
    const th_allocator *al = th__cuda_caching_allocator(e.c, 0, &ctx);
    CHECK_INT_EQ(th__cuda_set_current_stream(0, st[3]), 0);
    CHECK(al->alloc(ctx, 8 * MiB) == NULL);
    CHECK(strstr(th_last_error(), "CUDA out of memory") != NULL);
    /* Through a storage too (the core words its own message). */
    th_clear_error();
    CHECK(th_storage_new((int64_t)(8 * MiB), al, ctx) == NULL);
    CHECK_INT_EQ(th_last_status(), TH_ERR_NOMEM);
    CHECK_INT_EQ(th__cuda_set_current_stream(0, NULL), 0);
    /* Free segments are released, the retry fails all the same: the count is in the message. */
    char *extra = env_alloc(&e, 512, st[3]); /* a 2 MiB segment */
    env_free(&e, extra);
    CHECK_INT_EQ(th__cuda_caching_malloc(e.d, 8 * MiB, st[3], &p), TH_ERR_NOMEM);
    CHECK(strstr(th_last_error(), "released 1 cached segment (2.00 MiB)") != NULL);
    CHECK(strstr(th_last_error(), "free 4.00 MiB") != NULL);
    check_stats_walk(&e, e.d, 0);
    for (int i = 0; i < 3; i++) env_free(&e, held[i]);
    env_end(&e);

    /* 4. A small request's OOM: a 2 MiB segment. */
    e = env_new(1, 3 * MiB, NULL);
    a = env_alloc(&e, MiB, NULL);
    b = env_alloc(&e, MiB, NULL);
    CHECK_FAILS(th__cuda_caching_malloc(e.d, 100, NULL, &p), TH_ERR_NOMEM, "th__cuda_caching_malloc",
                "tried to allocate 2.00 MiB (100 bytes requested); capacity 3.00 MiB, free 1.00 MiB");
    env_free(&e, a);
    env_free(&e, b);
    env_end(&e);
}

static void test_backend_errors(void)
{
    test_env e = env_new(1, 64 * MiB, NULL);
    void *p = NULL;
    /* Another CUDA error than out of memory: no sequence, the error's name. */
    fake_backend_fail_next(e.f, FAKE_CALL_MALLOC, FAKE_ERR_LAUNCH_FAILURE, 1);
    CHECK_FAILS(th__cuda_caching_malloc(e.d, 100, NULL, &p), TH_ERR_DEVICE, "th__cuda_caching_malloc",
                "malloc on device 0 failed: cudaErrorLaunchFailure (719)");
    CHECK_INT_EQ(fake_backend_counters(e.f).device_syncs, 0);
    /* The synchronisation of the sequence fails. */
    fake_backend_fail_next(e.f, FAKE_CALL_MALLOC, FAKE_ERR_MEMORY_ALLOCATION, 1);
    fake_backend_fail_next(e.f, FAKE_CALL_DEVICE_SYNCHRONIZE, FAKE_ERR_LAUNCH_FAILURE, 1);
    CHECK_FAILS(th__cuda_caching_malloc(e.d, 100, NULL, &p), TH_ERR_DEVICE, "th__cuda_caching_malloc",
                "device_synchronize on device 0 failed: cudaErrorLaunchFailure");
    /* An injected out of memory, then success at the retry. */
    fake_backend_fail_next(e.f, FAKE_CALL_MALLOC, FAKE_ERR_MEMORY_ALLOCATION, 1);
    p = env_alloc(&e, 100, NULL);
    CHECK(p != NULL);
    /* An event query fails at the next allocation: that allocation fails with its name. */
    void *s2 = fake_stream_new(e.f, 0);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, p, s2), 0);
    env_free(&e, p);
    fake_backend_fail_next(e.f, FAKE_CALL_EVENT_QUERY, FAKE_ERR_LAUNCH_FAILURE, 1);
    CHECK_FAILS(th__cuda_caching_malloc(e.d, 100, NULL, &p), TH_ERR_DEVICE, "th__cuda_caching_malloc",
                "event_query on device 0 failed: cudaErrorLaunchFailure");
    /* An event that cannot be recorded at a free: the device is synchronised instead, the block is free. */
    p = env_alloc(&e, 100, NULL);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, p, s2), 0);
    fake_backend_fail_next(e.f, FAKE_CALL_EVENT_RECORD, FAKE_ERR_LAUNCH_FAILURE, 1);
    int64_t syncs = fake_backend_counters(e.f).device_syncs;
    th_clear_error();
    CHECK_INT_EQ(th__cuda_caching_release(e.d, p), 0);
    CHECK(strstr(th_last_error(), "event_record") != NULL);
    CHECK_INT_EQ(fake_backend_counters(e.f).device_syncs, syncs + 1);
    fake_stream_complete(e.f, 0, s2);
    check_stats_walk(&e, e.d, 0);
    /* A failed backend free keeps the segment. */
    fake_backend_fail_next(e.f, FAKE_CALL_FREE, FAKE_ERR_LAUNCH_FAILURE, 1);
    CHECK_FAILS(th__cuda_caching_empty_cache(e.d), TH_ERR_DEVICE, "th__cuda_caching_empty_cache",
                "free on device 0 failed");
    CHECK(env_stats(e.d).reserved_bytes[0].current > 0);
    check_stats_walk(&e, e.d, 0);
    CHECK_INT_EQ(th__cuda_caching_empty_cache(e.d), 0);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, 0), 0);
    env_end(&e);
}

static void test_stats(void)
{
    test_env e = env_new(1, 0, NULL);
    void *s1 = fake_stream_new(e.f, 0);
    char *p[6];
    size_t sizes[6] = {100, 3000, MiB, 3 * MiB, 12 * MiB, 600};
    for (int i = 0; i < 6; i++) p[i] = env_alloc(&e, sizes[i], i % 2 ? s1 : NULL);
    th__cuda_memory_stats s = env_stats(e.d);
    CHECK_INT_EQ(s.allocations[TH__CUDA_POOL_SMALL].current, 4);
    CHECK_INT_EQ(s.allocations[TH__CUDA_POOL_LARGE].current, 2);
    CHECK_INT_EQ(s.allocated_bytes[TH__CUDA_POOL_SMALL].current, 512 + 3072 + MiB + 1024);
    CHECK_INT_EQ(s.allocated_bytes[TH__CUDA_POOL_LARGE].current, 15 * MiB);
    CHECK_INT_EQ(s.requested_bytes[0].current, 100 + 3000 + MiB + 3 * MiB + 12 * MiB + 600);
    /* segments: small on NULL (100, 1 MiB), small on s1 (3000, 600), large on s1 (3 MiB), large own (12) */
    CHECK_INT_EQ(s.segments[TH__CUDA_POOL_SMALL].current, 2);
    CHECK_INT_EQ(s.segments[TH__CUDA_POOL_LARGE].current, 2);
    CHECK_INT_EQ(s.reserved_bytes[0].current, 2 * MiB + 2 * MiB + 20 * MiB + 12 * MiB);
    CHECK_INT_EQ(s.backend_mallocs, 4);
    CHECK_INT_EQ(s.cache_hits, 2);
    check_stats_walk(&e, e.d, 0);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, p[2], s1), 0);
    for (int i = 0; i < 6; i++) {
        env_free(&e, p[i]);
        check_stats_walk(&e, e.d, 0);
    }
    s = env_stats(e.d);
    CHECK_INT_EQ(s.allocations[0].current, 0);
    CHECK_INT_EQ(s.allocations[0].peak, 6);
    CHECK_INT_EQ(s.allocations[0].allocated, 6);
    CHECK_INT_EQ(s.allocations[0].freed, 6);
    CHECK_INT_EQ(s.active[0].current, 1); /* p[2] waits for s1 */
    CHECK_INT_EQ(s.allocated_bytes[0].peak, 512 + 3072 + MiB + 1024 + 15 * MiB);
    CHECK_INT_EQ(th__cuda_caching_reset_peak_stats(e.d), 0);
    s = env_stats(e.d);
    CHECK_INT_EQ(s.allocations[0].peak, 0);
    CHECK_INT_EQ(s.reserved_bytes[0].peak, s.reserved_bytes[0].current);
    CHECK_INT_EQ(s.allocations[0].allocated, 6); /* totals stay */
    fake_stream_complete(e.f, 0, s1);
    CHECK_INT_EQ(th__cuda_caching_empty_cache(e.d), 0);
    s = env_stats(e.d);
    CHECK_INT_EQ(s.reserved_bytes[0].current, 0);
    CHECK_INT_EQ(s.segments[0].current, 0);
    CHECK_INT_EQ(s.backend_frees, 4);
    CHECK_INT_EQ(s.active[0].current, 0);
    CHECK_INT_EQ(s.largest_free_block, 0);
    check_stats_walk(&e, e.d, 0);
    /* segment_of: the segment's base and size, for IPC. */
    char *q = env_alloc(&e, 3 * MiB, NULL);
    char *r = env_alloc(&e, 3 * MiB, NULL);
    void *base = NULL;
    size_t size = 0;
    CHECK_INT_EQ(th__cuda_caching_segment_of(e.d, r, &base, &size), 0);
    CHECK(base == q);
    CHECK_INT_EQ(size, 20 * MiB);
    CHECK_FAILS(th__cuda_caching_segment_of(e.d, r + 512, &base, &size), TH_ERR_INVALID,
                "th__cuda_caching_segment_of", "not a block");
    env_free(&e, q);
    env_free(&e, r);
    env_end(&e);
}

static void test_no_caching(void)
{
    th__cuda_caching_config cfg = {true, 0};
    test_env e = env_new(1, 0, &cfg);
    char *a = env_alloc(&e, 1000, NULL);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, 0), 1000); /* the exact size */
    CHECK_INT_EQ(block_at(e.d, a, NULL).size, 1000);
    void *s2 = fake_stream_new(e.f, 0);
    CHECK_INT_EQ(th__cuda_caching_record_stream(e.d, a, s2), 0);
    th__cuda_memory_stats s = env_stats(e.d);
    CHECK(!s.caching);
    CHECK_INT_EQ(s.reserved_bytes[0].current, 1000);
    CHECK_INT_EQ(s.allocated_bytes[0].current, 1000);
    check_stats_walk(&e, e.d, 0);
    env_free(&e, a);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, 0), 0); /* straight back */
    CHECK_INT_EQ(fake_backend_counters(e.f).frees, 1);
    CHECK_INT_EQ(fake_backend_counters(e.f).event_records, 0);
    char *b = env_alloc(&e, 1000, NULL);
    CHECK_INT_EQ(fake_backend_counters(e.f).mallocs, 2);
    CHECK_INT_EQ(env_stats(e.d).cache_hits, 0);
    env_free(&e, b);
    check_stats_walk(&e, e.d, 0);
    env_end(&e);
    /* Out of memory without caching: no sequence. */
    e = env_new(1, MiB, &cfg);
    void *p = NULL;
    CHECK_FAILS(th__cuda_caching_malloc(e.d, 2 * MiB, NULL, &p), TH_ERR_NOMEM, "th__cuda_caching_malloc",
                "tried to allocate 2.00 MiB (caching off)");
    CHECK_INT_EQ(fake_backend_counters(e.f).device_syncs, 0);
    env_end(&e);
}

static void test_env_config(void)
{
    th__cuda_caching_config cfg;
    unsetenv("TH_CUDA_NO_CACHING");
    unsetenv("TH_CUDA_ALLOC_CONF");
    CHECK_INT_EQ(th__cuda_caching_config_from_env(&cfg), 0);
    CHECK(!cfg.no_caching);
    CHECK_INT_EQ(cfg.max_split_size, 0);
    setenv("TH_CUDA_NO_CACHING", "1", 1);
    CHECK_INT_EQ(th__cuda_caching_config_from_env(&cfg), 0);
    CHECK(cfg.no_caching);
    setenv("TH_CUDA_NO_CACHING", "0", 1);
    CHECK_INT_EQ(th__cuda_caching_config_from_env(&cfg), 0);
    CHECK(!cfg.no_caching);
    setenv("TH_CUDA_ALLOC_CONF", "max_split_size_mb:64", 1);
    CHECK_INT_EQ(th__cuda_caching_config_from_env(&cfg), 0);
    CHECK_INT_EQ(cfg.max_split_size, 64 * MiB);
    setenv("TH_CUDA_ALLOC_CONF", " max_split_size_mb : 21 ,", 1);
    CHECK_INT_EQ(th__cuda_caching_config_from_env(&cfg), 0);
    CHECK_INT_EQ(cfg.max_split_size, 21 * MiB);
    setenv("TH_CUDA_ALLOC_CONF", "", 1);
    CHECK_INT_EQ(th__cuda_caching_config_from_env(&cfg), 0);
    CHECK_INT_EQ(cfg.max_split_size, 0);
    setenv("TH_CUDA_ALLOC_CONF", "max_split_size_mb:20", 1);
    CHECK_FAILS(th__cuda_caching_config_from_env(&cfg), TH_ERR_INVALID, "th__cuda_caching_config_from_env",
                "max_split_size_mb must be more than 20 (got 20)");
    setenv("TH_CUDA_ALLOC_CONF", "garbage_collection_threshold:1", 1);
    CHECK_FAILS(th__cuda_caching_config_from_env(&cfg), TH_ERR_INVALID, "th__cuda_caching_config_from_env",
                "unknown option 'garbage_collection_threshold' (known: max_split_size_mb)");
    setenv("TH_CUDA_ALLOC_CONF", "max_split_size_mb:64MB", 1);
    CHECK_FAILS(th__cuda_caching_config_from_env(&cfg), TH_ERR_INVALID, "th__cuda_caching_config_from_env",
                "is not a whole number");
    setenv("TH_CUDA_ALLOC_CONF", "max_split_size_mb", 1);
    CHECK_FAILS(th__cuda_caching_config_from_env(&cfg), TH_ERR_INVALID, "th__cuda_caching_config_from_env",
                "has no ':value'");
    setenv("TH_CUDA_ALLOC_CONF", "max_split_size_mb:99999999999999999999999", 1);
    CHECK_FAILS(th__cuda_caching_config_from_env(&cfg), TH_ERR_INVALID, "th__cuda_caching_config_from_env",
                "too large");
    /* A NULL config reads the environment: a bad one refuses to make the allocator. */
    fake_backend *f = fake_backend_new(NULL);
    setenv("TH_CUDA_ALLOC_CONF", "max_split_size_mb:1", 1);
    CHECK(th__cuda_caching_new(fake_backend_table(f), NULL) == NULL);
    CHECK(strstr(th_last_error(), "max_split_size_mb") != NULL);
    setenv("TH_CUDA_ALLOC_CONF", "max_split_size_mb:100", 1);
    setenv("TH_CUDA_NO_CACHING", "yes", 1);
    th__cuda_caching *c = th__cuda_caching_new(fake_backend_table(f), NULL);
    CHECK(c != NULL);
    th__cuda_memory_stats s = env_stats(th__cuda_caching_dev_get(c, 0));
    CHECK_INT_EQ(s.max_split_size, 100 * MiB);
    CHECK(!s.caching);
    CHECK_INT_EQ(th__cuda_caching_delete(c), 0);
    CHECK_INT_EQ(fake_backend_delete(f), 0);
    unsetenv("TH_CUDA_NO_CACHING");
    unsetenv("TH_CUDA_ALLOC_CONF");
    /* A max split size in the config is checked too. */
    f = fake_backend_new(NULL);
    th__cuda_caching_config bad = {false, 20 * MiB};
    CHECK_NULL(th__cuda_caching_new(fake_backend_table(f), &bad), TH_ERR_INVALID, "th__cuda_caching_new",
               "must be more than");
    CHECK_NULL(th__cuda_caching_new(NULL, NULL), TH_ERR_INVALID, "th__cuda_caching_new", "NULL backend");
    CHECK_INT_EQ(fake_backend_delete(f), 0);
}

static void test_misuse(void)
{
    test_env e = env_new(2, 0, NULL);
    char *a = env_alloc(&e, 100, NULL);
    CHECK_FAILS(th__cuda_caching_release(e.d, a + 512), TH_ERR_INVALID, "th__cuda_caching_release",
                "is not a block handed out by the allocator of device 0");
    env_free(&e, a);
    CHECK_FAILS(th__cuda_caching_release(e.d, a), TH_ERR_INVALID, "th__cuda_caching_release", "not a block");
    CHECK_INT_EQ(th__cuda_caching_release(e.d, NULL), 0);
    void *p = NULL;
    CHECK_FAILS(th__cuda_caching_malloc(e.d, SIZE_MAX - 10, NULL, &p), TH_ERR_OVERFLOW, "th__cuda_caching_malloc",
                "too large");
    CHECK_FAILS(th__cuda_caching_malloc(NULL, 10, NULL, &p), TH_ERR_INVALID, "th__cuda_caching_malloc", "NULL");
    CHECK_NULL(th__cuda_caching_dev_get(e.c, 2), TH_ERR_RANGE, "th__cuda_caching_dev_get",
               "device 2 is out of range: the backend has 2 devices");
    CHECK_NULL(th__cuda_caching_allocator(e.c, -1, NULL), TH_ERR_RANGE, "th__cuda_caching_dev_get", "device -1");
    CHECK_INT_EQ(th__cuda_caching_device_count(e.c), 2);
    /* Free through the th_allocator with another size than asked: recorded, the block freed all the same. */
    void *ctx = NULL;
    const th_allocator *al = th__cuda_caching_allocator(e.c, 0, &ctx);
    char *b = al->alloc(ctx, 1000);
    th_clear_error();
    al->free(ctx, b, 999);
    CHECK_INT_EQ(th_last_status(), TH_ERR_INVALID);
    CHECK(strstr(th_last_error(), "was allocated with 1000 bytes, freed with 999") != NULL);
    CHECK_INT_EQ(env_stats(e.d).allocations[0].current, 0);
    /* A block of device 1 is not device 0's. */
    th__cuda_caching_dev *d1 = th__cuda_caching_dev_get(e.c, 1);
    void *c1 = NULL;
    CHECK_INT_EQ(th__cuda_caching_malloc(d1, 100, NULL, &c1), 0);
    CHECK(fake_backend_is_live(e.f, 1, c1, 512));
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, 1), 2 * MiB);
    CHECK_FAILS(th__cuda_caching_release(e.d, c1), TH_ERR_INVALID, "th__cuda_caching_release", "device 0");
    void *ctx1 = NULL;
    const th_allocator *al1 = th__cuda_caching_allocator(e.c, 1, &ctx1);
    CHECK_INT_EQ(al1->device.index, 1);
    /* A storage over device memory: its device is the allocator's, and its release frees the block. */
    th_storage *st = th_storage_new(4096, al1, ctx1);
    CHECK(st != NULL);
    CHECK_INT_EQ(th_storage_device(st).type, TH_DEVICE_CUDA);
    CHECK_INT_EQ(th_storage_device(st).index, 1);
    CHECK_INT_EQ(env_stats(d1).allocations[0].current, 2);
    th_storage_release(st);
    CHECK_INT_EQ(env_stats(d1).allocations[0].current, 1);
    check_stats_walk(&e, d1, 1);
    /* delete with a block still allocated: released, and said. */
    th_clear_error();
    CHECK_INT_EQ(th__cuda_caching_delete(e.c), TH_ERR_INVALID);
    CHECK(strstr(th_last_error(), "device 1: 1 block still allocated were released") != NULL);
    CHECK_INT_EQ(fake_backend_delete(e.f), 0);
}

/* Thousands of blocks: the address map grows, the pool trees get deep, frees in a shuffled order. */
static void test_many_blocks(void)
{
    enum { N = 3000 };
    test_env e = env_new(1, 0, NULL);
    static char *p[N];
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = env_alloc(&e, 1 + (size_t)(x % (96 * KiB)), NULL);
    }
    check_stats_walk(&e, e.d, 0);
    for (int i = N - 1; i > 0; i--) { /* Fisher-Yates */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int j = (int)(x % (uint64_t)(i + 1));
        char *t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
    for (int i = 0; i < N; i++) {
        env_free(&e, p[i]);
        if (i % 500 == 0) check_stats_walk(&e, e.d, 0);
    }
    th__cuda_memory_stats s = env_stats(e.d);
    CHECK_INT_EQ(s.allocations[0].current, 0);
    CHECK_INT_EQ(s.inactive_split[0].current, 0); /* every segment merged back whole */
    CHECK_INT_EQ(s.segments[0].current, s.backend_mallocs);
    check_stats_walk(&e, e.d, 0);
    env_end(&e);
}

int main(void)
{
    test_begin();
    test_rounding();
    test_small_split();
    test_large_split();
    test_best_fit();
    test_merge();
    test_oversize();
    test_streams();
    test_record_stream();
    test_forget_stream();
    test_oom();
    test_backend_errors();
    test_stats();
    test_no_caching();
    test_env_config();
    test_misuse();
    test_many_blocks();
    return test_end("test_cuda_alloc");
}
