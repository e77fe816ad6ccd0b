/* cuda/tensor.c: tensors on the device, dtype-erased (th_cuda.h, "tensors"): making them from the device's
 * caching allocator, filling them, and copies between any two devices, dtypes and layouts.
 *
 * A copy is planned once (index_math.h) and done by the cheapest route: a kernel on the device when both
 * sides are device memory of one device; cudaMemcpyAsync for contiguous bytes of equal dtype; and otherwise
 * through a contiguous staging tensor on the side that can convert (the host converts host memory with
 * th_tensor_copy, the device converts device memory with the copy kernel). Work is queued on the calling
 * thread's current stream of the device; a copy that touches host memory waits for it before returning, so
 * the host may read or free its side at once. */
#include "cuda_internal.h"
#include "kernels.h"

#include <cuda_runtime_api.h>
#include <string.h>

static bool th__on_cuda(const th_tensor *t) { return th_storage_device(th_tensor_storage(t)).type == TH_DEVICE_CUDA; }

static int th__device_of(const th_tensor *t) { return (int)th_storage_device(th_tensor_storage(t)).index; }

static size_t th__nbytes(const th_tensor *t)
{
    return (size_t)th_tensor_numel(t) * th_dtype_info(th_tensor_dtype(t))->size;
}

/* Runs on device for the duration of one copy, then puts the caller's device back. */
typedef struct th__device_guard {
    int prev, device;
} th__device_guard;

static cudaError_t th__guard_enter(th__device_guard *g, int device)
{
    g->device = device;
    g->prev = device;
    cudaError_t e = cudaGetDevice(&g->prev);
    if (e == cudaSuccess && g->prev != device) e = cudaSetDevice(device);
    return e;
}

static void th__guard_leave(const th__device_guard *g)
{
    if (g->prev != g->device) (void)cudaSetDevice(g->prev);
}

th_tensor *th__cuda_empty(const char *fn, th_dtype dtype, int device, int ndim, const int64_t *sizes)
{
    if (th__cuda_check_device(fn, device)) return NULL;
    void *ctx = NULL;
    const th_allocator *a = th_cuda_allocator(device, &ctx);
    if (!a) return NULL;
    if (ndim < 0 || ndim > TH_MAX_DIMS || (ndim > 0 && !sizes)) {
        th_set_error(TH_ERR_INVALID, fn, "ndim %d with %s sizes", ndim, sizes ? "these" : "NULL");
        return NULL;
    }
    /* The storage first (from the device's allocator), then the tensor over it: new_with_storage checks the
     * sizes, so an invalid shape is refused before any device memory is touched. */
    int64_t numel = 1;
    for (int k = 0; k < ndim; k++) {
        if (sizes[k] < 0) {
            th_set_error(TH_ERR_INVALID, fn, "size %lld of dim %d is negative", (long long)sizes[k], k);
            return NULL;
        }
        if (sizes[k] > 0 && numel > INT64_MAX / sizes[k]) {
            th_set_error(TH_ERR_OVERFLOW, fn, "the element count overflows int64");
            return NULL;
        }
        numel *= sizes[k];
    }
    size_t es = th_dtype_info(dtype)->size;
    if (numel > INT64_MAX / (int64_t)es) {
        th_set_error(TH_ERR_OVERFLOW, fn, "%lld elements of %zu bytes overflow", (long long)numel, es);
        return NULL;
    }
    th_storage *s = th_storage_new(numel * (int64_t)es, a, ctx);
    if (!s) return NULL;
    th_tensor *t = th_tensor_new_with_storage(dtype, s, 0, ndim, sizes, NULL);
    th_storage_release(s);
    return t;
}

/* Moves nbytes between two contiguous ranges by cudaMemcpyAsync on stream (either side may be host memory). */
static int th__memcpy(const char *fn, void *dst, const void *src, size_t nbytes, cudaStream_t stream)
{
    if (nbytes == 0) return TH_OK;
    cudaError_t e = cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, stream);
    return e == cudaSuccess ? TH_OK : th__cuda_fail(fn, (int)e, "cudaMemcpyAsync");
}

/* ---- pageable host memory <-> the device, through pinned chunks ---- */

/* cudaMemcpy from or to pageable memory stages through the driver's own pinned buffers, its host side one
 * thread's memcpy: 9-10 GB/s for 1 GiB on a lent H200's host, against 55 GB/s from pinned memory. A contiguous
 * copy of at least TH__STAGE_MIN bytes goes through two pinned chunks of the pinned cache instead: every
 * thread copies the host side of one chunk while the other chunk's DMA runs. */
enum { TH__STAGE_CHUNK = 32 << 20, TH__STAGE_MIN = 8 << 20 };

/* memcpy split across the OpenMP threads in 1 MiB pieces (one thread without OpenMP or below 2 MiB). */
static void th__host_memcpy(void *dst, const void *src, size_t n)
{
#ifdef _OPENMP
    const size_t piece = (size_t)1 << 20;
    const int64_t pieces = (int64_t)((n + piece - 1) / piece);
#pragma omp parallel for schedule(static) if (pieces > 1)
    for (int64_t i = 0; i < pieces; i++) {
        const size_t o = (size_t)i * piece;
        memcpy((char *)dst + o, (const char *)src + o, n - o < piece ? n - o : piece);
    }
#else
    memcpy(dst, src, n);
#endif
}

/* Whether host memory at p is pinned or registered (then the DMA reads or writes it directly). */
static bool th__host_pinned(const th_tensor *t)
{
    if (th_storage_device(th_tensor_storage(t)).type == TH_DEVICE_CUDA_HOST) return true;
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, th_tensor_data(t)) != cudaSuccess) {
        (void)cudaGetLastError(); /* an unknown pointer is pageable memory, not an error */
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

/* n bytes from src to dst, to_device or back, pageable on the host side, in chunks through two pinned buffers;
 * returns when the copy is done. Chunk i waits for the DMA of chunk i - 2 (the same buffer) only. */
static int th__staged_copy(const char *fn, void *dst, const void *src, size_t n, bool to_device, cudaStream_t stream)
{
    const size_t chunk = n < (size_t)TH__STAGE_CHUNK ? n : (size_t)TH__STAGE_CHUNK;
    const int64_t size = (int64_t)chunk;
    th_tensor *buf[2] = {NULL, NULL};
    cudaEvent_t ev[2] = {NULL, NULL};
    bool pending[2] = {false, false};
    size_t at[2] = {0, 0}, len[2] = {0, 0};
    int status = TH_OK;
    for (int k = 0; k < 2 && !status; k++) {
        buf[k] = th__cuda_host_empty(fn, TH_U8, 1, &size);
        if (!buf[k]) status = th_last_status();
        cudaError_t e = status ? cudaSuccess : cudaEventCreateWithFlags(&ev[k], cudaEventDisableTiming);
        if (e != cudaSuccess) status = th__cuda_fail(fn, (int)e, "cudaEventCreateWithFlags");
    }
    for (size_t off = 0, i = 0; !status && off < n; off += chunk, i++) {
        const int k = (int)(i & 1);
        unsigned char *p = (unsigned char *)th_tensor_data(buf[k]);
        if (pending[k]) { /* chunk i - 2: its DMA done, and (to the host) its bytes moved out */
            cudaError_t e = cudaEventSynchronize(ev[k]);
            if (e != cudaSuccess) {
                status = th__cuda_fail(fn, (int)e, "cudaEventSynchronize");
                break;
            }
            if (!to_device) th__host_memcpy((char *)dst + at[k], p, len[k]);
            pending[k] = false;
        }
        len[k] = n - off < chunk ? n - off : chunk;
        at[k] = off;
        cudaError_t e;
        if (to_device) {
            th__host_memcpy(p, (const char *)src + off, len[k]);
            e = cudaMemcpyAsync((char *)dst + off, p, len[k], cudaMemcpyHostToDevice, stream);
        } else {
            e = cudaMemcpyAsync(p, (const char *)src + off, len[k], cudaMemcpyDeviceToHost, stream);
        }
        if (e == cudaSuccess) e = cudaEventRecord(ev[k], stream);
        if (e != cudaSuccess) {
            status = th__cuda_fail(fn, (int)e, to_device ? "cudaMemcpyAsync to the device" : "cudaMemcpyAsync to the host");
            break;
        }
        pending[k] = true;
    }
    /* The last chunks, in order; and nothing may still read or write a buffer that goes back to the cache. */
    const int first = at[0] <= at[1] ? 0 : 1;
    for (int j = 0; j < 2; j++) {
        const int k = j == 0 ? first : 1 - first;
        if (!pending[k]) continue;
        cudaError_t e = cudaEventSynchronize(ev[k]);
        if (e != cudaSuccess && !status) status = th__cuda_fail(fn, (int)e, "cudaEventSynchronize");
        if (!status && !to_device) th__host_memcpy((char *)dst + at[k], th_tensor_data(buf[k]), len[k]);
    }
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess && !status) status = th__cuda_fail(fn, (int)e, "cudaStreamSynchronize");
    for (int k = 0; k < 2; k++) {
        if (ev[k]) (void)cudaEventDestroy(ev[k]);
        th_tensor_release(buf[k]);
    }
    return status;
}

static bool th__bytes_overlap(const th_tensor *a, const th_tensor *b)
{
    if (th_tensor_storage(a) != th_tensor_storage(b)) return false;
    return th_tensor_numel(a) > 0 && th_tensor_numel(b) > 0; /* one storage: assume they may */
}

/* src (device memory of device, any layout and dtype, broadcast to dst's shape) into dst (device memory of
 * the same device), by the kernel, on stream. */
static int th__device_to_device(const char *fn, th_tensor *dst, const th_tensor *src, cudaStream_t stream)
{
    th__cuda_copy_plan plan;
    if (!th__cuda_plan_copy(dst, src, &plan))
        return th_set_error(TH_ERR_SHAPE, fn, "the source's shape does not broadcast to the destination's");
    if (th__bytes_overlap(dst, src)) { /* src may change under the copy: read it from a snapshot */
        th_tensor *tmp = th__cuda_empty(fn, th_tensor_dtype(src), th__device_of(src), th_tensor_ndim(src),
                                        th_tensor_sizes(src));
        if (!tmp) return th_last_status();
        int status = th__device_to_device(fn, tmp, src, stream);
        if (!status) status = th__device_to_device(fn, dst, tmp, stream);
        th_tensor_release(tmp);
        return status;
    }
    int e = th__cuda_launch_copy(&plan, th_tensor_data(src), th_tensor_data(dst), stream);
    return e == 0 ? TH_OK : th__cuda_fail(fn, e, "the copy kernel's launch");
}

static bool th__same_shape(const th_tensor *a, const th_tensor *b)
{
    if (th_tensor_ndim(a) != th_tensor_ndim(b)) return false;
    return memcmp(th_tensor_sizes(a), th_tensor_sizes(b), (size_t)th_tensor_ndim(a) * sizeof(int64_t)) == 0;
}

/* A contiguous host tensor of dtype with dst's shape holding src (host memory) converted and broadcast. */
static th_tensor *th__host_staging(const char *fn, th_dtype dtype, const th_tensor *shape_of, const th_tensor *src)
{
    th_tensor *t = th__cuda_host_empty(fn, dtype, th_tensor_ndim(shape_of), th_tensor_sizes(shape_of));
    if (t && th_tensor_copy(t, src)) {
        th_tensor_release(t);
        return NULL;
    }
    return t;
}

int th__cuda_copy(const char *fn, th_tensor *dst, const th_tensor *src)
{
    if (!dst || !src) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", dst ? "src" : "dst");
    const bool dcuda = th__on_cuda(dst), scuda = th__on_cuda(src);
    if (!dcuda && !scuda) return th_tensor_copy(dst, src);
    if (th_storage_is_read_only(th_tensor_storage(dst)))
        return th_set_error(TH_ERR_READ_ONLY, fn, "the destination's storage is read-only");
    const int device = dcuda ? th__device_of(dst) : th__device_of(src);
    if (th__cuda_check_device(fn, device) || (dcuda && scuda && th__cuda_check_device(fn, th__device_of(src))))
        return th_last_status();
    th__device_guard g;
    cudaError_t ge = th__guard_enter(&g, device);
    if (ge != cudaSuccess) return th__cuda_fail(fn, (int)ge, "cudaSetDevice");
    cudaStream_t stream = (cudaStream_t)th_cuda_stream_handle(th_cuda_current_stream(device));
    int status = TH_OK;
    const bool plain = th_tensor_dtype(dst) == th_tensor_dtype(src) && th__same_shape(dst, src) &&
                       th_tensor_is_contiguous(dst) && th_tensor_is_contiguous(src);
    if (dcuda && scuda && th__device_of(dst) == th__device_of(src)) {
        status = th__device_to_device(fn, dst, src, stream);
        th__guard_leave(&g);
        return status; /* stream-ordered: later work on this stream sees the result */
    }
    if (plain && !(dcuda && scuda) && th__nbytes(dst) >= (size_t)TH__STAGE_MIN && !th__host_pinned(dcuda ? src : dst)) {
        status = th__staged_copy(fn, th_tensor_data(dst), th_tensor_data(src), th__nbytes(dst), dcuda, stream);
    } else if (plain) {
        status = th__memcpy(fn, th_tensor_data(dst), th_tensor_data(src), th__nbytes(dst), stream);
        cudaError_t e = cudaStreamSynchronize(stream); /* host memory involved: done before we return */
        if (!status && e != cudaSuccess) status = th__cuda_fail(fn, (int)e, "cudaStreamSynchronize");
    } else if (dcuda && scuda) {
        /* Two devices: src made dense on its own device, moved, then laid out on dst's device. */
        th_tensor *a = th__cuda_empty(fn, th_tensor_dtype(src), th__device_of(src), th_tensor_ndim(src),
                                      th_tensor_sizes(src));
        th_tensor *b = a ? th__cuda_empty(fn, th_tensor_dtype(src), device, th_tensor_ndim(src),
                                          th_tensor_sizes(src))
                         : NULL;
        status = a && b ? th__cuda_copy(fn, a, src) : th_last_status();
        if (!status) status = th__memcpy(fn, th_tensor_data(b), th_tensor_data(a), th__nbytes(a), stream);
        if (!status) status = th__device_to_device(fn, dst, b, stream);
        cudaError_t e = cudaStreamSynchronize(stream); /* a and b are freed below */
        if (!status && e != cudaSuccess) status = th__cuda_fail(fn, (int)e, "cudaStreamSynchronize");
        th_tensor_release(a);
        th_tensor_release(b);
    } else if (dcuda) {
        /* Host to device: converted and broadcast on the host, into pinned staging, moved, then laid out by
         * the kernel when dst is not dense. */
        th_tensor *staged = th__host_staging(fn, th_tensor_dtype(dst), dst, src);
        th_tensor *dense = NULL;
        if (!staged) status = th_last_status();
        if (!status && !th_tensor_is_contiguous(dst)) {
            dense = th__cuda_empty(fn, th_tensor_dtype(dst), device, th_tensor_ndim(dst), th_tensor_sizes(dst));
            if (!dense) status = th_last_status();
        }
        th_tensor *target = dense ? dense : dst;
        if (!status) status = th__memcpy(fn, th_tensor_data(target), th_tensor_data(staged), th__nbytes(target), stream);
        if (!status && dense) status = th__device_to_device(fn, dst, dense, stream);
        /* The staging buffer is host memory freed below: the copy must be done first. */
        cudaError_t e = cudaStreamSynchronize(stream);
        if (!status && e != cudaSuccess) status = th__cuda_fail(fn, (int)e, "cudaStreamSynchronize");
        th_tensor_release(dense);
        th_tensor_release(staged);
    } else {
        /* Device to host: converted and broadcast to dst's dtype and shape on the device, moved into pinned
         * staging, then laid out on the host. */
        th_tensor *dense = th__cuda_empty(fn, th_tensor_dtype(dst), device, th_tensor_ndim(dst), th_tensor_sizes(dst));
        th_tensor *staged = dense ? th__cuda_host_empty(fn, th_tensor_dtype(dst), th_tensor_ndim(dst),
                                                       th_tensor_sizes(dst))
                                  : NULL;
        status = dense && staged ? th__device_to_device(fn, dense, src, stream) : th_last_status();
        if (!status) status = th__memcpy(fn, th_tensor_data(staged), th_tensor_data(dense), th__nbytes(dense), stream);
        cudaError_t e = cudaStreamSynchronize(stream);
        if (!status && e != cudaSuccess) status = th__cuda_fail(fn, (int)e, "cudaStreamSynchronize");
        if (!status) status = th_tensor_copy(dst, staged);
        th_tensor_release(staged);
        th_tensor_release(dense);
    }
    th__guard_leave(&g);
    return status;
}

int th__cuda_fill(const char *fn, th_tensor *t, const void *value)
{
    if (!t) return th_set_error(TH_ERR_INVALID, fn, "NULL tensor");
    if (!th__on_cuda(t)) return th_set_error(TH_ERR_DEVICE, fn, "the tensor is not CUDA device memory");
    const int device = th__device_of(t);
    if (th__cuda_check_device(fn, device)) return th_last_status();
    th__device_guard g;
    cudaError_t ge = th__guard_enter(&g, device);
    if (ge != cudaSuccess) return th__cuda_fail(fn, (int)ge, "cudaSetDevice");
    cudaStream_t stream = (cudaStream_t)th_cuda_stream_handle(th_cuda_current_stream(device));
    int elem = (int)th_dtype_info(th_tensor_dtype(t))->size, status = TH_OK;
    if (th_tensor_is_contiguous(t)) {
        int e = th__cuda_launch_fill(th_tensor_data(t), th_tensor_numel(t), elem, value, stream);
        if (e) status = th__cuda_fail(fn, e, "the fill kernel's launch");
    } else { /* a strided view: fill a dense one, then copy it in by the kernel */
        th_tensor *dense = th__cuda_empty(fn, th_tensor_dtype(t), device, th_tensor_ndim(t), th_tensor_sizes(t));
        status = dense ? TH_OK : th_last_status();
        if (!status) {
            int e = th__cuda_launch_fill(th_tensor_data(dense), th_tensor_numel(dense), elem, value, stream);
            if (e) status = th__cuda_fail(fn, e, "the fill kernel's launch");
        }
        if (!status) status = th__device_to_device(fn, t, dense, stream);
        th_tensor_release(dense);
    }
    th__guard_leave(&g);
    return status;
}

/* ---- the public, dtype-erased doors, and the per-dtype ones stamped below ---- */

th_tensor *th__cuda_host_empty(const char *fn, th_dtype dtype, int ndim, const int64_t *sizes)
{
    void *ctx = NULL;
    const th_allocator *a = th_cuda_host_allocator(&ctx);
    if (!a) return NULL;
    int64_t numel = 1;
    for (int k = 0; k < ndim; k++) numel *= sizes[k];
    (void)fn; /* th_storage_new records its own error, naming itself */
    th_storage *s = th_storage_new(numel * (int64_t)th_dtype_info(dtype)->size, a, ctx);
    if (!s) return NULL;
    th_tensor *t = th_tensor_new_with_storage(dtype, s, 0, ndim, sizes, NULL);
    th_storage_release(s);
    return t;
}

/* A typed function's argument: the dtype its type says, or TH_ERR_DTYPE. */
static int th__cuda_check_dtype(const char *fn, const th_tensor *t, th_dtype want)
{
    if (!t) return th_set_error(TH_ERR_INVALID, fn, "NULL tensor");
    if (th_tensor_dtype(t) != want)
        return th_set_error(TH_ERR_DTYPE, fn, "the tensor is %s; this function takes %s",
                            th_dtype_name(th_tensor_dtype(t)), th_dtype_name(want));
    return TH_OK;
}

th_tensor *th__cuda_to(const char *fn, const th_tensor *t, int want_dtype, int device_type, int device)
{
    if (want_dtype >= 0 && th__cuda_check_dtype(fn, t, (th_dtype)want_dtype)) return NULL;
    if (!t) {
        th_set_error(TH_ERR_INVALID, fn, "NULL tensor");
        return NULL;
    }
    th_device where = th_storage_device(th_tensor_storage(t));
    if (where.type == device_type && (device_type != TH_DEVICE_CUDA || where.index == device))
        return th_tensor_retain((th_tensor *)t);
    th_tensor *r = NULL;
    th_dtype dtype = th_tensor_dtype(t);
    if (device_type == TH_DEVICE_CUDA) {
        r = th__cuda_empty(fn, dtype, device, th_tensor_ndim(t), th_tensor_sizes(t));
    } else if (device_type == TH_DEVICE_CUDA_HOST) {
        r = th__cuda_host_empty(fn, dtype, th_tensor_ndim(t), th_tensor_sizes(t));
    } else {
        void *ctx = NULL;
        const th_allocator *a = th_default_allocator(&ctx);
        int64_t numel = th_tensor_numel(t);
        th_storage *s = th_storage_new(numel * (int64_t)th_dtype_info(dtype)->size, a, ctx);
        r = s ? th_tensor_new_with_storage(dtype, s, 0, th_tensor_ndim(t), th_tensor_sizes(t), NULL) : NULL;
        th_storage_release(s);
    }
    if (r && th__cuda_copy(fn, r, t)) {
        th_tensor_release(r);
        r = NULL;
    }
    return r;
}

th_tensor *th__cuda_full(const char *fn, th_dtype dtype, int device, int ndim, const int64_t *sizes,
                         const void *value)
{
    th_tensor *t = th__cuda_empty(fn, dtype, device, ndim, sizes);
    const unsigned char zeros[16] = {0};
    if (t && th__cuda_fill(fn, t, value ? value : zeros)) {
        th_tensor_release(t);
        return NULL;
    }
    return t;
}

th_tensor *th__cuda_like(const char *fn, const th_tensor *t, th_dtype dtype, const void *value, bool fill)
{
    if (th__cuda_check_dtype(fn, t, dtype)) return NULL;
    if (!th__on_cuda(t)) {
        th_set_error(TH_ERR_DEVICE, fn, "the tensor is not on a CUDA device (device type %d)",
                     (int)th_storage_device(th_tensor_storage(t)).type);
        return NULL;
    }
    if (!fill) return th__cuda_empty(fn, dtype, th__device_of(t), th_tensor_ndim(t), th_tensor_sizes(t));
    return th__cuda_full(fn, dtype, th__device_of(t), th_tensor_ndim(t), th_tensor_sizes(t), value);
}

int th__cuda_fill_checked(const char *fn, th_tensor *t, th_dtype dtype, const void *value)
{
    if (th__cuda_check_dtype(fn, t, dtype)) return th_last_status();
    if (th_storage_is_read_only(th_tensor_storage(t)))
        return th_set_error(TH_ERR_READ_ONLY, fn, "the tensor's storage is read-only");
    return th__cuda_fill(fn, t, value);
}

th_tensor *th_cuda_empty(th_dtype dtype, int device, int ndim, const int64_t *sizes)
{
    if ((int)dtype < 0 || (int)dtype >= TH_NUM_DTYPES) {
        th_set_error(TH_ERR_DTYPE, "th_cuda_empty", "%d is no dtype", (int)dtype);
        return NULL;
    }
    return th__cuda_empty("th_cuda_empty", dtype, device, ndim, sizes);
}

int th_cuda_copy(th_tensor *dst, const th_tensor *src) { return th__cuda_copy("th_cuda_copy", dst, src); }

th_tensor *th_tensor_to_cuda(const th_tensor *t, int device)
{
    return th__cuda_to("th_tensor_to_cuda", t, -1, TH_DEVICE_CUDA, device);
}

th_tensor *th_tensor_to_cpu(const th_tensor *t) { return th__cuda_to("th_tensor_to_cpu", t, -1, TH_DEVICE_CPU, 0); }

th_tensor *th_tensor_to_pinned(const th_tensor *t)
{
    return th__cuda_to("th_tensor_to_pinned", t, -1, TH_DEVICE_CUDA_HOST, 0);
}

#define TH__DEFINING /* the definitions pass, as tensor.h runs its own */
#define TH_GENERIC_FILE "../cuda/tensor_generic.h"
#include "generate/all.h"
#undef TH__DEFINING

/* ---- DLPack export for a consumer on another stream ---- */

#ifdef TH_HAS_DLPACK
/* Makes consumer wait for the work queued on t's device so far, and marks t's memory as used there. */
static int th__cuda_hand_over(const char *fn, th_tensor *t, th_cuda_stream *consumer)
{
    if (!t) return th_set_error(TH_ERR_INVALID, fn, "NULL tensor");
    if (!th__on_cuda(t)) return TH_OK; /* host memory: nothing in flight on a device */
    int device = th__device_of(t);
    th_cuda_stream *producer = th_cuda_current_stream(device);
    th_cuda_stream *to = consumer ? consumer : th_cuda_default_stream(device);
    if (!producer || !to) return th_last_status();
    if (to != producer && th_cuda_stream_wait(to, producer)) return th_last_status();
    /* Memory from elsewhere (an import) is not ours to keep: only our allocator's blocks are recorded. */
    if (th_storage_allocator(th_tensor_storage(t), NULL) != th_cuda_allocator(device, NULL)) return TH_OK;
    return th_cuda_record_stream(t, to);
}

DLManagedTensor *th_cuda_to_dlpack(th_tensor *t, th_cuda_stream *consumer_stream)
{
    if (th__cuda_hand_over("th_cuda_to_dlpack", t, consumer_stream)) return NULL;
    return th_tensor_to_dlpack(t);
}

struct DLManagedTensorVersioned *th_cuda_to_dlpack_versioned(th_tensor *t, th_cuda_stream *consumer_stream)
{
    if (th__cuda_hand_over("th_cuda_to_dlpack_versioned", t, consumer_stream)) return NULL;
    return th_tensor_to_dlpack_versioned(t);
}
#endif
