/* Transposed convolution, im2col and col2im with tensor.h: a decoder's upsampling conv_transpose2d (stride 2
 * doubles the size), output_padding, a volume's conv_transpose3d, conv2d written as im2col and one matrix
 * product, col2im summing overlapping blocks, and an error.
 * Build: cc -std=c11 -I. docs/examples/conv_transpose.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtype used here is stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include "tensor.h"

int main(void)
{
    /* one 2-channel 3x3 image of 1..9 (both channels) */
    th_f32_tensor *x = th_f32_empty(4, (int64_t[]){1, 2, 3, 3});
    for (int i = 0; i < 18; i++) th_f32_data(x)[i] = (float)(i % 9 + 1);

    /* conv_transpose2d: weight (in channels, out channels / groups, kh, kw); a 2x2 kernel of ones at stride 2
     * copies each input pixel into its own 2x2 block (nearest upsampling), summed over the 2 input channels */
    th_f32_tensor *w = th_f32_ones(4, (int64_t[]){2, 1, 2, 2}), *b = th_f32_full(1, (int64_t[]){1}, 0.5f);
    th_conv_opts up = {.stride = {2, 2}}; /* zero: the default (padding 0, dilation 1, groups 1) */
    th_f32_tensor *y = th_f32_conv_transpose2d(x, w, b, &up);
    th_f32_print(stdout, y);
    /* (1, 1, 6, 6): pixel (2, 3) comes from input (1, 1) = 5, twice, plus the bias */
    int ok = y && th_f32_size(y, 2) == 6 && th_f32_size(y, 3) == 6 && th_f32_get(y, (int64_t[]){0, 0, 2, 3}) == 10.5f;

    /* output_padding adds a row and a column at the far side (below the stride), as PyTorch's does to pick
     * the size when a strided conv2d's input size is ambiguous: 7x7 */
    th_conv_opts up7 = {.stride = {2, 2}, .output_padding = {1, 1}};
    th_f32_tensor *y7 = th_f32_conv_transpose2d(x, w, NULL, &up7);
    ok = ok && y7 && th_f32_size(y7, 2) == 7 && th_f32_get(y7, (int64_t[]){0, 0, 6, 6}) == 0.0f;

    /* conv_transpose3d: the same over a volume (weight (in, out / groups, kd, kh, kw)); here the 2 channels
     * become a depth-2 volume of one channel, upsampled 2x in every dim by a 2x2x2 kernel of ones: (1, 1, 4,
     * 6, 6), each input voxel copied into its own 2x2x2 block */
    th_f32_tensor *vol = th_f32_reshape(x, 5, (int64_t[]){1, 1, 2, 3, 3});
    th_f32_tensor *w3 = th_f32_ones(5, (int64_t[]){1, 1, 2, 2, 2});
    th_f32_tensor *y3 = th_f32_conv_transpose3d(vol, w3, NULL, &(th_conv_opts){.stride = {2, 2, 2}});
    ok = ok && y3 && th_f32_size(y3, 2) == 4 && th_f32_size(y3, 4) == 6 &&
         th_f32_get(y3, (int64_t[]){0, 0, 3, 2, 3}) == 5.0f;

    /* im2col (F.unfold): each 2x2 block of each channel as a column: (1, 2 * 2 * 2, 4 blocks); then conv2d
     * is one matrix product of a (1, 8) weight row with it */
    th_f32_tensor *cols = th_f32_im2col(x, (int64_t[]){2, 2}, NULL);
    th_f32_tensor *wrow = th_f32_ones(2, (int64_t[]){1, 8});
    th_f32_tensor *colm = th_f32_reshape(cols, 2, (int64_t[]){8, 4});
    th_f32_tensor *prod = th_f32_matmul(wrow, colm);
    th_f32_tensor *w4 = th_f32_ones(4, (int64_t[]){1, 2, 2, 2});
    th_f32_tensor *conv = th_f32_conv2d(x, w4, NULL, NULL);
    /* block (0, 0): 2 channels x (1 + 2 + 4 + 5) = 24, the same both ways */
    ok = ok && cols && th_f32_size(cols, 1) == 8 && th_f32_size(cols, 2) == 4 && prod && conv &&
         th_f32_get(prod, (int64_t[]){0, 0}) == 24.0f && th_f32_get(conv, (int64_t[]){0, 0, 0, 0}) == 24.0f;

    /* col2im (F.fold) puts the blocks back, summing where they overlap: the centre pixel is in all 4 blocks */
    th_f32_tensor *back = th_f32_col2im(cols, (int64_t[]){3, 3}, (int64_t[]){2, 2}, NULL);
    ok = ok && back && th_f32_get(back, (int64_t[]){0, 1, 1, 1}) == 4 * 5.0f;

    /* an error names the function and the values */
    th_conv_opts bad = {.stride = {2, 2}, .output_padding = {2, 0}};
    th_f32_tensor *e = th_f32_conv_transpose2d(x, w, NULL, &bad);
    printf("%s\n", th_last_error());
    ok = ok && e == NULL && th_last_status() == TH_ERR_INVALID;

    th_f32_release(x);
    th_f32_release(w);
    th_f32_release(b);
    th_f32_release(y);
    th_f32_release(y7);
    th_f32_release(vol);
    th_f32_release(w3);
    th_f32_release(y3);
    th_f32_release(cols);
    th_f32_release(wrow);
    th_f32_release(colm);
    th_f32_release(prod);
    th_f32_release(w4);
    th_f32_release(conv);
    th_f32_release(back);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
