/* ops/index.h: index_select, gather, scatter, scatter_add, masked_fill, masked_select, nonzero,
 * take, put. Stamped per dtype through tensor_generic.h; the work is done once for every dtype in
 * ops/index_erased.h, and this file adds the two element-typed pieces (adding, testing for
 * nonzero). Every dtype gets them all. */
#ifndef TH__DEFINING

/* ---- indexing. index is an int64 tensor, mask a bool tensor. Indices may be negative (counting from the
 * end) everywhere, also in gather and scatter where PyTorch refuses them. An index out of range fails with
 * TH_ERR_RANGE naming it and the bound, before anything is written; an index or mask of another dtype with
 * TH_ERR_DTYPE; NULL arguments with TH_ERR_INVALID. Functions returning a tensor return a new contiguous one
 * (NULL on error); _out writes into out (exactly the result's shape), _inplace into t; both return 0 or a
 * negative status, and refuse an out or t whose elements share addresses (an expanded tensor: TH_ERR_INVALID).
 * Outputs may overlap inputs: inputs are copied first where that matters. ---- */

/* Slices of t along dim at the indices of the 0-d or 1-d index: result dim `dim` has numel(index) elements
 * (a 0-d t takes one index, 0 or -1, and gives a 0-d result). */
TH_API TH_NAME(tensor) *TH_NAME(index_select)(const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index);
TH_API int TH_NAME(index_select_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int dim,
                                     const th_i64_tensor *index);
/* result[i][j][k] = t[index[i][j][k]][j][k] for dim 0 (and so on): the result has index's shape. index has t's
 * ndim and no dim longer than t's, except dim (TH_ERR_SHAPE). */
TH_API TH_NAME(tensor) *TH_NAME(gather)(const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index);
TH_API int TH_NAME(gather_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index);
/* t[index[i][j][k]][j][k] = src[i][j][k] for dim 0 (and so on), for every element of index. index, src and
 * t have one ndim; index is no longer than src in any dim, nor than t outside dim (TH_ERR_SHAPE). When several
 * indices name one element, the one written last in row-major order of index usually wins, but which one is
 * not promised. scatter returns a new tensor; scatter_inplace writes t. */
TH_API TH_NAME(tensor) *TH_NAME(scatter)(const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index,
                                         const TH_NAME(tensor) *src);
TH_API int TH_NAME(scatter_inplace)(TH_NAME(tensor) *t, int dim, const th_i64_tensor *index,
                                    const TH_NAME(tensor) *src);
/* As scatter, adding into t instead of writing (every index counts, in a fixed order, so the result is
 * deterministic). Integers wrap, bool adds as logical or, float16 and bfloat16 add in float. */
TH_API TH_NAME(tensor) *TH_NAME(scatter_add)(const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index,
                                             const TH_NAME(tensor) *src);
TH_API int TH_NAME(scatter_add_inplace)(TH_NAME(tensor) *t, int dim, const th_i64_tensor *index,
                                        const TH_NAME(tensor) *src);
/* t with value where mask is true. mask and t broadcast together (the result has their broadcast shape);
 * for _inplace, mask must broadcast to t's shape. */
TH_API TH_NAME(tensor) *TH_NAME(masked_fill)(const TH_NAME(tensor) *t, const th_bool_tensor *mask, real value);
TH_API int TH_NAME(masked_fill_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, const th_bool_tensor *mask,
                                    real value);
TH_API int TH_NAME(masked_fill_inplace)(TH_NAME(tensor) *t, const th_bool_tensor *mask, real value);
/* The elements of t where mask is true (the two broadcast together), in row-major order, as a 1-d tensor. */
TH_API TH_NAME(tensor) *TH_NAME(masked_select)(const TH_NAME(tensor) *t, const th_bool_tensor *mask);
/* The indices of t's nonzero elements (NaN counts as nonzero, -0.0 does not), one row of ndim coordinates
 * each, in row-major order: an int64 tensor of shape (count, ndim). */
TH_API th_i64_tensor *TH_NAME(nonzero)(const TH_NAME(tensor) *t);
/* Elements of t at flat (row-major) indices, as if t were 1-d: the result has index's shape. */
TH_API TH_NAME(tensor) *TH_NAME(take)(const TH_NAME(tensor) *t, const th_i64_tensor *index);
TH_API int TH_NAME(take_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, const th_i64_tensor *index);
/* Writes src's elements at t's flat indices (index and src paired in row-major order; they need the same
 * number of elements, not the same shape: TH_ERR_SHAPE). With accumulate they are added (as scatter_add;
 * repeated indices all count), without it the last of repeated indices wins. put returns a new tensor;
 * put_inplace writes t. */
TH_API TH_NAME(tensor) *TH_NAME(put)(const TH_NAME(tensor) *t, const th_i64_tensor *index, const TH_NAME(tensor) *src,
                                     bool accumulate);
TH_API int TH_NAME(put_inplace)(TH_NAME(tensor) *t, const th_i64_tensor *index, const TH_NAME(tensor) *src,
                                bool accumulate);

#else

static void TH_PRIVATE(index_add)(char *const *dst, const char *src, int64_t stride, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        real a = TH_PRIVATE(load)(dst[i]), b = TH_PRIVATE(load)(src + i * stride);
#if defined(TH_REAL_IS_BOOL)
        TH_PRIVATE(store)(dst[i], a || b);
#elif defined(TH_REAL_IS_INTEGER)
        TH_PRIVATE(store)(dst[i], (real)((uint64_t)a + (uint64_t)b)); /* unsigned: wraps without overflowing */
#elif defined(TH_REAL_IS_REDUCED)
        TH_PRIVATE(store)(dst[i], TH_ACCREAL_TO_REAL(TH_REAL_TO_ACCREAL(a) + TH_REAL_TO_ACCREAL(b)));
#else
        TH_PRIVATE(store)(dst[i], a + b);
#endif
    }
}

static bool TH_PRIVATE(index_nonzero)(const char *p)
{
    real x = TH_PRIVATE(load)(p);
#if defined(TH_REAL_IS_REDUCED)
    return TH_REAL_TO_ACCREAL(x) != 0.0f;
#else
    return x != 0;
#endif
}

TH_API TH_NAME(tensor) *TH_NAME(index_select)(const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__index_select(TH__FN(index_select), NULL, TH__B(t), dim, TH__B(index)));
}

TH_API int TH_NAME(index_select_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int dim,
                                     const th_i64_tensor *index)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__shape_need_out(TH__FN(index_select_out), TH__B(out))) return th_last_status();
    return th__out_status(th__index_select(TH__FN(index_select_out), TH__B(out), TH__B(t), dim, TH__B(index)));
}

TH_API TH_NAME(tensor) *TH_NAME(gather)(const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__gather(TH__FN(gather), NULL, TH__B(t), dim, TH__B(index)));
}

TH_API int TH_NAME(gather_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__shape_need_out(TH__FN(gather_out), TH__B(out))) return th_last_status();
    return th__out_status(th__gather(TH__FN(gather_out), TH__B(out), TH__B(t), dim, TH__B(index)));
}

TH_API TH_NAME(tensor) *TH_NAME(scatter)(const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index,
                                         const TH_NAME(tensor) *src)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__scatter(TH__FN(scatter), TH__B(t), dim, TH__B(index), TH__B(src), NULL));
}

TH_API int TH_NAME(scatter_inplace)(TH_NAME(tensor) *t, int dim, const th_i64_tensor *index,
                                    const TH_NAME(tensor) *src)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return th__scatter_inplace(TH__FN(scatter_inplace), TH__B(t), dim, TH__B(index), TH__B(src), NULL);
}

TH_API TH_NAME(tensor) *TH_NAME(scatter_add)(const TH_NAME(tensor) *t, int dim, const th_i64_tensor *index,
                                             const TH_NAME(tensor) *src)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__scatter(TH__FN(scatter_add), TH__B(t), dim, TH__B(index), TH__B(src), TH_PRIVATE(index_add)));
}

TH_API int TH_NAME(scatter_add_inplace)(TH_NAME(tensor) *t, int dim, const th_i64_tensor *index,
                                        const TH_NAME(tensor) *src)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return th__scatter_inplace(TH__FN(scatter_add_inplace), TH__B(t), dim, TH__B(index), TH__B(src),
                               TH_PRIVATE(index_add));
}

TH_API TH_NAME(tensor) *TH_NAME(masked_fill)(const TH_NAME(tensor) *t, const th_bool_tensor *mask, real value)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__masked_fill(TH__FN(masked_fill), NULL, TH__B(t), TH__B(mask), &value));
}

TH_API int TH_NAME(masked_fill_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, const th_bool_tensor *mask,
                                    real value)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__shape_need_out(TH__FN(masked_fill_out), TH__B(out))) return th_last_status();
    return th__out_status(th__masked_fill(TH__FN(masked_fill_out), TH__B(out), TH__B(t), TH__B(mask), &value));
}

TH_API int TH_NAME(masked_fill_inplace)(TH_NAME(tensor) *t, const th_bool_tensor *mask, real value)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return th__masked_fill_inplace(TH__FN(masked_fill_inplace), TH__B(t), TH__B(mask), &value);
}

TH_API TH_NAME(tensor) *TH_NAME(masked_select)(const TH_NAME(tensor) *t, const th_bool_tensor *mask)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__masked_select(TH__FN(masked_select), TH__B(t), TH__B(mask)));
}

TH_API th_i64_tensor *TH_NAME(nonzero)(const TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return (th_i64_tensor *)th__nonzero(TH__FN(nonzero), TH__B(t), TH_PRIVATE(index_nonzero));
}

TH_API TH_NAME(tensor) *TH_NAME(take)(const TH_NAME(tensor) *t, const th_i64_tensor *index)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__take(TH__FN(take), NULL, TH__B(t), TH__B(index)));
}

TH_API int TH_NAME(take_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, const th_i64_tensor *index)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__shape_need_out(TH__FN(take_out), TH__B(out))) return th_last_status();
    return th__out_status(th__take(TH__FN(take_out), TH__B(out), TH__B(t), TH__B(index)));
}

TH_API TH_NAME(tensor) *TH_NAME(put)(const TH_NAME(tensor) *t, const th_i64_tensor *index, const TH_NAME(tensor) *src,
                                     bool accumulate)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__put(TH__FN(put), TH__B(t), TH__B(index), TH__B(src), accumulate ? TH_PRIVATE(index_add) : NULL));
}

TH_API int TH_NAME(put_inplace)(TH_NAME(tensor) *t, const th_i64_tensor *index, const TH_NAME(tensor) *src,
                                bool accumulate)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return th__put_inplace(TH__FN(put_inplace), TH__B(t), TH__B(index), TH__B(src),
                           accumulate ? TH_PRIVATE(index_add) : NULL);
}

#endif
