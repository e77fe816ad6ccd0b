/* tests/test_vecmath.c: the vectorised math kernels (generate/ops/vecmath_erased.h) at every SIMD level this
 * machine has.
 *
 * Accuracy: the error in ulps against double-precision libm (whose own error is far below a float ulp), over
 * every 257th float32 bit pattern (all signs, exponents and a spread of mantissas) and every float32 in
 * windows around the points where a kernel switches method or its result overflows, underflows or saturates;
 * TH_VECMATH_EXHAUSTIVE=1 checks all 2^32 inputs instead (about a minute). Special values exactly. Rows:
 * every length up to 67 (the vector tails of each width), unaligned pointers, in place, nothing written past
 * the end, and the dispatching entry point agreeing bit for bit with its level's copy. The level choice:
 * TH_SIMD parsing and the cached level. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernels are static, implementation-only functions: this file compiles its own private copy. */
#define TH_STATIC
#include "check.h"

typedef void (*kernel_f32)(int level, float *out, const float *in, int64_t n);

typedef struct op_f32 {
    const char *name;
    kernel_f32 kernel;
    double (*reference)(double);
    double max_ulp; /* the bound documented next to the kernel */
} op_f32;

static const op_f32 ops_f32[] = {
    {"exp", th__vec_exp_f32_at, exp, 1.5},
    {"tanh", th__vec_tanh_f32_at, tanh, 2.5},
};
enum { NUM_OPS_F32 = sizeof ops_f32 / sizeof ops_f32[0] };

static float float_of_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint32_t bits_of_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* |got - exact| in units of the float32 ulp at exact (exact given in double: its own error is ~1e-9 of a
 * float ulp). Infinity where got is NaN and should not be, or is infinite and should not be. */
static double ulp_error(float got, double exact)
{
    if (isnan(exact)) return isnan(got) ? 0.0 : INFINITY;
    if (isnan(got)) return INFINITY;
    if (isinf(got)) return got == (float)exact ? 0.0 : INFINITY;
    int e = exact == 0.0 ? -126 : ilogb(exact);
    if (e < -126) e = -126;
    return fabs((double)got - exact) / ldexp(1.0, e - 23);
}

/* ---- accuracy ---------------------------------------------------------------------------- */

enum { BATCH = 4096 };

typedef struct worst {
    double ulp;
    float x, got;
} worst;

/* Runs every op at every level on the inputs from bit patterns first, first + step, ... (count of them),
 * keeping each op's and level's worst error. */
static void sweep(uint32_t first, uint32_t step, uint64_t count, int best, worst w[][3])
{
    static float in[BATCH], out[BATCH];
    static double exact[BATCH];
    uint32_t u = first;
    while (count > 0) {
        int n = count < BATCH ? (int)count : BATCH;
        for (int i = 0; i < n; i++, u += step) in[i] = float_of_bits(u);
        count -= (uint64_t)n;
        for (int op = 0; op < NUM_OPS_F32; op++) {
            for (int i = 0; i < n; i++) exact[i] = ops_f32[op].reference((double)in[i]);
            for (int level = 0; level <= best; level++) {
                ops_f32[op].kernel(level, out, in, n);
                for (int i = 0; i < n; i++) {
                    double err = ulp_error(out[i], exact[i]);
                    if (!(err <= w[op][level].ulp)) w[op][level] = (worst){err, in[i], out[i]};
                }
            }
        }
    }
}

/* Every float32 within 2^16 ulps either side of x, both signs. */
static void sweep_around(float x, int best, worst w[][3])
{
    uint32_t u = bits_of_float(fabsf(x));
    uint32_t lo = u > 65536u ? u - 65536u : 0u;
    sweep(lo, 1, 131072, best, w);
    sweep(lo | 0x80000000u, 1, 131072, best, w);
}

static void test_accuracy(int best)
{
    worst w[NUM_OPS_F32][3];
    memset(w, 0, sizeof w);
    const char *all = getenv("TH_VECMATH_EXHAUSTIVE");
    if (all && strcmp(all, "1") == 0) {
        sweep(0, 1, (uint64_t)1 << 32, best, w);
    } else {
        sweep(0, 257, ((uint64_t)1 << 32) / 257 + 1, best, w);
        /* exp: overflow, the last normal results, the last subnormal ones, the reduction's k = 0 edge,
         * and inputs so small that exp is 1 */
        const float exp_edges[] = {88.72283f, 87.33654f, 103.97208f, 0.34657f, 1.0f, 0x1p-24f};
        for (size_t i = 0; i < sizeof exp_edges / sizeof exp_edges[0]; i++) sweep_around(exp_edges[i], best, w);
        /* tanh: the switch between polynomial and exp, where tanh rounds to 1, tiny inputs */
        const float tanh_edges[] = {0.55f, 9.010913f, 0x1p-12f};
        for (size_t i = 0; i < sizeof tanh_edges / sizeof tanh_edges[0]; i++) sweep_around(tanh_edges[i], best, w);
    }
    for (int op = 0; op < NUM_OPS_F32; op++) {
        for (int level = 0; level <= best; level++) {
            const worst *x = &w[op][level];
            printf("  %-5s %-8s max error %.3f ulp (at x = %a: got %a, exact %a)\n", ops_f32[op].name,
                   th__simd_name(level), x->ulp, (double)x->x, (double)x->got, ops_f32[op].reference(x->x));
            CHECK(x->ulp <= ops_f32[op].max_ulp);
        }
    }
}

/* ---- special values ---------------------------------------------------------------------- */

static bool same_bits(float a, float b) { return bits_of_float(a) == bits_of_float(b); }

static void test_special(int level)
{
    const float inf = INFINITY, nan = NAN;
    float in[] = {nan, -nan, inf, -inf, 0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 200.0f, -200.0f, 89.0f, -104.0f};
    enum { N = sizeof in / sizeof in[0] };
    float out[N];

    th__vec_exp_f32_at(level, out, in, N);
    CHECK(isnan(out[0]) && isnan(out[1]));
    CHECK(same_bits(out[2], inf) && same_bits(out[3], 0.0f));
    CHECK(out[4] == 1.0f && out[5] == 1.0f && out[6] == 1.0f && out[7] == 1.0f);
    CHECK(same_bits(out[8], inf) && same_bits(out[9], 0.0f));
    CHECK(same_bits(out[10], inf) && same_bits(out[11], 0.0f));
    /* the largest finite result, and the smallest subnormal one (exp(-103.972) = 1.0000 * 2^-149) */
    float edge[] = {0x1.62e42ep+6f, -103.972f, -87.33654f};
    float edge_out[3];
    th__vec_exp_f32_at(level, edge_out, edge, 3);
    CHECK(isfinite(edge_out[0]) && edge_out[0] > 3.4e38f);
    CHECK(same_bits(edge_out[1], 0x1p-149f));
    CHECK(edge_out[2] >= 0x1p-126f * 0.99f && edge_out[2] <= 0x1p-126f * 1.01f);

    th__vec_tanh_f32_at(level, out, in, N);
    CHECK(isnan(out[0]) && isnan(out[1]));
    CHECK(same_bits(out[2], 1.0f) && same_bits(out[3], -1.0f));
    CHECK(same_bits(out[4], 0.0f) && same_bits(out[5], -0.0f));
    CHECK(same_bits(out[6], 0x1p-149f) && same_bits(out[7], -0x1p-149f));
    CHECK(same_bits(out[8], 1.0f) && same_bits(out[9], -1.0f));
    CHECK(same_bits(out[10], 1.0f) && same_bits(out[11], -1.0f));
}

/* ---- rows -------------------------------------------------------------------------------- */

/* Every length up to 67 from every offset 0..3 (so most rows start unaligned), into a buffer with sentinels
 * after the end; in place must give the same bits as out of place; each element must match the kernel run
 * on that element alone (no lane of a vector sees another's input). */
static void test_rows(int level)
{
    enum { MAXN = 67, PAD = 8 };
    float src[MAXN + 4], buf[MAXN + 4 + PAD], inplace[MAXN + 4];
    for (int i = 0; i < MAXN + 4; i++) src[i] = (float)(i - 30) * 0.37f + (i % 3 == 0 ? 50.0f : 0.0f);
    for (int op = 0; op < NUM_OPS_F32; op++) {
        int bad_sentinel = 0, bad_inplace = 0, bad_single = 0;
        for (int offset = 0; offset < 4; offset++) {
            for (int n = 0; n <= MAXN; n++) {
                for (int i = 0; i < MAXN + 4 + PAD; i++) buf[i] = -7.0f;
                ops_f32[op].kernel(level, buf + offset, src + offset, n);
                for (int i = offset + n; i < MAXN + 4 + PAD; i++) bad_sentinel += buf[i] != -7.0f;
                for (int i = 0; i < offset; i++) bad_sentinel += buf[i] != -7.0f;
                memcpy(inplace, src, sizeof src);
                ops_f32[op].kernel(level, inplace + offset, inplace + offset, n);
                for (int i = 0; i < n; i++) {
                    bad_inplace += !same_bits(inplace[offset + i], buf[offset + i]);
                    float one;
                    ops_f32[op].kernel(level, &one, &src[offset + i], 1);
                    bad_single += !same_bits(one, buf[offset + i]);
                }
            }
        }
        CHECK_INT_EQ(bad_sentinel, 0);
        CHECK_INT_EQ(bad_inplace, 0);
        CHECK_INT_EQ(bad_single, 0);
    }
}

/* ---- the level choice -------------------------------------------------------------------- */

static void test_levels(int best)
{
    CHECK_INT_EQ(th__simd_parse(NULL, TH__SIMD_AVX512), TH__SIMD_AVX512);
    CHECK_INT_EQ(th__simd_parse("baseline", TH__SIMD_AVX512), TH__SIMD_BASELINE);
    CHECK_INT_EQ(th__simd_parse("avx2", TH__SIMD_AVX512), TH__SIMD_AVX2);
    CHECK_INT_EQ(th__simd_parse("avx512", TH__SIMD_AVX512), TH__SIMD_AVX512);
    CHECK_INT_EQ(th__simd_parse("avx512", TH__SIMD_AVX2), TH__SIMD_AVX2); /* never above the CPU */
    CHECK_INT_EQ(th__simd_parse("avx2", TH__SIMD_BASELINE), TH__SIMD_BASELINE);
    CHECK_INT_EQ(th__simd_parse("sse9", TH__SIMD_AVX2), TH__SIMD_AVX2); /* unknown: ignored */
    CHECK_INT_EQ(th__simd_parse("", TH__SIMD_AVX2), TH__SIMD_AVX2);
    CHECK(strcmp(th__simd_name(TH__SIMD_BASELINE), "baseline") == 0);
    CHECK(strcmp(th__simd_name(TH__SIMD_AVX2), "avx2") == 0);
    CHECK(strcmp(th__simd_name(TH__SIMD_AVX512), "avx512") == 0);

    int level = th__simd_level();
    CHECK_INT_EQ(level, th__simd_parse(getenv("TH_SIMD"), best));
    CHECK_INT_EQ(th__simd_level(), level); /* cached */

    /* the entry points run the chosen level's copy */
    float in[40], a[40], b[40];
    for (int i = 0; i < 40; i++) in[i] = (float)i * 0.731f - 13.0f;
    for (int op = 0; op < NUM_OPS_F32; op++) {
        void (*entry)(float *, const float *, int64_t) = op == 0 ? th__vec_exp_f32 : th__vec_tanh_f32;
        entry(a, in, 40);
        ops_f32[op].kernel(level, b, in, 40);
        CHECK(memcmp(a, b, sizeof a) == 0);
    }
}

int main(void)
{
    test_begin();
    int best = th__simd_best();
    printf("test_vecmath: levels baseline..%s (TH_SIMD=%s)\n", th__simd_name(best),
           getenv("TH_SIMD") ? getenv("TH_SIMD") : "");
    test_levels(best);
    for (int level = 0; level <= best; level++) {
        test_special(level);
        test_rows(level);
    }
    test_accuracy(best);
    return test_end("test_vecmath");
}
