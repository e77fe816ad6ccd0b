/* tests/test_sort.c: sort, topk and unique.
 *
 * sort against a reference that ranks each element by counting (stable: ties by position), for several
 * dtypes, both directions, every dim, transposed and expanded inputs, size-0, size-1 and 0-d; NaN and -0.0;
 * a large tensor with 1 and 2 threads; topk against sort; unique against counting; every error. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* Memory the library must not touch: host memory labelled as a CUDA device. */
static void *fake_device_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n);
}
static void fake_device_free(void *ctx, void *p, size_t n)
{
    (void)ctx, (void)n;
    free(p);
}
static const th_allocator fake_device = {"fake-device", fake_device_alloc, NULL, fake_device_free, {TH_DEVICE_CUDA, 0}};

static th_f64_tensor *device_tensor(double *mem, int64_t rows, int64_t cols)
{
    th_storage *s = th_storage_from_blob(mem, rows * cols * (int64_t)sizeof(double), (th_device){TH_DEVICE_CUDA, 0},
                                         NULL, NULL);
    th_f64_tensor *t = th_f64_new_with_storage(s, 0, 2, SZ(rows, cols), NULL);
    th_storage_release(s);
    return t;
}

/* NaN is larger than every number and equal to itself. */
static bool ref_less(double a, double b) { return a < b || (isnan(b) && !isnan(a)); }

/* Where element i of row x (n elements) lands in a stable sort: the elements that go strictly before it,
 * plus the equal ones at smaller positions. */
static int64_t ref_rank(const double *x, int64_t n, int64_t i, bool descending)
{
    int64_t r = 0;
    for (int64_t j = 0; j < n; j++) {
        bool before = descending ? ref_less(x[i], x[j]) : ref_less(x[j], x[i]);
        bool equal = !ref_less(x[i], x[j]) && !ref_less(x[j], x[i]);
        r += before || (equal && j < i);
    }
    return r;
}

/* Checks values and indices of sorting t (f64, any layout) along dim against ref_rank, row by row. */
static bool sort_ok_f64(const th_f64_tensor *t, int dim, bool descending)
{
    th_i64_tensor *idx = NULL;
    th_f64_tensor *s = th_f64_sort(t, dim, descending, &idx);
    bool ok = s && idx;
    int nd = th_f64_ndim(t);
    int d = dim < 0 ? dim + (nd > 0 ? nd : 1) : dim;
    int64_t n = nd ? th_f64_sizes(t)[d] : 1, numel = th_f64_numel(t);
    double row[64];
    int64_t pos[TH_MAX_DIMS];
    for (int64_t lin = 0; ok && lin < numel; lin++) {
        for (int64_t rest = lin, k = nd - 1; k >= 0; k--) {
            pos[k] = rest % th_f64_sizes(t)[k];
            rest /= th_f64_sizes(t)[k];
        }
        if (nd && pos[d] != 0) continue; /* one visit per row */
        for (int64_t i = 0; i < n; i++) {
            if (nd) pos[d] = i;
            row[i] = th_f64_get(t, pos);
        }
        for (int64_t i = 0; i < n; i++) {
            int64_t r = ref_rank(row, n, i, descending);
            if (nd) pos[d] = r;
            double v = th_f64_get(s, pos);
            ok &= th_i64_get(idx, pos) == i && (v == row[i] || (isnan(v) && isnan(row[i])));
        }
    }
    th_f64_release(s);
    th_i64_release(idx);
    return ok;
}

/* A deterministic scramble of small integers (many ties). */
static th_f64_tensor *scrambled(int ndim, const int64_t *sizes, int modulo)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    uint32_t x = 12345;
    for (int64_t i = 0; t && i < th_f64_numel(t); i++) {
        x = x * 1103515245u + 12345u;
        th_f64_data(t)[i] = (double)((x >> 16) % (uint32_t)modulo) - modulo / 2;
    }
    return t;
}

/* ---- sort ------------------------------------------------------------------------------- */

static void test_sort_against_reference(void)
{
    th_f64_tensor *t = scrambled(3, SZ(3, 40, 5), 7);
    for (int dim = -3; dim < 3; dim++)
        for (int desc = 0; desc < 2; desc++) CHECK(sort_ok_f64(t, dim, desc));
    th_f64_tensor *tt = th_f64_transpose(t, 0, 2); /* (5, 40, 3), strided */
    CHECK(sort_ok_f64(tt, 1, false) && sort_ok_f64(tt, 0, true));
    th_f64_tensor *one = th_f64_narrow(t, 1, 0, 1); /* a size-1 dim */
    CHECK(sort_ok_f64(one, 1, false) && sort_ok_f64(one, 0, true));
    th_f64_tensor *plane = th_f64_select(t, 0, 1), *row = th_f64_select(plane, 1, 2); /* 40 elements, stride 5 */
    CHECK(sort_ok_f64(row, 0, false));
    th_f64_tensor *col = th_f64_full(2, SZ(4, 1), 3), *ex = th_f64_expand(col, 2, SZ(4, 6)); /* stride 0 */
    CHECK(sort_ok_f64(ex, 1, true) && sort_ok_f64(ex, 0, false));
    th_f64_tensor *scalar = th_f64_full(0, NULL, 2.5), *empty = th_f64_zeros(2, SZ(3, 0));
    CHECK(sort_ok_f64(scalar, 0, false) && sort_ok_f64(scalar, -1, true));
    th_i64_tensor *ei = NULL;
    th_f64_tensor *es = th_f64_sort(empty, 1, false, &ei);
    CHECK(es && ei && th_f64_numel(es) == 0 && th_i64_sizes(ei)[0] == 3 && th_i64_sizes(ei)[1] == 0);
    th_f64_tensor *es0 = th_f64_sort(empty, 0, false, NULL); /* 0 rows of 3 */
    CHECK(es0 && th_f64_numel(es0) == 0);
    th_f64_release(t), th_f64_release(tt), th_f64_release(one), th_f64_release(col), th_f64_release(ex);
    th_f64_release(scalar), th_f64_release(empty), th_f64_release(es), th_i64_release(ei), th_f64_release(es0);
    th_f64_release(row), th_f64_release(plane);
}

static void test_sort_nan_and_zero(void)
{
    double data[7] = {3, NAN, -1, 0.0, NAN, -0.0, -INFINITY};
    th_f64_tensor *t = th_f64_from_blob(data, 1, SZ(7), NULL, NULL, NULL);
    CHECK(sort_ok_f64(t, 0, false) && sort_ok_f64(t, 0, true));
    th_i64_tensor *idx = NULL;
    th_f64_tensor *s = th_f64_sort(t, 0, false, &idx);
    /* -inf, -1, 0.0, -0.0 (equal: kept in order), 3, NaN, NaN */
    const int64_t want[7] = {6, 2, 3, 5, 0, 1, 4};
    bool ok = s && idx;
    for (int i = 0; ok && i < 7; i++) ok &= th_i64_data(idx)[i] == want[i];
    CHECK(ok && isnan(th_f64_data(s)[6]) && signbit(th_f64_data(s)[3]));
    th_f64_release(s), th_i64_release(idx);
    s = th_f64_sort(t, 0, true, &idx); /* NaN first, then 3, 0.0, -0.0, -1, -inf */
    const int64_t want_desc[7] = {1, 4, 0, 3, 5, 2, 6};
    ok = s && idx;
    for (int i = 0; ok && i < 7; i++) ok &= th_i64_data(idx)[i] == want_desc[i];
    CHECK(ok);
    /* f16 and bf16 compare as float, NaN included. */
    th_f16_tensor *h = th_f16_empty(1, SZ(4));
    const float hv[4] = {2, NAN, -3, 0.5f};
    for (int i = 0; i < 4; i++) th_f16_data(h)[i] = th_float16_from_float(hv[i]);
    th_i64_tensor *hi = NULL;
    th_f16_tensor *hs = th_f16_sort(h, 0, false, &hi);
    CHECK(hs && hi && th_i64_data(hi)[0] == 2 && th_i64_data(hi)[1] == 3 && th_i64_data(hi)[2] == 0 &&
          th_i64_data(hi)[3] == 1 && th_float16_to_float(th_f16_data(hs)[0]) == -3.0f);
    th_f64_release(t), th_f64_release(s), th_i64_release(idx), th_f16_release(h), th_f16_release(hs);
    th_i64_release(hi);
}

static void test_sort_dtypes(void)
{
    /* Integer dtypes at their extremes, bool, u8: values and stable indices. */
    const int64_t v64[6] = {INT64_MAX, -5, INT64_MIN, 0, -5, INT64_MAX};
    th_i64_tensor *a = th_i64_from_blob((int64_t *)v64, 1, SZ(6), NULL, NULL, NULL), *ai = NULL;
    th_i64_tensor *as = th_i64_sort(a, 0, false, &ai);
    const int64_t want_pos[6] = {2, 1, 4, 3, 0, 5};
    bool ok = as && ai;
    for (int i = 0; ok && i < 6; i++) ok &= th_i64_data(ai)[i] == want_pos[i] && th_i64_data(as)[i] == v64[want_pos[i]];
    CHECK(ok);
    th_bool_tensor *b = th_bool_empty(1, SZ(5));
    const bool bv[5] = {true, false, true, false, false};
    memcpy(th_bool_data(b), bv, sizeof bv);
    th_i64_tensor *bi = NULL;
    th_bool_tensor *bs = th_bool_sort(b, 0, true, &bi);
    const int64_t bpos[5] = {0, 2, 1, 3, 4};
    ok = bs && bi;
    for (int i = 0; ok && i < 5; i++) ok &= th_i64_data(bi)[i] == bpos[i] && th_bool_data(bs)[i] == bv[bpos[i]];
    CHECK(ok);
    th_u8_tensor *u = th_u8_arange(0, 200, 1);
    th_u8_tensor *us = th_u8_sort(u, 0, true, NULL);
    ok = us != NULL;
    for (int i = 0; ok && i < 200; i++) ok &= th_u8_data(us)[i] == 199 - i;
    CHECK(ok);
    th_i64_release(a), th_i64_release(ai), th_i64_release(as), th_bool_release(b), th_i64_release(bi);
    th_bool_release(bs), th_u8_release(u), th_u8_release(us);
}

static void test_sort_large_threads(void)
{
    /* 600 rows of 1000: many rows, split across threads; the same result for 1 and 2 threads. */
    th_generator *g = th_generator_new(4);
    th_i32_tensor *t = th_i32_randint(2, SZ(600, 1000), -50, 50, g);
    th_i32_tensor *s[2] = {NULL, NULL};
    th_i64_tensor *ix[2] = {NULL, NULL};
    const int saved = th_get_num_threads();
    th_set_num_threads(1);
    s[0] = th_i32_sort(t, 1, false, &ix[0]);
    if (test_set_threads(2)) {
        s[1] = th_i32_sort(t, 1, false, &ix[1]);
        CHECK(s[0] && s[1] && memcmp(th_i32_data(s[0]), th_i32_data(s[1]), 600 * 1000 * 4) == 0);
        CHECK(ix[0] && ix[1] && memcmp(th_i64_data(ix[0]), th_i64_data(ix[1]), 600 * 1000 * 8) == 0);
    }
    th_set_num_threads(saved);
    /* Each row ascending, ties in increasing position, values matching the positions. */
    bool ok = s[0] && ix[0];
    for (int64_t r = 0; ok && r < 600; r++)
        for (int64_t j = 0; j < 1000; j++) {
            int32_t v = th_i32_data(s[0])[r * 1000 + j];
            int64_t p = th_i64_data(ix[0])[r * 1000 + j];
            ok &= th_i32_data(t)[r * 1000 + p] == v;
            if (j > 0) {
                int32_t pv = th_i32_data(s[0])[r * 1000 + j - 1];
                ok &= pv < v || (pv == v && th_i64_data(ix[0])[r * 1000 + j - 1] < p);
            }
        }
    CHECK(ok);
    /* One long row, n log n: a million doubles. */
    th_f64_tensor *big = th_f64_uniform(1, SZ(1000000), 0, 1, g);
    th_f64_tensor *bs = th_f64_sort(big, 0, true, NULL);
    ok = bs != NULL;
    for (int64_t i = 1; ok && i < 1000000; i++) ok &= th_f64_data(bs)[i - 1] >= th_f64_data(bs)[i];
    CHECK(ok);
    th_i32_release(t), th_i32_release(s[0]), th_i32_release(s[1]), th_i64_release(ix[0]), th_i64_release(ix[1]);
    th_f64_release(big), th_f64_release(bs);
    th_generator_free(g);
}

/* ---- topk ------------------------------------------------------------------------------- */

static void test_topk(void)
{
    th_f64_tensor *t = scrambled(2, SZ(6, 9), 5);
    for (int largest = 0; largest < 2; largest++)
        for (int64_t k = 0; k <= 9; k++) {
            th_i64_tensor *si = NULL, *ki = NULL, *ui = NULL;
            th_f64_tensor *s = th_f64_sort(t, 1, largest, &si);
            th_f64_tensor *top = th_f64_topk(t, k, -1, largest, true, &ki);
            th_f64_tensor *unsorted = th_f64_topk(t, k, 1, largest, false, &ui);
            bool ok = s && top && ki && unsorted && ui && th_f64_sizes(top)[0] == 6 && th_f64_sizes(top)[1] == k;
            for (int64_t r = 0; ok && r < 6; r++) {
                bool chosen[9] = {false};
                for (int64_t j = 0; j < k; j++) {
                    ok &= th_f64_get(top, SZ(r, j)) == th_f64_get(s, SZ(r, j));
                    ok &= th_i64_get(ki, SZ(r, j)) == th_i64_get(si, SZ(r, j));
                    chosen[th_i64_get(si, SZ(r, j))] = true;
                }
                /* sorted false: the same elements in their order along the dim */
                int64_t j = 0;
                for (int64_t p = 0; p < 9; p++)
                    if (chosen[p]) {
                        ok &= th_i64_get(ui, SZ(r, j)) == p;
                        ok &= th_f64_get(unsorted, SZ(r, j)) == th_f64_get(t, SZ(r, p));
                        j++;
                    }
            }
            CHECK(ok);
            th_f64_release(s), th_f64_release(top), th_f64_release(unsorted);
            th_i64_release(si), th_i64_release(ki), th_i64_release(ui);
        }
    /* Along dim 0 of a transposed view, without indices; 0-d with k = 1. */
    th_f64_tensor *tt = th_f64_transpose(t, 0, 1); /* (9, 6) */
    th_f64_tensor *top0 = th_f64_topk(tt, 2, 0, true, true, NULL);
    CHECK(top0 && th_f64_sizes(top0)[0] == 2 && th_f64_sizes(top0)[1] == 6);
    bool ok = top0 != NULL;
    for (int64_t c = 0; ok && c < 6; c++) {
        double best = -INFINITY;
        for (int64_t r = 0; r < 9; r++) best = fmax(best, th_f64_get(tt, SZ(r, c)));
        ok &= th_f64_get(top0, SZ(0, c)) == best && th_f64_get(top0, SZ(1, c)) <= best;
    }
    CHECK(ok);
    th_f64_tensor *scalar = th_f64_full(0, NULL, 4), *s1 = th_f64_topk(scalar, 1, 0, true, true, NULL);
    CHECK(s1 && th_f64_ndim(s1) == 0 && th_f64_data(s1)[0] == 4);
    /* NaN counts as the largest. */
    th_f32_tensor *nan = th_f32_from_blob((float[]){1, NAN, 3}, 1, SZ(3), NULL, NULL, NULL);
    th_i64_tensor *ni = NULL;
    th_f32_tensor *nt = th_f32_topk(nan, 1, 0, true, true, &ni);
    CHECK(nt && ni && isnan(th_f32_data(nt)[0]) && th_i64_data(ni)[0] == 1);
    th_i64_tensor *keep = NULL;
    CHECK_NULL(th_f64_topk(t, 10, 1, true, true, &keep), TH_ERR_RANGE, "th_f64_topk", "k 10 is outside 0..9");
    CHECK(keep == NULL);
    CHECK_NULL(th_f64_topk(t, -1, 1, true, true, NULL), TH_ERR_RANGE, "th_f64_topk", "k -1 is outside");
    CHECK_NULL(th_f64_topk(scalar, 0, 0, true, true, NULL), TH_ERR_RANGE, "th_f64_topk", "outside 1..1");
    CHECK_NULL(th_f64_topk(t, 1, 2, true, true, NULL), TH_ERR_RANGE, "th_f64_topk", "dim 2 is out of range");
    th_f64_release(t), th_f64_release(tt), th_f64_release(top0), th_f64_release(scalar), th_f64_release(s1);
    th_f32_release(nan), th_f32_release(nt), th_i64_release(ni);
}

/* ---- unique ----------------------------------------------------------------------------- */

static void test_unique(void)
{
    const int32_t v[9] = {3, 1, 3, -2, 1, 1, 7, -2, 3};
    th_i32_tensor *flat = th_i32_from_blob((int32_t *)v, 1, SZ(9), NULL, NULL, NULL);
    th_i32_tensor *t = th_i32_view(flat, 2, SZ(3, 3));
    for (int sorted = 0; sorted < 2; sorted++) {
        th_i64_tensor *inv = NULL, *cnt = NULL;
        th_i32_tensor *u = th_i32_unique(t, sorted, &inv, &cnt);
        const int32_t want_sorted[4] = {-2, 1, 3, 7}, want_first[4] = {3, 1, -2, 7};
        const int32_t *want = sorted ? want_sorted : want_first;
        bool ok = u && inv && cnt && th_i32_numel(u) == 4 && th_i64_ndim(inv) == 2 && th_i64_numel(cnt) == 4;
        for (int g = 0; ok && g < 4; g++) {
            int64_t count = 0;
            for (int i = 0; i < 9; i++) count += v[i] == want[g];
            ok &= th_i32_data(u)[g] == want[g] && th_i64_data(cnt)[g] == count;
        }
        for (int i = 0; ok && i < 9; i++) ok &= th_i32_data(u)[th_i64_data(inv)[i]] == v[i];
        CHECK(ok);
        th_i32_release(u), th_i64_release(inv), th_i64_release(cnt);
    }
    /* A transposed input is read in its own row-major order. */
    th_i32_tensor *tt = th_i32_transpose(t, 0, 1); /* rows: 3 -2 7 / 1 1 -2 / 3 1 3 */
    th_i32_tensor *ut = th_i32_unique(tt, false, NULL, NULL);
    CHECK(ut && th_i32_numel(ut) == 4 && th_i32_data(ut)[0] == 3 && th_i32_data(ut)[1] == -2 &&
          th_i32_data(ut)[2] == 7 && th_i32_data(ut)[3] == 1);
    /* NaNs are one value, -0.0 and 0.0 are one value (the first seen is kept). */
    th_f64_tensor *f = th_f64_from_blob((double[]){NAN, -0.0, 2, 0.0, NAN, 2}, 1, SZ(6), NULL, NULL, NULL);
    th_i64_tensor *fc = NULL;
    th_f64_tensor *uf = th_f64_unique(f, true, NULL, &fc);
    CHECK(uf && fc && th_f64_numel(uf) == 3 && th_f64_data(uf)[0] == 0 && signbit(th_f64_data(uf)[0]) &&
          th_f64_data(uf)[1] == 2 && isnan(th_f64_data(uf)[2]) && th_i64_data(fc)[0] == 2 &&
          th_i64_data(fc)[1] == 2 && th_i64_data(fc)[2] == 2);
    /* Empty, 0-d, bool. */
    th_f64_tensor *e = th_f64_zeros(1, SZ(0));
    th_i64_tensor *ei = NULL, *ec = NULL;
    th_f64_tensor *ue = th_f64_unique(e, true, &ei, &ec);
    CHECK(ue && ei && ec && th_f64_numel(ue) == 0 && th_i64_numel(ei) == 0 && th_i64_numel(ec) == 0);
    th_f64_tensor *s = th_f64_full(0, NULL, 5);
    th_i64_tensor *si = NULL;
    th_f64_tensor *us = th_f64_unique(s, true, &si, NULL);
    CHECK(us && si && th_f64_numel(us) == 1 && th_i64_ndim(si) == 0 && th_i64_data(si)[0] == 0);
    th_bool_tensor *b = th_bool_ones(1, SZ(4)), *ub = th_bool_unique(b, true, NULL, NULL);
    CHECK(ub && th_bool_numel(ub) == 1 && th_bool_data(ub)[0]);
    th_i64_tensor *keep_inv = NULL, *keep_cnt = NULL;
    CHECK_NULL(th_f64_unique(NULL, true, &keep_inv, &keep_cnt), TH_ERR_INVALID, "th_f64_unique", "NULL tensor");
    CHECK(keep_inv == NULL && keep_cnt == NULL);
    th_i32_release(flat), th_i32_release(t), th_i32_release(tt), th_i32_release(ut), th_f64_release(f);
    th_i64_release(fc), th_f64_release(uf), th_f64_release(e), th_i64_release(ei), th_i64_release(ec);
    th_f64_release(ue), th_f64_release(s), th_i64_release(si), th_f64_release(us), th_bool_release(b);
    th_bool_release(ub);
}

static void test_errors(void)
{
    th_f64_tensor *t = th_f64_zeros(2, SZ(2, 3));
    th_i64_tensor *idx = (th_i64_tensor *)t; /* a stale value the call must overwrite */
    CHECK_NULL(th_f64_sort(NULL, 0, false, &idx), TH_ERR_INVALID, "th_f64_sort", "NULL tensor");
    CHECK(idx == NULL);
    CHECK_NULL(th_f64_sort(t, 2, false, NULL), TH_ERR_RANGE, "th_f64_sort", "dim 2 is out of range");
    CHECK_NULL(th_f64_sort(t, -3, false, NULL), TH_ERR_RANGE, "th_f64_sort", "dim -3 is out of range");
    CHECK_NULL(th_f64_topk(NULL, 1, 0, true, true, NULL), TH_ERR_INVALID, "th_f64_topk", "NULL tensor");
    /* Out of memory at each allocation: values, indices; nothing leaks. */
    for (int64_t at = 1; at <= 2; at++) {
        th_counting_allocator_fail_after(check_counter, at);
        idx = NULL;
        CHECK_NULL(th_f64_sort(t, 1, false, &idx), TH_ERR_NOMEM, "th_f64_sort", "");
        CHECK(idx == NULL);
        th_i64_tensor *inv = NULL, *cnt = NULL;
        th_counting_allocator_fail_after(check_counter, at + 1); /* unique copies nothing: t is contiguous */
        CHECK_NULL(th_f64_unique(t, true, &inv, &cnt), TH_ERR_NOMEM, "th_f64_unique", "");
        CHECK(inv == NULL && cnt == NULL);
    }
    th_counting_allocator_fail_after(check_counter, 0);
    th_f64_release(t);
}

static void test_device(void)
{
    double mem[6] = {3, 2, 1, 6, 5, 4};
    th_f64_tensor *d = device_tensor(mem, 2, 3);
    CHECK_NULL(th_f64_sort(d, 1, false, NULL), TH_ERR_DEVICE, "th_f64_sort", "device type 2");
    CHECK_NULL(th_f64_topk(d, 1, 1, true, true, NULL), TH_ERR_DEVICE, "th_f64_topk", "device type 2");
    CHECK_NULL(th_f64_unique(d, true, NULL, NULL), TH_ERR_DEVICE, "th_f64_unique", "device type 2");
    th_f64_tensor *h = th_f64_zeros(2, SZ(2, 3));
    th_set_default_allocator(&fake_device, NULL);
    CHECK_NULL(th_f64_sort(h, 1, false, NULL), TH_ERR_DEVICE, "th_f64_sort", "device type 2");
    CHECK_NULL(th_f64_unique(h, false, NULL, NULL), TH_ERR_DEVICE, "th_f64_unique", "device type 2");
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
    th_f64_release(d), th_f64_release(h);
}

/* sort_out and topk_out give what the new forms give, into transposed outs, in place (values is t), and
 * refuse a bad out before writing either. */
static void test_outs(void)
{
    th_f64_tensor *t = scrambled(2, SZ(5, 7), 4);
    th_i64_tensor *want_idx = NULL;
    th_f64_tensor *want = th_f64_sort(t, 1, true, &want_idx);
    th_f64_tensor *vbuf = th_f64_zeros(2, SZ(7, 5)), *v = th_f64_transpose(vbuf, 0, 1);
    th_i64_tensor *ibuf = th_i64_zeros(2, SZ(7, 5)), *ix = th_i64_transpose(ibuf, 0, 1);
    CHECK_INT_EQ(th_f64_sort_out(v, ix, t, 1, true), TH_OK);
    bool same = true;
    for (int64_t i = 0; i < 5; i++)
        for (int64_t j = 0; j < 7; j++) {
            const int64_t at[2] = {i, j};
            same = same && th_f64_get(v, at) == th_f64_get(want, at) && th_i64_get(ix, at) == th_i64_get(want_idx, at);
        }
    CHECK(same);
    CHECK_INT_EQ(th_f64_sort_out(v, NULL, t, -1, false), TH_OK); /* indices are optional */
    CHECK(th_f64_get(v, (const int64_t[]){0, 0}) <= th_f64_get(v, (const int64_t[]){0, 6}));

    /* In place: sorting t into itself. */
    th_f64_tensor *copy = th_f64_clone(t);
    CHECK_INT_EQ(th_f64_sort_out(copy, NULL, copy, 1, true), TH_OK);
    same = true;
    for (int64_t i = 0; i < 35; i++) same = same && th_f64_data(copy)[i] == th_f64_data(want)[i];
    CHECK(same);

    /* topk: 3 smallest along dim 0, sorted and in their order along the dim. */
    th_i64_tensor *kidx = NULL;
    th_f64_tensor *kwant = th_f64_topk(t, 3, 0, false, false, &kidx);
    th_f64_tensor *kv = th_f64_zeros(2, SZ(3, 7));
    th_i64_tensor *ki = th_i64_zeros(2, SZ(3, 7));
    CHECK_INT_EQ(th_f64_topk_out(kv, ki, t, 3, 0, false, false), TH_OK);
    same = true;
    for (int64_t i = 0; i < 21; i++)
        same = same && th_f64_data(kv)[i] == th_f64_data(kwant)[i] && th_i64_data(ki)[i] == th_i64_data(kidx)[i];
    CHECK(same);

    /* Errors: nothing written. */
    th_f64_data(kv)[0] = 99;
    th_i64_data(ki)[0] = 99;
    CHECK_FAILS(th_f64_topk_out(NULL, ki, t, 3, 0, false, true), TH_ERR_INVALID, "th_f64_topk_out", "NULL values");
    CHECK_FAILS(th_f64_topk_out(kv, ki, t, 2, 0, false, true), TH_ERR_SHAPE, "th_f64_topk_out", "shape");
    CHECK_FAILS(th_f64_topk_out(kv, ki, t, 9, 0, false, true), TH_ERR_RANGE, "th_f64_topk_out", "k 9");
    CHECK_FAILS(th_f64_topk_out(kv, (th_i64_tensor *)kv, t, 3, 0, false, true), TH_ERR_DTYPE, "th_f64_topk_out",
                "out is f64");
    th_i64_tensor *short_idx = th_i64_zeros(2, SZ(3, 6));
    CHECK_FAILS(th_f64_topk_out(kv, short_idx, t, 3, 0, false, true), TH_ERR_SHAPE, "th_f64_topk_out", "shape");
    CHECK_FAILS(th_f64_sort_out(kv, NULL, t, 2, false), TH_ERR_RANGE, "th_f64_sort_out", "dim");
    CHECK(th_f64_data(kv)[0] == 99 && th_i64_data(ki)[0] == 99);
    th_release(short_idx);
    th_release(kv);
    th_release(ki);
    th_release(kwant);
    th_release(kidx);
    th_release(copy);
    th_release(v);
    th_release(vbuf);
    th_release(ix);
    th_release(ibuf);
    th_release(want);
    th_release(want_idx);
    th_release(t);
}

int main(void)
{
    test_begin();
    test_sort_against_reference();
    test_sort_nan_and_zero();
    test_sort_dtypes();
    test_sort_large_threads();
    test_topk();
    test_unique();
    test_errors();
    test_device();
    test_outs();
    return test_end("test_sort");
}
