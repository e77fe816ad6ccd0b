/* tests/test_pointwise.c: the elementwise ops (ops/pointwise.h, binary_op.h, unary_op.h,
 * ternary.h) and their driver.
 *
 * Values against independent references (double-precision libm, hand-computed tables for the integer
 * division family, wrapping computed by hand); broadcasting with 0-d, size-0, size-1, expanded and
 * transposed operands; non-contiguous and overlapping outs; in-place forms; bool results; 1 vs 2 threads;
 * and every error path: NULL, shapes, out shape/dtype/overlap/read-only, integer division by zero,
 * negative integer powers, where's cond dtype. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static th_f32_tensor *f32_from(int ndim, const int64_t *sizes, const float *v)
{
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    memcpy(th_f32_data(t), v, sizeof(float) * (size_t)th_f32_numel(t));
    return t;
}

static th_f64_tensor *f64_from(int ndim, const int64_t *sizes, const double *v)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    memcpy(th_f64_data(t), v, sizeof(double) * (size_t)th_f64_numel(t));
    return t;
}

static th_i32_tensor *i32_from(int ndim, const int64_t *sizes, const int32_t *v)
{
    th_i32_tensor *t = th_i32_empty(ndim, sizes);
    memcpy(th_i32_data(t), v, sizeof(int32_t) * (size_t)th_i32_numel(t));
    return t;
}

static th_i8_tensor *i8_from(int ndim, const int64_t *sizes, const int8_t *v)
{
    th_i8_tensor *t = th_i8_empty(ndim, sizes);
    memcpy(th_i8_data(t), v, (size_t)th_i8_numel(t));
    return t;
}

/* |got - want| within tol_ulps units in the last place of float (both NaN also agree). */
static bool close_f32(float got, double want, double tol_ulps)
{
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return (double)got == want;
    double ulp = nextafterf((float)fabs(want), INFINITY) - (float)fabs(want);
    if (ulp < FLT_TRUE_MIN) ulp = FLT_TRUE_MIN;
    return fabs((double)got - want) <= tol_ulps * ulp;
}

static bool close_f64(double got, long double want, double tol_ulps)
{
    if (isnan((double)want)) return isnan(got);
    if (isinf((double)want)) return got == (double)want;
    double w = (double)want;
    double ulp = nextafter(fabs(w), INFINITY) - fabs(w);
    return fabsl((long double)got - want) <= (long double)(tol_ulps * ulp);
}

/* ---- unary floating ops against libm in double / long double ---- */

typedef th_f32_tensor *(*f32_unary)(const th_f32_tensor *);
typedef th_f64_tensor *(*f64_unary)(const th_f64_tensor *);

static double ref_sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }
static double ref_rsqrt(double x) { return 1.0 / sqrt(x); }
static double ref_gelu(double x) { return 0.5 * x * erfc(-x / sqrt(2.0)); }
static double ref_relu(double x) { return x < 0 ? 0.0 : x; }
static double ref_frac(double x) { return x - trunc(x); }
static double ref_sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x; }
static double ref_neg(double x) { return -x; }
static double ref_square(double x) { return x * x; }
static double ref_recip(double x) { return 1.0 / x; }
static double ref_round(double x) { return nearbyint(x); }

static const struct {
    const char *name;
    f32_unary f32;
    f64_unary f64;
    double (*ref)(double);
    double lo, hi; /* the input range tested */
    double tol;    /* ulps of the result, for float32 against the double reference */
} unary_cases[] = {
    {"exp", th_f32_exp, th_f64_exp, exp, -80, 80, 1},
    {"exp2", th_f32_exp2, th_f64_exp2, exp2, -120, 120, 1},
    {"expm1", th_f32_expm1, th_f64_expm1, expm1, -10, 10, 2},
    {"log", th_f32_log, th_f64_log, log, 1e-6, 1e6, 1},
    {"log2", th_f32_log2, th_f64_log2, log2, 1e-6, 1e6, 1},
    {"log10", th_f32_log10, th_f64_log10, log10, 1e-6, 1e6, 1},
    {"log1p", th_f32_log1p, th_f64_log1p, log1p, -0.9, 100, 1},
    {"sqrt", th_f32_sqrt, th_f64_sqrt, sqrt, 0, 1e6, 0.5},
    {"rsqrt", th_f32_rsqrt, th_f64_rsqrt, ref_rsqrt, 1e-3, 1e6, 1.5},
    {"sin", th_f32_sin, th_f64_sin, sin, -10, 10, 1},
    {"cos", th_f32_cos, th_f64_cos, cos, -10, 10, 1},
    {"tan", th_f32_tan, th_f64_tan, tan, -1.5, 1.5, 1},
    {"asin", th_f32_asin, th_f64_asin, asin, -1, 1, 1},
    {"acos", th_f32_acos, th_f64_acos, acos, -1, 1, 1},
    {"atan", th_f32_atan, th_f64_atan, atan, -50, 50, 1},
    {"sinh", th_f32_sinh, th_f64_sinh, sinh, -10, 10, 1},
    {"cosh", th_f32_cosh, th_f64_cosh, cosh, -10, 10, 1},
    {"tanh", th_f32_tanh, th_f64_tanh, tanh, -10, 10, 2},
    {"sigmoid", th_f32_sigmoid, th_f64_sigmoid, ref_sigmoid, -30, 30, 2},
    {"erf", th_f32_erf, th_f64_erf, erf, -4, 4, 1},
    {"gelu", th_f32_gelu, th_f64_gelu, ref_gelu, -6, 6, 3},
    {"relu", th_f32_relu, th_f64_relu, ref_relu, -5, 5, 0},
    {"floor", th_f32_floor, th_f64_floor, floor, -10, 10, 0},
    {"ceil", th_f32_ceil, th_f64_ceil, ceil, -10, 10, 0},
    {"round", th_f32_round, th_f64_round, ref_round, -10, 10, 0},
    {"trunc", th_f32_trunc, th_f64_trunc, trunc, -10, 10, 0},
    {"frac", th_f32_frac, th_f64_frac, ref_frac, -10, 10, 0},
    {"sign", th_f32_sign, th_f64_sign, ref_sign, -2, 2, 0},
    {"neg", th_f32_neg, th_f64_neg, ref_neg, -5, 5, 0},
    {"abs", th_f32_abs, th_f64_abs, fabs, -5, 5, 0},
    {"square", th_f32_square, th_f64_square, ref_square, -1e3, 1e3, 0.5},
    {"reciprocal", th_f32_reciprocal, th_f64_reciprocal, ref_recip, 0.01, 1e3, 0.5},
};

static void test_unary_floating(void)
{
    enum { N = 1001 };
    for (size_t c = 0; c < sizeof unary_cases / sizeof unary_cases[0]; c++) {
        float xf[N];
        double xd[N];
        for (int i = 0; i < N; i++) {
            xd[i] = unary_cases[c].lo + (unary_cases[c].hi - unary_cases[c].lo) * i / (N - 1);
            xf[i] = (float)xd[i];
        }
        th_f32_tensor *af = f32_from(1, SZ(N), xf);
        th_f64_tensor *ad = f64_from(1, SZ(N), xd);
        th_f32_tensor *rf = unary_cases[c].f32(af);
        th_f64_tensor *rd = unary_cases[c].f64(ad);
        CHECK(rf && rd);
        int bad = 0;
        for (int i = 0; rf && rd && i < N; i++) {
            double want = unary_cases[c].ref((double)xf[i]);
            if (!close_f32(th_f32_data(rf)[i], want, unary_cases[c].tol + 0.5)) {
                if (bad++ < 3)
                    fprintf(stderr, "%s f32(%.9g) = %.9g, want %.9g\n", unary_cases[c].name, xf[i],
                            th_f32_data(rf)[i], want);
            }
            double wantd = unary_cases[c].ref(xd[i]);
            /* f64 runs the same libm function as the reference, or the same formula rounded differently. */
            if (!close_f64(th_f64_data(rd)[i], wantd, 128 * unary_cases[c].tol)) {
                if (bad++ < 3)
                    fprintf(stderr, "%s f64(%.17g) = %.17g, want %.17g\n", unary_cases[c].name, xd[i],
                            th_f64_data(rd)[i], wantd);
            }
        }
        CHECK_INT_EQ(bad, 0);
        /* _out into a transposed (non-contiguous) 2-d view, and _inplace, agree with the new tensor. */
        th_f32_tensor *a2 = th_f32_view(af, 2, SZ(7, 143));
        th_f32_tensor *o2 = th_f32_empty(2, SZ(143, 7));
        th_f32_tensor *o2t = th_f32_transpose(o2, 0, 1);
        CHECK_INT_EQ(th_f32_fill(o2, -1), 0);
        int (*out_fn)(th_f32_tensor *, const th_f32_tensor *) = NULL;
        int (*inplace_fn)(th_f32_tensor *) = NULL;
#define OUTS(op) if (!strcmp(unary_cases[c].name, #op)) { out_fn = th_f32_##op##_out; inplace_fn = th_f32_##op##_inplace; }
        OUTS(exp) OUTS(exp2) OUTS(expm1) OUTS(log) OUTS(log2) OUTS(log10) OUTS(log1p) OUTS(sqrt) OUTS(rsqrt)
        OUTS(sin) OUTS(cos) OUTS(tan) OUTS(asin) OUTS(acos) OUTS(atan) OUTS(sinh) OUTS(cosh) OUTS(tanh)
        OUTS(sigmoid) OUTS(erf) OUTS(gelu) OUTS(relu) OUTS(floor) OUTS(ceil) OUTS(round) OUTS(trunc)
        OUTS(frac) OUTS(sign) OUTS(neg) OUTS(abs) OUTS(square) OUTS(reciprocal)
#undef OUTS
        CHECK(out_fn && inplace_fn);
        if (out_fn && inplace_fn && rf) {
            CHECK_INT_EQ(out_fn(o2t, a2), 0);
            int mismatches = 0;
            for (int64_t i = 0; i < 7; i++)
                for (int64_t j = 0; j < 143; j++) {
                    float got = th_f32_data(o2)[j * 7 + i], want = th_f32_data(rf)[i * 143 + j];
                    if (memcmp(&got, &want, sizeof got) != 0 && !(isnan(got) && isnan(want))) mismatches++;
                }
            CHECK_INT_EQ(mismatches, 0);
            th_f32_tensor *copy = th_f32_clone(af);
            CHECK_INT_EQ(inplace_fn(copy), 0);
            CHECK(memcmp(th_f32_data(copy), th_f32_data(rf), sizeof(float) * N) == 0 || c == 0 /* NaN-free */);
            th_f32_release(copy);
        }
        th_f32_release(a2);
        th_f32_release(o2);
        th_f32_release(o2t);
        th_f32_release(af);
        th_f32_release(rf);
        th_f64_release(ad);
        th_f64_release(rd);
    }
}

static void test_unary_special_values(void)
{
    const float in[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 2.5f, -2.5f, 0.5f, 1.5f};
    th_f32_tensor *a = f32_from(1, SZ(9), in);
    th_bool_tensor *nan = th_f32_isnan(a), *inf = th_f32_isinf(a), *fin = th_f32_isfinite(a);
    const bool want_nan[] = {1, 0, 0, 0, 0, 0, 0, 0, 0}, want_inf[] = {0, 1, 1, 0, 0, 0, 0, 0, 0},
               want_fin[] = {0, 0, 0, 1, 1, 1, 1, 1, 1};
    CHECK(memcmp(th_bool_data(nan), want_nan, 9) == 0);
    CHECK(memcmp(th_bool_data(inf), want_inf, 9) == 0);
    CHECK(memcmp(th_bool_data(fin), want_fin, 9) == 0);
    th_f32_tensor *r = th_f32_round(a);
    CHECK(th_f32_data(r)[5] == 2.0f && th_f32_data(r)[6] == -2.0f && th_f32_data(r)[7] == 0.0f &&
          th_f32_data(r)[8] == 2.0f); /* halves to even */
    th_f32_tensor *rl = th_f32_relu(a), *sg = th_f32_sign(a);
    CHECK(isnan(th_f32_data(rl)[0]) && isnan(th_f32_data(sg)[0]));
    CHECK(signbit(th_f32_data(sg)[4]) && th_f32_data(sg)[4] == 0.0f);
    /* gelu at the infinities is the limit: -0 and +inf, not the formula's -inf * 0 = NaN. */
    th_f32_tensor *ge = th_f32_gelu(a);
    const double in64[] = {-INFINITY, INFINITY, NAN, -1e300, -38.0};
    th_f64_tensor *a64 = f64_from(1, SZ(5), in64);
    th_f64_tensor *ge64 = th_f64_gelu(a64);
    CHECK(isnan(th_f32_data(ge)[0]) && th_f32_data(ge)[1] == INFINITY && th_f32_data(ge)[2] == 0.0f &&
          signbit(th_f32_data(ge)[2]));
    CHECK(th_f64_data(ge64)[0] == 0.0 && signbit(th_f64_data(ge64)[0]) && th_f64_data(ge64)[1] == INFINITY &&
          isnan(th_f64_data(ge64)[2]) && th_f64_data(ge64)[3] == 0.0 && signbit(th_f64_data(ge64)[3]));
    /* gelu(-38) = -1.0964627768261380e-314 (mpmath), a subnormal the asymptotic series reaches within a few
     * of its ulps (4.9e-324); erfc alone, subnormal there, would be off by about 19 of them. */
    CHECK(fabs(th_f64_data(ge64)[4] - -1.0964627768261380e-314) <= 4 * 4.9406564584124654e-324);
    th_f32_release(ge);
    th_f64_release(ge64);
    th_f64_release(a64);
    th_bool_tensor *lnot = th_f32_logical_not(a);
    const bool want_lnot[] = {0, 0, 0, 1, 1, 0, 0, 0, 0};
    CHECK(memcmp(th_bool_data(lnot), want_lnot, 9) == 0);
    th_bool_release(nan);
    th_bool_release(inf);
    th_bool_release(fin);
    th_bool_release(lnot);
    th_f32_release(r);
    th_f32_release(rl);
    th_f32_release(sg);
    th_f32_release(a);
}

/* float16 and bfloat16 compute in float and round once. */
static void test_unary_reduced(void)
{
    const float in[] = {-3.0f, -0.5f, 0.0f, 0.25f, 1.0f, 2.0f, 7.5f};
    th_f16_tensor *h = th_f16_empty(1, SZ(7));
    th_bf16_tensor *b = th_bf16_empty(1, SZ(7));
    for (int i = 0; i < 7; i++) {
        th_f16_data(h)[i] = th_float16_from_float(in[i]);
        th_bf16_data(b)[i] = th_bfloat16_from_float(in[i]);
    }
    th_f16_tensor *eh = th_f16_exp(h);
    th_bf16_tensor *tb = th_bf16_tanh(b);
    int bad = 0;
    for (int i = 0; i < 7; i++) {
        float xh = th_float16_to_float(th_f16_data(h)[i]), xb = th_bfloat16_to_float(th_bf16_data(b)[i]);
        if (th_f16_data(eh)[i].bits != th_float16_from_float(expf(xh)).bits) bad++;
        if (th_bf16_data(tb)[i].bits != th_bfloat16_from_float(tanhf(xb)).bits) bad++;
    }
    CHECK_INT_EQ(bad, 0);
    th_f16_tensor *sum = th_f16_add(h, h);
    CHECK(th_float16_to_float(th_f16_data(sum)[6]) == 15.0f);
    th_f16_release(sum);
    th_f16_release(h);
    th_f16_release(eh);
    th_bf16_release(b);
    th_bf16_release(tb);
}

/* ---- integer semantics ---- */

static void test_integer_division_family(void)
{
    /* Python's // and % give floor_divide and remainder; C's / and % give div and fmod. */
    const int32_t a[] = {7, -7, 7, -7, 0, INT32_MIN, INT32_MIN, 5};
    const int32_t b[] = {2, 2, -2, -2, 3, -1, 1, 7};
    const int32_t want_div[] = {3, -3, -3, 3, 0, INT32_MIN, INT32_MIN, 0};
    const int32_t want_floor[] = {3, -4, -4, 3, 0, INT32_MIN, INT32_MIN, 0};
    const int32_t want_rem[] = {1, 1, -1, -1, 0, 0, 0, 5};
    const int32_t want_fmod[] = {1, -1, 1, -1, 0, 0, 0, 5};
    th_i32_tensor *ta = i32_from(1, SZ(8), a), *tb = i32_from(1, SZ(8), b);
    th_i32_tensor *d = th_i32_div(ta, tb), *f = th_i32_floor_divide(ta, tb), *r = th_i32_remainder(ta, tb),
                  *m = th_i32_fmod(ta, tb);
    CHECK(d && f && r && m);
    if (d && f && r && m) {
        CHECK(memcmp(th_i32_data(d), want_div, sizeof want_div) == 0);
        CHECK(memcmp(th_i32_data(f), want_floor, sizeof want_floor) == 0);
        CHECK(memcmp(th_i32_data(r), want_rem, sizeof want_rem) == 0);
        CHECK(memcmp(th_i32_data(m), want_fmod, sizeof want_fmod) == 0);
    }
    /* A zero divisor anywhere: refused before anything is written. */
    th_i32_tensor *z = th_i32_clone(tb);
    th_i32_data(z)[3] = 0;
    th_i32_tensor *keep = th_i32_clone(ta);
    CHECK_NULL(th_i32_div(ta, z), TH_ERR_INVALID, "th_i32_div", "division by zero");
    CHECK_NULL(th_i32_floor_divide(ta, z), TH_ERR_INVALID, "th_i32_floor_divide", "division by zero");
    CHECK_NULL(th_i32_remainder(ta, z), TH_ERR_INVALID, "th_i32_remainder", "division by zero");
    CHECK_FAILS(th_i32_fmod_inplace(ta, z), TH_ERR_INVALID, "th_i32_fmod_inplace", "division by zero");
    CHECK(memcmp(th_i32_data(ta), th_i32_data(keep), sizeof a) == 0);
    CHECK_NULL(th_i32_div_scalar(ta, 0), TH_ERR_INVALID, "th_i32_div_scalar", "division by zero");
    CHECK_FAILS(th_i32_remainder_scalar_inplace(ta, 0), TH_ERR_INVALID, "th_i32_remainder_scalar_inplace",
                "division by zero");
    th_i32_tensor *ds = th_i32_floor_divide_scalar(ta, -2);
    CHECK(ds && th_i32_data(ds)[0] == -4 && th_i32_data(ds)[1] == 3);
    th_i32_release(ds);
    /* Floating: Python's semantics too, with the sign of zero. */
    const double fa[] = {7, -7, 7, -7, 0.5, -0.0, 1, 5.5};
    const double fb[] = {2, 2, -2, -2, 0.25, 3, 0, -2};
    const double want_ffloor[] = {3, -4, -4, 3, 2, -0.0, INFINITY, -3};
    const double want_frem[] = {1, 1, -1, -1, 0, 0, NAN, -0.5};
    th_f64_tensor *xa = f64_from(1, SZ(8), fa), *xb = f64_from(1, SZ(8), fb);
    th_f64_tensor *ff = th_f64_floor_divide(xa, xb), *fr = th_f64_remainder(xa, xb), *fm = th_f64_fmod(xa, xb);
    for (int i = 0; i < 8; i++) {
        CHECK(close_f64(th_f64_data(ff)[i], want_ffloor[i], 0));
        CHECK(close_f64(th_f64_data(fr)[i], want_frem[i], 0));
        CHECK(close_f64(th_f64_data(fm)[i], fmod(fa[i], fb[i]), 0));
    }
    CHECK(signbit(th_f64_data(ff)[5]));
    CHECK(signbit(th_f64_data(fr)[2]) && th_f64_data(fr)[4] == 0.0);
    th_f64_release(xa);
    th_f64_release(xb);
    th_f64_release(ff);
    th_f64_release(fr);
    th_f64_release(fm);
    th_i32_release(ta);
    th_i32_release(tb);
    th_i32_release(d);
    th_i32_release(f);
    th_i32_release(r);
    th_i32_release(m);
    th_i32_release(z);
    th_i32_release(keep);
}

/* Issue 11: u8 division by 255 took the path meant for MIN / -1 of the signed types ((real)-1 is 255 in
 * uint8_t): {15, 200} / 255 gave {241, 56} and the remainders {0, 0}. Every form of the four ops, with 255
 * in a tensor and as a scalar, against C's own unsigned / and % (floor and truncation agree for unsigned);
 * and the signed case that path is for still wraps. */
static bool u8_values_are(const char *what, const th_u8_tensor *t, const uint8_t *want, int64_t n)
{
    bool ok = t && th_u8_numel(t) == n && memcmp(th_u8_data(t), want, (size_t)n) == 0;
    if (!ok && t) {
        fprintf(stderr, "  %s:", what);
        for (int64_t i = 0; i < th_u8_numel(t); i++) fprintf(stderr, " %d (want %d)", th_u8_data(t)[i], want[i]);
        fprintf(stderr, "\n");
    }
    return ok;
}

static void test_unsigned_division_by_max(void)
{
    enum { N = 7 };
    const uint8_t a[N] = {15, 200, 255, 0, 254, 1, 255};
    const uint8_t b[N] = {255, 255, 255, 255, 1, 2, 254};
    static const struct {
        const char *name;
        bool quotient; /* div and floor_divide give a / b; remainder and fmod a % b */
        th_u8_tensor *(*op)(const th_u8_tensor *, const th_u8_tensor *);
        int (*out)(th_u8_tensor *, const th_u8_tensor *, const th_u8_tensor *);
        int (*inplace)(th_u8_tensor *, const th_u8_tensor *);
        th_u8_tensor *(*scalar)(const th_u8_tensor *, uint8_t);
        int (*scalar_out)(th_u8_tensor *, const th_u8_tensor *, uint8_t);
        int (*scalar_inplace)(th_u8_tensor *, uint8_t);
    } ops[] = {
        {"div", true, th_u8_div, th_u8_div_out, th_u8_div_inplace, th_u8_div_scalar, th_u8_div_scalar_out,
         th_u8_div_scalar_inplace},
        {"floor_divide", true, th_u8_floor_divide, th_u8_floor_divide_out, th_u8_floor_divide_inplace,
         th_u8_floor_divide_scalar, th_u8_floor_divide_scalar_out, th_u8_floor_divide_scalar_inplace},
        {"remainder", false, th_u8_remainder, th_u8_remainder_out, th_u8_remainder_inplace, th_u8_remainder_scalar,
         th_u8_remainder_scalar_out, th_u8_remainder_scalar_inplace},
        {"fmod", false, th_u8_fmod, th_u8_fmod_out, th_u8_fmod_inplace, th_u8_fmod_scalar, th_u8_fmod_scalar_out,
         th_u8_fmod_scalar_inplace},
    };
    th_u8_tensor *ta = th_u8_empty(1, SZ(N)), *tb = th_u8_empty(1, SZ(N)), *out = th_u8_zeros(1, SZ(N));
    memcpy(th_u8_data(ta), a, N);
    memcpy(th_u8_data(tb), b, N);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        uint8_t want[N], want255[N];
        for (int i = 0; i < N; i++) {
            want[i] = (uint8_t)(ops[k].quotient ? a[i] / b[i] : a[i] % b[i]);
            want255[i] = (uint8_t)(ops[k].quotient ? a[i] / 255 : a[i] % 255);
        }
        char what[64];
        snprintf(what, sizeof what, "th_u8_%s", ops[k].name);
        th_u8_tensor *r = ops[k].op(ta, tb);
        CHECK(u8_values_are(what, r, want, N));
        th_u8_release(r);
        CHECK_INT_EQ(ops[k].out(out, ta, tb), TH_OK);
        CHECK(u8_values_are(what, out, want, N));
        th_u8_tensor *t = th_u8_clone(ta);
        CHECK_INT_EQ(ops[k].inplace(t, tb), TH_OK);
        CHECK(u8_values_are(what, t, want, N));
        th_u8_release(t);
        snprintf(what, sizeof what, "th_u8_%s_scalar by 255", ops[k].name);
        r = ops[k].scalar(ta, 255);
        CHECK(u8_values_are(what, r, want255, N));
        th_u8_release(r);
        CHECK_INT_EQ(ops[k].scalar_out(out, ta, 255), TH_OK);
        CHECK(u8_values_are(what, out, want255, N));
        t = th_u8_clone(ta);
        CHECK_INT_EQ(ops[k].scalar_inplace(t, 255), TH_OK);
        CHECK(u8_values_are(what, t, want255, N));
        th_u8_release(t);
    }
    th_u8_release(out);
    th_u8_release(tb);
    th_u8_release(ta);

    /* -128 / -1 in int8_t wraps to -128, and its remainders are 0 (docs/math.md). */
    th_i8_tensor *sa = th_i8_full(1, SZ(2), INT8_MIN), *sb = th_i8_full(1, SZ(2), -1);
    th_i8_data(sa)[1] = 7;
    th_i8_tensor *d = th_i8_div(sa, sb), *f = th_i8_floor_divide(sa, sb), *r = th_i8_remainder(sa, sb),
                 *m = th_i8_fmod(sa, sb);
    CHECK(d && th_i8_data(d)[0] == INT8_MIN && th_i8_data(d)[1] == -7);
    CHECK(f && th_i8_data(f)[0] == INT8_MIN && th_i8_data(f)[1] == -7);
    CHECK(r && th_i8_data(r)[0] == 0 && th_i8_data(r)[1] == 0);
    CHECK(m && th_i8_data(m)[0] == 0 && th_i8_data(m)[1] == 0);
    th_i8_release(d);
    th_i8_release(f);
    th_i8_release(r);
    th_i8_release(m);
    th_i8_release(sb);
    th_i8_release(sa);
}

static void test_integer_wrapping(void)
{
    const int8_t a[] = {127, -128, -128, 100, -1, 3};
    const int8_t b[] = {1, -1, 2, 100, 7, 9};
    th_i8_tensor *ta = i8_from(1, SZ(6), a), *tb = i8_from(1, SZ(6), b);
    th_i8_tensor *s = th_i8_add(ta, tb), *d = th_i8_sub(ta, tb), *m = th_i8_mul(ta, tb);
    th_i8_tensor *n = th_i8_neg(ta), *ab = th_i8_abs(ta), *sq = th_i8_square(ta);
    int bad = 0;
    for (int i = 0; i < 6; i++) {
        if (th_i8_data(s)[i] != (int8_t)(uint8_t)((unsigned)a[i] + (unsigned)b[i])) bad++;
        if (th_i8_data(d)[i] != (int8_t)(uint8_t)((unsigned)a[i] - (unsigned)b[i])) bad++;
        if (th_i8_data(m)[i] != (int8_t)(uint8_t)((unsigned)a[i] * (unsigned)b[i])) bad++;
        if (th_i8_data(n)[i] != (int8_t)(uint8_t)(0u - (unsigned)a[i])) bad++;
        if (th_i8_data(ab)[i] != (a[i] < 0 ? (int8_t)(uint8_t)(0u - (unsigned)a[i]) : a[i])) bad++;
        if (th_i8_data(sq)[i] != (int8_t)(uint8_t)((unsigned)a[i] * (unsigned)a[i])) bad++;
    }
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(th_i8_data(n)[1], -128);
    CHECK_INT_EQ(th_i8_data(ab)[1], -128);
    /* pow: square and multiply, wrapping; a negative exponent is refused. */
    const int32_t pa[] = {2, -3, 7, 0, 1, -1, 3};
    const int32_t pb[] = {10, 3, 0, 0, 1000, 1001, 40};
    th_i32_tensor *xa = i32_from(1, SZ(7), pa), *xb = i32_from(1, SZ(7), pb);
    th_i32_tensor *p = th_i32_pow(xa, xb);
    uint32_t r40 = 1;
    for (int i = 0; i < 40; i++) r40 *= 3u;
    const int32_t want_pow[] = {1024, -27, 1, 1, 1, -1, (int32_t)r40};
    CHECK(p && memcmp(th_i32_data(p), want_pow, sizeof want_pow) == 0);
    th_i32_data(xb)[2] = -1;
    CHECK_NULL(th_i32_pow(xa, xb), TH_ERR_INVALID, "th_i32_pow", "negative power");
    CHECK_NULL(th_i32_pow_scalar(xa, -2), TH_ERR_INVALID, "th_i32_pow_scalar", "negative power -2");
    /* Shifts: counts outside 0..31 give 0 (left) or the sign fill (right). */
    const int32_t sa[] = {1, -8, -8, 5, 5, -1};
    const int32_t sb[] = {31, 1, 40, -1, 32, 3};
    th_i32_tensor *ya = i32_from(1, SZ(6), sa), *yb = i32_from(1, SZ(6), sb);
    th_i32_tensor *sl = th_i32_shift_left(ya, yb), *sr = th_i32_shift_right(ya, yb);
    const int32_t want_sl[] = {INT32_MIN, -16, 0, 0, 0, -8};
    const int32_t want_sr[] = {0, -4, -1, 0, 0, -1};
    CHECK(memcmp(th_i32_data(sl), want_sl, sizeof want_sl) == 0);
    CHECK(memcmp(th_i32_data(sr), want_sr, sizeof want_sr) == 0);
    th_i32_tensor *bn = th_i32_bitwise_not(ya), *bx = th_i32_bitwise_xor(ya, yb);
    CHECK(th_i32_data(bn)[1] == 7 && th_i32_data(bx)[0] == (1 ^ 31));
    /* Unsigned: abs and sign are identities or 0/1; u8 wraps too. */
    th_u8_tensor *u = th_u8_full(1, SZ(3), 200);
    th_u8_tensor *u2 = th_u8_add(u, u), *us = th_u8_sign(u), *un = th_u8_neg(u);
    CHECK(th_u8_data(u2)[0] == 144 && th_u8_data(us)[0] == 1 && th_u8_data(un)[0] == 56);
    th_u8_release(u);
    th_u8_release(u2);
    th_u8_release(us);
    th_u8_release(un);
    th_i32_release(bn);
    th_i32_release(bx);
    th_i32_release(ya);
    th_i32_release(yb);
    th_i32_release(sl);
    th_i32_release(sr);
    th_i32_release(xa);
    th_i32_release(xb);
    th_i32_release(p);
    th_i8_release(ta);
    th_i8_release(tb);
    th_i8_release(s);
    th_i8_release(d);
    th_i8_release(m);
    th_i8_release(n);
    th_i8_release(ab);
    th_i8_release(sq);
}

/* ---- binary floating ops, comparisons and logical ops ---- */

static void test_binary_floating(void)
{
    const float a[] = {1.0f, -2.0f, NAN, 3.0f, 0.0f, -0.0f};
    const float b[] = {2.0f, -2.0f, 1.0f, NAN, -0.0f, 5.0f};
    th_f32_tensor *ta = f32_from(1, SZ(6), a), *tb = f32_from(1, SZ(6), b);
    th_f32_tensor *mx = th_f32_maximum(ta, tb), *mn = th_f32_minimum(ta, tb);
    CHECK(th_f32_data(mx)[0] == 2.0f && th_f32_data(mn)[0] == 1.0f);
    CHECK(isnan(th_f32_data(mx)[2]) && isnan(th_f32_data(mx)[3]) && isnan(th_f32_data(mn)[2]) &&
          isnan(th_f32_data(mn)[3]));
    th_f32_tensor *at = th_f32_atan2(ta, tb), *hy = th_f32_hypot(ta, tb), *pw = th_f32_pow(ta, tb);
    for (int i = 0; i < 6; i++) {
        CHECK(close_f32(th_f32_data(at)[i], atan2((double)a[i], (double)b[i]), 1));
        CHECK(close_f32(th_f32_data(hy)[i], hypot((double)a[i], (double)b[i]), 1));
        CHECK(close_f32(th_f32_data(pw)[i], pow((double)a[i], (double)b[i]), 1));
    }
    th_bool_tensor *lt = th_f32_lt(ta, tb), *le = th_f32_le(ta, tb), *gt = th_f32_gt(ta, tb),
                   *ge = th_f32_ge(ta, tb), *eq = th_f32_eq(ta, tb), *ne = th_f32_ne(ta, tb);
    for (int i = 0; i < 6; i++) {
        CHECK(th_bool_data(lt)[i] == (a[i] < b[i]));
        CHECK(th_bool_data(le)[i] == (a[i] <= b[i]));
        CHECK(th_bool_data(gt)[i] == (a[i] > b[i]));
        CHECK(th_bool_data(ge)[i] == (a[i] >= b[i]));
        CHECK(th_bool_data(eq)[i] == (a[i] == b[i]));
        CHECK(th_bool_data(ne)[i] == (a[i] != b[i]));
    }
    th_bool_tensor *la = th_f32_logical_and(ta, tb), *lo = th_f32_logical_or(ta, tb),
                   *lx = th_f32_logical_xor(ta, tb);
    const bool want_and[] = {1, 1, 1, 1, 0, 0}, want_or[] = {1, 1, 1, 1, 0, 1}, want_xor[] = {0, 0, 0, 0, 0, 1};
    CHECK(memcmp(th_bool_data(la), want_and, 6) == 0);
    CHECK(memcmp(th_bool_data(lo), want_or, 6) == 0);
    CHECK(memcmp(th_bool_data(lx), want_xor, 6) == 0);
    /* Scalar forms, and a comparison's _scalar_out into a strided bool out. */
    th_f32_tensor *s = th_f32_sub_scalar(ta, 1.0f);
    CHECK(th_f32_data(s)[0] == 0.0f && th_f32_data(s)[1] == -3.0f);
    th_bool_tensor *big = th_bool_zeros(1, SZ(12));
    th_bool_tensor *every2 = th_bool_as_strided(big, 1, SZ(6), SZ(2), 0);
    CHECK_INT_EQ(th_f32_gt_scalar_out(every2, ta, 0.5f), 0);
    const bool want_big[] = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
    CHECK(memcmp(th_bool_data(big), want_big, 12) == 0);
    /* complex: arithmetic and equality. */
    th_c64_tensor *z = th_c64_full(1, SZ(2), 0);
    th_c64_data(z)[0] = 1.0f + 2.0f * I;
    th_c64_tensor *zz = th_c64_mul(z, z), *ze = th_c64_exp(z);
    th_bool_tensor *zq = th_c64_eq(z, zz);
    CHECK(crealf(th_c64_data(zz)[0]) == -3.0f && cimagf(th_c64_data(zz)[0]) == 4.0f);
    CHECK(close_f32(crealf(th_c64_data(ze)[0]), exp(1.0) * cos(2.0), 2) &&
          close_f32(cimagf(th_c64_data(ze)[0]), exp(1.0) * sin(2.0), 2));
    CHECK(th_bool_data(zq)[0] == 0 && th_bool_data(zq)[1] == 1);
    th_c64_release(z);
    th_c64_release(zz);
    th_c64_release(ze);
    th_bool_release(zq);
    th_bool_release(big);
    th_bool_release(every2);
    th_f32_release(s);
    th_bool_release(la);
    th_bool_release(lo);
    th_bool_release(lx);
    th_bool_release(lt);
    th_bool_release(le);
    th_bool_release(gt);
    th_bool_release(ge);
    th_bool_release(eq);
    th_bool_release(ne);
    th_f32_release(at);
    th_f32_release(hy);
    th_f32_release(pw);
    th_f32_release(mx);
    th_f32_release(mn);
    th_f32_release(ta);
    th_f32_release(tb);
}

/* ---- broadcasting, layouts and aliasing ---- */

static void test_broadcasting(void)
{
    th_f32_tensor *col = th_f32_empty(2, SZ(3, 1)), *row = th_f32_empty(2, SZ(1, 4));
    for (int i = 0; i < 3; i++) th_f32_data(col)[i] = (float)(10 * i);
    for (int j = 0; j < 4; j++) th_f32_data(row)[j] = (float)j;
    th_f32_tensor *s = th_f32_add(col, row);
    CHECK(s && th_f32_ndim(s) == 2 && th_f32_size(s, 0) == 3 && th_f32_size(s, 1) == 4);
    int bad = 0;
    for (int i = 0; s && i < 3; i++)
        for (int j = 0; j < 4; j++)
            if (th_f32_data(s)[i * 4 + j] != (float)(10 * i + j)) bad++;
    CHECK_INT_EQ(bad, 0);
    /* 0-d with anything; size-0 dims broadcast against size 1 and give empty results. */
    th_f32_tensor *zero_d = th_f32_full(0, NULL, 0.5f);
    th_f32_tensor *z1 = th_f32_mul(zero_d, s), *z2 = th_f32_mul(zero_d, zero_d);
    CHECK(z1 && th_f32_numel(z1) == 12 && th_f32_data(z1)[5] == 0.5f * th_f32_data(s)[5]);
    CHECK(z2 && th_f32_ndim(z2) == 0 && th_f32_data(z2)[0] == 0.25f);
    th_f32_tensor *empty = th_f32_empty(2, SZ(0, 4));
    th_f32_tensor *e = th_f32_add(empty, row);
    CHECK(e && th_f32_size(e, 0) == 0 && th_f32_size(e, 1) == 4);
    /* Expanded and transposed inputs; the result of a transposed input is laid out row-major. */
    th_f32_tensor *ex = th_f32_expand(col, 2, SZ(3, 4));
    th_f32_tensor *st = th_f32_transpose(s, 0, 1);
    th_f32_tensor *ext = th_f32_transpose(ex, 0, 1);
    th_f32_tensor *r2 = th_f32_sub(st, ext);
    bad = 0;
    for (int j = 0; r2 && j < 4; j++)
        for (int i = 0; i < 3; i++)
            if (th_f32_data(r2)[j * 3 + i] != (float)j) bad++;
    CHECK(r2 && th_f32_is_contiguous(r2));
    CHECK_INT_EQ(bad, 0);
    /* Shapes that do not broadcast. */
    th_f32_tensor *three = th_f32_ones(1, SZ(3));
    CHECK_NULL(th_f32_add(row, three), TH_ERR_SHAPE, "th_f32_add", "do not broadcast");
    CHECK_NULL(th_f32_where(NULL, row, row), TH_ERR_INVALID, "th_f32_where", "NULL");
    /* In place: b must broadcast to a's shape, not the other way round. */
    CHECK_FAILS(th_f32_add_inplace(row, s), TH_ERR_SHAPE, "th_f32_add_inplace", "out has shape (1, 4)");
    CHECK_INT_EQ(th_f32_add_inplace(s, row), 0);
    CHECK(th_f32_data(s)[7] == 10 + 3 + 3);
    th_f32_release(three);
    th_f32_release(ext);
    th_f32_release(r2);
    th_f32_release(st);
    th_f32_release(ex);
    th_f32_release(e);
    th_f32_release(empty);
    th_f32_release(z1);
    th_f32_release(z2);
    th_f32_release(zero_d);
    th_f32_release(s);
    th_f32_release(col);
    th_f32_release(row);
}

static void test_outs_and_overlap(void)
{
    th_f32_tensor *base = th_f32_empty(1, SZ(10));
    for (int i = 0; i < 10; i++) th_f32_data(base)[i] = (float)i;
    /* out = a[1:9] + a[0:8] written into a[2:10]: out overlaps both inputs, shifted; the result must be
     * that of reading the inputs before anything is written. */
    th_f32_tensor *a = th_f32_narrow(base, 0, 1, 8), *b = th_f32_narrow(base, 0, 0, 8),
                  *out = th_f32_narrow(base, 0, 2, 8);
    CHECK_INT_EQ(th_f32_add_out(out, a, b), 0);
    int bad = 0;
    for (int i = 0; i < 8; i++)
        if (th_f32_data(base)[2 + i] != (float)(2 * i + 1)) bad++;
    CHECK_INT_EQ(bad, 0);
    CHECK(th_f32_data(base)[0] == 0.0f && th_f32_data(base)[1] == 1.0f);
    /* In place with b the same tensor: exact aliasing is fine. */
    CHECK_INT_EQ(th_f32_mul_inplace(a, a), 0);
    /* Outs that cannot be: wrong shape, wrong dtype, overlapping elements, read-only, NULL. */
    th_f32_tensor *wrong = th_f32_empty(1, SZ(7));
    CHECK_FAILS(th_f32_add_out(wrong, a, b), TH_ERR_SHAPE, "th_f32_add_out", "out has shape (7)");
    th_f32_tensor *f = th_f32_empty(1, SZ(8));
    CHECK_FAILS(th_f32_lt_out((th_bool_tensor *)f, a, b), TH_ERR_DTYPE, "th_f32_lt_out", "out is f32");
    th_f32_tensor *one = th_f32_empty(1, SZ(1));
    th_f32_tensor *expanded = th_f32_expand(one, 1, SZ(8));
    CHECK_FAILS(th_f32_add_out(expanded, a, b), TH_ERR_INVALID, "th_f32_add_out", "share an address");
    CHECK_FAILS(th_f32_exp_out(expanded, a), TH_ERR_INVALID, "th_f32_exp_out", "share an address");
    CHECK_FAILS(th_f32_add_out(NULL, a, b), TH_ERR_INVALID, "th_f32_add_out", "NULL out");
    CHECK_FAILS(th_f32_exp_inplace(NULL), TH_ERR_INVALID, "th_f32_exp_inplace", "NULL");
    CHECK_NULL(th_f32_exp(NULL), TH_ERR_INVALID, "th_f32_exp", "NULL");
    CHECK_NULL(th_f32_add(a, NULL), TH_ERR_INVALID, "th_f32_add", "NULL");
    th_storage *ro = th_f32_storage_new(8);
    th_storage_make_read_only(ro);
    th_f32_tensor *rot = th_f32_new_with_storage(ro, 0, 1, SZ(8), NULL);
    CHECK_FAILS(th_f32_add_out(rot, a, b), TH_ERR_READ_ONLY, "th_f32_add_out", "read-only");
    CHECK_FAILS(th_f32_neg_inplace(rot), TH_ERR_READ_ONLY, "th_f32_neg_inplace", "read-only");
    th_f32_release(rot);
    th_storage_release(ro);
    th_f32_release(one);
    th_f32_release(expanded);
    th_f32_release(f);
    th_f32_release(wrong);
    th_f32_release(a);
    th_f32_release(b);
    th_f32_release(out);
    th_f32_release(base);
}

/* ---- where, clamp, lerp, addcmul, addcdiv, add_alpha ---- */

static void test_ternary(void)
{
    const float av[] = {1, 2, 3, 4, 5, 6};
    th_f32_tensor *a = f32_from(2, SZ(2, 3), av);
    th_bool_tensor *cond = th_bool_empty(2, SZ(2, 1));
    th_bool_data(cond)[0] = true;
    th_bool_data(cond)[1] = false;
    th_f32_tensor *zero = th_f32_zeros(0, NULL);
    th_f32_tensor *w = th_f32_where(cond, a, zero);
    const float want_w[] = {1, 2, 3, 0, 0, 0};
    CHECK(w && memcmp(th_f32_data(w), want_w, sizeof want_w) == 0);
    CHECK_NULL(th_f32_where((const th_bool_tensor *)a, a, a), TH_ERR_DTYPE, "th_f32_where", "cond is f32");
    th_f32_tensor *c = th_f32_clamp(a, 2, 4);
    const float want_c[] = {2, 2, 3, 4, 4, 4};
    CHECK(memcmp(th_f32_data(c), want_c, sizeof want_c) == 0);
    th_f32_tensor *c2 = th_f32_clamp(a, 5, 1); /* lo > hi: hi everywhere */
    CHECK(th_f32_data(c2)[0] == 1 && th_f32_data(c2)[5] == 1);
    th_f32_tensor *ten = th_f32_full(1, SZ(3), 10);
    th_f32_tensor *l = th_f32_lerp(a, ten, 0.25f), *l1 = th_f32_lerp(a, ten, 1.0f);
    CHECK(th_f32_data(l)[0] == 1 + 0.25f * 9 && th_f32_data(l1)[4] == 10);
    th_f32_tensor *acm = th_f32_addcmul(a, ten, a, 0.5f), *acd = th_f32_addcdiv(a, ten, a, 2.0f);
    CHECK(th_f32_data(acm)[1] == 2 + 0.5f * 10 * 2 && th_f32_data(acd)[3] == 4 + 2.0f * 10 / 4);
    th_f32_tensor *aa = th_f32_add_alpha(a, ten, -0.5f);
    CHECK(th_f32_data(aa)[2] == 3 - 5);
    th_i32_tensor *ia = th_i32_full(1, SZ(4), INT32_MAX);
    CHECK_INT_EQ(th_i32_add_alpha_inplace(ia, ia, 1), 0); /* wraps */
    CHECK_INT_EQ(th_i32_data(ia)[0], -2);
    CHECK_INT_EQ(th_i32_clamp_inplace(ia, 0, 5), 0);
    CHECK_INT_EQ(th_i32_data(ia)[3], 0);
    CHECK_INT_EQ(th_f32_addcmul_inplace(a, a, a, 1.0f), 0);
    CHECK(th_f32_data(a)[5] == 6 + 36);
    th_i32_release(ia);
    th_f32_release(aa);
    th_f32_release(acm);
    th_f32_release(acd);
    th_f32_release(l);
    th_f32_release(l1);
    th_f32_release(ten);
    th_f32_release(c);
    th_f32_release(c2);
    th_f32_release(w);
    th_f32_release(zero);
    th_bool_release(cond);
    th_f32_release(a);
}

/* ---- threads: a result does not depend on how many threads computed it ---- */

static void test_threads(void)
{
    /* Both far above the size (2 * 32K elements) from which a loop splits: b broadcast takes the general
     * engine, exp the flat path. */
    enum { N = 1 << 19 };
    th_f32_tensor *a = th_f32_empty(2, SZ(N / 512, 512)), *b = th_f32_empty(2, SZ(1, 512));
    for (int i = 0; i < N; i++) th_f32_data(a)[i] = (float)(((int64_t)i * 7919) % 1000) / 100.0f - 5.0f;
    for (int i = 0; i < 512; i++) th_f32_data(b)[i] = (float)i / 512.0f;
    const int saved = th_get_num_threads();
    th_set_num_threads(1);
    th_f32_tensor *r1 = th_f32_atan2(a, b), *e1 = th_f32_exp(a);
    if (test_set_threads(2)) {
        th_f32_tensor *r2 = th_f32_atan2(a, b), *e2 = th_f32_exp(a);
        CHECK(r2 && memcmp(th_f32_data(r1), th_f32_data(r2), sizeof(float) * N) == 0);
        CHECK(e2 && memcmp(th_f32_data(e1), th_f32_data(e2), sizeof(float) * N) == 0);
        th_f32_release(r2);
        th_f32_release(e2);
    }
    th_set_num_threads(saved);
    /* and it is what the per-element reference says */
    int bad = 0;
    for (int i = 0; i < N; i += 997)
        if (!close_f32(th_f32_data(r1)[i], atan2((double)th_f32_data(a)[i], (double)th_f32_data(b)[i % 512]), 1))
            bad++;
    CHECK_INT_EQ(bad, 0);
    th_f32_release(a);
    th_f32_release(b);
    th_f32_release(r1);
    th_f32_release(e1);
}

/* Integer ops over 1 and 2 threads. The sizes are above the split; the operands are contiguous (the flat
 * path), broadcast from a row or a column, and transposed, and one out is transposed, so the chunks each
 * thread gets start part way through rows of every kind of operand. */
enum { IT_R = 400, IT_C = 512, IT_N = IT_R * IT_C, IT_OPS = 9 };

typedef struct int_thread_inputs {
    th_i32_tensor *a, *a2, *row, *col, *bt; /* bt: (IT_R, IT_C) transposed in memory */
    th_i64_tensor *n, *dt;                  /* dt: transposed, no zeros */
    th_u8_tensor *u, *shift;                /* shift: (IT_C), amounts 0..9, past the width too */
} int_thread_inputs;

static uint32_t it_seed = 2024;
static uint32_t it_next(void)
{
    it_seed = it_seed * 1664525u + 1013904223u;
    return it_seed;
}

static void int_thread_ops(const int_thread_inputs *in, th_tensor **r)
{
    r[0] = th_i32_base(th_i32_add(in->a, in->a2));
    r[1] = th_i32_base(th_i32_add(in->a, in->row));
    th_i32_tensor *store = th_i32_zeros(2, SZ(IT_C, IT_R)), *out = th_i32_transpose(store, 0, 1);
    CHECK_INT_EQ(th_i32_add_out(out, in->a, in->col), TH_OK);
    th_i32_release(out);
    r[2] = th_i32_base(store);
    r[3] = th_i64_base(th_i64_floor_divide(in->n, in->dt));
    r[4] = th_i32_base(th_i32_bitwise_xor(in->a, in->col));
    r[5] = th_u8_base(th_u8_shift_left(in->u, in->shift));
    r[6] = th_u8_base(th_u8_shift_right(in->u, in->shift));
    r[7] = th_bool_base(th_i32_lt(in->a, in->bt));
    r[8] = th_bool_base(th_i32_lt(in->row, in->col));
}

/* Same bytes in the whole storage: the results were made the same way, so their layouts match. */
static bool same_storage_bytes(const th_tensor *x, const th_tensor *y)
{
    if (!x || !y) return false;
    th_storage *sx = th_tensor_storage(x), *sy = th_tensor_storage(y);
    return th_storage_nbytes(sx) == th_storage_nbytes(sy) &&
           memcmp(th_storage_raw_data(sx), th_storage_raw_data(sy), th_storage_nbytes(sx)) == 0;
}

static int64_t floor_div_i64(int64_t a, int64_t b)
{
    if (b == -1) return (int64_t)(0u - (uint64_t)a); /* INT64_MIN / -1 wraps */
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static void test_threads_integer(void)
{
    int_thread_inputs in;
    in.a = th_i32_empty(2, SZ(IT_R, IT_C));
    in.a2 = th_i32_empty(2, SZ(IT_R, IT_C));
    in.row = th_i32_empty(2, SZ(1, IT_C));
    in.col = th_i32_empty(2, SZ(IT_R, 1));
    th_i32_tensor *bstore = th_i32_empty(2, SZ(IT_C, IT_R));
    in.bt = th_i32_transpose(bstore, 0, 1);
    in.n = th_i64_empty(2, SZ(IT_R, IT_C));
    th_i64_tensor *dstore = th_i64_empty(2, SZ(IT_C, IT_R));
    in.dt = th_i64_transpose(dstore, 0, 1);
    in.u = th_u8_empty(2, SZ(IT_R, IT_C));
    in.shift = th_u8_empty(1, SZ(IT_C));
    int32_t *a = th_i32_data(in.a), *a2 = th_i32_data(in.a2), *bs = th_i32_data(bstore);
    int64_t *n = th_i64_data(in.n), *ds = th_i64_data(dstore);
    for (int64_t i = 0; i < IT_N; i++) {
        /* near both ends of the range, so sums wrap both ways */
        int32_t near = (int32_t)(it_next() % 1000);
        a[i] = i % 2 ? INT32_MAX - near : INT32_MIN + near;
        a2[i] = (int32_t)it_next();
        bs[i] = (int32_t)it_next();
        n[i] = i % 1009 == 0 ? INT64_MIN : (int64_t)(((uint64_t)it_next() << 32) | it_next()) >> 20;
        int64_t d = (int64_t)(it_next() % 2001) - 1000;
        ds[i] = d == 0 ? -1 : d;
        th_u8_data(in.u)[i] = (uint8_t)it_next();
    }
    for (int j = 0; j < IT_C; j++) {
        th_i32_data(in.row)[j] = (int32_t)(it_next() % 4001) - 2000;
        th_u8_data(in.shift)[j] = (uint8_t)(j % 10);
    }
    for (int i = 0; i < IT_R; i++) th_i32_data(in.col)[i] = (int32_t)it_next();

    th_tensor *r[2][IT_OPS] = {{NULL}};
    const int saved = th_get_num_threads();
    th_set_num_threads(1);
    int_thread_ops(&in, r[0]);
    if (test_set_threads(2)) {
        int_thread_ops(&in, r[1]);
        for (int k = 0; k < IT_OPS; k++) {
            bool same = same_storage_bytes(r[0][k], r[1][k]);
            CHECK(same);
            if (!same) fprintf(stderr, "  integer op %d differs between 1 and 2 threads\n", k);
        }
    }
    th_set_num_threads(saved);

    /* and each is what the per-element reference says, on a sample of elements */
    bool ok = true;
    for (int k = 0; k < IT_OPS; k++) ok &= r[0][k] != NULL;
    CHECK(ok);
    int bad = 0;
    for (int64_t i = 0; ok && i < IT_N; i += 101) {
        int64_t row = i / IT_C, c = i % IT_C, t = c * IT_R + row; /* t: where bt and dt keep element i */
        int32_t rv = th_i32_data(in.row)[c], cv = th_i32_data(in.col)[row];
        if (((int32_t *)th_tensor_data(r[0][0]))[i] != (int32_t)((uint32_t)a[i] + (uint32_t)a2[i])) bad++;
        if (((int32_t *)th_tensor_data(r[0][1]))[i] != (int32_t)((uint32_t)a[i] + (uint32_t)rv)) bad++;
        if (((int32_t *)th_tensor_data(r[0][2]))[t] != (int32_t)((uint32_t)a[i] + (uint32_t)cv)) bad++;
        if (((int64_t *)th_tensor_data(r[0][3]))[i] != floor_div_i64(n[i], ds[t])) bad++;
        if (((int32_t *)th_tensor_data(r[0][4]))[i] != (a[i] ^ cv)) bad++;
        uint8_t u = th_u8_data(in.u)[i], s = th_u8_data(in.shift)[c];
        if (((uint8_t *)th_tensor_data(r[0][5]))[i] != (s >= 8 ? 0 : (uint8_t)(u << s))) bad++;
        if (((uint8_t *)th_tensor_data(r[0][6]))[i] != (s >= 8 ? 0 : (uint8_t)(u >> s))) bad++;
        if (((bool *)th_tensor_data(r[0][7]))[i] != (a[i] < bs[t])) bad++;
        if (((bool *)th_tensor_data(r[0][8]))[i] != (rv < cv)) bad++;
    }
    CHECK_INT_EQ(bad, 0);

    for (int run = 0; run < 2; run++)
        for (int k = 0; k < IT_OPS; k++)
            if (r[run][k]) th_tensor_release(r[run][k]);
    th_i32_release(in.a);
    th_i32_release(in.a2);
    th_i32_release(in.row);
    th_i32_release(in.col);
    th_i32_release(in.bt);
    th_i32_release(bstore);
    th_i64_release(in.n);
    th_i64_release(in.dt);
    th_i64_release(dstore);
    th_u8_release(in.u);
    th_u8_release(in.shift);
}

/* ---- the _Generic front end picks the dtype's function ---- */

static void test_generic_front_end(void)
{
    th_f32_tensor *a = th_f32_full(1, SZ(3), 2.0f);
    th_i32_tensor *b = th_i32_full(1, SZ(3), -5);
    th_f64_tensor *c = th_f64_full(1, SZ(3), 1.0);
    th_f32_tensor *s = th_add(a, a);
    th_i32_tensor *ab = th_abs(b);
    th_f64_tensor *e = th_exp(c);
    th_bool_tensor *lt = th_lt(b, ab);
    CHECK(th_f32_data(s)[0] == 4.0f && th_i32_data(ab)[1] == 5 && close_f64(th_f64_data(e)[2], exp(1.0), 2) &&
          th_bool_data(lt)[0]);
    th_f32_tensor *m = th_f32_full(2, SZ(2, 3), 1.5f);
    th_f32_tensor *mt = th_f32_transpose(m, 0, 1);
    th_f32_tensor *prod = th_matmul(m, mt), *total = th_sum_all(prod), *rows = th_sum_dim(m, 1, false);
    th_i32_tensor *isum = th_sum_all(b);
    th_f64_tensor *mean = th_mean_all(c);
    CHECK(th_f32_data(prod)[0] == 3 * 2.25f && th_f32_data(total)[0] == 4 * 3 * 2.25f &&
          th_f32_data(rows)[1] == 4.5f && th_i32_data(isum)[0] == -15 && th_f64_data(mean)[0] == 1.0);
    th_release(m);
    th_release(mt);
    th_release(prod);
    th_release(total);
    th_release(rows);
    th_release(isum);
    th_release(mean);
    th_release(s);
    th_release(ab);
    th_release(e);
    th_release(lt);
    th_release(a);
    th_release(b);
    th_release(c);
}

/* A complex value from its parts: re + im * I would turn an infinite part into NaN. */
#define CMPLX_F(re, im) __builtin_complex((float)(re), (float)(im))
#define CMPLX_D(re, im) __builtin_complex((double)(re), (double)(im))

/* The forms that exist so that generic code compiles for every real dtype: bool comparisons and extremes
 * (false < true), bool bitwise_not (logical not), integer rounding (the value itself) and classification. */
static void test_bool_and_integer_forms(void)
{
    const bool av[4] = {false, false, true, true}, bv[4] = {false, true, false, true};
    th_bool_tensor *a = th_bool_empty(1, SZ(4)), *b = th_bool_empty(1, SZ(4));
    memcpy(th_bool_data(a), av, sizeof av);
    memcpy(th_bool_data(b), bv, sizeof bv);
    th_bool_tensor *lt = th_bool_lt(a, b), *le = th_bool_le(a, b), *gt = th_bool_gt(a, b), *ge = th_bool_ge(a, b);
    th_bool_tensor *mx = th_bool_maximum(a, b), *mn = th_bool_minimum(a, b), *nt = th_bool_bitwise_not(a);
    for (int i = 0; i < 4; i++) {
        CHECK(th_bool_data(lt)[i] == (av[i] < bv[i]) && th_bool_data(le)[i] == (av[i] <= bv[i]));
        CHECK(th_bool_data(gt)[i] == (av[i] > bv[i]) && th_bool_data(ge)[i] == (av[i] >= bv[i]));
        CHECK(th_bool_data(mx)[i] == (av[i] || bv[i]) && th_bool_data(mn)[i] == (av[i] && bv[i]));
        uint8_t byte;
        memcpy(&byte, th_bool_data(nt) + i, 1);
        CHECK_INT_EQ(byte, !av[i]); /* 0 or 1, never 0xfe: a valid bool */
    }
    CHECK_INT_EQ(th_bool_bitwise_not_inplace(a), TH_OK);
    CHECK(th_bool_data(a)[0] && !th_bool_data(a)[3]);
    th_bool_tensor *lts = th_bool_lt_scalar(b, true);
    CHECK(th_bool_data(lts)[0] && !th_bool_data(lts)[1]);
    th_release(lts);
    th_release(lt);
    th_release(le);
    th_release(gt);
    th_release(ge);
    th_release(mx);
    th_release(mn);
    th_release(nt);
    th_release(a);
    th_release(b);

    const int8_t iv[5] = {-128, -3, 0, 7, 127};
    th_i8_tensor *x = i8_from(1, SZ(5), iv);
    th_i8_tensor *fl = th_i8_floor(x), *ce = th_i8_ceil(x), *ro = th_i8_round(x), *tr = th_i8_trunc(x);
    th_bool_tensor *nan = th_i8_isnan(x), *inf = th_i8_isinf(x), *fin = th_i8_isfinite(x);
    for (int i = 0; i < 5; i++) {
        CHECK(th_i8_data(fl)[i] == iv[i] && th_i8_data(ce)[i] == iv[i] && th_i8_data(ro)[i] == iv[i] &&
              th_i8_data(tr)[i] == iv[i]);
        CHECK(!th_bool_data(nan)[i] && !th_bool_data(inf)[i] && th_bool_data(fin)[i]);
    }
    th_i8_tensor *xt = th_i8_narrow(x, 0, 1, 3); /* a strided-free view: in place keeps the values */
    CHECK_INT_EQ(th_i8_round_inplace(xt), TH_OK);
    CHECK_INT_EQ(th_i8_data(x)[1], -3);
    CHECK_NULL(th_i8_floor(NULL), TH_ERR_INVALID, "th_i8_floor", "NULL");
    th_release(xt);
    th_release(fl);
    th_release(ce);
    th_release(ro);
    th_release(tr);
    th_release(nan);
    th_release(inf);
    th_release(fin);
    th_release(x);
}

/* Complex abs is the magnitude in the real dtype of the same precision; the classifications look at both
 * parts as NumPy does (inf + NaN i is both NaN and infinite). */
static void test_complex_abs_and_classes(void)
{
    th_c64_tensor *z = th_c64_empty(1, SZ(6));
    th_c64_tensor *zt = th_c64_empty(2, SZ(2, 3)); /* element i at [i % 2][i / 2], read through its transpose */
    const float re[6] = {3, NAN, INFINITY, 1, -0.0f, 1e30f}, im[6] = {-4, 1, NAN, -INFINITY, 0, 1e30f};
    for (int i = 0; i < 6; i++) {
        th_c64_data(z)[i] = CMPLX_F(re[i], im[i]);
        th_c64_data(zt)[(i % 2) * 3 + i / 2] = CMPLX_F(re[i], im[i]);
    }
    th_c64_tensor *ztv = th_c64_transpose(zt, 0, 1); /* (3, 2): element i at [i / 2][i % 2], row-major i */
    th_c64_tensor *flat = th_c64_reshape(ztv, 1, SZ(6));
    th_f32_tensor *m = th_c64_abs(z);
    th_bool_tensor *nan = th_c64_isnan(z), *inf = th_c64_isinf(z), *fin = th_c64_isfinite(z);
    const bool want_nan[6] = {0, 1, 1, 0, 0, 0}, want_inf[6] = {0, 0, 1, 1, 0, 0}, want_fin[6] = {1, 0, 0, 0, 1, 1};
    CHECK(m && th_f32_numel(m) == 6);
    CHECK(th_f32_data(m)[0] == 5.0f && isnan(th_f32_data(m)[1]) && th_f32_data(m)[2] == INFINITY &&
          th_f32_data(m)[3] == INFINITY && th_f32_data(m)[4] == 0.0f);
    CHECK(close_f32(th_f32_data(m)[5], 1e30 * sqrt(2.0), 1)); /* no overflow in the squares */
    for (int i = 0; i < 6; i++) {
        CHECK(th_bool_data(nan)[i] == want_nan[i]);
        CHECK(th_bool_data(inf)[i] == want_inf[i]);
        CHECK(th_bool_data(fin)[i] == want_fin[i]);
    }
    th_f32_tensor *out = th_f32_zeros(1, SZ(6));
    CHECK(flat != NULL && !th_c64_is_contiguous(ztv));
    CHECK_INT_EQ(th_c64_abs_out(out, flat ? flat : z), TH_OK);
    for (int i = 0; i < 6; i++)
        CHECK(th_f32_data(out)[i] == th_f32_data(m)[i] || (isnan(th_f32_data(out)[i]) && isnan(th_f32_data(m)[i])));
    th_f32_tensor *bad = th_f32_zeros(1, SZ(5));
    CHECK_FAILS(th_c64_abs_out(bad, z), TH_ERR_SHAPE, "th_c64_abs_out", "shape");
    th_c128_tensor *w = th_c128_full(1, SZ(2), CMPLX_D(-6, 8));
    th_f64_tensor *wm = th_c128_abs(w);
    CHECK(th_f64_data(wm)[1] == 10.0);
    th_release(wm);
    th_release(w);
    th_release(bad);
    th_release(out);
    th_release(flat);
    th_release(ztv);
    th_release(zt);
    th_release(m);
    th_release(nan);
    th_release(inf);
    th_release(fin);
    th_release(z);
}

/* conj flips the imaginary part's sign bit (zeros and NaN included); angle is atan2(im, re) in the real dtype,
 * the sign of a zero part choosing between pi and -pi and between 0 and -0 (C's carg, NumPy's angle). */
static void test_complex_conj_and_angle(void)
{
    const float re[7] = {3, -1, -1, 0.0f, -0.0f, NAN, -INFINITY}, im[7] = {-4, 0.0f, -0.0f, -0.0f, 0.0f, 2, INFINITY};
    const double pi = 3.14159265358979323846;
    const double want_angle[7] = {atan2(-4.0, 3.0), pi, -pi, -0.0, pi, NAN, 3 * pi / 4};
    th_c64_tensor *z = th_c64_empty(1, SZ(7));
    th_c64_tensor *zt = th_c64_empty(2, SZ(7, 2)); /* z's values in column 1: a strided view */
    for (int i = 0; i < 7; i++) {
        th_c64_data(z)[i] = CMPLX_F(re[i], im[i]);
        th_c64_data(zt)[2 * i + 1] = CMPLX_F(re[i], im[i]);
    }
    th_c64_tensor *col = th_c64_select(zt, 1, 1);
    th_c64_tensor *c = th_c64_conj(z);
    th_f32_tensor *a = th_c64_angle(col);
    CHECK(c && a && th_f32_numel(a) == 7 && !th_c64_is_contiguous(col));
    for (int i = 0; c && a && i < 7; i++) {
        float cre = __builtin_crealf(th_c64_data(c)[i]), cim = __builtin_cimagf(th_c64_data(c)[i]);
        CHECK(memcmp(&cre, &re[i], sizeof cre) == 0);
        CHECK(!signbit(cim) != !signbit(im[i]) && (isnan(im[i]) ? isnan(cim) : cim == -im[i]));
        float got = th_f32_data(a)[i];
        if (isnan(want_angle[i]))
            CHECK(isnan(got));
        else
            CHECK(close_f32(got, want_angle[i], 1) && !signbit(got) == !signbit(want_angle[i]));
    }
    /* In place, twice: the identity, bit for bit. */
    CHECK_INT_EQ(th_c64_conj_inplace(col), TH_OK);
    CHECK_INT_EQ(th_conj_inplace(col), TH_OK);
    for (int i = 0; i < 7; i++) {
        float got_im = __builtin_cimagf(th_c64_data(zt)[2 * i + 1]);
        CHECK(memcmp(&got_im, &im[i], sizeof got_im) == 0 || (isnan(got_im) && isnan(im[i])));
    }
    th_c128_tensor *w = th_c128_full(2, SZ(2, 2), CMPLX_D(0, -2));
    th_f64_tensor *wa = th_angle(w), *bad = th_f64_zeros(1, SZ(3));
    th_c128_tensor *wc = th_conj(w);
    CHECK(th_f64_data(wa)[3] == -pi / 2 && __builtin_cimag(th_c128_data(wc)[0]) == 2);
    CHECK_FAILS(th_c128_angle_out(bad, w), TH_ERR_SHAPE, "th_c128_angle_out", "shape");
    CHECK_FAILS(th_c128_conj_out(wc, NULL), TH_ERR_INVALID, "th_c128_conj_out", "NULL");
    th_release(bad);
    th_release(wc);
    th_release(wa);
    th_release(w);
    th_release(a);
    th_release(c);
    th_release(col);
    th_release(zt);
    th_release(z);
}

/* polar(abs, angle): abs cos(angle) + i abs sin(angle), the two real operands broadcast together; abs = inf at
 * angle 0 gives inf + NaN i, as torch.polar and NumPy do. */
static void test_complex_polar(void)
{
    const double pi = 3.14159265358979323846;
    th_f64_tensor *r = th_f64_empty(2, SZ(3, 1)), *t = th_f64_empty(1, SZ(2));
    const double rv[3] = {2, 0.5, INFINITY}, tv[2] = {pi / 3, 0};
    memcpy(th_f64_data(r), rv, sizeof rv);
    memcpy(th_f64_data(t), tv, sizeof tv);
    th_c128_tensor *z = th_c128_polar(r, t);
    CHECK(z && th_c128_ndim(z) == 2 && th_c128_size(z, 0) == 3 && th_c128_size(z, 1) == 2);
    for (int i = 0; z && i < 2; i++)
        for (int j = 0; j < 2; j++) {
            double want_re = rv[i] * cos(tv[j]), want_im = rv[i] * sin(tv[j]);
            th_complex128 got = th_c128_data(z)[2 * i + j];
            CHECK(__builtin_creal(got) == want_re && __builtin_cimag(got) == want_im);
        }
    if (z) {
        th_complex128 inf0 = th_c128_data(z)[5];
        CHECK(__builtin_creal(inf0) == INFINITY && isnan(__builtin_cimag(inf0)));
    }
    /* _out into a strided view; then the angle and magnitude of the result give the operands back */
    th_c64_tensor *big = th_c64_zeros(2, SZ(4, 2));
    th_c64_tensor *col = th_c64_select(big, 1, 0);
    th_f32_tensor *m = th_f32_full(1, SZ(4), 3.0f), *a = th_f32_linspace(-3.0f, 3.0f, 4);
    CHECK_INT_EQ(th_c64_polar_out(col, m, a), TH_OK);
    th_f32_tensor *back = th_c64_angle(col), *mag = th_c64_abs(col);
    for (int i = 0; back && mag && i < 4; i++) {
        CHECK(close_f32(th_f32_data(back)[i], th_f32_data(a)[i], 2));
        CHECK(close_f32(th_f32_data(mag)[i], 3.0, 2));
        CHECK(__builtin_crealf(th_c64_data(big)[2 * i + 1]) == 0); /* the other column untouched */
    }
    /* errors: a NULL or wrong-dtype operand, shapes that do not broadcast, an out of another shape */
    th_f64_tensor *t3 = th_f64_zeros(1, SZ(3)), *r4 = th_f64_zeros(1, SZ(4));
    th_c64_tensor *out3 = th_c64_zeros(1, SZ(3));
    CHECK_FAILS(th_c128_polar(NULL, t) == NULL ? th_last_status() : TH_OK, TH_ERR_INVALID, "th_c128_polar", "NULL abs");
    CHECK_FAILS(th_c128_polar(r, NULL) == NULL ? th_last_status() : TH_OK, TH_ERR_INVALID, "th_c128_polar", "NULL angle");
    CHECK_FAILS(th_c128_polar((const th_f64_tensor *)(const void *)m, t) == NULL ? th_last_status() : TH_OK,
                TH_ERR_DTYPE, "th_c128_polar", "abs");
    CHECK_FAILS(th_c128_polar(t3, r4) == NULL ? th_last_status() : TH_OK, TH_ERR_SHAPE, "th_c128_polar", "");
    CHECK_FAILS(th_c64_polar_out(out3, m, a), TH_ERR_SHAPE, "th_c64_polar_out", "");
    CHECK_FAILS(th_c64_polar_out(NULL, m, a), TH_ERR_INVALID, "th_c64_polar_out", "NULL out");
    th_release(out3);
    th_release(r4);
    th_release(t3);
    th_release(mag);
    th_release(back);
    th_release(a);
    th_release(m);
    th_release(col);
    th_release(big);
    th_release(z);
    th_release(t);
    th_release(r);
}

/* Every math entry of the _Generic front end reaches the suffixed function of the argument's dtype. */
static void test_generic_math_forms(void)
{
    th_f32_tensor *a = th_f32_arange(0, 6, 1), *b = th_f32_full(1, SZ(6), 2.0f);
    th_f32_tensor *c = th_add(a, b), *c2 = th_sub(a, b), *c3 = th_mul(a, b), *c4 = th_div(a, b), *c5 = th_pow(a, b);
    CHECK(th_f32_data(c)[5] == 7 && th_f32_data(c2)[5] == 3 && th_f32_data(c3)[5] == 10 &&
          th_f32_data(c4)[5] == 2.5f && th_f32_data(c5)[5] == 25);
    CHECK_INT_EQ(th_add_out(c, a, a), TH_OK);
    CHECK_INT_EQ(th_mul_inplace(c, b), TH_OK);
    CHECK(th_f32_data(c)[5] == 20);
    th_f32_tensor *sc = th_div_scalar(a, 4.0f), *mx = th_maximum(a, b), *mn = th_minimum(a, b);
    CHECK(th_f32_data(sc)[2] == 0.5f && th_f32_data(mx)[0] == 2 && th_f32_data(mn)[5] == 2);
    th_bool_tensor *ne = th_ne(a, b), *le = th_le(a, b), *ge = th_ge(a, b), *isn = th_isnan(a), *isf = th_isfinite(a);
    CHECK(!th_bool_data(ne)[2] && th_bool_data(le)[2] && !th_bool_data(ge)[1] && !th_bool_data(isn)[0] &&
          th_bool_data(isf)[0]);
    th_f32_tensor *w = th_where(le, a, b), *cl = th_clamp(a, 1.0f, 4.0f), *fl = th_floor(sc);
    CHECK(th_f32_data(w)[1] == 1 && th_f32_data(w)[4] == 2 && th_f32_data(cl)[0] == 1 && th_f32_data(cl)[5] == 4 &&
          th_f32_data(fl)[3] == 0);
    th_f32_tensor *sd = th_std_all(a, 1), *nrm = th_norm_all(a, 1.0), *pr = th_prod_all(b), *mxa = th_max_all(a);
    th_i64_tensor *am = th_argmax_all(a), *ami = th_argmin_dim(a, 0, false);
    th_bool_tensor *any = th_any_all(a);
    CHECK(close_f32(th_f32_data(sd)[0], sqrt(3.5), 1) && th_f32_data(nrm)[0] == 15 && th_f32_data(pr)[0] == 64 &&
          th_f32_data(mxa)[0] == 5 && th_i64_data(am)[0] == 5 && th_i64_data(ami)[0] == 0 && th_bool_data(any)[0]);
    th_f32_tensor *cs = th_cumsum(a, 0), *d = th_dot(a, b);
    CHECK(th_f32_data(cs)[5] == 15 && th_f32_data(d)[0] == 30);
    th_i32_tensor *i = th_i32_arange(-2, 3, 1);
    th_i32_tensor *ia = th_abs(i), *ic = th_clamp(i, -1, 1);
    th_i64_tensor *ia_max = th_argmax_all(i);
    CHECK(th_i32_data(ia)[0] == 2 && th_i32_data(ic)[0] == -1 && th_i64_data(ia_max)[0] == 4);
    th_c64_tensor *z = th_c64_full(1, SZ(2), CMPLX_F(3, 4));
    th_f32_tensor *za = th_abs(z), *zn = th_norm_all(z, 2.0);
    CHECK(th_f32_data(za)[1] == 5 && close_f32(th_f32_data(zn)[0], sqrt(50.0), 1));
    th_release(z);
    th_release(za);
    th_release(zn);
    th_release(i);
    th_release(ia);
    th_release(ic);
    th_release(ia_max);
    th_release(cs);
    th_release(d);
    th_release(sd);
    th_release(nrm);
    th_release(pr);
    th_release(mxa);
    th_release(am);
    th_release(ami);
    th_release(any);
    th_release(w);
    th_release(cl);
    th_release(fl);
    th_release(ne);
    th_release(le);
    th_release(ge);
    th_release(isn);
    th_release(isf);
    th_release(sc);
    th_release(mx);
    th_release(mn);
    th_release(c);
    th_release(c2);
    th_release(c3);
    th_release(c4);
    th_release(c5);
    th_release(a);
    th_release(b);
}

int main(void)
{
    test_begin();
    test_unary_floating();
    test_unary_special_values();
    test_unary_reduced();
    test_integer_division_family();
    test_unsigned_division_by_max();
    test_integer_wrapping();
    test_binary_floating();
    test_broadcasting();
    test_outs_and_overlap();
    test_ternary();
    test_threads();
    test_threads_integer();
    test_generic_front_end();
    test_bool_and_integer_forms();
    test_complex_abs_and_classes();
    test_complex_conj_and_angle();
    test_complex_polar();
    test_generic_math_forms();
    return test_end("pointwise");
}
