/* tests/test_interpolate.c: interpolate (ops/resize.h) for f32, f64, f16 and bf16: hand-worked values of every
 * mode (nearest's and nearest-exact's indices, linear's lambdas, bicubic's A = -0.75 weights, align_corners on
 * and off, a size or a scale, recompute_scale_factor); properties (a constant stays constant, bilinear and
 * trilinear with align_corners reproduce a linear ramp); every input and out layout giving the same bits as
 * the contiguous one; f16 and bf16 equal to the float result rounded once; 1 and 2 threads the same bits; every
 * error. The peer check against PyTorch is tests/numpy/interp_torch.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static void release_all(void *const *ts, size_t n)
{
    for (size_t i = 0; i < n; i++) th_tensor_release(ts[i]);
}
#define RELEASE(...) release_all((void *const[]){__VA_ARGS__}, sizeof((void *const[]){__VA_ARGS__}) / sizeof(void *))

static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};

/* A tensor over a fresh storage: layout 0 contiguous, 1 dims in reverse order (channels-last-like), 2 every dim
 * stepped by 2, 3 the last dim reversed. */
static th_tensor *view_new(th_dtype dt, int ndim, const int64_t *sizes, int layout)
{
    int64_t strides[TH_MAX_DIMS], span = 1, offset = 0, step = layout == 2 ? 2 : 1;
    if (layout == 1)
        for (int d = 0; d < ndim; d++) strides[d] = span, span *= sizes[d] > 0 ? sizes[d] : 1;
    else
        for (int d = ndim - 1; d >= 0; d--) strides[d] = span * step, span *= sizes[d] > 0 ? sizes[d] : 1;
    if (layout == 3 && ndim > 0 && sizes[ndim - 1] > 0) {
        offset = (sizes[ndim - 1] - 1) * strides[ndim - 1];
        strides[ndim - 1] = -strides[ndim - 1];
    }
    th_storage *s = th_storage_new(step * span * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *t = th_tensor_new_with_storage(dt, s, offset, ndim, sizes, strides);
    th_storage_release(s);
    return t;
}

/* t (any dtype, layout) as a new contiguous tensor of dtype dt in layout. */
static th_tensor *as_layout(const th_tensor *t, th_dtype dt, int layout)
{
    th_tensor *v = view_new(dt, th_tensor_ndim(t), th_tensor_sizes(t), layout);
    if (v && th_tensor_copy(v, t)) {
        th_tensor_release(v);
        v = NULL;
    }
    return v;
}

/* A contiguous f64 tensor of the values given. */
static th_tensor *vals_new(int ndim, const int64_t *sizes, const double *v)
{
    th_tensor *t = view_new(TH_F64, ndim, sizes, 0);
    memcpy(th_tensor_data(t), v, (size_t)th_tensor_numel(t) * sizeof(double));
    return t;
}

static uint32_t seed = 1616;
static double rnd(void) /* in [-2, 2), multiples of 1/64 (exact in every dtype but bf16's 8 bits, rounded once) */
{
    seed = seed * 1664525u + 1013904223u;
    return (double)((int)((seed >> 8) % 256u) - 128) / 64.0;
}

static th_tensor *random_new(int ndim, const int64_t *sizes)
{
    th_tensor *t = view_new(TH_F64, ndim, sizes, 0);
    double *p = (double *)th_tensor_data(t);
    for (int64_t i = 0; i < th_tensor_numel(t); i++) p[i] = rnd();
    return t;
}

/* interpolate through the typed entry point of x's dtype: a new result (out NULL) or into out. */
static th_tensor *interp(th_tensor *out, const th_tensor *x, const th_interp_opts *o)
{
#define INTERP_CALL(sfx)                                                                                        \
    return out ? (th_##sfx##_interpolate_out((th_##sfx##_tensor *)out, (const th_##sfx##_tensor *)x, o) ? NULL : out) \
               : (th_tensor *)th_##sfx##_interpolate((const th_##sfx##_tensor *)x, o)
    switch (th_tensor_dtype(x)) {
    case TH_F32: INTERP_CALL(f32);
    case TH_F64: INTERP_CALL(f64);
    case TH_F16: INTERP_CALL(f16);
    default: INTERP_CALL(bf16);
    }
#undef INTERP_CALL
}

/* Whether t (any dtype, layout) holds want (n values) within tol. */
static bool holds(const th_tensor *t, const double *want, int64_t n, double tol)
{
    if (!t || th_tensor_numel(t) != n) return false;
    th_tensor *c = as_layout(t, TH_F64, 0);
    const double *p = (const double *)th_tensor_data(c);
    bool ok = true;
    for (int64_t i = 0; i < n; i++)
        if (!(fabs(p[i] - want[i]) <= tol)) {
            fprintf(stderr, "element %lld: %.9g, want %.9g\n", (long long)i, p[i], want[i]);
            ok = false;
        }
    th_tensor_release(c);
    return ok;
}

/* Whether a and b (same dtype, any layouts) hold the same bits. */
static bool same_bits(const th_tensor *a, const th_tensor *b)
{
    if (!a || !b || th_tensor_dtype(a) != th_tensor_dtype(b) || th_tensor_ndim(a) != th_tensor_ndim(b)) return false;
    for (int d = 0; d < th_tensor_ndim(a); d++)
        if (th_tensor_sizes(a)[d] != th_tensor_sizes(b)[d]) return false;
    th_tensor *ca = as_layout(a, th_tensor_dtype(a), 0), *cb = as_layout(b, th_tensor_dtype(b), 0);
    bool same = memcmp(th_tensor_data(ca), th_tensor_data(cb),
                       (size_t)th_tensor_numel(ca) * th_dtype_info(th_tensor_dtype(ca))->size) == 0;
    th_tensor_release(ca);
    th_tensor_release(cb);
    return same;
}

/* One hand-worked case in every dtype (values exact in each, tol absolute). */
static void by_hand_case(int ndim, const int64_t *sizes, const double *x, const th_interp_opts *o, const double *want,
                         int64_t n, double tol)
{
    th_tensor *x64 = vals_new(ndim, sizes, x);
    for (int di = 0; di < 4; di++) {
        th_tensor *xd = as_layout(x64, dtypes[di], 0);
        th_tensor *y = interp(NULL, xd, o);
        CHECK(y != NULL);
        if (!y) fprintf(stderr, "%s\n", th_last_error());
        CHECK(holds(y, want, n, di < 2 ? tol : tol + 0.02));
        th_tensor_release(y);
        th_tensor_release(xd);
    }
    th_tensor_release(x64);
}

static void by_hand(void)
{
    th_interp_opts o;
    /* nearest 3 -> 5: source floor(o * 0.6) */
    memset(&o, 0, sizeof o);
    o.size[0] = 5;
    by_hand_case(3, SZ(1, 1, 3), (const double[]){10, 20, 30}, &o, (const double[]){10, 10, 20, 20, 30}, 5, 0);
    /* nearest-exact 3 -> 5: floor((o + 0.5) * 0.6) */
    o.mode = TH_INTERP_NEAREST_EXACT;
    by_hand_case(3, SZ(1, 1, 3), (const double[]){10, 20, 30}, &o, (const double[]){10, 10, 20, 30, 30}, 5, 0);
    /* nearest 4 -> 2 (down): floor(o * 2) */
    o.mode = TH_INTERP_NEAREST;
    o.size[0] = 2;
    by_hand_case(3, SZ(1, 1, 4), (const double[]){1, 2, 3, 4}, &o, (const double[]){1, 3}, 2, 0);
    /* nearest 2-d 2x2 -> 4x4 (2x: o >> 1) */
    o.size[0] = 4;
    o.size[1] = 4;
    by_hand_case(4, SZ(1, 1, 2, 2), (const double[]){1, 2, 3, 4}, &o,
                 (const double[]){1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, 16, 0);
    /* linear [0, 4] -> 4, align_corners off: sources -0.25 (clamped to 0), 0.25, 0.75, 1.25 (the last sample) */
    memset(&o, 0, sizeof o);
    o.mode = TH_INTERP_LINEAR;
    o.size[0] = 4;
    by_hand_case(3, SZ(1, 1, 2), (const double[]){0, 4}, &o, (const double[]){0, 1, 3, 4}, 4, 1e-6);
    /* linear [0, 4] -> 5 with align_corners: the ends kept, 1 apart */
    o.size[0] = 5;
    o.align_corners = true;
    by_hand_case(3, SZ(1, 1, 2), (const double[]){0, 4}, &o, (const double[]){0, 1, 2, 3, 4}, 5, 1e-6);
    /* align_corners with one output: the first sample */
    o.size[0] = 1;
    by_hand_case(3, SZ(1, 1, 2), (const double[]){3, 4}, &o, (const double[]){3}, 1, 0);
    /* scale 1.7 on 4: 6 outputs, source (o + 0.5) / 1.7 - 0.5; recompute_scale_factor: (o + 0.5) * 4 / 6 - 0.5 */
    memset(&o, 0, sizeof o);
    o.mode = TH_INTERP_LINEAR;
    o.scale[0] = 1.7;
    double w1[6], w2[6];
    for (int i = 0; i < 6; i++) {
        double r1 = (i + 0.5) / 1.7 - 0.5, r2 = (i + 0.5) * 4.0 / 6.0 - 0.5;
        w1[i] = r1 < 0 ? 0 : r1 > 3 ? 3 : r1;
        w2[i] = r2 < 0 ? 0 : r2 > 3 ? 3 : r2;
    }
    by_hand_case(3, SZ(1, 1, 4), (const double[]){0, 1, 2, 3}, &o, w1, 6, 1e-6);
    o.recompute_scale_factor = true;
    by_hand_case(3, SZ(1, 1, 4), (const double[]){0, 1, 2, 3}, &o, w2, 6, 1e-6);
    /* bicubic along w, 4 -> 7 with align_corners: sources o / 2; at t = 0.5 the weights are -0.09375, 0.59375,
     * 0.59375, -0.09375 (A = -0.75), the taps clamped at the border */
    memset(&o, 0, sizeof o);
    o.mode = TH_INTERP_BICUBIC;
    o.align_corners = true;
    o.size[0] = 1;
    o.size[1] = 7;
    by_hand_case(4, SZ(1, 1, 1, 4), (const double[]){1, 2, 4, 8}, &o,
                 (const double[]){1, 1.3125, 2, 2.71875, 4, 6.1875, 8}, 7, 1e-6);
    /* 6.1875: taps 1, 2, 3, 3 (the last clamped): -0.09375 * 2 + 0.59375 * 4 + 0.59375 * 8 - 0.09375 * 8 */
}

/* Properties on random shapes: constants stay, ramps are reproduced (align_corners), layouts agree, dtypes
 * round once, threads agree. */
static void props(void)
{
    static const th_interp_mode modes[6] = {TH_INTERP_NEAREST, TH_INTERP_LINEAR,    TH_INTERP_BILINEAR,
                                            TH_INTERP_BICUBIC, TH_INTERP_TRILINEAR, TH_INTERP_NEAREST_EXACT};
    int cases = 0;
    for (int m = 0; m < 6; m++)
        for (int k = 0; k < 8; k++) {
            th_interp_mode mode = modes[m];
            int nsp = mode == TH_INTERP_LINEAR ? 1 : mode == TH_INTERP_TRILINEAR ? 3
                    : mode == TH_INTERP_BILINEAR || mode == TH_INTERP_BICUBIC ? 2 : 1 + k % 3;
            bool nearest = mode == TH_INTERP_NEAREST || mode == TH_INTERP_NEAREST_EXACT;
            th_interp_opts o;
            memset(&o, 0, sizeof o);
            o.mode = mode;
            o.align_corners = !nearest && k % 2;
            int64_t sizes[5] = {1 + k % 2, 1 + k % 3, 0, 0, 0};
            for (int i = 0; i < nsp; i++) {
                sizes[2 + i] = 1 + (k * 3 + i * 5) % (nsp == 3 ? 4 : 7);
                if (k % 4 < 2) o.size[i] = 1 + (k * 7 + i * 3) % (nsp == 3 ? 5 : 11);
                else o.scale[i] = 0.5 + 0.375 * ((k + i) % 5);
            }
            th_tensor *x64 = random_new(nsp + 2, sizes);
            th_tensor *ref[4] = {NULL, NULL, NULL, NULL};
            for (int di = 0; di < 4; di++) {
                th_tensor *xd = as_layout(x64, dtypes[di], 0);
                ref[di] = interp(NULL, xd, &o);
                CHECK(ref[di] != NULL);
                if (!ref[di]) fprintf(stderr, "props: %s\n", th_last_error());
                for (int lay = 1; lay < 4 && ref[di]; lay++) {
                    th_tensor *xl = as_layout(x64, dtypes[di], lay);
                    th_tensor *yl = interp(NULL, xl, &o);
                    th_tensor *ol = view_new(dtypes[di], th_tensor_ndim(ref[di]), th_tensor_sizes(ref[di]), (lay + 1) % 4);
                    th_tensor *yo = interp(ol, xl, &o);
                    CHECK(same_bits(yl, ref[di]));
                    CHECK(yo == ol && same_bits(ol, ref[di]));
                    th_tensor_release(yl);
                    th_tensor_release(ol);
                    th_tensor_release(xl);
                }
                th_tensor_release(xd);
            }
            /* f16 and bf16: the float computation on the rounded input, rounded once */
            for (int di = 2; di < 4 && ref[0]; di++) {
                th_tensor *xr = as_layout(x64, dtypes[di], 0), *xf = as_layout(xr, TH_F32, 0);
                th_tensor *yf = interp(NULL, xf, &o), *yr = yf ? as_layout(yf, dtypes[di], 0) : NULL;
                CHECK(same_bits(yr, ref[di]));
                RELEASE(xr, xf, yf, yr);
            }
            /* f32 against f64 */
            if (ref[0] && ref[1]) {
                th_tensor *a = as_layout(ref[0], TH_F64, 0);
                const double *p = (const double *)th_tensor_data(a), *q = (const double *)th_tensor_data(ref[1]);
                double worst = 0;
                for (int64_t i = 0; i < th_tensor_numel(a); i++)
                    if (fabs(p[i] - q[i]) > worst) worst = fabs(p[i] - q[i]);
                CHECK(worst <= 4 * 2 * 2 * 0x1p-23); /* |x| < 2, weights' |sum| <= 1.6^3 */
                th_tensor_release(a);
            }
            for (int di = 0; di < 4; di++) th_tensor_release(ref[di]);
            th_tensor_release(x64);
            cases++;
        }
    /* a constant stays (every mode: the weights sum to 1) */
    for (int m = 0; m < 6; m++) {
        th_interp_opts o;
        memset(&o, 0, sizeof o);
        o.mode = modes[m];
        int nsp = m == 1 ? 1 : m == 4 ? 3 : 2;
        int64_t sizes[5] = {2, 3, 3, 4, 5};
        for (int i = 0; i < nsp; i++) o.size[i] = 2 + 3 * i;
        th_tensor *x = (th_tensor *)th_f64_full(nsp + 2, sizes, 0.75);
        th_tensor *y = interp(NULL, x, &o);
        CHECK(y != NULL);
        double want[2 * 3 * 2 * 5 * 8];
        for (int i = 0; i < (int)(sizeof want / sizeof want[0]); i++) want[i] = 0.75;
        CHECK(y && holds(y, want, th_tensor_numel(y), 1e-15));
        RELEASE(x, y);
    }
    /* bilinear and trilinear with align_corners reproduce a ramp a + b * h + c * w (+ d * z) */
    for (int nsp = 2; nsp <= 3; nsp++) {
        int64_t in[3] = {3, 4, 5}, out[3] = {5, 7, 9};
        int64_t sizes[5] = {1, 1, in[3 - nsp], in[4 - nsp], in[2]};
        th_tensor *x = (th_tensor *)th_f64_zeros(nsp + 2, sizes);
        double *p = (double *)th_tensor_data(x);
        int64_t e = 0;
        for (int64_t a = 0; a < (nsp == 3 ? in[0] : 1); a++)
            for (int64_t b = 0; b < in[1]; b++)
                for (int64_t c = 0; c < in[2]; c++) p[e++] = 1 + 0.5 * a + 2 * b - 0.25 * c;
        th_interp_opts o;
        memset(&o, 0, sizeof o);
        o.mode = nsp == 2 ? TH_INTERP_BILINEAR : TH_INTERP_TRILINEAR;
        o.align_corners = true;
        for (int i = 0; i < nsp; i++) o.size[i] = out[3 - nsp + i];
        th_tensor *y = interp(NULL, x, &o);
        double want[5 * 7 * 9];
        e = 0;
        for (int64_t a = 0; a < (nsp == 3 ? out[0] : 1); a++)
            for (int64_t b = 0; b < out[1]; b++)
                for (int64_t c = 0; c < out[2]; c++)
                    want[e++] = 1 + 0.5 * a * (in[0] - 1) / (out[0] - 1) + 2.0 * b * (in[1] - 1) / (out[1] - 1) -
                                0.25 * c * (in[2] - 1) / (out[2] - 1);
        CHECK(y && holds(y, want, e, 1e-12));
        RELEASE(x, y);
    }
    /* 1 and 2 threads: the same bits (planes are computed alone) */
    {
        th_tensor *x64 = random_new(4, SZ(2, 8, 32, 32)), *x = as_layout(x64, TH_F32, 0);
        th_interp_opts o;
        memset(&o, 0, sizeof o);
        o.mode = TH_INTERP_BICUBIC;
        o.scale[0] = o.scale[1] = 2;
        int before = th_get_num_threads();
        test_set_threads(1);
        th_tensor *y1 = interp(NULL, x, &o);
        if (test_set_threads(2)) {
            th_tensor *y2 = interp(NULL, x, &o);
            CHECK(same_bits(y1, y2));
            th_tensor_release(y2);
        }
        th_set_num_threads(before);
        RELEASE(x64, x, y1);
    }
    printf("interpolate: %d random cases, each in 4 dtypes x 4 layouts x (new, out)\n", cases);
}

#define f "th_f32_interpolate"
#define fo "th_f32_interpolate_out"
static void errors(void)
{
    th_f32_tensor *x3 = th_f32_zeros(3, SZ(1, 2, 4)), *x4 = th_f32_zeros(4, SZ(1, 2, 4, 4));
    th_f32_tensor *x5 = th_f32_zeros(5, SZ(1, 1, 2, 2, 2)), *x2 = th_f32_zeros(2, SZ(2, 4));
    th_f32_tensor *x6 = th_f32_zeros(6, SZ(1, 1, 1, 2, 2, 2)), *xe = th_f32_zeros(4, SZ(1, 2, 0, 4));
    th_f64_tensor *x64 = th_f64_zeros(3, SZ(1, 2, 4));
    th_interp_opts o;
    memset(&o, 0, sizeof o);
    o.size[0] = 8;
    CHECK_NULL(th_f32_interpolate(NULL, &o), TH_ERR_INVALID, f, "NULL input");
    CHECK_NULL(th_f32_interpolate(x3, NULL), TH_ERR_INVALID, f, "NULL opts");
    CHECK_NULL(th_f32_interpolate((const th_f32_tensor *)x64, &o), TH_ERR_DTYPE, f, "input is f64, not f32");
    CHECK_FAILS(th_f32_interpolate_out((th_f32_tensor *)x64, x3, &o), TH_ERR_DTYPE, fo, "out is f64, not f32");
    CHECK_FAILS(th_f32_interpolate_out(NULL, x3, &o), TH_ERR_INVALID, fo, "NULL out");
    /* rank for the mode */
    CHECK_NULL(th_f32_interpolate(x2, &o), TH_ERR_SHAPE, f, "nearest takes 3 to 5");
    CHECK_NULL(th_f32_interpolate(x6, &o), TH_ERR_SHAPE, f, "(6 dims)");
    o.mode = TH_INTERP_LINEAR;
    CHECK_NULL(th_f32_interpolate(x4, &o), TH_ERR_SHAPE, f, "linear takes 3 (N, C, spatial) dims");
    o.mode = TH_INTERP_BILINEAR;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_SHAPE, f, "bilinear takes 4");
    o.mode = TH_INTERP_BICUBIC;
    CHECK_NULL(th_f32_interpolate(x5, &o), TH_ERR_SHAPE, f, "bicubic takes 4");
    o.mode = TH_INTERP_TRILINEAR;
    CHECK_NULL(th_f32_interpolate(x4, &o), TH_ERR_SHAPE, f, "trilinear takes 5");
    o.mode = (th_interp_mode)6;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "mode 6 is no th_interp_mode");
    o.mode = (th_interp_mode)-1;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "mode -1 is no th_interp_mode");
    /* align_corners with nearest */
    o.mode = TH_INTERP_NEAREST;
    o.align_corners = true;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "align_corners is for the linear modes and bicubic, not nearest");
    o.mode = TH_INTERP_NEAREST_EXACT;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "not nearest-exact");
    /* size and scale: both, neither, bad values, past the spatial dims */
    memset(&o, 0, sizeof o);
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "neither size nor scale is given");
    o.size[0] = 4;
    o.scale[0] = 2;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "both size and scale are given");
    memset(&o, 0, sizeof o);
    o.size[0] = -3;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "size[0] is -3; it must be >= 1");
    o.size[0] = 4;
    o.size[1] = 4;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "size[1] is given but the input has 1 spatial dims");
    o.size[1] = 0;
    CHECK_NULL(th_f32_interpolate(x4, &o), TH_ERR_INVALID, f, "size[1] is 0; it must be >= 1");
    memset(&o, 0, sizeof o);
    o.scale[0] = -2;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "scale[0] is -2; it must be > 0 and finite");
    o.scale[0] = INFINITY;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "scale[0] is inf");
    o.scale[0] = NAN;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "scale[0] is nan");
    o.scale[0] = 0.2; /* 4 * 0.2 = 0.8: no output */
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_SHAPE, f, "scale[0] 0.2 makes spatial dim 0 of size 4 0; it must be from 1 to 2^62");
    o.scale[0] = 2;
    o.scale[2] = 2;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_INVALID, f, "scale[2] is given but the input has 1 spatial dims");
    /* an empty spatial input */
    memset(&o, 0, sizeof o);
    o.size[0] = o.size[1] = 2;
    CHECK_NULL(th_f32_interpolate(xe, &o), TH_ERR_SHAPE, f, "spatial dim 0 of the input has size 0");
    memset(&o, 0, sizeof o);
    o.scale[0] = o.scale[1] = 2;
    CHECK_NULL(th_f32_interpolate(xe, &o), TH_ERR_SHAPE, f, "spatial dim 0 of the input has size 0");
    /* a scale whose output size does not fit */
    memset(&o, 0, sizeof o);
    o.scale[0] = 1e300;
    CHECK_NULL(th_f32_interpolate(x3, &o), TH_ERR_SHAPE, f, "scale[0] 1e+300 makes spatial dim 0 of size 4");
    memset(&o, 0, sizeof o);
    /* outs: wrong shape, read-only, overlapping */
    o.size[0] = 8;
    o.size[1] = 0;
    th_f32_tensor *bad = th_f32_zeros(3, SZ(1, 2, 7));
    CHECK_FAILS(th_f32_interpolate_out(bad, x3, &o), TH_ERR_SHAPE, fo, "out");
    th_f32_tensor *ok = th_f32_zeros(3, SZ(1, 2, 8));
    CHECK_INT_EQ(th_f32_interpolate_out(ok, x3, &o), TH_OK);
    /* an out over the input itself (an overlap the op cannot write through): the same size */
    o.size[0] = 4;
    th_f32_tensor *same = th_f32_interpolate(x3, &o);
    CHECK(same != NULL);
    CHECK_INT_EQ(th_f32_interpolate_out(x3, x3, &o), TH_OK); /* exactly the input: read before written */
    RELEASE(same, bad, ok);
    /* an empty batch: an empty result */
    th_f32_tensor *x0 = th_f32_zeros(3, SZ(0, 2, 4)), *y0 = th_f32_interpolate(x0, &o);
    CHECK(y0 && th_f32_numel(y0) == 0 && th_f32_size(y0, 2) == 4);
    RELEASE(x0, y0);
    RELEASE(x2, x3, x4, x5, x6, xe,
                x64);
}

#undef f
#undef fo

int main(void)
{
    test_begin();
    by_hand();
    props();
    errors();
    return test_end("interpolate");
}
