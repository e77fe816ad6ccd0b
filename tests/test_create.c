/* tests/test_create.c: arange, linspace, logspace, eye, the *_like constructors, diag, tril and triu.
 *
 * Values against hand-computed lists or plain loops over indices; integer arange at the edges of int64;
 * transposed, expanded, size-0, 0-d inputs; _out into itself and into overlapping memory; every error. */
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

static bool f64_values(const th_f64_tensor *t, const double *want, int64_t n)
{
    if (!t || th_f64_ndim(t) != 1 || th_f64_numel(t) != n) return false;
    for (int64_t i = 0; i < n; i++)
        if (th_f64_data(t)[i] != want[i]) {
            fprintf(stderr, "  element %lld is %.17g, wanted %.17g\n", (long long)i, th_f64_data(t)[i], want[i]);
            return false;
        }
    return true;
}

static bool i64_values(const th_i64_tensor *t, const int64_t *want, int64_t n)
{
    if (!t || th_i64_ndim(t) != 1 || th_i64_numel(t) != n) return false;
    for (int64_t i = 0; i < n; i++)
        if (th_i64_data(t)[i] != want[i]) return false;
    return true;
}

/* A contiguous f64 tensor of shape sizes holding 1, 2, 3, ... in row-major order. */
static th_f64_tensor *counting(int ndim, const int64_t *sizes)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    for (int64_t i = 0; t && i < th_f64_numel(t); i++) th_f64_data(t)[i] = (double)(i + 1);
    return t;
}

/* ---- arange, linspace, logspace ---------------------------------------------------------- */

static void test_arange(void)
{
    th_f64_tensor *a = th_f64_arange(0, 1, 0.25);
    CHECK(f64_values(a, (const double[]){0, 0.25, 0.5, 0.75}, 4));
    th_f64_tensor *b = th_f64_arange(1, -1, -0.5); /* ceil(4) = 4: 1, 0.5, 0, -0.5 */
    CHECK(f64_values(b, (const double[]){1, 0.5, 0, -0.5}, 4));
    th_f64_tensor *c = th_f64_arange(0, 1, 0.3); /* ceil(3.33) = 4: element i is 0 + i * 0.3 */
    CHECK(f64_values(c, (const double[]){0, 0.3, 2 * 0.3, 3 * 0.3}, 4));
    th_f64_tensor *e = th_f64_arange(1, 0, 1); /* the wrong direction: empty */
    CHECK(e && th_f64_numel(e) == 0 && th_f64_ndim(e) == 1);
    th_f32_tensor *f = th_f32_arange(-2, 2, 1.5);
    CHECK(f && th_f32_numel(f) == 3 && th_f32_data(f)[0] == -2 && th_f32_data(f)[1] == -0.5f && th_f32_data(f)[2] == 1);
    th_bf16_tensor *h = th_bf16_arange(0, 3, 1);
    CHECK(h && th_bf16_numel(h) == 3 && th_bfloat16_to_float(th_bf16_data(h)[2]) == 2.0f);
    CHECK_NULL(th_f64_arange(0, 1, 0), TH_ERR_INVALID, "th_f64_arange", "step != 0");
    CHECK_NULL(th_f32_arange(0, NAN, 1), TH_ERR_INVALID, "th_f32_arange", "must be finite");
    CHECK_NULL(th_f64_arange(0, 1e300, 1e-300), TH_ERR_OVERFLOW, "th_f64_arange", "more than 2^62");
    CHECK_NULL(th_f64_arange(-1e308, 1e308, 1), TH_ERR_OVERFLOW, "th_f64_arange", "more than 2^62");

    th_i8_tensor *i8 = th_i8_arange(10, -3, -4);
    CHECK(i8 && th_i8_numel(i8) == 4 && th_i8_data(i8)[0] == 10 && th_i8_data(i8)[3] == -2);
    th_i64_tensor *i = th_i64_arange(0, 10, 3);
    CHECK(i64_values(i, (const int64_t[]){0, 3, 6, 9}, 4));
    th_i64_tensor *top = th_i64_arange(INT64_MAX - 2, INT64_MAX, 1);
    CHECK(i64_values(top, (const int64_t[]){INT64_MAX - 2, INT64_MAX - 1}, 2));
    th_i64_tensor *wide = th_i64_arange(INT64_MIN, INT64_MAX, INT64_MAX); /* ceil((2^64 - 1) / (2^63 - 1)) = 3 */
    CHECK(i64_values(wide, (const int64_t[]){INT64_MIN, -1, INT64_MAX - 1}, 3));
    th_u8_tensor *down = th_u8_arange(255, -1, -1);
    CHECK(down && th_u8_numel(down) == 256 && th_u8_data(down)[0] == 255 && th_u8_data(down)[255] == 0);
    th_i32_tensor *none = th_i32_arange(5, 5, 1);
    CHECK(none && th_i32_numel(none) == 0);
    CHECK_NULL(th_i32_arange(0, 5, 0), TH_ERR_INVALID, "th_i32_arange", "step is 0");
    CHECK_NULL(th_i8_arange(0, 200, 1), TH_ERR_RANGE, "th_i8_arange", "the values 0..199 do not fit");
    CHECK_NULL(th_u8_arange(-1, 3, 1), TH_ERR_RANGE, "th_u8_arange", "[0, 255]");
    CHECK_NULL(th_i64_arange(INT64_MIN, INT64_MAX, 1), TH_ERR_OVERFLOW, "th_i64_arange", "more than 2^63 - 1");
    th_f64_release(a), th_f64_release(b), th_f64_release(c), th_f64_release(e), th_f32_release(f);
    th_bf16_release(h), th_i8_release(i8), th_i64_release(i), th_i64_release(top), th_i64_release(wide);
    th_u8_release(down), th_i32_release(none);
}

static void test_linspace_logspace(void)
{
    th_f64_tensor *a = th_f64_linspace(0, 1, 5);
    CHECK(f64_values(a, (const double[]){0, 0.25, 0.5, 0.75, 1}, 5));
    th_f64_tensor *b = th_f64_linspace(0.1, 0.7, 7); /* both ends exact; the middle from the nearer end */
    CHECK(b && th_f64_data(b)[0] == 0.1 && th_f64_data(b)[6] == 0.7);
    bool close = true;
    for (int i = 0; b && i < 7; i++) close &= fabs(th_f64_data(b)[i] - (0.1 + 0.1 * i)) < 1e-15;
    CHECK(close);
    th_f64_tensor *one = th_f64_linspace(3, 9, 1), *zero = th_f64_linspace(3, 9, 0);
    CHECK(f64_values(one, (const double[]){3}, 1));
    CHECK(zero && th_f64_numel(zero) == 0);
    th_f64_tensor *down = th_f64_linspace(2, -2, 3);
    CHECK(f64_values(down, (const double[]){2, 0, -2}, 3));
    th_f64_tensor *l = th_f64_logspace(0, 3, 4, 10);
    CHECK(f64_values(l, (const double[]){1, 10, 100, 1000}, 4));
    th_f32_tensor *l2 = th_f32_logspace(-1, 2, 4, 2);
    CHECK(l2 && th_f32_data(l2)[0] == 0.5f && th_f32_data(l2)[3] == 4.0f);
    CHECK_NULL(th_f64_linspace(0, 1, -1), TH_ERR_INVALID, "th_f64_linspace", "steps -1 is negative");
    CHECK_NULL(th_f64_linspace(INFINITY, 1, 3), TH_ERR_INVALID, "th_f64_linspace", "must be finite");
    CHECK_NULL(th_f64_logspace(0, 1, 3, NAN), TH_ERR_INVALID, "th_f64_logspace", "base nan is not finite");
    th_f64_release(a), th_f64_release(b), th_f64_release(one), th_f64_release(zero), th_f64_release(down);
    th_f64_release(l), th_f32_release(l2);
}

/* ---- eye and the _like constructors ------------------------------------------------------ */

static void test_eye_and_like(void)
{
    const int64_t shapes[3][2] = {{3, 3}, {2, 4}, {4, 1}};
    for (int s = 0; s < 3; s++) {
        int64_t n = shapes[s][0], m = shapes[s][1];
        th_f64_tensor *e = th_f64_eye(n, m);
        bool ok = e && th_f64_sizes(e)[0] == n && th_f64_sizes(e)[1] == m;
        for (int64_t i = 0; ok && i < n; i++)
            for (int64_t j = 0; j < m; j++) ok &= th_f64_get(e, SZ(i, j)) == (i == j ? 1.0 : 0.0);
        CHECK(ok);
        th_f64_release(e);
    }
    th_bool_tensor *eb = th_bool_eye(2, 2);
    CHECK(eb && th_bool_data(eb)[0] && !th_bool_data(eb)[1] && !th_bool_data(eb)[2] && th_bool_data(eb)[3]);
    th_c128_tensor *ec = th_c128_eye(2, 2);
    CHECK(ec && th_c128_data(ec)[0] == 1 && th_c128_data(ec)[1] == 0);
    th_i32_tensor *empty = th_i32_eye(0, 3);
    CHECK(empty && th_i32_numel(empty) == 0 && th_i32_sizes(empty)[1] == 3);
    CHECK_NULL(th_f32_eye(-1, 2), TH_ERR_INVALID, "th_f32_eye", "negative size -1");

    th_f64_tensor *base = counting(2, SZ(2, 3)), *t = th_f64_transpose(base, 0, 1); /* (3, 2), not contiguous */
    th_f64_tensor *z = th_f64_zeros_like(t), *o = th_f64_ones_like(t), *f = th_f64_full_like(t, -2.5);
    th_f64_tensor *e = th_f64_empty_like(t);
    bool ok = z && o && f && e;
    th_f64_tensor *all[4] = {z, o, f, e};
    for (int k = 0; ok && k < 4; k++)
        ok &= th_f64_ndim(all[k]) == 2 && th_f64_sizes(all[k])[0] == 3 && th_f64_sizes(all[k])[1] == 2 &&
              th_f64_is_contiguous(all[k]);
    for (int i = 0; ok && i < 6; i++)
        ok &= th_f64_data(z)[i] == 0 && th_f64_data(o)[i] == 1 && th_f64_data(f)[i] == -2.5;
    CHECK(ok);
    th_f64_tensor *scalar = th_f64_full(0, NULL, 4), *s1 = th_f64_ones_like(scalar);
    CHECK(s1 && th_f64_ndim(s1) == 0 && th_f64_data(s1)[0] == 1);
    th_bool_tensor *bt = th_bool_ones_like(eb);
    CHECK(bt && th_bool_data(bt)[1]);
    CHECK_NULL(th_f64_zeros_like(NULL), TH_ERR_INVALID, "th_f64_zeros_like", "NULL tensor");
    CHECK_NULL(th_f64_empty_like(NULL), TH_ERR_INVALID, "th_f64_empty_like", "NULL tensor");
    CHECK_NULL(th_f64_ones_like(NULL), TH_ERR_INVALID, "th_f64_ones_like", "NULL tensor");
    CHECK_NULL(th_f64_full_like(NULL, 1), TH_ERR_INVALID, "th_f64_full_like", "NULL tensor");
    th_bool_release(eb), th_c128_release(ec), th_i32_release(empty), th_f64_release(base), th_f64_release(t);
    th_f64_release(z), th_f64_release(o), th_f64_release(f), th_f64_release(e), th_f64_release(scalar);
    th_f64_release(s1), th_bool_release(bt);
}

/* ---- diag -------------------------------------------------------------------------------- */

static void test_diag(void)
{
    th_f64_tensor *v = counting(1, SZ(3));
    for (int64_t k = -2; k <= 2; k++) {
        th_f64_tensor *m = th_f64_diag(v, k);
        int64_t side = 3 + (k < 0 ? -k : k);
        bool ok = m && th_f64_ndim(m) == 2 && th_f64_sizes(m)[0] == side && th_f64_sizes(m)[1] == side;
        for (int64_t i = 0; ok && i < side; i++)
            for (int64_t j = 0; j < side; j++) {
                int64_t at = k >= 0 ? i : j; /* which element of v lands at (i, j) */
                double want = (j - i == k && at < 3) ? (double)(at + 1) : 0.0;
                ok &= th_f64_get(m, SZ(i, j)) == want;
            }
        CHECK(ok);
        /* and back: the diagonal of the matrix is v */
        th_f64_tensor *back = th_f64_diag(m, k);
        CHECK(f64_values(back, (const double[]){1, 2, 3}, 3));
        th_f64_release(m), th_f64_release(back);
    }
    /* 2-d, rectangular and transposed: element (i, i + k) for every k, including off the matrix. */
    th_f64_tensor *a = counting(2, SZ(4, 3)), *at = th_f64_transpose(a, 0, 1); /* at is (3, 4) */
    for (int64_t k = -4; k <= 5; k++) {
        th_f64_tensor *d = th_f64_diag(at, k);
        double want[4];
        int64_t n = 0;
        for (int64_t i = 0; i < 3; i++)
            if (i + k >= 0 && i + k < 4) want[n++] = th_f64_get(at, SZ(i, i + k));
        CHECK(f64_values(d, want, n));
        th_f64_release(d);
    }
    /* An expanded 1-d input (stride 0). */
    th_f64_tensor *s = th_f64_full(1, SZ(1), 7), *ex = th_f64_expand(s, 1, SZ(2));
    th_f64_tensor *dm = th_f64_diag(ex, 0);
    CHECK(dm && th_f64_data(dm)[0] == 7 && th_f64_data(dm)[1] == 0 && th_f64_data(dm)[3] == 7);
    th_i16_tensor *empty = th_i16_zeros(1, SZ(0)), *de = th_i16_diag(empty, 1);
    CHECK(de && th_i16_numel(de) == 1 && th_i16_data(de)[0] == 0);
    th_f64_tensor *scalar = th_f64_zeros(0, NULL), *cube = th_f64_zeros(3, SZ(1, 1, 1));
    CHECK_NULL(th_f64_diag(NULL, 0), TH_ERR_INVALID, "th_f64_diag", "NULL tensor");
    CHECK_NULL(th_f64_diag(scalar, 0), TH_ERR_SHAPE, "th_f64_diag", "shape ()");
    CHECK_NULL(th_f64_diag(cube, 0), TH_ERR_SHAPE, "th_f64_diag", "1-d or 2-d");
    CHECK_NULL(th_f64_diag(v, INT64_MAX), TH_ERR_OVERFLOW, "th_f64_diag", "larger than int64 counts");
    CHECK_NULL(th_f64_diag(v, INT64_MIN), TH_ERR_OVERFLOW, "th_f64_diag", "on diagonal");
    th_f64_release(v), th_f64_release(a), th_f64_release(at), th_f64_release(s), th_f64_release(ex);
    th_f64_release(dm), th_i16_release(empty), th_i16_release(de), th_f64_release(scalar), th_f64_release(cube);
}

/* ---- tril and triu ----------------------------------------------------------------------- */

/* Every element of r (shape of t, batched) is t's where the triangle keeps it, else 0. */
static bool triangle_ok(const th_f64_tensor *r, const th_f64_tensor *t, int64_t k, bool lower)
{
    if (!r || th_f64_ndim(r) != th_f64_ndim(t)) return false;
    int nd = th_f64_ndim(t);
    int64_t n = th_f64_numel(t), idx[TH_MAX_DIMS];
    for (int64_t lin = 0; lin < n; lin++) {
        for (int64_t rest = lin, d = nd - 1; d >= 0; d--) {
            idx[d] = rest % th_f64_sizes(t)[d];
            rest /= th_f64_sizes(t)[d];
        }
        int64_t diff = idx[nd - 1] - idx[nd - 2];
        bool keep = lower ? diff <= k : diff >= k;
        if (th_f64_get(r, idx) != (keep ? th_f64_get(t, idx) : 0.0)) return false;
    }
    return true;
}

static void test_tril_triu(void)
{
    th_f64_tensor *t = counting(3, SZ(2, 3, 4));
    for (int64_t k = -4; k <= 5; k++) {
        for (int lower = 0; lower < 2; lower++) {
            th_f64_tensor *r = lower ? th_f64_tril(t, k) : th_f64_triu(t, k);
            CHECK(triangle_ok(r, t, k, lower));
            th_f64_tensor *o = th_f64_full(3, SZ(2, 3, 4), 99);
            CHECK((lower ? th_f64_tril_out(o, t, k) : th_f64_triu_out(o, t, k)) == TH_OK);
            CHECK(triangle_ok(o, t, k, lower));
            th_f64_tensor *in = th_f64_clone(t); /* in place, and _out into itself, give the same */
            CHECK((lower ? th_f64_tril_inplace(in, k) : th_f64_triu_inplace(in, k)) == TH_OK);
            CHECK(triangle_ok(in, t, k, lower));
            th_f64_tensor *self = th_f64_clone(t);
            CHECK((lower ? th_f64_tril_out(self, self, k) : th_f64_triu_out(self, self, k)) == TH_OK);
            CHECK(triangle_ok(self, t, k, lower));
            th_f64_release(r), th_f64_release(o), th_f64_release(in), th_f64_release(self);
        }
    }
    /* Huge k either way. */
    th_f64_tensor *all = th_f64_tril(t, INT64_MAX), *none = th_f64_tril(t, INT64_MIN);
    CHECK(triangle_ok(all, t, INT64_MAX, true) && triangle_ok(none, t, INT64_MIN, true));
    th_f64_tensor *uall = th_f64_triu(t, INT64_MIN), *unone = th_f64_triu(t, INT64_MAX);
    CHECK(triangle_ok(uall, t, INT64_MIN, false) && triangle_ok(unone, t, INT64_MAX, false));
    /* A transposed input, and in place through a transposed view. */
    th_f64_tensor *m = counting(2, SZ(3, 5)), *mt = th_f64_transpose(m, 0, 1); /* (5, 3) */
    th_f64_tensor *ref = th_f64_clone(mt), *r = th_f64_triu(mt, -1);
    CHECK(triangle_ok(r, ref, -1, false));
    CHECK(th_f64_tril_inplace(mt, 0) == TH_OK);
    CHECK(triangle_ok(mt, ref, 0, true));
    /* _out into memory that overlaps the input (shifted by one element): the input is read first. */
    th_f64_tensor *buf = counting(1, SZ(10));
    th_f64_tensor *src = th_f64_as_strided(buf, 2, SZ(3, 3), SZ(3, 1), 0);
    th_f64_tensor *dst = th_f64_as_strided(buf, 2, SZ(3, 3), SZ(3, 1), 1);
    th_f64_tensor *src_copy = th_f64_clone(src);
    CHECK(th_f64_triu_out(dst, src, 0) == TH_OK);
    CHECK(triangle_ok(dst, src_copy, 0, false));
    /* Other dtypes: bool and complex. */
    th_bool_tensor *b = th_bool_ones(2, SZ(2, 2)), *bl = th_bool_tril(b, -1);
    CHECK(bl && !th_bool_data(bl)[0] && !th_bool_data(bl)[1] && th_bool_data(bl)[2] && !th_bool_data(bl)[3]);
    th_c64_tensor *c = th_c64_ones(2, SZ(2, 2));
    CHECK(th_c64_triu_inplace(c, 1) == TH_OK);
    CHECK(th_c64_data(c)[1] == 1 && th_c64_data(c)[2] == 0 && th_c64_data(c)[0] == 0);
    th_f64_tensor *zero_size = th_f64_zeros(2, SZ(0, 4)), *zs = th_f64_tril(zero_size, 0);
    CHECK(zs && th_f64_numel(zs) == 0);
    /* Errors. */
    th_f64_tensor *v = counting(1, SZ(3)), *wrong = th_f64_zeros(2, SZ(3, 4));
    CHECK_NULL(th_f64_tril(NULL, 0), TH_ERR_INVALID, "th_f64_tril", "NULL tensor");
    CHECK_NULL(th_f64_triu(v, 0), TH_ERR_SHAPE, "th_f64_triu", "t has 1 dims; a triangle needs at least 2");
    CHECK_FAILS(th_f64_tril_out(wrong, t, 0), TH_ERR_SHAPE, "th_f64_tril_out", "out has shape (3, 4)");
    CHECK_FAILS(th_f64_tril_out(NULL, t, 0), TH_ERR_INVALID, "th_f64_tril_out", "NULL out");
    CHECK_FAILS(th_f64_triu_inplace(v, 0), TH_ERR_SHAPE, "th_f64_triu_inplace", "at least 2");
    th_f64_tensor *one = th_f64_zeros(2, SZ(1, 3)), *ex = th_f64_expand(one, 2, SZ(3, 3));
    CHECK_FAILS(th_f64_tril_inplace(ex, 0), TH_ERR_INVALID, "th_f64_tril_inplace", "share an address");
    th_f64_tensor *ro = th_f64_ones(2, SZ(2, 2));
    th_storage_make_read_only(th_f64_storage(ro));
    CHECK_FAILS(th_f64_triu_inplace(ro, 1), TH_ERR_READ_ONLY, "th_f64_triu_inplace", "read-only");
    CHECK(th_f64_data(ro)[2] == 1);
    th_f64_release(t), th_f64_release(all), th_f64_release(none), th_f64_release(uall), th_f64_release(unone);
    th_f64_release(m), th_f64_release(mt), th_f64_release(ref), th_f64_release(r), th_f64_release(buf);
    th_f64_release(src), th_f64_release(dst), th_f64_release(src_copy), th_bool_release(b), th_bool_release(bl);
    th_c64_release(c), th_f64_release(zero_size), th_f64_release(zs), th_f64_release(v), th_f64_release(wrong);
    th_f64_release(one), th_f64_release(ex), th_f64_release(ro);
}

static void test_out_of_memory(void)
{
    th_f64_tensor *t = counting(2, SZ(3, 3));
    th_counting_allocator_fail_after(check_counter, 1);
    CHECK_NULL(th_f64_arange(0, 5, 1), TH_ERR_NOMEM, "th_f64_arange", "");
    CHECK_NULL(th_i32_arange(0, 5, 1), TH_ERR_NOMEM, "th_i32_arange", "");
    CHECK_NULL(th_f64_linspace(0, 5, 3), TH_ERR_NOMEM, "th_f64_linspace", "");
    CHECK_NULL(th_f64_eye(3, 3), TH_ERR_NOMEM, "th_f64_eye", "");
    CHECK_NULL(th_f64_diag(t, 0), TH_ERR_NOMEM, "th_f64_diag", "");
    CHECK_NULL(th_f64_tril(t, 0), TH_ERR_NOMEM, "th_f64_tril", "");
    th_counting_allocator_fail_after(check_counter, 0);
    th_f64_release(t);
}

static void test_device(void)
{
    double mem[6] = {1, 2, 3, 4, 5, 6};
    th_f64_tensor *d = device_tensor(mem, 2, 3);
    CHECK_NULL(th_f64_diag(d, 0), TH_ERR_DEVICE, "th_f64_diag", "device type 2");
    CHECK_NULL(th_f64_tril(d, 0), TH_ERR_DEVICE, "th_f64_tril", "device type 2");
    CHECK_FAILS(th_f64_triu_inplace(d, 0), TH_ERR_DEVICE, "th_f64_triu_inplace", "device type 2");
    th_set_default_allocator(&fake_device, NULL);
    CHECK_NULL(th_f64_arange(0, 3, 1), TH_ERR_DEVICE, "th_f64_arange", "device type 2");
    CHECK_NULL(th_i64_arange(0, 3, 1), TH_ERR_DEVICE, "th_i64_arange", "device type 2");
    CHECK_NULL(th_f64_linspace(0, 3, 4), TH_ERR_DEVICE, "th_f64_linspace", "device type 2");
    CHECK_NULL(th_f64_eye(2, 2), TH_ERR_DEVICE, "th_f64_eye", "device type 2");
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
    th_f64_release(d);
}

int main(void)
{
    test_begin();
    test_arange();
    test_linspace_logspace();
    test_eye_and_like();
    test_diag();
    test_tril_triu();
    test_out_of_memory();
    test_device();
    return test_end("test_create");
}
