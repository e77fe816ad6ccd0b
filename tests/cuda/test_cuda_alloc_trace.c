/* A long random trace (seeded) against a simple reference model: allocations and frees of every size class,
 * record_stream, work submitted on streams, streams completing, empty_cache, across 3 streams on each of
 * 2 devices whose capacity makes out-of-memory a regular event.
 *
 * What the model holds and checks:
 *   - the live blocks (device, stream, pointer, size): a new block overlaps none of them, lies inside one
 *     backend allocation of its device, and belongs to the stream it was asked for (the model remembers
 *     which stream each backend allocation served first: a segment never changes stream);
 *   - a pattern written at both ends of every live block is intact at its free (a block handed out twice
 *     would have been overwritten);
 *   - the blocks freed after use on other streams, with, per stream, the last work submitted before the
 *     free: none of them is handed out again before all that work has completed;
 *   - an out-of-memory failure is real (the device's live bytes plus the segment asked for exceed its
 *     capacity) and left no free segment and no pending event behind (the sequence released and
 *     synchronised everything it could);
 *   - periodically: the statistics against a walk of the blocks and the allocator's invariant check, the
 *     fake's canaries, the model's count and bytes of live blocks against the statistics;
 *   - at the end: everything freed, every stream completed, empty_cache gives every byte back to the backend.
 * TH_CUDA_TRACE_OPS sets the number of operations (default 100000), TH_CUDA_TRACE_SEED the seed. */
#include <stdlib.h>

#include "cuda_test.h"

enum { DEVICES = 2, STREAMS = 3, MAX_LIVE = 48, MAX_PENDING = 4096 };
#define CAPACITY ((size_t)192 << 20)

typedef struct live_block {
    int dev, stream;
    char *ptr;
    size_t size, block_size;
    uint64_t tag;
    unsigned used; /* streams it was used on, as a mask */
    bool via_allocator; /* allocated through the th_allocator (freed through it too) */
} live_block;

typedef struct pending_block {
    int dev;
    char *ptr;
    size_t size;
    uint64_t need[STREAMS]; /* per stream: completed must reach this before reuse (0: no need) */
} pending_block;

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

static size_t rnd_below(size_t n) { return (size_t)(rnd() % n); }

static test_env env;
static th__cuda_caching_dev *devs[DEVICES];
static void *streams[DEVICES][STREAMS];
static void *work_events[DEVICES][STREAMS];
static live_block live[MAX_LIVE];
static int nlive;
static pending_block pending[MAX_PENDING];
static int npending;
static signed char *seg_owner; /* by the fake's allocation id: stream + 1, 0 unknown */
static size_t seg_owner_cap;
static long n_alloc, n_free, n_oom, n_record, n_complete, n_empty, n_work, n_reuse_after_wait, max_live;
static int violations;

#define VIOLATION(...)                                                                                     \
    do {                                                                                                   \
        if (violations++ < 20) {                                                                           \
            fprintf(stderr, "trace violation: ");                                                          \
            fprintf(stderr, __VA_ARGS__);                                                                  \
            fprintf(stderr, "\n");                                                                         \
        }                                                                                                  \
    } while (0)

static size_t random_size(void)
{
    size_t k = rnd_below(100);
    if (k < 60) { /* small, log-uniform over 1 byte .. 1 MiB */
        int bits = (int)rnd_below(21);
        return ((size_t)1 << bits) + rnd_below((size_t)1 << bits) / 2 + (bits == 0);
    }
    if (k < 92) return MiB + 1 + rnd_below(9 * MiB); /* 1..10 MiB: from 20 MiB segments */
    return 10 * MiB + rnd_below(30 * MiB);           /* own segments */
}

/* 8 bytes at each end (fewer, not overlapping, for blocks under 16 bytes). */
static size_t pattern_bytes(const live_block *b) { return b->size >= 16 ? 8 : b->size / 2; }

static void write_pattern(const live_block *b)
{
    size_t n = pattern_bytes(b);
    for (size_t i = 0; i < n; i++) {
        b->ptr[i] = (char)(b->tag >> (8 * i));
        b->ptr[b->size - n + i] = (char)(b->tag >> (8 * i) ^ 0x5a);
    }
}

static bool pattern_intact(const live_block *b)
{
    size_t n = pattern_bytes(b);
    for (size_t i = 0; i < n; i++)
        if (b->ptr[i] != (char)(b->tag >> (8 * i)) || b->ptr[b->size - n + i] != (char)(b->tag >> (8 * i) ^ 0x5a))
            return false;
    return true;
}

static bool overlaps(const char *a, size_t an, const char *b, size_t bn) { return a < b + bn && b < a + an; }

static bool pending_done(const pending_block *p)
{
    for (int s = 0; s < STREAMS; s++)
        if (p->need[s] && fake_stream_completed(env.f, p->dev, streams[p->dev][s]) < p->need[s]) return false;
    return true;
}

static void note_owner(int dev, const th__cuda_block_info *info, int stream)
{
    uint64_t id = fake_backend_alloc_id(env.f, info->segment);
    if (!id) {
        VIOLATION("block %p's segment %p is not a backend allocation", info->ptr, info->segment);
        return;
    }
    if (id >= seg_owner_cap) {
        size_t cap = seg_owner_cap ? seg_owner_cap : 1024;
        while (cap <= id) cap *= 2;
        seg_owner = (signed char *)realloc(seg_owner, cap);
        memset(seg_owner + seg_owner_cap, 0, cap - seg_owner_cap);
        seg_owner_cap = cap;
    }
    if (!seg_owner[id])
        seg_owner[id] = (signed char)(stream + 1);
    else if (seg_owner[id] != stream + 1)
        VIOLATION("device %d: segment %llu served stream %d, now stream %d", dev, (unsigned long long)id,
                  seg_owner[id] - 1, stream);
}

static int whole_free_visit(void *arg, const th__cuda_block_info *b)
{
    if (b->state == TH__CUDA_BLOCK_FREE && b->size == b->segment_size) ++*(int *)arg;
    return 0;
}

static int whole_free_segments(int dev)
{
    int n = 0;
    th__cuda_caching_walk(devs[dev], whole_free_visit, &n);
    return n;
}

static void op_alloc(void)
{
    if (nlive == MAX_LIVE) return;
    int dev = (int)rnd_below(DEVICES), s = (int)rnd_below(STREAMS);
    size_t size = random_size();
    void *p = NULL;
    bool via_allocator = rnd_below(8) == 0;
    int rc;
    if (via_allocator) {
        void *ctx = NULL;
        const th_allocator *al = th__cuda_caching_allocator(env.c, dev, &ctx);
        th__cuda_set_current_stream(dev, streams[dev][s]);
        th_clear_error();
        p = al->alloc(ctx, size);
        rc = p ? 0 : th_last_status();
        th__cuda_set_current_stream(dev, NULL);
    } else {
        rc = th__cuda_caching_malloc(devs[dev], size, streams[dev][s], &p);
    }
    if (rc == TH_ERR_NOMEM) {
        n_oom++;
        size_t need = th__cuda_caching_segment_size(th__cuda_caching_round_size(size));
        if (fake_backend_live_bytes(env.f, dev) + need <= CAPACITY)
            VIOLATION("out of memory for %zu bytes on device %d with %zu of %zu bytes live", size, dev,
                      fake_backend_live_bytes(env.f, dev), CAPACITY);
        if (!strstr(th_last_error(), "CUDA out of memory on device"))
            VIOLATION("out-of-memory message: %s", th_last_error());
        if (whole_free_segments(dev)) VIOLATION("a free segment survived the out-of-memory sequence");
        if (env_stats(devs[dev]).events_pending) VIOLATION("events pending after the out-of-memory sequence");
        return;
    }
    if (rc) {
        VIOLATION("allocation of %zu bytes failed: %s", size, th_last_error());
        return;
    }
    n_alloc++;
    bool found = false;
    th__cuda_block_info info = block_at(devs[dev], p, &found);
    if (!found || info.state != TH__CUDA_BLOCK_ALLOCATED || info.stream != streams[dev][s] ||
        info.requested != size || info.size < th__cuda_caching_round_size(size)) {
        VIOLATION("block %p for %zu bytes on stream %d: found %d state %d requested %zu size %zu", p, size, s, found,
                  info.state, info.requested, info.size);
        return;
    }
    if (!fake_backend_is_live(env.f, dev, p, info.size)) VIOLATION("block %p is not inside a backend allocation", p);
    note_owner(dev, &info, s);
    for (int i = 0; i < nlive; i++)
        if (live[i].dev == dev && overlaps(live[i].ptr, live[i].block_size, p, info.size))
            VIOLATION("block %p (%zu) overlaps live block %p (%zu)", p, info.size, (void *)live[i].ptr, live[i].block_size);
    for (int i = 0; i < npending;) {
        if (pending[i].dev == dev && pending_done(&pending[i])) {
            if (overlaps(pending[i].ptr, pending[i].size, p, info.size)) n_reuse_after_wait++;
            pending[i] = pending[--npending];
            continue;
        }
        if (pending[i].dev == dev && overlaps(pending[i].ptr, pending[i].size, p, info.size))
            VIOLATION("block %p reused before the streams it was used on completed", (void *)pending[i].ptr);
        i++;
    }
    live_block *b = &live[nlive++];
    b->dev = dev;
    b->stream = s;
    b->ptr = (char *)p;
    b->size = size;
    b->block_size = info.size;
    b->tag = rnd();
    b->used = 0;
    b->via_allocator = via_allocator;
    write_pattern(b);
    if (nlive > max_live) max_live = nlive;
}

/* Work that may use a block: an event of the test recorded on the stream, so the stream has something to
 * complete after it. */
static void submit_work(int dev, int s)
{
    n_work++;
    const th_cuda_backend *be = env.be;
    if (be->event_record(be->ctx, work_events[dev][s], streams[dev][s])) VIOLATION("work record failed");
}

static void op_free(void)
{
    if (!nlive) return;
    int i = (int)rnd_below((size_t)nlive);
    live_block b = live[i];
    live[i] = live[--nlive];
    if (!pattern_intact(&b)) VIOLATION("block %p's pattern was overwritten while live", (void *)b.ptr);
    if (b.used && npending < MAX_PENDING) {
        pending_block *p = &pending[npending++];
        p->dev = b.dev;
        p->ptr = b.ptr;
        p->size = b.block_size;
        for (int s = 0; s < STREAMS; s++)
            p->need[s] = (b.used >> s & 1) ? fake_stream_recorded(env.f, b.dev, streams[b.dev][s]) : 0;
    }
    n_free++;
    if (b.via_allocator) {
        void *ctx = NULL;
        const th_allocator *al = th__cuda_caching_allocator(env.c, b.dev, &ctx);
        th_clear_error();
        al->free(ctx, b.ptr, b.size);
        if (th_last_status()) VIOLATION("free through the th_allocator: %s", th_last_error());
    } else if (th__cuda_caching_release(devs[b.dev], b.ptr)) {
        VIOLATION("release of %p: %s", (void *)b.ptr, th_last_error());
    }
}

static void op_record(void)
{
    if (!nlive) return;
    live_block *b = &live[rnd_below((size_t)nlive)];
    int s = (int)rnd_below(STREAMS);
    if (th__cuda_caching_record_stream(devs[b->dev], b->ptr, streams[b->dev][s]))
        VIOLATION("record_stream: %s", th_last_error());
    n_record++;
    if (s != b->stream) b->used |= 1u << s;
    submit_work(b->dev, s);
}

static void op_complete(void)
{
    int dev = (int)rnd_below(DEVICES), s = (int)rnd_below(STREAMS);
    uint64_t done = fake_stream_completed(env.f, dev, streams[dev][s]);
    uint64_t rec = fake_stream_recorded(env.f, dev, streams[dev][s]);
    n_complete++;
    if (rec > done) fake_stream_complete_to(env.f, dev, streams[dev][s], done + 1 + rnd_below((size_t)(rec - done)));
}

static void op_empty_cache(void)
{
    int dev = (int)rnd_below(DEVICES);
    n_empty++;
    if (th__cuda_caching_empty_cache(devs[dev])) VIOLATION("empty_cache: %s", th_last_error());
    if (whole_free_segments(dev)) VIOLATION("a free segment survived empty_cache");
    if (env_stats(devs[dev]).events_pending) VIOLATION("events pending after empty_cache");
}

static void check_all(void)
{
    for (int d = 0; d < DEVICES; d++) {
        if (check_stats_walk(&env, devs[d], d)) VIOLATION("statistics and walk disagree on device %d", d);
        int64_t count = 0, requested = 0;
        for (int i = 0; i < nlive; i++)
            if (live[i].dev == d) {
                count++;
                requested += (int64_t)live[i].size;
            }
        th__cuda_memory_stats s = env_stats(devs[d]);
        if (s.allocations[0].current != count || s.requested_bytes[0].current != requested)
            VIOLATION("device %d: the model has %lld blocks (%lld bytes), the statistics %lld (%lld)", d,
                      (long long)count, (long long)requested, (long long)s.allocations[0].current,
                      (long long)s.requested_bytes[0].current);
    }
    if (fake_backend_check(env.f)) VIOLATION("the fake backend saw a problem (canary, bad free)");
}

int main(void)
{
    test_begin();
    long ops = 100000;
    const char *v = getenv("TH_CUDA_TRACE_OPS");
    if (v && *v) ops = strtol(v, NULL, 10);
    v = getenv("TH_CUDA_TRACE_SEED");
    rng_state = v && *v ? strtoull(v, NULL, 10) : UINT64_C(0x2545F4914F6CDD1D);
    if (!rng_state) rng_state = 1;
    uint64_t seed = rng_state;

    env = env_new(DEVICES, CAPACITY, NULL);
    for (int d = 0; d < DEVICES; d++) {
        devs[d] = th__cuda_caching_dev_get(env.c, d);
        streams[d][0] = NULL;
        for (int s = 1; s < STREAMS; s++) streams[d][s] = fake_stream_new(env.f, d);
        for (int s = 0; s < STREAMS; s++) CHECK_INT_EQ(env.be->event_create(env.be->ctx, d, &work_events[d][s]), 0);
    }
    for (long i = 0; i < ops && violations < 20; i++) {
        size_t r = rnd_below(1000);
        if (r < 420)
            op_alloc();
        else if (r < 800)
            op_free();
        else if (r < 880)
            op_record();
        else if (r < 900)
            submit_work((int)rnd_below(DEVICES), (int)rnd_below(STREAMS));
        else if (r < 997)
            op_complete();
        else
            op_empty_cache();
        if (nlive == MAX_LIVE) /* keep memory in use near the capacity, not at it */
            for (int k = 0; k < 8; k++) op_free();
        if (i % 2000 == 1999) check_all();
    }
    check_all();
    /* The end: everything freed, every stream done, the cache emptied: every byte back to the backend. */
    while (nlive) op_free();
    for (int d = 0; d < DEVICES; d++) {
        fake_device_complete(env.f, d);
        CHECK_INT_EQ(th__cuda_caching_empty_cache(devs[d]), 0);
        th__cuda_memory_stats s = env_stats(devs[d]);
        CHECK_INT_EQ(s.reserved_bytes[0].current, 0);
        CHECK_INT_EQ(s.allocations[0].current, 0);
        CHECK_INT_EQ(s.active[0].current, 0);
        CHECK_INT_EQ(s.backend_mallocs, s.backend_frees);
        CHECK_INT_EQ(fake_backend_live_bytes(env.f, d), 0);
        CHECK_INT_EQ(fake_backend_live_allocs(env.f, d), 0);
        check_stats_walk(&env, devs[d], d);
        printf("device %d: %lld backend mallocs, %lld cache hits, %lld out-of-memory sequences (%lld failed), "
               "peak reserved %.1f MiB, peak allocated %.1f MiB\n",
               d, (long long)s.backend_mallocs, (long long)s.cache_hits, (long long)s.oom_retries, (long long)s.ooms,
               (double)s.reserved_bytes[0].peak / (double)MiB, (double)s.allocated_bytes[0].peak / (double)MiB);
    }
    fake_counters fc = fake_backend_counters(env.f);
    CHECK_INT_EQ(fc.mallocs - fc.malloc_fails, fc.frees);
    for (int d = 0; d < DEVICES; d++)
        for (int s = 0; s < STREAMS; s++) CHECK_INT_EQ(env.be->event_destroy(env.be->ctx, work_events[d][s]), 0);
    env_end(&env);
    free(seg_owner);
    printf("trace: seed %llu, %ld ops: %ld allocs, %ld frees, %ld out of memory, %ld record_stream, %ld work, "
           "%ld completions, %ld empty_cache, %ld reuses after a wait, at most %ld live\n",
           (unsigned long long)seed, ops, n_alloc, n_free, n_oom, n_record, n_work, n_complete, n_empty,
           n_reuse_after_wait, max_live);
    CHECK_INT_EQ(violations, 0);
    if (ops >= 20000) CHECK(n_oom > 0 && n_reuse_after_wait > 0 && n_empty > 0); /* the trace did its job */
    return test_end("test_cuda_alloc_trace");
}
