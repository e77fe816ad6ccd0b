/* Resizing with tensor.h's interpolate (torch.nn.functional.interpolate): nearest and bilinear upsampling of a
 * small image, align_corners, a scale factor instead of a size, bicubic, a channels-last view, and an error.
 * Build: cc -std=c11 -I. docs/examples/interpolate.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtype used here is stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include "tensor.h"

int main(void)
{
    /* one 1-channel 2x2 image: 0 1 / 2 3 */
    th_f32_tensor *x = th_f32_arange(0, 4, 1);
    th_f32_tensor *img = th_f32_reshape(x, 4, (int64_t[]){1, 1, 2, 2});

    /* nearest (the zero mode) to 4x4: each pixel becomes a 2x2 block */
    th_interp_opts near = {.size = {4, 4}};
    th_f32_tensor *yn = th_f32_interpolate(img, &near);
    th_f32_print(stdout, yn);
    int ok = yn && th_f32_get(yn, (int64_t[]){0, 0, 3, 2}) == 3.0f && th_f32_get(yn, (int64_t[]){0, 0, 1, 2}) == 1.0f;

    /* bilinear to 3x3 with align_corners: the corners stay, the centre is the mean of the four */
    th_interp_opts lin = {.mode = TH_INTERP_BILINEAR, .size = {3, 3}, .align_corners = true};
    th_f32_tensor *yl = th_f32_interpolate(img, &lin);
    th_f32_print(stdout, yl);
    ok = ok && yl && th_f32_get(yl, (int64_t[]){0, 0, 2, 2}) == 3.0f && th_f32_get(yl, (int64_t[]){0, 0, 1, 1}) == 1.5f;

    /* a scale factor instead of a size (zero size: not given): 2x in each dim, the source coordinate of output
     * o being (o + 0.5) / 2 - 0.5 (align_corners off), clamped at 0: row 1 is 0.25 of the way to row 2 */
    th_interp_opts twice = {.mode = TH_INTERP_BILINEAR, .scale = {2, 2}};
    th_f32_tensor *y2 = th_f32_interpolate(img, &twice);
    ok = ok && y2 && th_f32_size(y2, 3) == 4 && th_f32_get(y2, (int64_t[]){0, 0, 1, 0}) == 0.5f;

    /* bicubic (A = -0.75) of a channels-last view: any strides are read where they lie */
    th_f32_tensor *nhwc = th_f32_zeros(4, (int64_t[]){1, 5, 5, 3});            /* N, H, W, C in memory */
    for (int i = 0; i < 75; i++) th_f32_data(nhwc)[i] = (float)(i % 3);      /* channel c holds c */
    th_f32_tensor *nchw = th_f32_permute(nhwc, (int[]){0, 3, 1, 2});          /* (1, 3, 5, 5) view */
    th_interp_opts cubic = {.mode = TH_INTERP_BICUBIC, .size = {8, 8}};
    th_f32_tensor *yc = th_f32_interpolate(nchw, &cubic);
    /* a constant plane stays constant (the weights sum to 1), up to rounding */
    float v = yc ? th_f32_get(yc, (int64_t[]){0, 2, 3, 4}) : 0;
    ok = ok && yc && th_f32_size(yc, 1) == 3 && v > 1.9999f && v < 2.0001f;

    /* an error names the function and the values: PyTorch refuses align_corners with nearest too */
    th_interp_opts bad = {.size = {4, 4}, .align_corners = true};
    th_f32_tensor *e = th_f32_interpolate(img, &bad);
    printf("%s\n", th_last_error());
    ok = ok && e == NULL && th_last_status() == TH_ERR_INVALID;

    th_f32_release(x);
    th_f32_release(img);
    th_f32_release(yn);
    th_f32_release(yl);
    th_f32_release(y2);
    th_f32_release(nhwc);
    th_f32_release(nchw);
    th_f32_release(yc);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
