/* ops/index_erased.h: index_select, gather, scatter, scatter_add, masked_fill, masked_select,
 * nonzero, take and put, written once on untyped elements of es bytes. The two things that need the element
 * type (adding two elements for scatter_add and put with accumulate, testing an element for nonzero) come in
 * as functions from ops/index.h. Index tensors are int64 and masks bool in every build, so they are
 * read here through their bytes, whatever dtypes were stamped. Uses the helpers of shape_erased.h. */
#ifndef TH__DEFINING
#else

/* *dst[i] += src[i * stride] for i in 0..n-1, in order (two dst may be one element). One call per block of
 * destinations keeps the per-dtype call out of the per-element loop. */
typedef void (*th__index_add_fn)(char *const *dst, const char *src, int64_t stride, int64_t n);
typedef bool (*th__index_nonzero_fn)(const char *p);

enum { TH__INDEX_BLOCK = 256 };

TH__MAYBE_UNUSED static inline int64_t th__index_load(const char *p)
{
    int64_t v;
    memcpy(&v, p, sizeof v); /* blobs may be unaligned */
    return v;
}

TH__MAYBE_UNUSED static inline void th__index_store(char *p, int64_t v) { memcpy(p, &v, sizeof v); }

/* One element of es bytes; a constant es after inlining gives one load and one store. */
TH__MAYBE_UNUSED static inline void th__index_move(char *dst, const char *src, size_t es)
{
    TH__DISPATCH_ELSIZE(es, memcpy, dst, src);
}

TH__MAYBE_UNUSED static inline void th__index_write_block_sized(char *const *dst, const char *src, int64_t stride, int64_t n,
                                               size_t es)
{
    for (int64_t i = 0; i < n; i++) th__index_move(dst[i], src + i * stride, es);
}

/* Writes (or with add, adds) src's n elements to the addresses in dst, in order. */
TH__MAYBE_UNUSED static TH__HOT void th__index_write_block(char *const *dst, const char *src, int64_t stride, int64_t n, size_t es,
                                          th__index_add_fn add)
{
    if (add) {
        add(dst, src, stride, n);
        return;
    }
    TH__DISPATCH_ELSIZE(es, th__index_write_block_sized, dst, src, stride, n);
}

/* An operand's checks that read no memory: not NULL, its view inside its storage, and (host) host memory; a
 * device operand's device is checked with the others' by th__index_on_device. */
TH__MAYBE_UNUSED static int th__index_check_input(const char *fn, const th_tensor *t, const char *what, bool host)
{
    if (host) return th__shape_check_input(fn, t, what);
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL %s", what);
    return th__check_fits(fn, t);
}

TH__MAYBE_UNUSED static int th__index_check_kind_on(const char *fn, const th_tensor *t, th_dtype want, const char *what,
                                                    bool host)
{
    if (th__index_check_input(fn, t, what, host)) return th_last_status();
    if (t->dtype != want)
        return th__fail(TH_ERR_DTYPE, fn, "%s is %s; it must be %s", what, th_dtype_name(t->dtype), th_dtype_name(want));
    return TH_OK;
}

TH__MAYBE_UNUSED static int th__index_check_kind(const char *fn, const th_tensor *t, th_dtype want, const char *what)
{
    return th__index_check_kind_on(fn, t, want, what, true);
}

/* masked_fill's and masked_select's operands: t and its bool mask checked (host: as the host reads them), and
 * the shape they broadcast to. */
TH__MAYBE_UNUSED static int th__index_mask_shape(const char *fn, const th_tensor *t, const th_tensor *mask, bool host,
                                                 int *ndim, int64_t *sizes)
{
    if (th__index_check_input(fn, t, "tensor", host) || th__index_check_kind_on(fn, mask, TH_BOOL, "mask", host))
        return th_last_status();
    const th_tensor *both[2] = {t, mask};
    return th__broadcast_shape(fn, 2, both, ndim, sizes);
}

/* ---- device operands ----
 * Each driver below looks first at where its operands live: when any is device memory, the op is handed to the
 * companion of that device (core/device_ops.h) after the checks that read no memory, and the host code after
 * it is not reached. Index values cannot be checked without reading them: the companion checks them. */

/* Whether any of the n operands (NULL ones skipped: the checks report them) is device memory. */
TH__MAYBE_UNUSED static bool th__index_any_device(int n, const th_tensor *const *ts)
{
    for (int i = 0; i < n; i++)
        if (ts[i] && !th_device_is_host(ts[i]->storage->device)) return true;
    return false;
}

/* Hands call to the companion of its operands' device, once they are on one device with no host tensor among
 * them (a 0-d one is no scalar here: a kernel would read it as device memory). out, when given, is checked. */
TH__MAYBE_UNUSED static th_tensor *th__index_on_device(const char *fn, th_tensor *out, const th_device_index *call)
{
    const th_tensor *in[4];
    int n = 0;
    in[n++] = call->self;
    if (call->index) in[n++] = call->index;
    if (call->mask) in[n++] = call->mask;
    if (call->src) in[n++] = call->src;
    th_device device = {0, 0};
    if (th__device_of_operands(fn, out, n, in, &device)) return NULL;
    for (int i = 0; i < n; i++) {
        if (th__is_host_scalar(in[i])) {
            th__fail(TH_ERR_DEVICE, fn, "operand %d is a 0-d tensor on the host and the others are on device %d:%d: "
                     "indexing reads every operand on the device (copy it over first)", i + 1, (int)device.type,
                     (int)device.index);
            return NULL;
        }
    }
    const th_device_ops *ops = th__device_ops_for(fn, device);
    if (!ops) return NULL;
    if (!ops->index) {
        th__fail(TH_ERR_UNSUPPORTED, fn, "the %s companion has no indexing ops", ops->name ? ops->name : "?");
        return NULL;
    }
    return ops->index(ops->ctx, fn, out, call);
}

/* An in-place op's target on a device: th__index_check_target's checks but where its memory is. */
TH__MAYBE_UNUSED static int th__index_check_device_target(const char *fn, const th_tensor *t)
{
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    return th__check_out_layout(fn, t, t->dtype, t->ndim, t->sizes, false);
}

typedef struct th__index_range {
    int64_t bound;
    bool bad;
    int64_t value;
} th__index_range;

TH__MAYBE_UNUSED static void th__index_range_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    th__index_range *r = (th__index_range *)ctx;
    if (r->bad) return;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = th__index_load(data[0] + i * strides[0]);
        if (v < -r->bound || v >= r->bound) {
            r->bad = true;
            r->value = v;
            return;
        }
    }
}

/* Every index in [-bound, bound), checked before anything is written so an error leaves outputs untouched.
 * where names the bound in the message ("dim 1 of size 4"). */
TH__MAYBE_UNUSED static int th__index_check_range(const char *fn, const th_tensor *idx, int64_t bound, const char *where)
{
    const th_tensor *ops[1] = {idx};
    th__iter it;
    if (th__iter_init(fn, &it, 1, ops)) return th_last_status();
    th__index_range r = {bound, false, 0};
    th__iter_for_each(&it, th__index_range_row, &r);
    if (r.bad)
        return th__fail(TH_ERR_RANGE, fn, "index %lld is out of range for %s (valid: %lld..%lld)", (long long)r.value,
                        where, (long long)-bound, (long long)(bound - 1));
    return TH_OK;
}

/* The tensor an in-place op writes: host memory, writable, and no two elements at one address (checked as an
 * out of its own shape, so the message calls it out). */
TH__MAYBE_UNUSED static int th__index_check_target(const char *fn, const th_tensor *t)
{
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    return th__check_out(fn, t, t->dtype, t->ndim, t->sizes);
}

TH__MAYBE_UNUSED static inline int64_t th__index_wrap(int64_t v, int64_t bound) { return v < 0 ? v + bound : v; }

/* t restricted to shape (ndim, sizes) with dim d pinned at index 0 (stride 0): the operand that follows an
 * index tensor in gather and scatter, each element then offset by index * t's stride of d. */
TH__MAYBE_UNUSED static th_tensor *th__index_pinned(const char *fn, const th_tensor *t, int d, const int64_t *sizes)
{
    int64_t strides[TH_MAX_DIMS];
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
    if (t->ndim > 0) strides[d] = 0;
    return th__view_of(fn, t, t->offset, t->ndim, sizes, strides);
}

/* ---- index_select ---- */

typedef struct th__select_job {
    const int64_t *idx; /* already wrapped */
    int64_t jbegin, jend;
    int64_t out_step, in_step; /* bytes between neighbours along dim */
    size_t es;
    const th__iter *it;
} th__select_job;

TH__MAYBE_UNUSED static inline void th__select_row_sized(char **data, const int64_t *strides, int64_t n, const th__select_job *job,
                                        size_t es)
{
    /* Locals: the compiler cannot tell that the stores below leave *job alone. */
    char *out = data[0];
    const char *in = data[1];
    const int64_t *idx = job->idx;
    const int64_t jbegin = job->jbegin, jend = job->jend, out_step = job->out_step, in_step = job->in_step;
    const int64_t os = strides[0], is = strides[1];
    if (os == (int64_t)es && is == (int64_t)es) {
        for (int64_t j = jbegin; j < jend; j++) memcpy(out + j * out_step, in + idx[j] * in_step, (size_t)n * es);
    } else if (llabs(is) <= llabs(in_step)) {
        /* The row runs along memory closer than dim does: copy it whole for each index. */
        for (int64_t j = jbegin; j < jend; j++) {
            char *o = out + j * out_step;
            const char *src = in + idx[j] * in_step;
            for (int64_t i = 0; i < n; i++) th__index_move(o + i * os, src + i * is, es);
        }
    } else {
        /* dim is the closer one (often the innermost): for each element of the row, walk the indices, so the
         * reads stay inside one stretch of memory and the writes go in order. */
        for (int64_t i = 0; i < n; i++) {
            char *o = out + i * os;
            const char *src = in + i * is;
            for (int64_t j = jbegin; j < jend; j++) th__index_move(o + j * out_step, src + idx[j] * in_step, es);
        }
    }
}

TH__MAYBE_UNUSED static TH__HOT void th__select_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const th__select_job *job = (const th__select_job *)ctx;
    TH__DISPATCH_ELSIZE(job->es, th__select_row_sized, data, strides, n, job);
}

/* One thread's share of the indices, over every row. */
TH__MAYBE_UNUSED static void th__select_chunk(void *ctx, int64_t begin, int64_t end)
{
    th__select_job job = *(const th__select_job *)ctx;
    job.jbegin = begin;
    job.jend = end;
    th__iter_for_each(job.it, th__select_row, &job);
}

/* The result's shape, and dim wrapped into *d; the index range is not checked. */
TH__MAYBE_UNUSED static int th__index_select_shape(const char *fn, const th_tensor *t, int dim, const th_tensor *idx,
                                                   bool host, int *d, int64_t *sizes)
{
    if (th__index_check_input(fn, t, "tensor", host) || th__index_check_kind_on(fn, idx, TH_I64, "index", host))
        return th_last_status();
    if (idx->ndim > 1) return th__fail(TH_ERR_SHAPE, fn, "index has %d dims; it must be 0-d or 1-d", idx->ndim);
    if (th__wrap_dim(fn, dim, t->ndim, d)) return th_last_status();
    const int64_t nidx = th__numel(idx);
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    if (t->ndim > 0) sizes[*d] = nidx;
    else if (nidx != 1) return th__fail(TH_ERR_SHAPE, fn, "a 0-d tensor takes exactly one index, got %lld", (long long)nidx);
    return TH_OK;
}

TH__MAYBE_UNUSED static th_tensor *th__index_select(const char *fn, th_tensor *out, const th_tensor *t, int dim, const th_tensor *idx)
{
    const th_tensor *all[3] = {out, t, idx};
    if (th__index_any_device(3, all)) {
        int d = 0;
        int64_t sizes[TH_MAX_DIMS];
        if (th__index_select_shape(fn, t, dim, idx, false, &d, sizes) ||
            (out && th__check_out_layout(fn, out, t->dtype, t->ndim, sizes, false)))
            return NULL;
        const th_device_index call = {"index_select", t->dtype, t, idx, NULL, NULL, d, NULL, false};
        return th__index_on_device(fn, out, &call);
    }
    int d = 0;
    int64_t sizes[TH_MAX_DIMS];
    if (th__index_select_shape(fn, t, dim, idx, true, &d, sizes)) return NULL;
    const int64_t nidx = th__numel(idx);
    const int64_t bound = t->ndim > 0 ? t->sizes[d] : 1;
    char where[96];
    snprintf(where, sizeof where, "dim %d of size %lld", d, (long long)bound);
    if (th__index_check_range(fn, idx, bound, where)) return NULL;
    th_tensor *result = th__result(fn, out, t->dtype, t->ndim, sizes);
    if (!result) return NULL;
    if (th__numel(result) == 0) return result;
    int64_t *wrapped = (int64_t *)malloc((size_t)nidx * sizeof *wrapped);
    th_tensor *src = th__shape_unalias(fn, result, t);
    th_tensor *out_slice = NULL, *in_slice = NULL;
    int status = TH_OK;
    if (!wrapped) status = th__fail(TH_ERR_NOMEM, fn, "out of memory for %lld indices", (long long)nidx);
    if (!src) status = th_last_status();
    if (!status) {
        const char *p = (const char *)th_tensor_data(idx);
        int64_t step = idx->ndim > 0 ? idx->strides[0] * 8 : 0;
        for (int64_t j = 0; j < nidx; j++) wrapped[j] = th__index_wrap(th__index_load(p + j * step), bound);
        /* The rows of result and src with dim pinned at 0; the kernel steps along dim itself. */
        int64_t one[TH_MAX_DIMS];
        memcpy(one, result->sizes, (size_t)result->ndim * sizeof *one);
        if (result->ndim > 0) one[d] = 1;
        out_slice = th__view_of(fn, result, result->offset, result->ndim, one, result->strides);
        in_slice = th__view_of(fn, src, src->offset, src->ndim, one, src->strides);
        if (!out_slice || !in_slice) status = th_last_status();
    }
    th__iter it;
    if (!status) {
        const th_tensor *ops[2] = {out_slice, in_slice};
        status = th__iter_init(fn, &it, 2, ops);
    }
    if (!status) {
        size_t es = th__elsize(t);
        th__select_job job = {wrapped, 0, nidx, 0, 0, es, &it};
        if (t->ndim > 0) {
            job.out_step = result->strides[d] * (int64_t)es;
            job.in_step = src->strides[d] * (int64_t)es;
        }
        int nthreads = th__threads_for(it.numel * nidx);
        if (nthreads > 1 && nidx >= nthreads)
            th__parallel_chunks(nidx, nthreads, th__select_chunk, &job);
        else
            th__iter_parallel(&it, th__select_row, &job);
    }
    TH__RELEASE(out_slice, in_slice, src);
    free(wrapped);
    return th__result_or_release(status, result);
}

/* ---- gather, scatter, scatter_add ---- */

typedef struct th__pick_job {
    int64_t bound, step; /* t's size and byte stride along dim */
    size_t es;
    th__index_add_fn add; /* scatter_add; NULL: plain writes */
} th__pick_job;

TH__MAYBE_UNUSED static inline void th__gather_row_sized(char **data, const int64_t *strides, int64_t n, const th__pick_job *job,
                                        size_t es)
{
    char *out = data[0];
    const char *idx = data[1], *in = data[2];
    const int64_t bound = job->bound, step = job->step, os = strides[0], xs = strides[1], is = strides[2];
    for (int64_t i = 0; i < n; i++) {
        int64_t k = th__index_wrap(th__index_load(idx + i * xs), bound);
        th__index_move(out + i * os, in + i * is + k * step, es);
    }
}

/* ops: out, idx, t pinned. */
TH__MAYBE_UNUSED static TH__HOT void th__gather_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const th__pick_job *job = (const th__pick_job *)ctx;
    TH__DISPATCH_ELSIZE(job->es, th__gather_row_sized, data, strides, n, job);
}

/* ops: t pinned, idx, src. Sequential: several indices may name one element. */
TH__MAYBE_UNUSED static void th__scatter_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const th__pick_job *job = (const th__pick_job *)ctx;
    const int64_t bound = job->bound, step = job->step;
    char *dst[TH__INDEX_BLOCK];
    for (int64_t done = 0; done < n; done += TH__INDEX_BLOCK) {
        int64_t m = n - done < TH__INDEX_BLOCK ? n - done : TH__INDEX_BLOCK;
        for (int64_t i = 0; i < m; i++) {
            int64_t k = th__index_wrap(th__index_load(data[1] + (done + i) * strides[1]), bound);
            dst[i] = data[0] + (done + i) * strides[0] + k * step;
        }
        th__index_write_block(dst, data[2] + done * strides[2], strides[2], m, job->es, job->add);
    }
}

/* The checks gather and scatter share: idx has t's ndim and fits inside t outside dim (and inside src
 * everywhere, when there is a src). */
TH__MAYBE_UNUSED static int th__pick_check_shapes(const char *fn, const th_tensor *t, const th_tensor *idx,
                                                  const th_tensor *src, int dim, int *d, bool host)
{
    if (th__index_check_input(fn, t, "tensor", host) || th__index_check_kind_on(fn, idx, TH_I64, "index", host))
        return th_last_status();
    if (src && th__index_check_input(fn, src, "src", host)) return th_last_status();
    if (src && src->dtype != t->dtype)
        return th__fail(TH_ERR_DTYPE, fn, "src is %s, the tensor %s", th_dtype_name(src->dtype), th_dtype_name(t->dtype));
    if (th__wrap_dim(fn, dim, t->ndim, d)) return th_last_status();
    if (idx->ndim != t->ndim || (src && src->ndim != t->ndim))
        return th__fail(TH_ERR_SHAPE, fn, "index has %d dims%s, the tensor %d; they must be equal", idx->ndim,
                        src && src->ndim != t->ndim ? " and src has another count" : "", t->ndim);
    for (int k = 0; k < t->ndim; k++) {
        if (k != *d && idx->sizes[k] > t->sizes[k])
            return th__fail(TH_ERR_SHAPE, fn, "index has size %lld in dim %d, more than the tensor's %lld",
                            (long long)idx->sizes[k], k, (long long)t->sizes[k]);
        if (src && idx->sizes[k] > src->sizes[k])
            return th__fail(TH_ERR_SHAPE, fn, "index has size %lld in dim %d, more than src's %lld",
                            (long long)idx->sizes[k], k, (long long)src->sizes[k]);
    }
    return TH_OK;
}

TH__MAYBE_UNUSED static int th__pick_check(const char *fn, const th_tensor *t, const th_tensor *idx, const th_tensor *src, int dim,
                          int *d)
{
    if (th__pick_check_shapes(fn, t, idx, src, dim, d, true)) return th_last_status();
    char where[96];
    int64_t bound = t->ndim > 0 ? t->sizes[*d] : 1;
    snprintf(where, sizeof where, "dim %d of size %lld", *d, (long long)bound);
    return th__index_check_range(fn, idx, bound, where);
}

/* Runs row over ops (out or t pinned along dim d, the index, the other tensor) with the job of picking along
 * dim d of from. in_order: one thread, in order (scatter: several indices may name one element); else the
 * rows are split across threads (gather). */
TH__MAYBE_UNUSED static int th__pick_run(const char *fn, const th_tensor *const ops[3], const th_tensor *from, int d,
                                         th__index_add_fn add, th__row_fn row, bool in_order)
{
    th__iter it;
    int status = th__iter_init(fn, &it, 3, ops);
    if (status) return status;
    th__pick_job job = {from->ndim > 0 ? from->sizes[d] : 1,
                        from->ndim > 0 ? from->strides[d] * (int64_t)th__elsize(from) : 0, th__elsize(from), add};
    if (in_order) th__iter_for_each(&it, row, &job);
    else th__iter_parallel(&it, row, &job);
    return TH_OK;
}

TH__MAYBE_UNUSED static th_tensor *th__gather(const char *fn, th_tensor *out, const th_tensor *t, int dim, const th_tensor *idx)
{
    int d = 0;
    const th_tensor *all[3] = {out, t, idx};
    if (th__index_any_device(3, all)) {
        if (th__pick_check_shapes(fn, t, idx, NULL, dim, &d, false) ||
            (out && th__check_out_layout(fn, out, t->dtype, idx->ndim, idx->sizes, false)))
            return NULL;
        const th_device_index call = {"gather", t->dtype, t, idx, NULL, NULL, d, NULL, false};
        return th__index_on_device(fn, out, &call);
    }
    if (th__pick_check(fn, t, idx, NULL, dim, &d)) return NULL;
    th_tensor *result = th__result(fn, out, t->dtype, idx->ndim, idx->sizes);
    if (!result || th__numel(result) == 0) return result;
    th_tensor *src = th__shape_unalias(fn, result, t), *index = th__shape_unalias(fn, result, idx);
    th_tensor *pinned = src ? th__index_pinned(fn, src, d, idx->sizes) : NULL;
    int status = pinned && index ? TH_OK : th_last_status();
    if (!status) {
        /* Picked from src, not t: when out overlaps t, src is a copy with strides of its own. */
        const th_tensor *ops[3] = {result, index, pinned};
        status = th__pick_run(fn, ops, src, d, NULL, th__gather_row, false);
    }
    TH__RELEASE(pinned, index, src);
    return th__result_or_release(status, result);
}

/* scatter and scatter_add with a device operand; out NULL for the forms returning a new tensor, else t. */
TH__MAYBE_UNUSED static th_tensor *th__scatter_on_device(const char *fn, th_tensor *out, const th_tensor *t, int dim,
                                                         const th_tensor *idx, const th_tensor *src, bool add)
{
    int d = 0;
    if (out ? th__index_check_device_target(fn, t) : th__index_check_input(fn, t, "tensor", false)) return NULL;
    if (!src) {
        th__fail(TH_ERR_INVALID, fn, "NULL src");
        return NULL;
    }
    if (th__pick_check_shapes(fn, t, idx, src, dim, &d, false)) return NULL;
    const th_device_index call = {add ? "scatter_add" : "scatter", t->dtype, t, idx, NULL, src, d, NULL, false};
    return th__index_on_device(fn, out, &call);
}

TH__MAYBE_UNUSED static int th__scatter_inplace(const char *fn, th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src,
                               th__index_add_fn add)
{
    int d = 0;
    const th_tensor *all[3] = {t, idx, src};
    if (th__index_any_device(3, all))
        return th__out_status(th__scatter_on_device(fn, t, t, dim, idx, src, add != NULL));
    if (th__index_check_target(fn, t)) return th_last_status();
    if (!src) return th__fail(TH_ERR_INVALID, fn, "NULL src");
    if (th__pick_check(fn, t, idx, src, dim, &d)) return th_last_status();
    if (th__numel(idx) == 0) return TH_OK;
    th_tensor *values = th__shape_unalias(fn, t, src), *index = th__shape_unalias(fn, t, idx);
    th_tensor *pinned = th__index_pinned(fn, t, d, idx->sizes);
    th_tensor *narrowed = values ? th__view_of(fn, values, values->offset, idx->ndim, idx->sizes, values->strides) : NULL;
    int status = pinned && index && narrowed ? TH_OK : th_last_status();
    if (!status) {
        const th_tensor *ops[3] = {pinned, index, narrowed};
        status = th__pick_run(fn, ops, t, d, add, th__scatter_row, true);
    }
    TH__RELEASE(narrowed, pinned, index, values);
    return status;
}

/* A copy of t with the in-place op applied: the out-of-place forms of scatter, scatter_add and put. */
TH__MAYBE_UNUSED static th_tensor *th__index_clone(const char *fn, const th_tensor *t)
{
    if (th__shape_check_input(fn, t, "tensor")) return NULL;
    return th__convert_new(fn, t->dtype, t);
}

TH__MAYBE_UNUSED static th_tensor *th__scatter(const char *fn, const th_tensor *t, int dim, const th_tensor *idx, const th_tensor *src,
                              th__index_add_fn add)
{
    const th_tensor *all[3] = {t, idx, src};
    if (th__index_any_device(3, all)) return th__scatter_on_device(fn, NULL, t, dim, idx, src, add != NULL);
    th_tensor *result = th__index_clone(fn, t);
    if (result && th__scatter_inplace(fn, result, dim, idx, src, add)) {
        th_tensor_release(result);
        return NULL;
    }
    return result;
}

/* ---- masked_fill, masked_select ---- */

typedef struct th__fill_job {
    const char *value;
    size_t es;
} th__fill_job;

TH__MAYBE_UNUSED static inline void th__masked_fill_row_sized(char **data, const int64_t *strides, int64_t n, const char *value,
                                             size_t es)
{
    char *out = data[0];
    const char *mask = data[1];
    const int64_t os = strides[0], ms = strides[1];
    if (es > 16) { /* no dtype is wider; kept for safety */
        for (int64_t i = 0; i < n; i++)
            if (mask[i * ms]) memcpy(out + i * os, value, es);
        return;
    }
    char v[16]; /* a local copy the stores cannot change, so it stays in a register */
    memcpy(v, value, es);
    for (int64_t i = 0; i < n; i++)
        if (mask[i * ms]) th__index_move(out + i * os, v, es);
}

/* ops: t, mask (bool bytes: anything nonzero is true). */
TH__MAYBE_UNUSED static TH__HOT void th__masked_fill_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const th__fill_job *job = (const th__fill_job *)ctx;
    TH__DISPATCH_ELSIZE(job->es, th__masked_fill_row_sized, data, strides, n, job->value);
}

TH__MAYBE_UNUSED static int th__masked_fill_inplace(const char *fn, th_tensor *t, const th_tensor *mask, const void *value)
{
    const th_tensor *all[2] = {t, mask};
    if (th__index_any_device(2, all)) {
        if (th__index_check_device_target(fn, t) || th__index_check_kind_on(fn, mask, TH_BOOL, "mask", false))
            return th_last_status();
        /* The host's message when the iteration over (t, mask) finds they do not fit. */
        const th_tensor *both[2] = {t, mask};
        int ndim = 0;
        int64_t sizes[TH_MAX_DIMS];
        bool fits = !th__broadcast_shape(fn, 2, both, &ndim, sizes) && ndim == t->ndim;
        for (int k = 0; fits && k < ndim; k++) fits = sizes[k] == t->sizes[k];
        if (!fits) {
            char a[160], b[160];
            th__shape_string(mask->ndim, mask->sizes, a, sizeof a);
            th__shape_string(t->ndim, t->sizes, b, sizeof b);
            return th__fail(TH_ERR_SHAPE, fn, "shape %s does not broadcast to %s", a, b);
        }
        const th_device_index call = {"masked_fill", t->dtype, t, NULL, mask, NULL, 0, value, false};
        return th__out_status(th__index_on_device(fn, t, &call));
    }
    if (th__index_check_target(fn, t) || th__index_check_kind(fn, mask, TH_BOOL, "mask")) return th_last_status();
    /* An element's own mask byte may be the element (t.masked_fill_(t, 0) on a bool t): same-layout reads are safe. */
    th_tensor *m = th__unalias(fn, t, mask);
    if (!m) return th_last_status();
    const th_tensor *ops[2] = {t, m};
    th__iter it;
    int status = th__iter_init(fn, &it, 2, ops);
    if (!status) {
        th__fill_job job = {(const char *)value, th__elsize(t)};
        th__iter_parallel(&it, th__masked_fill_row, &job);
    }
    th_tensor_release(m);
    return status;
}

TH__MAYBE_UNUSED static th_tensor *th__masked_fill(const char *fn, th_tensor *out, const th_tensor *t, const th_tensor *mask,
                                  const void *value)
{
    const th_tensor *all[3] = {out, t, mask};
    const bool host = !th__index_any_device(3, all);
    int ndim = 0;
    int64_t sizes[TH_MAX_DIMS];
    if (th__index_mask_shape(fn, t, mask, host, &ndim, sizes)) return NULL;
    if (!host) {
        if (out && th__check_out_layout(fn, out, t->dtype, ndim, sizes, false)) return NULL;
        const th_device_index call = {"masked_fill", t->dtype, t, NULL, mask, NULL, 0, value, false};
        return th__index_on_device(fn, out, &call);
    }
    th_tensor *result = th__result(fn, out, t->dtype, ndim, sizes);
    if (!result) return NULL;
    th_tensor *m = th__shape_unalias(fn, result, mask); /* copying t into out must not change the mask */
    int status = m ? th__copy(fn, result, t) : th_last_status();
    if (!status) status = th__masked_fill_inplace(fn, result, m, value);
    th_tensor_release(m);
    return th__result_or_release(status, result);
}

/* Calls row for every innermost row of ops (all of one shape), in row-major order: the order of the flat
 * index, which masked_select and nonzero promise and th__iter (free to reorder dims) does not. Trailing dims
 * contiguous in every operand are merged. */
TH__MAYBE_UNUSED static void th__index_rowmajor(int nops, const th_tensor *const *ops, th__row_fn row, void *ctx)
{
    const th_tensor *t0 = ops[0];
    if (th__numel(t0) == 0) return;
    int64_t shape[TH_MAX_DIMS], strides[TH__ITER_MAX_OPS][TH_MAX_DIMS];
    int nd = 0;
    for (int d = 0; d < t0->ndim; d++) {
        if (t0->sizes[d] == 1) continue;
        bool merge = nd > 0;
        for (int op = 0; merge && op < nops; op++)
            merge = strides[op][nd - 1] == ops[op]->strides[d] * (int64_t)th__elsize(ops[op]) * t0->sizes[d];
        if (merge) {
            shape[nd - 1] *= t0->sizes[d];
            for (int op = 0; op < nops; op++) strides[op][nd - 1] = ops[op]->strides[d] * (int64_t)th__elsize(ops[op]);
            continue;
        }
        shape[nd] = t0->sizes[d];
        for (int op = 0; op < nops; op++) strides[op][nd] = ops[op]->strides[d] * (int64_t)th__elsize(ops[op]);
        nd++;
    }
    char *ptrs[TH__ITER_MAX_OPS];
    int64_t inner[TH__ITER_MAX_OPS];
    for (int op = 0; op < nops; op++) {
        ptrs[op] = (char *)th_tensor_data(ops[op]);
        inner[op] = nd > 0 ? strides[op][nd - 1] : 0;
    }
    if (nd <= 1) {
        row(ptrs, inner, nd == 1 ? shape[0] : 1, ctx);
        return;
    }
    int64_t idx[TH_MAX_DIMS] = {0};
    for (;;) {
        row(ptrs, inner, shape[nd - 1], ctx);
        int d = nd - 2;
        for (; d >= 0; d--) {
            for (int op = 0; op < nops; op++) ptrs[op] += strides[op][d];
            if (++idx[d] < shape[d]) break;
            for (int op = 0; op < nops; op++) ptrs[op] -= strides[op][d] * shape[d];
            idx[d] = 0;
        }
        if (d < 0) return;
    }
}

typedef struct th__select_mask_job {
    char *cursor; /* the next output element */
    int64_t count;
    size_t es;
} th__select_mask_job;

TH__MAYBE_UNUSED static void th__mask_count_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    th__select_mask_job *job = (th__select_mask_job *)ctx;
    const char *mask = data[0];
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) count += mask[i * strides[0]] != 0;
    job->count += count;
}

TH__MAYBE_UNUSED static inline void th__masked_select_row_sized(char **data, const int64_t *strides, int64_t n,
                                               th__select_mask_job *job, size_t es)
{
    char *cursor = job->cursor;
    const char *in = data[0], *mask = data[1];
    const int64_t is = strides[0], ms = strides[1];
    for (int64_t i = 0; i < n; i++) {
        if (!mask[i * ms]) continue;
        th__index_move(cursor, in + i * is, es);
        cursor += es;
    }
    job->cursor = cursor;
}

/* ops: t, mask. */
TH__MAYBE_UNUSED static TH__HOT void th__masked_select_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    th__select_mask_job *job = (th__select_mask_job *)ctx;
    TH__DISPATCH_ELSIZE(job->es, th__masked_select_row_sized, data, strides, n, job);
}

TH__MAYBE_UNUSED static th_tensor *th__masked_select(const char *fn, const th_tensor *t, const th_tensor *mask)
{
    const th_tensor *all[2] = {t, mask};
    const bool host = !th__index_any_device(2, all);
    int ndim = 0;
    int64_t sizes[TH_MAX_DIMS];
    if (th__index_mask_shape(fn, t, mask, host, &ndim, sizes)) return NULL;
    if (!host) {
        const th_device_index call = {"masked_select", t->dtype, t, NULL, mask, NULL, 0, NULL, false};
        return th__index_on_device(fn, NULL, &call);
    }
    th_tensor *te = th__expand(fn, t, ndim, sizes), *me = th__expand(fn, mask, ndim, sizes);
    th_tensor *result = NULL;
    if (te && me) {
        th__select_mask_job job = {NULL, 0, th__elsize(t)};
        const th_tensor *mask_only[1] = {me};
        th__iter it;
        if (!th__iter_init(fn, &it, 1, mask_only)) {
            th__iter_for_each(&it, th__mask_count_row, &job);
            result = th__tensor_empty(fn, t->dtype, 1, &job.count);
        }
        if (result && job.count > 0) {
            job.cursor = (char *)th_tensor_data(result);
            const th_tensor *ops[2] = {te, me};
            th__index_rowmajor(2, ops, th__masked_select_row, &job);
        }
    }
    th_tensor_release(te);
    th_tensor_release(me);
    return result;
}

/* ---- nonzero ---- */

typedef struct th__nonzero_job {
    th__index_nonzero_fn nonzero;
    int64_t count;
} th__nonzero_job;

TH__MAYBE_UNUSED static void th__nonzero_count_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    th__nonzero_job *job = (th__nonzero_job *)ctx;
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++) count += job->nonzero(data[0] + i * strides[0]);
    job->count += count;
}

TH__MAYBE_UNUSED static th_tensor *th__nonzero(const char *fn, const th_tensor *t, th__index_nonzero_fn nonzero)
{
    if (t && !th_device_is_host(t->storage->device)) {
        if (th__index_check_input(fn, t, "tensor", false)) return NULL;
        const th_device_index call = {"nonzero", t->dtype, t, NULL, NULL, NULL, 0, NULL, false};
        return th__index_on_device(fn, NULL, &call);
    }
    if (th__shape_check_input(fn, t, "tensor")) return NULL;
    const th_tensor *ops[1] = {t};
    th__iter it;
    if (th__iter_init(fn, &it, 1, ops)) return NULL;
    th__nonzero_job job = {nonzero, 0};
    th__iter_for_each(&it, th__nonzero_count_row, &job);
    const int nd = t->ndim;
    int64_t sizes[2] = {job.count, nd};
    th_tensor *result = th__tensor_empty(fn, TH_I64, 2, sizes);
    if (!result || job.count == 0) return result;
    /* Row-major walk keeping the multi-index: each nonzero element writes its nd coordinates. */
    char *cursor = (char *)th_tensor_data(result);
    const char *p = (const char *)th_tensor_data(t);
    const int64_t es = (int64_t)th__elsize(t);
    if (nd == 0) return result; /* a 0-d nonzero tensor: one row of no coordinates */
    int64_t idx[TH_MAX_DIMS] = {0};
    const int64_t last = t->sizes[nd - 1], step = t->strides[nd - 1] * es;
    for (;;) {
        for (int64_t i = 0; i < last; i++) {
            if (!nonzero(p + i * step)) continue;
            for (int k = 0; k < nd - 1; k++, cursor += 8) th__index_store(cursor, idx[k]);
            th__index_store(cursor, i);
            cursor += 8;
        }
        int d = nd - 2;
        for (; d >= 0; d--) {
            p += t->strides[d] * es;
            if (++idx[d] < t->sizes[d]) break;
            p -= t->strides[d] * es * t->sizes[d];
            idx[d] = 0;
        }
        if (d < 0) return result;
    }
}

/* ---- take, put ---- */

/* Where flat (row-major) element k of t lives, in bytes from its first element. */
typedef struct th__flat_job {
    const th_tensor *t;
    const char *base; /* t's first element */
    int64_t bound;
    bool contiguous;
    size_t es;
    th__index_add_fn add;
} th__flat_job;

/* take's and put's work: over the pairs (a, b) of elements of a and b, which are NULL where making them failed
 * (the error is recorded), flat element k of t read or written (add: accumulated). */
TH__MAYBE_UNUSED static int th__flat_start(const char *fn, th__iter *it, th__flat_job *job, const th_tensor *a,
                                           const th_tensor *b, const th_tensor *t, th__index_add_fn add)
{
    if (!a || !b) return th_last_status();
    const th_tensor *ops[2] = {a, b};
    *job = (th__flat_job){t, (const char *)th_tensor_data(t), th__numel(t), th_tensor_is_contiguous(t), th__elsize(t),
                          add};
    return th__iter_init(fn, it, 2, ops);
}

TH__MAYBE_UNUSED static inline int64_t th__flat_offset(const th__flat_job *job, int64_t k)
{
    if (job->contiguous) return k * (int64_t)job->es;
    int64_t off = 0;
    for (int d = job->t->ndim - 1; d >= 0; d--) {
        int64_t size = job->t->sizes[d];
        off += (k % size) * job->t->strides[d];
        k /= size;
    }
    return off * (int64_t)job->es;
}

TH__MAYBE_UNUSED static inline void th__take_row_sized(char **data, const int64_t *strides, int64_t n, const th__flat_job *job,
                                      size_t es)
{
    /* Locals: the compiler cannot tell that the stores below leave *job alone. */
    char *out = data[0];
    const char *idx = data[1], *base = job->base;
    const int64_t bound = job->bound, os = strides[0], is = strides[1];
    if (job->contiguous) {
        for (int64_t i = 0; i < n; i++)
            th__index_move(out + i * os, base + th__index_wrap(th__index_load(idx + i * is), bound) * (int64_t)es, es);
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t k = th__index_wrap(th__index_load(idx + i * is), bound);
        th__index_move(out + i * os, base + th__flat_offset(job, k), es);
    }
}

/* ops: out, idx. */
TH__MAYBE_UNUSED static TH__HOT void th__take_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const th__flat_job *job = (const th__flat_job *)ctx;
    TH__DISPATCH_ELSIZE(job->es, th__take_row_sized, data, strides, n, job);
}

/* ops: idx, src. */
TH__MAYBE_UNUSED static void th__put_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const th__flat_job *job = (const th__flat_job *)ctx;
    char *dst[TH__INDEX_BLOCK];
    for (int64_t done = 0; done < n; done += TH__INDEX_BLOCK) {
        int64_t m = n - done < TH__INDEX_BLOCK ? n - done : TH__INDEX_BLOCK;
        for (int64_t i = 0; i < m; i++) {
            int64_t k = th__index_wrap(th__index_load(data[0] + (done + i) * strides[0]), job->bound);
            dst[i] = (char *)job->base + th__flat_offset(job, k);
        }
        th__index_write_block(dst, data[1] + done * strides[1], strides[1], m, job->es, job->add);
    }
}

TH__MAYBE_UNUSED static int th__flat_check(const char *fn, const th_tensor *t, const th_tensor *idx)
{
    if (th__shape_check_input(fn, t, "tensor") || th__index_check_kind(fn, idx, TH_I64, "index")) return th_last_status();
    char where[96];
    snprintf(where, sizeof where, "a tensor of %lld elements", (long long)th__numel(t));
    return th__index_check_range(fn, idx, th__numel(t), where);
}

TH__MAYBE_UNUSED static th_tensor *th__take(const char *fn, th_tensor *out, const th_tensor *t, const th_tensor *idx)
{
    const th_tensor *all[3] = {out, t, idx};
    if (th__index_any_device(3, all)) {
        if (th__index_check_input(fn, t, "tensor", false) || th__index_check_kind_on(fn, idx, TH_I64, "index", false) ||
            (out && th__check_out_layout(fn, out, t->dtype, idx->ndim, idx->sizes, false)))
            return NULL;
        const th_device_index call = {"take", t->dtype, t, idx, NULL, NULL, 0, NULL, false};
        return th__index_on_device(fn, out, &call);
    }
    if (th__flat_check(fn, t, idx)) return NULL;
    th_tensor *result = th__result(fn, out, t->dtype, idx->ndim, idx->sizes);
    if (!result || th__numel(result) == 0) return result;
    th_tensor *src = th__shape_unalias(fn, result, t), *index = th__shape_unalias(fn, result, idx);
    th__iter it;
    th__flat_job job = {0}; /* every field set by th__flat_start; zeroed for gcc -O3's flow analysis */
    int status = src && index ? th__flat_start(fn, &it, &job, result, index, src, NULL) : th_last_status();
    if (!status) th__iter_parallel(&it, th__take_row, &job);
    th_tensor_release(index);
    th_tensor_release(src);
    return th__result_or_release(status, result);
}

/* put with a device operand; out NULL for the form returning a new tensor, else t. */
TH__MAYBE_UNUSED static th_tensor *th__put_on_device(const char *fn, th_tensor *out, const th_tensor *t, const th_tensor *idx,
                                                     const th_tensor *src, bool accumulate)
{
    if (th__index_check_input(fn, t, "tensor", false) || th__index_check_kind_on(fn, idx, TH_I64, "index", false) ||
        th__index_check_input(fn, src, "src", false))
        return NULL;
    if (src->dtype != t->dtype) {
        th__fail(TH_ERR_DTYPE, fn, "src is %s, the tensor %s", th_dtype_name(src->dtype), th_dtype_name(t->dtype));
        return NULL;
    }
    if (th__numel(src) != th__numel(idx)) {
        th__fail(TH_ERR_SHAPE, fn, "index has %lld elements but src has %lld; they must be equal",
                 (long long)th__numel(idx), (long long)th__numel(src));
        return NULL;
    }
    if (out && th__index_check_device_target(fn, t)) return NULL;
    const th_device_index call = {"put", t->dtype, t, idx, NULL, src, 0, NULL, accumulate};
    return th__index_on_device(fn, out, &call);
}

TH__MAYBE_UNUSED static int th__put_inplace(const char *fn, th_tensor *t, const th_tensor *idx, const th_tensor *src,
                           th__index_add_fn add)
{
    const th_tensor *all[3] = {t, idx, src};
    if (th__index_any_device(3, all)) return th__out_status(th__put_on_device(fn, t, t, idx, src, add != NULL));
    if (th__flat_check(fn, t, idx) || th__shape_check_input(fn, src, "src")) return th_last_status();
    if (src->dtype != t->dtype)
        return th__fail(TH_ERR_DTYPE, fn, "src is %s, the tensor %s", th_dtype_name(src->dtype), th_dtype_name(t->dtype));
    int64_t n = th__numel(idx);
    if (th__numel(src) != n)
        return th__fail(TH_ERR_SHAPE, fn, "index has %lld elements but src has %lld; they must be equal", (long long)n,
                        (long long)th__numel(src));
    if (th__index_check_target(fn, t)) return th_last_status();
    if (n == 0) return TH_OK;
    /* Flat pairs, in row-major order of idx and src: with duplicate indices the last one wins (or all add up). */
    th_tensor *values = th__shape_unalias(fn, t, src), *index = th__shape_unalias(fn, t, idx);
    th_tensor *v1 = values ? th__reshape(fn, values, 1, &n) : NULL, *i1 = index ? th__reshape(fn, index, 1, &n) : NULL;
    th__iter it;
    th__flat_job job = {0}; /* every field set by th__flat_start; zeroed for gcc -O3's flow analysis */
    int status = th__flat_start(fn, &it, &job, i1, v1, t, add);
    if (!status) th__iter_for_each(&it, th__put_row, &job);
    TH__RELEASE(v1, i1, values, index);
    return status;
}

TH__MAYBE_UNUSED static th_tensor *th__put(const char *fn, const th_tensor *t, const th_tensor *idx, const th_tensor *src,
                          th__index_add_fn add)
{
    const th_tensor *all[3] = {t, idx, src};
    if (th__index_any_device(3, all)) return th__put_on_device(fn, NULL, t, idx, src, add != NULL);
    th_tensor *result = th__index_clone(fn, t);
    if (result && th__put_inplace(fn, result, idx, src, add)) {
        th_tensor_release(result);
        return NULL;
    }
    return result;
}

#endif
