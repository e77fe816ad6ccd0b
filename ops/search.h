/* ops/search.h: search and bins for the real dtypes (integers and floating): searchsorted, bucketize, isin,
 * isclose, allclose; histc and histogram for the floating dtypes; bincount for the integer ones. Stamped per
 * dtype through tensor_generic.h; each function is a thin front door to its one dtype-independent definition in
 * ops/search_erased.h. */
#if !defined(TH_REAL_IS_BOOL) && !defined(TH_REAL_IS_COMPLEX)

#ifndef TH__DEFINING

/* Every function here reads its operands at any strides (transposed, stepped, broadcast views) and writes a new
 * contiguous result (NULL on error) or, in the _out forms, into out, which must have exactly the result's shape
 * and may overlap the operands (0 or a negative status). Errors: a NULL operand (TH_ERR_INVALID), another dtype
 * (TH_ERR_DTYPE, naming the operand), device memory (TH_ERR_DEVICE), shapes that do not fit (TH_ERR_SHAPE, naming
 * them), a bad count, range or tolerance (TH_ERR_RANGE, naming the value). */

/* torch.searchsorted(sorted, values, right=opts->right): for each value the index where inserting it keeps the
 * row sorted (the first i with v <= sorted[i]; with right, the first with v < sorted[i]). sorted is 1-d, or N-d
 * with values' leading dims equal to its own (each row of sorted searched for the values of that row); the result
 * has values' shape. A row out of order (NaNs may only come last, where sorting puts them) is refused naming the
 * row and the pair. NaN, as torch's binary search: a NaN value goes after everything (the row's length); NaNs at a
 * row's end are passed over as smaller by the search, so a value above the row's last number lands after them. opts NULL or zero: side "left". The result is int64; an _out out of
 * dtype int64 or int32 (torch's out_int32) receives it. */
TH_API th_i64_tensor *TH_NAME(searchsorted)(const TH_NAME(tensor) *sorted, const TH_NAME(tensor) *values,
                                            const th_search_opts *opts);
TH_API int TH_NAME(searchsorted_out)(th_tensor *out, const TH_NAME(tensor) *sorted, const TH_NAME(tensor) *values,
                                     const th_search_opts *opts);
/* torch.bucketize(values, boundaries, right): searchsorted of each value in the 1-d sorted boundaries. */
TH_API th_i64_tensor *TH_NAME(bucketize)(const TH_NAME(tensor) *values, const TH_NAME(tensor) *boundaries, bool right);
TH_API int TH_NAME(bucketize_out)(th_tensor *out, const TH_NAME(tensor) *values, const TH_NAME(tensor) *boundaries,
                                  bool right);
/* torch.isin(elements, test_elements, invert=invert): whether each element equals one of test_elements (any
 * shape), as bools of elements' shape; NaN equals nothing. */
TH_API th_bool_tensor *TH_NAME(isin)(const TH_NAME(tensor) *elements, const TH_NAME(tensor) *test_elements,
                                     bool invert);
TH_API int TH_NAME(isin_out)(th_bool_tensor *out, const TH_NAME(tensor) *elements,
                             const TH_NAME(tensor) *test_elements, bool invert);
/* torch.isclose(a, b, rtol, atol, equal_nan) (numpy.isclose's defaults are rtol 1e-5, atol 1e-8):
 * |a - b| <= atol + |rtol * b| over the broadcast shape of a and b; equal values (infinities too) are close, NaN
 * is close to NaN only with equal_nan. Computed in float for f32, f16 and bf16, in double for the others. A
 * negative or NaN rtol or atol is refused. */
TH_API th_bool_tensor *TH_NAME(isclose)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, double rtol, double atol,
                                        bool equal_nan);
TH_API int TH_NAME(isclose_out)(th_bool_tensor *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, double rtol,
                                double atol, bool equal_nan);
/* torch.allclose: whether isclose holds for every element, into *result (false on error); 0 or a negative
 * status. */
TH_API int TH_NAME(allclose)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, double rtol, double atol,
                             bool equal_nan, bool *result);

#if defined(TH_REAL_IS_FLOATING)
/* torch.histc(x, bins, min, max): the counts of x's elements in bins equal bins over [min, max] (the last bin
 * closed), elements outside it and NaNs not counted, in x's dtype. min = max: the data's smallest and largest
 * (widened by 1 each way when they are one value). bins <= 0, a NaN bound, min > max and a data range that is
 * not finite are refused naming the values. */
TH_API TH_NAME(tensor) *TH_NAME(histc)(const TH_NAME(tensor) *x, int64_t bins, double min, double max);
TH_API int TH_NAME(histc_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int64_t bins, double min, double max);
/* numpy.histogram(x, bins, range, weights) for a bin count: *hist (bins counts, or the sums of weights, which has
 * x's shape, when weights is not NULL) and *edges (bins + 1 edges, numpy.linspace's), both new, in x's dtype,
 * computed in double as NumPy computes them. range NULL: the data's smallest and largest ([0, 1] for no data);
 * either way one value v is widened to [v - 0.5, v + 0.5]. Elements outside the range and NaNs are not counted;
 * the last bin is closed. 0 or a negative status (then *hist and *edges are NULL). */
TH_API int TH_NAME(histogram)(const TH_NAME(tensor) *x, int64_t bins, const double *range,
                              const TH_NAME(tensor) *weights, TH_NAME(tensor) **hist, TH_NAME(tensor) **edges);
#endif

#if defined(TH_REAL_IS_INTEGER)
/* torch.bincount(x, minlength=minlength): how often each value 0..n-1 occurs in the 1-d x (n = max(max(x) + 1,
 * minlength); 0 elements: minlength zeros), int64. A negative value is refused naming it and its index. */
TH_API th_i64_tensor *TH_NAME(bincount)(const TH_NAME(tensor) *x, int64_t minlength);
/* torch.bincount(x, weights, minlength) (numpy.bincount's float64 result): the weights (1-d, x's length) summed per
 * value. */
TH_API th_f64_tensor *TH_NAME(bincount_weighted)(const TH_NAME(tensor) *x, const th_f64_tensor *weights,
                                                 int64_t minlength);
#endif

#else /* definitions */

TH_API th_i64_tensor *TH_NAME(searchsorted)(const TH_NAME(tensor) *sorted, const TH_NAME(tensor) *values,
                                            const th_search_opts *opts)
{
    if (TH__WRONG_DTYPE(sorted) || TH__WRONG_DTYPE(values)) return NULL;
    return (th_i64_tensor *)th__searchsorted(TH__FN(searchsorted), NULL, TH__B(sorted), TH__B(values),
                                             opts && opts->right, "sorted", "values");
}

TH_API int TH_NAME(searchsorted_out)(th_tensor *out, const TH_NAME(tensor) *sorted, const TH_NAME(tensor) *values,
                                     const th_search_opts *opts)
{
    if (TH__WRONG_DTYPE(sorted) || TH__WRONG_DTYPE(values)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(searchsorted_out), "NULL out");
    return th__out_status(th__searchsorted(TH__FN(searchsorted_out), out, TH__B(sorted), TH__B(values),
                                           opts && opts->right, "sorted", "values"));
}

TH_API th_i64_tensor *TH_NAME(bucketize)(const TH_NAME(tensor) *values, const TH_NAME(tensor) *boundaries, bool right)
{
    if (TH__WRONG_DTYPE(values) || TH__WRONG_DTYPE(boundaries)) return NULL;
    return (th_i64_tensor *)th__bucketize(TH__FN(bucketize), NULL, TH__B(values), TH__B(boundaries), right);
}

TH_API int TH_NAME(bucketize_out)(th_tensor *out, const TH_NAME(tensor) *values, const TH_NAME(tensor) *boundaries,
                                  bool right)
{
    if (TH__WRONG_DTYPE(values) || TH__WRONG_DTYPE(boundaries)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(bucketize_out), "NULL out");
    return th__out_status(th__bucketize(TH__FN(bucketize_out), out, TH__B(values), TH__B(boundaries), right));
}

TH_API th_bool_tensor *TH_NAME(isin)(const TH_NAME(tensor) *elements, const TH_NAME(tensor) *test_elements,
                                     bool invert)
{
    if (TH__WRONG_DTYPE(elements) || TH__WRONG_DTYPE(test_elements)) return NULL;
    return (th_bool_tensor *)th__isin(TH__FN(isin), NULL, TH__B(elements), TH__B(test_elements), invert);
}

TH_API int TH_NAME(isin_out)(th_bool_tensor *out, const TH_NAME(tensor) *elements,
                             const TH_NAME(tensor) *test_elements, bool invert)
{
    if (th__dtype_mismatch(__func__, "out", TH__B(out), TH_BOOL) || TH__WRONG_DTYPE(elements) ||
        TH__WRONG_DTYPE(test_elements))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(isin_out), "NULL out");
    return th__out_status(th__isin(TH__FN(isin_out), TH__B(out), TH__B(elements), TH__B(test_elements), invert));
}

TH_API th_bool_tensor *TH_NAME(isclose)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, double rtol, double atol,
                                        bool equal_nan)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return NULL;
    return (th_bool_tensor *)th__isclose(TH__FN(isclose), NULL, TH__B(a), TH__B(b), rtol, atol, equal_nan);
}

TH_API int TH_NAME(isclose_out)(th_bool_tensor *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, double rtol,
                                double atol, bool equal_nan)
{
    if (th__dtype_mismatch(__func__, "out", TH__B(out), TH_BOOL) || TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(isclose_out), "NULL out");
    return th__out_status(th__isclose(TH__FN(isclose_out), TH__B(out), TH__B(a), TH__B(b), rtol, atol, equal_nan));
}

TH_API int TH_NAME(allclose)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, double rtol, double atol,
                             bool equal_nan, bool *result)
{
    if (result) *result = false;
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    return th__allclose(TH__FN(allclose), TH__B(a), TH__B(b), rtol, atol, equal_nan, result);
}

#if defined(TH_REAL_IS_FLOATING)
TH_API TH_NAME(tensor) *TH_NAME(histc)(const TH_NAME(tensor) *x, int64_t bins, double min, double max)
{
    if (TH__WRONG_DTYPE(x)) return NULL;
    return TH__T(th__histc(TH__FN(histc), NULL, TH__B(x), bins, min, max));
}

TH_API int TH_NAME(histc_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int64_t bins, double min, double max)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(histc_out), "NULL out");
    return th__out_status(th__histc(TH__FN(histc_out), TH__B(out), TH__B(x), bins, min, max));
}

TH_API int TH_NAME(histogram)(const TH_NAME(tensor) *x, int64_t bins, const double *range,
                              const TH_NAME(tensor) *weights, TH_NAME(tensor) **hist, TH_NAME(tensor) **edges)
{
    if (hist) *hist = NULL;
    if (edges) *edges = NULL;
    if (TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(weights)) return TH_ERR_DTYPE;
    th_tensor *h = NULL, *e = NULL;
    const int st = th__histogram(TH__FN(histogram), TH__B(x), bins, range, TH__B(weights), hist ? &h : NULL,
                                 edges ? &e : NULL);
    if (hist) *hist = TH__T(h);
    if (edges) *edges = TH__T(e);
    return st;
}
#endif

#if defined(TH_REAL_IS_INTEGER)
TH_API th_i64_tensor *TH_NAME(bincount)(const TH_NAME(tensor) *x, int64_t minlength)
{
    if (TH__WRONG_DTYPE(x)) return NULL;
    return (th_i64_tensor *)th__bincount(TH__FN(bincount), TH__B(x), NULL, minlength);
}

TH_API th_f64_tensor *TH_NAME(bincount_weighted)(const TH_NAME(tensor) *x, const th_f64_tensor *weights,
                                                 int64_t minlength)
{
    if (TH__WRONG_DTYPE(x) || th__dtype_mismatch(__func__, "weights", TH__B(weights), TH_F64)) return NULL;
    if (!weights) return th__fail(TH_ERR_INVALID, TH__FN(bincount_weighted), "NULL weights"), NULL;
    return (th_f64_tensor *)th__bincount(TH__FN(bincount_weighted), TH__B(x), TH__B(weights), minlength);
}
#endif

#endif /* definitions */

#endif /* real dtypes */
