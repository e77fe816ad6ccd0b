/* core/front.h: the C11 _Generic front end: th_numel(t), th_add(a, b), ... dispatch on the type of the first
 * tensor argument to the typed function of its dtype. C only; declarations only (macros).
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/front.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

#if !defined(__cplusplus)
/* th_numel(t) calls th_f32_numel(t) for a th_f32_tensor *, and so on. Tensor types of dtypes that were
 * not stamped are left out, so passing one is a compile error. */
/* Each entry pastes the suffix at once: bool is a macro (stdbool.h) and must not expand first. */
#define TH__ENTRY(IF, T, F) IF(, T * : F)
#define TH__ENTRY_CONST(IF, T, F) IF(, T * : F, const T * : F)

/* The math ops exist for some kinds only: TH__WHEN(PRED, kind, ...) keeps its arguments when the dtype's
 * kind satisfies PRED (NUM: all but bool; ORDERED: integer and floating; REAL: all but complex; FLOAT:
 * floating; FLOATLIKE: floating and complex; COMPLEX; ALL). */
#define TH__WHEN(pred, kind, ...) TH__WHEN_##pred##_##kind(__VA_ARGS__)
#define TH__WHEN_NUM_TH_KIND_BOOL(...)
#define TH__WHEN_NUM_TH_KIND_UINT(...) __VA_ARGS__
#define TH__WHEN_NUM_TH_KIND_INT(...) __VA_ARGS__
#define TH__WHEN_NUM_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_NUM_TH_KIND_COMPLEX(...) __VA_ARGS__
#define TH__WHEN_ORDERED_TH_KIND_BOOL(...)
#define TH__WHEN_ORDERED_TH_KIND_UINT(...) __VA_ARGS__
#define TH__WHEN_ORDERED_TH_KIND_INT(...) __VA_ARGS__
#define TH__WHEN_ORDERED_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_ORDERED_TH_KIND_COMPLEX(...)
#define TH__WHEN_FLOATLIKE_TH_KIND_BOOL(...)
#define TH__WHEN_FLOATLIKE_TH_KIND_UINT(...)
#define TH__WHEN_FLOATLIKE_TH_KIND_INT(...)
#define TH__WHEN_FLOATLIKE_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_FLOATLIKE_TH_KIND_COMPLEX(...) __VA_ARGS__
#define TH__WHEN_FLOAT_TH_KIND_BOOL(...)
#define TH__WHEN_FLOAT_TH_KIND_UINT(...)
#define TH__WHEN_FLOAT_TH_KIND_INT(...)
#define TH__WHEN_FLOAT_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_FLOAT_TH_KIND_COMPLEX(...)
#define TH__WHEN_REAL_TH_KIND_BOOL(...) __VA_ARGS__
#define TH__WHEN_REAL_TH_KIND_UINT(...) __VA_ARGS__
#define TH__WHEN_REAL_TH_KIND_INT(...) __VA_ARGS__
#define TH__WHEN_REAL_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_REAL_TH_KIND_COMPLEX(...)
#define TH__WHEN_COMPLEX_TH_KIND_BOOL(...)
#define TH__WHEN_COMPLEX_TH_KIND_UINT(...)
#define TH__WHEN_COMPLEX_TH_KIND_INT(...)
#define TH__WHEN_COMPLEX_TH_KIND_FLOAT(...)
#define TH__WHEN_COMPLEX_TH_KIND_COMPLEX(...) __VA_ARGS__
#define TH__WHEN_ALL_TH_KIND_BOOL(...) __VA_ARGS__
#define TH__WHEN_ALL_TH_KIND_UINT(...) __VA_ARGS__
#define TH__WHEN_ALL_TH_KIND_INT(...) __VA_ARGS__
#define TH__WHEN_ALL_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_ALL_TH_KIND_COMPLEX(...) __VA_ARGS__
/* Each op is one line below: th_add is TH__GENERIC(a, NUM, add), the predicate (the kinds the op exists for)
 * and the verb. TH__FOREACH_DTYPE_WITH (generate/select.h) makes one row per dtype: its association when the
 * dtype was stamped and its kind has the op. GENERIC's rows take const tensors too (the inputs of a math op);
 * GENERIC_MUT's only non-const ones (an in-place op writes its first argument). The verb is pasted into
 * _verb at once and the suffix inside the row, so neither can expand as a macro on the way (bool is one,
 * from stdbool.h). The first association is never chosen; it lets every row add ", type: function". */
#define TH__ROW(sfx, kind, pred, _verb) \
    TH__WHEN(pred, kind, TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_verb))
#define TH__ROW_MUT(sfx, kind, pred, _verb) \
    TH__WHEN(pred, kind, TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_verb))
#define TH__GENERIC(t, pred, verb) \
    _Generic((t), struct th__not_a_tensor * : 0 TH__FOREACH_DTYPE_WITH(TH__ROW, pred, _##verb))
#define TH__GENERIC_MUT(t, pred, verb) \
    _Generic((t), struct th__not_a_tensor * : 0 TH__FOREACH_DTYPE_WITH(TH__ROW_MUT, pred, _##verb))

#define th_numel(t) TH__GENERIC(t, ALL, numel)(t)
#define th_ndim(t) TH__GENERIC(t, ALL, ndim)(t)
#define th_size(t, dim) TH__GENERIC(t, ALL, size)(t, dim)
#define th_stride(t, dim) TH__GENERIC(t, ALL, stride)(t, dim)
#define th_data(t) TH__GENERIC(t, ALL, data)(t)
#define th_base(t) TH__GENERIC(t, ALL, base)(t)
#define th_is_contiguous(t) TH__GENERIC(t, ALL, is_contiguous)(t)
#define th_print(f, t) TH__GENERIC(t, ALL, print)(f, t)
#define th_get(t, idx) TH__GENERIC(t, ALL, get)(t, idx)
#define th_retain(t) TH__GENERIC_MUT(t, ALL, retain)(t)
#define th_release(t) TH__GENERIC_MUT(t, ALL, release)(t)
#define th_set(t, idx, value) TH__GENERIC_MUT(t, ALL, set)(t, idx, value)
#define th_fill(t, value) TH__GENERIC_MUT(t, ALL, fill)(t, value)
#define th_copy(dst, src) TH__GENERIC_MUT(dst, ALL, copy)(dst, src)
#define th_clone(t) TH__GENERIC(t, ALL, clone)(t)
#define th_contiguous(t) TH__GENERIC_MUT(t, ALL, contiguous)(t)
#define th_view(t, ndim, sizes) TH__GENERIC_MUT(t, ALL, view)(t, ndim, sizes)
#define th_reshape(t, ndim, sizes) TH__GENERIC_MUT(t, ALL, reshape)(t, ndim, sizes)
#define th_transpose(t, d0, d1) TH__GENERIC_MUT(t, ALL, transpose)(t, d0, d1)
#define th_permute(t, dims) TH__GENERIC_MUT(t, ALL, permute)(t, dims)
#define th_narrow(t, dim, start, length) TH__GENERIC_MUT(t, ALL, narrow)(t, dim, start, length)
#define th_select(t, dim, index) TH__GENERIC_MUT(t, ALL, select)(t, dim, index)
#define th_unfold(t, dim, size, step) TH__GENERIC_MUT(t, ALL, unfold)(t, dim, size, step)
#define th_squeeze(t) TH__GENERIC_MUT(t, ALL, squeeze)(t)
#define th_squeeze_dim(t, dim) TH__GENERIC_MUT(t, ALL, squeeze_dim)(t, dim)
#define th_unsqueeze(t, dim) TH__GENERIC_MUT(t, ALL, unsqueeze)(t, dim)
#define th_expand(t, ndim, sizes) TH__GENERIC_MUT(t, ALL, expand)(t, ndim, sizes)
#define th_as_strided(t, ndim, sizes, strides, offset) \
    TH__GENERIC_MUT(t, ALL, as_strided)(t, ndim, sizes, strides, offset)
#define th_flatten(t, start_dim, end_dim) TH__GENERIC_MUT(t, ALL, flatten)(t, start_dim, end_dim)
/* Math: th_add(a, b) is th_f32_add(a, b) for float32 tensors, th_add_out(out, a, b) is th_f32_add_out, and
 * so on: the dtype is read from the first input tensor, a (th_where reads a, not cond). A dtype without the
 * op does not compile. */
#define th_add(a, b) TH__GENERIC(a, NUM, add)(a, b)
#define th_add_out(out, a, b) TH__GENERIC(a, NUM, add_out)(out, a, b)
#define th_add_inplace(a, b) TH__GENERIC_MUT(a, NUM, add_inplace)(a, b)
#define th_add_scalar(a, s) TH__GENERIC(a, NUM, add_scalar)(a, s)
#define th_sub(a, b) TH__GENERIC(a, NUM, sub)(a, b)
#define th_sub_out(out, a, b) TH__GENERIC(a, NUM, sub_out)(out, a, b)
#define th_sub_inplace(a, b) TH__GENERIC_MUT(a, NUM, sub_inplace)(a, b)
#define th_sub_scalar(a, s) TH__GENERIC(a, NUM, sub_scalar)(a, s)
#define th_mul(a, b) TH__GENERIC(a, NUM, mul)(a, b)
#define th_mul_out(out, a, b) TH__GENERIC(a, NUM, mul_out)(out, a, b)
#define th_mul_inplace(a, b) TH__GENERIC_MUT(a, NUM, mul_inplace)(a, b)
#define th_mul_scalar(a, s) TH__GENERIC(a, NUM, mul_scalar)(a, s)
#define th_div(a, b) TH__GENERIC(a, NUM, div)(a, b)
#define th_div_out(out, a, b) TH__GENERIC(a, NUM, div_out)(out, a, b)
#define th_div_inplace(a, b) TH__GENERIC_MUT(a, NUM, div_inplace)(a, b)
#define th_div_scalar(a, s) TH__GENERIC(a, NUM, div_scalar)(a, s)
#define th_pow(a, b) TH__GENERIC(a, NUM, pow)(a, b)
#define th_pow_out(out, a, b) TH__GENERIC(a, NUM, pow_out)(out, a, b)
#define th_pow_scalar(a, s) TH__GENERIC(a, NUM, pow_scalar)(a, s)
#define th_maximum(a, b) TH__GENERIC(a, REAL, maximum)(a, b)
#define th_minimum(a, b) TH__GENERIC(a, REAL, minimum)(a, b)
#define th_eq(a, b) TH__GENERIC(a, ALL, eq)(a, b)
#define th_ne(a, b) TH__GENERIC(a, ALL, ne)(a, b)
#define th_lt(a, b) TH__GENERIC(a, REAL, lt)(a, b)
#define th_le(a, b) TH__GENERIC(a, REAL, le)(a, b)
#define th_gt(a, b) TH__GENERIC(a, REAL, gt)(a, b)
#define th_ge(a, b) TH__GENERIC(a, REAL, ge)(a, b)
#define th_neg(a) TH__GENERIC(a, NUM, neg)(a)
#define th_abs(a) TH__GENERIC(a, NUM, abs)(a)
#define th_conj(a) TH__GENERIC(a, COMPLEX, conj)(a)
#define th_conj_out(out, a) TH__GENERIC(a, COMPLEX, conj_out)(out, a)
#define th_conj_inplace(a) TH__GENERIC_MUT(a, COMPLEX, conj_inplace)(a)
#define th_angle(a) TH__GENERIC(a, COMPLEX, angle)(a)
#define th_angle_out(out, a) TH__GENERIC(a, COMPLEX, angle_out)(out, a)
#define th_relu(a) TH__GENERIC(a, ORDERED, relu)(a)
#define th_exp(a) TH__GENERIC(a, FLOATLIKE, exp)(a)
#define th_log(a) TH__GENERIC(a, FLOATLIKE, log)(a)
#define th_sqrt(a) TH__GENERIC(a, FLOATLIKE, sqrt)(a)
#define th_sin(a) TH__GENERIC(a, FLOATLIKE, sin)(a)
#define th_cos(a) TH__GENERIC(a, FLOATLIKE, cos)(a)
#define th_tanh(a) TH__GENERIC(a, FLOATLIKE, tanh)(a)
#define th_sigmoid(a) TH__GENERIC(a, FLOATLIKE, sigmoid)(a)
#define th_exp_out(out, a) TH__GENERIC(a, FLOATLIKE, exp_out)(out, a)
#define th_exp_inplace(a) TH__GENERIC_MUT(a, FLOATLIKE, exp_inplace)(a)
#define th_floor(a) TH__GENERIC(a, ORDERED, floor)(a)
#define th_ceil(a) TH__GENERIC(a, ORDERED, ceil)(a)
#define th_round(a) TH__GENERIC(a, ORDERED, round)(a)
#define th_isnan(a) TH__GENERIC(a, NUM, isnan)(a)
#define th_isfinite(a) TH__GENERIC(a, NUM, isfinite)(a)
#define th_where(cond, a, b) TH__GENERIC(a, ALL, where)(cond, a, b)
#define th_clamp(a, lo, hi) TH__GENERIC(a, ORDERED, clamp)(a, lo, hi)
#define th_sum_all(a) TH__GENERIC(a, NUM, sum_all)(a)
#define th_sum_dim(a, dim, keepdim) TH__GENERIC(a, NUM, sum_dim)(a, dim, keepdim)
#define th_sum_dim_out(out, a, dim, keepdim) TH__GENERIC(a, NUM, sum_dim_out)(out, a, dim, keepdim)
#define th_prod_all(a) TH__GENERIC(a, NUM, prod_all)(a)
#define th_prod_dim(a, dim, keepdim) TH__GENERIC(a, NUM, prod_dim)(a, dim, keepdim)
#define th_mean_all(a) TH__GENERIC(a, FLOATLIKE, mean_all)(a)
#define th_mean_dim(a, dim, keepdim) TH__GENERIC(a, FLOATLIKE, mean_dim)(a, dim, keepdim)
#define th_var_all(a, correction) TH__GENERIC(a, FLOAT, var_all)(a, correction)
#define th_var_dim(a, dim, correction, keepdim) TH__GENERIC(a, FLOAT, var_dim)(a, dim, correction, keepdim)
#define th_std_all(a, correction) TH__GENERIC(a, FLOAT, std_all)(a, correction)
#define th_std_dim(a, dim, correction, keepdim) TH__GENERIC(a, FLOAT, std_dim)(a, dim, correction, keepdim)
#define th_norm_all(a, p) TH__GENERIC(a, FLOATLIKE, norm_all)(a, p)
#define th_norm_dim(a, p, dim, keepdim) TH__GENERIC(a, FLOATLIKE, norm_dim)(a, p, dim, keepdim)
#define th_max_all(a) TH__GENERIC(a, REAL, max_all)(a)
#define th_max_dim(a, dim, keepdim, indices) TH__GENERIC(a, REAL, max_dim)(a, dim, keepdim, indices)
#define th_min_all(a) TH__GENERIC(a, REAL, min_all)(a)
#define th_min_dim(a, dim, keepdim, indices) TH__GENERIC(a, REAL, min_dim)(a, dim, keepdim, indices)
#define th_argmax_all(a) TH__GENERIC(a, REAL, argmax_all)(a)
#define th_argmax_dim(a, dim, keepdim) TH__GENERIC(a, REAL, argmax_dim)(a, dim, keepdim)
#define th_argmin_all(a) TH__GENERIC(a, REAL, argmin_all)(a)
#define th_argmin_dim(a, dim, keepdim) TH__GENERIC(a, REAL, argmin_dim)(a, dim, keepdim)
#define th_all_all(a) TH__GENERIC(a, ALL, all_all)(a)
#define th_any_all(a) TH__GENERIC(a, ALL, any_all)(a)
#define th_cumsum(a, dim) TH__GENERIC(a, NUM, cumsum)(a, dim)
#define th_median_all(a) TH__GENERIC(a, FLOAT, median_all)(a)
#define th_median_dim(a, dim, keepdim, indices) TH__GENERIC(a, FLOAT, median_dim)(a, dim, keepdim, indices)
#define th_nanmedian_all(a) TH__GENERIC(a, FLOAT, nanmedian_all)(a)
#define th_nanmedian_dim(a, dim, keepdim, indices) TH__GENERIC(a, FLOAT, nanmedian_dim)(a, dim, keepdim, indices)
#define th_quantile_all(a, q, method) TH__GENERIC(a, FLOAT, quantile_all)(a, q, method)
#define th_quantile_dim(a, q, dim, keepdim, method) TH__GENERIC(a, FLOAT, quantile_dim)(a, q, dim, keepdim, method)
#define th_kthvalue(a, k, dim, keepdim, indices) TH__GENERIC(a, FLOAT, kthvalue)(a, k, dim, keepdim, indices)
#define th_nansum_all(a) TH__GENERIC(a, FLOAT, nansum_all)(a)
#define th_nansum_dim(a, dim, keepdim) TH__GENERIC(a, FLOAT, nansum_dim)(a, dim, keepdim)
#define th_nanmean_all(a) TH__GENERIC(a, FLOAT, nanmean_all)(a)
#define th_nanmean_dim(a, dim, keepdim) TH__GENERIC(a, FLOAT, nanmean_dim)(a, dim, keepdim)
#define th_nanmax_all(a) TH__GENERIC(a, FLOAT, nanmax_all)(a)
#define th_nanmax_dim(a, dim, keepdim) TH__GENERIC(a, FLOAT, nanmax_dim)(a, dim, keepdim)
#define th_nanmin_all(a) TH__GENERIC(a, FLOAT, nanmin_all)(a)
#define th_nanmin_dim(a, dim, keepdim) TH__GENERIC(a, FLOAT, nanmin_dim)(a, dim, keepdim)
#define th_dot(a, b) TH__GENERIC(a, NUM, dot)(a, b)
#define th_mv(a, b) TH__GENERIC(a, NUM, mv)(a, b)
#define th_mm(a, b) TH__GENERIC(a, NUM, mm)(a, b)
#define th_bmm(a, b) TH__GENERIC(a, NUM, bmm)(a, b)
#define th_matmul(a, b) TH__GENERIC(a, NUM, matmul)(a, b)
#define th_matmul_out(out, a, b) TH__GENERIC(a, NUM, matmul_out)(out, a, b)
#endif /* !__cplusplus */

#endif /* TH__DEFINING */
