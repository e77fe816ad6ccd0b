/* ops/reduce_op.h: one reduction, stamped per dtype and per op by reduce.h, as binary_op.h is by
 * pointwise.h: every reduction gets the same four front doors from this one text.
 *
 * reduce.h defines before each inclusion:
 *   TH_OP                 the op's name: sum gives th_f32_sum_all, _all_out, _dim, _dim_out
 *   TH_RED_OP             the th__reduce_op, as an initializer: {.kind = TH__RED_SUM}
 *     or TH_RED_MAKE(fn, op)  an expression that fills *op from the extra parameter and is false (the error
 *                           recorded under the name fn) when that parameter is bad
 *   TH_RED_EXTRA          (optional) one more parameter, as declared ("int64_t correction"); it comes after
 *                         dim, or, with TH_RED_EXTRA_FIRST, before it ("double p": norm(a, p, dim, keepdim))
 *   TH_RED_RESULT, TH_RED_RESULT_DT  (optional) the result's tensor type and dtype, when not this dtype's
 *   TH_RED_INDEX          (optional) the result is the int64 index of the extreme (argmax, argmin)
 *   TH_RED_WITH_INDICES   (optional) the _dim forms give the indices too (max, min): a last parameter
 *                         th_i64_tensor **indices (may be NULL), and th_i64_tensor *indices_out after out
 *   TH_RED_FLAT_ALL       (optional) _all reduces the flattened tensor along its one dim (on one thread):
 *                         for results of another dtype, which the whole-tensor path does not write
 *
 * The forms (errors as reduce.h says at its top):
 *   th_<sfx>_<op>_all(a [, extra])                 a new 0-d tensor
 *   th_<sfx>_<op>_all_out(out, a [, extra])        into a 0-d out
 *   th_<sfx>_<op>_dim(a, dim [, extra], keepdim)   a new tensor, dim removed (or kept with size 1)
 *   th_<sfx>_<op>_dim_out(out, a, dim [, extra], keepdim)
 * The definitions use reduce.h's TH_PRIVATE(reduce_full), full_out, reduce_row and flat_all. */
#ifndef TH_NAME
#error "ops/reduce_op.h is stamped per dtype through tensor_generic.h; include tensor.h instead"
#endif
#ifndef TH_OP
#error "ops/reduce_op.h: define TH_OP (the reduction's name) before including it"
#endif
#if !defined(TH_RED_OP) && !defined(TH_RED_MAKE)
#error "ops/reduce_op.h: define TH_RED_OP (the th__reduce_op) or TH_RED_MAKE(fn, op) before including it"
#endif
#if defined(TH_RED_EXTRA_FIRST) && !defined(TH_RED_EXTRA)
#error "ops/reduce_op.h: TH_RED_EXTRA_FIRST without TH_RED_EXTRA"
#endif

#if defined(TH_RED_INDEX)
#define TH__RED_RES th_i64_tensor
#elif defined(TH_RED_RESULT)
#define TH__RED_RES TH_RED_RESULT
#else
#define TH__RED_RES TH_NAME(tensor)
#endif
#ifdef TH_RED_RESULT_DT
#define TH__RED_DT TH_RED_RESULT_DT
#else
#define TH__RED_DT TH_DT_ENUM
#endif

/* The parameters after a: of the _all forms, and of the _dim forms. */
#if !defined(TH_RED_EXTRA)
#define TH__RED_ALL_PARAMS
#define TH__RED_DIM_PARAMS int dim, bool keepdim
#elif defined(TH_RED_EXTRA_FIRST)
#define TH__RED_ALL_PARAMS , TH_RED_EXTRA
#define TH__RED_DIM_PARAMS TH_RED_EXTRA, int dim, bool keepdim
#else
#define TH__RED_ALL_PARAMS , TH_RED_EXTRA
#define TH__RED_DIM_PARAMS int dim, TH_RED_EXTRA, bool keepdim
#endif
#ifdef TH_RED_WITH_INDICES
#define TH__RED_INDICES_PARAM , th_i64_tensor **indices
#define TH__RED_INDICES_OUT_PARAM th_i64_tensor *indices_out,
#else
#define TH__RED_INDICES_PARAM
#define TH__RED_INDICES_OUT_PARAM
#endif

#ifndef TH__DEFINING

TH_API TH__RED_RES *TH__OP_NAME(_all)(const TH_NAME(tensor) *a TH__RED_ALL_PARAMS);
TH_API int TH__OP_NAME(_all_out)(TH__RED_RES *out, const TH_NAME(tensor) *a TH__RED_ALL_PARAMS);
TH_API TH__RED_RES *TH__OP_NAME(_dim)(const TH_NAME(tensor) *a, TH__RED_DIM_PARAMS TH__RED_INDICES_PARAM);
TH_API int TH__OP_NAME(_dim_out)(TH__RED_RES *out, TH__RED_INDICES_OUT_PARAM const TH_NAME(tensor) *a,
                                 TH__RED_DIM_PARAMS);

#else /* definitions */

/* Declares op, or returns fail from the front door when the extra parameter is bad. */
#ifdef TH_RED_MAKE
#define TH__RED_DECLARE_OP(fn, fail)         \
    th__reduce_op op;                        \
    if (!(TH_RED_MAKE(fn, &op))) return fail; \
    op.name = TH__STR(TH_OP)
#else
#define TH__RED_DECLARE_OP(fn, fail) \
    th__reduce_op op = TH_RED_OP;    \
    op.name = TH__STR(TH_OP)
#endif

#ifdef TH_RED_INDEX
#define TH__RED_WANT_INDEX true
#else
#define TH__RED_WANT_INDEX false
#endif

/* Every element into out (NULL: a new 0-d tensor). */
static th_tensor *TH__OP_PRIVATE(_all_into)(const char *fn, th_tensor *out, const TH_NAME(tensor) *a,
                                            th__reduce_op *op)
{
    if (th__reduce_touches_device(TH__B(a), out, NULL)) /* before flat_all's reshape, which would copy */
        return th__reduce_all_on_device(fn, out, TH__B(a), op, TH__RED_DT, TH__RED_WANT_INDEX);
#ifdef TH_RED_FLAT_ALL
    return TH_PRIVATE(flat_all)(fn, out, a, op, TH__RED_DT);
#else
    return TH_PRIVATE(reduce_full)(fn, out, a, op, TH__RED_WANT_INDEX);
#endif
}

/* One dim into value_out / index_out (NULL: new tensors); *result is the front door's result. */
static int TH__OP_PRIVATE(_dim_into)(const char *fn, const TH_NAME(tensor) *a, int dim, bool keepdim,
                                     th__reduce_op *op, th_tensor *value_out, th_tensor *index_out,
                                     th_tensor **result, th_tensor **indices)
{
#ifdef TH_RED_INDEX
    (void)value_out;
    (void)indices;
    return th__reduce_dim(fn, TH__B(a), dim, keepdim, op, TH_PRIVATE(reduce_row), TH__RED_DT, NULL, NULL, index_out,
                          result);
#else
    return th__reduce_dim(fn, TH__B(a), dim, keepdim, op, TH_PRIVATE(reduce_row), TH__RED_DT, value_out, result,
                          index_out, indices);
#endif
}

TH_API TH__RED_RES *TH__OP_NAME(_all)(const TH_NAME(tensor) *a TH__RED_ALL_PARAMS)
{
    if (TH__WRONG_DTYPE(a)) return NULL;
    TH__RED_DECLARE_OP(TH__OP_FN(_all), NULL);
    return (TH__RED_RES *)TH__OP_PRIVATE(_all_into)(TH__OP_FN(_all), NULL, a, &op);
}

TH_API int TH__OP_NAME(_all_out)(TH__RED_RES *out, const TH_NAME(tensor) *a TH__RED_ALL_PARAMS)
{
    if (TH__WRONG_DTYPE(a)) return TH_ERR_DTYPE;
    TH__RED_DECLARE_OP(TH__OP_FN(_all_out), th_last_status());
    if (!out) return th__fail(TH_ERR_INVALID, TH__OP_FN(_all_out), "NULL out");
    return th__status_of(TH__OP_PRIVATE(_all_into)(TH__OP_FN(_all_out), TH__B(out), a, &op));
}

TH_API TH__RED_RES *TH__OP_NAME(_dim)(const TH_NAME(tensor) *a, TH__RED_DIM_PARAMS TH__RED_INDICES_PARAM)
{
#ifdef TH_RED_WITH_INDICES
    if (indices) *indices = NULL; /* as every other error leaves it */
#endif
    if (TH__WRONG_DTYPE(a)) return NULL;
    TH__RED_DECLARE_OP(TH__OP_FN(_dim), NULL);
    th_tensor *result = NULL;
#ifdef TH_RED_WITH_INDICES
    TH__OP_PRIVATE(_dim_into)(TH__OP_FN(_dim), a, dim, keepdim, &op, NULL, NULL, &result, (th_tensor **)indices);
#else
    TH__OP_PRIVATE(_dim_into)(TH__OP_FN(_dim), a, dim, keepdim, &op, NULL, NULL, &result, NULL);
#endif
    return (TH__RED_RES *)result;
}

TH_API int TH__OP_NAME(_dim_out)(TH__RED_RES *out, TH__RED_INDICES_OUT_PARAM const TH_NAME(tensor) *a,
                                 TH__RED_DIM_PARAMS)
{
    if (TH__WRONG_DTYPE(a)) return TH_ERR_DTYPE;
    TH__RED_DECLARE_OP(TH__OP_FN(_dim_out), th_last_status());
    if (!out) return th__fail(TH_ERR_INVALID, TH__OP_FN(_dim_out), "NULL out");
    th_tensor *result = NULL, *indices = NULL;
#if defined(TH_RED_INDEX)
    int status = TH__OP_PRIVATE(_dim_into)(TH__OP_FN(_dim_out), a, dim, keepdim, &op, NULL, TH__B(out), &result, NULL);
#elif defined(TH_RED_WITH_INDICES)
    int status = TH__OP_PRIVATE(_dim_into)(TH__OP_FN(_dim_out), a, dim, keepdim, &op, TH__B(out), TH__B(indices_out),
                                           &result, indices_out ? &indices : NULL);
#else
    int status = TH__OP_PRIVATE(_dim_into)(TH__OP_FN(_dim_out), a, dim, keepdim, &op, TH__B(out), NULL, &result, NULL);
#endif
    th_tensor_release(result);
    th_tensor_release(indices);
    return status;
}

#undef TH__RED_DECLARE_OP
#undef TH__RED_WANT_INDEX
#endif /* definitions */

#undef TH__RED_RES
#undef TH__RED_DT
#undef TH__RED_ALL_PARAMS
#undef TH__RED_DIM_PARAMS
#undef TH__RED_INDICES_PARAM
#undef TH__RED_INDICES_OUT_PARAM
#undef TH_OP
#undef TH_RED_OP
#undef TH_RED_MAKE
#undef TH_RED_EXTRA
#undef TH_RED_EXTRA_FIRST
#undef TH_RED_RESULT
#undef TH_RED_RESULT_DT
#undef TH_RED_INDEX
#undef TH_RED_WITH_INDICES
#undef TH_RED_FLAT_ALL
