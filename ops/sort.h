/* ops/sort.h: sort, topk and unique. Stamped per dtype through tensor_generic.h (real dtypes: complex
 * numbers have no order).
 *
 * Order: NaN counts as larger than every number (so it sorts last ascending and first descending, as in
 * NumPy and PyTorch), and all NaNs are equal to each other; -0.0 equals 0.0. Sorting is a stable merge sort,
 * so equal elements keep their order along the dim (in both directions). Index outputs are int64. */
#if !defined(TH_REAL_IS_COMPLEX)
#ifndef TH__DEFINING

/* t sorted along dim (negative counts from the end; a 0-d tensor is one element), as a new contiguous tensor.
 * When indices is not NULL, *indices receives a new i64 tensor of the same shape holding each element's
 * position along dim in t (NULL on error). O(n log n) per row; rows go to several threads when large.
 * Errors: TH_ERR_INVALID (NULL t), TH_ERR_RANGE (dim), TH_ERR_NOMEM, TH_ERR_DEVICE. */
TH_API TH_NAME(tensor) *TH_NAME(sort)(const TH_NAME(tensor) *t, int dim, bool descending, th_i64_tensor **indices);
/* The k largest (largest true) or smallest elements along dim, and their positions in *indices when
 * indices is not NULL: t's shape with dim of size k. sorted true gives them in order (largest first when
 * largest), ties by position; sorted false gives the same k elements in their order along dim. Errors: those
 * of sort, and TH_ERR_RANGE for k outside 0..size of dim (k must be 1 for a 0-d t). */
TH_API TH_NAME(tensor) *TH_NAME(topk)(const TH_NAME(tensor) *t, int64_t k, int dim, bool largest, bool sorted,
                                      th_i64_tensor **indices);
/* The same into values and (unless NULL) indices, which must have exactly the result's shape and dtype, any
 * strides, and may overlap t: the result is made first and then copied, so an out that is t itself (an in-place
 * sort) is fine. Returns 0 or a negative status; a bad argument writes nothing. Errors also: NULL values
 * (TH_ERR_INVALID), an out of another shape (TH_ERR_SHAPE) or dtype (TH_ERR_DTYPE), read-only or with
 * overlapping elements. */
TH_API int TH_NAME(sort_out)(TH_NAME(tensor) *values, th_i64_tensor *indices, const TH_NAME(tensor) *t, int dim,
                             bool descending);
TH_API int TH_NAME(topk_out)(TH_NAME(tensor) *values, th_i64_tensor *indices, const TH_NAME(tensor) *t, int64_t k,
                             int dim, bool largest, bool sorted);
/* The distinct values of t (all its elements, in row-major order) as a 1-d tensor: ascending when sorted is
 * true, else in the order of their first occurrence. When not NULL, *inverse receives an i64 tensor of t's
 * shape giving each element's position in the result, and *counts a 1-d i64 tensor of how often each value
 * occurs. Errors: TH_ERR_INVALID (NULL t), TH_ERR_NOMEM, TH_ERR_DEVICE. */
TH_API TH_NAME(tensor) *TH_NAME(unique)(const TH_NAME(tensor) *t, bool sorted, th_i64_tensor **inverse,
                                        th_i64_tensor **counts);

#else /* definitions */

/* What is compared: f16 and bf16 in float, every other dtype as itself. */
#if defined(TH_REAL_IS_REDUCED)
typedef float TH_PRIVATE(sort_key);
#else
typedef real TH_PRIVATE(sort_key);
#endif

typedef struct TH_PRIVATE(sort_item) {
    TH_PRIVATE(sort_key) key;
    int64_t pos; /* position along the dim */
} TH_PRIVATE(sort_item);

static inline TH_PRIVATE(sort_key) TH_PRIVATE(sort_key_of)(const char *p)
{
#if defined(TH_REAL_IS_REDUCED)
    return TH_REAL_TO_ACCREAL(TH_PRIVATE(load)(p));
#else
    return TH_PRIVATE(load)(p);
#endif
}

static inline bool TH_PRIVATE(sort_less)(TH_PRIVATE(sort_key) a, TH_PRIVATE(sort_key) b)
{
#if defined(TH_REAL_IS_FLOATING)
    return a < b || (isnan(b) && !isnan(a));
#else
    return a < b;
#endif
}

/* x goes before y: strictly, so that a merge taking the left item unless the right one goes first is stable. */
static inline bool TH_PRIVATE(sort_before)(const TH_PRIVATE(sort_item) *x, const TH_PRIVATE(sort_item) *y,
                                           bool descending)
{
    return descending ? TH_PRIVATE(sort_less)(y->key, x->key) : TH_PRIVATE(sort_less)(x->key, y->key);
}

enum { TH_PRIVATE(sort_run) = 32 };

/* Stable bottom-up merge sort of a[0..n) using tmp[0..n): insertion sort of runs of 32, then merges that
 * alternate between the two buffers. */
static TH__HOT void TH_PRIVATE(sort_items)(TH_PRIVATE(sort_item) *a, TH_PRIVATE(sort_item) *tmp, int64_t n,
                                           bool descending)
{
    for (int64_t lo = 0; lo < n; lo += TH_PRIVATE(sort_run)) {
        int64_t hi = lo + TH_PRIVATE(sort_run) < n ? lo + TH_PRIVATE(sort_run) : n;
        for (int64_t i = lo + 1; i < hi; i++) {
            TH_PRIVATE(sort_item) x = a[i];
            int64_t j = i;
            for (; j > lo && TH_PRIVATE(sort_before)(&x, &a[j - 1], descending); j--) a[j] = a[j - 1];
            a[j] = x;
        }
    }
    TH_PRIVATE(sort_item) *src = a, *dst = tmp;
    for (int64_t width = TH_PRIVATE(sort_run); width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t x = lo, y = mid, o = lo;
            while (x < mid && y < hi)
                dst[o++] = TH_PRIVATE(sort_before)(&src[y], &src[x], descending) ? src[y++] : src[x++];
            while (x < mid) dst[o++] = src[x++];
            while (y < hi) dst[o++] = src[y++];
        }
        TH_PRIVATE(sort_item) *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

/* One sort or topk: every row along dim of src is sorted and its first k items written to the outputs
 * (contiguous, of src's shape with dim of size k). */
typedef struct TH_PRIVATE(sort_job) {
    const th_tensor *src;
    int dim;
    int64_t n, k;
    bool descending, in_order; /* in_order: the k items in their order along dim (topk with sorted false) */
    char *values;
    int64_t *indices; /* NULL when not wanted */
    int64_t out_strides[TH_MAX_DIMS]; /* elements, of the outputs */
    _Atomic int failed; /* a thread could not get its scratch */
} TH_PRIVATE(sort_job);

static void TH_PRIVATE(sort_rows)(void *job_, int64_t begin, int64_t end)
{
    TH_PRIVATE(sort_job) *job = (TH_PRIVATE(sort_job) *)job_;
    if (begin >= end) return;
    const th_tensor *t = job->src;
    const int64_t n = job->n, es = (int64_t)sizeof(real);
    const int64_t in_step = t->ndim > 0 ? t->strides[job->dim] * es : 0;
    const int64_t out_step = t->ndim > 0 ? job->out_strides[job->dim] : 0;
    TH_PRIVATE(sort_item) *items = (TH_PRIVATE(sort_item) *)malloc((size_t)(2 * n + 1) * sizeof *items);
    if (!items) {
        atomic_store(&job->failed, 1);
        return;
    }
    const char *in_base = (const char *)th_tensor_data(t);
    for (int64_t r = begin; r < end; r++) {
        const char *in = in_base;
        int64_t out = 0;
        for (int64_t rest = r, d = t->ndim - 1; d >= 0; d--) { /* row r over the other dims, row-major */
            if (d == job->dim) continue;
            int64_t i = rest % t->sizes[d];
            rest /= t->sizes[d];
            in += i * t->strides[d] * es;
            out += i * job->out_strides[d];
        }
        for (int64_t i = 0; i < n; i++) {
            items[i].key = TH_PRIVATE(sort_key_of)(in + i * in_step);
            items[i].pos = i;
        }
        TH_PRIVATE(sort_items)(items, items + n, n, job->descending);
        if (job->in_order) { /* mark the k chosen positions, then walk the dim in order */
            unsigned char *chosen = (unsigned char *)(items + n);
            memset(chosen, 0, (size_t)n);
            for (int64_t j = 0; j < job->k; j++) chosen[items[j].pos] = 1;
            int64_t o = 0;
            for (int64_t i = 0; i < n; i++)
                if (chosen[i]) items[o++].pos = i;
        }
        for (int64_t j = 0; j < job->k; j++) {
            int64_t pos = items[j].pos;
            memcpy(job->values + (out + j * out_step) * es, in + pos * in_step, (size_t)es);
            if (job->indices) job->indices[out + j * out_step] = pos;
        }
    }
    free(items);
}

static TH_NAME(tensor) *TH_PRIVATE(sort_impl)(const char *fn, const th_tensor *t, int dim, int64_t k, bool topk,
                                              bool descending, bool in_order, th_i64_tensor **indices)
{
    if (indices) *indices = NULL;
    if (th__check_readable(fn, t)) return NULL;
    int d = 0;
    if (th__wrap_dim(fn, dim, t->ndim, &d)) return NULL;
    int64_t n = t->ndim > 0 ? t->sizes[d] : 1;
    if (!topk) k = n;
    if (k < 0 || k > n || (t->ndim == 0 && k != 1)) {
        th__fail(TH_ERR_RANGE, fn, "k %lld is outside %lld..%lld (the size of dim %d)", (long long)k,
                 t->ndim > 0 ? 0LL : 1LL, (long long)n, dim);
        return NULL;
    }
    int64_t sizes[TH_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) sizes[i] = i == d ? k : t->sizes[i];
    th_tensor *values = th__tensor_empty_host(fn, TH_DT_ENUM, t->ndim, sizes);
    th_tensor *idx = indices ? th__tensor_empty_host(fn, TH_I64, t->ndim, sizes) : NULL;
    if (!values || (indices && !idx)) {
        th_tensor_release(values);
        th_tensor_release(idx);
        return NULL;
    }
    TH_PRIVATE(sort_job) job;
    job.src = t;
    job.dim = d;
    job.n = n;
    job.k = k;
    job.descending = descending;
    job.in_order = in_order;
    job.values = (char *)th_tensor_data(values);
    job.indices = idx ? (int64_t *)th_tensor_data(idx) : NULL;
    th__contiguous_strides(t->ndim, sizes, job.out_strides);
    atomic_init(&job.failed, 0);
    int64_t numel = th__numel(t), rows = n > 0 ? numel / n : 0;
    if (rows > 0 && k > 0) {
        int64_t log_n = 1;
        while (log_n < 64 && (INT64_C(1) << log_n) < n) log_n++;
        int nthreads = th__threads_for(numel * log_n);
        if (nthreads > rows) nthreads = (int)rows;
        th__parallel_chunks(rows, nthreads, TH_PRIVATE(sort_rows), &job);
    }
    if (atomic_load(&job.failed)) {
        th_tensor_release(values);
        th_tensor_release(idx);
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the scratch of a row of %lld elements", (long long)n);
        return NULL;
    }
    if (indices) *indices = (th_i64_tensor *)idx;
    return TH__T(values);
}

TH_API TH_NAME(tensor) *TH_NAME(sort)(const TH_NAME(tensor) *t, int dim, bool descending, th_i64_tensor **indices)
{
    if (indices) *indices = NULL;
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH_PRIVATE(sort_impl)(TH__FN(sort), TH__B(t), dim, 0, false, descending, false, indices);
}

TH_API TH_NAME(tensor) *TH_NAME(topk)(const TH_NAME(tensor) *t, int64_t k, int dim, bool largest, bool sorted,
                                      th_i64_tensor **indices)
{
    if (indices) *indices = NULL;
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH_PRIVATE(sort_impl)(TH__FN(topk), TH__B(t), dim, k, true, largest, !sorted, indices);
}

/* sort_out and topk_out: the new-tensor form, then both outs checked before either is written. */
static int TH_PRIVATE(sort_into)(const char *fn, th_tensor *values_out, th_tensor *indices_out, const th_tensor *t,
                                 int dim, int64_t k, bool topk, bool descending, bool in_order)
{
    if (!values_out) return th__fail(TH_ERR_INVALID, fn, "NULL values out");
    th_i64_tensor *idx = NULL;
    TH_NAME(tensor) *values =
        TH_PRIVATE(sort_impl)(fn, t, dim, k, topk, descending, in_order, indices_out ? &idx : NULL);
    if (!values) return th_last_status();
    const th_tensor *v = TH__B(values);
    int status = th__check_out(fn, values_out, TH_DT_ENUM, v->ndim, v->sizes);
    if (status == TH_OK && indices_out) status = th__check_out(fn, indices_out, TH_I64, v->ndim, v->sizes);
    if (status == TH_OK) status = th__copy(fn, values_out, v);
    if (status == TH_OK && indices_out) status = th__copy(fn, indices_out, (th_tensor *)idx);
    th_tensor_release((th_tensor *)values);
    th_tensor_release((th_tensor *)idx);
    return status;
}

TH_API int TH_NAME(sort_out)(TH_NAME(tensor) *values, th_i64_tensor *indices, const TH_NAME(tensor) *t, int dim,
                             bool descending)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return TH_PRIVATE(sort_into)(TH__FN(sort_out), TH__B(values), (th_tensor *)indices, TH__B(t), dim, 0, false,
                                 descending, false);
}

TH_API int TH_NAME(topk_out)(TH_NAME(tensor) *values, th_i64_tensor *indices, const TH_NAME(tensor) *t, int64_t k,
                             int dim, bool largest, bool sorted)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return TH_PRIVATE(sort_into)(TH__FN(topk_out), TH__B(values), (th_tensor *)indices, TH__B(t), dim, k, true,
                                 largest, !sorted);
}

TH_API TH_NAME(tensor) *TH_NAME(unique)(const TH_NAME(tensor) *t, bool sorted, th_i64_tensor **inverse,
                                        th_i64_tensor **counts)
{
    const char *fn = TH__FN(unique);
    if (inverse) *inverse = NULL;
    if (counts) *counts = NULL;
    if (TH__WRONG_DTYPE(t)) return NULL;
    TH__NEED(t, fn);
    /* row-major order, whatever t's strides */
    th_tensor *c = th__contiguous_on_host(fn, TH__B(t), "the tensor", "touch");
    if (!c) return NULL;
    const int64_t n = th__numel(c), es = (int64_t)sizeof(real);
    const char *src = (const char *)th_tensor_data(c);
    /* items, then the group of each sorted item, then each group's place in the result */
    TH_PRIVATE(sort_item) *items = (TH_PRIVATE(sort_item) *)malloc((size_t)(2 * n + 1) * sizeof *items);
    int64_t *group = (int64_t *)malloc((size_t)(2 * n + 1) * sizeof(int64_t));
    th_tensor *values = NULL, *inv = NULL, *cnt = NULL;
    if (!items || !group) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the scratch of %lld elements", (long long)n);
        goto fail;
    }
    for (int64_t i = 0; i < n; i++) {
        items[i].key = TH_PRIVATE(sort_key_of)(src + i * es);
        items[i].pos = i;
    }
    TH_PRIVATE(sort_items)(items, items + n, n, false);
    int64_t ngroups = 0;
    for (int64_t j = 0; j < n; j++) {
        bool same = j > 0 && !TH_PRIVATE(sort_less)(items[j - 1].key, items[j].key);
        if (!same) ngroups++;
        group[j] = ngroups - 1;
    }
    /* place[g]: where group g goes in the result. Sorted: g itself. Else by first occurrence: a stable sort
     * puts each group's first occurrence first, so mark it and walk the elements in order. */
    int64_t *place = group + n;
    if (sorted) {
        for (int64_t g = 0; g < ngroups; g++) place[g] = g;
    } else {
        int64_t *first_of = (int64_t *)(void *)(items + n); /* position -> group starting there, or -1 */
        for (int64_t i = 0; i < n; i++) first_of[i] = -1;
        for (int64_t j = 0; j < n; j++)
            if (j == 0 || group[j] != group[j - 1]) first_of[items[j].pos] = group[j];
        int64_t next = 0;
        for (int64_t i = 0; i < n; i++)
            if (first_of[i] >= 0) place[first_of[i]] = next++;
    }
    values = th__tensor_empty_host(fn, TH_DT_ENUM, 1, &ngroups);
    if (inverse) inv = th__tensor_empty_host(fn, TH_I64, c->ndim, c->sizes);
    if (counts) cnt = th__tensor_empty_host(fn, TH_I64, 1, &ngroups);
    if (!values || (inverse && !inv) || (counts && !cnt)) goto fail;
    char *v = (char *)th_tensor_data(values);
    int64_t *iv = inv ? (int64_t *)th_tensor_data(inv) : NULL, *ct = cnt ? (int64_t *)th_tensor_data(cnt) : NULL;
    if (ct)
        for (int64_t g = 0; g < ngroups; g++) ct[g] = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t p = place[group[j]];
        if (j == 0 || group[j] != group[j - 1]) memcpy(v + p * es, src + items[j].pos * es, (size_t)es);
        if (iv) iv[items[j].pos] = p;
        if (ct) ct[p]++;
    }
    free(items);
    free(group);
    th_tensor_release(c);
    if (inverse) *inverse = (th_i64_tensor *)inv;
    if (counts) *counts = (th_i64_tensor *)cnt;
    return TH__T(values);
fail:
    free(items);
    free(group);
    th_tensor_release(c);
    th_tensor_release(values);
    th_tensor_release(inv);
    th_tensor_release(cnt);
    return NULL;
}

#endif /* definitions */
#endif /* not complex */
