/* cuda/device.c: devices and streams (th_cuda.h, "devices" and "streams"), over the CUDA runtime. */
#include "caching_allocator.h"
#include "cuda_internal.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

struct th_cuda_stream {
    int device;
    cudaStream_t handle; /* NULL: the device's default stream */
};

/* The process that first used CUDA. A forked child inherits the runtime's state but cannot use it (CUDA does
 * not survive fork), so every entry point refuses in a child. Process-wide and written once: the pid of the
 * process is the same for every thread. */
static _Atomic(pid_t) th__cuda_owner_pid;
/* Set in a child of fork() made after that first use, by a pthread_atfork handler registered then: the check
 * every entry point makes is a load rather than a getpid() system call (an op's launch path made four). */
static atomic_bool th__cuda_forked, th__cuda_atfork_registered; /* without the handler: getpid() each time */

static void th__cuda_after_fork_in_child(void) { atomic_store(&th__cuda_forked, true); }

/* The devices' default streams: constant objects (a NULL handle is CUDA's default stream), so no thread ever
 * writes them; a default stream's device is its index here. */
static th_cuda_stream th__default_streams[TH_CUDA_MAX_DEVICES];

/* Each thread's current stream per device (NULL: the default stream), as CUDA's own per-thread state is:
 * a worker thread queues on its own stream without disturbing others. */
static _Thread_local th_cuda_stream *th__current_streams[TH_CUDA_MAX_DEVICES];

int th__cuda_fail(const char *fn, int code, const char *what)
{
    return th_set_error(TH_ERR_DEVICE, fn, "%s failed: %s (%s)", what, cudaGetErrorName((cudaError_t)code),
                        cudaGetErrorString((cudaError_t)code));
}

/* The core's check of CUDA memory from outside (DLPack import): the pointer must be device or managed memory
 * of that very device, as the runtime itself records it. */
static int th__cuda_memory_check(const char *fn, th_device device, const void *data, int64_t nbytes)
{
    (void)nbytes;
    struct cudaPointerAttributes a;
    cudaError_t e = cudaPointerGetAttributes(&a, data);
    if (e != cudaSuccess) return th__cuda_fail(fn, (int)e, "cudaPointerGetAttributes");
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return th_set_error(TH_ERR_DEVICE, fn, "the data at %p is not CUDA device memory (cudaPointerGetAttributes "
                            "says memory type %d)", data, (int)a.type);
    if (a.device != device.index)
        return th_set_error(TH_ERR_DEVICE, fn, "the data at %p is memory of CUDA device %d, not of device %d", data,
                            a.device, (int)device.index);
    return TH_OK;
}

const char *th__cuda_forked_reason(void)
{
    pid_t owner = atomic_load(&th__cuda_owner_pid);
    if (owner == 0) {
        pid_t expected = 0;
        /* The first use in this process: from now on the core accepts CUDA memory from outside and hands
         * ops on it to this companion. */
        if (atomic_compare_exchange_strong(&th__cuda_owner_pid, &expected, getpid())) {
            atomic_store(&th__cuda_atfork_registered, pthread_atfork(NULL, NULL, th__cuda_after_fork_in_child) == 0);
            th_register_device_memory_check(TH_DEVICE_CUDA, th__cuda_memory_check);
            th_register_device_ops(TH_DEVICE_CUDA, &th__cuda_device_ops);
        }
        return NULL;
    }
    const bool forked = atomic_load(&th__cuda_atfork_registered) ? atomic_load(&th__cuda_forked) : owner != getpid();
    return !forked ? NULL
                   : "CUDA was initialised in a parent process; a forked child cannot use it (CUDA does "
                               "not survive fork: start the child with exec, or initialise CUDA after forking)";
}

int th_cuda_init(void)
{
    const char *forked = th__cuda_forked_reason();
    return forked ? th_set_error(TH_ERR_DEVICE, "th_cuda_init", "%s", forked) : TH_OK;
}

int th_cuda_device_count(void)
{
    if (th__cuda_forked_reason()) return 0;
    int n = 0;
    if (th__cuda_runtime_backend()->device_count(NULL, &n) != 0) return 0;
    return n < TH_CUDA_MAX_DEVICES ? n : TH_CUDA_MAX_DEVICES;
}

const char *th_cuda_unavailable_reason(void)
{
    const char *forked = th__cuda_forked_reason();
    return forked ? forked : th__cuda_runtime_unavailable();
}

int th__cuda_check_device(const char *fn, int device)
{
    const char *forked = th__cuda_forked_reason();
    if (forked) return th_set_error(TH_ERR_DEVICE, fn, "%s", forked);
    int n = th_cuda_device_count();
    if (n == 0) {
        const char *why = th_cuda_unavailable_reason();
        return th_set_error(TH_ERR_DEVICE, fn, "no CUDA device: %s", why ? why : "none found");
    }
    if (device < 0 || device >= n)
        return th_set_error(TH_ERR_RANGE, fn, "device %d is out of range (this machine has %d CUDA device%s)",
                            device, n, n == 1 ? "" : "s");
    return TH_OK;
}

int th_cuda_set_device(int device)
{
    if (th__cuda_check_device("th_cuda_set_device", device)) return th_last_status();
    cudaError_t e = cudaSetDevice(device);
    return e == cudaSuccess ? TH_OK : th__cuda_fail("th_cuda_set_device", (int)e, "cudaSetDevice");
}

int th_cuda_current_device(void)
{
    if (th__cuda_check_device("th_cuda_current_device", 0)) return th_last_status();
    int device = 0;
    cudaError_t e = cudaGetDevice(&device);
    return e == cudaSuccess ? device : th__cuda_fail("th_cuda_current_device", (int)e, "cudaGetDevice");
}

static bool th__is_default_stream(const th_cuda_stream *s)
{
    return s >= th__default_streams && s < th__default_streams + TH_CUDA_MAX_DEVICES;
}

int th_cuda_stream_device(const th_cuda_stream *stream)
{
    if (!stream) return -1;
    return th__is_default_stream(stream) ? (int)(stream - th__default_streams) : stream->device;
}

th_cuda_stream *th_cuda_stream_new(int device)
{
    const char *fn = "th_cuda_stream_new";
    if (th__cuda_check_device(fn, device)) return NULL;
    th_cuda_stream *s = (th_cuda_stream *)calloc(1, sizeof *s);
    if (!s) {
        th_set_error(TH_ERR_NOMEM, fn, "out of memory for a stream");
        return NULL;
    }
    s->device = device;
    int prev = 0;
    cudaError_t e = cudaGetDevice(&prev);
    if (e == cudaSuccess) e = cudaSetDevice(device);
    /* Non-blocking: it does not wait for the legacy default stream, as PyTorch's streams do not. */
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&s->handle, cudaStreamNonBlocking);
    if (prev != device) (void)cudaSetDevice(prev);
    if (e != cudaSuccess) {
        th__cuda_fail(fn, (int)e, "cudaStreamCreateWithFlags");
        free(s);
        return NULL;
    }
    return s;
}


int th_cuda_stream_free(th_cuda_stream *stream)
{
    if (!stream || th__is_default_stream(stream)) return TH_OK;
    for (int d = 0; d < TH_CUDA_MAX_DEVICES; d++)
        if (th__current_streams[d] == stream) {
            th__current_streams[d] = NULL;
            (void)th__cuda_set_current_stream(d, NULL);
        }
    /* Blocks marked as used on the stream (th_cuda_record_stream) would record an event on it at their
     * release: its work is waited for, then the allocator forgets it, so none refers to a destroyed stream. */
    cudaError_t e = cudaStreamSynchronize(stream->handle);
    int status = e == cudaSuccess ? TH_OK : th__cuda_fail("th_cuda_stream_free", (int)e, "cudaStreamSynchronize");
    if (!status) status = th__cuda_allocators_forget_stream(stream->device, stream->handle);
    e = cudaStreamDestroy(stream->handle);
    if (!status && e != cudaSuccess) status = th__cuda_fail("th_cuda_stream_free", (int)e, "cudaStreamDestroy");
    free(stream);
    return status;
}

th_cuda_stream *th_cuda_default_stream(int device)
{
    if (th__cuda_check_device("th_cuda_default_stream", device)) return NULL;
    return &th__default_streams[device];
}

th_cuda_stream *th_cuda_current_stream(int device)
{
    if (th__cuda_check_device("th_cuda_current_stream", device)) return NULL;
    th_cuda_stream *s = th__current_streams[device];
    return s ? s : th_cuda_default_stream(device);
}

int th_cuda_set_current_stream(th_cuda_stream *stream)
{
    if (!stream) {
        int device = th_cuda_current_device();
        if (device < 0) return device;
        th__current_streams[device] = NULL;
        return th__cuda_set_current_stream(device, NULL);
    }
    int device = th_cuda_stream_device(stream);
    if (th__cuda_check_device("th_cuda_set_current_stream", device)) return th_last_status();
    th__current_streams[device] = th__is_default_stream(stream) ? NULL : stream;
    /* The allocators take memory for the thread's current stream: tell them too. */
    return th__cuda_set_current_stream(device, th_cuda_stream_handle(stream));
}

int th_cuda_stream_synchronize(th_cuda_stream *stream)
{
    const char *fn = "th_cuda_stream_synchronize";
    if (!stream) return th_set_error(TH_ERR_INVALID, fn, "NULL stream");
    if (th__cuda_check_device(fn, th_cuda_stream_device(stream))) return th_last_status();
    cudaError_t e = cudaStreamSynchronize(stream->handle);
    return e == cudaSuccess ? TH_OK : th__cuda_fail(fn, (int)e, "cudaStreamSynchronize");
}

int th_cuda_stream_wait(th_cuda_stream *stream, th_cuda_stream *other)
{
    const char *fn = "th_cuda_stream_wait";
    if (!stream || !other) return th_set_error(TH_ERR_INVALID, fn, "NULL stream");
    if (th__cuda_check_device(fn, th_cuda_stream_device(other))) return th_last_status();
    /* An event recorded on other marks "the work so far"; stream waits for it on the device. */
    cudaEvent_t ev;
    cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e != cudaSuccess) return th__cuda_fail(fn, (int)e, "cudaEventCreateWithFlags");
    e = cudaEventRecord(ev, other->handle);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(stream->handle, ev, 0);
    cudaError_t d = cudaEventDestroy(ev); /* the wait stays queued: CUDA frees the event once it is done */
    if (e == cudaSuccess) e = d;
    return e == cudaSuccess ? TH_OK : th__cuda_fail(fn, (int)e, "cudaStreamWaitEvent");
}

void *th_cuda_stream_handle(const th_cuda_stream *stream) { return stream ? (void *)stream->handle : NULL; }
