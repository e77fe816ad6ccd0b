/* tests/cuda/cuda_test.h: what the CUDA policy tests share: a fake backend with an allocator over it, and
 * the statistics recounted from a walk of the blocks. */
#ifndef TH_TESTS_CUDA_TEST_H
#define TH_TESTS_CUDA_TEST_H

#include "../check.h"
#include "cuda/caching_allocator.h"
#include "cuda/pinned_cache.h"
#include "fake_backend.h"

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

typedef struct test_env {
    fake_backend *f;
    const th_cuda_backend *be;
    th__cuda_caching *c;
    th__cuda_caching_dev *d; /* device 0 */
} test_env;

/* capacity 0: 1 GiB a device; cfg NULL: every default (the environment is not read). */
static inline test_env env_new(int devices, size_t capacity, const th__cuda_caching_config *cfg)
{
    test_env e;
    fake_backend_config fc = {devices, capacity, 0, false};
    th__cuda_caching_config zero = {false, 0};
    e.f = fake_backend_new(&fc);
    e.be = fake_backend_table(e.f);
    e.c = th__cuda_caching_new(e.be, cfg ? cfg : &zero);
    e.d = th__cuda_caching_dev_get(e.c, 0);
    if (!e.c) fprintf(stderr, "th__cuda_caching_new: %s\n", th_last_error());
    return e;
}

/* Deletes the allocator, then the fake, which must have seen no problem and hold nothing. */
static inline void env_end(test_env *e)
{
    int rc = th__cuda_caching_delete(e->c);
    if (rc) fprintf(stderr, "th__cuda_caching_delete: %s\n", th_last_error());
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(fake_backend_delete(e->f), 0);
}

static inline void *env_alloc(test_env *e, size_t n, void *stream)
{
    void *p = NULL;
    int rc = th__cuda_caching_malloc(e->d, n, stream, &p);
    if (rc) fprintf(stderr, "env_alloc(%zu): %s\n", n, th_last_error());
    CHECK_INT_EQ(rc, 0);
    return p;
}

static inline void env_free(test_env *e, void *p)
{
    int rc = th__cuda_caching_release(e->d, p);
    if (rc) fprintf(stderr, "env_free(%p): %s\n", p, th_last_error());
    CHECK_INT_EQ(rc, 0);
}

static inline th__cuda_memory_stats env_stats(th__cuda_caching_dev *d)
{
    th__cuda_memory_stats s;
    memset(&s, 0, sizeof s);
    CHECK_INT_EQ(th__cuda_caching_get_stats(d, &s), 0);
    return s;
}

/* ---- the walk ------------------------------------------------------------------------------------- */

typedef struct walk_find {
    const void *ptr;
    th__cuda_block_info info;
    bool found;
} walk_find;

static inline int walk_find_visit(void *arg, const th__cuda_block_info *b)
{
    walk_find *w = (walk_find *)arg;
    if (b->ptr == w->ptr) {
        w->info = *b;
        w->found = true;
        return 1;
    }
    return 0;
}

/* The block starting at ptr; found false when there is none. */
static inline th__cuda_block_info block_at(th__cuda_caching_dev *d, const void *ptr, bool *found)
{
    walk_find w;
    memset(&w, 0, sizeof w);
    w.ptr = ptr;
    th__cuda_caching_walk(d, walk_find_visit, &w);
    if (found) *found = w.found;
    return w.info;
}

typedef struct walk_totals {
    int64_t allocations[3], segments[3], active[3], inactive_split[3];
    int64_t allocated_bytes[3], requested_bytes[3], reserved_bytes[3], active_bytes[3], inactive_split_bytes[3];
    size_t largest_free;
    int64_t blocks, pending_events;
    bool tiled; /* each segment's blocks start at its base and follow one another */
    const void *seg_at;
    const char *next_at, *seg_end;
} walk_totals;

static inline int walk_totals_visit(void *arg, const th__cuda_block_info *b)
{
    walk_totals *t = (walk_totals *)arg;
    int k = b->small ? 1 : 2;
    t->blocks++;
    if (b->ptr == b->segment) {
        if (t->seg_at && t->next_at != t->seg_end) t->tiled = false;
        t->seg_end = (const char *)b->segment + b->segment_size;
        t->segments[k]++;
        t->reserved_bytes[k] += (int64_t)b->segment_size;
        t->seg_at = b->segment;
        t->next_at = (const char *)b->segment;
    }
    if ((const char *)b->ptr != t->next_at || b->segment != t->seg_at) t->tiled = false;
    t->next_at = (const char *)b->ptr + b->size;
    if ((size_t)(t->next_at - (const char *)b->segment) > b->segment_size) t->tiled = false;
    if (b->state == TH__CUDA_BLOCK_FREE) {
        if (b->size > t->largest_free) t->largest_free = b->size;
        if (b->size != b->segment_size) {
            t->inactive_split[k]++;
            t->inactive_split_bytes[k] += (int64_t)b->size;
        }
    } else {
        t->active[k]++;
        t->active_bytes[k] += (int64_t)b->size;
        t->pending_events += b->events;
        if (b->state == TH__CUDA_BLOCK_ALLOCATED) {
            t->allocations[k]++;
            t->allocated_bytes[k] += (int64_t)b->size;
            t->requested_bytes[k] += (int64_t)b->requested;
        }
    }
    return 0;
}

static inline walk_totals walk_recount(th__cuda_caching_dev *d)
{
    walk_totals t;
    memset(&t, 0, sizeof t);
    t.tiled = true;
    th__cuda_caching_walk(d, walk_totals_visit, &t);
    if (t.seg_at && t.next_at != t.seg_end) t.tiled = false;
    int64_t *arrays[] = {t.allocations, t.segments, t.active, t.inactive_split, t.allocated_bytes,
                         t.requested_bytes, t.reserved_bytes, t.active_bytes, t.inactive_split_bytes};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) arrays[i][0] = arrays[i][1] + arrays[i][2];
    return t;
}

/* The statistics' current values against a recount from the walk, the allocator's own invariant check, and
 * the fake's view of the device's memory. Returns the number of mismatches. */
static inline int check_stats_walk_at(test_env *e, th__cuda_caching_dev *d, int device, const char *file, int line)
{
    int before = check_failures;
    th__cuda_memory_stats s = env_stats(d);
    walk_totals t = walk_recount(d);
    CHECK(t.tiled);
    for (int k = 0; k < 3; k++) {
        CHECK_INT_EQ(s.allocations[k].current, t.allocations[k]);
        CHECK_INT_EQ(s.segments[k].current, t.segments[k]);
        CHECK_INT_EQ(s.active[k].current, t.active[k]);
        CHECK_INT_EQ(s.inactive_split[k].current, t.inactive_split[k]);
        CHECK_INT_EQ(s.allocated_bytes[k].current, t.allocated_bytes[k]);
        CHECK_INT_EQ(s.requested_bytes[k].current, t.requested_bytes[k]);
        CHECK_INT_EQ(s.reserved_bytes[k].current, t.reserved_bytes[k]);
        CHECK_INT_EQ(s.active_bytes[k].current, t.active_bytes[k]);
        CHECK_INT_EQ(s.inactive_split_bytes[k].current, t.inactive_split_bytes[k]);
        CHECK(s.allocations[k].peak >= s.allocations[k].current);
        CHECK_INT_EQ(s.allocations[k].allocated - s.allocations[k].freed, s.allocations[k].current);
        CHECK_INT_EQ(s.reserved_bytes[k].allocated - s.reserved_bytes[k].freed, s.reserved_bytes[k].current);
    }
    CHECK_INT_EQ(s.largest_free_block, t.largest_free);
    CHECK_INT_EQ(s.events_pending, t.pending_events);
    if (s.caching) CHECK_INT_EQ(s.reserved_bytes[0].current, fake_backend_live_bytes(e->f, device));
    CHECK_INT_EQ(s.segments[0].current, fake_backend_live_allocs(e->f, device));
    CHECK_INT_EQ(s.backend_mallocs - s.backend_frees, s.segments[0].current);
    int rc = th__cuda_caching_check(d);
    if (rc) fprintf(stderr, "th__cuda_caching_check: %s\n", th_last_error());
    CHECK_INT_EQ(rc, 0);
    if (check_failures != before) fprintf(stderr, "%s:%d: the statistics and the walk disagree\n", file, line);
    return check_failures - before;
}
#define check_stats_walk(e, d, device) check_stats_walk_at((e), (d), (device), __FILE__, __LINE__)

#endif
