/* bench/cuda_bench.c: the CUDA companion against the CUDA runtime's own calls and, when bench/cuda_torch.py
 * ran first, PyTorch; one table with the targets (run by bench/cuda_run.sh, which builds it in release:
 * a debug build compiles the kernels with -G).
 *
 *   alloc      a th_cuda_allocator alloc + free served from the cache, 512 B to 256 MiB, 200 other blocks live:
 *              ns per pair (median of 31 batches); cudaMalloc + cudaFree of 1 MiB beside it
 *   h2d / d2h  host to device and back: from and to a pinned tensor (th_cuda_copy) against cudaMemcpy from
 *              cudaMallocHost memory; from and to a pageable tensor against cudaMemcpy from malloc'd memory
 *   transpose  an N x N f32 transposed view copied into a contiguous device tensor (th_cuda_copy, the copy
 *              kernel) against a device-to-device cudaMemcpy of the same bytes
 *   ops        issue 13's rows: th_f32_add_out of TRANSFER_MIB (3 bytes moved per 2 a cudaMemcpy moves) against
 *              a device-to-device cudaMemcpy; a 4-element th_f32_add_out, launch included, against an empty
 *              kernel's launch; th_f32_mm at 4096^3 against cublasSgemm on the same buffers, and at 256^3 the
 *              host's time per call; sums of a 16384^2 f32 matrix (all, dim 0, dim 1) against the copy's rate
 *
 * Usage: cuda_bench [--test] [--peer FILE] [TRANSFER_MIB [SIDE]]   (defaults 1024 MiB and 8192)
 * FILE holds "key value" lines from cuda_torch.py. Without a usable device it says why and exits 0, or 77 with
 * --test (Meson's skip: the test suite runs it with tiny sizes to see that it builds and runs). Timings are
 * printed, never asserted: "met" / "NOT met" say how each compares with its target. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, nanosleep */
#endif
#include "tensor.h"
#include "th_cuda.h"

#include "kernels.h" /* th__cuda_launch_empty: the launch a tiny op is compared with */

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct timing {
    double best, median;
} timing;

static timing summarize(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (timing){v[0], v[n / 2]};
}

/* Dies with the error: a benchmark whose setup failed has nothing to report. */
#define MUST(cond, what)                                                                                \
    do {                                                                                                \
        if (!(cond)) {                                                                                  \
            fprintf(stderr, "cuda_bench: %s failed: %s\n", what, th_last_error());                      \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)
#define CUDA_MUST(call)                                                                                 \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "cuda_bench: %s failed: %s\n", #call, cudaGetErrorName(e_));                \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

/* ---- the peer file ---- */

static char peer_keys[64][48];
static double peer_values[64];
static int npeer;

static void read_peers(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return;
    char key[48];
    double v;
    while (npeer < 64 && fscanf(f, "%47s %lf", key, &v) == 2) {
        snprintf(peer_keys[npeer], sizeof peer_keys[npeer], "%s", key);
        peer_values[npeer++] = v;
    }
    fclose(f);
}

static double peer(const char *key)
{
    for (int i = 0; i < npeer; i++)
        if (strcmp(peer_keys[i], key) == 0) return peer_values[i];
    return -1;
}

static void cell(double v, const char *fmt)
{
    char buf[32];
    if (v < 0)
        snprintf(buf, sizeof buf, "n/a");
    else
        snprintf(buf, sizeof buf, fmt, v);
    printf(" %12s", buf);
}

static int met_count, target_count;

static const char *verdict(bool met)
{
    target_count++;
    met_count += met;
    return met ? "met" : "NOT met";
}

/* ---- rows ---- */

enum { BATCHES = 31 };

/* ns per alloc + free pair of nbytes through the device allocator, every one served from the cache. */
static timing cached_alloc_free(const th_allocator *a, void *ctx, size_t nbytes, int pairs)
{
    void *p = a->alloc(ctx, nbytes); /* the first one fills the cache */
    MUST(p, "the device allocator");
    a->free(ctx, p, nbytes);
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (int i = 0; i < pairs; i++) {
            void *q = a->alloc(ctx, nbytes);
            a->free(ctx, q, nbytes);
        }
        t[b] = (now_ns() - t0) / pairs;
    }
    return summarize(t, BATCHES);
}

static timing cuda_malloc_free(size_t nbytes, int pairs)
{
    double t[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_ns();
        for (int i = 0; i < pairs; i++) {
            void *p = NULL;
            CUDA_MUST(cudaMalloc(&p, nbytes));
            CUDA_MUST(cudaFree(p));
        }
        t[b] = (now_ns() - t0) / pairs;
    }
    return summarize(t, BATCHES);
}

enum { COPY_RUNS = 7 };

/* GB/s (1e9 bytes) of a synchronous copy of nbytes: best and median of COPY_RUNS after one warm-up. Stored
 * as seconds, reported as bandwidth, so "best" is the fastest. */
typedef struct copy_fn {
    int kind; /* 0: th_cuda_copy(dst, src), 1: cudaMemcpy(dst, src) */
    th_tensor *tdst;
    const th_tensor *tsrc;
    void *dst;
    const void *src;
    size_t nbytes;
    enum cudaMemcpyKind dir;
} copy_fn;

static void run_copy(const copy_fn *c)
{
    if (c->kind == 0)
        MUST(th_cuda_copy(c->tdst, c->tsrc) == TH_OK, "th_cuda_copy");
    else
        CUDA_MUST(cudaMemcpy(c->dst, c->src, c->nbytes, c->dir));
}

static timing copy_gbps(const copy_fn *c)
{
    run_copy(c);
    double t[COPY_RUNS];
    for (int r = 0; r < COPY_RUNS; r++) {
        double t0 = now_ns();
        run_copy(c);
        t[r] = now_ns() - t0;
    }
    timing s = summarize(t, COPY_RUNS);
    return (timing){(double)c->nbytes / s.best, (double)c->nbytes / s.median};
}

/* ms of a device-side operation between two events on stream (the copy kernel or a device memcpy). */
static timing device_ms(th_tensor *dst, const th_tensor *src, void *d, const void *s, size_t nbytes,
                        cudaStream_t stream)
{
    cudaEvent_t e0, e1;
    CUDA_MUST(cudaEventCreate(&e0));
    CUDA_MUST(cudaEventCreate(&e1));
    double t[COPY_RUNS];
    for (int r = -1; r < COPY_RUNS; r++) { /* r = -1: the warm-up */
        CUDA_MUST(cudaEventRecord(e0, stream));
        if (dst)
            MUST(th_cuda_copy(dst, src) == TH_OK, "th_cuda_copy");
        else
            CUDA_MUST(cudaMemcpyAsync(d, s, nbytes, cudaMemcpyDeviceToDevice, stream));
        CUDA_MUST(cudaEventRecord(e1, stream));
        CUDA_MUST(cudaEventSynchronize(e1));
        float ms = 0;
        CUDA_MUST(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) t[r] = ms;
    }
    CUDA_MUST(cudaEventDestroy(e0));
    CUDA_MUST(cudaEventDestroy(e1));
    return summarize(t, COPY_RUNS);
}

static void header(const char *what);

/* ms per call of op() between two events on stream, over reps calls (warmed up once). */
static timing events_ms(void (*op)(void *), void *arg, int reps, cudaStream_t stream)
{
    cudaEvent_t e0, e1;
    CUDA_MUST(cudaEventCreate(&e0));
    CUDA_MUST(cudaEventCreate(&e1));
    double t[COPY_RUNS];
    op(arg);
    for (int r = 0; r < COPY_RUNS; r++) {
        CUDA_MUST(cudaEventRecord(e0, stream));
        for (int k = 0; k < reps; k++) op(arg);
        CUDA_MUST(cudaEventRecord(e1, stream));
        CUDA_MUST(cudaEventSynchronize(e1));
        float ms = 0;
        CUDA_MUST(cudaEventElapsedTime(&ms, e0, e1));
        t[r] = ms / reps;
    }
    CUDA_MUST(cudaEventDestroy(e0));
    CUDA_MUST(cudaEventDestroy(e1));
    return summarize(t, COPY_RUNS);
}

/* us per call on the host's clock: reps calls queued, then one wait (what a loop of small ops costs). */
static timing host_us(void (*op)(void *), void *arg, int reps, cudaStream_t stream)
{
    double t[COPY_RUNS];
    op(arg);
    CUDA_MUST(cudaStreamSynchronize(stream));
    for (int r = 0; r < COPY_RUNS; r++) {
        double t0 = now_ns();
        for (int k = 0; k < reps; k++) op(arg);
        CUDA_MUST(cudaStreamSynchronize(stream));
        t[r] = (now_ns() - t0) / 1e3 / reps;
    }
    return summarize(t, COPY_RUNS);
}

typedef struct ops_args {
    th_f32_tensor *out, *a, *b;
    int64_t dim; /* the sum rows: -1 for all */
    void *d, *s;
    size_t nbytes;
    cudaStream_t stream;
    cublasHandle_t blas;
    int n; /* a square sgemm's side */
} ops_args;

static void op_add(void *p)
{
    ops_args *x = p;
    MUST(th_f32_add_out(x->out, x->a, x->b) == TH_OK, "th_f32_add_out");
}
static void op_sum(void *p)
{
    ops_args *x = p;
    MUST((x->dim < 0 ? th_f32_sum_all_out(x->out, x->a) : th_f32_sum_dim_out(x->out, x->a, x->dim, false)) == TH_OK,
         "th_f32_sum");
}
static void op_memcpy(void *p)
{
    ops_args *x = p;
    CUDA_MUST(cudaMemcpyAsync(x->d, x->s, x->nbytes, cudaMemcpyDeviceToDevice, x->stream));
}
static void op_empty(void *p)
{
    ops_args *x = p;
    CUDA_MUST(th__cuda_launch_empty(x->stream));
}
static void op_mm(void *p)
{
    ops_args *x = p;
    MUST(th_f32_mm_out(x->out, x->a, x->b) == TH_OK, "th_f32_mm_out");
}
/* The same product as th_f32_mm_out's, called directly: row-major C = A B is column-major C^T = B^T A^T. */
static void op_sgemm(void *p)
{
    ops_args *x = p;
    const float one = 1.0f, zero = 0.0f;
    MUST(cublasSgemm(x->blas, CUBLAS_OP_N, CUBLAS_OP_N, x->n, x->n, x->n, &one, th_f32_data(x->b), x->n,
                     th_f32_data(x->a), x->n, &zero, th_f32_data(x->out), x->n) == CUBLAS_STATUS_SUCCESS,
         "cublasSgemm");
}

/* Sums of a side^2 f32 matrix (all, over dim 0, over dim 1): bytes read per second against a device-to-device
 * cudaMemcpy's bytes read plus written per second, the memory's rate as the add row counts it. */
static void bench_sums(bool test, cudaStream_t cs)
{
    int64_t side = test ? 64 : 16384, sq[2] = {side, side}, one = side;
    ops_args x = {NULL, th_f32_cuda_full(0, 2, sq, 0.5f), th_f32_cuda_empty(0, 2, sq), 0, NULL, NULL,
                  (size_t)(side * side) * sizeof(float), cs, NULL, 0};
    MUST(x.a && x.b, "the sum tensors");
    x.d = th_f32_data(x.b);
    x.s = th_f32_data(x.a);
    timing copy = events_ms(op_memcpy, &x, test ? 1 : 5, cs);
    double copy_gbps = 2.0 * (double)x.nbytes / (copy.best * 1e6);
    char title[64];
    snprintf(title, sizeof title, "sum of %lld^2 f32 (GB/s read)", (long long)side);
    header(title);
    static const char *const rows[3] = {"th_f32_sum_all_out", "th_f32_sum_dim_out, dim 0", "th_f32_sum_dim_out, dim 1"};
    static const char *const keys[3] = {"torch_sum_all", "torch_sum_dim0", "torch_sum_dim1"};
    for (int k = 0; k < 3; k++) {
        x.dim = k - 1;
        x.out = x.dim < 0 ? th_f32_cuda_empty(0, 0, NULL) : th_f32_cuda_empty(0, 1, &one);
        MUST(x.out, "the sum's result");
        timing sum = events_ms(op_sum, &x, test ? 1 : 5, cs);
        double gbps = (double)x.nbytes / (sum.best * 1e6);
        printf("%-34s", rows[k]);
        cell(gbps, "%.1f");
        cell(copy_gbps, "%.1f");
        cell(peer(keys[k]), "%.1f");
        printf(" %7.2fx  at least 85%% of the memory's rate: %s; ahead of PyTorch: %s\n", gbps / copy_gbps,
               verdict(gbps >= 0.85 * copy_gbps), peer(keys[k]) < 0 ? "n/a" : gbps > peer(keys[k]) ? "yes" : "no");
        th_f32_release(x.out);
    }
    th_f32_release(x.a);
    th_f32_release(x.b);
}

static void bench_ops(bool test, long mib, cudaStream_t cs)
{
    /* f32 add: bandwidth counted as bytes moved (two read, one written) against a copy's (one read, one
     * written), so a kernel at the memory's limit reaches 100%. */
    int64_t n = (int64_t)(((size_t)mib << 20) / sizeof(float));
    ops_args x = {th_f32_cuda_empty(0, 1, &n), th_f32_cuda_full(0, 1, &n, 1.0f), th_f32_cuda_full(0, 1, &n, 2.0f),
                  0, NULL, NULL, (size_t)n * sizeof(float), cs, NULL, 0};
    MUST(x.out && x.a && x.b, "the add tensors");
    x.d = th_f32_data(x.out);
    x.s = th_f32_data(x.a);
    timing add = events_ms(op_add, &x, test ? 2 : 10, cs), copy = events_ms(op_memcpy, &x, test ? 2 : 10, cs);
    double add_gbps = 3.0 * (double)x.nbytes / (add.best * 1e6), copy_gbps = 2.0 * (double)x.nbytes / (copy.best * 1e6);
    char title[64];
    snprintf(title, sizeof title, "%ld MiB f32 add into out (GB/s)", mib);
    header(title);
    printf("%-34s", "th_f32_add_out vs device cudaMemcpy");
    cell(add_gbps, "%.1f");
    cell(copy_gbps, "%.1f");
    cell(peer("torch_add"), "%.1f");
    printf(" %7.2fx  at least 90%% of device-to-device cudaMemcpy: %s (medians %.3f / %.3f ms)\n",
           add_gbps / copy_gbps, verdict(add_gbps >= 0.9 * copy_gbps), add.median, copy.median);
    th_f32_release(x.out);
    th_f32_release(x.a);
    th_f32_release(x.b);

    /* A tiny op, launch included, on the host's clock, against an empty kernel's launch. */
    int64_t four = 4;
    ops_args t = {th_f32_cuda_empty(0, 1, &four), th_f32_cuda_full(0, 1, &four, 1.0f),
                  th_f32_cuda_full(0, 1, &four, 2.0f), 0, NULL, NULL, 0, cs, NULL, 0};
    MUST(t.out && t.a && t.b, "the tiny tensors");
    timing tiny = host_us(op_add, &t, test ? 10 : 2000, cs), empty = host_us(op_empty, &t, test ? 10 : 2000, cs);
    header("4-element add, launch included (us)");
    printf("%-34s", "th_f32_add_out vs empty kernel");
    cell(tiny.best, "%.2f");
    cell(empty.best, "%.2f");
    cell(peer("torch_tiny_add"), "%.2f");
    printf(" %7.2fx  within 1.2x of an empty kernel's launch: %s (medians %.2f / %.2f)\n", tiny.best / empty.best,
           verdict(tiny.best <= 1.2 * empty.best), tiny.median, empty.median);
    th_f32_release(t.out);
    th_f32_release(t.a);
    th_f32_release(t.b);

    /* sgemm through the typed name against cuBLAS called directly on the same buffers. */
    MUST(cublasCreate(&x.blas) == CUBLAS_STATUS_SUCCESS && cublasSetStream(x.blas, cs) == CUBLAS_STATUS_SUCCESS,
         "cublasCreate");
    const int sides[2] = {test ? 64 : 4096, test ? 16 : 256};
    for (int k = 0; k < 2; k++) {
        int64_t sq[2] = {sides[k], sides[k]};
        x.n = sides[k];
        x.out = th_f32_cuda_empty(0, 2, sq);
        x.a = th_f32_cuda_full(0, 2, sq, 0.5f);
        x.b = th_f32_cuda_full(0, 2, sq, 0.25f);
        MUST(x.out && x.a && x.b, "the sgemm tensors");
        snprintf(title, sizeof title, "sgemm %d^3", sides[k]);
        header(title);
        if (k == 0) {
            timing ours = events_ms(op_mm, &x, test ? 1 : 5, cs), theirs = events_ms(op_sgemm, &x, test ? 1 : 5, cs);
            double flops = 2.0 * (double)x.n * x.n * x.n;
            printf("%-34s", "th_f32_mm_out vs cublasSgemm (TFLOP/s)");
            cell(flops / (ours.best * 1e9), "%.1f");
            cell(flops / (theirs.best * 1e9), "%.1f");
            cell(peer("torch_sgemm"), "%.1f");
            printf(" %7.3fx  within 2%% of cuBLAS called directly: %s\n", theirs.best / ours.best,
                   verdict(ours.best <= 1.02 * theirs.best));
        } else {
            timing ours = host_us(op_mm, &x, test ? 10 : 2000, cs), theirs = host_us(op_sgemm, &x, test ? 10 : 2000, cs);
            printf("%-34s", "host us per call (ours - cuBLAS's)");
            cell(ours.best, "%.2f");
            cell(theirs.best, "%.2f");
            cell(-1, "");
            printf(" %+7.2f  the typed name's host overhead under 5 us a call: %s\n", ours.best - theirs.best,
                   verdict(ours.best - theirs.best < 5.0));
        }
        th_f32_release(x.out);
        th_f32_release(x.a);
        th_f32_release(x.b);
    }
    MUST(cublasDestroy(x.blas) == CUBLAS_STATUS_SUCCESS, "cublasDestroy");
    bench_sums(test, cs);
}

static void header(const char *what)
{
    printf("\n%-34s %12s %12s %12s %8s  %s\n", what, "tensor.h", "CUDA", "PyTorch", "ratio", "target");
}

int main(int argc, char **argv)
{
    bool test = false;
    int arg = 1;
    const char *peer_file = NULL;
    for (; arg < argc && argv[arg][0] == '-'; arg++) {
        if (strcmp(argv[arg], "--test") == 0) {
            test = true;
        } else if (strcmp(argv[arg], "--peer") == 0 && arg + 1 < argc) {
            peer_file = argv[++arg];
        } else {
            fprintf(stderr, "usage: %s [--test] [--peer FILE] [TRANSFER_MIB [SIDE]]\n", argv[0]);
            return 2;
        }
    }
    long mib = arg < argc ? strtol(argv[arg++], NULL, 10) : 1024;
    long side = arg < argc ? strtol(argv[arg++], NULL, 10) : 8192;
    if (mib < 1 || side < 1 || mib > (1L << 20) || side > (1L << 17)) {
        fprintf(stderr, "cuda_bench: TRANSFER_MIB and SIDE must be positive (got %ld, %ld)\n", mib, side);
        return 2;
    }
    if (peer_file) read_peers(peer_file);
    if (th_cuda_device_count() == 0) {
        const char *why = th_cuda_unavailable_reason();
        printf("cuda_bench: no usable CUDA device (%s): nothing to measure\n", why ? why : "no reason given");
        return test ? 77 : 0;
    }
    struct cudaDeviceProp prop;
    CUDA_MUST(cudaGetDeviceProperties(&prop, 0));
    printf("device 0: %s (%d SMs, %.1f GiB)%s\n", prop.name, prop.multiProcessorCount,
           (double)prop.totalGlobalMem / (1 << 30), test ? "; --test: tiny sizes, figures mean nothing" : "");

    /* ---- allocation + free from the cache ---- */
    void *ctx = NULL;
    const th_allocator *a = th_cuda_allocator(0, &ctx);
    MUST(a, "th_cuda_allocator");
    th_cuda_memory_stats st;
    MUST(th_cuda_get_memory_stats(0, &st) == TH_OK, "th_cuda_get_memory_stats");
    if (!st.caching) printf("(TH_CUDA_NO_CACHING is set: the allocation rows time cudaMalloc + cudaFree)\n");
    enum { LIVE = 200 };
    void *live[LIVE];
    for (int i = 0; i < LIVE; i++) MUST((live[i] = a->alloc(ctx, 4096)) != NULL, "the device allocator");
    const size_t sizes[] = {512, 4096, 65536, 1 << 20, 16 << 20, 256 << 20};
    const char *names[] = {"512B", "4KiB", "64KiB", "1MiB", "16MiB", "256MiB"};
    const int nsizes = test ? 4 : 6;
    int pairs = test ? 50 : 2000;
    timing cached_1m = {0, 0};
    header("alloc + free from the cache (ns)");
    double worst = 0;
    for (int s = 0; s < nsizes; s++) {
        timing t = cached_alloc_free(a, ctx, sizes[s], pairs);
        if (sizes[s] == (size_t)1 << 20) cached_1m = t;
        if (t.median > worst) worst = t.median;
        char key[48];
        snprintf(key, sizeof key, "torch_alloc_%s", names[s]);
        printf("%-34s", names[s]);
        cell(t.median, "%.0f");
        cell(-1, "");
        cell(peer(key), "%.0f");
        printf(" %8s  median (best %.0f)\n", "", t.best);
    }
    printf("%-34s %12s %12s %12s %8s  median under 1 us at every size: %s (worst %.0f ns)\n", "", "", "", "", "",
           verdict(worst < 1000), worst);
    timing raw = cuda_malloc_free((size_t)1 << 20, test ? 3 : 20);
    printf("%-34s", "cudaMalloc + cudaFree, 1 MiB");
    cell(cached_1m.median, "%.0f");
    cell(raw.median, "%.0f");
    cell(peer("torch_alloc_1MiB"), "%.0f");
    printf(" %7.0fx  at least 10x faster than cudaMalloc + cudaFree: %s\n", raw.median / cached_1m.median,
           verdict(raw.median >= 10 * cached_1m.median));
    for (int i = 0; i < LIVE; i++) a->free(ctx, live[i], 4096);

    /* ---- host <-> device ---- */
    size_t nbytes = (size_t)mib << 20;
    int64_t n = (int64_t)(nbytes / sizeof(float));
    th_f32_tensor *pageable = th_f32_full(1, &n, 1.0f); /* written: every page is faulted in */
    th_f32_tensor *pinned = pageable ? th_f32_to_pinned(pageable) : NULL;
    th_f32_tensor *dev = th_f32_cuda_empty(0, 1, &n);
    MUST(pageable && pinned && dev, "the transfer tensors");
    void *host_pinned = NULL, *dev_raw = NULL, *host_pageable = malloc(nbytes);
    CUDA_MUST(cudaMallocHost(&host_pinned, nbytes));
    CUDA_MUST(cudaMalloc(&dev_raw, nbytes));
    MUST(host_pageable, "malloc");
    memset(host_pinned, 1, nbytes);
    memset(host_pageable, 1, nbytes);
    char title[64];
    snprintf(title, sizeof title, "%ld MiB host <-> device (GB/s)", mib);
    header(title);
    struct {
        const char *label, *torch_key;
        copy_fn th, cuda;
        double target; /* the ratio to reach */
        bool ahead;    /* or to exceed: strictly faster */
        const char *target_text;
    } rows[] = {
        {"pinned -> device", "torch_h2d_pinned",
         {0, th_f32_base(dev), th_f32_base(pinned), NULL, NULL, nbytes, cudaMemcpyDefault},
         {1, NULL, NULL, dev_raw, host_pinned, nbytes, cudaMemcpyHostToDevice}, 0.9, false,
         "at least 90% of cudaMemcpy from cudaMallocHost memory"},
        {"device -> pinned", "torch_d2h_pinned",
         {0, th_f32_base(pinned), th_f32_base(dev), NULL, NULL, nbytes, cudaMemcpyDefault},
         {1, NULL, NULL, host_pinned, dev_raw, nbytes, cudaMemcpyDeviceToHost}, 0.9, false,
         "at least 90% of cudaMemcpy to cudaMallocHost memory"},
        {"pageable -> device", "torch_h2d_pageable",
         {0, th_f32_base(dev), th_f32_base(pageable), NULL, NULL, nbytes, cudaMemcpyDefault},
         {1, NULL, NULL, dev_raw, host_pageable, nbytes, cudaMemcpyHostToDevice}, 1.0, true,
         "ahead of a plain pageable cudaMemcpy"},
        {"device -> pageable", "torch_d2h_pageable",
         {0, th_f32_base(pageable), th_f32_base(dev), NULL, NULL, nbytes, cudaMemcpyDefault},
         {1, NULL, NULL, host_pageable, dev_raw, nbytes, cudaMemcpyDeviceToHost}, 1.0, true,
         "ahead of a plain pageable cudaMemcpy"},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        timing th = copy_gbps(&rows[r].th), cu = copy_gbps(&rows[r].cuda);
        double ratio = th.best / cu.best;
        bool met = rows[r].ahead ? ratio > rows[r].target : ratio >= rows[r].target;
        printf("%-34s", rows[r].label);
        cell(th.best, "%.2f");
        cell(cu.best, "%.2f");
        cell(peer(rows[r].torch_key), "%.2f");
        printf(" %7.2fx  %s: %s (medians %.2f / %.2f)\n", ratio, rows[r].target_text, verdict(met), th.median,
               cu.median);
    }
    th_f32_release(pageable);
    th_f32_release(pinned);
    th_f32_release(dev);
    CUDA_MUST(cudaFreeHost(host_pinned));
    free(host_pageable);
    CUDA_MUST(cudaFree(dev_raw));

    /* ---- strided device copy ---- */
    int64_t sq[2] = {side, side};
    th_cuda_stream *s = th_cuda_stream_new(0);
    MUST(s && th_cuda_set_current_stream(s) == TH_OK, "th_cuda_stream_new");
    th_f32_tensor *src = th_f32_cuda_full(0, 2, sq, 2.0f);
    th_f32_tensor *srct = src ? th_f32_transpose(src, 0, 1) : NULL;
    th_f32_tensor *dst = th_f32_cuda_empty(0, 2, sq);
    MUST(srct && dst, "the transpose tensors");
    size_t tbytes = (size_t)side * (size_t)side * sizeof(float);
    cudaStream_t cs = (cudaStream_t)th_cuda_stream_handle(s);
    timing kt = device_ms(th_f32_base(dst), th_f32_base(srct), NULL, NULL, tbytes, cs);
    timing mt = device_ms(NULL, NULL, th_f32_data(dst), th_f32_data(src), tbytes, cs);
    /* Bandwidth as cudaMemcpy's is counted: bytes read plus bytes written. */
    double kgbps = 2.0 * (double)tbytes / (kt.best * 1e6), mgbps = 2.0 * (double)tbytes / (mt.best * 1e6);
    snprintf(title, sizeof title, "%ldx%ld f32 transpose -> contiguous (GB/s)", side, side);
    header(title);
    printf("%-34s", "th_cuda_copy vs device cudaMemcpy");
    cell(kgbps, "%.1f");
    cell(mgbps, "%.1f");
    cell(peer("torch_transpose"), "%.1f");
    printf(" %7.2fx  at least 80%% of device-to-device cudaMemcpy: %s (medians %.3f / %.3f ms)\n", kgbps / mgbps,
           verdict(kgbps >= 0.8 * mgbps), kt.median, mt.median);
    th_f32_release(dst);
    th_f32_release(srct);
    th_f32_release(src);

    /* ---- ops on the device (issue 13) ---- */
    bench_ops(test, mib < 256 || test ? mib : 256, cs);
    MUST(th_cuda_set_current_stream(NULL) == TH_OK && th_cuda_stream_free(s) == TH_OK, "th_cuda_stream_free");
    MUST(th_cuda_empty_cache(0) == TH_OK, "th_cuda_empty_cache");
    printf("\n%d of %d targets met%s\n", met_count, target_count, npeer ? "" : " (PyTorch: n/a, see cuda_run.sh)");
    return 0;
}
