/* ops/stats.h: median, nanmedian, quantile, kthvalue and the NaN-ignoring reductions nansum, nanmean, nanmax,
 * nanmin. Stamped per dtype through tensor_generic.h for the floating dtypes; the front doors only check the
 * dtypes, the work is done once for every dtype in ops/stats_erased.h. docs/reductions.md#statistics.
 *
 * The forms follow the reductions' (ops/reduce.h): _all reduces every element into a new 0-d tensor (_all_out:
 * into a 0-d out); _dim reduces dim (negative counts from the end; a 0-d tensor accepts 0 and -1), which is
 * removed or, with keepdim, kept with size 1 (_dim_out: into out). The order statistics (median, nanmedian,
 * kthvalue) give, when indices is not NULL, a new i64 tensor of the result's shape holding each value's
 * position along dim; their _out forms take an indices out that may be NULL. An out must have exactly the
 * result's shape and dtype (i64 for indices), any strides, and may overlap a. Returns a new tensor (NULL on
 * error) or, for _out, 0 or a negative th_status; th_last_error() names the function and the bad value.
 * Errors common to all: NULL tensor or out (TH_ERR_INVALID), a tensor of another dtype (TH_ERR_DTYPE), dim out
 * of range (TH_ERR_RANGE), an out of the wrong shape (TH_ERR_SHAPE), read-only (TH_ERR_READ_ONLY) or whose
 * elements overlap (TH_ERR_INVALID), device memory (TH_ERR_DEVICE), out of memory (TH_ERR_NOMEM). */
#if defined(TH_REAL_IS_FLOATING)
#ifndef TH__DEFINING

/* torch.median: the lower of the two middle values (for an even count; NumPy averages them), NaN when the
 * elements include a NaN (its index the first NaN's). Of no elements: _all gives NaN, _dim refuses
 * (TH_ERR_SHAPE) as torch does. Ties: the index is the position of the chosen element in a stable sort. */
TH_API TH_NAME(tensor) *TH_NAME(median_all)(const TH_NAME(tensor) *a);
TH_API int TH_NAME(median_all_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a);
TH_API TH_NAME(tensor) *TH_NAME(median_dim)(const TH_NAME(tensor) *a, int dim, bool keepdim, th_i64_tensor **indices);
TH_API int TH_NAME(median_dim_out)(TH_NAME(tensor) *out, th_i64_tensor *indices_out, const TH_NAME(tensor) *a, int dim,
                                   bool keepdim);
/* torch.nanmedian: median of the elements that are not NaN; NaN (index: the first element) when all are. */
TH_API TH_NAME(tensor) *TH_NAME(nanmedian_all)(const TH_NAME(tensor) *a);
TH_API int TH_NAME(nanmedian_all_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a);
TH_API TH_NAME(tensor) *TH_NAME(nanmedian_dim)(const TH_NAME(tensor) *a, int dim, bool keepdim,
                                               th_i64_tensor **indices);
TH_API int TH_NAME(nanmedian_dim_out)(TH_NAME(tensor) *out, th_i64_tensor *indices_out, const TH_NAME(tensor) *a,
                                      int dim, bool keepdim);
/* numpy.quantile(a, q, axis, method, keepdims) for one q in [0, 1] (else TH_ERR_RANGE; NaN too); method a
 * th_quantile_method (zero: linear; another value: TH_ERR_INVALID). NaN when the elements include a NaN. Of no
 * elements: TH_ERR_SHAPE, as NumPy and torch. */
TH_API TH_NAME(tensor) *TH_NAME(quantile_all)(const TH_NAME(tensor) *a, double q, th_quantile_method method);
TH_API int TH_NAME(quantile_all_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, double q,
                                     th_quantile_method method);
TH_API TH_NAME(tensor) *TH_NAME(quantile_dim)(const TH_NAME(tensor) *a, double q, int dim, bool keepdim,
                                              th_quantile_method method);
TH_API int TH_NAME(quantile_dim_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, double q, int dim, bool keepdim,
                                     th_quantile_method method);
/* torch.kthvalue: the k-th smallest (k from 1) along dim, NaN counting as larger than every number; k outside
 * 1..size of dim is TH_ERR_RANGE (so is every k of an empty dim). */
TH_API TH_NAME(tensor) *TH_NAME(kthvalue)(const TH_NAME(tensor) *a, int64_t k, int dim, bool keepdim,
                                          th_i64_tensor **indices);
TH_API int TH_NAME(kthvalue_out)(TH_NAME(tensor) *values, th_i64_tensor *indices, const TH_NAME(tensor) *a, int64_t k,
                                 int dim, bool keepdim);

#else /* definitions */

/* The one path of every front door: the dtypes checked (under the public name fn), then th__stat_run. */
static th_tensor *TH_PRIVATE(stat)(const char *fn, th__stat_kind kind, double q, int method, int64_t k,
                                   TH_NAME(tensor) *out, th_i64_tensor *idx_out, th_i64_tensor **indices,
                                   const TH_NAME(tensor) *a, bool all, int dim, bool keepdim)
{
    if (indices) *indices = NULL;
    if (th__dtype_mismatch(fn, "a", TH__B(a), TH_DT_ENUM) || th__dtype_mismatch(fn, "out", TH__B(out), TH_DT_ENUM))
        return NULL;
    const th__stat_op op = {kind, q, method, k};
    return th__stat_run(fn, &op, TH__B(out), (th_tensor *)idx_out, (th_tensor **)indices, TH__B(a), all, dim, keepdim);
}

/* An _out form's status; a NULL out refused first. */
static int TH_PRIVATE(stat_out)(const char *fn, th__stat_kind kind, double q, int method, int64_t k,
                                TH_NAME(tensor) *out, th_i64_tensor *idx_out, const TH_NAME(tensor) *a, bool all,
                                int dim, bool keepdim)
{
    if (!out) return th__fail(TH_ERR_INVALID, fn, "NULL out");
    return th__out_status(TH_PRIVATE(stat)(fn, kind, q, method, k, out, idx_out, NULL, a, all, dim, keepdim));
}

TH_API TH_NAME(tensor) *TH_NAME(median_all)(const TH_NAME(tensor) *a)
{
    return TH__T(TH_PRIVATE(stat)(TH__FN(median_all), TH__STAT_MEDIAN, 0, 0, 0, NULL, NULL, NULL, a, true, 0, false));
}
TH_API int TH_NAME(median_all_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a)
{
    return TH_PRIVATE(stat_out)(TH__FN(median_all_out), TH__STAT_MEDIAN, 0, 0, 0, out, NULL, a, true, 0, false);
}
TH_API TH_NAME(tensor) *TH_NAME(median_dim)(const TH_NAME(tensor) *a, int dim, bool keepdim, th_i64_tensor **indices)
{
    return TH__T(
        TH_PRIVATE(stat)(TH__FN(median_dim), TH__STAT_MEDIAN, 0, 0, 0, NULL, NULL, indices, a, false, dim, keepdim));
}
TH_API int TH_NAME(median_dim_out)(TH_NAME(tensor) *out, th_i64_tensor *indices_out, const TH_NAME(tensor) *a, int dim,
                                   bool keepdim)
{
    return TH_PRIVATE(stat_out)(TH__FN(median_dim_out), TH__STAT_MEDIAN, 0, 0, 0, out, indices_out, a, false, dim,
                                keepdim);
}

TH_API TH_NAME(tensor) *TH_NAME(nanmedian_all)(const TH_NAME(tensor) *a)
{
    return TH__T(
        TH_PRIVATE(stat)(TH__FN(nanmedian_all), TH__STAT_NANMEDIAN, 0, 0, 0, NULL, NULL, NULL, a, true, 0, false));
}
TH_API int TH_NAME(nanmedian_all_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a)
{
    return TH_PRIVATE(stat_out)(TH__FN(nanmedian_all_out), TH__STAT_NANMEDIAN, 0, 0, 0, out, NULL, a, true, 0, false);
}
TH_API TH_NAME(tensor) *TH_NAME(nanmedian_dim)(const TH_NAME(tensor) *a, int dim, bool keepdim,
                                               th_i64_tensor **indices)
{
    return TH__T(TH_PRIVATE(stat)(TH__FN(nanmedian_dim), TH__STAT_NANMEDIAN, 0, 0, 0, NULL, NULL, indices, a, false,
                                  dim, keepdim));
}
TH_API int TH_NAME(nanmedian_dim_out)(TH_NAME(tensor) *out, th_i64_tensor *indices_out, const TH_NAME(tensor) *a,
                                      int dim, bool keepdim)
{
    return TH_PRIVATE(stat_out)(TH__FN(nanmedian_dim_out), TH__STAT_NANMEDIAN, 0, 0, 0, out, indices_out, a, false,
                                dim, keepdim);
}

TH_API TH_NAME(tensor) *TH_NAME(quantile_all)(const TH_NAME(tensor) *a, double q, th_quantile_method method)
{
    return TH__T(TH_PRIVATE(stat)(TH__FN(quantile_all), TH__STAT_QUANTILE, q, (int)method, 0, NULL, NULL, NULL, a,
                                  true, 0, false));
}
TH_API int TH_NAME(quantile_all_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, double q,
                                     th_quantile_method method)
{
    return TH_PRIVATE(stat_out)(TH__FN(quantile_all_out), TH__STAT_QUANTILE, q, (int)method, 0, out, NULL, a, true, 0,
                                false);
}
TH_API TH_NAME(tensor) *TH_NAME(quantile_dim)(const TH_NAME(tensor) *a, double q, int dim, bool keepdim,
                                              th_quantile_method method)
{
    return TH__T(TH_PRIVATE(stat)(TH__FN(quantile_dim), TH__STAT_QUANTILE, q, (int)method, 0, NULL, NULL, NULL, a,
                                  false, dim, keepdim));
}
TH_API int TH_NAME(quantile_dim_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, double q, int dim, bool keepdim,
                                     th_quantile_method method)
{
    return TH_PRIVATE(stat_out)(TH__FN(quantile_dim_out), TH__STAT_QUANTILE, q, (int)method, 0, out, NULL, a, false,
                                dim, keepdim);
}

TH_API TH_NAME(tensor) *TH_NAME(kthvalue)(const TH_NAME(tensor) *a, int64_t k, int dim, bool keepdim,
                                          th_i64_tensor **indices)
{
    return TH__T(
        TH_PRIVATE(stat)(TH__FN(kthvalue), TH__STAT_KTHVALUE, 0, 0, k, NULL, NULL, indices, a, false, dim, keepdim));
}
TH_API int TH_NAME(kthvalue_out)(TH_NAME(tensor) *values, th_i64_tensor *indices, const TH_NAME(tensor) *a, int64_t k,
                                 int dim, bool keepdim)
{
    return TH_PRIVATE(stat_out)(TH__FN(kthvalue_out), TH__STAT_KTHVALUE, 0, 0, k, values, indices, a, false, dim,
                                keepdim);
}

#endif /* definitions */

/* numpy.nansum, nanmean, nanmax, nanmin: NaNs left out; computed in double. Of no elements (or all NaN):
 * nansum 0, nanmean NaN; nanmax and nanmin NaN when all are NaN and TH_ERR_SHAPE of no elements, as NumPy.
 * Each in the four forms _all, _all_out, _dim, _dim_out, stamped from stat_nan_op.h. */
#define TH_OP nansum
#define TH_STAT_KIND TH__STAT_NANSUM
#include "stat_nan_op.h"
#define TH_OP nanmean
#define TH_STAT_KIND TH__STAT_NANMEAN
#include "stat_nan_op.h"
#define TH_OP nanmax
#define TH_STAT_KIND TH__STAT_NANMAX
#include "stat_nan_op.h"
#define TH_OP nanmin
#define TH_STAT_KIND TH__STAT_NANMIN
#include "stat_nan_op.h"
#endif /* TH_REAL_IS_FLOATING */
