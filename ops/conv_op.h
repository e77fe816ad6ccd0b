/* ops/conv_op.h: the front doors of one convolution or pooling op, stamped per dtype and per op by conv.h, as
 * product_op.h is by linalg.h: the dtype checks, the result and the _out form are written once here, the work
 * once for every dtype in conv_erased.h (th__conv_run, th__convt_run, th__pool_run, th__apool_run).
 *
 * conv.h defines before each inclusion:
 *   TH_OP          the op's name: conv2d gives th_f32_conv2d and th_f32_conv2d_out
 *   TH_OP_DIMS     its number of spatial dims: 1, 2 or 3
 *   TH_OP_KIND     what it is: TH__CONV_OP_CONV, _CONVT (transposed), _MAX_POOL, _AVG_POOL, _ADAPTIVE_MAX or
 *                  _ADAPTIVE_AVG
 *
 * The forms (the arguments after input as the kind takes them; errors as conv.h says at its top):
 *   th_<sfx>_<op>(input, weight, bias, opts)                  conv, conv_transpose: a new tensor
 *   th_<sfx>_<op>(input, kernel, opts[, indices])             max (with indices) and avg pooling
 *   th_<sfx>_<op>(input, output_size[, indices])              adaptive max (with indices) and avg pooling
 *   th_<sfx>_<op>_out(out, [indices_out,] input, ...)         into out (and indices_out, which may be NULL) */
#ifndef TH_NAME
#error "ops/conv_op.h is stamped per dtype through tensor_generic.h; include tensor.h instead"
#endif
#ifndef TH_OP
#error "ops/conv_op.h: define TH_OP (the op's name) before including it"
#endif
#ifndef TH_OP_DIMS
#error "ops/conv_op.h: define TH_OP_DIMS (1, 2 or 3 spatial dims) before including it"
#endif
#ifndef TH_OP_KIND
#error "ops/conv_op.h: define TH_OP_KIND (TH__CONV_OP_CONV, ...) before including it"
#endif

#ifndef TH__CONV_OP_CONV
#define TH__CONV_OP_CONV 1
#define TH__CONV_OP_CONVT 2
#define TH__CONV_OP_MAX_POOL 3
#define TH__CONV_OP_AVG_POOL 4
#define TH__CONV_OP_ADAPTIVE_MAX 5
#define TH__CONV_OP_ADAPTIVE_AVG 6
#endif

/* The kind's parameters after input (TH__CO_ARGS), the dtype check of its tensors (TH__CO_WRONG) and its
 * call of the erased work (TH__CO_RUN: the name, out, indices_out, the new indices' place). */
#if TH_OP_KIND == TH__CONV_OP_CONV || TH_OP_KIND == TH__CONV_OP_CONVT
#define TH__CO_ARGS const TH_NAME(tensor) *weight, const TH_NAME(tensor) *bias, const th_conv_opts *opts
#define TH__CO_WRONG (TH__WRONG_DTYPE(input) || TH__WRONG_DTYPE(weight) || TH__WRONG_DTYPE(bias))
#define TH__CO_RUN(fn, out, iout, inew)                                                                            \
    TH__CO_KERNEL(fn, TH_OP_DIMS, out, TH__B(input), TH__B(weight), TH__B(bias), opts)
#if TH_OP_KIND == TH__CONV_OP_CONV
#define TH__CO_KERNEL th__conv_run
#else
#define TH__CO_KERNEL th__convt_run
#endif
#elif TH_OP_KIND == TH__CONV_OP_MAX_POOL || TH_OP_KIND == TH__CONV_OP_AVG_POOL
#define TH__CO_ARGS const int64_t *kernel, const th_pool_opts *opts
#define TH__CO_WRONG TH__WRONG_DTYPE(input)
#define TH__CO_RUN(fn, out, iout, inew)                                                                            \
    th__pool_run(fn, TH_OP_DIMS, TH_OP_KIND == TH__CONV_OP_MAX_POOL, out, iout, inew, TH__B(input), kernel, opts)
#elif TH_OP_KIND == TH__CONV_OP_ADAPTIVE_MAX || TH_OP_KIND == TH__CONV_OP_ADAPTIVE_AVG
#define TH__CO_ARGS const int64_t *output_size
#define TH__CO_WRONG TH__WRONG_DTYPE(input)
#define TH__CO_RUN(fn, out, iout, inew)                                                                            \
    th__apool_run(fn, TH_OP_DIMS, TH_OP_KIND == TH__CONV_OP_ADAPTIVE_MAX, out, iout, inew, TH__B(input), output_size)
#else
#error "ops/conv_op.h: TH_OP_KIND is none of TH__CONV_OP_CONV, _CONVT, _MAX_POOL, _AVG_POOL, _ADAPTIVE_MAX, _ADAPTIVE_AVG"
#endif

/* The maxima also give their indices: an i64 tensor of the result's shape (new: *indices; _out: indices_out). */
#if TH_OP_KIND == TH__CONV_OP_MAX_POOL || TH_OP_KIND == TH__CONV_OP_ADAPTIVE_MAX
#define TH__CO_INDICES , th_i64_tensor **indices
#define TH__CO_INDICES_OUT th_i64_tensor *indices_out,
#define TH__CO_NEW_AT (th_tensor **)indices
#define TH__CO_OUT_AT TH__B(indices_out)
#define TH__CO_WRONG_OUT th__dtype_mismatch(__func__, "indices_out", TH__B(indices_out), TH_I64)
#else
#define TH__CO_INDICES
#define TH__CO_INDICES_OUT
#define TH__CO_NEW_AT NULL
#define TH__CO_OUT_AT NULL
#define TH__CO_WRONG_OUT false
#endif

#ifndef TH__DEFINING

TH_API TH_NAME(tensor) *TH__OP_NAME()(const TH_NAME(tensor) *input, TH__CO_ARGS TH__CO_INDICES);
TH_API int TH__OP_NAME(_out)(TH_NAME(tensor) *out, TH__CO_INDICES_OUT const TH_NAME(tensor) *input, TH__CO_ARGS);

#else /* definitions */

TH_API TH_NAME(tensor) *TH__OP_NAME()(const TH_NAME(tensor) *input, TH__CO_ARGS TH__CO_INDICES)
{
    th_tensor **new_at = TH__CO_NEW_AT;
    if (new_at) *new_at = NULL;
    if (TH__CO_WRONG) return NULL;
    return TH__T(TH__CO_RUN(TH__OP_FN(), NULL, NULL, new_at));
}

TH_API int TH__OP_NAME(_out)(TH_NAME(tensor) *out, TH__CO_INDICES_OUT const TH_NAME(tensor) *input, TH__CO_ARGS)
{
    if (TH__WRONG_DTYPE(out) || TH__CO_WRONG_OUT || TH__CO_WRONG) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__OP_FN(_out), "NULL out");
    return th__out_status(TH__CO_RUN(TH__OP_FN(_out), TH__B(out), TH__CO_OUT_AT, NULL));
}

#endif /* definitions */

#undef TH__CO_ARGS
#undef TH__CO_WRONG
#undef TH__CO_RUN
#undef TH__CO_KERNEL
#undef TH__CO_INDICES
#undef TH__CO_INDICES_OUT
#undef TH__CO_NEW_AT
#undef TH__CO_OUT_AT
#undef TH__CO_WRONG_OUT
#undef TH_OP
#undef TH_OP_DIMS
#undef TH_OP_KIND
