/* Storage and allocators: refcounts, weak references (th_storage_try_retain), resize, wrapped memory, the
 * counting allocator, user allocators.
 *
 * POSIX threads for the race: ThreadSanitizer intercepts them (see test_threads.c). */
#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

static int deleter_calls;
static void *deleter_seen;
static void count_deleter(void *data, void *ctx)
{
    deleter_calls++;
    deleter_seen = data;
    CHECK(ctx == &deleter_calls);
}

/* A user allocator that tags its context, to see that the context reaches every call. */
typedef struct tagged_ctx {
    int allocs, reallocs, frees;
} tagged_ctx;
static void *tagged_alloc(void *ctx, size_t n)
{
    ((tagged_ctx *)ctx)->allocs++;
    return malloc(n);
}
static void *tagged_realloc(void *ctx, void *p, size_t old_n, size_t new_n)
{
    (void)old_n;
    ((tagged_ctx *)ctx)->reallocs++;
    return realloc(p, new_n);
}
static void tagged_free(void *ctx, void *p, size_t n)
{
    (void)n;
    ((tagged_ctx *)ctx)->frees++;
    free(p);
}
static const th_allocator tagged_allocator = {"tagged", tagged_alloc, tagged_realloc, tagged_free, {TH_DEVICE_CPU, 0}};

static void test_refcount(void)
{
    th_storage *s = th_f32_storage_new(10);
    CHECK(s != NULL);
    CHECK_INT_EQ(th_storage_nbytes(s), 40);
    CHECK_INT_EQ(th_f32_storage_size(s), 10);
    CHECK_INT_EQ(th_f64_storage_size(s), 5); /* untyped bytes: any dtype may read them */
    CHECK_INT_EQ(th_storage_refcount(s), 1);
    CHECK(th_storage_retain(s) == s);
    CHECK_INT_EQ(th_storage_refcount(s), 2);
    th_storage_release(s);
    CHECK_INT_EQ(th_storage_refcount(s), 1);
    CHECK(th_storage_device(s).type == TH_DEVICE_CPU);
    CHECK(th_storage_is_resizable(s));
    CHECK(((uintptr_t)th_storage_raw_data(s) % 64) == 0);
    CHECK_INT_EQ(th_f32_storage_fill(s, 2.5f), TH_OK);
    float *p = th_f32_storage_data(s);
    for (int i = 0; i < 10; i++) CHECK(p[i] == 2.5f);
    th_storage_release(s);
    th_storage_release(NULL);
    CHECK(th_storage_retain(NULL) == NULL);
}

/* ---- weak references ---------------------------------------------------------------------------------- */

/* What a weak reference sees from inside the release that frees the memory: the free (or the deleter) is
 * where a cache removes its entry, so the struct must still be there and already refuse th_storage_try_retain. */
typedef struct inside_release {
    th_storage *storage;
    int calls;
    int64_t count;
    bool refused;
} inside_release;

static void inside_look(inside_release *r)
{
    r->calls++;
    r->count = th_storage_refcount(r->storage);
    r->refused = th_storage_try_retain(r->storage) == NULL;
}

static void *inside_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n);
}

static void inside_free(void *ctx, void *p, size_t n)
{
    (void)n;
    inside_look((inside_release *)ctx);
    free(p);
}

static void inside_deleter(void *data, void *ctx)
{
    (void)data;
    inside_look((inside_release *)ctx);
}

static const th_allocator inside_allocator = {"inside", inside_alloc, NULL, inside_free, {TH_DEVICE_CPU, 0}};

static void test_try_retain(void)
{
    CHECK(th_storage_try_retain(NULL) == NULL);
    inside_release r = {NULL, 0, -1, false};
    th_storage *s = th_storage_new(16, &inside_allocator, &r);
    r.storage = s;
    CHECK(th_storage_try_retain(s) == s);
    CHECK_INT_EQ(th_storage_refcount(s), 2);
    th_storage_release(s);
    CHECK_INT_EQ(th_storage_refcount(s), 1);
    CHECK_INT_EQ(r.calls, 0);
    th_storage_release(s); /* the last one: the free looks */
    CHECK_INT_EQ(r.calls, 1);
    CHECK_INT_EQ(r.count, 0);
    CHECK(r.refused);

    /* a tensor's reference counts as any other, and a sole-owner release still ends at 0 */
    inside_release w = {NULL, 0, -1, false};
    static float blob[4];
    th_storage *b = th_storage_from_blob(blob, sizeof blob, (th_device){TH_DEVICE_CPU, 0}, inside_deleter, &w);
    w.storage = b;
    th_f32_tensor *t = th_f32_new_with_storage(b, 0, 1, (int64_t[]){4}, NULL);
    th_storage_release(b);
    CHECK(th_storage_try_retain(b) == b);
    CHECK_INT_EQ(th_storage_refcount(b), 2);
    th_storage_release(b);
    th_f32_release(t);
    CHECK_INT_EQ(w.calls, 1);
    CHECK_INT_EQ(w.count, 0);
    CHECK(w.refused);
}

/* The race a cache of weak references runs: threads upgrade the entry under the cache's lock while the owner
 * lets go of the last reference, and the allocator's free removes the entry under the same lock. A storage
 * brought back to life would be held by a thread when its free runs (race_holders above 0: counted), and
 * then used and released after it is freed (ASan: heap-use-after-free, double free). */
enum { RACE_THREADS = 4, RACE_ROUNDS = 2000, RACE_BYTES = 64 };

static pthread_mutex_t race_lock = PTHREAD_MUTEX_INITIALIZER;
static th_storage *race_entry;            /* under race_lock: the weak reference */
static int race_frees, race_resurrected;  /* under race_lock */
static atomic_int race_holders;           /* references taken through the entry, not yet given back */
static atomic_int race_round;             /* the round whose storage the entry holds (or held) */
static atomic_bool race_stop;

static void race_free(void *ctx, void *p, size_t n)
{
    (void)ctx;
    sched_yield(); /* widens the moment when the count is 0 and the entry still there */
    pthread_mutex_lock(&race_lock);
    race_frees++;
    if (atomic_load(&race_holders) != 0) race_resurrected++;
    if (race_entry && th_storage_raw_data(race_entry) == p) race_entry = NULL;
    pthread_mutex_unlock(&race_lock);
    memset(p, 0xdd, n); /* what a thread holding it after this would read */
    free(p);
}

static const th_allocator race_allocator = {"race", inside_alloc, NULL, race_free, {TH_DEVICE_CPU, 0}};

typedef struct race_result {
    long upgrades, refused, bad_bytes;
} race_result;

/* Upgrades until the round's storage is refused or gone, at most 32 (a thread that upgraded on every turn of its
 * loop would keep the count above 0 for long, and the owner waiting for the lock). */
static void *race_upgrader(void *arg)
{
    race_result *res = (race_result *)arg;
    int done_round = 0;
    while (!atomic_load(&race_stop)) {
        int round = atomic_load(&race_round);
        if (round == done_round) {
            sched_yield();
            continue;
        }
        done_round = round;
        for (int attempt = 0; attempt < 32; attempt++) {
            pthread_mutex_lock(&race_lock);
            th_storage *seen = race_entry, *s = th_storage_try_retain(seen);
            if (s) atomic_fetch_add(&race_holders, 1);
            pthread_mutex_unlock(&race_lock);
            if (!s) {
                res->refused += seen != NULL; /* the count was 0: the owner's release is on its way to the free */
                break;
            }
            res->upgrades++;
            const unsigned char *p = (const unsigned char *)th_storage_raw_data(s);
            for (int i = 0; i < RACE_BYTES; i++) res->bad_bytes += p[i] != 0x5a;
            if (attempt & 1) sched_yield(); /* holding it across the owner's release, sometimes */
            atomic_fetch_sub(&race_holders, 1);
            th_storage_release(s);
            sched_yield();
        }
    }
    return NULL;
}

static void test_try_retain_race(void)
{
    pthread_t threads[RACE_THREADS];
    race_result results[RACE_THREADS];
    memset(results, 0, sizeof results);
    atomic_store(&race_stop, false);
    int started = 0;
    for (; started < RACE_THREADS; started++)
        if (pthread_create(&threads[started], NULL, race_upgrader, &results[started]) != 0) break;
    CHECK_INT_EQ(started, RACE_THREADS);
    for (int round = 0; round < RACE_ROUNDS; round++) {
        th_storage *s = th_storage_new(RACE_BYTES, &race_allocator, NULL);
        if (!s) {
            CHECK(s != NULL);
            break;
        }
        memset(th_storage_raw_data(s), 0x5a, RACE_BYTES);
        pthread_mutex_lock(&race_lock);
        race_entry = s;
        pthread_mutex_unlock(&race_lock);
        atomic_store(&race_round, round + 1);
        for (int spin = round % 8; spin > 0; spin--) sched_yield(); /* sometimes at once, sometimes later */
        th_storage_release(s);
        /* The next round's entry only once this one's storage is gone, whichever thread let go last. */
        for (;;) {
            pthread_mutex_lock(&race_lock);
            int frees = race_frees;
            pthread_mutex_unlock(&race_lock);
            if (frees == round + 1) break;
            sched_yield();
        }
    }
    atomic_store(&race_stop, true);
    long upgrades = 0, refused = 0, bad = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        upgrades += results[i].upgrades;
        refused += results[i].refused;
        bad += results[i].bad_bytes;
    }
    CHECK_INT_EQ(race_frees, RACE_ROUNDS);
    CHECK_INT_EQ(race_resurrected, 0);
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(atomic_load(&race_holders), 0);
    CHECK(race_entry == NULL);
    CHECK(upgrades > 0);
    printf("try_retain race: %d rounds, %ld upgrades, %ld refused while the last release was under way\n",
           RACE_ROUNDS, upgrades, refused);
}

static void test_resize(void)
{
    th_storage *s = th_i32_storage_new(4);
    int32_t *p = th_i32_storage_data(s);
    for (int i = 0; i < 4; i++) p[i] = i + 1;
    CHECK_INT_EQ(th_storage_resize(s, 4096 * 4), TH_OK);
    CHECK_INT_EQ(th_i32_storage_size(s), 4096);
    p = th_i32_storage_data(s);
    for (int i = 0; i < 4; i++) CHECK_INT_EQ(p[i], i + 1);
    CHECK_INT_EQ(th_storage_resize(s, 8), TH_OK);
    p = th_i32_storage_data(s);
    CHECK_INT_EQ(p[0], 1);
    CHECK_INT_EQ(p[1], 2);
    CHECK_INT_EQ(th_storage_resize(s, 0), TH_OK);
    CHECK(th_storage_raw_data(s) == NULL);
    CHECK_INT_EQ(th_storage_resize(s, 12), TH_OK);
    CHECK_INT_EQ(th_i32_storage_size(s), 3);
    th_storage_release(s);

    /* A storage shrunk under a live tensor: element access and loops refuse, never read past the end. */
    int64_t four = 4;
    th_f32_tensor *live = th_f32_ones(1, &four);
    CHECK_INT_EQ(th_storage_resize(th_f32_storage(live), 8), TH_OK);
    th_clear_error();
    (void)th_f32_get(live, (int64_t[]){3});
    CHECK_INT_EQ(th_last_status(), TH_ERR_RANGE);
    CHECK(strstr(th_last_error(), "past the end of the storage's 2 elements") != NULL);
    CHECK_FAILS(th_f32_fill(live, 0.0f), TH_ERR_RANGE, "th_f32_fill", "its storage now holds 2");
    CHECK_FAILS(th_f32_print(stdout, live), TH_ERR_RANGE, "th_f32_print", "its storage now holds 2");
    CHECK(th_f32_clone(live) == NULL && th_last_status() == TH_ERR_RANGE);
    th_f32_release(live);
    CHECK_INT_EQ(th_tensor_dtype(NULL), TH_DTYPE_INVALID);

    /* A tensor over a storage sees the storage grow. */
    int64_t n = 3;
    th_f64_tensor *t = th_f64_full(1, &n, 1.0);
    CHECK_INT_EQ(th_storage_resize(th_f64_storage(t), 1 << 20), TH_OK);
    CHECK(th_f64_get(t, (int64_t[]){2}) == 1.0);
    th_f64_release(t);
}

static void test_blob(void)
{
    double buf[6] = {0, 1, 2, 3, 4, 5};
    deleter_calls = 0;
    th_storage *s = th_f64_storage_from_blob(buf, 6, count_deleter, &deleter_calls);
    CHECK(s != NULL);
    CHECK(th_f64_storage_data(s) == buf);
    CHECK(!th_storage_is_resizable(s));
    CHECK_FAILS(th_storage_resize(s, 8), TH_ERR_UNSUPPORTED, "th_storage_resize", "cannot resize");
    int64_t sizes[2] = {2, 3};
    th_f64_tensor *t = th_f64_new_with_storage(s, 0, 2, sizes, NULL);
    th_storage_release(s);
    CHECK_INT_EQ(deleter_calls, 0);
    CHECK(th_f64_get(t, (int64_t[]){1, 2}) == 5.0);
    th_f64_tensor *v = th_f64_transpose(t, 0, 1);
    th_f64_release(t);
    CHECK_INT_EQ(deleter_calls, 0);
    th_f64_release(v);
    CHECK_INT_EQ(deleter_calls, 1);
    CHECK(deleter_seen == buf);

    /* A NULL deleter: the memory is borrowed. */
    th_storage *b = th_storage_from_blob(buf, sizeof buf, (th_device){TH_DEVICE_CPU, 0}, NULL, NULL);
    CHECK_INT_EQ(th_storage_nbytes(b), (int64_t)sizeof buf);
    th_storage_release(b);
}

static void test_user_allocator(void)
{
    tagged_ctx ctx = {0, 0, 0};
    th_storage *s = th_u8_storage_new_with_allocator(100, &tagged_allocator, &ctx);
    CHECK_INT_EQ(ctx.allocs, 1);
    CHECK_INT_EQ(th_storage_resize(s, 1000), TH_OK);
    CHECK_INT_EQ(ctx.reallocs, 1);
    int64_t n = 1000;
    th_u8_tensor *t = th_u8_new_with_storage(s, 0, 1, &n, NULL);
    th_storage_release(s);
    CHECK_INT_EQ(th_u8_fill(t, 7), TH_OK);
    CHECK_INT_EQ(th_u8_get(t, (int64_t[]){999}), 7);
    th_u8_release(t);
    CHECK_INT_EQ(ctx.frees, 1);

    /* The thread's default allocator makes every new tensor. */
    th_set_default_allocator(&tagged_allocator, &ctx);
    void *got_ctx = NULL;
    CHECK(th_default_allocator(&got_ctx) == &tagged_allocator);
    CHECK(got_ctx == &ctx);
    th_f32_tensor *z = th_f32_zeros(1, &n);
    CHECK_INT_EQ(ctx.allocs, 2);
    th_f32_tensor *c = th_f32_clone(z);
    CHECK_INT_EQ(ctx.allocs, 3);
    th_f32_release(z);
    th_f32_release(c);
    CHECK_INT_EQ(ctx.frees, 3);
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
}

static void test_counting_allocator(void)
{
    th_counting_allocator *c = th_counting_allocator_new(NULL, NULL);
    const th_allocator *a = th_counting_allocator_get(c);
    th_storage *s1 = th_storage_new(1000, a, c);
    th_storage *s2 = th_storage_new(24, a, c);
    th_alloc_stats st = th_counting_allocator_stats(c);
    CHECK_INT_EQ(st.live_blocks, 2);
    CHECK_INT_EQ(st.live_bytes, 1024);
    CHECK_INT_EQ(st.peak_bytes, 1024);
    th_storage_release(s1);
    st = th_counting_allocator_stats(c);
    CHECK_INT_EQ(st.live_blocks, 1);
    CHECK_INT_EQ(st.live_bytes, 24);
    CHECK_INT_EQ(st.peak_bytes, 1024);
    CHECK_INT_EQ(th_storage_resize(s2, 48), TH_OK); /* the cpu allocator has no realloc: alloc, copy, free */
    st = th_counting_allocator_stats(c);
    CHECK_INT_EQ(st.live_blocks, 1);
    CHECK_INT_EQ(st.live_bytes, 48);
    th_counting_allocator_fail_after(c, 1);
    CHECK_FAILS(th_storage_resize(s2, 4096), TH_ERR_NOMEM, "th_storage_resize", "could not allocate");
    CHECK_INT_EQ(th_storage_nbytes(s2), 48); /* unchanged on error */
    CHECK_NULL(th_storage_new(10, a, c), TH_ERR_NOMEM, "th_storage_new", "'counting' could not allocate 10 bytes");
    th_counting_allocator_fail_after(c, 0);
    th_storage *s3 = th_storage_new(10, a, c);
    CHECK(s3 != NULL);
    th_storage_release(s3);
    th_storage_release(s2);
    st = th_counting_allocator_stats(c);
    CHECK_INT_EQ(st.live_blocks, 0);
    CHECK_INT_EQ(st.live_bytes, 0);
    CHECK_INT_EQ(st.failed_allocs, 2);
    th_counting_allocator_free(c);
}

static void test_large_blocks(void)
{
    /* Blocks from 4 MiB on are 2 MiB aligned, for transparent huge pages. */
    th_storage *s = th_storage_new(8 << 20, th_cpu_allocator(), NULL);
    CHECK(((uintptr_t)th_storage_raw_data(s) % (2 << 20)) == 0);
    th_storage_release(s);
}

/* The CPU allocator's cache of large blocks: a freed block comes back to the next request of its rounded size,
 * the limit and the 32 slots bound what it holds, and emptying gives everything back. */
static void test_cpu_cache(void)
{
    const th_allocator *cpu = th_cpu_allocator();
    const size_t mib = (size_t)1 << 20;
    CHECK_INT_EQ(th_cpu_cache_set_limit(64 * (int64_t)mib), TH_OK);
    th_cpu_cache_empty();
    th_cpu_cache_stats s0 = th_cpu_cache_get_stats();
    CHECK_INT_EQ(s0.held_bytes, 0);
    CHECK_INT_EQ(s0.held_blocks, 0);
    CHECK_INT_EQ(s0.limit, 64 * (int64_t)mib);

    /* 5 MiB rounds to 6 MiB: a request of 5.5 MiB gets the same block back, one of 8 MiB does not. */
    char *a = (char *)cpu->alloc(NULL, 5 * mib);
    CHECK(a != NULL);
    if (!a) return;
    memset(a, 7, 5 * mib);
    cpu->free(NULL, a, 5 * mib);
    th_cpu_cache_stats s1 = th_cpu_cache_get_stats();
    CHECK_INT_EQ(s1.held_blocks, 1);
    CHECK_INT_EQ(s1.held_bytes, 6 * (int64_t)mib);
    char *b = (char *)cpu->alloc(NULL, 8 * mib);
    CHECK(b != NULL && b != a);
    char *c = (char *)cpu->alloc(NULL, 5 * mib + mib / 2);
    CHECK(c == a);
    th_cpu_cache_stats s2 = th_cpu_cache_get_stats();
    CHECK_INT_EQ(s2.hits - s1.hits, 1);
    CHECK_INT_EQ(s2.misses - s1.misses, 1);
    CHECK_INT_EQ(s2.held_blocks, 0);
    CHECK(((uintptr_t)c % (2 << 20)) == 0);
    cpu->free(NULL, c, 5 * mib + mib / 2);
    cpu->free(NULL, b, 8 * mib);

    /* The most recent block of a size is taken first. */
    char *d = (char *)cpu->alloc(NULL, 6 * mib);
    char *e = (char *)cpu->alloc(NULL, 6 * mib);
    cpu->free(NULL, d, 6 * mib);
    cpu->free(NULL, e, 6 * mib);
    char *f = (char *)cpu->alloc(NULL, 6 * mib);
    CHECK(f == e);
    cpu->free(NULL, f, 6 * mib);

    /* Over the limit, the oldest blocks go: 64 MiB holds at most ten of 6 MiB; a block larger than the
     * limit is never kept. */
    char *many[12];
    for (int i = 0; i < 12; i++) many[i] = (char *)cpu->alloc(NULL, 6 * mib);
    for (int i = 0; i < 12; i++) cpu->free(NULL, many[i], 6 * mib);
    th_cpu_cache_stats s3 = th_cpu_cache_get_stats();
    CHECK(s3.held_bytes <= 64 * (int64_t)mib);
    CHECK_INT_EQ(s3.held_blocks, 10);
    CHECK(s3.evictions > s2.evictions);
    char *newest = (char *)cpu->alloc(NULL, 6 * mib);
    CHECK(newest == many[11]);
    cpu->free(NULL, newest, 6 * mib);
    char *huge = (char *)cpu->alloc(NULL, 80 * mib);
    cpu->free(NULL, huge, 80 * mib);
    CHECK_INT_EQ(th_cpu_cache_get_stats().held_blocks, 10);

    /* More sizes than slots: never more than 32 blocks. */
    CHECK_INT_EQ(th_cpu_cache_set_limit(512 * (int64_t)mib), TH_OK);
    char *sizes[40];
    for (int i = 0; i < 40; i++) sizes[i] = (char *)cpu->alloc(NULL, 4 * mib);
    for (int i = 0; i < 40; i++) cpu->free(NULL, sizes[i], 4 * mib);
    CHECK_INT_EQ(th_cpu_cache_get_stats().held_blocks, 32);

    /* Lowering the limit gives back at once; 0 keeps nothing; empty gives back everything. */
    CHECK_INT_EQ(th_cpu_cache_set_limit(8 * (int64_t)mib), TH_OK);
    CHECK(th_cpu_cache_get_stats().held_bytes <= 8 * (int64_t)mib);
    th_cpu_cache_empty();
    CHECK_INT_EQ(th_cpu_cache_get_stats().held_blocks, 0);
    CHECK_INT_EQ(th_cpu_cache_set_limit(0), TH_OK);
    char *g = (char *)cpu->alloc(NULL, 4 * mib);
    cpu->free(NULL, g, 4 * mib);
    CHECK_INT_EQ(th_cpu_cache_get_stats().held_blocks, 0);

    /* Tensors go through it: a freed 16 MiB result's block is the next one's. */
    CHECK_INT_EQ(th_cpu_cache_set_limit(64 * (int64_t)mib), TH_OK);
    th_set_default_allocator(NULL, NULL);
    th_f32_tensor *t = th_f32_empty(2, (int64_t[]){1024, 4096});
    void *where = th_f32_data(t);
    th_f32_release(t);
    th_f32_tensor *u = th_f32_zeros(2, (int64_t[]){4096, 1024});
    CHECK(th_f32_data(u) == where);
    CHECK(th_f32_numel(u) > 0 && th_f32_data(u)[th_f32_numel(u) - 1] == 0.0f);
    th_f32_release(u);
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);

    CHECK_FAILS(th_cpu_cache_set_limit(-1), TH_ERR_INVALID, "th_cpu_cache_set_limit", "limit -1 is negative");
    th_cpu_cache_empty();
    CHECK_INT_EQ(th_cpu_cache_set_limit(s0.limit), TH_OK);
}

static void test_bad_storage_input(void)
{
    CHECK_NULL(th_storage_new(-1, NULL, NULL), TH_ERR_INVALID, "th_storage_new", "negative size -1");
    CHECK_NULL(th_f32_storage_new(-5), TH_ERR_INVALID, "th_f32_storage_new", "negative size -5");
    CHECK_NULL(th_f64_storage_new(INT64_MAX / 4), TH_ERR_OVERFLOW, "th_f64_storage_new", "overflow");
    CHECK_NULL(th_storage_from_blob(NULL, 8, (th_device){TH_DEVICE_CPU, 0}, NULL, NULL), TH_ERR_INVALID,
               "th_storage_from_blob", "NULL data for 8 bytes");
    CHECK_NULL(th_f32_storage_from_blob(NULL, 2, NULL, NULL), TH_ERR_INVALID, "th_f32_storage_from_blob",
               "NULL data");
    CHECK_FAILS(th_storage_resize(NULL, 8), TH_ERR_INVALID, "th_storage_resize", "NULL storage");
    th_storage *s = th_storage_new(8, NULL, NULL);
    CHECK_FAILS(th_storage_resize(s, -8), TH_ERR_INVALID, "th_storage_resize", "negative size");
    th_storage_release(s);
    th_allocator broken = {"broken", NULL, NULL, NULL, {TH_DEVICE_CPU, 0}};
    CHECK_NULL(th_storage_new(8, &broken, NULL), TH_ERR_INVALID, "th_storage_new", "'broken' has no alloc");
    /* A storage of device memory can exist, but the host refuses to touch it. */
    static char fake_device_memory[64];
    th_storage *d = th_storage_from_blob(fake_device_memory, 64, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    CHECK(!th_device_is_host(th_storage_device(d)));
    CHECK_FAILS(th_f32_storage_fill(d, 1.0f), TH_ERR_DEVICE, "th_f32_storage_fill", "device type 2");
    CHECK_FAILS(th_f32_storage_fill(NULL, 1.0f), TH_ERR_INVALID, "th_f32_storage_fill", "NULL storage");
    th_storage_release(d);
    CHECK_INT_EQ(th_storage_nbytes(NULL), 0);
    CHECK(th_storage_raw_data(NULL) == NULL);
    CHECK_INT_EQ(th_f32_storage_size(NULL), 0);
}

static void test_read_only(void)
{
    int64_t n = 4;
    th_f32_tensor *t = th_f32_full(1, &n, 1.0f);
    th_f32_tensor *src = th_f32_zeros(1, &n);
    th_storage *s = th_f32_storage(t);
    CHECK(!th_storage_is_read_only(s));
    th_storage_make_read_only(s);
    CHECK(th_storage_is_read_only(s));
    CHECK_FAILS(th_f32_set(t, (int64_t[]){0}, 2.0f), TH_ERR_READ_ONLY, "th_f32_set", "read-only");
    CHECK_FAILS(th_f32_fill(t, 2.0f), TH_ERR_READ_ONLY, "th_f32_fill", "read-only");
    CHECK_FAILS(th_f32_copy(t, src), TH_ERR_READ_ONLY, "th_f32_copy", "read-only");
    CHECK_FAILS(th_tensor_copy(th_f32_base(t), th_f32_base(src)), TH_ERR_READ_ONLY, "th_tensor_copy", "read-only");
    CHECK_FAILS(th_f32_storage_fill(s, 2.0f), TH_ERR_READ_ONLY, "th_f32_storage_fill", "read-only");
    CHECK_FAILS(th_storage_resize(s, 64), TH_ERR_READ_ONLY, "th_storage_resize", "read-only");
    CHECK_FAILS(th_storage_move_to(s, th_cpu_allocator(), NULL), TH_ERR_READ_ONLY, "th_storage_move_to", "read-only");
    CHECK(th_f32_get(t, (int64_t[]){3}) == 1.0f); /* reads still work, and copies out of it */
    CHECK_INT_EQ(th_f32_copy(src, t), TH_OK);
    CHECK(th_f32_get(src, (int64_t[]){3}) == 1.0f);
    th_f32_tensor *v = th_f32_narrow(t, 0, 1, 2); /* views share the storage, so the flag */
    CHECK_FAILS(th_f32_fill(v, 0.0f), TH_ERR_READ_ONLY, "th_f32_fill", "read-only");
    th_f32_release(v);
    th_storage_make_read_only(NULL);
    CHECK(!th_storage_is_read_only(NULL));
    th_f32_release(src);
    th_f32_release(t);
}

static void test_move_to(void)
{
    double buf[4] = {1, 2, 3, 4};
    deleter_calls = 0;
    int64_t n = 4;
    th_f64_tensor *t = th_f64_from_blob(buf, 1, &n, NULL, count_deleter, &deleter_calls);
    th_f64_tensor *v = th_f64_narrow(t, 0, 1, 2);
    tagged_ctx ctx = {0, 0, 0};
    CHECK(th_storage_allocator(th_f64_storage(t), NULL) == NULL); /* wrapped memory has none */
    CHECK_INT_EQ(th_storage_move_to(th_f64_storage(t), &tagged_allocator, &ctx), TH_OK);
    CHECK_INT_EQ(deleter_calls, 1); /* the blob went back to its owner */
    CHECK_INT_EQ(ctx.allocs, 1);
    CHECK(th_f64_data(t) != buf);
    CHECK(th_f64_get(v, (int64_t[]){1}) == 3.0); /* the view sees the moved bytes */
    th_f64_set(t, (int64_t[]){2}, 30.0);
    CHECK(th_f64_get(v, (int64_t[]){1}) == 30.0);
    void *got = NULL;
    CHECK(th_storage_allocator(th_f64_storage(t), &got) == &tagged_allocator && got == &ctx);
    CHECK(th_storage_is_resizable(th_f64_storage(t)));
    th_counting_allocator *c = th_counting_allocator_new(NULL, NULL);
    th_counting_allocator_fail_after(c, 1);
    CHECK_FAILS(th_storage_move_to(th_f64_storage(t), th_counting_allocator_get(c), c), TH_ERR_NOMEM,
                "th_storage_move_to", "could not allocate 32 bytes");
    CHECK(th_f64_get(v, (int64_t[]){1}) == 30.0); /* unchanged on error */
    th_counting_allocator_free(c);
    CHECK_FAILS(th_storage_move_to(NULL, &tagged_allocator, NULL), TH_ERR_INVALID, "th_storage_move_to", "NULL storage");
    CHECK_FAILS(th_storage_move_to(th_f64_storage(t), NULL, NULL), TH_ERR_INVALID, "th_storage_move_to", "NULL allocator");
    th_allocator device = tagged_allocator;
    device.device.type = TH_DEVICE_CUDA;
    CHECK_FAILS(th_storage_move_to(th_f64_storage(t), &device, &ctx), TH_ERR_DEVICE, "th_storage_move_to", "device");
    th_f64_release(v);
    th_f64_release(t);
    CHECK_INT_EQ(ctx.frees, 1);
}

/* The core's file map (core/file_map.h): the read-only option and th_storage_is_mapped; tests/shm's
 * test_shm_file_map covers the rest of th_storage_map_file, and test_files_nomap a build that cannot map. */
static void test_map_file(void)
{
    const char *path = "test_storage_map.bin";
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    float v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(fwrite(v, sizeof v, 1, f) == 1);
    fclose(f);
    CHECK(!th_storage_is_mapped(NULL));
    th_storage *plain = th_storage_new(16, NULL, NULL);
    CHECK(!th_storage_is_mapped(plain));
    th_storage_release(plain);
#ifdef __linux__
    for (int shared = 0; shared < 2; shared++) {
        th_storage *s = th_storage_map_file(path, &(th_file_map_options){.shared = shared != 0, .read_only = true});
        CHECK(s && th_storage_is_mapped(s) && th_storage_is_read_only(s) && th_storage_nbytes(s) == 32);
        th_f32_tensor *t = th_f32_new_with_storage(s, 2, 1, (int64_t[]){3}, NULL);
        CHECK(t && th_f32_get(t, (int64_t[]){2}) == 5.0f);
        CHECK_FAILS(th_f32_fill(t, 0.0f), TH_ERR_READ_ONLY, "th_f32_fill", "read-only");
        th_f32_release(t);
        th_storage_release(s);
    }
    /* A writable private map, moved into ordinary memory, is no longer a mapping of the file. */
    th_storage *s = th_storage_map_file(path, NULL);
    CHECK(s && th_storage_is_mapped(s) && !th_storage_is_read_only(s));
    CHECK_INT_EQ(th_storage_move_to(s, th_cpu_allocator(), NULL), TH_OK);
    CHECK(!th_storage_is_mapped(s) && th_f32_storage_data(s)[7] == 8.0f);
    th_storage_release(s);
    CHECK_NULL(th_storage_map_file(path, &(th_file_map_options){.shared = true, .create = true, .read_only = true,
                                                                .nbytes = 8}),
               TH_ERR_INVALID, "th_storage_map_file", "create with read_only");
#else
    CHECK_NULL(th_storage_map_file(path, NULL), TH_ERR_UNSUPPORTED, "th_storage_map_file", "maps files only on Linux");
#endif
    CHECK_INT_EQ(remove(path), 0);
}

int main(void)
{
    test_begin();
    test_refcount();
    test_try_retain();
    test_try_retain_race();
    test_resize();
    test_blob();
    test_user_allocator();
    test_counting_allocator();
    test_large_blocks();
    test_cpu_cache();
    test_bad_storage_input();
    test_read_only();
    test_move_to();
    test_map_file();
    return test_end("storage");
}
