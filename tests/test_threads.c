/* tests/test_threads.c: many threads over the same tensors and storages at once.
 *
 * Eight workers at a time (two generations of eight, so threads exit while others run) create tensors, take
 * views of them (narrow, transpose, reshape, view, storage views), reduce them and hand them to one another
 * through a locked queue: a tensor made and retained in one thread is released in another, sometimes by
 * several threads at once, sometimes after the thread that made it has exited. Every worker reads the same
 * four small shared tensors and one large one (large enough that its ops split across OpenMP threads where
 * the build has OpenMP). Each round a worker provokes an error of its own (a narrow with a start no other
 * thread uses) and checks, after letting the others run, that its last error is exactly its own; the error
 * hook checks that it is called on the failing thread with that thread's message.
 *
 * Checked: every sum, element and size against values computed without the library; every tensor handed
 * over is received exactly once; the shared storages' refcounts are back where they started; nothing the
 * counting allocator handed out is live at the end (ASan and valgrind check the tensor headers). Run under
 * ThreadSanitizer in CI, which fails it on any race.
 *
 * POSIX threads rather than C11's: ThreadSanitizer (clang 14, glibc 2.36) intercepts neither thrd_create
 * nor mtx_lock. It crashes in a thread made by the one and does not see the order the other gives, so it
 * reports races on what the lock protects.
 *
 * TH_TEST_THREADS_SECONDS sets how long the workers run (default 1.5; every worker does at least
 * MIN_ROUNDS rounds however short). */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

enum {
    NWORKERS = 8,
    GENERATIONS = 2,
    MIN_ROUNDS = 20,
    NSHARED = 4,
    ROWS = 48,
    COLS = 40,
    BIG_ROWS = 256, /* 128K elements: above th__threads_for's two grains, so OpenMP splits them */
    BIG_COLS = 512,
    BIG_EVERY = 16, /* rounds between ops on the large tensor: they cost as much as the rest of a round */
    QUEUE_CAP = 64,
    BAD_START_SPAN = 100000 /* worker id w provokes starts in [(w + 1) * SPAN, (w + 2) * SPAN) */
};

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* Small integers only, so every f32 sum here is exact whatever order the library adds in. */
static float shared_value(int k, int64_t i, int64_t j) { return (float)((i * 3 + j * 5 + k) % 11); }
static float big_value(int64_t i, int64_t j) { return (float)((i + 2 * j) % 4); }

static th_f32_tensor *shared[NSHARED];
static th_f32_tensor *big;
static double big_sum;

static double shared_region_sum(int k, int64_t r0, int64_t nr, int64_t c0, int64_t nc)
{
    double s = 0;
    for (int64_t i = r0; i < r0 + nr; i++)
        for (int64_t j = c0; j < c0 + nc; j++) s += shared_value(k, i, j);
    return s;
}

static float shared_region_max(int k, int64_t r0, int64_t nr, int64_t c0, int64_t nc)
{
    float m = shared_value(k, r0, c0);
    for (int64_t i = r0; i < r0 + nr; i++)
        for (int64_t j = c0; j < c0 + nc; j++)
            if (shared_value(k, i, j) > m) m = shared_value(k, i, j);
    return m;
}

static double seconds_now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- a worker's own bookkeeping: only its thread touches it until it is joined ---------------------- */

typedef struct worker {
    int id;
    double seconds;
    uint64_t rng;
    long rounds, handed, received, received_foreign, big_rounds, errors_checked;
    long hook_calls, hook_wrong;
    long checks, failures;
    char expect[160]; /* the message of the error this worker provoked last */
} worker;

static _Thread_local worker *current_worker;
static atomic_long stray_hook_calls; /* the hook on a thread that is no worker */

#define W_CHECK(w, cond)                                                                              \
    do {                                                                                              \
        (w)->checks++;                                                                                \
        if (!(cond)) {                                                                                \
            (w)->failures++;                                                                          \
            fprintf(stderr, "worker %d, round %ld: %s:%d: CHECK failed: %s\n", (w)->id, (w)->rounds,  \
                    __FILE__, __LINE__, #cond);                                                       \
        }                                                                                             \
    } while (0)

static uint32_t next_rand(worker *w, uint32_t n)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return (uint32_t)(w->rng % n);
}

static double sum_of(worker *w, const th_f32_tensor *t)
{
    th_f32_tensor *s = th_f32_sum_all(t);
    W_CHECK(w, s != NULL);
    if (!s) return -1;
    double v = th_f32_get(s, NULL);
    th_f32_release(s);
    return v;
}

/* The hook runs on the thread that failed: it must see that thread's worker and that worker's message. */
static void on_error(th_status status, const char *message, void *ctx)
{
    (void)ctx;
    worker *w = current_worker;
    if (!w) {
        atomic_fetch_add(&stray_hook_calls, 1);
        fprintf(stderr, "error hook on a thread that is no worker: %s\n", message);
        return;
    }
    w->hook_calls++;
    if (status != TH_ERR_RANGE || strcmp(message, w->expect) != 0) {
        w->hook_wrong++;
        fprintf(stderr, "worker %d: the hook got \"%s\" (%s), not \"%s\"\n", w->id, message,
                th_status_name(status), w->expect);
    }
}

/* ---- the queue tensors travel through --------------------------------------------------------------- */

typedef struct parcel {
    th_f32_tensor *t;
    int from;      /* the worker that sent it */
    int64_t numel;
    int64_t rows;  /* its sizes: rows x cols */
    int64_t cols;
    double sum;    /* of all its elements */
    float first;   /* element [0, 0] */
} parcel;

static struct {
    pthread_mutex_t lock;
    parcel items[QUEUE_CAP];
    int head, count;
    long put, taken; /* under the lock */
} queue;

static bool queue_put(const parcel *p)
{
    pthread_mutex_lock(&queue.lock);
    bool ok = queue.count < QUEUE_CAP;
    if (ok) {
        queue.items[(queue.head + queue.count) % QUEUE_CAP] = *p;
        queue.count++;
        queue.put++;
    }
    pthread_mutex_unlock(&queue.lock);
    return ok;
}

static bool queue_take(parcel *p)
{
    pthread_mutex_lock(&queue.lock);
    bool ok = queue.count > 0;
    if (ok) {
        *p = queue.items[queue.head];
        queue.head = (queue.head + 1) % QUEUE_CAP;
        queue.count--;
        queue.taken++;
    }
    pthread_mutex_unlock(&queue.lock);
    return ok;
}

/* Checks what arrived against what its sender wrote on the label, and lets go of it. */
static void open_parcel(worker *w, const parcel *p)
{
    W_CHECK(w, th_f32_ndim(p->t) == 2);
    W_CHECK(w, th_f32_numel(p->t) == p->numel);
    W_CHECK(w, th_f32_size(p->t, 0) == p->rows && th_f32_size(p->t, 1) == p->cols);
    W_CHECK(w, th_f32_get(p->t, SZ(0, 0)) == p->first);
    W_CHECK(w, sum_of(w, p->t) == p->sum);
    th_f32_release(p->t);
}

static void receive(worker *w, int most);

/* With surely, a full queue is made room in (the thread's last parcel must reach another thread); else a
 * full queue means nobody is taking, and the sender opens the parcel itself rather than wait. */
static void send(worker *w, parcel *p, bool surely)
{
    p->from = w->id;
    for (;;) {
        if (queue_put(p)) {
            w->handed++;
            return;
        }
        if (!surely) {
            open_parcel(w, p);
            return;
        }
        receive(w, 1);
    }
}

static void receive(worker *w, int most)
{
    parcel p;
    for (int i = 0; i < most && queue_take(&p); i++) {
        w->received++;
        if (p.from != w->id) w->received_foreign++;
        open_parcel(w, &p);
    }
}

/* A tensor of the worker's own, sent in 1 to 3 references at once: the receivers' releases race on one
 * refcount, and whichever comes last frees it into its own thread's header cache. */
static void send_fresh(worker *w, bool surely)
{
    int64_t r = 1 + next_rand(w, 12), c = 1 + next_rand(w, 12);
    float v = (float)(w->id * 1000 + w->rounds % 1000); /* below 2^24 times numel: sums stay exact */
    th_f32_tensor *t = th_f32_full(2, SZ(r, c), v);
    W_CHECK(w, t != NULL);
    if (!t) return;
    parcel p = {t, w->id, r * c, r, c, (double)v * (double)(r * c), v};
    switch (next_rand(w, 3)) {
    case 0: /* the tensor itself */
        break;
    case 1: { /* a narrowed transpose, whose storage outlives the sender's tensor */
        int64_t keep = 1 + next_rand(w, (uint32_t)r);
        th_f32_tensor *n = th_f32_narrow(t, 0, r - keep, keep);
        th_f32_tensor *tt = n ? th_f32_transpose(n, 0, 1) : NULL;
        W_CHECK(w, n && tt);
        th_f32_release(n);
        th_f32_release(t);
        if (!tt) return;
        p.t = tt;
        p.rows = c;
        p.cols = keep;
        p.numel = keep * c;
        p.sum = (double)v * (double)p.numel;
        break;
    }
    default: { /* a view of another shape over the same storage */
        th_f32_tensor *flat = th_f32_view(t, 2, SZ(1, r * c));
        W_CHECK(w, flat != NULL);
        th_f32_release(t);
        if (!flat) return;
        p.t = flat;
        p.rows = 1;
        p.cols = r * c;
        break;
    }
    }
    int copies = 1 + (int)next_rand(w, 3);
    th_f32_tensor *t0 = p.t;
    for (int i = 1; i < copies; i++) th_f32_retain(t0);
    for (int i = 0; i < copies; i++) send(w, &p, surely);
}

/* A reference to a shared tensor, or a view of part of it (transposed or over its storage directly): these
 * are released by other threads while every worker is taking its own views of the same storage. */
static void send_shared(worker *w)
{
    int k = (int)next_rand(w, NSHARED);
    int64_t r0 = next_rand(w, ROWS), nr = 1 + next_rand(w, (uint32_t)(ROWS - r0));
    int64_t c0 = next_rand(w, COLS), nc = 1 + next_rand(w, (uint32_t)(COLS - c0));
    parcel p = {NULL, w->id, 0, 0, 0, 0, 0};
    switch (next_rand(w, 3)) {
    case 0:
        p.t = th_f32_retain(shared[k]);
        r0 = 0, nr = ROWS, c0 = 0, nc = COLS;
        p.rows = ROWS;
        p.cols = COLS;
        break;
    case 1: {
        th_f32_tensor *rows = th_f32_narrow(shared[k], 0, r0, nr);
        th_f32_tensor *both = rows ? th_f32_narrow(rows, 1, c0, nc) : NULL;
        p.t = both ? th_f32_transpose(both, 0, 1) : NULL;
        th_f32_release(both);
        th_f32_release(rows);
        p.rows = nc;
        p.cols = nr;
        break;
    }
    default: /* one row's run of columns, straight over the storage */
        nr = 1;
        p.t = th_f32_new_with_storage(th_f32_storage(shared[k]), r0 * COLS + c0, 2, SZ(1, nc), NULL);
        p.rows = 1;
        p.cols = nc;
        break;
    }
    W_CHECK(w, p.t != NULL);
    if (!p.t) return;
    p.numel = nr * nc;
    p.sum = shared_region_sum(k, r0, nr, c0, nc);
    p.first = shared_value(k, r0, c0);
    send(w, &p, false);
}

/* Views and reductions of the shared tensors, all released by this thread. */
static void look_at_shared(worker *w)
{
    int k = (int)next_rand(w, NSHARED);
    int64_t r0 = next_rand(w, ROWS), nr = 1 + next_rand(w, (uint32_t)(ROWS - r0));
    th_f32_tensor *n = th_f32_narrow(shared[k], 0, r0, nr);
    th_f32_tensor *t = n ? th_f32_transpose(n, 0, 1) : NULL;
    th_f32_tensor *flat = t ? th_f32_reshape(t, 1, SZ(nr * COLS)) : NULL; /* not contiguous: a copy */
    th_f32_tensor *back = flat ? th_f32_view(flat, 2, SZ(COLS, nr)) : NULL;
    W_CHECK(w, n && t && flat && back);
    if (back) {
        double want = shared_region_sum(k, r0, nr, 0, COLS);
        W_CHECK(w, sum_of(w, n) == want);
        W_CHECK(w, sum_of(w, t) == want);
        W_CHECK(w, sum_of(w, back) == want);
        W_CHECK(w, th_f32_data(flat)[0] == shared_value(k, r0, 0));
        W_CHECK(w, th_f32_get(back, SZ(COLS - 1, nr - 1)) == shared_value(k, r0 + nr - 1, COLS - 1));
        th_f32_tensor *mx = th_f32_max_all(t);
        W_CHECK(w, mx && th_f32_get(mx, NULL) == shared_region_max(k, r0, nr, 0, COLS));
        th_f32_release(mx);
    }
    /* released out of order: a view may outlive the tensor it came from */
    th_f32_release(n);
    th_f32_release(back);
    th_f32_release(t);
    th_f32_release(flat);
}

/* Ops large enough to split across OpenMP threads, from eight threads at once. */
static void look_at_big(worker *w)
{
    th_f32_tensor *t = th_f32_transpose(big, 0, 1);
    th_f32_tensor *twice = th_f32_add(big, big);
    W_CHECK(w, t && twice);
    W_CHECK(w, sum_of(w, big) == big_sum);
    W_CHECK(w, sum_of(w, t) == big_sum);
    W_CHECK(w, sum_of(w, twice) == 2 * big_sum);
    W_CHECK(w, th_f32_get(twice, SZ(BIG_ROWS - 1, BIG_COLS - 1)) == 2 * big_value(BIG_ROWS - 1, BIG_COLS - 1));
    th_f32_release(twice);
    th_f32_release(t);
    w->big_rounds++;
}

/* An error only this worker can make (its start is in its own range), checked after the others have had
 * the chance to fail in between. */
static void provoke_error(worker *w)
{
    long long bad = (long long)(w->id + 1) * BAD_START_SPAN + w->rounds % BAD_START_SPAN;
    snprintf(w->expect, sizeof w->expect, "th_f32_narrow: start %lld is out of range for size %d of dim 0",
             bad, ROWS);
    th_clear_error();
    W_CHECK(w, th_last_status() == TH_OK && th_last_error()[0] == '\0');
    long calls = w->hook_calls;
    W_CHECK(w, th_f32_narrow(shared[w->rounds % NSHARED], 0, bad, 1) == NULL);
    sched_yield();
    W_CHECK(w, th_last_status() == TH_ERR_RANGE);
    if (strcmp(th_last_error(), w->expect) != 0) {
        w->failures++;
        fprintf(stderr, "worker %d: last error \"%s\", not \"%s\"\n", w->id, th_last_error(), w->expect);
    }
    w->checks++;
    W_CHECK(w, w->hook_calls == calls + 1);
    w->errors_checked++;
}

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    current_worker = w;
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
    double end = seconds_now() + w->seconds;
    /* Each round starts with what needs no other thread (views, reductions, errors) and only then goes
     * to the queue and OpenMP: their locks order everything before them, and would hide from
     * ThreadSanitizer a race in, say, a thread's first use of the library. */
    while (w->rounds < MIN_ROUNDS || seconds_now() < end) {
        look_at_shared(w);
        provoke_error(w);
        receive(w, 3 + (int)next_rand(w, 3)); /* a little more than a round sends */
        send_fresh(w, false);
        send_shared(w);
        if (w->rounds % BIG_EVERY == w->id % BIG_EVERY) {
            th_set_num_threads(2); /* this thread's own OpenMP setting: two even on one core */
            look_at_big(w);
        }
        w->rounds++;
    }
    /* One last parcel, always opened by a later thread: its sender will have exited by then. */
    send_fresh(w, true);
    current_worker = NULL;
    return NULL;
}

/* Eight threads take large blocks from the CPU allocator and give them back, each block marked with its
 * thread and round and checked after the others have run: two threads handed the same cached block, or a
 * block handed out while still held by the cache, would see another's mark. */
enum { CHURN_THREADS = 8, CHURN_ROUNDS = 200 };
typedef struct { int id; long checks, failures, hits; } churner;

static void *churn(void *arg)
{
    churner *c = (churner *)arg;
    const th_allocator *cpu = th_cpu_allocator();
    for (int r = 0; r < CHURN_ROUNDS; r++) {
        size_t nbytes = (size_t)(4 + (r + c->id) % 3 * 2) << 20; /* 4, 6 or 8 MiB: the sizes repeat */
        uint64_t *block = (uint64_t *)cpu->alloc(NULL, nbytes);
        c->checks++;
        if (!block) { c->failures++; continue; }
        uint64_t mark = (uint64_t)c->id << 32 | (uint64_t)r;
        size_t n = nbytes / sizeof *block, step = 4096 / sizeof *block;
        for (size_t i = 0; i < n; i += step) block[i] = mark;
        sched_yield();
        for (size_t i = 0; i < n; i += step) {
            c->checks++;
            if (block[i] != mark) { c->failures++; break; }
        }
        cpu->free(NULL, block, nbytes);
    }
    return NULL;
}

static void churn_large(void)
{
    th_cpu_cache_stats before = th_cpu_cache_get_stats();
    churner c[CHURN_THREADS];
    pthread_t threads[CHURN_THREADS];
    bool started[CHURN_THREADS];
    for (int i = 0; i < CHURN_THREADS; i++) {
        c[i] = (churner){.id = i};
        started[i] = pthread_create(&threads[i], NULL, churn, &c[i]) == 0;
        CHECK(started[i]);
    }
    for (int i = 0; i < CHURN_THREADS; i++)
        if (started[i]) pthread_join(threads[i], NULL);
    for (int i = 0; i < CHURN_THREADS; i++) {
        check_count += (int)c[i].checks;
        check_failures += (int)c[i].failures;
    }
    th_cpu_cache_stats after = th_cpu_cache_get_stats();
    CHECK(after.held_bytes <= after.limit);
    CHECK(after.held_blocks <= 32);
    CHECK_INT_EQ((after.hits - before.hits) + (after.misses - before.misses), CHURN_THREADS * CHURN_ROUNDS);
    printf("threads: large-block churn: %lld of %d allocations from the cache\n",
           (long long)(after.hits - before.hits), CHURN_THREADS * CHURN_ROUNDS);
    th_cpu_cache_empty();
}

int main(void)
{
    test_begin();
    double seconds = 1.5;
    const char *env = getenv("TH_TEST_THREADS_SECONDS");
    if (env && *env) seconds = atof(env);
    if (!(seconds >= 0)) seconds = 0;

    for (int k = 0; k < NSHARED; k++) {
        shared[k] = th_f32_empty(2, SZ(ROWS, COLS));
        CHECK(shared[k] != NULL);
        if (!shared[k]) return 1;
        for (int64_t i = 0; i < ROWS; i++)
            for (int64_t j = 0; j < COLS; j++) th_f32_data(shared[k])[i * COLS + j] = shared_value(k, i, j);
    }
    big = th_f32_empty(2, SZ(BIG_ROWS, BIG_COLS));
    CHECK(big != NULL);
    if (!big) return 1;
    for (int64_t i = 0; i < BIG_ROWS; i++)
        for (int64_t j = 0; j < BIG_COLS; j++) {
            th_f32_data(big)[i * BIG_COLS + j] = big_value(i, j);
            big_sum += big_value(i, j);
        }
    CHECK(pthread_mutex_init(&queue.lock, NULL) == 0);
    th_error_hook hook = {on_error, NULL};
    th_set_error_hook(&hook);

    static worker workers[GENERATIONS * NWORKERS];
    for (int g = 0; g < GENERATIONS; g++) {
        pthread_t threads[NWORKERS];
        bool started[NWORKERS];
        for (int i = 0; i < NWORKERS; i++) {
            worker *w = &workers[g * NWORKERS + i];
            w->id = g * NWORKERS + i;
            /* staggered, so that threads exit (and free their header caches) while others still run */
            w->seconds = seconds / GENERATIONS * (0.6 + 0.8 * i / (NWORKERS - 1));
            w->rng = 0x9E3779B97F4A7C15u * (uint64_t)(w->id + 1);
            started[i] = pthread_create(&threads[i], NULL, work, w) == 0;
            CHECK(started[i]);
        }
        for (int i = 0; i < NWORKERS; i++)
            if (started[i]) pthread_join(threads[i], NULL);
    }
    th_set_error_hook(NULL);

    /* What the last generation left in the queue, opened here. */
    worker last = {.id = -1};
    receive(&last, QUEUE_CAP);
    check_count += (int)last.checks;
    check_failures += (int)last.failures;

    long rounds = 0, handed = 0, received = last.received, foreign = last.received_foreign, bigs = 0;
    for (int i = 0; i < GENERATIONS * NWORKERS; i++) {
        worker *w = &workers[i];
        check_count += (int)w->checks;
        check_failures += (int)w->failures;
        CHECK(w->rounds >= MIN_ROUNDS);
        CHECK_INT_EQ(w->errors_checked, w->rounds);
        CHECK_INT_EQ(w->hook_calls, w->rounds);
        CHECK_INT_EQ(w->hook_wrong, 0);
        rounds += w->rounds;
        handed += w->handed;
        received += w->received;
        foreign += w->received_foreign;
        bigs += w->big_rounds;
    }
    CHECK_INT_EQ(atomic_load(&stray_hook_calls), 0);
    CHECK_INT_EQ(queue.count, 0);
    CHECK_INT_EQ(queue.put, handed);
    CHECK_INT_EQ(queue.taken, handed);
    CHECK_INT_EQ(received, handed);
    /* at least one reference of each worker's last parcel reaches another thread */
    CHECK(foreign >= GENERATIONS * NWORKERS);
    CHECK(bigs >= GENERATIONS * NWORKERS);
    for (int k = 0; k < NSHARED; k++) {
        CHECK_INT_EQ(th_storage_refcount(th_f32_storage(shared[k])), 1);
        th_f32_release(shared[k]);
    }
    th_f32_release(big);
    pthread_mutex_destroy(&queue.lock);
    churn_large();
    printf("threads: %d workers in %d generations, %ld rounds, %ld tensors handed over (%ld to another "
           "thread), %ld rounds on the large tensor\n",
           GENERATIONS * NWORKERS, GENERATIONS, rounds, handed, foreign, bigs);
    return test_end("threads");
}
