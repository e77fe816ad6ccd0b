/* cuda/reduce.c: reductions and scans of CUDA tensors, the companion's reduce member (core/device_ops.h):
 * cuda/reduce_plan.c's driver given device memory from the caching allocator and the kernels of
 * cuda/reduce_kernels.cu, on the calling thread's current stream of the input's device, not waited for. */
#include "cuda_internal.h"
#include "reduce_kernels.h"
#include "reduce_plan.h"

#include <cuda_runtime_api.h>

typedef struct th__red_device {
    int device;
    cudaStream_t stream;
} th__red_device;

static th_tensor *th__red_empty(void *ctx, const char *fn, th_dtype dtype, int ndim, const int64_t *sizes)
{
    return th__cuda_empty(fn, dtype, ((const th__red_device *)ctx)->device, ndim, sizes);
}

static int th__red_copy(void *ctx, const char *fn, th_tensor *dst, const th_tensor *src)
{
    (void)ctx;
    return th__cuda_copy(fn, dst, src); /* device to device: a kernel on the same stream, not waited for */
}

/* Scratch from the caching allocator, on this stream: given back right after the last launch that reads it,
 * it is reused only by work queued after that launch. */
static int th__red_scratch(void *ctx, const char *fn, int64_t nbytes, void **ptr, void **handle)
{
    th_tensor *t = th__cuda_empty(fn, TH_U8, ((const th__red_device *)ctx)->device, 1, &nbytes);
    if (!t) return th_last_status();
    *ptr = th_tensor_data(t);
    *handle = t;
    return TH_OK;
}

static void th__red_release(void *ctx, void *handle)
{
    (void)ctx;
    th_tensor_release((th_tensor *)handle);
}

static int th__red_level(void *ctx, const char *fn, const th__cuda_reduce_plan *plan, const th__cuda_red_op *op,
                         const th__cuda_red_level *lv, const th__cuda_red_ptrs *ptrs)
{
    int e = th__cuda_launch_reduce_level(plan, op, lv, ptrs, ((const th__red_device *)ctx)->stream);
    return e ? th__cuda_fail(fn, e, "the reduction kernel's launch") : TH_OK;
}

static int th__red_scan(void *ctx, const char *fn, const th__cuda_reduce_plan *plan, int dt, bool product,
                        bool acc_float, const unsigned char *in, unsigned char *out, int64_t out_step)
{
    int e = th__cuda_launch_scan(plan, dt, product, acc_float, in, out, out_step, ((const th__red_device *)ctx)->stream);
    return e ? th__cuda_fail(fn, e, "the scan kernel's launch") : TH_OK;
}

static const th__cuda_red_exec th__red_exec = {th__red_empty, th__red_copy, th__red_scratch, th__red_release,
                                               th__red_level, th__red_scan};

int th__cuda_reduce(void *ctx, const char *fn, const th_device_reduce *call, th_tensor *const *outs,
                    th_tensor **results)
{
    (void)ctx;
    const th_device d = th_storage_device(th_tensor_storage(call->in));
    if (d.type != TH_DEVICE_CUDA) /* the core hands over CUDA memory only: this table is registered for it */
        return th_set_error(TH_ERR_DEVICE, fn, "the input is on device type %d, not CUDA memory", (int)d.type);
    /* What the device does not do is refused before the device is asked anything. */
    th__cuda_red_op op, centre;
    bool scan, product;
    if (th__cuda_red_describe(fn, call, &op, &centre, &scan, &product)) return th_last_status();
    th__red_device x = {(int)d.index, NULL};
    if (th__cuda_check_device(fn, x.device)) return th_last_status();
    int prev = x.device;
    cudaError_t e = cudaGetDevice(&prev);
    if (e == cudaSuccess && prev != x.device) e = cudaSetDevice(x.device);
    if (e != cudaSuccess) return th__cuda_fail(fn, (int)e, "cudaSetDevice");
    x.stream = (cudaStream_t)th_cuda_stream_handle(th_cuda_current_stream(x.device));
    const int status = th__cuda_red_call(&th__red_exec, &x, fn, call, outs, results);
    if (prev != x.device) (void)cudaSetDevice(prev);
    return status;
}
