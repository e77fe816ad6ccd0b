/* tests/test_reduce.c: reductions and scans against plain double loops.
 *
 * Every op over every dim (negative too), with and without keepdim, on contiguous, transposed, strided
 * and expanded inputs, size-0, size-1 and 0-d tensors; each dtype an op exists for; NaN; integer
 * wrap-around; the accuracy of a 16M-element float32 sum; results on 1 and 2 threads; _out forms with
 * overlapping outs; every error path (status and message) and no leaks. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})
#define IDX(...) ((const int64_t[]){__VA_ARGS__})

/* ---- inputs ----------------------------------------------------------------------------- */

static uint64_t rng_state = 88172645463325252ull;

static double rnd(void) /* uniform in [-2, 2) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 9007199254740992.0 * 4.0 - 2.0;
}

typedef enum layout { CONTIGUOUS, TRANSPOSED, STRIDED, EXPANDED } layout;
static const char *const layout_names[] = {"contiguous", "transposed", "strided", "expanded"};

static int64_t numel_of(int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    return n;
}

/* The row-major index vector of linear position i. */
static void unravel(int ndim, const int64_t *sizes, int64_t i, int64_t *idx)
{
    for (int d = ndim - 1; d >= 0; d--) {
        idx[d] = sizes[d] ? i % sizes[d] : 0;
        i = sizes[d] ? i / sizes[d] : 0;
    }
}

/* A f64 tensor of this shape in the given layout holding random values (an expanded one repeats its dim 0). */
static th_f64_tensor *make_input(layout how, int ndim, const int64_t *sizes)
{
    int64_t n = numel_of(ndim, sizes);
    th_f64_tensor *t = NULL;
    if (how == CONTIGUOUS || ndim < 2) {
        t = th_f64_empty(ndim, sizes);
    } else if (how == TRANSPOSED) { /* storage in reversed dim order, viewed back */
        int64_t rev[TH_MAX_DIMS];
        int perm[TH_MAX_DIMS];
        for (int d = 0; d < ndim; d++) {
            rev[d] = sizes[ndim - 1 - d];
            perm[d] = ndim - 1 - d;
        }
        th_f64_tensor *base = th_f64_empty(ndim, rev);
        t = th_f64_permute(base, perm);
        th_f64_release(base);
    } else if (how == STRIDED) { /* every other element, with a negative stride on dim 0 */
        th_f64_tensor *base = th_f64_empty(1, SZ(2 * (n ? n : 1)));
        int64_t strides[TH_MAX_DIMS], s = 2;
        for (int d = ndim - 1; d >= 0; d--) {
            strides[d] = s;
            s *= sizes[d] ? sizes[d] : 1;
        }
        int64_t offset = n > 0 && sizes[0] > 1 ? (sizes[0] - 1) * strides[0] : 0;
        strides[0] = -strides[0];
        t = th_f64_as_strided(base, ndim, sizes, strides, offset);
        th_f64_release(base);
    } else { /* EXPANDED: dim 0 of size 1 broadcast */
        int64_t one[TH_MAX_DIMS];
        memcpy(one, sizes, sizeof(int64_t) * (size_t)ndim);
        one[0] = 1;
        th_f64_tensor *base = th_f64_empty(ndim, one);
        t = th_f64_expand(base, ndim, sizes);
        th_f64_release(base);
        int64_t m = numel_of(ndim, one);
        for (int64_t i = 0; i < m; i++) th_f64_data(t)[i] = rnd();
        return t;
    }
    int64_t idx[TH_MAX_DIMS];
    for (int64_t i = 0; i < n; i++) {
        unravel(ndim, sizes, i, idx);
        th_f64_set(t, idx, rnd());
    }
    return t;
}

/* t's elements in row-major order (any dtype), as doubles; the caller frees. */
static double *values_of(const th_tensor *t)
{
    th_f64_tensor *c = th_f64_convert(t);
    int64_t n = th_f64_numel(c);
    double *v = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (n > 0) memcpy(v, th_f64_data(c), sizeof(double) * (size_t)n);
    th_f64_release(c);
    return v;
}

/* ---- references: one run of values, in plain double loops --------------------------------- */

typedef enum rop {
    R_SUM, R_PROD, R_MEAN, R_VAR, R_STD, R_LSE, R_NORM, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_ALL, R_ANY, R_NOPS
} rop;
static const char *const rop_names[] = {"sum", "prod", "mean", "var", "std", "logsumexp", "norm",
                                        "max", "min", "argmax", "argmin", "all", "any"};

static double ref_run(rop op, const double *v, int64_t n, double param)
{
    double s = 0, m;
    int64_t best = 0;
    switch (op) {
    case R_SUM: for (int64_t i = 0; i < n; i++) s += v[i]; return s;
    case R_PROD: s = 1; for (int64_t i = 0; i < n; i++) s *= v[i]; return s;
    case R_MEAN: for (int64_t i = 0; i < n; i++) s += v[i]; return s / (double)n;
    case R_VAR:
    case R_STD:
        m = ref_run(R_MEAN, v, n, 0);
        for (int64_t i = 0; i < n; i++) s += (v[i] - m) * (v[i] - m);
        s /= (double)(n - (int64_t)param > 0 ? n - (int64_t)param : 0);
        return op == R_STD ? sqrt(s) : s;
    case R_LSE:
        m = -INFINITY;
        for (int64_t i = 0; i < n; i++) m = v[i] > m || isnan(v[i]) ? v[i] : m;
        if (!isfinite(m)) return m;
        for (int64_t i = 0; i < n; i++) s += exp(v[i] - m);
        return m + log(s);
    case R_NORM:
        if (param == INFINITY || param == -INFINITY) {
            if (n == 0) return 0;
            m = fabs(v[0]);
            for (int64_t i = 1; i < n; i++) m = param > 0 ? fmax(m, fabs(v[i])) : fmin(m, fabs(v[i]));
            return m;
        }
        for (int64_t i = 0; i < n; i++) s += param == 0 ? (v[i] != 0) : pow(fabs(v[i]), param);
        return param == 0 ? s : pow(s, 1 / param);
    case R_MAX:
    case R_MIN:
    case R_ARGMAX:
    case R_ARGMIN:
        for (int64_t i = 0; i < n; i++) {
            if (isnan(v[i])) return op == R_ARGMAX || op == R_ARGMIN ? (double)i : v[i];
            bool better = op == R_MAX || op == R_ARGMAX ? v[i] > v[best] : v[i] < v[best];
            if (better) best = i;
        }
        return op == R_ARGMAX || op == R_ARGMIN ? (double)best : v[best];
    case R_ALL: for (int64_t i = 0; i < n; i++) if (v[i] == 0) return 0; return 1;
    case R_ANY: for (int64_t i = 0; i < n; i++) if (v[i] != 0) return 1; return 0;
    case R_NOPS: break;
    }
    return NAN;
}

/* The reference reduction of values (row-major, shape ndim/sizes) over dim (wrapped), into want (row-major
 * over the shape without dim). */
static void ref_dim(rop op, const double *values, int ndim, const int64_t *sizes, int dim, double param, double *want)
{
    int64_t len = ndim ? sizes[dim] : 1, inner = 1, outer = 1;
    for (int d = dim + 1; d < ndim; d++) inner *= sizes[d];
    for (int d = 0; d < dim; d++) outer *= sizes[d];
    double *run = malloc(sizeof(double) * (size_t)(len ? len : 1));
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            for (int64_t r = 0; r < len; r++) run[r] = values[(o * len + r) * inner + i];
            want[o * inner + i] = ref_run(op, run, len, param);
        }
    free(run);
}

/* ---- the ops under test, on f64 and f32 ------------------------------------------------- */

/* op of t over dim (or over everything when all), as a new tensor of any dtype. */
static th_tensor *run_f64(rop op, const th_f64_tensor *t, bool all, int dim, bool keepdim, double param)
{
    int64_t c = (int64_t)param;
    switch (op) {
    case R_SUM: return th_f64_base(all ? th_f64_sum_all(t) : th_f64_sum_dim(t, dim, keepdim));
    case R_PROD: return th_f64_base(all ? th_f64_prod_all(t) : th_f64_prod_dim(t, dim, keepdim));
    case R_MEAN: return th_f64_base(all ? th_f64_mean_all(t) : th_f64_mean_dim(t, dim, keepdim));
    case R_VAR: return th_f64_base(all ? th_f64_var_all(t, c) : th_f64_var_dim(t, dim, c, keepdim));
    case R_STD: return th_f64_base(all ? th_f64_std_all(t, c) : th_f64_std_dim(t, dim, c, keepdim));
    case R_LSE: return th_f64_base(all ? th_f64_logsumexp_all(t) : th_f64_logsumexp_dim(t, dim, keepdim));
    case R_NORM: return th_f64_base(all ? th_f64_norm_all(t, param) : th_f64_norm_dim(t, param, dim, keepdim));
    case R_MAX: return th_f64_base(all ? th_f64_max_all(t) : th_f64_max_dim(t, dim, keepdim, NULL));
    case R_MIN: return th_f64_base(all ? th_f64_min_all(t) : th_f64_min_dim(t, dim, keepdim, NULL));
    case R_ARGMAX: return th_i64_base(all ? th_f64_argmax_all(t) : th_f64_argmax_dim(t, dim, keepdim));
    case R_ARGMIN: return th_i64_base(all ? th_f64_argmin_all(t) : th_f64_argmin_dim(t, dim, keepdim));
    case R_ALL: return th_bool_base(all ? th_f64_all_all(t) : th_f64_all_dim(t, dim, keepdim));
    case R_ANY: return th_bool_base(all ? th_f64_any_all(t) : th_f64_any_dim(t, dim, keepdim));
    case R_NOPS: break;
    }
    return NULL;
}

static th_tensor *run_f32(rop op, const th_f32_tensor *t, bool all, int dim, bool keepdim, double param)
{
    int64_t c = (int64_t)param;
    switch (op) {
    case R_SUM: return th_f32_base(all ? th_f32_sum_all(t) : th_f32_sum_dim(t, dim, keepdim));
    case R_PROD: return th_f32_base(all ? th_f32_prod_all(t) : th_f32_prod_dim(t, dim, keepdim));
    case R_MEAN: return th_f32_base(all ? th_f32_mean_all(t) : th_f32_mean_dim(t, dim, keepdim));
    case R_VAR: return th_f32_base(all ? th_f32_var_all(t, c) : th_f32_var_dim(t, dim, c, keepdim));
    case R_STD: return th_f32_base(all ? th_f32_std_all(t, c) : th_f32_std_dim(t, dim, c, keepdim));
    case R_LSE: return th_f32_base(all ? th_f32_logsumexp_all(t) : th_f32_logsumexp_dim(t, dim, keepdim));
    case R_NORM: return th_f32_base(all ? th_f32_norm_all(t, param) : th_f32_norm_dim(t, param, dim, keepdim));
    case R_MAX: return th_f32_base(all ? th_f32_max_all(t) : th_f32_max_dim(t, dim, keepdim, NULL));
    case R_MIN: return th_f32_base(all ? th_f32_min_all(t) : th_f32_min_dim(t, dim, keepdim, NULL));
    case R_ARGMAX: return th_i64_base(all ? th_f32_argmax_all(t) : th_f32_argmax_dim(t, dim, keepdim));
    case R_ARGMIN: return th_i64_base(all ? th_f32_argmin_all(t) : th_f32_argmin_dim(t, dim, keepdim));
    case R_ALL: return th_bool_base(all ? th_f32_all_all(t) : th_f32_all_dim(t, dim, keepdim));
    case R_ANY: return th_bool_base(all ? th_f32_any_all(t) : th_f32_any_dim(t, dim, keepdim));
    case R_NOPS: break;
    }
    return NULL;
}

static bool close_to(double got, double want, double rtol)
{
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    return fabs(got - want) <= rtol * (1 + fabs(want));
}

static int failures_reported;

/* got has the expected shape and holds want (n values) within rtol; prints the first difference. */
static bool matches(const th_tensor *got, int ndim, const int64_t *sizes, const double *want, double rtol,
                    const char *what)
{
    if (!got) {
        fprintf(stderr, "  %s: NULL (%s)\n", what, th_last_error());
        return false;
    }
    bool ok = th_tensor_ndim(got) == ndim;
    for (int d = 0; ok && d < ndim; d++) ok = th_tensor_sizes(got)[d] == sizes[d];
    if (!ok) {
        fprintf(stderr, "  %s: wrong shape (ndim %d)\n", what, th_tensor_ndim(got));
        return false;
    }
    double *v = values_of(got);
    int64_t n = numel_of(ndim, sizes);
    for (int64_t i = 0; i < n && ok; i++) {
        if (!close_to(v[i], want[i], rtol)) {
            if (failures_reported++ < 20)
                fprintf(stderr, "  %s: element %lld is %.17g, wanted %.17g\n", what, (long long)i, v[i], want[i]);
            ok = false;
        }
    }
    free(v);
    return ok;
}

/* Every dim (both spellings), keepdim or not, and _all, of op on t (f64) and its f32 conversion. */
static void check_op(rop op, const th_f64_tensor *t, double param, const char *label)
{
    const int nd = th_f64_ndim(t);
    const int64_t *sizes = th_f64_sizes(t);
    double *values = values_of(th_f64_base(t));
    int64_t n = th_f64_numel(t);
    bool no_identity = op == R_MAX || op == R_MIN || op == R_ARGMAX || op == R_ARGMIN ||
                       (op == R_NORM && param == -INFINITY);
    th_f32_tensor *t32 = th_f32_convert(th_f64_base(t));
    double *values32 = values_of(th_f32_base(t32)); /* the f32 reference sees the rounded inputs */
    char what[200];
    for (int dim = -(nd ? nd : 1); dim < (nd ? nd : 1); dim++) {
        int d = dim < 0 ? dim + (nd ? nd : 1) : dim;
        int64_t out_sizes[TH_MAX_DIMS], keep_sizes[TH_MAX_DIMS];
        int on = 0;
        for (int k = 0; k < nd; k++) {
            keep_sizes[k] = k == d ? 1 : sizes[k];
            if (k != d) out_sizes[on++] = sizes[k];
        }
        int64_t m = numel_of(on, out_sizes);
        double *want = malloc(sizeof(double) * (size_t)(m ? m : 1));
        double *want32 = malloc(sizeof(double) * (size_t)(m ? m : 1));
        ref_dim(op, values, nd, sizes, d, param, want);
        ref_dim(op, values32, nd, sizes, d, param, want32);
        for (int64_t i = 0; i < m; i++) want32[i] = (float)want32[i]; /* a float32 result is rounded once */
        bool empty_run = nd > 0 && sizes[d] == 0;
        for (int keep = 0; keep < 2; keep++) {
            snprintf(what, sizeof what, "%s(%s) %s dim %d keepdim %d", rop_names[op], label, "f64", dim, keep);
            th_tensor *r = run_f64(op, t, false, dim, keep, param);
            if (no_identity && empty_run) {
                CHECK(r == NULL && th_last_status() == TH_ERR_SHAPE && strstr(th_last_error(), "size 0"));
            } else {
                CHECK(matches(r, keep ? nd : on, keep ? keep_sizes : out_sizes, want, 1e-12, what));
            }
            th_tensor_release(r);
            snprintf(what, sizeof what, "%s(%s) %s dim %d keepdim %d", rop_names[op], label, "f32", dim, keep);
            r = run_f32(op, t32, false, dim, keep, param);
            if (no_identity && empty_run) {
                CHECK(r == NULL && th_last_status() == TH_ERR_SHAPE);
            } else {
                CHECK(matches(r, keep ? nd : on, keep ? keep_sizes : out_sizes, want32, 2e-6, what));
            }
            th_tensor_release(r);
        }
        free(want);
        free(want32);
    }
    /* over everything */
    double want_all = ref_run(op, values, n, param), want_all32 = (float)ref_run(op, values32, n, param);
    th_tensor *r = run_f64(op, t, true, 0, false, param);
    th_tensor *r32 = run_f32(op, t32, true, 0, false, param);
    if (no_identity && n == 0) {
        CHECK(r == NULL && r32 == NULL);
    } else {
        snprintf(what, sizeof what, "%s(%s) f64 all", rop_names[op], label);
        CHECK(matches(r, 0, NULL, &want_all, 1e-12, what));
        snprintf(what, sizeof what, "%s(%s) f32 all", rop_names[op], label);
        CHECK(matches(r32, 0, NULL, &want_all32, 2e-6, what));
    }
    th_tensor_release(r);
    th_tensor_release(r32);
    th_f32_release(t32);
    free(values);
    free(values32);
}

static void test_ops_against_loops(void)
{
    static const struct shape { int ndim; int64_t sizes[4]; } shapes[] = {
        {3, {3, 4, 5}}, {2, {7, 1}}, {2, {1, 6}}, {4, {2, 3, 1, 4}}, {1, {9}}, {0, {0}},
        {2, {3, 0}}, {2, {0, 4}}, {3, {2, 600, 3}}, {2, {700, 5}}, {2, {5, 700}},
    };
    static const double params[R_NOPS] = {[R_VAR] = 1, [R_STD] = 0};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        for (int how = CONTIGUOUS; how <= EXPANDED; how++) {
            if (shapes[s].ndim == 0 && how != CONTIGUOUS) continue;
            th_f64_tensor *t = make_input((layout)how, shapes[s].ndim, shapes[s].sizes);
            char label[64];
            snprintf(label, sizeof label, "shape %zu %s", s, layout_names[how]);
            for (int op = 0; op < R_NOPS; op++) {
                if (op == R_NORM) {
                    const double ps[] = {0, 1, 2, 3, 0.5, INFINITY, -INFINITY};
                    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) check_op(R_NORM, t, ps[k], label);
                } else if (op == R_VAR || op == R_STD) {
                    for (int c = 0; c <= 2; c++) check_op((rop)op, t, c, label);
                } else {
                    check_op((rop)op, t, params[op], label);
                }
            }
            th_f64_release(t);
        }
    }
}

/* ---- special values ------------------------------------------------------------------------ */

static th_f64_tensor *from_values(int ndim, const int64_t *sizes, const double *v)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    memcpy(th_f64_data(t), v, sizeof(double) * (size_t)numel_of(ndim, sizes));
    return t;
}

static void test_nan(void)
{
    /* NaN in the middle, first, last; a row without NaN; both dims (inner and outer kernels) */
    const double v[] = {1, NAN, 3, 7, NAN, 2, 0, -1, 5, 4, 8, NAN, 2, 2, 9, 9};
    th_f64_tensor *t = from_values(2, SZ(4, 4), v);
    for (int op = R_MAX; op <= R_ARGMIN; op++) check_op((rop)op, t, 0, "nan");
    check_op(R_SUM, t, 0, "nan");
    check_op(R_LSE, t, 0, "nan");
    th_tensor *m = th_f64_base(th_f64_max_all(t));
    CHECK(isnan(th_f64_data((th_f64_tensor *)m)[0]));
    th_tensor_release(m);
    th_i64_tensor *am = th_f64_argmax_all(t);
    CHECK_INT_EQ(th_i64_data(am)[0], 1); /* the first NaN */
    th_i64_release(am);
    /* NaN counts as nonzero */
    th_f64_tensor *one = from_values(1, SZ(2), (const double[]){NAN, 1});
    th_bool_tensor *all = th_f64_all_all(one);
    CHECK(th_bool_data(all)[0] == true);
    th_bool_release(all);
    th_f64_release(one);
    /* infinities in logsumexp */
    th_f64_tensor *inf = from_values(2, SZ(2, 2), (const double[]){-INFINITY, -INFINITY, INFINITY, 1});
    th_f64_tensor *lse = th_f64_logsumexp_dim(inf, 1, false);
    CHECK(th_f64_data(lse)[0] == -INFINITY && th_f64_data(lse)[1] == INFINITY);
    th_f64_release(lse);
    th_f64_release(inf);
    /* ties keep the first index, on both kernels */
    th_f64_tensor *ties = from_values(2, SZ(3, 3), (const double[]){5, 1, 5, 5, 5, 2, 1, 5, 5});
    th_i64_tensor *i0 = th_f64_argmax_dim(ties, 0, false), *i1 = th_f64_argmax_dim(ties, 1, false);
    CHECK(th_i64_data(i0)[0] == 0 && th_i64_data(i0)[1] == 1 && th_i64_data(i0)[2] == 0);
    CHECK(th_i64_data(i1)[0] == 0 && th_i64_data(i1)[1] == 0 && th_i64_data(i1)[2] == 1);
    th_i64_release(i0);
    th_i64_release(i1);
    th_f64_release(ties);
    th_f64_release(t);
}

/* max_dim and min_dim give values and indices together. */
static void test_values_and_indices(void)
{
    th_f64_tensor *t = make_input(TRANSPOSED, 3, SZ(4, 5, 6));
    double *v = values_of(th_f64_base(t));
    for (int dim = -3; dim < 3; dim++) {
        int d = dim < 0 ? dim + 3 : dim;
        double want_v[30], want_i[30];
        int64_t sizes[3] = {4, 5, 6}, out[2];
        ref_dim(R_MAX, v, 3, sizes, d, 0, want_v);
        ref_dim(R_ARGMAX, v, 3, sizes, d, 0, want_i);
        for (int k = 0, o = 0; k < 3; k++)
            if (k != d) out[o++] = sizes[k];
        th_i64_tensor *idx = NULL;
        th_f64_tensor *mx = th_f64_max_dim(t, dim, false, &idx);
        CHECK(matches(th_f64_base(mx), 2, out, want_v, 0, "max_dim values"));
        CHECK(matches(th_i64_base(idx), 2, out, want_i, 0, "max_dim indices"));
        /* into outs */
        th_f64_tensor *ov = th_f64_zeros(2, out);
        th_i64_tensor *oi = th_i64_zeros(2, out);
        CHECK_INT_EQ(th_f64_max_dim_out(ov, oi, t, dim, false), TH_OK);
        CHECK(matches(th_f64_base(ov), 2, out, want_v, 0, "max_dim_out values"));
        CHECK(matches(th_i64_base(oi), 2, out, want_i, 0, "max_dim_out indices"));
        CHECK_INT_EQ(th_f64_max_dim_out(ov, NULL, t, dim, false), TH_OK);
        ref_dim(R_MIN, v, 3, sizes, d, 0, want_v);
        ref_dim(R_ARGMIN, v, 3, sizes, d, 0, want_i);
        CHECK_INT_EQ(th_f64_min_dim_out(ov, oi, t, dim, false), TH_OK);
        CHECK(matches(th_f64_base(ov), 2, out, want_v, 0, "min_dim_out values"));
        CHECK(matches(th_i64_base(oi), 2, out, want_i, 0, "min_dim_out indices"));
        th_i64_tensor *idx2 = NULL;
        th_f64_tensor *mn = th_f64_min_dim(t, dim, false, &idx2);
        CHECK(matches(th_i64_base(idx2), 2, out, want_i, 0, "min_dim indices"));
        CHECK_INT_EQ(th_f64_argmin_dim_out(oi, t, dim, false), TH_OK);
        CHECK(matches(th_i64_base(oi), 2, out, want_i, 0, "argmin_dim_out"));
        th_f64_release(mn);
        th_i64_release(idx2);
        th_f64_release(ov);
        th_i64_release(oi);
        th_f64_release(mx);
        th_i64_release(idx);
    }
    free(v);
    th_f64_release(t);
}

/* ---- every dtype ----------------------------------------------------------------------------- */

/* Small integers in [-3, 3] (0..6 for u8, 0/1 for bool) so every dtype holds every sum exactly. */
static th_f64_tensor *small_ints(int ndim, const int64_t *sizes, bool non_negative, bool binary)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    for (int64_t i = 0; i < th_f64_numel(t); i++) {
        double x = floor((rnd() + 2) * 1.75) - (non_negative ? 0 : 3);
        th_f64_data(t)[i] = binary ? (x > 3) : x;
    }
    return t;
}

/* Mostly +-1 with a few 2s, so that products stay small enough for every dtype to hold them exactly. */
static th_f64_tensor *small_products(int ndim, const int64_t *sizes, bool non_negative)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    for (int64_t i = 0; i < th_f64_numel(t); i++) th_f64_data(t)[i] = non_negative || rnd() > 0 ? 1 : -1;
    th_f64_data(t)[3] = 2;
    th_f64_data(t)[7] = 2;
    th_f64_data(t)[13] = non_negative ? 2 : -2;
    return t;
}

/* op (a function of this dtype) over dim 1 of a 5x4 (transposed) tensor, and over everything, against the
 * f64 reference. */
#define CHECK_DTYPE_DIM(sfx, fn_dim, fn_all, rop_, src)                                                       \
    do {                                                                                                     \
        th_##sfx##_tensor *x_ = th_##sfx##_convert(th_f64_base(src));                                       \
        th_##sfx##_tensor *xt_ = th_##sfx##_transpose(x_, 0, 1);                                            \
        double *v_ = values_of(th_##sfx##_base(xt_));                                                      \
        double want_[5], want_all_ = ref_run(rop_, v_, 20, 0);                                               \
        ref_dim(rop_, v_, 2, SZ(5, 4), 1, 0, want_);                                                          \
        th_tensor *r_ = (th_tensor *)fn_dim(xt_, -1, false);                                                 \
        CHECK(matches(r_, 1, SZ(5), want_, 1e-6, #sfx " " #fn_dim));                                         \
        th_tensor_release(r_);                                                                               \
        r_ = (th_tensor *)fn_all(xt_);                                                                       \
        CHECK(matches(r_, 0, NULL, &want_all_, 1e-6, #sfx " " #fn_all));                                     \
        th_tensor_release(r_);                                                                               \
        free(v_);                                                                                            \
        th_##sfx##_release(xt_);                                                                             \
        th_##sfx##_release(x_);                                                                              \
    } while (0)

static th_tensor *max_dim_no_idx_bool(const th_bool_tensor *t, int dim, bool keepdim)
{
    return th_bool_base(th_bool_max_dim(t, dim, keepdim, NULL));
}

#define MAX_DIM_FN(sfx)                                                                                      \
    static th_tensor *max_dim_##sfx(const th_##sfx##_tensor *t, int dim, bool keepdim)                      \
    {                                                                                                        \
        return th_##sfx##_base(th_##sfx##_max_dim(t, dim, keepdim, NULL));                                   \
    }                                                                                                        \
    static th_tensor *min_dim_##sfx(const th_##sfx##_tensor *t, int dim, bool keepdim)                      \
    {                                                                                                        \
        return th_##sfx##_base(th_##sfx##_min_dim(t, dim, keepdim, NULL));                                   \
    }
MAX_DIM_FN(u8)
MAX_DIM_FN(i8)
MAX_DIM_FN(i16)
MAX_DIM_FN(i32)
MAX_DIM_FN(i64)
MAX_DIM_FN(f16)
MAX_DIM_FN(bf16)
MAX_DIM_FN(f32)
MAX_DIM_FN(f64)

#define CHECK_NUMERIC(sfx, src, psrc)                                                                        \
    do {                                                                                                     \
        CHECK_DTYPE_DIM(sfx, th_##sfx##_sum_dim, th_##sfx##_sum_all, R_SUM, src);                             \
        CHECK_DTYPE_DIM(sfx, th_##sfx##_prod_dim, th_##sfx##_prod_all, R_PROD, psrc);                         \
        CHECK_DTYPE_DIM(sfx, th_##sfx##_all_dim, th_##sfx##_all_all, R_ALL, src);                             \
        CHECK_DTYPE_DIM(sfx, th_##sfx##_any_dim, th_##sfx##_any_all, R_ANY, src);                             \
    } while (0)

#define CHECK_REAL(sfx, src, psrc)                                                                           \
    do {                                                                                                     \
        CHECK_NUMERIC(sfx, src, psrc);                                                                       \
        CHECK_DTYPE_DIM(sfx, max_dim_##sfx, th_##sfx##_max_all, R_MAX, src);                                  \
        CHECK_DTYPE_DIM(sfx, min_dim_##sfx, th_##sfx##_min_all, R_MIN, src);                                  \
        CHECK_DTYPE_DIM(sfx, th_##sfx##_argmax_dim, th_##sfx##_argmax_all, R_ARGMAX, src);                    \
        CHECK_DTYPE_DIM(sfx, th_##sfx##_argmin_dim, th_##sfx##_argmin_all, R_ARGMIN, src);                    \
    } while (0)

/* The cumulative sum and product along dim 0 of a 5x4 tensor against a running double loop. */
#define CHECK_SCANS(sfx, src, psrc)                                                                          \
    do {                                                                                                     \
        th_##sfx##_tensor *x_ = th_##sfx##_convert(th_f64_base(src));                                       \
        th_##sfx##_tensor *px_ = th_##sfx##_convert(th_f64_base(psrc));                                     \
        double *v_ = values_of(th_##sfx##_base(x_)), *pv_ = values_of(th_##sfx##_base(px_));              \
        double ws_[20], wp_[20];                                                                             \
        for (int j_ = 0; j_ < 4; j_++)                                                                       \
            for (int r_ = 0; r_ < 5; r_++) {                                                                 \
                ws_[r_ * 4 + j_] = v_[r_ * 4 + j_] + (r_ ? ws_[(r_ - 1) * 4 + j_] : 0);                      \
                wp_[r_ * 4 + j_] = pv_[r_ * 4 + j_] * (r_ ? wp_[(r_ - 1) * 4 + j_] : 1);                     \
            }                                                                                                \
        th_##sfx##_tensor *s_ = th_##sfx##_cumsum(x_, 0), *p_ = th_##sfx##_cumprod(px_, -2);                \
        CHECK(matches(th_##sfx##_base(s_), 2, SZ(5, 4), ws_, 1e-6, #sfx " cumsum"));                          \
        CHECK(matches(th_##sfx##_base(p_), 2, SZ(5, 4), wp_, 1e-6, #sfx " cumprod"));                         \
        th_##sfx##_release(s_);                                                                              \
        th_##sfx##_release(p_);                                                                              \
        free(v_);                                                                                            \
        free(pv_);                                                                                           \
        th_##sfx##_release(x_);                                                                              \
        th_##sfx##_release(px_);                                                                             \
    } while (0)

static void test_every_dtype(void)
{
    th_f64_tensor *ints = small_ints(2, SZ(4, 5), false, false);
    th_f64_tensor *nonneg = small_ints(2, SZ(4, 5), true, false);
    th_f64_tensor *bits = small_ints(2, SZ(4, 5), true, true);
    th_f64_tensor *prods = small_products(2, SZ(4, 5), false);
    th_f64_tensor *pos_prods = small_products(2, SZ(4, 5), true);
    CHECK_REAL(i8, ints, prods);
    CHECK_REAL(i16, ints, prods);
    CHECK_REAL(i32, ints, prods);
    CHECK_REAL(i64, ints, prods);
    CHECK_REAL(u8, nonneg, pos_prods);
    CHECK_REAL(f16, ints, prods);
    CHECK_REAL(bf16, ints, prods);
    CHECK_REAL(f32, ints, prods);
    CHECK_REAL(f64, ints, prods);
    CHECK_NUMERIC(c64, ints, prods);
    CHECK_NUMERIC(c128, ints, prods);
    CHECK_DTYPE_DIM(bool, th_bool_all_dim, th_bool_all_all, R_ALL, bits);
    CHECK_DTYPE_DIM(bool, th_bool_any_dim, th_bool_any_all, R_ANY, bits);
    CHECK_DTYPE_DIM(bool, max_dim_no_idx_bool, th_bool_max_all, R_MAX, bits);
    CHECK_DTYPE_DIM(bool, th_bool_argmin_dim, th_bool_argmin_all, R_ARGMIN, bits);
    th_f64_tensor *cols = small_ints(2, SZ(5, 4), false, false), *pcols = small_products(2, SZ(5, 4), false);
    th_f64_tensor *ncols = small_ints(2, SZ(5, 4), true, false), *npcols = small_products(2, SZ(5, 4), true);
    CHECK_SCANS(i8, cols, pcols);
    CHECK_SCANS(i16, cols, pcols);
    CHECK_SCANS(i32, cols, pcols);
    CHECK_SCANS(i64, cols, pcols);
    CHECK_SCANS(u8, ncols, npcols);
    CHECK_SCANS(f16, cols, pcols);
    CHECK_SCANS(bf16, cols, pcols);
    CHECK_SCANS(f32, cols, pcols);
    CHECK_SCANS(f64, cols, pcols);
    CHECK_SCANS(c64, cols, pcols);
    CHECK_SCANS(c128, cols, pcols);
    th_f64_release(ints);
    th_f64_release(nonneg);
    th_f64_release(bits);
    th_f64_release(prods);
    th_f64_release(pos_prods);
    th_f64_release(cols);
    th_f64_release(pcols);
    th_f64_release(ncols);
    th_f64_release(npcols);

    /* the floating-only ops on float16 and bfloat16 (values that both hold exactly) */
    th_f64_tensor *halves = from_values(2, SZ(2, 3), (const double[]){0.5, -1, 2, 4, 0.25, -3});
    th_f16_tensor *h = th_f16_convert(th_f64_base(halves));
    th_bf16_tensor *b = th_bf16_convert(th_f64_base(halves));
    th_f16_tensor *hm = th_f16_mean_dim(h, 1, false);
    th_bf16_tensor *bn = th_bf16_norm_dim(b, 1, 0, true);
    th_f16_tensor *hv = th_f16_var_all(h, 0);
    th_bf16_tensor *bl = th_bf16_logsumexp_all(b);
    double want_mean[2] = {0.5, 1.25 / 3}, want_norm[3] = {4.5, 1.25, 5};
    CHECK(matches(th_f16_base(hm), 1, SZ(2), want_mean, 1e-3, "f16 mean_dim"));
    CHECK(matches(th_bf16_base(bn), 2, SZ(1, 3), want_norm, 1e-2, "bf16 norm_dim p=1 keepdim"));
    double vals[6] = {0.5, -1, 2, 4, 0.25, -3}, want_var = ref_run(R_VAR, vals, 6, 0);
    double want_lse = ref_run(R_LSE, vals, 6, 0);
    CHECK(matches(th_f16_base(hv), 0, NULL, &want_var, 1e-3, "f16 var_all"));
    CHECK(matches(th_bf16_base(bl), 0, NULL, &want_lse, 1e-2, "bf16 logsumexp_all"));
    th_f16_release(hm);
    th_bf16_release(bn);
    th_f16_release(hv);
    th_bf16_release(bl);
    th_f16_release(h);
    th_bf16_release(b);
    th_f64_release(halves);

    /* complex: both parts summed, nonzero means either part */
    th_c128_tensor *z = th_c128_empty(1, SZ(3));
    th_c128_data(z)[0] = 1 + 2 * I;
    th_c128_data(z)[1] = 0;
    th_c128_data(z)[2] = -3 * I;
    th_c128_tensor *zs = th_c128_sum_all(z), *zp = th_c128_prod_dim(z, 0, false), *zc = th_c128_cumsum(z, 0);
    CHECK(th_c128_data(zs)[0] == 1 - 1 * I);
    CHECK(th_c128_data(zp)[0] == 0);
    CHECK(th_c128_data(zc)[2] == 1 - 1 * I && th_c128_data(zc)[1] == 1 + 2 * I);
    th_bool_tensor *za = th_c128_all_all(z), *zn = th_c128_any_dim(z, 0, true);
    CHECK(th_bool_data(za)[0] == false && th_bool_data(zn)[0] == true && th_bool_ndim(zn) == 1);
    th_c128_release(zs);
    th_c128_release(zp);
    th_c128_release(zc);
    th_bool_release(za);
    th_bool_release(zn);
    th_c128_release(z);
}

/* Norms of complex tensors: of the magnitudes, in the real dtype of the same precision. */
static void test_complex_norm(void)
{
    th_c128_tensor *z = th_c128_empty(2, SZ(3, 700));
    double mags[3 * 700];
    for (int i = 0; i < 3 * 700; i++) {
        double re = rnd(), im = i % 7 ? rnd() : 0;
        th_c128_data(z)[i] = re + im * I;
        mags[i] = hypot(re, im);
    }
    th_c128_data(z)[5] = 0; /* a zero for p = 0 */
    mags[5] = 0;
    th_c64_tensor *z64 = th_c64_convert(th_c128_base(z));
    const double ps[] = {0, 1, 2, 3, 0.5, INFINITY, -INFINITY};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        double want0[700], want1[3], want_all = ref_run(R_NORM, mags, 3 * 700, ps[k]);
        ref_dim(R_NORM, mags, 2, SZ(3, 700), 0, ps[k], want0);
        ref_dim(R_NORM, mags, 2, SZ(3, 700), 1, ps[k], want1);
        th_f64_tensor *n0 = th_c128_norm_dim(z, ps[k], 0, false), *n1 = th_c128_norm_dim(z, ps[k], -1, true);
        th_f64_tensor *na = th_c128_norm_all(z, ps[k]);
        CHECK(matches(th_f64_base(n0), 1, SZ(700), want0, 1e-12, "c128 norm_dim 0"));
        CHECK(matches(th_f64_base(n1), 2, SZ(3, 1), want1, 1e-12, "c128 norm_dim -1 keepdim"));
        CHECK(matches(th_f64_base(na), 0, NULL, &want_all, 1e-12, "c128 norm_all"));
        th_f32_tensor *m0 = th_c64_norm_dim(z64, ps[k], 0, false), *ma = th_c64_norm_all(z64, ps[k]);
        th_f32_tensor *o1 = th_f32_empty(1, SZ(3));
        CHECK_INT_EQ(th_c64_norm_dim_out(o1, z64, ps[k], 1, false), TH_OK);
        CHECK(matches(th_f32_base(m0), 1, SZ(700), want0, 1e-5, "c64 norm_dim 0"));
        CHECK(matches(th_f32_base(o1), 1, SZ(3), want1, 1e-5, "c64 norm_dim_out 1"));
        CHECK(matches(th_f32_base(ma), 0, NULL, &want_all, 1e-5, "c64 norm_all"));
        th_f64_release(n0);
        th_f64_release(n1);
        th_f64_release(na);
        th_f32_release(m0);
        th_f32_release(ma);
        th_f32_release(o1);
    }
    th_f64_tensor *wrong = th_f64_empty(1, SZ(3));
    CHECK_FAILS(th_c64_norm_dim_out((th_f32_tensor *)wrong, z64, 2, 1, false), TH_ERR_DTYPE, "th_c64_norm_dim_out",
                "out is f64; this result is f32");
    CHECK_FAILS(th_c64_norm_dim_out(NULL, z64, 2, 1, false), TH_ERR_INVALID, "th_c64_norm_dim_out", "NULL out");
    CHECK_NULL(th_c128_norm_all(z, NAN), TH_ERR_INVALID, "th_c128_norm_all", "p is NaN");
    CHECK_NULL(th_c128_norm_all(NULL, 2), TH_ERR_INVALID, "th_c128_norm_all", "NULL tensor");
    CHECK_NULL(th_c128_norm_dim(z, 1, 2, false), TH_ERR_RANGE, "th_c128_norm_dim", "dim 2");
    th_c128_tensor *e = th_c128_empty(1, SZ(0));
    th_f64_tensor *e2 = th_c128_norm_all(e, 2);
    CHECK(e2 && th_f64_data(e2)[0] == 0);
    CHECK_NULL(th_c128_norm_all(e, -INFINITY), TH_ERR_SHAPE, "th_c128_norm_all", "size 0");
    th_f64_release(e2);
    th_c128_release(e);
    th_f64_release(wrong);
    th_c64_release(z64);
    th_c128_release(z);
}

/* Integer sums and products wrap modulo 2^bits, like the dtype's own arithmetic (no UB on the way). */
static void test_integer_wrap(void)
{
    th_i8_tensor *a = th_i8_full(1, SZ(3), 100);
    th_i8_tensor *s = th_i8_sum_all(a);
    CHECK_INT_EQ(th_i8_data(s)[0], (int8_t)(uint8_t)300u); /* 300 mod 256 = 44 */
    th_i8_tensor *c = th_i8_cumsum(a, 0);
    CHECK(th_i8_data(c)[0] == 100 && th_i8_data(c)[1] == -56 && th_i8_data(c)[2] == 44);
    th_i8_release(c);
    th_i8_release(s);
    th_i8_release(a);

    th_u8_tensor *u = th_u8_full(2, SZ(2, 2), 200);
    th_u8_tensor *us = th_u8_sum_dim(u, 0, false);
    CHECK(th_u8_data(us)[0] == 144 && th_u8_data(us)[1] == 144);
    th_u8_release(us);
    th_u8_release(u);

    th_i64_tensor *big = th_i64_full(1, SZ(2), INT64_MAX);
    th_i64_tensor *bs = th_i64_sum_all(big), *bp = th_i64_prod_all(big);
    CHECK(th_i64_data(bs)[0] == -2); /* 2 * (2^63 - 1) mod 2^64 */
    CHECK(th_i64_data(bp)[0] == 1);  /* (2^63 - 1)^2 = 2^126 - 2^64 + 1 */
    th_i64_release(bs);
    th_i64_release(bp);
    th_i64_release(big);

    th_i32_tensor *w = th_i32_full(2, SZ(2, 3), 65536);
    th_i32_tensor *wp = th_i32_prod_dim(w, 1, false), *wc = th_i32_cumprod(w, 1);
    CHECK(th_i32_data(wp)[0] == 0 && th_i32_data(wp)[1] == 0);
    CHECK(th_i32_data(wc)[0] == 65536 && th_i32_data(wc)[1] == 0);
    th_i32_release(wp);
    th_i32_release(wc);
    th_i32_release(w);
}

/* ---- 0-d, size 0, size 1 ------------------------------------------------------------------------- */

static void test_edges(void)
{
    th_f32_tensor *z = th_f32_full(0, NULL, 2.5f);
    th_f32_tensor *s = th_f32_sum_dim(z, -1, true);
    CHECK(s && th_f32_ndim(s) == 0 && th_f32_data(s)[0] == 2.5f);
    th_f32_release(s);
    th_i64_tensor *i = NULL;
    th_f32_tensor *m = th_f32_max_dim(z, 0, false, &i);
    CHECK(m && i && th_f32_data(m)[0] == 2.5f && th_i64_data(i)[0] == 0 && th_i64_ndim(i) == 0);
    th_f32_release(m);
    th_i64_release(i);
    th_f32_tensor *cs = th_f32_cumsum(z, 0);
    CHECK(cs && th_f32_ndim(cs) == 0 && th_f32_data(cs)[0] == 2.5f);
    th_f32_release(cs);
    CHECK_NULL(th_f32_sum_dim(z, 1, false), TH_ERR_RANGE, "th_f32_sum_dim", "dim 1 is out of range");

    /* identities over a size-0 dim */
    th_f32_tensor *e = th_f32_empty(2, SZ(3, 0));
    th_f32_tensor *es = th_f32_sum_dim(e, 1, false), *ep = th_f32_prod_dim(e, 1, true);
    th_f32_tensor *em = th_f32_mean_dim(e, 1, false), *el = th_f32_logsumexp_dim(e, 1, false);
    th_f32_tensor *en = th_f32_norm_dim(e, INFINITY, 1, false);
    th_bool_tensor *ea = th_f32_all_dim(e, 1, false), *eo = th_f32_any_dim(e, 1, false);
    CHECK(es && th_f32_numel(es) == 3 && th_f32_data(es)[2] == 0);
    CHECK(ep && th_f32_ndim(ep) == 2 && th_f32_data(ep)[1] == 1);
    CHECK(em && isnan(th_f32_data(em)[0]));
    CHECK(el && th_f32_data(el)[0] == -INFINITY);
    CHECK(en && th_f32_data(en)[0] == 0);
    CHECK(ea && th_bool_data(ea)[0] == true && eo && th_bool_data(eo)[0] == false);
    th_f32_tensor *ec = th_f32_cumsum(e, 1);
    CHECK(ec && th_f32_numel(ec) == 0 && th_f32_ndim(ec) == 2);
    /* reducing the size-3 dim of a 3x0 tensor is empty but fine, even for max */
    th_f32_tensor *em0 = th_f32_max_dim(e, 0, false, NULL);
    CHECK(em0 && th_f32_numel(em0) == 0 && th_f32_sizes(em0)[0] == 0);
    th_f32_release(em0);
    th_f32_release(es);
    th_f32_release(ep);
    th_f32_release(em);
    th_f32_release(el);
    th_f32_release(en);
    th_bool_release(ea);
    th_bool_release(eo);
    th_f32_release(ec);
    th_f32_release(e);
    th_f32_release(z);
}

/* ---- _out forms and aliasing ----------------------------------------------------------------------- */

static void test_out_and_aliasing(void)
{
    /* out is a column of a itself: a is read whole before it is written */
    th_f64_tensor *a = make_input(CONTIGUOUS, 2, SZ(4, 5));
    double *v = values_of(th_f64_base(a)), want[4];
    ref_dim(R_SUM, v, 2, SZ(4, 5), 1, 0, want);
    th_f64_tensor *col = th_f64_select(a, 1, 2);
    CHECK_INT_EQ(th_f64_sum_dim_out(col, a, 1, false), TH_OK);
    CHECK(matches(th_f64_base(col), 1, SZ(4), want, 1e-12, "sum_dim_out into a column of a"));
    th_f64_release(col);
    free(v);

    /* keepdim out; every _out of f64 */
    v = values_of(th_f64_base(a));
    double w5[5];
    th_f64_tensor *o = th_f64_empty(2, SZ(1, 5));
    const struct { rop op; int (*fn)(th_f64_tensor *, const th_f64_tensor *, int, bool); } outs[] = {
        {R_SUM, th_f64_sum_dim_out}, {R_PROD, th_f64_prod_dim_out}, {R_MEAN, th_f64_mean_dim_out},
        {R_LSE, th_f64_logsumexp_dim_out}};
    for (size_t k = 0; k < sizeof outs / sizeof outs[0]; k++) {
        ref_dim(outs[k].op, v, 2, SZ(4, 5), 0, 0, w5);
        CHECK_INT_EQ(outs[k].fn(o, a, -2, true), TH_OK);
        CHECK(matches(th_f64_base(o), 2, SZ(1, 5), w5, 1e-12, rop_names[outs[k].op]));
    }
    ref_dim(R_VAR, v, 2, SZ(4, 5), 0, 1, w5);
    CHECK_INT_EQ(th_f64_var_dim_out(o, a, 0, 1, true), TH_OK);
    CHECK(matches(th_f64_base(o), 2, SZ(1, 5), w5, 1e-12, "var_dim_out"));
    ref_dim(R_STD, v, 2, SZ(4, 5), 0, 1, w5);
    CHECK_INT_EQ(th_f64_std_dim_out(o, a, 0, 1, true), TH_OK);
    CHECK(matches(th_f64_base(o), 2, SZ(1, 5), w5, 1e-12, "std_dim_out"));
    ref_dim(R_NORM, v, 2, SZ(4, 5), 0, 3, w5);
    CHECK_INT_EQ(th_f64_norm_dim_out(o, a, 3, 0, true), TH_OK);
    CHECK(matches(th_f64_base(o), 2, SZ(1, 5), w5, 1e-12, "norm_dim_out"));
    th_bool_tensor *bo = th_bool_empty(1, SZ(5));
    ref_dim(R_ALL, v, 2, SZ(4, 5), 0, 0, w5);
    CHECK_INT_EQ(th_f64_all_dim_out(bo, a, 0, false), TH_OK);
    CHECK(matches(th_bool_base(bo), 1, SZ(5), w5, 0, "all_dim_out"));
    ref_dim(R_ANY, v, 2, SZ(4, 5), 0, 0, w5);
    CHECK_INT_EQ(th_f64_any_dim_out(bo, a, 0, false), TH_OK);
    CHECK(matches(th_bool_base(bo), 1, SZ(5), w5, 0, "any_dim_out"));
    th_i64_tensor *io = th_i64_empty(1, SZ(5));
    ref_dim(R_ARGMAX, v, 2, SZ(4, 5), 0, 0, w5);
    CHECK_INT_EQ(th_f64_argmax_dim_out(io, a, 0, false), TH_OK);
    CHECK(matches(th_i64_base(io), 1, SZ(5), w5, 0, "argmax_dim_out"));
    th_i64_release(io);
    th_bool_release(bo);
    th_f64_release(o);

    /* cumsum and cumprod in place (out is a) and into a transposed out */
    double ws[20], wp[20];
    for (int r = 0; r < 4; r++)
        for (int j = 0; j < 5; j++) {
            ws[r * 5 + j] = v[r * 5 + j] + (j ? ws[r * 5 + j - 1] : 0);
            wp[r * 5 + j] = v[r * 5 + j] * (j ? wp[r * 5 + j - 1] : 1);
        }
    th_f64_tensor *base = th_f64_empty(2, SZ(5, 4));
    th_f64_tensor *tout = th_f64_transpose(base, 0, 1);
    CHECK_INT_EQ(th_f64_cumprod_out(tout, a, 1), TH_OK);
    CHECK(matches(th_f64_base(tout), 2, SZ(4, 5), wp, 1e-12, "cumprod_out transposed"));
    CHECK_INT_EQ(th_f64_cumsum_out(a, a, -1), TH_OK);
    CHECK(matches(th_f64_base(a), 2, SZ(4, 5), ws, 1e-12, "cumsum_out in place"));
    th_f64_release(tout);
    th_f64_release(base);
    free(v);
    th_f64_release(a);
}

/* ---- errors ----------------------------------------------------------------------------------------- */

static void test_errors(void)
{
    th_f32_tensor *a = th_f32_ones(2, SZ(3, 4));
    th_f32_tensor *out = th_f32_empty(1, SZ(3));
    CHECK_NULL(th_f32_sum_all(NULL), TH_ERR_INVALID, "th_f32_sum_all", "NULL tensor");
    CHECK_NULL(th_f32_sum_dim(NULL, 0, false), TH_ERR_INVALID, "th_f32_sum_dim", "NULL tensor");
    CHECK_NULL(th_f32_cumsum(NULL, 0), TH_ERR_INVALID, "th_f32_cumsum", "NULL tensor");
    CHECK_NULL(th_f32_argmax_all(NULL), TH_ERR_INVALID, "th_f32_argmax_all", "NULL tensor");
    CHECK_FAILS(th_f32_sum_dim_out(NULL, a, 1, false), TH_ERR_INVALID, "th_f32_sum_dim_out", "NULL out");
    CHECK_FAILS(th_f32_cumsum_out(NULL, a, 1), TH_ERR_INVALID, "th_f32_cumsum_out", "NULL out");
    CHECK_FAILS(th_f32_max_dim_out(NULL, NULL, a, 1, false), TH_ERR_INVALID, "th_f32_max_dim_out", "NULL out");
    CHECK_FAILS(th_f32_argmin_dim_out(NULL, a, 1, false), TH_ERR_INVALID, "th_f32_argmin_dim_out", "NULL out");
    CHECK_FAILS(th_f32_sum_dim_out(out, NULL, 1, false), TH_ERR_INVALID, "th_f32_sum_dim_out", "NULL tensor");

    /* dims out of range, both ways */
    CHECK_NULL(th_f32_sum_dim(a, 2, false), TH_ERR_RANGE, "th_f32_sum_dim", "dim 2 is out of range");
    CHECK_NULL(th_f32_max_dim(a, -3, false, NULL), TH_ERR_RANGE, "th_f32_max_dim", "dim -3 is out of range");
    CHECK_NULL(th_f32_cumprod(a, 5), TH_ERR_RANGE, "th_f32_cumprod", "dim 5");
    CHECK_NULL(th_f32_argmax_dim(a, INT32_MIN, false), TH_ERR_RANGE, "th_f32_argmax_dim", "out of range");
    th_i64_tensor *idx = (th_i64_tensor *)a; /* a value the call must overwrite with NULL */
    CHECK_NULL(th_f32_min_dim(a, 7, false, &idx), TH_ERR_RANGE, "th_f32_min_dim", "dim 7");
    CHECK(idx == NULL);

    /* outs of the wrong shape or dtype; a self-overlapping out; a read-only out */
    CHECK_FAILS(th_f32_sum_dim_out(out, a, 0, false), TH_ERR_SHAPE, "th_f32_sum_dim_out", "out has shape (3)");
    CHECK_FAILS(th_f32_sum_dim_out(out, a, 1, true), TH_ERR_SHAPE, "th_f32_sum_dim_out", "the result has shape (3, 1)");
    CHECK_FAILS(th_f32_cumsum_out(out, a, 1), TH_ERR_SHAPE, "th_f32_cumsum_out", "(3, 4)");
    th_u8_tensor *u = th_u8_empty(1, SZ(3));
    CHECK_FAILS(th_f32_all_dim_out((th_bool_tensor *)u, a, 1, false), TH_ERR_DTYPE, "th_f32_all_dim_out",
                "out is u8; this result is bool");
    CHECK_FAILS(th_f32_argmax_dim_out((th_i64_tensor *)u, a, 1, false), TH_ERR_DTYPE, "th_f32_argmax_dim_out",
                "this result is i64");
    th_i64_tensor *wrong_idx = th_i64_empty(1, SZ(4));
    CHECK_FAILS(th_f32_max_dim_out(out, wrong_idx, a, 1, false), TH_ERR_SHAPE, "th_f32_max_dim_out",
                "out has shape (4)");
    th_i64_release(wrong_idx);
    th_u8_release(u);
    th_f32_tensor *one = th_f32_empty(1, SZ(1));
    th_f32_tensor *overlapping = th_f32_expand(one, 1, SZ(3));
    CHECK_FAILS(th_f32_sum_dim_out(overlapping, a, 1, false), TH_ERR_INVALID, "th_f32_sum_dim_out", "overlaps");
    th_f32_release(overlapping);
    th_f32_release(one);
    th_storage_make_read_only(th_f32_storage(out));
    CHECK_FAILS(th_f32_mean_dim_out(out, a, 1, false), TH_ERR_READ_ONLY, "th_f32_mean_dim_out", "read-only");

    /* no identity: min, max and their indices over nothing; norm -inf */
    th_f32_tensor *e = th_f32_empty(2, SZ(2, 0));
    CHECK_NULL(th_f32_max_dim(e, 1, false, NULL), TH_ERR_SHAPE, "th_f32_max_dim", "dim 1 of size 0 (shape (2, 0))");
    CHECK_NULL(th_f32_argmin_dim(e, -1, true), TH_ERR_SHAPE, "th_f32_argmin_dim", "size 0");
    CHECK_NULL(th_f32_min_all(e), TH_ERR_SHAPE, "th_f32_min_all", "shape (2, 0) with no elements");
    CHECK_NULL(th_f32_argmax_all(e), TH_ERR_SHAPE, "th_f32_argmax_all", "no identity");
    CHECK_NULL(th_f32_norm_all(e, -INFINITY), TH_ERR_SHAPE, "th_f32_norm_all", "no identity");
    CHECK_NULL(th_i32_max_dim(NULL, 0, false, NULL), TH_ERR_INVALID, "th_i32_max_dim",
               "NULL tensor");
    th_f32_tensor *eo = th_f32_empty(1, SZ(2));
    CHECK_FAILS(th_f32_min_dim_out(eo, NULL, e, 1, false), TH_ERR_SHAPE, "th_f32_min_dim_out", "size 0");
    th_f32_release(eo);
    /* max and min of nothing: every dtype kind, the new and out forms; a refused out keeps its value */
    CHECK_NULL(th_f32_max_all(e), TH_ERR_SHAPE, "th_f32_max_all",
               "cannot reduce a tensor of shape (2, 0) with no elements: the op has no identity");
    th_i32_tensor *ie = th_i32_empty(1, SZ(0));
    CHECK_NULL(th_i32_min_all(ie), TH_ERR_SHAPE, "th_i32_min_all",
               "cannot reduce a tensor of shape (0) with no elements: the op has no identity");
    th_u8_tensor *ue = th_u8_empty(3, SZ(0, 3, 2));
    CHECK_NULL(th_u8_max_all(ue), TH_ERR_SHAPE, "th_u8_max_all", "shape (0, 3, 2) with no elements");
    th_i32_tensor *io = th_i32_full(0, NULL, 7);
    CHECK_FAILS(th_i32_min_all_out(io, ie), TH_ERR_SHAPE, "th_i32_min_all_out", "no identity");
    CHECK_INT_EQ(th_i32_data(io)[0], 7);
    th_f32_tensor *fo = th_f32_full(0, NULL, 7);
    CHECK_FAILS(th_f32_max_all_out(fo, e), TH_ERR_SHAPE, "th_f32_max_all_out", "no identity");
    CHECK(th_f32_data(fo)[0] == 7);
    th_f32_release(fo);
    th_i32_release(io);
    th_u8_release(ue);
    th_i32_release(ie);
    th_f32_release(e);

    /* bad parameters */
    CHECK_NULL(th_f32_var_all(a, -1), TH_ERR_INVALID, "th_f32_var_all", "correction -1 is negative");
    CHECK_NULL(th_f64_std_dim(NULL, 0, -2, false), TH_ERR_INVALID, "th_f64_std_dim", "correction -2");
    CHECK_FAILS(th_f32_var_dim_out(out, a, 1, -1, false), TH_ERR_INVALID, "th_f32_var_dim_out", "negative");
    CHECK_NULL(th_f32_norm_dim(a, NAN, 0, false), TH_ERR_INVALID, "th_f32_norm_dim", "p is NaN");
    CHECK_FAILS(th_f32_norm_dim_out(out, a, NAN, 1, false), TH_ERR_INVALID, "th_f32_norm_dim_out", "NaN");

    /* out of memory on the result, and on the copy of an overlapping input; nothing leaks */
    th_counting_allocator_fail_after(check_counter, 1);
    CHECK_NULL(th_f32_sum_all(a), TH_ERR_NOMEM, "th_f32_sum_all", "");
    CHECK_NULL(th_f32_sum_dim(a, 0, false), TH_ERR_NOMEM, "th_f32_sum_dim", "");
    th_i64_tensor *oom_idx = NULL;
    CHECK_NULL(th_f32_max_dim(a, 0, false, &oom_idx), TH_ERR_NOMEM, "th_f32_max_dim", "");
    CHECK_NULL(th_f32_cumsum(a, 0), TH_ERR_NOMEM, "th_f32_cumsum", "");
    th_counting_allocator_fail_after(check_counter, 2); /* the values succeed, the indices fail */
    CHECK_NULL(th_f32_max_dim(a, 0, false, &oom_idx), TH_ERR_NOMEM, "th_f32_max_dim", "");
    CHECK(oom_idx == NULL);
    th_counting_allocator_fail_after(check_counter, 0);
    th_f32_tensor *col = th_f32_select(a, 1, 0);
    th_counting_allocator_fail_after(check_counter, 1);
    CHECK_FAILS(th_f32_sum_dim_out(col, a, 1, false), TH_ERR_NOMEM, "th_f32_sum_dim_out", "");
    th_counting_allocator_fail_after(check_counter, 0);
    th_f32_release(col);
    th_f32_release(out);
    th_f32_release(a);
}

/* Host memory labelled as CUDA device memory: never read, never written. */
static void test_device_memory(void)
{
    float mem[8];
    for (int k = 0; k < 8; k++) mem[k] = -1.0f;
    th_storage *ds = th_storage_from_blob(mem, sizeof mem, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    th_f32_tensor *d = th_f32_new_with_storage(ds, 0, 2, SZ(2, 4), NULL);
    th_storage_release(ds);
    th_f32_tensor *h = th_f32_ones(2, SZ(2, 4));
    th_f32_tensor *dcol = th_f32_select(d, 1, 0);
    CHECK_NULL(th_f32_sum_all(d), TH_ERR_DEVICE, "th_f32_sum_all", "device type 2");
    CHECK_NULL(th_f32_max_dim(d, 1, false, NULL), TH_ERR_DEVICE, "th_f32_max_dim", "device type 2");
    CHECK_NULL(th_f32_argmax_all(d), TH_ERR_DEVICE, "th_f32_argmax_all", "device");
    CHECK_NULL(th_f32_cumsum(d, 0), TH_ERR_DEVICE, "th_f32_cumsum", "device type 2");
    CHECK_FAILS(th_f32_sum_dim_out(dcol, h, 1, false), TH_ERR_DEVICE, "th_f32_sum_dim_out", "out is on device");
    CHECK_FAILS(th_f32_cumprod_out(d, h, 1), TH_ERR_DEVICE, "th_f32_cumprod_out", "out is on device");
    for (int k = 0; k < 8; k++) CHECK(mem[k] == -1.0f);
    th_f32_release(dcol);
    th_f32_release(h);
    th_f32_release(d);
}

/* ---- accuracy and threads ------------------------------------------------------------------------------ */

/* The sum of 16M float32 values against a compensated double reference: within NumPy's pairwise bound
 * (here far inside it: float32 accumulates in double), where a plain float loop is far outside it. */
static void test_accuracy(void)
{
    const int64_t n = 16 * 1024 * 1024;
    th_f32_tensor *t = th_f32_empty(1, SZ(n));
    float *x = th_f32_data(t);
    for (int64_t i = 0; i < n; i++) x[i] = (float)(rnd() + 2.5); /* positive: no cancellation */
    double ref = 0, comp = 0, abs_sum = 0;
    float naive = 0;
    for (int64_t i = 0; i < n; i++) { /* Kahan-Babuska in double */
        double y = (double)x[i], s = ref + y;
        comp += fabs(ref) >= fabs(y) ? (ref - s) + y : (y - s) + ref;
        ref = s;
        abs_sum += fabs(y);
        naive += x[i];
    }
    ref += comp;
    const double eps32 = 1.0 / 16777216.0;
    const double numpy_bound = eps32 * log2((double)n) * abs_sum; /* pairwise: O(eps log n) */
    th_f32_tensor *s = th_f32_sum_all(t);
    double err = fabs((double)th_f32_data(s)[0] - ref);
    CHECK(err <= numpy_bound);
    CHECK(err <= eps32 * fabs(ref)); /* in fact: the correctly rounded sum, give or take half an ulp */
    CHECK(fabs((double)naive - ref) > numpy_bound); /* the bound is tight enough to catch a plain loop */
    th_f32_release(s);
    /* the same through the dim kernels: a long inner run, and a long outer dim */
    th_f32_tensor *rows = th_f32_view(t, 2, SZ(2, n / 2)), *cols = th_f32_view(t, 2, SZ(n / 2, 2));
    th_f32_tensor *rs = th_f32_sum_dim(rows, 1, false), *cs = th_f32_sum_dim(cols, 0, false);
    double r0 = 0, r1 = 0, c0 = 0, c1 = 0;
    for (int64_t i = 0; i < n / 2; i++) {
        r0 += x[i];
        r1 += x[n / 2 + i];
        c0 += x[2 * i];
        c1 += x[2 * i + 1];
    }
    CHECK(fabs(th_f32_data(rs)[0] - r0) <= 1e-6 * r0 && fabs(th_f32_data(rs)[1] - r1) <= 1e-6 * r1);
    CHECK(fabs(th_f32_data(cs)[0] - c0) <= 1e-6 * c0 && fabs(th_f32_data(cs)[1] - c1) <= 1e-6 * c1);
    th_f32_release(rs);
    th_f32_release(cs);
    th_f32_release(rows);
    th_f32_release(cols);
    th_f32_release(t);
}

static bool same_bytes(const th_tensor *ta, const th_tensor *tb)
{
    if (!ta || !tb || th_tensor_numel(ta) != th_tensor_numel(tb)) return false;
    size_t nbytes = (size_t)th_tensor_numel(ta) * th_dtype_info(th_tensor_dtype(ta))->size;
    return memcmp(th_tensor_data(ta), th_tensor_data(tb), nbytes) == 0;
}

/* Results for 1 and 2 threads: integer results and dim reductions identical; float full reductions
 * identical run to run for one count (and close across counts). */
static void test_threads(void)
{
    const int saved = th_get_num_threads();
    th_f32_tensor *f = th_f32_empty(2, SZ(512, 1024));
    th_i32_tensor *iv = th_i32_empty(2, SZ(512, 1024));
    for (int64_t i = 0; i < 512 * 1024; i++) {
        th_f32_data(f)[i] = (float)rnd();
        th_i32_data(iv)[i] = (int32_t)(rnd() * 1e9);
    }
    th_tensor *r[2][8] = {{NULL}};
    int runs = 0;
    for (int threads = 1; threads <= 2; threads++) {
        if (!test_set_threads(threads)) break;
        runs = threads;
        th_tensor **q = r[threads - 1];
        q[0] = th_i32_base(th_i32_sum_all(iv));
        q[1] = th_i32_base(th_i32_sum_dim(iv, 0, false));
        q[2] = th_f32_base(th_f32_sum_dim(f, 0, false));
        q[3] = th_f32_base(th_f32_sum_dim(f, 1, false));
        q[4] = th_f32_base(th_f32_sum_all(f));
        q[5] = th_i64_base(th_f32_argmax_all(f));
        q[6] = th_f32_base(th_f32_var_dim(f, 1, 1, false));
        q[7] = th_f32_base(th_f32_sum_all(f)); /* again: the same count gives the same bits */
        CHECK(same_bytes(q[4], q[7]));
    }
    if (runs == 2) {
        for (int k = 0; k < 7; k++)
            if (k != 4) CHECK(same_bytes(r[0][k], r[1][k]));
        CHECK(fabs(th_f32_data((th_f32_tensor *)r[0][4])[0] - th_f32_data((th_f32_tensor *)r[1][4])[0]) <= 1e-3);
    }
    for (int t = 0; t < runs; t++)
        for (int k = 0; k < 8; k++) th_tensor_release(r[t][k]);
    th_set_num_threads(saved);
    th_f32_release(f);
    th_i32_release(iv);
}

/* The _all_out forms write the same value as the new-tensor forms into a 0-d out, which may be a slice of
 * the input (every element is read before out is written), and refuse a bad out before writing. */
static void test_all_out(void)
{
    th_f64_tensor *a = make_input(TRANSPOSED, 2, SZ(5, 7));
    th_f64_tensor *o = th_f64_zeros(0, NULL);
    th_i64_tensor *oi = th_i64_zeros(0, NULL);
    th_bool_tensor *ob = th_bool_zeros(0, NULL);
    struct {
        const char *name;
        th_f64_tensor *(*fresh)(const th_f64_tensor *);
        int (*into)(th_f64_tensor *, const th_f64_tensor *);
    } plain[] = {
        {"sum", th_f64_sum_all, th_f64_sum_all_out},         {"prod", th_f64_prod_all, th_f64_prod_all_out},
        {"mean", th_f64_mean_all, th_f64_mean_all_out},      {"logsumexp", th_f64_logsumexp_all, th_f64_logsumexp_all_out},
        {"max", th_f64_max_all, th_f64_max_all_out},         {"min", th_f64_min_all, th_f64_min_all_out},
    };
    for (size_t k = 0; k < sizeof plain / sizeof plain[0]; k++) {
        th_f64_tensor *want = plain[k].fresh(a);
        CHECK_INT_EQ(plain[k].into(o, a), TH_OK);
        if (!want || th_f64_data(o)[0] != th_f64_data(want)[0])
            fprintf(stderr, "test_all_out: %s differs\n", plain[k].name);
        CHECK(want && th_f64_data(o)[0] == th_f64_data(want)[0]);
        th_release(want);
    }
    th_f64_tensor *want = th_f64_var_all(a, 1);
    CHECK(th_f64_var_all_out(o, a, 1) == TH_OK && th_f64_data(o)[0] == th_f64_data(want)[0]);
    th_release(want);
    want = th_f64_std_all(a, 0);
    CHECK(th_f64_std_all_out(o, a, 0) == TH_OK && th_f64_data(o)[0] == th_f64_data(want)[0]);
    th_release(want);
    want = th_f64_norm_all(a, 3.0);
    CHECK(th_f64_norm_all_out(o, a, 3.0) == TH_OK && th_f64_data(o)[0] == th_f64_data(want)[0]);
    th_release(want);
    th_i64_tensor *wi = th_f64_argmax_all(a);
    CHECK(th_f64_argmax_all_out(oi, a) == TH_OK && th_i64_data(oi)[0] == th_i64_data(wi)[0]);
    th_release(wi);
    wi = th_f64_argmin_all(a);
    CHECK(th_f64_argmin_all_out(oi, a) == TH_OK && th_i64_data(oi)[0] == th_i64_data(wi)[0]);
    th_release(wi);
    CHECK(th_f64_all_all_out(ob, a) == TH_OK && th_bool_data(ob)[0]);
    CHECK(th_f64_any_all_out(ob, a) == TH_OK && th_bool_data(ob)[0]);

    /* out is an element of a itself: the sum still sees the old value there. */
    th_f64_tensor *c = th_f64_contiguous(a);
    th_f64_tensor *sum = th_f64_sum_all(c);
    th_f64_tensor *row0 = th_f64_select(c, 0, 0);
    th_f64_tensor *slot = th_f64_select(row0, 0, 0);
    CHECK_INT_EQ(th_f64_sum_all_out(slot, c), TH_OK);
    CHECK(th_f64_data(c)[0] == th_f64_data(sum)[0]);
    th_release(slot);
    th_release(row0);
    th_release(sum);
    th_release(c);

    /* A complex norm into a real out. */
    th_c64_tensor *z = th_c64_full(1, SZ(4), 0);
    for (int i = 0; i < 4; i++) th_c64_data(z)[i] = (float)i + 0.0f * I;
    th_f32_tensor *zo = th_f32_zeros(0, NULL);
    CHECK(th_c64_norm_all_out(zo, z, 1.0) == TH_OK && th_f32_data(zo)[0] == 6.0f);
    CHECK_FAILS(th_c64_norm_all_out(NULL, z, 1.0), TH_ERR_INVALID, "th_c64_norm_all_out", "NULL out");
    th_release(zo);
    th_release(z);

    /* Errors, with out untouched. */
    th_f64_data(o)[0] = 42;
    CHECK_FAILS(th_f64_sum_all_out(NULL, a), TH_ERR_INVALID, "th_f64_sum_all_out", "NULL out");
    CHECK_FAILS(th_f64_sum_all_out(o, NULL), TH_ERR_INVALID, "th_f64_sum_all_out", "NULL");
    th_f64_tensor *one = th_f64_zeros(1, SZ(1));
    CHECK_FAILS(th_f64_mean_all_out(one, a), TH_ERR_SHAPE, "th_f64_mean_all_out", "shape ()");
    CHECK_FAILS(th_f64_sum_all_out((th_f64_tensor *)oi, a), TH_ERR_DTYPE, "th_f64_sum_all_out", "out is i64");
    CHECK_FAILS(th_f64_argmax_all_out((th_i64_tensor *)o, a), TH_ERR_DTYPE, "th_f64_argmax_all_out", "out is f64");
    CHECK_FAILS(th_f64_var_all_out(o, a, -1), TH_ERR_INVALID, "th_f64_var_all_out", "correction -1");
    CHECK_FAILS(th_f64_norm_all_out(o, a, NAN), TH_ERR_INVALID, "th_f64_norm_all_out", "NaN");
    th_f64_tensor *empty = th_f64_empty(2, SZ(3, 0));
    CHECK_FAILS(th_f64_max_all_out(o, empty), TH_ERR_SHAPE, "th_f64_max_all_out", "no elements");
    CHECK(th_f64_data(o)[0] == 42);
    th_release(empty);
    th_release(one);
    th_release(a);
    th_release(o);
    th_release(oi);
    th_release(ob);
}

/* Complex mean: the complex sum over n, along a dim and over everything, into new tensors and outs. */
static void test_complex_mean(void)
{
    th_c128_tensor *z = th_c128_empty(2, SZ(3, 4));
    for (int i = 0; i < 12; i++) th_c128_data(z)[i] = __builtin_complex((double)i, (double)(-2 * i));
    th_c128_tensor *all = th_c128_mean_all(z), *rows = th_c128_mean_dim(z, 1, false);
    th_c128_tensor *cols = th_c128_mean_dim(z, 0, true);
    CHECK(all && creal(th_c128_data(all)[0]) == 5.5 && cimag(th_c128_data(all)[0]) == -11.0);
    CHECK(rows && th_c128_numel(rows) == 3 && creal(th_c128_data(rows)[2]) == 9.5 && cimag(th_c128_data(rows)[2]) == -19);
    CHECK(cols && th_c128_size(cols, 0) == 1 && creal(th_c128_data(cols)[3]) == 7 && cimag(th_c128_data(cols)[3]) == -14);
    th_c128_tensor *zt = th_c128_transpose(z, 0, 1); /* (4, 3): the outer-dim path */
    th_c128_tensor *o = th_c128_zeros(1, SZ(3));
    CHECK_INT_EQ(th_c128_mean_dim_out(o, zt, 0, false), TH_OK);
    CHECK(creal(th_c128_data(o)[1]) == 5.5 && cimag(th_c128_data(o)[1]) == -11);
    th_c128_tensor *o0 = th_c128_zeros(0, NULL);
    CHECK_INT_EQ(th_c128_mean_all_out(o0, zt), TH_OK);
    CHECK(creal(th_c128_data(o0)[0]) == 5.5);
    th_c64_tensor *f = th_c64_full(1, SZ(5), 0);
    for (int i = 0; i < 5; i++) th_c64_data(f)[i] = __builtin_complex(1.0f, (float)i);
    th_c64_tensor *fm = th_c64_mean_all(f);
    CHECK(fm && crealf(th_c64_data(fm)[0]) == 1.0f && cimagf(th_c64_data(fm)[0]) == 2.0f);
    th_c64_tensor *e = th_c64_empty(1, SZ(0));
    th_c64_tensor *em = th_c64_mean_all(e);
    CHECK(em && isnan(crealf(th_c64_data(em)[0])) && isnan(cimagf(th_c64_data(em)[0])));
    CHECK_NULL(th_c64_mean_dim(f, 1, false), TH_ERR_RANGE, "th_c64_mean_dim", "dim 1");
    th_release(em);
    th_release(e);
    th_release(fm);
    th_release(f);
    th_release(o0);
    th_release(o);
    th_release(zt);
    th_release(cols);
    th_release(rows);
    th_release(all);
    th_release(z);
}

int main(void)
{
    test_begin();
    test_ops_against_loops();
    test_nan();
    test_values_and_indices();
    test_every_dtype();
    test_complex_norm();
    test_integer_wrap();
    test_edges();
    test_out_and_aliasing();
    test_errors();
    test_device_memory();
    test_accuracy();
    test_threads();
    test_all_out();
    test_complex_mean();
    return test_end("test_reduce");
}
