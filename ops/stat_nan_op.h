/* ops/stat_nan_op.h: one NaN-ignoring reduction (nansum, nanmean, nanmax, nanmin) in the reductions' four forms,
 * stamped per dtype and per op by stats.h: the front doors are written once here, the work once in stats_erased.h
 * (th__stat_run, by its th__stat_kind).
 *
 * stats.h defines before each inclusion:
 *   TH_OP          the reduction's name: nansum gives th_f32_nansum_all, _all_out, _dim and _dim_out
 *   TH_STAT_KIND   its th__stat_kind (TH__STAT_NANSUM, ...)
 *
 * The forms and errors: stats.h's top comment. The definitions use stats.h's TH_PRIVATE(stat) and
 * TH_PRIVATE(stat_out). */
#ifndef TH_NAME
#error "ops/stat_nan_op.h is stamped per dtype through tensor_generic.h; include tensor.h instead"
#endif
#ifndef TH_OP
#error "ops/stat_nan_op.h: define TH_OP (the reduction's name) before including it"
#endif
#ifndef TH_STAT_KIND
#error "ops/stat_nan_op.h: define TH_STAT_KIND (the reduction's th__stat_kind) before including it"
#endif

#ifndef TH__DEFINING

TH_API TH_NAME(tensor) *TH__OP_NAME(_all)(const TH_NAME(tensor) *a);
TH_API int TH__OP_NAME(_all_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a);
TH_API TH_NAME(tensor) *TH__OP_NAME(_dim)(const TH_NAME(tensor) *a, int dim, bool keepdim);
TH_API int TH__OP_NAME(_dim_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, int dim, bool keepdim);

#else /* definitions */

TH_API TH_NAME(tensor) *TH__OP_NAME(_all)(const TH_NAME(tensor) *a)
{
    return TH__T(TH_PRIVATE(stat)(TH__OP_FN(_all), TH_STAT_KIND, 0, 0, 0, NULL, NULL, NULL, a, true, 0, false));
}

TH_API int TH__OP_NAME(_all_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a)
{
    return TH_PRIVATE(stat_out)(TH__OP_FN(_all_out), TH_STAT_KIND, 0, 0, 0, out, NULL, a, true, 0, false);
}

TH_API TH_NAME(tensor) *TH__OP_NAME(_dim)(const TH_NAME(tensor) *a, int dim, bool keepdim)
{
    return TH__T(TH_PRIVATE(stat)(TH__OP_FN(_dim), TH_STAT_KIND, 0, 0, 0, NULL, NULL, NULL, a, false, dim, keepdim));
}

TH_API int TH__OP_NAME(_dim_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, int dim, bool keepdim)
{
    return TH_PRIVATE(stat_out)(TH__OP_FN(_dim_out), TH_STAT_KIND, 0, 0, 0, out, NULL, a, false, dim, keepdim);
}

#endif /* definitions */

#undef TH_OP
#undef TH_STAT_KIND
