/* ops/conv.h: convolution, pooling and padding: conv1d, conv2d, conv3d, conv_transpose1d/2d/3d,
 * im2col (unfold), col2im (fold), max_pool1d/2d/3d, avg_pool1d/2d/3d,
 * adaptive_avg_pool1d/2d/3d, adaptive_max_pool1d/2d/3d, pad. Stamped per dtype
 * through tensor_generic.h for the floating dtypes (f16 and bf16 compute in float); the front doors only check
 * the dtypes (the convolutions' and the pools' stamped from ops/conv_op.h, one #include per op below), the work
 * is done once for every dtype in ops/conv_erased.h. docs/nn.md. */
#if defined(TH_REAL_IS_FLOATING)

/* Every function here: tensors of any strides; the new forms return a new contiguous tensor (NULL on error),
 * the _out forms write into out, which must have the result's shape and this dtype (any strides) and return 0
 * or a negative status. Errors: NULL input or weight (TH_ERR_INVALID), a tensor of another dtype
 * (TH_ERR_DTYPE), device memory (TH_ERR_DEVICE), wrong shapes (TH_ERR_SHAPE), a negative option
 * (TH_ERR_INVALID), an out of the wrong shape (TH_ERR_SHAPE), read-only (TH_ERR_READ_ONLY) or whose elements
 * overlap (TH_ERR_INVALID), out of memory (TH_ERR_NOMEM). */

#ifndef TH__DEFINING

/* im2col: torch.nn.functional.unfold (named so beside the view th_<sfx>_unfold, which is Tensor.unfold):
 * input (N, C, H, W) or (C, H, W), kernel[2] >= 1, opts NULL or a th_conv_opts (stride, padding, dilation;
 * groups 0 or 1; no output_padding). The result is (N, C * kh * kw, L) or (C * kh * kw, L): row
 * c * kh * kw + i * kw + j holds element (i, j) of the kernel window of channel c at each of the L = out_h *
 * out_w block positions (conv2d's output sizes), zero in the padding.
 * col2im: torch.nn.functional.fold, im2col's adjoint: input (N, C * kh * kw, L) or (C * kh * kw, L) summed
 * into (N, C, output_size[0], output_size[1]) or (C, ...) where the blocks overlap; L must be the number of
 * blocks output_size has. Errors: NULL kernel or output_size, output_size < 1, groups other than 1, an
 * output_padding (TH_ERR_INVALID), a kernel below 1 or larger than the padded input, col2im's rows not a
 * multiple of kh * kw, a wrong L (TH_ERR_SHAPE). */
TH_API TH_NAME(tensor) *TH_NAME(im2col)(const TH_NAME(tensor) *input, const int64_t *kernel, const th_conv_opts *opts);
TH_API int TH_NAME(im2col_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const int64_t *kernel,
                               const th_conv_opts *opts);
TH_API TH_NAME(tensor) *TH_NAME(col2im)(const TH_NAME(tensor) *input, const int64_t *output_size, const int64_t *kernel,
                                      const th_conv_opts *opts);
TH_API int TH_NAME(col2im_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const int64_t *output_size,
                             const int64_t *kernel, const th_conv_opts *opts);

/* torch.nn.functional.pad: x of any shape padded over its last npad / 2 dims in F.pad's order (pads[0] and
 * pads[1] before and after the last dim, pads[2] and pads[3] the one before, ...); a negative pad crops, and
 * the other modes then fill from the cropped input (as torch's circular mode does). mode
 * TH_PAD_CONSTANT fills with value (rounded to the dtype); TH_PAD_REFLECT mirrors (each pad less than the dim's
 * size), TH_PAD_REPLICATE repeats the edge (the dim not empty), TH_PAD_CIRCULAR wraps (each pad at most the
 * size). Errors: npad odd, negative or over twice x's dims, NULL pads, a mode outside the enum
 * (TH_ERR_INVALID), a pad the mode cannot take or a negative resulting size (TH_ERR_SHAPE). */
TH_API TH_NAME(tensor) *TH_NAME(pad)(const TH_NAME(tensor) *x, int npad, const int64_t *pads, th_pad_mode mode,
                                     double value);
TH_API int TH_NAME(pad_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int npad, const int64_t *pads,
                            th_pad_mode mode, double value);
#else /* definitions */

TH_API TH_NAME(tensor) *TH_NAME(im2col)(const TH_NAME(tensor) *input, const int64_t *kernel, const th_conv_opts *opts)
{
    if (TH__WRONG_DTYPE(input)) return NULL;
    return TH__T(th__fold_run(TH__FN(im2col), false, NULL, TH__B(input), NULL, kernel, opts));
}

TH_API int TH_NAME(im2col_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const int64_t *kernel,
                               const th_conv_opts *opts)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(input)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(im2col_out), "NULL out");
    return th__out_status(th__fold_run(TH__FN(im2col_out), false, TH__B(out), TH__B(input), NULL, kernel, opts));
}

TH_API TH_NAME(tensor) *TH_NAME(col2im)(const TH_NAME(tensor) *input, const int64_t *output_size, const int64_t *kernel,
                                      const th_conv_opts *opts)
{
    if (TH__WRONG_DTYPE(input)) return NULL;
    return TH__T(th__fold_run(TH__FN(col2im), true, NULL, TH__B(input), output_size, kernel, opts));
}

TH_API int TH_NAME(col2im_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const int64_t *output_size,
                             const int64_t *kernel, const th_conv_opts *opts)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(input)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(col2im_out), "NULL out");
    return th__out_status(th__fold_run(TH__FN(col2im_out), true, TH__B(out), TH__B(input), output_size, kernel, opts));
}

TH_API TH_NAME(tensor) *TH_NAME(pad)(const TH_NAME(tensor) *x, int npad, const int64_t *pads, th_pad_mode mode,
                                     double value)
{
    if (TH__WRONG_DTYPE(x)) return NULL;
    return TH__T(th__pad_run(TH__FN(pad), NULL, TH__B(x), npad, pads, mode, value));
}

TH_API int TH_NAME(pad_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int npad, const int64_t *pads,
                            th_pad_mode mode, double value)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(pad_out), "NULL out");
    return th__out_status(th__pad_run(TH__FN(pad_out), TH__B(out), TH__B(x), npad, pads, mode, value));
}

#endif /* definitions */

/* ---- convolution and pooling: each op stamps conv_op.h's front doors (the new form and _out) ---- */

/* torch.nn.functional.conv1d/conv2d/conv3d: input (N, C, spatial...) or unbatched (C, spatial...), weight
 * (O, C / groups, kernel...), bias NULL or (O); opts NULL or a th_conv_opts (zero: the default). The result
 * is (N, O, out...) or (O, out...) with out = (in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1.
 * Errors: groups not dividing C or O, a weight whose second size is not C / groups, a bias not (O), a kernel
 * larger than the padded input (TH_ERR_SHAPE); a negative stride, padding, dilation or groups
 * (TH_ERR_INVALID), a nonzero output_padding (conv_transpose's only; TH_ERR_INVALID). */
#define TH_OP conv1d
#define TH_OP_DIMS 1
#define TH_OP_KIND TH__CONV_OP_CONV
#include "conv_op.h"
#define TH_OP conv2d
#define TH_OP_DIMS 2
#define TH_OP_KIND TH__CONV_OP_CONV
#include "conv_op.h"
#define TH_OP conv3d
#define TH_OP_DIMS 3
#define TH_OP_KIND TH__CONV_OP_CONV
#include "conv_op.h"

/* torch.nn.functional.conv_transpose1d/2d/3d: input (N, C, spatial...) or (C, spatial...), weight
 * (C, O / groups, kernel...), bias NULL or (O); opts NULL or a th_conv_opts (zero: the default), whose
 * output_padding adds to one side of each output dim. The result is (N, O, out...) or (O, out...) with out =
 * (in - 1) * stride - 2 * padding + dilation * (kernel - 1) + output_padding + 1. Errors: a weight whose first
 * size is not C, groups not dividing C, a bias not (O), an output size below 1 (TH_ERR_SHAPE); a negative
 * option, an output_padding not smaller than its dim's stride or dilation (TH_ERR_INVALID). */
#define TH_OP conv_transpose1d
#define TH_OP_DIMS 1
#define TH_OP_KIND TH__CONV_OP_CONVT
#include "conv_op.h"
#define TH_OP conv_transpose2d
#define TH_OP_DIMS 2
#define TH_OP_KIND TH__CONV_OP_CONVT
#include "conv_op.h"
#define TH_OP conv_transpose3d
#define TH_OP_DIMS 3
#define TH_OP_KIND TH__CONV_OP_CONVT
#include "conv_op.h"

/* torch.nn.functional.max_pool2d: input (N, C, H, W) or (C, H, W), kernel[2] >= 1, opts NULL or a
 * th_pool_opts (stride 0: the kernel; padding at most half the kernel; dilation; ceil_mode). A NaN in a window
 * is its maximum. indices, when not NULL, gets a new i64 tensor of the result's shape: each maximum's index
 * h * W + w in its input plane (NULL on error); indices_out of the _out form may be NULL. Errors: kernel < 1,
 * negative options, padding over half the kernel (TH_ERR_INVALID), a window larger than the padded input
 * (TH_ERR_SHAPE), a count_exclude_pad or divisor_override (the average's; TH_ERR_INVALID). */
#define TH_OP max_pool2d
#define TH_OP_DIMS 2
#define TH_OP_KIND TH__CONV_OP_MAX_POOL
#include "conv_op.h"

/* torch.nn.functional.avg_pool2d: each window's sum over the window's size clipped to the padded input
 * (count_include_pad), or, with opts->count_exclude_pad, over the number of input elements it covers, or over
 * opts->divisor_override where that is not 0; opts->ceil_mode as max_pool2d's. Errors as max_pool2d, a dilation
 * other than 1, a negative divisor_override (TH_ERR_INVALID). */
#define TH_OP avg_pool2d
#define TH_OP_DIMS 2
#define TH_OP_KIND TH__CONV_OP_AVG_POOL
#include "conv_op.h"

/* torch.nn.functional.adaptive_avg_pool2d / adaptive_max_pool2d(return_indices=True): input (N, C, H, W) or
 * (C, H, W) pooled to output_size[0] x output_size[1]; output cell i of a dim of input size n and output size m
 * covers inputs floor(i * n / m) to ceil((i + 1) * n / m) - 1 (windows of varying size that may overlap). The
 * average sums in double; the maximum takes a NaN as PyTorch (the first NaN of the window), and indices, when
 * not NULL, gets each maximum's index h * W + w in its input plane (i64; NULL on error), as max_pool2d.
 * Errors: NULL input or output_size, output_size[i] < 1 (TH_ERR_INVALID), an input not 3-d or 4-d, or with an
 * empty spatial dim and planes to pool (TH_ERR_SHAPE). */
#define TH_OP adaptive_avg_pool2d
#define TH_OP_DIMS 2
#define TH_OP_KIND TH__CONV_OP_ADAPTIVE_AVG
#include "conv_op.h"
#define TH_OP adaptive_max_pool2d
#define TH_OP_DIMS 2
#define TH_OP_KIND TH__CONV_OP_ADAPTIVE_MAX
#include "conv_op.h"

/* torch.nn.functional.max_pool1d/3d, avg_pool1d/3d, adaptive_avg_pool1d/3d and adaptive_max_pool1d/3d: the 2d
 * functions' semantics and errors over 1 spatial dim (input (N, C, L) or (C, L), kernel[1], output_size[1],
 * each index l) or 3 (input (N, C, D, H, W) or (C, D, H, W), kernel[3], output_size[3], each index
 * d * H * W + h * W + w in its input volume); opts index i is spatial dim i. */
#define TH_OP max_pool1d
#define TH_OP_DIMS 1
#define TH_OP_KIND TH__CONV_OP_MAX_POOL
#include "conv_op.h"
#define TH_OP avg_pool1d
#define TH_OP_DIMS 1
#define TH_OP_KIND TH__CONV_OP_AVG_POOL
#include "conv_op.h"
#define TH_OP adaptive_avg_pool1d
#define TH_OP_DIMS 1
#define TH_OP_KIND TH__CONV_OP_ADAPTIVE_AVG
#include "conv_op.h"
#define TH_OP adaptive_max_pool1d
#define TH_OP_DIMS 1
#define TH_OP_KIND TH__CONV_OP_ADAPTIVE_MAX
#include "conv_op.h"
#define TH_OP max_pool3d
#define TH_OP_DIMS 3
#define TH_OP_KIND TH__CONV_OP_MAX_POOL
#include "conv_op.h"
#define TH_OP avg_pool3d
#define TH_OP_DIMS 3
#define TH_OP_KIND TH__CONV_OP_AVG_POOL
#include "conv_op.h"
#define TH_OP adaptive_avg_pool3d
#define TH_OP_DIMS 3
#define TH_OP_KIND TH__CONV_OP_ADAPTIVE_AVG
#include "conv_op.h"
#define TH_OP adaptive_max_pool3d
#define TH_OP_DIMS 3
#define TH_OP_KIND TH__CONV_OP_ADAPTIVE_MAX
#include "conv_op.h"

#endif /* TH_REAL_IS_FLOATING */
