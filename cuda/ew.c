/* cuda/ew.c: elementwise ops on CUDA tensors, the `elementwise` member of the companion's op table
 * (cuda/ops.c). The core has checked what it can without touching device memory (shapes broadcast, out's
 * dtype, shape, writability and self-overlap, one device; core/device_ops.h); this finds the op's kernel
 * (cuda/ew_kernels.cu), makes or takes the result on the device, copies an input that overlaps the result
 * other than exactly, plans the iteration (cuda/plan.h) and queues the kernel on the thread's current stream
 * of that device, without waiting for it. */
#include "cuda_internal.h"
#include "ew.h"

#include <cuda_runtime_api.h>
#include <string.h>

static bool th__ew_host_scalar(const th_tensor *t)
{
    return th_tensor_ndim(t) == 0 && th_device_is_host(th_storage_device(th_tensor_storage(t)));
}

/* The lowest and one past the highest byte t's elements occupy. */
static void th__ew_byte_range(const th_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    const int64_t es = (int64_t)th_dtype_info(th_tensor_dtype(t))->size;
    int64_t first = 0, last = 0;
    for (int d = 0; d < th_tensor_ndim(t); d++) {
        int64_t span = (th_tensor_sizes(t)[d] - 1) * th_tensor_strides(t)[d] * es;
        if (span < 0) first += span;
        else last += span;
    }
    uintptr_t base = (uintptr_t)th_tensor_data(t);
    *lo = base + (uintptr_t)first;
    *hi = base + (uintptr_t)last + (uintptr_t)es;
}

/* Whether the kernel may read in while writing out: disjoint memory, or exactly out's own elements (each read
 * before it is written, by the same thread). */
static bool th__ew_safe_input(const th_tensor *out, const th_tensor *in)
{
    if (th_tensor_storage(in) != th_tensor_storage(out) || th_tensor_numel(in) == 0 || th_tensor_numel(out) == 0)
        return true;
    if (th_tensor_data(in) == th_tensor_data(out) && th_tensor_ndim(in) == th_tensor_ndim(out) &&
        th_tensor_dtype(in) == th_tensor_dtype(out) &&
        memcmp(th_tensor_sizes(in), th_tensor_sizes(out), (size_t)th_tensor_ndim(in) * sizeof(int64_t)) == 0 &&
        memcmp(th_tensor_strides(in), th_tensor_strides(out), (size_t)th_tensor_ndim(in) * sizeof(int64_t)) == 0)
        return true;
    uintptr_t olo, ohi, ilo, ihi;
    th__ew_byte_range(out, &olo, &ohi);
    th__ew_byte_range(in, &ilo, &ihi);
    return ohi <= ilo || ihi <= olo;
}

/* The shape the inputs broadcast to (the core has checked that they do). */
static void th__ew_shape(const th_device_elementwise *call, int *ndim, int64_t *sizes)
{
    int nd = 0;
    for (int i = 0; i < call->nin; i++)
        if (th_tensor_ndim(call->in[i]) > nd) nd = th_tensor_ndim(call->in[i]);
    for (int k = 0; k < nd; k++) sizes[k] = 1;
    for (int i = 0; i < call->nin; i++) {
        const th_tensor *t = call->in[i];
        for (int k = 0; k < th_tensor_ndim(t); k++) {
            int64_t s = th_tensor_sizes(t)[th_tensor_ndim(t) - 1 - k];
            if (s != 1) sizes[nd - 1 - k] = s;
        }
    }
    *ndim = nd;
}

th_tensor *th__cuda_elementwise(void *ctx, const char *fn, th_tensor *out, const th_device_elementwise *call)
{
    (void)ctx;
    const th__cuda_ew_kernel *k = th__cuda_ew_find(call->op, (int)call->dtype);
    if (!k || k->nin != call->nin || k->out_dtype != (int)call->out_dtype) {
        th_set_error(TH_ERR_UNSUPPORTED, fn, "the CUDA companion has no device kernel for %s on %s%s", call->op,
                     th_dtype_name(call->dtype),
                     call->dtype == TH_C64 || call->dtype == TH_C128 ? " (complex elementwise ops run on the host only, so far)"
                                                          : "");
        return NULL;
    }
    /* The device: out's, or the first input's that is not a host scalar (the core checked they agree). */
    const th_tensor *where = out;
    for (int i = 0; !where && i < call->nin; i++)
        if (!th__ew_host_scalar(call->in[i])) where = call->in[i];
    if (!where) {
        th_set_error(TH_ERR_DEVICE, fn, "no operand is CUDA memory");
        return NULL;
    }
    const int device = (int)th_storage_device(th_tensor_storage(where)).index;
    if (th_storage_device(th_tensor_storage(where)).type != TH_DEVICE_CUDA) {
        th_set_error(TH_ERR_DEVICE, fn, "the operands are on device type %d, not CUDA memory",
                     (int)th_storage_device(th_tensor_storage(where)).type);
        return NULL;
    }
    if (th__cuda_check_device(fn, device)) return NULL;

    int ndim;
    int64_t sizes[TH_MAX_DIMS];
    th__ew_shape(call, &ndim, sizes);
    th_tensor *result = out ? th_tensor_retain(out) : th__cuda_empty(fn, call->out_dtype, device, ndim, sizes);
    if (!result) return NULL;

    /* An input that overlaps the result other than exactly is read from a copy made first, on the same
     * stream, as the host does (th__unalias). */
    th_tensor *held[3] = {NULL, NULL, NULL};
    const th_tensor *ops[TH_CUDA_PLAN_MAX_OPS] = {result};
    char *data[TH_CUDA_PLAN_MAX_OPS] = {(char *)th_tensor_data(result)};
    const void *scalars[3] = {NULL, NULL, NULL};
    for (int i = 0; i < call->nin; i++) {
        const th_tensor *t = call->in[i];
        if (th__ew_host_scalar(t)) {
            scalars[i] = th_tensor_data(t);
        } else if (!th__ew_safe_input(result, t)) {
            held[i] = th__cuda_empty(fn, th_tensor_dtype(t), device, th_tensor_ndim(t), th_tensor_sizes(t));
            if (!held[i] || th__cuda_copy(fn, held[i], t)) goto fail;
            t = held[i];
        }
        ops[i + 1] = t;
        data[i + 1] = (char *)th_tensor_data(t);
    }
    th__cuda_plan plan;
    if (!th__cuda_plan_elementwise(&plan, call->nin + 1, ops)) {
        th_set_error(TH_ERR_SHAPE, fn, "the operands do not broadcast to the result's shape");
        goto fail;
    }
    int prev = device;
    cudaError_t e = cudaGetDevice(&prev);
    if (e == cudaSuccess && prev != device) e = cudaSetDevice(device);
    if (e == cudaSuccess) {
        void *stream = th_cuda_stream_handle(th_cuda_current_stream(device));
        e = (cudaError_t)k->launch(&plan, data, scalars, call->params, stream);
        if (prev != device) (void)cudaSetDevice(prev);
    }
    if (e != cudaSuccess) {
        th__cuda_fail(fn, (int)e, "the elementwise kernel's launch");
        goto fail;
    }
    /* A copy's memory goes back to the cache now: reuse is ordered after the kernel on this stream. */
    for (int i = 0; i < 3; i++) th_tensor_release(held[i]);
    return result;
fail:
    for (int i = 0; i < 3; i++) th_tensor_release(held[i]);
    th_tensor_release(result);
    return NULL;
}
