/* ops/pointwise.h: the elementwise ops. Stamped per dtype through tensor_generic.h.
 *
 * Each op is one element function here, next to the inclusion of the template that stamps its front
 * doors and row kernels (unary_op.h, binary_op.h). Contiguous float32/float64 rows of exp, tanh, sigmoid, log,
 * expm1 and erf take the vectorised kernels of vecmath_erased.h instead (TH_OP_ROW_F32/F64), chosen per CPU
 * at run time. The element functions compute in the dtype's compute
 * type ct: the element type itself, except float for float16 and bfloat16. The driver every op runs
 * through (shapes, outs, aliasing, threads) is th__elementwise in pointwise_erased.h.
 *
 * Integer arithmetic wraps modulo 2^bits (computed in unsigned, so there is no undefined behaviour):
 * neg, abs and square of the most negative value give it back. Integer div truncates toward zero as C
 * does; floor_divide rounds toward minus infinity and remainder takes the divisor's sign (Python's //
 * and %); fmod takes the dividend's sign (C's %). An integer zero divisor is refused. Floating ops follow
 * IEEE 754 and C's libm; maximum and minimum propagate NaN. Shifts by a negative count or by the width or
 * more give 0 (left) or the sign fill (right). */

/* The element functions are also stamped for a device: a companion's kernel file defines TH__DEVICE_ELEMS and
 * TH__DEVICE_UNARY_OP / TH__DEVICE_BINARY_OP (its templates) and stamps this file again, for the dtypes its
 * device has (cuda/ew_kernels.cu: every dtype but complex). The same text then compiles as host-and-device
 * code (TH__ELEM), each op template gives the companion's kernel instead of the host's front doors, so an op
 * is written once for both. */
#if defined(TH__DEFINING) || defined(TH__DEVICE_ELEMS)
#define TH__ELEMS
#endif
#ifndef TH__ELEM
#if defined(__CUDACC__)
#define TH__ELEM static inline __host__ __device__
#else
#define TH__ELEM static inline
#endif
#endif

#ifdef TH__ELEMS

/* ---- the compute type, and the libm function of that type ---- */

#if defined(TH_REAL_IS_REDUCED) && defined(TH__DEVICE_ELEMS)
/* The host's conversions are library functions; a device has its own, bit for bit the same (the companion
 * tests that), named by TH__DEVICE_TO_FLOAT(dtype, bits) and TH__DEVICE_FROM_FLOAT(dtype, f). */
typedef float TH_PRIVATE(ct);
TH__ELEM float TH_PRIVATE(to_ct)(real x) { return TH__DEVICE_TO_FLOAT(TH_DT_ENUM, x.bits); }
TH__ELEM real TH_PRIVATE(from_ct)(float x)
{
    real r;
    r.bits = TH__DEVICE_FROM_FLOAT(TH_DT_ENUM, x);
    return r;
}
#elif defined(TH_REAL_IS_REDUCED)
typedef float TH_PRIVATE(ct);
static inline float TH_PRIVATE(to_ct)(real x) { return TH_REAL_TO_ACCREAL(x); }
static inline real TH_PRIVATE(from_ct)(float x) { return TH_ACCREAL_TO_REAL(x); }
#else
typedef real TH_PRIVATE(ct);
TH__ELEM real TH_PRIVATE(to_ct)(real x) { return x; }
TH__ELEM real TH_PRIVATE(from_ct)(real x) { return x; }
#endif

#if defined(TH_REAL_IS_F64)
#define TH__M(fn) fn
#elif defined(TH_REAL_IS_FLOATING)
#define TH__M(fn) fn##f
#elif defined(TH_REAL_IS_C64)
#define TH__M(fn) __builtin_c##fn##f /* the builtins spare the implementation <complex.h>'s I and complex */
#elif defined(TH_REAL_IS_C128)
#define TH__M(fn) __builtin_c##fn
#endif
#if defined(TH_REAL_IS_C64)
#define TH__REAL_OF_COMPLEX float
#define TH__RE(z) __builtin_crealf(z)
#define TH__IM(z) __builtin_cimagf(z)
#define TH__CONJ(z) __builtin_conjf(z)
#elif defined(TH_REAL_IS_C128)
#define TH__REAL_OF_COMPLEX double
#define TH__RE(z) __builtin_creal(z)
#define TH__IM(z) __builtin_cimag(z)
#define TH__CONJ(z) __builtin_conj(z)
#endif

#if !defined(TH_REAL_IS_COMPLEX)
/* x < 0 and x != x (NaN) without the compiler's warnings for dtypes where they are always false. */
TH__ELEM TH__MAYBE_UNUSED bool TH_PRIVATE(negative)(TH_PRIVATE(ct) x)
{
#if defined(TH_REAL_IS_UNSIGNED) || defined(TH_REAL_IS_BOOL)
    (void)x;
    return false;
#else
    return x < 0;
#endif
}
/* x == -1: the one integer divisor that overflows (the most negative value / -1). Never true for unsigned
 * dtypes, where (real)-1 is the largest value (255 for u8): a divisor like any other. */
TH__ELEM TH__MAYBE_UNUSED bool TH_PRIVATE(minus_one)(TH_PRIVATE(ct) x)
{
#if defined(TH_REAL_IS_UNSIGNED) || defined(TH_REAL_IS_BOOL)
    (void)x;
    return false;
#else
    return x == -1;
#endif
}
TH__ELEM TH__MAYBE_UNUSED bool TH_PRIVATE(nan)(TH_PRIVATE(ct) x)
{
#if defined(TH_REAL_IS_FLOATING)
    return x != x;
#else
    (void)x;
    return false;
#endif
}
#endif

#if defined(TH_REAL_IS_INTEGER)
/* Integer arithmetic goes through this unsigned type, where overflow wraps instead of being undefined.
 * 8- and 16-bit values use 32 bits: in a narrower unsigned type they would be promoted back to int. */
#if defined(TH_REAL_IS_I64)
typedef uint64_t TH_PRIVATE(ut);
#else
typedef uint32_t TH_PRIVATE(ut);
#endif
#define TH__BITS ((int64_t)(sizeof(real) * CHAR_BIT))
#endif
#endif /* TH__ELEMS */

/* The host's checks of an integer divisor or exponent before an op writes anything. */
#if defined(TH__DEFINING) && defined(TH_REAL_IS_INTEGER)
static void TH_PRIVATE(any_zero_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    for (int64_t i = 0; i < n; i++)
        if (TH_PRIVATE(load)(data[0] + i * s[0]) == 0) *(bool *)ctx = true;
}

static void TH_PRIVATE(any_negative_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    for (int64_t i = 0; i < n; i++)
        if (TH_PRIVATE(negative)(TH_PRIVATE(load)(data[0] + i * s[0]))) *(bool *)ctx = true;
}

/* Whether t holds a 0 / a negative value; false for a tensor the op itself will refuse (the op reports
 * that error). */
static TH__MAYBE_UNUSED bool TH_PRIVATE(any_zero)(const th_tensor *t)
{
    th__iter it;
    bool found = false;
    if (th__iter_init("th__any_zero", &it, 1, &t)) {
        th_clear_error();
        return false;
    }
    th__iter_for_each(&it, TH_PRIVATE(any_zero_row), &found);
    return found;
}

static TH__MAYBE_UNUSED bool TH_PRIVATE(any_negative)(const th_tensor *t)
{
    th__iter it;
    bool found = false;
    if (th__iter_init("th__any_negative", &it, 1, &t)) {
        th_clear_error();
        return false;
    }
    th__iter_for_each(&it, TH_PRIVATE(any_negative_row), &found);
    return found;
}
#endif

/* ==== unary ops ==== */

#if !defined(TH_REAL_IS_BOOL)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(neg_elem)(TH_PRIVATE(ct) x)
{
#if defined(TH_REAL_IS_INTEGER)
    return (real)((TH_PRIVATE(ut))0 - (TH_PRIVATE(ut))x);
#else
    return -x;
#endif
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(square_elem)(TH_PRIVATE(ct) x)
{
#if defined(TH_REAL_IS_INTEGER)
    return (real)((TH_PRIVATE(ut))x * (TH_PRIVATE(ut))x);
#else
    return x * x;
#endif
}
#endif
#define TH_OP neg
#include "unary_op.h"
#define TH_OP square
#include "unary_op.h"
#endif

#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(abs_elem)(TH_PRIVATE(ct) x)
{
#if defined(TH_REAL_IS_UNSIGNED)
    return x;
#elif defined(TH_REAL_IS_INTEGER)
    return x < 0 ? (real)((TH_PRIVATE(ut))0 - (TH_PRIVATE(ut))x) : x;
#else
    return TH__M(fabs)(x);
#endif
}
/* -1, 0 or 1; NaN and the sign of zero pass through. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(sign_elem)(TH_PRIVATE(ct) x)
{
    return x > 0 ? (TH_PRIVATE(ct))1 : TH_PRIVATE(negative)(x) ? (TH_PRIVATE(ct))-1 : x;
}
/* NaN passes through, as in PyTorch. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(relu_elem)(TH_PRIVATE(ct) x) { return TH_PRIVATE(negative)(x) ? (TH_PRIVATE(ct))0 : x; }
#endif
#define TH_OP abs
#include "unary_op.h"
#define TH_OP sign
#include "unary_op.h"
#define TH_OP relu
#include "unary_op.h"
#endif

/* The transcendental functions: floating dtypes, and complex ones where C99 has the function. */
#if defined(TH_REAL_IS_FLOATING) || defined(TH_REAL_IS_COMPLEX)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(sqrt_elem)(TH_PRIVATE(ct) x) { return TH__M(sqrt)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(rsqrt_elem)(TH_PRIVATE(ct) x) { return 1 / TH__M(sqrt)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(exp_elem)(TH_PRIVATE(ct) x) { return TH__M(exp)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(log_elem)(TH_PRIVATE(ct) x) { return TH__M(log)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(sin_elem)(TH_PRIVATE(ct) x) { return TH__M(sin)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(cos_elem)(TH_PRIVATE(ct) x) { return TH__M(cos)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(tan_elem)(TH_PRIVATE(ct) x) { return TH__M(tan)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(asin_elem)(TH_PRIVATE(ct) x) { return TH__M(asin)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(acos_elem)(TH_PRIVATE(ct) x) { return TH__M(acos)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(atan_elem)(TH_PRIVATE(ct) x) { return TH__M(atan)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(sinh_elem)(TH_PRIVATE(ct) x) { return TH__M(sinh)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(cosh_elem)(TH_PRIVATE(ct) x) { return TH__M(cosh)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(tanh_elem)(TH_PRIVATE(ct) x) { return TH__M(tanh)(x); }
/* 1 / (1 + e^-x): e^-x overflowing to infinity gives 0, the right limit. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(sigmoid_elem)(TH_PRIVATE(ct) x)
{
#if !defined(TH_REAL_IS_COMPLEX)
    /* Below zero, exp(-x) overflows (f64: from x = -709.78) long before sigmoid underflows (x = -745.13):
     * exp(x) / (1 + exp(x)) keeps the subnormal tail. */
    if (x < 0) {
        TH_PRIVATE(ct) e = TH__M(exp)(x);
        return e / (1 + e);
    }
#endif
    return 1 / (1 + TH__M(exp)(-x));
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(reciprocal_elem)(TH_PRIVATE(ct) x) { return 1 / x; }
#endif
#define TH_OP sqrt
#include "unary_op.h"
#define TH_OP rsqrt
#include "unary_op.h"
#define TH_OP exp
#define TH_OP_ROW_F32 th__vec_exp_f32
#define TH_OP_ROW_F64 th__vec_exp_f64
#include "unary_op.h"
#define TH_OP log
#define TH_OP_ROW_F32 th__vec_log_f32
#include "unary_op.h"
#define TH_OP sin
#include "unary_op.h"
#define TH_OP cos
#include "unary_op.h"
#define TH_OP tan
#include "unary_op.h"
#define TH_OP asin
#include "unary_op.h"
#define TH_OP acos
#include "unary_op.h"
#define TH_OP atan
#include "unary_op.h"
#define TH_OP sinh
#include "unary_op.h"
#define TH_OP cosh
#include "unary_op.h"
#define TH_OP tanh
#define TH_OP_ROW_F32 th__vec_tanh_f32
#define TH_OP_ROW_F64 th__vec_tanh_f64
#include "unary_op.h"
#define TH_OP sigmoid
#define TH_OP_ROW_F32 th__vec_sigmoid_f32
#include "unary_op.h"
#define TH_OP reciprocal
#include "unary_op.h"
#endif

#if defined(TH_REAL_IS_FLOATING)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(exp2_elem)(TH_PRIVATE(ct) x) { return TH__M(exp2)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(expm1_elem)(TH_PRIVATE(ct) x) { return TH__M(expm1)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(log2_elem)(TH_PRIVATE(ct) x) { return TH__M(log2)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(log10_elem)(TH_PRIVATE(ct) x) { return TH__M(log10)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(log1p_elem)(TH_PRIVATE(ct) x) { return TH__M(log1p)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(erf_elem)(TH_PRIVATE(ct) x) { return TH__M(erf)(x); }
#if defined(TH_REAL_IS_F64)
/* a * b - p exactly, for p = fl(a * b). Dekker's split where there is no hardware fma and doubles are
 * evaluated as doubles (then the compiler cannot contract these products either, and each rounding is as
 * written); elsewhere fma, which is exact even in software. |a|, |b| < 2^995. */
TH__ELEM double TH_PRIVATE(product_error)(double a, double b, double p)
{
#if defined(FP_FAST_FMA) || !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
    return fma(a, b, -p);
#else
    const double split = 134217729.0; /* 2^27 + 1 */
    double ac = split * a, a_hi = ac - (ac - a), a_lo = a - a_hi;
    double bc = split * b, b_hi = bc - (bc - b), b_lo = b - b_hi;
    return ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo;
#endif
}

/* GELU of x < -1, where erfc(t), t = -x / sqrt(2), magnifies a relative error of its argument about 2 t^2
 * times (1581 ulp at x = -36.9 if the rounding of t were ignored). Down to x = -37 the rounding of t is put
 * back to first order, erfc(t + lo) = erfc(t) - lo * 2 / sqrt(pi) * exp(-t^2). Below, erfc(t) is subnormal
 * and its own rounding would be multiplied by |x| / 2: there the asymptotic series gives
 * gelu(x) = -exp(-x^2 / 2) / sqrt(2 pi) * S(t), S = 1 - 1/(2t^2) + 3/(2t^2)^2 - ..., with x^2 / 2 carried as
 * hi + lo, so only exp's own rounding reaches the result. */
TH__ELEM double TH_PRIVATE(gelu_tail)(double x)
{
    const double c_hi = 0.70710678118654757, c_lo = -4.8336466567264567e-17; /* 1/sqrt(2) = c_hi + c_lo */
    const double u = -x;
    if (u < 37.0) {
        const double t = u * c_hi;
        const double lo = TH_PRIVATE(product_error)(u, c_hi, t) + u * c_lo;
        return 0.5 * x * (erfc(t) - lo * 1.12837916709551257390 * exp(-t * t)); /* 2 / sqrt(pi) */
    }
    const double sq = u * u, sq_lo = TH_PRIVATE(product_error)(u, u, sq);
    const double r = 1.0 / sq; /* 1 / (2 t^2) */
    double series = 1.0, term = 1.0;
    for (int k = 1; k <= 8; k++) { /* at t >= 26 the next term is below 2^-60 */
        term *= -(2 * k - 1) * r;
        series += term;
    }
    return -(exp(-0.5 * sq) * ((1.0 - 0.5 * sq_lo) * series * 0.39894228040143267794)); /* 1 / sqrt(2 pi) */
}
#endif
/* The exact GELU, x * Phi(x). Phi through erfc rather than 1 + erf: for large negative x, 1 + erf cancels
 * to 0 while erfc keeps the tiny tail. In double even for float: erfc magnifies the rounding of its
 * argument ~2x^2 times in the tail, which double absorbs for float results (f64 corrects it, above). */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(gelu_elem)(TH_PRIVATE(ct) x)
{
    if (x <= -64) return -(TH_PRIVATE(ct))0; /* the result underflows to -0; at -inf too, the limit, not NaN */
#if defined(TH_REAL_IS_F64)
    if (x < -1.0) return TH_PRIVATE(gelu_tail)(x);
    return 0.5 * x * erfc(-x * 0.70710678118654752440);
#else
    return (TH_PRIVATE(ct))(0.5 * (double)x * erfc(-(double)x * 0.70710678118654752440));
#endif
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(floor_elem)(TH_PRIVATE(ct) x) { return TH__M(floor)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(ceil_elem)(TH_PRIVATE(ct) x) { return TH__M(ceil)(x); }
/* Halves go to the even neighbour, as in NumPy and PyTorch (nearbyint in the default rounding mode). */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(round_elem)(TH_PRIVATE(ct) x) { return TH__M(nearbyint)(x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(trunc_elem)(TH_PRIVATE(ct) x) { return TH__M(trunc)(x); }
/* x - trunc(x): keeps the sign of x; infinities give NaN as in PyTorch. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(frac_elem)(TH_PRIVATE(ct) x) { return x - TH__M(trunc)(x); }
TH__ELEM bool TH_PRIVATE(isnan_elem)(TH_PRIVATE(ct) x) { return TH_PRIVATE(nan)(x); }
TH__ELEM bool TH_PRIVATE(isinf_elem)(TH_PRIVATE(ct) x) { return x == (TH_PRIVATE(ct))INFINITY || x == -(TH_PRIVATE(ct))INFINITY; }
TH__ELEM bool TH_PRIVATE(isfinite_elem)(TH_PRIVATE(ct) x) { return x - x == 0; }
#endif
#define TH_OP exp2
#include "unary_op.h"
#define TH_OP expm1
#define TH_OP_ROW_F32 th__vec_expm1_f32
#include "unary_op.h"
#define TH_OP log2
#include "unary_op.h"
#define TH_OP log10
#include "unary_op.h"
#define TH_OP log1p
#include "unary_op.h"
#define TH_OP erf
#define TH_OP_ROW_F32 th__vec_erf_f32
#include "unary_op.h"
#define TH_OP gelu
#include "unary_op.h"
#define TH_OP frac
#include "unary_op.h"
#endif

#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_BOOL)
#ifdef TH__ELEMS
#if defined(TH_REAL_IS_BOOL)
/* On bool, ~ is logical not (NumPy and PyTorch): flipping all eight bits would make an invalid bool. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(bitwise_not_elem)(TH_PRIVATE(ct) x) { return !x; }
#else
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(bitwise_not_elem)(TH_PRIVATE(ct) x) { return (real)~(TH_PRIVATE(ut))x; }
#endif
#endif
#define TH_OP bitwise_not
#include "unary_op.h"
#endif

/* Integers are already whole and finite: rounding gives them back and the classifications are constant,
 * so generic code can call these on any real dtype, as in NumPy and PyTorch. */
#if defined(TH_REAL_IS_INTEGER)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(floor_elem)(TH_PRIVATE(ct) x) { return x; }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(ceil_elem)(TH_PRIVATE(ct) x) { return x; }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(round_elem)(TH_PRIVATE(ct) x) { return x; }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(trunc_elem)(TH_PRIVATE(ct) x) { return x; }
TH__ELEM bool TH_PRIVATE(isnan_elem)(TH_PRIVATE(ct) x) { return (void)x, false; }
TH__ELEM bool TH_PRIVATE(isinf_elem)(TH_PRIVATE(ct) x) { return (void)x, false; }
TH__ELEM bool TH_PRIVATE(isfinite_elem)(TH_PRIVATE(ct) x) { return (void)x, true; }
#endif
#endif

/* Complex: the magnitude, in the real dtype of the same precision (c64 -> f32), and the classifications,
 * which look at both parts as NumPy and PyTorch do: NaN if either part is, infinite if either part is (so
 * inf + NaN i is both), finite if both parts are. */
#if defined(TH_REAL_IS_COMPLEX)
#ifdef TH__ELEMS
TH__ELEM TH__REAL_OF_COMPLEX TH_PRIVATE(abs_elem)(TH_PRIVATE(ct) x) { return TH__M(abs)(x); }
TH__ELEM bool TH_PRIVATE(isnan_elem)(TH_PRIVATE(ct) x)
{
    TH__REAL_OF_COMPLEX re = TH__RE(x), im = TH__IM(x);
    return re != re || im != im;
}
TH__ELEM bool TH_PRIVATE(isinf_elem)(TH_PRIVATE(ct) x)
{
    TH__REAL_OF_COMPLEX re = TH__RE(x), im = TH__IM(x);
    return re == (TH__REAL_OF_COMPLEX)INFINITY || re == -(TH__REAL_OF_COMPLEX)INFINITY ||
           im == (TH__REAL_OF_COMPLEX)INFINITY || im == -(TH__REAL_OF_COMPLEX)INFINITY;
}
TH__ELEM bool TH_PRIVATE(isfinite_elem)(TH_PRIVATE(ct) x)
{
    TH__REAL_OF_COMPLEX re = TH__RE(x), im = TH__IM(x);
    return re - re == 0 && im - im == 0;
}
/* The conjugate flips the imaginary part's sign bit, NaN and zero included (NumPy's conjugate; PyTorch's
 * conj_physical). The angle is atan2(im, re) in (-pi, pi], in the real dtype of the same precision: the sign
 * of a zero part chooses between pi and -pi and between 0 and -0, as C's carg and NumPy's angle do. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(conj_elem)(TH_PRIVATE(ct) x) { return TH__CONJ(x); }
TH__ELEM TH__REAL_OF_COMPLEX TH_PRIVATE(angle_elem)(TH_PRIVATE(ct) x) { return TH__M(arg)(x); }
#endif
#define TH_OP abs
#define TH_OP_REAL_RESULT
#include "unary_op.h"
#define TH_OP conj
#include "unary_op.h"
#define TH_OP angle
#define TH_OP_REAL_RESULT
#include "unary_op.h"

/* polar(abs, angle) = abs cos(angle) + i abs sin(angle), from two tensors of the real dtype of the same precision
 * (f32 for c64), broadcast together: torch.polar, NumPy's abs * exp(1j * angle) without the complex product's
 * rounding. Named by its result's dtype, as the constructors are: th_c64_polar(abs, angle). Host memory only
 * (the device kernels have no complex dtype). Each part is one product, so abs = inf at angle 0 gives
 * inf + NaN i, as in both peers. */
#if !defined(TH__DEVICE_ELEMS)
#if defined(TH_REAL_IS_C64)
#define TH__POLAR_IN th_f32_tensor
#define TH__POLAR_DT TH_F32
#else
#define TH__POLAR_IN th_f64_tensor
#define TH__POLAR_DT TH_F64
#endif
#ifndef TH__DEFINING
TH_API TH_NAME(tensor) *TH_NAME(polar)(const TH__POLAR_IN *abs, const TH__POLAR_IN *angle);
TH_API int TH_NAME(polar_out)(TH_NAME(tensor) *out, const TH__POLAR_IN *abs, const TH__POLAR_IN *angle);
#else
static void TH_PRIVATE(polar_row)(char **data, const int64_t *s, int64_t n, void *ctx)
{
    (void)ctx;
    for (int64_t i = 0; i < n; i++) {
        TH__REAL_OF_COMPLEX r, t;
        memcpy(&r, data[1] + i * s[1], sizeof r);
        memcpy(&t, data[2] + i * s[2], sizeof t);
#if defined(TH_REAL_IS_C64)
        const float parts[2] = {r * cosf(t), r * sinf(t)};
#else
        const double parts[2] = {r * cos(t), r * sin(t)};
#endif
        memcpy(data[0] + i * s[0], parts, sizeof parts); /* a complex number is laid out as its two parts */
    }
}

static const th__ew_op TH_PRIVATE(polar_op) = {"polar", TH_DT_ENUM, TH_PRIVATE(polar_row)};

static th_tensor *TH_PRIVATE(polar_into)(const char *fn, th_tensor *out, const TH__POLAR_IN *abs,
                                         const TH__POLAR_IN *angle)
{
    if (th__dtype_mismatch(fn, "abs", TH__B(abs), TH__POLAR_DT) ||
        th__dtype_mismatch(fn, "angle", TH__B(angle), TH__POLAR_DT))
        return NULL;
    if (!abs || !angle) {
        th__fail(TH_ERR_INVALID, fn, "NULL %s", abs ? "angle" : "abs");
        return NULL;
    }
    const th_tensor *in[2] = {TH__B(abs), TH__B(angle)};
    for (int i = 0; i < 2; i++)
        if (!th_device_is_host(in[i]->storage->device)) {
            th__fail(TH_ERR_UNSUPPORTED, fn, "%s is in device memory (device type %d): polar runs on the host only",
                     i ? "angle" : "abs", (int)in[i]->storage->device.type);
            return NULL;
        }
    return th__elementwise(fn, out, TH_DT_ENUM, 2, in, &TH_PRIVATE(polar_op), NULL);
}

TH_API TH_NAME(tensor) *TH_NAME(polar)(const TH__POLAR_IN *abs, const TH__POLAR_IN *angle)
{
    return (TH_NAME(tensor) *)TH_PRIVATE(polar_into)(TH__STR(TH_NAME(polar)), NULL, abs, angle);
}

TH_API int TH_NAME(polar_out)(TH_NAME(tensor) *out, const TH__POLAR_IN *abs, const TH__POLAR_IN *angle)
{
    if (TH__WRONG_DTYPE(out)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__STR(TH_NAME(polar_out)), "NULL out");
    return th__status_of(TH_PRIVATE(polar_into)(TH__STR(TH_NAME(polar_out)), TH__B(out), abs, angle));
}
#endif
#undef TH__POLAR_IN
#undef TH__POLAR_DT
#endif
#endif

/* Rounding and classification, stamped once for every kind whose element functions are above. */
#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
#define TH_OP floor
#include "unary_op.h"
#define TH_OP ceil
#include "unary_op.h"
#define TH_OP round
#include "unary_op.h"
#define TH_OP trunc
#include "unary_op.h"
#endif
#if !defined(TH_REAL_IS_BOOL)
#define TH_OP isnan
#define TH_OP_BOOL_RESULT
#include "unary_op.h"
#define TH_OP isinf
#define TH_OP_BOOL_RESULT
#include "unary_op.h"
#define TH_OP isfinite
#define TH_OP_BOOL_RESULT
#include "unary_op.h"
#endif

#ifdef TH__ELEMS
TH__ELEM bool TH_PRIVATE(logical_not_elem)(TH_PRIVATE(ct) x) { return x == 0; }
#endif
#define TH_OP logical_not
#define TH_OP_BOOL_RESULT
#include "unary_op.h"

/* ==== binary ops ==== */

#if !defined(TH_REAL_IS_BOOL)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(add_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
#if defined(TH_REAL_IS_INTEGER)
    return (real)((TH_PRIVATE(ut))a + (TH_PRIVATE(ut))b);
#else
    return a + b;
#endif
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(sub_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
#if defined(TH_REAL_IS_INTEGER)
    return (real)((TH_PRIVATE(ut))a - (TH_PRIVATE(ut))b);
#else
    return a - b;
#endif
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(mul_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
#if defined(TH_REAL_IS_INTEGER)
    return (real)((TH_PRIVATE(ut))a * (TH_PRIVATE(ut))b);
#else
    return a * b;
#endif
}
/* Integers: truncating, C's /. The divisor was checked for zeros; -1 is the one divisor that can
 * overflow (the most negative value), and negating wraps instead. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(div_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
#if defined(TH_REAL_IS_INTEGER)
    if (b == 0) return 0;
    if (TH_PRIVATE(minus_one)(b)) return TH_PRIVATE(neg_elem)(a);
    return (real)(a / b);
#else
    return a / b;
#endif
}
#endif
#define TH_OP add
#include "binary_op.h"
#define TH_OP sub
#include "binary_op.h"
#define TH_OP mul
#include "binary_op.h"
#define TH_OP div
#if defined(TH_REAL_IS_INTEGER)
#define TH_OP_NONZERO_RHS
#endif
#include "binary_op.h"
#endif

#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
#ifdef TH__ELEMS
#if defined(TH_REAL_IS_INTEGER)
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(floor_divide_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
    if (b == 0) return 0;
    if (TH_PRIVATE(minus_one)(b)) return TH_PRIVATE(neg_elem)(a);
    real q = (real)(a / b);
    if (a % b != 0 && TH_PRIVATE(negative)(a) != TH_PRIVATE(negative)(b)) q--;
    return q;
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(remainder_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
    if (b == 0 || TH_PRIVATE(minus_one)(b)) return 0;
    real r = (real)(a % b);
    if (r != 0 && TH_PRIVATE(negative)(r) != TH_PRIVATE(negative)(b)) r = (real)(r + b);
    return r;
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(fmod_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
    if (b == 0 || TH_PRIVATE(minus_one)(b)) return 0;
    return (real)(a % b);
}
#else
/* Python's %: the result takes the divisor's sign. Built on fmod, which is exact, so that
 * a == floor_divide(a, b) * b + remainder(a, b) holds as closely as floating point allows. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(remainder_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
    TH_PRIVATE(ct) m = TH__M(fmod)(a, b);
    if (m != 0) {
        if ((b < 0) != (m < 0)) m += b;
    } else {
        m = TH__M(copysign)((TH_PRIVATE(ct))0, b);
    }
    return m;
}
/* Python's //: (a - remainder) / b is exact up to one rounding; round that quotient to the nearest
 * integer rather than flooring it, so a quotient that lands just under an integer is not pushed down. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(floor_divide_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
    if (b == 0) return a / b;
    TH_PRIVATE(ct) m = TH__M(fmod)(a, b);
    TH_PRIVATE(ct) q = (a - m) / b;
    if (m != 0 && ((b < 0) != (m < 0))) q -= 1;
    if (q == 0) return TH__M(copysign)((TH_PRIVATE(ct))0, a / b);
    TH_PRIVATE(ct) f = TH__M(floor)(q);
    if (q - f > (TH_PRIVATE(ct))0.5) f += 1;
    return f;
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(fmod_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return TH__M(fmod)(a, b); }
#endif
#endif
#define TH_OP floor_divide
#if defined(TH_REAL_IS_INTEGER)
#define TH_OP_NONZERO_RHS
#endif
#include "binary_op.h"
#define TH_OP remainder
#if defined(TH_REAL_IS_INTEGER)
#define TH_OP_NONZERO_RHS
#endif
#include "binary_op.h"
#define TH_OP fmod
#if defined(TH_REAL_IS_INTEGER)
#define TH_OP_NONZERO_RHS
#endif
#include "binary_op.h"
#endif

/* Ordered dtypes, bool among them (false < true, as in NumPy and PyTorch). */
#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING) || defined(TH_REAL_IS_BOOL)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(maximum_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
    return (a > b || TH_PRIVATE(nan)(a)) ? a : b; /* a NaN b wins either way */
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(minimum_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
    return (a < b || TH_PRIVATE(nan)(a)) ? a : b;
}
TH__ELEM bool TH_PRIVATE(lt_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return a < b; }
TH__ELEM bool TH_PRIVATE(le_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return a <= b; }
TH__ELEM bool TH_PRIVATE(gt_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return a > b; }
TH__ELEM bool TH_PRIVATE(ge_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return a >= b; }
#endif
#define TH_OP maximum
#include "binary_op.h"
#define TH_OP minimum
#include "binary_op.h"
#define TH_OP lt
#define TH_OP_BOOL_RESULT
#include "binary_op.h"
#define TH_OP le
#define TH_OP_BOOL_RESULT
#include "binary_op.h"
#define TH_OP gt
#define TH_OP_BOOL_RESULT
#include "binary_op.h"
#define TH_OP ge
#define TH_OP_BOOL_RESULT
#include "binary_op.h"
#endif

#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING) || defined(TH_REAL_IS_COMPLEX)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(pow_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
#if defined(TH_REAL_IS_INTEGER)
    /* Square and multiply, wrapping; negative exponents were refused. */
    if (TH_PRIVATE(negative)(b)) return 0;
    TH_PRIVATE(ut) r = 1, base = (TH_PRIVATE(ut))a;
    for (uint64_t e = (uint64_t)b; e; e >>= 1) {
        if (e & 1) r *= base;
        base *= base;
    }
    return (real)r;
#else
    return TH__M(pow)(a, b);
#endif
}
#endif
#define TH_OP pow
#if defined(TH_REAL_IS_INTEGER)
#define TH_OP_NONNEGATIVE_RHS
#endif
#include "binary_op.h"
#endif

#if defined(TH_REAL_IS_FLOATING)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(atan2_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return TH__M(atan2)(a, b); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(hypot_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return TH__M(hypot)(a, b); }
#endif
#define TH_OP atan2
#include "binary_op.h"
#define TH_OP hypot
#include "binary_op.h"
#endif

#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_BOOL)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(bitwise_and_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return (real)(a & b); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(bitwise_or_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return (real)(a | b); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(bitwise_xor_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return (real)(a ^ b); }
#endif
#define TH_OP bitwise_and
#include "binary_op.h"
#define TH_OP bitwise_or
#include "binary_op.h"
#define TH_OP bitwise_xor
#include "binary_op.h"
#endif

#if defined(TH_REAL_IS_INTEGER)
#ifdef TH__ELEMS
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(shift_left_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
    if (TH_PRIVATE(negative)(b) || (int64_t)b >= TH__BITS) return 0;
    return (real)((TH_PRIVATE(ut))a << b);
}
/* Arithmetic for signed dtypes: ~(~a >> b) shifts a negative value without relying on how C shifts one. */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(shift_right_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b)
{
    bool fill = TH_PRIVATE(negative)(a);
    if (TH_PRIVATE(negative)(b) || (int64_t)b >= TH__BITS) return fill ? (real)-1 : 0;
    return fill ? (real)~(~a >> b) : (real)(a >> b);
}
#endif
#define TH_OP shift_left
#include "binary_op.h"
#define TH_OP shift_right
#include "binary_op.h"
#endif

/* eq and ne for every dtype; the logical ops treat nonzero (NaN included) as true. */
#ifdef TH__ELEMS
TH__ELEM bool TH_PRIVATE(eq_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return a == b; }
TH__ELEM bool TH_PRIVATE(ne_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return a != b; }
TH__ELEM bool TH_PRIVATE(logical_and_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return a != 0 && b != 0; }
TH__ELEM bool TH_PRIVATE(logical_or_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return a != 0 || b != 0; }
TH__ELEM bool TH_PRIVATE(logical_xor_elem)(TH_PRIVATE(ct) a, TH_PRIVATE(ct) b) { return (a != 0) != (b != 0); }
#endif
#define TH_OP eq
#define TH_OP_BOOL_RESULT
#include "binary_op.h"
#define TH_OP ne
#define TH_OP_BOOL_RESULT
#include "binary_op.h"
#define TH_OP logical_and
#define TH_OP_BOOL_RESULT
#include "binary_op.h"
#define TH_OP logical_or
#define TH_OP_BOOL_RESULT
#include "binary_op.h"
#define TH_OP logical_xor
#define TH_OP_BOOL_RESULT
#include "binary_op.h"

#include "ternary.h"
#include "activation.h"

#ifdef TH__ELEMS
#undef TH__M
#undef TH__BITS
#undef TH__REAL_OF_COMPLEX
#undef TH__RE
#undef TH__IM
#undef TH__CONJ
#endif
#undef TH__ELEMS
