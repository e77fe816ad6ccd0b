/* tests/test_vecmath.c: the vectorised math kernels (core/vecmath.h) at every SIMD level this
 * machine has.
 *
 * Accuracy: the error in ulps against double-precision libm (whose own error is far below a float ulp), over
 * every 2053rd float32 bit pattern (all signs, exponents and a spread of mantissas) and every float32 in
 * windows of 2^15 around the points where a kernel switches method or its result overflows, underflows or saturates;
 * TH_VECMATH_EXHAUSTIVE=all (or =exp, =tanh, ...: one op) checks all 2^32 inputs instead (minutes per op per
 * core: not for the default run). Special values exactly. Rows:
 * every length up to 67 (the vector tails of each width), unaligned pointers, in place (also across the
 * entry point's stack chunks), nothing written past the end, and the dispatching entry point agreeing bit for bit with its level's copy. The level choice:
 * TH_SIMD parsing and the cached level. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernels are static, implementation-only functions: this file compiles its own private copy. */
#define TH_STATIC
#include "check.h"

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

typedef struct op_f32 {
    const char *name;
    int op;                     /* TH__VEC_EXP, ... */
    double (*reference)(double);
    double max_ulp;             /* the bound documented at the top of core/vecmath.h */
} op_f32;

static const op_f32 ops_f32[] = {
    {"exp", TH__VEC_EXP, exp, 1.01},           {"tanh", TH__VEC_TANH, tanh, 1.47},
    {"sigmoid", TH__VEC_SIGMOID, sigmoid, 2.41}, {"log", TH__VEC_LOG, log, 0.91},
    {"expm1", TH__VEC_EXPM1, expm1, 1.52},     {"erf", TH__VEC_ERF, erf, 1.30},
};
enum { NUM_OPS_F32 = sizeof ops_f32 / sizeof ops_f32[0] };

typedef struct op_f64 {
    const char *name;
    int op;
    long double (*reference)(long double);
    double max_ulp;             /* likewise */
} op_f64;

static const op_f64 ops_f64[] = {
    {"exp", TH__VEC_EXP, expl, 1.00},
    {"tanh", TH__VEC_TANH, tanhl, 1.45},
};
enum { NUM_OPS_F64 = sizeof ops_f64 / sizeof ops_f64[0] };

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

static double double_of_bits(uint64_t u)
{
    double f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static uint64_t bits_of_double(double f)
{
    uint64_t u;
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

/* The same in float64 ulps, exact given in long double (x87: 11 more bits). */
static double ulp_error_f64(double got, long double exact)
{
    if (isnan(exact)) return isnan(got) ? 0.0 : INFINITY;
    if (isnan(got)) return INFINITY;
    if (isinf(got)) return got == (double)exact ? 0.0 : INFINITY;
    int e = exact == 0.0L ? -1022 : ilogbl(exact);
    if (e < -1022) e = -1022;
    return (double)(fabsl((long double)got - exact) / ldexpl(1.0L, e - 52));
}

/* ---- accuracy, float32 ------------------------------------------------------------------ */

enum { BATCH = 4096, LEVELS = 3 };

typedef struct worst {
    double ulp;
    double x, got;
} worst;

static void keep_worst(worst *w, double err, double x, double got)
{
    if (!(err <= w->ulp)) *w = (worst){err, x, got};
}

/* Runs the float32 ops in the mask at every level on the inputs from the bit patterns first, first + step,
 * ... (count of them), keeping each op's and level's worst error. */
static void sweep(unsigned ops, uint32_t first, uint32_t step, uint64_t count, int best, worst w[][LEVELS])
{
    float in[BATCH], out[BATCH];
    double exact[BATCH];
    uint32_t u = first;
    while (count > 0) {
        int n = count < BATCH ? (int)count : BATCH;
        for (int i = 0; i < n; i++, u += step) in[i] = float_of_bits(u);
        count -= (uint64_t)n;
        for (int op = 0; op < NUM_OPS_F32; op++) {
            if (!(ops >> op & 1u)) continue;
            for (int i = 0; i < n; i++) exact[i] = ops_f32[op].reference((double)in[i]);
            for (int level = 0; level <= best; level++) {
                th__vec_f32_at(level, ops_f32[op].op, out, in, n);
                for (int i = 0; i < n; i++) keep_worst(&w[op][level], ulp_error(out[i], exact[i]), in[i], out[i]);
            }
        }
    }
}

/* Every float32 within 2^14 ulps either side of x, both signs. */
static void sweep_around(float x, int best, worst w[][LEVELS])
{
    uint32_t u = bits_of_float(fabsf(x));
    uint32_t lo = u > 16384u ? u - 16384u : 0u;
    sweep(~0u, lo, 1, 32768, best, w);
    sweep(~0u, lo | 0x80000000u, 1, 32768, best, w);
}

/* All 2^32 inputs of the ops in the mask, on every thread OpenMP gives. */
static void sweep_all(unsigned ops, int best, worst w[][LEVELS])
{
#ifdef _OPENMP
#pragma omp parallel
#endif
    {
        worst mine[NUM_OPS_F32][LEVELS];
        memset(mine, 0, sizeof mine);
#ifdef _OPENMP
#pragma omp for schedule(dynamic)
#endif
        for (int chunk = 0; chunk < 4096; chunk++) sweep(ops, (uint32_t)chunk << 20, 1, 1u << 20, best, mine);
#ifdef _OPENMP
#pragma omp critical
#endif
        for (int op = 0; op < NUM_OPS_F32; op++)
            for (int level = 0; level <= best; level++)
                keep_worst(&w[op][level], mine[op][level].ulp, mine[op][level].x, mine[op][level].got);
    }
}

static void report(const char *type, const char *name, int level, const worst *x, double bound)
{
    printf("  %s %-8s %-8s max error %.3f ulp (at x = %a: got %a)\n", type, name, th__simd_name(level), x->ulp,
           x->x, x->got);
    CHECK(x->ulp <= bound);
}

static void test_accuracy_f32(int best)
{
    worst w[NUM_OPS_F32][LEVELS];
    memset(w, 0, sizeof w);
    /* TH_VECMATH_EXHAUSTIVE=all, or the name of one op */
    const char *all = getenv("TH_VECMATH_EXHAUSTIVE");
    if (all && *all) {
        unsigned ops = 0;
        for (int op = 0; op < NUM_OPS_F32; op++)
            if (strcmp(all, "all") == 0 || strcmp(all, ops_f32[op].name) == 0) ops |= 1u << op;
        sweep_all(ops, best, w);
    } else {
        sweep(~0u, 0, 2053, ((uint64_t)1 << 32) / 2053 + 1, best, w);
        /* Where the methods switch, results overflow, become subnormal or saturate, and tiny inputs:
         * exp 88.72 (overflow), 87.34 (last normal), 103.97 (last subnormal), 0.3466 (k = 0 to 1);
         * tanh 0.55, 9.01 (rounds to 1); sigmoid 17.3 (rounds to 1); log 1, sqrt(1/2), 2^-126;
         * expm1 17.33 (rounds to -1); erf 0.875, 3.92 (rounds to 1). */
        const float edges[] = {88.72283f, 87.33654f, 103.97208f, 0.34657f, 1.0f,      0x1p-24f,
                               0.55f,     9.010913f, 0x1p-12f,   17.32868f, 0.70710677f, 0x1p-126f,
                               0.875f,    3.9192059f};
        for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) sweep_around(edges[i], best, w);
    }
    for (int op = 0; op < NUM_OPS_F32; op++)
        for (int level = 0; level <= best; level++)
            if (!all || !*all || w[op][level].ulp > 0.0) /* an exhaustive run skips the other ops */
                report("f32", ops_f32[op].name, level, &w[op][level], ops_f32[op].max_ulp);
}

/* ---- accuracy, float64 ------------------------------------------------------------------ */

static void sweep_f64(const double *in, int n, int best, worst w[][LEVELS])
{
    static double out[BATCH];
    static long double exact[BATCH];
    for (int op = 0; op < NUM_OPS_F64; op++) {
        for (int i = 0; i < n; i++) exact[i] = ops_f64[op].reference((long double)in[i]);
        for (int level = 0; level <= best; level++) {
            th__vec_f64_at(level, ops_f64[op].op, out, in, n);
            for (int i = 0; i < n; i++) keep_worst(&w[op][level], ulp_error_f64(out[i], exact[i]), in[i], out[i]);
        }
    }
}

/* float64 has too many inputs to try them all: a spread of 2^19 bit patterns (every sign and exponent),
 * 2^19 random values where the functions do real work, and 4096 consecutive doubles around each edge. */
static void test_accuracy_f64(int best)
{
    static double in[BATCH];
    worst w[NUM_OPS_F64][LEVELS];
    memset(w, 0, sizeof w);
    uint64_t u = 0, state = 1;
    for (int batch = 0; batch < 128; batch++) {
        for (int i = 0; i < BATCH; i++, u += 0x800000000123ull) in[i] = double_of_bits(u);
        sweep_f64(in, BATCH, best, w);
    }
    for (int batch = 0; batch < 128; batch++) {
        for (int i = 0; i < BATCH; i++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            double unit = (double)(state >> 11) * 0x1p-53; /* [0, 1) */
            in[i] = batch % 2 ? unit * 1480.0 - 750.0 : unit * 40.0 - 20.0;
        }
        sweep_f64(in, BATCH, best, w);
    }
    const double edges[] = {709.782712893384, -708.3964185322641, -745.1332191019412, 0.34657359027997264,
                            0.55, 19.061547465398498, 0x1p-26, 1.0};
    for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
        for (int sign = 0; sign < 2; sign++) {
            uint64_t b = bits_of_double(sign ? -edges[e] : edges[e]) - BATCH / 2;
            for (int i = 0; i < BATCH; i++) in[i] = double_of_bits(b + (uint64_t)i);
            sweep_f64(in, BATCH, best, w);
        }
    }
    /* The float64 references are long double; where its arithmetic is really double (valgrind emulates x87
     * at 64 bits), they are off by about as much as the kernels and the bounds cannot be judged. The gcc,
     * clang and sanitizer runs check them. */
    volatile long double one = 1.0L, tiny = 0x1p-60L;
    const bool wide = one + tiny != one;
    if (!wide) printf("  long double is no wider than double here: the f64 errors are shown, not checked\n");
    for (int op = 0; op < NUM_OPS_F64; op++)
        for (int level = 0; level <= best; level++)
            report("f64", ops_f64[op].name, level, &w[op][level], wide ? ops_f64[op].max_ulp : INFINITY);
}

/* ---- special values ---------------------------------------------------------------------- */

static bool same_bits(float a, float b) { return bits_of_float(a) == bits_of_float(b); }
static bool same_bits64(double a, double b) { return bits_of_double(a) == bits_of_double(b); }

typedef struct special {
    int op;
    float x, want; /* want NaN: any NaN */
} special;

static void test_special(int level)
{
    const float inf = INFINITY, nan = NAN;
    static const special cases[] = {
        {TH__VEC_EXP, NAN, NAN}, {TH__VEC_EXP, -NAN, NAN}, {TH__VEC_EXP, INFINITY, INFINITY},
        {TH__VEC_EXP, -INFINITY, 0.0f}, {TH__VEC_EXP, 0.0f, 1.0f}, {TH__VEC_EXP, -0.0f, 1.0f},
        {TH__VEC_EXP, 0x1p-149f, 1.0f}, {TH__VEC_EXP, 200.0f, INFINITY}, {TH__VEC_EXP, -200.0f, 0.0f},
        {TH__VEC_EXP, 89.0f, INFINITY}, {TH__VEC_EXP, -104.0f, 0.0f},
        {TH__VEC_EXP, -103.972f, 0x1p-149f},   /* the smallest subnormal */
        {TH__VEC_EXP, 0x1.62e42ep+6f, 0x1.ffff08p+127f}, /* the largest finite result */
        {TH__VEC_TANH, NAN, NAN}, {TH__VEC_TANH, INFINITY, 1.0f}, {TH__VEC_TANH, -INFINITY, -1.0f},
        {TH__VEC_TANH, 0.0f, 0.0f}, {TH__VEC_TANH, -0.0f, -0.0f}, {TH__VEC_TANH, 0x1p-149f, 0x1p-149f},
        {TH__VEC_TANH, -0x1p-149f, -0x1p-149f}, {TH__VEC_TANH, 200.0f, 1.0f}, {TH__VEC_TANH, -10.0f, -1.0f},
        {TH__VEC_SIGMOID, NAN, NAN}, {TH__VEC_SIGMOID, INFINITY, 1.0f}, {TH__VEC_SIGMOID, -INFINITY, 0.0f},
        {TH__VEC_SIGMOID, 0.0f, 0.5f}, {TH__VEC_SIGMOID, -0.0f, 0.5f}, {TH__VEC_SIGMOID, 200.0f, 1.0f},
        {TH__VEC_SIGMOID, -200.0f, 0.0f}, {TH__VEC_SIGMOID, -103.972f, 0x1p-149f},
        {TH__VEC_LOG, NAN, NAN}, {TH__VEC_LOG, INFINITY, INFINITY}, {TH__VEC_LOG, -INFINITY, NAN},
        {TH__VEC_LOG, 0.0f, -INFINITY}, {TH__VEC_LOG, -0.0f, -INFINITY}, {TH__VEC_LOG, -1.0f, NAN},
        {TH__VEC_LOG, -0x1p-149f, NAN}, {TH__VEC_LOG, 1.0f, 0.0f}, {TH__VEC_LOG, 0x1p-149f, -0x1.9d1da0p+6f},
        {TH__VEC_LOG, 2.0f, 0x1.62e430p-1f},
        {TH__VEC_EXPM1, NAN, NAN}, {TH__VEC_EXPM1, INFINITY, INFINITY}, {TH__VEC_EXPM1, -INFINITY, -1.0f},
        {TH__VEC_EXPM1, 0.0f, 0.0f}, {TH__VEC_EXPM1, -0.0f, -0.0f}, {TH__VEC_EXPM1, 0x1p-149f, 0x1p-149f},
        {TH__VEC_EXPM1, -0x1p-30f, -0x1p-30f}, {TH__VEC_EXPM1, 89.0f, INFINITY}, {TH__VEC_EXPM1, -50.0f, -1.0f},
        {TH__VEC_ERF, NAN, NAN}, {TH__VEC_ERF, INFINITY, 1.0f}, {TH__VEC_ERF, -INFINITY, -1.0f},
        {TH__VEC_ERF, 0.0f, 0.0f}, {TH__VEC_ERF, -0.0f, -0.0f}, {TH__VEC_ERF, 5.0f, 1.0f},
        {TH__VEC_ERF, -4.0f, -1.0f}, {TH__VEC_ERF, -0x1p-149f, -0x1p-149f},
    };
    (void)inf;
    (void)nan;
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        float got;
        th__vec_f32_at(level, cases[i].op, &got, &cases[i].x, 1);
        bool ok = isnan(cases[i].want) ? isnan(got) : same_bits(got, cases[i].want);
        if (!ok) {
            bad++;
            fprintf(stderr, "  special: op %d at %s: f(%a) = %a, want %a\n", cases[i].op, th__simd_name(level),
                    (double)cases[i].x, (double)got, (double)cases[i].want);
        }
    }
    CHECK_INT_EQ(bad, 0);

    static const double x64[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1000.0, -1000.0, 0x1p-1074};
    static const double want_exp[] = {NAN, INFINITY, 0.0, 1.0, 1.0, INFINITY, 0.0, 1.0};
    static const double want_tanh[] = {NAN, 1.0, -1.0, 0.0, -0.0, 1.0, -1.0, 0x1p-1074};
    double got64[8];
    th__vec_f64_at(level, TH__VEC_EXP, got64, x64, 8);
    for (int i = 0; i < 8; i++) CHECK(isnan(want_exp[i]) ? isnan(got64[i]) : same_bits64(got64[i], want_exp[i]));
    th__vec_f64_at(level, TH__VEC_TANH, got64, x64, 8);
    for (int i = 0; i < 8; i++) CHECK(isnan(want_tanh[i]) ? isnan(got64[i]) : same_bits64(got64[i], want_tanh[i]));
    /* the smallest subnormal and the largest finite exp */
    const double edge64[] = {-745.13, 709.782712893384};
    th__vec_f64_at(level, TH__VEC_EXP, got64, edge64, 2);
    CHECK(got64[0] == 0x1p-1074 && isfinite(got64[1]) && got64[1] > 1.79e308);
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
                th__vec_f32_at(level, ops_f32[op].op, buf + offset, src + offset, n);
                for (int i = offset + n; i < MAXN + 4 + PAD; i++) bad_sentinel += buf[i] != -7.0f;
                for (int i = 0; i < offset; i++) bad_sentinel += buf[i] != -7.0f;
                memcpy(inplace, src, sizeof src);
                th__vec_f32_at(level, ops_f32[op].op, inplace + offset, inplace + offset, n);
                for (int i = 0; i < n; i++) {
                    bad_inplace += !same_bits(inplace[offset + i], buf[offset + i]);
                    float one;
                    th__vec_f32_at(level, ops_f32[op].op, &one, &src[offset + i], 1);
                    bad_single += !same_bits(one, buf[offset + i]);
                }
            }
        }
        CHECK_INT_EQ(bad_sentinel, 0);
        CHECK_INT_EQ(bad_inplace, 0);
        CHECK_INT_EQ(bad_single, 0);
    }
    /* in place over several of the entry point's stack chunks (1024 elements), ending mid-chunk */
    enum { LONG = 2 * TH__VEC_CHUNK + 300 };
    static float lin[LONG], lout[LONG];
    for (int op = 0; op < NUM_OPS_F32; op++) {
        for (int i = 0; i < LONG; i++) lin[i] = (float)(i % 101) * 0.173f - 8.0f;
        th__vec_f32_at(level, ops_f32[op].op, lout, lin, LONG);
        th__vec_f32_at(level, ops_f32[op].op, lin, lin, LONG);
        CHECK(memcmp(lin, lout, sizeof lin) == 0);
    }
    /* float64: the same, shorter */
    double s64[40], b64[40 + PAD], i64[40];
    for (int i = 0; i < 40; i++) s64[i] = (double)(i - 20) * 0.61;
    for (int op = 0; op < NUM_OPS_F64; op++) {
        int bad = 0;
        for (int n = 0; n <= 37; n++) {
            for (int i = 0; i < 40 + PAD; i++) b64[i] = -7.0;
            th__vec_f64_at(level, ops_f64[op].op, b64 + 1, s64 + 1, n);
            bad += b64[0] != -7.0;
            for (int i = 1 + n; i < 40 + PAD; i++) bad += b64[i] != -7.0;
            memcpy(i64, s64, sizeof s64);
            th__vec_f64_at(level, ops_f64[op].op, i64 + 1, i64 + 1, n);
            for (int i = 1; i <= n; i++) bad += bits_of_double(i64[i]) != bits_of_double(b64[i]);
        }
        CHECK_INT_EQ(bad, 0);
        static double din[LONG], dout[LONG];
        for (int i = 0; i < LONG; i++) din[i] = (double)(i % 101) * 0.173 - 8.0;
        th__vec_f64_at(level, ops_f64[op].op, dout, din, LONG);
        th__vec_f64_at(level, ops_f64[op].op, din, din, LONG);
        CHECK(memcmp(din, dout, sizeof din) == 0);
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
    typedef void (*entry_f32)(float *, const float *, int64_t);
    static const struct { entry_f32 entry; int op; } entries[] = {
        {th__vec_exp_f32, TH__VEC_EXP},     {th__vec_tanh_f32, TH__VEC_TANH}, {th__vec_sigmoid_f32, TH__VEC_SIGMOID},
        {th__vec_log_f32, TH__VEC_LOG},     {th__vec_expm1_f32, TH__VEC_EXPM1}, {th__vec_erf_f32, TH__VEC_ERF},
    };
    float in[40], a[40], b[40];
    for (int i = 0; i < 40; i++) in[i] = (float)i * 0.731f - 13.0f;
    for (size_t e = 0; e < sizeof entries / sizeof entries[0]; e++) {
        entries[e].entry(a, in, 40);
        th__vec_f32_at(level, entries[e].op, b, in, 40);
        CHECK(memcmp(a, b, sizeof a) == 0);
    }
    double in64[40], a64[40], b64[40];
    for (int i = 0; i < 40; i++) in64[i] = (double)i * 0.731 - 13.0;
    th__vec_exp_f64(a64, in64, 40);
    th__vec_f64_at(level, TH__VEC_EXP, b64, in64, 40);
    CHECK(memcmp(a64, b64, sizeof a64) == 0);
    th__vec_tanh_f64(a64, in64, 40);
    th__vec_f64_at(level, TH__VEC_TANH, b64, in64, 40);
    CHECK(memcmp(a64, b64, sizeof a64) == 0);
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
    test_accuracy_f32(best);
    test_accuracy_f64(best);
    return test_end("test_vecmath");
}
