/* core/elem.h: the element types: float16 and bfloat16 (16-bit structs with correctly rounded conversions) and
 * complex64/128.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/elem.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* float16 (IEEE binary16) and bfloat16 are stored as their 16 bits; arithmetic converts to float.
 * The struct keeps the ABI the same in C and C++ whatever the compiler knows about _Float16. */
typedef struct th_float16 { uint16_t bits; } th_float16;
typedef struct th_bfloat16 { uint16_t bits; } th_bfloat16;

#ifdef __cplusplus
/* C++ has no _Complex. Two-member structs of float or double have the same layout and are passed and
 * returned in the same registers as C's complex types (x86-64 SysV and AArch64 alike); their layout is also
 * that of std::complex, so a C++ caller may reinterpret one as the other. */
typedef struct th_complex64 { float re, im; } th_complex64;
typedef struct th_complex128 { double re, im; } th_complex128;
#else
typedef float _Complex th_complex64;
typedef double _Complex th_complex128;
#endif

/* Correctly rounded (round to nearest, ties to even) conversions; NaN stays NaN, infinities stay infinite. */
TH_API float th_float16_to_float(th_float16 h);
TH_API th_float16 th_float16_from_float(float f);
TH_API th_float16 th_float16_from_double(double d);
TH_API float th_bfloat16_to_float(th_bfloat16 h);
TH_API th_bfloat16 th_bfloat16_from_float(float f);
TH_API th_bfloat16 th_bfloat16_from_double(double d);

#else /* TH__DEFINING */

/* Rounds d to the nearest value (ties to even) of a binary format with mant_bits fraction bits and
 * exp_bits exponent bits, and returns its 16-bit encoding. Exact steps only: ldexp, floor and frexp
 * scale by powers of two, so the one rounding happens here. */
static uint16_t th__narrow_from_double(double d, int mant_bits, int exp_bits)
{
    const uint16_t sign = signbit(d) ? (uint16_t)0x8000u : 0;
    const uint16_t inf = (uint16_t)(((1u << exp_bits) - 1u) << mant_bits);
    if (isnan(d)) return (uint16_t)(sign | inf | (1u << (mant_bits - 1)));
    double a = fabs(d);
    if (isinf(a)) return (uint16_t)(sign | inf);
    if (a == 0.0) return sign;
    const int bias = (1 << (exp_bits - 1)) - 1;
    const int emin = 1 - bias;
    int e2;
    (void)frexp(a, &e2);
    int e = e2 - 1; /* a = 1.f * 2^e */
    if (e > bias) return (uint16_t)(sign | inf);
    int ulp_exp = (e >= emin ? e : emin) - mant_bits;
    double q = ldexp(a, -ulp_exp);
    double fl = floor(q);
    double rem = q - fl;
    uint32_t n = (uint32_t)fl;
    if (rem > 0.5 || (rem == 0.5 && (n & 1u))) n++;
    if (e < emin) return (uint16_t)(sign | n); /* subnormal; n == 2^mant_bits encodes the least normal */
    if (n == (1u << (mant_bits + 1))) {        /* rounding carried into the next binade */
        n >>= 1;
        e++;
        if (e > bias) return (uint16_t)(sign | inf);
    }
    return (uint16_t)(sign | ((uint32_t)(e + bias) << mant_bits) | (n - (1u << mant_bits)));
}

static float th__f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

TH_API float th_float16_to_float(th_float16 h)
{
#ifdef TH__HAVE_FLOAT16
    th__native_f16 x;
    memcpy(&x, &h.bits, sizeof x);
    return (float)x;
#else
    uint32_t sign = (uint32_t)(h.bits >> 15) << 31;
    uint32_t exp = (h.bits >> 10) & 0x1fu, frac = h.bits & 0x3ffu;
    if (exp == 0x1f) return th__f32_from_bits(sign | 0x7f800000u | (frac << 13));
    float mag = exp == 0 ? ldexpf((float)frac, -24) : ldexpf((float)(frac | 0x400u), (int)exp - 25);
    return sign ? -mag : mag;
#endif
}

TH_API th_float16 th_float16_from_double(double d)
{
    th_float16 h;
#ifdef TH__HAVE_FLOAT16
    th__native_f16 x = (th__native_f16)d;
    memcpy(&h.bits, &x, sizeof h.bits);
#else
    h.bits = th__narrow_from_double(d, 10, 5);
#endif
    return h;
}

TH_API th_float16 th_float16_from_float(float f)
{
#ifdef TH__HAVE_FLOAT16
    th_float16 h;
    th__native_f16 x = (th__native_f16)f;
    memcpy(&h.bits, &x, sizeof h.bits);
    return h;
#else
    return th_float16_from_double((double)f); /* float -> double is exact: one rounding */
#endif
}

TH_API float th_bfloat16_to_float(th_bfloat16 h) { return th__f32_from_bits((uint32_t)h.bits << 16); }

TH_API th_bfloat16 th_bfloat16_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    th_bfloat16 h;
    if (isnan(f)) {
        h.bits = (uint16_t)((u >> 16) | 0x40u); /* keep sign and payload top, force quiet */
        return h;
    }
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even on the dropped 16 bits */
    h.bits = (uint16_t)(u >> 16);
    return h;
}

TH_API th_bfloat16 th_bfloat16_from_double(double d)
{
    th_bfloat16 h;
    h.bits = th__narrow_from_double(d, 7, 8);
    return h;
}

/* int64 -> double rounded to odd when inexact. A 53-bit value rounded to odd then rounded again to
 * 24 or fewer bits gives the same result as rounding the int64 once, which a plain (double) cast would not
 * (it can land exactly on a midpoint of the narrower format). */
TH__MAYBE_UNUSED static double th__i64_to_f64_round_odd(int64_t v)
{
    uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
    if (u < (UINT64_C(1) << 53)) return (double)v;
    int shift = 0;
    while ((u >> shift) >= (UINT64_C(1) << 53)) shift++;
    uint64_t kept = u >> shift;
    if (u & ((UINT64_C(1) << shift) - 1u)) kept |= 1u;
    double mag = ldexp((double)kept, shift);
    return v < 0 ? -mag : mag;
}

/* double -> integer: truncate toward zero, saturate at [lo, hi], NaN -> 0 (a C cast would be undefined). */
TH__MAYBE_UNUSED static int64_t th__f64_to_int_saturating(double v, int64_t lo, int64_t hi)
{
    if (isnan(v)) return 0;
    if (v <= (double)lo) return lo;
    if (v >= (double)hi) return hi; /* (double)INT64_MAX is 2^63: every value at or above saturates */
    return (int64_t)v;
}

TH__MAYBE_UNUSED static double th__c128_real(th_complex128 z) { return (double)z; }
TH__MAYBE_UNUSED static double th__c128_imag(th_complex128 z)
{
    double p[2];
    memcpy(p, &z, sizeof p);
    return p[1];
}
TH__MAYBE_UNUSED static th_complex128 th__c128_make(double re, double im)
{
    th_complex128 z;
    double p[2] = {re, im};
    memcpy(&z, p, sizeof z);
    return z;
}
TH__MAYBE_UNUSED static th_complex64 th__c64_make(float re, float im)
{
    th_complex64 z;
    float p[2] = {re, im};
    memcpy(&z, p, sizeof z);
    return z;
}

#endif /* TH__DEFINING */
