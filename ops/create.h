/* ops/create.h: creation ops (arange, linspace, logspace, eye, *_like, diag, tril, triu).
 * Stamped per dtype through tensor_generic.h. Every result is a new contiguous tensor from the default
 * allocator, except the _out and _inplace forms. */
#ifndef TH__DEFINING

#if defined(TH_REAL_IS_FLOATING)
/* start, start + step, ... while below end (above it for a negative step): ceil((end - start) / step)
 * elements (none when that is not positive), element i computed as start + i * step in double. Errors:
 * TH_ERR_INVALID for step 0 or a bound or step that is not finite; TH_ERR_OVERFLOW for a count beyond
 * 2^62. */
TH_API TH_NAME(tensor) *TH_NAME(arange)(double start, double end, double step);
/* steps evenly spaced values from start to end, both included (steps 1 gives start); the first half is
 * counted from start and the second from end, so both ends are exact. Errors: TH_ERR_INVALID for
 * steps < 0 or a bound that is not finite. */
TH_API TH_NAME(tensor) *TH_NAME(linspace)(double start, double end, int64_t steps);
/* base raised to each value of linspace(start, end, steps). Errors: those of linspace, and a base that is
 * not finite. */
TH_API TH_NAME(tensor) *TH_NAME(logspace)(double start, double end, int64_t steps, double base);
#elif defined(TH_REAL_IS_INTEGER)
/* As the floating arange, exactly in integers. Errors: TH_ERR_INVALID for step 0; TH_ERR_OVERFLOW for a
 * count beyond int64; TH_ERR_RANGE for values outside the dtype. */
TH_API TH_NAME(tensor) *TH_NAME(arange)(int64_t start, int64_t end, int64_t step);
#endif

/* An n x m matrix with ones on the diagonal and zeros elsewhere. Errors: a negative n or m. */
TH_API TH_NAME(tensor) *TH_NAME(eye)(int64_t n, int64_t m);
/* A new contiguous tensor of t's shape: uninitialised / zeros / ones / value. Errors: NULL t. */
TH_API TH_NAME(tensor) *TH_NAME(empty_like)(const TH_NAME(tensor) *t);
TH_API TH_NAME(tensor) *TH_NAME(zeros_like)(const TH_NAME(tensor) *t);
TH_API TH_NAME(tensor) *TH_NAME(ones_like)(const TH_NAME(tensor) *t);
TH_API TH_NAME(tensor) *TH_NAME(full_like)(const TH_NAME(tensor) *t, real value);
/* 1-d t of n elements: the square matrix of size n + |k| with t on diagonal k (k > 0 above the main
 * diagonal, k < 0 below) and zeros elsewhere. 2-d t: a copy of its diagonal k as a 1-d tensor (empty when
 * the diagonal lies outside the matrix). Errors: TH_ERR_INVALID for NULL; TH_ERR_SHAPE for other ndims;
 * TH_ERR_OVERFLOW when n + |k| overflows. */
TH_API TH_NAME(tensor) *TH_NAME(diag)(const TH_NAME(tensor) *t, int64_t k);
/* The lower triangle of the last two dims of t (elements with column - row <= k; batched over the leading
 * dims), the rest zero. triu keeps column - row >= k. _out writes into out (t's dtype and shape; out may be
 * t itself or overlap it), _inplace into t. Errors: TH_ERR_INVALID for NULL or an out whose elements
 * overlap; TH_ERR_SHAPE for fewer than 2 dims or an out of another shape; TH_ERR_DTYPE; TH_ERR_READ_ONLY. */
TH_API TH_NAME(tensor) *TH_NAME(tril)(const TH_NAME(tensor) *t, int64_t k);
TH_API int TH_NAME(tril_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int64_t k);
TH_API int TH_NAME(tril_inplace)(TH_NAME(tensor) *t, int64_t k);
TH_API TH_NAME(tensor) *TH_NAME(triu)(const TH_NAME(tensor) *t, int64_t k);
TH_API int TH_NAME(triu_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int64_t k);
TH_API int TH_NAME(triu_inplace)(TH_NAME(tensor) *t, int64_t k);

#else /* definitions */

#include "sequence.h" /* arange's and linspace's values, shared with device kernels */

#if defined(TH_REAL_IS_FLOATING)
TH_API TH_NAME(tensor) *TH_NAME(arange)(double start, double end, double step)
{
    const char *fn = TH__FN(arange);
    if (!isfinite(start) || !isfinite(end) || !isfinite(step) || step == 0) {
        th__fail(TH_ERR_INVALID, fn, "start %g, end %g and step %g must be finite with step != 0", start, end, step);
        return NULL;
    }
    int64_t n;
    if (!th__arange_count_f64(start, end, step, &n)) {
        th__fail(TH_ERR_OVERFLOW, fn, "start %g, end %g, step %g give %g elements, more than 2^62", start, end,
                 step, ceil((end - start) / step));
        return NULL;
    }
    th_tensor *t = th__tensor_empty_host(fn, TH_DT_ENUM, 1, &n);
    if (!t) return NULL;
    char *p = (char *)th_tensor_data(t);
    for (int64_t i = 0; i < n; i++)
        TH_PRIVATE(store)(p + i * (int64_t)sizeof(real), TH_PRIVATE(from_f64)(th__arange_f64_at(start, step, i)));
    return TH__T(t);
}

static int TH_PRIVATE(check_linspace)(const char *fn, double start, double end, int64_t steps)
{
    if (steps < 0) return th__fail(TH_ERR_INVALID, fn, "steps %lld is negative", (long long)steps);
    if (!isfinite(start) || !isfinite(end))
        return th__fail(TH_ERR_INVALID, fn, "start %g and end %g must be finite", start, end);
    return TH_OK;
}

static TH_NAME(tensor) *TH_PRIVATE(spaced)(const char *fn, double start, double end, int64_t steps, double base,
                                          bool log_scale)
{
    if (TH_PRIVATE(check_linspace)(fn, start, end, steps)) return NULL;
    if (log_scale && !isfinite(base)) {
        th__fail(TH_ERR_INVALID, fn, "base %g is not finite", base);
        return NULL;
    }
    th_tensor *t = th__tensor_empty_host(fn, TH_DT_ENUM, 1, &steps);
    if (!t) return NULL;
    char *p = (char *)th_tensor_data(t);
    for (int64_t i = 0; i < steps; i++) {
        double v = th__linspace_at(start, end, steps, i);
        TH_PRIVATE(store)(p + i * (int64_t)sizeof(real), TH_PRIVATE(from_f64)(log_scale ? pow(base, v) : v));
    }
    return TH__T(t);
}

TH_API TH_NAME(tensor) *TH_NAME(linspace)(double start, double end, int64_t steps)
{
    return TH_PRIVATE(spaced)(TH__FN(linspace), start, end, steps, 0, false);
}

TH_API TH_NAME(tensor) *TH_NAME(logspace)(double start, double end, int64_t steps, double base)
{
    return TH_PRIVATE(spaced)(TH__FN(logspace), start, end, steps, base, true);
}
#elif defined(TH_REAL_IS_INTEGER)
TH_API TH_NAME(tensor) *TH_NAME(arange)(int64_t start, int64_t end, int64_t step)
{
    const char *fn = TH__FN(arange);
    if (step == 0) {
        th__fail(TH_ERR_INVALID, fn, "step is 0");
        return NULL;
    }
    int64_t n;
    if (!th__arange_count_i64(start, end, step, &n)) {
        th__fail(TH_ERR_OVERFLOW, fn, "start %lld, end %lld, step %lld give more than 2^63 - 1 elements",
                 (long long)start, (long long)end, (long long)step);
        return NULL;
    }
    if (n > 0) {
        int64_t last = th__arange_i64_at(start, step, n - 1), min, max;
#if defined(TH_REAL_IS_U8)
        min = 0, max = UINT8_MAX;
#elif defined(TH_REAL_IS_I8)
        min = INT8_MIN, max = INT8_MAX;
#elif defined(TH_REAL_IS_I16)
        min = INT16_MIN, max = INT16_MAX;
#elif defined(TH_REAL_IS_I32)
        min = INT32_MIN, max = INT32_MAX;
#else
        min = INT64_MIN, max = INT64_MAX;
#endif
        if (start < min || start > max || last < min || last > max) {
            th__fail(TH_ERR_RANGE, fn, "the values %lld..%lld do not fit the dtype's range [%lld, %lld]",
                     (long long)start, (long long)last, (long long)min, (long long)max);
            return NULL;
        }
    }
    th_tensor *t = th__tensor_empty_host(fn, TH_DT_ENUM, 1, &n);
    if (!t) return NULL;
    char *p = (char *)th_tensor_data(t);
    for (int64_t i = 0; i < n; i++)
        TH_PRIVATE(store)(p + i * (int64_t)sizeof(real),
                          TH_PRIVATE(from_i64)(th__arange_i64_at(start, step, i)));
    return TH__T(t);
}
#endif

TH_API TH_NAME(tensor) *TH_NAME(eye)(int64_t n, int64_t m)
{
    int64_t sizes[2] = {n, m};
    TH_NAME(tensor) *t = TH_PRIVATE(filled)(TH__FN(eye), 2, sizes, TH_PRIVATE(from_i64)(0));
    if (!t) return NULL;
    char *p = (char *)th_tensor_data(TH__B(t));
    const real one = TH_PRIVATE(from_i64)(1);
    for (int64_t i = 0; i < n && i < m; i++) TH_PRIVATE(store)(p + (i * m + i) * (int64_t)sizeof(real), one);
    return t;
}

TH_API TH_NAME(tensor) *TH_NAME(empty_like)(const TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    TH__NEED(t, TH__FN(empty_like));
    return TH__T(th__tensor_empty_like(TH__FN(empty_like), TH_DT_ENUM, TH__B(t)));
}

TH_API TH_NAME(tensor) *TH_NAME(zeros_like)(const TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    TH__NEED(t, TH__FN(zeros_like));
    return TH_PRIVATE(fill_new)(TH__FN(zeros_like), th__tensor_empty_like(TH__FN(zeros_like), TH_DT_ENUM, TH__B(t)),
                                TH_PRIVATE(from_i64)(0));
}

TH_API TH_NAME(tensor) *TH_NAME(ones_like)(const TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    TH__NEED(t, TH__FN(ones_like));
    return TH_PRIVATE(fill_new)(TH__FN(ones_like), th__tensor_empty_like(TH__FN(ones_like), TH_DT_ENUM, TH__B(t)),
                                TH_PRIVATE(from_i64)(1));
}

TH_API TH_NAME(tensor) *TH_NAME(full_like)(const TH_NAME(tensor) *t, real value)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    TH__NEED(t, TH__FN(full_like));
    return TH_PRIVATE(fill_new)(TH__FN(full_like), th__tensor_empty_like(TH__FN(full_like), TH_DT_ENUM, TH__B(t)), value);
}

TH_API TH_NAME(tensor) *TH_NAME(diag)(const TH_NAME(tensor) *t, int64_t k)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    const char *fn = TH__FN(diag);
    const th_tensor *b = TH__B(t);
    if (th__check_readable(fn, b)) return NULL;
    const size_t es = sizeof(real);
    const char *src = (const char *)th_tensor_data(b);
    if (b->ndim == 1) {
        int64_t n = b->sizes[0];
        uint64_t shift = k >= 0 ? (uint64_t)k : 0u - (uint64_t)k;
        if (shift > (uint64_t)(INT64_MAX - n)) {
            th__fail(TH_ERR_OVERFLOW, fn, "%lld elements on diagonal %lld need a matrix larger than int64 counts",
                     (long long)n, (long long)k);
            return NULL;
        }
        int64_t side = n + (int64_t)shift, sizes[2] = {side, side};
        TH_NAME(tensor) *r = TH_PRIVATE(filled)(fn, 2, sizes, TH_PRIVATE(from_i64)(0));
        if (!r) return NULL;
        char *dst = (char *)th_tensor_data(TH__B(r));
        for (int64_t i = 0; i < n; i++) {
            int64_t row = k >= 0 ? i : i + (int64_t)shift, col = k >= 0 ? i + k : i;
            memcpy(dst + (row * side + col) * (int64_t)es, src + i * b->strides[0] * (int64_t)es, es);
        }
        return r;
    }
    if (b->ndim != 2) {
        char shape[160];
        th__shape_string(b->ndim, b->sizes, shape, sizeof shape);
        th__fail(TH_ERR_SHAPE, fn, "t has shape %s; diag takes a 1-d or 2-d tensor", shape);
        return NULL;
    }
    int64_t rows = b->sizes[0], cols = b->sizes[1], len = 0;
    if (k >= 0 && k < cols) len = rows < cols - k ? rows : cols - k;
    if (k < 0 && k > -rows) len = rows + k < cols ? rows + k : cols;
    TH_NAME(tensor) *r = TH__T(th__tensor_empty_host(fn, TH_DT_ENUM, 1, &len));
    if (!r) return NULL;
    char *dst = (char *)th_tensor_data(TH__B(r));
    int64_t row0 = k >= 0 ? 0 : -k, col0 = k >= 0 ? k : 0;
    for (int64_t i = 0; i < len; i++)
        memcpy(dst + i * (int64_t)es, src + ((row0 + i) * b->strides[0] + (col0 + i) * b->strides[1]) * (int64_t)es,
               es);
    return r;
}

/* Zeroes the elements of t (checked writable) outside the triangle: lower keeps column - row <= k, upper
 * keeps column - row >= k; batched over the leading dims. */
static void TH_PRIVATE(zero_outside_triangle)(th_tensor *t, int64_t k, bool lower)
{
    const int nd = t->ndim;
    const int64_t rows = t->sizes[nd - 2], cols = t->sizes[nd - 1];
    const int64_t rs = t->strides[nd - 2] * (int64_t)sizeof(real), cs = t->strides[nd - 1] * (int64_t)sizeof(real);
    if (th__numel(t) == 0) return;
    if (lower ? k >= cols - 1 : k <= 1 - rows) return; /* the triangle holds every element */
    if (k < -rows) k = -rows; /* beyond these no element is kept; clamping keeps i + k + 1 in int64 */
    if (k > cols) k = cols;
    const real zero = TH_PRIVATE(from_i64)(0);
    int64_t nbatch = th__numel(t) / (rows * cols);
    char *base = (char *)th_tensor_data(t);
    for (int64_t bi = 0; bi < nbatch; bi++) {
        char *m = base;
        for (int64_t rest = bi, d = nd - 3; d >= 0; d--) {
            m += (rest % t->sizes[d]) * t->strides[d] * (int64_t)sizeof(real);
            rest /= t->sizes[d];
        }
        for (int64_t i = 0; i < rows; i++) {
            int64_t from = lower ? (i + k + 1 > 0 ? i + k + 1 : 0) : 0;
            int64_t to = lower ? cols : (i + k < cols ? i + k : cols);
            for (int64_t j = from; j < to; j++) TH_PRIVATE(store)(m + i * rs + j * cs, zero);
        }
    }
}

static int TH_PRIVATE(triangle_out)(const char *fn, th_tensor *out, const th_tensor *t, int64_t k, bool lower)
{
    if (th__check_readable(fn, t)) return th_last_status();
    if (t->ndim < 2) {
        return th__fail(TH_ERR_SHAPE, fn, "t has %d dims; a triangle needs at least 2", t->ndim);
    }
    if (th__check_out(fn, out, TH_DT_ENUM, t->ndim, t->sizes)) return th_last_status();
    if (out != t) {
        int status = th__copy(fn, out, t);
        if (status) return status;
    }
    TH_PRIVATE(zero_outside_triangle)(out, k, lower);
    return TH_OK;
}

static TH_NAME(tensor) *TH_PRIVATE(triangle)(const char *fn, const th_tensor *t, int64_t k, bool lower)
{
    if (th__check_readable(fn, t)) return NULL;
    th_tensor *out = th__tensor_empty(fn, TH_DT_ENUM, t->ndim, t->sizes);
    if (!out) return NULL;
    if (TH_PRIVATE(triangle_out)(fn, out, t, k, lower)) {
        th_tensor_release(out);
        return NULL;
    }
    return TH__T(out);
}

TH_API TH_NAME(tensor) *TH_NAME(tril)(const TH_NAME(tensor) *t, int64_t k)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH_PRIVATE(triangle)(TH__FN(tril), TH__B(t), k, true);
}

TH_API int TH_NAME(tril_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int64_t k)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return TH_PRIVATE(triangle_out)(TH__FN(tril_out), TH__B(out), TH__B(t), k, true);
}

TH_API int TH_NAME(tril_inplace)(TH_NAME(tensor) *t, int64_t k)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return TH_PRIVATE(triangle_out)(TH__FN(tril_inplace), TH__B(t), TH__B(t), k, true);
}

TH_API TH_NAME(tensor) *TH_NAME(triu)(const TH_NAME(tensor) *t, int64_t k)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH_PRIVATE(triangle)(TH__FN(triu), TH__B(t), k, false);
}

TH_API int TH_NAME(triu_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int64_t k)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return TH_PRIVATE(triangle_out)(TH__FN(triu_out), TH__B(out), TH__B(t), k, false);
}

TH_API int TH_NAME(triu_inplace)(TH_NAME(tensor) *t, int64_t k)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return TH_PRIVATE(triangle_out)(TH__FN(triu_inplace), TH__B(t), TH__B(t), k, false);
}

#endif /* definitions */
