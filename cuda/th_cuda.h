/* th_cuda.h: the CUDA companion of tensor.h (library th_cuda, pkg-config tensor-cuda).
 *
 * Devices, streams, caching allocators for device and pinned host memory, copies between devices, IPC and
 * DLPack on the device. Include it after tensor.h; it needs no CUDA header, compiles as C11 and C++, and a
 * program that uses it links th_cuda (which brings the CUDA runtime and the C++ runtime) next to its one
 * TH_IMPLEMENTATION translation unit. docs/cuda.md is the manual.
 *
 * Without a usable device (no driver, no GPU, a forked child) nothing aborts: th_cuda_device_count() is 0,
 * th_cuda_unavailable_reason() says why, and every call that needs a device fails with TH_ERR_DEVICE and a
 * message naming the function and the CUDA error. */
#ifndef TH_CUDA_H
#define TH_CUDA_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== devices ============================================================================== */

/* The number of usable CUDA devices: 0, never an error, without a driver or a device. */
int th_cuda_device_count(void);
/* Why no device can be used ("no usable NVIDIA driver (...)"), or NULL when at least one can. */
const char *th_cuda_unavailable_reason(void);
/* Registers the companion with the core: device memory from outside (DLPack) is accepted, and the typed ops
 * (th_f32_mm, th_f32_add, ...) on CUDA tensors run on the device. Every function here that makes or imports
 * a device tensor does it first, so a program calls it itself only when its first CUDA tensor comes from
 * another framework through DLPack. Idempotent; 0, or TH_ERR_DEVICE in a forked child of a process that
 * used CUDA. */
int th_cuda_init(void);
/* The calling thread's current device (set_device: as cudaSetDevice). 0 or a negative status: a device
 * out of range, no device. current_device returns the device, or a negative status. */
int th_cuda_set_device(int device);
int th_cuda_current_device(void);

/* ==== streams ============================================================================== */

/* A stream of one device. Work queued on one stream runs in order; work on different streams may overlap. */
typedef struct th_cuda_stream th_cuda_stream;

/* A new stream on device; NULL on error (device out of range, a CUDA error). */
th_cuda_stream *th_cuda_stream_new(int device);
/* Frees a stream made by th_cuda_stream_new (NULL, and a device's default stream, are no-ops). 0 or a
 * negative status. */
int th_cuda_stream_free(th_cuda_stream *stream);
/* The device's default stream (the NULL stream of CUDA); NULL for a device out of range. */
th_cuda_stream *th_cuda_default_stream(int device);
/* The stream this thread queues work on for device: the one set by th_cuda_set_current_stream, else the
 * default stream. NULL for a device out of range. */
th_cuda_stream *th_cuda_current_stream(int device);
/* Makes stream the calling thread's current stream of its device (NULL: back to the default stream of the
 * current device). 0 or a negative status. */
int th_cuda_set_current_stream(th_cuda_stream *stream);
/* Waits until every piece of work queued on stream so far is done. 0 or a negative status. */
int th_cuda_stream_synchronize(th_cuda_stream *stream);
/* Makes later work on stream wait for the work queued on other so far, without blocking the host. */
int th_cuda_stream_wait(th_cuda_stream *stream, th_cuda_stream *other);
/* The stream's device, and its cudaStream_t (as void *, so this header needs no CUDA header); -1 / NULL
 * for NULL. */
int th_cuda_stream_device(const th_cuda_stream *stream);
void *th_cuda_stream_handle(const th_cuda_stream *stream);


/* ==== allocators =========================================================================== */

/* The caching allocator of device memory of one device (policy, statistics and environment variables in
 * docs/cuda.md): a th_allocator of device type TH_DEVICE_CUDA, with *ctx_out the context to pass with it
 * (th_storage_new(nbytes, a, ctx)). Memory is taken for the calling thread's current stream of the device.
 * NULL (error recorded) for a device out of range or no device. */
const th_allocator *th_cuda_allocator(int device, void **ctx_out);
/* The caching allocator of pinned host memory (device type TH_DEVICE_CUDA_HOST): the host reads and writes
 * it, so every CPU op works on pinned tensors, and copies from and to it run at the bus's full speed. */
const th_allocator *th_cuda_host_allocator(void **ctx_out);
/* Marks the memory of t (a CUDA tensor) as used by work queued on stream, so that when it is freed the block
 * is reused only after that work is done. 0 or a negative status. */
int th_cuda_record_stream(const th_tensor *t, th_cuda_stream *stream);
/* Releases every cached block of device that is not in use (cudaFree); 0 or a negative status. */
int th_cuda_empty_cache(int device);

/* A counter: current value, its peak, and the totals of increments and decrements (PyTorch's Stat). */
typedef struct th_cuda_stat {
    int64_t current, peak, allocated, freed;
} th_cuda_stat;

/* Index of the per-pool arrays: both pools together, the small pool, the large pool. */
enum { TH_CUDA_POOL_ALL = 0, TH_CUDA_POOL_SMALL = 1, TH_CUDA_POOL_LARGE = 2, TH_CUDA_POOL_KINDS = 3 };

/* One device's statistics. A block is "active" from its allocation until it is back in its pool (after the
 * events of the streams it was used on); "inactive split" blocks are free blocks of segments that are
 * partly in use: the fragmentation that reserved-but-unallocated bytes are made of. */
typedef struct th_cuda_memory_stats {
    th_cuda_stat allocations[TH_CUDA_POOL_KINDS];          /* blocks handed out */
    th_cuda_stat segments[TH_CUDA_POOL_KINDS];             /* backend allocations held */
    th_cuda_stat active[TH_CUDA_POOL_KINDS];
    th_cuda_stat inactive_split[TH_CUDA_POOL_KINDS];
    th_cuda_stat allocated_bytes[TH_CUDA_POOL_KINDS];      /* sizes of the blocks handed out (rounded) */
    th_cuda_stat requested_bytes[TH_CUDA_POOL_KINDS];      /* what callers asked for */
    th_cuda_stat reserved_bytes[TH_CUDA_POOL_KINDS];       /* sizes of the segments held */
    th_cuda_stat active_bytes[TH_CUDA_POOL_KINDS];
    th_cuda_stat inactive_split_bytes[TH_CUDA_POOL_KINDS];
    int64_t cache_hits;            /* allocations served from a cached block */
    int64_t backend_mallocs;       /* successful backend mallocs (segments created) */
    int64_t backend_malloc_fails;  /* backend mallocs that failed, the out-of-memory ones included */
    int64_t backend_frees;         /* backend frees (segments released) */
    int64_t oom_retries;           /* times the out-of-memory sequence ran */
    int64_t ooms;                  /* allocations that failed after it */
    int64_t syncs;                 /* device synchronisations made (by the out-of-memory sequence) */
    int64_t events_pending;        /* events recorded at frees, not yet seen complete */
    size_t largest_free_block;     /* the largest cached free block now, of any stream */
    size_t max_split_size;         /* the setting in force (SIZE_MAX: none) */
    bool caching;                  /* false under TH_CUDA_NO_CACHING */
} th_cuda_memory_stats;
/* The caching allocator's statistics of device (docs/cuda.md says what each counts). 0 or a negative status. */
int th_cuda_get_memory_stats(int device, th_cuda_memory_stats *stats);

/* ==== tensors on the device ================================================================= */

/* A contiguous CUDA tensor of dtype on device, uninitialised; NULL on error. */
th_tensor *th_cuda_empty(th_dtype dtype, int device, int ndim, const int64_t *sizes);
/* Copies src into dst converting between any two dtypes (the CPU's rules, bit for bit), broadcasting src
 * to dst's shape, between any two devices (CPU, pinned, CUDA) and any strides; the host ops' th_tensor_copy
 * when neither is CUDA memory. Queued on the calling thread's current stream of the CUDA device; when host
 * memory is involved the copy is done when this returns, between two CUDA tensors it is stream-ordered (later
 * work on that stream sees it; th_cuda_stream_synchronize waits for it). 0 or a negative status. */
int th_cuda_copy(th_tensor *dst, const th_tensor *src);
/* A copy of t on device (t itself, retained, when it is already there), on the CPU (the thread's default
 * allocator), or in pinned host memory; contiguous. NULL on error. */
th_tensor *th_tensor_to_cuda(const th_tensor *t, int device);
th_tensor *th_tensor_to_cpu(const th_tensor *t);
th_tensor *th_tensor_to_pinned(const th_tensor *t);

/* ==== matrix products ===================================================================== */

/* Whether float32 and complex64 matrix products on CUDA devices may run on TF32 tensor cores (inputs rounded
 * to 10 mantissa bits, sums in float): off by default, so a product rounds as the CPU's does; on trades that
 * for speed. Process-wide. set returns the previous setting (0 or 1). */
int th_cuda_set_allow_tf32(int allow);
int th_cuda_allow_tf32(void);

/* ==== IPC and DLPack ======================================================================== */

/* A printable handle (docs/cuda.md, "IPC") to t, a CUDA tensor whose memory comes from th_cuda_allocator, that
 * another process of this user opens as a tensor over the same device memory: written into buf (cap bytes;
 * TH_CUDA_IPC_HANDLE_MAX always suffices), its length returned, or a negative status. Keep t until every
 * consumer has opened the handle; its memory then stays allocated until every consumer has released it, with
 * no call needed on either side. */
int th_cuda_ipc_encode(const th_tensor *t, char *buf, size_t cap);
/* The tensor a handle describes, over the producer's memory (each segment opened once per process); NULL on
 * error: a malformed or newer handle, the producer gone, the block freed, no device. */
th_tensor *th_cuda_ipc_open(const char *handle);
enum { TH_CUDA_IPC_HANDLE_MAX = 600 + 42 * TH_MAX_DIMS }; /* bytes of a handle, its NUL included */

#ifdef TH_HAS_DLPACK
/* th_tensor_to_dlpack for a consumer that will read t on consumer_stream (NULL: the device's default stream):
 * that stream waits for the work queued on t's device so far, and t's memory is marked as used there, so a
 * deleter run early cannot recycle it while the consumer's work is in flight. NULL on error. */
DLManagedTensor *th_cuda_to_dlpack(th_tensor *t, th_cuda_stream *consumer_stream);
struct DLManagedTensorVersioned *th_cuda_to_dlpack_versioned(th_tensor *t, th_cuda_stream *consumer_stream);
#endif

/* Per dtype, stamped from cuda/tensor_generic.h: th_f32_to_cuda(t, device), th_f32_to_cpu(t),
 * th_f32_to_pinned(t), th_f32_cuda_empty / _zeros / _full(device, ndim, sizes[, value]), their _like(t[, value])
 * forms on t's device, th_f32_cuda_fill(t, value), th_f32_cuda_arange / _linspace / _eye(device, ...) and the
 * samplers' th_f32_cuda_uniform / _normal / _exponential / _bernoulli / _randint(device, ndim, sizes, ..., gen). */
#define TH_GENERIC_FILE "../cuda/tensor_generic.h"
#include "generate/all.h"

#ifdef __cplusplus
}
#endif

#endif
