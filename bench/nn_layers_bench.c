/* bench/nn_layers_bench.c: group_norm, batch_norm, swiglu, geglu, rope, cross_entropy and adaptive_avg_pool2d
 * and the activations silu, gelu_tanh, hardswish, softplus, leaky_relu (f32, one thread, best of 7 runs, the
 * _out forms), next to a copy of the norms' input; bench/nn_layers_torch.py
 * times the same in PyTorch 1.13 (swiglu, geglu and rope composed from torch ops). Run by bench/nn_layers_run.sh. */
#define _POSIX_C_SOURCE 200809L
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I64
#include <time.h>
#include "tensor.h"
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
#define TIME(name, expr) do { double best = 1e9; for (int r = 0; r < 7; r++) { double t0 = now(); int st = (expr); double t = now() - t0; if (st) { printf("%s failed: %s\n", name, th_last_error()); break; } if (t < best) best = t; } printf("%-28s %8.2f ms\n", name, best * 1e3); } while (0)
int main(void)
{
    th_set_num_threads(1);
    th_f32_tensor *x = th_f32_empty(4, (int64_t[]){8, 64, 56, 56}), *y = th_f32_empty(4, (int64_t[]){8, 64, 56, 56});
    for (int64_t i = 0; i < th_f32_numel(x); i++) th_f32_data(x)[i] = (float)((i * 37) % 101) / 50.0f - 1;
    th_f32_tensor *w = th_f32_ones(1, (int64_t[]){64}), *v = th_f32_ones(1, (int64_t[]){64});
    TIME("group_norm_out (8,64,56,56) g32", th_f32_group_norm_out(y, x, 32, w, v, 1e-5));
    TIME("batch_norm_out (8,64,56,56)", th_f32_batch_norm_out(y, x, w, v, w, v, 1e-5));
    TIME("copy (8,64,56,56)", th_tensor_copy((th_tensor *)y, (th_tensor *)x));
    th_f32_tensor *h = th_f32_empty(2, (int64_t[]){2048, 2 * 5632}), *ho = th_f32_empty(2, (int64_t[]){2048, 5632});
    for (int64_t i = 0; i < th_f32_numel(h); i++) th_f32_data(h)[i] = (float)((i * 37) % 101) / 25.0f - 2;
    TIME("swiglu_out (2048, 2x5632)", th_f32_swiglu_out(ho, h, -1));
    TIME("geglu_out (2048, 2x5632)", th_f32_geglu_out(ho, h, -1, false));
    th_f32_tensor *q = th_f32_empty(4, (int64_t[]){1, 32, 2048, 128}), *qo = th_f32_empty(4, (int64_t[]){1, 32, 2048, 128});
    th_f32_tensor *c = th_f32_empty(2, (int64_t[]){2048, 64}), *s = th_f32_empty(2, (int64_t[]){2048, 64});
    for (int64_t i = 0; i < th_f32_numel(q); i++) th_f32_data(q)[i] = (float)((i * 37) % 101) / 50.0f - 1;
    for (int64_t i = 0; i < th_f32_numel(c); i++) th_f32_data(c)[i] = 0.6f, th_f32_data(s)[i] = 0.8f;
    TIME("rope_out (1,32,2048,128) halves", th_f32_rope_out(qo, q, c, s, TH_ROPE_HALVES));
    th_f32_tensor *lg = th_f32_empty(2, (int64_t[]){2048, 32000}), *lo = th_f32_empty(0, NULL);
    for (int64_t i = 0; i < th_f32_numel(lg); i++) th_f32_data(lg)[i] = (float)((i * 37) % 101) / 10.0f;
    th_i64_tensor *tg = th_i64_empty(1, (int64_t[]){2048});
    for (int i = 0; i < 2048; i++) th_i64_data(tg)[i] = (i * 7919) % 32000;
    TIME("cross_entropy_out (2048, 32000)", th_f32_cross_entropy_out(lo, lg, tg, NULL, NULL));
    th_f32_tensor *ap = th_f32_empty(4, (int64_t[]){8, 64, 7, 7});
    TIME("adaptive_avg_pool2d_out ->7x7", th_f32_adaptive_avg_pool2d_out(ap, x, (int64_t[]){7, 7}));
    /* the elementwise activations over the norms' input (1.6M elements), into out */
    TIME("silu_out (8,64,56,56)", th_f32_silu_out(y, x));
    TIME("gelu_tanh_out (8,64,56,56)", th_f32_gelu_tanh_out(y, x));
    TIME("hardswish_out (8,64,56,56)", th_f32_hardswish_out(y, x));
    TIME("softplus_out (8,64,56,56)", th_f32_softplus_out(y, x, 1.0, 20.0));
    TIME("leaky_relu_out (8,64,56,56)", th_f32_leaky_relu_out(y, x, 0.01));
    th_f32_tensor *all[] = {x, y, w, v, h, ho, q, qo, c, s, lg, lo, ap};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) th_f32_release(all[k]);
    th_i64_release(tg);
    return 0;
}
