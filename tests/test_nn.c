/* tests/test_nn.c: softmax, log_softmax, layer_norm and rms_norm (ops/nn.h) for f32, f64, f16 and bf16,
 * against a reference computed here in double from the closed forms; special rows (-inf, NaN, +inf, only
 * -inf), 0-d, empty and size-1 dims; transposed, stepped, reversed inputs and outs, outs that are the input;
 * 1 and 2 threads bit-identical; every error. The peer check against PyTorch is tests/numpy/nn_torch.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

enum { OP_SOFTMAX, OP_LOG_SOFTMAX, OP_LAYER_NORM, OP_RMS_NORM, OP_COUNT };
static const char *op_names[OP_COUNT] = {"softmax", "log_softmax", "layer_norm", "rms_norm"};
static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};

/* One call of op through the typed front door of x's dtype: a new result (out NULL; returned) or into out
 * (*status set, NULL returned). */
#define NN_CALL(sfx)                                                                                           \
    do {                                                                                                       \
        typedef th_##sfx##_tensor T;                                                                           \
        const T *tx = (const T *)x, *tw = (const T *)w, *tb = (const T *)b;                                    \
        T *to = (T *)out;                                                                                      \
        switch (op) {                                                                                          \
        case OP_SOFTMAX:                                                                                       \
            if (to) *status = th_##sfx##_softmax_out(to, tx, dim);                                             \
            else r = (th_tensor *)th_##sfx##_softmax(tx, dim);                                                 \
            break;                                                                                             \
        case OP_LOG_SOFTMAX:                                                                                   \
            if (to) *status = th_##sfx##_log_softmax_out(to, tx, dim);                                         \
            else r = (th_tensor *)th_##sfx##_log_softmax(tx, dim);                                             \
            break;                                                                                             \
        case OP_LAYER_NORM:                                                                                    \
            if (to) *status = th_##sfx##_layer_norm_out(to, tx, nn, ns, tw, tb, eps);                          \
            else r = (th_tensor *)th_##sfx##_layer_norm(tx, nn, ns, tw, tb, eps);                              \
            break;                                                                                             \
        default:                                                                                               \
            if (to) *status = th_##sfx##_rms_norm_out(to, tx, nn, ns, tw, eps);                                \
            else r = (th_tensor *)th_##sfx##_rms_norm(tx, nn, ns, tw, eps);                                    \
        }                                                                                                      \
    } while (0)

static th_tensor *call(int op, th_dtype dt, th_tensor *out, const th_tensor *x, int dim, int nn, const int64_t *ns,
                       const th_tensor *w, const th_tensor *b, double eps, int *status)
{
    th_tensor *r = NULL;
    int dummy;
    if (!status) status = &dummy;
    switch (dt) {
    case TH_F32: NN_CALL(f32); break;
    case TH_F64: NN_CALL(f64); break;
    case TH_F16: NN_CALL(f16); break;
    default: NN_CALL(bf16);
    }
    return r;
}

/* ---- tensors of any layout, and their values in double ---- */

static uint32_t seed = 2024;
static double rnd(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (double)(seed >> 8) / 16777216.0;
}

/* A view of shape sizes, dtype dt, over a fresh storage: layout 0 contiguous, 1 dims in reverse order, 2 every
 * dim stepped by 2, 3 the last dim reversed (negative stride). */
static th_tensor *view_new(th_dtype dt, int ndim, const int64_t *sizes, int layout)
{
    int64_t strides[TH_MAX_DIMS], span = 1, numel = 1;
    for (int d = 0; d < ndim; d++) numel *= sizes[d];
    if (layout == 1) {
        for (int d = 0; d < ndim; d++) {
            strides[d] = span;
            span *= sizes[d] > 0 ? sizes[d] : 1;
        }
    } else {
        for (int d = ndim - 1; d >= 0; d--) {
            strides[d] = span * (layout == 2 ? 2 : 1);
            span *= sizes[d] > 0 ? sizes[d] : 1;
        }
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

/* t's values as a contiguous f64 tensor. */
static th_tensor *as_f64(const th_tensor *t)
{
    th_tensor *c = view_new(TH_F64, th_tensor_ndim(t), th_tensor_sizes(t), 0);
    th_tensor_copy(c, t);
    return c;
}

/* Random values in [lo, hi) into t (through an f64 tensor, so they are rounded to t's dtype). */
static void fill_random(th_tensor *t, double lo, double hi)
{
    th_tensor *c = view_new(TH_F64, th_tensor_ndim(t), th_tensor_sizes(t), 0);
    double *p = (double *)th_tensor_data(c);
    for (int64_t i = 0; i < th_tensor_numel(c); i++) p[i] = lo + (hi - lo) * rnd();
    th_tensor_copy(t, c);
    th_tensor_release(c);
}

/* ---- the reference: x contiguous f64, rows of n elements with stride s, numbered over the outer dims ---- */

static void ref_row(int op, const double *x, double *y, int64_t n, const double *w, const double *b, double eps)
{
    if (op == OP_SOFTMAX || op == OP_LOG_SOFTMAX) {
        double m = -INFINITY, s = 0;
        for (int64_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
        for (int64_t i = 0; i < n; i++) s += exp(x[i] - m);
        for (int64_t i = 0; i < n; i++) y[i] = op == OP_SOFTMAX ? exp(x[i] - m) / s : x[i] - m - log(s);
        return;
    }
    double mean = 0, var = 0;
    if (op == OP_LAYER_NORM) {
        for (int64_t i = 0; i < n; i++) mean += x[i];
        mean /= (double)n;
    }
    for (int64_t i = 0; i < n; i++) var += (x[i] - mean) * (x[i] - mean);
    var /= (double)n;
    for (int64_t i = 0; i < n; i++) y[i] = (x[i] - mean) / sqrt(var + eps) * (w ? w[i] : 1) + (b ? b[i] : 0);
}

/* The reference over a whole contiguous f64 tensor: softmax along dim, norms over the last nn dims. */
static th_tensor *ref(int op, const th_tensor *x64, int dim, int nn, const th_tensor *w64, const th_tensor *b64,
                      double eps)
{
    int ndim = th_tensor_ndim(x64);
    const int64_t *sz = th_tensor_sizes(x64);
    th_tensor *y = view_new(TH_F64, ndim, sz, 0);
    const double *x = (const double *)th_tensor_data(x64);
    double *yp = (double *)th_tensor_data(y);
    int64_t numel = th_tensor_numel(x64);
    int64_t n = 1, inner = 1; /* row length, and the stride of the row's elements */
    if (op <= OP_LOG_SOFTMAX) {
        if (ndim > 0) {
            int d = dim < 0 ? dim + ndim : dim;
            n = sz[d];
            for (int e = d + 1; e < ndim; e++) inner *= sz[e];
        }
    } else
        for (int d = ndim - nn; d < ndim; d++) n *= sz[d];
    if (numel == 0) return y;
    double *row = malloc((size_t)n * sizeof *row), *out = malloc((size_t)n * sizeof *out);
    const double *w = w64 ? (const double *)th_tensor_data(w64) : NULL;
    const double *b = b64 ? (const double *)th_tensor_data(b64) : NULL;
    for (int64_t r = 0; r < numel / n; r++) {
        int64_t base = (r / inner) * n * inner + r % inner;
        for (int64_t i = 0; i < n; i++) row[i] = x[base + i * inner];
        ref_row(op, row, out, n, w, b, eps);
        for (int64_t i = 0; i < n; i++) yp[base + i * inner] = out[i];
    }
    free(row);
    free(out);
    return y;
}

/* The relative tolerance of each dtype's results: a few units of its last place. */
static double tol(th_dtype dt)
{
    switch (dt) {
    case TH_F32: return 0x1p-21;
    case TH_F64: return 0x1p-48;
    case TH_F16: return 0x1p-9;
    default: return 0x1p-6;
    }
}

/* got (any dtype, any layout) equals want (contiguous f64) within tol, NaN where want is NaN. */
static bool close_to(const th_tensor *got, const th_tensor *want, th_dtype dt, double floor)
{
    th_tensor *g = as_f64(got);
    const double *a = (const double *)th_tensor_data(g), *b = (const double *)th_tensor_data(want);
    bool ok = th_tensor_numel(g) == th_tensor_numel(want);
    for (int64_t i = 0; ok && i < th_tensor_numel(g); i++) {
        if (isnan(b[i]) || isinf(b[i])) {
            ok = isnan(b[i]) ? isnan(a[i]) : a[i] == b[i];
        } else
            ok = fabs(a[i] - b[i]) <= tol(dt) * (fabs(b[i]) + floor);
        if (!ok) fprintf(stderr, "  element %lld: got %.17g, want %.17g\n", (long long)i, a[i], b[i]);
    }
    th_tensor_release(g);
    return ok;
}

static bool same_bits(const th_tensor *a, const th_tensor *b)
{
    size_t es = th_dtype_info(th_tensor_dtype(a))->size;
    return th_tensor_numel(a) == th_tensor_numel(b) && th_tensor_is_contiguous(a) && th_tensor_is_contiguous(b) &&
           memcmp(th_tensor_data(a), th_tensor_data(b), (size_t)th_tensor_numel(a) * es) == 0;
}

/* ---- random shapes, layouts, dtypes and ops against the reference ---- */

static void test_random(void)
{
    static const struct {
        int ndim;
        int64_t sizes[4];
    } shapes[] = {{1, {1}},        {1, {7}},         {2, {3, 5}},        {2, {4, 1}},     {3, {2, 3, 17}},
                  {3, {5, 1, 9}},  {4, {2, 3, 2, 4}}, {2, {3, 1000}},     {2, {2, 2049}},  {1, {600}}};
    int cases = 0;
    for (int di = 0; di < 4; di++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int op = 0; op < OP_COUNT; op++)
                for (int layout = 0; layout < 4; layout++) {
                    th_dtype dt = dtypes[di];
                    int ndim = shapes[si].ndim;
                    const int64_t *sz = shapes[si].sizes;
                    int dim = (int)(rnd() * ndim) - (rnd() < 0.5 ? ndim : 0);
                    int nn = 1 + (int)(rnd() * ndim);
                    const int64_t *ns = sz + ndim - nn;
                    th_tensor *x = view_new(dt, ndim, sz, layout);
                    fill_random(x, -6, 6);
                    th_tensor *w = NULL, *b = NULL, *w64 = NULL, *b64 = NULL;
                    if (op >= OP_LAYER_NORM && rnd() < 0.7) {
                        w = view_new(dt, nn, ns, (layout + 1) % 4);
                        fill_random(w, -2, 2);
                        w64 = as_f64(w);
                    }
                    if (op == OP_LAYER_NORM && rnd() < 0.7) {
                        b = view_new(dt, nn, ns, (layout + 2) % 4);
                        fill_random(b, -2, 2);
                        b64 = as_f64(b);
                    }
                    double eps = op >= OP_LAYER_NORM ? 1e-5 : 0;
                    int failures = check_failures;
                    th_tensor *x64 = as_f64(x);
                    th_tensor *want = ref(op, x64, dim, nn, w64, b64, eps);
                    /* errors are relative to the result, but at least to 1 where the result comes from a difference of O(1)
                     * values (x - mean; x - max - log(sum) in f64, whose x - max rounds), and to the smallest
                     * normal (subnormal results have fixed absolute steps) */
                    double floor = op >= OP_LAYER_NORM || (op == OP_LOG_SOFTMAX && dt == TH_F64) ? 1.0
                                   : dt == TH_F16                                               ? 0x1p-14
                                                                                                : 0x1p-126;
                    /* new */
                    th_tensor *y = call(op, dt, NULL, x, dim, nn, ns, w, b, eps, NULL);
                    CHECK(y && th_tensor_is_contiguous(y) && close_to(y, want, dt, floor));
                    /* into an out of another layout */
                    th_tensor *o = view_new(dt, ndim, sz, (layout + 3) % 4);
                    int st = -1;
                    call(op, dt, o, x, dim, nn, ns, w, b, eps, &st);
                    CHECK_INT_EQ(st, TH_OK);
                    CHECK(close_to(o, want, dt, floor));
                    /* in place: out is x */
                    st = -1;
                    call(op, dt, x, x, dim, nn, ns, w, b, eps, &st);
                    CHECK_INT_EQ(st, TH_OK);
                    CHECK(close_to(x, want, dt, floor));
                    if (check_failures > failures) fprintf(stderr, "  case: %s dtype %s shape %zu layout %d dim %d nn %d\n",
                                                op_names[op], th_dtype_name(dt), si, layout, dim, nn);
                    th_tensor_release(o);
                    th_tensor_release(y);
                    th_tensor_release(want);
                    th_tensor_release(x64);
                    th_tensor_release(x);
                    th_tensor_release(w);
                    th_tensor_release(b);
                    th_tensor_release(w64);
                    th_tensor_release(b64);
                    cases++;
                }
    printf("nn: %d random cases against the double reference\n", cases);
}

/* ---- closed forms and special rows ---- */

static th_f32_tensor *f32_of(int ndim, const int64_t *sizes, const float *v)
{
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    int64_t n = th_f32_numel(t);
    if (n) memcpy(th_f32_data(t), v, (size_t)n * sizeof *v);
    return t;
}

static void test_special(void)
{
    const float inf = INFINITY, nan = NAN;
    /* rows: only -inf; one NaN; one +inf; a -inf among finite; equal values */
    float v[5][3] = {{-inf, -inf, -inf}, {1, nan, 2}, {1, inf, 2}, {-inf, 0, 0}, {3, 3, 3}};
    th_f32_tensor *x = f32_of(2, SZ(5, 3), &v[0][0]);
    th_f32_tensor *s = th_f32_softmax(x, 1), *l = th_f32_log_softmax(x, -1);
    const float *sp = th_f32_data(s), *lp = th_f32_data(l);
    for (int j = 0; j < 9; j++) CHECK(isnan(sp[j]) && isnan(lp[j]));
    CHECK(sp[9] == 0.0f && sp[10] == 0.5f && sp[11] == 0.5f);
    CHECK(lp[9] == -inf && fabsf(lp[10] + logf(2.0f)) <= 1e-7f && lp[10] == lp[11]);
    for (int j = 12; j < 15; j++) CHECK(fabsf(sp[j] - 1.0f / 3) <= 3e-8f && fabsf(lp[j] + logf(3.0f)) <= 2e-7f);
    th_f32_release(s);
    th_f32_release(l);
    /* no overflow: huge and tiny values */
    float big[4] = {1e30f, 1e30f, -1e30f, 88.0f};
    th_f32_tensor *xb = f32_of(1, SZ(4), big);
    s = th_f32_softmax(xb, 0);
    l = th_f32_log_softmax(xb, 0);
    CHECK(th_f32_data(s)[0] == 0.5f && th_f32_data(s)[1] == 0.5f && th_f32_data(s)[2] == 0.0f);
    CHECK(th_f32_data(l)[0] == -logf(2.0f) && th_f32_data(l)[2] == -2e30f);
    th_f32_release(s);
    th_f32_release(l);
    th_f32_release(xb);
    /* 0-d: softmax 1, log_softmax 0 */
    th_f32_tensor *z = th_f32_full(0, NULL, 3.5f);
    s = th_f32_softmax(z, 0);
    l = th_f32_log_softmax(z, -1);
    CHECK(s && th_f32_ndim(s) == 0 && th_f32_data(s)[0] == 1.0f && th_f32_data(l)[0] == 0.0f);
    th_f32_release(s);
    th_f32_release(l);
    th_f32_release(z);
    /* a size-1 dim: softmax 1, log_softmax 0, layer_norm bias, rms_norm of x = sign(x)/sqrt(1 + eps/x^2) */
    th_f32_tensor *one = f32_of(2, SZ(3, 1), (const float[]){-2, 0, 5});
    s = th_f32_softmax(one, 1);
    l = th_f32_log_softmax(one, 1);
    th_f32_tensor *bias = th_f32_full(1, SZ(1), 0.25f);
    th_f32_tensor *ln = th_f32_layer_norm(one, 1, SZ(1), NULL, bias, 1e-5);
    th_f32_tensor *rn = th_f32_rms_norm(one, 1, SZ(1), NULL, 0);
    for (int j = 0; j < 3; j++) {
        CHECK(th_f32_data(s)[j] == 1.0f && th_f32_data(l)[j] == 0.0f && th_f32_data(ln)[j] == 0.25f);
    }
    CHECK(th_f32_data(rn)[0] == -1.0f && isnan(th_f32_data(rn)[1]) && th_f32_data(rn)[2] == 1.0f);
    th_f32_release(s);
    th_f32_release(l);
    th_f32_release(ln);
    th_f32_release(rn);
    th_f32_release(bias);
    th_f32_release(one);
    /* layer_norm of a constant row is bias (variance 0, eps keeps it finite); rms_norm closed form */
    th_f32_tensor *c = f32_of(1, SZ(4), (const float[]){2, 2, 2, 2});
    ln = th_f32_layer_norm(c, 1, SZ(4), NULL, NULL, 1e-5);
    for (int j = 0; j < 4; j++) CHECK(th_f32_data(ln)[j] == 0.0f);
    th_f32_tensor *w = f32_of(1, SZ(4), (const float[]){1, 2, 3, 4});
    rn = th_f32_rms_norm(c, 1, SZ(4), w, 0);
    for (int j = 0; j < 4; j++) CHECK(th_f32_data(rn)[j] == (float)(j + 1));
    th_f32_release(ln);
    th_f32_release(rn);
    th_f32_release(w);
    th_f32_release(c);
    /* empty: a dim of size 0 anywhere */
    th_f32_tensor *e = th_f32_empty(2, SZ(0, 4));
    s = th_f32_softmax(e, 1);
    ln = th_f32_layer_norm(e, 1, SZ(4), NULL, NULL, 1e-5);
    CHECK(s && th_f32_numel(s) == 0 && ln && th_f32_size(ln, 1) == 4);
    th_f32_release(s);
    th_f32_release(ln);
    th_f32_release(e);
    e = th_f32_empty(2, SZ(3, 0));
    s = th_f32_log_softmax(e, 1);
    rn = th_f32_rms_norm(e, 2, SZ(3, 0), NULL, 1e-6);
    CHECK(s && th_f32_size(s, 1) == 0 && rn && th_f32_numel(rn) == 0);
    th_f32_release(s);
    th_f32_release(rn);
    th_f32_release(e);
    /* the same special rows in the other dtypes */
    th_f64_tensor *x64 = th_f64_empty(2, SZ(5, 3));
    th_f16_tensor *x16 = th_f16_empty(2, SZ(5, 3));
    th_bf16_tensor *xb16 = th_bf16_empty(2, SZ(5, 3));
    th_tensor_copy((th_tensor *)x64, (th_tensor *)x);
    th_tensor_copy((th_tensor *)x16, (th_tensor *)x);
    th_tensor_copy((th_tensor *)xb16, (th_tensor *)x);
    th_tensor *r[3] = {(th_tensor *)th_f64_softmax(x64, 1), (th_tensor *)th_f16_softmax(x16, 1),
                       (th_tensor *)th_bf16_log_softmax(xb16, 1)};
    for (int k = 0; k < 3; k++) {
        th_tensor *g = as_f64(r[k]);
        const double *p = (const double *)th_tensor_data(g);
        for (int j = 0; j < 9; j++) CHECK(isnan(p[j]));
        CHECK(k == 2 ? p[9] == -INFINITY : p[9] == 0.0 && p[10] == 0.5);
        th_tensor_release(g);
        th_tensor_release(r[k]);
    }
    th_f64_release(x64);
    th_f16_release(x16);
    th_bf16_release(xb16);
    th_f32_release(x);
}

/* ---- 1 and 2 threads give the same bits (rows large enough to be split) ---- */

static void test_threads(void)
{
    int64_t sz[2] = {300, 517};
    for (int di = 0; di < 4; di++)
        for (int op = 0; op < OP_COUNT; op++) {
            th_dtype dt = dtypes[di];
            th_tensor *x = view_new(dt, 2, sz, op % 2 ? 1 : 0);
            fill_random(x, -4, 4);
            th_tensor *w = view_new(dt, 1, sz + 1, 0);
            fill_random(w, -1, 1);
            int dim = op % 2 ? 0 : 1;
            int nn = 1;
            th_tensor *y[2];
            for (int t = 0; t < 2; t++) {
                test_set_threads(t + 1);
                y[t] = call(op, dt, NULL, x, dim, nn, sz + 1, op >= OP_LAYER_NORM ? w : NULL,
                            op == OP_LAYER_NORM ? w : NULL, 1e-5, NULL);
            }
            CHECK(y[0] && y[1] && same_bits(y[0], y[1]));
            th_tensor_release(y[0]);
            th_tensor_release(y[1]);
            th_tensor_release(x);
            th_tensor_release(w);
        }
    test_set_threads(1);
}

/* ---- every error ---- */

static void test_errors(void)
{
    th_f32_tensor *x = th_f32_zeros(2, SZ(2, 3));
    th_f64_tensor *d = th_f64_zeros(2, SZ(2, 3));
    th_f32_tensor *w3 = th_f32_ones(1, SZ(3)), *w2 = th_f32_ones(1, SZ(2));
    th_f32_tensor *bad = th_f32_zeros(2, SZ(3, 2));
    CHECK_NULL(th_f32_softmax(NULL, 0), TH_ERR_INVALID, "th_f32_softmax", "NULL x");
    CHECK_NULL(th_f32_softmax(x, 2), TH_ERR_RANGE, "th_f32_softmax", "dim 2 is out of range");
    CHECK_NULL(th_f32_log_softmax(x, -3), TH_ERR_RANGE, "th_f32_log_softmax", "dim -3");
    CHECK_NULL(th_f32_softmax((th_f32_tensor *)d, 0), TH_ERR_DTYPE, "th_f32_softmax", "f64");
    CHECK_FAILS(th_f32_softmax_out(NULL, x, 0), TH_ERR_INVALID, "th_f32_softmax_out", "NULL out");
    CHECK_FAILS(th_f32_log_softmax_out(NULL, x, 0), TH_ERR_INVALID, "th_f32_log_softmax_out", "NULL out");
    CHECK_FAILS(th_f32_softmax_out(bad, x, 0), TH_ERR_SHAPE, "th_f32_softmax_out", "out has shape");
    CHECK_FAILS(th_f32_softmax_out((th_f32_tensor *)d, x, 0), TH_ERR_DTYPE, "th_f32_softmax_out", "f64");
    CHECK_FAILS(th_f32_log_softmax_out(x, (th_f32_tensor *)d, 0), TH_ERR_DTYPE, "th_f32_log_softmax_out", "f64");
    th_f32_tensor *ex = th_f32_expand(w3, 2, SZ(2, 3)); /* stride 0: elements share addresses */
    CHECK_FAILS(th_f32_softmax_out(ex, x, 1), TH_ERR_INVALID, "th_f32_softmax_out", "overlaps");
    th_f32_release(ex);
    CHECK_NULL(th_f32_layer_norm(NULL, 1, SZ(3), NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_layer_norm", "NULL x");
    CHECK_NULL(th_f32_layer_norm(x, 0, SZ(3), NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_layer_norm",
               "the normalized shape has 0 dims");
    CHECK_NULL(th_f32_layer_norm(x, 3, SZ(1, 2, 3), NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_layer_norm",
               "has 3 dims; x has 2");
    CHECK_NULL(th_f32_layer_norm(x, 1, NULL, NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_layer_norm",
               "NULL normalized shape");
    CHECK_NULL(th_f32_layer_norm(x, 1, SZ(2), NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_layer_norm",
               "not the normalized shape (2)");
    CHECK_NULL(th_f32_layer_norm(x, 1, SZ(3), w2, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_layer_norm",
               "weight has shape (2)");
    CHECK_NULL(th_f32_layer_norm(x, 1, SZ(3), w3, w2, 1e-5), TH_ERR_SHAPE, "th_f32_layer_norm",
               "bias has shape (2)");
    CHECK_NULL(th_f32_layer_norm(x, 1, SZ(3), NULL, NULL, -1), TH_ERR_INVALID, "th_f32_layer_norm", "eps -1");
    CHECK_NULL(th_f32_layer_norm(x, 1, SZ(3), NULL, NULL, NAN), TH_ERR_INVALID, "th_f32_layer_norm", "eps nan");
    CHECK_NULL(th_f32_rms_norm(x, 1, SZ(3), NULL, INFINITY), TH_ERR_INVALID, "th_f32_rms_norm", "eps inf");
    CHECK_NULL(th_f32_layer_norm(x, 1, SZ(3), (th_f32_tensor *)d, NULL, 1e-5), TH_ERR_DTYPE, "th_f32_layer_norm",
               "weight is f64");
    CHECK_NULL(th_f32_layer_norm(x, 1, SZ(3), NULL, (th_f32_tensor *)d, 1e-5), TH_ERR_DTYPE, "th_f32_layer_norm",
               "bias is f64");
    CHECK_NULL(th_f32_rms_norm(x, 1, SZ(3), (th_f32_tensor *)d, 1e-5), TH_ERR_DTYPE, "th_f32_rms_norm",
               "weight is f64");
    CHECK_NULL(th_f32_rms_norm(x, 1, SZ(3), w2, 1e-5), TH_ERR_SHAPE, "th_f32_rms_norm", "weight has shape (2)");
    CHECK_NULL(th_f32_rms_norm(x, 2, SZ(3, 2), NULL, 1e-5), TH_ERR_SHAPE, "th_f32_rms_norm",
               "not the normalized shape (3, 2)");
    CHECK_FAILS(th_f32_layer_norm_out(NULL, x, 1, SZ(3), NULL, NULL, 1e-5), TH_ERR_INVALID, "th_f32_layer_norm_out",
                "NULL out");
    CHECK_FAILS(th_f32_rms_norm_out(NULL, x, 1, SZ(3), NULL, 1e-5), TH_ERR_INVALID, "th_f32_rms_norm_out",
                "NULL out");
    CHECK_FAILS(th_f32_layer_norm_out(bad, x, 1, SZ(3), NULL, NULL, 1e-5), TH_ERR_SHAPE, "th_f32_layer_norm_out",
                "out has shape (3, 2)");
    CHECK_FAILS(th_f32_rms_norm_out(bad, x, 1, SZ(3), NULL, 1e-5), TH_ERR_SHAPE, "th_f32_rms_norm_out",
                "out has shape (3, 2)");
    CHECK_FAILS(th_f32_layer_norm_out((th_f32_tensor *)d, x, 1, SZ(3), NULL, NULL, 1e-5), TH_ERR_DTYPE,
                "th_f32_layer_norm_out", "out is f64");
    CHECK_FAILS(th_f32_rms_norm_out(x, (th_f32_tensor *)d, 1, SZ(3), NULL, 1e-5), TH_ERR_DTYPE, "th_f32_rms_norm_out",
                "x is f64");
    /* a read-only out */
    th_storage *s = th_storage_new(6 * sizeof(float), NULL, NULL);
    th_storage_make_read_only(s);
    th_f32_tensor *rot = (th_f32_tensor *)th_tensor_new_with_storage(TH_F32, s, 0, 2, SZ(2, 3), NULL);
    th_storage_release(s);
    CHECK_FAILS(th_f32_log_softmax_out(rot, x, 1), TH_ERR_READ_ONLY, "th_f32_log_softmax_out", "");
    th_f32_release(rot);
    th_f32_release(x);
    th_f64_release(d);
    th_f32_release(w3);
    th_f32_release(w2);
    th_f32_release(bad);
}

int main(void)
{
    test_begin();
    test_random();
    test_special();
    test_threads();
    test_errors();
    return test_end("nn");
}
