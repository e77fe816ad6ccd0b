/* 1d and 3d pooling with tensor.h: max_pool1d with its indices over a padded, dilated window, avg_pool1d,
 * max_pool3d and avg_pool3d of a volume, adaptive pooling of a sequence and a volume to fixed sizes, and an
 * error (docs/nn.md, "Convolution, pooling, padding").
 * Build: cc -std=c11 -I. docs/examples/pool_nd.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I64
#include "tensor.h"

#include <math.h>
#include <stdio.h>

int main(void)
{
    bool ok = true;
    /* a sequence (N=1, C=1, L=8): 0 1 2 ... 7 */
    th_f32_tensor *seq = th_f32_arange(0, 8, 1);
    th_f32_tensor *x1 = th_f32_reshape(seq, 3, (int64_t[]){1, 1, 8});

    /* max over windows of 3 with stride 2 and padding 1: windows -1..1, 1..3, 3..5, 5..7 */
    th_pool_opts o = {.stride = {2}, .padding = {1}};
    th_i64_tensor *ix = NULL;
    th_f32_tensor *m1 = th_f32_max_pool1d(x1, (int64_t[]){3}, &o, &ix);
    /* the average counts the padding: the first window is (0 + 0 + 1) / 3 */
    th_f32_tensor *a1 = th_f32_avg_pool1d(x1, (int64_t[]){3}, &o);
    printf("max_pool1d:");
    for (int i = 0; i < 4; i++) printf(" %g@%lld", th_f32_data(m1)[i], (long long)th_i64_data(ix)[i]);
    printf("\navg_pool1d:");
    for (int i = 0; i < 4; i++) printf(" %.4g", th_f32_data(a1)[i]);
    printf("\n");
    ok = ok && th_f32_data(m1)[3] == 7 && th_i64_data(ix)[1] == 3 && fabsf(th_f32_data(a1)[0] - 1.0f / 3) < 1e-7f;

    /* PyTorch's ceil_mode, count_include_pad=False and divisor_override: ceil_mode adds a fifth window, 7..9,
     * starting inside the input; count_exclude_pad averages over the input elements alone ({0, 1}, ..., {7}) */
    th_pool_opts oc = {.stride = {2}, .padding = {1}, .ceil_mode = true, .count_exclude_pad = true};
    th_f32_tensor *ac = th_f32_avg_pool1d(x1, (int64_t[]){3}, &oc);
    printf("avg_pool1d, ceil_mode, padding not counted:");
    for (int i = 0; ac && i < 5; i++) printf(" %g", th_f32_data(ac)[i]);
    printf("\n");
    ok = ok && ac && th_f32_size(ac, 2) == 5 && th_f32_data(ac)[0] == 0.5f && th_f32_data(ac)[4] == 7;

    /* a volume (C=1, D=2, H=2, W=4), unbatched: 0..15; 2x2x2 windows, stride the kernel */
    th_f32_tensor *vals = th_f32_arange(0, 16, 1);
    th_f32_tensor *x3 = th_f32_reshape(vals, 4, (int64_t[]){1, 2, 2, 4});
    th_i64_tensor *ix3 = NULL;
    th_f32_tensor *m3 = th_f32_max_pool3d(x3, (int64_t[]){2, 2, 2}, NULL, &ix3);
    th_f32_tensor *a3 = th_f32_avg_pool3d(x3, (int64_t[]){2, 2, 2}, NULL);
    /* each index is d * H * W + h * W + w in the volume */
    printf("max_pool3d: %g@%lld %g@%lld, avg_pool3d: %g %g\n", th_f32_data(m3)[0], (long long)th_i64_data(ix3)[0],
           th_f32_data(m3)[1], (long long)th_i64_data(ix3)[1], th_f32_data(a3)[0], th_f32_data(a3)[1]);
    ok = ok && th_f32_data(m3)[1] == 15 && th_i64_data(ix3)[0] == 13 && th_f32_data(a3)[0] == 6.5f;

    /* adaptive: the sequence to 3 cells (windows 0..2, 2..5, 5..7), the volume to one value per channel */
    th_i64_tensor *aix = NULL;
    th_f32_tensor *am = th_f32_adaptive_max_pool1d(x1, (int64_t[]){3}, &aix);
    th_f32_tensor *ag = th_f32_adaptive_avg_pool3d(x3, (int64_t[]){1, 1, 1});
    printf("adaptive_max_pool1d: %g %g %g, adaptive_avg_pool3d: %g\n", th_f32_data(am)[0], th_f32_data(am)[1],
           th_f32_data(am)[2], th_f32_data(ag)[0]);
    ok = ok && th_f32_data(am)[1] == 5 && th_i64_data(aix)[2] == 7 && th_f32_data(ag)[0] == 7.5f;

    /* padding over half the kernel is an error, as in PyTorch */
    th_pool_opts bad = {.padding = {2}};
    th_f32_tensor *none = th_f32_max_pool1d(x1, (int64_t[]){3}, &bad, NULL);
    printf("%s\n", th_last_error());
    ok = ok && none == NULL && th_last_status() == TH_ERR_INVALID;

    th_f32_release(seq);
    th_f32_release(x1);
    th_f32_release(m1);
    th_i64_release(ix);
    th_f32_release(a1);
    th_f32_release(ac);
    th_f32_release(vals);
    th_f32_release(x3);
    th_f32_release(m3);
    th_i64_release(ix3);
    th_f32_release(a3);
    th_f32_release(am);
    th_i64_release(aix);
    th_f32_release(ag);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
