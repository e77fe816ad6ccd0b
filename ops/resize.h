/* ops/resize.h: interpolate (torch.nn.functional.interpolate). Stamped per dtype through tensor_generic.h for
 * the floating dtypes (f16 and bf16 compute in float); the front doors only check the dtypes, the work is done
 * once for every dtype in ops/resize_erased.h. docs/nn.md#interpolate. */
#if defined(TH_REAL_IS_FLOATING)
#ifndef TH__DEFINING

/* torch.nn.functional.interpolate(input, size or scale_factor, mode, align_corners): input (N, C, W) for linear,
 * (N, C, H, W) for bilinear and bicubic, (N, C, D, H, W) for trilinear, any of the three for nearest and
 * nearest-exact; any strides. opts (a th_interp_opts, zero: nearest, no align_corners) gives exactly one of the
 * output size and the scale factors (ops/resize_erased.h). The new form returns a new contiguous tensor (NULL on
 * error); the _out form writes into out, which must have the result's shape and this dtype (any strides), and
 * returns 0 or a negative status: the library's two forms, as conv2d's, since the output's shape follows from
 * the options. Errors: NULL input or opts (TH_ERR_INVALID), a tensor of another dtype (TH_ERR_DTYPE), device
 * memory (TH_ERR_DEVICE), an input of the wrong rank for the mode or with an empty spatial dim (TH_ERR_SHAPE),
 * a mode outside the enum, align_corners with a nearest mode, both or neither of size and scale, a size < 1, a
 * scale not > 0 or not finite, an entry past the input's spatial dims (TH_ERR_INVALID), a scale that makes an
 * output size below 1 (TH_ERR_SHAPE); an out of the wrong shape (TH_ERR_SHAPE), read-only (TH_ERR_READ_ONLY)
 * or whose elements overlap (TH_ERR_INVALID); out of memory (TH_ERR_NOMEM). */
TH_API TH_NAME(tensor) *TH_NAME(interpolate)(const TH_NAME(tensor) *input, const th_interp_opts *opts);
TH_API int TH_NAME(interpolate_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const th_interp_opts *opts);

#else /* definitions */

TH_API TH_NAME(tensor) *TH_NAME(interpolate)(const TH_NAME(tensor) *input, const th_interp_opts *opts)
{
    if (TH__WRONG_DTYPE(input)) return NULL;
    return TH__T(th__interp_run(TH__FN(interpolate), NULL, TH__B(input), opts));
}

TH_API int TH_NAME(interpolate_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const th_interp_opts *opts)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(input)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(interpolate_out), "NULL out");
    return th__out_status(th__interp_run(TH__FN(interpolate_out), TH__B(out), TH__B(input), opts));
}

#endif /* definitions */
#endif /* TH_REAL_IS_FLOATING */
