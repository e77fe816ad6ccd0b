/* ops/pointwise_erased.h: the dtype-independent driver of every elementwise op.
 *
 * The per-dtype part (ops/pointwise.h and the op templates it stamps) only supplies a row kernel:
 * a loop over one row of elements with byte strides. Everything else an elementwise op does is the same
 * for every op and dtype and lives here once: NULL and device checks, the broadcast shape, the new result
 * or the checked out, inputs that overlap out, the iteration order and the threads. */
#ifndef TH__DEFINING

#else

/* An elementwise op as its driver sees it: the host's row kernel, and for a device's companion the op's name
 * and dtype (core/device_ops.h). One per op and dtype, a static constant of the op's stamping. */
typedef struct th__ew_op {
    const char *name;
    th_dtype dtype;
    th__row_fn row;
} th__ew_op;

/* A row kernel that accepts the flat, contiguous case gets it directly: for small contiguous tensors the
 * general engine's setup would cost more than the arithmetic. */
TH__MAYBE_UNUSED static bool th__ew_contiguous_same_shape(const th_tensor *t, int ndim, const int64_t *sizes)
{
    if (t->ndim != ndim) return false;
    for (int d = 0; d < ndim; d++)
        if (t->sizes[d] != sizes[d]) return false;
    return th_tensor_is_contiguous(t);
}

/* Whether every input is a contiguous host tensor of one shape that lies inside its storage: then that
 * shape is the result's, with no broadcasting to work out, and the inputs can be read as flat rows. This
 * is the common case, and for tiny tensors the general checks cost more than the op itself. */
TH__MAYBE_UNUSED static bool th__ew_plain_inputs(int nin, const th_tensor *const *in)
{
    const th_tensor *first = in[0];
    if (!first) return false;
    for (int i = 0; i < nin; i++) {
        const th_tensor *t = in[i];
        if (!t || t->ndim != first->ndim || !th_device_is_host(t->storage->device)) return false;
        int64_t numel = 1;
        for (int d = t->ndim - 1; d >= 0; d--) {
            if (t->sizes[d] != first->sizes[d]) return false;
            if (t->sizes[d] != 1 && t->strides[d] != numel) return false;
            numel *= t->sizes[d];
        }
        /* th__check_fits for a contiguous tensor, without its division */
        if (numel > 0 && (t->offset + numel) * (int64_t)th__elsize(t) > t->storage->nbytes) return false;
    }
    return true;
}

/* The op on operands in device memory: handed, checked as far as the host can without touching them, to
 * the ops their device's companion registered. ctx is the op's values (th_device_elementwise's params). */
static th_tensor *th__elementwise_on_device(const char *fn, th_tensor *out, th_dtype out_dtype, int nin,
                                            const th_tensor *const *in, const th__ew_op *op, const void *ctx,
                                            int ndim, const int64_t *sizes)
{
    th_device device = {0, 0};
    if (th__device_of_operands(fn, out, nin, in, &device)) return NULL;
    for (int i = 0; i < nin; i++)
        if (th__check_fits(fn, in[i])) return NULL;
    if (out && th__check_out_layout(fn, out, out_dtype, ndim, sizes, false)) return NULL;
    const th_device_ops *ops = th__device_ops_for(fn, device);
    if (!ops) return NULL;
    if (!ops->elementwise) {
        th__fail(TH_ERR_UNSUPPORTED, fn, "the %s companion has no elementwise ops", ops->name ? ops->name : "?");
        return NULL;
    }
    const th_device_elementwise call = {op->name, op->dtype, out_dtype, nin, in, ctx};
    return ops->elementwise(ops->ctx, fn, out, &call);
}

/* out = row(inputs...), elementwise, the inputs broadcast together. out NULL makes a new contiguous result
 * of out_dtype; otherwise out must have exactly the broadcast shape and out_dtype (an in-place op passes
 * its first input as out). Operands in device memory go to their companion (th__elementwise_on_device).
 * Returns the result as a new reference, or NULL with the error recorded. */
TH__MAYBE_UNUSED static th_tensor *th__elementwise(const char *fn, th_tensor *out, th_dtype out_dtype, int nin,
                                  const th_tensor *const *in, const th__ew_op *op, void *ctx)
{
    int ndim = 0; /* set below on every path that reads it; gcc -O3 cannot see that */
    int64_t sizes[TH_MAX_DIMS];
    const th__row_fn row = op->row;
    const bool plain = th__ew_plain_inputs(nin, in);
    if (plain) {
        ndim = in[0]->ndim;
        memcpy(sizes, in[0]->sizes, (size_t)ndim * sizeof sizes[0]);
        if (out && !th_device_is_host(out->storage->device))
            return th__elementwise_on_device(fn, out, out_dtype, nin, in, op, ctx, ndim, sizes);
    } else {
        if (th__broadcast_shape(fn, nin, in, &ndim, sizes)) return NULL;
        bool host = !out || th_device_is_host(out->storage->device);
        for (int i = 0; host && i < nin; i++) host = th_device_is_host(in[i]->storage->device);
        if (!host) return th__elementwise_on_device(fn, out, out_dtype, nin, in, op, ctx, ndim, sizes);
        for (int i = 0; i < nin; i++)
            if (th__check_fits(fn, in[i])) return NULL;
    }
    bool fresh = out == NULL;
    th_tensor *result = th__result(fn, out, out_dtype, ndim, sizes);
    if (!result) return NULL;
    if (fresh && !th_device_is_host(result->storage->device)) {
        th_tensor_release(result);
        th__fail(TH_ERR_DEVICE, fn, "the default allocator's memory is on device type %d, which the host cannot "
                 "write", (int)result->storage->device.type);
        return NULL;
    }
    th__iter it;
    /* A new result is contiguous and shares no memory with the inputs. */
    bool flat = fresh || th_tensor_is_contiguous(result);
    for (int i = 0; flat && i < nin; i++)
        flat = (plain || th__ew_contiguous_same_shape(in[i], ndim, sizes)) &&
               (fresh || in[i]->storage != result->storage || th__same_layout(in[i], result));
    if (flat) {
        it.ndim = 1;
        it.nops = nin + 1;
        it.numel = th__numel(result);
        it.shape[0] = it.numel;
        it.data[0] = (char *)th_tensor_data(result);
        it.strides[0][0] = (int64_t)th__elsize(result);
        for (int i = 0; i < nin; i++) {
            it.data[i + 1] = (char *)th_tensor_data(in[i]);
            it.strides[i + 1][0] = (int64_t)th__elsize(in[i]);
        }
        if (it.numel < 2 * (int64_t)TH__GRAIN) {
            int64_t inner[TH__ITER_MAX_OPS];
            for (int op = 0; op < it.nops; op++) inner[op] = it.strides[op][0];
            if (it.numel > 0) row(it.data, inner, it.numel, ctx);
        } else {
            th__iter_parallel(&it, row, ctx);
        }
        return result;
    }
    const th_tensor *ops[TH__ITER_MAX_OPS];
    th_tensor *held[TH__ITER_MAX_OPS - 1] = {NULL};
    ops[0] = result;
    for (int i = 0; i < nin; i++) {
        held[i] = fresh ? th_tensor_retain((th_tensor *)in[i]) : th__unalias(fn, result, in[i]);
        if (!held[i]) goto fail;
        ops[i + 1] = held[i];
    }
    if (th__iter_init(fn, &it, nin + 1, ops)) goto fail;
    th__iter_parallel(&it, row, ctx);
    for (int i = 0; i < nin; i++) th_tensor_release(held[i]);
    return result;
fail:
    for (int i = 0; i < nin; i++) th_tensor_release(held[i]);
    th_tensor_release(result);
    return NULL;
}

/* A 0-d tensor holding the element at value: how the _scalar forms pass their value. */
TH__MAYBE_UNUSED static th_tensor *th__scalar_tensor(const char *fn, th_dtype dtype, const void *value)
{
    th_tensor *t = th__tensor_empty(fn, dtype, 0, NULL);
    if (t && th_device_is_host(t->storage->device)) {
        memcpy(th_tensor_data(t), value, th__dtype_traits[dtype].size);
        return t;
    }
    if (t) { /* the default allocator hands out device memory */
        th__fail(TH_ERR_DEVICE, fn, "the default allocator's memory is on device type %d, which the host cannot "
                 "write", (int)t->storage->device.type);
        th_tensor_release(t);
    }
    return NULL;
}

/* The _out and _inplace forms report a status rather than a tensor. */
TH__MAYBE_UNUSED static int th__status_of(th_tensor *result)
{
    if (!result) return th_last_status();
    th_tensor_release(result);
    return TH_OK;
}

#endif
