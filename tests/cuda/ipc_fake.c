/* tests/cuda/ipc_fake.c: the fake CUDA backend of the IPC tests (see ipc_fake.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ipc_fake.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>

#define IPC_FAKE_MEM_MAGIC UINT64_C(0x6d656d656b616621)   /* allocations, so a handle of a non-base is refused */
#define IPC_FAKE_EVENT_MAGIC UINT64_C(0x747665656b616621)

typedef struct fake_alloc {
    uint64_t magic;
    size_t bytes;
    int device;
    int pad;
} fake_alloc; /* 24 bytes; the memory follows at 32 so it keeps malloc's alignment */

enum { FAKE_HEAD = 32 };

/* Every live event is on a list: a forked child forgets its parent's shared blocks without destroying their
 * events (CUDA objects do not survive fork), and the list keeps them reachable for valgrind there. */
typedef struct fake_event {
    struct fake_event *next, *prev;
    uint64_t magic;
    int device;
    int interprocess;
    int records;
    int opened;                /* made by ipc_open_event_handle */
} fake_event;

/* The layout of both handles' 64 bytes: tag, pointer, pid, device. */
typedef struct fake_handle {
    char tag[8];
    uint64_t ptr;
    int64_t pid;
    int32_t device;
    char zero[TH_CUDA_IPC_HANDLE_BYTES - 28];
} fake_handle;
_Static_assert(sizeof(fake_handle) == TH_CUDA_IPC_HANDLE_BYTES, "a fake handle fills a CUDA one");

static fake_event events; /* the list's head */
/* Recursive: the malloc callback takes it, then ipc_fake_malloc, which the tests also call directly. */
static pthread_mutex_t fake_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static ipc_fake *fake_of(void *ctx) { return (ipc_fake *)ctx; }

/* Takes a pending failure of a kind: its code once, then 0. */
static int take_failure(int *slot)
{
    int code = *slot;
    *slot = 0;
    return code;
}

static fake_alloc *alloc_of(void *ptr)
{
    if (!ptr) return NULL;
    fake_alloc *a = (fake_alloc *)(void *)((char *)ptr - FAKE_HEAD);
    return a->magic == IPC_FAKE_MEM_MAGIC ? a : NULL;
}

static int fake_device_count_unlocked(void *ctx, int *count)
{
    *count = fake_of(ctx)->devices;
    return 0;
}

static int fake_mem_get_info_unlocked(void *ctx, int device, size_t *free_bytes, size_t *total_bytes)
{
    (void)ctx;
    (void)device;
    *free_bytes = *total_bytes = (size_t)1 << 30;
    return 0;
}

static int fake_device_synchronize_unlocked(void *ctx, int device)
{
    (void)ctx;
    (void)device;
    return 0;
}

static int fake_malloc_cb_unlocked(void *ctx, int device, size_t size, void **ptr)
{
    *ptr = ipc_fake_malloc(fake_of(ctx), device, size);
    return *ptr ? 0 : IPC_FAKE_OOM;
}

static int fake_free_cb_unlocked(void *ctx, int device, void *ptr)
{
    (void)device;
    if (!alloc_of(ptr)) return IPC_FAKE_INVALID_VALUE;
    ipc_fake_free(fake_of(ctx), ptr);
    return 0;
}

static int fake_host_malloc_unlocked(void *ctx, size_t size, void **ptr)
{
    (void)ctx;
    *ptr = malloc(size ? size : 1);
    return *ptr ? 0 : IPC_FAKE_OOM;
}

static int fake_host_free_unlocked(void *ctx, void *ptr)
{
    (void)ctx;
    free(ptr);
    return 0;
}

static int make_event(ipc_fake *f, int device, int interprocess, void **event)
{
    int code = take_failure(&f->fail_create_event);
    if (code) return code;
    fake_event *e = (fake_event *)calloc(1, sizeof *e);
    if (!e) return IPC_FAKE_OOM;
    if (!events.next) events.next = events.prev = &events;
    e->next = events.next;
    e->prev = &events;
    events.next->prev = e;
    events.next = e;
    e->magic = IPC_FAKE_EVENT_MAGIC;
    e->device = device;
    e->interprocess = interprocess;
    f->events_created++;
    *event = e;
    return 0;
}

static int fake_event_create_unlocked(void *ctx, int device, void **event)
{
    return make_event(fake_of(ctx), device, 0, event);
}

static int fake_event_create_ipc_unlocked(void *ctx, int device, void **event)
{
    return make_event(fake_of(ctx), device, 1, event);
}

static fake_event *event_of(void *event)
{
    fake_event *e = (fake_event *)event;
    return e && e->magic == IPC_FAKE_EVENT_MAGIC ? e : NULL;
}

static int fake_event_destroy_unlocked(void *ctx, void *event)
{
    fake_event *e = event_of(event);
    if (!e) return IPC_FAKE_INVALID_VALUE;
    e->magic = 0;
    e->prev->next = e->next;
    e->next->prev = e->prev;
    free(e);
    fake_of(ctx)->events_destroyed++;
    return 0;
}

static int fake_event_record_unlocked(void *ctx, void *event, void *stream)
{
    (void)stream;
    ipc_fake *f = fake_of(ctx);
    int code = take_failure(&f->fail_record);
    if (code) return code;
    fake_event *e = event_of(event);
    if (!e) return IPC_FAKE_INVALID_VALUE;
    e->records++;
    f->records++;
    return 0;
}

static int fake_event_query_unlocked(void *ctx, void *event, bool *done)
{
    (void)ctx;
    if (!event_of(event)) return IPC_FAKE_INVALID_VALUE;
    *done = true;
    return 0;
}

static int fake_event_synchronize_unlocked(void *ctx, void *event)
{
    ipc_fake *f = fake_of(ctx);
    int code = take_failure(&f->fail_sync);
    if (code) return code;
    if (!event_of(event)) return IPC_FAKE_INVALID_VALUE;
    f->syncs++;
    return 0;
}

static void fill_handle(unsigned char out[TH_CUDA_IPC_HANDLE_BYTES], const char tag[8], const void *ptr, int device)
{
    fake_handle h;
    memset(&h, 0, sizeof h);
    memcpy(h.tag, tag, 8);
    h.ptr = (uint64_t)(uintptr_t)ptr;
    h.pid = (int64_t)getpid();
    h.device = device;
    memcpy(out, &h, sizeof h);
}

static int read_handle(const unsigned char in[TH_CUDA_IPC_HANDLE_BYTES], const char tag[8], fake_handle *h)
{
    memcpy(h, in, sizeof *h);
    if (memcmp(h->tag, tag, 8) != 0) return IPC_FAKE_INVALID_VALUE;
    /* CUDA will not open a handle in the process that made it */
    if (h->pid == (int64_t)getpid()) return IPC_FAKE_INVALID_CONTEXT;
    return 0;
}

static int fake_ipc_get_mem_handle_unlocked(void *ctx, void *ptr, unsigned char *handle)
{
    ipc_fake *f = fake_of(ctx);
    int code = take_failure(&f->fail_get_mem);
    if (code) return code;
    fake_alloc *a = alloc_of(ptr);
    if (!a) return IPC_FAKE_INVALID_VALUE;
    fill_handle(handle, "fakemem!", ptr, a->device);
    f->mem_handles++;
    return 0;
}

static int fake_ipc_open_mem_handle_unlocked(void *ctx, int device, const unsigned char *handle,
                                    void **ptr)
{
    ipc_fake *f = fake_of(ctx);
    int code = take_failure(&f->fail_open_mem);
    if (code) return code;
    fake_handle h;
    if ((code = read_handle(handle, "fakemem!", &h))) return code;
    if (h.device != device) return IPC_FAKE_INVALID_VALUE;
    /* A forked child has its parent's memory at the same address: that stands for the mapping. */
    *ptr = (void *)(uintptr_t)h.ptr;
    if (!alloc_of(*ptr)) return IPC_FAKE_INVALID_VALUE;
    f->opens++;
    f->open_memory++;
    return 0;
}

static int fake_ipc_close_mem_handle_unlocked(void *ctx, int device, void *ptr)
{
    (void)device;
    ipc_fake *f = fake_of(ctx);
    int code = take_failure(&f->fail_close);
    f->closes++;
    f->open_memory--;
    if (code) return code;
    return alloc_of(ptr) ? 0 : IPC_FAKE_INVALID_VALUE;
}

static int fake_ipc_get_event_handle_unlocked(void *ctx, void *event, unsigned char *handle)
{
    fake_event *e = event_of(event);
    if (!e || !e->interprocess) return IPC_FAKE_INVALID_VALUE;
    fill_handle(handle, "fakeevt!", e, e->device);
    fake_of(ctx)->event_handles++;
    return 0;
}

static int fake_ipc_open_event_handle_unlocked(void *ctx, int device, const unsigned char *handle,
                                      void **event)
{
    ipc_fake *f = fake_of(ctx);
    int code = take_failure(&f->fail_open_event);
    if (code) return code;
    fake_handle h;
    if ((code = read_handle(handle, "fakeevt!", &h))) return code;
    fake_event *source = event_of((void *)(uintptr_t)h.ptr);
    if (!source || source->device != device) return IPC_FAKE_INVALID_VALUE;
    if ((code = make_event(f, device, 1, event))) return code;
    ((fake_event *)*event)->opened = 1;
    f->event_opens++;
    return 0;
}



/* Every call under one lock: the backend contract lets any thread call, and the counters are shared. */
#define FAKE_LOCKED(name, params, args)               \
    static int name params                            \
    {                                                 \
        pthread_mutex_lock(&fake_lock);               \
        int rc_ = name##_unlocked args;               \
        pthread_mutex_unlock(&fake_lock);             \
        return rc_;                                   \
    }
FAKE_LOCKED(fake_device_count, (void *ctx, int *count), (ctx, count))
FAKE_LOCKED(fake_mem_get_info, (void *ctx, int device, size_t *free_bytes, size_t *total_bytes),
            (ctx, device, free_bytes, total_bytes))
FAKE_LOCKED(fake_device_synchronize, (void *ctx, int device), (ctx, device))
FAKE_LOCKED(fake_malloc_cb, (void *ctx, int device, size_t size, void **ptr), (ctx, device, size, ptr))
FAKE_LOCKED(fake_free_cb, (void *ctx, int device, void *ptr), (ctx, device, ptr))
FAKE_LOCKED(fake_host_malloc, (void *ctx, size_t size, void **ptr), (ctx, size, ptr))
FAKE_LOCKED(fake_host_free, (void *ctx, void *ptr), (ctx, ptr))
FAKE_LOCKED(fake_event_create, (void *ctx, int device, void **event), (ctx, device, event))
FAKE_LOCKED(fake_event_destroy, (void *ctx, void *event), (ctx, event))
FAKE_LOCKED(fake_event_record, (void *ctx, void *event, void *stream), (ctx, event, stream))
FAKE_LOCKED(fake_event_query, (void *ctx, void *event, bool *done), (ctx, event, done))
FAKE_LOCKED(fake_event_synchronize, (void *ctx, void *event), (ctx, event))
FAKE_LOCKED(fake_ipc_get_mem_handle, (void *ctx, void *ptr, unsigned char *handle), (ctx, ptr, handle))
FAKE_LOCKED(fake_ipc_open_mem_handle, (void *ctx, int device, const unsigned char *handle, void **ptr),
            (ctx, device, handle, ptr))
FAKE_LOCKED(fake_ipc_close_mem_handle, (void *ctx, int device, void *ptr), (ctx, device, ptr))
FAKE_LOCKED(fake_event_create_ipc, (void *ctx, int device, void **event), (ctx, device, event))
FAKE_LOCKED(fake_ipc_get_event_handle, (void *ctx, void *event, unsigned char *handle), (ctx, event, handle))
FAKE_LOCKED(fake_ipc_open_event_handle, (void *ctx, int device, const unsigned char *handle, void **event),
            (ctx, device, handle, event))
#undef FAKE_LOCKED

static const char *fake_error_name(void *ctx, int code)
{
    (void)ctx;
    switch (code) {
    case IPC_FAKE_OK: return "cudaSuccess";
    case IPC_FAKE_INVALID_VALUE: return "fakeErrorInvalidValue";
    case IPC_FAKE_OOM: return "fakeErrorMemoryAllocation";
    case IPC_FAKE_INVALID_CONTEXT: return "fakeErrorInvalidContext";
    case IPC_FAKE_INJECTED: return "fakeErrorInjected";
    }
    return "fakeErrorUnknown";
}

void ipc_fake_init(ipc_fake *fake, int devices)
{
    memset(fake, 0, sizeof *fake);
    fake->devices = devices;
    th_cuda_backend *b = &fake->backend;
    b->name = "fake-ipc";
    b->ctx = fake;
    b->oom_code = IPC_FAKE_OOM;
    b->device_count = fake_device_count;
    b->mem_get_info = fake_mem_get_info;
    b->device_synchronize = fake_device_synchronize;
    b->malloc = fake_malloc_cb;
    b->free = fake_free_cb;
    b->host_malloc = fake_host_malloc;
    b->host_free = fake_host_free;
    b->event_create = fake_event_create;
    b->event_destroy = fake_event_destroy;
    b->event_record = fake_event_record;
    b->event_query = fake_event_query;
    b->event_synchronize = fake_event_synchronize;
    b->ipc_get_mem_handle = fake_ipc_get_mem_handle;
    b->ipc_open_mem_handle = fake_ipc_open_mem_handle;
    b->ipc_close_mem_handle = fake_ipc_close_mem_handle;
    b->event_create_ipc = fake_event_create_ipc;
    b->ipc_get_event_handle = fake_ipc_get_event_handle;
    b->ipc_open_event_handle = fake_ipc_open_event_handle;
    b->error_name = fake_error_name;
}

void *ipc_fake_malloc(ipc_fake *fake, int device, size_t bytes)
{
    pthread_mutex_lock(&fake_lock);
    char *raw = (char *)malloc(FAKE_HEAD + (bytes ? bytes : 1));
    if (!raw) {
        pthread_mutex_unlock(&fake_lock);
        return NULL;
    }
    fake_alloc *a = (fake_alloc *)(void *)raw;
    a->magic = IPC_FAKE_MEM_MAGIC;
    a->bytes = bytes;
    a->device = device;
    fake->mallocs++;
    pthread_mutex_unlock(&fake_lock);
    return raw + FAKE_HEAD;
}

void ipc_fake_free(ipc_fake *fake, void *ptr)
{
    pthread_mutex_lock(&fake_lock);
    fake_alloc *a = alloc_of(ptr);
    if (a) {
        a->magic = 0;
        free(a);
        fake->frees++;
    }
    pthread_mutex_unlock(&fake_lock);
}
