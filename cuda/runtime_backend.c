/* cuda/runtime_backend.c: the th_cuda_backend table over the CUDA runtime (cudart), the one file of the
 * companion's plain-C layer that includes a CUDA header.
 *
 * The runtime loads the driver itself on first use; where there is none (this library never links -lcuda),
 * every call returns an error such as cudaErrorInsufficientDriver, device_count reports 0 devices, and
 * th_cuda_unavailable_reason() says why. Each function keeps the device the caller had current: the
 * allocators run on whatever thread asks, and must not move that thread to another device behind its back. */
#include "backend.h"
#include "runtime_backend.h"

#include <cuda_runtime_api.h>
#include <string.h>

/* Makes device current for one call; th__rt_leave puts the caller's device back and returns the first error. */
static cudaError_t th__rt_enter(int device, int *prev)
{
    cudaError_t e = cudaGetDevice(prev);
    if (e == cudaSuccess && *prev != device) e = cudaSetDevice(device);
    return e;
}

static int th__rt_leave(int device, int prev, cudaError_t e)
{
    if (prev != device) {
        cudaError_t r = cudaSetDevice(prev);
        if (e == cudaSuccess) e = r;
    }
    return (int)e;
}

static int th__rt_device_count(void *ctx, int *count)
{
    (void)ctx;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    *count = e == cudaSuccess ? n : 0;
    /* No driver and no device are not errors here: they are 0 devices, explained by the reason string. */
    if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
        (void)cudaGetLastError();
        return 0;
    }
    return (int)e;
}

static int th__rt_mem_get_info(void *ctx, int device, size_t *free_bytes, size_t *total_bytes)
{
    (void)ctx;
    int prev = device;
    cudaError_t e = th__rt_enter(device, &prev);
    if (e == cudaSuccess) e = cudaMemGetInfo(free_bytes, total_bytes);
    return th__rt_leave(device, prev, e);
}

static int th__rt_device_synchronize(void *ctx, int device)
{
    (void)ctx;
    int prev = device;
    cudaError_t e = th__rt_enter(device, &prev);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    return th__rt_leave(device, prev, e);
}

static int th__rt_malloc(void *ctx, int device, size_t size, void **ptr)
{
    (void)ctx;
    *ptr = NULL;
    int prev = device;
    cudaError_t e = th__rt_enter(device, &prev);
    if (e == cudaSuccess) e = cudaMalloc(ptr, size);
    return th__rt_leave(device, prev, e);
}

static int th__rt_free(void *ctx, int device, void *ptr)
{
    (void)ctx;
    int prev = device;
    cudaError_t e = th__rt_enter(device, &prev);
    if (e == cudaSuccess) e = cudaFree(ptr);
    return th__rt_leave(device, prev, e);
}

static int th__rt_host_malloc(void *ctx, size_t size, void **ptr)
{
    (void)ctx;
    *ptr = NULL;
    /* Portable: pinned for every device's copies, not just the current one's. */
    return (int)cudaHostAlloc(ptr, size, cudaHostAllocPortable);
}

static int th__rt_host_free(void *ctx, void *ptr)
{
    (void)ctx;
    return (int)cudaFreeHost(ptr);
}

static int th__rt_event_create(void *ctx, int device, void **event)
{
    (void)ctx;
    *event = NULL;
    int prev = device;
    cudaError_t e = th__rt_enter(device, &prev);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags((cudaEvent_t *)event, cudaEventDisableTiming);
    return th__rt_leave(device, prev, e);
}

static int th__rt_event_destroy(void *ctx, void *event)
{
    (void)ctx;
    return (int)cudaEventDestroy((cudaEvent_t)event);
}

static int th__rt_event_record(void *ctx, void *event, void *stream)
{
    (void)ctx;
    return (int)cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream);
}

static int th__rt_event_query(void *ctx, void *event, bool *done)
{
    (void)ctx;
    cudaError_t e = cudaEventQuery((cudaEvent_t)event);
    *done = e == cudaSuccess;
    if (e == cudaErrorNotReady) {
        (void)cudaGetLastError(); /* not ready is an answer, not a sticky error */
        return 0;
    }
    return (int)e;
}

static int th__rt_event_synchronize(void *ctx, void *event)
{
    (void)ctx;
    return (int)cudaEventSynchronize((cudaEvent_t)event);
}

static int th__rt_ipc_get_mem_handle(void *ctx, void *ptr, unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES])
{
    (void)ctx;
    cudaIpcMemHandle_t h;
    cudaError_t e = cudaIpcGetMemHandle(&h, ptr);
    if (e == cudaSuccess) memcpy(handle, &h, TH_CUDA_IPC_HANDLE_BYTES);
    return (int)e;
}

static int th__rt_ipc_open_mem_handle(void *ctx, int device, const unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES],
                                      void **ptr)
{
    (void)ctx;
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, TH_CUDA_IPC_HANDLE_BYTES);
    *ptr = NULL;
    int prev = device;
    cudaError_t e = th__rt_enter(device, &prev);
    if (e == cudaSuccess) e = cudaIpcOpenMemHandle(ptr, h, cudaIpcMemLazyEnablePeerAccess);
    return th__rt_leave(device, prev, e);
}

static int th__rt_ipc_close_mem_handle(void *ctx, int device, void *ptr)
{
    (void)ctx;
    int prev = device;
    cudaError_t e = th__rt_enter(device, &prev);
    if (e == cudaSuccess) e = cudaIpcCloseMemHandle(ptr);
    return th__rt_leave(device, prev, e);
}

static int th__rt_event_create_ipc(void *ctx, int device, void **event)
{
    (void)ctx;
    *event = NULL;
    int prev = device;
    cudaError_t e = th__rt_enter(device, &prev);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags((cudaEvent_t *)event,
                                                        cudaEventDisableTiming | cudaEventInterprocess);
    return th__rt_leave(device, prev, e);
}

static int th__rt_ipc_get_event_handle(void *ctx, void *event, unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES])
{
    (void)ctx;
    cudaIpcEventHandle_t h;
    cudaError_t e = cudaIpcGetEventHandle(&h, (cudaEvent_t)event);
    if (e == cudaSuccess) memcpy(handle, &h, TH_CUDA_IPC_HANDLE_BYTES);
    return (int)e;
}

static int th__rt_ipc_open_event_handle(void *ctx, int device,
                                        const unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES], void **event)
{
    (void)ctx;
    cudaIpcEventHandle_t h;
    memcpy(&h, handle, TH_CUDA_IPC_HANDLE_BYTES);
    *event = NULL;
    int prev = device;
    cudaError_t e = th__rt_enter(device, &prev);
    if (e == cudaSuccess) e = cudaIpcOpenEventHandle((cudaEvent_t *)event, h);
    return th__rt_leave(device, prev, e);
}

static const char *th__rt_error_name(void *ctx, int code)
{
    (void)ctx;
    const char *name = cudaGetErrorName((cudaError_t)code);
    return name ? name : "cudaError?";
}

const th_cuda_backend *th__cuda_runtime_backend(void)
{
    static const th_cuda_backend backend = {
        .name = "cuda-runtime",
        .ctx = NULL,
        .oom_code = (int)cudaErrorMemoryAllocation,
        .device_count = th__rt_device_count,
        .mem_get_info = th__rt_mem_get_info,
        .device_synchronize = th__rt_device_synchronize,
        .malloc = th__rt_malloc,
        .free = th__rt_free,
        .host_malloc = th__rt_host_malloc,
        .host_free = th__rt_host_free,
        .event_create = th__rt_event_create,
        .event_destroy = th__rt_event_destroy,
        .event_record = th__rt_event_record,
        .event_query = th__rt_event_query,
        .event_synchronize = th__rt_event_synchronize,
        .ipc_get_mem_handle = th__rt_ipc_get_mem_handle,
        .ipc_open_mem_handle = th__rt_ipc_open_mem_handle,
        .ipc_close_mem_handle = th__rt_ipc_close_mem_handle,
        .event_create_ipc = th__rt_event_create_ipc,
        .ipc_get_event_handle = th__rt_ipc_get_event_handle,
        .ipc_open_event_handle = th__rt_ipc_open_event_handle,
        .error_name = th__rt_error_name,
    };
    return &backend;
}

/* The first error of the runtime's own start-up, as a sentence; NULL when a device is usable. */
const char *th__cuda_runtime_unavailable(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e == cudaSuccess && n > 0) return NULL;
    if (e == cudaSuccess || e == cudaErrorNoDevice) {
        (void)cudaGetLastError();
        return "no CUDA device is present (cudaGetDeviceCount found none)";
    }
    (void)cudaGetLastError();
    if (e == cudaErrorInsufficientDriver)
        return "no usable NVIDIA driver (cudaErrorInsufficientDriver: libcuda.so.1 is missing or older than "
               "this CUDA runtime)";
    return cudaGetErrorName(e);
}
