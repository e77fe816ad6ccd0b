/* core/vecmath.h: vectorised exp, tanh, sigmoid, log, expm1 and erf over contiguous float32 rows (exp and tanh
 * over float64 ones), with the SIMD level chosen at run time. Dtype-independent; included twice by tensor.h.
 * No public API: the elementwise family calls th__vec_<op>_<f32|f64>(out, in, n) from its contiguous rows (out
 * may equal in, but must not overlap it otherwise).  Each function is written once, as an always-inlined
 * function of one element without branches (its selects are bit masks), and one loop per op calls it. The
 * loops are compiled three times: for the x86-64 baseline (SSE2), under target("avx2,fma") and under
 * target("avx512f,fma"); the compiler vectorises each copy for its instruction set, so the math is never
 * written out per vector width. The "fused" argument says whether a copy may use fmaf (one instruction there)
 * or must multiply and add (fmaf is a library call on the baseline). th__simd_level() picks the copy once per
 * process: the best the CPU has, lowered by the environment variable TH_SIMD=baseline|avx2|avx512. Other
 * architectures and compilers get the portable copy.  Max error against the exact result, in ulps of the
 * result, at the worst level (the levels differ only in fused or unfused multiply-adds; tests/test_vecmath.c
 * checks these bounds): float32  exp 1.01, tanh 1.47 (all 2^32 inputs); sigmoid 2.41, expm1 1.52, erf 1.30
 * (every input with |x| in [2^-26, 104]), log 0.91 (every subnormal and every x in [2^-8, 2^8]); sampled
 * elsewhere float64  exp 1.00, tanh 1.45 (2^20 samples and the edges) Special values as C's functions: NaN
 * stays NaN, results overflow to inf and underflow through the subnormals to 0, exp(-0) = 1, tanh, expm1 and
 * erf keep the sign of 0. */
#ifndef TENSOR_H
#error "core/vecmath.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Nothing public: the kernels are implementation details of the elementwise family. */

#else

/* ---- th__ vecmath: SIMD levels and their run-time choice ---------------------------------- */

enum { TH__SIMD_BASELINE = 0, TH__SIMD_AVX2 = 1, TH__SIMD_AVX512 = 2 };

#if defined(__GNUC__) && defined(__x86_64__)
#define TH__VEC_X86 1
#define TH__VEC_AVX2 __attribute__((target("avx2,fma")))
#define TH__VEC_AVX512 __attribute__((target("avx512f,fma")))
#endif

#if defined(__GNUC__)
/* The per-element functions must inline into each target-specific loop, whatever the optimisation level,
 * or the loop cannot be vectorised. */
#define TH__VEC_INLINE static inline __attribute__((always_inline))
#else
#define TH__VEC_INLINE static inline
#endif

/* The best level this CPU (and its OS, which must save the wider registers) supports. */
TH__MAYBE_UNUSED static int th__simd_best(void)
{
#ifdef TH__VEC_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")) return TH__SIMD_AVX512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return TH__SIMD_AVX2;
#endif
    return TH__SIMD_BASELINE;
}

/* The level to use given TH_SIMD's value (NULL when unset) and the best the CPU has: TH_SIMD may only lower
 * it. An unknown value is ignored. */
TH__MAYBE_UNUSED static int th__simd_parse(const char *env, int best)
{
    int want = best;
    if (env && strcmp(env, "baseline") == 0) want = TH__SIMD_BASELINE;
    if (env && strcmp(env, "avx2") == 0) want = TH__SIMD_AVX2;
    if (env && strcmp(env, "avx512") == 0) want = TH__SIMD_AVX512;
    return want < best ? want : best;
}

TH__MAYBE_UNUSED static const char *th__simd_name(int level)
{
    return level == TH__SIMD_AVX512 ? "avx512" : level == TH__SIMD_AVX2 ? "avx2" : "baseline";
}

/* Global mutable state, on purpose: the level depends only on the CPU and on TH_SIMD, neither of which
 * changes while the process runs, so it is worked out once (getenv and cpuid per row would cost more than a
 * short row). Threads racing through the first call store the same value. -1: not worked out yet. */
static atomic_int th__simd_cached = -1;

TH__MAYBE_UNUSED static int th__simd_level(void)
{
    int level = atomic_load_explicit(&th__simd_cached, memory_order_relaxed);
    if (level < 0) {
        level = th__simd_parse(getenv("TH_SIMD"), th__simd_best());
        atomic_store_explicit(&th__simd_cached, level, memory_order_relaxed);
    }
    return level;
}

/* ---- th__ vecmath: per-element building blocks ------------------------------------------- */

TH__VEC_INLINE uint32_t th__vec_bits_f32(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

TH__VEC_INLINE float th__vec_f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

TH__VEC_INLINE uint64_t th__vec_bits_f64(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

TH__VEC_INLINE double th__vec_f64_from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* when ? a : b by masks. With ?: (or && in the condition) gcc may turn the select into a branch and move the
 * computation of one side under it, and a loop with a branch around floating-point work (which might trap)
 * is not vectorised. Every select in these functions goes through these two. */
TH__VEC_INLINE uint32_t th__vec_select_u32(bool when, uint32_t a, uint32_t b)
{
    uint32_t mask = 0u - (uint32_t)when;
    return (a & mask) | (b & ~mask);
}

TH__VEC_INLINE uint64_t th__vec_select_u64(bool when, uint64_t a, uint64_t b)
{
    uint64_t mask = 0u - (uint64_t)when;
    return (a & mask) | (b & ~mask);
}

/* a * b + c, rounded once when fused (only where fmaf is an instruction), twice otherwise. */
TH__VEC_INLINE float th__vec_mla_f32(float a, float b, float c, bool fused)
{
    return fused ? fmaf(a, b, c) : a * b + c;
}

TH__VEC_INLINE double th__vec_mla_f64(double a, double b, double c, bool fused)
{
    return fused ? fma(a, b, c) : a * b + c;
}

/* ---- th__ vecmath: float32 functions of one element -------------------------------------- */

/* The shared part of exp and expm1: k and r with x = k ln2 + r, |r| <= ln2/2 (Cody and Waite: ln2 in two
 * parts, the first with enough trailing zeros that k * ln2_hi is exact for |k| < 256), and expm1(r) =
 * r + r^2 q(r), q of degree 4 (minimax for the relative error of exp(r) on |r| <= 0.354: 3.5e-9). t holds k
 * in its low bits (t = k + 1.5 * 2^23). */
TH__VEC_INLINE float th__vec_expm1_reduced_f32(float x, float *t, bool fused)
{
    const float shift = 0x1.8p23f; /* adding it rounds a float below 2^22 in magnitude to an integer */
    *t = th__vec_mla_f32(x, 0x1.715476p+0f /* 1/ln2 */, shift, fused);
    float k = *t - shift;
    float r = th__vec_mla_f32(-k, 0x1.62e4p-1f /* ln2_hi */, x, fused);
    r = th__vec_mla_f32(-k, 0x1.7f7d1cp-20f /* ln2 - ln2_hi */, r, fused);
    float q = th__vec_mla_f32(0.00138116508f, r, 0.0083701404f, fused);
    q = th__vec_mla_f32(q, r, 0.0416685288f, fused);
    q = th__vec_mla_f32(q, r, 0.166665087f, fused);
    q = th__vec_mla_f32(q, r, 0.499999926f, fused);
    return th__vec_mla_f32(r * r, q, r, fused);
}

/* x limited to [lo, hi]; NaN passes (its compares are false). Float compares into integer selects: gcc keeps
 * a float ?: as a branch on the baseline (the compare might trap), which stops the vectoriser. */
TH__VEC_INLINE float th__vec_limit_f32(float x, float lo, float hi)
{
    float above_lo = th__vec_f32_from_bits(th__vec_select_u32(lo > x, th__vec_bits_f32(lo), th__vec_bits_f32(x)));
    return th__vec_f32_from_bits(th__vec_select_u32(hi < above_lo, th__vec_bits_f32(hi), th__vec_bits_f32(above_lo)));
}

/* exp(x): exp(r) * 2^k, with 2^k applied as two factors 2^k1 * 2^k2 so that results near overflow and in the
 * subnormal range are rounded once, like a correctly rounded exp. |x| is first limited to 100 (x > 0) and
 * 110 (x < 0), past which the result is inf or 0 anyway, so that k1 and k2 stay in range. NaN stays NaN. */
TH__VEC_INLINE float th__vec_exp_f32_one(float x, bool fused)
{
    float t, xc = th__vec_limit_f32(x, -110.0f, 100.0f);
    float p = 1.0f + th__vec_expm1_reduced_f32(xc, &t, fused);
    /* k in [-159, 145]; k + 256 is positive, so halving it is floor division */
    uint32_t kb = th__vec_bits_f32(t) - th__vec_bits_f32(0x1.8p23f) + 256u;
    uint32_t k1 = kb >> 1, k2 = kb - k1; /* each is its share of k, plus 128 */
    float s1 = th__vec_f32_from_bits((k1 - 1u) << 23), s2 = th__vec_f32_from_bits((k2 - 1u) << 23);
    return p * s1 * s2;
}

/* expm1(x) = 2^k expm1(r) + (2^k - 1), computed as 2 (s expm1(r) + (s - 1/2)) with s = 2^(k-1) so that k = 128
 * (x just below the overflow) needs no 2^128; one rounding in the sum, the doubling is exact. |x| is limited
 * to 89 above (the result is inf from 88.73 on) and 40 below (-1 from -17.4 on); below 2^-25 the result is x
 * (which keeps -0). */
TH__VEC_INLINE float th__vec_expm1_f32_one(float x, bool fused)
{
    float t, xc = th__vec_limit_f32(x, -40.0f, 89.0f);
    float em = th__vec_expm1_reduced_f32(xc, &t, fused);
    uint32_t k = th__vec_bits_f32(t) - th__vec_bits_f32(0x1.8p23f); /* k in [-58, 128], modulo 2^32 */
    float s = th__vec_f32_from_bits((k + 126u) << 23);
    float y = 2.0f * th__vec_mla_f32(s, em, s - 0.5f, fused);
    uint32_t u = th__vec_bits_f32(x);
    return th__vec_f32_from_bits(th__vec_select_u32((u & 0x7fffffffu) < 0x33000000u, u, th__vec_bits_f32(y)));
}

/* tanh(x), from |x| with x's sign put back (so tanh(-0) = -0). Below 0.55 (where tanh < 0.5):
 * x + x^3 P(x^2), P of degree 4 (minimax for the relative error of tanh: 1.3e-9); tiny and subnormal x
 * come out as x. From 0.55 on: 1 - 2 / (exp(2|x|) + 1), whose subtraction loses nothing because the result
 * is at least 0.5; exp overflowing to inf gives exactly 1. */
TH__VEC_INLINE float th__vec_tanh_f32_one(float x, bool fused)
{
    uint32_t u = th__vec_bits_f32(x);
    float a = th__vec_f32_from_bits(u & 0x7fffffffu);
    float z = a * a;
    float p = th__vec_mla_f32(-0.00619872588f, z, 0.0210205559f, fused);
    p = th__vec_mla_f32(p, z, -0.0538405192f, fused);
    p = th__vec_mla_f32(p, z, 0.133324806f, fused);
    p = th__vec_mla_f32(p, z, -0.333333147f, fused);
    float small = th__vec_mla_f32(a * z, p, a, fused);
    float large = 1.0f - 2.0f / (th__vec_exp_f32_one(a + a, fused) + 1.0f);
    uint32_t mag = th__vec_select_u32((u & 0x7fffffffu) < 0x3f0ccccdu /* 0.55 */, th__vec_bits_f32(small),
                                      th__vec_bits_f32(large));
    return th__vec_f32_from_bits(mag | (u & 0x80000000u));
}

/* sigmoid(x) = 1 / (1 + exp(-x)), as n / (1 + e) with e = exp(-|x|) <= 1 and n = 1 for x >= 0, n = e for
 * x < 0: exp never overflows, and results far below 1 keep their relative accuracy down to the subnormals. */
TH__VEC_INLINE float th__vec_sigmoid_f32_one(float x, bool fused)
{
    uint32_t u = th__vec_bits_f32(x);
    float e = th__vec_exp_f32_one(th__vec_f32_from_bits(u | 0x80000000u), fused);
    float n = th__vec_f32_from_bits(th__vec_select_u32(u >> 31, th__vec_bits_f32(e), 0x3f800000u /* 1 */));
    return n / (1.0f + e);
}

/* log(x) = k ln2 + log1p(f), x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)) (subnormals scaled by 2^23
 * first). log1p(f) = f - (f^2/2 - s (f^2/2 + R)), s = f / (2 + f), R = s^2 P(s^2) with P of degree 2 (minimax
 * for the relative error of log1p: 8.4e-10): the rounding of s only touches the small correction term.
 * log(+-0) = -inf, log(x < 0) = NaN, log(inf) = inf, NaN stays NaN. */
TH__VEC_INLINE float th__vec_log_f32_one(float x, bool fused)
{
    uint32_t u = th__vec_bits_f32(x);
    bool subnormal = u < 0x00800000u;
    uint32_t us = th__vec_select_u32(subnormal, th__vec_bits_f32(x * 0x1p23f), u);
    /* us - bits(sqrt(1/2)) holds k in its exponent field; + 128 << 23 makes it positive for every
     * positive normal us, so the shift is floor division */
    uint32_t d = us - 0x3f3504f3u;
    float k = (float)(int32_t)((d + 0x40000000u) >> 23) - 128.0f -
              th__vec_f32_from_bits(th__vec_select_u32(subnormal, 0x41b80000u /* 23 */, 0u));
    float f = th__vec_f32_from_bits((d & 0x007fffffu) + 0x3f3504f3u) - 1.0f;
    float s = f / (2.0f + f);
    float z = s * s;
    float r = z * th__vec_mla_f32(th__vec_mla_f32(0.298852217f, z, 0.399770782f, fused), z, 0.666667798f, fused);
    float hfsq = 0.5f * f * f;
    float lg = f - th__vec_mla_f32(-s, hfsq + r, hfsq, fused);
    lg = th__vec_mla_f32(k, 0x1.7f7d1cp-20f /* ln2 - ln2_hi */, lg, fused);
    lg = th__vec_mla_f32(k, 0x1.62e4p-1f /* ln2_hi */, lg, fused);
    uint32_t y = th__vec_select_u32(u >= 0x7f800000u, th__vec_bits_f32(x + x), th__vec_bits_f32(lg));
    y = th__vec_select_u32(u > 0x80000000u, 0x7fc00000u /* NaN */, y);
    return th__vec_f32_from_bits(th__vec_select_u32((u << 1) == 0u, 0xff800000u /* -inf */, y));
}

/* erf(x), from |x| with x's sign put back. Below 0.875: x + x Q(x^2), Q of degree 5 (minimax for the
 * relative error of erf: 8.5e-9). From 0.875 on: 1 - exp(-x^2) R(x), R = erfc(x) exp(x^2) of degree 8 in
 * x - 2.4375 (minimax for the absolute error of erf: 6e-9; centred so that Horner's sums do not cancel). x is
 * limited to 4 there, where erf rounds to 1, so that exp(-x^2) R(x) never meets 0 * inf. */
TH__VEC_INLINE float th__vec_erf_f32_one(float x, bool fused)
{
    uint32_t u = th__vec_bits_f32(x), mag = u & 0x7fffffffu;
    float a = th__vec_f32_from_bits(mag);
    float z = a * a;
    float q = th__vec_mla_f32(-0.000620325493f, z, 0.00503218129f, fused);
    q = th__vec_mla_f32(q, z, -0.026791463f, fused);
    q = th__vec_mla_f32(q, z, 0.112824553f, fused);
    q = th__vec_mla_f32(q, z, -0.376125505f, fused);
    q = th__vec_mla_f32(q, z, 0.128379157f, fused);
    float small = th__vec_mla_f32(a, q, a, fused);
    float al = th__vec_limit_f32(a, 0.0f, 4.0f);
    float t = al - 2.4375f;
    float r = th__vec_mla_f32(0.000142779586f, t, 0.000350693932f, fused);
    r = th__vec_mla_f32(r, t, 0.000774532594f, fused);
    r = th__vec_mla_f32(r, t, -0.000650970918f, fused);
    r = th__vec_mla_f32(r, t, 0.00247326454f, fused);
    r = th__vec_mla_f32(r, t, -0.00886846257f, fused);
    r = th__vec_mla_f32(r, t, 0.0264497166f, fused);
    r = th__vec_mla_f32(r, t, -0.0775537976f, fused);
    r = th__vec_mla_f32(r, t, 0.215554688f, fused);
    float large = th__vec_mla_f32(-th__vec_exp_f32_one(-(al * al), fused), r, 1.0f, fused);
    uint32_t m = th__vec_select_u32(mag < 0x3f600000u /* 0.875 */, th__vec_bits_f32(small), th__vec_bits_f32(large));
    return th__vec_f32_from_bits(m | (u & 0x80000000u));
}

/* ---- th__ vecmath: float64 functions of one element -------------------------------------- */

/* exp(x) as for float32, with ln2_hi exact times |k| < 2048, expm1(r) = r + r^2 q(r) where q is the Taylor
 * series to r^11 (truncation 4e-17 relative at |r| = ln2/2), and |x| limited to 720 (x > 0) and 760 (x < 0).
 */
TH__VEC_INLINE double th__vec_exp_f64_one(double x, bool fused)
{
    const double shift = 0x1.8p52;
    /* |x| limited on the high words: gcc's baseline copy vectorises neither a 64-bit integer compare (SSE2
     * has none) nor a select on a double compare */
    uint64_t u = th__vec_bits_f64(x);
    uint32_t hi = (uint32_t)(u >> 32);
    uint32_t limit = th__vec_select_u32(hi >> 31, 0x4087c000u /* 760 */, 0x40868000u /* 720 */);
    bool beyond = ((hi & 0x7fffffffu) > limit) & (x == x);
    double xc = th__vec_f64_from_bits(th__vec_select_u64(beyond, (uint64_t)((hi & 0x80000000u) | limit) << 32, u));
    double t = th__vec_mla_f64(xc, 0x1.71547652b82fep+0 /* 1/ln2 */, shift, fused);
    double k = t - shift;
    double r = th__vec_mla_f64(-k, 0x1.62e42feep-1 /* ln2_hi */, xc, fused);
    r = th__vec_mla_f64(-k, 0x1.a39ef35793c76p-33 /* ln2 - ln2_hi */, r, fused);
    double q = 1.0 / 6227020800.0; /* 1/13! */
    q = th__vec_mla_f64(q, r, 1.0 / 479001600.0, fused);
    q = th__vec_mla_f64(q, r, 1.0 / 39916800.0, fused);
    q = th__vec_mla_f64(q, r, 1.0 / 3628800.0, fused);
    q = th__vec_mla_f64(q, r, 1.0 / 362880.0, fused);
    q = th__vec_mla_f64(q, r, 1.0 / 40320.0, fused);
    q = th__vec_mla_f64(q, r, 1.0 / 5040.0, fused);
    q = th__vec_mla_f64(q, r, 1.0 / 720.0, fused);
    q = th__vec_mla_f64(q, r, 1.0 / 120.0, fused);
    q = th__vec_mla_f64(q, r, 1.0 / 24.0, fused);
    q = th__vec_mla_f64(q, r, 1.0 / 6.0, fused);
    q = th__vec_mla_f64(q, r, 0.5, fused);
    double p = 1.0 + th__vec_mla_f64(r * r, q, r, fused);
    /* k in [-1097, 1039]; k + 2048 is positive, so halving it is floor division */
    uint64_t kb = th__vec_bits_f64(t) - th__vec_bits_f64(shift) + 2048u;
    uint64_t k1 = kb >> 1, k2 = kb - k1; /* each is its share of k, plus 1024 */
    double s1 = th__vec_f64_from_bits((k1 - 1u) << 52), s2 = th__vec_f64_from_bits((k2 - 1u) << 52);
    return p * s1 * s2;
}

/* tanh(x) as for float32: below 0.55, x + x^3 P(x^2) with P the Taylor series of (tanh(x) - x) / x^3 to x^34
 * (18 terms, 2^2n (2^2n - 1) B_2n / (2n)!; truncation 4e-17 relative at 0.55); from 0.55 on,
 * 1 - 2 / (exp(2|x|) + 1). */
TH__VEC_INLINE double th__vec_tanh_f64_one(double x, bool fused)
{
    uint64_t u = th__vec_bits_f64(x);
    double a = th__vec_f64_from_bits(u & 0x7fffffffffffffffu);
    double z = a * a;
    /* written out: a loop over a table here is not unrolled before vectorisation, and stays scalar */
    double p = th__vec_mla_f64(7.0546369464009681e-08, z, -1.7406618963571648e-07, fused);
    p = th__vec_mla_f64(p, z, 4.2949110782738057e-07, fused);
    p = th__vec_mla_f64(p, z, -1.0597268320104654e-06, fused);
    p = th__vec_mla_f64(p, z, 2.6147711512907546e-06, fused);
    p = th__vec_mla_f64(p, z, -6.4516892156554306e-06, fused);
    p = th__vec_mla_f64(p, z, 1.5918905069328964e-05, fused);
    p = th__vec_mla_f64(p, z, -3.9278323883316833e-05, fused);
    p = th__vec_mla_f64(p, z, 9.6915379569294509e-05, fused);
    p = th__vec_mla_f64(p, z, -0.00023912911424355248, fused);
    p = th__vec_mla_f64(p, z, 0.00059002744094558595, fused);
    p = th__vec_mla_f64(p, z, -0.0014558343870513183, fused);
    p = th__vec_mla_f64(p, z, 0.0035921280365724811, fused);
    p = th__vec_mla_f64(p, z, -0.0088632355299021973, fused);
    p = th__vec_mla_f64(p, z, 0.021869488536155203, fused);
    p = th__vec_mla_f64(p, z, -0.053968253968253971, fused);
    p = th__vec_mla_f64(p, z, 0.13333333333333333, fused);
    p = th__vec_mla_f64(p, z, -0.33333333333333331, fused);
    double small = th__vec_mla_f64(a * z, p, a, fused);
    double large = 1.0 - 2.0 / (th__vec_exp_f64_one(a + a, fused) + 1.0);
    uint64_t mag = th__vec_select_u64((uint32_t)(u >> 32 & 0x7fffffffu) < 0x3fe1999au /* 0.55 */,
                                      th__vec_bits_f64(small), th__vec_bits_f64(large));
    return th__vec_f64_from_bits(mag | (u & 0x8000000000000000u));
}

/* ---- th__ vecmath: rows, one copy per level ---------------------------------------------- */

enum { TH__VEC_EXP, TH__VEC_TANH, TH__VEC_SIGMOID, TH__VEC_LOG, TH__VEC_EXPM1, TH__VEC_ERF, TH__VEC_NUM_F32 };
enum { TH__VEC_NUM_F64 = TH__VEC_TANH + 1 }; /* float64 has exp and tanh */

/* Every op's row loop; out and in do not overlap (the entry points copy in-place rows through a buffer).
 * Inlined into each level's function, so it is compiled, and vectorised, once per level. */
TH__VEC_INLINE void th__vec_rows_f32(int op, float *restrict out, const float *restrict in, int64_t n, bool fused)
{
    switch (op) {
    case TH__VEC_EXP:
        for (int64_t i = 0; i < n; i++) out[i] = th__vec_exp_f32_one(in[i], fused);
        break;
    case TH__VEC_TANH:
        for (int64_t i = 0; i < n; i++) out[i] = th__vec_tanh_f32_one(in[i], fused);
        break;
    case TH__VEC_SIGMOID:
        for (int64_t i = 0; i < n; i++) out[i] = th__vec_sigmoid_f32_one(in[i], fused);
        break;
    case TH__VEC_LOG:
        for (int64_t i = 0; i < n; i++) out[i] = th__vec_log_f32_one(in[i], fused);
        break;
    case TH__VEC_EXPM1:
        for (int64_t i = 0; i < n; i++) out[i] = th__vec_expm1_f32_one(in[i], fused);
        break;
    case TH__VEC_ERF:
        for (int64_t i = 0; i < n; i++) out[i] = th__vec_erf_f32_one(in[i], fused);
        break;
    default: break;
    }
}

TH__VEC_INLINE void th__vec_rows_f64(int op, double *restrict out, const double *restrict in, int64_t n, bool fused)
{
    switch (op) {
    case TH__VEC_EXP:
        for (int64_t i = 0; i < n; i++) out[i] = th__vec_exp_f64_one(in[i], fused);
        break;
    case TH__VEC_TANH:
        for (int64_t i = 0; i < n; i++) out[i] = th__vec_tanh_f64_one(in[i], fused);
        break;
    default: break;
    }
}

TH__MAYBE_UNUSED static TH__HOT void th__vec_f32_baseline(int op, float *restrict out, const float *restrict in, int64_t n)
{
    th__vec_rows_f32(op, out, in, n, false);
}

TH__MAYBE_UNUSED static TH__HOT void th__vec_f64_baseline(int op, double *restrict out, const double *restrict in, int64_t n)
{
    th__vec_rows_f64(op, out, in, n, false);
}

#ifdef TH__VEC_X86
TH__MAYBE_UNUSED static TH__HOT TH__VEC_AVX2 void th__vec_f32_avx2(int op, float *restrict out, const float *restrict in, int64_t n)
{
    th__vec_rows_f32(op, out, in, n, true);
}

TH__MAYBE_UNUSED static TH__HOT TH__VEC_AVX2 void th__vec_f64_avx2(int op, double *restrict out, const double *restrict in, int64_t n)
{
    th__vec_rows_f64(op, out, in, n, true);
}

TH__MAYBE_UNUSED static TH__HOT TH__VEC_AVX512 void th__vec_f32_avx512(int op, float *restrict out, const float *restrict in, int64_t n)
{
    th__vec_rows_f32(op, out, in, n, true);
}

TH__MAYBE_UNUSED static TH__HOT TH__VEC_AVX512 void th__vec_f64_avx512(int op, double *restrict out, const double *restrict in,
                                                       int64_t n)
{
    th__vec_rows_f64(op, out, in, n, true);
}
#endif

/* ---- th__ vecmath: the entry points ------------------------------------------------------ */

/* Rows of out == in go through this many elements of stack at a time: the loops are compiled for distinct
 * arrays (clang vectorises an in-place loop only behind an overlap check that in-place rows fail). */
enum { TH__VEC_CHUNK = 1024 };

TH__MAYBE_UNUSED static void th__vec_f32_level(int level, int op, float *out, const float *in, int64_t n)
{
    switch (level) {
#ifdef TH__VEC_X86
    case TH__SIMD_AVX512: th__vec_f32_avx512(op, out, in, n); return;
    case TH__SIMD_AVX2: th__vec_f32_avx2(op, out, in, n); return;
#endif
    default: th__vec_f32_baseline(op, out, in, n);
    }
}

TH__MAYBE_UNUSED static void th__vec_f64_level(int level, int op, double *out, const double *in, int64_t n)
{
    switch (level) {
#ifdef TH__VEC_X86
    case TH__SIMD_AVX512: th__vec_f64_avx512(op, out, in, n); return;
    case TH__SIMD_AVX2: th__vec_f64_avx2(op, out, in, n); return;
#endif
    default: th__vec_f64_baseline(op, out, in, n);
    }
}

/* op (TH__VEC_EXP, ...) at a given level, at most th__simd_best() (a higher one would execute instructions
 * the CPU lacks): for the tests and the benchmark. out may equal in, but must not overlap it otherwise. */
TH__MAYBE_UNUSED static void th__vec_f32_at(int level, int op, float *out, const float *in, int64_t n)
{
    if (out != in) {
        th__vec_f32_level(level, op, out, in, n);
        return;
    }
    float chunk[TH__VEC_CHUNK];
    for (int64_t i = 0; i < n; i += TH__VEC_CHUNK) {
        int64_t m = n - i < TH__VEC_CHUNK ? n - i : TH__VEC_CHUNK;
        memcpy(chunk, in + i, (size_t)m * sizeof *chunk);
        th__vec_f32_level(level, op, out + i, chunk, m);
    }
}

TH__MAYBE_UNUSED static void th__vec_f64_at(int level, int op, double *out, const double *in, int64_t n)
{
    if (out != in) {
        th__vec_f64_level(level, op, out, in, n);
        return;
    }
    double chunk[TH__VEC_CHUNK];
    for (int64_t i = 0; i < n; i += TH__VEC_CHUNK) {
        int64_t m = n - i < TH__VEC_CHUNK ? n - i : TH__VEC_CHUNK;
        memcpy(chunk, in + i, (size_t)m * sizeof *chunk);
        th__vec_f64_level(level, op, out + i, chunk, m);
    }
}

/* What the library calls: out[i] = op(in[i]) for i < n at the process's level; out may equal in. */
TH__MAYBE_UNUSED static void th__vec_exp_f32(float *out, const float *in, int64_t n)
{
    th__vec_f32_at(th__simd_level(), TH__VEC_EXP, out, in, n);
}

TH__MAYBE_UNUSED static void th__vec_tanh_f32(float *out, const float *in, int64_t n)
{
    th__vec_f32_at(th__simd_level(), TH__VEC_TANH, out, in, n);
}

TH__MAYBE_UNUSED static void th__vec_sigmoid_f32(float *out, const float *in, int64_t n)
{
    th__vec_f32_at(th__simd_level(), TH__VEC_SIGMOID, out, in, n);
}

TH__MAYBE_UNUSED static void th__vec_log_f32(float *out, const float *in, int64_t n)
{
    th__vec_f32_at(th__simd_level(), TH__VEC_LOG, out, in, n);
}

TH__MAYBE_UNUSED static void th__vec_expm1_f32(float *out, const float *in, int64_t n)
{
    th__vec_f32_at(th__simd_level(), TH__VEC_EXPM1, out, in, n);
}

TH__MAYBE_UNUSED static void th__vec_erf_f32(float *out, const float *in, int64_t n)
{
    th__vec_f32_at(th__simd_level(), TH__VEC_ERF, out, in, n);
}

TH__MAYBE_UNUSED static void th__vec_exp_f64(double *out, const double *in, int64_t n)
{
    th__vec_f64_at(th__simd_level(), TH__VEC_EXP, out, in, n);
}

TH__MAYBE_UNUSED static void th__vec_tanh_f64(double *out, const double *in, int64_t n)
{
    th__vec_f64_at(th__simd_level(), TH__VEC_TANH, out, in, n);
}

#endif /* TH__DEFINING */
