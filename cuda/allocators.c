/* cuda/allocators.c: the companion's two caching allocators (th_cuda.h, "allocators"), one process-wide
 * instance of each over the CUDA runtime backend. The policy lives in caching_allocator.c and pinned_cache.c. */
#include "caching_allocator.h"
#include "cuda_internal.h"
#include "ipc.h"
#include "pinned_cache.h"

#include <stdatomic.h>
#include <string.h>
#include <threads.h>

/* The instances: process-wide, because device memory and pinned pages are the process's (as PyTorch keeps
 * one caching allocator); made once, on first use, and never freed (the driver reclaims everything at exit). */
static th__cuda_caching *th__caching;
static th__cuda_pinned *th__pinned;
static once_flag th__allocators_once = ONCE_FLAG_INIT;
static _Atomic int th__allocators_status;

/* A block an IPC consumer still held when its tensor was freed: freed for real by the IPC sweep, once no
 * consumer holds it. */
static void th__ipc_free_block(void *ctx, int device, void *block)
{
    (void)ctx;
    th__cuda_caching_dev *dev = th__cuda_caching_dev_get(th__caching, device);
    if (dev) (void)th__cuda_caching_release(dev, block);
}

/* What the storages get for device memory: the caching allocator, with two IPC duties on the way. A free of
 * a block shared with other processes waits until none holds it (th__cuda_ipc_defer_free), and every
 * allocation first lets the sweep free such blocks that were let go meanwhile. */
typedef struct th__device_allocator {
    th_allocator allocator;
    const th_allocator *inner;
    void *inner_ctx;
    int device;
} th__device_allocator;
static th__device_allocator th__device_allocators[TH_CUDA_MAX_DEVICES];

static void *th__device_alloc(void *ctx, size_t nbytes)
{
    th__device_allocator *d = (th__device_allocator *)ctx;
    (void)th__cuda_ipc_deferred_sweep();
    return d->inner->alloc(d->inner_ctx, nbytes);
}

static void th__device_free(void *ctx, void *ptr, size_t nbytes)
{
    th__device_allocator *d = (th__device_allocator *)ctx;
    if (th__cuda_ipc_defer_free(d->device, ptr)) return;
    d->inner->free(d->inner_ctx, ptr, nbytes);
}

static void th__allocators_make(void)
{
    th__caching = th__cuda_caching_new(th__cuda_runtime_backend(), NULL);
    th__pinned = th__caching ? th__cuda_pinned_new(th__cuda_runtime_backend(), NULL) : NULL;
    int status = th__caching && th__pinned ? TH_OK : th_last_status();
    for (int d = 0; !status && d < th_cuda_device_count(); d++) {
        th__device_allocator *w = &th__device_allocators[d];
        w->inner = th__cuda_caching_allocator(th__caching, d, &w->inner_ctx);
        if (!w->inner) {
            status = th_last_status();
            break;
        }
        w->allocator = *w->inner;
        w->allocator.alloc = th__device_alloc;
        w->allocator.realloc = NULL;
        w->allocator.free = th__device_free;
        w->device = d;
    }
    if (!status) {
        th__cuda_ipc_config ipc = {.backend = th__cuda_runtime_backend(), .free_block = th__ipc_free_block};
        status = th__cuda_ipc_configure(&ipc);
    }
    atomic_store(&th__allocators_status, status);
}

/* 0 once both allocators exist, else the status (the error recorded under fn). */
static int th__allocators_ready(const char *fn)
{
    call_once(&th__allocators_once, th__allocators_make);
    int status = atomic_load(&th__allocators_status);
    if (status)
        return th_set_error(status, fn, "the CUDA allocators could not be made (see TH_CUDA_ALLOC_CONF and "
                            "TH_CUDA_PINNED_CONF)");
    return TH_OK;
}

const th_allocator *th_cuda_allocator(int device, void **ctx_out)
{
    const char *fn = "th_cuda_allocator";
    if (th__cuda_check_device(fn, device) || th__allocators_ready(fn)) return NULL;
    if (ctx_out) *ctx_out = &th__device_allocators[device];
    return &th__device_allocators[device].allocator;
}

const th_allocator *th_cuda_host_allocator(void **ctx_out)
{
    const char *fn = "th_cuda_host_allocator";
    if (th__cuda_check_device(fn, 0) || th__allocators_ready(fn)) return NULL;
    if (ctx_out) *ctx_out = th__pinned;
    return th__cuda_pinned_allocator(th__pinned);
}

int th_cuda_record_stream(const th_tensor *t, th_cuda_stream *stream)
{
    const char *fn = "th_cuda_record_stream";
    if (!t || !stream) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", t ? "stream" : "tensor");
    th_device d = th_storage_device(th_tensor_storage(t));
    if (d.type != TH_DEVICE_CUDA) return th_set_error(TH_ERR_DEVICE, fn, "the tensor is not CUDA device memory");
    if (th__cuda_check_device(fn, (int)d.index) || th__allocators_ready(fn)) return th_last_status();
    th__cuda_caching_dev *dev = th__cuda_caching_dev_get(th__caching, (int)d.index);
    if (!dev) return th_last_status();
    return th__cuda_caching_record_stream(dev, th_storage_raw_data(th_tensor_storage(t)),
                                          th_cuda_stream_handle(stream));
}

int th__cuda_allocators_forget_stream(int device, void *stream)
{
    /* No allocator yet: no block can have recorded the stream. */
    if (!th__caching) return TH_OK;
    th__cuda_caching_dev *dev = th__cuda_caching_dev_get(th__caching, device);
    return dev ? th__cuda_caching_forget_stream(dev, stream) : th_last_status();
}

int th_cuda_empty_cache(int device)
{
    const char *fn = "th_cuda_empty_cache";
    if (th__cuda_check_device(fn, device) || th__allocators_ready(fn)) return th_last_status();
    th__cuda_caching_dev *dev = th__cuda_caching_dev_get(th__caching, device);
    int status = dev ? th__cuda_caching_empty_cache(dev) : th_last_status();
    int pinned = th__cuda_pinned_empty_cache(th__pinned);
    return status ? status : pinned;
}

int th_cuda_get_memory_stats(int device, th_cuda_memory_stats *stats)
{
    const char *fn = "th_cuda_get_memory_stats";
    if (!stats) return th_set_error(TH_ERR_INVALID, fn, "NULL stats");
    if (th__cuda_check_device(fn, device) || th__allocators_ready(fn)) return th_last_status();
    th__cuda_caching_dev *dev = th__cuda_caching_dev_get(th__caching, device);
    return dev ? th__cuda_caching_get_stats(dev, stats) : th_last_status();
}

/* ---- IPC: a device tensor to another process ---- */

int th_cuda_ipc_encode(const th_tensor *t, char *buf, size_t cap)
{
    const char *fn = "th_cuda_ipc_encode";
    if (!t || !buf) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", t ? "buf" : "tensor");
    th_storage *s = th_tensor_storage(t);
    th_device d = th_storage_device(s);
    if (d.type != TH_DEVICE_CUDA) return th_set_error(TH_ERR_DEVICE, fn, "the tensor is not CUDA device memory");
    if (th__cuda_check_device(fn, (int)d.index) || th__allocators_ready(fn)) return th_last_status();
    th__cuda_caching_dev *dev = th__cuda_caching_dev_get(th__caching, (int)d.index);
    void *base = NULL, *block = th_storage_raw_data(s);
    size_t segment_bytes = 0;
    if (!dev || th__cuda_caching_segment_of(dev, block, &base, &segment_bytes))
        return th_set_error(TH_ERR_UNSUPPORTED, fn, "the tensor's memory is not from th_cuda's allocator (only "
                            "its blocks can be shared)");
    th__cuda_ipc_block b = {(int)d.index, base, segment_bytes, block, (size_t)th_storage_nbytes(s)};
    th__cuda_ipc_view v = {block,           th_storage_nbytes(s), th_tensor_dtype(t), th_tensor_offset(t),
                           th_tensor_ndim(t), th_tensor_sizes(t),   th_tensor_strides(t)};
    return th__cuda_ipc_encode(&b, &v, th_cuda_stream_handle(th_cuda_current_stream((int)d.index)), buf, cap);
}

static void th__ipc_deleter(void *data, void *ctx)
{
    (void)data;
    (void)th__cuda_ipc_release((th__cuda_ipc_ref *)ctx);
}

th_tensor *th_cuda_ipc_open(const char *handle)
{
    const char *fn = "th_cuda_ipc_open";
    if (!handle) {
        th_set_error(TH_ERR_INVALID, fn, "NULL handle");
        return NULL;
    }
    th_cuda_ipc_handle h;
    if (th_cuda_ipc_handle_parse(handle, strlen(handle), &h)) return NULL;
    if (th__cuda_check_device(fn, h.device) || th__allocators_ready(fn)) return NULL;
    void *data = NULL;
    th__cuda_ipc_ref *ref = th__cuda_ipc_open(&h, &data);
    if (!ref) return NULL;
    th_storage *s = th_storage_from_blob(data, h.nbytes, (th_device){TH_DEVICE_CUDA, h.device}, th__ipc_deleter, ref);
    if (!s) {
        (void)th__cuda_ipc_release(ref);
        return NULL;
    }
    th_tensor *t = th_tensor_new_with_storage(h.dtype, s, h.offset, h.ndim, h.sizes, h.strides);
    th_storage_release(s); /* the tensor holds it; on error this runs the deleter, releasing the reference */
    return t;
}
