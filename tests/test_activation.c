/* tests/test_activation.c: the activations of ops/activation.h: values at the points where each is known exactly
 * (and the edges: infinities, NaN, the branches of leaky_relu, elu and softplus), in every floating dtype; every
 * form (new, _out, _inplace) and layout (transposed, stepped) giving the same bits; 1 and 2 threads the same;
 * swiglu and geglu(tanh) of f64 equal to silu and gelu_tanh times the other half; every error. Accuracy against
 * exact values, whose definitions are checked against PyTorch, is tests/numpy/act_torch.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* x's n values through op in dtype dt (computed from f64 values), back as doubles into out. */
#define ACT_VALUES(sfx)                                                                                         \
    static void values_##sfx(const char *op, const double *p, const double *x, int64_t n, double *out)          \
    {                                                                                                           \
        th_f64_tensor *src = th_f64_empty(1, &n);                                                               \
        memcpy(th_f64_data(src), x, (size_t)n * sizeof(double));                                                \
        th_##sfx##_tensor *t = th_##sfx##_empty(1, &n);                                                         \
        CHECK(th_tensor_copy(th_##sfx##_base(t), th_f64_base(src)) == TH_OK);                                   \
        th_##sfx##_tensor *r = NULL;                                                                            \
        if (!strcmp(op, "silu")) r = th_##sfx##_silu(t);                                                        \
        else if (!strcmp(op, "mish")) r = th_##sfx##_mish(t);                                                   \
        else if (!strcmp(op, "selu")) r = th_##sfx##_selu(t);                                                   \
        else if (!strcmp(op, "hardswish")) r = th_##sfx##_hardswish(t);                                         \
        else if (!strcmp(op, "hardsigmoid")) r = th_##sfx##_hardsigmoid(t);                                     \
        else if (!strcmp(op, "gelu_tanh")) r = th_##sfx##_gelu_tanh(t);                                         \
        else if (!strcmp(op, "leaky_relu")) r = th_##sfx##_leaky_relu(t, p[0]);                                 \
        else if (!strcmp(op, "elu")) r = th_##sfx##_elu(t, p[0]);                                               \
        else if (!strcmp(op, "softplus")) r = th_##sfx##_softplus(t, p[0], p[1]);                               \
        CHECK(r != NULL);                                                                                       \
        if (r) CHECK(th_tensor_copy(th_f64_base(src), th_##sfx##_base(r)) == TH_OK);                            \
        memcpy(out, th_f64_data(src), (size_t)n * sizeof(double));                                              \
        th_##sfx##_release(r);                                                                                  \
        th_##sfx##_release(t);                                                                                  \
        th_f64_release(src);                                                                                    \
    }
ACT_VALUES(f32)
ACT_VALUES(f64)
ACT_VALUES(f16)
ACT_VALUES(bf16)

typedef void (*values_fn)(const char *, const double *, const double *, int64_t, double *);
static const values_fn values_of[4] = {values_f32, values_f64, values_f16, values_bf16};
static const char *dt_names[4] = {"f32", "f64", "f16", "bf16"};

/* want rounded to dtype d, as the library rounds (through f64 -> d -> f64). */
static double rounded(int d, double want)
{
    th_f64_tensor *a = th_f64_empty(1, SZ(1));
    th_f64_data(a)[0] = want;
    th_tensor *t = NULL;
    switch (d) {
    case 0: t = th_f32_base(th_f32_empty(1, SZ(1))); break;
    case 1: t = th_f64_base(th_f64_empty(1, SZ(1))); break;
    case 2: t = th_f16_base(th_f16_empty(1, SZ(1))); break;
    default: t = th_bf16_base(th_bf16_empty(1, SZ(1))); break;
    }
    th_tensor_copy(t, th_f64_base(a));
    th_tensor_copy(th_f64_base(a), t);
    double r = th_f64_data(a)[0];
    th_tensor_release(t);
    th_f64_release(a);
    return r;
}

/* op(x[i]) is want[i] in every dtype: exactly (NaN for NaN), after rounding want to the dtype. */
static void check_exact(const char *op, double p0, double p1, int n, const double *x, const double *want)
{
    const double p[2] = {p0, p1};
    double got[16];
    for (int d = 0; d < 4; d++) {
        values_of[d](op, p, x, n, got);
        for (int i = 0; i < n; i++) {
            double w = rounded(d, want[i]);
            bool ok = isnan(w) ? isnan(got[i]) : got[i] == w;
            CHECK(ok);
            if (!ok) fprintf(stderr, "  %s %s(%g) = %.17g, wanted %.17g\n", dt_names[d], op, x[i], got[i], w);
        }
    }
}

static void test_known_values(void)
{
    const double inf = INFINITY, nan = NAN;
    check_exact("hardsigmoid", 0, 0, 7, (const double[]){-inf, -4, -3, 0, 3, 4, inf},
                (const double[]){0, 0, 0, 0.5, 1, 1, 1});
    check_exact("hardswish", 0, 0, 7, (const double[]){-inf, -4, -3, 0, 3, 4, inf},
                (const double[]){nan, 0, 0, 0, 3, 4, inf});
    check_exact("leaky_relu", 0.5, 0, 6, (const double[]){-inf, -2, -0.5, 0, 1.5, inf},
                (const double[]){-inf, -1, -0.25, 0, 1.5, inf});
    check_exact("leaky_relu", 0.0, 0, 3, (const double[]){-2, 2, nan}, (const double[]){0, 2, nan});
    check_exact("elu", 2.0, 0, 5, (const double[]){-inf, 0, 1, 3, inf}, (const double[]){-2, 0, 1, 3, inf});
    const double scale = 1.0507009873554804934193349852946, alpha = 1.6732632423543772848170429916717;
    check_exact("selu", 0, 0, 5, (const double[]){-inf, 0, 1, 2, inf},
                (const double[]){scale * -alpha, 0, scale, 2 * scale, inf});
    check_exact("silu", 0, 0, 5, (const double[]){-inf, -1000, 0, 1000, inf}, (const double[]){nan, 0, 0, 1000, inf});
    check_exact("mish", 0, 0, 4, (const double[]){-inf, 0, 1000, inf}, (const double[]){nan, 0, 1000, inf});
    check_exact("gelu_tanh", 0, 0, 5, (const double[]){-inf, -1000, 0, 1000, inf},
                (const double[]){nan, 0, 0, 1000, inf});
    /* softplus: log(2) at 0, the input itself above the threshold (beta x > threshold), 0 at -inf */
    check_exact("softplus", 1, 20, 5, (const double[]){-inf, 0, 21, 1000, inf},
                (const double[]){0, 0.69314718055994530941723212145818, 21, 1000, inf});
    check_exact("softplus", 2, 3, 3, (const double[]){0, 1.5, 2}, /* beta x = 3 is not above 3: the formula */
                (const double[]){0.34657359027997265470861606072909, log1p(exp(3.0)) / 2, 2});
    /* x < 0 with no value: NaN stays NaN in every op */
    const char *ops[9] = {"silu", "mish", "selu", "hardswish", "hardsigmoid", "gelu_tanh", "leaky_relu", "elu",
                          "softplus"};
    for (int k = 0; k < 9; k++) check_exact(ops[k], 1, 20, 1, (const double[]){nan}, (const double[]){nan});
}

/* a and b hold the same f32 values, bit for bit (either may be strided; NULL is never the same). */
static bool same_bits(th_f32_tensor *a, th_f32_tensor *b)
{
    if (!a || !b || th_f32_numel(a) != th_f32_numel(b)) return false;
    th_f32_tensor *ca = th_f32_contiguous(a), *cb = th_f32_contiguous(b);
    bool same = ca && cb && memcmp(th_f32_data(ca), th_f32_data(cb), (size_t)th_f32_numel(a) * sizeof(float)) == 0;
    th_f32_release(ca);
    th_f32_release(cb);
    return same;
}

/* Every form and layout of op on a 5 x 7 f32 input: the same bits as the contiguous new result; on 2^18
 * elements, 2 threads the same as 1. */
static void test_forms_and_layouts(void)
{
    th_f32_tensor *big = th_f32_empty(1, SZ(1 << 18));
    for (int i = 0; i < 1 << 18; i++) th_f32_data(big)[i] = (float)((i * 7919 % 4001) - 2000) * 0.011f;
    th_f32_tensor *x = th_f32_empty(2, SZ(7, 5));
    for (int i = 0; i < 35; i++) th_f32_data(x)[i] = (float)((i * 13 % 35) - 17) * 0.37f;
    th_f32_tensor *xt = th_f32_transpose(x, 0, 1); /* 5 x 7, strided */
    th_f32_tensor *xc = th_f32_contiguous(xt);
    th_f32_tensor *(*const news[6])(const th_f32_tensor *) = {th_f32_silu, th_f32_mish, th_f32_selu, th_f32_hardswish,
                                                              th_f32_hardsigmoid, th_f32_gelu_tanh};
    int (*const outs[6])(th_f32_tensor *, const th_f32_tensor *) = {th_f32_silu_out, th_f32_mish_out, th_f32_selu_out,
                                                                    th_f32_hardswish_out, th_f32_hardsigmoid_out,
                                                                    th_f32_gelu_tanh_out};
    int (*const inplaces[6])(th_f32_tensor *) = {th_f32_silu_inplace, th_f32_mish_inplace, th_f32_selu_inplace,
                                                 th_f32_hardswish_inplace, th_f32_hardsigmoid_inplace,
                                                 th_f32_gelu_tanh_inplace};
    for (int k = 0; k < 6; k++) {
        th_f32_tensor *want = news[k](xc), *got = news[k](xt), *out = th_f32_empty(2, SZ(5, 7));
        th_f32_tensor *under = th_f32_empty(2, SZ(7, 5)), *outt = th_f32_transpose(under, 0, 1), *ip = th_f32_clone(xt);
        CHECK(want && got && outs[k](out, xt) == TH_OK && outs[k](outt, xc) == TH_OK && inplaces[k](ip) == TH_OK);
        CHECK(same_bits(want, got) && same_bits(want, out) && same_bits(want, outt) && same_bits(want, ip));
        int prev = th_get_num_threads();
        th_set_num_threads(1);
        th_f32_tensor *one = news[k](big), *two = NULL;
        if (test_set_threads(2)) {
            two = news[k](big);
            CHECK(same_bits(one, two));
        }
        th_set_num_threads(prev);
        th_f32_release(one);
        th_f32_release(two);
        th_f32_release(under);
        th_f32_release(want);
        th_f32_release(got);
        th_f32_release(out);
        th_f32_release(outt);
        th_f32_release(ip);
    }
    /* the ops with values: the same, through each form */
    th_f32_tensor *a = th_f32_leaky_relu(xc, 0.1), *b = th_f32_elu(xc, 0.7), *c = th_f32_softplus(xc, 2, 1);
    th_f32_tensor *o = th_f32_empty(2, SZ(5, 7)), *ip = th_f32_clone(xt);
    CHECK(th_f32_leaky_relu_out(o, xt, 0.1) == TH_OK && same_bits(a, o));
    CHECK(th_f32_elu_out(o, xt, 0.7) == TH_OK && same_bits(b, o));
    CHECK(th_f32_softplus_inplace(ip, 2, 1) == TH_OK && same_bits(c, ip));
    th_f32_release(a);
    th_f32_release(b);
    th_f32_release(c);
    th_f32_release(o);
    th_f32_release(ip);
    th_f32_release(xc);
    th_f32_release(xt);
    th_f32_release(x);
    th_f32_release(big);
}

/* The gated units of f64 are silu / gelu_tanh of the first half times the second: the same function, so the
 * same bits. */
static void test_gated_units_agree(void)
{
    th_f64_tensor *x = th_f64_empty(2, SZ(3, 8));
    for (int i = 0; i < 24; i++) th_f64_data(x)[i] = ((i * 7 % 24) - 12) * 0.81;
    th_f64_tensor *a = th_f64_narrow(x, 1, 0, 4), *b = th_f64_narrow(x, 1, 4, 4);
    th_f64_tensor *sw = th_f64_swiglu(x, 1), *ge = th_f64_geglu(x, 1, true);
    th_f64_tensor *sa = th_f64_silu(a), *ga = th_f64_gelu_tanh(a);
    th_f64_tensor *sw2 = sa ? th_f64_mul(sa, b) : NULL, *ge2 = ga ? th_f64_mul(ga, b) : NULL;
    th_f64_tensor *cs = sw2 ? th_f64_contiguous(sw2) : NULL, *cg = ge2 ? th_f64_contiguous(ge2) : NULL;
    CHECK(sw && ge && cs && cg && th_f64_numel(sw) == 12 && th_f64_numel(cs) == 12 &&
          memcmp(th_f64_data(sw), th_f64_data(cs), 12 * sizeof(double)) == 0 &&
          memcmp(th_f64_data(ge), th_f64_data(cg), 12 * sizeof(double)) == 0);
    th_f64_release(cs);
    th_f64_release(cg);
    th_f64_tensor *all[] = {x, a, b, sw, ge, sa, ga, sw2, ge2};
    for (int k = 0; k < 9; k++) th_f64_release(all[k]);
}

static void test_errors(void)
{
    th_f32_tensor *x = th_f32_zeros(1, SZ(4)), *wrong = th_f32_empty(1, SZ(3));
    CHECK_NULL(th_f32_leaky_relu(x, NAN), TH_ERR_INVALID, "th_f32_leaky_relu", "negative_slope is nan");
    CHECK_NULL(th_f32_leaky_relu(x, INFINITY), TH_ERR_INVALID, "th_f32_leaky_relu", "negative_slope is inf");
    CHECK_FAILS(th_f32_leaky_relu_out(x, x, -INFINITY), TH_ERR_INVALID, "th_f32_leaky_relu_out", "negative_slope is -inf");
    CHECK_FAILS(th_f32_leaky_relu_inplace(x, NAN), TH_ERR_INVALID, "th_f32_leaky_relu_inplace", "must be finite");
    CHECK_NULL(th_f64_elu((th_f64_tensor *)NULL, NAN), TH_ERR_INVALID, "th_f64_elu", "alpha is nan");
    CHECK_FAILS(th_f16_elu_inplace(NULL, 1.0), TH_ERR_INVALID, "th_f16_elu_inplace", "NULL tensor");
    CHECK_NULL(th_f32_softplus(x, 0.0, 20), TH_ERR_INVALID, "th_f32_softplus", "beta is 0");
    CHECK_NULL(th_f32_softplus(x, INFINITY, 20), TH_ERR_INVALID, "th_f32_softplus", "beta is inf");
    CHECK_FAILS(th_f32_softplus_out(x, x, 1, NAN), TH_ERR_INVALID, "th_f32_softplus_out", "threshold is NaN");
    CHECK_FAILS(th_f32_softplus_out(NULL, x, 1, 20), TH_ERR_INVALID, "th_f32_softplus_out", "NULL out");
    CHECK_NULL(th_bf16_silu(NULL), TH_ERR_INVALID, "th_bf16_silu", "NULL");
    CHECK_FAILS(th_f32_mish_out(wrong, x), TH_ERR_SHAPE, "th_f32_mish_out", "");
    CHECK_FAILS(th_f32_hardswish_inplace(NULL), TH_ERR_INVALID, "th_f32_hardswish_inplace", "NULL tensor");
    /* infinite threshold is a value: softplus then never returns x itself */
    th_f32_tensor *r = th_f32_softplus(x, 1, INFINITY);
    CHECK(r && fabsf(th_f32_data(r)[0] - 0.6931472f) == 0);
    th_f32_release(r);
    th_f32_release(wrong);
    th_f32_release(x);
}

int main(void)
{
    test_begin();
    test_known_values();
    test_forms_and_layouts();
    test_gated_units_agree();
    test_errors();
    return test_end("test_activation");
}
