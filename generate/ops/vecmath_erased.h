/* generate/ops/vecmath_erased.h: vectorised exp, tanh, ... over contiguous float rows, with the SIMD level
 * chosen at run time. Dtype-independent; included twice by tensor.h. There is no public API: the elementwise
 * family calls th__vec_<op>_<f32|f64>(out, in, n) from its contiguous rows (out may equal in, but must not
 * overlap it otherwise).
 *
 * Each function is written once, as an always-inlined function of one element with no branches (selects
 * only, integer selects where the compiler would otherwise keep a branch), and a loop over a row calls it.
 * That loop is compiled three times: for the x86-64 baseline (SSE2), under target("avx2,fma") and under
 * target("avx512f,fma"); the compiler vectorises each copy for its instruction set, so the math is never
 * written out per vector width. The "fused" argument says whether the copy may use fmaf (a single
 * instruction there) or must multiply and add (fmaf would be a library call on the baseline).
 * th__simd_level() picks the copy once per process: the best the CPU has, lowered by the environment
 * variable TH_SIMD=baseline|avx2|avx512. Other architectures and compilers get the one portable copy.
 *
 * Accuracy (max error against the correctly rounded result, every float32 input, each level: see
 * tests/test_vecmath.c and docs/design.md): the figures are in the comment above each function. */
#ifndef TH__ERASED_IMPL

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
static int th__simd_best(void)
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

/* a * b + c, rounded once when fused (only where fmaf is an instruction), twice otherwise. */
TH__VEC_INLINE float th__vec_mla_f32(float a, float b, float c, bool fused)
{
    return fused ? fmaf(a, b, c) : a * b + c;
}

/* exp(x) for float32. x = k ln2 + r with |r| <= ln2/2 (Cody and Waite: ln2 in two parts, the first with
 * enough trailing zeros that k * ln2_hi is exact), exp(r) = 1 + r + r^2 q(r) with q of degree 4 (minimax for
 * the relative error of exp on |r| <= 0.354: 3.5e-9), then 2^k applied as two factors 2^k1 * 2^k2 so that
 * results near overflow and in the subnormal range are rounded once, like a correctly rounded exp would.
 * |x| is first limited to 100 (above) and 110 (below), past which the result is inf or 0 anyway; the
 * limit is taken on the bits with integer selects, which every level vectorises. NaN stays NaN. */
TH__VEC_INLINE float th__vec_exp_f32_one(float x, bool fused)
{
    const float shift = 0x1.8p23f; /* adding it rounds a float below 2^22 in magnitude to an integer */
    uint32_t u = th__vec_bits_f32(x), mag = u & 0x7fffffffu;
    uint32_t limit = (u >> 31) ? 0x42dc0000u /* 110 */ : 0x42c80000u /* 100 */;
    float xc = th__vec_f32_from_bits(mag > limit && mag <= 0x7f800000u ? (u & 0x80000000u) | limit : u);
    float t = th__vec_mla_f32(xc, 0x1.715476p+0f /* 1/ln2 */, shift, fused);
    float k = t - shift;
    float r = th__vec_mla_f32(-k, 0x1.62e4p-1f /* ln2_hi */, xc, fused);
    r = th__vec_mla_f32(-k, 0x1.7f7d1cp-20f /* ln2 - ln2_hi */, r, fused);
    float q = th__vec_mla_f32(0.00138116508f, r, 0.0083701404f, fused);
    q = th__vec_mla_f32(q, r, 0.0416685288f, fused);
    q = th__vec_mla_f32(q, r, 0.166665087f, fused);
    q = th__vec_mla_f32(q, r, 0.499999926f, fused);
    float p = 1.0f + th__vec_mla_f32(r * r, q, r, fused);
    /* k in [-159, 145] sits in t's low bits; k + 256 is positive, so halving it is floor division. */
    uint32_t kb = th__vec_bits_f32(t) - th__vec_bits_f32(shift) + 256u;
    uint32_t k1 = kb >> 1, k2 = kb - k1; /* each is (its share of k) + 128 */
    float s1 = th__vec_f32_from_bits((k1 - 1u) << 23), s2 = th__vec_f32_from_bits((k2 - 1u) << 23);
    return p * s1 * s2;
}

/* tanh(x) for float32, from |x| with x's sign put back (so tanh(-0) = -0). Below 0.55 (where tanh < 0.5):
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
    /* A select by masks: with ?: the compiler moves the division under a branch, which the baseline and
     * avx2 copies cannot vectorise (the division might trap). */
    uint32_t use_small = 0u - (uint32_t)((u & 0x7fffffffu) < 0x3f0ccccdu /* 0.55f */);
    uint32_t mag = (th__vec_bits_f32(small) & use_small) | (th__vec_bits_f32(large) & ~use_small);
    return th__vec_f32_from_bits(mag | (u & 0x80000000u));
}

/* ---- th__ vecmath: rows, one copy per level ---------------------------------------------- */

/* out[i] = one(in[i], fused). Inlined into each level's function with one a constant, so the call inlines
 * too; out == in takes a loop over one pointer, which every compiler vectorises without a run-time overlap
 * check that in-place rows would fail. */
TH__VEC_INLINE void th__vec_map_f32(float *out, const float *in, int64_t n, float (*one)(float, bool), bool fused)
{
    if (out == in) {
        for (int64_t i = 0; i < n; i++) out[i] = one(out[i], fused);
        return;
    }
    float *restrict dst = out;
    const float *restrict src = in;
    for (int64_t i = 0; i < n; i++) dst[i] = one(src[i], fused);
}

static TH__HOT void th__vec_exp_f32_baseline(float *out, const float *in, int64_t n)
{
    th__vec_map_f32(out, in, n, th__vec_exp_f32_one, false);
}

static TH__HOT void th__vec_tanh_f32_baseline(float *out, const float *in, int64_t n)
{
    th__vec_map_f32(out, in, n, th__vec_tanh_f32_one, false);
}

#ifdef TH__VEC_X86
static TH__HOT TH__VEC_AVX2 void th__vec_exp_f32_avx2(float *out, const float *in, int64_t n)
{
    th__vec_map_f32(out, in, n, th__vec_exp_f32_one, true);
}

static TH__HOT TH__VEC_AVX2 void th__vec_tanh_f32_avx2(float *out, const float *in, int64_t n)
{
    th__vec_map_f32(out, in, n, th__vec_tanh_f32_one, true);
}

static TH__HOT TH__VEC_AVX512 void th__vec_exp_f32_avx512(float *out, const float *in, int64_t n)
{
    th__vec_map_f32(out, in, n, th__vec_exp_f32_one, true);
}

static TH__HOT TH__VEC_AVX512 void th__vec_tanh_f32_avx512(float *out, const float *in, int64_t n)
{
    th__vec_map_f32(out, in, n, th__vec_tanh_f32_one, true);
}
#endif

/* ---- th__ vecmath: the entry points ------------------------------------------------------ */

/* Each op at a given level (at most th__simd_best(): a higher one would execute instructions the CPU lacks),
 * for the tests and the benchmark, and at the process's level, for the library. */

TH__MAYBE_UNUSED static void th__vec_exp_f32_at(int level, float *out, const float *in, int64_t n)
{
    switch (level) {
#ifdef TH__VEC_X86
    case TH__SIMD_AVX512: th__vec_exp_f32_avx512(out, in, n); return;
    case TH__SIMD_AVX2: th__vec_exp_f32_avx2(out, in, n); return;
#endif
    default: th__vec_exp_f32_baseline(out, in, n);
    }
}

TH__MAYBE_UNUSED static void th__vec_tanh_f32_at(int level, float *out, const float *in, int64_t n)
{
    switch (level) {
#ifdef TH__VEC_X86
    case TH__SIMD_AVX512: th__vec_tanh_f32_avx512(out, in, n); return;
    case TH__SIMD_AVX2: th__vec_tanh_f32_avx2(out, in, n); return;
#endif
    default: th__vec_tanh_f32_baseline(out, in, n);
    }
}

TH__MAYBE_UNUSED static void th__vec_exp_f32(float *out, const float *in, int64_t n)
{
    th__vec_exp_f32_at(th__simd_level(), out, in, n);
}

TH__MAYBE_UNUSED static void th__vec_tanh_f32(float *out, const float *in, int64_t n)
{
    th__vec_tanh_f32_at(th__simd_level(), out, in, n);
}

#endif /* TH__ERASED_IMPL */
