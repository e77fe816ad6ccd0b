/* tests/test_search.c: searchsorted, bucketize, histc, histogram, bincount, isin, isclose and allclose
 * (ops/search.h): values worked out by hand (ties, NaNs, both sides, N-d rows, transposed and empty operands,
 * int32 outs, integer and 16-bit dtypes) and every error path with its message. torch's and NumPy's numbers
 * over random shapes are in tests/numpy/search_torch. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})
#define V(...) ((const double[]){__VA_ARGS__})

/* A contiguous f64 tensor of shape (nd, sizes) holding v. */
static th_f64_tensor *mk(int nd, const int64_t *sizes, const double *v)
{
    th_f64_tensor *t = th_f64_empty(nd, sizes);
    for (int64_t k = 0; k < th_f64_numel(t); k++) th_f64_data(t)[k] = v[k];
    return t;
}

static th_f64_tensor *vec(int64_t n, const double *v) { return mk(1, &n, v); }

/* r (contiguous) holds the n int64 values want. */
static bool ieq(const th_i64_tensor *r, int64_t n, const int64_t *want)
{
    if (!r || th_i64_numel(r) != n) return false;
    for (int64_t k = 0; k < n; k++)
        if (th_i64_data((th_i64_tensor *)r)[k] != want[k]) return false;
    return true;
}

static bool deq(const th_f64_tensor *r, int64_t n, const double *want)
{
    if (!r || th_f64_numel(r) != n) return false;
    for (int64_t k = 0; k < n; k++)
        if (th_f64_data((th_f64_tensor *)r)[k] != want[k]) return false;
    return true;
}

static bool beq(const th_bool_tensor *r, int64_t n, const char *want)
{
    if (!r || th_bool_numel(r) != n) return false;
    for (int64_t k = 0; k < n; k++)
        if (th_bool_data((th_bool_tensor *)r)[k] != (want[k] == '1')) return false;
    return true;
}

static void test_searchsorted(void)
{
    th_f64_tensor *s = vec(5, V(1, 2, 2, 3, NAN));
    th_f64_tensor *v = vec(7, V(0, 2, 2.5, 3, 4, NAN, 1e30));
    th_i64_tensor *r = th_f64_searchsorted(s, v, NULL);
    CHECK(ieq(r, 7, (const int64_t[]){0, 1, 5, 5, 5, 5, 5})); /* torch 1.13's numbers, NaN included */
    th_i64_release(r);
    r = th_f64_searchsorted(s, v, &(th_search_opts){.right = true});
    CHECK(ieq(r, 7, (const int64_t[]){0, 5, 5, 5, 5, 5, 5}));
    th_i64_release(r);
    /* without NaN: plain lower and upper bounds */
    th_f64_tensor *s2 = vec(4, V(1, 2, 2, 3));
    r = th_f64_searchsorted(s2, v, NULL);
    CHECK(ieq(r, 7, (const int64_t[]){0, 1, 3, 3, 4, 4, 4}));
    th_i64_release(r);
    r = th_f64_bucketize(v, s2, true);
    CHECK(ieq(r, 7, (const int64_t[]){0, 3, 3, 4, 4, 4, 4}));
    th_i64_release(r);
    /* int32 out, through a transposed view */
    th_i32_tensor *o = th_i32_empty(1, SZ(7));
    CHECK_INT_EQ(th_f64_searchsorted_out(th_i32_base(o), s2, v, NULL), TH_OK);
    CHECK(th_i32_data(o)[2] == 3 && th_i32_data(o)[4] == 4);
    th_i32_release(o);
    /* N-d: rows of sorted (2, 3) searched for the values of their row; values given transposed (2, 2) */
    th_f64_tensor *sn = mk(2, SZ(2, 3), V(1, 2, 3, 10, 20, 30));
    th_f64_tensor *vt0 = mk(2, SZ(2, 2), V(2, 15, 35, 0)); /* transposed: row 0 = (2, 35), row 1 = (15, 0) */
    th_f64_tensor *vt = th_f64_transpose(vt0, 0, 1);
    r = th_f64_searchsorted(sn, vt, NULL);
    CHECK(ieq(r, 4, (const int64_t[]){1, 3, 1, 0}));
    th_i64_release(r);
    /* a transposed sorted: the columns of (3, 2) become rows */
    th_f64_tensor *st0 = mk(2, SZ(3, 2), V(1, 10, 2, 20, 3, 30));
    th_f64_tensor *st = th_f64_transpose(st0, 0, 1);
    r = th_f64_searchsorted(st, vt, &(th_search_opts){.right = true});
    CHECK(ieq(r, 4, (const int64_t[]){2, 3, 1, 0}));
    th_i64_release(r);
    /* empty values, an empty sorted row */
    th_f64_tensor *e = th_f64_empty(1, SZ(0));
    r = th_f64_searchsorted(s2, e, NULL);
    CHECK(r && th_i64_numel(r) == 0);
    th_i64_release(r);
    r = th_f64_searchsorted(e, v, NULL);
    CHECK(ieq(r, 7, (const int64_t[]){0, 0, 0, 0, 0, 0, 0}));
    th_i64_release(r);
    /* integers: int64 compared exactly, beyond double's 53 bits */
    th_i64_tensor *si = th_i64_empty(1, SZ(3)), *vi = th_i64_empty(1, SZ(2));
    th_i64_data(si)[0] = INT64_MAX - 2, th_i64_data(si)[1] = INT64_MAX - 1, th_i64_data(si)[2] = INT64_MAX;
    th_i64_data(vi)[0] = INT64_MAX - 1, th_i64_data(vi)[1] = INT64_MAX;
    r = th_i64_searchsorted(si, vi, NULL);
    CHECK(ieq(r, 2, (const int64_t[]){1, 2}));
    th_i64_release(r);
    /* f16 */
    th_f16_tensor *h = th_f16_empty(1, SZ(4)), *hv = th_f16_empty(1, SZ(7));
    CHECK(th_tensor_copy(th_f16_base(h), th_f64_base(s2)) == TH_OK);
    CHECK(th_tensor_copy(th_f16_base(hv), th_f64_base(v)) == TH_OK); /* 1e30 becomes inf */
    r = th_f16_searchsorted(h, hv, NULL);
    CHECK(ieq(r, 7, (const int64_t[]){0, 1, 3, 3, 4, 4, 4}));
    th_i64_release(r);
    th_f16_release(h);
    th_f16_release(hv);

    /* errors */
    th_f64_tensor *z = th_f64_empty(0, NULL);
    CHECK_NULL(th_f64_searchsorted(z, v, NULL), TH_ERR_SHAPE, "th_f64_searchsorted", "sorted is 0-d");
    CHECK_NULL(th_f64_searchsorted(sn, v, NULL), TH_ERR_SHAPE, "th_f64_searchsorted",
               "sorted has shape (2, 3) and values (7)");
    th_f64_tensor *un = vec(3, V(1, 3, 2));
    CHECK_NULL(th_f64_searchsorted(un, v, NULL), TH_ERR_INVALID, "th_f64_searchsorted",
               "sorted is not sorted: row 0 has 3 at 1 before 2");
    th_f64_tensor *nanfirst = vec(2, V(NAN, 1));
    CHECK_NULL(th_f64_bucketize(v, nanfirst, false), TH_ERR_INVALID, "th_f64_bucketize",
               "boundaries is not sorted: row 0 has nan at 0 before 1");
    CHECK_NULL(th_f64_bucketize(v, sn, false), TH_ERR_SHAPE, "th_f64_bucketize",
               "boundaries has shape (2, 3); it must be 1-d");
    CHECK_NULL(th_f64_searchsorted(NULL, v, NULL), TH_ERR_INVALID, "th_f64_searchsorted", "NULL sorted");
    CHECK_NULL(th_f64_searchsorted(s2, NULL, NULL), TH_ERR_INVALID, "th_f64_searchsorted", "NULL values");
    th_i32_tensor *ui = th_i32_empty(2, SZ(2, 2));
    th_i32_data(ui)[0] = 1, th_i32_data(ui)[1] = 2, th_i32_data(ui)[2] = 9, th_i32_data(ui)[3] = -9;
    CHECK_NULL(th_i32_searchsorted(ui, ui, NULL), TH_ERR_INVALID, "th_i32_searchsorted",
               "sorted is not sorted: row 1 has 9 at 0 before -9");
    th_i32_release(ui);
    CHECK_FAILS(th_f64_searchsorted_out(NULL, s2, v, NULL), TH_ERR_INVALID, "th_f64_searchsorted_out", "NULL out");
    th_f64_tensor *of = th_f64_empty(1, SZ(7));
    CHECK_FAILS(th_f64_searchsorted_out(th_f64_base(of), s2, v, NULL), TH_ERR_DTYPE, "th_f64_searchsorted_out",
                "out is f64; the result is int64 or int32");
    th_i64_tensor *o3 = th_i64_empty(1, SZ(3));
    CHECK_FAILS(th_f64_bucketize_out(th_i64_base(o3), v, s2, false), TH_ERR_SHAPE, "th_f64_bucketize_out",
                "out has shape (3)");
    CHECK_FAILS(th_f64_searchsorted_out(th_i64_base(o3), s2, v, NULL), TH_ERR_SHAPE, "th_f64_searchsorted_out",
                "out has shape (3)");
    th_i64_tensor *o7 = th_i64_empty(1, SZ(7));
    CHECK_INT_EQ(th_f64_bucketize_out(th_i64_base(o7), v, s2, false), TH_OK);
    CHECK(ieq(o7, 7, (const int64_t[]){0, 1, 3, 3, 4, 4, 4}));
    th_f64_tensor *wrong = (th_f64_tensor *)th_f32_empty(1, SZ(2));
    CHECK_NULL(th_f64_searchsorted(wrong, v, NULL), TH_ERR_DTYPE, "th_f64_searchsorted", "sorted is f32");
    th_f32_release((th_f32_tensor *)wrong);
    th_f64_release(of);
    th_i64_release(o3);
    th_i64_release(o7);
    th_i64_release(si);
    th_i64_release(vi);
    th_f64_release(z);
    th_f64_release(un);
    th_f64_release(nanfirst);
    th_f64_release(e);
    th_f64_release(st);
    th_f64_release(st0);
    th_f64_release(vt);
    th_f64_release(vt0);
    th_f64_release(sn);
    th_f64_release(s2);
    th_f64_release(v);
    th_f64_release(s);
}

static void test_bins(void)
{
    /* histc: [0, 10] in 3 bins, the last closed; outside and NaN ignored */
    th_f64_tensor *x = vec(13, V(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, NAN, 11));
    th_f64_tensor *h = th_f64_histc(x, 3, 0, 10);
    CHECK(deq(h, 3, V(4, 3, 4)));
    th_f64_release(h);
    /* min = max: the data's range ([-1, 2] here); one value: widened by 1 */
    th_f64_tensor *y = vec(4, V(-1, 2, 0.5, 2));
    h = th_f64_histc(y, 3, 0, 0);
    CHECK(deq(h, 3, V(1, 1, 2)));
    th_f64_release(h);
    th_f64_tensor *one = vec(2, V(5, 5));
    h = th_f64_histc(one, 4, 7, 7);
    CHECK(deq(h, 4, V(0, 0, 2, 0)));
    th_f64_release(h);
    th_f64_tensor *e = th_f64_empty(1, SZ(0));
    h = th_f64_histc(e, 2, 0, 0);
    CHECK(deq(h, 2, V(0, 0)));
    th_f64_release(h);
    /* f32: computed in float as torch does (0.7f * 10 rounds to 7: bin 7, where double gives 6) */
    th_f32_tensor *xf = th_f32_empty(1, SZ(2)), *hf = th_f32_empty(1, SZ(10));
    th_f32_data(xf)[0] = 0.7f, th_f32_data(xf)[1] = 1.0f;
    CHECK_INT_EQ(th_f32_histc_out(hf, xf, 10, 0, 1), TH_OK);
    CHECK(th_f32_data(hf)[7] == 1 && th_f32_data(hf)[6] == 0 && th_f32_data(hf)[9] == 1);
    CHECK_NULL(th_f32_histc(xf, 2, 0, 1e300), TH_ERR_RANGE, "th_f32_histc", "the range [0, inf] is not finite");
    th_f32_tensor *y2 = th_f32_empty(1, SZ(2));
    th_f32_data(y2)[0] = 1, th_f32_data(y2)[1] = 2;
    th_bool_tensor *bt = th_f32_isclose(xf, y2, 1e300, 0, false); /* rtol beyond float's range: infinite */
    CHECK(bt && th_bool_data(bt)[0] && th_bool_data(bt)[1]);
    th_bool_release(bt);
    th_f32_release(y2);
    th_f32_release(xf);
    th_f32_release(hf);
    CHECK_NULL(th_f64_histc(x, 0, 0, 1), TH_ERR_RANGE, "th_f64_histc", "bins must be positive, not 0");
    CHECK_NULL(th_f64_histc(x, 2, 3, 1), TH_ERR_RANGE, "th_f64_histc", "min 3 is larger than max 1");
    CHECK_NULL(th_f64_histc(x, 2, NAN, 1), TH_ERR_RANGE, "th_f64_histc", "the range [nan, 1] holds a NaN");
    CHECK_NULL(th_f64_histc(x, 2, 0, 0), TH_ERR_RANGE, "th_f64_histc", "the range [nan, nan] is not finite");
    CHECK_NULL(th_f64_histc(x, 2, 0, INFINITY), TH_ERR_RANGE, "th_f64_histc", "the range [0, inf] is not finite");
    th_f64_tensor *o2 = th_f64_empty(1, SZ(2));
    CHECK_FAILS(th_f64_histc_out(o2, x, 3, 0, 10), TH_ERR_SHAPE, "th_f64_histc_out", "out has shape (2)");
    CHECK_FAILS(th_f64_histc_out(NULL, x, 3, 0, 10), TH_ERR_INVALID, "th_f64_histc_out", "NULL out");
    CHECK_NULL(th_f64_histc(NULL, 3, 0, 10), TH_ERR_INVALID, "th_f64_histc", "NULL x");

    /* histogram: NumPy's edges and bins (0.3 is in bin 2: 0.3 * 10 rounds to 3, but 0.3 < 3 * 0.1) */
    th_f64_tensor *hist = NULL, *edges = NULL;
    th_f64_tensor *z = vec(6, V(0.1, 0.2, 0.30000001, 0.3, 0.7, 1.0));
    CHECK_INT_EQ(th_f64_histogram(z, 10, V(0, 1), NULL, &hist, &edges), TH_OK);
    CHECK(deq(hist, 10, V(0, 1, 2, 1, 0, 0, 1, 0, 0, 1))); /* torch.histogram says 0, 1, 1, 2, ... */
    CHECK(edges && th_f64_numel(edges) == 11 && th_f64_data(edges)[3] == 3 * 0.1 && th_f64_data(edges)[10] == 1);
    th_f64_release(hist);
    th_f64_release(edges);
    th_f64_tensor *w = vec(6, V(1, 2, 3, 4, 5, 6));
    CHECK_INT_EQ(th_f64_histogram(z, 2, NULL, w, &hist, &edges), TH_OK); /* data range [0.1, 1] */
    CHECK(deq(hist, 2, V(10, 11)) && th_f64_data(edges)[0] == 0.1 && th_f64_data(edges)[2] == 1.0);
    th_f64_release(hist);
    th_f64_release(edges);
    CHECK_INT_EQ(th_f64_histogram(e, 2, NULL, NULL, &hist, &edges), TH_OK); /* no data: [0, 1] */
    CHECK(deq(hist, 2, V(0, 0)) && deq(edges, 3, V(0, 0.5, 1)));
    th_f64_release(hist);
    th_f64_release(edges);
    CHECK_INT_EQ(th_f64_histogram(one, 1, NULL, NULL, &hist, &edges), TH_OK); /* one value: +-0.5 */
    CHECK(deq(hist, 1, V(2)) && deq(edges, 2, V(4.5, 5.5)));
    th_f64_release(hist);
    th_f64_release(edges);
    CHECK_FAILS(th_f64_histogram(z, -1, NULL, NULL, &hist, &edges), TH_ERR_RANGE, "th_f64_histogram",
                "bins must be positive, not -1");
    CHECK(hist == NULL && edges == NULL);
    CHECK_FAILS(th_f64_histogram(z, 2, V(1, 0), NULL, &hist, &edges), TH_ERR_RANGE, "th_f64_histogram",
                "range min 1 is larger than max 0");
    CHECK_FAILS(th_f64_histogram(z, 2, V(0, NAN), NULL, &hist, &edges), TH_ERR_RANGE, "th_f64_histogram",
                "the range [0, nan] holds a NaN");
    CHECK_FAILS(th_f64_histogram(x, 2, NULL, NULL, &hist, &edges), TH_ERR_RANGE, "th_f64_histogram",
                "the data's range [nan, nan] is not finite");
    CHECK_FAILS(th_f64_histogram(x, 2, V(0, INFINITY), NULL, &hist, &edges), TH_ERR_RANGE, "th_f64_histogram",
                "the given range [0, inf] is not finite");
    CHECK_FAILS(th_f64_histogram(z, 2, NULL, x, &hist, &edges), TH_ERR_SHAPE, "th_f64_histogram",
                "weights has shape (13); x has shape (6)");
    CHECK_FAILS(th_f64_histogram(z, 2, NULL, NULL, NULL, &edges), TH_ERR_INVALID, "th_f64_histogram", "NULL hist");
    CHECK_FAILS(th_f64_histogram(NULL, 2, NULL, NULL, &hist, &edges), TH_ERR_INVALID, "th_f64_histogram", "NULL x");
    CHECK(hist == NULL && edges == NULL);

    /* bincount */
    th_i32_tensor *b = th_i32_empty(1, SZ(5));
    const int32_t bv[5] = {1, 3, 1, 0, 3};
    memcpy(th_i32_data(b), bv, sizeof bv);
    th_i64_tensor *c = th_i32_bincount(b, 0);
    CHECK(ieq(c, 4, (const int64_t[]){1, 2, 0, 2}));
    th_i64_release(c);
    c = th_i32_bincount(b, 6);
    CHECK(ieq(c, 6, (const int64_t[]){1, 2, 0, 2, 0, 0}));
    th_i64_release(c);
    th_f64_tensor *bw = vec(5, V(0.5, 1, 2, 4, 8));
    th_f64_tensor *cw = th_i32_bincount_weighted(b, bw, 0);
    CHECK(deq(cw, 4, V(4, 2.5, 0, 9)));
    th_f64_release(cw);
    th_u8_tensor *eb = th_u8_empty(1, SZ(0));
    c = th_u8_bincount(eb, 3);
    CHECK(ieq(c, 3, (const int64_t[]){0, 0, 0}));
    th_i64_release(c);
    c = th_u8_bincount(eb, 0);
    CHECK(c && th_i64_numel(c) == 0);
    th_i64_release(c);
    th_i32_data(b)[2] = -4;
    CHECK_NULL(th_i32_bincount(b, 0), TH_ERR_RANGE, "th_i32_bincount", "x holds a negative value (-4 at index 2)");
    CHECK_NULL(th_i32_bincount(b, -1), TH_ERR_RANGE, "th_i32_bincount", "minlength is -1; it must be >= 0");
    th_i32_tensor *b2 = th_i32_empty(2, SZ(1, 2));
    CHECK_NULL(th_i32_bincount(b2, 0), TH_ERR_SHAPE, "th_i32_bincount", "x has shape (1, 2); it must be 1-d");
    CHECK_NULL(th_i32_bincount_weighted(b, x, 0), TH_ERR_SHAPE, "th_i32_bincount_weighted",
               "weights has 13 elements; x has 5");
    CHECK_NULL(th_i32_bincount_weighted(b, NULL, 0), TH_ERR_INVALID, "th_i32_bincount_weighted", "NULL weights");
    th_f64_tensor *w2 = th_f64_empty(2, SZ(5, 1));
    CHECK_NULL(th_i32_bincount_weighted(b, w2, 0), TH_ERR_SHAPE, "th_i32_bincount_weighted",
               "weights has shape (5, 1); it must be 1-d");
    th_f64_release(w2);
    CHECK_NULL(th_i32_bincount(NULL, 0), TH_ERR_INVALID, "th_i32_bincount", "NULL x");
    th_i32_release(b2);
    th_i32_release(b);
    th_u8_release(eb);
    th_f64_release(bw);
    th_f64_release(w);
    th_f64_release(z);
    th_f64_release(o2);
    th_f64_release(e);
    th_f64_release(one);
    th_f64_release(y);
    th_f64_release(x);
}

static void test_isin_isclose(void)
{
    th_f64_tensor *a = mk(2, SZ(2, 3), V(1, 2, NAN, INFINITY, 5, -0.0));
    th_f64_tensor *t = vec(5, V(5, NAN, 0, 1, INFINITY));
    th_bool_tensor *r = th_f64_isin(a, t, false);
    CHECK(beq(r, 6, "100111")); /* NaN is in nothing; -0 == 0 */
    th_bool_release(r);
    r = th_f64_isin(a, t, true);
    CHECK(beq(r, 6, "011000"));
    th_bool_release(r);
    th_f64_tensor *at = th_f64_transpose(a, 0, 1);
    th_bool_tensor *o = th_bool_empty(2, SZ(3, 2));
    CHECK_INT_EQ(th_f64_isin_out(o, at, t, false), TH_OK);
    CHECK(beq(o, 6, "110101"));
    th_f64_tensor *e = th_f64_empty(1, SZ(0));
    r = th_f64_isin(a, e, false);
    CHECK(beq(r, 6, "000000"));
    th_bool_release(r);
    r = th_f64_isin(e, t, false);
    CHECK(r && th_bool_numel(r) == 0);
    th_bool_release(r);
    th_i16_tensor *ia = th_i16_empty(1, SZ(3)), *it = th_i16_empty(1, SZ(2));
    th_i16_data(ia)[0] = 7, th_i16_data(ia)[1] = -7, th_i16_data(ia)[2] = 0;
    th_i16_data(it)[0] = -7, th_i16_data(it)[1] = 0;
    r = th_i16_isin(ia, it, false);
    CHECK(beq(r, 3, "011"));
    th_bool_release(r);
    CHECK_NULL(th_f64_isin(a, NULL, false), TH_ERR_INVALID, "th_f64_isin", "NULL test_elements");
    CHECK_NULL(th_f64_isin(NULL, t, false), TH_ERR_INVALID, "th_f64_isin", "NULL elements");
    th_bool_tensor *o2 = th_bool_empty(1, SZ(2));
    CHECK_FAILS(th_f64_isin_out(o2, a, t, false), TH_ERR_SHAPE, "th_f64_isin_out", "out has shape (2)");
    CHECK_FAILS(th_f64_isin_out(NULL, a, t, false), TH_ERR_INVALID, "th_f64_isin_out", "NULL out");

    /* isclose: broadcasting a (2, 3) against a row of 3 */
    th_f64_tensor *x = mk(2, SZ(2, 3), V(1, INFINITY, NAN, 1.0001, -INFINITY, 0));
    th_f64_tensor *y = vec(3, V(1.000001, INFINITY, NAN));
    r = th_f64_isclose(x, y, 1e-5, 1e-8, false);
    CHECK(beq(r, 6, "110000"));
    th_bool_release(r);
    r = th_f64_isclose(x, y, 1e-5, 1e-8, true);
    CHECK(beq(r, 6, "111000"));
    th_bool_release(r);
    r = th_f64_isclose(x, y, 1e-4, 0, false); /* 1.0001 vs 1.000001 now close */
    CHECK(beq(r, 6, "110100"));
    th_bool_release(r);
    th_bool_tensor *o6 = th_bool_empty(2, SZ(3, 2));
    th_bool_tensor *o6t = th_bool_transpose(o6, 0, 1);
    CHECK_INT_EQ(th_f64_isclose_out(o6t, x, y, 1e-5, 1e-8, true), TH_OK);
    CHECK(beq(o6, 6, "101010")); /* o6t's (2, 3) "111000" read in o6's order */
    th_bool_release(o6t);
    th_bool_release(o6);
    bool all = true;
    CHECK_INT_EQ(th_f64_allclose(x, y, 1e-5, 1e-8, true, &all), TH_OK);
    CHECK(!all);
    th_f64_tensor *x2 = vec(3, V(1, INFINITY, NAN));
    CHECK_INT_EQ(th_f64_allclose(x2, y, 1e-5, 1e-8, true, &all), TH_OK);
    CHECK(all);
    CHECK_INT_EQ(th_f64_allclose(x2, y, 1e-5, 1e-8, false, &all), TH_OK);
    CHECK(!all);
    CHECK_INT_EQ(th_f64_allclose(e, e, 1e-5, 1e-8, false, &all), TH_OK);
    CHECK(all);
    CHECK_NULL(th_f64_isclose(x, y, -1, 0, false), TH_ERR_RANGE, "th_f64_isclose", "rtol is -1; it must be >= 0");
    CHECK_NULL(th_f64_isclose(x, y, 0, NAN, false), TH_ERR_RANGE, "th_f64_isclose", "atol is nan; it must be >= 0");
    th_f64_tensor *y4 = vec(4, V(1, 2, 3, 4));
    CHECK_NULL(th_f64_isclose(x, y4, 0, 0, false), TH_ERR_SHAPE, "th_f64_isclose", "do not broadcast");
    CHECK_FAILS(th_f64_allclose(x, y4, 0, 0, false, &all), TH_ERR_SHAPE, "th_f64_allclose", "do not broadcast");
    CHECK_FAILS(th_f64_allclose(x, y, 0, 0, false, NULL), TH_ERR_INVALID, "th_f64_allclose", "NULL result");
    CHECK_FAILS(th_f64_isclose_out(o2, x, y, 0, 0, false), TH_ERR_SHAPE, "th_f64_isclose_out", "out has shape (2)");
    CHECK_NULL(th_f64_isclose(NULL, y, 0, 0, false), TH_ERR_INVALID, "th_f64_isclose", "NULL a");
    CHECK_FAILS(th_f64_isclose_out(NULL, x, y, 0, 0, false), TH_ERR_INVALID, "th_f64_isclose_out", "NULL out");
    th_bool_tensor *ob = th_bool_empty(2, SZ(1, 3));
    th_bool_tensor *ob0 = th_bool_expand(ob, 2, SZ(2, 3)); /* its rows are one row */
    CHECK_FAILS(th_f64_isclose_out(ob0, x, y, 0, 0, false), TH_ERR_INVALID, "th_f64_isclose_out",
                "several elements share an address");
    th_bool_release(ob0);
    th_bool_release(ob);
    th_f64_release(y4);
    th_f64_release(x2);
    th_f64_release(x);
    th_f64_release(y);
    th_bool_release(o2);
    th_i16_release(ia);
    th_i16_release(it);
    th_f64_release(e);
    th_bool_release(o);
    th_f64_release(at);
    th_f64_release(t);
    th_f64_release(a);
}

int main(void)
{
    test_begin();
    test_searchsorted();
    test_bins();
    test_isin_isclose();
    return test_end("test_search");
}
