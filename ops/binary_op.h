/* ops/binary_op.h: one binary elementwise op, stamped per dtype and per op by pointwise.h.
 *
 * TH's generic files are stamped once per dtype; this one is stamped once more per op, so that every binary
 * op gets the same six front doors and the same row kernels from one text. pointwise.h defines before each
 * inclusion:
 *   TH_OP                the op's name: add gives th_f32_add, th_f32_add_out, ...
 *   TH_OP_BOOL_RESULT    (optional) the result is a bool tensor: comparisons and logical ops; these have no
 *                        in-place forms
 *   TH_OP_NONZERO_RHS    (optional) an integer divisor: a zero in b is refused before anything is written
 *   TH_OP_NONNEGATIVE_RHS (optional) an integer exponent: a negative one is refused the same way
 * and, in the implementation, the element function TH_PRIVATE(<op>_elem)(ct a, ct b), computed in the
 * dtype's compute type ct (float for f16 and bf16).
 *
 * The forms, for a and b of this dtype (b broadcasts against a, and a against b):
 *   th_<sfx>_<op>(a, b)                     a new tensor of the broadcast shape, or NULL on error
 *   th_<sfx>_<op>_out(out, a, b)            writes into out; 0 or a negative status
 *   th_<sfx>_<op>_inplace(a, b)             writes into a; b must broadcast to a's shape
 *   th_<sfx>_<op>_scalar(a, s), _scalar_out(out, a, s), _scalar_inplace(a, s)   b is the value s
 * Errors: a NULL tensor, a or b of another dtype (TH_ERR_DTYPE), shapes that do not broadcast (TH_ERR_SHAPE),
 * an out of another shape or dtype or whose elements overlap, a read-only or device out, and the op's own (an
 * integer zero divisor: TH_ERR_INVALID). An out that overlaps an input is handled: the input is copied first. */
#ifndef TH_OP
#error "ops/binary_op.h: define TH_OP (the op's name) before including it"
#endif
#ifndef TH_NAME
#error "ops/binary_op.h is stamped per dtype through tensor_generic.h; include tensor.h instead"
#endif
#include "op_result.h" /* TH__RES, TH__RES_ELEM, TH__RES_DT, TH__RES_STORE */

#if defined(TH__DEVICE_ELEMS)
/* Stamped for a device (ops/pointwise.h says how): the companion's template makes the op's kernel. */
#include TH__DEVICE_BINARY_OP
#elif !defined(TH__DEFINING)

TH_API TH__RES *TH__OP_NAME()(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b);
TH_API int TH__OP_NAME(_out)(TH__RES *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b);
TH_API TH__RES *TH__OP_NAME(_scalar)(const TH_NAME(tensor) *a, real b);
TH_API int TH__OP_NAME(_scalar_out)(TH__RES *out, const TH_NAME(tensor) *a, real b);
#ifndef TH_OP_BOOL_RESULT
TH_API int TH__OP_NAME(_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *b);
TH_API int TH__OP_NAME(_scalar_inplace)(TH_NAME(tensor) *a, real b);
#endif

#else /* definitions */

static TH__HOT void TH__OP_PRIVATE(_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    (void)ctx;
    char *o = data[0];
    const char *a = data[1], *b = data[2];
#if !defined(TH_REAL_IS_REDUCED) && !defined(TH_REAL_IS_COMPLEX)
    /* The three row shapes the engine hands over most: all contiguous, and one side broadcast. */
    const int64_t es = (int64_t)sizeof(real), os = (int64_t)sizeof(TH__RES_ELEM);
    bool aligned = (uintptr_t)o % _Alignof(TH__RES_ELEM) == 0 &&
                   ((uintptr_t)a | (uintptr_t)b) % _Alignof(real) == 0;
    if (aligned && s[0] == os) {
        TH__RES_ELEM *op = (TH__RES_ELEM *)(void *)o;
        const real *ap = (const real *)(const void *)a, *bp = (const real *)(const void *)b;
        if (s[1] == es && s[2] == es) {
            for (int64_t i = 0; i < n; i++)
                op[i] = TH__RES_STORE(TH__OP_PRIVATE(_elem)(TH_PRIVATE(to_ct)(ap[i]), TH_PRIVATE(to_ct)(bp[i])));
            return;
        }
        if (s[1] == es && s[2] == 0) {
            const TH_PRIVATE(ct) bv = TH_PRIVATE(to_ct)(*bp);
            for (int64_t i = 0; i < n; i++)
                op[i] = TH__RES_STORE(TH__OP_PRIVATE(_elem)(TH_PRIVATE(to_ct)(ap[i]), bv));
            return;
        }
        if (s[1] == 0 && s[2] == es) {
            const TH_PRIVATE(ct) av = TH_PRIVATE(to_ct)(*ap);
            for (int64_t i = 0; i < n; i++)
                op[i] = TH__RES_STORE(TH__OP_PRIVATE(_elem)(av, TH_PRIVATE(to_ct)(bp[i])));
            return;
        }
    }
#endif /* 16-bit floats and complex numbers do not vectorise: their rows stay general */
    for (int64_t i = 0; i < n; i++) {
        TH__RES_ELEM r = TH__RES_STORE(TH__OP_PRIVATE(_elem)(TH_PRIVATE(to_ct)(TH_PRIVATE(load)(a + i * s[1])),
                                                             TH_PRIVATE(to_ct)(TH_PRIVATE(load)(b + i * s[2]))));
        memcpy(o + i * s[0], &r, sizeof r);
    }
}

static const th__ew_op TH__OP_PRIVATE(_op) = {TH__STR(TH_OP), TH_DT_ENUM, TH__OP_PRIVATE(_row)};

/* Refuses a right-hand side the op has no value for, before anything is written. (On a device its
 * companion checks: the host cannot read b there.) */
static int TH__OP_PRIVATE(_check_rhs)(const char *fn, const th_tensor *b)
{
#if defined(TH_OP_NONZERO_RHS)
    if (b && TH_PRIVATE(any_zero)(b))
        return th__fail(TH_ERR_INVALID, fn, "integer division by zero (b holds a 0)");
#elif defined(TH_OP_NONNEGATIVE_RHS)
    if (b && TH_PRIVATE(any_negative)(b))
        return th__fail(TH_ERR_INVALID, fn, "integers cannot be raised to a negative power (b holds one)");
#else
    (void)fn;
    (void)b;
#endif
    return TH_OK;
}

static int TH__OP_PRIVATE(_check_scalar)(const char *fn, real b)
{
#if defined(TH_OP_NONZERO_RHS)
    if (b == 0) return th__fail(TH_ERR_INVALID, fn, "integer division by zero");
#elif defined(TH_OP_NONNEGATIVE_RHS)
    if (TH_PRIVATE(negative)(b))
        return th__fail(TH_ERR_INVALID, fn, "integers cannot be raised to the negative power %lld", (long long)b);
#else
    (void)fn;
    (void)b;
#endif
    return TH_OK;
}

static TH__NOINLINE th_tensor *TH__OP_PRIVATE(_run)(const char *fn, th_tensor *out, const th_tensor *a, const th_tensor *b)
{
    if (TH__OP_PRIVATE(_check_rhs)(fn, b)) return NULL;
    const th_tensor *in[2] = {a, b};
    return th__elementwise(fn, out, TH__RES_DT, 2, in, &TH__OP_PRIVATE(_op), NULL);
}

/* The value becomes a 0-d tensor, which broadcasts: the row kernel's stride-0 path then runs at full
 * speed, and no op needs a second set of kernels for scalars. */
static TH__NOINLINE th_tensor *TH__OP_PRIVATE(_run_scalar)(const char *fn, th_tensor *out, const th_tensor *a, real b)
{
    if (TH__OP_PRIVATE(_check_scalar)(fn, b)) return NULL;
    th_tensor *value = th__scalar_tensor(fn, TH_DT_ENUM, &b);
    if (!value) return NULL;
    const th_tensor *in[2] = {a, value};
    th_tensor *result = th__elementwise(fn, out, TH__RES_DT, 2, in, &TH__OP_PRIVATE(_op), NULL);
    th_tensor_release(value);
    return result;
}

TH_API TH__RES *TH__OP_NAME()(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return NULL;
    return (TH__RES *)TH__OP_PRIVATE(_run)(TH__OP_FN(), NULL, TH__B(a), TH__B(b));
}

TH_API int TH__OP_NAME(_out)(TH__RES *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__OP_FN(_out), "NULL out");
    return th__status_of(TH__OP_PRIVATE(_run)(TH__OP_FN(_out), (th_tensor *)out, TH__B(a), TH__B(b)));
}

TH_API TH__RES *TH__OP_NAME(_scalar)(const TH_NAME(tensor) *a, real b)
{
    if (TH__WRONG_DTYPE(a)) return NULL;
    return (TH__RES *)TH__OP_PRIVATE(_run_scalar)(TH__OP_FN(_scalar), NULL, TH__B(a), b);
}

TH_API int TH__OP_NAME(_scalar_out)(TH__RES *out, const TH_NAME(tensor) *a, real b)
{
    if (TH__WRONG_DTYPE(a)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__OP_FN(_scalar_out), "NULL out");
    return th__status_of(TH__OP_PRIVATE(_run_scalar)(TH__OP_FN(_scalar_out), (th_tensor *)out, TH__B(a), b));
}

#ifndef TH_OP_BOOL_RESULT
TH_API int TH__OP_NAME(_inplace)(TH_NAME(tensor) *a, const TH_NAME(tensor) *b)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!a) return th__fail(TH_ERR_INVALID, TH__OP_FN(_inplace), "NULL tensor");
    return th__status_of(TH__OP_PRIVATE(_run)(TH__OP_FN(_inplace), TH__B(a), TH__B(a), TH__B(b)));
}

TH_API int TH__OP_NAME(_scalar_inplace)(TH_NAME(tensor) *a, real b)
{
    if (TH__WRONG_DTYPE(a)) return TH_ERR_DTYPE;
    if (!a) return th__fail(TH_ERR_INVALID, TH__OP_FN(_scalar_inplace), "NULL tensor");
    return th__status_of(TH__OP_PRIVATE(_run_scalar)(TH__OP_FN(_scalar_inplace), TH__B(a), TH__B(a), b));
}
#endif

#endif /* definitions */

#include "op_result_end.h"
