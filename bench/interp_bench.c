/* bench/interp_bench.c: interpolate_out of (8, 64, 128, 128) f32 to (8, 64, 256, 256): bilinear (align_corners
 * off) and nearest, 2x upsampling, one thread, into a preallocated out; best and median of 11.
 * Prints "key best_ms median_ms". Built and run by bench/interp_run.sh, next to bench/interp_torch.py. */
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

int main(void)
{
    th_set_num_threads(1);
    th_f32_tensor *x = th_f32_empty(4, (int64_t[]){8, 64, 128, 128});
    float *p = th_f32_data(x);
    for (int64_t i = 0; i < th_f32_numel(x); i++) p[i] = (float)(i % 1009) / 1009.0f;
    th_f32_tensor *y = th_f32_empty(4, (int64_t[]){8, 64, 256, 256});
    static const struct { const char *key; th_interp_mode mode; } runs[2] = {
        {"th bilinear 2x", TH_INTERP_BILINEAR}, {"th nearest 2x", TH_INTERP_NEAREST}};
    for (int k = 0; k < 2; k++) {
        th_interp_opts o = {.mode = runs[k].mode, .size = {256, 256}};
        double t[11];
        if (th_f32_interpolate_out(y, x, &o)) { /* warm-up, and the pages of y touched */
            fprintf(stderr, "%s\n", th_last_error());
            return 1;
        }
        for (int r = 0; r < 11; r++) {
            double t0 = now_ms();
            th_f32_interpolate_out(y, x, &o);
            t[r] = now_ms() - t0;
        }
        qsort(t, 11, sizeof *t, cmp);
        printf("%-22s %9.2f %9.2f\n", runs[k].key, t[0], t[5]);
    }
    th_f32_release(x);
    th_f32_release(y);
    return 0;
}
