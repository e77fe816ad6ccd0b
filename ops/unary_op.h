/* ops/unary_op.h: one unary elementwise op, stamped per dtype and per op by pointwise.h (see
 * binary_op.h for why ops are stamped from a template). pointwise.h defines before each inclusion:
 *   TH_OP               the op's name: exp gives th_f32_exp, th_f32_exp_out, th_f32_exp_inplace
 *   TH_OP_BOOL_RESULT   (optional) the result is a bool tensor (isnan, logical_not): no in-place form
 *   TH_OP_REAL_RESULT   (optional, complex dtypes) the result is the real dtype of the same precision
 *                       (abs of c64 is f32): no in-place form
 *   TH_OP_ROW_F32/F64   (optional) a dtype-erased kernel (float *out, const float *in, n) that the
 *                       contiguous rows of f32 / f64 use instead of the element function: the vectorised
 *                       exp, tanh, ... of core/vecmath.h
 *   TH_OP_NPARAMS       (optional) the op takes that many values (doubles) after its tensor, declared by
 *   TH_OP_PARAMS        (e.g. `double beta, double threshold`) and named, in order, by
 *   TH_OP_PARAM_VALUES  (`beta, threshold`): leaky_relu's slope, softplus's beta and threshold
 * and, in the implementation, TH_PRIVATE(<op>_elem)(ct x), or with values (ct x, const double *p) and
 * TH_PRIVATE(<op>_check)(const char *fn, const double *p), which refuses values the op has no meaning for
 * (0 or a status from th__fail naming fn and the value).
 *
 * The forms: th_<sfx>_<op>(a) returns a new tensor (NULL on error); th_<sfx>_<op>_out(out, a) writes into
 * out and th_<sfx>_<op>_inplace(a) into a, each returning 0 or a negative status. Errors: a NULL tensor, a of
 * another dtype (TH_ERR_DTYPE), an out of another shape or dtype or whose elements overlap, a read-only or
 * device out. */
#ifndef TH_OP
#error "ops/unary_op.h: define TH_OP (the op's name) before including it"
#endif
#ifndef TH_NAME
#error "ops/unary_op.h is stamped per dtype through tensor_generic.h; include tensor.h instead"
#endif
#include "op_result.h" /* TH__RES, TH__RES_ELEM, TH__RES_DT, TH__RES_STORE, TH__NO_INPLACE */
#ifdef TH_OP_NPARAMS
#if !defined(TH_OP_PARAMS) || !defined(TH_OP_PARAM_VALUES)
#error "ops/unary_op.h: an op with TH_OP_NPARAMS declares them (TH_OP_PARAMS) and names them (TH_OP_PARAM_VALUES)"
#endif
#define TH__PARAMS_DECL , TH_OP_PARAMS
#define TH__ELEM_PARAMS , (const double *)ctx
#define TH__CTX th__params
#else
#define TH__PARAMS_DECL
#define TH__ELEM_PARAMS
#define TH__CTX NULL
#endif

#if defined(TH__DEVICE_ELEMS)
/* Stamped for a device (ops/pointwise.h says how): the companion's template makes the op's kernel. */
#include TH__DEVICE_UNARY_OP
#elif !defined(TH__DEFINING)

TH_API TH__RES *TH__OP_NAME()(const TH_NAME(tensor) *a TH__PARAMS_DECL);
TH_API int TH__OP_NAME(_out)(TH__RES *out, const TH_NAME(tensor) *a TH__PARAMS_DECL);
#ifndef TH__NO_INPLACE
TH_API int TH__OP_NAME(_inplace)(TH_NAME(tensor) *a TH__PARAMS_DECL);
#endif

#else /* definitions */

static TH__HOT void TH__OP_PRIVATE(_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    (void)ctx; /* the op's values, where it has them */
    const int64_t es = (int64_t)sizeof(real), os = (int64_t)sizeof(TH__RES_ELEM);
    char *o = data[0];
    const char *a = data[1];
    if (s[0] == os && s[1] == es && (uintptr_t)o % _Alignof(TH__RES_ELEM) == 0 &&
        (uintptr_t)a % _Alignof(real) == 0) {
#if defined(TH_REAL_IS_F32) && defined(TH_OP_ROW_F32) && !defined(TH_OP_BOOL_RESULT)
        TH_OP_ROW_F32((float *)(void *)o, (const float *)(const void *)a, n);
        return;
#elif defined(TH_REAL_IS_F64) && defined(TH_OP_ROW_F64) && !defined(TH_OP_BOOL_RESULT)
        TH_OP_ROW_F64((double *)(void *)o, (const double *)(const void *)a, n);
        return;
#else
        TH__RES_ELEM *op = (TH__RES_ELEM *)(void *)o;
        const real *ap = (const real *)(const void *)a;
        for (int64_t i = 0; i < n; i++)
            op[i] = TH__RES_STORE(TH__OP_PRIVATE(_elem)(TH_PRIVATE(to_ct)(ap[i]) TH__ELEM_PARAMS));
        return;
#endif
    }
#if (defined(TH_REAL_IS_F32) && defined(TH_OP_ROW_F32)) || (defined(TH_REAL_IS_F64) && defined(TH_OP_ROW_F64))
    /* Strided rows go through the same vector kernel, a block at a time, so a result never depends on
     * the layout of its operands. */
    real block[256];
    for (int64_t i = 0; i < n; i += 256) {
        int64_t m = n - i < 256 ? n - i : 256;
        for (int64_t k = 0; k < m; k++) block[k] = TH_PRIVATE(load)(a + (i + k) * s[1]);
#if defined(TH_REAL_IS_F32)
        TH_OP_ROW_F32(block, block, m);
#else
        TH_OP_ROW_F64(block, block, m);
#endif
        for (int64_t k = 0; k < m; k++) TH_PRIVATE(store)(o + (i + k) * s[0], block[k]);
    }
#else
    for (int64_t i = 0; i < n; i++) {
        TH__RES_ELEM r =
            TH__RES_STORE(TH__OP_PRIVATE(_elem)(TH_PRIVATE(to_ct)(TH_PRIVATE(load)(a + i * s[1])) TH__ELEM_PARAMS));
        memcpy(o + i * s[0], &r, sizeof r);
    }
#endif
}

static const th__ew_op TH__OP_PRIVATE(_op) = {TH__STR(TH_OP), TH_DT_ENUM, TH__OP_PRIVATE(_row)};

/* An op's values, checked by its own function (th__params, TH__CTX), before the tensors are looked at. */
#ifdef TH_OP_NPARAMS
#define TH__TAKE_PARAMS(fn, refused)                                                                            \
    const double th__params[TH_OP_NPARAMS] = {TH_OP_PARAM_VALUES};                                          \
    if (TH__OP_PRIVATE(_check)(fn, th__params)) return refused
#else
#define TH__TAKE_PARAMS(fn, refused) (void)0
#endif

TH_API TH__RES *TH__OP_NAME()(const TH_NAME(tensor) *a TH__PARAMS_DECL)
{
    if (TH__WRONG_DTYPE(a)) return NULL;
    TH__TAKE_PARAMS(TH__OP_FN(), NULL);
    const th_tensor *in[1] = {TH__B(a)};
    return (TH__RES *)th__elementwise(TH__OP_FN(), NULL, TH__RES_DT, 1, in, &TH__OP_PRIVATE(_op), (void *)TH__CTX);
}

TH_API int TH__OP_NAME(_out)(TH__RES *out, const TH_NAME(tensor) *a TH__PARAMS_DECL)
{
    if (TH__WRONG_DTYPE(a)) return TH_ERR_DTYPE;
    TH__TAKE_PARAMS(TH__OP_FN(_out), th_last_status());
    if (!out) return th__fail(TH_ERR_INVALID, TH__OP_FN(_out), "NULL out");
    const th_tensor *in[1] = {TH__B(a)};
    return th__status_of(th__elementwise(TH__OP_FN(_out), (th_tensor *)out, TH__RES_DT, 1, in, &TH__OP_PRIVATE(_op),
                                         (void *)TH__CTX));
}

#ifndef TH__NO_INPLACE
TH_API int TH__OP_NAME(_inplace)(TH_NAME(tensor) *a TH__PARAMS_DECL)
{
    if (TH__WRONG_DTYPE(a)) return TH_ERR_DTYPE;
    TH__TAKE_PARAMS(TH__OP_FN(_inplace), th_last_status());
    if (!a) return th__fail(TH_ERR_INVALID, TH__OP_FN(_inplace), "NULL tensor");
    const th_tensor *in[1] = {TH__B(a)};
    return th__status_of(
        th__elementwise(TH__OP_FN(_inplace), TH__B(a), TH__RES_DT, 1, in, &TH__OP_PRIVATE(_op), (void *)TH__CTX));
}
#endif
#undef TH__TAKE_PARAMS

#endif /* definitions */

#include "op_result_end.h"
#undef TH_OP_NPARAMS
#undef TH_OP_PARAMS
#undef TH_OP_PARAM_VALUES
#undef TH__PARAMS_DECL
#undef TH__ELEM_PARAMS
#undef TH__CTX
