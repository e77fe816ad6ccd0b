/* cuda/fill.c: the ops whose elements depend on their index alone, on CUDA tensors: the `random` member of the
 * companion's op table (cuda/ops.c; the core has checked the draw and reserved its blocks from the generator)
 * and arange, linspace and eye (th_<sfx>_cuda_arange, ...; checked here as the CPU checks them, with the CPU's
 * messages). The elements are cuda/fill_elems.h's, computed by one kernel (cuda/fill_kernels.cu) queued on the
 * thread's current stream of the tensor's device, not waited for. */
#include "cuda_internal.h"
#include "fill_elems.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <string.h>

/* Writes every element of t (a CUDA tensor of args->dtype on a usable device, any strides, no two elements at
 * one address) in row-major order. A non-contiguous t gets a contiguous tensor's values, copied in by the copy
 * kernel on the same stream, as the host fills a strided tensor through a contiguous temporary. */
static int th__fill_run(const char *fn, th_tensor *t, const th__cuda_fill_args *args)
{
    const int device = (int)th_storage_device(th_tensor_storage(t)).index;
    th_tensor *dense = th_tensor_is_contiguous(t) ? th_tensor_retain(t)
                                                  : th__cuda_empty(fn, th_tensor_dtype(t), device, th_tensor_ndim(t),
                                                                   th_tensor_sizes(t));
    if (!dense) return th_last_status();
    int prev = device, status = TH_OK;
    cudaError_t e = cudaGetDevice(&prev);
    if (e == cudaSuccess && prev != device) e = cudaSetDevice(device);
    if (e == cudaSuccess) {
        void *stream = th_cuda_stream_handle(th_cuda_current_stream(device));
        e = (cudaError_t)th__cuda_launch_fill_elements(args, th_tensor_data(dense), th_tensor_numel(dense), stream);
        if (prev != device) (void)cudaSetDevice(prev);
    }
    if (e != cudaSuccess) status = th__cuda_fail(fn, (int)e, "the fill kernel's launch");
    /* The copy is queued after the kernel on the same stream; the temporary's memory goes back to the cache,
     * reused only after that work (the caching allocator orders it on the stream). */
    if (!status && dense != t) status = th__cuda_copy(fn, t, dense);
    th_tensor_release(dense);
    return status;
}

static bool th__fill_on_cuda(const char *fn, const th_tensor *t)
{
    th_device d = th_storage_device(th_tensor_storage(t));
    if (d.type != TH_DEVICE_CUDA) {
        th_set_error(TH_ERR_DEVICE, fn, "the tensor is on device type %d, not CUDA memory", (int)d.type);
        return false;
    }
    return th__cuda_check_device(fn, (int)d.index) == TH_OK;
}

int th__cuda_random(void *ctx, const char *fn, th_tensor *out, const th_device_random *call)
{
    (void)ctx;
    th__cuda_fill_args args;
    if (!th__cuda_fill_random_args(call, &args) || call->dtype == TH_C64 || call->dtype == TH_C128)
        return th_set_error(TH_ERR_UNSUPPORTED, fn, "the CUDA companion has no sampler %s on %s", call->op,
                            th_dtype_name(call->dtype));
    if (!out) return th_set_error(TH_ERR_INVALID, fn, "NULL out");
    if (!th__fill_on_cuda(fn, out)) return th_last_status();
    return th__fill_run(fn, out, &args);
}

/* A new 1-d (or, for eye, 2-d) tensor of dtype on device holding the op's elements. */
static th_tensor *th__fill_new(const char *fn, int device, int ndim, const int64_t *sizes, const th__cuda_fill_args *args)
{
    th_tensor *t = th__cuda_empty(fn, (th_dtype)args->dtype, device, ndim, sizes);
    if (t && th__fill_run(fn, t, args)) {
        th_tensor_release(t);
        return NULL;
    }
    return t;
}

th_tensor *th__cuda_arange_f64(const char *fn, th_dtype dtype, int device, double start, double end, double step)
{
    if (!isfinite(start) || !isfinite(end) || !isfinite(step) || step == 0) {
        th_set_error(TH_ERR_INVALID, fn, "start %g, end %g and step %g must be finite with step != 0", start, end,
                     step);
        return NULL;
    }
    int64_t n;
    if (!th__arange_count_f64(start, end, step, &n)) {
        th_set_error(TH_ERR_OVERFLOW, fn, "start %g, end %g, step %g give %g elements, more than 2^62", start, end,
                     step, ceil((end - start) / step));
        return NULL;
    }
    const th__cuda_fill_args args = th__cuda_fill_arange_f64_args(dtype, start, step);
    return th__fill_new(fn, device, 1, &n, &args);
}

/* The values an integer dtype holds. */
static void th__int_range(th_dtype dtype, int64_t *min, int64_t *max)
{
    switch (dtype) {
    case TH_U8: *min = 0, *max = UINT8_MAX; break;
    case TH_I8: *min = INT8_MIN, *max = INT8_MAX; break;
    case TH_I16: *min = INT16_MIN, *max = INT16_MAX; break;
    case TH_I32: *min = INT32_MIN, *max = INT32_MAX; break;
    default: *min = INT64_MIN, *max = INT64_MAX; break;
    }
}

th_tensor *th__cuda_arange_i64(const char *fn, th_dtype dtype, int device, int64_t start, int64_t end, int64_t step)
{
    if (step == 0) {
        th_set_error(TH_ERR_INVALID, fn, "step is 0");
        return NULL;
    }
    int64_t n;
    if (!th__arange_count_i64(start, end, step, &n)) {
        th_set_error(TH_ERR_OVERFLOW, fn, "start %lld, end %lld, step %lld give more than 2^63 - 1 elements",
                     (long long)start, (long long)end, (long long)step);
        return NULL;
    }
    if (n > 0) {
        int64_t last = th__arange_i64_at(start, step, n - 1), min, max;
        th__int_range(dtype, &min, &max);
        if (start < min || start > max || last < min || last > max) {
            th_set_error(TH_ERR_RANGE, fn, "the values %lld..%lld do not fit the dtype's range [%lld, %lld]",
                         (long long)start, (long long)last, (long long)min, (long long)max);
            return NULL;
        }
    }
    const th__cuda_fill_args args = th__cuda_fill_arange_i64_args(dtype, start, step);
    return th__fill_new(fn, device, 1, &n, &args);
}

th_tensor *th__cuda_linspace(const char *fn, th_dtype dtype, int device, double start, double end, int64_t steps)
{
    if (steps < 0) {
        th_set_error(TH_ERR_INVALID, fn, "steps %lld is negative", (long long)steps);
        return NULL;
    }
    if (!isfinite(start) || !isfinite(end)) {
        th_set_error(TH_ERR_INVALID, fn, "start %g and end %g must be finite", start, end);
        return NULL;
    }
    const th__cuda_fill_args args = th__cuda_fill_linspace_args(dtype, start, end, steps);
    return th__fill_new(fn, device, 1, &steps, &args);
}

th_tensor *th__cuda_eye(const char *fn, th_dtype dtype, int device, int64_t n, int64_t m)
{
    if (n < 0 || m < 0) {
        th_set_error(TH_ERR_INVALID, fn, "%lld x %lld: a size is negative", (long long)n, (long long)m);
        return NULL;
    }
    const th__cuda_fill_args args = th__cuda_fill_eye_args(dtype, m);
    const int64_t sizes[2] = {n, m};
    return th__fill_new(fn, device, 2, sizes, &args);
}
