/* ops/stats_erased.h: the statistics median, nanmedian, quantile, kthvalue and the NaN-ignoring reductions
 * nansum, nanmean, nanmax, nanmin, written once for f32, f64, f16 and bf16. ops/stats.h holds the typed front
 * doors, which check the dtypes and call th__stat_run here.
 * The input (any strides) is read once into a contiguous double copy with the reduced dim last (every element
 * as one row for the _all forms), each row is reduced in double (the order statistics by a sort of (value,
 * position) pairs, NaN after every number, ties by position), and the double results are converted into the
 * result's dtype, so f16 and bf16 round once. Included twice by tensor.h: the method enum (public), and in the
 * implementation the definitions. docs/reductions.md#statistics. */
#ifndef TH__DEFINING

/* quantile's methods, NumPy's (numpy.quantile's method argument); zero is linear, the default of both NumPy
 * and PyTorch. With i = q * (n - 1) the virtual index into the row's n sorted values x: */
typedef enum th_quantile_method {
    TH_QUANTILE_LINEAR,   /* x[floor(i)] + (i - floor(i)) * (x[floor(i) + 1] - x[floor(i)]) */
    TH_QUANTILE_LOWER,    /* x[floor(i)] */
    TH_QUANTILE_HIGHER,   /* x[ceil(i)] */
    TH_QUANTILE_NEAREST,  /* x[i rounded to the nearest, halves to even], as NumPy's around */
    TH_QUANTILE_MIDPOINT  /* (x[floor(i)] + x[ceil(i)]) / 2 */
} th_quantile_method;

#else /* TH__DEFINING */

typedef enum th__stat_kind {
    TH__STAT_MEDIAN,
    TH__STAT_NANMEDIAN,
    TH__STAT_QUANTILE,
    TH__STAT_KTHVALUE,
    TH__STAT_NANSUM,
    TH__STAT_NANMEAN,
    TH__STAT_NANMAX,
    TH__STAT_NANMIN
} th__stat_kind;

/* One call: the statistic, and its parameters (quantile's q and method, kthvalue's k, 1-based). */
typedef struct th__stat_op {
    th__stat_kind kind;
    double q;
    int method;
    int64_t k;
} th__stat_op;

typedef struct th__stat_item {
    double v;
    int64_t pos;
} th__stat_item;

/* NaN after every number, NaNs equal; ties by position: a total order, so qsort's result is the stable sort's. */
TH__MAYBE_UNUSED static int th__stat_cmp(const void *pa, const void *pb)
{
    const th__stat_item *a = (const th__stat_item *)pa, *b = (const th__stat_item *)pb;
    const bool na = isnan(a->v), nb = isnan(b->v);
    if (na != nb) return na ? 1 : -1;
    if (!na && a->v != b->v) return a->v < b->v ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* NumPy's _lerp: a + (b - a) * t, or from b's side when t >= 0.5, so t = 1 gives b exactly. */
TH__MAYBE_UNUSED static double th__stat_lerp(double a, double b, double t)
{
    const double d = b - a;
    return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

/* The statistic of one row x[0..n) (n >= 1 for the order statistics); the position it came from in *index
 * (order statistics only). items: scratch of n. */
TH__MAYBE_UNUSED static double th__stat_row(const th__stat_op *op, const double *x, int64_t n, th__stat_item *items, int64_t *index)
{
    *index = 0;
    switch (op->kind) {
    case TH__STAT_NANSUM:
    case TH__STAT_NANMEAN: {
        double s = 0.0;
        int64_t c = 0;
        for (int64_t i = 0; i < n; i++)
            if (!isnan(x[i])) {
                s += x[i];
                c++;
            }
        return op->kind == TH__STAT_NANSUM ? s : (c > 0 ? s / (double)c : NAN);
    }
    case TH__STAT_NANMAX:
    case TH__STAT_NANMIN: {
        double best = NAN;
        for (int64_t i = 0; i < n; i++) {
            if (isnan(x[i])) continue;
            if (isnan(best) || (op->kind == TH__STAT_NANMAX ? x[i] > best : x[i] < best)) best = x[i];
        }
        return best;
    }
    default: break;
    }
    int64_t m = 0, first_nan = -1; /* m: the numbers (nanmedian) or every element */
    for (int64_t i = 0; i < n; i++) {
        if (isnan(x[i])) {
            if (first_nan < 0) first_nan = i;
            if (op->kind == TH__STAT_NANMEDIAN) continue;
        }
        items[m].v = x[i];
        items[m].pos = i;
        m++;
    }
    /* median and quantile are NaN when the row has one (torch and NumPy), at the first NaN's position; a row of
     * NaNs only has a NaN nanmedian, at its first element */
    if (first_nan >= 0 && (op->kind == TH__STAT_MEDIAN || op->kind == TH__STAT_QUANTILE || m == 0)) {
        *index = first_nan;
        return NAN;
    }
    if (m == 0) return NAN; /* an empty median_all */
    qsort(items, (size_t)m, sizeof *items, th__stat_cmp);
    if (op->kind == TH__STAT_KTHVALUE) {
        *index = items[op->k - 1].pos;
        return items[op->k - 1].v;
    }
    if (op->kind != TH__STAT_QUANTILE) { /* the lower of the two middles, as torch */
        *index = items[(m - 1) / 2].pos;
        return items[(m - 1) / 2].v;
    }
    const double vi = op->q * (double)(m - 1), lo = floor(vi), hi = ceil(vi);
    const int64_t l = (int64_t)lo, h = (int64_t)hi;
    switch ((th_quantile_method)op->method) {
    case TH_QUANTILE_LOWER: return items[l].v;
    case TH_QUANTILE_HIGHER: return items[h].v;
    case TH_QUANTILE_NEAREST: return items[(int64_t)nearbyint(vi)].v;
    case TH_QUANTILE_MIDPOINT: return l == h ? items[l].v : th__stat_lerp(items[l].v, items[h].v, 0.5);
    case TH_QUANTILE_LINEAR: break;
    }
    return l == h ? items[l].v : th__stat_lerp(items[l].v, items[h].v, vi - lo);
}

TH__MAYBE_UNUSED static const char *th__stat_name(th__stat_kind kind)
{
    static const char *const names[] = {"median", "nanmedian", "quantile", "kthvalue",
                                        "nansum", "nanmean",   "nanmax",   "nanmin"};
    return names[kind];
}

/* a reduced over dim (all: every element, into a 0-d result) by op, into out (NULL: a new tensor of a's dtype)
 * and, for the order statistics, the positions along dim into idx_out or (indices not NULL, no out) a new i64
 * tensor in *indices. Returns the result (out retained) or NULL with the error recorded under fn. */
TH__MAYBE_UNUSED static th_tensor *th__stat_run(const char *fn, const th__stat_op *op, th_tensor *out, th_tensor *idx_out,
                               th_tensor **indices, const th_tensor *a, bool all, int dim, bool keepdim)
{
    if (indices) *indices = NULL;
    if (th__check_readable(fn, a)) return NULL;
    if (op->kind == TH__STAT_QUANTILE && !(op->q >= 0.0 && op->q <= 1.0)) {
        th__fail(TH_ERR_RANGE, fn, "q %g is outside [0, 1]", op->q);
        return NULL;
    }
    if (op->kind == TH__STAT_QUANTILE && (op->method < TH_QUANTILE_LINEAR || op->method > TH_QUANTILE_MIDPOINT)) {
        th__fail(TH_ERR_INVALID, fn, "method %d is not a th_quantile_method (0..%d)", op->method,
                 (int)TH_QUANTILE_MIDPOINT);
        return NULL;
    }
    int d = 0;
    if (!all && th__wrap_dim(fn, dim, a->ndim, &d)) return NULL;
    const int64_t numel = th__numel(a);
    const int64_t n = all ? numel : (a->ndim > 0 ? a->sizes[d] : 1);
    /* the result's shape; and the order of a's dims that puts the reduced one last */
    int64_t sizes[TH_MAX_DIMS];
    int perm[TH_MAX_DIMS], rnd = 0, np = 0;
    if (!all) {
        for (int i = 0; i < a->ndim; i++) {
            if (i != d) perm[np++] = i;
            if (i != d || keepdim) sizes[rnd++] = i == d ? 1 : a->sizes[i];
        }
        if (a->ndim > 0) perm[np++] = d;
    }
    const bool order = op->kind <= TH__STAT_KTHVALUE, with_index = order && op->kind != TH__STAT_QUANTILE;
    const bool empty_refused = op->kind == TH__STAT_QUANTILE || op->kind == TH__STAT_NANMAX ||
                               op->kind == TH__STAT_NANMIN || (!all && with_index);
    if (n == 0 && empty_refused) {
        th__fail(TH_ERR_SHAPE, fn, "%s of no elements (%s of size 0)", th__stat_name(op->kind),
                 all ? "a tensor" : "a dim");
        return NULL;
    }
    if (op->kind == TH__STAT_KTHVALUE && (op->k < 1 || op->k > n)) {
        th__fail(TH_ERR_RANGE, fn, "k %lld is outside 1..%lld (the size of dim %d)", (long long)op->k, (long long)n,
                 dim);
        return NULL;
    }
    if (out && th__check_out(fn, out, a->dtype, rnd, sizes)) return NULL;
    if (idx_out && th__check_out(fn, idx_out, TH_I64, rnd, sizes)) return NULL;
    int64_t rows = 1; /* the result's elements: one row of n each */
    for (int i = 0; i < rnd; i++) rows *= sizes[i];
    const bool want_idx = with_index && (idx_out || indices);
    th_tensor *view = all || a->ndim == 0 ? th_tensor_retain((th_tensor *)a) : th__permute(fn, a, perm);
    th_tensor *src = view ? th__convert_new(fn, TH_F64, view) : NULL;
    th_tensor_release(view);
    th_tensor *vals = src ? th__tensor_empty(fn, TH_F64, rnd, sizes) : NULL;
    th_tensor *idx = vals && want_idx ? th__tensor_empty(fn, TH_I64, rnd, sizes) : NULL;
    th__stat_item *items = NULL;
    bool ok = vals && (idx || !want_idx);
    if (ok && order) {
        items = (th__stat_item *)malloc((size_t)(n > 0 ? n : 1) * sizeof *items);
        if (!items) ok = !th__fail(TH_ERR_NOMEM, fn, "out of memory for a row of %lld elements", (long long)n);
    }
    if (ok) {
        const double *x = (const double *)th_tensor_data(src);
        double *v = (double *)th_tensor_data(vals);
        int64_t *ix = idx ? (int64_t *)th_tensor_data(idx) : NULL;
        for (int64_t r = 0; r < rows; r++) {
            int64_t at = 0;
            v[r] = th__stat_row(op, x + r * n, n, items, &at);
            if (ix) ix[r] = at;
        }
    }
    free(items);
    th_tensor_release(src);
    th_tensor *result = NULL;
    if (ok) result = out ? th_tensor_retain(out) : th__tensor_empty(fn, a->dtype, rnd, sizes);
    if (result && th__copy(fn, result, vals)) {
        th_tensor_release(result);
        result = NULL;
    }
    th_tensor_release(vals);
    if (result && idx && idx_out && th__copy(fn, idx_out, idx)) {
        th_tensor_release(result);
        result = NULL;
    }
    if (result && idx && indices && !idx_out) {
        *indices = idx;
        idx = NULL;
    }
    th_tensor_release(idx);
    return result;
}

#endif /* TH__DEFINING */
