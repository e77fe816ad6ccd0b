/* tests/cuda/test_cuda_streams.c: record_stream under load on a real device. Memory is allocated on stream A,
 * read by a copy kernel on stream B, marked with th_cuda_record_stream, freed, and allocated again on A, a few
 * thousand times. A block must not be handed out again while B's work on it is pending:
 *
 *   held      B is held at a gate (a host function that waits for the test) before its copy, so its work is
 *             certainly pending: the next allocation on A must return another block, A overwrites that one and
 *             finishes, and B, let go, must still copy the old values
 *   free-run  no gate: A's next fill races B's copy, so a block reused early shows as wrong values in B's
 *             results; and whenever B is still busy after an allocation, that allocation must not have
 *             returned the block B is reading
 *
 * B writes into a ring of results checked on the host every few dozen iterations. With TH_CUDA_NO_CACHING set
 * (compute-sanitizer's runs) every free goes to cudaFree, which waits for the device: the gate would hold the
 * test itself, so only the free-run part runs. Without a usable device it says why and exits 77. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, nanosleep */
#endif
#include "tensor.h"
#include "th_cuda.h"

#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures, checks;

#define CHECK(cond)                                                                                     \
    do {                                                                                                \
        checks++;                                                                                       \
        if (!(cond)) {                                                                                  \
            failures++;                                                                                 \
            printf("FAIL %s:%d: %s (last error: %s)\n", __FILE__, __LINE__, #cond, th_last_error());    \
        }                                                                                               \
    } while (0)

enum { SIDE = 256, RING = 48 }; /* a 256 KiB block (the small pool), results for 48 iterations */

/* ---- the gate: a host function queued on B that returns when the test opens it ---- */

static atomic_int gate_open, gate_timed_out;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs on CUDA's callback thread; calls no CUDA function (which host functions must not). If the test
 * thread is itself stuck in a call that waits for B, it never opens the gate: after 10 s the gate opens by
 * itself and says so, and the test fails instead of hanging. */
static void CUDART_CB gate(void *arg)
{
    (void)arg;
    double until = now_s() + 10.0;
    while (!atomic_load(&gate_open)) {
        if (now_s() > until) {
            atomic_store(&gate_timed_out, 1);
            return;
        }
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
}

/* ---- helpers ---- */

static float value_of(int iteration) { return (float)(iteration % 100000) + 0.5f; }

/* Checks that every slot of the ring B wrote holds its iteration's value all over; slots [0, used). */
static void check_ring(th_f32_tensor *ring, const int *iteration_of, int used)
{
    th_f32_tensor *host = th_f32_to_cpu(ring); /* on A, the current stream: waits for nothing of B's */
    CHECK(host != NULL);
    if (!host) return;
    const float *h = th_f32_data(host);
    for (int s = 0; s < used; s++) {
        float want = value_of(iteration_of[s]);
        int64_t wrong = 0;
        for (int64_t k = 0; k < (int64_t)SIDE * SIDE; k++) wrong += h[(int64_t)s * SIDE * SIDE + k] != want;
        if (wrong) printf("iteration %d: %lld of %d values wrong in B's copy\n", iteration_of[s], (long long)wrong,
                          SIDE * SIDE);
        CHECK(wrong == 0);
    }
    th_f32_release(host);
}

/* One iteration: x (made on A, holding its value) is read by a copy on B into slot of ring; x is then marked,
 * freed, and the next x is made on A. Returns the next x. */
typedef struct run {
    th_cuda_stream *a, *b;
    th_f32_tensor *ring;
    int iteration_of[RING];
    int early_reuses, busy_allocs, reuses;
} run;

static th_f32_tensor *make_x(run *r, int iteration)
{
    CHECK(th_cuda_set_current_stream(r->a) == TH_OK);
    return th_f32_cuda_full(0, 2, (int64_t[]){SIDE, SIDE}, value_of(iteration));
}

static th_f32_tensor *step(run *r, th_f32_tensor *x, int iteration, bool gated)
{
    int slot = iteration % RING;
    if (gated) {
        atomic_store(&gate_open, 0);
        atomic_store(&gate_timed_out, 0);
        CHECK(cudaLaunchHostFunc((cudaStream_t)th_cuda_stream_handle(r->b), gate, NULL) == cudaSuccess);
    }
    /* B reads x after A has written it, transposed (a strided read: the kernel, not a memcpy). */
    CHECK(th_cuda_stream_wait(r->b, r->a) == TH_OK);
    CHECK(th_cuda_set_current_stream(r->b) == TH_OK);
    th_f32_tensor *xt = th_f32_transpose(x, 0, 1);
    th_f32_tensor *dst = th_f32_select(r->ring, 0, slot);
    const double t_copy = now_s();
    CHECK(xt && dst && th_cuda_copy(th_f32_base(dst), th_f32_base(xt)) == TH_OK);
    if (gated && now_s() - t_copy > 1.0) printf("iteration %d: queueing B's copy waited %.1f s for B\n", iteration,
                                                now_s() - t_copy);
    r->iteration_of[slot] = iteration;
    CHECK(th_cuda_record_stream(th_f32_base(x), r->b) == TH_OK);
    const void *old = th_f32_data(x);
    const double t_free = now_s();
    th_f32_release(dst);
    th_f32_release(xt);
    th_f32_release(x);
    if (gated && now_s() - t_free > 1.0) printf("iteration %d: the release of x waited %.1f s for B\n", iteration,
                                                now_s() - t_free);

    const double t_made = now_s();
    th_f32_tensor *next = make_x(r, iteration + 1);
    /* A call that waits for B while B is held shows as a gate timeout below: say which one waited. */
    if (gated && now_s() - t_made > 1.0) printf("iteration %d: the allocation on A waited %.1f s for B\n", iteration,
                                                now_s() - t_made);
    CHECK(next != NULL);
    if (!next) return NULL;
    cudaError_t q = cudaStreamQuery((cudaStream_t)th_cuda_stream_handle(r->b));
    if (q == cudaErrorNotReady) {
        (void)cudaGetLastError(); /* an answer, not an error: the runtime records it as the last error all the same */
        /* B's copy of the old block, or the event after it, is still pending: the block must not be back. */
        r->busy_allocs++;
        if (th_f32_data(next) == old) r->early_reuses++;
    } else {
        CHECK(q == cudaSuccess);
        r->reuses += th_f32_data(next) == old;
    }
    if (gated) {
        CHECK(th_f32_data(next) != old);
        /* A's fill of the new block is done before B copies the old one: had they been one block, B would
         * copy the new value. */
        const double t_sync = now_s();
        CHECK(th_cuda_stream_synchronize(r->a) == TH_OK);
        if (now_s() - t_sync > 1.0) printf("iteration %d: synchronising A waited %.1f s for B\n", iteration, now_s() - t_sync);
        atomic_store(&gate_open, 1);
        CHECK(th_cuda_stream_synchronize(r->b) == TH_OK);
        CHECK(!atomic_load(&gate_timed_out));
    }
    return next;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0); /* what was checked before a hang or a crash is in the log */
    int n = th_cuda_device_count();
    if (n == 0) {
        const char *why = th_cuda_unavailable_reason();
        printf("SKIP: no usable CUDA device: %s\n", why ? why : "(no reason given)");
        return 77;
    }
    int iterations = argc > 1 ? atoi(argv[1]) : 4000;
    if (iterations < RING) iterations = RING;
    th_cuda_memory_stats st0;
    CHECK(th_cuda_get_memory_stats(0, &st0) == TH_OK);
    const bool caching = st0.caching;

    run r;
    memset(&r, 0, sizeof r);
    r.a = th_cuda_stream_new(0);
    r.b = th_cuda_stream_new(0);
    CHECK(r.a && r.b);
    if (!r.a || !r.b) return 1;
    CHECK(th_cuda_set_current_stream(r.b) == TH_OK);
    r.ring = th_f32_cuda_zeros(0, 3, (int64_t[]){RING, SIDE, SIDE}); /* B's own memory */
    CHECK(r.ring != NULL);
    CHECK(th_cuda_stream_synchronize(r.b) == TH_OK);
    th_cuda_memory_stats base;
    CHECK(th_cuda_get_memory_stats(0, &base) == TH_OK);

    /* The held iterations come after two free-running ones. CUDA loads kernels lazily, at their first launch
     * (CUDA_MODULE_LOADING=LAZY, the default since 12.2), and a load may wait for the whole device: the copy
     * kernel's first launch behind a held gate then waits for the gate (seen on an H200: A's synchronisation
     * waited the full 10 s in the first held iteration, and never with CUDA_MODULE_LOADING=EAGER). The test is
     * about record_stream, so every kernel it uses is loaded before B is held. */
    th_f32_tensor *x = make_x(&r, 0);
    const int warm = 2;
    int held = caching ? 16 : 0, done = 0;
    for (int i = 0; x && i < iterations; i++) {
        x = step(&r, x, i, i >= warm && i < warm + held);
        done = i + 1;
        if (done % RING == 0 || done == iterations) {
            CHECK(th_cuda_stream_synchronize(r.b) == TH_OK);
            CHECK(th_cuda_set_current_stream(r.a) == TH_OK);
            check_ring(r.ring, r.iteration_of, done % RING == 0 ? RING : done % RING);
        }
    }
    CHECK(done == iterations);
    CHECK(r.early_reuses == 0);
    printf("%d iterations (%d held at the gate%s): %d allocations while B was busy, none of them B's block "
           "(%d were), %d reuses of the freed block once B was done\n",
           done, held, caching ? "" : "; caching is off", r.busy_allocs, r.early_reuses, r.reuses);

    /* Everything back: once B is done and the allocator has polled its events, only the ring and the last x
     * are allocated, and no event is pending. */
    th_f32_release(x);
    CHECK(th_cuda_stream_synchronize(r.b) == TH_OK);
    CHECK(th_cuda_stream_synchronize(r.a) == TH_OK);
    th_f32_tensor *poll = make_x(&r, 0); /* an allocation polls the events */
    th_f32_release(poll);
    th_cuda_memory_stats end;
    CHECK(th_cuda_get_memory_stats(0, &end) == TH_OK);
    CHECK(end.allocations[TH_CUDA_POOL_ALL].current == base.allocations[TH_CUDA_POOL_ALL].current);
    CHECK(end.events_pending == 0);
    if (caching) CHECK(end.cache_hits > base.cache_hits);
    th_f32_release(r.ring);
    CHECK(th_cuda_set_current_stream(NULL) == TH_OK);
    CHECK(th_cuda_stream_free(r.a) == TH_OK);
    CHECK(th_cuda_stream_free(r.b) == TH_OK);
    CHECK(th_cuda_empty_cache(0) == TH_OK);
    printf("test_cuda_streams: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
