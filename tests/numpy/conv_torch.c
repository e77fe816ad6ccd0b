/* tests/numpy/conv_torch.c: conv1d, conv2d, conv3d, max_pool2d, avg_pool2d, pad, conv_transpose1d,
 * conv_transpose2d, conv_transpose3d, im2col (F.unfold) and col2im (F.fold) (ops/conv.h) against PyTorch 1.13 in float64 (tests/numpy/conv_torch.py writes the cases: inputs already rounded to each case's dtype, torch's
 * float64 result from them, and for the convolutions the convolution of the absolute values). Every case runs
 * as a new result and into an out, the input in the layout the case names (contiguous, dims reversed, stepped,
 * last dim reversed), the weight, bias and out in others. A convolution's error is measured relative to the
 * magnitude of its sum of products (|x| * |w| + |b|, the scale its rounding errors have), in units of the
 * dtype's epsilon, and so is col2im's (relative to the sum of |x| over each output's blocks); im2col must be
 * exact; a pooling's in ulps of the dtype at the reference (at least at 2^-10), and max_pool2d's
 * indices must be torch's; pad (every mode, negative pads cropping) must be exact. The worst per op and dtype is printed and bounded.
 *
 * Usage: conv_torch DIR PYTHON SCRIPT (the test command; skips with 77 without /usr/bin/python3 or torch). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "peer_files.h"

#define NOPS 11
static const char *ops[NOPS] = {"conv1d",           "conv2d",           "conv3d", "max_pool2d", "avg_pool2d", "pad",
                                "conv_transpose1d", "conv_transpose2d", "unfold", "fold", "conv_transpose3d"};
static const char *dts[4] = {"f32", "f64", "f16", "bf16"};
static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};
/* Bounds, op x dtype: the convolutions in epsilons of the dtype relative to the sum of |products| (f32 and
 * f64 accumulate in their own type, f16 and bf16 in float and round once: half an epsilon); the pools in
 * ulps (max exact, the average's division rounded once); the transposed convolutions as the convolutions;
 * unfold exact; fold's sums (at most kh * kw terms) as the convolutions. */
static const double bound[NOPS][4] = {{2, 2, 0.5, 0.5}, {2, 2, 0.5, 0.5}, {2, 2, 0.5, 0.5}, {0, 0, 0, 0}, {1, 1, 1, 1},
                                      {0, 0, 0, 0},     {2, 2, 0.5, 0.5}, {2, 2, 0.5, 0.5}, {0, 0, 0, 0}, {2, 2, 0.5, 0.5},
                                      {2, 2, 0.5, 0.5}};
static double worst[NOPS][4];
static int count[NOPS][4];

static th_tensor *in_layout(const th_tensor *t, th_dtype dt, int layout)
{
    int ndim = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    int64_t strides[TH_MAX_DIMS], span = 1, offset = 0;
    if (layout == 1)
        for (int d = 0; d < ndim; d++) strides[d] = span, span *= sizes[d] > 0 ? sizes[d] : 1;
    else
        for (int d = ndim - 1; d >= 0; d--) strides[d] = span * (layout == 2 ? 2 : 1), span *= sizes[d] > 0 ? sizes[d] : 1;
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

static int mant_of(th_dtype dt) { return dt == TH_F32 ? 24 : dt == TH_F64 ? 53 : dt == TH_F16 ? 11 : 8; }

static double ulp_at(th_dtype dt, double v, double floor)
{
    int emin = dt == TH_F32 ? -126 : dt == TH_F64 ? -1022 : dt == TH_F16 ? -14 : -126;
    double a = fabs(v) > floor ? fabs(v) : floor;
    int e;
    frexp(a, &e);
    if (e - 1 < emin) e = emin + 1;
    return ldexp(1.0, e - mant_of(dt));
}

/* got against ref: a convolution's worst error over mag in epsilons (mag given), else in ulps; -1 when a
 * non-finite value differs or the shapes differ. */
static double error_of(const th_tensor *got, const th_tensor *ref, const th_tensor *mag, th_dtype dt)
{
    if (th_tensor_ndim(got) != th_tensor_ndim(ref) || th_tensor_numel(got) != th_tensor_numel(ref)) return -1;
    for (int d = 0; d < th_tensor_ndim(ref); d++)
        if (th_tensor_sizes(got)[d] != th_tensor_sizes(ref)[d]) return -1;
    th_tensor *g = in_layout(got, TH_F64, 0);
    const double *a = (const double *)th_tensor_data(g), *b = (const double *)th_tensor_data(ref);
    const double *m = mag ? (const double *)th_tensor_data(mag) : NULL;
    double w = 0, eps = ldexp(1.0, 1 - mant_of(dt));
    for (int64_t i = 0; i < th_tensor_numel(ref); i++) {
        if (!isfinite(a[i]) || !isfinite(b[i])) {
            if (a[i] != b[i] && !(isnan(a[i]) && isnan(b[i]))) w = -1;
            if (w < 0) break;
            continue;
        }
        double e = m ? fabs(a[i] - b[i]) / (m[i] > 0 ? m[i] : 1e-300) / eps : fabs(a[i] - b[i]) / ulp_at(dt, b[i], 0x1p-10);
        if (m && a[i] == b[i]) e = 0;
        if (e > w) w = e;
    }
    th_tensor_release(g);
    return w;
}

#define CONV_CALL(sfx)                                                                                          \
    do {                                                                                                        \
        typedef th_##sfx##_tensor T;                                                                            \
        const T *tx = (const T *)x, *tw = (const T *)w, *tb = (const T *)b;                                     \
        T *to = (T *)out;                                                                                       \
        switch (op) {                                                                                           \
        case 0: r = to ? (th_##sfx##_conv1d_out(to, tx, tw, tb, co) ? NULL : out) : (th_tensor *)th_##sfx##_conv1d(tx, tw, tb, co); break; \
        case 1: r = to ? (th_##sfx##_conv2d_out(to, tx, tw, tb, co) ? NULL : out) : (th_tensor *)th_##sfx##_conv2d(tx, tw, tb, co); break; \
        case 2: r = to ? (th_##sfx##_conv3d_out(to, tx, tw, tb, co) ? NULL : out) : (th_tensor *)th_##sfx##_conv3d(tx, tw, tb, co); break; \
        case 3: r = to ? (th_##sfx##_max_pool2d_out(to, (th_i64_tensor *)ixo, tx, k, po) ? NULL : out) : (th_tensor *)th_##sfx##_max_pool2d(tx, k, po, (th_i64_tensor **)ix); break; \
        case 6: r = to ? (th_##sfx##_conv_transpose1d_out(to, tx, tw, tb, co) ? NULL : out) : (th_tensor *)th_##sfx##_conv_transpose1d(tx, tw, tb, co); break; \
        case 7: r = to ? (th_##sfx##_conv_transpose2d_out(to, tx, tw, tb, co) ? NULL : out) : (th_tensor *)th_##sfx##_conv_transpose2d(tx, tw, tb, co); break; \
        case 8: r = to ? (th_##sfx##_im2col_out(to, tx, k, co) ? NULL : out) : (th_tensor *)th_##sfx##_im2col(tx, k, co); break; \
        case 9: r = to ? (th_##sfx##_col2im_out(to, tx, osz, k, co) ? NULL : out) : (th_tensor *)th_##sfx##_col2im(tx, osz, k, co); break; \
        case 10: r = to ? (th_##sfx##_conv_transpose3d_out(to, tx, tw, tb, co) ? NULL : out) : (th_tensor *)th_##sfx##_conv_transpose3d(tx, tw, tb, co); break; \
        default: r = to ? (th_##sfx##_avg_pool2d_out(to, tx, k, po) ? NULL : out) : (th_tensor *)th_##sfx##_avg_pool2d(tx, k, po); \
        }                                                                                                       \
    } while (0)

static th_tensor *call(int op, int dti, th_tensor *out, th_tensor *ixo, th_tensor **ix, const th_tensor *x,
                       const th_tensor *w, const th_tensor *b, const th_conv_opts *co, const th_pool_opts *po,
                       const int64_t *k, const int64_t *osz)
{
    th_tensor *r = NULL;
    switch (dti) {
    case 0: CONV_CALL(f32); break;
    case 1: CONV_CALL(f64); break;
    case 2: CONV_CALL(f16); break;
    default: CONV_CALL(bf16);
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

/* Whether the i64 tensor got holds ref's values (ref as loaded: i64). */
static bool same_indices(const th_tensor *got, const th_tensor *ref)
{
    if (!got || !ref || th_tensor_numel(got) != th_tensor_numel(ref)) return false;
    th_tensor *a = in_layout(got, TH_I64, 0), *b = in_layout(ref, TH_I64, 0);
    bool same = memcmp(th_tensor_data(a), th_tensor_data(b), (size_t)th_tensor_numel(a) * sizeof(int64_t)) == 0;
    th_tensor_release(a);
    th_tensor_release(b);
    return same;
}

#define PAD_CALL(sfx)                                                                                           \
    r = out ? (th_##sfx##_pad_out((th_##sfx##_tensor *)out, (const th_##sfx##_tensor *)x, npad, pads, mode, value) \
                   ? NULL                                                                                       \
                   : out)                                                                                       \
            : (th_tensor *)th_##sfx##_pad((const th_##sfx##_tensor *)x, npad, pads, mode, value)

static th_tensor *call_pad(int dti, th_tensor *out, const th_tensor *x, int npad, const int64_t *pads,
                           th_pad_mode mode, double value)
{
    th_tensor *r;
    switch (dti) {
    case 0: PAD_CALL(f32); break;
    case 1: PAD_CALL(f64); break;
    case 2: PAD_CALL(f16); break;
    default: PAD_CALL(bf16);
    }
    return r;
}

/* "case pad dtype mode npad value layout pads..." */
static void pad_case(const char *line)
{
    char name[64], dtn[16];
    int mode, npad, layout, used;
    double value;
    int64_t pads[2 * TH_MAX_DIMS];
    if (sscanf(line, "%63s pad %15s %d %d %lf %d%n", name, dtn, &mode, &npad, &value, &layout, &used) != 6 ||
        npad > 2 * TH_MAX_DIMS) {
        CHECK(!"a pad line of cases.txt that does not parse");
        return;
    }
    const char *rest = line + used;
    for (int i = 0; i < npad; i++) {
        char *end;
        pads[i] = strtoll(rest, &end, 10);
        rest = end;
    }
    int dti = 0;
    while (dti < 4 && strcmp(dts[dti], dtn)) dti++;
    CHECK(dti < 4);
    if (dti >= 4) return;
    th_dtype dt = dtypes[dti];
    th_tensor *x64 = load(name, "x"), *ref = load(name, "ref");
    CHECK(x64 && ref);
    if (x64 && ref) {
        th_tensor *x = in_layout(x64, dt, layout);
        th_tensor *o = in_layout(ref, dt, (layout + 1) % 4);
        th_tensor *y = call_pad(dti, NULL, x, npad, pads, (th_pad_mode)mode, value);
        th_tensor *yo = call_pad(dti, o, x, npad, pads, (th_pad_mode)mode, value);
        CHECK(y != NULL && yo == o);
        if (!y || yo != o) fprintf(stderr, "conv_torch: %s (pad %s mode %d): %s\n", name, dtn, mode, th_last_error());
        for (int j = 0; j < 2 && y && yo; j++) {
            double e = error_of(j ? yo : y, ref, NULL, dt);
            if (e != 0) fprintf(stderr, "conv_torch: %s (pad %s mode %d, %s): error %g\n", name, dtn, mode, j ? "out" : "new", e);
            CHECK(e == 0);
            if (e > worst[5][dti] || e < 0) worst[5][dti] = e < 0 ? INFINITY : e;
        }
        count[5][dti]++;
        cases++;
        th_tensor_release(y);
        th_tensor_release(x);
        th_tensor_release(o);
    }
    th_tensor_release(x64);
    th_tensor_release(ref);
}

static void one_case(const char *line)
{
    if (strstr(line, " pad ")) {
        pad_case(line);
        return;
    }
    char name[64], opn[32], dtn[16];
    long long groups, s[3], p[3], d[3], kk[2];
    long long extra[5] = {0, 0, 0, 0, 0}; /* output_padding[0..1], fold's output size[2], output_padding[2] */
    int has_b, layout, used = 0;
    if (sscanf(line, "%63s %31s %15s %lld %d %d %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld%n", name, opn,
               dtn, &groups, &has_b, &layout, &s[0], &s[1], &s[2], &p[0], &p[1], &p[2], &d[0], &d[1], &d[2], &kk[0],
               &kk[1], &used) != 17 ||
        (strstr(opn, "fold") && sscanf(line + used, "%lld %lld %lld %lld", &extra[0], &extra[1], &extra[2], &extra[3]) != 4)) {
        CHECK(!"a line of cases.txt that does not parse");
        return;
    }
    if (strstr(opn, "transpose") &&
        sscanf(line + used, "%lld %lld %lld %lld %lld", &extra[0], &extra[1], &extra[2], &extra[3], &extra[4]) != 5) {
        CHECK(!"a conv_transpose line of cases.txt that does not parse");
        return;
    }
    int op = 0, dti = 0;
    while (op < NOPS && strcmp(ops[op], opn)) op++;
    while (dti < 4 && strcmp(dts[dti], dtn)) dti++;
    CHECK(op < NOPS && dti < 4);
    if (op >= NOPS || dti >= 4) return;
    th_dtype dt = dtypes[dti];
    bool is_conv = op < 3 || op == 6 || op == 7 || op == 10, has_mag = is_conv || op == 9;
    th_conv_opts co;
    th_pool_opts po;
    memset(&co, 0, sizeof co);
    memset(&po, 0, sizeof po);
    for (int i = 0; i < 3; i++) {
        co.stride[i] = po.stride[i] = s[i];
        co.padding[i] = po.padding[i] = p[i];
        co.dilation[i] = po.dilation[i] = d[i];
    }
    co.groups = groups;
    co.output_padding[0] = extra[0];
    co.output_padding[1] = extra[1];
    co.output_padding[2] = extra[4];
    int64_t k[2] = {kk[0], kk[1]}, osz[2] = {extra[2], extra[3]};
    th_tensor *x64 = load(name, "x"), *ref = load(name, "ref");
    th_tensor *w64 = is_conv ? load(name, "w") : NULL, *b64 = has_b ? load(name, "b") : NULL;
    th_tensor *mag = has_mag ? load(name, "mag") : NULL, *idx = op == 3 ? load(name, "idx") : NULL;
    bool loaded = x64 && ref && (!is_conv || w64) && (!has_mag || mag) && (!has_b || b64) && (op != 3 || idx);
    CHECK(loaded);
    if (loaded) {
        th_tensor *x = in_layout(x64, dt, layout);
        th_tensor *w = w64 ? in_layout(w64, dt, (layout + 1) % 4) : NULL;
        th_tensor *b = b64 ? in_layout(b64, dt, (layout + 2) % 4) : NULL;
        th_tensor *o = in_layout(ref, dt, (layout + 3) % 4);
        th_tensor *ixo = op == 3 ? in_layout(idx, TH_I64, (layout + 1) % 4) : NULL;
        th_tensor *ix = NULL;
        th_tensor *y = call(op, dti, NULL, NULL, op == 3 ? &ix : NULL, x, w, b, &co, &po, k, osz);
        th_tensor *yo = call(op, dti, o, ixo, NULL, x, w, b, &co, &po, k, osz);
        CHECK(y != NULL && yo == o);
        if (!y || yo != o) fprintf(stderr, "conv_torch: %s (%s %s): %s\n", name, opn, dtn, th_last_error());
        for (int j = 0; j < 2 && y && yo; j++) {
            double e = error_of(j ? yo : y, ref, mag, dt);
            if (e < 0 || e > bound[op][dti])
                fprintf(stderr, "conv_torch: %s (%s %s layout %d, %s): error %g above the bound %g\n", name, opn, dtn,
                        layout, j ? "out" : "new", e, bound[op][dti]);
            CHECK(e >= 0 && e <= bound[op][dti]);
            if (e > worst[op][dti]) worst[op][dti] = e;
        }
        if (op == 3) {
            /* bf16 and f16 may round two of a window's values to one: then torch and the library both take the
             * first, as in float64 here from the same rounded values */
            CHECK(same_indices(ix, idx));
            CHECK(same_indices(ixo, idx));
        }
        count[op][dti]++;
        cases++;
        th_tensor_release(y);
        th_tensor_release(ix);
        th_tensor_release(ixo);
        th_tensor_release(x);
        th_tensor_release(w);
        th_tensor_release(b);
        th_tensor_release(o);
    }
    th_tensor_release(x64);
    th_tensor_release(ref);
    th_tensor_release(w64);
    th_tensor_release(b64);
    th_tensor_release(mag);
    th_tensor_release(idx);
}

int main(int argc, char **argv)
{
    (void)peer_read_all;
    (void)peer_contiguous;
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "conv_torch", "PyTorch");
    if (rc >= 0) return rc;
    test_begin();
    peer_each_case(dir, one_case);
    printf("conv_torch: %d cases against torch float64; worst error (convolutions and fold: epsilons of the dtype "
           "relative to the sum of |products|; pools: ulps; pad and unfold: exact):\n", cases);
    for (int op = 0; op < NOPS; op++) {
        printf("  %-16s", ops[op]);
        for (int dd = 0; dd < 4; dd++) printf("  %s %.3f (%d)", dts[dd], worst[op][dd], count[op][dd]);
        printf("\n");
    }
    CHECK(cases >= 1000);
    return test_end("conv_torch");
}
