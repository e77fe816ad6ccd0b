/* tests/numpy/nn_torch.c: softmax, log_softmax, layer_norm and rms_norm (ops/nn.h) against PyTorch 1.13 in
 * float64 (tests/numpy/nn_torch.py writes the cases: inputs already rounded to each case's dtype, and torch's
 * float64 result from them). Every case runs as a new result and into an out, the input in the layout the case
 * names (contiguous, dims reversed, stepped, last dim reversed) and the out in another. The error is measured
 * in units in the last place of the case's dtype at the reference value (at least at 2^-10 for the norms and
 * log_softmax, whose results pass through 0, and at the smallest normal for softmax), and the worst per op and
 * dtype is printed and bounded.
 *
 * Usage: nn_torch DIR PYTHON SCRIPT (the test command; skips with 77 without /usr/bin/python3 or torch). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "peer_files.h"

static const char *ops[4] = {"softmax", "log_softmax", "layer_norm", "rms_norm"};
static const char *dts[4] = {"f32", "f64", "f16", "bf16"};
static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};
/* Bounds on the error, ulps: op x dtype. */
/* f64 is computed in double throughout (no wider type), so its rounding errors add up to a few ulps; f32
 * softmax: the exp (1.01 ulps), its rounding to float, and the scaling. */
static const double bound[4][4] = {{2.5, 6, 1, 1}, {1.5, 3, 1, 1}, {1, 10, 1, 1}, {1, 6, 1, 1}};
static double worst[4][4];
static int count[4][4];

/* A view of t's shape and dtype dt over a new storage, in layout 0 contiguous, 1 dims reversed, 2 stepped by
 * 2, 3 the last dim reversed; holding t's values. */
static th_tensor *in_layout(const th_tensor *t, th_dtype dt, int layout)
{
    int ndim = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    int64_t strides[TH_MAX_DIMS], span = 1, offset = 0;
    if (layout == 1)
        for (int d = 0; d < ndim; d++) {
            strides[d] = span;
            span *= sizes[d];
        }
    else
        for (int d = ndim - 1; d >= 0; d--) {
            strides[d] = span * (layout == 2 ? 2 : 1);
            span *= sizes[d];
        }
    if (layout == 3 && ndim > 0) {
        offset = (sizes[ndim - 1] - 1) * strides[ndim - 1];
        strides[ndim - 1] = -strides[ndim - 1];
    }
    th_storage *s = th_storage_new((layout == 2 ? 2 : 1) * span * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *v = th_tensor_new_with_storage(dt, s, offset, ndim, sizes, strides);
    th_storage_release(s);
    if (v) th_tensor_copy(v, t);
    return v;
}

static double ulp_at(th_dtype dt, double v, double floor)
{
    int mant = dt == TH_F32 ? 24 : dt == TH_F64 ? 53 : dt == TH_F16 ? 11 : 8;
    int emin = dt == TH_F32 ? -126 : dt == TH_F64 ? -1022 : dt == TH_F16 ? -14 : -126;
    double a = fabs(v) > floor ? fabs(v) : floor;
    int e;
    frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
    if (e - 1 < emin) e = emin + 1;
    return ldexp(1.0, e - mant);
}

/* got against ref: the worst error in ulps; -1 where a NaN or infinity differs. */
static double ulps(const th_tensor *got, const th_tensor *ref, th_dtype dt, double floor)
{
    th_tensor *g = in_layout(got, TH_F64, 0);
    const double *a = (const double *)th_tensor_data(g), *b = (const double *)th_tensor_data(ref);
    double w = 0;
    for (int64_t i = 0; i < th_tensor_numel(ref); i++) {
        if (isnan(b[i]) || isinf(b[i]) || isnan(a[i]) || isinf(a[i])) {
            if (!(isnan(a[i]) && isnan(b[i])) && a[i] != b[i]) w = -1;
            if (w < 0) break;
            continue;
        }
        double e = fabs(a[i] - b[i]) / ulp_at(dt, b[i], floor);
        if (e > w) w = e;
    }
    th_tensor_release(g);
    return w;
}

#define NN_CALL(sfx)                                                                                           \
    do {                                                                                                       \
        typedef th_##sfx##_tensor T;                                                                           \
        const T *tx = (const T *)x, *tw = (const T *)w, *tb = (const T *)b;                                    \
        T *to = (T *)out;                                                                                      \
        switch (op) {                                                                                          \
        case 0: r = to ? (th_##sfx##_softmax_out(to, tx, dim) ? NULL : out) : (th_tensor *)th_##sfx##_softmax(tx, dim); break; \
        case 1: r = to ? (th_##sfx##_log_softmax_out(to, tx, dim) ? NULL : out) : (th_tensor *)th_##sfx##_log_softmax(tx, dim); break; \
        case 2: r = to ? (th_##sfx##_layer_norm_out(to, tx, nn, ns, tw, tb, eps) ? NULL : out) : (th_tensor *)th_##sfx##_layer_norm(tx, nn, ns, tw, tb, eps); break; \
        default: r = to ? (th_##sfx##_rms_norm_out(to, tx, nn, ns, tw, eps) ? NULL : out) : (th_tensor *)th_##sfx##_rms_norm(tx, nn, ns, tw, eps); \
        }                                                                                                      \
    } while (0)

/* op in dtype dt: a new result (out NULL), or into out (returned on success); NULL on error. */
static th_tensor *call(int op, int dti, th_tensor *out, const th_tensor *x, int dim, int nn, const int64_t *ns,
                       const th_tensor *w, const th_tensor *b, double eps)
{
    th_tensor *r = NULL;
    switch (dti) {
    case 0: NN_CALL(f32); break;
    case 1: NN_CALL(f64); break;
    case 2: NN_CALL(f16); break;
    default: NN_CALL(bf16);
    }
    return r;
}

static const char *dir;
static int cases;

static th_tensor *load(const char *name, const char *part)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, part);
    return th_tensor_load_npy(path);
}

static void one_case(const char *line)
{
    char name[64], opn[32], dtn[16];
    int dim, nn, has_w, has_b, layout;
    double eps;
    if (sscanf(line, "%63s %31s %15s %d %d %d %d %lf %d", name, opn, dtn, &dim, &nn, &has_w, &has_b, &eps,
               &layout) != 9) {
        CHECK(!"a line of cases.txt that does not parse");
        return;
    }
    int op = 0, dti = 0;
    while (op < 4 && strcmp(ops[op], opn)) op++;
    while (dti < 4 && strcmp(dts[dti], dtn)) dti++;
    CHECK(op < 4 && dti < 4);
    if (op >= 4 || dti >= 4) return;
    th_dtype dt = dtypes[dti];
    th_tensor *x64 = load(name, "x"), *ref = load(name, "ref");
    th_tensor *w64 = has_w ? load(name, "w") : NULL, *b64 = has_b ? load(name, "b") : NULL;
    CHECK(x64 && ref && (!has_w || w64) && (!has_b || b64));
    if (x64 && ref && (!has_w || w64) && (!has_b || b64)) {
        int ndim = th_tensor_ndim(x64);
        const int64_t *ns = th_tensor_sizes(x64) + ndim - nn;
        th_tensor *x = in_layout(x64, dt, layout);
        th_tensor *w = w64 ? in_layout(w64, dt, (layout + 1) % 4) : NULL;
        th_tensor *b = b64 ? in_layout(b64, dt, (layout + 2) % 4) : NULL;
        th_tensor *o = in_layout(x64, dt, (layout + 3) % 4);
        th_tensor *y = call(op, dti, NULL, x, dim, nn, ns, w, b, eps);
        th_tensor *yo = call(op, dti, o, x, dim, nn, ns, w, b, eps);
        CHECK(y != NULL && yo == o);
        /* ulps at no less than 2^-10 (1 for the f64 norms and log_softmax, whose x - mean and x - max round
         * in f64) where results pass through 0; at no less than the smallest normal for softmax */
        double floor = op == 0 ? 0 : dt == TH_F64 ? 1.0 : 0x1p-10;
        for (int k = 0; k < 2 && y && yo; k++) {
            double e = ulps(k ? yo : y, ref, dt, floor);
            if (e < 0 || e > bound[op][dti])
                fprintf(stderr, "nn_torch: %s (%s %s dim %d nn %d layout %d, %s): %s\n", name, opn, dtn, dim, nn,
                        layout, k ? "out" : "new", e < 0 ? "a NaN or infinity differs" : "error above the bound");
            CHECK(e >= 0 && e <= bound[op][dti]);
            if (e > worst[op][dti]) worst[op][dti] = e;
        }
        count[op][dti]++;
        cases++;
        th_tensor_release(y);
        th_tensor_release(x);
        th_tensor_release(w);
        th_tensor_release(b);
        th_tensor_release(o);
    }
    th_tensor_release(x64);
    th_tensor_release(ref);
    th_tensor_release(w64);
    th_tensor_release(b64);
}

int main(int argc, char **argv)
{
    (void)peer_read_all; /* peer_files.h's file readers: the file tests', not this one's */
    (void)peer_contiguous;
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "nn_torch", "PyTorch");
    if (rc >= 0) return rc; /* 77: torch missing */
    test_begin();
    peer_each_case(dir, one_case);
    printf("nn_torch: %d cases against torch float64; worst error in ulps of the result's dtype:\n", cases);
    for (int op = 0; op < 4; op++) {
        printf("  %-12s", ops[op]);
        for (int d = 0; d < 4; d++) printf("  %s %.3f (%d)", dts[d], worst[op][d], count[op][d]);
        printf("\n");
    }
    CHECK(cases >= 600);
    return test_end("nn_torch");
}
