/* ops/ternary.h: the elementwise ops with more than two operands or with scalar parameters:
 * where, clamp, lerp, addcmul, addcdiv and add with alpha. Stamped per dtype through pointwise.h, whose
 * compute type (ct) and element functions these use; they run through th__elementwise like every
 * elementwise op, so the same broadcasting, out and aliasing rules hold (see binary_op.h). */

/* The element functions, written once for the host's rows below and a device's kernels (ops/pointwise.h says
 * how a device stamps them). p points to the op's values in the compute type: alpha, value, {lo, hi},
 * weight. */
#ifdef TH__ELEMS
#if !defined(TH_REAL_IS_BOOL)
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(add_alpha_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b, const TH_PRIVATE(ct) *p)
{
    return TH_PRIVATE(add_elem)(a, TH_PRIVATE(mul_elem)(p[0], b));
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(addcmul_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) t1, TH_PRIVATE(ct) t2,
                                                const TH_PRIVATE(ct) *p)
{
    return TH_PRIVATE(add_elem)(a, TH_PRIVATE(mul_elem)(p[0], TH_PRIVATE(mul_elem)(t1, t2)));
}
#endif
#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(clamp_elem)(TH_PRIVATE(ct) x, const TH_PRIVATE(ct) *p)
{
    if (x < p[0]) x = p[0];
    if (x > p[1]) x = p[1];
    return x;
}
#endif
#if defined(TH_REAL_IS_FLOATING) || defined(TH_REAL_IS_COMPLEX)
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(addcdiv_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) t1, TH_PRIVATE(ct) t2,
                                                const TH_PRIVATE(ct) *p)
{
    return a + p[0] * (t1 / t2);
}
#endif
#if defined(TH_REAL_IS_FLOATING)
/* From the nearer end, so weight 1 gives exactly b. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(lerp_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b, const TH_PRIVATE(ct) *p)
{
    const TH_PRIVATE(ct) w = p[0];
    return w < (TH_PRIVATE(ct))0.5 ? a + w * (b - a) : b - (b - a) * (1 - w);
}
#endif
#endif /* TH__ELEMS */

#if defined(TH__DEVICE_ELEMS)
/* A device's kernels: its template (TH__DEVICE_TERNARY_OP) is told each op's inputs and values. */
#define TH_OP where
#define TH_OP_WHERE
#include TH__DEVICE_TERNARY_OP
#if !defined(TH_REAL_IS_BOOL)
#define TH_OP add_alpha
#define TH_OP_NIN 2
#define TH_OP_NPARAMS 1
#include TH__DEVICE_TERNARY_OP
#define TH_OP addcmul
#define TH_OP_NIN 3
#define TH_OP_NPARAMS 1
#include TH__DEVICE_TERNARY_OP
#endif
#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
#define TH_OP clamp
#define TH_OP_NIN 1
#define TH_OP_NPARAMS 2
#include TH__DEVICE_TERNARY_OP
#endif
#if defined(TH_REAL_IS_FLOATING)
#define TH_OP addcdiv
#define TH_OP_NIN 3
#define TH_OP_NPARAMS 1
#include TH__DEVICE_TERNARY_OP
#define TH_OP lerp
#define TH_OP_NIN 2
#define TH_OP_NPARAMS 1
#include TH__DEVICE_TERNARY_OP
#endif

#elif !defined(TH__DEFINING)

/* cond ? a : b per element; cond, a and b broadcast together. Errors: as binary ops, and cond not bool. */
TH_API TH_NAME(tensor) *TH_NAME(where)(const th_bool_tensor *cond, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b);
TH_API int TH_NAME(where_out)(TH_NAME(tensor) *out, const th_bool_tensor *cond, const TH_NAME(tensor) *a,
                              const TH_NAME(tensor) *b);

#if !defined(TH_REAL_IS_BOOL)
/* a + alpha * b (PyTorch's add with alpha); integers wrap. */
TH_API TH_NAME(tensor) *TH_NAME(add_alpha)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real alpha);
TH_API int TH_NAME(add_alpha_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b,
                                  real alpha);
TH_API int TH_NAME(add_alpha_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real alpha);
/* a + value * t1 * t2; the three broadcast together (the result has their shape). */
TH_API TH_NAME(tensor) *TH_NAME(addcmul)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *t1,
                                         const TH_NAME(tensor) *t2, real value);
TH_API int TH_NAME(addcmul_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *t1,
                                const TH_NAME(tensor) *t2, real value);
TH_API int TH_NAME(addcmul_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *t1, const TH_NAME(tensor) *t2,
                                    real value);
#endif

#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
/* Each element limited to [lo, hi]: min(max(x, lo), hi), so lo > hi gives hi everywhere (as PyTorch);
 * NaN elements stay NaN. */
TH_API TH_NAME(tensor) *TH_NAME(clamp)(const TH_NAME(tensor) *a, real lo, real hi);
TH_API int TH_NAME(clamp_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, real lo, real hi);
TH_API int TH_NAME(clamp_inplace)(TH_NAME(tensor) *a, real lo, real hi);
#endif

#if defined(TH_REAL_IS_FLOATING) || defined(TH_REAL_IS_COMPLEX)
/* a + value * t1 / t2. */
TH_API TH_NAME(tensor) *TH_NAME(addcdiv)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *t1,
                                         const TH_NAME(tensor) *t2, real value);
TH_API int TH_NAME(addcdiv_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *t1,
                                const TH_NAME(tensor) *t2, real value);
TH_API int TH_NAME(addcdiv_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *t1, const TH_NAME(tensor) *t2,
                                    real value);
#endif

#if defined(TH_REAL_IS_FLOATING)
/* a + weight * (b - a), computed from the nearer end so weight 1 gives exactly b. */
TH_API TH_NAME(tensor) *TH_NAME(lerp)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real weight);
TH_API int TH_NAME(lerp_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real weight);
TH_API int TH_NAME(lerp_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real weight);
#endif

#else /* definitions */

/* Every row kernel here walks its operands with byte strides: the engine has already merged contiguous
 * dims into long rows, and these ops are rarely the bottleneck their binary cousins are. */
#define TH__AT(k, i) (data[k] + (i) * s[k])
#define TH__LOAD(k, i) TH_PRIVATE(to_ct)(TH_PRIVATE(load)(TH__AT(k, i)))
#define TH__STORE(i, v) TH_PRIVATE(store)(TH__AT(0, i), TH_PRIVATE(from_ct)(v))

static TH__HOT void TH_PRIVATE(where_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    (void)ctx;
    const int64_t es = (int64_t)sizeof(real);
    for (int64_t i = 0; i < n; i++) {
        bool c;
        memcpy(&c, TH__AT(1, i), 1);
        memcpy(TH__AT(0, i), c ? TH__AT(2, i) : TH__AT(3, i), (size_t)es);
    }
}

static const th__ew_op TH_PRIVATE(where_op) = {"where", TH_DT_ENUM, TH_PRIVATE(where_row)};

static th_tensor *TH_PRIVATE(where_run)(const char *fn, th_tensor *out, const th_bool_tensor *cond,
                                        const TH_NAME(tensor) *a, const TH_NAME(tensor) *b)
{
    if (cond && TH__B(cond)->dtype != TH_BOOL) {
        th__fail(TH_ERR_DTYPE, fn, "cond is %s; it must be bool", th_dtype_name(TH__B(cond)->dtype));
        return NULL;
    }
    const th_tensor *in[3] = {TH__B(cond), TH__B(a), TH__B(b)};
    return th__elementwise(fn, out, TH_DT_ENUM, 3, in, &TH_PRIVATE(where_op), NULL);
}

TH_API TH_NAME(tensor) *TH_NAME(where)(const th_bool_tensor *cond, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return NULL;
    return TH__T(TH_PRIVATE(where_run)(TH__FN(where), NULL, cond, a, b));
}

TH_API int TH_NAME(where_out)(TH_NAME(tensor) *out, const th_bool_tensor *cond, const TH_NAME(tensor) *a,
                              const TH_NAME(tensor) *b)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(where_out), "NULL out");
    return th__status_of(TH_PRIVATE(where_run)(TH__FN(where_out), TH__B(out), cond, a, b));
}

#if !defined(TH_REAL_IS_BOOL)
static TH__HOT void TH_PRIVATE(add_alpha_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    const TH_PRIVATE(ct) alpha = *(const TH_PRIVATE(ct) *)ctx; /* a local: the stores below cannot change it */
    for (int64_t i = 0; i < n; i++) TH__STORE(i, TH_PRIVATE(add_alpha_elem)(TH__LOAD(1, i), TH__LOAD(2, i), &alpha));
}

static const th__ew_op TH_PRIVATE(add_alpha_op) = {"add_alpha", TH_DT_ENUM, TH_PRIVATE(add_alpha_row)};

static th_tensor *TH_PRIVATE(add_alpha_run)(const char *fn, th_tensor *out, const TH_NAME(tensor) *a,
                                            const TH_NAME(tensor) *b, real alpha)
{
    TH_PRIVATE(ct) ctx = TH_PRIVATE(to_ct)(alpha);
    const th_tensor *in[2] = {TH__B(a), TH__B(b)};
    return th__elementwise(fn, out, TH_DT_ENUM, 2, in, &TH_PRIVATE(add_alpha_op), &ctx);
}

TH_API TH_NAME(tensor) *TH_NAME(add_alpha)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real alpha)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return NULL;
    return TH__T(TH_PRIVATE(add_alpha_run)(TH__FN(add_alpha), NULL, a, b, alpha));
}

TH_API int TH_NAME(add_alpha_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b,
                                  real alpha)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(add_alpha_out), "NULL out");
    return th__status_of(TH_PRIVATE(add_alpha_run)(TH__FN(add_alpha_out), TH__B(out), a, b, alpha));
}

TH_API int TH_NAME(add_alpha_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real alpha)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!a) return th__fail(TH_ERR_INVALID, TH__FN(add_alpha_inplace), "NULL tensor");
    return th__status_of(TH_PRIVATE(add_alpha_run)(TH__FN(add_alpha_inplace), TH__B(a), a, b, alpha));
}

static TH__HOT void TH_PRIVATE(addcmul_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    const TH_PRIVATE(ct) value = *(const TH_PRIVATE(ct) *)ctx;
    for (int64_t i = 0; i < n; i++)
        TH__STORE(i, TH_PRIVATE(addcmul_elem)(TH__LOAD(1, i), TH__LOAD(2, i), TH__LOAD(3, i), &value));
}

static const th__ew_op TH_PRIVATE(addcmul_op) = {"addcmul", TH_DT_ENUM, TH_PRIVATE(addcmul_row)};

static th_tensor *TH_PRIVATE(addcmul_run)(const char *fn, th_tensor *out, const TH_NAME(tensor) *a,
                                          const TH_NAME(tensor) *t1, const TH_NAME(tensor) *t2, real value)
{
    TH_PRIVATE(ct) ctx = TH_PRIVATE(to_ct)(value);
    const th_tensor *in[3] = {TH__B(a), TH__B(t1), TH__B(t2)};
    return th__elementwise(fn, out, TH_DT_ENUM, 3, in, &TH_PRIVATE(addcmul_op), &ctx);
}

TH_API TH_NAME(tensor) *TH_NAME(addcmul)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *t1,
                                         const TH_NAME(tensor) *t2, real value)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(t1) || TH__WRONG_DTYPE(t2)) return NULL;
    return TH__T(TH_PRIVATE(addcmul_run)(TH__FN(addcmul), NULL, a, t1, t2, value));
}

TH_API int TH_NAME(addcmul_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *t1,
                                const TH_NAME(tensor) *t2, real value)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(t1) || TH__WRONG_DTYPE(t2)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(addcmul_out), "NULL out");
    return th__status_of(TH_PRIVATE(addcmul_run)(TH__FN(addcmul_out), TH__B(out), a, t1, t2, value));
}

TH_API int TH_NAME(addcmul_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *t1, const TH_NAME(tensor) *t2,
                                    real value)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(t1) || TH__WRONG_DTYPE(t2)) return TH_ERR_DTYPE;
    if (!a) return th__fail(TH_ERR_INVALID, TH__FN(addcmul_inplace), "NULL tensor");
    return th__status_of(TH_PRIVATE(addcmul_run)(TH__FN(addcmul_inplace), TH__B(a), a, t1, t2, value));
}
#endif

#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
static TH__HOT void TH_PRIVATE(clamp_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    const TH_PRIVATE(ct) bounds[2] = {((const TH_PRIVATE(ct) *)ctx)[0], ((const TH_PRIVATE(ct) *)ctx)[1]};
    for (int64_t i = 0; i < n; i++) TH__STORE(i, TH_PRIVATE(clamp_elem)(TH__LOAD(1, i), bounds));
}

static const th__ew_op TH_PRIVATE(clamp_op) = {"clamp", TH_DT_ENUM, TH_PRIVATE(clamp_row)};

static th_tensor *TH_PRIVATE(clamp_run)(const char *fn, th_tensor *out, const TH_NAME(tensor) *a, real lo, real hi)
{
    TH_PRIVATE(ct) bounds[2] = {TH_PRIVATE(to_ct)(lo), TH_PRIVATE(to_ct)(hi)};
    const th_tensor *in[1] = {TH__B(a)};
    return th__elementwise(fn, out, TH_DT_ENUM, 1, in, &TH_PRIVATE(clamp_op), bounds);
}

TH_API TH_NAME(tensor) *TH_NAME(clamp)(const TH_NAME(tensor) *a, real lo, real hi)
{
    if (TH__WRONG_DTYPE(a)) return NULL;
    return TH__T(TH_PRIVATE(clamp_run)(TH__FN(clamp), NULL, a, lo, hi));
}

TH_API int TH_NAME(clamp_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, real lo, real hi)
{
    if (TH__WRONG_DTYPE(a)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(clamp_out), "NULL out");
    return th__status_of(TH_PRIVATE(clamp_run)(TH__FN(clamp_out), TH__B(out), a, lo, hi));
}

TH_API int TH_NAME(clamp_inplace)(TH_NAME(tensor) *a, real lo, real hi)
{
    if (TH__WRONG_DTYPE(a)) return TH_ERR_DTYPE;
    if (!a) return th__fail(TH_ERR_INVALID, TH__FN(clamp_inplace), "NULL tensor");
    return th__status_of(TH_PRIVATE(clamp_run)(TH__FN(clamp_inplace), TH__B(a), a, lo, hi));
}
#endif

#if defined(TH_REAL_IS_FLOATING) || defined(TH_REAL_IS_COMPLEX)
static TH__HOT void TH_PRIVATE(addcdiv_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    const TH_PRIVATE(ct) value = *(const TH_PRIVATE(ct) *)ctx;
    for (int64_t i = 0; i < n; i++)
        TH__STORE(i, TH_PRIVATE(addcdiv_elem)(TH__LOAD(1, i), TH__LOAD(2, i), TH__LOAD(3, i), &value));
}

static const th__ew_op TH_PRIVATE(addcdiv_op) = {"addcdiv", TH_DT_ENUM, TH_PRIVATE(addcdiv_row)};

static th_tensor *TH_PRIVATE(addcdiv_run)(const char *fn, th_tensor *out, const TH_NAME(tensor) *a,
                                          const TH_NAME(tensor) *t1, const TH_NAME(tensor) *t2, real value)
{
    TH_PRIVATE(ct) ctx = TH_PRIVATE(to_ct)(value);
    const th_tensor *in[3] = {TH__B(a), TH__B(t1), TH__B(t2)};
    return th__elementwise(fn, out, TH_DT_ENUM, 3, in, &TH_PRIVATE(addcdiv_op), &ctx);
}

TH_API TH_NAME(tensor) *TH_NAME(addcdiv)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *t1,
                                         const TH_NAME(tensor) *t2, real value)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(t1) || TH__WRONG_DTYPE(t2)) return NULL;
    return TH__T(TH_PRIVATE(addcdiv_run)(TH__FN(addcdiv), NULL, a, t1, t2, value));
}

TH_API int TH_NAME(addcdiv_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *t1,
                                const TH_NAME(tensor) *t2, real value)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(t1) || TH__WRONG_DTYPE(t2)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(addcdiv_out), "NULL out");
    return th__status_of(TH_PRIVATE(addcdiv_run)(TH__FN(addcdiv_out), TH__B(out), a, t1, t2, value));
}

TH_API int TH_NAME(addcdiv_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *t1, const TH_NAME(tensor) *t2,
                                    real value)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(t1) || TH__WRONG_DTYPE(t2)) return TH_ERR_DTYPE;
    if (!a) return th__fail(TH_ERR_INVALID, TH__FN(addcdiv_inplace), "NULL tensor");
    return th__status_of(TH_PRIVATE(addcdiv_run)(TH__FN(addcdiv_inplace), TH__B(a), a, t1, t2, value));
}
#endif

#if defined(TH_REAL_IS_FLOATING)
static TH__HOT void TH_PRIVATE(lerp_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    const TH_PRIVATE(ct) w = *(const TH_PRIVATE(ct) *)ctx;
    for (int64_t i = 0; i < n; i++) TH__STORE(i, TH_PRIVATE(lerp_elem)(TH__LOAD(1, i), TH__LOAD(2, i), &w));
}

static const th__ew_op TH_PRIVATE(lerp_op) = {"lerp", TH_DT_ENUM, TH_PRIVATE(lerp_row)};

static th_tensor *TH_PRIVATE(lerp_run)(const char *fn, th_tensor *out, const TH_NAME(tensor) *a,
                                       const TH_NAME(tensor) *b, real weight)
{
    TH_PRIVATE(ct) ctx = TH_PRIVATE(to_ct)(weight);
    const th_tensor *in[2] = {TH__B(a), TH__B(b)};
    return th__elementwise(fn, out, TH_DT_ENUM, 2, in, &TH_PRIVATE(lerp_op), &ctx);
}

TH_API TH_NAME(tensor) *TH_NAME(lerp)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real weight)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return NULL;
    return TH__T(TH_PRIVATE(lerp_run)(TH__FN(lerp), NULL, a, b, weight));
}

TH_API int TH_NAME(lerp_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real weight)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(lerp_out), "NULL out");
    return th__status_of(TH_PRIVATE(lerp_run)(TH__FN(lerp_out), TH__B(out), a, b, weight));
}

TH_API int TH_NAME(lerp_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *b, real weight)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!a) return th__fail(TH_ERR_INVALID, TH__FN(lerp_inplace), "NULL tensor");
    return th__status_of(TH_PRIVATE(lerp_run)(TH__FN(lerp_inplace), TH__B(a), a, b, weight));
}
#endif

#undef TH__AT
#undef TH__LOAD
#undef TH__STORE

#endif /* definitions */
