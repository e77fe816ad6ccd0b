/* tests/test_index.c: index_select, gather, scatter, scatter_add, masked_fill, masked_select, nonzero, take,
 * put.
 *
 * The f64 tests compare with hand-computed values (PyTorch's documented examples where there are some) and
 * with plain loops, on contiguous, transposed and expanded operands, negative indices and dims, 0-d and size-0
 * tensors, sizes large enough to take the threaded paths, outs that overlap inputs, and every error. The end of
 * this file is stamped for every dtype (it includes itself through generate/all.h): each dtype must agree
 * with f64, carry imaginary parts along, and add in its own arithmetic (integers wrap, bool ors). */
#ifndef TH_NAME

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* ---- helpers ---------------------------------------------------------------------------- */

static th_f64_tensor *seq(int ndim, const int64_t *sizes, double start)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    if (!t) return NULL;
    for (int64_t i = 0; i < th_f64_numel(t); i++) th_f64_data(t)[i] = start + (double)i;
    return t;
}

static th_f64_tensor *f64_of(int ndim, const int64_t *sizes, const double *values)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    if (t) memcpy(th_f64_data(t), values, (size_t)th_f64_numel(t) * sizeof *values);
    return t;
}

static th_i64_tensor *i64_of(int ndim, const int64_t *sizes, const int64_t *values)
{
    th_i64_tensor *t = th_i64_empty(ndim, sizes);
    if (t) memcpy(th_i64_data(t), values, (size_t)th_i64_numel(t) * sizeof *values);
    return t;
}

static th_bool_tensor *mask_of(int ndim, const int64_t *sizes, const char *bits)
{
    th_bool_tensor *t = th_bool_empty(ndim, sizes);
    for (int64_t i = 0; t && i < th_bool_numel(t); i++) th_bool_data(t)[i] = bits[i] == '1';
    return t;
}

/* A deterministic stream of integers for the large tests. */
static uint64_t rng_state = 12345;
static int64_t rnd(int64_t below)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return (int64_t)((rng_state >> 33) % (uint64_t)below);
}

static void unravel(int ndim, const int64_t *sizes, int64_t i, int64_t *idx)
{
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = i % sizes[d];
        i /= sizes[d];
    }
}

static double at(const th_f64_tensor *t, const int64_t *idx) { return th_f64_get(t, idx); }

static bool shape_is_b(const th_tensor *t, int ndim, const int64_t *sizes)
{
    bool ok = t && th_tensor_ndim(t) == ndim;
    for (int d = 0; ok && d < ndim; d++) ok = th_tensor_sizes(t)[d] == sizes[d];
    if (!ok && t) {
        fprintf(stderr, "  shape: ndim %d (", th_tensor_ndim(t));
        for (int d = 0; d < th_tensor_ndim(t); d++) fprintf(stderr, "%lld ", (long long)th_tensor_sizes(t)[d]);
        fprintf(stderr, ")\n");
    }
    return ok;
}

static bool shape_is(const th_f64_tensor *t, int ndim, const int64_t *sizes)
{
    return shape_is_b(th_f64_base(t), ndim, sizes);
}

/* Every element of t (any dtype but complex, as f64), in row-major order, equals want[i]. */
static bool values_are_b(const th_tensor *t, const double *want, int64_t n)
{
    if (!t || th_tensor_numel(t) != n) {
        fprintf(stderr, "  numel %lld, wanted %lld\n", t ? (long long)th_tensor_numel(t) : -1LL, (long long)n);
        return false;
    }
    th_f64_tensor *c = th_f64_convert(t);
    bool ok = c != NULL;
    for (int64_t i = 0; ok && i < n; i++) {
        double v = th_f64_data(c)[i];
        if (!(v == want[i] || (isnan(v) && isnan(want[i])))) {
            fprintf(stderr, "  element %lld is %g, wanted %g\n", (long long)i, v, want[i]);
            ok = false;
        }
    }
    th_f64_release(c);
    return ok;
}

static bool values_are(const th_f64_tensor *t, const double *want, int64_t n)
{
    return values_are_b(th_f64_base(t), want, n);
}

static bool i64_values_are(const th_i64_tensor *t, const double *want, int64_t n)
{
    return values_are_b(th_i64_base(t), want, n);
}

static bool same(const th_f64_tensor *a, const th_f64_tensor *b)
{
    if (!a || !b || !shape_is(a, th_f64_ndim(b), th_f64_sizes(b))) return false;
    int64_t idx[TH_MAX_DIMS];
    for (int64_t i = 0; i < th_f64_numel(a); i++) {
        unravel(th_f64_ndim(a), th_f64_sizes(a), i, idx);
        if (at(a, idx) != at(b, idx)) {
            fprintf(stderr, "  element %lld: %g vs %g\n", (long long)i, at(a, idx), at(b, idx));
            return false;
        }
    }
    return true;
}

/* ---- the per-dtype checks: helpers for the stamped part at the end of this file ---------- */

static th_f64_tensor *real_part(const th_tensor *t) { return th_f64_convert(t); }

static th_f64_tensor *imag_part(const th_tensor *t)
{
    th_c128_tensor *c = th_c128_convert(t);
    th_f64_tensor *im = th_f64_empty(th_c128_ndim(c), th_c128_sizes(c));
    const double *src = (const double *)(const void *)th_c128_data(c);
    for (int64_t i = 0; i < th_f64_numel(im); i++) th_f64_data(im)[i] = src[2 * i + 1];
    th_c128_release(c);
    return im;
}

static th_c128_tensor *complex_of(const th_f64_tensor *re, const th_f64_tensor *im)
{
    th_c128_tensor *c = th_c128_empty(th_f64_ndim(re), th_f64_sizes(re));
    double *dst = (double *)(void *)th_c128_data(c);
    for (int64_t i = 0; i < th_f64_numel(re); i++) {
        dst[2 * i] = th_f64_data(re)[i];
        dst[2 * i + 1] = th_f64_data(im)[i];
    }
    return c;
}

/* got has want_re's shape and real parts (and want_im's imaginary parts when given). Releases all three. */
static void expect(const char *dtype, const char *what, th_tensor *got, th_f64_tensor *want_re,
                   th_f64_tensor *want_im)
{
    bool ok = got != NULL;
    if (ok) {
        th_f64_tensor *re = real_part(got);
        ok = same(re, want_re);
        th_f64_release(re);
    }
    if (ok && want_im) {
        th_f64_tensor *im = imag_part(got);
        ok = same(im, want_im);
        th_f64_release(im);
    }
    CHECK(ok);
    if (!ok) fprintf(stderr, "  %s: %s (%s)\n", dtype, what, got ? "wrong values" : th_last_error());
    th_tensor_release(got);
    th_f64_release(want_re);
    th_f64_release(want_im);
}

#define TH_GENERIC_FILE "test_index.c"
#include "generate/all.h"

/* ---- index_select --------------------------------------------------------------------------- */

static void test_index_select(void)
{
    th_f64_tensor *t = seq(2, SZ(3, 4), 0);
    th_i64_tensor *rows = i64_of(1, SZ(3), (const int64_t[]){2, 0, -1});
    th_f64_tensor *r = th_f64_index_select(t, 0, rows);
    CHECK(shape_is(r, 2, SZ(3, 4)));
    CHECK(values_are(r, (const double[]){8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}, 12));
    th_f64_release(r);
    th_i64_tensor *cols = i64_of(1, SZ(3), (const int64_t[]){3, 3, -4});
    r = th_f64_index_select(t, -1, cols);
    CHECK(shape_is(r, 2, SZ(3, 3)));
    CHECK(values_are(r, (const double[]){3, 3, 0, 7, 7, 4, 11, 11, 8}, 9));
    th_f64_release(r);

    /* Transposed t and a strided index (every other element of a longer one). */
    th_f64_tensor *tt = th_f64_transpose(t, 0, 1); /* (4, 3) */
    th_i64_tensor *longer = i64_of(1, SZ(6), (const int64_t[]){1, 99, 2, 99, -3, 99});
    th_i64_tensor *strided = th_i64_as_strided(longer, 1, SZ(3), SZ(2), 0);
    r = th_f64_index_select(tt, 1, strided);
    CHECK(shape_is(r, 2, SZ(4, 3)));
    CHECK(values_are(r, (const double[]){4, 8, 0, 5, 9, 1, 6, 10, 2, 7, 11, 3}, 12));
    th_f64_release(r);

    /* A 0-d index gives a size-1 dim; a 0-d t takes one index; an empty index an empty dim. */
    th_i64_tensor *one = th_i64_full(0, NULL, -2);
    r = th_f64_index_select(t, 0, one);
    CHECK(shape_is(r, 2, SZ(1, 4)) && values_are(r, (const double[]){4, 5, 6, 7}, 4));
    th_f64_release(r);
    th_f64_tensor *s = th_f64_full(0, NULL, 5);
    th_i64_tensor *zero = i64_of(1, SZ(1), (const int64_t[]){-1});
    r = th_f64_index_select(s, 0, zero);
    CHECK(shape_is(r, 0, NULL) && values_are(r, (const double[]){5}, 1));
    th_f64_release(r);
    th_i64_tensor *none = th_i64_empty(1, SZ(0));
    r = th_f64_index_select(t, 1, none);
    CHECK(shape_is(r, 2, SZ(3, 0)));
    th_f64_release(r);

    /* _out: a transposed out, and an out that is t itself (rows swapped in place). */
    th_f64_tensor *store = th_f64_zeros(2, SZ(4, 3));
    th_f64_tensor *out = th_f64_transpose(store, 0, 1);
    CHECK_INT_EQ(th_f64_index_select_out(out, t, 0, rows), TH_OK);
    CHECK(values_are(out, (const double[]){8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}, 12));
    th_i64_tensor *swap = i64_of(1, SZ(3), (const int64_t[]){1, 0, 2});
    CHECK_INT_EQ(th_f64_index_select_out(t, t, 0, swap), TH_OK);
    CHECK(values_are(t, (const double[]){4, 5, 6, 7, 0, 1, 2, 3, 8, 9, 10, 11}, 12));

    th_f64_tensor *wrong = th_f64_zeros(2, SZ(2, 4));
    th_i64_tensor *bad = i64_of(1, SZ(2), (const int64_t[]){0, 3});
    th_i64_tensor *bad_neg = i64_of(1, SZ(1), (const int64_t[]){-4});
    th_i64_tensor *two_d = th_i64_zeros(2, SZ(1, 1));
    th_f64_tensor *f_idx = th_f64_zeros(1, SZ(1));
    th_i64_tensor *pair = i64_of(1, SZ(2), (const int64_t[]){0, 0});
    CHECK_NULL(th_f64_index_select(t, 0, bad), TH_ERR_RANGE, "th_f64_index_select",
               "index 3 is out of range for dim 0 of size 3 (valid: -3..2)");
    CHECK_NULL(th_f64_index_select(t, 0, bad_neg), TH_ERR_RANGE, "th_f64_index_select", "index -4 is out of range");
    CHECK_NULL(th_f64_index_select(t, 0, two_d), TH_ERR_SHAPE, "th_f64_index_select", "index has 2 dims");
    CHECK_NULL(th_f64_index_select(t, 0, (const th_i64_tensor *)(const void *)f_idx), TH_ERR_DTYPE,
               "th_f64_index_select", "index is f64; it must be i64");
    CHECK_NULL(th_f64_index_select(t, 2, rows), TH_ERR_RANGE, "th_f64_index_select", "dim 2 is out of range");
    CHECK_NULL(th_f64_index_select(s, 0, pair), TH_ERR_SHAPE, "th_f64_index_select", "exactly one index, got 2");
    CHECK_NULL(th_f64_index_select(NULL, 0, rows), TH_ERR_INVALID, "th_f64_index_select", "NULL tensor");
    CHECK_NULL(th_f64_index_select(t, 0, NULL), TH_ERR_INVALID, "th_f64_index_select", "NULL index");
    CHECK_FAILS(th_f64_index_select_out(NULL, t, 0, rows), TH_ERR_INVALID, "th_f64_index_select_out", "NULL out");
    CHECK_FAILS(th_f64_index_select_out(wrong, t, 0, rows), TH_ERR_SHAPE, "th_f64_index_select_out",
                "out has shape (2, 4); the result has shape (3, 4)");
    /* An error leaves out as it was. */
    CHECK_FAILS(th_f64_index_select_out(wrong, t, 0, bad), TH_ERR_RANGE, "th_f64_index_select_out", "index 3");
    CHECK(values_are(wrong, (const double[]){0, 0, 0, 0, 0, 0, 0, 0}, 8));

    th_i64_release(pair);
    th_f64_release(f_idx);
    th_i64_release(two_d);
    th_i64_release(bad_neg);
    th_i64_release(bad);
    th_f64_release(wrong);
    th_i64_release(swap);
    th_f64_release(out);
    th_f64_release(store);
    th_i64_release(none);
    th_i64_release(zero);
    th_f64_release(s);
    th_i64_release(one);
    th_i64_release(strided);
    th_i64_release(longer);
    th_f64_release(tt);
    th_i64_release(cols);
    th_i64_release(rows);
    th_f64_release(t);
}

/* Big enough for the threaded paths (over indices, and over rows), against a loop. */
static void test_index_select_large(void)
{
    const int64_t n0 = 300, n1 = 500, k = 700;
    th_f64_tensor *t = seq(2, SZ(n0, n1), 0);
    th_i64_tensor *idx = th_i64_empty(1, SZ(k));
    for (int64_t j = 0; j < k; j++) th_i64_data(idx)[j] = rnd(2 * n0) - n0;
    th_f64_tensor *r = th_f64_index_select(t, 0, idx);
    bool ok = shape_is(r, 2, SZ(k, n1));
    for (int64_t j = 0; ok && j < k; j++) {
        int64_t row = th_i64_data(idx)[j] < 0 ? th_i64_data(idx)[j] + n0 : th_i64_data(idx)[j];
        for (int64_t i = 0; ok && i < n1; i++) ok = th_f64_data(r)[j * n1 + i] == (double)(row * n1 + i);
    }
    CHECK(ok);
    th_f64_release(r);
    th_i64_release(idx);
    /* Along the last dim: short rows, few indices. */
    idx = th_i64_empty(1, SZ(3));
    for (int64_t j = 0; j < 3; j++) th_i64_data(idx)[j] = rnd(n1);
    r = th_f64_index_select(t, 1, idx);
    ok = shape_is(r, 2, SZ(n0, 3));
    for (int64_t i = 0; ok && i < n0; i++)
        for (int64_t j = 0; ok && j < 3; j++) ok = th_f64_data(r)[i * 3 + j] == (double)(i * n1 + th_i64_data(idx)[j]);
    CHECK(ok);
    th_f64_release(r);
    th_i64_release(idx);
    th_f64_release(t);
    /* One index of a long slice: the threads split the slice's rows instead. */
    t = seq(2, SZ(2, 100000), 0);
    idx = i64_of(1, SZ(1), (const int64_t[]){-1});
    r = th_f64_index_select(t, 0, idx);
    ok = shape_is(r, 2, SZ(1, 100000));
    for (int64_t i = 0; ok && i < 100000; i++) ok = th_f64_data(r)[i] == (double)(100000 + i);
    CHECK(ok);
    th_f64_release(r);
    th_i64_release(idx);
    th_f64_release(t);
}

/* ---- gather --------------------------------------------------------------------------------- */

/* r[...] = t[... with dim replaced by idx[...] ...], by a loop. */
static bool gathered(const th_f64_tensor *r, const th_f64_tensor *t, int dim, const th_i64_tensor *idx)
{
    if (!r || !shape_is(r, th_i64_ndim(idx), th_i64_sizes(idx))) return false;
    int nd = th_i64_ndim(idx);
    int64_t pos[TH_MAX_DIMS], src[TH_MAX_DIMS];
    for (int64_t i = 0; i < th_i64_numel(idx); i++) {
        unravel(nd, th_i64_sizes(idx), i, pos);
        memcpy(src, pos, sizeof src);
        int64_t k = th_i64_get(idx, pos);
        if (nd > 0) src[dim] = k < 0 ? k + th_f64_sizes(t)[dim] : k;
        if (at(r, pos) != at(t, src)) {
            fprintf(stderr, "  gather element %lld: %g vs %g\n", (long long)i, at(r, pos), at(t, src));
            return false;
        }
    }
    return true;
}

static void test_gather(void)
{
    /* torch.gather's documented example: t = [[1, 2], [3, 4]], dim 1, index [[0, 0], [1, 0]] -> [[1, 1], [4, 3]]. */
    th_f64_tensor *small = f64_of(2, SZ(2, 2), (const double[]){1, 2, 3, 4});
    th_i64_tensor *si = i64_of(2, SZ(2, 2), (const int64_t[]){0, 0, 1, 0});
    th_f64_tensor *r = th_f64_gather(small, 1, si);
    CHECK(values_are(r, (const double[]){1, 1, 4, 3}, 4));
    th_f64_release(r);

    th_f64_tensor *t = seq(2, SZ(3, 4), 0);
    th_i64_tensor *i0 = i64_of(2, SZ(2, 3), (const int64_t[]){2, 0, -1, 1, 1, 0}); /* smaller than t outside dim */
    r = th_f64_gather(t, 0, i0);
    CHECK(shape_is(r, 2, SZ(2, 3)) && values_are(r, (const double[]){8, 1, 10, 4, 5, 2}, 6));
    CHECK(gathered(r, t, 0, i0));
    th_f64_release(r);
    th_i64_tensor *i1 = i64_of(2, SZ(3, 5), (const int64_t[]){3, 0, 0, -1, 2, 1, 1, 1, 1, 1, 0, 3, 2, 1, 0});
    r = th_f64_gather(t, -1, i1);
    CHECK(gathered(r, t, 1, i1));
    th_f64_release(r);

    /* Transposed t and index. */
    th_f64_tensor *tt = th_f64_transpose(t, 0, 1); /* (4, 3) */
    th_i64_tensor *ib = i64_of(2, SZ(3, 4), (const int64_t[]){0, 1, 2, 0, 2, 2, 1, 1, 0, 0, 0, 2});
    th_i64_tensor *it = th_i64_transpose(ib, 0, 1); /* (4, 3) */
    r = th_f64_gather(tt, 1, it);
    CHECK(gathered(r, tt, 1, it));
    th_f64_release(r);

    /* 0-d and empty. */
    th_f64_tensor *s = th_f64_full(0, NULL, 6);
    th_i64_tensor *z = th_i64_full(0, NULL, -1);
    r = th_f64_gather(s, 0, z);
    CHECK(shape_is(r, 0, NULL) && values_are(r, (const double[]){6}, 1));
    th_f64_release(r);
    th_i64_tensor *e = th_i64_empty(2, SZ(0, 4));
    r = th_f64_gather(t, 0, e);
    CHECK(shape_is(r, 2, SZ(0, 4)));
    th_f64_release(r);

    /* out == t: each row reads elements the row itself overwrites. */
    th_i64_tensor *rev = i64_of(2, SZ(2, 2), (const int64_t[]){1, 0, 1, 0});
    CHECK_INT_EQ(th_f64_gather_out(small, small, 1, rev), TH_OK);
    CHECK(values_are(small, (const double[]){2, 1, 4, 3}, 4));

    th_i64_tensor *i3 = th_i64_zeros(3, SZ(1, 1, 1)), *wide = th_i64_zeros(2, SZ(1, 5)), *far = i64_of(2, SZ(1, 1), (const int64_t[]){4});
    CHECK_NULL(th_f64_gather(t, 0, i3), TH_ERR_SHAPE, "th_f64_gather", "index has 3 dims, the tensor 2");
    CHECK_NULL(th_f64_gather(t, 0, wide), TH_ERR_SHAPE, "th_f64_gather", "index has size 5 in dim 1, more than the tensor's 4");
    CHECK_NULL(th_f64_gather(t, 1, far), TH_ERR_RANGE, "th_f64_gather", "index 4 is out of range for dim 1 of size 4");
    CHECK_NULL(th_f64_gather(t, 0, far), TH_ERR_RANGE, "th_f64_gather", "index 4 is out of range for dim 0 of size 3");
    CHECK_NULL(th_f64_gather(t, -3, i0), TH_ERR_RANGE, "th_f64_gather", "dim -3 is out of range");
    CHECK_NULL(th_f64_gather(t, 0, (const th_i64_tensor *)(const void *)t), TH_ERR_DTYPE, "th_f64_gather", "index is f64");
    CHECK_FAILS(th_f64_gather_out(NULL, t, 0, i0), TH_ERR_INVALID, "th_f64_gather_out", "NULL out");
    CHECK_FAILS(th_f64_gather_out(t, t, 0, i0), TH_ERR_SHAPE, "th_f64_gather_out", "out has shape (3, 4)");
    th_i64_release(far);
    th_i64_release(wide);
    th_i64_release(i3);
    th_i64_release(rev);
    th_i64_release(e);
    th_i64_release(z);
    th_f64_release(s);
    th_i64_release(it);
    th_i64_release(ib);
    th_f64_release(tt);
    th_i64_release(i1);
    th_i64_release(i0);
    th_f64_release(t);
    th_i64_release(si);
    th_f64_release(small);

    /* Large (threaded), along dim 0 of a transposed t. */
    th_f64_tensor *big = seq(2, SZ(400, 300), 0);
    th_f64_tensor *bt = th_f64_transpose(big, 0, 1); /* (300, 400) */
    th_i64_tensor *bi = th_i64_empty(2, SZ(500, 400));
    for (int64_t i = 0; i < 500 * 400; i++) th_i64_data(bi)[i] = rnd(600) - 300;
    r = th_f64_gather(bt, 0, bi);
    CHECK(gathered(r, bt, 0, bi));
    th_f64_release(r);
    th_i64_release(bi);
    th_f64_release(bt);
    th_f64_release(big);
}

/* Issue 11: gather_out into an out that overlaps its input copied the input first, then stepped through the
 * copy with the original's strides: wrong values and success, and for wider strides reads past the copy's
 * end (ASan: heap-buffer-overflow in th__gather_row_sized). Each element size takes its own row loop. */
#define GATHER_INPLACE_TRANSPOSED(S)                                                                       \
    do {                                                                                                    \
        th_##S##_tensor *b = th_##S##_convert(th_f64_base(square));                                          \
        th_##S##_tensor *bt = th_##S##_transpose(b, 0, 1);                                                    \
        CHECK_INT_EQ(th_##S##_gather_out(bt, bt, 0, rows), TH_OK);                                           \
        CHECK(values_are_b(th_##S##_base(bt), (const double[]){1, 3, 0, 2}, 4));                            \
        th_##S##_release(bt);                                                                                 \
        th_##S##_release(b);                                                                                  \
    } while (0)

static void test_gather_out_overlapping(void)
{
    /* The call: t the transposed [[0, 1], [2, 3]], that is [[0, 2], [1, 3]]; index [[1, 1], [0, 0]]
     * along dim 0 gives [[1, 3], [0, 2]], written over t itself (the docs allow out == t). */
    th_f64_tensor *square = seq(2, SZ(2, 2), 0);
    th_i64_tensor *rows = i64_of(2, SZ(2, 2), (const int64_t[]){1, 1, 0, 0});
    GATHER_INPLACE_TRANSPOSED(f64);
    GATHER_INPLACE_TRANSPOSED(u8);
    GATHER_INPLACE_TRANSPOSED(i16);
    GATHER_INPLACE_TRANSPOSED(f32);
    GATHER_INPLACE_TRANSPOSED(c128);
    GATHER_INPLACE_TRANSPOSED(i64);

    /* An out overlapping t without being it, both strided wider than a contiguous copy of t: t is every
     * element of column 0, 1, 2 of a 4 x 6 block read down the columns, out every other element of its rows
     * from element 1. They share elements 1, 7 and 13. */
    th_f64_tensor *block = seq(1, SZ(24), 0), *before = th_f64_clone(block);
    th_f64_tensor *t = th_f64_as_strided(block, 2, SZ(3, 3), SZ(1, 6), 0);
    th_f64_tensor *out = th_f64_as_strided(block, 2, SZ(3, 3), SZ(6, 2), 1);
    th_f64_tensor *t_before = th_f64_clone(t);
    th_i64_tensor *idx = i64_of(2, SZ(3, 3), (const int64_t[]){2, 0, 1, 1, 2, 0, 0, 1, 2});
    CHECK_INT_EQ(th_f64_gather_out(out, t, 1, idx), TH_OK);
    bool written[24] = {false};
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 3; j++) {
            double want = th_f64_get(t_before, SZ(i, th_i64_get(idx, SZ(i, j))));
            double got = th_f64_get(out, SZ(i, j));
            CHECK(got == want);
            if (got != want) fprintf(stderr, "  gather_out overlapping: [%lld][%lld] %g, not %g\n", (long long)i,
                                     (long long)j, got, want);
            written[1 + 6 * i + 2 * j] = true;
        }
    for (int64_t k = 0; k < 24; k++)
        if (!written[k]) CHECK(th_f64_data(block)[k] == th_f64_data(before)[k]);

    th_i64_release(idx);
    th_f64_release(t_before);
    th_f64_release(out);
    th_f64_release(t);
    th_f64_release(before);
    th_f64_release(block);
    th_i64_release(rows);
    th_f64_release(square);
}

/* ---- scatter, scatter_add -------------------------------------------------------------------- */

static void test_scatter(void)
{
    /* torch.Tensor.scatter_'s documented example. */
    th_f64_tensor *src = seq(2, SZ(2, 5), 1);
    th_i64_tensor *idx = i64_of(2, SZ(1, 4), (const int64_t[]){0, 1, 2, 0});
    th_f64_tensor *zeros = th_f64_zeros(2, SZ(3, 5));
    th_f64_tensor *r = th_f64_scatter(zeros, 0, idx, src);
    CHECK(values_are(r, (const double[]){1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0}, 15));
    CHECK(values_are(zeros, (const double[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 15)); /* untouched */
    th_f64_release(r);
    th_i64_tensor *idx2 = i64_of(2, SZ(2, 5), (const int64_t[]){0, 1, 2, 0, 0, 2, 0, 0, 1, 2});
    CHECK_INT_EQ(th_f64_scatter_inplace(zeros, 0, idx2, src), TH_OK);
    CHECK(values_are(zeros, (const double[]){1, 7, 8, 4, 5, 0, 2, 0, 9, 0, 6, 0, 3, 0, 10}, 15));

    /* Along dim 1 with negative indices, into a transposed t. */
    th_f64_tensor *store = th_f64_zeros(2, SZ(5, 2));
    th_f64_tensor *t = th_f64_transpose(store, 0, 1); /* (2, 5) */
    th_i64_tensor *i1 = i64_of(2, SZ(2, 2), (const int64_t[]){-1, 0, 2, -4});
    CHECK_INT_EQ(th_f64_scatter_inplace(t, 1, i1, src), TH_OK);
    CHECK(values_are(t, (const double[]){2, 0, 0, 0, 1, 0, 7, 6, 0, 0}, 10));

    /* scatter_add: repeated indices all count. */
    th_f64_tensor *acc = th_f64_zeros(1, SZ(5));
    th_i64_tensor *dup = i64_of(1, SZ(6), (const int64_t[]){0, 1, 0, 1, 2, 1});
    th_f64_tensor *vals = seq(1, SZ(6), 1);
    CHECK_INT_EQ(th_f64_scatter_add_inplace(acc, 0, dup, vals), TH_OK);
    CHECK(values_are(acc, (const double[]){4, 12, 5, 0, 0}, 5));
    r = th_f64_scatter_add(acc, -1, dup, vals);
    CHECK(values_are(r, (const double[]){8, 24, 10, 0, 0}, 5));
    th_f64_release(r);

    /* A 2-d scatter_add with many repeats and an expanded src, against a loop. */
    th_f64_tensor *base = th_f64_zeros(2, SZ(4, 6));
    th_i64_tensor *many = th_i64_empty(2, SZ(30, 6));
    for (int64_t i = 0; i < 180; i++) th_i64_data(many)[i] = rnd(4);
    th_f64_tensor *row = seq(2, SZ(1, 6), 1);
    th_f64_tensor *ex = th_f64_expand(row, 2, SZ(30, 6));
    CHECK_INT_EQ(th_f64_scatter_add_inplace(base, 0, many, ex), TH_OK);
    double want[24] = {0};
    for (int64_t i = 0; i < 30; i++)
        for (int64_t j = 0; j < 6; j++) want[th_i64_data(many)[i * 6 + j] * 6 + j] += (double)(j + 1);
    CHECK(values_are(base, want, 24));

    /* src overlapping t: scatter t's own first row, shifted, into t. */
    th_f64_tensor *w = seq(2, SZ(2, 3), 0);
    th_f64_tensor *first = th_f64_narrow(w, 0, 0, 1);
    th_i64_tensor *to_second = i64_of(2, SZ(1, 3), (const int64_t[]){1, 1, 0});
    CHECK_INT_EQ(th_f64_scatter_inplace(w, 0, to_second, first), TH_OK);
    CHECK(values_are(w, (const double[]){0, 1, 2, 0, 1, 5}, 6));
    th_f64_tensor *s = th_f64_full(0, NULL, 1), *s2 = th_f64_full(0, NULL, 2);
    th_i64_tensor *z = th_i64_zeros(0, NULL);
    CHECK_INT_EQ(th_f64_scatter_add_inplace(s, 0, z, s2), TH_OK);
    CHECK(values_are(s, (const double[]){3}, 1));
    th_i64_tensor *empty = th_i64_empty(2, SZ(0, 3));
    CHECK_INT_EQ(th_f64_scatter_inplace(w, 0, empty, w), TH_OK);

    th_i64_tensor *i3 = th_i64_zeros(3, SZ(1, 1, 1)), *big = th_i64_zeros(2, SZ(3, 5)), *far = i64_of(2, SZ(1, 1), (const int64_t[]){3});
    th_f64_tensor *src1 = th_f64_zeros(1, SZ(3));
    CHECK_FAILS(th_f64_scatter_inplace(zeros, 0, i3, src), TH_ERR_SHAPE, "th_f64_scatter_inplace", "index has 3 dims");
    CHECK_FAILS(th_f64_scatter_inplace(zeros, 0, idx2, src1), TH_ERR_SHAPE, "th_f64_scatter_inplace", "src has another count");
    CHECK_FAILS(th_f64_scatter_inplace(zeros, 0, big, src), TH_ERR_SHAPE, "th_f64_scatter_inplace",
                "index has size 3 in dim 0, more than src's 2");
    CHECK_FAILS(th_f64_scatter_inplace(w, 1, big, src), TH_ERR_SHAPE, "th_f64_scatter_inplace",
                "index has size 3 in dim 0, more than the tensor's 2");
    CHECK_FAILS(th_f64_scatter_inplace(zeros, 0, far, src), TH_ERR_RANGE, "th_f64_scatter_inplace",
                "index 3 is out of range for dim 0 of size 3");
    CHECK_FAILS(th_f64_scatter_add_inplace(zeros, 0, (const th_i64_tensor *)(const void *)src, src), TH_ERR_DTYPE,
                "th_f64_scatter_add_inplace", "index is f64");
    CHECK_FAILS(th_f64_scatter_inplace(zeros, 0, idx, NULL), TH_ERR_INVALID, "th_f64_scatter_inplace", "NULL src");
    CHECK_FAILS(th_f64_scatter_inplace(NULL, 0, idx, src), TH_ERR_INVALID, "th_f64_scatter_inplace", "NULL tensor");
    CHECK_FAILS(th_f64_scatter_add_inplace(ex, 0, many, ex), TH_ERR_INVALID, "th_f64_scatter_add_inplace",
                "several elements share an address");
    CHECK_NULL(th_f64_scatter(zeros, 2, idx, src), TH_ERR_RANGE, "th_f64_scatter", "dim 2 is out of range");
    CHECK_NULL(th_f64_scatter_add(NULL, 0, idx, src), TH_ERR_INVALID, "th_f64_scatter_add", "NULL tensor");
    th_storage_make_read_only(th_f64_storage(acc));
    CHECK_FAILS(th_f64_scatter_add_inplace(acc, 0, dup, vals), TH_ERR_READ_ONLY, "th_f64_scatter_add_inplace", "read-only");
    CHECK(values_are(zeros, (const double[]){1, 7, 8, 4, 5, 0, 2, 0, 9, 0, 6, 0, 3, 0, 10}, 15)); /* errors wrote nothing */

    th_f64_release(src1);
    th_i64_release(far);
    th_i64_release(big);
    th_i64_release(i3);
    th_i64_release(empty);
    th_i64_release(z);
    th_f64_release(s2);
    th_f64_release(s);
    th_i64_release(to_second);
    th_f64_release(first);
    th_f64_release(w);
    th_f64_release(ex);
    th_f64_release(row);
    th_i64_release(many);
    th_f64_release(base);
    th_f64_release(vals);
    th_i64_release(dup);
    th_f64_release(acc);
    th_i64_release(i1);
    th_f64_release(t);
    th_f64_release(store);
    th_i64_release(idx2);
    th_f64_release(zeros);
    th_i64_release(idx);
    th_f64_release(src);
}

/* Integers wrap, bool ors, float16 adds in float. */
static void test_scatter_add_arithmetic(void)
{
    th_i32_tensor *a = th_i32_full(1, SZ(2), INT32_MAX), *one = th_i32_full(1, SZ(3), 1);
    th_i64_tensor *idx = i64_of(1, SZ(3), (const int64_t[]){0, 1, 1});
    CHECK_INT_EQ(th_i32_scatter_add_inplace(a, 0, idx, one), TH_OK);
    CHECK(th_i32_get(a, SZ(0)) == INT32_MIN && th_i32_get(a, SZ(1)) == INT32_MIN + 1);
    th_u8_tensor *u = th_u8_full(1, SZ(2), 250), *ten = th_u8_full(1, SZ(3), 10);
    CHECK_INT_EQ(th_u8_scatter_add_inplace(u, 0, idx, ten), TH_OK);
    CHECK(th_u8_get(u, SZ(0)) == 4 && th_u8_get(u, SZ(1)) == 14);
    th_bool_tensor *b = mask_of(1, SZ(2), "01"), *bsrc = mask_of(1, SZ(3), "110");
    CHECK_INT_EQ(th_bool_scatter_add_inplace(b, 0, idx, bsrc), TH_OK);
    CHECK(th_bool_get(b, SZ(0)) == true && th_bool_get(b, SZ(1)) == true);
    th_f16_tensor *h = th_f16_full(1, SZ(2), th_float16_from_float(0.5f));
    th_f16_tensor *hs = th_f16_full(1, SZ(3), th_float16_from_float(0.25f));
    CHECK_INT_EQ(th_f16_put_inplace(h, idx, hs, true), TH_OK);
    CHECK(th_float16_to_float(th_f16_get(h, SZ(0))) == 0.75f && th_float16_to_float(th_f16_get(h, SZ(1))) == 1.0f);
    th_i64_tensor *big = th_i64_full(1, SZ(1), INT64_MAX), *big1 = th_i64_full(1, SZ(1), 2);
    th_i64_tensor *i0 = th_i64_zeros(1, SZ(1));
    CHECK_INT_EQ(th_i64_put_inplace(big, i0, big1, true), TH_OK);
    CHECK(th_i64_get(big, SZ(0)) == INT64_MIN + 1);
    th_i64_release(i0);
    th_i64_release(big1);
    th_i64_release(big);
    th_f16_release(hs);
    th_f16_release(h);
    th_bool_release(bsrc);
    th_bool_release(b);
    th_u8_release(ten);
    th_u8_release(u);
    th_i64_release(idx);
    th_i32_release(one);
    th_i32_release(a);
}

/* ---- masked_fill, masked_select ------------------------------------------------------------- */

static void test_masked_fill(void)
{
    th_f64_tensor *t = seq(2, SZ(2, 3), 0);
    th_bool_tensor *m3 = mask_of(1, SZ(3), "101"), *m21 = mask_of(2, SZ(2, 1), "01");
    th_f64_tensor *r = th_f64_masked_fill(t, m3, -1);
    CHECK(shape_is(r, 2, SZ(2, 3)) && values_are(r, (const double[]){-1, 1, -1, -1, 4, -1}, 6));
    th_f64_release(r);
    r = th_f64_masked_fill(t, m21, NAN);
    CHECK(values_are(r, (const double[]){0, 1, 2, NAN, NAN, NAN}, 6));
    th_f64_release(r);
    /* t and mask broadcast together: (1, 3) with (2, 1). */
    th_f64_tensor *row = seq(2, SZ(1, 3), 10);
    r = th_f64_masked_fill(row, m21, 0);
    CHECK(shape_is(r, 2, SZ(2, 3)) && values_are(r, (const double[]){10, 11, 12, 0, 0, 0}, 6));
    th_f64_release(r);
    /* A transposed mask, into a transposed out. */
    th_bool_tensor *mb = mask_of(2, SZ(3, 2), "100110");
    th_bool_tensor *mt = th_bool_transpose(mb, 0, 1); /* (2, 3): 1 0 1 / 0 1 0 */
    th_f64_tensor *store = th_f64_zeros(2, SZ(3, 2));
    th_f64_tensor *out = th_f64_transpose(store, 0, 1);
    CHECK_INT_EQ(th_f64_masked_fill_out(out, t, mt, 7), TH_OK);
    CHECK(values_are(out, (const double[]){7, 1, 7, 3, 7, 5}, 6));
    CHECK_INT_EQ(th_f64_masked_fill_inplace(t, mt, 9), TH_OK);
    CHECK(values_are(t, (const double[]){9, 1, 9, 3, 9, 5}, 6));

    /* A bool tensor masked by itself, in place and through out == mask. */
    th_bool_tensor *b = mask_of(1, SZ(4), "1011");
    CHECK_INT_EQ(th_bool_masked_fill_inplace(b, b, false), TH_OK);
    CHECK(values_are_b(th_bool_base(b), (const double[]){0, 0, 0, 0}, 4));
    th_bool_tensor *c = mask_of(1, SZ(4), "1010"), *d = mask_of(1, SZ(4), "0110");
    CHECK_INT_EQ(th_bool_masked_fill_out(c, d, c, true), TH_OK); /* out is the mask: 1 0 1 0 must be read first */
    CHECK(values_are_b(th_bool_base(c), (const double[]){1, 1, 1, 0}, 4));

    th_f64_tensor *s = th_f64_full(0, NULL, 1);
    th_bool_tensor *st = mask_of(0, NULL, "1");
    CHECK_INT_EQ(th_f64_masked_fill_inplace(s, st, 2), TH_OK);
    CHECK(values_are(s, (const double[]){2}, 1));
    th_f64_tensor *e = th_f64_zeros(2, SZ(0, 3));
    r = th_f64_masked_fill(e, m3, 1);
    CHECK(shape_is(r, 2, SZ(0, 3)));
    th_f64_release(r);

    /* Large (threaded), a transposed t and a random mask, against a loop. */
    th_f64_tensor *big = seq(2, SZ(400, 300), 0);
    th_f64_tensor *bt = th_f64_transpose(big, 0, 1); /* (300, 400) */
    th_bool_tensor *bm = th_bool_empty(2, SZ(300, 400));
    for (int64_t i = 0; i < 120000; i++) th_bool_data(bm)[i] = rnd(2) == 0;
    CHECK_INT_EQ(th_f64_masked_fill_inplace(bt, bm, -1), TH_OK);
    bool ok = true;
    for (int64_t i = 0; ok && i < 300; i++)
        for (int64_t j = 0; ok && j < 400; j++)
            ok = th_f64_data(big)[j * 300 + i] == (th_bool_data(bm)[i * 400 + j] ? -1 : (double)(j * 300 + i));
    CHECK(ok);
    th_bool_release(bm);
    th_f64_release(bt);
    th_f64_release(big);

    th_bool_tensor *m23 = mask_of(2, SZ(2, 3), "111000");
    th_u8_tensor *u8mask = th_u8_zeros(1, SZ(3));
    th_bool_tensor *m4 = mask_of(1, SZ(4), "1111");
    CHECK_FAILS(th_f64_masked_fill_inplace(row, m23, 1), TH_ERR_SHAPE, "th_f64_masked_fill_inplace",
                "shape (2, 3) does not broadcast to (1, 3)");
    CHECK_NULL(th_f64_masked_fill(t, m4, 1), TH_ERR_SHAPE, "th_f64_masked_fill", "do not broadcast");
    CHECK_NULL(th_f64_masked_fill(t, (const th_bool_tensor *)(const void *)u8mask, 1), TH_ERR_DTYPE,
               "th_f64_masked_fill", "mask is u8; it must be bool");
    CHECK_NULL(th_f64_masked_fill(t, NULL, 1), TH_ERR_INVALID, "th_f64_masked_fill", "NULL mask");
    CHECK_FAILS(th_f64_masked_fill_inplace(NULL, m3, 1), TH_ERR_INVALID, "th_f64_masked_fill_inplace", "NULL tensor");
    CHECK_FAILS(th_f64_masked_fill_out(NULL, t, m3, 1), TH_ERR_INVALID, "th_f64_masked_fill_out", "NULL out");
    CHECK_FAILS(th_f64_masked_fill_out(row, t, m3, 1), TH_ERR_SHAPE, "th_f64_masked_fill_out", "out has shape (1, 3)");
    th_storage_make_read_only(th_f64_storage(s));
    CHECK_FAILS(th_f64_masked_fill_inplace(s, st, 3), TH_ERR_READ_ONLY, "th_f64_masked_fill_inplace", "read-only");

    th_bool_release(m4);
    th_u8_release(u8mask);
    th_bool_release(m23);
    th_f64_release(e);
    th_bool_release(st);
    th_f64_release(s);
    th_bool_release(d);
    th_bool_release(c);
    th_bool_release(b);
    th_f64_release(out);
    th_f64_release(store);
    th_bool_release(mt);
    th_bool_release(mb);
    th_f64_release(row);
    th_bool_release(m21);
    th_bool_release(m3);
    th_f64_release(t);
}

static void test_masked_select(void)
{
    th_f64_tensor *t = seq(2, SZ(2, 3), 0);
    th_bool_tensor *m = mask_of(2, SZ(2, 3), "101010"), *m3 = mask_of(1, SZ(3), "101");
    th_f64_tensor *r = th_f64_masked_select(t, m);
    CHECK(shape_is(r, 1, SZ(3)) && values_are(r, (const double[]){0, 2, 4}, 3));
    th_f64_release(r);
    r = th_f64_masked_select(t, m3);
    CHECK(values_are(r, (const double[]){0, 2, 3, 5}, 4));
    th_f64_release(r);
    /* Row-major order of the logical layout, for a transposed t; broadcasting t against the mask. */
    th_f64_tensor *tt = th_f64_transpose(t, 0, 1); /* (3, 2): 0 3 / 1 4 / 2 5 */
    th_bool_tensor *m32 = mask_of(2, SZ(3, 2), "110110");
    r = th_f64_masked_select(tt, m32);
    CHECK(values_are(r, (const double[]){0, 3, 4, 2}, 4));
    th_f64_release(r);
    th_f64_tensor *v3 = seq(1, SZ(3), 10);
    th_bool_tensor *m21 = mask_of(2, SZ(2, 1), "11");
    r = th_f64_masked_select(v3, m21);
    CHECK(values_are(r, (const double[]){10, 11, 12, 10, 11, 12}, 6));
    th_f64_release(r);
    th_bool_tensor *none = mask_of(1, SZ(3), "000");
    r = th_f64_masked_select(t, none);
    CHECK(shape_is(r, 1, SZ(0)));
    th_f64_release(r);
    th_f64_tensor *s = th_f64_full(0, NULL, 4);
    th_bool_tensor *yes = mask_of(0, NULL, "1");
    r = th_f64_masked_select(s, yes);
    CHECK(shape_is(r, 1, SZ(1)) && values_are(r, (const double[]){4}, 1));
    th_f64_release(r);

    /* Large, strided, against a loop. */
    th_f64_tensor *big = seq(3, SZ(20, 30, 40), 0);
    th_f64_tensor *bp = th_f64_permute(big, (const int[]){2, 0, 1}); /* (40, 20, 30) */
    th_bool_tensor *bm = th_bool_empty(3, SZ(40, 20, 30));
    int64_t count = 0;
    for (int64_t i = 0; i < 24000; i++) count += (th_bool_data(bm)[i] = rnd(3) == 0);
    r = th_f64_masked_select(bp, bm);
    bool ok = shape_is(r, 1, SZ(count));
    int64_t k = 0, pos[3];
    for (int64_t i = 0; ok && i < 24000; i++) {
        if (!th_bool_data(bm)[i]) continue;
        unravel(3, SZ(40, 20, 30), i, pos);
        ok = th_f64_data(r)[k++] == at(bp, pos);
    }
    CHECK(ok);
    th_f64_release(r);

    th_bool_tensor *m4 = mask_of(1, SZ(4), "1111");
    CHECK_NULL(th_f64_masked_select(t, m4), TH_ERR_SHAPE, "th_f64_masked_select", "do not broadcast");
    CHECK_NULL(th_f64_masked_select(t, (const th_bool_tensor *)(const void *)t), TH_ERR_DTYPE,
               "th_f64_masked_select", "mask is f64");
    CHECK_NULL(th_f64_masked_select(NULL, m), TH_ERR_INVALID, "th_f64_masked_select", "NULL tensor");

    th_bool_release(m4);
    th_bool_release(bm);
    th_f64_release(bp);
    th_f64_release(big);
    th_bool_release(yes);
    th_f64_release(s);
    th_bool_release(none);
    th_bool_release(m21);
    th_f64_release(v3);
    th_bool_release(m32);
    th_f64_release(tt);
    th_bool_release(m3);
    th_bool_release(m);
    th_f64_release(t);
}

/* ---- nonzero -------------------------------------------------------------------------------- */

static void test_nonzero(void)
{
    th_f64_tensor *t = f64_of(2, SZ(2, 3), (const double[]){0, 1, 0, NAN, 0, -0.0});
    th_i64_tensor *r = th_f64_nonzero(t);
    CHECK(shape_is_b(th_i64_base(r), 2, SZ(2, 2)) && i64_values_are(r, (const double[]){0, 1, 1, 0}, 4));
    th_i64_release(r);
    /* Transposed: coordinates in the logical layout, row-major. */
    th_f64_tensor *tt = th_f64_transpose(t, 0, 1); /* (3, 2): 0 nan / 1 0 / 0 -0 */
    r = th_f64_nonzero(tt);
    CHECK(i64_values_are(r, (const double[]){0, 1, 1, 0}, 4));
    th_i64_release(r);
    th_f64_tensor *s1 = th_f64_full(0, NULL, 2), *s0 = th_f64_full(0, NULL, 0);
    r = th_f64_nonzero(s1);
    CHECK(shape_is_b(th_i64_base(r), 2, SZ(1, 0)));
    th_i64_release(r);
    r = th_f64_nonzero(s0);
    CHECK(shape_is_b(th_i64_base(r), 2, SZ(0, 0)));
    th_i64_release(r);
    th_f64_tensor *e = th_f64_zeros(2, SZ(0, 3));
    r = th_f64_nonzero(e);
    CHECK(shape_is_b(th_i64_base(r), 2, SZ(0, 2)));
    th_i64_release(r);
    th_c64_tensor *c = th_c64_zeros(1, SZ(3));
    float parts[2] = {0.0f, 1.0f};
    memcpy(&th_c64_data(c)[1], parts, sizeof parts); /* 0 + 1i is nonzero */
    th_i64_tensor *rc = th_c64_nonzero(c);
    CHECK(i64_values_are(rc, (const double[]){1}, 1));
    th_i64_release(rc);
    th_c64_release(c);

    /* 3-d, an expanded input, against a loop. */
    th_f64_tensor *src = th_f64_empty(3, SZ(5, 1, 7));
    for (int64_t i = 0; i < 35; i++) th_f64_data(src)[i] = (double)(rnd(3) == 0);
    th_f64_tensor *ex = th_f64_expand(src, 3, SZ(5, 4, 7));
    r = th_f64_nonzero(ex);
    int64_t n = 0, pos[3];
    bool ok = r != NULL;
    for (int64_t i = 0; ok && i < 140; i++) {
        unravel(3, SZ(5, 4, 7), i, pos);
        if (at(ex, pos) == 0) continue;
        ok = n < th_i64_size(r, 0);
        for (int k = 0; ok && k < 3; k++) ok = th_i64_get(r, SZ(n, k)) == pos[k];
        n++;
    }
    CHECK(ok && r && th_i64_size(r, 0) == n && th_i64_size(r, 1) == 3);
    th_i64_release(r);
    CHECK_NULL(th_f64_nonzero(NULL), TH_ERR_INVALID, "th_f64_nonzero", "NULL tensor");
    th_f64_release(ex);
    th_f64_release(src);
    th_f64_release(e);
    th_f64_release(s0);
    th_f64_release(s1);
    th_f64_release(tt);
    th_f64_release(t);
}

/* ---- take, put ------------------------------------------------------------------------------ */

static void test_take_put(void)
{
    th_f64_tensor *t = seq(2, SZ(2, 3), 0);
    th_i64_tensor *idx = i64_of(2, SZ(2, 2), (const int64_t[]){0, 5, -1, 2});
    th_f64_tensor *r = th_f64_take(t, idx);
    CHECK(shape_is(r, 2, SZ(2, 2)) && values_are(r, (const double[]){0, 5, 5, 2}, 4));
    th_f64_release(r);
    th_f64_tensor *tt = th_f64_transpose(t, 0, 1); /* flat: 0 3 1 4 2 5 */
    r = th_f64_take(tt, idx);
    CHECK(values_are(r, (const double[]){0, 5, 5, 1}, 4));
    th_f64_release(r);
    th_i64_tensor *z = th_i64_full(0, NULL, 4);
    r = th_f64_take(tt, z);
    CHECK(shape_is(r, 0, NULL) && values_are(r, (const double[]){2}, 1));
    th_f64_release(r);
    th_f64_tensor *out = th_f64_zeros(2, SZ(2, 2));
    th_f64_tensor *out_t = th_f64_transpose(out, 0, 1);
    CHECK_INT_EQ(th_f64_take_out(out_t, t, idx), TH_OK);
    CHECK(values_are(out_t, (const double[]){0, 5, 5, 2}, 4));
    /* out overlapping t: t's first row gets elements from all of t. */
    th_f64_tensor *w = seq(1, SZ(4), 0);
    th_f64_tensor *head = th_f64_narrow(w, 0, 0, 2);
    th_i64_tensor *last2 = i64_of(1, SZ(2), (const int64_t[]){3, 0});
    CHECK_INT_EQ(th_f64_take_out(head, w, last2), TH_OK);
    CHECK(values_are(w, (const double[]){3, 0, 2, 3}, 4));

    /* Large (threaded) on a strided t, against a loop. */
    th_f64_tensor *big = seq(2, SZ(300, 400), 0);
    th_f64_tensor *bt = th_f64_transpose(big, 0, 1);
    th_i64_tensor *bi = th_i64_empty(1, SZ(100000));
    for (int64_t i = 0; i < 100000; i++) th_i64_data(bi)[i] = rnd(240000) - 120000;
    r = th_f64_take(bt, bi);
    bool ok = r != NULL;
    for (int64_t i = 0; ok && i < 100000; i++) {
        int64_t k = th_i64_data(bi)[i] < 0 ? th_i64_data(bi)[i] + 120000 : th_i64_data(bi)[i];
        ok = th_f64_data(r)[i] == (double)((k % 300) * 400 + k / 300);
    }
    CHECK(ok);
    th_f64_release(r);

    /* put and scatter_add over many blocks of destinations, repeated indices included, against a loop. */
    th_f64_tensor *sums = th_f64_zeros(2, SZ(7, 9)), *sums2 = th_f64_zeros(1, SZ(63));
    th_i64_tensor *pidx = th_i64_empty(1, SZ(5000));
    th_f64_tensor *pval = th_f64_empty(1, SZ(5000));
    double want[63] = {0};
    for (int64_t i = 0; i < 5000; i++) {
        th_i64_data(pidx)[i] = rnd(126) - 63;
        th_f64_data(pval)[i] = (double)rnd(100);
        want[th_i64_data(pidx)[i] < 0 ? th_i64_data(pidx)[i] + 63 : th_i64_data(pidx)[i]] += th_f64_data(pval)[i];
    }
    CHECK_INT_EQ(th_f64_put_inplace(sums, pidx, pval, true), TH_OK);
    CHECK(values_are(sums, want, 63));
    CHECK_INT_EQ(th_f64_scatter_add_inplace(sums2, 0, pidx, pval), TH_OK);
    CHECK(values_are(sums2, want, 63));
    CHECK_INT_EQ(th_f64_put_inplace(sums, pidx, pval, false), TH_OK); /* the last of repeated indices wins */
    for (int64_t i = 0; i < 5000; i++)
        want[th_i64_data(pidx)[i] < 0 ? th_i64_data(pidx)[i] + 63 : th_i64_data(pidx)[i]] = th_f64_data(pval)[i];
    CHECK(values_are(sums, want, 63));
    th_f64_release(pval);
    th_i64_release(pidx);
    th_f64_release(sums2);
    th_f64_release(sums);

    /* put: index and src are paired in row-major order; shapes may differ. */
    th_f64_tensor *p = th_f64_zeros(2, SZ(2, 3));
    th_i64_tensor *pi = i64_of(1, SZ(3), (const int64_t[]){1, -1, 1});
    th_f64_tensor *ps = seq(2, SZ(1, 3), 1);
    r = th_f64_put(p, pi, ps, false);
    CHECK(values_are(r, (const double[]){0, 3, 0, 0, 0, 2}, 6));
    th_f64_release(r);
    r = th_f64_put(p, pi, ps, true);
    CHECK(values_are(r, (const double[]){0, 4, 0, 0, 0, 2}, 6));
    th_f64_release(r);
    CHECK(values_are(p, (const double[]){0, 0, 0, 0, 0, 0}, 6));
    th_f64_tensor *pt = th_f64_transpose(p, 0, 1); /* (3, 2): flat k is p[k % 2][k / 2] */
    CHECK_INT_EQ(th_f64_put_inplace(pt, pi, ps, true), TH_OK);
    CHECK(values_are(p, (const double[]){0, 0, 0, 4, 0, 2}, 6));
    /* src overlapping t. */
    th_f64_tensor *q = seq(1, SZ(4), 0);
    th_f64_tensor *qh = th_f64_narrow(q, 0, 0, 2);
    th_i64_tensor *qi = i64_of(1, SZ(2), (const int64_t[]){1, 2});
    CHECK_INT_EQ(th_f64_put_inplace(q, qi, qh, false), TH_OK);
    CHECK(values_are(q, (const double[]){0, 0, 1, 3}, 4));
    th_i64_tensor *noidx = th_i64_empty(1, SZ(0));
    th_f64_tensor *nosrc = th_f64_empty(2, SZ(0, 5));
    CHECK_INT_EQ(th_f64_put_inplace(q, noidx, nosrc, true), TH_OK);

    th_f64_tensor *e = th_f64_zeros(1, SZ(0));
    th_i64_tensor *i5 = i64_of(1, SZ(1), (const int64_t[]){6});
    th_i64_tensor *i0 = i64_of(1, SZ(1), (const int64_t[]){0});
    CHECK_NULL(th_f64_take(t, i5), TH_ERR_RANGE, "th_f64_take", "index 6 is out of range for a tensor of 6 elements");
    CHECK_NULL(th_f64_take(e, i0), TH_ERR_RANGE, "th_f64_take", "index 0 is out of range for a tensor of 0 elements");
    CHECK_NULL(th_f64_take(t, (const th_i64_tensor *)(const void *)t), TH_ERR_DTYPE, "th_f64_take", "index is f64");
    CHECK_NULL(th_f64_take(NULL, idx), TH_ERR_INVALID, "th_f64_take", "NULL tensor");
    CHECK_FAILS(th_f64_take_out(NULL, t, idx), TH_ERR_INVALID, "th_f64_take_out", "NULL out");
    CHECK_FAILS(th_f64_take_out(t, t, idx), TH_ERR_SHAPE, "th_f64_take_out", "out has shape (2, 3)");
    CHECK_FAILS(th_f64_put_inplace(p, pi, t, false), TH_ERR_SHAPE, "th_f64_put_inplace",
                "index has 3 elements but src has 6");
    CHECK_FAILS(th_f64_put_inplace(p, i5, ps, false), TH_ERR_RANGE, "th_f64_put_inplace", "index 6 is out of range");
    CHECK_FAILS(th_f64_put_inplace(p, pi, NULL, false), TH_ERR_INVALID, "th_f64_put_inplace", "NULL src");
    CHECK_NULL(th_f64_put(p, (const th_i64_tensor *)(const void *)ps, ps, false), TH_ERR_DTYPE, "th_f64_put",
               "index is f64");
    th_storage_make_read_only(th_f64_storage(p));
    CHECK_FAILS(th_f64_put_inplace(p, pi, ps, true), TH_ERR_READ_ONLY, "th_f64_put_inplace", "read-only");

    th_i64_release(i0);
    th_i64_release(i5);
    th_f64_release(e);
    th_f64_release(nosrc);
    th_i64_release(noidx);
    th_i64_release(qi);
    th_f64_release(qh);
    th_f64_release(q);
    th_f64_release(pt);
    th_f64_release(ps);
    th_i64_release(pi);
    th_f64_release(p);
    th_i64_release(bi);
    th_f64_release(bt);
    th_f64_release(big);
    th_i64_release(last2);
    th_f64_release(head);
    th_f64_release(w);
    th_f64_release(out_t);
    th_f64_release(out);
    th_i64_release(z);
    th_f64_release(tt);
    th_i64_release(idx);
    th_f64_release(t);
}

/* Running out of memory fails cleanly: an error, no leak. */
static void test_out_of_memory(void)
{
    th_f64_tensor *t = seq(2, SZ(2, 3), 0);
    th_i64_tensor *idx = i64_of(1, SZ(2), (const int64_t[]){1, 0});
    th_bool_tensor *m = mask_of(1, SZ(3), "110");
    th_counting_allocator_fail_after(check_counter, 1);
    CHECK_NULL(th_f64_index_select(t, 0, idx), TH_ERR_NOMEM, "th_f64_index_select", "could not allocate");
    CHECK_NULL(th_f64_masked_select(t, m), TH_ERR_NOMEM, "th_f64_masked_select", "could not allocate");
    CHECK_NULL(th_f64_nonzero(t), TH_ERR_NOMEM, "th_f64_nonzero", "could not allocate");
    CHECK_NULL(th_f64_put(t, idx, t, false), TH_ERR_NOMEM, "th_f64_put", "could not allocate");
    th_counting_allocator_fail_after(check_counter, 0);
    th_bool_release(m);
    th_i64_release(idx);
    th_f64_release(t);
}

/* Operands the host cannot touch, shrunk storages, and src tensors of another dtype passed through a cast. */
static void test_more_errors(void)
{
    double mem[6] = {0};
    th_storage *ds = th_storage_from_blob(mem, sizeof mem, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    th_f64_tensor *dev = th_f64_new_with_storage(ds, 0, 1, SZ(6), NULL);
    th_i64_tensor *dev_idx = th_i64_new_with_storage(ds, 0, 1, SZ(6), NULL);
    th_f64_tensor *t = seq(1, SZ(6), 0);
    th_i64_tensor *idx = i64_of(1, SZ(2), (const int64_t[]){0, 1});
    /* device operands go to their device's companion, which refuses a host tensor beside them */
    CHECK_NULL(th_f64_index_select(dev, 0, idx), TH_ERR_DEVICE, "th_f64_index_select",
               "operand 1 is on device 2:0 and operand 2 on device 1:0");
    CHECK_NULL(th_f64_take(t, dev_idx), TH_ERR_DEVICE, "th_f64_take", "operand 1 is on device 1:0 and operand 2 on device 2:0");
    th_f64_tensor *two = seq(1, SZ(2), 0);
    CHECK_FAILS(th_f64_put_inplace(dev, idx, two, false), TH_ERR_DEVICE, "th_f64_put_inplace", "on device 2:0");
    th_f64_release(two);

    th_f64_tensor *shrunk = seq(1, SZ(6), 0);
    CHECK_INT_EQ(th_storage_resize(th_f64_storage(shrunk), 16), TH_OK);
    CHECK_NULL(th_f64_gather(shrunk, 0, idx), TH_ERR_RANGE, "th_f64_gather", "its storage now holds 2");

    th_i64_tensor *other = th_i64_zeros(1, SZ(2));
    const th_f64_tensor *as_f64 = (const th_f64_tensor *)(const void *)other;
    CHECK_FAILS(th_f64_scatter_inplace(t, 0, idx, as_f64), TH_ERR_DTYPE, "th_f64_scatter_inplace",
                "src is i64, the tensor f64");
    CHECK_FAILS(th_f64_put_inplace(t, idx, as_f64, true), TH_ERR_DTYPE, "th_f64_put_inplace",
                "src is i64, the tensor f64");

    th_i64_release(other);
    th_f64_release(shrunk);
    th_i64_release(idx);
    th_f64_release(t);
    th_i64_release(dev_idx);
    th_f64_release(dev);
    th_storage_release(ds);
}

/* ---- threads ------------------------------------------------------------------------------ */

/* Each threaded path gives the same bytes for 1 and 2 threads. Every case is above the size at which a
 * loop splits (2 * 32K elements of work), on strided operands and outs and on several element sizes
 * (the kernels switch on it), so the chunks start part way through rows. */
enum { IX_OPS = 13 };

typedef struct index_thread_inputs {
    th_f64_tensor *t, *tt;       /* (300, 500) and its transpose */
    th_i16_tensor *s;            /* (300, 500), transposed in memory */
    th_u8_tensor *wide;          /* (3, 100000) */
    th_c128_tensor *c;           /* (300, 400) */
    th_f32_tensor *g;            /* (300, 500), transposed in memory */
    th_i32_tensor *m;            /* (400, 500), transposed in memory */
    th_i64_tensor *rows, *cols, *last, *crows, *g0, *g1, *flat;
    th_bool_tensor *mcol, *mfull, *mfull_t; /* (400, 1); (400, 500) and its transpose */
} index_thread_inputs;

static th_i64_tensor *random_indices(int ndim, const int64_t *sizes, int64_t bound)
{
    th_i64_tensor *t = th_i64_empty(ndim, sizes);
    for (int64_t i = 0; i < th_i64_numel(t); i++) th_i64_data(t)[i] = rnd(2 * bound) - bound; /* negatives wrap */
    return t;
}

static bool same_storage_bytes(const th_tensor *x, const th_tensor *y)
{
    if (!x || !y) return false;
    th_storage *sx = th_tensor_storage(x), *sy = th_tensor_storage(y);
    return th_storage_nbytes(sx) == th_storage_nbytes(sy) &&
           memcmp(th_storage_raw_data(sx), th_storage_raw_data(sy), th_storage_nbytes(sx)) == 0;
}

static void index_thread_ops(const index_thread_inputs *in, th_tensor **r)
{
    r[0] = th_f64_base(th_f64_index_select(in->t, 0, in->rows)); /* split over the indices */
    r[1] = th_i16_base(th_i16_index_select(in->s, 1, in->cols));
    r[2] = th_u8_base(th_u8_index_select(in->wide, 0, in->last)); /* one index: split over the slice */
    r[3] = th_c128_base(th_c128_index_select(in->c, 0, in->crows));
    r[4] = th_f32_base(th_f32_gather(in->g, 0, in->g0));
    r[5] = th_f32_base(th_f32_gather(in->g, 1, in->g1));
    r[6] = th_i32_base(th_i32_masked_fill(in->m, in->mcol, 7));
    th_i32_tensor *filled = th_i32_clone(in->m);
    th_i32_tensor *filled_t = th_i32_transpose(filled, 0, 1);
    CHECK_INT_EQ(th_i32_masked_fill_inplace(filled_t, in->mfull_t, -3), TH_OK);
    th_i32_release(filled_t);
    r[7] = th_i32_base(filled);
    r[8] = th_f64_base(th_f64_take(in->tt, in->flat)); /* strided: every index unravelled */
    r[9] = th_f64_base(th_f64_take(in->t, in->flat));
    /* the same into outs transposed in memory */
    th_f64_tensor *so = th_f64_zeros(2, SZ(500, 400)), *sot = th_f64_transpose(so, 0, 1);
    CHECK_INT_EQ(th_f64_index_select_out(sot, in->t, 0, in->rows), TH_OK);
    th_f64_release(sot);
    r[10] = th_f64_base(so);
    th_f32_tensor *go = th_f32_zeros(2, SZ(500, 300)), *got = th_f32_transpose(go, 0, 1);
    CHECK_INT_EQ(th_f32_gather_out(got, in->g, 0, in->g0), TH_OK);
    th_f32_release(got);
    r[11] = th_f32_base(go);
    th_f64_tensor *to = th_f64_zeros(2, SZ(500, 400)), *tot = th_f64_transpose(to, 0, 1);
    CHECK_INT_EQ(th_f64_take_out(tot, in->tt, in->flat), TH_OK);
    th_f64_release(tot);
    r[12] = th_f64_base(to);
}

static void test_threads(void)
{
    index_thread_inputs in;
    in.t = seq(2, SZ(300, 500), 0);
    in.tt = th_f64_transpose(in.t, 0, 1);
    th_i16_tensor *s_store = th_i16_empty(2, SZ(500, 300));
    th_f32_tensor *g_store = th_f32_empty(2, SZ(500, 300));
    th_i32_tensor *m_store = th_i32_empty(2, SZ(500, 400));
    for (int64_t i = 0; i < 150000; i++) {
        th_i16_data(s_store)[i] = (int16_t)(i * 37);
        th_f32_data(g_store)[i] = (float)i * 0.5f;
    }
    for (int64_t i = 0; i < 200000; i++) th_i32_data(m_store)[i] = (int32_t)(i * 2654435761u);
    in.s = th_i16_transpose(s_store, 0, 1);
    in.g = th_f32_transpose(g_store, 0, 1);
    in.m = th_i32_transpose(m_store, 0, 1);
    in.wide = th_u8_empty(2, SZ(3, 100000));
    for (int64_t i = 0; i < 300000; i++) th_u8_data(in.wide)[i] = (uint8_t)(i * 7);
    in.c = th_c128_empty(2, SZ(300, 400));
    for (int64_t i = 0; i < 240000; i++) ((double *)(void *)th_c128_data(in.c))[i] = (double)(i % 2 ? -i : i);
    in.rows = random_indices(1, SZ(400), 300);
    in.cols = random_indices(1, SZ(300), 500);
    in.last = i64_of(1, SZ(1), (const int64_t[]){-1});
    in.crows = random_indices(1, SZ(250), 300);
    in.g0 = random_indices(2, SZ(300, 500), 300);
    in.g1 = random_indices(2, SZ(300, 250), 500);
    in.flat = random_indices(2, SZ(400, 500), 150000);
    in.mcol = th_bool_empty(2, SZ(400, 1));
    in.mfull = th_bool_empty(2, SZ(400, 500));
    in.mfull_t = th_bool_transpose(in.mfull, 0, 1);
    for (int64_t i = 0; i < 400; i++) th_bool_data(in.mcol)[i] = rnd(2) == 0;
    for (int64_t i = 0; i < 200000; i++) th_bool_data(in.mfull)[i] = rnd(3) == 0;

    th_tensor *r[2][IX_OPS] = {{NULL}};
    const int saved = th_get_num_threads();
    th_set_num_threads(1);
    index_thread_ops(&in, r[0]);
    if (test_set_threads(2)) {
        index_thread_ops(&in, r[1]);
        for (int k = 0; k < IX_OPS; k++) {
            bool same = same_storage_bytes(r[0][k], r[1][k]);
            CHECK(same);
            if (!same) fprintf(stderr, "  index op %d differs between 1 and 2 threads\n", k);
        }
    }
    th_set_num_threads(saved);
    /* spot checks that the runs computed something: the out forms equal the new ones */
    bool ok = r[0][0] && r[0][10] && r[0][4] && r[0][11] && r[0][8] && r[0][12];
    for (int64_t i = 0; ok && i < 400; i++)
        for (int64_t j = 0; j < 500; j += 7) {
            ok &= ((double *)th_tensor_data(r[0][10]))[j * 400 + i] == ((double *)th_tensor_data(r[0][0]))[i * 500 + j];
            ok &= ((double *)th_tensor_data(r[0][12]))[j * 400 + i] == ((double *)th_tensor_data(r[0][8]))[i * 500 + j];
            if (i < 300)
                ok &= ((float *)th_tensor_data(r[0][11]))[j * 300 + i] == ((float *)th_tensor_data(r[0][4]))[i * 500 + j];
        }
    CHECK(ok);

    for (int run = 0; run < 2; run++)
        for (int k = 0; k < IX_OPS; k++) th_tensor_release(r[run][k]);
    th_bool_release(in.mfull_t);
    th_bool_release(in.mfull);
    th_bool_release(in.mcol);
    th_i64_release(in.flat);
    th_i64_release(in.g1);
    th_i64_release(in.g0);
    th_i64_release(in.crows);
    th_i64_release(in.last);
    th_i64_release(in.cols);
    th_i64_release(in.rows);
    th_c128_release(in.c);
    th_u8_release(in.wide);
    th_i32_release(in.m);
    th_f32_release(in.g);
    th_i16_release(in.s);
    th_i32_release(m_store);
    th_f32_release(g_store);
    th_i16_release(s_store);
    th_f64_release(in.tt);
    th_f64_release(in.t);
}

int main(void)
{
    test_begin();
    test_index_select();
    test_index_select_large();
    test_gather();
    test_gather_out_overlapping();
    test_scatter();
    test_scatter_add_arithmetic();
    test_masked_fill();
    test_masked_select();
    test_nonzero();
    test_take_put();
    test_out_of_memory();
    test_more_errors();
    test_threads();
#define X(sfx, ...) TH__IF_##sfx(check_##sfx##_index();)
    TH_FOREACH_DTYPE(X)
#undef X
    return test_end("index");
}

#else /* stamped per dtype */

#if defined(TH_REAL_IS_COMPLEX)
#define TEST_COMPLEX 1
#else
#define TEST_COMPLEX 0
#endif

static TH_NAME(tensor) *TH_DT_PASTE(make_, )(const th_f64_tensor *re, const th_f64_tensor *im,
                                             th_f64_tensor **re_out, th_f64_tensor **im_out)
{
    TH_NAME(tensor) *t;
    if (TEST_COMPLEX) {
        th_c128_tensor *c = complex_of(re, im);
        t = TH_NAME(convert)(th_c128_base(c));
        th_c128_release(c);
    } else {
        t = TH_NAME(convert)(th_f64_base(re));
    }
    *re_out = real_part(TH_NAME(base)(t));
    *im_out = TEST_COMPLEX ? imag_part(TH_NAME(base)(t)) : NULL;
    return t;
}

/* want as this dtype holds it (sums of bools are true, not 2): exact for the small values used here. */
static th_f64_tensor *TH_DT_PASTE(through_, )(th_f64_tensor *want)
{
    if (TEST_COMPLEX) return want;
    TH_NAME(tensor) *t = TH_NAME(convert)(th_f64_base(want));
    th_f64_tensor *back = real_part(TH_NAME(base)(t));
    TH_NAME(release)(t);
    th_f64_release(want);
    return back;
}

static void TH_DT_PASTE(check_, _index)(void)
{
    const char *dt = th_dtype_name(TH_DT_ENUM);
    th_f64_tensor *re0 = seq(2, SZ(3, 4), 0), *im0 = seq(2, SZ(3, 4), 0);
    for (int64_t i = 0; i < 12; i++) th_f64_data(re0)[i] = (double)(i % 4), th_f64_data(im0)[i] = (double)(3 * i - 5);
    th_f64_tensor *re, *im;
    TH_NAME(tensor) *a = TH_DT_PASTE(make_, )(re0, im0, &re, &im);
    TH_NAME(tensor) *at = TH_NAME(transpose)(a, 0, 1); /* (4, 3), strided */
    th_f64_tensor *ret = th_f64_transpose(re, 0, 1), *imt = im ? th_f64_transpose(im, 0, 1) : NULL;

    th_i64_tensor *sel = i64_of(1, SZ(4), (const int64_t[]){2, -1, 0, 2});
    expect(dt, "index_select", TH_NAME(base)(TH_NAME(index_select)(at, 1, sel)), th_f64_index_select(ret, 1, sel),
           im ? th_f64_index_select(imt, 1, sel) : NULL);
    th_i64_tensor *g = i64_of(2, SZ(2, 3), (const int64_t[]){3, 0, -1, 1, 2, 0});
    expect(dt, "gather", TH_NAME(base)(TH_NAME(gather)(at, 0, g)), th_f64_gather(ret, 0, g),
           im ? th_f64_gather(imt, 0, g) : NULL);
    th_i64_tensor *sc = i64_of(2, SZ(2, 3), (const int64_t[]){0, 1, 2, 2, 1, 0});
    th_f64_tensor *src_re, *src_im;
    TH_NAME(tensor) *src = TH_DT_PASTE(make_, )(re0, im0, &src_re, &src_im); /* (3, 4) */
    expect(dt, "scatter", TH_NAME(base)(TH_NAME(scatter)(a, 0, sc, src)), th_f64_scatter(re, 0, sc, src_re),
           im ? th_f64_scatter(im, 0, sc, src_im) : NULL);
    expect(dt, "scatter_add", TH_NAME(base)(TH_NAME(scatter_add)(a, 1, sc, src)),
           TH_DT_PASTE(through_, )(th_f64_scatter_add(re, 1, sc, src_re)), im ? th_f64_scatter_add(im, 1, sc, src_im) : NULL);

    th_bool_tensor *m = mask_of(1, SZ(3), "011");
    real value = TH_NAME(get)(a, SZ(1, 3)); /* re 3, im 16 */
    expect(dt, "masked_fill", TH_NAME(base)(TH_NAME(masked_fill)(at, m, value)),
           th_f64_masked_fill(ret, m, th_f64_get(re, SZ(1, 3))), im ? th_f64_masked_fill(imt, m, 16) : NULL);
    expect(dt, "masked_select", TH_NAME(base)(TH_NAME(masked_select)(at, m)), th_f64_masked_select(ret, m),
           im ? th_f64_masked_select(imt, m) : NULL);
    th_i64_tensor *k = i64_of(2, SZ(2, 2), (const int64_t[]){11, -12, 5, 6});
    expect(dt, "take", TH_NAME(base)(TH_NAME(take)(at, k)), th_f64_take(ret, k), im ? th_f64_take(imt, k) : NULL);
    th_i64_tensor *pk = i64_of(1, SZ(4), (const int64_t[]){1, 1, -2, 0});
    TH_NAME(tensor) *src4 = TH_NAME(narrow)(src, 0, 0, 1); /* (1, 4) */
    th_f64_tensor *src4_re = th_f64_narrow(src_re, 0, 0, 1), *src4_im = im ? th_f64_narrow(src_im, 0, 0, 1) : NULL;
    expect(dt, "put", TH_NAME(base)(TH_NAME(put)(at, pk, src4, true)),
           TH_DT_PASTE(through_, )(th_f64_put(ret, pk, src4_re, true)), im ? th_f64_put(imt, pk, src4_im, true) : NULL);

    /* nonzero: a complex element is nonzero when either part is. */
    th_f64_tensor *mag = th_f64_empty(2, SZ(4, 3));
    for (int64_t i = 0; i < 4; i++)
        for (int64_t j = 0; j < 3; j++)
            th_f64_set(mag, SZ(i, j), fabs(th_f64_get(ret, SZ(i, j))) + (imt ? fabs(th_f64_get(imt, SZ(i, j))) : 0));
    th_i64_tensor *nz = TH_NAME(nonzero)(at), *want_nz = th_f64_nonzero(mag);
    expect(dt, "nonzero", th_i64_base(nz), th_f64_convert(th_i64_base(want_nz)), NULL);
    th_i64_release(want_nz);

    th_f64_release(mag);
    th_i64_release(pk);
    th_f64_release(src4_im);
    th_f64_release(src4_re);
    TH_NAME(release)(src4);
    th_i64_release(k);
    th_bool_release(m);
    th_f64_release(src_re);
    th_f64_release(src_im);
    TH_NAME(release)(src);
    th_i64_release(sc);
    th_i64_release(g);
    th_i64_release(sel);
    th_f64_release(ret);
    th_f64_release(imt);
    TH_NAME(release)(at);
    TH_NAME(release)(a);
    th_f64_release(re);
    th_f64_release(im);
    th_f64_release(re0);
    th_f64_release(im0);
}

#undef TEST_COMPLEX

#endif
