/* tests/numpy/interp_torch.c: interpolate (ops/resize.h) against PyTorch 1.13's F.interpolate
 * (tests/numpy/interp_torch.py writes the cases: every mode x align_corners x up and down x size or scale factors
 * (recompute_scale_factor off and on) x dtype, inputs already rounded to each case's dtype, torch's float64 result
 * from them, and for f32 torch's own float32 result). Every case runs as a new result and into an out, the input
 * in the layout the case names (contiguous, dims reversed, stepped, last dim reversed, channels-last), the out in
 * another. nearest and nearest-exact must be exact (their indices are computed in float whatever the dtype, as
 * torch's); the other modes' error is measured in epsilons of the dtype relative to the input's largest |value|
 * (the scale of their weighted sums' rounding), and for f32 also against torch's own float32 result. The worst
 * per mode and dtype is printed and bounded.
 *
 * Usage: interp_torch DIR PYTHON SCRIPT (the test command; skips with 77 without /usr/bin/python3 or torch). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "peer_files.h"

#define NMODES 6
static const char *modes[NMODES] = {"nearest", "linear", "bilinear", "bicubic", "trilinear", "nearest-exact"};
static const char *dts[4] = {"f32", "f64", "f16", "bf16"};
static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};
/* Bounds in epsilons of the dtype relative to max |x|: f32 and f64 compute in their own type (the weights
 * rounded in it, then sums of at most 2 x 2 x 2 terms; bicubic's 4 x 4 terms with weights of up to 1.3 in |sum|:
 * twice the bound); f16 and bf16 compute in float and round once (half an epsilon at a result of up to ~1.3
 * max |x| for bicubic). nearest is exact. */
static const double bound[4] = {8, 8, 1, 1};
static double bound_of(int mode, int dti) { return mode == 3 && dti < 2 ? 2 * bound[dti] : bound[dti]; }
static double worst[NMODES][4], worst32[NMODES];
static int count[NMODES][4];
static const char *dir;
static int cases;

/* A copy of t in dtype dt: layout 0 contiguous, 1 dims reversed, 2 every dim stepped by 2, 3 the last dim
 * reversed, 4 channels-last (dim 1 innermost). */
static th_tensor *in_layout(const th_tensor *t, th_dtype dt, int layout)
{
    int ndim = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    int64_t strides[TH_MAX_DIMS], span = 1, offset = 0;
    int order[TH_MAX_DIMS]; /* innermost first */
    for (int i = 0; i < ndim; i++) order[i] = layout == 1 ? i : ndim - 1 - i;
    if (layout == 4 && ndim > 2) {
        order[0] = 1;
        for (int i = 1; i < ndim - 1; i++) order[i] = ndim - i;
        order[ndim - 1] = 0;
    }
    for (int i = 0; i < ndim; i++) {
        int d = order[i];
        strides[d] = span * (layout == 2 ? 2 : 1);
        span *= sizes[d] > 0 ? sizes[d] : 1;
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

static int mant_of(th_dtype dt) { return dt == TH_F32 ? 24 : dt == TH_F64 ? 53 : dt == TH_F16 ? 11 : 8; }

/* got against ref in epsilons of dt relative to scale; -1 when the shapes differ or a value is not finite. */
static double error_of(const th_tensor *got, const th_tensor *ref, double scale, th_dtype dt)
{
    if (th_tensor_ndim(got) != th_tensor_ndim(ref) || th_tensor_numel(got) != th_tensor_numel(ref)) return -1;
    for (int d = 0; d < th_tensor_ndim(ref); d++)
        if (th_tensor_sizes(got)[d] != th_tensor_sizes(ref)[d]) return -1;
    th_tensor *g = in_layout(got, TH_F64, 0);
    const double *a = (const double *)th_tensor_data(g), *b = (const double *)th_tensor_data(ref);
    double w = 0, eps = ldexp(1.0, 1 - mant_of(dt));
    for (int64_t i = 0; i < th_tensor_numel(ref); i++) {
        if (!isfinite(a[i])) {
            w = -1;
            break;
        }
        double e = fabs(a[i] - b[i]) / (scale > 0 ? scale : 1) / eps;
        if (e > w) w = e;
    }
    th_tensor_release(g);
    return w;
}

#define INTERP_CALL(sfx)                                                                                        \
    r = out ? (th_##sfx##_interpolate_out((th_##sfx##_tensor *)out, (const th_##sfx##_tensor *)x, o) ? NULL : out) \
            : (th_tensor *)th_##sfx##_interpolate((const th_##sfx##_tensor *)x, o)

static th_tensor *call(int dti, th_tensor *out, const th_tensor *x, const th_interp_opts *o)
{
    th_tensor *r;
    switch (dti) {
    case 0: INTERP_CALL(f32); break;
    case 1: INTERP_CALL(f64); break;
    case 2: INTERP_CALL(f16); break;
    default: INTERP_CALL(bf16);
    }
    return r;
}

static th_tensor *load(const char *name, const char *part)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, part);
    return th_tensor_load_npy(path);
}

/* "case mode dtype align recompute layout size0 size1 size2 scale0 scale1 scale2" */
static void one_case(const char *line)
{
    char name[64], dtn[16];
    int mode, align, recompute, layout;
    long long sz[3];
    double sc[3];
    if (sscanf(line, "%63s %d %15s %d %d %d %lld %lld %lld %lf %lf %lf", name, &mode, dtn, &align, &recompute, &layout,
               &sz[0], &sz[1], &sz[2], &sc[0], &sc[1], &sc[2]) != 12 ||
        mode < 0 || mode >= NMODES) {
        CHECK(!"a line of cases.txt that does not parse");
        return;
    }
    int dti = 0;
    while (dti < 4 && strcmp(dts[dti], dtn)) dti++;
    CHECK(dti < 4);
    if (dti >= 4) return;
    th_dtype dt = dtypes[dti];
    th_interp_opts o;
    memset(&o, 0, sizeof o);
    o.mode = (th_interp_mode)mode;
    o.align_corners = align != 0;
    o.recompute_scale_factor = recompute != 0;
    for (int i = 0; i < 3; i++) o.size[i] = sz[i], o.scale[i] = sc[i];
    th_tensor *x64 = load(name, "x"), *ref = load(name, "ref"), *ref32 = dti == 0 ? load(name, "ref32") : NULL;
    CHECK(x64 && ref && (dti != 0 || ref32));
    if (x64 && ref && (dti != 0 || ref32)) {
        const double *xp = (const double *)th_tensor_data(x64);
        double scale = 0;
        for (int64_t i = 0; i < th_tensor_numel(x64); i++)
            if (fabs(xp[i]) > scale) scale = fabs(xp[i]);
        bool nearest = mode == 0 || mode == 5;
        th_tensor *x = in_layout(x64, dt, layout);
        th_tensor *oo = in_layout(ref, dt, (layout + 2) % 5);
        th_tensor *y = call(dti, NULL, x, &o), *yo = call(dti, oo, x, &o);
        CHECK(y != NULL && yo == oo);
        if (!y || yo != oo) fprintf(stderr, "interp_torch: %s (%s %s): %s\n", name, modes[mode], dtn, th_last_error());
        for (int j = 0; j < 2 && y && yo; j++) {
            double e = error_of(j ? yo : y, ref, scale, dt);
            bool ok = nearest ? e == 0 : e >= 0 && e <= bound_of(mode, dti);
            if (!ok)
                fprintf(stderr, "interp_torch: %s (%s %s align %d, %s): error %g\n", name, modes[mode], dtn, align,
                        j ? "out" : "new", e);
            CHECK(ok);
            if (e > worst[mode][dti] || e < 0) worst[mode][dti] = e < 0 ? INFINITY : e;
        }
        if (y && ref32) {
            double e = error_of(y, ref32, scale, dt);
            bool ok = nearest ? e == 0 : e >= 0 && e <= bound_of(mode, dti);
            if (!ok) fprintf(stderr, "interp_torch: %s (%s f32 against torch's f32): error %g\n", name, modes[mode], e);
            CHECK(ok);
            if (e > worst32[mode] || e < 0) worst32[mode] = e < 0 ? INFINITY : e;
        }
        count[mode][dti]++;
        cases++;
        th_tensor_release(y);
        th_tensor_release(x);
        th_tensor_release(oo);
    }
    th_tensor_release(x64);
    th_tensor_release(ref);
    th_tensor_release(ref32);
}

int main(int argc, char **argv)
{
    (void)peer_read_all;
    (void)peer_contiguous;
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "interp_torch", "PyTorch");
    if (rc >= 0) return rc;
    test_begin();
    peer_each_case(dir, one_case);
    printf("interp_torch: %d cases against torch float64; worst error in epsilons of the dtype relative to max |x| "
           "(nearest modes: exact), and f32 against torch's own float32:\n", cases);
    for (int m = 0; m < NMODES; m++) {
        printf("  %-14s", modes[m]);
        for (int dd = 0; dd < 4; dd++) printf("  %s %.3f (%d)", dts[dd], worst[m][dd], count[m][dd]);
        printf("  f32-vs-torch-f32 %.3f\n", worst32[m]);
    }
    CHECK(cases >= 400);
    return test_end("interp_torch");
}
