/* tests/test_views.c: views share storage and never copy.
 *
 * view (with -1, on transposed and narrowed inputs), reshape (view or copy), transpose, permute, narrow,
 * select, unfold, squeeze, squeeze_dim, unsqueeze, expand, as_strided, flatten; negative dims; 0-d tensors,
 * size-0 and size-1 dims; chains of views; the _Generic front end. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <complex.h>

#include "check.h"

/* ---- helpers ---------------------------------------------------------------------------- */

#define SZ(...) ((const int64_t[]){__VA_ARGS__})
#define IDX(...) ((const int64_t[]){__VA_ARGS__})

/* A contiguous f32 tensor holding 0, 1, 2, ... in row-major order. */
static th_f32_tensor *arange(int ndim, const int64_t *sizes)
{
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    if (!t) return NULL;
    float *p = th_f32_data(t);
    int64_t n = th_f32_numel(t);
    for (int64_t i = 0; i < n; i++) p[i] = (float)i;
    return t;
}

/* True if t has exactly these sizes and (when strides is not NULL) strides; prints what it has if not. */
static bool layout_is(const th_f32_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides)
{
    bool ok = t != NULL && th_f32_ndim(t) == ndim;
    for (int d = 0; ok && d < ndim; d++) {
        if (th_f32_sizes(t)[d] != sizes[d]) ok = false;
        if (strides && th_f32_strides(t)[d] != strides[d]) ok = false;
    }
    if (!ok && t) {
        fprintf(stderr, "  layout: ndim %d sizes (", th_f32_ndim(t));
        for (int d = 0; d < th_f32_ndim(t); d++) fprintf(stderr, "%lld ", (long long)th_f32_sizes(t)[d]);
        fprintf(stderr, ") strides (");
        for (int d = 0; d < th_f32_ndim(t); d++) fprintf(stderr, "%lld ", (long long)th_f32_strides(t)[d]);
        fprintf(stderr, ")\n");
    }
    return ok;
}

static int64_t allocs_so_far(void) { return th_counting_allocator_stats(check_counter).total_allocs; }

/* The element at a row-major index of t's logical shape (any strides), read through th_f32_get. */
static float at_linear(const th_f32_tensor *t, int64_t linear)
{
    int64_t idx[TH_MAX_DIMS];
    int nd = th_f32_ndim(t);
    for (int d = nd - 1; d >= 0; d--) {
        int64_t s = th_f32_sizes(t)[d];
        idx[d] = linear % s;
        linear /= s;
    }
    return th_f32_get(t, idx);
}

/* Every element of t, in logical row-major order, equals want[i]. */
static bool values_are(const th_f32_tensor *t, const float *want, int64_t n)
{
    if (th_f32_numel(t) != n) {
        fprintf(stderr, "  numel %lld, wanted %lld\n", (long long)th_f32_numel(t), (long long)n);
        return false;
    }
    for (int64_t i = 0; i < n; i++) {
        float v = at_linear(t, i);
        if (v != want[i]) {
            fprintf(stderr, "  element %lld is %g, wanted %g\n", (long long)i, (double)v, (double)want[i]);
            return false;
        }
    }
    return true;
}

static th_storage *st(const th_f32_tensor *t) { return th_f32_storage(t); }

/* ---- view ------------------------------------------------------------------------------- */

static void test_view(void)
{
    th_f32_tensor *a = arange(1, SZ(24));
    int64_t before = allocs_so_far();

    th_f32_tensor *v = th_f32_view(a, 3, SZ(2, 3, 4));
    CHECK(layout_is(v, 3, SZ(2, 3, 4), SZ(12, 4, 1)));
    CHECK(st(v) == st(a));
    CHECK(th_f32_data(v) == th_f32_data(a));
    CHECK_INT_EQ(th_storage_refcount(st(a)), 2);
    CHECK(th_f32_is_contiguous(v));
    CHECK(th_f32_get(v, IDX(1, 2, 3)) == 23.0f);
    CHECK(th_f32_get(v, IDX(-1, -1, -1)) == 23.0f);
    CHECK(th_f32_get(v, IDX(1, 0, 2)) == 14.0f);
    /* write through the view, read through the base */
    CHECK_INT_EQ(th_f32_set(v, IDX(0, 1, 2), -6.0f), TH_OK);
    CHECK(th_f32_get(a, IDX(6)) == -6.0f);
    th_f32_data(a)[6] = 6.0f;
    CHECK(th_f32_get(v, IDX(0, 1, 2)) == 6.0f);

    /* -1 infers one size */
    th_f32_tensor *w = th_f32_view(a, 2, SZ(-1, 4));
    CHECK(layout_is(w, 2, SZ(6, 4), SZ(4, 1)));
    th_f32_tensor *w2 = th_f32_view(a, 3, SZ(2, -1, 3));
    CHECK(layout_is(w2, 3, SZ(2, 4, 3), SZ(12, 3, 1)));
    th_f32_tensor *w3 = th_f32_view(v, 1, SZ(-1));
    CHECK(layout_is(w3, 1, SZ(24), SZ(1)));
    th_f32_tensor *w4 = th_f32_view(a, 4, SZ(1, 24, 1, 1));
    CHECK(layout_is(w4, 4, SZ(1, 24, 1, 1), NULL));
    CHECK_INT_EQ(th_f32_strides(w4)[1], 1);
    CHECK(th_f32_get(w4, IDX(0, 17, 0, 0)) == 17.0f);
    CHECK_INT_EQ(th_storage_refcount(st(a)), 6);

    /* errors: element count mismatch, two -1, a -1 that does not divide */
    CHECK_NULL(th_f32_view(a, 2, SZ(5, 5)), TH_ERR_SHAPE, "th_f32_view", "cannot hold");
    CHECK_NULL(th_f32_view(a, 2, SZ(-1, -1)), TH_ERR_INVALID, "th_f32_view", "more than one -1");
    CHECK_NULL(th_f32_view(a, 2, SZ(-1, 5)), TH_ERR_SHAPE, "th_f32_view", "cannot infer");
    CHECK_NULL(th_f32_view(a, 2, SZ(-2, 12)), TH_ERR_INVALID, "th_f32_view", "negative size");

    CHECK_INT_EQ(allocs_so_far(), before); /* views never allocate data */
    th_f32_release(w4);
    th_f32_release(w3);
    th_f32_release(w2);
    th_f32_release(w);
    th_f32_release(v);
    CHECK_INT_EQ(th_storage_refcount(st(a)), 1);
    th_f32_release(a);
}

static void test_view_strided(void)
{
    th_f32_tensor *a = arange(2, SZ(4, 6));
    th_f32_tensor *t = th_f32_transpose(a, 0, 1); /* 6x4, strides (1, 6) */
    CHECK(layout_is(t, 2, SZ(6, 4), SZ(1, 6)));
    CHECK(!th_f32_is_contiguous(t));

    /* merging the transposed dims needs a copy */
    CHECK_NULL(th_f32_view(t, 1, SZ(24)), TH_ERR_SHAPE, "th_f32_view", "strides");
    CHECK_NULL(th_f32_view(t, 2, SZ(4, 6)), TH_ERR_SHAPE, "th_f32_view", "strides");
    CHECK_NULL(th_f32_view(t, 1, SZ(-1)), TH_ERR_SHAPE, "th_f32_view", "strides");
    /* splitting a dim is always possible */
    th_f32_tensor *s1 = th_f32_view(t, 3, SZ(6, 2, 2));
    CHECK(layout_is(s1, 3, SZ(6, 2, 2), SZ(1, 12, 6)));
    th_f32_tensor *s2 = th_f32_view(t, 3, SZ(3, 2, 4));
    CHECK(layout_is(s2, 3, SZ(3, 2, 4), SZ(2, 1, 6)));
    th_f32_tensor *s3 = th_f32_view(t, 4, SZ(1, 6, 4, 1));
    CHECK(layout_is(s3, 4, SZ(1, 6, 4, 1), NULL));
    CHECK_INT_EQ(th_f32_strides(s3)[1], 1);
    CHECK_INT_EQ(th_f32_strides(s3)[2], 6);
    /* values follow the transposed order: t[i][j] = a[j][i] = 6j + i */
    float want[24];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++) want[i * 4 + j] = (float)(6 * j + i);
    CHECK(values_are(s1, want, 24));
    CHECK(values_are(s2, want, 24));
    CHECK(values_are(s3, want, 24));
    CHECK(st(s1) == st(a) && st(s2) == st(a));

    /* a narrowed tensor: rows of 3 out of 6 */
    th_f32_tensor *n = th_f32_narrow(a, 1, 1, 3); /* 4x3, strides (6, 1), offset 1 */
    CHECK(layout_is(n, 2, SZ(4, 3), SZ(6, 1)));
    CHECK_INT_EQ(th_f32_offset(n), 1);
    CHECK_NULL(th_f32_view(n, 1, SZ(12)), TH_ERR_SHAPE, "th_f32_view", "strides");
    th_f32_tensor *n1 = th_f32_view(n, 3, SZ(2, 2, 3));
    CHECK(layout_is(n1, 3, SZ(2, 2, 3), SZ(12, 6, 1)));
    CHECK_INT_EQ(th_f32_offset(n1), 1);
    th_f32_tensor *n2 = th_f32_view(n, 3, SZ(4, 3, 1));
    CHECK(layout_is(n2, 3, SZ(4, 3, 1), NULL));
    float wn[12];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) wn[i * 3 + j] = (float)(6 * i + 1 + j);
    CHECK(values_are(n1, wn, 12));
    CHECK(values_are(n2, wn, 12));
    /* narrowing along dim 0 keeps it contiguous: any view works */
    th_f32_tensor *r = th_f32_narrow(a, 0, 1, 2);
    CHECK(th_f32_is_contiguous(r));
    th_f32_tensor *r1 = th_f32_view(r, 1, SZ(-1));
    CHECK(layout_is(r1, 1, SZ(12), SZ(1)));
    CHECK_INT_EQ(th_f32_offset(r1), 6);
    CHECK(th_f32_data(r1) == th_f32_data(a) + 6);
    CHECK(th_f32_get(r1, IDX(0)) == 6.0f && th_f32_get(r1, IDX(11)) == 17.0f);

    /* an expanded tensor: stride-0 dims split, but cannot merge with real ones */
    th_f32_tensor *col = th_f32_narrow(a, 1, 0, 1); /* 4x1 */
    th_f32_tensor *e = th_f32_expand(col, 2, SZ(4, 6)); /* strides (6, 0) */
    CHECK(layout_is(e, 2, SZ(4, 6), SZ(6, 0)));
    CHECK_NULL(th_f32_view(e, 1, SZ(24)), TH_ERR_SHAPE, "th_f32_view", "strides");
    th_f32_tensor *e1 = th_f32_view(e, 3, SZ(4, 2, 3));
    CHECK(layout_is(e1, 3, SZ(4, 2, 3), SZ(6, 0, 0)));
    CHECK(th_f32_get(e1, IDX(3, 1, 2)) == 18.0f);

    th_f32_release(e1);
    th_f32_release(e);
    th_f32_release(col);
    th_f32_release(r1);
    th_f32_release(r);
    th_f32_release(n2);
    th_f32_release(n1);
    th_f32_release(n);
    th_f32_release(s3);
    th_f32_release(s2);
    th_f32_release(s1);
    th_f32_release(t);
    th_f32_release(a);
}

static void test_view_edges(void)
{
    /* 0-d */
    th_f32_tensor *z = th_f32_full(0, NULL, 5.0f);
    CHECK(layout_is(z, 0, NULL, NULL));
    CHECK_INT_EQ(th_f32_numel(z), 1);
    th_f32_tensor *z1 = th_f32_view(z, 1, SZ(1));
    CHECK(layout_is(z1, 1, SZ(1), NULL));
    th_f32_tensor *z2 = th_f32_view(z, 2, SZ(1, -1));
    CHECK(layout_is(z2, 2, SZ(1, 1), NULL));
    th_f32_tensor *z0 = th_f32_view(z2, 0, NULL);
    CHECK(layout_is(z0, 0, NULL, NULL));
    CHECK(th_f32_get(z0, NULL) == 5.0f);
    CHECK_INT_EQ(th_f32_set(z2, IDX(0, 0), 7.0f), TH_OK);
    CHECK(th_f32_get(z, NULL) == 7.0f);
    CHECK(th_f32_data(z0) == th_f32_data(z));
    CHECK_NULL(th_f32_view(z, 1, SZ(2)), TH_ERR_SHAPE, "th_f32_view", "");
    th_f32_release(z0);
    th_f32_release(z2);
    th_f32_release(z1);
    th_f32_release(z);

    /* size-0 dims: any shape with no elements */
    th_f32_tensor *e = th_f32_empty(2, SZ(0, 3));
    CHECK_INT_EQ(th_f32_numel(e), 0);
    th_f32_tensor *e1 = th_f32_view(e, 1, SZ(-1));
    CHECK(layout_is(e1, 1, SZ(0), NULL));
    th_f32_tensor *e2 = th_f32_view(e, 3, SZ(5, 0, 7));
    CHECK(layout_is(e2, 3, SZ(5, 0, 7), NULL));
    CHECK_INT_EQ(th_f32_numel(e2), 0);
    CHECK_NULL(th_f32_view(e, 2, SZ(-1, 0)), TH_ERR_SHAPE, "th_f32_view", "cannot infer");
    CHECK_NULL(th_f32_view(e, 1, SZ(1)), TH_ERR_SHAPE, "th_f32_view", "");
    CHECK(st(e1) == st(e) && st(e2) == st(e));
    th_f32_release(e2);
    th_f32_release(e1);
    th_f32_release(e);

    /* size-1 dims with odd strides do not block a view */
    th_f32_tensor *a = arange(2, SZ(3, 4));
    th_f32_tensor *u = th_f32_unsqueeze(a, 1); /* 3x1x4 */
    th_f32_tensor *tu = th_f32_transpose(u, 0, 1); /* 1x3x4, the size-1 dim has a large stride */
    th_f32_tensor *f = th_f32_view(tu, 1, SZ(12));
    CHECK(layout_is(f, 1, SZ(12), SZ(1)));
    CHECK(th_f32_data(f) == th_f32_data(a));
    th_f32_release(f);
    th_f32_release(tu);
    th_f32_release(u);
    th_f32_release(a);
}

/* ---- reshape ---------------------------------------------------------------------------- */

static void test_reshape(void)
{
    th_f32_tensor *a = arange(2, SZ(4, 6));
    int64_t before = allocs_so_far();
    th_f32_tensor *r = th_f32_reshape(a, 3, SZ(2, -1, 3));
    CHECK(layout_is(r, 3, SZ(2, 4, 3), SZ(12, 3, 1)));
    CHECK(st(r) == st(a)); /* a view */
    CHECK_INT_EQ(allocs_so_far(), before);
    CHECK_INT_EQ(th_f32_set(r, IDX(1, 3, 2), -1.0f), TH_OK);
    CHECK(th_f32_get(a, IDX(3, 5)) == -1.0f);
    th_f32_data(a)[23] = 23.0f;

    /* transposed: a copy in the new shape */
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    th_f32_tensor *c = th_f32_reshape(t, 1, SZ(-1));
    CHECK(layout_is(c, 1, SZ(24), SZ(1)));
    CHECK(st(c) != st(a));
    CHECK_INT_EQ(allocs_so_far(), before + 1);
    CHECK_INT_EQ(th_storage_refcount(st(c)), 1);
    float want[24];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 4; j++) want[i * 4 + j] = (float)(6 * j + i);
    CHECK(values_are(c, want, 24));
    CHECK_INT_EQ(th_f32_set(c, IDX(0), 100.0f), TH_OK);
    CHECK(th_f32_get(a, IDX(0, 0)) == 0.0f); /* the copy is independent */
    /* transposed but splittable: a view again */
    th_f32_tensor *rv = th_f32_reshape(t, 3, SZ(3, 2, 4));
    CHECK(st(rv) == st(a));
    CHECK(layout_is(rv, 3, SZ(3, 2, 4), SZ(2, 1, 6)));
    /* errors name reshape */
    CHECK_NULL(th_f32_reshape(a, 2, SZ(5, 5)), TH_ERR_SHAPE, "th_f32_reshape", "");
    CHECK_NULL(th_f32_reshape(a, 2, SZ(-1, -1)), TH_ERR_INVALID, "th_f32_reshape", "-1");
    /* 0-d and size 0 */
    th_f32_tensor *z = th_f32_full(0, NULL, 2.0f);
    th_f32_tensor *z3 = th_f32_reshape(z, 3, SZ(1, 1, 1));
    CHECK(layout_is(z3, 3, SZ(1, 1, 1), NULL));
    CHECK(th_f32_get(z3, IDX(0, 0, 0)) == 2.0f);
    CHECK(st(z3) == st(z));
    th_f32_tensor *e = th_f32_empty(2, SZ(3, 0));
    th_f32_tensor *et = th_f32_transpose(e, 0, 1);
    th_f32_tensor *er = th_f32_reshape(et, 2, SZ(0, 7));
    CHECK(layout_is(er, 2, SZ(0, 7), NULL));

    th_f32_release(er);
    th_f32_release(et);
    th_f32_release(e);
    th_f32_release(z3);
    th_f32_release(z);
    th_f32_release(rv);
    th_f32_release(c);
    th_f32_release(t);
    th_f32_release(r);
    th_f32_release(a);
}

/* ---- transpose and permute -------------------------------------------------------------- */

static void test_transpose_permute(void)
{
    th_f32_tensor *a = arange(3, SZ(2, 3, 4));
    int64_t before = allocs_so_far();

    th_f32_tensor *t = th_f32_transpose(a, 0, 2);
    CHECK(layout_is(t, 3, SZ(4, 3, 2), SZ(1, 4, 12)));
    CHECK(th_f32_data(t) == th_f32_data(a));
    CHECK(th_f32_get(t, IDX(3, 1, 1)) == th_f32_get(a, IDX(1, 1, 3)));
    th_f32_tensor *tn = th_f32_transpose(a, -1, -3);
    CHECK(layout_is(tn, 3, SZ(4, 3, 2), SZ(1, 4, 12)));
    th_f32_tensor *t12 = th_f32_transpose(a, 1, -1);
    CHECK(layout_is(t12, 3, SZ(2, 4, 3), SZ(12, 1, 4)));
    th_f32_tensor *same = th_f32_transpose(a, 1, 1);
    CHECK(layout_is(same, 3, SZ(2, 3, 4), SZ(12, 4, 1)));
    CHECK(same != a);
    /* transposing back is contiguous again */
    th_f32_tensor *back = th_f32_transpose(t, 2, 0);
    CHECK(layout_is(back, 3, SZ(2, 3, 4), SZ(12, 4, 1)));
    CHECK(th_f32_is_contiguous(back));
    CHECK_INT_EQ(th_f32_set(t, IDX(2, 0, 1), -5.0f), TH_OK);
    CHECK(th_f32_get(a, IDX(1, 0, 2)) == -5.0f);
    CHECK(th_f32_get(back, IDX(1, 0, 2)) == -5.0f);
    CHECK_NULL(th_f32_transpose(a, 0, 3), TH_ERR_RANGE, "th_f32_transpose", "dim 3");
    CHECK_NULL(th_f32_transpose(a, -4, 0), TH_ERR_RANGE, "th_f32_transpose", "dim -4");

    int dims[3] = {2, 0, 1};
    th_f32_tensor *p = th_f32_permute(a, dims);
    CHECK(layout_is(p, 3, SZ(4, 2, 3), SZ(1, 12, 4)));
    CHECK(th_f32_get(p, IDX(3, 1, 2)) == th_f32_get(a, IDX(1, 2, 3)));
    int ndims[3] = {-1, 0, -2};
    th_f32_tensor *pn = th_f32_permute(a, ndims);
    CHECK(layout_is(pn, 3, SZ(4, 2, 3), SZ(1, 12, 4)));
    int inv[3] = {1, 2, 0};
    th_f32_tensor *pi = th_f32_permute(p, inv);
    CHECK(layout_is(pi, 3, SZ(2, 3, 4), SZ(12, 4, 1)));
    int ident[3] = {0, 1, 2};
    th_f32_tensor *pid = th_f32_permute(a, ident);
    CHECK(layout_is(pid, 3, SZ(2, 3, 4), SZ(12, 4, 1)));
    int rep[3] = {0, 1, 1};
    CHECK_NULL(th_f32_permute(a, rep), TH_ERR_INVALID, "th_f32_permute", "twice");
    int rep2[3] = {0, -1, 2};
    CHECK_NULL(th_f32_permute(a, rep2), TH_ERR_INVALID, "th_f32_permute", "twice");
    int bad[3] = {0, 1, 3};
    CHECK_NULL(th_f32_permute(a, bad), TH_ERR_RANGE, "th_f32_permute", "dim 3");

    /* 0-d: dim 0 and -1 are accepted, nothing changes */
    th_f32_tensor *z = th_f32_full(0, NULL, 1.0f);
    th_f32_tensor *zt = th_f32_transpose(z, 0, -1);
    CHECK(layout_is(zt, 0, NULL, NULL));
    th_f32_tensor *zp = th_f32_permute(z, NULL);
    CHECK(layout_is(zp, 0, NULL, NULL));
    CHECK_NULL(th_f32_transpose(z, 0, 1), TH_ERR_RANGE, "th_f32_transpose", "");
    /* size 0 */
    th_f32_tensor *e = th_f32_empty(2, SZ(0, 5));
    th_f32_tensor *et = th_f32_transpose(e, 0, 1);
    CHECK(layout_is(et, 2, SZ(5, 0), NULL));

    CHECK_INT_EQ(allocs_so_far(), before + 1); /* z only (e has no bytes) */
    th_f32_release(et);
    th_f32_release(e);
    th_f32_release(zp);
    th_f32_release(zt);
    th_f32_release(z);
    th_f32_release(pid);
    th_f32_release(pi);
    th_f32_release(pn);
    th_f32_release(p);
    th_f32_release(back);
    th_f32_release(same);
    th_f32_release(t12);
    th_f32_release(tn);
    th_f32_release(t);
    CHECK_INT_EQ(th_storage_refcount(st(a)), 1);
    th_f32_release(a);
}

/* ---- narrow and select ------------------------------------------------------------------ */

static void test_narrow_select(void)
{
    th_f32_tensor *a = arange(2, SZ(5, 10));
    int64_t before = allocs_so_far();

    th_f32_tensor *n = th_f32_narrow(a, 1, 2, 5);
    CHECK(layout_is(n, 2, SZ(5, 5), SZ(10, 1)));
    CHECK_INT_EQ(th_f32_offset(n), 2);
    CHECK(th_f32_data(n) == th_f32_data(a) + 2);
    CHECK(th_f32_get(n, IDX(4, 4)) == 46.0f);
    th_f32_tensor *nn = th_f32_narrow(a, -1, -3, 3); /* the last three columns */
    CHECK(layout_is(nn, 2, SZ(5, 3), SZ(10, 1)));
    CHECK(th_f32_data(nn) == th_f32_data(a) + 7);
    th_f32_tensor *n0 = th_f32_narrow(a, -2, 1, 3);
    CHECK(layout_is(n0, 2, SZ(3, 10), SZ(10, 1)));
    CHECK(th_f32_data(n0) == th_f32_data(a) + 10);
    CHECK(th_f32_is_contiguous(n0));
    th_f32_tensor *whole = th_f32_narrow(a, 0, 0, 5);
    CHECK(layout_is(whole, 2, SZ(5, 10), SZ(10, 1)));
    th_f32_tensor *empty = th_f32_narrow(a, 1, 10, 0);
    CHECK(layout_is(empty, 2, SZ(5, 0), NULL));
    CHECK_INT_EQ(th_f32_numel(empty), 0);
    /* narrow of a narrow */
    th_f32_tensor *nnn = th_f32_narrow(n, 0, 1, 2);
    CHECK(layout_is(nnn, 2, SZ(2, 5), SZ(10, 1)));
    CHECK_INT_EQ(th_f32_offset(nnn), 12);
    CHECK_INT_EQ(th_f32_set(nnn, IDX(1, 4), -1.0f), TH_OK);
    CHECK(th_f32_get(a, IDX(2, 6)) == -1.0f);
    th_f32_data(a)[26] = 26.0f;
    CHECK_NULL(th_f32_narrow(a, 1, 7, 4), TH_ERR_RANGE, "th_f32_narrow", "start 7 + length 4 exceeds size 10 of dim 1");
    CHECK_NULL(th_f32_narrow(a, 1, 11, 0), TH_ERR_RANGE, "th_f32_narrow", "start 11");
    CHECK_NULL(th_f32_narrow(a, 1, -11, 1), TH_ERR_RANGE, "th_f32_narrow", "start -11");
    CHECK_NULL(th_f32_narrow(a, 1, 0, -1), TH_ERR_RANGE, "th_f32_narrow", "length -1");
    CHECK_NULL(th_f32_narrow(a, 2, 0, 1), TH_ERR_RANGE, "th_f32_narrow", "dim 2");

    th_f32_tensor *row = th_f32_select(a, 0, 3);
    CHECK(layout_is(row, 1, SZ(10), SZ(1)));
    CHECK(th_f32_data(row) == th_f32_data(a) + 30);
    th_f32_tensor *col = th_f32_select(a, -1, -2); /* column 8 */
    CHECK(layout_is(col, 1, SZ(5), SZ(10)));
    CHECK(th_f32_data(col) == th_f32_data(a) + 8);
    CHECK(th_f32_get(col, IDX(4)) == 48.0f);
    th_f32_tensor *el = th_f32_select(row, 0, 9); /* 0-d */
    CHECK(layout_is(el, 0, NULL, NULL));
    CHECK_INT_EQ(th_f32_numel(el), 1);
    CHECK(th_f32_get(el, NULL) == 39.0f);
    CHECK_INT_EQ(th_f32_set(el, NULL, -39.0f), TH_OK);
    CHECK(th_f32_get(a, IDX(3, 9)) == -39.0f);
    CHECK_NULL(th_f32_select(a, 0, 5), TH_ERR_RANGE, "th_f32_select", "index 5");
    CHECK_NULL(th_f32_select(a, 1, -11), TH_ERR_RANGE, "th_f32_select", "index -11");
    CHECK_NULL(th_f32_select(el, 0, 0), TH_ERR_RANGE, "th_f32_select", "0-d");
    CHECK_NULL(th_f32_select(empty, 1, 0), TH_ERR_RANGE, "th_f32_select", "");

    /* select on a transposed view */
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    th_f32_tensor *ts = th_f32_select(t, 0, 4); /* column 4 of a */
    CHECK(layout_is(ts, 1, SZ(5), SZ(10)));
    CHECK(th_f32_get(ts, IDX(2)) == 24.0f);

    CHECK_INT_EQ(allocs_so_far(), before);
    CHECK_INT_EQ(th_storage_refcount(st(a)), 12);
    th_f32_release(ts);
    th_f32_release(t);
    th_f32_release(el);
    th_f32_release(col);
    th_f32_release(row);
    th_f32_release(nnn);
    th_f32_release(empty);
    th_f32_release(whole);
    th_f32_release(n0);
    th_f32_release(nn);
    th_f32_release(n);
    th_f32_release(a);
}

/* ---- unfold ----------------------------------------------------------------------------- */

static void test_unfold(void)
{
    th_f32_tensor *a = arange(1, SZ(7));
    th_f32_tensor *u = th_f32_unfold(a, 0, 3, 2);
    CHECK(layout_is(u, 2, SZ(3, 3), SZ(2, 1)));
    const float want[9] = {0, 1, 2, 2, 3, 4, 4, 5, 6};
    CHECK(values_are(u, want, 9));
    CHECK(st(u) == st(a));
    CHECK_INT_EQ(th_f32_set(u, IDX(1, 0), -2.0f), TH_OK); /* element 2 is shared by two windows */
    CHECK(th_f32_get(u, IDX(0, 2)) == -2.0f);
    CHECK(th_f32_get(a, IDX(2)) == -2.0f);
    th_f32_data(a)[2] = 2.0f;
    th_f32_tensor *u1 = th_f32_unfold(a, -1, 7, 1);
    CHECK(layout_is(u1, 2, SZ(1, 7), SZ(1, 1)));
    th_f32_tensor *u2 = th_f32_unfold(a, 0, 2, 3); /* windows at 0 and 3; 6 is left out */
    CHECK(layout_is(u2, 2, SZ(2, 2), SZ(3, 1)));
    CHECK(th_f32_get(u2, IDX(1, 1)) == 4.0f);

    th_f32_tensor *b = arange(2, SZ(2, 6));
    th_f32_tensor *ub = th_f32_unfold(b, -1, 2, 2);
    CHECK(layout_is(ub, 3, SZ(2, 3, 2), SZ(6, 2, 1)));
    CHECK(th_f32_get(ub, IDX(1, 2, 1)) == 11.0f);
    th_f32_tensor *ub0 = th_f32_unfold(b, 0, 1, 1);
    CHECK(layout_is(ub0, 3, SZ(2, 6, 1), SZ(6, 1, 6)));
    CHECK_NULL(th_f32_unfold(b, 1, 7, 1), TH_ERR_RANGE, "th_f32_unfold", "window size 7");
    CHECK_NULL(th_f32_unfold(b, 1, 2, 0), TH_ERR_INVALID, "th_f32_unfold", "step 0");
    CHECK_NULL(th_f32_unfold(b, 2, 1, 1), TH_ERR_RANGE, "th_f32_unfold", "dim 2");
    th_f32_tensor *z = th_f32_full(0, NULL, 1.0f);
    CHECK_NULL(th_f32_unfold(z, 0, 1, 1), TH_ERR_RANGE, "th_f32_unfold", "");

    th_f32_release(z);
    th_f32_release(ub0);
    th_f32_release(ub);
    th_f32_release(b);
    th_f32_release(u2);
    th_f32_release(u1);
    th_f32_release(u);
    th_f32_release(a);
}

/* ---- squeeze and unsqueeze -------------------------------------------------------------- */

static void test_squeeze_unsqueeze(void)
{
    th_f32_tensor *a = arange(4, SZ(1, 3, 1, 2));
    int64_t before = allocs_so_far();

    th_f32_tensor *s = th_f32_squeeze(a);
    CHECK(layout_is(s, 2, SZ(3, 2), SZ(2, 1)));
    CHECK(th_f32_data(s) == th_f32_data(a));
    th_f32_tensor *s0 = th_f32_squeeze_dim(a, 0);
    CHECK(layout_is(s0, 3, SZ(3, 1, 2), NULL));
    th_f32_tensor *s1 = th_f32_squeeze_dim(a, 1); /* size 3: unchanged */
    CHECK(layout_is(s1, 4, SZ(1, 3, 1, 2), NULL));
    CHECK(s1 != a && st(s1) == st(a));
    th_f32_tensor *sn = th_f32_squeeze_dim(a, -2);
    CHECK(layout_is(sn, 3, SZ(1, 3, 2), SZ(6, 2, 1)));
    CHECK_NULL(th_f32_squeeze_dim(a, 4), TH_ERR_RANGE, "th_f32_squeeze_dim", "dim 4");
    CHECK_NULL(th_f32_squeeze_dim(a, -5), TH_ERR_RANGE, "th_f32_squeeze_dim", "dim -5");

    /* all ones squeezes to 0-d */
    th_f32_tensor *ones = th_f32_full(3, SZ(1, 1, 1), 4.0f);
    th_f32_tensor *so = th_f32_squeeze(ones);
    CHECK(layout_is(so, 0, NULL, NULL));
    CHECK(th_f32_get(so, NULL) == 4.0f);
    /* 0-d: squeeze and squeeze_dim(0) keep it 0-d */
    th_f32_tensor *soo = th_f32_squeeze(so);
    CHECK(layout_is(soo, 0, NULL, NULL));
    th_f32_tensor *sod = th_f32_squeeze_dim(so, -1);
    CHECK(layout_is(sod, 0, NULL, NULL));
    /* a size-0 dim is not squeezed */
    th_f32_tensor *e = th_f32_empty(3, SZ(1, 0, 1));
    th_f32_tensor *se = th_f32_squeeze(e);
    CHECK(layout_is(se, 1, SZ(0), NULL));

    th_f32_tensor *b = arange(2, SZ(3, 2));
    th_f32_tensor *u0 = th_f32_unsqueeze(b, 0);
    CHECK(layout_is(u0, 3, SZ(1, 3, 2), NULL));
    CHECK_INT_EQ(th_f32_strides(u0)[1], 2);
    CHECK(th_f32_is_contiguous(u0));
    th_f32_tensor *u1 = th_f32_unsqueeze(b, 1);
    CHECK(layout_is(u1, 3, SZ(3, 1, 2), NULL));
    CHECK(th_f32_is_contiguous(u1));
    th_f32_tensor *u2 = th_f32_unsqueeze(b, 2);
    CHECK(layout_is(u2, 3, SZ(3, 2, 1), NULL));
    th_f32_tensor *um1 = th_f32_unsqueeze(b, -1);
    CHECK(layout_is(um1, 3, SZ(3, 2, 1), NULL));
    th_f32_tensor *um3 = th_f32_unsqueeze(b, -3);
    CHECK(layout_is(um3, 3, SZ(1, 3, 2), NULL));
    CHECK(th_f32_get(um1, IDX(2, 1, 0)) == 5.0f);
    CHECK(th_f32_data(um3) == th_f32_data(b));
    CHECK_NULL(th_f32_unsqueeze(b, 3), TH_ERR_RANGE, "th_f32_unsqueeze", "dim 3");
    CHECK_NULL(th_f32_unsqueeze(b, -4), TH_ERR_RANGE, "th_f32_unsqueeze", "dim -4");
    /* squeeze undoes unsqueeze */
    th_f32_tensor *back = th_f32_squeeze_dim(u1, 1);
    CHECK(layout_is(back, 2, SZ(3, 2), SZ(2, 1)));
    /* 0-d unsqueezes to one dim */
    th_f32_tensor *zu = th_f32_unsqueeze(so, 0);
    CHECK(layout_is(zu, 1, SZ(1), NULL));
    th_f32_tensor *zu2 = th_f32_unsqueeze(so, -1);
    CHECK(layout_is(zu2, 1, SZ(1), NULL));
    CHECK_NULL(th_f32_unsqueeze(so, 2), TH_ERR_RANGE, "th_f32_unsqueeze", "");
    /* unsqueeze of a transposed tensor keeps the element order */
    th_f32_tensor *bt = th_f32_transpose(b, 0, 1);
    th_f32_tensor *btu = th_f32_unsqueeze(bt, 1);
    CHECK(layout_is(btu, 3, SZ(2, 1, 3), NULL));
    CHECK(th_f32_get(btu, IDX(1, 0, 2)) == 5.0f);
    /* up to TH_MAX_DIMS dims */
    int64_t sizes[TH_MAX_DIMS];
    for (int d = 0; d < TH_MAX_DIMS; d++) sizes[d] = 1;
    th_f32_tensor *full = th_f32_zeros(TH_MAX_DIMS, sizes);
    CHECK_NULL(th_f32_unsqueeze(full, 0), TH_ERR_RANGE, "th_f32_unsqueeze", "TH_MAX_DIMS");
    th_f32_tensor *fs = th_f32_squeeze(full);
    CHECK(layout_is(fs, 0, NULL, NULL));

    CHECK_INT_EQ(allocs_so_far(), before + 3); /* ones, b and full (e has no bytes); views made none */
    th_f32_release(fs);
    th_f32_release(full);
    th_f32_release(btu);
    th_f32_release(bt);
    th_f32_release(zu2);
    th_f32_release(zu);
    th_f32_release(back);
    th_f32_release(um3);
    th_f32_release(um1);
    th_f32_release(u2);
    th_f32_release(u1);
    th_f32_release(u0);
    th_f32_release(b);
    th_f32_release(se);
    th_f32_release(e);
    th_f32_release(sod);
    th_f32_release(soo);
    th_f32_release(so);
    th_f32_release(ones);
    th_f32_release(sn);
    th_f32_release(s1);
    th_f32_release(s0);
    th_f32_release(s);
    th_f32_release(a);
}

/* ---- expand ----------------------------------------------------------------------------- */

static void test_expand(void)
{
    th_f32_tensor *a = arange(2, SZ(3, 1));
    int64_t before = allocs_so_far();
    th_f32_tensor *e = th_f32_expand(a, 2, SZ(3, 4));
    CHECK(layout_is(e, 2, SZ(3, 4), SZ(1, 0)));
    CHECK(th_f32_data(e) == th_f32_data(a));
    CHECK(!th_f32_is_contiguous(e));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) CHECK(th_f32_get(e, IDX(i, j)) == (float)i);
    /* a write through the base shows in every expanded position */
    th_f32_data(a)[1] = 10.0f;
    for (int j = 0; j < 4; j++) CHECK(th_f32_get(e, IDX(1, j)) == 10.0f);
    /* and a write through the expanded view lands on the one shared element */
    CHECK_INT_EQ(th_f32_set(e, IDX(2, 3), -2.0f), TH_OK);
    CHECK(th_f32_get(a, IDX(2, 0)) == -2.0f);
    CHECK(th_f32_get(e, IDX(2, 0)) == -2.0f);

    th_f32_tensor *e3 = th_f32_expand(a, 3, SZ(2, 3, 4)); /* a new leading dim */
    CHECK(layout_is(e3, 3, SZ(2, 3, 4), SZ(0, 1, 0)));
    CHECK_INT_EQ(th_f32_numel(e3), 24);
    th_f32_tensor *em = th_f32_expand(a, 2, SZ(-1, 5));
    CHECK(layout_is(em, 2, SZ(3, 5), SZ(1, 0)));
    th_f32_tensor *same = th_f32_expand(a, 2, SZ(3, 1));
    CHECK(layout_is(same, 2, SZ(3, 1), NULL));
    CHECK_INT_EQ(th_f32_strides(same)[0], 1);
    th_f32_tensor *e0 = th_f32_expand(a, 2, SZ(3, 0));
    CHECK(layout_is(e0, 2, SZ(3, 0), NULL));
    CHECK_INT_EQ(th_f32_numel(e0), 0);
    th_f32_tensor *ee = th_f32_expand(e, 3, SZ(5, -1, -1)); /* expanding an expanded tensor */
    CHECK(layout_is(ee, 3, SZ(5, 3, 4), SZ(0, 1, 0)));
    CHECK(th_f32_get(ee, IDX(4, 1, 3)) == 10.0f);
    CHECK_NULL(th_f32_expand(a, 2, SZ(4, 4)), TH_ERR_SHAPE, "th_f32_expand", "cannot expand dim 0");
    CHECK_NULL(th_f32_expand(a, 1, SZ(3)), TH_ERR_RANGE, "th_f32_expand", "");
    CHECK_NULL(th_f32_expand(a, 3, SZ(-1, 3, 4)), TH_ERR_INVALID, "th_f32_expand", "leading");

    /* 0-d expands to any shape */
    th_f32_tensor *z = th_f32_full(0, NULL, 9.0f);
    th_f32_tensor *ze = th_f32_expand(z, 2, SZ(2, 2));
    CHECK(layout_is(ze, 2, SZ(2, 2), SZ(0, 0)));
    CHECK(th_f32_get(ze, IDX(1, 1)) == 9.0f);
    CHECK(th_f32_data(ze) == th_f32_data(z));
    th_f32_tensor *ze0 = th_f32_expand(z, 0, NULL);
    CHECK(layout_is(ze0, 0, NULL, NULL));

    CHECK_INT_EQ(allocs_so_far(), before + 1); /* only z */
    CHECK_INT_EQ(th_storage_refcount(st(a)), 7);
    th_f32_release(ze0);
    th_f32_release(ze);
    th_f32_release(z);
    th_f32_release(ee);
    th_f32_release(e0);
    th_f32_release(same);
    th_f32_release(em);
    th_f32_release(e3);
    th_f32_release(e);
    th_f32_release(a);
}

/* ---- as_strided ------------------------------------------------------------------------- */

static void test_as_strided(void)
{
    th_f32_tensor *a = arange(1, SZ(10));
    int64_t before = allocs_so_far();
    /* sliding windows of 4 every 2 */
    th_f32_tensor *w = th_f32_as_strided(a, 2, SZ(4, 4), SZ(2, 1), 0);
    CHECK(layout_is(w, 2, SZ(4, 4), SZ(2, 1)));
    const float want[16] = {0, 1, 2, 3, 2, 3, 4, 5, 4, 5, 6, 7, 6, 7, 8, 9};
    CHECK(values_are(w, want, 16));
    /* an offset and a negative stride: 9, 8, ..., 5 */
    th_f32_tensor *r = th_f32_as_strided(a, 1, SZ(5), SZ(-1), 9);
    CHECK(layout_is(r, 1, SZ(5), SZ(-1)));
    CHECK_INT_EQ(th_f32_offset(r), 9);
    const float wr[5] = {9, 8, 7, 6, 5};
    CHECK(values_are(r, wr, 5));
    CHECK(th_f32_data(r) == th_f32_data(a) + 9);
    /* stride 0 */
    th_f32_tensor *s0 = th_f32_as_strided(a, 2, SZ(3, 2), SZ(0, 3), 1);
    const float w0[6] = {1, 4, 1, 4, 1, 4};
    CHECK(values_are(s0, w0, 6));
    /* the offset is counted from the storage's start, not from a view's */
    th_f32_tensor *n = th_f32_narrow(a, 0, 5, 5);
    th_f32_tensor *ns = th_f32_as_strided(n, 1, SZ(2), SZ(1), 0);
    const float wn[2] = {0, 1};
    CHECK(values_are(ns, wn, 2));
    /* 0-d */
    th_f32_tensor *z = th_f32_as_strided(a, 0, NULL, NULL, 7);
    CHECK(layout_is(z, 0, NULL, NULL));
    CHECK(th_f32_get(z, NULL) == 7.0f);
    CHECK_INT_EQ(th_f32_set(z, NULL, 70.0f), TH_OK);
    CHECK(th_f32_get(a, IDX(7)) == 70.0f);
    /* addressing outside the storage */
    CHECK_NULL(th_f32_as_strided(a, 1, SZ(11), SZ(1), 0), TH_ERR_RANGE, "th_f32_as_strided", "outside");
    CHECK_NULL(th_f32_as_strided(a, 1, SZ(2), SZ(1), 9), TH_ERR_RANGE, "th_f32_as_strided", "outside");
    CHECK_NULL(th_f32_as_strided(a, 1, SZ(3), SZ(-1), 1), TH_ERR_RANGE, "th_f32_as_strided", "outside");
    CHECK_NULL(th_f32_as_strided(a, 1, SZ(1), SZ(1), -1), TH_ERR_RANGE, "th_f32_as_strided", "negative");
    CHECK_NULL(th_f32_as_strided(a, 1, SZ(-1), SZ(1), 0), TH_ERR_INVALID, "th_f32_as_strided", "negative size");
    /* no elements address nothing */
    th_f32_tensor *e = th_f32_as_strided(a, 2, SZ(0, 100), SZ(100, 1), 10);
    CHECK(layout_is(e, 2, SZ(0, 100), NULL));

    CHECK_INT_EQ(allocs_so_far(), before);
    th_f32_release(e);
    th_f32_release(z);
    th_f32_release(ns);
    th_f32_release(n);
    th_f32_release(s0);
    th_f32_release(r);
    th_f32_release(w);
    th_f32_release(a);
}

/* ---- flatten ---------------------------------------------------------------------------- */

static void test_flatten(void)
{
    th_f32_tensor *a = arange(3, SZ(2, 3, 4));
    int64_t before = allocs_so_far();
    th_f32_tensor *f = th_f32_flatten(a, 0, -1);
    CHECK(layout_is(f, 1, SZ(24), SZ(1)));
    CHECK(th_f32_data(f) == th_f32_data(a));
    th_f32_tensor *f12 = th_f32_flatten(a, 1, 2);
    CHECK(layout_is(f12, 2, SZ(2, 12), SZ(12, 1)));
    th_f32_tensor *f01 = th_f32_flatten(a, -3, -2);
    CHECK(layout_is(f01, 2, SZ(6, 4), SZ(4, 1)));
    th_f32_tensor *f11 = th_f32_flatten(a, 1, 1);
    CHECK(layout_is(f11, 3, SZ(2, 3, 4), SZ(12, 4, 1)));
    CHECK_NULL(th_f32_flatten(a, 2, 1), TH_ERR_RANGE, "th_f32_flatten", "start_dim 2");
    CHECK_NULL(th_f32_flatten(a, 0, 3), TH_ERR_RANGE, "th_f32_flatten", "dim 3");
    /* a transposed tensor flattens only where its strides allow */
    th_f32_tensor *t = th_f32_transpose(a, 0, 2); /* 4x3x2 strides (1, 4, 12) */
    CHECK_NULL(th_f32_flatten(t, 0, -1), TH_ERR_SHAPE, "th_f32_flatten", "strides");
    th_f32_tensor *p = th_f32_permute(a, (const int[]){1, 2, 0}); /* 3x4x2 strides (4, 1, 12) */
    th_f32_tensor *pf = th_f32_flatten(p, 0, 1);
    CHECK(layout_is(pf, 2, SZ(12, 2), SZ(1, 12)));
    CHECK(th_f32_get(pf, IDX(7, 1)) == th_f32_get(a, IDX(1, 1, 3)));
    /* 0-d flattens to one element */
    th_f32_tensor *z = th_f32_full(0, NULL, 3.0f);
    th_f32_tensor *zf = th_f32_flatten(z, 0, -1);
    CHECK(layout_is(zf, 1, SZ(1), NULL));
    CHECK(th_f32_get(zf, IDX(0)) == 3.0f);
    CHECK_NULL(th_f32_flatten(z, 0, 1), TH_ERR_RANGE, "th_f32_flatten", "");
    /* size 0 */
    th_f32_tensor *e = th_f32_empty(3, SZ(2, 0, 3));
    th_f32_tensor *ef = th_f32_flatten(e, 0, 1);
    CHECK(layout_is(ef, 2, SZ(0, 3), NULL));

    CHECK_INT_EQ(allocs_so_far(), before + 1); /* z only */
    th_f32_release(ef);
    th_f32_release(e);
    th_f32_release(zf);
    th_f32_release(z);
    th_f32_release(pf);
    th_f32_release(p);
    th_f32_release(t);
    th_f32_release(f11);
    th_f32_release(f01);
    th_f32_release(f12);
    th_f32_release(f);
    th_f32_release(a);
}

/* ---- chains of views and lifetimes ------------------------------------------------------ */

static void test_chains(void)
{
    th_f32_tensor *a = arange(1, SZ(60));
    th_storage *s = st(a);
    int64_t before = allocs_so_far();
    th_f32_tensor *v = th_f32_view(a, 3, SZ(3, 4, 5));
    th_f32_tensor *t = th_f32_transpose(v, 0, 2);     /* 5x4x3, strides (1, 5, 20) */
    th_f32_tensor *n = th_f32_narrow(t, 1, 1, 2);     /* 5x2x3 */
    th_f32_tensor *sel = th_f32_select(n, 0, 3);      /* 2x3, strides (5, 20) */
    th_f32_tensor *u = th_f32_unsqueeze(sel, 0);      /* 1x2x3 */
    th_f32_tensor *ex = th_f32_expand(u, 3, SZ(4, 2, 3));
    CHECK(layout_is(sel, 2, SZ(2, 3), SZ(5, 20)));
    CHECK_INT_EQ(th_f32_offset(sel), 8);
    CHECK(layout_is(ex, 3, SZ(4, 2, 3), SZ(0, 5, 20)));
    /* sel[i][j] = v[j][1 + i][3] = 20 j + 5 (1 + i) + 3 */
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) CHECK(th_f32_get(ex, IDX(3, i, j)) == (float)(20 * j + 5 * (1 + i) + 3));
    CHECK_INT_EQ(th_storage_refcount(s), 7);
    /* the chain outlives the base and every intermediate */
    th_f32_release(a);
    th_f32_release(v);
    th_f32_release(t);
    th_f32_release(n);
    CHECK_INT_EQ(th_storage_refcount(s), 3);
    CHECK_INT_EQ(th_f32_set(ex, IDX(0, 1, 2), -1.0f), TH_OK);
    CHECK(th_f32_get(sel, IDX(1, 2)) == -1.0f);
    CHECK(th_f32_storage_data(s)[53] == -1.0f);
    th_f32_tensor *back = th_f32_as_strided(ex, 1, SZ(60), SZ(1), 0); /* the whole storage again */
    CHECK(th_f32_get(back, IDX(53)) == -1.0f);
    CHECK(th_f32_get(back, IDX(59)) == 59.0f);
    CHECK_INT_EQ(allocs_so_far(), before);
    th_f32_release(sel);
    th_f32_release(u);
    th_f32_release(ex);
    CHECK_INT_EQ(th_storage_refcount(s), 1);
    th_f32_release(back);
}

/* ---- views of other dtypes and the _Generic front end ----------------------------------- */

static void test_generic(void)
{
    th_i64_tensor *a = th_i64_zeros(2, SZ(2, 3));
    for (int i = 0; i < 6; i++) th_i64_data(a)[i] = 100 + i;
    th_i64_tensor *t = th_transpose(a, 0, 1);
    CHECK_INT_EQ(th_ndim(t), 2);
    CHECK_INT_EQ(th_size(t, 0), 3);
    CHECK_INT_EQ(th_size(t, -1), 2);
    CHECK_INT_EQ(th_stride(t, 0), 1);
    CHECK_INT_EQ(th_stride(t, 1), 3);
    CHECK_INT_EQ(th_get(t, IDX(2, 1)), 105);
    CHECK(th_data(t) == th_data(a));
    CHECK(!th_is_contiguous(t));
    CHECK_INT_EQ(th_set(t, IDX(0, 1), -7), TH_OK);
    CHECK_INT_EQ(th_i64_get(a, IDX(1, 0)), -7);
    th_i64_tensor *n = th_narrow(t, 0, 1, 2);
    th_i64_tensor *s = th_select(n, 1, 0);
    CHECK_INT_EQ(th_numel(s), 2);
    CHECK_INT_EQ(th_get(s, IDX(1)), 102);
    th_i64_tensor *v = th_view(a, 1, SZ(-1));
    th_i64_tensor *u = th_unsqueeze(v, 0);
    th_i64_tensor *sq = th_squeeze(u);
    th_i64_tensor *sqd = th_squeeze_dim(u, 0);
    th_i64_tensor *ex = th_expand(u, 2, SZ(3, 6));
    th_i64_tensor *fl = th_flatten(a, 0, 1);
    th_i64_tensor *uf = th_unfold(v, 0, 2, 2);
    const int perm[2] = {1, 0};
    th_i64_tensor *p = th_permute(a, perm);
    th_i64_tensor *as = th_as_strided(a, 1, SZ(3), SZ(2), 0);
    th_i64_tensor *rs = th_reshape(t, 1, SZ(6)); /* a copy */
    CHECK_INT_EQ(th_numel(sq), 6);
    CHECK_INT_EQ(th_ndim(sqd), 1);
    CHECK_INT_EQ(th_stride(ex, 0), 0);
    CHECK_INT_EQ(th_get(ex, IDX(2, 5)), 105);
    CHECK_INT_EQ(th_numel(fl), 6);
    CHECK_INT_EQ(th_get(uf, IDX(2, 1)), 105);
    CHECK_INT_EQ(th_stride(p, 0), 1);
    CHECK_INT_EQ(th_get(as, IDX(2)), 104);
    CHECK_INT_EQ(th_get(rs, IDX(1)), -7); /* t[0][1] */
    CHECK_INT_EQ(th_get(rs, IDX(2)), 101);
    CHECK(th_i64_storage(rs) != th_i64_storage(a));
    CHECK(th_i64_storage(uf) == th_i64_storage(a));
    th_release(rs);
    th_release(as);
    th_release(p);
    th_release(uf);
    th_release(fl);
    th_release(ex);
    th_release(sqd);
    th_release(sq);
    th_release(u);
    th_release(v);
    th_release(s);
    th_release(n);
    th_release(t);
    th_release(a);

    /* u8 and bool and c128 views */
    th_u8_tensor *b = th_u8_zeros(2, SZ(4, 4));
    for (int i = 0; i < 16; i++) th_u8_data(b)[i] = (uint8_t)i;
    th_u8_tensor *bt = th_transpose(b, -2, -1);
    th_u8_tensor *bn = th_narrow(bt, 1, 1, 2);
    CHECK_INT_EQ(th_get(bn, IDX(3, 1)), 11);
    CHECK(th_u8_data(bn) == th_u8_data(b) + 4);
    th_release(bn);
    th_release(bt);
    th_release(b);

    th_bool_tensor *q = th_bool_zeros(1, SZ(4));
    th_bool_tensor *qv = th_view(q, 2, SZ(2, 2));
    CHECK_INT_EQ(th_set(qv, IDX(1, 0), true), TH_OK);
    CHECK(th_bool_get(q, IDX(2)) == true);
    CHECK(th_bool_get(q, IDX(1)) == false);
    th_release(qv);
    th_release(q);

    th_c128_tensor *c = th_c128_zeros(2, SZ(2, 2));
    th_c128_tensor *ct = th_transpose(c, 0, 1);
    th_complex128 z = 1.0;
    CHECK_INT_EQ(th_set(ct, IDX(0, 1), z), TH_OK);
    CHECK(th_c128_get(c, IDX(1, 0)) == z);
    CHECK(th_c128_data(c)[2] == z);
    th_release(ct);
    th_release(c);
}

/* real and imag: views of the parts with doubled strides, writable through, over any layout. */
static void test_complex_parts(void)
{
    th_c64_tensor *z = th_c64_empty(2, (int64_t[]){2, 3});
    for (int i = 0; i < 6; i++) th_c64_data(z)[i] = (float)i + (float)(10 * i) * I;
    th_f32_tensor *re = th_c64_real(z), *im = th_c64_imag(z);
    CHECK(re && im);
    if (!re || !im) return;
    CHECK_INT_EQ(th_f32_strides(re)[0], 6);
    CHECK_INT_EQ(th_f32_strides(re)[1], 2);
    CHECK(th_f32_storage(re) == th_c64_storage(z));
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++) {
            CHECK(th_f32_get(re, (int64_t[]){i, j}) == (float)(i * 3 + j));
            CHECK(th_f32_get(im, (int64_t[]){i, j}) == (float)(10 * (i * 3 + j)));
        }
    /* writing through the view writes the complex tensor */
    th_f32_set(im, (int64_t[]){1, 2}, -7.0f);
    CHECK(cimagf(th_c64_data(z)[5]) == -7.0f && crealf(th_c64_data(z)[5]) == 5.0f);
    /* of a transposed, narrowed view: its strides and offset, doubled */
    th_c64_tensor *zt = th_c64_transpose(z, 0, 1);
    th_c64_tensor *zn = th_c64_narrow(zt, 0, 1, 2); /* 2x2: columns 1..2 of z as rows */
    th_f32_tensor *imn = th_c64_imag(zn);
    CHECK_INT_EQ(th_f32_offset(imn), 3);
    CHECK(th_f32_get(imn, (int64_t[]){1, 0}) == 20.0f && th_f32_get(imn, (int64_t[]){1, 1}) == -7.0f);
    /* the part outlives the complex tensor: it holds the storage */
    th_c64_release(zn);
    th_c64_release(zt);
    th_c64_release(z);
    CHECK(th_f32_get(re, (int64_t[]){1, 1}) == 4.0f);
    th_f32_release(imn);
    th_f32_release(re);
    th_f32_release(im);

    th_c128_tensor *w = th_c128_full(1, (int64_t[]){3}, 1.5 - 2.5 * I);
    th_f64_tensor *wi = th_c128_imag(w);
    CHECK(th_f64_get(wi, (int64_t[]){2}) == -2.5);
    th_f64_release(wi);
    /* erased: real of a real tensor is itself; imag of one is refused */
    th_f32_tensor *f = th_f32_zeros(1, (int64_t[]){4});
    th_tensor *same = th_tensor_real(th_f32_base(f));
    CHECK(same == th_f32_base(f));
    th_tensor_release(same);
    CHECK_NULL(th_tensor_imag(th_f32_base(f)), TH_ERR_DTYPE, "th_tensor_imag", "f32; only a complex tensor");
    CHECK_NULL(th_tensor_real(NULL), TH_ERR_INVALID, "th_tensor_real", "NULL tensor");
    th_tensor *wr = th_tensor_real(th_c128_base(w));
    CHECK(th_tensor_dtype(wr) == TH_F64 && th_tensor_strides(wr)[0] == 2);
    th_tensor_release(wr);
    /* a wrong handle: the typed form checks its dtype */
    CHECK_NULL(th_c64_real((th_c64_tensor *)(void *)th_f32_base(f)), TH_ERR_DTYPE, "th_c64_real", "t is f32, not c64");
    th_f32_release(f);
    th_c128_release(w);
}

int main(void)
{
    test_begin();
    test_view();
    test_view_strided();
    test_view_edges();
    test_reshape();
    test_transpose_permute();
    test_narrow_select();
    test_unfold();
    test_squeeze_unsqueeze();
    test_expand();
    test_as_strided();
    test_flatten();
    test_chains();
    test_generic();
    test_complex_parts();
    return test_end("views");
}
