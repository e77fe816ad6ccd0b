/* tests/numpy/act_torch.c: the activations of ops/activation.h (silu, mish, selu, hardswish, hardsigmoid, gelu_tanh,
 * leaky_relu, elu, softplus) against their exact values, whose definitions tests/numpy/act_torch.py checks against
 * PyTorch 1.13's float64 results first (it writes the cases: inputs already rounded to each case's dtype, from
 * the edges of each function's range and at random, and the exact results rounded to double; torch's own where
 * the input or result is not finite). Each case runs as a new result of a contiguous input, into an out from an
 * input stepped by 2, and in place on a stepped copy; the three must agree bit for bit.
 *
 * Error: in units in the last place of the dtype at the exact value (subnormal spacing below the normal range).
 * Bounds: f32, f16 and bf16 are computed in double and rounded once, 0.51 ulp (0.5, and a little more within
 * double's error of a rounding boundary); a result beyond the dtype's range must be its infinity. f64 has its
 * own roundings: per op, in F64_BOUND; gelu_tanh's k = sqrt(2/pi) (x + 0.044715 x^3) is rounded (three or four
 * roundings, mostly of its x^3 term), and its tail x e^(2k) has a condition number of about 3 |2k| (any double
 * evaluation from x is that far off), so its bound is 4 + 4 |2k|; an f64 result below the normal range that comes
 * through a subnormal e^x (silu, mish, gelu_tanh far left) carries |x| times that power's rounding, so its
 * error is counted at no less than |x| subnormal spacings. NaN must be NaN, an infinity the reference's, a
 * zero zero (of either sign: torch's elu(-0) is +0, from exp(-0) - 1; expm1 gives -0). The worst error per op
 * and dtype is printed.
 *
 * Usage: act_torch DIR PYTHON SCRIPT (the test command; skips with 77 without /usr/bin/python3, torch or mpmath). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "peer_files.h"

enum { NOPS = 9, NDT = 4 };
static const char *ops[NOPS] = {"silu", "mish", "selu", "hardswish", "hardsigmoid", "gelu_tanh", "leaky_relu", "elu",
                                "softplus"};
static const double F64_BOUND[NOPS] = {4, 4, 3, 2, 1, 4, 0.5, 2, 2};
static const char *dts[NDT] = {"f32", "f64", "f16", "bf16"};
static const th_dtype dtypes[NDT] = {TH_F32, TH_F64, TH_F16, TH_BF16};
static double worst[NOPS][NDT];
static int counted[NOPS][NDT];

static double ulp_at(th_dtype dt, double v)
{
    int mant = dt == TH_F32 ? 24 : dt == TH_F64 ? 53 : dt == TH_F16 ? 11 : 8;
    int emin = dt == TH_F32 ? -126 : dt == TH_F64 ? -1022 : dt == TH_F16 ? -14 : -126;
    int e;
    frexp(fabs(v), &e);
    if (v == 0 || e - 1 < emin) e = emin + 1;
    return ldexp(1.0, e - mant);
}

/* The op of the case in form 0 (new result of x), 1 (into out), 2 (in place on out, which holds x's values);
 * the result, or NULL when the call failed. */
#define P0
#define P1 , p[0]
#define P2 , p[0], p[1]
#define FORMS(sfx, name, values)                                                                              \
    if (strcmp(op, #name) == 0) {                                                                             \
        if (form == 0) return th_##sfx##_base(th_##sfx##_##name(x values));                                  \
        int st = form == 1 ? th_##sfx##_##name##_out(o, x values) : th_##sfx##_##name##_inplace(o values);   \
        if (st != TH_OK) return NULL;                                                                         \
        th_tensor_retain(out);                                                                                \
        return out;                                                                                           \
    }
#define RUN(sfx)                                                                                              \
    static th_tensor *run_##sfx(const char *op, int form, th_tensor *xb, th_tensor *out, const double *p) \
    {                                                                                                         \
        const th_##sfx##_tensor *x = th_##sfx##_from_base(xb);                                                \
        th_##sfx##_tensor *o = out ? th_##sfx##_from_base(out) : NULL;                                        \
        (void)p;                                                                                              \
        FORMS(sfx, silu, P0)                                                                                  \
        FORMS(sfx, mish, P0)                                                                                  \
        FORMS(sfx, selu, P0)                                                                                  \
        FORMS(sfx, hardswish, P0)                                                                             \
        FORMS(sfx, hardsigmoid, P0)                                                                           \
        FORMS(sfx, gelu_tanh, P0)                                                                             \
        FORMS(sfx, leaky_relu, P1)                                                                            \
        FORMS(sfx, elu, P1)                                                                                   \
        FORMS(sfx, softplus, P2)                                                                              \
        return NULL;                                                                                          \
    }
RUN(f32)
RUN(f64)
RUN(f16)
RUN(bf16)

static th_tensor *run(th_dtype dt, const char *op, int form, th_tensor *x, th_tensor *out, const double *p)
{
    switch (dt) {
    case TH_F32: return run_f32(op, form, x, out, p);
    case TH_F64: return run_f64(op, form, x, out, p);
    case TH_F16: return run_f16(op, form, x, out, p);
    default: return run_bf16(op, form, x, out, p);
    }
}

/* src's n values in dtype dt, a step of `step` elements apart in a new storage (src NULL: uninitialised). */
static th_tensor *line_of(const th_tensor *src, int64_t n, th_dtype dt, int64_t step)
{
    th_storage *s = th_storage_new(step * n * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *v = s ? th_tensor_new_with_storage(dt, s, 0, 1, &n, &step) : NULL;
    th_storage_release(s);
    if (v && src && th_tensor_copy(v, src) != TH_OK) {
        th_tensor_release(v);
        return NULL;
    }
    return v;
}

static th_tensor *load(const char *dir, const char *name, const char *part)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, part);
    return th_tensor_load_npy(path);
}

static const char *dir;

static void run_case(const char *line)
{
    char name[128], opname[32], dtname[8];
    double p[2];
    if (sscanf(line, "%127s %31s %7s %lf %lf", name, opname, dtname, &p[0], &p[1]) != 5) {
        CHECK(!"a line of cases.txt that does not parse");
        return;
    }
    int op = -1, di = -1;
    for (int k = 0; k < NOPS; k++)
        if (strcmp(opname, ops[k]) == 0) op = k;
    for (int k = 0; k < NDT; k++)
        if (strcmp(dtname, dts[k]) == 0) di = k;
    if (op < 0 || di < 0) {
        CHECK(!"a case of an unknown op or dtype");
        return;
    }
    const th_dtype dt = dtypes[di];
    th_tensor *x64 = load(dir, name, "x"), *ref = load(dir, name, "ref");
    CHECK(x64 && ref && th_tensor_dtype(x64) == TH_F64 && th_tensor_numel(x64) == th_tensor_numel(ref));
    const int64_t n = x64 ? th_tensor_numel(x64) : 0;
    th_tensor *x = x64 ? line_of(x64, n, dt, 1) : NULL;
    /* the exact values rounded to the dtype: where that is an infinity, the result must be it */
    th_tensor *ref_dt = ref ? line_of(ref, n, dt, 1) : NULL, *ref_back = ref_dt ? line_of(ref_dt, n, TH_F64, 1) : NULL;
    th_tensor *sx = x ? line_of(x, n, dt, 2) : NULL, *out = x ? line_of(NULL, n, dt, 1) : NULL;
    th_tensor *in_place = x ? line_of(x, n, dt, 2) : NULL;
    th_tensor *r0 = x ? run(dt, opname, 0, x, NULL, p) : NULL;
    th_tensor *r1 = sx && out ? run(dt, opname, 1, sx, out, p) : NULL;
    th_tensor *r2 = in_place ? run(dt, opname, 2, in_place, in_place, p) : NULL;
    CHECK(r0 && r1 && r2 && ref_back);
    th_tensor *g0 = r0 ? line_of(r0, n, TH_F64, 1) : NULL, *g1 = r1 ? line_of(r1, n, TH_F64, 1) : NULL;
    th_tensor *g2 = r2 ? line_of(r2, n, TH_F64, 1) : NULL;
    if (g0 && g1 && g2 && ref_back && x64) {
        const double *xs = th_tensor_data(x64), *want = th_tensor_data(ref), *rounded = th_tensor_data(ref_back);
        const double *got = th_tensor_data(g0), *got1 = th_tensor_data(g1), *got2 = th_tensor_data(g2);
        int bad = 0;
        for (int64_t i = 0; i < th_tensor_numel(g0); i++) {
            /* the three forms: the same bits */
            if (memcmp(&got[i], &got1[i], sizeof(double)) || memcmp(&got[i], &got2[i], sizeof(double))) {
                if (bad++ < 3)
                    fprintf(stderr, "%s: element %lld: %.17g new, %.17g out, %.17g in place\n", name, (long long)i,
                            got[i], got1[i], got2[i]);
                continue;
            }
            double g = got[i], w = want[i];
            bool ok;
            if (w == 0) {
                ok = g == 0; /* either sign: torch's elu(-0) is +0 (exp(-0) - 1), expm1's -0 */
            } else if (isnan(w) || isinf(rounded[i]) || isinf(w)) {
                double e = isnan(w) ? w : rounded[i];
                ok = (isnan(e) && isnan(g)) || g == e;
            } else {
                /* f64 results below the normal range that come through a subnormal e^x (silu, mish and
                 * gelu_tanh far left) carry |x| times that power's rounding: counted at |x| subnormal spacings */
                double unit = ulp_at(dt, w), floor = dt == TH_F64 ? fabs(xs[i]) * 0x1p-1074 : 0;
                double err = fabs(g - w) / (unit > floor ? unit : floor);
                double bound = dt != TH_F64 ? 0.51 : F64_BOUND[op];
                if (op == 5 && dt == TH_F64) /* 4 + 4 |2k| */
                    bound += 8 * fabs(0.79788456080286535588 * (xs[i] + 0.044715 * xs[i] * xs[i] * xs[i]));
                if (err > worst[op][di]) worst[op][di] = err;
                ok = err <= bound;
            }
            counted[op][di]++;
            if (!ok && bad++ < 3)
                fprintf(stderr, "%s: %s(%.17g) = %.17g, exact %.17g\n", name, opname, xs[i], g, w);
        }
        CHECK(bad == 0);
    }
    th_tensor *all[] = {x64, ref, x, ref_dt, ref_back, sx, out, in_place, r0, r1, r2, g0, g1, g2};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) th_tensor_release(all[k]);
}

int main(int argc, char **argv)
{
    (void)peer_read_all;
    int rc = peer_start(argc, argv, "act_torch", "PyTorch");
    if (rc >= 0) return rc;
    test_begin();
    dir = argv[1];
    CHECK(peer_each_case(dir, run_case) == 48);
    for (int op = 0; op < NOPS; op++) {
        printf("%-12s", ops[op]);
        for (int d = 0; d < NDT; d++) printf("  %s %6.3f ulp (%d)", dts[d], worst[op][d], counted[op][d]);
        printf("\n");
    }
    return test_end("act_torch");
}
