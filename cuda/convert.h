/* cuda/convert.h: one element of any dtype to any other, by the CPU's rules (core/copy.h), written once for
 * the host and the device.
 *
 * The copy kernels (cuda/copy_kernels.cu) convert with these functions on the device; the host tests run the
 * very same text against th_tensor_copy over all 144 dtype pairs, so "bit-identical to the CPU" is checked on
 * machines without a GPU. The rules: through one of three wide types (int64, double, complex double), chosen
 * per pair as the CPU chooses; to bool, nonzero (NaN too) is true; floating to integer truncates toward zero,
 * saturates, NaN gives 0; integer to narrower integer wraps; complex to real keeps the real part; int64 to a
 * float narrower than double is rounded to odd in a double first, so it rounds once; everything else rounds to
 * nearest even. float16 and bfloat16 are converted on their bits (no library call, the same on both sides).
 * NaNs stay NaN with their sign; their payload bits are not promised to match the CPU's (which depends on the
 * compiler's _Float16). Needs tensor.h's declarations (th_dtype) before it. */
#ifndef TH_CUDA_CONVERT_H
#define TH_CUDA_CONVERT_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define TH__HD static inline __host__ __device__
#else
#define TH__HD static inline
#endif

/* The wide complex type, as two doubles (C's _Complex and C++'s std::complex do not both exist on both sides). */
typedef struct th__cv_c128 {
    double re, im;
} th__cv_c128;

TH__HD float th__cv_f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* double -> a 16-bit float with mant fraction bits and expb exponent bits, rounded once to nearest even. */
TH__HD uint16_t th__cv_narrow16(double d, int mant, int expb)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    const uint16_t sign = (uint16_t)((u >> 63) ? 0x8000u : 0u);
    const int e = (int)((u >> 52) & 0x7ffu);
    const uint64_t f = u & ((UINT64_C(1) << 52) - 1u);
    const uint16_t inf = (uint16_t)(((1u << expb) - 1u) << mant);
    if (e == 0x7ff) return (uint16_t)(f ? (sign | inf | (1u << (mant - 1))) : (sign | inf));
    if (e == 0) return sign; /* zero, or a double subnormal: far below half of either format's least value */
    const int bias = (1 << (expb - 1)) - 1, emin = 1 - bias;
    int E = e - 1023;
    if (E > bias) return (uint16_t)(sign | inf);
    const uint64_t m53 = f | (UINT64_C(1) << 52); /* d = m53 * 2^(E - 52) */
    const int ulp = (E >= emin ? E : emin) - mant;
    const int shift = ulp - (E - 52);
    if (shift > 63) return sign; /* below a quarter of the least subnormal */
    uint64_t q = m53 >> shift;
    const uint64_t rem = m53 & ((UINT64_C(1) << shift) - 1u), half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) q++;
    if (E < emin) return (uint16_t)(sign | q); /* subnormal; q == 2^mant is the least normal's encoding */
    if (q == (UINT64_C(1) << (mant + 1))) {    /* rounding carried into the next binade */
        q >>= 1;
        E++;
        if (E > bias) return (uint16_t)(sign | inf);
    }
    return (uint16_t)(sign | ((uint32_t)(E + bias) << mant) | (uint32_t)(q - (UINT64_C(1) << mant)));
}

TH__HD float th__cv_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1fu, frac = h & 0x3ffu;
    if (exp == 0x1f) return th__cv_f32_from_bits(sign | 0x7f800000u | (frac << 13));
    if (exp == 0) {
        if (frac == 0) return th__cv_f32_from_bits(sign);
        uint32_t k = 0; /* normalise the subnormal: frac * 2^-24 = 1.m * 2^(-14 - k) */
        while (!(frac & 0x400u)) {
            frac <<= 1;
            k++;
        }
        return th__cv_f32_from_bits(sign | ((113u - k) << 23) | ((frac & 0x3ffu) << 13));
    }
    return th__cv_f32_from_bits(sign | ((exp + 112u) << 23) | (frac << 13));
}

TH__HD float th__cv_bf16_to_float(uint16_t h) { return th__cv_f32_from_bits((uint32_t)h << 16); }

/* float -> bfloat16 as the CPU's th_bfloat16_from_float rounds it (nearest even on the dropped 16 bits; a NaN
 * keeps its sign and top payload, made quiet): the result an elementwise op on bf16 stores. */
TH__HD uint16_t th__cv_bf16_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* float -> float16, rounded once to nearest even (float -> double is exact). */
TH__HD uint16_t th__cv_half_from_float(float f) { return th__cv_narrow16((double)f, 10, 5); }

/* int64 -> double rounded to odd when inexact, so that one more rounding to 24 or fewer bits equals rounding
 * the int64 once. */
TH__HD double th__cv_i64_to_f64_round_odd(int64_t v)
{
    uint64_t a = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
    if (a < (UINT64_C(1) << 53)) return (double)v;
    int shift = 0;
    while ((a >> shift) >= (UINT64_C(1) << 53)) shift++;
    uint64_t kept = a >> shift;
    if (a & ((UINT64_C(1) << shift) - 1u)) kept |= 1u;
    double mag = (double)kept; /* exact: kept < 2^53 */
    for (int i = 0; i < shift; i++) mag *= 2.0;
    return v < 0 ? -mag : mag;
}

/* double -> integer: truncate toward zero, saturate at [lo, hi], NaN -> 0. */
TH__HD int64_t th__cv_f64_to_int(double v, int64_t lo, int64_t hi)
{
    if (v != v) return 0;
    if (v <= (double)lo) return lo;
    if (v >= (double)hi) return hi;
    return (int64_t)v;
}

typedef enum th__cv_wide { TH__CV_I64, TH__CV_F64, TH__CV_C128 } th__cv_wide;

TH__HD bool th__cv_is_complex(int dt) { return dt == TH_C64 || dt == TH_C128; }
TH__HD bool th__cv_is_floating(int dt) { return dt == TH_F16 || dt == TH_BF16 || dt == TH_F32 || dt == TH_F64; }

/* The wide type a conversion from src to dst goes through: as th_tensor_copy chooses. */
TH__HD th__cv_wide th__cv_wide_for(int src, int dst)
{
    if (th__cv_is_complex(src) || (th__cv_is_complex(dst) && th__cv_is_floating(src))) return TH__CV_C128;
    return th__cv_is_floating(src) ? TH__CV_F64 : TH__CV_I64;
}

/* One element at p of dtype dt, read into each wide type. */
TH__HD double th__cv_load_f64(const unsigned char *p, int dt)
{
    switch (dt) {
    case TH_BOOL: return p[0] != 0 ? 1.0 : 0.0;
    case TH_U8: return (double)p[0];
    case TH_I8: { int8_t x; memcpy(&x, p, 1); return (double)x; }
    case TH_I16: { int16_t x; memcpy(&x, p, 2); return (double)x; }
    case TH_I32: { int32_t x; memcpy(&x, p, 4); return (double)x; }
    case TH_I64: { int64_t x; memcpy(&x, p, 8); return (double)x; }
    case TH_F16: { uint16_t x; memcpy(&x, p, 2); return (double)th__cv_half_to_float(x); }
    case TH_BF16: { uint16_t x; memcpy(&x, p, 2); return (double)th__cv_bf16_to_float(x); }
    case TH_F32: case TH_C64: { float x; memcpy(&x, p, 4); return (double)x; }
    default: { double x; memcpy(&x, p, 8); return x; } /* f64, c128: the real part */
    }
}

TH__HD int64_t th__cv_load_i64(const unsigned char *p, int dt)
{
    switch (dt) {
    case TH_BOOL: return p[0] != 0;
    case TH_U8: return p[0];
    case TH_I8: { int8_t x; memcpy(&x, p, 1); return x; }
    case TH_I16: { int16_t x; memcpy(&x, p, 2); return x; }
    case TH_I32: { int32_t x; memcpy(&x, p, 4); return x; }
    case TH_I64: { int64_t x; memcpy(&x, p, 8); return x; }
    default: return th__cv_f64_to_int(th__cv_load_f64(p, dt), INT64_MIN, INT64_MAX);
    }
}

TH__HD th__cv_c128 th__cv_load_c128(const unsigned char *p, int dt)
{
    th__cv_c128 z = {0.0, 0.0};
    if (dt == TH_C64) {
        float parts[2];
        memcpy(parts, p, sizeof parts);
        z.re = parts[0];
        z.im = parts[1];
    } else if (dt == TH_C128) {
        memcpy(&z, p, sizeof z);
    } else {
        z.re = th__cv_load_f64(p, dt);
    }
    return z;
}

/* One element of dtype dt written at p from each wide type. */
TH__HD void th__cv_store_f64(unsigned char *p, int dt, double v)
{
    switch (dt) {
    case TH_BOOL: p[0] = v != 0.0; break; /* NaN is true */
    case TH_U8: p[0] = (uint8_t)th__cv_f64_to_int(v, 0, UINT8_MAX); break;
    case TH_I8: { int8_t x = (int8_t)th__cv_f64_to_int(v, INT8_MIN, INT8_MAX); memcpy(p, &x, 1); break; }
    case TH_I16: { int16_t x = (int16_t)th__cv_f64_to_int(v, INT16_MIN, INT16_MAX); memcpy(p, &x, 2); break; }
    case TH_I32: { int32_t x = (int32_t)th__cv_f64_to_int(v, INT32_MIN, INT32_MAX); memcpy(p, &x, 4); break; }
    case TH_I64: { int64_t x = th__cv_f64_to_int(v, INT64_MIN, INT64_MAX); memcpy(p, &x, 8); break; }
    case TH_F16: { uint16_t x = th__cv_narrow16(v, 10, 5); memcpy(p, &x, 2); break; }
    case TH_BF16: { uint16_t x = th__cv_narrow16(v, 7, 8); memcpy(p, &x, 2); break; }
    case TH_F32: { float x = (float)v; memcpy(p, &x, 4); break; }
    case TH_F64: memcpy(p, &v, 8); break;
    case TH_C64: { float x[2] = {(float)v, 0.0f}; memcpy(p, x, 8); break; }
    default: { double x[2] = {v, 0.0}; memcpy(p, x, 16); break; }
    }
}

TH__HD void th__cv_store_i64(unsigned char *p, int dt, int64_t v)
{
    switch (dt) {
    case TH_BOOL: p[0] = v != 0; break;
    case TH_U8: case TH_I8: { uint8_t x = (uint8_t)(uint64_t)v; memcpy(p, &x, 1); break; } /* wraps */
    case TH_I16: { uint16_t x = (uint16_t)(uint64_t)v; memcpy(p, &x, 2); break; }
    case TH_I32: { uint32_t x = (uint32_t)(uint64_t)v; memcpy(p, &x, 4); break; }
    case TH_I64: memcpy(p, &v, 8); break;
    case TH_F64: { double x = (double)v; memcpy(p, &x, 8); break; }
    case TH_C128: { double x[2] = {(double)v, 0.0}; memcpy(p, x, 16); break; }
    default: th__cv_store_f64(p, dt, th__cv_i64_to_f64_round_odd(v)); break; /* f16, bf16, f32, c64 */
    }
}

TH__HD void th__cv_store_c128(unsigned char *p, int dt, th__cv_c128 z)
{
    if (dt == TH_BOOL) {
        p[0] = z.re != 0.0 || z.im != 0.0;
    } else if (dt == TH_C64) {
        float x[2] = {(float)z.re, (float)z.im};
        memcpy(p, x, sizeof x);
    } else if (dt == TH_C128) {
        memcpy(p, &z, sizeof z);
    } else {
        th__cv_store_f64(p, dt, z.re);
    }
}

/* One element of src (dtype sdt) converted into dst (dtype ddt). */
TH__HD void th__cv_convert(unsigned char *dst, int ddt, const unsigned char *src, int sdt)
{
    switch (th__cv_wide_for(sdt, ddt)) {
    case TH__CV_I64: th__cv_store_i64(dst, ddt, th__cv_load_i64(src, sdt)); break;
    case TH__CV_F64: th__cv_store_f64(dst, ddt, th__cv_load_f64(src, sdt)); break;
    case TH__CV_C128: th__cv_store_c128(dst, ddt, th__cv_load_c128(src, sdt)); break;
    }
}

#endif
