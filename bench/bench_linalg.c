/* bench_linalg.c: float32 matrix products, tensor.h against calling cblas_sgemm directly.
 *
 * For N = 1024 and 2048: cblas_sgemm into a preallocated C (the target), th_f32_matmul into a new tensor and
 * into an out, the same with the first operand a transposed view (BLAS gets it as a transposed operand,
 * no copy), and the built-in kernel (th_linalg_set_blas(false)), which every dtype without BLAS uses.
 * Each row prints "key best median ms" and "key.gflops best median GFLOP/s" (best is the fastest run).
 * Thread counts come from the environment: OPENBLAS_NUM_THREADS for BLAS, OMP_NUM_THREADS for the built-in
 * kernel (linalg_run.sh sets both). Build: see linalg_run.sh. */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>

#include "bench_common.h"
#include "tensor.h"

static int64_t n;
static th_f32_tensor *A, *B, *C, *At; /* At: a transposed view of a matrix holding A^T */

static void fill(th_f32_tensor *t)
{
    float *p = th_f32_data(t);
    for (int64_t i = 0; i < th_f32_numel(t); i++) p[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
}

static void op_sgemm(void)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, th_f32_data(A), (int)n,
                th_f32_data(B), (int)n, 0.0f, th_f32_data(C), (int)n);
    bench_escape(th_f32_data(C));
}

static void op_sgemm_transposed(void)
{
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)n, (int)n, (int)n, 1.0f, th_f32_data(At), (int)n,
                th_f32_data(B), (int)n, 0.0f, th_f32_data(C), (int)n);
    bench_escape(th_f32_data(C));
}

static void op_matmul_new(void)
{
    th_f32_tensor *r = th_f32_matmul(A, B);
    BENCH_CHECK(r != NULL);
    bench_escape(th_f32_data(r));
    th_f32_release(r);
}

static void op_matmul_out(void) { BENCH_CHECK(th_f32_matmul_out(C, A, B) == TH_OK); }
static void op_matmul_transposed(void) { BENCH_CHECK(th_f32_matmul_out(C, At, B) == TH_OK); }

static void op_builtin_out(void)
{
    th_linalg_set_blas(false);
    BENCH_CHECK(th_f32_matmul_out(C, A, B) == TH_OK);
    th_linalg_set_blas(true);
}

/* Like bench_big, plus the same samples as GFLOP/s (2 n^3 flops a product). */
static void run(const char *what, void (*op)(void), int reps)
{
    op(); /* warm-up */
    double ms[BENCH_MAX_REPS], gflops[BENCH_MAX_REPS];
    reps = bench_reps(reps) < reps ? bench_reps(reps) : reps;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ns();
        op();
        ms[r] = (bench_now_ns() - t0) / 1e6;
        gflops[r] = 2.0 * (double)n * (double)n * (double)n / (ms[r] * 1e6);
    }
    char key[96];
    snprintf(key, sizeof key, "%s_%lld", what, (long long)n);
    bench_report(key, ms, reps, "ms");
    /* best GFLOP/s is the highest: report the negated sort so "best" stays the first column */
    for (int r = 0; r < reps; r++) gflops[r] = -gflops[r];
    qsort(gflops, (size_t)reps, sizeof *gflops, bench_cmp_double);
    double median = reps % 2 ? -gflops[reps / 2] : -(gflops[reps / 2 - 1] + gflops[reps / 2]) / 2;
    printf("%s.gflops %.2f %.2f GFLOP/s\n", key, -gflops[0], median);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const int64_t sizes[] = {1024, 2048};
    bool builtin = !(argc > 1 && strcmp(argv[1], "--no-builtin") == 0);
    BENCH_CHECK(th_linalg_blas());
    for (int s = 0; s < 2; s++) {
        n = sizes[s];
        int64_t sz[2] = {n, n};
        A = th_f32_empty(2, sz);
        B = th_f32_empty(2, sz);
        C = th_f32_zeros(2, sz);
        th_f32_tensor *a_t = th_f32_empty(2, sz);
        BENCH_CHECK(A && B && C && a_t);
        fill(A);
        fill(B);
        At = th_f32_transpose(a_t, 0, 1);
        BENCH_CHECK(th_f32_copy(At, A) == TH_OK); /* At holds A's values, column-major */
        int reps = n > 1024 ? 5 : 11;
        run("sgemm_direct", op_sgemm, reps);
        run("th_matmul_new", op_matmul_new, reps);
        run("th_matmul_out", op_matmul_out, reps);
        run("sgemm_direct_transposed", op_sgemm_transposed, reps);
        run("th_matmul_transposed", op_matmul_transposed, reps);
        if (builtin) run("th_matmul_builtin", op_builtin_out, n > 1024 ? 3 : 5);
        th_f32_release(At);
        th_f32_release(a_t);
        th_f32_release(C);
        th_f32_release(B);
        th_f32_release(A);
    }
    return 0;
}
