/* tests/test_nn_layers.c: group_norm, batch_norm (inference), glu, swiglu, geglu, embedding, rope, nll_loss and
 * cross_entropy (ops/nn.h), adaptive_avg_pool2d and adaptive_max_pool2d (ops/conv.h) for f32, f64, f16 and
 * bf16, against references computed here in double from their definitions; transposed, stepped and
 * reversed inputs and outs, outs that are the input, empty tensors, weights and biases on and off; 1 and 2
 * threads bit-identical; every error. The peer check against PyTorch is tests/numpy/nn_layers_torch.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};
enum { OP_GROUP, OP_BATCH, OP_GLU, OP_SWIGLU, OP_GEGLU, OP_GEGLU_TANH, OP_COUNT };
static const char *op_names[OP_COUNT] = {"group_norm", "batch_norm", "glu", "swiglu", "geglu", "geglu_tanh"};

/* One call through the typed front door of x's dtype: a new result (out NULL; returned) or into out (*status
 * set, out returned when it is TH_OK). g: num_groups, or dim for the gated units. */
#define LAYER_CALL(sfx)                                                                                        \
    do {                                                                                                       \
        typedef th_##sfx##_tensor T;                                                                           \
        const T *tx = (const T *)x, *tm = (const T *)m, *tv = (const T *)v, *tw = (const T *)w,                \
                *tb = (const T *)b;                                                                            \
        T *to = (T *)out;                                                                                      \
        switch (op) {                                                                                          \
        case OP_GROUP:                                                                                         \
            if (to) st = th_##sfx##_group_norm_out(to, tx, g, tw, tb, eps);                                    \
            else r = (th_tensor *)th_##sfx##_group_norm(tx, g, tw, tb, eps);                                   \
            break;                                                                                             \
        case OP_BATCH:                                                                                         \
            if (to) st = th_##sfx##_batch_norm_out(to, tx, tm, tv, tw, tb, eps);                               \
            else r = (th_tensor *)th_##sfx##_batch_norm(tx, tm, tv, tw, tb, eps);                              \
            break;                                                                                             \
        case OP_GLU:                                                                                           \
            if (to) st = th_##sfx##_glu_out(to, tx, (int)g);                                                   \
            else r = (th_tensor *)th_##sfx##_glu(tx, (int)g);                                                  \
            break;                                                                                             \
        case OP_SWIGLU:                                                                                        \
            if (to) st = th_##sfx##_swiglu_out(to, tx, (int)g);                                                \
            else r = (th_tensor *)th_##sfx##_swiglu(tx, (int)g);                                               \
            break;                                                                                             \
        default:                                                                                               \
            if (to) st = th_##sfx##_geglu_out(to, tx, (int)g, op == OP_GEGLU_TANH);                            \
            else r = (th_tensor *)th_##sfx##_geglu(tx, (int)g, op == OP_GEGLU_TANH);                           \
        }                                                                                                      \
    } while (0)

static th_tensor *call(int op, th_dtype dt, th_tensor *out, const th_tensor *x, int64_t g, const th_tensor *m,
                       const th_tensor *v, const th_tensor *w, const th_tensor *b, double eps)
{
    th_tensor *r = NULL;
    int st = -1;
    switch (dt) {
    case TH_F32: LAYER_CALL(f32); break;
    case TH_F64: LAYER_CALL(f64); break;
    case TH_F16: LAYER_CALL(f16); break;
    default: LAYER_CALL(bf16);
    }
    return out ? (st == TH_OK ? out : NULL) : r;
}

/* ---- tensors of any layout ---- */

static uint32_t seed = 16;
static double rnd(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (double)(seed >> 8) / 16777216.0;
}

/* A view of shape sizes, dtype dt, over a fresh storage: layout 0 contiguous, 1 dims in reverse order, 2 every
 * dim stepped by 2, 3 the last dim reversed. */
static th_tensor *view_new(th_dtype dt, int ndim, const int64_t *sizes, int layout)
{
    int64_t strides[TH_MAX_DIMS], span = 1, numel = 1;
    for (int d = 0; d < ndim; d++) numel *= sizes[d];
    if (layout == 1)
        for (int d = 0; d < ndim; d++) {
            strides[d] = span;
            span *= sizes[d] > 0 ? sizes[d] : 1;
        }
    else
        for (int d = ndim - 1; d >= 0; d--) {
            strides[d] = span * (layout == 2 ? 2 : 1);
            span *= sizes[d] > 0 ? sizes[d] : 1;
        }
    int64_t offset = 0;
    if (layout == 3 && ndim > 0 && sizes[ndim - 1] > 0) {
        offset = (sizes[ndim - 1] - 1) * strides[ndim - 1];
        strides[ndim - 1] = -strides[ndim - 1];
    }
    int64_t elems = (layout == 2 ? 2 : 1) * (numel > 0 ? numel : 1);
    th_storage *s = th_storage_new(elems * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *t = th_tensor_new_with_storage(dt, s, offset, ndim, sizes, strides);
    th_storage_release(s);
    return t;
}

static th_tensor *as_f64(const th_tensor *t)
{
    th_tensor *c = view_new(TH_F64, th_tensor_ndim(t), th_tensor_sizes(t), 0);
    th_tensor_copy(c, t);
    return c;
}

static void fill_random(th_tensor *t, double lo, double hi)
{
    th_tensor *c = view_new(TH_F64, th_tensor_ndim(t), th_tensor_sizes(t), 0);
    double *p = (double *)th_tensor_data(c);
    for (int64_t i = 0; i < th_tensor_numel(c); i++) p[i] = lo + (hi - lo) * rnd();
    th_tensor_copy(t, c);
    th_tensor_release(c);
}

/* ---- the references, in double, from f64 copies of the (rounded) inputs ---- */

static double gate(int op, double a, double b)
{
    switch (op) {
    case OP_GLU: return a * (1.0 / (1.0 + exp(-b)));
    case OP_SWIGLU: return a * (1.0 / (1.0 + exp(-a))) * b;
    case OP_GEGLU: return a * 0.5 * (1.0 + erf(a / sqrt(2.0))) * b;
    default: return 0.5 * a * (1.0 + tanh(sqrt(2.0 / 3.14159265358979323846) * (a + 0.044715 * pow(a, 3)))) * b;
    }
}

/* x64 contiguous; the result a new contiguous f64 tensor. */
static th_tensor *reference(int op, const th_tensor *x64, int64_t g, const th_tensor *m, const th_tensor *v,
                            const th_tensor *w, const th_tensor *b, double eps)
{
    int ndim = th_tensor_ndim(x64);
    const int64_t *sz = th_tensor_sizes(x64);
    const double *x = (const double *)th_tensor_data(x64);
    const double *mp = m ? (const double *)th_tensor_data(m) : NULL, *vp = v ? (const double *)th_tensor_data(v) : NULL;
    const double *wp = w ? (const double *)th_tensor_data(w) : NULL, *bp = b ? (const double *)th_tensor_data(b) : NULL;
    if (op == OP_GROUP || op == OP_BATCH) {
        th_tensor *r = view_new(TH_F64, ndim, sz, 0);
        double *y = (double *)th_tensor_data(r);
        int64_t n = sz[0], c = sz[1], inner = 1;
        for (int d = 2; d < ndim; d++) inner *= sz[d];
        int64_t per = op == OP_GROUP ? c / g : 1;
        for (int64_t u = 0; u < n * c / per; u++) {
            const double *xu = x + u * per * inner;
            double mean = 0, var = 0, len = (double)(per * inner);
            for (int64_t i = 0; i < per * inner; i++) mean += xu[i];
            mean /= len;
            for (int64_t i = 0; i < per * inner; i++) var += (xu[i] - mean) * (xu[i] - mean);
            var /= len;
            for (int64_t k = 0; k < per; k++) {
                int64_t ch = (u * per + k) % c;
                double mu = op == OP_GROUP ? mean : mp[ch], sd = sqrt((op == OP_GROUP ? var : vp[ch]) + eps);
                for (int64_t i = 0; i < inner; i++) {
                    double val = (xu[k * inner + i] - mu) / sd;
                    if (wp) val *= wp[ch];
                    if (bp) val += bp[ch];
                    y[u * per * inner + k * inner + i] = val;
                }
            }
        }
        return r;
    }
    int d = (int)(g < 0 ? g + ndim : g);
    int64_t rs[TH_MAX_DIMS], outer = 1, inner = 1;
    for (int i = 0; i < ndim; i++) rs[i] = sz[i];
    rs[d] /= 2;
    for (int i = 0; i < d; i++) outer *= sz[i];
    for (int i = d + 1; i < ndim; i++) inner *= sz[i];
    th_tensor *r = view_new(TH_F64, ndim, rs, 0);
    double *y = (double *)th_tensor_data(r);
    int64_t len = rs[d] * inner;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < len; j++) y[o * len + j] = gate(op, x[o * 2 * len + j], x[o * 2 * len + len + j]);
    return r;
}

/* got within tol(dt) * max(1, |want|) of want everywhere (NaN where want is NaN). */
static double worst_err(const th_tensor *got, const th_tensor *want)
{
    th_tensor *g = as_f64(got);
    const double *a = (const double *)th_tensor_data(g), *b = (const double *)th_tensor_data(want);
    double w = 0;
    for (int64_t i = 0; i < th_tensor_numel(want); i++) {
        double e = isnan(b[i]) ? (isnan(a[i]) ? 0 : INFINITY) : fabs(a[i] - b[i]) / (fabs(b[i]) > 1 ? fabs(b[i]) : 1);
        if (!(e <= w)) w = e;
    }
    th_tensor_release(g);
    return w;
}

static double tol(th_dtype dt)
{
    /* one rounding of a result computed in double (half an ulp), with room for the f64 path's few roundings */
    return dt == TH_F64 ? 0x1p-48 : dt == TH_F32 ? 0x1p-23 : dt == TH_F16 ? 0x1p-10 : 0x1p-7;
}

static bool same_bits(const th_tensor *a, const th_tensor *b)
{
    th_tensor *x = as_f64(a), *y = as_f64(b);
    bool same = th_tensor_numel(x) == th_tensor_numel(y) &&
                memcmp(th_tensor_data(x), th_tensor_data(y), (size_t)th_tensor_numel(x) * sizeof(double)) == 0;
    th_tensor_release(x);
    th_tensor_release(y);
    return same;
}

/* ---- random cases: every op, dtype and layout, new results and outs ---- */

static void test_random(void)
{
    static const int64_t shapes[6][4] = {{2, 6, 5, 3}, {3, 4, 7, 0}, {1, 8, 0, 0}, {4, 6, 3, 2}, {2, 2, 1, 9}, {5, 3, 0, 0}};
    static const int ndims[6] = {4, 3, 2, 4, 4, 2};
    int cases = 0;
    double worst[OP_COUNT][4] = {{0}};
    for (int op = 0; op < OP_COUNT; op++)
        for (int di = 0; di < 4; di++)
            for (int si = 0; si < 6; si++) {
                th_dtype dt = dtypes[di];
                int ndim = ndims[si];
                const int64_t *sz = shapes[si];
                int layout = (si + op) % 4;
                int64_t c = sz[1], g;
                if (op == OP_GROUP) g = c % 2 ? (si % 2 ? 1 : c) : c / 2;
                else if (op == OP_BATCH) g = 0;
                else { /* a dim of even size, counted from either end */
                    int d = 0;
                    while (d < ndim && sz[d] % 2) d++;
                    if (d == ndim) continue;
                    g = si % 2 ? d - ndim : d;
                }
                th_tensor *x = view_new(dt, ndim, sz, layout);
                fill_random(x, -3, 3);
                bool norm = op <= OP_BATCH;
                bool has_w = norm && si % 3 != 2, has_b = norm && si % 2 == 0;
                th_tensor *m = NULL, *v = NULL, *w = NULL, *b = NULL;
                if (op == OP_BATCH) {
                    m = view_new(dt, 1, &c, (layout + 1) % 4);
                    v = view_new(dt, 1, &c, (layout + 2) % 4);
                    fill_random(m, -1, 1);
                    fill_random(v, 0.1, 3);
                }
                if (has_w) w = view_new(dt, 1, &c, (layout + 3) % 4), fill_random(w, -2, 2);
                if (has_b) b = view_new(dt, 1, &c, layout), fill_random(b, -1, 1);
                double eps = si % 2 ? 1e-5 : 0.1;
                th_tensor *x64 = as_f64(x), *m64 = m ? as_f64(m) : NULL, *v64 = v ? as_f64(v) : NULL;
                th_tensor *w64 = w ? as_f64(w) : NULL, *b64 = b ? as_f64(b) : NULL;
                th_tensor *want = reference(op, x64, g, m64, v64, w64, b64, eps);
                th_tensor *y = call(op, dt, NULL, x, g, m, v, w, b, eps);
                th_tensor *o = view_new(dt, th_tensor_ndim(want), th_tensor_sizes(want), (layout + 1) % 4);
                th_tensor *yo = call(op, dt, o, x, g, m, v, w, b, eps);
                CHECK(y != NULL && yo == o);
                for (int k = 0; k < 2; k++) {
                    const th_tensor *got = k ? yo : y;
                    if (!got) continue;
                    double e = worst_err(got, want);
                    if (!(e <= tol(dt)))
                        fprintf(stderr, "nn_layers: %s %s shape %d (%s): error %g\n", op_names[op],
                                th_dtype_name(dt), si, k ? "out" : "new", e);
                    CHECK(e <= tol(dt));
                    if (e > worst[op][di]) worst[op][di] = e;
                }
                /* in place: the norms write over x itself */
                if (norm) {
                    th_tensor *xi = view_new(dt, ndim, sz, layout);
                    th_tensor_copy(xi, x);
                    CHECK(call(op, dt, xi, xi, g, m, v, w, b, eps) == xi && same_bits(xi, y));
                    th_tensor_release(xi);
                }
                th_tensor *all[] = {x, m, v, w, b, x64, m64, v64, w64, b64, want, y, o};
                for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) th_tensor_release(all[k]);
                cases++;
            }
    printf("nn_layers: %d random cases against the double reference; worst error / max(1, |ref|):\n", cases);
    for (int op = 0; op < OP_COUNT; op++)
        printf("  %-11s f32 %.3g  f64 %.3g  f16 %.3g  bf16 %.3g\n", op_names[op], worst[op][0], worst[op][1],
               worst[op][2], worst[op][3]);
    CHECK(cases >= 120);
}

/* ---- known values ---- */

static void test_values(void)
{
    /* group_norm of one group of [1 2 3 4]: mean 2.5, var 1.25 */
    th_f64_tensor *x = th_f64_empty(3, SZ(1, 2, 2));
    double *xp = th_f64_data(x);
    for (int i = 0; i < 4; i++) xp[i] = i + 1;
    th_f64_tensor *y = th_f64_group_norm(x, 1, NULL, NULL, 0.0);
    CHECK(y && fabs(th_f64_data(y)[0] + 1.5 / sqrt(1.25)) < 1e-15 && fabs(th_f64_data(y)[3] - 1.5 / sqrt(1.25)) < 1e-15);
    /* two groups: each channel alone: [-1 1] */
    th_f64_tensor *y2 = th_f64_group_norm(x, 2, NULL, NULL, 0.0);
    CHECK(y2 && th_f64_data(y2)[0] == -1.0 && th_f64_data(y2)[1] == 1.0 && th_f64_data(y2)[2] == -1.0);
    /* batch_norm: (x - 1) / sqrt(4) * 3 + 0.5 on channel 0 */
    th_f64_tensor *m = th_f64_full(1, SZ(2), 1.0), *v = th_f64_full(1, SZ(2), 4.0), *w = th_f64_full(1, SZ(2), 3.0);
    th_f64_tensor *b = th_f64_full(1, SZ(2), 0.5);
    th_f64_tensor *bn = th_f64_batch_norm(x, m, v, w, b, 0.0);
    CHECK(bn && th_f64_data(bn)[1] == 0.5 * 3 + 0.5 && th_f64_data(bn)[3] == 1.5 * 3 + 0.5);
    /* glu of [1 2 | 0 0] along the last dim: a * 0.5 */
    th_f64_tensor *gx = th_f64_zeros(1, SZ(4));
    th_f64_data(gx)[0] = 1, th_f64_data(gx)[1] = 2;
    th_f64_tensor *gl = th_f64_glu(gx, -1), *sw = th_f64_swiglu(gx, 0), *ge = th_f64_geglu(gx, 0, false);
    CHECK(gl && th_f64_numel(gl) == 2 && th_f64_data(gl)[0] == 0.5 && th_f64_data(gl)[1] == 1.0);
    CHECK(sw && th_f64_data(sw)[0] == 0.0 && ge && th_f64_data(ge)[1] == 0.0); /* b is 0 */
    /* swiglu and geglu of [a | 1]: silu(a) and gelu(a) */
    th_f64_data(gx)[2] = 1, th_f64_data(gx)[3] = 1;
    th_f64_tensor *sw1 = th_f64_swiglu(gx, 0), *ge1 = th_f64_geglu(gx, 0, false), *gt1 = th_f64_geglu(gx, 0, true);
    CHECK(sw1 && fabs(th_f64_data(sw1)[0] - 1.0 / (1.0 + exp(-1.0))) < 1e-16);
    CHECK(ge1 && fabs(th_f64_data(ge1)[1] - 2 * 0.5 * (1 + erf(2 / sqrt(2.0)))) < 1e-15);
    CHECK(gt1 && fabs(th_f64_data(gt1)[1] - th_f64_data(ge1)[1]) < 1e-3 && th_f64_data(gt1)[1] != th_f64_data(ge1)[1]);
    /* geglu deep in GELU's tail: erfc's argument rounding put back (relative error of a few ulps) */
    th_f64_data(gx)[0] = -30, th_f64_data(gx)[1] = -8;
    th_f64_tensor *tail = th_f64_geglu(gx, 0, false);
    double want0 = -1.472014178144456e-196, want1 = -4.976768459417427e-15; /* a * Phi(a), mpmath, 40 digits */
    CHECK(tail && fabs(th_f64_data(tail)[0] / want0 - 1) < 1e-13 && fabs(th_f64_data(tail)[1] / want1 - 1) < 1e-13);
    /* special values: glu with b = -inf is 0, b = +inf is a; swiglu of a = -inf is NaN as torch's silu */
    th_f64_tensor *sx = th_f64_empty(1, SZ(4));
    double *sp = th_f64_data(sx);
    sp[0] = 3, sp[1] = 3, sp[2] = -INFINITY, sp[3] = INFINITY;
    th_f64_tensor *sg = th_f64_glu(sx, 0);
    CHECK(sg && th_f64_data(sg)[0] == 0.0 && th_f64_data(sg)[1] == 3.0);
    /* empty: N = 0 and a halved dim of 0 */
    th_f32_tensor *e = th_f32_empty(3, SZ(0, 4, 3)), *e2 = th_f32_empty(2, SZ(3, 0));
    th_f32_tensor *eg = th_f32_group_norm(e, 2, NULL, NULL, 1e-5), *ee = th_f32_glu(e2, 1);
    CHECK(eg && th_f32_numel(eg) == 0 && th_f32_size(eg, 1) == 4 && ee && th_f32_size(ee, 1) == 0);
    th_f64_tensor *rel[] = {x, y, y2, m, v, w, b, bn, gx, gl, sw, ge, sw1, ge1, gt1, tail, sx, sg};
    for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_f64_release(rel[k]);
    th_f32_release(e);
    th_f32_release(e2);
    th_f32_release(eg);
    th_f32_release(ee);
}

/* ---- 1 and 2 threads give the same bits (enough work to be split) ---- */

static void test_threads(void)
{
    for (int di = 0; di < 4; di++)
        for (int op = 0; op < OP_COUNT; op++) {
            th_dtype dt = dtypes[di];
            th_tensor *x = view_new(dt, 3, SZ(8, 16, 1200), 0);
            fill_random(x, -3, 3);
            int64_t c = 16;
            th_tensor *p = view_new(dt, 1, &c, 0);
            fill_random(p, 0.5, 2);
            int64_t g = op == OP_GROUP ? 4 : op == OP_BATCH ? 0 : 2;
            th_tensor *y[2];
            for (int t = 0; t < 2; t++) {
                test_set_threads(t + 1);
                y[t] = call(op, dt, NULL, x, g, p, p, p, p, 1e-5);
            }
            CHECK(y[0] && y[1] && same_bits(y[0], y[1]));
            th_tensor_release(y[0]);
            th_tensor_release(y[1]);
            th_tensor_release(x);
            th_tensor_release(p);
        }
    test_set_threads(1);
}

/* ---- every error ---- */

static void test_errors(void)
{
    th_f32_tensor *x = th_f32_zeros(3, SZ(2, 4, 3)), *c4 = th_f32_ones(1, SZ(4)), *c3 = th_f32_ones(1, SZ(3));
    th_f32_tensor *v1 = th_f32_zeros(1, SZ(4)), *o = th_f32_empty(3, SZ(2, 4, 3)), *bad = th_f32_empty(2, SZ(2, 4));
    th_f64_tensor *d = th_f64_zeros(1, SZ(4));
    CHECK_NULL(th_f32_group_norm(NULL, 2, NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_group_norm", "NULL x");
    CHECK_NULL(th_f32_group_norm(c4, 2, NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_group_norm", "x has shape (4) (1 dims); group_norm takes (N, C, *)");
    CHECK_NULL(th_f32_group_norm(x, 0, NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_group_norm", "num_groups is 0");
    CHECK_NULL(th_f32_group_norm(x, -2, NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_group_norm", "num_groups is -2");
    CHECK_NULL(th_f32_group_norm(x, 3, NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_group_norm", "num_groups 3 does not divide x's 4 channels");
    CHECK_NULL(th_f32_group_norm(x, 2, c3, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_group_norm", "weight has shape (3); x's 4 channels need (4)");
    CHECK_NULL(th_f32_group_norm(x, 2, c4, bad, 1e-5), TH_ERR_SHAPE, "th_f32_group_norm", "bias has shape (2, 4)");
    CHECK_NULL(th_f32_group_norm(x, 2, NULL, NULL, -1), TH_ERR_INVALID, "th_f32_group_norm", "eps -1 is not a finite number >= 0");
    CHECK_NULL(th_f32_group_norm(x, 2, NULL, NULL, NAN), TH_ERR_INVALID, "th_f32_group_norm", "eps nan");
    CHECK_NULL(th_f32_group_norm(x, 2, (th_f32_tensor *)d, NULL, 1e-5), TH_ERR_DTYPE, "th_f32_group_norm", "weight is f64, not f32");
    CHECK_NULL(th_f32_group_norm(x, 2, NULL, (th_f32_tensor *)d, 1e-5), TH_ERR_DTYPE, "th_f32_group_norm", "bias is f64");
    CHECK_FAILS(th_f32_group_norm_out(NULL, x, 2, NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_group_norm_out", "NULL out");
    CHECK_FAILS(th_f32_group_norm_out(bad, x, 2, NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_group_norm_out", "out has shape");
    CHECK_FAILS(th_f32_group_norm_out((th_f32_tensor *)d, x, 2, NULL, NULL, 1e-5), TH_ERR_DTYPE, "th_f32_group_norm_out", "out is f64");
    CHECK_NULL(th_f32_batch_norm(NULL, c4, v1, NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_batch_norm", "NULL x");
    CHECK_NULL(th_f32_batch_norm(x, NULL, v1, NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_batch_norm", "NULL running_mean");
    CHECK_NULL(th_f32_batch_norm(x, c4, NULL, NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_batch_norm", "NULL running_var");
    CHECK_NULL(th_f32_batch_norm(c4, c4, v1, NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_batch_norm", "batch_norm takes (N, C, *)");
    CHECK_NULL(th_f32_batch_norm(x, c3, v1, NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_batch_norm", "running_mean has shape (3)");
    CHECK_NULL(th_f32_batch_norm(x, c4, c3, NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_batch_norm", "running_var has shape (3)");
    CHECK_NULL(th_f32_batch_norm(x, c4, v1, c3, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_batch_norm", "weight has shape (3)");
    CHECK_NULL(th_f32_batch_norm(x, c4, v1, NULL, c3, 1e-5), TH_ERR_SHAPE, "th_f32_batch_norm", "bias has shape (3)");
    CHECK_NULL(th_f32_batch_norm(x, c4, v1, NULL, NULL, INFINITY), TH_ERR_INVALID, "th_f32_batch_norm", "eps inf");
    CHECK_NULL(th_f32_batch_norm(x, (th_f32_tensor *)d, v1, NULL, NULL, 1e-5), TH_ERR_DTYPE, "th_f32_batch_norm", "running_mean is f64");
    CHECK_NULL(th_f32_batch_norm(x, c4, (th_f32_tensor *)d, NULL, NULL, 1e-5), TH_ERR_DTYPE, "th_f32_batch_norm", "running_var is f64");
    CHECK_FAILS(th_f32_batch_norm_out(NULL, x, c4, v1, NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_batch_norm_out", "NULL out");
    CHECK_FAILS(th_f32_batch_norm_out(bad, x, c4, v1, NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_batch_norm_out", "out has shape");
    /* a running_var below -eps: NaN, as PyTorch */
    th_f32_fill(v1, -1.0f);
    th_f32_tensor *nan = th_f32_batch_norm(x, c4, v1, NULL, NULL, 1e-5);
    CHECK(nan && isnan(th_f32_data(nan)[0]));
    th_f32_release(nan);
    /* the gated units */
    th_f32_tensor *odd = th_f32_zeros(2, SZ(2, 3)), *s0 = th_f32_zeros(0, NULL), *g2 = th_f32_empty(2, SZ(2, 2));
    CHECK_NULL(th_f32_glu(NULL, 0), TH_ERR_INVALID, "th_f32_glu", "NULL x");
    CHECK_NULL(th_f32_glu(odd, 1), TH_ERR_SHAPE, "th_f32_glu", "dim 1 of x has size 3, which is odd; glu halves it");
    CHECK_NULL(th_f32_swiglu(odd, -1), TH_ERR_SHAPE, "th_f32_swiglu", "dim 1 of x has size 3, which is odd; swiglu");
    CHECK_NULL(th_f32_geglu(odd, 1, true), TH_ERR_SHAPE, "th_f32_geglu", "which is odd; geglu halves it");
    CHECK_NULL(th_f32_glu(odd, 2), TH_ERR_RANGE, "th_f32_glu", "dim 2");
    CHECK_NULL(th_f32_swiglu(odd, -3), TH_ERR_RANGE, "th_f32_swiglu", "dim -3");
    CHECK_NULL(th_f32_geglu(s0, 0, false), TH_ERR_SHAPE, "th_f32_geglu", "x is 0-d; geglu halves a dim");
    CHECK_NULL(th_f32_glu((th_f32_tensor *)d, 0), TH_ERR_DTYPE, "th_f32_glu", "x is f64");
    CHECK_FAILS(th_f32_glu_out(NULL, odd, 0), TH_ERR_INVALID, "th_f32_glu_out", "NULL out");
    CHECK_FAILS(th_f32_swiglu_out(NULL, odd, 0), TH_ERR_INVALID, "th_f32_swiglu_out", "NULL out");
    CHECK_FAILS(th_f32_geglu_out(NULL, odd, 0, false), TH_ERR_INVALID, "th_f32_geglu_out", "NULL out");
    CHECK_FAILS(th_f32_glu_out(g2, odd, 0), TH_ERR_SHAPE, "th_f32_glu_out", "out has shape (2, 2)");
    CHECK_FAILS(th_f32_swiglu_out((th_f32_tensor *)d, odd, 0), TH_ERR_DTYPE, "th_f32_swiglu_out", "out is f64");
    /* an out that overlaps x otherwise than exactly is read from a copy: glu of x into its own first half */
    th_f32_tensor *ov = th_f32_empty(2, SZ(2, 4));
    for (int i = 0; i < 8; i++) th_f32_data(ov)[i] = (float)i;
    th_f32_tensor *want = th_f32_glu(ov, 1), *half = th_f32_narrow(ov, 1, 0, 2);
    CHECK(th_f32_glu_out(half, ov, 1) == TH_OK && want);
    for (int i = 0; want && i < 2; i++)
        for (int j = 0; j < 2; j++) CHECK(th_f32_data(ov)[i * 4 + j] == th_f32_data(want)[i * 2 + j]);
    /* a read-only out */
    th_storage *s = th_storage_new(24 * sizeof(float), NULL, NULL);
    th_storage_make_read_only(s);
    th_f32_tensor *rot = (th_f32_tensor *)th_tensor_new_with_storage(TH_F32, s, 0, 3, SZ(2, 4, 3), NULL);
    th_storage_release(s);
    CHECK_FAILS(th_f32_group_norm_out(rot, x, 2, NULL, NULL, 1e-5), TH_ERR_READ_ONLY, "th_f32_group_norm_out", "");
    th_f32_tensor *rel[] = {x, c4, c3, v1, o, bad, odd, s0, g2, ov, want, half, rot};
    for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_f32_release(rel[k]);
    th_f64_release(d);
}

/* ---- embedding and rope ---- */

#define ROPE_CALL(sfx)                                                                                         \
    do {                                                                                                       \
        typedef th_##sfx##_tensor T;                                                                           \
        r = out ? (th_##sfx##_rope_out((T *)out, (const T *)x, (const T *)c, (const T *)s, layout) ? NULL : out) \
                : (th_tensor *)th_##sfx##_rope((const T *)x, (const T *)c, (const T *)s, layout);             \
    } while (0)

static th_tensor *rope(th_dtype dt, th_tensor *out, const th_tensor *x, const th_tensor *c, const th_tensor *s,
                       th_rope_layout layout)
{
    th_tensor *r = NULL;
    switch (dt) {
    case TH_F32: ROPE_CALL(f32); break;
    case TH_F64: ROPE_CALL(f64); break;
    case TH_F16: ROPE_CALL(f16); break;
    default: ROPE_CALL(bf16);
    }
    return r;
}

/* rope's reference in double: x64 (..., d) contiguous, c64 and s64 contiguous (rows of h) broadcast as row
 * index crow(row) = the position along dim pos_dim of x (the tables are (L, h) or (L, 1, h)). */
static th_tensor *rope_ref(const th_tensor *x64, const th_tensor *c64, const th_tensor *s64, int pos_dim, bool inter)
{
    int nd = th_tensor_ndim(x64);
    const int64_t *sz = th_tensor_sizes(x64);
    th_tensor *r = view_new(TH_F64, nd, sz, 0);
    const double *x = (const double *)th_tensor_data(x64), *c = (const double *)th_tensor_data(c64);
    const double *sn = (const double *)th_tensor_data(s64);
    double *y = (double *)th_tensor_data(r);
    int64_t d = sz[nd - 1], h = th_tensor_sizes(c64)[th_tensor_ndim(c64) - 1], rows = th_tensor_numel(x64) / d;
    int64_t inner = 1;
    for (int k = pos_dim + 1; k < nd - 1; k++) inner *= sz[k];
    for (int64_t row = 0; row < rows; row++) {
        int64_t pos = (row / inner) % sz[pos_dim];
        for (int64_t i = 0; i < d; i++) y[row * d + i] = x[row * d + i];
        for (int64_t i = 0; i < h; i++) {
            int64_t i0 = inter ? 2 * i : i, i1 = inter ? 2 * i + 1 : i + h;
            double a = x[row * d + i0], b = x[row * d + i1], cv = c[pos * h + i], sv = sn[pos * h + i];
            y[row * d + i0] = a * cv - b * sv;
            y[row * d + i1] = b * cv + a * sv;
        }
    }
    return r;
}

static void test_rope(void)
{
    int cases = 0;
    for (int di = 0; di < 4; di++)
        for (int form = 0; form < 3; form++)
            for (int inter = 0; inter < 2; inter++) {
                th_dtype dt = dtypes[di];
                /* form 0: (B, H, L, d) with (L, h); 1: (B, L, H, d) with (L, 1, h); 2: (L, d), partial (2h < d) */
                int64_t L = 5, d = 8, h = form == 2 ? 3 : 4;
                int64_t xs[4] = {2, 3, L, d}, ts[3] = {L, h, 0};
                int nd = 4, tn = 2, pos_dim = 2;
                if (form == 1) xs[1] = L, xs[2] = 3, ts[1] = 1, ts[2] = h, tn = 3, pos_dim = 1;
                if (form == 2) xs[0] = L, xs[1] = d, nd = 2, pos_dim = 0;
                th_tensor *x = view_new(dt, nd, xs, (form + inter) % 4), *c = view_new(dt, tn, ts, form % 4),
                          *s = view_new(dt, tn, ts, (form + 1) % 4);
                fill_random(x, -3, 3);
                fill_random(c, -1, 1);
                fill_random(s, -1, 1);
                th_tensor *x64 = as_f64(x), *c64 = as_f64(c), *s64 = as_f64(s);
                th_tensor *want = rope_ref(x64, c64, s64, pos_dim, inter);
                th_rope_layout lay = inter ? TH_ROPE_INTERLEAVED : TH_ROPE_HALVES;
                th_tensor *y = rope(dt, NULL, x, c, s, lay);
                th_tensor *o = view_new(dt, nd, xs, (form + inter + 1) % 4);
                CHECK(y && rope(dt, o, x, c, s, lay) == o);
                /* the products cancel: error at the scale of |x| (up to 3) */
                if (y) CHECK(worst_err(y, want) <= 3 * tol(dt));
                CHECK(worst_err(o, want) <= 3 * tol(dt));
                /* in place */
                th_tensor *xi = view_new(dt, nd, xs, 0);
                th_tensor_copy(xi, x);
                CHECK(rope(dt, xi, xi, c, s, lay) == xi && y && same_bits(xi, y));
                th_tensor *rel[] = {x, c, s, x64, c64, s64, want, y, o, xi};
                for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_tensor_release(rel[k]);
                cases++;
            }
    /* known values: a quarter turn of (1, 2) in each layout */
    th_f64_tensor *x = th_f64_empty(1, SZ(4)), *c = th_f64_zeros(1, SZ(2)), *s = th_f64_ones(1, SZ(2));
    for (int i = 0; i < 4; i++) th_f64_data(x)[i] = i + 1;
    th_f64_tensor *yh = th_f64_rope(x, c, s, TH_ROPE_HALVES), *yi = th_f64_rope(x, c, s, TH_ROPE_INTERLEAVED);
    /* halves: pairs (1, 3), (2, 4) -> (-3, 1), (-4, 2); interleaved: (1, 2), (3, 4) -> (-2, 1), (-4, 3) */
    CHECK(yh && th_f64_data(yh)[0] == -3 && th_f64_data(yh)[1] == -4 && th_f64_data(yh)[2] == 1 && th_f64_data(yh)[3] == 2);
    CHECK(yi && th_f64_data(yi)[0] == -2 && th_f64_data(yi)[1] == 1 && th_f64_data(yi)[2] == -4 && th_f64_data(yi)[3] == 3);
    /* threads: the same bits */
    th_f32_tensor *big = th_f32_empty(3, SZ(64, 32, 128)), *bc = th_f32_empty(2, SZ(32, 64)), *bs = th_f32_empty(2, SZ(32, 64));
    fill_random((th_tensor *)big, -2, 2);
    fill_random((th_tensor *)bc, -1, 1);
    fill_random((th_tensor *)bs, -1, 1);
    th_f32_tensor *r[2];
    for (int t = 0; t < 2; t++) {
        test_set_threads(t + 1);
        r[t] = th_f32_rope(big, bc, bs, TH_ROPE_INTERLEAVED);
    }
    test_set_threads(1);
    CHECK(r[0] && r[1] && same_bits((th_tensor *)r[0], (th_tensor *)r[1]));
    th_f32_tensor *rel[] = {big, bc, bs, r[0], r[1]};
    for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_f32_release(rel[k]);
    th_f64_tensor *rel64[] = {x, c, s, yh, yi};
    for (size_t k = 0; k < sizeof rel64 / sizeof rel64[0]; k++) th_f64_release(rel64[k]);
    printf("nn_layers: %d rope cases against the double reference\n", cases);
}

static void test_embedding(void)
{
    /* weight (5, 3): row i is 10 i + j; indices (2, 2) transposed */
    th_f32_tensor *w = th_f32_empty(2, SZ(5, 3));
    for (int i = 0; i < 15; i++) th_f32_data(w)[i] = (float)(10 * (i / 3) + i % 3);
    th_i64_tensor *ix = th_i64_empty(2, SZ(2, 2));
    int64_t iv[4] = {4, 0, 2, 4};
    memcpy(th_i64_data(ix), iv, sizeof iv);
    th_i64_tensor *it = th_i64_transpose(ix, 0, 1); /* [[4, 2], [0, 4]] */
    th_f32_tensor *e = th_f32_embedding(w, it);
    CHECK(e && th_f32_ndim(e) == 3 && th_f32_size(e, 2) == 3);
    int64_t want[4] = {4, 2, 0, 4};
    for (int k = 0; e && k < 4; k++)
        for (int j = 0; j < 3; j++) CHECK(th_f32_data(e)[k * 3 + j] == (float)(10 * want[k] + j));
    /* every dtype, a transposed weight, into a stepped out */
    for (int di = 0; di < 4; di++) {
        th_tensor *wt = view_new(dtypes[di], 2, SZ(5, 3), 1), *o = view_new(dtypes[di], 3, SZ(2, 2, 3), 2);
        th_tensor_copy(wt, (th_tensor *)w);
        int st = dtypes[di] == TH_F32 ? th_f32_embedding_out((th_f32_tensor *)o, (th_f32_tensor *)wt, it)
               : dtypes[di] == TH_F64 ? th_f64_embedding_out((th_f64_tensor *)o, (th_f64_tensor *)wt, it)
               : dtypes[di] == TH_F16 ? th_f16_embedding_out((th_f16_tensor *)o, (th_f16_tensor *)wt, it)
                                      : th_bf16_embedding_out((th_bf16_tensor *)o, (th_bf16_tensor *)wt, it);
        CHECK(st == TH_OK && e && same_bits(o, (th_tensor *)e));
        th_tensor_release(wt);
        th_tensor_release(o);
    }
    /* 0-d indices give one row; empty indices an empty result */
    th_i64_tensor *i0 = th_i64_full(0, NULL, 3), *ie = th_i64_empty(1, SZ(0));
    th_f32_tensor *e0 = th_f32_embedding(w, i0), *ee = th_f32_embedding(w, ie);
    CHECK(e0 && th_f32_ndim(e0) == 1 && th_f32_data(e0)[2] == 32.0f);
    CHECK(ee && th_f32_ndim(ee) == 2 && th_f32_size(ee, 0) == 0 && th_f32_size(ee, 1) == 3);
    /* errors: nothing is written when an index is out of range */
    th_f32_tensor *o = th_f32_full(3, SZ(2, 2, 3), 7.0f);
    th_i64_tensor *bad = th_i64_empty(1, SZ(3));
    th_i64_data(bad)[0] = 1, th_i64_data(bad)[1] = 5, th_i64_data(bad)[2] = -1;
    CHECK_NULL(th_f32_embedding(w, bad), TH_ERR_RANGE, "th_f32_embedding",
               "index 5 (element 1 of indices) is out of range for weight's 5 rows");
    th_i64_data(bad)[1] = 0;
    CHECK_NULL(th_f32_embedding(w, bad), TH_ERR_RANGE, "th_f32_embedding", "index -1 (element 2 of indices)");
    th_i64_data(ix)[3] = 9;
    CHECK_FAILS(th_f32_embedding_out(o, w, it), TH_ERR_RANGE, "th_f32_embedding_out", "index 9");
    CHECK(th_f32_data(o)[0] == 7.0f && th_f32_data(o)[11] == 7.0f);
    CHECK_NULL(th_f32_embedding(NULL, ix), TH_ERR_INVALID, "th_f32_embedding", "NULL weight");
    CHECK_NULL(th_f32_embedding(w, NULL), TH_ERR_INVALID, "th_f32_embedding", "NULL indices");
    CHECK_NULL(th_f32_embedding(w, (th_i64_tensor *)w), TH_ERR_DTYPE, "th_f32_embedding", "indices is f32, not i64");
    CHECK_NULL(th_f32_embedding(e0, ix), TH_ERR_SHAPE, "th_f32_embedding",
               "weight has shape (3) (1 dims); embedding takes (num_embeddings, dim)");
    CHECK_FAILS(th_f32_embedding_out(NULL, w, ix), TH_ERR_INVALID, "th_f32_embedding_out", "NULL out");
    CHECK_FAILS(th_f32_embedding_out(o, w, i0), TH_ERR_SHAPE, "th_f32_embedding_out", "out has shape (2, 2, 3)");
    th_i64_tensor *deep = th_i64_zeros(TH_MAX_DIMS, (const int64_t[TH_MAX_DIMS]){1});
    CHECK_NULL(th_f32_embedding(w, deep), TH_ERR_SHAPE, "th_f32_embedding", "over TH_MAX_DIMS");
    th_f32_tensor *rel[] = {w, e, e0, ee, o};
    for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_f32_release(rel[k]);
    th_i64_tensor *reli[] = {ix, it, i0, ie, bad, deep};
    for (size_t k = 0; k < sizeof reli / sizeof reli[0]; k++) th_i64_release(reli[k]);

    /* rope's errors */
    th_f32_tensor *x = th_f32_zeros(2, SZ(3, 4)), *c = th_f32_zeros(2, SZ(3, 2)), *c1 = th_f32_zeros(1, SZ(2));
    th_f32_tensor *c3 = th_f32_zeros(2, SZ(3, 3)), *cb = th_f32_zeros(2, SZ(2, 2)), *x0 = th_f32_zeros(0, NULL);
    th_f32_tensor *c4 = th_f32_zeros(3, SZ(1, 3, 2));
    CHECK_NULL(th_f32_rope(NULL, c, c, TH_ROPE_HALVES), TH_ERR_INVALID, "th_f32_rope", "NULL x");
    CHECK_NULL(th_f32_rope(x, NULL, c, TH_ROPE_HALVES), TH_ERR_INVALID, "th_f32_rope", "NULL cosines");
    CHECK_NULL(th_f32_rope(x, c, NULL, TH_ROPE_HALVES), TH_ERR_INVALID, "th_f32_rope", "NULL sines");
    CHECK_NULL(th_f32_rope(x, c, c, (th_rope_layout)7), TH_ERR_INVALID, "th_f32_rope", "layout 7 is no th_rope_layout");
    CHECK_NULL(th_f32_rope(x0, c1, c1, TH_ROPE_HALVES), TH_ERR_SHAPE, "th_f32_rope", "x is 0-d");
    CHECK_NULL(th_f32_rope(x, c, c1, TH_ROPE_HALVES), TH_ERR_SHAPE, "th_f32_rope",
               "cosines have shape (3, 2) and sines (2); they must be the same");
    CHECK_NULL(th_f32_rope(x, c3, c3, TH_ROPE_INTERLEAVED), TH_ERR_SHAPE, "th_f32_rope",
               "cosines have shape (3, 3); for x of shape (3, 4) they must be (..., h) with 2h <= 4");
    CHECK_NULL(th_f32_rope(x, c4, c4, TH_ROPE_HALVES), TH_ERR_SHAPE, "th_f32_rope", "at most 2 dims");
    CHECK_NULL(th_f32_rope(x, cb, cb, TH_ROPE_HALVES), TH_ERR_SHAPE, "th_f32_rope",
               "cosines have shape (2, 2), which does not broadcast against x's (3, 4) (dim 0: 2, not 3)");
    th_f64_tensor *cd = th_f64_zeros(2, SZ(3, 2));
    CHECK_NULL(th_f32_rope(x, (th_f32_tensor *)cd, c, TH_ROPE_HALVES), TH_ERR_DTYPE, "th_f32_rope", "cosines is f64, not f32");
    CHECK_NULL(th_f32_rope(x, c, (th_f32_tensor *)cd, TH_ROPE_HALVES), TH_ERR_DTYPE, "th_f32_rope", "sines is f64");
    th_f64_release(cd);
    CHECK_FAILS(th_f32_rope_out(NULL, x, c, c, TH_ROPE_HALVES), TH_ERR_INVALID, "th_f32_rope_out", "NULL out");
    CHECK_FAILS(th_f32_rope_out(c, x, c, c, TH_ROPE_HALVES), TH_ERR_SHAPE, "th_f32_rope_out", "out has shape (3, 2)");
    /* a table of one row broadcasts over every position; (2) alone too */
    th_f32_tensor *ok = th_f32_rope(x, c1, c1, TH_ROPE_HALVES);
    CHECK(ok != NULL);
    th_f32_tensor *relr[] = {x, c, c1, c3, cb, x0, c4, ok};
    for (size_t k = 0; k < sizeof relr / sizeof relr[0]; k++) th_f32_release(relr[k]);
}

/* ---- nll_loss and cross_entropy ---- */

static void test_losses(void)
{
    /* cross_entropy of logits [1, 0] against class 0: lse - 1, lse = log(1 + e); label smoothing 0.5 gives
     * 0.5 (lse - 1) + 0.25 (2 lse - 1) = lse - 0.75 */
    th_f64_tensor *x = th_f64_empty(1, SZ(2));
    th_f64_data(x)[0] = 1, th_f64_data(x)[1] = 0;
    th_i64_tensor *t0 = th_i64_zeros(0, NULL);
    double lse = log(1 + exp(1.0));
    th_f64_tensor *ce = th_f64_cross_entropy(x, t0, NULL, NULL);
    th_f64_tensor *ces = th_f64_cross_entropy(x, t0, NULL, &(th_loss_opts){.label_smoothing = 0.5});
    CHECK(ce && th_f64_ndim(ce) == 0 && fabs(th_f64_data(ce)[0] - (lse - 1)) < 1e-15);
    CHECK(ces && fabs(th_f64_data(ces)[0] - (lse - 0.75)) < 1e-15);
    /* nll_loss of (2, 3) log-probabilities, targets [0, 2], weights [1, 2, 3]: mean (x00 + 3 x12) / -(1 + 3) */
    th_f32_tensor *lp = th_f32_empty(2, SZ(2, 3)), *w = th_f32_empty(1, SZ(3));
    for (int i = 0; i < 6; i++) th_f32_data(lp)[i] = -(float)(i + 1) / 4;
    for (int i = 0; i < 3; i++) th_f32_data(w)[i] = (float)(i + 1);
    th_i64_tensor *t = th_i64_empty(1, SZ(2));
    th_i64_data(t)[0] = 0, th_i64_data(t)[1] = 2;
    th_f32_tensor *mean = th_f32_nll_loss(lp, t, w, NULL);
    th_f32_tensor *sum = th_f32_nll_loss(lp, t, w, &(th_loss_opts){.reduction = TH_REDUCTION_SUM});
    th_f32_tensor *none = th_f32_nll_loss(lp, t, NULL, &(th_loss_opts){.reduction = TH_REDUCTION_NONE});
    CHECK(mean && th_f32_data(mean)[0] == (0.25f + 3 * 1.5f) / 4);
    CHECK(sum && th_f32_data(sum)[0] == 0.25f + 3 * 1.5f);
    CHECK(none && th_f32_ndim(none) == 1 && th_f32_data(none)[0] == 0.25f && th_f32_data(none)[1] == 1.5f);
    /* ignore_index: the ignored target counts for nothing, in the loss and in the mean's divisor */
    th_loss_opts ig = {.use_ignore_index = true, .ignore_index = 2};
    th_f32_tensor *mi = th_f32_nll_loss(lp, t, w, &ig);
    CHECK(mi && th_f32_data(mi)[0] == 0.25f);
    ig.ignore_index = -100;
    th_i64_data(t)[0] = -100, th_i64_data(t)[1] = -100;
    th_f32_tensor *all = th_f32_cross_entropy(lp, t, NULL, &ig); /* every target ignored: 0 / 0 */
    CHECK(all && isnan(th_f32_data(all)[0]));
    ig.reduction = TH_REDUCTION_SUM;
    th_f32_tensor *all0 = th_f32_cross_entropy(lp, t, NULL, &ig);
    CHECK(all0 && th_f32_data(all0)[0] == 0.0f);
    /* (N, C, d) inputs: the class dim is 1; reduction none into a stepped out */
    th_f32_tensor *x3 = th_f32_empty(3, SZ(2, 3, 4));
    for (int i = 0; i < 24; i++) th_f32_data(x3)[i] = (float)((i * 7) % 5) - 2;
    th_i64_tensor *t3 = th_i64_empty(2, SZ(2, 4));
    for (int i = 0; i < 8; i++) th_i64_data(t3)[i] = i % 3;
    th_f32_tensor *o3 = (th_f32_tensor *)view_new(TH_F32, 2, SZ(2, 4), 2);
    CHECK(th_f32_cross_entropy_out(o3, x3, t3, NULL, &(th_loss_opts){.reduction = TH_REDUCTION_NONE}) == TH_OK);
    /* element (1, 2): logits x3[1, :, 2], target t3[1, 2] = 6 % 3 = 0 */
    double l12 = 0, m = -INFINITY;
    for (int k = 0; k < 3; k++) m = fmax(m, th_f32_data(x3)[12 + k * 4 + 2]);
    for (int k = 0; k < 3; k++) l12 += exp(th_f32_data(x3)[12 + k * 4 + 2] - m);
    l12 = m + log(l12) - th_f32_data(x3)[12 + 0 * 4 + 2];
    CHECK(fabs(th_f32_get(o3, SZ(1, 2)) - l12) < 1e-6);
    /* threads: the same bits */
    th_f32_tensor *bx = th_f32_empty(2, SZ(4000, 50));
    th_i64_tensor *bt = th_i64_empty(1, SZ(4000));
    fill_random((th_tensor *)bx, -5, 5);
    for (int i = 0; i < 4000; i++) th_i64_data(bt)[i] = (i * 13) % 50;
    th_f32_tensor *r[2];
    for (int k = 0; k < 2; k++) {
        test_set_threads(k + 1);
        r[k] = th_f32_cross_entropy(bx, bt, NULL, &(th_loss_opts){.label_smoothing = 0.1});
    }
    test_set_threads(1);
    CHECK(r[0] && r[1] && same_bits((th_tensor *)r[0], (th_tensor *)r[1]));

    /* errors */
    th_f32_tensor *s0 = th_f32_zeros(0, NULL), *w2 = th_f32_ones(1, SZ(2)), *o2 = th_f32_empty(1, SZ(2));
    th_i64_tensor *t1 = th_i64_zeros(1, SZ(3)), *tbad = th_i64_empty(1, SZ(2));
    th_i64_data(tbad)[0] = 1, th_i64_data(tbad)[1] = 3;
    CHECK_NULL(th_f32_nll_loss(NULL, t, NULL, NULL), TH_ERR_INVALID, "th_f32_nll_loss", "NULL input");
    CHECK_NULL(th_f32_cross_entropy(lp, NULL, NULL, NULL), TH_ERR_INVALID, "th_f32_cross_entropy", "NULL target");
    CHECK_NULL(th_f32_nll_loss(lp, t, NULL, &(th_loss_opts){.reduction = (th_reduction)5}), TH_ERR_INVALID,
               "th_f32_nll_loss", "reduction 5 is no th_reduction");
    CHECK_NULL(th_f32_cross_entropy(lp, t, NULL, &(th_loss_opts){.label_smoothing = 1.5}), TH_ERR_INVALID,
               "th_f32_cross_entropy", "label_smoothing 1.5 is not in [0, 1]");
    CHECK_NULL(th_f32_cross_entropy(lp, t, NULL, &(th_loss_opts){.label_smoothing = NAN}), TH_ERR_INVALID,
               "th_f32_cross_entropy", "label_smoothing nan");
    CHECK_NULL(th_f32_nll_loss(lp, t, NULL, &(th_loss_opts){.label_smoothing = 0.1}), TH_ERR_INVALID,
               "th_f32_nll_loss", "label_smoothing 0.1: nll_loss takes none (cross_entropy does)");
    CHECK_NULL(th_f32_cross_entropy(s0, t0, NULL, NULL), TH_ERR_SHAPE, "th_f32_cross_entropy",
               "input is 0-d; cross_entropy takes (C) or (N, C, *)");
    CHECK_NULL(th_f32_cross_entropy(lp, t1, NULL, NULL), TH_ERR_SHAPE, "th_f32_cross_entropy",
               "target has shape (3); input (2, 3) needs input's shape without dim 1");
    CHECK_NULL(th_f32_nll_loss(w, t1, NULL, NULL), TH_ERR_SHAPE, "th_f32_nll_loss", "needs a 0-d target");
    CHECK_NULL(th_f32_cross_entropy(lp, tbad, w2, NULL), TH_ERR_SHAPE, "th_f32_cross_entropy",
               "weight has shape (2); input's 3 classes need (3)");
    CHECK_NULL(th_f32_cross_entropy(lp, tbad, NULL, NULL), TH_ERR_RANGE, "th_f32_cross_entropy",
               "target 3 (element 1 of target) is out of range for 3 classes");
    CHECK_NULL(th_f32_nll_loss(lp, t, NULL, NULL), TH_ERR_RANGE, "th_f32_nll_loss", "target -100 (element 0 of target)");
    CHECK_NULL(th_f32_nll_loss(lp, t, NULL, &(th_loss_opts){.use_ignore_index = true, .ignore_index = 7}), TH_ERR_RANGE,
               "th_f32_nll_loss", "is out of range for 3 classes and is not ignore_index");
    CHECK_NULL(th_f32_nll_loss(lp, (th_i64_tensor *)lp, NULL, NULL), TH_ERR_DTYPE, "th_f32_nll_loss", "target is f32, not i64");
    CHECK_NULL(th_f32_nll_loss(lp, t, (th_f32_tensor *)x, NULL), TH_ERR_DTYPE, "th_f32_nll_loss", "weight is f64");
    CHECK_FAILS(th_f32_nll_loss_out(NULL, lp, t, NULL, NULL), TH_ERR_INVALID, "th_f32_nll_loss_out", "NULL out");
    CHECK_FAILS(th_f32_cross_entropy_out(NULL, lp, t, NULL, NULL), TH_ERR_INVALID, "th_f32_cross_entropy_out", "NULL out");
    th_i64_data(t)[0] = 0, th_i64_data(t)[1] = 1;
    CHECK_FAILS(th_f32_cross_entropy_out(o2, lp, t, NULL, NULL), TH_ERR_SHAPE, "th_f32_cross_entropy_out", "out has shape (2)");
    CHECK_FAILS(th_f32_nll_loss_out(s0, lp, t, NULL, &(th_loss_opts){.reduction = TH_REDUCTION_NONE}), TH_ERR_SHAPE,
                "th_f32_nll_loss_out", "out has shape ()");

    th_f32_tensor *rel[] = {lp, w, mean, sum, none, mi, all, all0, x3, o3, bx, r[0], r[1], s0, w2, o2};
    for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_f32_release(rel[k]);
    th_i64_tensor *reli[] = {t0, t, t3, bt, t1, tbad};
    for (size_t k = 0; k < sizeof reli / sizeof reli[0]; k++) th_i64_release(reli[k]);
    th_f64_release(x);
    th_f64_release(ce);
    th_f64_release(ces);
}

/* ---- adaptive pooling ---- */

#define APOOL_CALL(sfx)                                                                                        \
    do {                                                                                                       \
        typedef th_##sfx##_tensor T;                                                                           \
        if (is_max)                                                                                            \
            r = out ? (th_##sfx##_adaptive_max_pool2d_out((T *)out, (th_i64_tensor *)iout, (const T *)x, os) ? NULL : out) \
                    : (th_tensor *)th_##sfx##_adaptive_max_pool2d((const T *)x, os, (th_i64_tensor **)ix);    \
        else                                                                                                   \
            r = out ? (th_##sfx##_adaptive_avg_pool2d_out((T *)out, (const T *)x, os) ? NULL : out)            \
                    : (th_tensor *)th_##sfx##_adaptive_avg_pool2d((const T *)x, os);                          \
    } while (0)

static th_tensor *apool(th_dtype dt, bool is_max, th_tensor *out, th_tensor *iout, const th_tensor *x,
                        const int64_t *os, th_tensor **ix)
{
    th_tensor *r = NULL;
    switch (dt) {
    case TH_F32: APOOL_CALL(f32); break;
    case TH_F64: APOOL_CALL(f64); break;
    case TH_F16: APOOL_CALL(f16); break;
    default: APOOL_CALL(bf16);
    }
    return r;
}

/* x64 contiguous (planes, H, W): the average (or the maximum and its index) of each adaptive window. */
static void apool_ref(const th_tensor *x64, const int64_t *os, double *avg, double *mx, int64_t *at)
{
    int nd = th_tensor_ndim(x64);
    const int64_t *sz = th_tensor_sizes(x64);
    int64_t H = sz[nd - 2], W = sz[nd - 1], planes = th_tensor_numel(x64) / (H * W);
    const double *x = (const double *)th_tensor_data(x64);
    for (int64_t p = 0; p < planes; p++)
        for (int64_t i = 0; i < os[0]; i++)
            for (int64_t j = 0; j < os[1]; j++) {
                int64_t h0 = (int64_t)floor((double)(i * H) / (double)os[0]), h1 = (int64_t)ceil((double)((i + 1) * H) / (double)os[0]);
                int64_t w0 = (int64_t)floor((double)(j * W) / (double)os[1]), w1 = (int64_t)ceil((double)((j + 1) * W) / (double)os[1]);
                double sum = 0, best = -INFINITY;
                int64_t b = -1;
                for (int64_t h = h0; h < h1; h++)
                    for (int64_t w = w0; w < w1; w++) {
                        double v = x[p * H * W + h * W + w];
                        sum += v;
                        if (b < 0 || v > best) best = v, b = h * W + w;
                    }
                int64_t k = (p * os[0] + i) * os[1] + j;
                avg[k] = sum / (double)((h1 - h0) * (w1 - w0));
                mx[k] = best;
                at[k] = b;
            }
}

static void test_adaptive_pool(void)
{
    static const int64_t shapes[4][4] = {{2, 3, 7, 9}, {3, 5, 5, 0}, {1, 2, 10, 3}, {4, 1, 6, 6}};
    static const int64_t outs[4][2] = {{3, 4}, {2, 7}, {4, 1}, {6, 6}};
    int cases = 0;
    for (int di = 0; di < 4; di++)
        for (int si = 0; si < 4; si++)
            for (int is_max = 0; is_max < 2; is_max++) {
                th_dtype dt = dtypes[di];
                int nd = shapes[si][3] ? 4 : 3;
                int64_t rs[4];
                for (int k = 0; k < nd - 2; k++) rs[k] = shapes[si][k];
                rs[nd - 2] = outs[si][0], rs[nd - 1] = outs[si][1];
                th_tensor *x = view_new(dt, nd, shapes[si], (si + is_max) % 4);
                fill_random(x, -4, 4);
                th_tensor *x64 = as_f64(x);
                int64_t n = th_tensor_numel(x64) / (shapes[si][nd - 2] * shapes[si][nd - 1]) * outs[si][0] * outs[si][1];
                double *avg = malloc((size_t)n * sizeof(double)), *mx = malloc((size_t)n * sizeof(double));
                int64_t *at = malloc((size_t)n * sizeof(int64_t));
                apool_ref(x64, outs[si], avg, mx, at);
                th_tensor *ix = NULL, *y = apool(dt, is_max, NULL, NULL, x, outs[si], is_max ? &ix : NULL);
                th_tensor *o = view_new(dt, nd, rs, (si + 1) % 4), *io = is_max ? view_new(TH_I64, nd, rs, si % 4) : NULL;
                CHECK(y && apool(dt, is_max, o, io, x, outs[si], NULL) == o);
                th_tensor *want = view_new(TH_F64, nd, rs, 0);
                memcpy(th_tensor_data(want), is_max ? mx : avg, (size_t)n * sizeof(double));
                if (y) CHECK(worst_err(y, want) <= (is_max ? 0 : tol(dt)));
                CHECK(worst_err(o, want) <= (is_max ? 0 : tol(dt)));
                if (is_max) {
                    th_tensor *ic = view_new(TH_I64, nd, rs, 0);
                    CHECK(ix && th_tensor_copy(ic, ix) == TH_OK && memcmp(th_tensor_data(ic), at, (size_t)n * 8) == 0);
                    CHECK(th_tensor_copy(ic, io) == TH_OK && memcmp(th_tensor_data(ic), at, (size_t)n * 8) == 0);
                    th_tensor_release(ic);
                }
                th_tensor *rel[] = {x, x64, ix, y, o, io, want};
                for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_tensor_release(rel[k]);
                free(avg), free(mx), free(at);
                cases++;
            }
    printf("nn_layers: %d adaptive pooling cases against the double reference\n", cases);
    /* NaN wins the maximum (the first one); a 1x1 output is the global pool */
    th_f32_tensor *x = th_f32_zeros(3, SZ(1, 2, 2));
    th_f32_data(x)[1] = NAN, th_f32_data(x)[3] = NAN, th_f32_data(x)[2] = 5;
    th_i64_tensor *ix = NULL;
    th_f32_tensor *m = th_f32_adaptive_max_pool2d(x, SZ(1, 1), &ix), *a = th_f32_adaptive_avg_pool2d(x, SZ(1, 1));
    CHECK(m && isnan(th_f32_data(m)[0]) && ix && th_i64_data(ix)[0] == 1 && a && isnan(th_f32_data(a)[0]));
    /* errors */
    th_f32_tensor *x2 = th_f32_zeros(2, SZ(3, 3)), *e = th_f32_zeros(3, SZ(2, 0, 3)), *o = th_f32_empty(3, SZ(1, 2, 2));
    CHECK_NULL(th_f32_adaptive_avg_pool2d(NULL, SZ(1, 1)), TH_ERR_INVALID, "th_f32_adaptive_avg_pool2d", "NULL input");
    CHECK_NULL(th_f32_adaptive_avg_pool2d(x, NULL), TH_ERR_INVALID, "th_f32_adaptive_avg_pool2d", "NULL output_size");
    CHECK_NULL(th_f32_adaptive_max_pool2d(x, SZ(0, 1), NULL), TH_ERR_INVALID, "th_f32_adaptive_max_pool2d",
               "output_size[0] is 0; it must be >= 1");
    th_i64_release(ix);
    CHECK_NULL(th_f32_adaptive_max_pool2d(x, SZ(1, -2), &ix), TH_ERR_INVALID, "th_f32_adaptive_max_pool2d", "output_size[1] is -2");
    CHECK(ix == NULL);
    CHECK_NULL(th_f32_adaptive_avg_pool2d(x2, SZ(1, 1)), TH_ERR_SHAPE, "th_f32_adaptive_avg_pool2d",
               "input has shape (3, 3) (2 dims); adaptive_avg_pool2d takes 3 (C, spatial) or 4 (N, C, spatial) dims");
    CHECK_NULL(th_f32_adaptive_avg_pool2d(e, SZ(1, 1)), TH_ERR_SHAPE, "th_f32_adaptive_avg_pool2d",
               "input has an empty spatial dim (0 x 3)");
    CHECK_FAILS(th_f32_adaptive_avg_pool2d_out(NULL, x, SZ(1, 1)), TH_ERR_INVALID, "th_f32_adaptive_avg_pool2d_out", "NULL out");
    CHECK_FAILS(th_f32_adaptive_max_pool2d_out(NULL, NULL, x, SZ(1, 1)), TH_ERR_INVALID, "th_f32_adaptive_max_pool2d_out", "NULL out");
    CHECK_FAILS(th_f32_adaptive_avg_pool2d_out(o, x, SZ(1, 1)), TH_ERR_SHAPE, "th_f32_adaptive_avg_pool2d_out", "out has shape (1, 2, 2)");
    CHECK_FAILS(th_f32_adaptive_max_pool2d_out(o, (th_i64_tensor *)o, x, SZ(2, 2)), TH_ERR_DTYPE,
                "th_f32_adaptive_max_pool2d_out", "indices_out is f32, not i64");
    th_f32_tensor *rel[] = {x, m, a, x2, e, o};
    for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_f32_release(rel[k]);
    th_i64_release(ix);
}

int main(void)
{
    test_begin();
    test_random();
    test_values();
    test_threads();
    test_errors();
    test_rope();
    test_embedding();
    test_losses();
    test_adaptive_pool();
    return test_end("nn_layers");
}
