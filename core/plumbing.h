/* core/plumbing.h: op plumbing shared by every op family: broadcast shapes, the checked out or a new result,
 * inputs that overlap out copied first.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/plumbing.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Nothing public. */

#else /* TH__DEFINING */

/* The shape n tensors broadcast to (NumPy's rules: align at the last dim; sizes must match or be 1). */
TH__MAYBE_UNUSED static int th__broadcast_shape(const char *fn, int n, const th_tensor *const *ts, int *ndim, int64_t *sizes)
{
    int nd = 0;
    for (int i = 0; i < n; i++) {
        if (!ts[i]) return th__fail(TH_ERR_INVALID, fn, "NULL tensor (operand %d)", i + 1);
        if (ts[i]->ndim > nd) nd = ts[i]->ndim;
    }
    for (int k = 0; k < nd; k++) sizes[k] = 1;
    for (int i = 0; i < n; i++) {
        const th_tensor *t = ts[i];
        for (int k = 0; k < t->ndim; k++) {
            int64_t have = t->sizes[t->ndim - 1 - k], *want = &sizes[nd - 1 - k];
            if (have == *want || have == 1) continue;
            if (*want == 1) {
                *want = have;
                continue;
            }
            char a[160], b[160];
            th__shape_string(ts[0]->ndim, ts[0]->sizes, a, sizeof a);
            th__shape_string(t->ndim, t->sizes, b, sizeof b);
            return th__fail(TH_ERR_SHAPE, fn, "shapes %s and %s do not broadcast (dim %d: %lld vs %lld)", a, b,
                            -1 - k, (long long)*want, (long long)have);
        }
    }
    *ndim = nd;
    return TH_OK;
}

static int th__check_out_layout(const char *fn, const th_tensor *out, th_dtype dtype, int ndim, const int64_t *sizes,
                                bool host);

/* Whether the shapes (ndim, sizes) and (ndim2, sizes2) are the same. */
TH__MAYBE_UNUSED static bool th__shape_equal(int ndim, const int64_t *sizes, int ndim2, const int64_t *sizes2)
{
    bool same = ndim == ndim2;
    for (int d = 0; same && d < ndim; d++) same = sizes[d] == sizes2[d];
    return same;
}

/* TH_OK when t has exactly the shape (ndim, sizes), else TH_ERR_SHAPE with the message "<name> has shape (..);
 * <what> (..)" (name "out", what "the result has shape"). */
TH__MAYBE_UNUSED static int th__check_shape(const char *fn, const th_tensor *t, const char *name, int ndim,
                                            const int64_t *sizes, const char *what)
{
    if (th__shape_equal(t->ndim, t->sizes, ndim, sizes)) return TH_OK;
    char a[160], b[160];
    th__shape_string(t->ndim, t->sizes, a, sizeof a);
    th__shape_string(ndim, sizes, b, sizeof b);
    return th__fail(TH_ERR_SHAPE, fn, "%s has shape %s; %s %s", name, a, what, b);
}

/* Checks that out can receive a result of dtype and shape: the right dtype and exactly that shape, host
 * memory that is writable, and no two of its elements at one address (a stride 0 or an overlapping view). */
TH__MAYBE_UNUSED static int th__check_out(const char *fn, const th_tensor *out, th_dtype dtype, int ndim, const int64_t *sizes)
{
    return th__check_out_layout(fn, out, dtype, ndim, sizes, true);
}

/* th__check_out, for an out on the host or (host false) on a device: all but where its memory is, so a
 * device's companion gets an out already checked. */
TH__MAYBE_UNUSED static int th__check_out_layout(const char *fn, const th_tensor *out, th_dtype dtype, int ndim,
                                                 const int64_t *sizes, bool host)
{
    if (!out) return th__fail(TH_ERR_INVALID, fn, "NULL out");
    if (out->dtype != dtype)
        return th__fail(TH_ERR_DTYPE, fn, "out is %s; this result is %s", th_dtype_name(out->dtype),
                        th_dtype_name(dtype));
    if (th__check_shape(fn, out, "out", ndim, sizes, "the result has shape")) return th_last_status();
    if (host && !th_device_is_host(out->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "out is on device type %d, which the host cannot touch",
                        (int)out->storage->device.type);
    if (th__check_fits(fn, out) || th__check_writable(fn, out->storage)) return th_last_status();
    /* Sorted by stride, a tensor is free of self-overlap when each stride exceeds the span of the dims
     * inside it; anything else might put two elements at one address. */
    int order[TH_MAX_DIMS], n = 0;
    for (int d = 0; d < out->ndim; d++)
        if (out->sizes[d] > 1) order[n++] = d;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && llabs(out->strides[order[j]]) < llabs(out->strides[order[j - 1]]); j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    int64_t span = 0;
    for (int i = 0; i < n; i++) {
        int64_t s = llabs(out->strides[order[i]]);
        if (s <= span)
            return th__fail(TH_ERR_INVALID, fn,
                            "out dim %d (stride %lld) overlaps its other dims: several elements share an address",
                            order[i], (long long)out->strides[order[i]]);
        span += s * (out->sizes[order[i]] - 1);
    }
    return TH_OK;
}

/* The tensor an op writes to: out itself (retained) once it is checked, or when out is NULL a new
 * contiguous tensor of dtype and shape. NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__result(const char *fn, th_tensor *out, th_dtype dtype, int ndim, const int64_t *sizes)
{
    if (!out) return th__tensor_empty(fn, dtype, ndim, sizes);
    if (th__check_out(fn, out, dtype, ndim, sizes)) return NULL;
    return th_tensor_retain(out);
}

/* The status of an _out call whose work returned result (out retained, or NULL on error). */
TH__MAYBE_UNUSED static int th__out_status(th_tensor *result)
{
    if (!result) return th_last_status();
    th_tensor_release(result);
    return TH_OK;
}

/* The status an op's failure path records: the error its failed step recorded, or (a step that failed without
 * recording one) an internal error naming fn. */
TH__MAYBE_UNUSED static int th__failed_status(const char *fn)
{
    const int status = th_last_status();
    return status != TH_OK ? status : th__fail(TH_ERR_INVALID, fn, "failed");
}

/* An op's cleanup of its tensors (NULLs allowed), written once: TH__RELEASE(a, b, c) releases a, b and c in
 * that order. */
TH__MAYBE_UNUSED static void th__release_tensors(th_tensor *const *ts, size_t n)
{
    for (size_t i = 0; i < n; i++) th_tensor_release(ts[i]);
}
#define TH__RELEASE(...)                                                                                         \
    th__release_tensors((th_tensor *const[]){__VA_ARGS__},                                                       \
                        sizeof((th_tensor *const[]){__VA_ARGS__}) / sizeof(th_tensor *))

/* An op's last line: its result, or NULL with the result released when status is an error. */
TH__MAYBE_UNUSED static th_tensor *th__result_or_release(int status, th_tensor *result)
{
    if (status == TH_OK) return result;
    th_tensor_release(result);
    return NULL;
}

/* The last line of an op that may have computed into tmp, a temporary standing in for result (NULL when it
 * wrote result itself): when ok (every step went well) tmp is copied into result; tmp is released. Its result,
 * or NULL with the result released and the failure recorded (th__failed_status). */
TH__MAYBE_UNUSED static th_tensor *th__op_end(const char *fn, bool ok, th_tensor *result, th_tensor *tmp)
{
    if (ok && tmp && th_tensor_copy(result, tmp)) ok = false;
    th_tensor_release(tmp);
    return th__result_or_release(ok ? TH_OK : th__failed_status(fn), result);
}

static void th__byte_range(const th_tensor *t, uintptr_t *lo, uintptr_t *hi);
static bool th__same_layout(const th_tensor *a, const th_tensor *b);
static th_tensor *th__convert_new(const char *fn, th_dtype dtype, const th_tensor *src);

/* Whether two tensors' bytes overlap at all (an exact alias too). */
TH__MAYBE_UNUSED static bool th__bytes_overlap(const th_tensor *a, const th_tensor *b)
{
    if (a->storage != b->storage || th__numel(a) == 0 || th__numel(b) == 0) return false;
    uintptr_t alo, ahi, blo, bhi;
    th__byte_range(a, &alo, &ahi);
    th__byte_range(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

/* in, as an op writing out may read it: in itself (retained) when their memory is disjoint, or when in is
 * exactly out (same first element and strides, so each element is read before it is written), else a
 * copy made before out is touched. NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__unalias(const char *fn, const th_tensor *out, const th_tensor *in)
{
    if (!in) {
        th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        return NULL;
    }
    if (out && th__bytes_overlap(out, in) && !th__same_layout(out, in)) return th__convert_new(fn, in->dtype, in);
    return th_tensor_retain((th_tensor *)in);
}

#endif /* TH__DEFINING */
