/* cuda/backend.h: everything the CUDA companion asks of CUDA itself, as a table of function pointers.
 *
 * The allocators' policy (rounding, pools, splitting, merging, stream-ordered reuse, the out-of-memory
 * sequence), the pinned cache and the IPC bookkeeping are plain C11 that calls CUDA only through this table.
 * The real table (cuda/runtime_backend.c) calls the CUDA runtime; the tests give a fake one over canaried host
 * memory with a capacity limit and fake events, so every rule is tested on machines without a GPU.
 *
 * Conventions: every function returns 0 on success or the backend's error code (for the real backend, the
 * cudaError_t value), which error_name() turns into a name ("cudaErrorMemoryAllocation"). A code equal to
 * `oom_code` means the device or host is out of memory, the one error the allocators recover from. Streams and
 * events are opaque pointers (cudaStream_t, cudaEvent_t); the NULL stream is the device's default stream.
 * Devices are numbered from 0. ctx is the table's own state, passed back to every call. Every function may be
 * called from any thread. */
#ifndef TH_CUDA_BACKEND_H
#define TH_CUDA_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { TH_CUDA_IPC_HANDLE_BYTES = 64 }; /* cudaIpcMemHandle_t and cudaIpcEventHandle_t are 64 bytes */

typedef struct th_cuda_backend {
    const char *name; /* "cuda-runtime", "fake" */
    void *ctx;
    int oom_code;     /* the code malloc and host_malloc return when memory runs out */

    /* Devices. device_count gives 0 (and returns 0) where there is no driver or no device. */
    int (*device_count)(void *ctx, int *count);
    int (*mem_get_info)(void *ctx, int device, size_t *free_bytes, size_t *total_bytes);
    /* Waits for all work on the device (the allocator's out-of-memory sequence, before its one retry). */
    int (*device_synchronize)(void *ctx, int device);

    /* Device memory: cudaMalloc / cudaFree on the given device. */
    int (*malloc)(void *ctx, int device, size_t size, void **ptr);
    int (*free)(void *ctx, int device, void *ptr);
    /* Page-locked host memory: cudaHostAlloc (portable) / cudaFreeHost. */
    int (*host_malloc)(void *ctx, size_t size, void **ptr);
    int (*host_free)(void *ctx, void *ptr);

    /* Events (timing disabled): record on a stream of the device, ask whether the work before it is done. */
    int (*event_create)(void *ctx, int device, void **event);
    int (*event_destroy)(void *ctx, void *event);
    int (*event_record)(void *ctx, void *event, void *stream);
    int (*event_query)(void *ctx, void *event, bool *done);
    int (*event_synchronize)(void *ctx, void *event);

    /* IPC: the handle of an allocation made by malloc (its base), opened in another process; the handle of an
     * event created for IPC (event_create_ipc: interprocess, timing disabled) and its opening. */
    int (*ipc_get_mem_handle)(void *ctx, void *ptr, unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES]);
    int (*ipc_open_mem_handle)(void *ctx, int device, const unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES],
                               void **ptr);
    int (*ipc_close_mem_handle)(void *ctx, int device, void *ptr);
    int (*event_create_ipc)(void *ctx, int device, void **event);
    int (*ipc_get_event_handle)(void *ctx, void *event, unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES]);
    int (*ipc_open_event_handle)(void *ctx, int device, const unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES],
                                 void **event);

    /* The name of an error code ("cudaErrorMemoryAllocation"); never NULL. */
    const char *(*error_name)(void *ctx, int code);
} th_cuda_backend;

#ifdef __cplusplus
}
#endif

#endif
