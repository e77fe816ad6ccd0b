/* tests/test_dtypes.c: the dtype table, and float16 / bfloat16 conversions against an independent reference.
 *
 * Every one of the 65536 bit patterns of each 16-bit format is decoded and re-encoded; rounding from float
 * and from double is checked at every boundary between two neighbouring 16-bit values (the value itself,
 * the midpoint, and the nearest floats and doubles on either side of it), and on a few million random
 * inputs. The reference rounds by finding the two neighbours by binary search over the format's (monotone)
 * bit patterns and comparing with their midpoint, which is exact in double: it shares no code or method
 * with the library. This file is also built with -DTH_NO_FLOAT16 against an implementation built the same
 * way (the software conversions), and must pass both ways. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* ---- the reference ---------------------------------------------------------------------- */

typedef struct fmt {
    const char *name;
    int mant; /* fraction bits */
    int exp;  /* exponent bits */
} fmt;

static const fmt F16 = {"float16", 10, 5};
static const fmt BF16 = {"bfloat16", 7, 8};

static uint32_t fmt_inf(fmt f) { return ((1u << f.exp) - 1u) << f.mant; }

/* The value of the non-negative pattern bits (at most the infinity pattern, which reads as the power of two
 * just past the largest finite value: the neighbour that overflowing values round to). */
static double fmt_value_computed(fmt f, uint32_t bits)
{
    uint32_t m = bits & ((1u << f.mant) - 1u), e = bits >> f.mant;
    int bias = (1 << (f.exp - 1)) - 1;
    if (e == 0) return ldexp((double)m, 1 - bias - f.mant);
    return ldexp((double)((1u << f.mant) | m), (int)e - bias - f.mant);
}

/* The same from a table (the binary search reads it a great many times). */
static double value_table[2][0x8000];

static void fmt_build_tables(void)
{
    for (uint32_t b = 0; b < 0x8000u; b++) {
        value_table[0][b] = b <= fmt_inf(F16) ? fmt_value_computed(F16, b) : NAN;
        value_table[1][b] = b <= fmt_inf(BF16) ? fmt_value_computed(BF16, b) : NAN;
    }
}

static double fmt_value(fmt f, uint32_t bits) { return value_table[f.exp == 5 ? 0 : 1][bits]; }

/* The value of any pattern, NaN and infinities included. */
static double fmt_decode(fmt f, uint16_t bits)
{
    uint32_t mag = bits & 0x7fffu;
    double v = mag > fmt_inf(f) ? NAN : mag == fmt_inf(f) ? INFINITY : fmt_value(f, mag);
    return (bits & 0x8000u) ? -v : v;
}

static bool fmt_is_nan(fmt f, uint16_t bits) { return (bits & 0x7fffu) > fmt_inf(f); }

/* x rounded to the nearest pattern, ties to the even pattern; NaN gives a NaN pattern. */
static uint16_t fmt_round(fmt f, double x)
{
    const uint32_t inf = fmt_inf(f);
    if (isnan(x)) return (uint16_t)(inf | (1u << (f.mant - 1)));
    const uint16_t sign = signbit(x) ? 0x8000u : 0u;
    const double a = fabs(x);
    if (a >= fmt_value(f, inf)) return (uint16_t)(sign | inf);
    uint32_t lo = 0, hi = inf - 1u; /* the largest pattern whose value is <= a */
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1u) / 2u;
        if (fmt_value(f, mid) <= a)
            lo = mid;
        else
            hi = mid - 1u;
    }
    const double mid = (fmt_value(f, lo) + fmt_value(f, lo + 1u)) / 2.0; /* exact: 1 bit more than f has */
    uint32_t r;
    if (a < mid)
        r = lo;
    else if (a > mid)
        r = lo + 1u;
    else
        r = (lo & 1u) ? lo + 1u : lo;
    return (uint16_t)(sign | r);
}

/* ---- the library under test, by format ---------------------------------------------------- */

static uint16_t lib_from_float(fmt f, float x)
{
    if (f.exp == 5) return th_float16_from_float(x).bits;
    return th_bfloat16_from_float(x).bits;
}

static uint16_t lib_from_double(fmt f, double x)
{
    if (f.exp == 5) return th_float16_from_double(x).bits;
    return th_bfloat16_from_double(x).bits;
}

static float lib_to_float(fmt f, uint16_t bits)
{
    if (f.exp == 5) {
        th_float16 h = {bits};
        return th_float16_to_float(h);
    }
    th_bfloat16 h = {bits};
    return th_bfloat16_to_float(h);
}

static float f32_from_bits(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint32_t f32_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t rng(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

/* Mismatches of one kind: counted, the first few printed. */
typedef struct tally {
    const char *what;
    long n;
} tally;

static void miss(tally *t, double x, unsigned got, unsigned want)
{
    if (t->n++ < 8)
        fprintf(stderr, "  %s: input %.17g (%a): got 0x%04x, wanted 0x%04x\n", t->what, x, x, got, want);
}

/* A rounded result matches the reference: the same bits, or both NaN. */
static void expect_round(fmt f, tally *t, double x, uint16_t got)
{
    uint16_t want = fmt_round(f, x);
    if (fmt_is_nan(f, want) ? !fmt_is_nan(f, got) : got != want) miss(t, x, got, want);
}

static void check_float_input(fmt f, tally *t, float x) { expect_round(f, t, (double)x, lib_from_float(f, x)); }
static void check_double_input(fmt f, tally *t, double x) { expect_round(f, t, x, lib_from_double(f, x)); }

/* ---- dtype table ------------------------------------------------------------------------ */

static void test_dtype_table(void)
{
    static const struct {
        th_dtype dtype;
        const char *name;
        size_t size;
        th_dtype_kind kind;
        int code, bits;
    } want[] = {
        {TH_BOOL, "bool", 1, TH_KIND_BOOL, 6, 8},      {TH_U8, "u8", 1, TH_KIND_UINT, 1, 8},
        {TH_I8, "i8", 1, TH_KIND_INT, 0, 8},           {TH_I16, "i16", 2, TH_KIND_INT, 0, 16},
        {TH_I32, "i32", 4, TH_KIND_INT, 0, 32},        {TH_I64, "i64", 8, TH_KIND_INT, 0, 64},
        {TH_F16, "f16", 2, TH_KIND_FLOAT, 2, 16},      {TH_BF16, "bf16", 2, TH_KIND_FLOAT, 4, 16},
        {TH_F32, "f32", 4, TH_KIND_FLOAT, 2, 32},      {TH_F64, "f64", 8, TH_KIND_FLOAT, 2, 64},
        {TH_C64, "c64", 8, TH_KIND_COMPLEX, 5, 64},    {TH_C128, "c128", 16, TH_KIND_COMPLEX, 5, 128},
    };
    CHECK_INT_EQ(TH_NUM_DTYPES, 12);
    CHECK_INT_EQ(sizeof want / sizeof want[0], TH_NUM_DTYPES);
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        th_clear_error();
        const th_dtype_traits *t = th_dtype_info(want[i].dtype);
        CHECK(t != NULL);
        CHECK_INT_EQ(th_last_status(), TH_OK);
        if (!t) continue;
        CHECK_INT_EQ(want[i].dtype, (int)i); /* the enum follows the table */
        CHECK(strcmp(t->name, want[i].name) == 0);
        CHECK(strcmp(th_dtype_name(want[i].dtype), want[i].name) == 0);
        CHECK(th_dtype_name(want[i].dtype) == t->name);
        CHECK_INT_EQ(t->size, want[i].size);
        CHECK_INT_EQ(t->kind, want[i].kind);
        CHECK_INT_EQ(t->dlpack_code, want[i].code);
        CHECK_INT_EQ(t->dlpack_bits, want[i].bits);
        CHECK_INT_EQ(t->dlpack_bits, 8 * t->size); /* DLPack counts bool as 8 bits */
        CHECK(t->stamped);
    }
    /* the element types have the sizes the table claims */
#define X(sfx, ENUM, elem, acc, knd, code, nbits)                          \
    CHECK_INT_EQ(sizeof(th_##sfx##_elem), th_dtype_info(TH_##ENUM)->size); \
    CHECK_INT_EQ(sizeof(th_##sfx##_elem) * 8, nbits);                     \
    CHECK_INT_EQ(th_dtype_info(TH_##ENUM)->kind, knd);                    \
    CHECK_INT_EQ(th_dtype_info(TH_##ENUM)->dlpack_code, code);            \
    CHECK(strcmp(th_dtype_name(TH_##ENUM), #sfx) == 0);
    TH_FOREACH_DTYPE(X)
#undef X
    /* values that are no dtype */
    CHECK_NULL(th_dtype_info(TH_NUM_DTYPES), TH_ERR_DTYPE, "th_dtype_info", "12 is no dtype");
    CHECK_NULL(th_dtype_info((th_dtype)-1), TH_ERR_DTYPE, "th_dtype_info", "-1 is no dtype");
    CHECK(strcmp(th_dtype_name(TH_NUM_DTYPES), "?") == 0);
    CHECK(strcmp(th_dtype_name((th_dtype)-1), "?") == 0);
    CHECK(strcmp(th_dtype_name((th_dtype)1000), "?") == 0);
}

/* ---- the reference checks itself on a few known values ------------------------------------ */

static void test_reference(void)
{
    for (uint32_t b = 0; b <= fmt_inf(F16); b += 7) CHECK(fmt_value(F16, b) == fmt_value_computed(F16, b));
    CHECK(fmt_value(F16, 0x7c00) == 65536.0);
    CHECK(fmt_value(BF16, 0x7f80) == 0x1p128);
    CHECK(fmt_value(BF16, 0x0001) == 0x1p-133);
    CHECK_INT_EQ(fmt_round(F16, 1.0), 0x3c00);
    CHECK_INT_EQ(fmt_round(F16, 65504.0), 0x7bff);
    CHECK_INT_EQ(fmt_round(F16, 65520.0), 0x7c00);
    CHECK_INT_EQ(fmt_round(F16, -2.0), 0xc000);
    CHECK_INT_EQ(fmt_round(F16, 0x1p-24), 0x0001);
    CHECK_INT_EQ(fmt_round(BF16, 1.0), 0x3f80);
    CHECK_INT_EQ(fmt_round(BF16, -0.0), 0x8000);
    CHECK(fmt_decode(F16, 0x3555) == 0x1.554p-2);
    CHECK(fmt_decode(BF16, 0x7f7f) == 0x1.fep127);
}

/* ---- float16 ---------------------------------------------------------------------------- */

static void test_float16_known(void)
{
    CHECK_INT_EQ(th_float16_from_float(1.0f).bits, 0x3c00);
    CHECK_INT_EQ(th_float16_from_float(-2.0f).bits, 0xc000);
    CHECK_INT_EQ(th_float16_from_float(0.0f).bits, 0x0000);
    CHECK_INT_EQ(th_float16_from_float(-0.0f).bits, 0x8000);
    CHECK_INT_EQ(th_float16_from_double(-0.0).bits, 0x8000);
    CHECK_INT_EQ(th_float16_from_float(1.0f / 3.0f).bits, 0x3555);
    CHECK_INT_EQ(th_float16_from_double(0.1).bits, 0x2e66);
    CHECK_INT_EQ(th_float16_from_float(65504.0f).bits, 0x7bff);
    /* overflow: 65520 is halfway between 65504 and 2^16, and ties go to the even pattern: infinity */
    CHECK_INT_EQ(th_float16_from_float(65520.0f).bits, 0x7c00);
    CHECK_INT_EQ(th_float16_from_double(65520.0).bits, 0x7c00);
    CHECK_INT_EQ(th_float16_from_float(-65520.0f).bits, 0xfc00);
    CHECK_INT_EQ(th_float16_from_float(nextafterf(65520.0f, 0.0f)).bits, 0x7bff);
    CHECK_INT_EQ(th_float16_from_double(nextafter(65520.0, 0.0)).bits, 0x7bff);
    CHECK_INT_EQ(th_float16_from_float(1e5f).bits, 0x7c00);
    CHECK_INT_EQ(th_float16_from_float(FLT_MAX).bits, 0x7c00);
    CHECK_INT_EQ(th_float16_from_double(DBL_MAX).bits, 0x7c00);
    CHECK_INT_EQ(th_float16_from_double(-1e300).bits, 0xfc00);
    CHECK_INT_EQ(th_float16_from_float(INFINITY).bits, 0x7c00);
    CHECK_INT_EQ(th_float16_from_float(-INFINITY).bits, 0xfc00);
    /* subnormals and underflow */
    CHECK_INT_EQ(th_float16_from_float(0x1p-24f).bits, 0x0001);
    CHECK_INT_EQ(th_float16_from_float(0x1p-25f).bits, 0x0000);       /* a tie with 0: even */
    CHECK_INT_EQ(th_float16_from_float(-0x1p-25f).bits, 0x8000);
    CHECK_INT_EQ(th_float16_from_float(nextafterf(0x1p-25f, 1.0f)).bits, 0x0001);
    CHECK_INT_EQ(th_float16_from_double(nextafter(0x1p-25, 1.0)).bits, 0x0001);
    CHECK_INT_EQ(th_float16_from_float(0x3p-25f).bits, 0x0002);       /* 1.5 ulp: a tie, even is 2 */
    CHECK_INT_EQ(th_float16_from_float(0x5p-25f).bits, 0x0002);       /* 2.5 ulp: a tie, even is 2 */
    CHECK_INT_EQ(th_float16_from_float(0x1p-14f).bits, 0x0400);       /* the least normal */
    CHECK_INT_EQ(th_float16_from_float(0x1.ff8p-15f).bits, 0x03ff);   /* the largest subnormal */
    CHECK_INT_EQ(th_float16_from_float(0x1.ffcp-15f).bits, 0x0400);   /* a tie: rounds up into the normals */
    CHECK_INT_EQ(th_float16_from_float(nextafterf(0x1.ffcp-15f, 0.0f)).bits, 0x03ff);
    CHECK_INT_EQ(th_float16_from_float(1e-30f).bits, 0x0000);
    CHECK_INT_EQ(th_float16_from_float(-1e-30f).bits, 0x8000);
    CHECK_INT_EQ(th_float16_from_double(1e-300).bits, 0x0000);
    CHECK_INT_EQ(th_float16_from_double(-4.9e-324).bits, 0x8000);
    CHECK_INT_EQ(th_float16_from_float(FLT_MIN / 4).bits, 0x0000); /* a float subnormal */
    /* ties in the normals */
    CHECK_INT_EQ(th_float16_from_float(1.0f + 0x1p-11f).bits, 0x3c00);
    CHECK_INT_EQ(th_float16_from_float(1.0f + 0x3p-11f).bits, 0x3c02);
    CHECK_INT_EQ(th_float16_from_double(1.0 + 0x1p-11 + 0x1p-40).bits, 0x3c01);
    CHECK_INT_EQ(th_float16_from_double(1.0 + 0x3p-11 - 0x1p-40).bits, 0x3c01);
    /* a double just past a tie, that a float in between would round back onto the tie */
    CHECK_INT_EQ(th_float16_from_double(1.0 + 0x1p-11 + 0x1p-50).bits, 0x3c01);
    CHECK_INT_EQ(th_float16_from_double(2048.0 + 1.0 + 0x1p-40).bits, 0x6801);
    /* NaN */
    CHECK(fmt_is_nan(F16, th_float16_from_float(NAN).bits));
    CHECK(fmt_is_nan(F16, th_float16_from_double(NAN).bits));
    CHECK(fmt_is_nan(F16, th_float16_from_double(-NAN).bits));
    CHECK(fmt_is_nan(F16, th_float16_from_float(f32_from_bits(0x7f800001u)).bits)); /* payload below f16's */
    CHECK(fmt_is_nan(F16, th_float16_from_float(f32_from_bits(0xff800001u)).bits));
    CHECK(fmt_is_nan(F16, th_float16_from_float(f32_from_bits(0x7fc00000u)).bits));
    /* decoding */
    th_float16 h;
    h.bits = 0x7bff;
    CHECK(th_float16_to_float(h) == 65504.0f);
    h.bits = 0x0400;
    CHECK(th_float16_to_float(h) == 0x1p-14f);
    h.bits = 0x03ff;
    CHECK(th_float16_to_float(h) == 0x3ffp-24f);
    h.bits = 0x0001;
    CHECK(th_float16_to_float(h) == 0x1p-24f);
    h.bits = 0x8000;
    CHECK(th_float16_to_float(h) == 0.0f && signbit(th_float16_to_float(h)));
    h.bits = 0xfc00;
    CHECK(isinf(th_float16_to_float(h)) && th_float16_to_float(h) < 0);
    h.bits = 0x7e00;
    CHECK(isnan(th_float16_to_float(h)));
    h.bits = 0x7c01; /* a signalling NaN */
    CHECK(isnan(th_float16_to_float(h)));
}

/* Every pattern decodes to its value and encodes back to itself (NaN to a NaN). */
static void test_all_patterns(fmt f)
{
    char w1[64], w2[64], w3[64];
    snprintf(w1, sizeof w1, "%s to_float", f.name);
    snprintf(w2, sizeof w2, "%s from_float(to_float)", f.name);
    snprintf(w3, sizeof w3, "%s from_double(to_float)", f.name);
    tally dec = {w1, 0}, rt = {w2, 0}, rtd = {w3, 0};
    long nan_quiet = 0, nan_sign = 0, nans = 0;
    for (uint32_t b = 0; b < 0x10000u; b++) {
        const uint16_t bits = (uint16_t)b;
        const float x = lib_to_float(f, bits);
        const double want = fmt_decode(f, bits);
        const bool nan = fmt_is_nan(f, bits);
        if (nan ? !isnan(x) : ((double)x != want || !signbit(x) != !signbit(want))) miss(&dec, (double)b, f32_bits(x) >> 16, 0);
        const uint16_t back = lib_from_float(f, x), backd = lib_from_double(f, (double)x);
        if (nan) {
            nans++;
            if (!fmt_is_nan(f, back)) miss(&rt, x, back, bits);
            if (!fmt_is_nan(f, backd)) miss(&rtd, x, backd, bits);
            if (f.exp == 8) { /* bfloat16: NaN stays quiet and keeps its sign */
                const uint16_t quiet = (uint16_t)(1u << (f.mant - 1));
                if (!(back & quiet) || !(backd & quiet)) nan_quiet++;
                if ((back & 0x8000u) != (bits & 0x8000u) || (backd & 0x8000u) != (bits & 0x8000u)) nan_sign++;
            }
        } else {
            if (back != bits) miss(&rt, x, back, bits);
            if (backd != bits) miss(&rtd, x, backd, bits);
        }
    }
    CHECK_INT_EQ(nans, 2 * ((1 << f.mant) - 1));
    CHECK_INT_EQ(dec.n, 0);
    CHECK_INT_EQ(rt.n, 0);
    CHECK_INT_EQ(rtd.n, 0);
    CHECK_INT_EQ(nan_quiet, 0);
    CHECK_INT_EQ(nan_sign, 0);
}

/* Around every finite pattern: the value, the midpoint to the next pattern, and the nearest floats and
 * doubles on both sides of each, with both signs. */
static void test_boundaries(fmt f)
{
    char w1[64], w2[64];
    snprintf(w1, sizeof w1, "%s from_float near boundaries", f.name);
    snprintf(w2, sizeof w2, "%s from_double near boundaries", f.name);
    tally tf = {w1, 0}, td = {w2, 0};
    const uint32_t inf = fmt_inf(f);
    long inputs = 0;
    for (uint32_t b = 0; b < inf; b++) {
        const double v = fmt_value(f, b), mid = (v + fmt_value(f, b + 1u)) / 2.0;
        const double points[2] = {v, mid};
        for (int k = 0; k < 2; k++) {
            const double p = points[k];
            const float pf = (float)p; /* exact: every value and midpoint of both formats is a float */
            const float fl[3] = {nextafterf(pf, 0.0f), pf, nextafterf(pf, INFINITY)};
            const double dl[5] = {nextafter(p, 0.0), p, nextafter(p, INFINITY), p - ldexp(p, -40), p + ldexp(p, -40)};
            for (int s = 0; s < 2; s++) {
                for (int i = 0; i < 3; i++) {
                    check_float_input(f, &tf, s ? -fl[i] : fl[i]);
                    inputs++;
                }
                for (int i = 0; i < 5; i++) {
                    check_double_input(f, &td, s ? -dl[i] : dl[i]);
                    inputs++;
                }
            }
        }
        if (f.exp == 8) {
            /* bfloat16 patterns are the top halves of floats: every float whose low half is at a boundary */
            static const uint32_t low[] = {0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu};
            for (size_t i = 0; i < sizeof low / sizeof low[0]; i++) {
                uint32_t u = (b << 16) | low[i];
                check_float_input(f, &tf, f32_from_bits(u));
                check_float_input(f, &tf, f32_from_bits(u | 0x80000000u));
                inputs += 2;
            }
        }
    }
    CHECK(inputs > 65536);
    CHECK_INT_EQ(tf.n, 0);
    CHECK_INT_EQ(td.n, 0);
}

/* Random inputs: every float bit pattern is equally likely (NaNs, infinities and subnormals included), and
 * doubles are drawn around the format's range with full 53-bit significands. */
static void test_random(fmt f)
{
    char w1[64], w2[64];
    snprintf(w1, sizeof w1, "%s from_float random", f.name);
    snprintf(w2, sizeof w2, "%s from_double random", f.name);
    tally tf = {w1, 0}, td = {w2, 0};
    const int bias = (1 << (f.exp - 1)) - 1;
    for (int i = 0; i < 1000000; i++) {
        uint64_t r = rng();
        check_float_input(f, &tf, f32_from_bits((uint32_t)r));
        /* a float in or near the format's range */
        int e = (int)((r >> 32) % (unsigned)(2 * bias + f.mant + 8)) - bias - f.mant - 4;
        float x = ldexpf(1.0f + (float)((r >> 40) & 0xffffffu) * 0x1p-24f, e);
        check_float_input(f, &tf, (r >> 39) & 1u ? -x : x);
        /* a double in or near the format's range */
        uint64_t m = rng();
        double d = ldexp(1.0 + (double)(m >> 12) * 0x1p-52, e);
        check_double_input(f, &td, (m & 1u) ? -d : d);
        /* a double near a midpoint of the format, off it by less than a float can tell */
        uint32_t b = (uint32_t)(m >> 20) % fmt_inf(f);
        double mid = (fmt_value(f, b) + fmt_value(f, b + 1u)) / 2.0;
        double off = ldexp(mid > 0 ? mid : 0x1p-140, -30 - (int)((m >> 2) & 15u));
        check_double_input(f, &td, (m & 2u) ? mid + off : mid - off);
    }
    CHECK_INT_EQ(tf.n, 0);
    CHECK_INT_EQ(td.n, 0);
}

/* ---- bfloat16 specifics ----------------------------------------------------------------- */

static void test_bfloat16_known(void)
{
    CHECK_INT_EQ(th_bfloat16_from_float(1.0f).bits, 0x3f80);
    CHECK_INT_EQ(th_bfloat16_from_float(-1.0f).bits, 0xbf80);
    CHECK_INT_EQ(th_bfloat16_from_float(3.14159265f).bits, 0x4049);
    CHECK_INT_EQ(th_bfloat16_from_double(3.141592653589793).bits, 0x4049);
    CHECK_INT_EQ(th_bfloat16_from_float(-0.0f).bits, 0x8000);
    CHECK_INT_EQ(th_bfloat16_from_double(-0.0).bits, 0x8000);
    /* ties to even */
    CHECK_INT_EQ(th_bfloat16_from_float(1.0f + 0x1p-8f).bits, 0x3f80);
    CHECK_INT_EQ(th_bfloat16_from_float(1.0f + 0x3p-8f).bits, 0x3f82);
    CHECK_INT_EQ(th_bfloat16_from_float(1.0f + 0x1p-8f + 0x1p-23f).bits, 0x3f81);
    CHECK_INT_EQ(th_bfloat16_from_double(1.0 + 0x1p-8).bits, 0x3f80);
    CHECK_INT_EQ(th_bfloat16_from_double(1.0 + 0x1p-8 + 0x1p-40).bits, 0x3f81); /* past the tie by less than a float can tell */
    CHECK_INT_EQ(th_bfloat16_from_double(1.0 + 0x3p-8 - 0x1p-40).bits, 0x3f81);
    /* overflow: the largest float rounds to infinity, doubles past float's range too */
    CHECK_INT_EQ(th_bfloat16_from_float(FLT_MAX).bits, 0x7f80);
    CHECK_INT_EQ(th_bfloat16_from_float(-FLT_MAX).bits, 0xff80);
    CHECK_INT_EQ(th_bfloat16_from_float(0x1.fep127f).bits, 0x7f7f);
    CHECK_INT_EQ(th_bfloat16_from_double(0x1.ffp127).bits, 0x7f80);  /* the tie above the largest */
    CHECK_INT_EQ(th_bfloat16_from_double(nextafter(0x1.ffp127, 0.0)).bits, 0x7f7f);
    CHECK_INT_EQ(th_bfloat16_from_double(1e39).bits, 0x7f80);
    CHECK_INT_EQ(th_bfloat16_from_double(-1e300).bits, 0xff80);
    CHECK_INT_EQ(th_bfloat16_from_float(INFINITY).bits, 0x7f80);
    CHECK_INT_EQ(th_bfloat16_from_double(-INFINITY).bits, 0xff80);
    /* subnormals and underflow */
    CHECK_INT_EQ(th_bfloat16_from_float(0x1p-133f).bits, 0x0001);
    CHECK_INT_EQ(th_bfloat16_from_float(0x1p-134f).bits, 0x0000);
    CHECK_INT_EQ(th_bfloat16_from_float(0x3p-134f).bits, 0x0002);
    CHECK_INT_EQ(th_bfloat16_from_double(0x1p-134).bits, 0x0000);
    CHECK_INT_EQ(th_bfloat16_from_double(0x1.0000001p-134).bits, 0x0001);
    CHECK_INT_EQ(th_bfloat16_from_double(1e-300).bits, 0x0000);
    CHECK_INT_EQ(th_bfloat16_from_double(-1e-300).bits, 0x8000);
    CHECK_INT_EQ(th_bfloat16_from_float(0x1.fcp-127f).bits, 0x007f); /* the largest subnormal */
    CHECK_INT_EQ(th_bfloat16_from_float(0x1.fep-127f).bits, 0x0080); /* rounds into the normals */
    /* NaN: stays NaN, and quiet, whatever its payload */
    const uint32_t nans[] = {0x7fc00000u, 0x7f800001u, 0x7f80ffffu, 0x7fa00000u, 0xff800001u, 0xffc00000u,
                             0x7fffffffu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        uint16_t r = th_bfloat16_from_float(f32_from_bits(nans[i])).bits;
        CHECK(fmt_is_nan(BF16, r));
        CHECK(r & 0x40u);
        CHECK_INT_EQ(r & 0x8000u, (nans[i] >> 16) & 0x8000u);
    }
    uint16_t dn = th_bfloat16_from_double(NAN).bits;
    CHECK(fmt_is_nan(BF16, dn) && (dn & 0x40u));
    dn = th_bfloat16_from_double(-NAN).bits;
    CHECK(fmt_is_nan(BF16, dn) && (dn & 0x40u) && (dn & 0x8000u));
    /* decoding is exact: the pattern is the top half of the float */
    for (uint32_t b = 0; b < 0x10000u; b += 0x101u) {
        th_bfloat16 h = {(uint16_t)b};
        if (fmt_is_nan(BF16, h.bits)) {
            CHECK(isnan(th_bfloat16_to_float(h)));
        } else {
            CHECK_INT_EQ(f32_bits(th_bfloat16_to_float(h)), b << 16);
        }
    }
}

/* A float16 tensor and a bfloat16 tensor hold and hand back their elements' bits unchanged. */
static void test_tensors(void)
{
    th_f16_tensor *h = th_f16_empty(1, (const int64_t[]){4});
    const th_float16 hv[4] = {{0x3c00}, {0x8001}, {0x7bff}, {0xfc00}};
    for (int64_t i = 0; i < 4; i++) CHECK_INT_EQ(th_f16_set(h, &i, hv[i]), TH_OK);
    for (int64_t i = 0; i < 4; i++) CHECK_INT_EQ(th_f16_get(h, &i).bits, hv[i].bits);
    th_f16_tensor *ho = th_f16_ones(1, (const int64_t[]){2});
    CHECK_INT_EQ(th_f16_data(ho)[1].bits, 0x3c00);
    th_bf16_tensor *b = th_bf16_ones(1, (const int64_t[]){3});
    CHECK_INT_EQ(th_bf16_data(b)[2].bits, 0x3f80);
    th_bf16_tensor *bz = th_bf16_zeros(1, (const int64_t[]){3});
    CHECK_INT_EQ(th_bf16_data(bz)[0].bits, 0x0000);
    th_release(bz);
    th_release(b);
    th_release(ho);
    th_release(h);
}

/* Type promotion's laws and errors (its whole table is checked against PyTorch by tests/numpy/promote_torch). */
static void test_promotion(void)
{
    for (int a = 0; a < TH_NUM_DTYPES; a++) {
        CHECK(th_promote_types((th_dtype)a, (th_dtype)a) == (th_dtype)a);
        CHECK(th_promote_types(TH_BOOL, (th_dtype)a) == (th_dtype)a);
        for (int b = 0; b < TH_NUM_DTYPES; b++) {
            th_dtype ab = th_promote_types((th_dtype)a, (th_dtype)b);
            CHECK(ab == th_promote_types((th_dtype)b, (th_dtype)a));
            /* the result holds both: promoting again with either changes nothing */
            CHECK(th_promote_types(ab, (th_dtype)a) == ab && th_promote_types(ab, (th_dtype)b) == ab);
        }
    }
    CHECK(th_promote_types(TH_U8, TH_I8) == TH_I16);
    CHECK(th_promote_types(TH_F16, TH_BF16) == TH_F32);
    CHECK(th_promote_types(TH_C64, TH_F64) == TH_C128);
    CHECK(th_promote_types(TH_I64, TH_F16) == TH_F16);
    CHECK_ERROR(th_promote_types((th_dtype)12, TH_F32) == TH_DTYPE_INVALID, TH_ERR_INVALID, "th_promote_types",
                "dtype 12 is no th_dtype");
    CHECK_ERROR(th_promote_types(TH_F32, TH_DTYPE_INVALID) == TH_DTYPE_INVALID, TH_ERR_INVALID, "th_promote_types",
                "dtype -1 is no th_dtype");

    th_i32_tensor *v = th_i32_zeros(1, (int64_t[]){3});
    th_f64_tensor *s = th_f64_zeros(0, NULL);
    th_f32_tensor *w = th_f32_zeros(1, (int64_t[]){3});
    const th_tensor *vs[2] = {th_i32_base(v), th_f64_base(s)};
    const th_tensor *ws[2] = {th_f32_base(w), th_f64_base(s)};
    const th_tensor *three[3] = {th_i32_base(v), th_f64_base(s), th_f32_base(w)};
    CHECK(th_result_type(2, vs) == TH_F64);   /* a 0-d tensor of a higher kind counts */
    CHECK(th_result_type(2, ws) == TH_F32);   /* of the same kind it does not */
    CHECK(th_result_type(3, three) == TH_F32);
    CHECK(th_result_type(1, vs) == TH_I32);
    CHECK_ERROR(th_result_type(0, vs) == TH_DTYPE_INVALID, TH_ERR_INVALID, "th_result_type", "n is 0");
    CHECK_ERROR(th_result_type(2, NULL) == TH_DTYPE_INVALID, TH_ERR_INVALID, "th_result_type", "NULL tensors");
    const th_tensor *with_null[2] = {th_i32_base(v), NULL};
    CHECK_ERROR(th_result_type(2, with_null) == TH_DTYPE_INVALID, TH_ERR_INVALID, "th_result_type", "tensor 1 is NULL");
    th_i32_release(v);
    th_f64_release(s);
    th_f32_release(w);
}

int main(void)
{
    test_begin();
    fmt_build_tables();
    test_dtype_table();
    test_reference();
    test_float16_known();
    test_bfloat16_known();
    test_all_patterns(F16);
    test_all_patterns(BF16);
    test_boundaries(F16);
    test_boundaries(BF16);
    test_random(F16);
    test_random(BF16);
    test_tensors();
    test_promotion();
    return test_end("dtypes");
}
