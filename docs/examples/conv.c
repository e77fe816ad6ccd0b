/* Convolution, pooling and padding with tensor.h: a conv2d with padding and a bias, a depthwise conv2d
 * (groups = channels), max_pool2d with its indices, avg_pool2d, adaptive max (with indices) and average
 * pooling, pad in two modes, and an error.
 * Build: cc -std=c11 -I. docs/examples/conv.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I64
#include "tensor.h"

int main(void)
{
    /* one 4x4 image of 0..15, two channels */
    th_f32_tensor *x = th_f32_empty(4, (int64_t[]){1, 2, 4, 4});
    for (int i = 0; i < 32; i++) th_f32_data(x)[i] = (float)(i % 16);

    /* conv2d: 3 output channels of 3x3 kernels of ones over both input channels, padding 1 keeps 4x4 */
    th_f32_tensor *w = th_f32_ones(4, (int64_t[]){3, 2, 3, 3}), *b = th_f32_full(1, (int64_t[]){3}, 0.5f);
    th_conv_opts o = {.padding = {1, 1}}; /* zero: the default (stride 1, dilation 1, groups 1) */
    th_f32_tensor *y = th_f32_conv2d(x, w, b, &o);
    th_f32_print(stdout, y);
    /* the top-left output: 2 channels x (0 + 1 + 4 + 5) + 0.5 */
    int ok = y && th_f32_size(y, 1) == 3 && th_f32_get(y, (int64_t[]){0, 0, 0, 0}) == 20.5f;

    /* depthwise: groups = channels, a weight of (channels, 1, kh, kw); stride 2 halves the size */
    th_f32_tensor *dw = th_f32_full(4, (int64_t[]){2, 1, 2, 2}, 0.25f);
    th_conv_opts od = {.stride = {2, 2}, .groups = 2};
    th_f32_tensor *yd = th_f32_conv2d(x, dw, NULL, &od); /* each 2x2 block's mean */
    ok = ok && yd && th_f32_get(yd, (int64_t[]){0, 1, 1, 1}) == 12.5f;

    /* max_pool2d 2x2 (stride: the kernel) with the index of each maximum in its plane; avg_pool2d */
    th_i64_tensor *ix = NULL;
    th_f32_tensor *mp = th_f32_max_pool2d(x, (int64_t[]){2, 2}, NULL, &ix);
    th_f32_tensor *ap = th_f32_avg_pool2d(x, (int64_t[]){2, 2}, NULL);
    ok = ok && mp && ix && ap && th_f32_get(mp, (int64_t[]){0, 0, 1, 0}) == 13.0f &&
         th_i64_get(ix, (int64_t[]){0, 0, 1, 0}) == 13 && th_f32_get(ap, (int64_t[]){0, 0, 0, 0}) == 2.5f;

    /* adaptive pooling to a fixed output size whatever the input's: 3x3 cells over 4x4 (overlapping windows:
     * cell i of 3 covers rows floor(4i/3) to ceil(4(i+1)/3) - 1); 1x1 is the global average */
    th_i64_tensor *aix = NULL;
    th_f32_tensor *amp = th_f32_adaptive_max_pool2d(x, (int64_t[]){3, 3}, &aix);
    th_f32_tensor *gap = th_f32_adaptive_avg_pool2d(x, (int64_t[]){1, 1});
    ok = ok && amp && aix && gap && th_f32_get(amp, (int64_t[]){0, 1, 1, 1}) == 10.0f &&
         th_i64_get(aix, (int64_t[]){0, 1, 2, 2}) == 15 && th_f32_get(gap, (int64_t[]){0, 1, 0, 0}) == 7.5f;

    /* pad: F.pad's order, the last dim first: 1 column on the left, 2 rows at the bottom, reflected (the
     * bottom-left corner: row 5 reflects to row 1, column -1 to column 1: the value 5) */
    th_f32_tensor *pr = th_f32_pad(x, 4, (int64_t[]){1, 0, 0, 2}, TH_PAD_REFLECT, 0);
    /* constant padding with a value, and a negative pad that crops the last column */
    th_f32_tensor *pc = th_f32_pad(x, 2, (int64_t[]){2, -1}, TH_PAD_CONSTANT, -1.0);
    ok = ok && pr && pc && th_f32_size(pr, 2) == 6 && th_f32_size(pr, 3) == 5 &&
         th_f32_get(pr, (int64_t[]){0, 0, 5, 0}) == 5.0f && th_f32_size(pc, 3) == 5 &&
         th_f32_get(pc, (int64_t[]){0, 0, 0, 0}) == -1.0f && th_f32_get(pc, (int64_t[]){0, 0, 0, 4}) == 2.0f;

    /* an error names the function and the values */
    th_conv_opts bad = {.groups = 3};
    th_f32_tensor *e = th_f32_conv2d(x, w, NULL, &bad);
    printf("%s\n", th_last_error());
    ok = ok && e == NULL && th_last_status() == TH_ERR_SHAPE;

    th_f32_release(x);
    th_f32_release(w);
    th_f32_release(b);
    th_f32_release(y);
    th_f32_release(dw);
    th_f32_release(yd);
    th_f32_release(mp);
    th_i64_release(ix);
    th_f32_release(ap);
    th_f32_release(amp);
    th_i64_release(aix);
    th_f32_release(gap);
    th_f32_release(pr);
    th_f32_release(pc);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
