/* The pinned host cache: its rounding (powers of two up to the bound, 2 MiB steps above), its bins, the cap
 * on cached bytes, reuse deferred until every recorded event has completed, the out-of-memory retry and its
 * message, statistics, empty_cache, caching off, the environment, and CPU ops on pinned tensors. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv */
#endif
#include <stdlib.h>

#include "cuda_test.h"

typedef struct pin_env {
    fake_backend *f;
    const th_cuda_backend *be;
    th__cuda_pinned *p;
} pin_env;

static pin_env pin_new(size_t host_capacity, const th__cuda_pinned_config *cfg, bool quiet)
{
    pin_env e;
    fake_backend_config fc = {2, 0, host_capacity, quiet};
    th__cuda_pinned_config zero = {false, false, 0, 0};
    e.f = fake_backend_new(&fc);
    e.be = fake_backend_table(e.f);
    e.p = th__cuda_pinned_new(e.be, cfg ? cfg : &zero);
    if (!e.p) fprintf(stderr, "th__cuda_pinned_new: %s\n", th_last_error());
    return e;
}

static void pin_check(pin_env *e)
{
    int rc = th__cuda_pinned_check(e->p);
    if (rc) fprintf(stderr, "th__cuda_pinned_check: %s\n", th_last_error());
    CHECK_INT_EQ(rc, 0);
    th__cuda_pinned_stats s;
    th__cuda_pinned_get_stats(e->p, &s);
    CHECK_INT_EQ(s.reserved_bytes.current, (int64_t)fake_backend_live_bytes(e->f, -1));
    CHECK_INT_EQ(s.host_mallocs - s.host_frees, fake_backend_live_allocs(e->f, -1));
}

static void pin_end(pin_env *e, int problems)
{
    pin_check(e);
    int rc = th__cuda_pinned_delete(e->p);
    if (rc) fprintf(stderr, "th__cuda_pinned_delete: %s\n", th_last_error());
    CHECK_INT_EQ(rc, 0);
    CHECK_INT_EQ(fake_backend_delete(e->f), problems);
}

static char *pin_alloc(pin_env *e, size_t n)
{
    void *p = NULL;
    int rc = th__cuda_pinned_malloc(e->p, n, &p);
    if (rc) fprintf(stderr, "pin_alloc(%zu): %s\n", n, th_last_error());
    CHECK_INT_EQ(rc, 0);
    if (p) memset(p, 0x77, n); /* host memory: the host writes all of it */
    return (char *)p;
}

static void pin_free(pin_env *e, void *p)
{
    int rc = th__cuda_pinned_release(e->p, p);
    if (rc) fprintf(stderr, "pin_free(%p): %s\n", p, th_last_error());
    CHECK_INT_EQ(rc, 0);
}

static th__cuda_pinned_stats pin_stats(pin_env *e)
{
    th__cuda_pinned_stats s;
    memset(&s, 0, sizeof s);
    CHECK_INT_EQ(th__cuda_pinned_get_stats(e->p, &s), 0);
    return s;
}

static size_t host_size_of(pin_env *e, void *p)
{
    /* The fake knows the exact size it gave: the largest n with [p, p + n) live. */
    size_t lo = 0, hi = (size_t)1 << 32;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (fake_backend_is_live(e->f, -1, p, mid))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static void test_rounding(void)
{
    CHECK_INT_EQ(th__cuda_pinned_round_size(0, 0), 512);
    CHECK_INT_EQ(th__cuda_pinned_round_size(1, 0), 512);
    CHECK_INT_EQ(th__cuda_pinned_round_size(512, 0), 512);
    CHECK_INT_EQ(th__cuda_pinned_round_size(513, 0), 1024);
    CHECK_INT_EQ(th__cuda_pinned_round_size(4097, 0), 8192);
    CHECK_INT_EQ(th__cuda_pinned_round_size(MiB, 0), MiB);
    CHECK_INT_EQ(th__cuda_pinned_round_size(MiB + 1, 0), 2 * MiB);
    CHECK_INT_EQ(th__cuda_pinned_round_size(2 * MiB, 0), 2 * MiB);
    /* Above the bound: 2 MiB steps, not doubling. */
    CHECK_INT_EQ(th__cuda_pinned_round_size(2 * MiB + 1, 0), 4 * MiB);
    CHECK_INT_EQ(th__cuda_pinned_round_size(5 * MiB, 0), 6 * MiB);
    CHECK_INT_EQ(th__cuda_pinned_round_size(65 * MiB, 0), 66 * MiB);
    CHECK_INT_EQ(th__cuda_pinned_round_size(1000 * MiB + 1, 0), 1002 * MiB);
    /* Another bound: below 2 MiB, the steps are the bound itself. */
    CHECK_INT_EQ(th__cuda_pinned_round_size(64 * KiB, 64 * KiB), 64 * KiB);
    CHECK_INT_EQ(th__cuda_pinned_round_size(65 * KiB, 64 * KiB), 128 * KiB);
    CHECK_INT_EQ(th__cuda_pinned_round_size(129 * KiB, 64 * KiB), 192 * KiB);
    CHECK_INT_EQ(th__cuda_pinned_round_size(5 * MiB, 8 * MiB), 8 * MiB);
    CHECK_INT_EQ(th__cuda_pinned_round_size(9 * MiB, 8 * MiB), 10 * MiB);

    pin_env e = pin_new(0, NULL, false);
    char *a = pin_alloc(&e, 65 * MiB);
    CHECK_INT_EQ(host_size_of(&e, a), 66 * MiB); /* what is pinned */
    char *b = pin_alloc(&e, 1000);
    CHECK_INT_EQ(host_size_of(&e, b), 1024);
    th__cuda_pinned_stats s = pin_stats(&e);
    CHECK_INT_EQ(s.allocated_bytes.current, 66 * MiB + 1024);
    CHECK_INT_EQ(s.requested_bytes.current, 65 * MiB + 1000);
    CHECK_INT_EQ(s.reserved_bytes.current, 66 * MiB + 1024);
    pin_free(&e, a);
    pin_free(&e, b);
    pin_end(&e, 0);
}

static void test_bins(void)
{
    pin_env e = pin_new(0, NULL, false);
    char *a = pin_alloc(&e, 1000);
    pin_free(&e, a);
    char *b = pin_alloc(&e, 300); /* the 512 bin: the cached 1024 block is not for it */
    CHECK(b != a);
    char *c = pin_alloc(&e, 600); /* the 1024 bin */
    CHECK(c == a);
    th__cuda_pinned_stats s = pin_stats(&e);
    CHECK_INT_EQ(s.cache_hits, 1);
    CHECK_INT_EQ(s.host_mallocs, 2);
    pin_free(&e, b);
    pin_free(&e, c);
    /* Above the bound: the smallest cached block of at least the rounded size, at most a quarter more. */
    char *l6 = pin_alloc(&e, 5 * MiB);      /* 6 MiB */
    char *l20 = pin_alloc(&e, 19 * MiB);    /* 20 MiB */
    pin_free(&e, l20);
    pin_free(&e, l6);
    CHECK(pin_alloc(&e, 4 * MiB + 1) == l6); /* 6 MiB: exact */
    pin_free(&e, l6);
    char *l4 = pin_alloc(&e, 3 * MiB);       /* 4 MiB: the 6 MiB block is half as large again: a new one */
    CHECK(l4 != l6);
    CHECK_INT_EQ(host_size_of(&e, l4), 4 * MiB);
    pin_free(&e, l4);
    CHECK(pin_alloc(&e, 17 * MiB) == l20);   /* 18 MiB: the 20 MiB block (2 MiB more) */
    CHECK(pin_alloc(&e, 5 * MiB) == l6);
    CHECK(pin_alloc(&e, 3 * MiB) == l4);
    pin_check(&e);
    pin_free(&e, l20);
    pin_free(&e, l6);
    pin_free(&e, l4);
    s = pin_stats(&e);
    CHECK_INT_EQ(s.cached_bytes.current, 30 * MiB + 1536);
    CHECK_INT_EQ(s.allocations.current, 0);
    CHECK_INT_EQ(s.allocations.peak, 3);
    CHECK_INT_EQ(th__cuda_pinned_empty_cache(e.p), 0);
    s = pin_stats(&e);
    CHECK_INT_EQ(s.cached_bytes.current, 0);
    CHECK_INT_EQ(s.reserved_bytes.current, 0);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, -1), 0);
    pin_end(&e, 0);
}

static void test_events(void)
{
    pin_env e = pin_new(0, NULL, true);
    void *s1 = fake_stream_new(e.f, 0), *s2 = fake_stream_new(e.f, 1);
    char *p = pin_alloc(&e, 4096);
    CHECK_INT_EQ(th__cuda_pinned_record(e.p, p, 0, s1), 0);
    CHECK_INT_EQ(th__cuda_pinned_record(e.p, p, 1, s2), 0);
    CHECK_INT_EQ(th__cuda_pinned_record(e.p, p, 0, NULL), 0); /* device 0's default stream */
    CHECK_INT_EQ(fake_backend_counters(e.f).event_records, 3);
    pin_free(&e, p);
    th__cuda_pinned_stats s = pin_stats(&e);
    CHECK_INT_EQ(s.pending_bytes.current, 4096);
    CHECK_INT_EQ(s.cached_bytes.current, 0);
    CHECK_INT_EQ(s.events_recorded, 3);
    pin_check(&e);
    char *q = pin_alloc(&e, 4096); /* the copies may still read p */
    CHECK(q != p);
    fake_stream_complete(e.f, 0, s1);
    fake_stream_complete(e.f, 0, NULL);
    pin_free(&e, q);
    char *r = pin_alloc(&e, 4096);
    CHECK(r == q);
    CHECK_INT_EQ(pin_stats(&e).pending_bytes.current, 4096);
    fake_stream_complete(e.f, 1, s2); /* the last one: p is reusable at the next allocation */
    char *t = pin_alloc(&e, 4096);
    CHECK(t == p);
    s = pin_stats(&e);
    CHECK_INT_EQ(s.pending_bytes.current, 0);
    CHECK_INT_EQ(s.cache_hits, 2);
    /* Events done by the free: cached at once. */
    CHECK_INT_EQ(th__cuda_pinned_record(e.p, t, 0, s1), 0);
    fake_stream_complete(e.f, 0, s1);
    pin_free(&e, t);
    s = pin_stats(&e);
    CHECK_INT_EQ(s.pending_bytes.current, 0);
    CHECK_INT_EQ(s.cached_bytes.current, 4096);
    /* Idle events are reused: 3 were created for the three copies, none since. */
    CHECK_INT_EQ(fake_backend_counters(e.f).event_creates, 3);
    /* Misuse. */
    CHECK_FAILS(th__cuda_pinned_record(e.p, t, 0, s1), TH_ERR_INVALID, "th__cuda_pinned_record", "not a pinned block");
    CHECK_FAILS(th__cuda_pinned_record(e.p, r + 1, 0, s1), TH_ERR_INVALID, "th__cuda_pinned_record",
                "not a pinned block");
    CHECK_FAILS(th__cuda_pinned_record(e.p, r, 2, s1), TH_ERR_RANGE, "th__cuda_pinned_record",
                "device 2 is out of range: the backend has 2 devices");
    /* A stream of another device than the one named: CUDA refuses the record, and so does the cache. */
    CHECK_FAILS(th__cuda_pinned_record(e.p, r, 0, s2), TH_ERR_DEVICE, "th__cuda_pinned_record",
                "event_record failed: cudaErrorInvalidResourceHandle");
    /* empty_cache leaves a block whose copy is still running. */
    CHECK_INT_EQ(th__cuda_pinned_record(e.p, r, 1, s2), 0);
    pin_free(&e, r);
    CHECK_INT_EQ(th__cuda_pinned_empty_cache(e.p), 0);
    s = pin_stats(&e);
    CHECK_INT_EQ(s.cached_bytes.current, 0);
    CHECK_INT_EQ(s.pending_bytes.current, 4096);
    CHECK_INT_EQ(s.reserved_bytes.current, 4096);
    pin_check(&e);
    /* delete waits for it (event_synchronize) and gives it back. */
    int64_t syncs = fake_backend_counters(e.f).event_syncs;
    CHECK_INT_EQ(th__cuda_pinned_delete(e.p), 0);
    CHECK_INT_EQ(fake_backend_counters(e.f).event_syncs, syncs + 1);
    CHECK_INT_EQ(fake_backend_delete(e.f), 1); /* the refused record above */
}

static void test_cap(void)
{
    th__cuda_pinned_config cfg = {false, true, 3 * MiB, 0};
    pin_env e = pin_new(0, &cfg, false);
    char *a = pin_alloc(&e, 2 * MiB), *b = pin_alloc(&e, 2 * MiB), *c = pin_alloc(&e, MiB);
    pin_free(&e, a); /* cached: 2 MiB */
    pin_free(&e, b); /* 4 MiB would pass the cap: given back */
    th__cuda_pinned_stats s = pin_stats(&e);
    CHECK_INT_EQ(s.cached_bytes.current, 2 * MiB);
    CHECK_INT_EQ(s.cap_frees, 1);
    CHECK_INT_EQ(s.host_frees, 1);
    CHECK_INT_EQ(s.max_cached_bytes, 3 * MiB);
    /* A block whose events complete into a full cache is given back too. */
    void *s1 = fake_stream_new(e.f, 0);
    CHECK_INT_EQ(th__cuda_pinned_record(e.p, c, 0, s1), 0);
    pin_free(&e, c);
    char *d = pin_alloc(&e, MiB + 512 * KiB); /* 2 MiB bin: a's block */
    CHECK(d == a);
    char *f = pin_alloc(&e, 2 * MiB); /* a new one */
    pin_free(&e, f);                  /* cached: 2 MiB, the cap allows 1 MiB more */
    fake_stream_complete(e.f, 0, s1);
    CHECK_INT_EQ(th__cuda_pinned_empty_cache(e.p), 0); /* polls: c's 1 MiB fits, then everything goes */
    s = pin_stats(&e);
    CHECK_INT_EQ(s.cap_frees, 1);
    CHECK_INT_EQ(s.cached_bytes.current, 0);
    pin_free(&e, d);
    pin_end(&e, 0);

    /* Cap 0: nothing is kept. */
    th__cuda_pinned_config none = {false, true, 0, 0};
    e = pin_new(0, &none, false);
    a = pin_alloc(&e, 1000);
    pin_free(&e, a);
    s = pin_stats(&e);
    CHECK_INT_EQ(s.cached_bytes.current, 0);
    CHECK_INT_EQ(s.host_frees, 1);
    CHECK_INT_EQ(s.cap_frees, 1);
    pin_end(&e, 0);
}

static void test_oom(void)
{
    pin_env e = pin_new(8 * MiB, NULL, false);
    char *a = pin_alloc(&e, 4 * MiB);
    pin_free(&e, a);
    char *b = pin_alloc(&e, 6 * MiB); /* 4 cached + 6 > 8: the cached block goes, then it fits */
    CHECK(b != NULL);
    th__cuda_pinned_stats s = pin_stats(&e);
    CHECK_INT_EQ(s.oom_retries, 1);
    CHECK_INT_EQ(s.ooms, 0);
    CHECK_INT_EQ(s.host_malloc_fails, 1);
    CHECK_INT_EQ(s.host_frees, 1);
    void *p = (void *)1;
    CHECK_FAILS(th__cuda_pinned_malloc(e.p, 3 * MiB, &p), TH_ERR_NOMEM, "th__cuda_pinned_malloc",
                "out of pinned host memory: tried to allocate 4.00 MiB (3145728 bytes requested); the cache holds "
                "6.00 MiB (6.00 MiB handed out, 0 bytes waiting for copies to finish) after giving back 0 bytes of "
                "cached blocks");
    CHECK(p == NULL);
    printf("pinned OOM message: %s\n", th_last_error());
    CHECK_INT_EQ(pin_stats(&e).ooms, 1);
    fake_backend_fail_next(e.f, FAKE_CALL_HOST_MALLOC, FAKE_ERR_LAUNCH_FAILURE, 1);
    CHECK_FAILS(th__cuda_pinned_malloc(e.p, 100, &p), TH_ERR_DEVICE, "th__cuda_pinned_malloc",
                "host_malloc failed: cudaErrorLaunchFailure (719)");
    pin_free(&e, b);
    pin_end(&e, 0);
}

static void test_no_caching_and_env(void)
{
    th__cuda_pinned_config cfg = {true, false, 0, 0};
    pin_env e = pin_new(0, &cfg, false);
    char *a = pin_alloc(&e, 1000);
    CHECK_INT_EQ(host_size_of(&e, a), 1000); /* exact */
    void *s1 = fake_stream_new(e.f, 0);
    CHECK_INT_EQ(th__cuda_pinned_record(e.p, a, 0, s1), 0);
    pin_free(&e, a);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, -1), 1000); /* its copy runs: kept until it is done */
    fake_stream_complete(e.f, 0, s1);
    char *b = pin_alloc(&e, 1000);
    CHECK_INT_EQ(pin_stats(&e).cache_hits, 0);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, -1), 1000); /* a went back, b is new */
    CHECK(!pin_stats(&e).caching);
    pin_free(&e, b);
    CHECK_INT_EQ(fake_backend_live_bytes(e.f, -1), 0);
    pin_end(&e, 0);

    th__cuda_pinned_config c;
    unsetenv("TH_CUDA_NO_CACHING");
    setenv("TH_CUDA_PINNED_CONF", "max_cached_mb:0,pow2_max_kb:4096", 1);
    CHECK_INT_EQ(th__cuda_pinned_config_from_env(&c), 0);
    CHECK(c.max_cached_set);
    CHECK_INT_EQ(c.max_cached_bytes, 0);
    CHECK_INT_EQ(c.pow2_max, 4 * MiB);
    CHECK(!c.no_caching);
    setenv("TH_CUDA_PINNED_CONF", "pow2_max_kb:3", 1);
    CHECK_FAILS(th__cuda_pinned_config_from_env(&c), TH_ERR_INVALID, "th__cuda_pinned_config_from_env",
                "pow2_max_kb must be a power of two (got 3)");
    setenv("TH_CUDA_PINNED_CONF", "max_split_size_mb:30", 1);
    CHECK_FAILS(th__cuda_pinned_config_from_env(&c), TH_ERR_INVALID, "th__cuda_pinned_config_from_env",
                "unknown option 'max_split_size_mb' (known: max_cached_mb, pow2_max_kb)");
    setenv("TH_CUDA_PINNED_CONF", "max_cached_mb:64", 1);
    setenv("TH_CUDA_NO_CACHING", "1", 1);
    fake_backend *f = fake_backend_new(NULL);
    th__cuda_pinned *p = th__cuda_pinned_new(fake_backend_table(f), NULL);
    CHECK(p != NULL);
    th__cuda_pinned_stats s;
    th__cuda_pinned_get_stats(p, &s);
    CHECK_INT_EQ(s.max_cached_bytes, 64 * MiB);
    CHECK_INT_EQ(s.pow2_max, 2 * MiB);
    CHECK(!s.caching);
    CHECK_INT_EQ(th__cuda_pinned_delete(p), 0);
    unsetenv("TH_CUDA_PINNED_CONF");
    unsetenv("TH_CUDA_NO_CACHING");
    th__cuda_pinned_get_stats(p = th__cuda_pinned_new(fake_backend_table(f), NULL), &s);
    CHECK_INT_EQ(s.max_cached_bytes, 1024 * MiB); /* the default cap */
    CHECK(s.caching);
    CHECK_INT_EQ(th__cuda_pinned_delete(p), 0);
    th__cuda_pinned_config bad = {false, false, 0, 1000};
    CHECK_NULL(th__cuda_pinned_new(fake_backend_table(f), &bad), TH_ERR_INVALID, "th__cuda_pinned_new",
               "pow2_max 1000 must be a power of two");
    CHECK_INT_EQ(fake_backend_delete(f), 0);
}

static void test_allocator_and_tensors(void)
{
    pin_env e = pin_new(0, NULL, false);
    const th_allocator *al = th__cuda_pinned_allocator(e.p);
    CHECK_INT_EQ(al->device.type, TH_DEVICE_CUDA_HOST);
    CHECK_INT_EQ(al->device.type, 3); /* kDLCUDAHost */
    CHECK(th_device_is_host(al->device));
    /* A CPU op on pinned tensors: the memory is the host's. */
    void *saved_ctx = NULL;
    const th_allocator *saved = th_default_allocator(&saved_ctx);
    th_set_default_allocator(al, e.p);
    int64_t sizes[2] = {300, 7};
    th_f32_tensor *a = th_f32_full(2, sizes, 1.5f);
    th_f32_tensor *b = th_f32_full(2, sizes, 2.0f);
    th_f32_tensor *c = th_f32_add(a, b);
    th_f32_tensor *sum = th_f32_sum_all(c);
    th_set_default_allocator(saved, saved_ctx);
    CHECK(a && b && c && sum);
    if (sum) CHECK(th_f32_data(sum)[0] == 3.5f * 2100.0f);
    CHECK_INT_EQ(th_storage_device(th_f32_storage(a)).type, TH_DEVICE_CUDA_HOST);
    CHECK_INT_EQ(pin_stats(&e).allocations.current, 4);
    th_f32_release(a);
    th_f32_release(b);
    th_f32_release(c);
    th_f32_release(sum);
    th__cuda_pinned_stats s = pin_stats(&e);
    CHECK_INT_EQ(s.allocations.current, 0);
    CHECK_INT_EQ(s.host_mallocs, 4); /* a, b, c: 8400 bytes each (16 KiB bin); the sum: 512 */
    CHECK_INT_EQ(s.cached_bytes.current, 3 * 16 * KiB + 512);
    char *again = pin_alloc(&e, 8400);
    CHECK_INT_EQ(pin_stats(&e).host_mallocs, 4);
    pin_free(&e, again);
    /* Misuse through the allocator and directly. */
    void *p = al->alloc(e.p, 100);
    th_clear_error();
    al->free(e.p, p, 99);
    CHECK(strstr(th_last_error(), "was allocated with 100 bytes, freed with 99") != NULL);
    CHECK_FAILS(th__cuda_pinned_release(e.p, p), TH_ERR_INVALID, "th__cuda_pinned_release",
                "is not a pinned block handed out by this cache");
    CHECK_INT_EQ(th__cuda_pinned_release(e.p, NULL), 0);
    CHECK_FAILS(th__cuda_pinned_malloc(e.p, SIZE_MAX, &p), TH_ERR_OVERFLOW, "th__cuda_pinned_malloc", "too large");
    /* delete with a block still handed out: given back, and said. */
    p = pin_alloc(&e, 10);
    th_clear_error();
    CHECK_INT_EQ(th__cuda_pinned_delete(e.p), TH_ERR_INVALID);
    CHECK(strstr(th_last_error(), "1 pinned block still allocated were given back") != NULL);
    CHECK_INT_EQ(fake_backend_delete(e.f), 0);
}

/* Many blocks: the address map grows; every size class at once. */
static void test_many_blocks(void)
{
    enum { N = 1500 };
    pin_env e = pin_new(0, NULL, false);
    static char *p[N];
    for (int i = 0; i < N; i++) p[i] = pin_alloc(&e, 1 + (size_t)i * 37 % (300 * KiB));
    pin_check(&e);
    for (int i = 0; i < N; i += 2) pin_free(&e, p[i]);
    pin_check(&e);
    for (int i = 0; i < N; i += 2) p[i] = pin_alloc(&e, 1 + (size_t)i * 37 % (300 * KiB)); /* all from the bins */
    th__cuda_pinned_stats s = pin_stats(&e);
    CHECK_INT_EQ(s.host_mallocs, N);
    CHECK_INT_EQ(s.cache_hits, N / 2);
    for (int i = 0; i < N; i++) pin_free(&e, p[i]);
    CHECK_INT_EQ(th__cuda_pinned_empty_cache(e.p), 0);
    CHECK_INT_EQ(fake_backend_live_allocs(e.f, -1), 0);
    pin_end(&e, 0);
}

int main(void)
{
    test_begin();
    test_rounding();
    test_bins();
    test_events();
    test_cap();
    test_oom();
    test_no_caching_and_env();
    test_allocator_and_tensors();
    test_many_blocks();
    return test_end("test_cuda_pinned");
}
