/* bench/attention_bench.c: th_f32_scaled_dot_product_attention on (batch 8, heads 8, L = S = 512, E = 64) f32,
 * plain and causal, on 1 and 2 threads, the result written into one out. Prints "key threads best_ms
 * median_ms" per row; bench/attention_run.sh builds it (CBLAS from OpenBLAS, OpenMP) and runs PyTorch's side
 * (bench/attention_torch.py: torch 1.13's explicit formula, which has no F.scaled_dot_product_attention). */
#define _POSIX_C_SOURCE 199309L
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
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { REPS = 7 };

int main(void)
{
    const int64_t sz[4] = {8, 8, 512, 64};
    th_manual_seed(7);
    th_f32_tensor *q = th_f32_uniform(4, sz, -1, 1, NULL), *k = th_f32_uniform(4, sz, -1, 1, NULL);
    th_f32_tensor *v = th_f32_uniform(4, sz, -1, 1, NULL), *out = th_f32_empty(4, sz);
    for (int threads = 1; threads <= 2; threads++) {
        th_set_num_threads(threads);
        for (int causal = 0; causal < 2; causal++) {
            th_sdpa_opts o = {.is_causal = causal == 1};
            double t[REPS];
            if (th_f32_scaled_dot_product_attention_out(out, q, k, v, NULL, &o)) {
                fprintf(stderr, "%s\n", th_last_error());
                return 1;
            }
            for (int r = 0; r < REPS; r++) {
                double t0 = now_ms();
                th_f32_scaled_dot_product_attention_out(out, q, k, v, NULL, &o);
                t[r] = now_ms() - t0;
            }
            qsort(t, REPS, sizeof *t, cmp);
            printf("th_sdpa%s %d %.2f %.2f\n", causal ? "_causal" : "", threads, t[0], t[REPS / 2]);
            fflush(stdout);
        }
    }
    th_release(q), th_release(k), th_release(v), th_release(out);
    return 0;
}
