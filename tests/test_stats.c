/* tests/test_stats.c: median, nanmedian, quantile (NumPy's five methods), kthvalue, nansum, nanmean, nanmax,
 * nanmin (ops/stats.h).
 *
 * Small cases worked by hand: the lower middle and its index, NaN rows, ties (the stable sort's position),
 * each quantile method at a fractional and a half virtual index (nearest rounds halves to even), keepdim,
 * transposed inputs, a 0-d input, empty inputs, f16 and bf16, the _out forms (one overlapping the input);
 * and every error. The random comparison with NumPy and torch is tests/numpy/stats_peer.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})
#define IX(...) ((const int64_t[]){__VA_ARGS__})

static th_f64_tensor *f64_of(const double *v, int ndim, const int64_t *sizes)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    memcpy(th_f64_data(t), v, (size_t)th_f64_numel(t) * sizeof(double));
    return t;
}

static double item(const th_f64_tensor *t) { return th_f64_get(t, NULL); }

static bool same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void test_median(void)
{
    const double v[] = {3, 1, 2, 4, NAN, 7, 5, 7}; /* 2x4: rows (3 1 2 4) and (NaN 7 5 7) */
    th_f64_tensor *a = f64_of(v, 2, SZ(2, 4));
    th_i64_tensor *idx = NULL;
    th_f64_tensor *m = th_f64_median_dim(a, 1, false, &idx);
    CHECK(m && idx && th_f64_ndim(m) == 1 && th_f64_size(m, 0) == 2);
    if (m && idx) {
        CHECK(th_f64_get(m, IX(0)) == 2.0); /* the lower of 2 and 3 */
        CHECK_INT_EQ(th_i64_get(idx, IX(0)), 2);
        CHECK(isnan(th_f64_get(m, IX(1)))); /* a NaN makes the median NaN, at the first NaN */
        CHECK_INT_EQ(th_i64_get(idx, IX(1)), 0);
    }
    th_f64_release(m);
    th_i64_release(idx);
    /* nanmedian leaves the NaN out: (5 7 7) -> 7 at its first position in a stable sort, 1 */
    m = th_f64_nanmedian_dim(a, -1, true, &idx);
    CHECK(m && idx && th_f64_ndim(m) == 2 && th_f64_size(m, 1) == 1);
    if (m && idx) {
        CHECK(th_f64_get(m, IX(0, 0)) == 2.0 && th_f64_get(m, IX(1, 0)) == 7.0);
        CHECK_INT_EQ(th_i64_get(idx, IX(1, 0)), 1);
    }
    th_f64_release(m);
    th_i64_release(idx);
    /* over dim 0 of the transpose is over dim 1 of a */
    th_f64_tensor *at = th_f64_transpose(a, 0, 1);
    m = th_f64_nanmedian_dim(at, 0, false, NULL);
    CHECK(m && th_f64_get(m, IX(0)) == 2.0 && th_f64_get(m, IX(1)) == 7.0);
    th_f64_release(m);
    /* all: NaN with the NaN, else the lower middle of the seven numbers (1 2 3 4 5 7 7) -> 4 */
    m = th_f64_median_all(a);
    CHECK(m && th_f64_ndim(m) == 0 && isnan(item(m)));
    th_f64_release(m);
    m = th_f64_nanmedian_all(at);
    CHECK(m && item(m) == 4.0);
    th_f64_release(m);
    /* a row of NaNs: NaN at index 0 */
    const double nans[] = {NAN, NAN, NAN};
    th_f64_tensor *n = f64_of(nans, 1, SZ(3));
    m = th_f64_nanmedian_dim(n, 0, false, &idx);
    CHECK(m && idx && isnan(item(m)) && th_i64_get(idx, NULL) == 0);
    th_f64_release(m);
    th_i64_release(idx);
    m = th_f64_nanmedian_all(n);
    CHECK(m && isnan(item(m)));
    th_f64_release(m);
    /* _out forms, the values into a's own first row (overlapping a, which is read first) */
    th_f64_tensor *b = th_f64_clone(a);
    th_f64_tensor *row = th_f64_select(b, 0, 0);
    th_i64_tensor *io = th_i64_empty(1, SZ(4));
    CHECK_INT_EQ(th_f64_median_dim_out(row, io, b, 0, false), TH_OK); /* columns (3 NaN) (1 7) (2 5) (4 7) */
    CHECK(isnan(th_f64_get(row, IX(0))) && th_f64_get(row, IX(1)) == 1.0 && th_f64_get(row, IX(2)) == 2.0 &&
          th_f64_get(row, IX(3)) == 4.0);
    CHECK(th_i64_get(io, IX(0)) == 1 && th_i64_get(io, IX(1)) == 0 && th_i64_get(io, IX(3)) == 0);
    CHECK_INT_EQ(th_f64_nanmedian_dim_out(row, NULL, a, 0, false), TH_OK);
    CHECK(th_f64_get(row, IX(0)) == 3.0 && th_f64_get(row, IX(1)) == 1.0);
    th_f64_tensor *o0 = th_f64_empty(0, NULL);
    CHECK_INT_EQ(th_f64_median_all_out(o0, n), TH_OK);
    CHECK(isnan(item(o0)));
    CHECK_INT_EQ(th_f64_nanmedian_all_out(o0, a), TH_OK);
    CHECK(item(o0) == 4.0);
    /* a 0-d tensor is its own median at index 0 */
    th_f64_tensor *s = th_f64_full(0, NULL, 2.5);
    m = th_f64_median_dim(s, -1, true, &idx);
    CHECK(m && idx && th_f64_ndim(m) == 0 && item(m) == 2.5 && th_i64_get(idx, NULL) == 0);
    th_f64_release(m);
    th_i64_release(idx);
    /* no elements: median_all is NaN (torch); over an empty dim a median has no index to give */
    th_f64_tensor *e = th_f64_empty(2, SZ(3, 0));
    m = th_f64_median_all(e);
    CHECK(m && isnan(item(m)));
    th_f64_release(m);
    m = th_f64_nanmedian_dim(e, 0, false, &idx); /* 3 rows of nothing each: shape (0,) */
    CHECK(m && idx && th_f64_numel(m) == 0 && th_f64_size(m, 0) == 0);
    th_f64_release(m);
    th_i64_release(idx);
    CHECK_NULL(th_f64_median_dim(e, 1, false, &idx), TH_ERR_SHAPE, "th_f64_median_dim", "median of no elements");
    CHECK(idx == NULL);
    th_f64_release(e);
    th_f64_release(s);
    th_f64_release(o0);
    th_i64_release(io);
    th_f64_release(row);
    th_f64_release(b);
    th_f64_release(n);
    th_f64_release(at);
    th_f64_release(a);
}

static void test_quantile(void)
{
    const double v[] = {4, 1, 3, 2};
    th_f64_tensor *a = f64_of(v, 1, SZ(4));
    /* q 0.4: i = 1.2 between 2 and 3; q 0.5: i = 1.5, nearest rounds the half to even (2, so 3) */
    const double want04[] = {2.2, 2, 3, 2, 2.5}, want05[] = {2.5, 2, 3, 3, 2.5};
    for (int method = 0; method < 5; method++) {
        th_f64_tensor *q = th_f64_quantile_all(a, 0.4, (th_quantile_method)method);
        CHECK(q && fabs(item(q) - want04[method]) < 1e-15);
        th_f64_release(q);
        q = th_f64_quantile_dim(a, 0.5, 0, true, (th_quantile_method)method);
        CHECK(q && th_f64_ndim(q) == 1 && th_f64_get(q, IX(0)) == want05[method]);
        th_f64_release(q);
    }
    /* i = 2.5 (q 5/6 of 4): nearest rounds down to 2 (even): 3, not 4 */
    th_f64_tensor *q = th_f64_quantile_all(a, 5.0 / 6.0, TH_QUANTILE_NEAREST);
    CHECK(q && fabs(item(q) - 3.0) < 1e-15);
    th_f64_release(q);
    /* the ends, and a NaN */
    q = th_f64_quantile_all(a, 0.0, TH_QUANTILE_LINEAR);
    CHECK(q && item(q) == 1.0);
    th_f64_release(q);
    q = th_f64_quantile_all(a, 1.0, TH_QUANTILE_LINEAR);
    CHECK(q && item(q) == 4.0);
    th_f64_release(q);
    th_f64_set(a, IX(2), NAN);
    q = th_f64_quantile_all(a, 0.25, TH_QUANTILE_LOWER);
    CHECK(q && isnan(item(q)));
    th_f64_release(q);
    /* a transposed 2x3 over dim 0: each column of the transpose is a row of b */
    const double w[] = {1, 2, 3, 10, 30, 20};
    th_f64_tensor *b = f64_of(w, 2, SZ(2, 3)), *bt = th_f64_transpose(b, 0, 1);
    q = th_f64_quantile_dim(bt, 0.75, 0, false, TH_QUANTILE_LINEAR);
    CHECK(q && th_f64_size(q, 0) == 2 && th_f64_get(q, IX(0)) == 2.5 && th_f64_get(q, IX(1)) == 25.0);
    th_f64_tensor *o = th_f64_zeros(1, SZ(2));
    CHECK_INT_EQ(th_f64_quantile_dim_out(o, bt, 0.75, 0, false, TH_QUANTILE_HIGHER), TH_OK);
    CHECK(th_f64_get(o, IX(0)) == 3.0 && th_f64_get(o, IX(1)) == 30.0);
    th_f64_tensor *o0 = th_f64_empty(0, NULL);
    CHECK_INT_EQ(th_f64_quantile_all_out(o0, b, 0.5, TH_QUANTILE_MIDPOINT), TH_OK);
    CHECK(item(o0) == 6.5); /* (3 + 10) / 2 */
    th_f64_release(o0);
    th_f64_release(o);
    th_f64_release(q);
    th_f64_release(bt);
    th_f64_release(b);
    th_f64_release(a);
}

static void test_kthvalue(void)
{
    const double v[] = {2, 1, 2, 1, NAN};
    th_f64_tensor *a = f64_of(v, 1, SZ(5));
    const double want[] = {1, 1, 2, 2, NAN};
    const int64_t want_idx[] = {1, 3, 0, 2, 4}; /* ties by position; NaN last */
    for (int64_t k = 1; k <= 5; k++) {
        th_i64_tensor *idx = NULL;
        th_f64_tensor *r = th_f64_kthvalue(a, k, 0, false, &idx);
        CHECK(r && idx && same(item(r), want[k - 1]) && th_i64_get(idx, NULL) == want_idx[k - 1]);
        th_f64_release(r);
        th_i64_release(idx);
    }
    /* 2x3 transposed, over dim 1 of the (3, 2) transpose: rows (5 0) (4 1) (3 2) of a's columns */
    const double w[] = {5, 4, 3, 0, 1, 2};
    th_f64_tensor *b = f64_of(w, 2, SZ(2, 3)), *bt = th_f64_transpose(b, 0, 1);
    th_f64_tensor *vals = th_f64_empty(2, SZ(3, 1));
    th_i64_tensor *idx = th_i64_empty(2, SZ(3, 1));
    CHECK_INT_EQ(th_f64_kthvalue_out(vals, idx, bt, 2, 1, true), TH_OK);
    CHECK(th_f64_get(vals, IX(0, 0)) == 5 && th_f64_get(vals, IX(2, 0)) == 3);
    CHECK(th_i64_get(idx, IX(0, 0)) == 0 && th_i64_get(idx, IX(1, 0)) == 0);
    CHECK_INT_EQ(th_f64_kthvalue_out(vals, NULL, bt, 1, 1, true), TH_OK);
    CHECK(th_f64_get(vals, IX(0, 0)) == 0 && th_f64_get(vals, IX(1, 0)) == 1);
    th_i64_release(idx);
    th_f64_release(vals);
    th_f64_release(bt);
    th_f64_release(b);
    th_f64_release(a);
}

static void test_nan_reductions(void)
{
    const double v[] = {1, NAN, 3, NAN, NAN, NAN, -2, 5, NAN}; /* 3x3 */
    th_f64_tensor *a = f64_of(v, 2, SZ(3, 3));
    th_f64_tensor *r = th_f64_nansum_all(a);
    CHECK(r && item(r) == 7.0);
    th_f64_release(r);
    r = th_f64_nanmean_all(a);
    CHECK(r && item(r) == 7.0 / 4.0);
    th_f64_release(r);
    r = th_f64_nanmax_all(a);
    CHECK(r && item(r) == 5.0);
    th_f64_release(r);
    r = th_f64_nanmin_all(a);
    CHECK(r && item(r) == -2.0);
    th_f64_release(r);
    /* rows: (1 NaN 3) (NaN NaN NaN) (-2 5 NaN) */
    r = th_f64_nansum_dim(a, 1, false);
    CHECK(r && th_f64_get(r, IX(0)) == 4 && th_f64_get(r, IX(1)) == 0 && th_f64_get(r, IX(2)) == 3);
    th_f64_release(r);
    r = th_f64_nanmean_dim(a, 1, true);
    CHECK(r && th_f64_ndim(r) == 2 && th_f64_get(r, IX(0, 0)) == 2 && isnan(th_f64_get(r, IX(1, 0))) &&
          th_f64_get(r, IX(2, 0)) == 1.5);
    th_f64_release(r);
    r = th_f64_nanmax_dim(a, -1, false);
    CHECK(r && th_f64_get(r, IX(0)) == 3 && isnan(th_f64_get(r, IX(1))) && th_f64_get(r, IX(2)) == 5);
    th_f64_release(r);
    /* columns, through the transpose's rows */
    th_f64_tensor *at = th_f64_transpose(a, 0, 1);
    r = th_f64_nanmin_dim(at, 1, false);
    CHECK(r && th_f64_get(r, IX(0)) == -2 && th_f64_get(r, IX(1)) == 5 && th_f64_get(r, IX(2)) == 3);
    th_f64_release(r);
    th_f64_tensor *o = th_f64_empty(1, SZ(3)), *o0 = th_f64_empty(0, NULL);
    CHECK_INT_EQ(th_f64_nansum_dim_out(o, at, 1, false), TH_OK);
    CHECK(th_f64_get(o, IX(0)) == -1 && th_f64_get(o, IX(1)) == 5 && th_f64_get(o, IX(2)) == 3);
    CHECK_INT_EQ(th_f64_nanmean_dim_out(o, a, 0, false), TH_OK);
    CHECK(th_f64_get(o, IX(0)) == -0.5 && th_f64_get(o, IX(1)) == 5 && th_f64_get(o, IX(2)) == 3);
    CHECK_INT_EQ(th_f64_nanmax_dim_out(o, a, 0, false), TH_OK);
    CHECK(th_f64_get(o, IX(0)) == 1 && th_f64_get(o, IX(1)) == 5);
    CHECK_INT_EQ(th_f64_nanmin_dim_out(o, a, 0, false), TH_OK);
    CHECK(th_f64_get(o, IX(0)) == -2);
    CHECK_INT_EQ(th_f64_nansum_all_out(o0, a), TH_OK);
    CHECK(item(o0) == 7);
    CHECK_INT_EQ(th_f64_nanmean_all_out(o0, a), TH_OK);
    CHECK(item(o0) == 1.75);
    CHECK_INT_EQ(th_f64_nanmax_all_out(o0, a), TH_OK);
    CHECK(item(o0) == 5);
    CHECK_INT_EQ(th_f64_nanmin_all_out(o0, a), TH_OK);
    CHECK(item(o0) == -2);
    /* no elements: nansum 0, nanmean NaN, as NumPy; over an empty dim, one result per row */
    th_f64_tensor *e = th_f64_empty(2, SZ(3, 0));
    r = th_f64_nansum_all(e);
    CHECK(r && item(r) == 0);
    th_f64_release(r);
    r = th_f64_nanmean_all(e);
    CHECK(r && isnan(item(r)));
    th_f64_release(r);
    r = th_f64_nansum_dim(e, 1, false);
    CHECK(r && th_f64_size(r, 0) == 3 && th_f64_get(r, IX(2)) == 0);
    th_f64_release(r);
    r = th_f64_nanmean_dim(e, 1, true);
    CHECK(r && th_f64_size(r, 0) == 3 && isnan(th_f64_get(r, IX(1, 0))));
    th_f64_release(r);
    th_f64_release(e);
    th_f64_release(o0);
    th_f64_release(o);
    th_f64_release(at);
    th_f64_release(a);
}

/* f32, f16, bf16: the same paths, values rounded once into the dtype. */
static void test_dtypes(void)
{
    th_f32_tensor *a = th_f32_empty(1, SZ(5));
    const float v[] = {0.1f, 0.3f, NAN, 0.2f, 0.4f};
    memcpy(th_f32_data(a), v, sizeof v);
    th_f32_tensor *r = th_f32_nanmedian_all(a);
    CHECK(r && th_f32_get(r, NULL) == 0.2f);
    th_f32_release(r);
    r = th_f32_quantile_all(a, 0.5, TH_QUANTILE_LINEAR);
    CHECK(r && isnan(th_f32_get(r, NULL)));
    th_f32_release(r);
    r = th_f32_nansum_all(a);
    CHECK(r && th_f32_get(r, NULL) == (float)(0.1f + (double)0.3f + 0.2f + 0.4f));
    th_f32_release(r);
    th_f16_tensor *h = th_f16_convert((const th_tensor *)a);
    th_i64_tensor *idx = NULL;
    th_f16_tensor *hr = th_f16_kthvalue(h, 2, 0, false, &idx);
    CHECK(hr && idx && th_float16_to_float(th_f16_get(hr, NULL)) == th_float16_to_float(th_float16_from_float(0.2f)));
    CHECK(idx && th_i64_get(idx, NULL) == 3);
    th_f16_release(hr);
    th_i64_release(idx);
    hr = th_f16_nanmean_all(h);
    CHECK(hr && fabsf(th_float16_to_float(th_f16_get(hr, NULL)) - 0.25f) < 1e-3f);
    th_f16_release(hr);
    th_bf16_tensor *g = th_bf16_convert((const th_tensor *)a);
    th_bf16_tensor *gr = th_bf16_median_dim(g, 0, true, &idx);
    CHECK(gr && idx && isnan(th_bfloat16_to_float(th_bf16_get(gr, IX(0)))) && th_i64_get(idx, IX(0)) == 2);
    th_bf16_release(gr);
    th_i64_release(idx);
    gr = th_bf16_nanmax_dim(g, 0, false);
    CHECK(gr && th_bfloat16_to_float(th_bf16_get(gr, NULL)) == th_bfloat16_to_float(th_bfloat16_from_float(0.4f)));
    th_bf16_release(gr);
    th_bf16_release(g);
    th_f16_release(h);
    th_f32_release(a);
}

/* The _Generic front door (core/front.h) reaches the typed functions. */
static void test_generic(void)
{
    const double v[] = {4, NAN, 1, 3};
    th_f64_tensor *a = f64_of(v, 2, SZ(2, 2));
    th_i64_tensor *idx = NULL;
    th_f64_tensor *r[15] = {
        th_median_all(a),          th_median_dim(a, 1, false, &idx), th_nanmedian_all(a),
        th_nanmedian_dim(a, 0, true, NULL), th_quantile_all(a, 1.0, TH_QUANTILE_HIGHER),
        th_quantile_dim(a, 0.0, 0, false, TH_QUANTILE_LINEAR), th_kthvalue(a, 2, 1, false, NULL),
        th_nansum_all(a),          th_nansum_dim(a, 0, false), th_nanmean_all(a),
        th_nanmean_dim(a, 1, false), th_nanmax_all(a),     th_nanmax_dim(a, 1, false),
        th_nanmin_all(a),          th_nanmin_dim(a, 0, true)};
    for (int i = 0; i < 15; i++) CHECK(r[i] != NULL);
    if (r[14] && idx) {
        CHECK(isnan(item(r[0])) && th_f64_get(r[1], IX(1)) == 1.0 && th_i64_get(idx, IX(1)) == 0);
        CHECK(item(r[2]) == 3.0 && th_f64_get(r[3], IX(0, 0)) == 1.0 && isnan(item(r[4])));
        CHECK(th_f64_get(r[5], IX(0)) == 1.0 && isnan(th_f64_get(r[6], IX(0))) && item(r[7]) == 8.0);
        CHECK(th_f64_get(r[8], IX(1)) == 3.0 && item(r[9]) == 8.0 / 3.0 && th_f64_get(r[10], IX(0)) == 4.0);
        CHECK(item(r[11]) == 4.0 && th_f64_get(r[12], IX(1)) == 3.0 && item(r[13]) == 1.0);
        CHECK(th_f64_get(r[14], IX(0, 1)) == 3.0);
    }
    for (int i = 0; i < 15; i++) th_f64_release(r[i]);
    th_i64_release(idx);
    th_f64_release(a);
}

static void test_errors(void)
{
    th_f64_tensor *a = th_f64_zeros(2, SZ(2, 3)), *o = th_f64_empty(1, SZ(2)), *o0 = th_f64_empty(0, NULL);
    th_i64_tensor *idx = (th_i64_tensor *)1, *io = th_i64_empty(1, SZ(2));
    /* NULL tensor, NULL out */
    CHECK_NULL(th_f64_median_all(NULL), TH_ERR_INVALID, "th_f64_median_all", "NULL tensor");
    CHECK_NULL(th_f64_median_dim(NULL, 0, false, &idx), TH_ERR_INVALID, "th_f64_median_dim", "NULL tensor");
    CHECK(idx == NULL);
    CHECK_FAILS(th_f64_median_all_out(NULL, a), TH_ERR_INVALID, "th_f64_median_all_out", "NULL out");
    CHECK_FAILS(th_f64_nanmedian_dim_out(NULL, io, a, 1, false), TH_ERR_INVALID, "th_f64_nanmedian_dim_out",
                "NULL out");
    CHECK_FAILS(th_f64_quantile_dim_out(NULL, a, 0.5, 1, false, TH_QUANTILE_LINEAR), TH_ERR_INVALID,
                "th_f64_quantile_dim_out", "NULL out");
    CHECK_FAILS(th_f64_kthvalue_out(NULL, io, a, 1, 1, false), TH_ERR_INVALID, "th_f64_kthvalue_out", "NULL out");
    CHECK_FAILS(th_f64_nansum_all_out(o0, NULL), TH_ERR_INVALID, "th_f64_nansum_all_out", "NULL tensor");
    /* wrong dtypes: of a, of out, of the indices out */
    th_f32_tensor *f = th_f32_zeros(2, SZ(2, 3));
    CHECK_NULL(th_f64_nanmean_all((const th_f64_tensor *)f), TH_ERR_DTYPE, "th_f64_nanmean_all", "a is f32, not f64");
    CHECK_NULL(th_f64_kthvalue((const th_f64_tensor *)f, 1, 0, false, &idx), TH_ERR_DTYPE, "th_f64_kthvalue",
               "a is f32");
    CHECK(idx == NULL);
    th_f32_tensor *fo = th_f32_empty(1, SZ(2));
    CHECK_FAILS(th_f64_nanmax_dim_out((th_f64_tensor *)fo, a, 1, false), TH_ERR_DTYPE, "th_f64_nanmax_dim_out",
                "out is f32");
    CHECK_FAILS(th_f64_median_dim_out(o, (th_i64_tensor *)fo, a, 1, false), TH_ERR_DTYPE, "th_f64_median_dim_out",
                "out is f32; this result is i64");
    /* dims */
    CHECK_NULL(th_f64_median_dim(a, 2, false, NULL), TH_ERR_RANGE, "th_f64_median_dim", "dim 2 is out of range");
    CHECK_NULL(th_f64_nanmedian_dim(a, -3, false, NULL), TH_ERR_RANGE, "th_f64_nanmedian_dim", "dim -3");
    CHECK_NULL(th_f64_quantile_dim(a, 0.5, 5, false, TH_QUANTILE_LINEAR), TH_ERR_RANGE, "th_f64_quantile_dim",
               "dim 5");
    CHECK_NULL(th_f64_kthvalue(a, 1, 2, false, NULL), TH_ERR_RANGE, "th_f64_kthvalue", "dim 2");
    CHECK_NULL(th_f64_nansum_dim(a, 7, false), TH_ERR_RANGE, "th_f64_nansum_dim", "dim 7");
    CHECK_FAILS(th_f64_nanmin_dim_out(o, a, -4, false), TH_ERR_RANGE, "th_f64_nanmin_dim_out", "dim -4");
    /* q and method */
    CHECK_NULL(th_f64_quantile_all(a, -0.25, TH_QUANTILE_LINEAR), TH_ERR_RANGE, "th_f64_quantile_all",
               "q -0.25 is outside [0, 1]");
    CHECK_NULL(th_f64_quantile_dim(a, 1.5, 0, false, TH_QUANTILE_LOWER), TH_ERR_RANGE, "th_f64_quantile_dim",
               "q 1.5 is outside");
    CHECK_FAILS(th_f64_quantile_all_out(o0, a, NAN, TH_QUANTILE_LINEAR), TH_ERR_RANGE, "th_f64_quantile_all_out",
                "q nan is outside");
    CHECK_NULL(th_f64_quantile_all(a, 0.5, (th_quantile_method)5), TH_ERR_INVALID, "th_f64_quantile_all",
               "method 5 is not a th_quantile_method");
    CHECK_NULL(th_f64_quantile_all(a, 0.5, (th_quantile_method)-1), TH_ERR_INVALID, "th_f64_quantile_all",
               "method -1");
    /* k */
    CHECK_NULL(th_f64_kthvalue(a, 0, 1, false, &idx), TH_ERR_RANGE, "th_f64_kthvalue", "k 0 is outside 1..3");
    CHECK(idx == NULL);
    CHECK_NULL(th_f64_kthvalue(a, 4, -1, false, NULL), TH_ERR_RANGE, "th_f64_kthvalue", "k 4 is outside 1..3");
    CHECK_FAILS(th_f64_kthvalue_out(o, io, a, 3, 0, false), TH_ERR_RANGE, "th_f64_kthvalue_out",
                "k 3 is outside 1..2");
    /* no elements where there is no answer */
    th_f64_tensor *e = th_f64_empty(2, SZ(2, 0));
    CHECK_NULL(th_f64_quantile_all(e, 0.5, TH_QUANTILE_LINEAR), TH_ERR_SHAPE, "th_f64_quantile_all",
               "quantile of no elements (a tensor of size 0)");
    CHECK_NULL(th_f64_quantile_dim(e, 0.5, 1, false, TH_QUANTILE_LINEAR), TH_ERR_SHAPE, "th_f64_quantile_dim",
               "quantile of no elements (a dim of size 0)");
    CHECK_NULL(th_f64_nanmax_all(e), TH_ERR_SHAPE, "th_f64_nanmax_all", "nanmax of no elements");
    CHECK_NULL(th_f64_nanmin_dim(e, 1, true), TH_ERR_SHAPE, "th_f64_nanmin_dim", "nanmin of no elements");
    CHECK_NULL(th_f64_nanmedian_dim(e, 1, true, NULL), TH_ERR_SHAPE, "th_f64_nanmedian_dim", "nanmedian of no");
    CHECK_NULL(th_f64_kthvalue(e, 1, 1, false, NULL), TH_ERR_SHAPE, "th_f64_kthvalue", "kthvalue of no elements");
    /* outs: shape, read-only, overlapping elements */
    th_f64_tensor *o3 = th_f64_empty(1, SZ(3));
    CHECK_FAILS(th_f64_median_dim_out(o3, NULL, a, 1, false), TH_ERR_SHAPE, "th_f64_median_dim_out",
                "out has shape (3)");
    CHECK_FAILS(th_f64_median_dim_out(o, (th_i64_tensor *)NULL, a, 1, true), TH_ERR_SHAPE, "th_f64_median_dim_out",
                "out has shape (2)");
    th_i64_tensor *io3 = th_i64_empty(1, SZ(3));
    CHECK_FAILS(th_f64_kthvalue_out(o, io3, a, 1, 1, false), TH_ERR_SHAPE, "th_f64_kthvalue_out", "out has shape (3)");
    CHECK_FAILS(th_f64_nansum_all_out(o, a), TH_ERR_SHAPE, "th_f64_nansum_all_out", "out has shape (2)");
    th_f64_tensor *ro = th_f64_empty(1, SZ(2));
    th_storage_make_read_only(th_f64_storage(ro));
    CHECK_FAILS(th_f64_nanmean_dim_out(ro, a, 1, false), TH_ERR_READ_ONLY, "th_f64_nanmean_dim_out", "read-only");
    th_f64_tensor *one = th_f64_empty(1, SZ(1)), *ex = th_f64_expand(one, 1, SZ(2));
    CHECK_FAILS(th_f64_quantile_dim_out(ex, a, 0.5, 1, false, TH_QUANTILE_LINEAR), TH_ERR_INVALID,
                "th_f64_quantile_dim_out", "overlaps its other dims");
    /* device memory */
    static double mem[6];
    th_storage *s = th_storage_from_blob(mem, sizeof mem, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    th_f64_tensor *d = th_f64_new_with_storage(s, 0, 2, SZ(2, 3), NULL);
    th_storage_release(s);
    CHECK_NULL(th_f64_nanmedian_all(d), TH_ERR_DEVICE, "th_f64_nanmedian_all", "device type");
    th_f64_release(d);
    th_f64_release(ex);
    th_f64_release(one);
    th_f64_release(ro);
    th_i64_release(io3);
    th_f64_release(o3);
    th_f64_release(e);
    th_f32_release(fo);
    th_f32_release(f);
    th_i64_release(io);
    th_f64_release(o0);
    th_f64_release(o);
    th_f64_release(a);
}

int main(void)
{
    test_begin();
    test_median();
    test_quantile();
    test_kthvalue();
    test_nan_reductions();
    test_dtypes();
    test_generic();
    test_errors();
    return test_end("test_stats");
}
