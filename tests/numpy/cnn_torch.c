/* tests/numpy/cnn_torch.c: a small convolutional network written in PyTorch (cnn_torch.py: conv, batch norm,
 * relu, max pool, grouped strided conv, silu, adaptive average pool, linear, log_softmax), its weights saved by
 * np.savez from the module's state_dict, run by the library from that file: the output must be within 1e-5 of
 * torch's (float64 from the same float32 weights and input), the largest difference printed. The same network
 * runs on a channels-last copy of the input (permuted strides) to the same bits.
 * Usage: cnn_torch DIR PYTHON SCRIPT. Skips (77) without torch. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../check.h"
#include "peer_files.h"

static char *path_in(const char *dir, const char *name)
{
    static char buf[2][4096];
    static int next;
    char *p = buf[next++ % 2];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* The network of cnn_torch.py on x (N, 3, 32, 32), its weights by their state_dict names from the archive.
 * Each step takes the one before (released) and returns NULL on any error. */
static th_f32_tensor *take(th_f32_tensor *next, th_f32_tensor *prev)
{
    th_release(prev);
    return next;
}

static th_f32_tensor *run(th_npz *z, th_f32_tensor *x)
{
    const char *names[] = {"0.weight", "0.bias", "1.running_mean", "1.running_var", "1.weight", "1.bias",
                           "4.weight", "4.bias", "8.weight", "8.bias"};
    th_f32_tensor *w[10];
    int ok = 1;
    for (int i = 0; i < 10; i++) ok &= (w[i] = th_f32_from_base(th_npz_get(z, names[i]))) != NULL;
    th_f32_tensor *y = NULL;
    if (ok) {
        th_conv_opts same = {.padding = {1, 1}};
        th_conv_opts down = {.stride = {2, 2}, .padding = {1, 1}, .groups = 2};
        y = th_f32_conv2d(x, w[0], w[1], &same);
        if (y) y = take(th_f32_batch_norm(y, w[2], w[3], w[4], w[5], 1e-5), y);
        if (y && th_f32_relu_inplace(y) != TH_OK) y = take(NULL, y);
        if (y) y = take(th_f32_max_pool2d(y, (int64_t[]){2, 2}, NULL, NULL), y);
        if (y) y = take(th_f32_conv2d(y, w[6], w[7], &down), y);
        if (y && th_f32_silu_inplace(y) != TH_OK) y = take(NULL, y);
        if (y) y = take(th_f32_adaptive_avg_pool2d(y, (int64_t[]){1, 1}), y);
        if (y) y = take(th_f32_reshape(y, 2, (int64_t[]){th_f32_size(y, 0), 16}), y);
        th_f32_tensor *wt = th_f32_transpose(w[8], 0, 1);
        if (y) y = take(wt ? th_f32_addmm(w[9], y, wt, 1.0f, 1.0f) : NULL, y);
        th_release(wt);
        if (y) y = take(th_f32_log_softmax(y, 1), y);
    }
    for (int i = 0; i < 10; i++) th_release(w[i]);
    return y;
}

int main(int argc, char **argv)
{
    int rc = peer_start(argc, argv, "cnn_torch", "PyTorch");
    if (rc >= 0) return rc;
    test_begin();
    const char *dir = argv[1];
    th_npz *z = th_npz_open(path_in(dir, "cnn.npz"));
    th_f32_tensor *x = th_f32_from_base(th_tensor_load_npy(path_in(dir, "x.npy")));
    th_f64_tensor *ref = th_f64_from_base(th_tensor_load_npy(path_in(dir, "ref.npy")));
    CHECK(z && x && ref);
    th_f32_tensor *y = z && x ? run(z, x) : NULL;
    CHECK(y != NULL);
    if (!y) fprintf(stderr, "cnn_torch: %s\n", th_last_error());
    double worst = INFINITY;
    if (y && ref && th_f32_numel(y) == th_f64_numel(ref) && th_f32_ndim(y) == 2 && th_f32_size(y, 1) == 10) {
        worst = 0;
        for (int64_t i = 0; i < th_f32_size(y, 0); i++)
            for (int64_t j = 0; j < 10; j++) {
                double d = fabs(th_f32_get(y, (int64_t[]){i, j}) - th_f64_get(ref, (int64_t[]){i, j}));
                if (!(d <= worst)) worst = d;
            }
    }
    printf("log-probabilities of %lld images: largest difference from torch %.3g\n",
           y ? (long long)th_f32_size(y, 0) : -1LL, worst);
    CHECK(worst <= 1e-5);

    /* the input channels-last: the same values in another layout, the same bits out */
    th_f32_tensor *nhwc = x ? th_f32_permute(x, (int[]){0, 2, 3, 1}) : NULL;
    th_f32_tensor *nhwc_c = nhwc ? th_f32_contiguous(nhwc) : NULL;
    th_f32_tensor *back = nhwc_c ? th_f32_permute(nhwc_c, (int[]){0, 3, 1, 2}) : NULL;
    th_f32_tensor *y2 = back ? run(z, back) : NULL;
    int same = y && y2 && th_f32_numel(y) == th_f32_numel(y2);
    for (int64_t i = 0; same && i < th_f32_size(y, 0); i++)
        for (int64_t j = 0; j < 10; j++)
            same &= th_f32_get(y, (int64_t[]){i, j}) == th_f32_get(y2, (int64_t[]){i, j});
    CHECK(same);

    th_release(nhwc), th_release(nhwc_c), th_release(back), th_release(y2);
    th_release(x), th_release(ref), th_release(y);
    th_npz_close(z);
    return test_end("cnn_torch");
}
