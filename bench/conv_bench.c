/* bench/conv_bench.c: conv2d of (8, 64, 56, 56) f32 with a 64x64x3x3 kernel, padding 1 (ResNet-50's 3x3
 * layer), into an out: the library with CBLAS sgemm and with its built-in loop, and the sgemm alone on the
 * same matrices (8 products of 64x576 by 576x3136: the GEMM limit); and conv_transpose2d_out of a decoder
 * layer, (8, 64, 32, 32) to (8, 32, 64, 64) with a 64x32x4x4 kernel, stride 2, padding 1 (GEMM + col2im).
 * Prints "key best_ms median_ms GFLOP/s".
 * Built and run by bench/conv_run.sh. */
#define _POSIX_C_SOURCE 200809L
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tensor.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *key, double *t, int n, double flop)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("%-22s %9.2f %9.2f %7.1f\n", key, t[0], t[n / 2], flop / t[0] / 1e6);
}

int main(void)
{
    const int64_t N = 8, C = 64, H = 56, W = 56, O = 64, K = 3;
    double flop = 2.0 * N * O * H * W * C * K * K;
    th_f32_tensor *x = th_f32_uniform(4, (int64_t[]){N, C, H, W}, 0, 1, NULL), *w = th_f32_uniform(4, (int64_t[]){O, C, K, K}, 0, 1, NULL);
    th_f32_tensor *y = th_f32_empty(4, (int64_t[]){N, O, H, W});
    th_conv_opts o = {.padding = {1, 1}};
    double t[11];
    for (int blas = 1; blas >= 0; blas--) {
        th_linalg_set_blas(blas);
        int reps = blas ? 11 : 3;
        for (int r = 0; r < reps; r++) {
            double t0 = now_ms();
            if (th_f32_conv2d_out(y, x, w, NULL, &o)) {
                fprintf(stderr, "%s\n", th_last_error());
                return 1;
            }
            t[r] = now_ms() - t0;
        }
        report(blas && th_linalg_blas() ? "conv2d_out (sgemm)" : "conv2d_out (built-in)", t, reps, flop);
    }
    {
        const int64_t TC = 64, TO = 32, TH = 32, TK = 4;
        double tflop = 2.0 * N * TC * TO * TK * TK * TH * TH;
        th_f32_tensor *tx = th_f32_uniform(4, (int64_t[]){N, TC, TH, TH}, 0, 1, NULL);
        th_f32_tensor *tw = th_f32_uniform(4, (int64_t[]){TC, TO, TK, TK}, 0, 1, NULL);
        th_f32_tensor *ty = th_f32_empty(4, (int64_t[]){N, TO, 2 * TH, 2 * TH});
        th_conv_opts to = {.stride = {2, 2}, .padding = {1, 1}};
        th_linalg_set_blas(true);
        for (int r = 0; r < 11; r++) {
            double t0 = now_ms();
            if (th_f32_conv_transpose2d_out(ty, tx, tw, NULL, &to)) {
                fprintf(stderr, "%s\n", th_last_error());
                return 1;
            }
            t[r] = now_ms() - t0;
        }
        report("conv_transpose2d_out", t, 11, tflop);
        th_f32_release(tx);
        th_f32_release(tw);
        th_f32_release(ty);
    }
#ifdef TH_USE_CBLAS
    float *a = calloc((size_t)(O * C * K * K), sizeof(float)), *b = calloc((size_t)(C * K * K * H * W), sizeof(float));
    float *c = calloc((size_t)(O * H * W), sizeof(float));
    for (int r = 0; r < 11; r++) {
        double t0 = now_ms();
        for (int n = 0; n < N; n++)
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)O, (int)(H * W), (int)(C * K * K), 1.0f, a,
                        (int)(C * K * K), b, (int)(H * W), 0.0f, c, (int)(H * W));
        t[r] = now_ms() - t0;
    }
    report("sgemm alone", t, 11, flop);
    free(a);
    free(b);
    free(c);
#endif
    th_f32_release(x);
    th_f32_release(w);
    th_f32_release(y);
    return 0;
}
