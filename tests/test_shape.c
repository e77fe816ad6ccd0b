/* tests/test_shape.c: cat, stack, split, chunk, flip, roll, repeat.
 *
 * The f64 tests compare with hand-computed values and with plain loops over indices; they cover negative
 * dims, size-0 and size-1 dims, 0-d tensors, transposed and expanded inputs, outs that overlap inputs, and
 * every error. The end of this file is stamped for every dtype (it includes itself through
 * generate/all.h): each dtype runs the ops on its own elements and must agree with the f64 result, and
 * complex dtypes must carry the imaginary parts along. */
#ifndef TH_NAME

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* ---- helpers ---------------------------------------------------------------------------- */

/* A contiguous f64 tensor holding start, start + 1, ... in row-major order. */
static th_f64_tensor *seq(int ndim, const int64_t *sizes, double start)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    if (!t) return NULL;
    double *p = th_f64_data(t);
    for (int64_t i = 0; i < th_f64_numel(t); i++) p[i] = start + (double)i;
    return t;
}

/* The row-major multi-index of linear position i in a shape. */
static void unravel(int ndim, const int64_t *sizes, int64_t i, int64_t *idx)
{
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = i % sizes[d];
        i /= sizes[d];
    }
}

static double at(const th_f64_tensor *t, const int64_t *idx) { return th_f64_get(t, idx); }

static bool shape_is(const th_f64_tensor *t, int ndim, const int64_t *sizes)
{
    bool ok = t && th_f64_ndim(t) == ndim;
    for (int d = 0; ok && d < ndim; d++) ok = th_f64_sizes(t)[d] == sizes[d];
    if (!ok && t) {
        fprintf(stderr, "  shape: ndim %d (", th_f64_ndim(t));
        for (int d = 0; d < th_f64_ndim(t); d++) fprintf(stderr, "%lld ", (long long)th_f64_sizes(t)[d]);
        fprintf(stderr, ")\n");
    }
    return ok;
}

/* Every element of t in row-major order equals want[i]. */
static bool values_are(const th_f64_tensor *t, const double *want, int64_t n)
{
    if (!t || th_f64_numel(t) != n) {
        fprintf(stderr, "  numel %lld, wanted %lld\n", t ? (long long)th_f64_numel(t) : -1LL, (long long)n);
        return false;
    }
    int64_t idx[TH_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        unravel(th_f64_ndim(t), th_f64_sizes(t), i, idx);
        double v = at(t, idx);
        if (v != want[i]) {
            fprintf(stderr, "  element %lld is %g, wanted %g\n", (long long)i, v, want[i]);
            return false;
        }
    }
    return true;
}

/* a and b have one shape and equal elements (NaN never appears in these tests). */
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

static bool shares_storage(const th_f64_tensor *a, const th_f64_tensor *b)
{
    return th_f64_storage(a) == th_f64_storage(b);
}

/* ---- the per-dtype checks: helpers for the stamped part at the end of this file ---------- */

/* The real parts of any tensor, as f64. */
static th_f64_tensor *real_part(const th_tensor *t) { return th_f64_convert(t); }

/* The imaginary parts of a complex tensor, as f64. */
static th_f64_tensor *imag_part(const th_tensor *t)
{
    th_c128_tensor *c = th_c128_convert(t);
    th_f64_tensor *im = th_f64_empty(th_c128_ndim(c), th_c128_sizes(c));
    const double *src = (const double *)(const void *)th_c128_data(c);
    for (int64_t i = 0; i < th_f64_numel(im); i++) th_f64_data(im)[i] = src[2 * i + 1];
    th_c128_release(c);
    return im;
}

/* re + i im as a c128 tensor. */
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

/* got (any dtype) has want_re's shape and real parts, and want_im's imaginary parts when want_im is given.
 * Releases all three. */
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
    if (!ok) fprintf(stderr, "  %s: %s\n", dtype, what);
    th_tensor_release(got);
    th_f64_release(want_re);
    th_f64_release(want_im);
}

#define TH_GENERIC_FILE "test_shape.c"
#include "generate/all.h"

/* ---- cat ---------------------------------------------------------------------------------- */

static void test_cat_values(void)
{
    th_f64_tensor *a = seq(2, SZ(2, 3), 0), *b = seq(2, SZ(2, 2), 10), *c = seq(2, SZ(1, 3), 20);
    const th_f64_tensor *ab[2] = {a, b};
    th_f64_tensor *r = th_f64_cat(2, ab, 1);
    CHECK(shape_is(r, 2, SZ(2, 5)));
    CHECK(values_are(r, (const double[]){0, 1, 2, 10, 11, 3, 4, 5, 12, 13}, 10));
    th_f64_tensor *r2 = th_f64_cat(2, ab, -1);
    CHECK(same(r, r2));
    th_f64_release(r);
    th_f64_release(r2);

    const th_f64_tensor *ac[3] = {a, c, a};
    r = th_f64_cat(3, ac, 0);
    CHECK(shape_is(r, 2, SZ(5, 3)));
    CHECK(values_are(r, (const double[]){0, 1, 2, 3, 4, 5, 20, 21, 22, 0, 1, 2, 3, 4, 5}, 15));
    CHECK(th_f64_is_contiguous(r));
    th_f64_release(r);

    /* One tensor: a copy, not a view. */
    r = th_f64_cat(1, ac, 0);
    CHECK(same(r, a) && !shares_storage(r, a));
    th_f64_release(r);
    th_f64_release(a);
    th_f64_release(b);
    th_f64_release(c);
}

/* Non-contiguous inputs along every dim of a 3-d shape, against a loop that finds each element's source. */
static void test_cat_loop(void)
{
    th_f64_tensor *base = seq(3, SZ(3, 4, 2), 0);
    th_f64_tensor *x = th_f64_permute(base, (const int[]){1, 0, 2});         /* (4, 3, 2), strided */
    th_f64_tensor *y = seq(3, SZ(4, 3, 2), 100);
    th_f64_tensor *one = seq(3, SZ(1, 3, 1), 50);
    th_f64_tensor *z = th_f64_expand(one, 3, SZ(4, 3, 2));                    /* stride 0 */
    for (int dim = -3; dim < 3; dim++) {
        const th_f64_tensor *in[3] = {x, y, z};
        th_f64_tensor *r = th_f64_cat(3, in, dim);
        int d = dim < 0 ? dim + 3 : dim;
        int64_t want_sizes[3] = {4, 3, 2};
        want_sizes[d] *= 3;
        CHECK(shape_is(r, 3, want_sizes));
        bool ok = r != NULL;
        int64_t idx[3], src[3];
        for (int64_t i = 0; ok && i < th_f64_numel(r); i++) {
            unravel(3, want_sizes, i, idx);
            memcpy(src, idx, sizeof src);
            int64_t which = idx[d] / (want_sizes[d] / 3);
            src[d] = idx[d] % (want_sizes[d] / 3);
            ok = at(r, idx) == at(which == 0 ? x : which == 1 ? y : z, src);
        }
        CHECK(ok);
        th_f64_release(r);
    }
    th_f64_release(z);
    th_f64_release(one);
    th_f64_release(y);
    th_f64_release(x);
    th_f64_release(base);
}

static void test_cat_empty(void)
{
    th_f64_tensor *a = seq(2, SZ(2, 3), 0), *e = seq(2, SZ(2, 0), 0), *legacy = seq(1, SZ(0), 0);
    const th_f64_tensor *ae[3] = {e, a, e};
    th_f64_tensor *r = th_f64_cat(3, ae, 1);
    CHECK(same(r, a));
    th_f64_release(r);
    /* A 1-d tensor of size 0 is skipped whatever the others' shapes. */
    const th_f64_tensor *al[3] = {legacy, a, legacy};
    r = th_f64_cat(3, al, 1);
    CHECK(same(r, a));
    th_f64_release(r);
    const th_f64_tensor *ll[2] = {legacy, legacy};
    r = th_f64_cat(2, ll, 0);
    CHECK(shape_is(r, 1, SZ(0)));
    th_f64_release(r);
    /* Zero rows along another dim: the result has zero elements and the concatenated size. */
    th_f64_tensor *z = seq(2, SZ(0, 3), 0);
    const th_f64_tensor *zz[2] = {z, z};
    r = th_f64_cat(2, zz, 1);
    CHECK(shape_is(r, 2, SZ(0, 6)));
    th_f64_release(r);
    th_f64_release(z);
    th_f64_release(a);
    th_f64_release(e);
    th_f64_release(legacy);
}

static void test_cat_out(void)
{
    th_f64_tensor *a = seq(2, SZ(2, 3), 0), *b = seq(2, SZ(2, 2), 10);
    const th_f64_tensor *ab[2] = {a, b};
    /* A transposed out. */
    th_f64_tensor *storage = th_f64_zeros(2, SZ(5, 2));
    th_f64_tensor *out = th_f64_transpose(storage, 0, 1);
    CHECK_INT_EQ(th_f64_cat_out(out, 2, ab, 1), TH_OK);
    CHECK(values_are(out, (const double[]){0, 1, 2, 10, 11, 3, 4, 5, 12, 13}, 10));
    th_f64_release(out);
    th_f64_release(storage);

    /* out overlapping the inputs: x = [0 1 2 3] becomes cat(x[2:4], x[0:2]) = [2 3 0 1]. */
    th_f64_tensor *x = seq(1, SZ(4), 0);
    th_f64_tensor *hi = th_f64_narrow(x, 0, 2, 2), *lo = th_f64_narrow(x, 0, 0, 2);
    const th_f64_tensor *hl[2] = {hi, lo};
    CHECK_INT_EQ(th_f64_cat_out(x, 2, hl, 0), TH_OK);
    CHECK(values_are(x, (const double[]){2, 3, 0, 1}, 4));
    th_f64_release(hi);
    th_f64_release(lo);
    th_f64_release(x);

    /* stack_out over the same memory too: y = [0 1 2 3 4 5] as (3, 2) <- stack(y[3:6], y[0:3], dim 1). */
    th_f64_tensor *y = seq(2, SZ(3, 2), 0);
    th_f64_tensor *flat = th_f64_view(y, 1, SZ(6));
    th_f64_tensor *p = th_f64_narrow(flat, 0, 3, 3), *q = th_f64_narrow(flat, 0, 0, 3);
    const th_f64_tensor *pq[2] = {p, q};
    CHECK_INT_EQ(th_f64_stack_out(y, 2, pq, 1), TH_OK);
    CHECK(values_are(y, (const double[]){3, 0, 4, 1, 5, 2}, 6));
    th_f64_release(p);
    th_f64_release(q);
    th_f64_release(flat);
    th_f64_release(y);
    th_f64_release(a);
    th_f64_release(b);
}

static void test_cat_errors(void)
{
    th_f64_tensor *a = seq(2, SZ(2, 3), 0), *b = seq(2, SZ(3, 3), 0), *c = seq(3, SZ(2, 3, 1), 0);
    th_f64_tensor *s = th_f64_zeros(0, NULL), *ok_out = th_f64_empty(2, SZ(4, 3));
    const th_f64_tensor *ab[2] = {a, b}, *ac[2] = {a, c}, *as[2] = {a, s}, *an[2] = {a, NULL};
    CHECK_NULL(th_f64_cat(0, ab, 0), TH_ERR_INVALID, "th_f64_cat", "at least one tensor, got 0");
    CHECK_NULL(th_f64_cat(2, NULL, 0), TH_ERR_INVALID, "th_f64_cat", "NULL array");
    CHECK_NULL(th_f64_cat(2, an, 0), TH_ERR_INVALID, "th_f64_cat", "tensor 1 is NULL");
    CHECK_NULL(th_f64_cat(2, as, 0), TH_ERR_SHAPE, "th_f64_cat", "tensor 1 is 0-d");
    CHECK_NULL(th_f64_cat(2, ac, 0), TH_ERR_SHAPE, "th_f64_cat", "tensor 1 has 3 dims but tensor 0 has 2");
    CHECK_NULL(th_f64_cat(2, ab, 1), TH_ERR_SHAPE, "th_f64_cat", "tensor 1 has size 3 in dim 0, tensor 0 has 2");
    CHECK_NULL(th_f64_cat(2, ab, 2), TH_ERR_RANGE, "th_f64_cat", "dim 2 is out of range");
    CHECK_NULL(th_f64_cat(2, ab, -3), TH_ERR_RANGE, "th_f64_cat", "dim -3 is out of range");
    CHECK_FAILS(th_f64_cat_out(NULL, 2, ab, 0), TH_ERR_INVALID, "th_f64_cat_out", "NULL out");
    CHECK_FAILS(th_f64_cat_out(a, 2, ab, 0), TH_ERR_SHAPE, "th_f64_cat_out", "out has shape (2, 3); the result has shape (5, 3)");
    th_storage_make_read_only(th_f64_storage(ok_out));
    const th_f64_tensor *aa[2] = {a, a};
    CHECK_FAILS(th_f64_cat_out(ok_out, 2, aa, 0), TH_ERR_READ_ONLY, "th_f64_cat_out", "read-only");

    CHECK_NULL(th_f64_stack(0, ab, 0), TH_ERR_INVALID, "th_f64_stack", "at least one tensor");
    CHECK_NULL(th_f64_stack(2, ab, 0), TH_ERR_SHAPE, "th_f64_stack", "tensor 1 has shape (3, 3), tensor 0 has (2, 3)");
    CHECK_NULL(th_f64_stack(2, aa, 3), TH_ERR_RANGE, "th_f64_stack", "dim 3 is out of range for a tensor of 3 dims");
    CHECK_NULL(th_f64_stack(2, an, 0), TH_ERR_INVALID, "th_f64_stack", "tensor 1 is NULL");
    CHECK_FAILS(th_f64_stack_out(NULL, 2, aa, 0), TH_ERR_INVALID, "th_f64_stack_out", "NULL out");
    CHECK_FAILS(th_f64_stack_out(a, 2, aa, 0), TH_ERR_SHAPE, "th_f64_stack_out", "out has shape (2, 3)");
    /* A stack of TH_MAX_DIMS-d tensors would need one dim more. */
    int64_t ones[TH_MAX_DIMS];
    for (int d = 0; d < TH_MAX_DIMS; d++) ones[d] = 1;
    th_f64_tensor *big = th_f64_zeros(TH_MAX_DIMS, ones);
    const th_f64_tensor *bb[1] = {big};
    CHECK_NULL(th_f64_stack(1, bb, 0), TH_ERR_RANGE, "th_f64_stack", "already have TH_MAX_DIMS");
    th_f64_release(big);
    th_f64_release(a);
    th_f64_release(b);
    th_f64_release(c);
    th_f64_release(s);
    th_f64_release(ok_out);
}

/* ---- stack -------------------------------------------------------------------------------- */

static void test_stack(void)
{
    th_f64_tensor *a = seq(2, SZ(2, 3), 0), *b = seq(2, SZ(2, 3), 10);
    const th_f64_tensor *ab[2] = {a, b};
    th_f64_tensor *r0 = th_f64_stack(2, ab, 0);
    CHECK(shape_is(r0, 3, SZ(2, 2, 3)));
    CHECK(values_are(r0, (const double[]){0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15}, 12));
    th_f64_tensor *r1 = th_f64_stack(2, ab, 1);
    CHECK(shape_is(r1, 3, SZ(2, 2, 3)));
    CHECK(values_are(r1, (const double[]){0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15}, 12));
    th_f64_tensor *r2 = th_f64_stack(2, ab, -1);
    CHECK(shape_is(r2, 3, SZ(2, 3, 2)));
    CHECK(values_are(r2, (const double[]){0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15}, 12));
    th_f64_release(r0);
    th_f64_release(r1);
    th_f64_release(r2);

    /* Transposed inputs, 0-d inputs and size-0 inputs. */
    th_f64_tensor *t = th_f64_transpose(a, 0, 1);
    const th_f64_tensor *tt[2] = {t, t};
    th_f64_tensor *r = th_f64_stack(2, tt, 2);
    bool ok = shape_is(r, 3, SZ(3, 2, 2));
    for (int64_t i = 0; ok && i < 3; i++)
        for (int64_t j = 0; j < 2; j++)
            for (int64_t k = 0; k < 2; k++) ok = ok && at(r, SZ(i, j, k)) == at(a, SZ(j, i));
    CHECK(ok);
    th_f64_release(r);
    th_f64_release(t);
    th_f64_tensor *s0 = th_f64_full(0, NULL, 7), *s1 = th_f64_full(0, NULL, 8);
    const th_f64_tensor *ss[2] = {s0, s1};
    r = th_f64_stack(2, ss, -1);
    CHECK(shape_is(r, 1, SZ(2)) && values_are(r, (const double[]){7, 8}, 2));
    th_f64_release(r);
    th_f64_release(s0);
    th_f64_release(s1);
    th_f64_tensor *e = seq(2, SZ(0, 3), 0);
    const th_f64_tensor *ee[3] = {e, e, e};
    r = th_f64_stack(3, ee, 1);
    CHECK(shape_is(r, 3, SZ(0, 3, 3)));
    th_f64_release(r);
    th_f64_release(e);

    th_f64_tensor *out = th_f64_zeros(3, SZ(2, 3, 2));
    CHECK_INT_EQ(th_f64_stack_out(out, 2, ab, 2), TH_OK);
    CHECK(values_are(out, (const double[]){0, 10, 1, 11, 2, 12, 3, 13, 4, 14, 5, 15}, 12));
    th_f64_release(out);
    th_f64_release(a);
    th_f64_release(b);
}

/* ---- split and chunk ------------------------------------------------------------------------ */

static void test_split(void)
{
    th_f64_tensor *t = seq(2, SZ(5, 2), 0);
    int64_t n = -1;
    th_f64_tensor **v = th_f64_split(t, 2, 0, &n);
    CHECK(v != NULL);
    CHECK_INT_EQ(n, 3);
    if (v && n == 3) {
        CHECK(shape_is(v[0], 2, SZ(2, 2)) && values_are(v[0], (const double[]){0, 1, 2, 3}, 4));
        CHECK(shape_is(v[1], 2, SZ(2, 2)) && values_are(v[1], (const double[]){4, 5, 6, 7}, 4));
        CHECK(shape_is(v[2], 2, SZ(1, 2)) && values_are(v[2], (const double[]){8, 9}, 2));
        CHECK(shares_storage(v[2], t));
        th_f64_set(v[2], SZ(0, 1), -1); /* views: the write shows in t */
        CHECK(th_f64_get(t, SZ(4, 1)) == -1);
    }
    th_f64_release_all(v, n);

    v = th_f64_split(t, 1, -1, &n);
    CHECK_INT_EQ(n, 2);
    if (v && n == 2) CHECK(shape_is(v[1], 2, SZ(5, 1)) && values_are(v[1], (const double[]){1, 3, 5, 7, -1}, 5));
    th_f64_release_all(v, n);
    v = th_f64_split(t, 7, 0, &n);
    CHECK_INT_EQ(n, 1);
    if (v && n == 1) CHECK(same(v[0], t));
    th_f64_release_all(v, n);

    /* A dim of size 0: one empty piece, also for split_size 0. */
    th_f64_tensor *e = seq(2, SZ(0, 3), 0);
    v = th_f64_split(e, 2, 0, &n);
    CHECK_INT_EQ(n, 1);
    if (v && n == 1) CHECK(shape_is(v[0], 2, SZ(0, 3)));
    th_f64_release_all(v, n);
    v = th_f64_split(e, 0, 0, &n);
    CHECK_INT_EQ(n, 1);
    th_f64_release_all(v, n);

    /* chunk: pieces of ceil(size / chunks). */
    v = th_f64_chunk(t, 3, 0, &n);
    CHECK_INT_EQ(n, 3);
    if (v && n == 3) CHECK(th_f64_size(v[0], 0) == 2 && th_f64_size(v[1], 0) == 2 && th_f64_size(v[2], 0) == 1);
    th_f64_release_all(v, n);
    th_f64_tensor *six = seq(1, SZ(6), 0);
    v = th_f64_chunk(six, 4, 0, &n); /* 2 + 2 + 2: fewer chunks than asked for, as in PyTorch */
    CHECK_INT_EQ(n, 3);
    if (v && n == 3) CHECK(values_are(v[2], (const double[]){4, 5}, 2));
    th_f64_release_all(v, n);
    v = th_f64_chunk(six, 10, -1, &n);
    CHECK_INT_EQ(n, 6);
    if (v && n == 6) CHECK(values_are(v[5], (const double[]){5}, 1));
    th_f64_release_all(v, n);
    v = th_f64_chunk(e, 3, 0, &n);
    CHECK_INT_EQ(n, 3);
    if (v && n == 3) CHECK(shape_is(v[2], 2, SZ(0, 3)));
    th_f64_release_all(v, n);
    th_f64_release_all(NULL, 3);

    th_f64_tensor *s = th_f64_zeros(0, NULL);
    CHECK_NULL(th_f64_split(t, 0, 0, &n), TH_ERR_INVALID, "th_f64_split", "split_size 0 must be positive");
    CHECK_INT_EQ(n, 0);
    CHECK_NULL(th_f64_split(t, -2, 0, &n), TH_ERR_INVALID, "th_f64_split", "split_size -2");
    CHECK_NULL(th_f64_split(t, 2, 2, &n), TH_ERR_RANGE, "th_f64_split", "dim 2 is out of range");
    CHECK_NULL(th_f64_split(s, 1, 0, &n), TH_ERR_SHAPE, "th_f64_split", "cannot split a 0-d tensor");
    CHECK_NULL(th_f64_split(NULL, 1, 0, &n), TH_ERR_INVALID, "th_f64_split", "NULL tensor");
    CHECK_NULL(th_f64_split(t, 1, 0, NULL), TH_ERR_INVALID, "th_f64_split", "NULL count");
    CHECK_NULL(th_f64_chunk(t, 0, 0, &n), TH_ERR_INVALID, "th_f64_chunk", "chunks 0 must be positive");
    CHECK_NULL(th_f64_chunk(t, -1, 0, &n), TH_ERR_INVALID, "th_f64_chunk", "chunks -1 must be positive");
    CHECK_NULL(th_f64_chunk(t, 2, -3, &n), TH_ERR_RANGE, "th_f64_chunk", "dim -3 is out of range");
    th_f64_release(s);
    th_f64_release(six);
    th_f64_release(e);
    th_f64_release(t);
}

/* ---- flip --------------------------------------------------------------------------------- */

static void test_flip(void)
{
    th_f64_tensor *t = seq(3, SZ(2, 3, 4), 0);
    th_f64_tensor *r = th_f64_flip(t, 2, (const int[]){0, -1});
    bool ok = shape_is(r, 3, SZ(2, 3, 4)) && th_f64_is_contiguous(r);
    for (int64_t i = 0; ok && i < 2; i++)
        for (int64_t j = 0; j < 3; j++)
            for (int64_t k = 0; k < 4; k++) ok = ok && at(r, SZ(i, j, k)) == at(t, SZ(1 - i, j, 3 - k));
    CHECK(ok);
    th_f64_release(r);

    r = th_f64_flip(t, 0, NULL); /* no dims: a copy */
    CHECK(same(r, t) && !shares_storage(r, t));
    th_f64_release(r);

    th_f64_tensor *tr = th_f64_transpose(t, 0, 2); /* (4, 3, 2) */
    r = th_f64_flip(tr, 1, (const int[]){1});
    ok = shape_is(r, 3, SZ(4, 3, 2));
    for (int64_t i = 0; ok && i < 4; i++)
        for (int64_t j = 0; j < 3; j++)
            for (int64_t k = 0; k < 2; k++) ok = ok && at(r, SZ(i, j, k)) == at(t, SZ(k, 2 - j, i));
    CHECK(ok);
    th_f64_release(r);
    th_f64_release(tr);

    /* In place through out == t, and a flip of what is already a flipped (negative-stride) copy. */
    th_f64_tensor *x = seq(1, SZ(5), 0);
    CHECK_INT_EQ(th_f64_flip_out(x, x, 1, (const int[]){0}), TH_OK);
    CHECK(values_are(x, (const double[]){4, 3, 2, 1, 0}, 5));
    th_f64_tensor *half = th_f64_narrow(x, 0, 0, 3);
    th_f64_tensor *other = th_f64_narrow(x, 0, 2, 3); /* overlaps half in element 2 */
    CHECK_INT_EQ(th_f64_flip_out(other, half, 1, (const int[]){0}), TH_OK);
    CHECK(values_are(x, (const double[]){4, 3, 2, 3, 4}, 5));
    th_f64_release(half);
    th_f64_release(other);
    th_f64_release(x);

    th_f64_tensor *s = th_f64_full(0, NULL, 3), *e = seq(2, SZ(0, 2), 0);
    r = th_f64_flip(s, 1, (const int[]){-1});
    CHECK(shape_is(r, 0, NULL) && th_f64_get(r, NULL) == 3);
    th_f64_release(r);
    r = th_f64_flip(e, 2, (const int[]){0, 1});
    CHECK(shape_is(r, 2, SZ(0, 2)));
    th_f64_release(r);

    CHECK_NULL(th_f64_flip(t, 2, (const int[]){1, -2}), TH_ERR_INVALID, "th_f64_flip", "dim 1 appears twice");
    CHECK_NULL(th_f64_flip(t, 1, (const int[]){3}), TH_ERR_RANGE, "th_f64_flip", "dim 3 is out of range");
    CHECK_NULL(th_f64_flip(t, 1, NULL), TH_ERR_INVALID, "th_f64_flip", "NULL dims for ndims 1");
    CHECK_NULL(th_f64_flip(t, -1, NULL), TH_ERR_INVALID, "th_f64_flip", "negative ndims -1");
    CHECK_NULL(th_f64_flip(NULL, 0, NULL), TH_ERR_INVALID, "th_f64_flip", "NULL tensor");
    CHECK_FAILS(th_f64_flip_out(NULL, t, 0, NULL), TH_ERR_INVALID, "th_f64_flip_out", "NULL out");
    CHECK_FAILS(th_f64_flip_out(e, t, 0, NULL), TH_ERR_SHAPE, "th_f64_flip_out", "out has shape (0, 2)");
    th_f64_release(s);
    th_f64_release(e);
    th_f64_release(t);
}

/* ---- roll --------------------------------------------------------------------------------- */

static void test_roll(void)
{
    th_f64_tensor *x = seq(1, SZ(5), 0);
    struct {
        int64_t shift;
        double want[5];
    } cases[] = {{2, {3, 4, 0, 1, 2}}, {-1, {1, 2, 3, 4, 0}}, {7, {3, 4, 0, 1, 2}}, {0, {0, 1, 2, 3, 4}},
                 {-10, {0, 1, 2, 3, 4}}, {INT64_MIN, {3, 4, 0, 1, 2}}, {INT64_MAX, {3, 4, 0, 1, 2}}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        th_f64_tensor *r = th_f64_roll(x, cases[c].shift, 0);
        CHECK(values_are(r, cases[c].want, 5));
        th_f64_release(r);
        r = th_f64_roll(x, cases[c].shift, TH_ROLL_FLAT);
        CHECK(values_are(r, cases[c].want, 5));
        th_f64_release(r);
    }

    /* 2-d along each dim (a transposed input), against a loop. */
    th_f64_tensor *base = seq(2, SZ(4, 3), 0);
    th_f64_tensor *t = th_f64_transpose(base, 0, 1); /* (3, 4) */
    for (int dim = -2; dim < 2; dim++) {
        th_f64_tensor *r = th_f64_roll(t, 5, dim);
        int d = dim < 0 ? dim + 2 : dim;
        bool ok = shape_is(r, 2, SZ(3, 4));
        for (int64_t i = 0; ok && i < 3; i++)
            for (int64_t j = 0; j < 4; j++) {
                int64_t src[2] = {i, j}, n = d == 0 ? 3 : 4;
                src[d] = ((src[d] - 5) % n + n) % n;
                ok = at(r, SZ(i, j)) == at(t, src);
            }
        CHECK(ok);
        th_f64_release(r);
    }
    /* Flat: the row-major sequence of t rolls, the shape stays. */
    th_f64_tensor *r = th_f64_roll(t, 1, TH_ROLL_FLAT);
    CHECK(shape_is(r, 2, SZ(3, 4)));
    CHECK(values_are(r, (const double[]){11, 0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8}, 12));
    th_f64_release(r);
    /* Flat into a non-contiguous out. */
    th_f64_tensor *store = th_f64_zeros(2, SZ(4, 3));
    th_f64_tensor *out = th_f64_transpose(store, 0, 1);
    CHECK_INT_EQ(th_f64_roll_out(out, t, -1, TH_ROLL_FLAT), TH_OK);
    CHECK(values_are(out, (const double[]){3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11, 0}, 12));
    th_f64_release(out);
    th_f64_release(store);
    /* In place (out == t) along a dim. */
    th_f64_tensor *y = seq(2, SZ(2, 3), 0);
    CHECK_INT_EQ(th_f64_roll_out(y, y, 1, 1), TH_OK);
    CHECK(values_are(y, (const double[]){2, 0, 1, 5, 3, 4}, 6));
    CHECK_INT_EQ(th_f64_roll_out(y, y, 1, TH_ROLL_FLAT), TH_OK);
    CHECK(values_are(y, (const double[]){4, 2, 0, 1, 5, 3}, 6));
    th_f64_release(y);

    th_f64_tensor *s = th_f64_full(0, NULL, 9), *e = seq(2, SZ(2, 0), 0);
    r = th_f64_roll(s, 3, 0);
    CHECK(shape_is(r, 0, NULL) && th_f64_get(r, NULL) == 9);
    th_f64_release(r);
    r = th_f64_roll(s, 3, TH_ROLL_FLAT);
    CHECK(shape_is(r, 0, NULL) && th_f64_get(r, NULL) == 9);
    th_f64_release(r);
    r = th_f64_roll(e, 3, 1);
    CHECK(shape_is(r, 2, SZ(2, 0)));
    th_f64_release(r);

    CHECK_NULL(th_f64_roll(t, 1, 2), TH_ERR_RANGE, "th_f64_roll", "dim 2 is out of range");
    CHECK_NULL(th_f64_roll(NULL, 1, 0), TH_ERR_INVALID, "th_f64_roll", "NULL tensor");
    CHECK_FAILS(th_f64_roll_out(NULL, t, 1, 0), TH_ERR_INVALID, "th_f64_roll_out", "NULL out");
    CHECK_FAILS(th_f64_roll_out(base, t, 1, 0), TH_ERR_SHAPE, "th_f64_roll_out", "out has shape (4, 3)");
    th_f64_release(s);
    th_f64_release(e);
    th_f64_release(t);
    th_f64_release(base);
    th_f64_release(x);
}

/* ---- repeat ------------------------------------------------------------------------------- */

/* r == t tiled: r[i] = t[i mod t's size] in every dim (t padded with leading size-1 dims). */
static bool is_tiled(const th_f64_tensor *r, const th_f64_tensor *t)
{
    if (!r) return false;
    int nd = th_f64_ndim(r), lead = nd - th_f64_ndim(t);
    int64_t idx[TH_MAX_DIMS], src[TH_MAX_DIMS];
    for (int64_t i = 0; i < th_f64_numel(r); i++) {
        unravel(nd, th_f64_sizes(r), i, idx);
        for (int d = lead; d < nd; d++) src[d - lead] = idx[d] % th_f64_sizes(t)[d - lead];
        if (at(r, idx) != at(t, src)) {
            fprintf(stderr, "  element %lld differs\n", (long long)i);
            return false;
        }
    }
    return true;
}

static void test_repeat(void)
{
    th_f64_tensor *t = seq(2, SZ(2, 3), 0);
    th_f64_tensor *r = th_f64_repeat(t, 2, SZ(2, 2));
    CHECK(shape_is(r, 2, SZ(4, 6)));
    CHECK(values_are(r, (const double[]){0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5, 0, 1, 2, 0, 1, 2, 3, 4, 5, 3, 4, 5}, 24));
    th_f64_release(r);
    r = th_f64_repeat(t, 3, SZ(2, 1, 3));
    CHECK(shape_is(r, 3, SZ(2, 2, 9)) && is_tiled(r, t));
    th_f64_release(r);

    th_f64_tensor *tr = th_f64_transpose(t, 0, 1); /* (3, 2), strided */
    r = th_f64_repeat(tr, 2, SZ(3, 2));
    CHECK(shape_is(r, 2, SZ(9, 4)) && is_tiled(r, tr));
    th_f64_release(r);
    th_f64_tensor *col = seq(2, SZ(3, 1), 0);
    th_f64_tensor *ex = th_f64_expand(col, 2, SZ(3, 4)); /* stride 0 */
    r = th_f64_repeat(ex, 3, SZ(2, 1, 2));
    CHECK(shape_is(r, 3, SZ(2, 3, 8)) && is_tiled(r, ex));
    th_f64_release(r);
    th_f64_release(ex);
    th_f64_release(col);

    /* Nine repeated dims of size 2 need 18 dims for one copy: the fallback splits one dim at a time. */
    int64_t sizes9[9], reps9[9];
    for (int d = 0; d < 9; d++) sizes9[d] = 2, reps9[d] = d % 3 == 0 ? 3 : 2;
    th_f64_tensor *t9 = seq(9, sizes9, 0);
    r = th_f64_repeat(t9, 9, reps9);
    CHECK(r && th_f64_numel(r) == 512 * 27 * 64 && is_tiled(r, t9));
    th_f64_release(r);
    th_f64_release(t9);

    th_f64_tensor *s = th_f64_full(0, NULL, 4);
    r = th_f64_repeat(s, 0, NULL);
    CHECK(shape_is(r, 0, NULL) && th_f64_get(r, NULL) == 4);
    th_f64_release(r);
    r = th_f64_repeat(s, 2, SZ(2, 3));
    CHECK(shape_is(r, 2, SZ(2, 3)) && values_are(r, (const double[]){4, 4, 4, 4, 4, 4}, 6));
    th_f64_release(r);
    r = th_f64_repeat(t, 2, SZ(0, 2));
    CHECK(shape_is(r, 2, SZ(0, 6)));
    th_f64_release(r);
    th_f64_tensor *out = th_f64_zeros(2, SZ(2, 6));
    CHECK_INT_EQ(th_f64_repeat_out(out, t, 2, SZ(1, 2)), TH_OK);
    CHECK(is_tiled(out, t));
    /* out overlapping the input: t's first row repeated into the whole of t. */
    th_f64_tensor *row = th_f64_narrow(t, 1, 0, 1); /* (2, 1): 0 and 3 */
    CHECK_INT_EQ(th_f64_repeat_out(t, row, 2, SZ(1, 3)), TH_OK);
    CHECK(values_are(t, (const double[]){0, 0, 0, 3, 3, 3}, 6));
    th_f64_release(row);

    CHECK_NULL(th_f64_repeat(t, 1, SZ(2)), TH_ERR_SHAPE, "th_f64_repeat", "1 repeats for a 2-d tensor");
    CHECK_NULL(th_f64_repeat(t, TH_MAX_DIMS + 1, reps9), TH_ERR_SHAPE, "th_f64_repeat", "repeats for a 2-d tensor");
    CHECK_NULL(th_f64_repeat(t, 2, NULL), TH_ERR_INVALID, "th_f64_repeat", "NULL repeats");
    CHECK_NULL(th_f64_repeat(t, 2, SZ(1, -1)), TH_ERR_INVALID, "th_f64_repeat", "repeat -1 for dim 1 is negative");
    CHECK_NULL(th_f64_repeat(t, 2, SZ(INT64_MAX, 1)), TH_ERR_OVERFLOW, "th_f64_repeat", "size 2 times repeat");
    CHECK_NULL(th_f64_repeat(NULL, 0, NULL), TH_ERR_INVALID, "th_f64_repeat", "NULL tensor");
    CHECK_FAILS(th_f64_repeat_out(NULL, t, 2, SZ(1, 1)), TH_ERR_INVALID, "th_f64_repeat_out", "NULL out");
    CHECK_FAILS(th_f64_repeat_out(out, t, 2, SZ(1, 1)), TH_ERR_SHAPE, "th_f64_repeat_out", "out has shape (2, 6)");
    th_f64_release(out);
    th_f64_release(s);
    th_f64_release(tr);
    th_f64_release(t);
}

/* Every op leaves no error state behind on success and fails cleanly when allocations fail. */
static void test_out_of_memory(void)
{
    th_f64_tensor *a = seq(2, SZ(2, 3), 0);
    const th_f64_tensor *aa[2] = {a, a};
    th_counting_allocator_fail_after(check_counter, 1);
    CHECK_NULL(th_f64_cat(2, aa, 0), TH_ERR_NOMEM, "th_f64_cat", "could not allocate");
    CHECK_NULL(th_f64_repeat(a, 2, SZ(2, 2)), TH_ERR_NOMEM, "th_f64_repeat", "could not allocate");
    CHECK_NULL(th_f64_roll(a, 1, TH_ROLL_FLAT), TH_ERR_NOMEM, "th_f64_roll", "could not allocate");
    th_counting_allocator_fail_after(check_counter, 0);
    th_f64_release(a);
}

/* Inputs the host cannot touch, storages shrunk under a tensor, tensors of another dtype passed through a
 * cast, and sizes that overflow int64 (expanded, so they need no memory). */
static void test_more_errors(void)
{
    double mem[6] = {0};
    th_storage *ds = th_storage_from_blob(mem, sizeof mem, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    th_f64_tensor *dev = th_f64_new_with_storage(ds, 0, 2, SZ(2, 3), NULL);
    th_f64_tensor *a = seq(2, SZ(2, 3), 0);
    const th_f64_tensor *ad[2] = {a, dev};
    CHECK_NULL(th_f64_cat(2, ad, 0), TH_ERR_DEVICE, "th_f64_cat", "tensor is on device type 2");
    CHECK_NULL(th_f64_flip(dev, 0, NULL), TH_ERR_DEVICE, "th_f64_flip", "on device type 2");
    CHECK_NULL(th_f64_repeat(dev, 2, SZ(1, 1)), TH_ERR_DEVICE, "th_f64_repeat", "on device type 2");

    th_f64_tensor *shrunk = seq(2, SZ(2, 3), 0);
    CHECK_INT_EQ(th_storage_resize(th_f64_storage(shrunk), 8), TH_OK);
    CHECK_NULL(th_f64_roll(shrunk, 1, 0), TH_ERR_RANGE, "th_f64_roll", "its storage now holds 1");

    th_i64_tensor *other = th_i64_zeros(2, SZ(2, 3));
    const th_f64_tensor *ao[2] = {a, (const th_f64_tensor *)(const void *)other};
    CHECK_NULL(th_f64_cat(2, ao, 0), TH_ERR_DTYPE, "th_f64_cat", "tensor 1 is i64, not f64");
    CHECK_NULL(th_f64_stack(2, ao, 0), TH_ERR_DTYPE, "th_f64_stack", "tensor 1 is i64, not f64");

    th_f64_tensor *one = th_f64_zeros(1, SZ(1));
    th_f64_tensor *huge = th_f64_expand(one, 1, SZ(INT64_C(1) << 62));
    const th_f64_tensor *hh[2] = {huge, huge};
    CHECK_NULL(th_f64_cat(2, hh, 0), TH_ERR_OVERFLOW, "th_f64_cat", "the sizes of dim 0 add up past int64");
    int64_t n = -1;
    CHECK_NULL(th_f64_split(huge, 1, 0, &n), TH_ERR_OVERFLOW, "th_f64_split", "pieces do not fit in memory");
    CHECK_INT_EQ(n, 0);

    th_f64_release(huge);
    th_f64_release(one);
    th_i64_release(other);
    th_f64_release(shrunk);
    th_f64_release(a);
    th_f64_release(dev);
    th_storage_release(ds);
}

int main(void)
{
    test_begin();
    test_cat_values();
    test_cat_loop();
    test_cat_empty();
    test_cat_out();
    test_cat_errors();
    test_stack();
    test_split();
    test_flip();
    test_roll();
    test_repeat();
    test_out_of_memory();
    test_more_errors();
#define X(sfx, ...) TH__IF_##sfx(check_##sfx##_shape();)
    TH_FOREACH_DTYPE(X)
#undef X
    return test_end("shape");
}

#else /* stamped per dtype: the ops on this dtype's elements agree with f64 and keep imaginary parts */

#if defined(TH_REAL_IS_COMPLEX)
#define TEST_COMPLEX 1
#else
#define TEST_COMPLEX 0
#endif

/* This dtype's tensor of re (+ i im for complex dtypes); *re_out and *im_out get the values it really holds
 * (bool keeps 0 and 1) as f64, *im_out NULL for real dtypes. */
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

static void TH_DT_PASTE(check_, _shape)(void)
{
    const char *dt = th_dtype_name(TH_DT_ENUM);
    th_f64_tensor *re0 = seq(2, SZ(3, 4), 0), *im0 = seq(2, SZ(3, 4), 1);
    for (int64_t i = 0; i < 12; i++) th_f64_data(re0)[i] = (double)(i % 5), th_f64_data(im0)[i] = (double)(2 * i + 1);
    th_f64_tensor *re, *im;
    TH_NAME(tensor) *a = TH_DT_PASTE(make_, )(re0, im0, &re, &im);
    TH_NAME(tensor) *at = TH_NAME(transpose)(a, 0, 1);
    th_f64_tensor *ret = th_f64_transpose(re, 0, 1), *imt = im ? th_f64_transpose(im, 0, 1) : NULL;

    const TH_NAME(tensor) *pair[2] = {a, a};
    const th_f64_tensor *rpair[2] = {re, re}, *ipair[2] = {im, im};
    expect(dt, "cat", TH_NAME(base)(TH_NAME(cat)(2, pair, 1)), th_f64_cat(2, rpair, 1), im ? th_f64_cat(2, ipair, 1) : NULL);
    expect(dt, "stack", TH_NAME(base)(TH_NAME(stack)(2, pair, -1)), th_f64_stack(2, rpair, -1),
           im ? th_f64_stack(2, ipair, -1) : NULL);
    const int dims[2] = {0, 1};
    expect(dt, "flip", TH_NAME(base)(TH_NAME(flip)(at, 2, dims)), th_f64_flip(ret, 2, dims),
           im ? th_f64_flip(imt, 2, dims) : NULL);
    expect(dt, "roll", TH_NAME(base)(TH_NAME(roll)(at, -3, 1)), th_f64_roll(ret, -3, 1),
           im ? th_f64_roll(imt, -3, 1) : NULL);
    expect(dt, "roll flat", TH_NAME(base)(TH_NAME(roll)(at, 5, TH_ROLL_FLAT)), th_f64_roll(ret, 5, TH_ROLL_FLAT),
           im ? th_f64_roll(imt, 5, TH_ROLL_FLAT) : NULL);
    const int64_t reps[3] = {2, 1, 2};
    expect(dt, "repeat", TH_NAME(base)(TH_NAME(repeat)(at, 3, reps)), th_f64_repeat(ret, 3, reps),
           im ? th_f64_repeat(imt, 3, reps) : NULL);
    int64_t n = 0, rn = 0;
    TH_NAME(tensor) **pieces = TH_NAME(split)(a, 3, 1, &n);
    th_f64_tensor **rpieces = th_f64_split(re, 3, 1, &rn);
    CHECK(n == 2 && rn == 2);
    for (int64_t i = 0; pieces && rpieces && i < n && i < rn; i++) {
        th_f64_tensor *want_im = NULL;
        if (im) {
            th_f64_tensor *ip = th_f64_narrow(im, 1, 3 * i, i == 0 ? 3 : 1);
            want_im = th_f64_contiguous(ip);
            th_f64_release(ip);
        }
        expect(dt, "split", TH_NAME(base)(TH_NAME(retain)(pieces[i])), th_f64_retain(rpieces[i]), want_im);
    }
    TH_NAME(release_all)(pieces, n);
    th_f64_release_all(rpieces, rn);

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
