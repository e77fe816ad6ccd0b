/* tests/numpy/stats_peer.c: median, nanmedian, quantile, kthvalue, nansum, nanmean, nanmax, nanmin (ops/stats.h)
 * against NumPy 1.24 and PyTorch 1.13 (tests/numpy/stats_peer.py writes the cases: every op x dtype, shapes of 0
 * to 3 dims, a dim or all, keepdim, NaNs, ties, empty dims; the inputs already rounded to each case's dtype, the
 * peer's float64 result from them, torch's indices). Every case runs as a new result and into an out (an indices
 * out too), the input in the layout the case names (contiguous, dims reversed, stepped, last dim reversed).
 * The order statistics and nanmax/nanmin pick an element, so they must be exact, NaN where the peer's is NaN;
 * an index must name an element equal to the value, and torch's own index where the value occurs once in its
 * row (torch does not promise which of equal elements it names). quantile's interpolating methods, nansum and
 * nanmean compute in double and round once: their error is measured in epsilons of the dtype relative to the
 * largest |x| (nansum: the sum of |x|) and bounded; the worst per op and dtype is printed.
 *
 * Usage: stats_peer DIR PYTHON SCRIPT (the test command; skips with 77 without /usr/bin/python3, NumPy or torch). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "peer_files.h"

enum { MEDIAN, NANMEDIAN, QUANTILE, KTHVALUE, NANSUM, NANMEAN, NANMAX, NANMIN, NOPS };
static const char *ops[NOPS] = {"median", "nanmedian", "quantile", "kthvalue", "nansum", "nanmean", "nanmax", "nanmin"};
static const char *dts[4] = {"f32", "f64", "f16", "bf16"};
static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};
static double worst[NOPS][4];
static int count[NOPS][4], index_checks, index_same;
static const char *dir;
static int cases;

/* A copy of t in dtype dt: layout 0 contiguous, 1 dims reversed (a transpose), 2 every dim stepped by 2, 3 the
 * last dim reversed. */
static th_tensor *in_layout(const th_tensor *t, th_dtype dt, int layout)
{
    int ndim = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    int64_t strides[TH_MAX_DIMS], span = 1, offset = 0;
    for (int i = 0; i < ndim; i++) {
        int d = layout == 1 ? i : ndim - 1 - i; /* innermost first */
        strides[d] = span * (layout == 2 ? 2 : 1);
        span *= sizes[d] > 0 ? sizes[d] : 1;
    }
    if (layout == 3 && ndim > 0) {
        offset = (sizes[ndim - 1] > 0 ? sizes[ndim - 1] - 1 : 0) * strides[ndim - 1];
        strides[ndim - 1] = -strides[ndim - 1];
    }
    th_storage *s = th_storage_new((layout == 2 ? 2 : 1) * span * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *v = th_tensor_new_with_storage(dt, s, offset, ndim, sizes, strides);
    th_storage_release(s);
    if (v) th_tensor_copy(v, t);
    return v;
}

static int mant_of(th_dtype dt) { return dt == TH_F32 ? 24 : dt == TH_F64 ? 53 : dt == TH_F16 ? 11 : 8; }

/* One op in one dtype, into out / idx_out when out is not NULL (then returning out or NULL), else new. */
#define STAT_CALLS(sfx)                                                                                            \
    {                                                                                                              \
        const th_##sfx##_tensor *a = (const th_##sfx##_tensor *)x;                                                 \
        th_##sfx##_tensor *o = (th_##sfx##_tensor *)out;                                                           \
        th_i64_tensor *io = (th_i64_tensor *)idx_out, **ip = (th_i64_tensor **)idx;                                \
        int st = 0;                                                                                                \
        th_##sfx##_tensor *r = NULL;                                                                               \
        switch (op) {                                                                                              \
        case MEDIAN:                                                                                               \
            if (all) r = o ? (st = th_##sfx##_median_all_out(o, a), o) : th_##sfx##_median_all(a);               \
            else r = o ? (st = th_##sfx##_median_dim_out(o, io, a, dim, keepdim), o)                               \
                       : th_##sfx##_median_dim(a, dim, keepdim, ip);                                               \
            break;                                                                                                 \
        case NANMEDIAN:                                                                                            \
            if (all) r = o ? (st = th_##sfx##_nanmedian_all_out(o, a), o) : th_##sfx##_nanmedian_all(a);         \
            else r = o ? (st = th_##sfx##_nanmedian_dim_out(o, io, a, dim, keepdim), o)                            \
                       : th_##sfx##_nanmedian_dim(a, dim, keepdim, ip);                                            \
            break;                                                                                                 \
        case QUANTILE:                                                                                             \
            if (all) r = o ? (st = th_##sfx##_quantile_all_out(o, a, q, m), o) : th_##sfx##_quantile_all(a, q, m); \
            else r = o ? (st = th_##sfx##_quantile_dim_out(o, a, q, dim, keepdim, m), o)                           \
                       : th_##sfx##_quantile_dim(a, q, dim, keepdim, m);                                           \
            break;                                                                                                 \
        case KTHVALUE:                                                                                             \
            r = o ? (st = th_##sfx##_kthvalue_out(o, io, a, k, dim, keepdim), o)                                   \
                  : th_##sfx##_kthvalue(a, k, dim, keepdim, ip);                                                   \
            break;                                                                                                 \
        case NANSUM:                                                                                               \
            if (all) r = o ? (st = th_##sfx##_nansum_all_out(o, a), o) : th_##sfx##_nansum_all(a);               \
            else r = o ? (st = th_##sfx##_nansum_dim_out(o, a, dim, keepdim), o) : th_##sfx##_nansum_dim(a, dim, keepdim); \
            break;                                                                                                 \
        case NANMEAN:                                                                                              \
            if (all) r = o ? (st = th_##sfx##_nanmean_all_out(o, a), o) : th_##sfx##_nanmean_all(a);             \
            else r = o ? (st = th_##sfx##_nanmean_dim_out(o, a, dim, keepdim), o)                                  \
                       : th_##sfx##_nanmean_dim(a, dim, keepdim);                                                  \
            break;                                                                                                 \
        case NANMAX:                                                                                               \
            if (all) r = o ? (st = th_##sfx##_nanmax_all_out(o, a), o) : th_##sfx##_nanmax_all(a);               \
            else r = o ? (st = th_##sfx##_nanmax_dim_out(o, a, dim, keepdim), o) : th_##sfx##_nanmax_dim(a, dim, keepdim); \
            break;                                                                                                 \
        default:                                                                                                   \
            if (all) r = o ? (st = th_##sfx##_nanmin_all_out(o, a), o) : th_##sfx##_nanmin_all(a);               \
            else r = o ? (st = th_##sfx##_nanmin_dim_out(o, a, dim, keepdim), o) : th_##sfx##_nanmin_dim(a, dim, keepdim); \
        }                                                                                                          \
        return st ? NULL : (th_tensor *)r;                                                                         \
    }

static th_tensor *call(int dti, int op, const th_tensor *x, bool all, int dim, bool keepdim, double q,
                       th_quantile_method m, int64_t k, th_tensor *out, th_tensor *idx_out, th_tensor **idx)
{
    switch (dti) {
    case 0: STAT_CALLS(f32)
    case 1: STAT_CALLS(f64)
    case 2: STAT_CALLS(f16)
    default: STAT_CALLS(bf16)
    }
}

static th_tensor *load(const char *name, const char *part)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, part);
    return th_tensor_load_npy(path);
}

static bool same_shape(const th_tensor *a, const th_tensor *b)
{
    if (th_tensor_ndim(a) != th_tensor_ndim(b)) return false;
    for (int d = 0; d < th_tensor_ndim(a); d++)
        if (th_tensor_sizes(a)[d] != th_tensor_sizes(b)[d]) return false;
    return true;
}

/* got against ref: exact (both NaN, or equal) when exact, else in epsilons of dt relative to scale; -1 when the
 * shapes differ or NaNs disagree. */
static double error_of(const th_tensor *got, const th_tensor *ref, bool exact, double scale, th_dtype dt)
{
    if (!same_shape(got, ref)) return -1;
    th_tensor *g = in_layout(got, TH_F64, 0);
    const double *a = (const double *)th_tensor_data(g), *b = (const double *)th_tensor_data(ref);
    double w = 0, eps = ldexp(1.0, 1 - mant_of(dt));
    for (int64_t i = 0; i < th_tensor_numel(ref) && w >= 0; i++) {
        if (isnan(a[i]) || isnan(b[i])) {
            if (!(isnan(a[i]) && isnan(b[i]))) w = -1;
            continue;
        }
        double e = exact ? (a[i] == b[i] ? 0 : INFINITY) : fabs(a[i] - b[i]) / (scale > 0 ? scale : 1) / eps;
        if (e > w) w = e;
    }
    th_tensor_release(g);
    return w;
}

/* The indices got: each names an element of its row equal to the value (x64 read along dim), and torch's index
 * where the value occurs once in the row (eq 1). */
static bool indices_ok(const th_tensor *got, const th_tensor *ref_idx, const th_tensor *eq, const th_tensor *vals,
                       const th_tensor *x64, int dim, bool keepdim)
{
    if (!same_shape(got, ref_idx)) return false;
    th_tensor *g = in_layout(got, TH_I64, 0);
    const int64_t *gi = (const int64_t *)th_tensor_data(g), *ri = (const int64_t *)th_tensor_data(ref_idx);
    const int64_t *ec = (const int64_t *)th_tensor_data(eq);
    const double *v = (const double *)th_tensor_data(vals), *x = (const double *)th_tensor_data(x64);
    const int nd = th_tensor_ndim(x64);
    const int64_t *xs = th_tensor_sizes(x64), n = nd > 0 ? xs[dim] : 1;
    bool ok = true;
    for (int64_t r = 0; r < th_tensor_numel(ref_idx); r++) {
        /* r's coordinates over x's dims but dim, row-major, then x's element at position gi[r] along dim */
        int64_t rest = r, off = 0, stride = 1;
        for (int d = nd - 1; d >= 0; d--) {
            if (d != dim) {
                off += (rest % xs[d]) * stride;
                rest /= xs[d];
            }
            stride *= xs[d];
        }
        int64_t dstride = 1;
        for (int d = nd - 1; d > dim; d--) dstride *= xs[d];
        if (gi[r] < 0 || gi[r] >= n) {
            ok = false;
            break;
        }
        double at = x[off + gi[r] * dstride];
        ok = ok && ((isnan(at) && isnan(v[r])) || at == v[r]);
        if (ec[r] == 1) {
            ok = ok && gi[r] == ri[r];
            index_same++;
        }
        index_checks++;
    }
    (void)keepdim; /* a kept dim of size 1 changes no row-major position */
    th_tensor_release(g);
    return ok;
}

/* "case op dtype dim keepdim layout q method k" */
static void one_case(const char *line)
{
    char name[64], opn[16], dtn[16];
    int dim, keepdim, layout, method;
    double q;
    long long k;
    if (sscanf(line, "%63s %15s %15s %d %d %d %lf %d %lld", name, opn, dtn, &dim, &keepdim, &layout, &q, &method,
               &k) != 9) {
        CHECK(!"a line of cases.txt that does not parse");
        return;
    }
    int op = 0, dti = 0;
    while (op < NOPS && strcmp(ops[op], opn)) op++;
    while (dti < 4 && strcmp(dts[dti], dtn)) dti++;
    CHECK(op < NOPS && dti < 4);
    if (op >= NOPS || dti >= 4) return;
    th_dtype dt = dtypes[dti];
    const bool all = dim == 99, indexed = !all && (op == MEDIAN || op == NANMEDIAN || op == KTHVALUE);
    th_tensor *x64 = load(name, "x"), *ref = load(name, "ref");
    th_tensor *ref_idx = indexed ? load(name, "idx") : NULL, *eq = indexed ? load(name, "eq") : NULL;
    CHECK(x64 && ref && (!indexed || (ref_idx && eq)));
    if (x64 && ref && (!indexed || (ref_idx && eq))) {
        const double *xp = (const double *)th_tensor_data(x64);
        double scale = 0, abs_sum = 0;
        for (int64_t i = 0; i < th_tensor_numel(x64); i++)
            if (!isnan(xp[i])) {
                scale = fabs(xp[i]) > scale ? fabs(xp[i]) : scale;
                abs_sum += fabs(xp[i]);
            }
        const bool exact = op == MEDIAN || op == NANMEDIAN || op == KTHVALUE || op == NANMAX || op == NANMIN ||
                           (op == QUANTILE && method != TH_QUANTILE_LINEAR && method != TH_QUANTILE_MIDPOINT);
        const int wdim = th_tensor_ndim(x64) > 0 && dim < 0 ? dim + th_tensor_ndim(x64) : (dim == 99 ? 0 : dim);
        th_tensor *x = in_layout(x64, dt, layout);
        th_tensor *idx = NULL;
        th_tensor *y = call(dti, op, x, all, dim, keepdim, q, (th_quantile_method)method, k, NULL, NULL,
                            indexed ? &idx : NULL);
        th_tensor *oo = in_layout(ref, dt, (layout + 1) % 4), *io = ref_idx ? in_layout(ref_idx, TH_I64, 3) : NULL;
        th_tensor *yo = call(dti, op, x, all, dim, keepdim, q, (th_quantile_method)method, k, oo, io, NULL);
        CHECK(y != NULL && yo == oo && (!indexed || idx));
        if (!y || yo != oo) fprintf(stderr, "stats_peer: %s (%s %s): %s\n", name, opn, dtn, th_last_error());
        for (int j = 0; j < 2 && y && yo; j++) {
            double e = error_of(j ? yo : y, ref, exact, op == NANSUM ? abs_sum : scale, dt);
            double bound = dt == TH_F64 ? 4 : 1;
            bool ok = exact ? e == 0 : e >= 0 && e <= bound;
            if (!ok) fprintf(stderr, "stats_peer: %s (%s %s, %s): error %g\n", name, opn, dtn, j ? "out" : "new", e);
            CHECK(ok);
            if (e > worst[op][dti] || e < 0) worst[op][dti] = e < 0 ? INFINITY : e;
        }
        if (indexed && y && idx && yo) {
            bool ok = indices_ok(idx, ref_idx, eq, ref, x64, wdim, keepdim) &&
                      indices_ok(io, ref_idx, eq, ref, x64, wdim, keepdim);
            if (!ok) fprintf(stderr, "stats_peer: %s (%s %s): indices differ\n", name, opn, dtn);
            CHECK(ok);
        }
        count[op][dti]++;
        cases++;
        th_tensor_release(y);
        th_tensor_release(idx);
        th_tensor_release(x);
        th_tensor_release(oo);
        th_tensor_release(io);
    }
    th_tensor_release(x64);
    th_tensor_release(ref);
    th_tensor_release(ref_idx);
    th_tensor_release(eq);
}

int main(int argc, char **argv)
{
    (void)peer_read_all;
    (void)peer_contiguous;
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "stats_peer", "NumPy and PyTorch");
    if (rc >= 0) return rc;
    test_begin();
    peer_each_case(dir, one_case);
    printf("stats_peer: %d cases against NumPy / torch in float64; worst error in epsilons of the dtype relative "
           "to max |x| (nansum: sum |x|; order statistics, nanmax, nanmin, quantile lower/higher/nearest: exact); "
           "%d indices checked, %d of values unique in their row equal to torch's:\n",
           cases, index_checks, index_same);
    for (int o = 0; o < NOPS; o++) {
        printf("  %-10s", ops[o]);
        for (int dd = 0; dd < 4; dd++) printf("  %s %.3f (%d)", dts[dd], worst[o][dd], count[o][dd]);
        printf("\n");
    }
    CHECK(cases >= 500);
    return test_end("stats_peer");
}
