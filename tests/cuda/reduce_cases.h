/* tests/cuda/reduce_cases.h: what the two tests of the device reductions share: the ops and dtypes, inputs
 * whose reductions say something (ties, NaNs, wrap-around, exact products), tensors in random layouts, every
 * reduction called through its typed name (so the same call reduces a CPU tensor on the CPU and a CUDA tensor
 * on the GPU), the companion's driver run on the host (cuda/reduce_plan.c over host memory, each level's
 * threads a loop over th__cuda_red_step), and the comparison with the CPU's result and its stated bound.
 * test_cuda_reduce.c uses it without a GPU, test_cuda_reduce_device.c with one. */
#ifndef TH_TESTS_CUDA_REDUCE_CASES_H
#define TH_TESTS_CUDA_REDUCE_CASES_H

#include "tensor.h"
#include "../check.h"
#include "../../cuda/reduce_plan.h"

#include <math.h>
#include <stdlib.h>

enum { ALL_DIMS = -100 }; /* the _all forms, as a dim argument here */

static uint64_t rc_rng = 0x2545f4914f6cdd1du;
static inline uint64_t rc_next(void)
{
    rc_rng ^= rc_rng << 13;
    rc_rng ^= rc_rng >> 7;
    rc_rng ^= rc_rng << 17;
    return rc_rng;
}
static inline int64_t rc_below(int64_t n) { return (int64_t)(rc_next() % (uint64_t)n); }

/* ---- ops and dtypes ---- */

typedef enum { RC_BOOL_OPS, RC_INT_OPS, RC_FLOAT_OPS } rc_kind;

typedef struct rc_op {
    const char *name;
    rc_kind needs; /* the least kind of dtype it exists for */
    double p;      /* norm */
    int64_t corr;  /* var, std */
    bool scan;
} rc_op;

static const rc_op rc_ops[] = {
    {"max", RC_BOOL_OPS, 0, 0, false},       {"min", RC_BOOL_OPS, 0, 0, false},
    {"argmax", RC_BOOL_OPS, 0, 0, false},    {"argmin", RC_BOOL_OPS, 0, 0, false},
    {"all", RC_BOOL_OPS, 0, 0, false},       {"any", RC_BOOL_OPS, 0, 0, false},
    {"sum", RC_INT_OPS, 0, 0, false},        {"prod", RC_INT_OPS, 0, 0, false},
    {"cumsum", RC_INT_OPS, 0, 0, true},      {"cumprod", RC_INT_OPS, 0, 0, true},
    {"mean", RC_FLOAT_OPS, 0, 0, false},     {"var", RC_FLOAT_OPS, 0, 1, false},
    {"var", RC_FLOAT_OPS, 0, 0, false},      {"std", RC_FLOAT_OPS, 0, 1, false},
    {"std", RC_FLOAT_OPS, 0, 7, false},      {"logsumexp", RC_FLOAT_OPS, 0, 0, false},
    {"norm", RC_FLOAT_OPS, 0.0, 0, false},   {"norm", RC_FLOAT_OPS, 1.0, 0, false},
    {"norm", RC_FLOAT_OPS, 2.0, 0, false},   {"norm", RC_FLOAT_OPS, 3.5, 0, false},
    {"norm", RC_FLOAT_OPS, -1.0, 0, false},  {"norm", RC_FLOAT_OPS, INFINITY, 0, false},
    {"norm", RC_FLOAT_OPS, -INFINITY, 0, false},
};
enum { RC_NOPS = (int)(sizeof rc_ops / sizeof rc_ops[0]) };

static const th_dtype rc_dtypes[] = {TH_BOOL, TH_U8, TH_I8, TH_I16, TH_I32, TH_I64, TH_F16, TH_BF16, TH_F32, TH_F64};
enum { RC_NDTYPES = (int)(sizeof rc_dtypes / sizeof rc_dtypes[0]) };

static inline rc_kind rc_kind_of(th_dtype dt)
{
    if (dt == TH_BOOL) return RC_BOOL_OPS;
    return dt == TH_F16 || dt == TH_BF16 || dt == TH_F32 || dt == TH_F64 ? RC_FLOAT_OPS : RC_INT_OPS;
}

static inline bool rc_is(const rc_op *op, const char *name) { return strcmp(op->name, name) == 0; }

/* Ops without an identity refuse empty runs (the core checks it before any companion is asked). */
static inline bool rc_has_identity(const rc_op *op)
{
    if (rc_is(op, "norm")) return op->p != -INFINITY;
    return !(rc_is(op, "max") || rc_is(op, "min") || rc_is(op, "argmax") || rc_is(op, "argmin"));
}

/* Whether the device's result must equal the CPU's exactly: integers, bools, indices, extremes (the elements
 * themselves), scans (the same operations in the same order), and products of powers of two (exact in any
 * order; the inputs of prod are such). */
static inline bool rc_exact(const rc_op *op, th_dtype dt)
{
    if (rc_kind_of(dt) != RC_FLOAT_OPS || op->scan || rc_is(op, "prod")) return true;
    if (rc_is(op, "norm")) return op->p == INFINITY || op->p == -INFINITY;
    return rc_is(op, "max") || rc_is(op, "min") || rc_is(op, "argmax") || rc_is(op, "argmin") || rc_is(op, "all") ||
           rc_is(op, "any");
}

/* Whether the device's result may use exp, log or pow, whose last bits differ between glibc and CUDA. */
static inline bool rc_transcendental(const rc_op *op)
{
    return rc_is(op, "logsumexp") || (rc_is(op, "norm") && op->p != 0.0 && op->p != 1.0 && op->p != 2.0 &&
                                      op->p != INFINITY && op->p != -INFINITY);
}

/* ---- values ---- */

/* n values for a tensor of dt (made that dtype by the library's own conversion, so f16 and bf16 get their
 * rounding): small integers (ties, and sums that wrap in 8 bits), multiples of 1/64 with a NaN now and then
 * (nan_every > 0), or for prod +-1 with a rare +-2 or +-1/2 (floating: exact products). */
static inline void rc_fill(th_dtype dt, double *v, int64_t n, bool for_prod, int nan_every)
{
    for (int64_t i = 0; i < n; i++) {
        if (for_prod) {
            /* as many halvings as doublings: the running product's exponent stays far inside float's range */
            const int64_t r = rc_below(32);
            v[i] = r == 0 ? 2.0 : r == 1 ? 0.5 : r == 2 ? -2.0 : r == 3 ? -0.5 : (r & 1) ? -1.0 : 1.0;
            if (rc_kind_of(dt) != RC_FLOAT_OPS) v[i] = r < 3 ? (double)(rc_below(5) - 2) : v[i] > 0 ? 1.0 : -1.0;
        } else if (rc_kind_of(dt) == RC_FLOAT_OPS) {
            v[i] = (double)(rc_below(2001) - 1000) / 64.0;
            if (nan_every > 0 && rc_below(nan_every) == 0) v[i] = NAN;
        } else {
            v[i] = (double)(rc_below(201) - 100);
            if (dt == TH_BOOL) v[i] = rc_below(8) != 0;
        }
    }
}

/* A host tensor of dt and shape holding the values of src (same shape; NULL: fresh values), laid out
 * contiguously (layout 0) or at random: dims permuted in memory, stepped by 1 or 2, a third of them flipped. */
static inline th_tensor *rc_tensor(th_dtype dt, int ndim, const int64_t *sizes, const th_tensor *src, int layout,
                            bool for_prod, int nan_every)
{
    int64_t strides[TH_MAX_DIMS], step = 1, offset = 0, need = 1;
    int perm[TH_MAX_DIMS];
    for (int k = 0; k < ndim; k++) perm[k] = k;
    for (int k = ndim - 1; layout && k > 0; k--) {
        const int j = (int)rc_below(k + 1), t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    for (int k = ndim - 1; k >= 0; k--) {
        const int d = perm[k];
        strides[d] = step * (layout ? 1 + rc_below(2) : 1);
        step = strides[d] * (sizes[d] > 0 ? sizes[d] : 1);
    }
    for (int k = 0; k < ndim; k++) {
        const int64_t ext = sizes[k] > 0 ? sizes[k] - 1 : 0;
        if (layout && rc_below(3) == 0) {
            offset += strides[k] * ext;
            strides[k] = -strides[k];
        }
        need += llabs(strides[k]) * ext;
    }
    const int64_t es = (int64_t)th_dtype_info(dt)->size;
    th_storage *st = th_storage_new(need * es, NULL, NULL);
    memset(th_storage_raw_data(st), 0, (size_t)(need * es));
    th_tensor *t = th_tensor_new_with_storage(dt, st, offset, ndim, sizes, strides);
    th_storage_release(st);
    if (src) {
        th_tensor_copy(t, src);
        return t;
    }
    int64_t n = th_tensor_numel(t);
    double *vals = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    rc_fill(dt, vals, n, for_prod, nan_every);
    th_storage *vs = th_storage_from_blob(vals, (size_t)n * sizeof(double), (th_device){TH_DEVICE_CPU, 0}, NULL, NULL);
    th_tensor *v = th_tensor_new_with_storage(TH_F64, vs, 0, ndim, sizes, NULL);
    th_storage_release(vs);
    th_tensor_copy(t, v);
    th_tensor_release(v);
    free(vals);
    return t;
}

/* ---- every reduction through its typed name ---- */

#define RC_SUMS(S)                                                                                              \
    else if (strcmp(op->name, "sum") == 0) *v = th_##S##_base(all ? th_##S##_sum_all(a) : th_##S##_sum_dim(a, dim, keep)); \
    else if (strcmp(op->name, "prod") == 0)                                                                      \
        *v = th_##S##_base(all ? th_##S##_prod_all(a) : th_##S##_prod_dim(a, dim, keep));                        \
    else if (strcmp(op->name, "cumsum") == 0) *v = th_##S##_base(th_##S##_cumsum(a, dim));                      \
    else if (strcmp(op->name, "cumprod") == 0) *v = th_##S##_base(th_##S##_cumprod(a, dim));
#define RC_NO_SUMS(S)
#define RC_FLOATS(S)                                                                                            \
    else if (strcmp(op->name, "mean") == 0)                                                                      \
        *v = th_##S##_base(all ? th_##S##_mean_all(a) : th_##S##_mean_dim(a, dim, keep));                        \
    else if (strcmp(op->name, "var") == 0)                                                                       \
        *v = th_##S##_base(all ? th_##S##_var_all(a, op->corr) : th_##S##_var_dim(a, dim, op->corr, keep));      \
    else if (strcmp(op->name, "std") == 0)                                                                       \
        *v = th_##S##_base(all ? th_##S##_std_all(a, op->corr) : th_##S##_std_dim(a, dim, op->corr, keep));      \
    else if (strcmp(op->name, "logsumexp") == 0)                                                                 \
        *v = th_##S##_base(all ? th_##S##_logsumexp_all(a) : th_##S##_logsumexp_dim(a, dim, keep));              \
    else if (strcmp(op->name, "norm") == 0)                                                                      \
        *v = th_##S##_base(all ? th_##S##_norm_all(a, op->p) : th_##S##_norm_dim(a, op->p, dim, keep));
#define RC_NO_FLOATS(S)

/* op over t (dim ALL_DIMS: the _all form) by the typed function of t's dtype: *v the values (or NULL), *ix the
 * indices (argmax, argmin; max and min over a dim). False when either came back NULL. */
#define RC_TYPED(S, SUMS, FLOATS)                                                                               \
    static inline bool rc_typed_##S(const rc_op *op, th_tensor *t, int dim, bool keep, th_tensor **v, th_tensor **ix)   \
    {                                                                                                           \
        th_##S##_tensor *a = th_##S##_from_base(t);                                                             \
        const bool all = dim == ALL_DIMS;                                                                       \
        th_i64_tensor *ii = NULL;                                                                               \
        *v = *ix = NULL;                                                                                        \
        if (strcmp(op->name, "max") == 0 || strcmp(op->name, "min") == 0) {                                     \
            const bool mx = op->name[1] == 'a';                                                                 \
            if (all) *v = th_##S##_base(mx ? th_##S##_max_all(a) : th_##S##_min_all(a));                        \
            else *v = th_##S##_base(mx ? th_##S##_max_dim(a, dim, keep, &ii) : th_##S##_min_dim(a, dim, keep, &ii)); \
            *ix = th_i64_base(ii);                                                                              \
            return *v && (all || *ix);                                                                          \
        }                                                                                                       \
        if (strcmp(op->name, "argmax") == 0)                                                                    \
            *ix = th_i64_base(all ? th_##S##_argmax_all(a) : th_##S##_argmax_dim(a, dim, keep));                \
        else if (strcmp(op->name, "argmin") == 0)                                                               \
            *ix = th_i64_base(all ? th_##S##_argmin_all(a) : th_##S##_argmin_dim(a, dim, keep));                \
        else if (strcmp(op->name, "all") == 0)                                                                  \
            *v = th_bool_base(all ? th_##S##_all_all(a) : th_##S##_all_dim(a, dim, keep));                      \
        else if (strcmp(op->name, "any") == 0)                                                                  \
            *v = th_bool_base(all ? th_##S##_any_all(a) : th_##S##_any_dim(a, dim, keep));                      \
        SUMS(S) FLOATS(S)                                                                                       \
        return *v || *ix;                                                                                       \
    }
RC_TYPED(bool, RC_NO_SUMS, RC_NO_FLOATS)
RC_TYPED(u8, RC_SUMS, RC_NO_FLOATS)
RC_TYPED(i8, RC_SUMS, RC_NO_FLOATS)
RC_TYPED(i16, RC_SUMS, RC_NO_FLOATS)
RC_TYPED(i32, RC_SUMS, RC_NO_FLOATS)
RC_TYPED(i64, RC_SUMS, RC_NO_FLOATS)
RC_TYPED(f16, RC_SUMS, RC_FLOATS)
RC_TYPED(bf16, RC_SUMS, RC_FLOATS)
RC_TYPED(f32, RC_SUMS, RC_FLOATS)
RC_TYPED(f64, RC_SUMS, RC_FLOATS)

static inline bool rc_typed(const rc_op *op, th_tensor *t, int dim, bool keep, th_tensor **v, th_tensor **ix)
{
    switch (th_tensor_dtype(t)) {
    case TH_BOOL: return rc_typed_bool(op, t, dim, keep, v, ix);
    case TH_U8: return rc_typed_u8(op, t, dim, keep, v, ix);
    case TH_I8: return rc_typed_i8(op, t, dim, keep, v, ix);
    case TH_I16: return rc_typed_i16(op, t, dim, keep, v, ix);
    case TH_I32: return rc_typed_i32(op, t, dim, keep, v, ix);
    case TH_I64: return rc_typed_i64(op, t, dim, keep, v, ix);
    case TH_F16: return rc_typed_f16(op, t, dim, keep, v, ix);
    case TH_BF16: return rc_typed_bf16(op, t, dim, keep, v, ix);
    case TH_F32: return rc_typed_f32(op, t, dim, keep, v, ix);
    case TH_F64: return rc_typed_f64(op, t, dim, keep, v, ix);
    default: *v = *ix = NULL; return false;
    }
}

/* ---- the companion's driver on the host ---- */

static int rc_levels_run, rc_multi_level, rc_lane_major_runs, rc_output_major_runs, rc_lean_levels, rc_by_part;
/* Set: every level runs th__cuda_red_step, the lean sum's levels too (test_lean compares the two). */
static bool rc_no_lean;

static inline th_tensor *rc_host_empty(void *ctx, const char *fn, th_dtype dtype, int ndim, const int64_t *sizes)
{
    (void)ctx;
    (void)fn;
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    th_storage *st = th_storage_new(n * (int64_t)th_dtype_info(dtype)->size, NULL, NULL);
    if (!st) return NULL;
    /* garbage, as device memory would be: a result the tree forgot to write shows */
    if (th_storage_nbytes(st) > 0) memset(th_storage_raw_data(st), 0xa5, (size_t)th_storage_nbytes(st));
    th_tensor *t = th_tensor_new_with_storage(dtype, st, 0, ndim, sizes, NULL);
    th_storage_release(st);
    return t;
}

static inline int rc_host_copy(void *ctx, const char *fn, th_tensor *dst, const th_tensor *src)
{
    (void)ctx;
    (void)fn;
    return th_tensor_copy(dst, src);
}

static inline int rc_host_scratch(void *ctx, const char *fn, int64_t nbytes, void **ptr, void **handle)
{
    (void)ctx;
    *ptr = *handle = malloc((size_t)(nbytes > 0 ? nbytes : 1));
    if (!*ptr) return th_set_error(TH_ERR_NOMEM, fn, "scratch of %lld bytes", (long long)nbytes);
    memset(*ptr, 0x5a, (size_t)(nbytes > 0 ? nbytes : 1));
    return TH_OK;
}

static inline void rc_host_release(void *ctx, void *handle)
{
    (void)ctx;
    free(handle);
}

static inline int rc_host_level(void *ctx, const char *fn, const th__cuda_reduce_plan *plan, const th__cuda_red_op *op,
                         const th__cuda_red_level *lv, const th__cuda_red_ptrs *ptrs)
{
    (void)ctx;
    (void)fn;
    rc_levels_run++;
    if (!lv->first) rc_multi_level++;
    if (lv->in_by_part) rc_by_part++;
    else if (lv->lane_major) rc_lane_major_runs++;
    else rc_output_major_runs++;
    const int dt = th__cuda_red_level_dtype(op, lv);
    /* backwards: no thread may depend on another's having run first; the lean sum where the device runs it */
    const bool lean = !rc_no_lean && th__cuda_red_lean(plan, op, lv);
    if (lean) rc_lean_levels++;
    for (int64_t t = lv->numel_out * lv->parts - 1; t >= 0; t--) {
        if (lean) th__cuda_red_step_lean(plan, op, lv, ptrs, t, dt);
        else th__cuda_red_step(plan, op, lv, ptrs, t, dt, op->cls);
    }
    return TH_OK;
}

static inline int rc_host_scan(void *ctx, const char *fn, const th__cuda_reduce_plan *plan, int dt, bool product,
                        bool acc_float, const unsigned char *in, unsigned char *out, int64_t out_step)
{
    (void)ctx;
    (void)fn;
    for (int64_t o = 0; o < plan->numel_out; o++)
        th__cuda_red_scan_row(plan, dt, product, acc_float, in, out, out_step, plan->numel_red, o);
    return TH_OK;
}

static const th__cuda_red_exec rc_host_exec = {rc_host_empty, rc_host_copy, rc_host_scratch, rc_host_release,
                                               rc_host_level, rc_host_scan};

/* The call the core makes for op over t (as ops/reduce_erased.h builds it). */
static inline th_device_reduce rc_call(const rc_op *op, const th_tensor *t, int dim, bool keep)
{
    th_device_reduce c;
    memset(&c, 0, sizeof c);
    c.op = op->name;
    c.dtype = th_tensor_dtype(t);
    c.in = t;
    const int n = th_tensor_ndim(t);
    c.dim = dim == ALL_DIMS ? -1 : dim < 0 ? dim + (n > 0 ? n : 1) : dim;
    c.keepdim = dim != ALL_DIMS && keep && !op->scan;
    const bool arg = rc_is(op, "argmax") || rc_is(op, "argmin");
    c.values = !arg;
    c.indices = arg || (dim != ALL_DIMS && (rc_is(op, "max") || rc_is(op, "min")));
    c.out_dtype = arg ? TH_I64 : rc_is(op, "all") || rc_is(op, "any") ? TH_BOOL : c.dtype;
    c.p = op->p;
    c.correction = op->corr;
    return c;
}

/* op over t by the companion's driver on the host, into new tensors (outs given: into them). */
static inline int rc_emulate(const rc_op *op, const th_tensor *t, int dim, bool keep, th_tensor *const *outs, th_tensor **v,
                      th_tensor **ix)
{
    th_device_reduce c = rc_call(op, t, dim, keep);
    th_tensor *none[2] = {NULL, NULL}, *res[2] = {NULL, NULL};
    int status = th__cuda_red_call(&rc_host_exec, NULL, "emulate", &c, outs ? outs : none, res);
    *v = res[0];
    *ix = res[1];
    return status;
}

/* ---- comparisons ---- */

/* A contiguous f64 host copy of t (any device the library can copy from). */
static inline th_tensor *rc_as_f64(const th_tensor *t)
{
    th_tensor *r = rc_host_empty(NULL, NULL, TH_F64, th_tensor_ndim(t), th_tensor_sizes(t));
    th_tensor_copy(r, t);
    return r;
}

static inline double rc_eps(th_dtype dt)
{
    switch (dt) {
    case TH_F16: return ldexp(1.0, -11);
    case TH_BF16: return ldexp(1.0, -8);
    case TH_F32: return ldexp(1.0, -24);
    default: return ldexp(1.0, -53);
    }
}

/* Whether got equals want (both host tensors of one shape; NaN equals NaN), or for inexact ops lies within
 * the bound: 4 units of the result's last place, plus (n + 2) units of accreal's precision times scale (sum
 * |x| for sums, |x| / n summed for means, the result itself for the ops whose terms are all positive, 1 for
 * logsumexp, where they turn into an absolute error). Reports the first difference under what. */
static inline bool rc_close(const char *what, const rc_op *op, th_dtype dt, int64_t n, const th_tensor *got,
                     const th_tensor *want, const th_tensor *scale)
{
    th_tensor *g = rc_as_f64(got), *w = rc_as_f64(want), *s = scale ? rc_as_f64(scale) : NULL;
    const double *gv = (const double *)th_tensor_data(g), *wv = (const double *)th_tensor_data(w);
    const double *sv = s ? (const double *)th_tensor_data(s) : NULL;
    const bool exact = rc_exact(op, dt);
    const double acc_eps = dt == TH_F16 || dt == TH_BF16 ? ldexp(1.0, -24) : ldexp(1.0, -53);
    bool ok = th_tensor_numel(got) == th_tensor_numel(want);
    for (int64_t i = 0; ok && i < th_tensor_numel(g); i++) {
        const double a = gv[i], b = wv[i];
        if ((isnan(a) && isnan(b)) || a == b) continue;
        if (exact || isnan(a) || isnan(b) || isinf(a) || isinf(b)) {
            ok = false;
        } else {
            double sc = rc_is(op, "logsumexp") ? 1.0 : sv ? sv[i] : fabs(b);
            if (rc_is(op, "mean")) sc /= (double)(n > 0 ? n : 1);
            const double tol = 4.0 * rc_eps(dt) * fabs(b) + (double)(n + 2) * acc_eps * sc * 4.0 +
                               (dt == TH_F16 || dt == TH_BF16 ? 4.0 * rc_eps(dt) * ldexp(1.0, -14) : 0.0);
            ok = fabs(a - b) <= tol;
        }
        if (!ok)
            fprintf(stderr, "%s: %s%s (p %g, correction %lld) on %s: element %lld is %.17g, the CPU's %.17g\n", what,
                    op->name, exact ? " (exact)" : "", op->p, (long long)op->corr, th_dtype_name(dt), (long long)i,
                    a, b);
    }
    th_tensor_release(s);
    th_tensor_release(w);
    th_tensor_release(g);
    return ok;
}

/* The byte image of t, contiguous, for bit comparisons (heap, caller frees). */
static inline unsigned char *rc_bytes(const th_tensor *t, size_t *nbytes)
{
    th_tensor *c = rc_host_empty(NULL, NULL, th_tensor_dtype(t), th_tensor_ndim(t), th_tensor_sizes(t));
    th_tensor_copy(c, t);
    *nbytes = (size_t)th_tensor_numel(c) * th_dtype_info(th_tensor_dtype(c))->size;
    unsigned char *b = (unsigned char *)malloc(*nbytes ? *nbytes : 1);
    if (*nbytes) memcpy(b, th_tensor_data(c), *nbytes);
    th_tensor_release(c);
    return b;
}

static inline bool rc_same_bits(const th_tensor *x, const th_tensor *y)
{
    if (!x || !y) return x == y;
    size_t nx, ny;
    unsigned char *bx = rc_bytes(x, &nx), *by = rc_bytes(y, &ny);
    const bool same = nx == ny && memcmp(bx, by, nx) == 0;
    free(bx);
    free(by);
    return same;
}

/* sum |x| over what op reduces (the scale of a sum's bound), from an f64 copy: NULL where the bound does not
 * use it. */
static inline th_tensor *rc_scale(const rc_op *op, const th_tensor *t, int dim, bool keep)
{
    if (!(rc_is(op, "sum") || rc_is(op, "mean"))) return NULL;
    th_f64_tensor *x = th_f64_from_base(rc_as_f64(t));
    th_tensor *s = th_f64_base(dim == ALL_DIMS ? th_f64_norm_all(x, 1.0) : th_f64_norm_dim(x, 1.0, dim, keep));
    th_f64_release(x);
    return s;
}

/* The elements op reduces per output. */
static inline int64_t rc_count(const th_tensor *t, int dim)
{
    if (dim == ALL_DIMS || th_tensor_ndim(t) == 0) return th_tensor_numel(t);
    return th_tensor_sizes(t)[dim < 0 ? dim + th_tensor_ndim(t) : dim];
}

/* The shapes every op and dtype is tried on: 0-d, runs below, at and above TH__CUDA_RED_SEQ, several tiles
 * (two and three levels), empty dims, and dims whose reduced run is outer or inner. */
typedef struct rc_shape {
    int ndim;
    int64_t sizes[4];
} rc_shape;

static const rc_shape rc_shapes[] = {
    {0, {0}},          {1, {7}},          {1, {256}},      {1, {257}},        {1, {5000}},
    {2, {3, 0}},       {2, {0, 4}},       {2, {4, 300}},   {2, {300, 5}},     {3, {2, 3, 70}},
    {2, {2, 2100}},    {3, {1, 9, 1}},    {4, {2, 1, 3, 5}},
};
enum { RC_NSHAPES = (int)(sizeof rc_shapes / sizeof rc_shapes[0]) };

#endif
