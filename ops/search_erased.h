/* ops/search_erased.h: search and bins (searchsorted, bucketize, histc, histogram, bincount, isin, isclose,
 * allclose), each written once over th_tensor * and a dtype. Every op reads its operands through one contiguous
 * host copy in a key type (int64 for the integer dtypes, double for the floating ones, so f16 and bf16 are
 * computed exactly as float would), works on plain arrays, and copies its result into the result or out. The
 * typed front doors are in ops/search.h. Included twice by tensor.h: declarations, then (TH__DEFINING) the
 * definitions. */
#ifndef TENSOR_H
#error "ops/search_erased.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* searchsorted's options; all zero is torch's default (side "left": the first index i with v <= sorted[i]). */
typedef struct th_search_opts {
    bool right; /* side "right": the first index i with v < sorted[i] */
} th_search_opts;

#else /* TH__DEFINING */

/* An operand as the ops read it: a contiguous host copy in int64 (integer dtypes) or double (floating). */
typedef struct th__sr_keys {
    th_tensor *t; /* owned */
    const double *f;
    const int64_t *i;
} th__sr_keys;

TH__MAYBE_UNUSED static bool th__sr_is_int(th_dtype d)
{
    return d == TH_U8 || d == TH_I8 || d == TH_I16 || d == TH_I32 || d == TH_I64;
}

TH__MAYBE_UNUSED static bool th__sr_is_float(th_dtype d)
{
    return d == TH_F16 || d == TH_BF16 || d == TH_F32 || d == TH_F64;
}

/* t read as keys (int64 when as_int, else double). */
TH__MAYBE_UNUSED static int th__sr_load(const char *fn, const char *what, const th_tensor *t, bool as_int,
                                        th__sr_keys *k)
{
    k->t = NULL;
    k->f = NULL;
    k->i = NULL;
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL %s", what);
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot read", what,
                        (int)t->storage->device.type);
    k->t = th__convert_new(fn, as_int ? TH_I64 : TH_F64, t);
    if (!k->t) return th__failed_status(fn);
    if (as_int) k->i = (const int64_t *)th_tensor_data(k->t);
    else k->f = (const double *)th_tensor_data(k->t);
    return TH_OK;
}

/* The op's computed tmp (contiguous) delivered: copied into out (checked: its own dtype, tmp's shape) and out
 * returned retained, or without out tmp itself, converted to dtype. NULL on error; tmp is consumed. */
TH__MAYBE_UNUSED static th_tensor *th__sr_deliver(const char *fn, th_tensor *out, th_dtype dtype, th_tensor *tmp)
{
    if (!tmp) return NULL;
    if (!out) {
        if (tmp->dtype == dtype) return tmp;
        th_tensor *r = th__convert_new(fn, dtype, tmp);
        th_tensor_release(tmp);
        return r;
    }
    int st = th__check_out(fn, out, out->dtype, tmp->ndim, tmp->sizes);
    if (st == TH_OK) st = th__copy(fn, out, tmp);
    th_tensor_release(tmp);
    return st ? NULL : th_tensor_retain(out);
}

/* ---- searchsorted, bucketize ---- */

/* torch's binary search, predicate for predicate (the same midpoints, "not mid >= v" to go right), so NaNs land
 * where torch puts them: a NaN value goes after everything (index n), and a NaN met in the row (torch.sort puts
 * them last) is passed over as if smaller than the value. */
TH__MAYBE_UNUSED static int64_t th__sr_bound_f(const double *s, int64_t n, double v, bool right)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if (right ? !(s[mid] > v) : !(s[mid] >= v)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

TH__MAYBE_UNUSED static int64_t th__sr_bound_i(const int64_t *s, int64_t n, int64_t v, bool right)
{
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        if (right ? s[mid] <= v : s[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The first j in [0, n - 1) where row s is out of order (s[j] > s[j + 1], or a NaN before a number), or -1. */
TH__MAYBE_UNUSED static int64_t th__sr_unsorted(const th__sr_keys *k, int64_t off, int64_t n)
{
    for (int64_t j = 0; j + 1 < n; j++) {
        if (k->i ? k->i[off + j] > k->i[off + j + 1]
                 : (k->f[off + j] > k->f[off + j + 1] || (isnan(k->f[off + j]) && !isnan(k->f[off + j + 1]))))
            return j;
    }
    return -1;
}

/* torch.searchsorted(sorted, values, right=...): sorted 1-d, or N-d with values' leading dims equal to its own
 * (each row searched for the values of its row). seq_name names sorted in the messages (bucketize calls it
 * "boundaries"). The result is int64, or out's dtype (int64 or int32). */
TH__MAYBE_UNUSED static th_tensor *th__searchsorted(const char *fn, th_tensor *out, const th_tensor *sorted,
                                                    const th_tensor *values, bool right, const char *seq_name,
                                                    const char *val_name)
{
    if (!sorted || !values) return th__fail(TH_ERR_INVALID, fn, "NULL %s", sorted ? val_name : seq_name), NULL;
    if (out && out->dtype != TH_I64 && out->dtype != TH_I32)
        return th__fail(TH_ERR_DTYPE, fn, "out is %s; the result is int64 or int32", th_dtype_name(out->dtype)),
               NULL;
    if (sorted->ndim == 0) return th__fail(TH_ERR_SHAPE, fn, "%s is 0-d; it needs at least one dim", seq_name), NULL;
    int64_t rows = 1;
    if (sorted->ndim > 1) {
        bool ok = values->ndim == sorted->ndim;
        for (int d = 0; ok && d < sorted->ndim - 1; d++) ok = sorted->sizes[d] == values->sizes[d];
        if (!ok) {
            char a[160], b[160];
            th__shape_string(sorted->ndim, sorted->sizes, a, sizeof a);
            th__shape_string(values->ndim, values->sizes, b, sizeof b);
            return th__fail(TH_ERR_SHAPE, fn,
                            "%s has shape %s and %s %s: all but the last dim must be the same (or %s 1-d)",
                            seq_name, a, val_name, b, seq_name),
                   NULL;
        }
        for (int d = 0; d < sorted->ndim - 1; d++) rows *= sorted->sizes[d];
    }
    const bool as_int = th__sr_is_int(sorted->dtype);
    th__sr_keys s, v;
    if (th__sr_load(fn, seq_name, sorted, as_int, &s)) return NULL;
    if (th__sr_load(fn, val_name, values, as_int, &v)) {
        th_tensor_release(s.t);
        return NULL;
    }
    const int64_t m = sorted->sizes[sorted->ndim - 1];
    const int64_t nv = th__numel(values), k = rows ? nv / rows : 0;
    th_tensor *tmp = NULL;
    for (int64_t r = 0; r < rows && m > 0; r++) {
        const int64_t j = th__sr_unsorted(&s, r * m, m);
        if (j < 0) continue;
        char x[48], y[48];
        if (as_int) {
            snprintf(x, sizeof x, "%lld", (long long)s.i[r * m + j]);
            snprintf(y, sizeof y, "%lld", (long long)s.i[r * m + j + 1]);
        } else {
            snprintf(x, sizeof x, "%g", s.f[r * m + j]);
            snprintf(y, sizeof y, "%g", s.f[r * m + j + 1]);
        }
        th__fail(TH_ERR_INVALID, fn, "%s is not sorted: row %lld has %s at %lld before %s", seq_name, (long long)r,
                 x, (long long)j, y);
        goto done;
    }
    tmp = th__tensor_empty(fn, TH_I64, values->ndim, values->sizes);
    if (!tmp) goto done;
    int64_t *res = (int64_t *)th_tensor_data(tmp);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t q = r * k; q < (r + 1) * k; q++)
            res[q] = as_int ? th__sr_bound_i(s.i + r * m, m, v.i[q], right)
                            : th__sr_bound_f(s.f + r * m, m, v.f[q], right);
done:
    TH__RELEASE(s.t, v.t);
    return th__sr_deliver(fn, out, TH_I64, tmp);
}

/* torch.bucketize(values, boundaries, right): boundaries 1-d. */
TH__MAYBE_UNUSED static th_tensor *th__bucketize(const char *fn, th_tensor *out, const th_tensor *values,
                                                 const th_tensor *boundaries, bool right)
{
    if (boundaries && boundaries->ndim != 1) {
        char a[160];
        th__shape_string(boundaries->ndim, boundaries->sizes, a, sizeof a);
        return th__fail(TH_ERR_SHAPE, fn, "boundaries has shape %s; it must be 1-d", a), NULL;
    }
    return th__searchsorted(fn, out, boundaries, values, right, "boundaries", "values");
}

/* ---- histc, histogram ---- */

/* The bins must be positive. */
TH__MAYBE_UNUSED static int th__sr_check_bins(const char *fn, int64_t bins)
{
    if (bins <= 0) return th__fail(TH_ERR_RANGE, fn, "bins must be positive, not %lld", (long long)bins);
    return TH_OK;
}

/* The smallest and largest of n keys (NaN when one is NaN). */
TH__MAYBE_UNUSED static void th__sr_minmax(const double *x, int64_t n, double *lo, double *hi)
{
    double a = x[0], b = x[0];
    for (int64_t i = 1; i < n; i++) {
        if (isnan(x[i]) || isnan(a)) {
            a = b = NAN;
            break;
        }
        if (x[i] < a) a = x[i];
        if (x[i] > b) b = x[i];
    }
    *lo = a;
    *hi = b;
}

/* torch.histc(x, bins, min, max): bins equal bins over [min, max] (min = max: the data's range, widened by 1
 * each way when that is one value), elements outside and NaNs ignored, the last bin closed; counts in x's
 * dtype. Computed as torch's CPU kernel computes it, in float for f32, f16 and bf16. */
TH__MAYBE_UNUSED static th_tensor *th__histc(const char *fn, th_tensor *out, const th_tensor *x, int64_t bins,
                                             double min, double max)
{
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL x"), NULL;
    if (!th__sr_is_float(x->dtype))
        return th__fail(TH_ERR_DTYPE, fn, "x is %s; histc takes a floating dtype", th_dtype_name(x->dtype)), NULL;
    if (th__sr_check_bins(fn, bins)) return NULL;
    if (isnan(min) || isnan(max))
        return th__fail(TH_ERR_RANGE, fn, "the range [%g, %g] holds a NaN", min, max), NULL;
    if (min > max) return th__fail(TH_ERR_RANGE, fn, "min %g is larger than max %g", min, max), NULL;
    th__sr_keys k;
    if (th__sr_load(fn, "x", x, false, &k)) return NULL;
    const int64_t n = th__numel(x);
    const bool single = x->dtype != TH_F64;
    double lo = min, hi = max;
    if (single) { /* the bounds as torch's float kernel sees them (beyond float's range: infinite, refused below) */
        lo = fabs(lo) > FLT_MAX ? copysign(INFINITY, lo) : (double)(float)lo;
        hi = fabs(hi) > FLT_MAX ? copysign(INFINITY, hi) : (double)(float)hi;
    }
    if (lo == hi && n > 0) th__sr_minmax(k.f, n, &lo, &hi);
    if (lo == hi) {
        lo -= 1;
        hi += 1;
    }
    th_tensor *tmp = NULL;
    if (!isfinite(lo) || !isfinite(hi)) {
        th__fail(TH_ERR_RANGE, fn, "the range [%g, %g] is not finite", lo, hi);
        goto done;
    }
    tmp = th__tensor_empty(fn, TH_F64, 1, &bins);
    if (!tmp) goto done;
    double *h = (double *)th_tensor_data(tmp);
    for (int64_t b = 0; b < bins; b++) h[b] = 0;
    const float lof = (float)lo, hif = (float)hi;
    for (int64_t i = 0; i < n; i++) {
        const double e = k.f[i];
        if (!(e >= lo && e <= hi)) continue;
        int64_t pos = single ? (int64_t)(((float)e - lof) * (float)bins / (hif - lof))
                             : (int64_t)((e - lo) * (double)bins / (hi - lo));
        if (pos >= bins) pos = bins - 1;
        h[pos] += 1;
    }
done:
    th_tensor_release(k.t);
    return th__sr_deliver(fn, out, x->dtype, tmp);
}

/* numpy.histogram(x, bins, range, weights) for an integer bin count: the edges linspace(first, last, bins + 1)
 * (range, or the data's smallest and largest, widened by 0.5 each way when they are one value; [0, 1] for no
 * data), elements outside and NaNs ignored, the last bin closed, each element's bin found as NumPy finds it;
 * hist (counts or summed weights) and edges in x's dtype, computed in double. */
TH__MAYBE_UNUSED static int th__histogram(const char *fn, const th_tensor *x, int64_t bins, const double *range,
                                          const th_tensor *weights, th_tensor **hist, th_tensor **edges)
{
    if (!hist || !edges) return th__fail(TH_ERR_INVALID, fn, "NULL %s", hist ? "edges" : "hist");
    *hist = *edges = NULL;
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL x");
    if (!th__sr_is_float(x->dtype))
        return th__fail(TH_ERR_DTYPE, fn, "x is %s; histogram takes a floating dtype", th_dtype_name(x->dtype));
    if (th__sr_check_bins(fn, bins)) return th_last_status();
    if (weights && !th__shape_equal(weights->ndim, weights->sizes, x->ndim, x->sizes)) {
        char a[160], b[160];
        th__shape_string(x->ndim, x->sizes, a, sizeof a);
        th__shape_string(weights->ndim, weights->sizes, b, sizeof b);
        return th__fail(TH_ERR_SHAPE, fn, "weights has shape %s; x has shape %s", b, a);
    }
    if (range && (isnan(range[0]) || isnan(range[1])))
        return th__fail(TH_ERR_RANGE, fn, "the range [%g, %g] holds a NaN", range[0], range[1]);
    if (range && range[0] > range[1])
        return th__fail(TH_ERR_RANGE, fn, "range min %g is larger than max %g", range[0], range[1]);
    th__sr_keys k, w = {0};
    if (th__sr_load(fn, "x", x, false, &k)) return th_last_status();
    if (weights && th__sr_load(fn, "weights", weights, false, &w)) {
        th_tensor_release(k.t);
        return th_last_status();
    }
    const int64_t n = th__numel(x), ne = bins + 1;
    double first = 0, last = 1;
    if (range) {
        first = range[0];
        last = range[1];
    } else if (n > 0) {
        th__sr_minmax(k.f, n, &first, &last);
    }
    th_tensor *th = NULL, *te = NULL;
    int st = TH_OK;
    if (!isfinite(first) || !isfinite(last)) {
        st = th__fail(TH_ERR_RANGE, fn, "the %s range [%g, %g] is not finite", range ? "given" : "data's", first,
                      last);
        goto done;
    }
    if (first == last) {
        first -= 0.5;
        last += 0.5;
    }
    th = th__tensor_empty(fn, TH_F64, 1, &bins);
    te = th__tensor_empty(fn, TH_F64, 1, &ne);
    if (!th || !te) {
        st = th__failed_status(fn);
        goto done;
    }
    double *h = (double *)th_tensor_data(th), *e = (double *)th_tensor_data(te);
    const double step = (last - first) / (double)bins, norm = (double)bins / (last - first);
    for (int64_t b = 0; b < ne; b++) e[b] = (double)b * step + first;
    e[bins] = last;
    for (int64_t b = 0; b < bins; b++) h[b] = 0;
    for (int64_t i = 0; i < n; i++) {
        const double a = k.f[i];
        if (!(a >= first && a <= last)) continue;
        int64_t pos = (int64_t)((a - first) * norm);
        if (pos == bins) pos--;
        if (a < e[pos]) pos--;
        if (a >= e[pos + 1] && pos != bins - 1) pos++;
        h[pos] += w.f ? w.f[i] : 1.0;
    }
done:
    TH__RELEASE(k.t, w.t);
    if (st == TH_OK) {
        *hist = th__sr_deliver(fn, NULL, x->dtype, th);
        *edges = th__sr_deliver(fn, NULL, x->dtype, te);
        th = te = NULL;
        if (!*hist || !*edges) {
            st = th__failed_status(fn);
            TH__RELEASE(*hist, *edges);
            *hist = *edges = NULL;
        }
    }
    TH__RELEASE(th, te);
    return st;
}

/* ---- bincount ---- */

/* torch.bincount(x, weights, minlength): x 1-d of non-negative integers; counts (int64) or, with weights (1-d,
 * x's length), the weights summed per value (double), max(max(x) + 1, minlength) of them. */
TH__MAYBE_UNUSED static th_tensor *th__bincount(const char *fn, const th_tensor *x, const th_tensor *weights,
                                                int64_t minlength)
{
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL x"), NULL;
    if (!th__sr_is_int(x->dtype))
        return th__fail(TH_ERR_DTYPE, fn, "x is %s; bincount takes an integer dtype", th_dtype_name(x->dtype)), NULL;
    if (x->ndim != 1 || (weights && weights->ndim != 1)) {
        const th_tensor *t = x->ndim != 1 ? x : weights;
        char a[160];
        th__shape_string(t->ndim, t->sizes, a, sizeof a);
        return th__fail(TH_ERR_SHAPE, fn, "%s has shape %s; it must be 1-d", t == x ? "x" : "weights", a), NULL;
    }
    if (weights && weights->sizes[0] != x->sizes[0])
        return th__fail(TH_ERR_SHAPE, fn, "weights has %lld elements; x has %lld", (long long)weights->sizes[0],
                        (long long)x->sizes[0]),
               NULL;
    if (minlength < 0) return th__fail(TH_ERR_RANGE, fn, "minlength is %lld; it must be >= 0", (long long)minlength), NULL;
    th__sr_keys k, w = {0};
    if (th__sr_load(fn, "x", x, true, &k)) return NULL;
    if (weights && th__sr_load(fn, "weights", weights, false, &w)) {
        th_tensor_release(k.t);
        return NULL;
    }
    const int64_t n = x->sizes[0];
    int64_t len = minlength;
    th_tensor *tmp = NULL;
    for (int64_t i = 0; i < n; i++) {
        if (k.i[i] < 0) {
            th__fail(TH_ERR_RANGE, fn, "x holds a negative value (%lld at index %lld)", (long long)k.i[i],
                     (long long)i);
            goto done;
        }
        if (k.i[i] >= len) len = k.i[i] + 1;
    }
    tmp = th__tensor_empty(fn, weights ? TH_F64 : TH_I64, 1, &len);
    if (!tmp) goto done;
    if (weights) {
        double *h = (double *)th_tensor_data(tmp);
        for (int64_t b = 0; b < len; b++) h[b] = 0;
        for (int64_t i = 0; i < n; i++) h[k.i[i]] += w.f[i];
    } else {
        int64_t *h = (int64_t *)th_tensor_data(tmp);
        for (int64_t b = 0; b < len; b++) h[b] = 0;
        for (int64_t i = 0; i < n; i++) h[k.i[i]]++;
    }
done:
    TH__RELEASE(k.t, w.t);
    return tmp;
}

/* ---- isin ---- */

TH__MAYBE_UNUSED static int th__sr_cmp_f(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y)) return (isnan(x) != 0) - (isnan(y) != 0); /* NaNs last */
    return (x > y) - (x < y);
}

TH__MAYBE_UNUSED static int th__sr_cmp_i(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* torch.isin(elements, test_elements, invert): whether each element equals one of test_elements (NaN equals
 * nothing), as a bool tensor of elements' shape. */
TH__MAYBE_UNUSED static th_tensor *th__isin(const char *fn, th_tensor *out, const th_tensor *elements,
                                            const th_tensor *test, bool invert)
{
    if (!elements || !test) return th__fail(TH_ERR_INVALID, fn, "NULL %s", elements ? "test_elements" : "elements"), NULL;
    const bool as_int = th__sr_is_int(elements->dtype);
    th__sr_keys e, t;
    if (th__sr_load(fn, "elements", elements, as_int, &e)) return NULL;
    if (th__sr_load(fn, "test_elements", test, as_int, &t)) {
        th_tensor_release(e.t);
        return NULL;
    }
    const int64_t n = th__numel(elements), m = th__numel(test);
    if (m > 1) qsort(th_tensor_data(t.t), (size_t)m, as_int ? sizeof(int64_t) : sizeof(double),
                     as_int ? th__sr_cmp_i : th__sr_cmp_f);
    th_tensor *tmp = th__tensor_empty(fn, TH_BOOL, elements->ndim, elements->sizes);
    if (tmp) {
        bool *r = (bool *)th_tensor_data(tmp);
        for (int64_t i = 0; i < n; i++) {
            bool found;
            if (as_int) {
                const int64_t p = th__sr_bound_i(t.i, m, e.i[i], false);
                found = p < m && t.i[p] == e.i[i];
            } else { /* the first p with t[p] >= e[i], NaNs (last) counted as larger than everything */
                int64_t lo = 0, hi = m;
                while (lo < hi) {
                    const int64_t mid = lo + ((hi - lo) >> 1);
                    if (t.f[mid] < e.f[i]) lo = mid + 1;
                    else hi = mid;
                }
                found = lo < m && t.f[lo] == e.f[i];
            }
            r[i] = found != invert;
        }
    }
    TH__RELEASE(e.t, t.t);
    return th__sr_deliver(fn, out, TH_BOOL, tmp);
}

/* ---- isclose, allclose ---- */

TH__MAYBE_UNUSED static int th__sr_check_tols(const char *fn, double rtol, double atol)
{
    if (!(rtol >= 0)) return th__fail(TH_ERR_RANGE, fn, "rtol is %g; it must be >= 0", rtol);
    if (!(atol >= 0)) return th__fail(TH_ERR_RANGE, fn, "atol is %g; it must be >= 0", atol);
    return TH_OK;
}

/* a's or b's values broadcast to (nd, sizes), as double. */
TH__MAYBE_UNUSED static th_tensor *th__sr_broadcast_f64(const char *fn, const char *what, const th_tensor *t, int nd,
                                                        const int64_t *sizes)
{
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot read", what,
                        (int)t->storage->device.type),
               NULL;
    th_tensor *r = th__tensor_empty(fn, TH_F64, nd, sizes);
    if (r && th__copy(fn, r, t)) {
        th_tensor_release(r);
        r = NULL;
    }
    return r;
}

/* torch.isclose(a, b, rtol, atol, equal_nan): |a - b| <= atol + |rtol * b| elementwise over the broadcast shape,
 * equal infinities close, NaN close to NaN only with equal_nan; computed in float for f32, f16 and bf16 as torch
 * does, in double otherwise. */
TH__MAYBE_UNUSED static th_tensor *th__isclose(const char *fn, th_tensor *out, const th_tensor *a,
                                               const th_tensor *b, double rtol, double atol, bool equal_nan)
{
    if (!a || !b) return th__fail(TH_ERR_INVALID, fn, "NULL %s", a ? "b" : "a"), NULL;
    if (th__sr_check_tols(fn, rtol, atol)) return NULL;
    int nd;
    int64_t sizes[TH_MAX_DIMS];
    const th_tensor *ab[2] = {a, b};
    if (th__broadcast_shape(fn, 2, ab, &nd, sizes)) return NULL;
    th_tensor *ta = th__sr_broadcast_f64(fn, "a", a, nd, sizes);
    th_tensor *tb = ta ? th__sr_broadcast_f64(fn, "b", b, nd, sizes) : NULL;
    th_tensor *tmp = tb ? th__tensor_empty(fn, TH_BOOL, nd, sizes) : NULL;
    if (tmp) {
        const double *x = (const double *)th_tensor_data(ta), *y = (const double *)th_tensor_data(tb);
        bool *r = (bool *)th_tensor_data(tmp);
        const bool single = a->dtype == TH_F32 || a->dtype == TH_F16 || a->dtype == TH_BF16;
        const float rtol_f = rtol > FLT_MAX ? INFINITY : (float)rtol, atol_f = atol > FLT_MAX ? INFINITY : (float)atol;
        const int64_t n = th__numel(tmp);
        for (int64_t i = 0; i < n; i++) {
            bool close = x[i] == y[i] || (equal_nan && isnan(x[i]) && isnan(y[i]));
            if (!close && single) {
                const float act = fabsf((float)x[i] - (float)y[i]);
                close = isfinite(act) && act <= atol_f + fabsf(rtol_f * (float)y[i]);
            } else if (!close) {
                const double act = fabs(x[i] - y[i]);
                close = isfinite(act) && act <= atol + fabs(rtol * y[i]);
            }
            r[i] = close;
        }
    }
    TH__RELEASE(ta, tb);
    return th__sr_deliver(fn, out, TH_BOOL, tmp);
}

/* torch.allclose: whether isclose holds everywhere, into *result. */
TH__MAYBE_UNUSED static int th__allclose(const char *fn, const th_tensor *a, const th_tensor *b, double rtol,
                                         double atol, bool equal_nan, bool *result)
{
    if (!result) return th__fail(TH_ERR_INVALID, fn, "NULL result");
    *result = false;
    th_tensor *c = th__isclose(fn, NULL, a, b, rtol, atol, equal_nan);
    if (!c) return th__failed_status(fn);
    const bool *r = (const bool *)th_tensor_data(c);
    const int64_t n = th__numel(c);
    bool all = true;
    for (int64_t i = 0; i < n && all; i++) all = r[i];
    th_tensor_release(c);
    *result = all;
    return TH_OK;
}

#endif /* TH__DEFINING */
