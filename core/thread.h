/* core/thread.h: threads: OpenMP when the implementation TU is built with it; th__parallel_chunks,
 * th__iter_parallel.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/thread.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Built with OpenMP (-fopenmp; the Meson option openmp), ops split loops of more than 64K elements across
 * threads. Results do not depend on the thread count except where floating-point sums are split: those
 * are deterministic for a given count. th_set_num_threads sets the count for ops started from the calling
 * thread (it is OpenMP's per-thread setting); n < 1 counts as 1. Without OpenMP both are no-ops and the
 * count is 1. */
TH_API void th_set_num_threads(int n);
TH_API int th_get_num_threads(void);

#else /* TH__DEFINING */

/* Below this many elements of work a loop stays on the calling thread: starting a team costs a few
 * microseconds, about what 32K elements of a cheap elementwise op take. */
enum { TH__GRAIN = 32768 };

/* How many threads a loop of work elements should use: 1 inside another parallel region or below the
 * grain, else up to OpenMP's limit for this thread (th_set_num_threads). */
TH__MAYBE_UNUSED static int th__threads_for(int64_t work)
{
#ifdef _OPENMP
    if (work < 2 * (int64_t)TH__GRAIN || omp_in_parallel()) return 1;
    int64_t n = omp_get_max_threads();
    if (n > work / TH__GRAIN) n = work / TH__GRAIN;
    return n < 1 ? 1 : (int)n;
#else
    (void)work;
    return 1;
#endif
}

/* Calls body(ctx, begin, end) on nthreads disjoint, consecutive chunks covering 0..n-1. The split depends
 * only on n and nthreads, so a kernel that is deterministic per chunk is deterministic per thread count. */
typedef void (*th__chunk_fn)(void *ctx, int64_t begin, int64_t end);

TH__MAYBE_UNUSED static void th__parallel_chunks(int64_t n, int nthreads, th__chunk_fn body, void *ctx)
{
    if (nthreads <= 1 || n <= 1) {
        body(ctx, 0, n);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(static, 1)
    for (int i = 0; i < nthreads; i++) body(ctx, n * i / nthreads, n * (i + 1) / nthreads);
#else
    for (int i = 0; i < nthreads; i++) body(ctx, n * i / nthreads, n * (i + 1) / nthreads);
#endif
}

typedef struct th__iter_job {
    const th__iter *it;
    th__row_fn row;
    void *ctx;
} th__iter_job;

static void th__iter_job_run(void *job_, int64_t begin, int64_t end)
{
    const th__iter_job *job = (const th__iter_job *)job_;
    th__iter_for_range(job->it, begin, end, job->row, job->ctx);
}

/* th__iter_for_each across threads. Only for kernels whose rows are independent: each output element is
 * written by exactly one row (elementwise ops), never accumulated across rows. */
TH__MAYBE_UNUSED static void th__iter_parallel(const th__iter *it, th__row_fn row, void *ctx)
{
    int nthreads = th__threads_for(it->numel);
    if (nthreads <= 1) {
        th__iter_for_each(it, row, ctx);
        return;
    }
    th__iter_job job = {it, row, ctx};
    th__parallel_chunks(it->numel, nthreads, th__iter_job_run, &job);
}

TH_API void th_set_num_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n < 1 ? 1 : n);
#else
    (void)n;
#endif
}

TH_API int th_get_num_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

#endif /* TH__DEFINING */
