/* core/view.h: views: narrow, select, transpose, permute, expand, reshape and their kin, dtype-erased behind
 * the typed front doors of tensor_generic.h; a view is a new header over the same storage.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/view.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* The real and imaginary parts of a complex tensor as views of the real dtype of the same precision (c64 ->
 * f32, c128 -> f64), as PyTorch's real and imag: the same storage, every stride doubled, so writing through the
 * view writes the complex tensor. real of a tensor that is not complex is the tensor itself (retained); imag of
 * one is TH_ERR_DTYPE. The typed forms are th_c64_real / th_c64_imag and th_c128_real / th_c128_imag. */
TH_API th_tensor *th_tensor_real(th_tensor *t);
TH_API th_tensor *th_tensor_imag(th_tensor *t);

#else /* TH__DEFINING */

static th_tensor *th__view_of(const char *fn, const th_tensor *src, int64_t offset, int ndim, const int64_t *sizes,
                              const int64_t *strides)
{
    return th__tensor_make(fn, src->dtype, src->storage, offset, ndim, sizes, strides);
}

#define TH__NEED(t, fn)                                    \
    do {                                                   \
        if (!(t)) {                                        \
            th__fail(TH_ERR_INVALID, fn, "NULL tensor");   \
            return NULL;                                   \
        }                                                  \
    } while (0)

static th_tensor *th__complex_part(const char *fn, th_tensor *t, bool imag)
{
    TH__NEED(t, fn);
    if (t->dtype != TH_C64 && t->dtype != TH_C128) {
        if (!imag) return th_tensor_retain(t);
        th__fail(TH_ERR_DTYPE, fn, "t is %s; only a complex tensor has an imaginary part", th_dtype_name(t->dtype));
        return NULL;
    }
    int64_t strides[TH_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++)
        if (__builtin_mul_overflow(t->strides[d], 2, &strides[d])) {
            th__fail(TH_ERR_OVERFLOW, fn, "stride %lld of dim %d doubled overflows int64", (long long)t->strides[d], d);
            return NULL;
        }
    return th__tensor_make(fn, t->dtype == TH_C64 ? TH_F32 : TH_F64, t->storage, 2 * t->offset + imag, t->ndim,
                           t->sizes, strides);
}

TH_API th_tensor *th_tensor_real(th_tensor *t) { return th__complex_part("th_tensor_real", t, false); }
TH_API th_tensor *th_tensor_imag(th_tensor *t) { return th__complex_part("th_tensor_imag", t, true); }

/* Replaces one -1 in sizes by what makes the element count numel. */
static int th__infer_size(const char *fn, int ndim, const int64_t *sizes, int64_t numel, int64_t *out)
{
    if (ndim < 0 || ndim > TH_MAX_DIMS)
        return th__fail(TH_ERR_RANGE, fn, "ndim %d is outside 0..%d (TH_MAX_DIMS)", ndim, TH_MAX_DIMS);
    if (ndim > 0 && !sizes) return th__fail(TH_ERR_INVALID, fn, "NULL sizes for ndim %d", ndim);
    int infer = -1;
    int64_t known = 1, nonzero = 1; /* nonzero: a zero size must not hide an overflowing shape */
    for (int d = 0; d < ndim; d++) {
        out[d] = sizes[d];
        if (sizes[d] == -1) {
            if (infer >= 0) return th__fail(TH_ERR_INVALID, fn, "more than one -1 in the sizes (dims %d and %d)", infer, d);
            infer = d;
        } else if (sizes[d] < 0) {
            return th__fail(TH_ERR_INVALID, fn, "negative size %lld in dim %d", (long long)sizes[d], d);
        } else if (__builtin_mul_overflow(nonzero, sizes[d] ? sizes[d] : 1, &nonzero)) {
            return th__fail(TH_ERR_OVERFLOW, fn, "the element count of the sizes overflows int64 at dim %d", d);
        } else {
            known *= sizes[d];
        }
    }
    if (infer >= 0) {
        if (known == 0 || numel % known != 0)
            return th__fail(TH_ERR_SHAPE, fn, "cannot infer the size of dim %d: %lld elements do not divide by %lld",
                            infer, (long long)numel, (long long)known);
        out[infer] = numel / known;
        known = numel;
    }
    if (known != numel)
        return th__fail(TH_ERR_SHAPE, fn, "a view of %lld elements cannot hold the tensor's %lld elements",
                        (long long)known, (long long)numel);
    return TH_OK;
}

/* Strides that let a tensor of (sizes, strides) be seen as new_sizes without moving data; false when the
 * memory layout does not allow it. Dims are grouped into runs that are contiguous with each other, and
 * each run must be split or merged by the new shape without crossing a run's border. */
static bool th__view_strides(int ndim, const int64_t *sizes, const int64_t *strides, int new_ndim,
                             const int64_t *new_sizes, int64_t *new_strides)
{
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) numel *= sizes[d];
    if (numel == 0 || ndim == 0) {
        th__contiguous_strides(new_ndim, new_sizes, new_strides);
        return true;
    }
    int view_d = new_ndim - 1;
    int64_t chunk_stride = strides[ndim - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        tensor_numel *= sizes[d];
        bool run_ends = d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_stride);
        if (!run_ends) continue;
        while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
            new_strides[view_d] = view_numel * chunk_stride;
            view_numel *= new_sizes[view_d];
            view_d--;
        }
        if (view_numel != tensor_numel) return false;
        if (d > 0) {
            chunk_stride = strides[d - 1];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    return view_d == -1;
}

static th_tensor *th__view(const char *fn, const th_tensor *t, int ndim, const int64_t *sizes)
{
    TH__NEED(t, fn);
    int64_t new_sizes[TH_MAX_DIMS], new_strides[TH_MAX_DIMS];
    if (th__infer_size(fn, ndim, sizes, th__numel(t), new_sizes)) return NULL;
    if (th_tensor_is_contiguous(t))
        th__contiguous_strides(ndim, new_sizes, new_strides);
    else if (!th__view_strides(t->ndim, t->sizes, t->strides, ndim, new_sizes, new_strides)) {
        th__fail(TH_ERR_SHAPE, fn, "the tensor's strides do not allow this shape without a copy (use reshape or contiguous)");
        return NULL;
    }
    return th__view_of(fn, t, t->offset, ndim, new_sizes, new_strides);
}

static th_tensor *th__transpose(const char *fn, const th_tensor *t, int dim0, int dim1)
{
    TH__NEED(t, fn);
    int a = 0, b = 0;
    if (th__wrap_dim(fn, dim0, t->ndim, &a) || th__wrap_dim(fn, dim1, t->ndim, &b)) return NULL;
    th_tensor *v = th__view_of(fn, t, t->offset, t->ndim, t->sizes, t->strides);
    if (v && t->ndim > 0) {
        v->sizes[a] = t->sizes[b];
        v->sizes[b] = t->sizes[a];
        v->strides[a] = t->strides[b];
        v->strides[b] = t->strides[a];
    }
    return v;
}

static th_tensor *th__permute(const char *fn, const th_tensor *t, const int *dims)
{
    TH__NEED(t, fn);
    if (t->ndim > 0 && !dims) {
        th__fail(TH_ERR_INVALID, fn, "NULL dims for a %d-d tensor", t->ndim);
        return NULL;
    }
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    bool seen[TH_MAX_DIMS] = {false};
    for (int d = 0; d < t->ndim; d++) {
        int s = 0;
        if (th__wrap_dim_once(fn, dims[d], t->ndim, seen, "the permutation", &s)) return NULL;
        sizes[d] = t->sizes[s];
        strides[d] = t->strides[s];
    }
    return th__view_of(fn, t, t->offset, t->ndim, sizes, strides);
}

static th_tensor *th__narrow(const char *fn, const th_tensor *t, int dim, int64_t start, int64_t length)
{
    TH__NEED(t, fn);
    int d = 0;
    if (th__wrap_dim(fn, dim, t->ndim, &d)) return NULL;
    if (t->ndim == 0) {
        th__fail(TH_ERR_RANGE, fn, "cannot narrow a 0-d tensor");
        return NULL;
    }
    int64_t size = t->sizes[d];
    int64_t s = start < 0 ? start + size : start;
    if (s < 0 || s > size) {
        th__fail(TH_ERR_RANGE, fn, "start %lld is out of range for size %lld of dim %d", (long long)start,
                 (long long)size, d);
        return NULL;
    }
    if (length < 0 || length > size - s) {
        th__fail(TH_ERR_RANGE, fn, "start %lld + length %lld exceeds size %lld of dim %d", (long long)s,
                 (long long)length, (long long)size, d);
        return NULL;
    }
    th_tensor *v = th__view_of(fn, t, t->offset + (length > 0 ? s * t->strides[d] : 0), t->ndim, t->sizes,
                               t->strides);
    if (v) v->sizes[d] = length;
    return v;
}

static th_tensor *th__select(const char *fn, const th_tensor *t, int dim, int64_t index)
{
    TH__NEED(t, fn);
    if (t->ndim == 0) {
        th__fail(TH_ERR_RANGE, fn, "cannot select from a 0-d tensor");
        return NULL;
    }
    int d = 0;
    if (th__wrap_dim(fn, dim, t->ndim, &d)) return NULL;
    int64_t i = index < 0 ? index + t->sizes[d] : index;
    if (i < 0 || i >= t->sizes[d]) {
        th__fail(TH_ERR_RANGE, fn, "index %lld is out of range for size %lld of dim %d", (long long)index,
                 (long long)t->sizes[d], d);
        return NULL;
    }
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    for (int k = 0, o = 0; k < t->ndim; k++) {
        if (k == d) continue;
        sizes[o] = t->sizes[k];
        strides[o++] = t->strides[k];
    }
    return th__view_of(fn, t, t->offset + i * t->strides[d], t->ndim - 1, sizes, strides);
}

static th_tensor *th__unfold(const char *fn, const th_tensor *t, int dim, int64_t size, int64_t step)
{
    TH__NEED(t, fn);
    if (t->ndim == 0 || t->ndim >= TH_MAX_DIMS) {
        th__fail(TH_ERR_RANGE, fn, "unfold needs 1..%d dims, the tensor has %d", TH_MAX_DIMS - 1, t->ndim);
        return NULL;
    }
    int d = 0;
    if (th__wrap_dim(fn, dim, t->ndim, &d)) return NULL;
    if (size < 0 || size > t->sizes[d]) {
        th__fail(TH_ERR_RANGE, fn, "window size %lld exceeds size %lld of dim %d", (long long)size,
                 (long long)t->sizes[d], d);
        return NULL;
    }
    if (step <= 0) {
        th__fail(TH_ERR_INVALID, fn, "step %lld must be positive", (long long)step);
        return NULL;
    }
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    sizes[d] = (t->sizes[d] - size) / step + 1;
    if (__builtin_mul_overflow(t->strides[d], step, &strides[d])) {
        if (sizes[d] > 1) {
            th__fail(TH_ERR_OVERFLOW, fn, "stride %lld times step %lld overflows int64", (long long)t->strides[d],
                     (long long)step);
            return NULL;
        }
        strides[d] = t->strides[d]; /* a single window: its stride is never used */
    }
    sizes[t->ndim] = size;
    strides[t->ndim] = t->strides[d];
    int64_t numel;
    if (th__check_sizes(fn, t->ndim + 1, sizes, &numel)) return NULL;
    return th__view_of(fn, t, t->offset, t->ndim + 1, sizes, strides);
}

static th_tensor *th__squeeze(const char *fn, const th_tensor *t, int only_dim)
{
    TH__NEED(t, fn);
    int d_only = -1;
    if (only_dim != INT_MIN && th__wrap_dim(fn, only_dim, t->ndim, &d_only)) return NULL;
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        bool drop = t->sizes[d] == 1 && (d_only < 0 || d == d_only);
        if (drop) continue;
        sizes[n] = t->sizes[d];
        strides[n++] = t->strides[d];
    }
    return th__view_of(fn, t, t->offset, n, sizes, strides);
}

static th_tensor *th__unsqueeze(const char *fn, const th_tensor *t, int dim)
{
    TH__NEED(t, fn);
    if (t->ndim >= TH_MAX_DIMS) {
        th__fail(TH_ERR_RANGE, fn, "the tensor already has TH_MAX_DIMS (%d) dims", TH_MAX_DIMS);
        return NULL;
    }
    if (dim < -(t->ndim + 1) || dim > t->ndim) {
        th__fail(TH_ERR_RANGE, fn, "dim %d is out of range %d..%d", dim, -(t->ndim + 1), t->ndim);
        return NULL;
    }
    int at = dim < 0 ? dim + t->ndim + 1 : dim;
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    for (int d = 0, o = 0; d <= t->ndim; d++) {
        if (d == at) {
            int64_t stride = 1; /* a size-1 dim's stride is never used: pick the contiguous one when it fits */
            if (d < t->ndim && __builtin_mul_overflow(t->sizes[d], t->strides[d], &stride)) stride = 1;
            sizes[o] = 1;
            strides[o++] = stride;
        }
        if (d < t->ndim) {
            sizes[o] = t->sizes[d];
            strides[o++] = t->strides[d];
        }
    }
    return th__view_of(fn, t, t->offset, t->ndim + 1, sizes, strides);
}

static th_tensor *th__expand(const char *fn, const th_tensor *t, int ndim, const int64_t *sizes)
{
    TH__NEED(t, fn);
    if (ndim < t->ndim || ndim > TH_MAX_DIMS) {
        th__fail(TH_ERR_RANGE, fn, "cannot expand %d dims to %d (at least %d, at most TH_MAX_DIMS %d)", t->ndim,
                 ndim, t->ndim, TH_MAX_DIMS);
        return NULL;
    }
    if (ndim > 0 && !sizes) {
        th__fail(TH_ERR_INVALID, fn, "NULL sizes for ndim %d", ndim);
        return NULL;
    }
    int64_t new_sizes[TH_MAX_DIMS], new_strides[TH_MAX_DIMS];
    int lead = ndim - t->ndim;
    for (int d = 0; d < ndim; d++) {
        int64_t want = sizes[d];
        if (d < lead) {
            if (want < 0) {
                th__fail(TH_ERR_INVALID, fn, "size %lld for new leading dim %d (must be >= 0)", (long long)want, d);
                return NULL;
            }
            new_sizes[d] = want;
            new_strides[d] = 0;
            continue;
        }
        int64_t have = t->sizes[d - lead];
        if (want == -1 || want == have) {
            new_sizes[d] = have;
            new_strides[d] = t->strides[d - lead];
        } else if (have == 1 && want >= 0) {
            new_sizes[d] = want;
            new_strides[d] = 0;
        } else {
            th__fail(TH_ERR_SHAPE, fn, "cannot expand dim %d of size %lld to %lld (only size-1 dims expand)",
                     d - lead, (long long)have, (long long)want);
            return NULL;
        }
    }
    int64_t numel;
    if (th__check_sizes(fn, ndim, new_sizes, &numel)) return NULL;
    return th__view_of(fn, t, t->offset, ndim, new_sizes, new_strides);
}

static th_tensor *th__as_strided(const char *fn, const th_tensor *t, int ndim, const int64_t *sizes,
                                 const int64_t *strides, int64_t offset)
{
    TH__NEED(t, fn);
    int64_t numel;
    if (th__check_sizes(fn, ndim, sizes, &numel)) return NULL;
    if (ndim > 0 && !strides) {
        th__fail(TH_ERR_INVALID, fn, "NULL strides for ndim %d", ndim);
        return NULL;
    }
    if (th__check_in_storage(fn, t->dtype, t->storage, offset, ndim, sizes, strides, numel)) return NULL;
    return th__view_of(fn, t, offset, ndim, sizes, strides);
}

static th_tensor *th__flatten(const char *fn, const th_tensor *t, int start_dim, int end_dim)
{
    TH__NEED(t, fn);
    if (t->ndim == 0) {
        int64_t one = 1;
        int dummy;
        if (th__wrap_dim(fn, start_dim, 0, &dummy) || th__wrap_dim(fn, end_dim, 0, &dummy)) return NULL;
        return th__view(fn, t, 1, &one);
    }
    int s = 0, e = 0;
    if (th__wrap_dim(fn, start_dim, t->ndim, &s) || th__wrap_dim(fn, end_dim, t->ndim, &e)) return NULL;
    if (s > e) {
        th__fail(TH_ERR_RANGE, fn, "start_dim %d comes after end_dim %d", s, e);
        return NULL;
    }
    int64_t sizes[TH_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < s; d++) sizes[n++] = t->sizes[d];
    int64_t merged = 1;
    for (int d = s; d <= e; d++) merged *= t->sizes[d];
    sizes[n++] = merged;
    for (int d = e + 1; d < t->ndim; d++) sizes[n++] = t->sizes[d];
    return th__view(fn, t, n, sizes);
}

#endif /* TH__DEFINING */
