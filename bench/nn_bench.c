/* bench/nn_bench.c: softmax and layer_norm over the last dim of an (8192, 4096) f32 tensor, next to a copy of
 * the same tensor (one read and one write: the bandwidth floor), on 1 and 2 threads. Prints
 * "key threads best_ms median_ms" per row; bench/nn_run.sh builds it and runs PyTorch's side (nn_torch.py).
 * The new forms allocate their result each time (as torch's do); the _out forms write into one out. */
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

enum { REPS = 11 };
static th_f32_tensor *x, *out, *w, *b;

static void run(int which)
{
    th_f32_tensor *r = NULL;
    switch (which) {
    case 0: th_f32_copy(out, x); break;
    case 1: r = th_f32_clone(x); break;
    case 2: th_f32_softmax_out(out, x, -1); break;
    case 3: r = th_f32_softmax(x, -1); break;
    case 4: th_f32_layer_norm_out(out, x, 1, (int64_t[]){4096}, w, b, 1e-5); break;
    case 5: r = th_f32_layer_norm(x, 1, (int64_t[]){4096}, w, b, 1e-5); break;
    default: th_f32_log_softmax_out(out, x, -1);
    }
    th_f32_release(r);
}

int main(void)
{
    static const char *names[] = {"copy_out", "clone", "softmax_out", "softmax", "layer_norm_out", "layer_norm",
                                  "log_softmax_out"};
    int64_t sz[2] = {8192, 4096};
    x = th_f32_empty(2, sz);
    out = th_f32_empty(2, sz);
    w = th_f32_empty(1, sz + 1);
    b = th_f32_empty(1, sz + 1);
    float *p = th_f32_data(x);
    uint32_t s = 1;
    for (int64_t i = 0; i < 8192 * 4096; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (float)(s >> 8) / 16777216.0f * 8.0f - 4.0f;
    }
    for (int i = 0; i < 4096; i++) {
        th_f32_data(w)[i] = 1.0f + (float)i / 4096;
        th_f32_data(b)[i] = (float)i / 8192;
    }
    th_f32_copy(out, x);
    for (int threads = 1; threads <= 2; threads++) {
        th_set_num_threads(threads);
        for (int k = 0; k < 7; k++) {
            double t[REPS];
            run(k); /* warm up */
            for (int r = 0; r < REPS; r++) {
                double t0 = now_ms();
                run(k);
                t[r] = now_ms() - t0;
            }
            qsort(t, REPS, sizeof *t, cmp);
            printf("th_%s %d %.2f %.2f\n", names[k], threads, t[0], t[REPS / 2]);
            fflush(stdout);
        }
    }
    th_f32_release(x);
    th_f32_release(out);
    th_f32_release(w);
    th_f32_release(b);
    return 0;
}
