/* tests/cuda/fake_backend.c: the fake CUDA backend (see fake_backend.h). */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#endif
#include "fake_backend.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FAKE_CANARY = 64 };
/* Each allocation is a mapping of its own: untouched pages cost nothing, whatever malloc does to fresh
 * memory (MALLOC_PERTURB_, which Meson sets, fills every malloc'd byte: 20 MiB segments by the thousand). */
#define FAKE_EVENT_MAGIC UINT64_C(0x46414b454556454e)  /* "FAKEEVEN" */
#define FAKE_STREAM_MAGIC UINT64_C(0x46414b4553545245) /* "FAKESTRE" */
static const char fake_ipc_mem_tag[8] = {'F', 'A', 'K', 'E', 'I', 'P', 'C', 'M'};
static const char fake_ipc_event_tag[8] = {'F', 'A', 'K', 'E', 'I', 'P', 'C', 'E'};

typedef struct fake_alloc {
    uint64_t id;
    int device; /* -1: pinned host */
    size_t size;
    char *raw, *data;
    size_t mapped;
    int ipc_opens;
    struct fake_alloc *hash_next;
    struct fake_alloc *prev, *next;
} fake_alloc;

typedef struct fake_stream {
    uint64_t magic;
    int device;
    uint64_t recorded, completed;
    struct fake_stream *next_all;
} fake_stream;

/* What an event and the events opened from its IPC handle share. */
typedef struct fake_event_state {
    uint64_t id;
    int device;
    fake_stream *stream; /* last recorded on; NULL: never recorded */
    uint64_t seq;
    bool ipc, original_alive;
    int refs;
} fake_event_state;

typedef struct fake_event {
    uint64_t magic;
    fake_event_state *st;
    bool original;
    struct fake_event *prev, *next;
} fake_event;

struct fake_backend {
    th_cuda_backend table;
    pthread_mutex_t lock;
    bool quiet;
    int devices;
    size_t *capacity;   /* [devices + 1]: the host's last */
    size_t *live_bytes; /* likewise */
    int64_t *live_allocs;
    fake_alloc **buckets;
    size_t nbuckets, nallocs;
    fake_alloc *allocs; /* live, newest first */
    uint64_t next_id;
    fake_stream *streams; /* every stream, the default ones included */
    fake_stream **default_streams;
    fake_event *events;
    int64_t live_events;
    uint64_t next_event_id;
    fake_counters counters;
    int fail_code[FAKE_CALL_COUNT], fail_left[FAKE_CALL_COUNT];
    int problems;
};

static void problem(fake_backend *f, const char *fmt, ...)
{
    f->problems++;
    if (f->quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fake_backend: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

static int slot(const fake_backend *f, int device) { return device < 0 ? f->devices : device; }

/* An injected failure for this call, or 0. */
static int injected(fake_backend *f, fake_call call)
{
    if (f->fail_left[call] <= 0) return 0;
    f->fail_left[call]--;
    return f->fail_code[call];
}

/* ---- canaries ------------------------------------------------------------------------------------- */

static unsigned char canary_byte(uint64_t id, int i) { return (unsigned char)(0xC3u + 31u * (unsigned)i + (unsigned)id * 7u); }

static void canary_write(fake_alloc *a)
{
    for (int i = 0; i < FAKE_CANARY; i++) {
        a->data[-FAKE_CANARY + i] = (char)canary_byte(a->id, i);
        a->data[a->size + (size_t)i] = (char)canary_byte(a->id, i + FAKE_CANARY);
    }
}

static bool canary_check(fake_backend *f, const fake_alloc *a, const char *when)
{
    for (int i = 0; i < FAKE_CANARY; i++) {
        if ((unsigned char)a->data[-FAKE_CANARY + i] != canary_byte(a->id, i)) {
            problem(f, "%s: the canary before allocation %llu (%zu bytes on device %d at %p) is broken at byte %d",
                    when, (unsigned long long)a->id, a->size, a->device, (void *)a->data, i - FAKE_CANARY);
            return false;
        }
        if ((unsigned char)a->data[a->size + (size_t)i] != canary_byte(a->id, i + FAKE_CANARY)) {
            problem(f, "%s: the canary after allocation %llu (%zu bytes on device %d at %p) is broken at byte +%d",
                    when, (unsigned long long)a->id, a->size, a->device, (void *)a->data, i);
            return false;
        }
    }
    return true;
}

/* ---- allocations ---------------------------------------------------------------------------------- */

static size_t bucket_of(const fake_backend *f, const void *p)
{
    uint64_t h = (uint64_t)((uintptr_t)p >> 9) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> 32) & (f->nbuckets - 1);
}

static fake_alloc *alloc_find(fake_backend *f, const void *p)
{
    fake_alloc *a = f->buckets[bucket_of(f, p)];
    while (a && a->data != (const char *)p) a = a->hash_next;
    return a;
}

static void buckets_grow(fake_backend *f)
{
    size_t n = f->nbuckets * 2;
    fake_alloc **nb = (fake_alloc **)calloc(n, sizeof *nb);
    if (!nb) return;
    free(f->buckets);
    f->buckets = nb;
    f->nbuckets = n;
    for (fake_alloc *a = f->allocs; a; a = a->next) {
        size_t i = bucket_of(f, a->data);
        a->hash_next = nb[i];
        nb[i] = a;
    }
}

static int do_malloc(fake_backend *f, int device, size_t size, void **ptr, int64_t *fails)
{
    int s = slot(f, device);
    if (size > f->capacity[s] - f->live_bytes[s] || f->live_bytes[s] > f->capacity[s]) {
        (*fails)++;
        return FAKE_ERR_MEMORY_ALLOCATION;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t mapped = page + (size + FAKE_CANARY + page - 1) / page * page;
    fake_alloc *a = (fake_alloc *)calloc(1, sizeof *a);
    char *raw = a ? (char *)mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
    if (!raw || raw == (char *)MAP_FAILED) {
        free(a);
        (*fails)++;
        return FAKE_ERR_MEMORY_ALLOCATION;
    }
    a->mapped = mapped;
    a->id = ++f->next_id;
    a->device = device;
    a->size = size;
    a->raw = raw;
    a->data = raw + page; /* page-aligned, so 512-aligned like cudaMalloc's 256 */
    canary_write(a);
    if (f->nallocs >= f->nbuckets) buckets_grow(f);
    size_t i = bucket_of(f, a->data);
    a->hash_next = f->buckets[i];
    f->buckets[i] = a;
    a->next = f->allocs;
    if (f->allocs) f->allocs->prev = a;
    f->allocs = a;
    f->nallocs++;
    f->live_bytes[s] += size;
    f->live_allocs[s]++;
    *ptr = a->data;
    return 0;
}

static void alloc_drop(fake_backend *f, fake_alloc *a)
{
    fake_alloc **link = &f->buckets[bucket_of(f, a->data)];
    while (*link != a) link = &(*link)->hash_next;
    *link = a->hash_next;
    if (a->prev)
        a->prev->next = a->next;
    else
        f->allocs = a->next;
    if (a->next) a->next->prev = a->prev;
    f->nallocs--;
    int s = slot(f, a->device);
    f->live_bytes[s] -= a->size;
    f->live_allocs[s]--;
    munmap(a->raw, a->mapped);
    free(a);
}

static int do_free(fake_backend *f, int device, void *ptr, const char *what)
{
    fake_alloc *a = ptr ? alloc_find(f, ptr) : NULL;
    if (!a || a->device != device) {
        problem(f, "%s of %p on %s %d: not a live allocation there", what, ptr, device < 0 ? "host" : "device",
                device);
        return FAKE_ERR_INVALID_VALUE;
    }
    canary_check(f, a, what);
    if (a->ipc_opens) problem(f, "%s of allocation %llu while %d IPC opening(s) are live", what, (unsigned long long)a->id, a->ipc_opens);
    alloc_drop(f, a);
    return 0;
}

/* ---- the table's functions ------------------------------------------------------------------------ */

#define LOCKED(f) pthread_mutex_lock(&(f)->lock)
#define UNLOCK(f) pthread_mutex_unlock(&(f)->lock)

static int fk_device_count(void *ctx, int *count)
{
    fake_backend *f = (fake_backend *)ctx;
    *count = f->devices;
    return 0;
}

static bool bad_device(fake_backend *f, int device) { return device < 0 || device >= f->devices; }

static int fk_mem_get_info(void *ctx, int device, size_t *free_bytes, size_t *total_bytes)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.mem_get_infos++;
    int rc = injected(f, FAKE_CALL_MEM_GET_INFO);
    if (!rc && bad_device(f, device)) rc = FAKE_ERR_INVALID_DEVICE;
    if (!rc) {
        *total_bytes = f->capacity[device];
        *free_bytes = f->live_bytes[device] < f->capacity[device] ? f->capacity[device] - f->live_bytes[device] : 0;
    }
    UNLOCK(f);
    return rc;
}

static void complete_device(fake_backend *f, int device)
{
    for (fake_stream *s = f->streams; s; s = s->next_all)
        if (s->device == device) s->completed = s->recorded;
}

static int fk_device_synchronize(void *ctx, int device)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.device_syncs++;
    int rc = injected(f, FAKE_CALL_DEVICE_SYNCHRONIZE);
    if (!rc && bad_device(f, device)) rc = FAKE_ERR_INVALID_DEVICE;
    if (!rc) complete_device(f, device);
    UNLOCK(f);
    return rc;
}

static int fk_malloc(void *ctx, int device, size_t size, void **ptr)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.mallocs++;
    int rc = injected(f, FAKE_CALL_MALLOC);
    if (rc)
        f->counters.malloc_fails++;
    else if (bad_device(f, device))
        rc = FAKE_ERR_INVALID_DEVICE;
    else
        rc = do_malloc(f, device, size, ptr, &f->counters.malloc_fails);
    UNLOCK(f);
    return rc;
}

static int fk_free(void *ctx, int device, void *ptr)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.frees++;
    int rc = injected(f, FAKE_CALL_FREE);
    if (!rc) rc = bad_device(f, device) ? FAKE_ERR_INVALID_DEVICE : do_free(f, device, ptr, "free");
    UNLOCK(f);
    return rc;
}

static int fk_host_malloc(void *ctx, size_t size, void **ptr)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.host_mallocs++;
    int rc = injected(f, FAKE_CALL_HOST_MALLOC);
    if (rc)
        f->counters.host_malloc_fails++;
    else
        rc = do_malloc(f, -1, size, ptr, &f->counters.host_malloc_fails);
    UNLOCK(f);
    return rc;
}

static int fk_host_free(void *ctx, void *ptr)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.host_frees++;
    int rc = injected(f, FAKE_CALL_HOST_FREE);
    if (!rc) rc = do_free(f, -1, ptr, "host_free");
    UNLOCK(f);
    return rc;
}

static fake_event *event_of(fake_backend *f, void *event, const char *what)
{
    fake_event *e = (fake_event *)event;
    if (!e || e->magic != FAKE_EVENT_MAGIC) {
        problem(f, "%s: %p is not a live event", what, event);
        return NULL;
    }
    return e;
}

static fake_event *event_new(fake_backend *f, fake_event_state *st, bool original)
{
    fake_event *e = (fake_event *)calloc(1, sizeof *e);
    if (!e) return NULL;
    e->magic = FAKE_EVENT_MAGIC;
    e->st = st;
    e->original = original;
    st->refs++;
    e->next = f->events;
    if (f->events) f->events->prev = e;
    f->events = e;
    f->live_events++;
    return e;
}

static int create_event(fake_backend *f, int device, void **event, bool ipc)
{
    f->counters.event_creates++;
    int rc = injected(f, FAKE_CALL_EVENT_CREATE);
    if (rc) return rc;
    if (bad_device(f, device)) return FAKE_ERR_INVALID_DEVICE;
    fake_event_state *st = (fake_event_state *)calloc(1, sizeof *st);
    fake_event *e = st ? event_new(f, st, true) : NULL;
    if (!e) {
        free(st);
        return FAKE_ERR_MEMORY_ALLOCATION;
    }
    st->id = ++f->next_event_id;
    st->device = device;
    st->ipc = ipc;
    st->original_alive = true;
    *event = e;
    return 0;
}

static int fk_event_create(void *ctx, int device, void **event)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    int rc = create_event(f, device, event, false);
    UNLOCK(f);
    return rc;
}

static int fk_event_create_ipc(void *ctx, int device, void **event)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    int rc = create_event(f, device, event, true);
    UNLOCK(f);
    return rc;
}

static int fk_event_destroy(void *ctx, void *event)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.event_destroys++;
    fake_event *e = event_of(f, event, "event_destroy");
    if (!e) {
        UNLOCK(f);
        return FAKE_ERR_INVALID_RESOURCE_HANDLE;
    }
    if (e->original) e->st->original_alive = false;
    if (--e->st->refs == 0) free(e->st);
    if (e->prev)
        e->prev->next = e->next;
    else
        f->events = e->next;
    if (e->next) e->next->prev = e->prev;
    e->magic = 0;
    free(e);
    f->live_events--;
    UNLOCK(f);
    return 0;
}

/* The stream a table call names (NULL: the device's default one), or NULL for an unknown pointer. */
static fake_stream *stream_of(fake_backend *f, void *stream, int device)
{
    if (!stream) return bad_device(f, device) ? NULL : f->default_streams[device];
    for (fake_stream *s = f->streams; s; s = s->next_all)
        if (s == (fake_stream *)stream) return s;
    return NULL;
}

static int fk_event_record(void *ctx, void *event, void *stream)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.event_records++;
    int rc = injected(f, FAKE_CALL_EVENT_RECORD);
    fake_event *e = rc ? NULL : event_of(f, event, "event_record");
    if (!rc && !e) rc = FAKE_ERR_INVALID_RESOURCE_HANDLE;
    if (!rc) {
        fake_stream *s = stream_of(f, stream, e->st->device);
        if (!s) {
            problem(f, "event_record: %p is not a stream", stream);
            rc = FAKE_ERR_INVALID_RESOURCE_HANDLE;
        } else if (s->device != e->st->device) {
            problem(f, "event_record: an event of device %d recorded on a stream of device %d", e->st->device,
                    s->device);
            rc = FAKE_ERR_INVALID_RESOURCE_HANDLE;
        } else {
            e->st->stream = s;
            e->st->seq = ++s->recorded;
        }
    }
    UNLOCK(f);
    return rc;
}

static int fk_event_query(void *ctx, void *event, bool *done)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.event_queries++;
    int rc = injected(f, FAKE_CALL_EVENT_QUERY);
    fake_event *e = rc ? NULL : event_of(f, event, "event_query");
    if (!rc && !e) rc = FAKE_ERR_INVALID_RESOURCE_HANDLE;
    if (!rc) *done = !e->st->stream || e->st->stream->completed >= e->st->seq;
    UNLOCK(f);
    return rc;
}

static int fk_event_synchronize(void *ctx, void *event)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.event_syncs++;
    int rc = injected(f, FAKE_CALL_EVENT_SYNCHRONIZE);
    fake_event *e = rc ? NULL : event_of(f, event, "event_synchronize");
    if (!rc && !e) rc = FAKE_ERR_INVALID_RESOURCE_HANDLE;
    if (!rc && e->st->stream && e->st->stream->completed < e->st->seq) e->st->stream->completed = e->st->seq;
    UNLOCK(f);
    return rc;
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static int fk_ipc_get_mem_handle(void *ctx, void *ptr, unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES])
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.ipc_mem_handles++;
    int rc = injected(f, FAKE_CALL_IPC_GET_MEM_HANDLE);
    fake_alloc *a = rc ? NULL : alloc_find(f, ptr);
    if (!rc && (!a || a->device < 0)) rc = FAKE_ERR_INVALID_VALUE; /* only the base of a device allocation */
    if (!rc) {
        memset(handle, 0, TH_CUDA_IPC_HANDLE_BYTES);
        memcpy(handle, fake_ipc_mem_tag, 8);
        put_u64(handle + 8, a->id);
        put_u64(handle + 16, (uint64_t)a->device);
        put_u64(handle + 24, (uint64_t)a->size);
    }
    UNLOCK(f);
    return rc;
}

static int fk_ipc_open_mem_handle(void *ctx, int device, const unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES],
                                  void **ptr)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.ipc_mem_opens++;
    int rc = injected(f, FAKE_CALL_IPC_OPEN_MEM_HANDLE);
    if (!rc && memcmp(handle, fake_ipc_mem_tag, 8) != 0) rc = FAKE_ERR_INVALID_VALUE;
    fake_alloc *a = NULL;
    if (!rc) {
        uint64_t id = get_u64(handle + 8);
        for (a = f->allocs; a && a->id != id; a = a->next) {
        }
        if (!a || a->device < 0)
            rc = FAKE_ERR_INVALID_VALUE;
        else if (a->device != device)
            rc = FAKE_ERR_INVALID_DEVICE;
    }
    if (!rc) {
        a->ipc_opens++;
        *ptr = a->data;
    }
    UNLOCK(f);
    return rc;
}

static int fk_ipc_close_mem_handle(void *ctx, int device, void *ptr)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.ipc_mem_closes++;
    int rc = 0;
    fake_alloc *a = alloc_find(f, ptr);
    if (!a || a->device != device || a->ipc_opens == 0) {
        problem(f, "ipc_close_mem_handle of %p on device %d: not an open IPC mapping", ptr, device);
        rc = FAKE_ERR_INVALID_VALUE;
    } else {
        a->ipc_opens--;
    }
    UNLOCK(f);
    return rc;
}

static int fk_ipc_get_event_handle(void *ctx, void *event, unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES])
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.ipc_event_handles++;
    int rc = 0;
    fake_event *e = event_of(f, event, "ipc_get_event_handle");
    if (!e || !e->st->ipc) {
        rc = FAKE_ERR_INVALID_RESOURCE_HANDLE;
    } else {
        memset(handle, 0, TH_CUDA_IPC_HANDLE_BYTES);
        memcpy(handle, fake_ipc_event_tag, 8);
        put_u64(handle + 8, e->st->id);
        put_u64(handle + 16, (uint64_t)e->st->device);
    }
    UNLOCK(f);
    return rc;
}

static int fk_ipc_open_event_handle(void *ctx, int device, const unsigned char handle[TH_CUDA_IPC_HANDLE_BYTES],
                                    void **event)
{
    fake_backend *f = (fake_backend *)ctx;
    LOCKED(f);
    f->counters.ipc_event_opens++;
    int rc = 0;
    fake_event *src = NULL;
    if (memcmp(handle, fake_ipc_event_tag, 8) != 0) {
        rc = FAKE_ERR_INVALID_VALUE;
    } else {
        uint64_t id = get_u64(handle + 8);
        for (src = f->events; src && !(src->original && src->st->id == id); src = src->next) {
        }
        if (!src || !src->st->ipc)
            rc = FAKE_ERR_INVALID_RESOURCE_HANDLE;
        else if (src->st->device != device)
            rc = FAKE_ERR_INVALID_DEVICE;
    }
    if (!rc) {
        fake_event *e = event_new(f, src->st, false);
        if (!e)
            rc = FAKE_ERR_MEMORY_ALLOCATION;
        else
            *event = e;
    }
    UNLOCK(f);
    return rc;
}

static const char *fk_error_name(void *ctx, int code)
{
    (void)ctx;
    switch (code) {
    case 0: return "cudaSuccess";
    case FAKE_ERR_INVALID_VALUE: return "cudaErrorInvalidValue";
    case FAKE_ERR_MEMORY_ALLOCATION: return "cudaErrorMemoryAllocation";
    case FAKE_ERR_INVALID_DEVICE: return "cudaErrorInvalidDevice";
    case FAKE_ERR_INVALID_RESOURCE_HANDLE: return "cudaErrorInvalidResourceHandle";
    case FAKE_ERR_LAUNCH_FAILURE: return "cudaErrorLaunchFailure";
    default: return "cudaErrorUnknown";
    }
}

/* ---- the test's side ------------------------------------------------------------------------------ */

static fake_stream *stream_add(fake_backend *f, int device)
{
    fake_stream *s = (fake_stream *)calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = FAKE_STREAM_MAGIC;
    s->device = device;
    s->next_all = f->streams;
    f->streams = s;
    return s;
}

fake_backend *fake_backend_new(const fake_backend_config *config)
{
    fake_backend_config cfg = {0, 0, 0, false};
    if (config) cfg = *config;
    if (cfg.devices <= 0) cfg.devices = 1;
    if (!cfg.device_capacity) cfg.device_capacity = (size_t)1 << 30;
    if (!cfg.host_capacity) cfg.host_capacity = (size_t)1 << 30;
    fake_backend *f = (fake_backend *)calloc(1, sizeof *f);
    if (!f) return NULL;
    f->devices = cfg.devices;
    f->quiet = cfg.quiet;
    f->nbuckets = 1024;
    f->capacity = (size_t *)calloc((size_t)cfg.devices + 1, sizeof *f->capacity);
    f->live_bytes = (size_t *)calloc((size_t)cfg.devices + 1, sizeof *f->live_bytes);
    f->live_allocs = (int64_t *)calloc((size_t)cfg.devices + 1, sizeof *f->live_allocs);
    f->buckets = (fake_alloc **)calloc(f->nbuckets, sizeof *f->buckets);
    f->default_streams = (fake_stream **)calloc((size_t)cfg.devices, sizeof *f->default_streams);
    if (!f->capacity || !f->live_bytes || !f->live_allocs || !f->buckets || !f->default_streams ||
        pthread_mutex_init(&f->lock, NULL)) {
        free(f->capacity);
        free(f->live_bytes);
        free(f->live_allocs);
        free(f->buckets);
        free(f->default_streams);
        free(f);
        return NULL;
    }
    for (int d = 0; d < cfg.devices; d++) {
        f->capacity[d] = cfg.device_capacity;
        f->default_streams[d] = stream_add(f, d);
    }
    f->capacity[cfg.devices] = cfg.host_capacity;
    th_cuda_backend *t = &f->table;
    t->name = "fake";
    t->ctx = f;
    t->oom_code = FAKE_ERR_MEMORY_ALLOCATION;
    t->device_count = fk_device_count;
    t->mem_get_info = fk_mem_get_info;
    t->device_synchronize = fk_device_synchronize;
    t->malloc = fk_malloc;
    t->free = fk_free;
    t->host_malloc = fk_host_malloc;
    t->host_free = fk_host_free;
    t->event_create = fk_event_create;
    t->event_destroy = fk_event_destroy;
    t->event_record = fk_event_record;
    t->event_query = fk_event_query;
    t->event_synchronize = fk_event_synchronize;
    t->ipc_get_mem_handle = fk_ipc_get_mem_handle;
    t->ipc_open_mem_handle = fk_ipc_open_mem_handle;
    t->ipc_close_mem_handle = fk_ipc_close_mem_handle;
    t->event_create_ipc = fk_event_create_ipc;
    t->ipc_get_event_handle = fk_ipc_get_event_handle;
    t->ipc_open_event_handle = fk_ipc_open_event_handle;
    t->error_name = fk_error_name;
    return f;
}

const th_cuda_backend *fake_backend_table(fake_backend *f) { return f ? &f->table : NULL; }

int fake_backend_check(fake_backend *f)
{
    LOCKED(f);
    for (fake_alloc *a = f->allocs; a; a = a->next) canary_check(f, a, "check");
    int n = f->problems;
    UNLOCK(f);
    return n;
}

int fake_backend_problems(fake_backend *f)
{
    LOCKED(f);
    int n = f->problems;
    UNLOCK(f);
    return n;
}

int fake_backend_delete(fake_backend *f)
{
    if (!f) return 0;
    while (f->allocs) {
        fake_alloc *a = f->allocs;
        canary_check(f, a, "teardown");
        problem(f, "teardown: allocation %llu (%zu bytes on %s %d) was never freed", (unsigned long long)a->id,
                a->size, a->device < 0 ? "host" : "device", a->device);
        if (a->ipc_opens) problem(f, "teardown: allocation %llu has %d IPC opening(s) never closed", (unsigned long long)a->id, a->ipc_opens);
        alloc_drop(f, a);
    }
    if (f->live_events) problem(f, "teardown: %lld event(s) were never destroyed", (long long)f->live_events);
    while (f->events) {
        fake_event *e = f->events;
        f->events = e->next;
        if (--e->st->refs == 0) free(e->st);
        free(e);
    }
    while (f->streams) {
        fake_stream *s = f->streams;
        f->streams = s->next_all;
        free(s);
    }
    int n = f->problems;
    pthread_mutex_destroy(&f->lock);
    free(f->capacity);
    free(f->live_bytes);
    free(f->live_allocs);
    free(f->buckets);
    free(f->default_streams);
    free(f);
    return n;
}

fake_counters fake_backend_counters(fake_backend *f)
{
    LOCKED(f);
    fake_counters c = f->counters;
    UNLOCK(f);
    return c;
}

size_t fake_backend_live_bytes(fake_backend *f, int device)
{
    if (device >= f->devices) return 0;
    LOCKED(f);
    size_t n = f->live_bytes[slot(f, device)];
    UNLOCK(f);
    return n;
}

int64_t fake_backend_live_allocs(fake_backend *f, int device)
{
    if (device >= f->devices) return 0;
    LOCKED(f);
    int64_t n = f->live_allocs[slot(f, device)];
    UNLOCK(f);
    return n;
}

void fake_backend_set_capacity(fake_backend *f, int device, size_t capacity)
{
    if (device >= f->devices) return;
    LOCKED(f);
    f->capacity[slot(f, device)] = capacity;
    UNLOCK(f);
}

bool fake_backend_is_live(fake_backend *f, int device, const void *ptr, size_t size)
{
    LOCKED(f);
    bool live = false;
    for (fake_alloc *a = f->allocs; a && !live; a = a->next)
        live = a->device == device && (const char *)ptr >= a->data && size <= a->size &&
               (size_t)((const char *)ptr - a->data) <= a->size - size;
    UNLOCK(f);
    return live;
}

uint64_t fake_backend_alloc_id(fake_backend *f, const void *ptr)
{
    LOCKED(f);
    fake_alloc *a = alloc_find(f, ptr);
    uint64_t id = a ? a->id : 0;
    UNLOCK(f);
    return id;
}

void fake_backend_fail_next(fake_backend *f, fake_call call, int code, int n)
{
    if ((int)call < 0 || call >= FAKE_CALL_COUNT) return;
    LOCKED(f);
    f->fail_code[call] = code;
    f->fail_left[call] = n;
    UNLOCK(f);
}

int fake_backend_ipc_opens(fake_backend *f, const void *base)
{
    LOCKED(f);
    fake_alloc *a = alloc_find(f, base);
    int n = a ? a->ipc_opens : 0;
    UNLOCK(f);
    return n;
}

void *fake_stream_new(fake_backend *f, int device)
{
    if (bad_device(f, device)) return NULL;
    LOCKED(f);
    fake_stream *s = stream_add(f, device);
    UNLOCK(f);
    return s;
}

void fake_stream_complete_to(fake_backend *f, int device, void *stream, uint64_t seq)
{
    LOCKED(f);
    fake_stream *s = stream_of(f, stream, device);
    if (!s)
        problem(f, "fake_stream_complete: %p is not a stream", stream);
    else if (seq > s->completed)
        s->completed = seq < s->recorded ? seq : s->recorded;
    UNLOCK(f);
}

void fake_stream_complete(fake_backend *f, int device, void *stream)
{
    fake_stream_complete_to(f, device, stream, UINT64_MAX);
}

uint64_t fake_stream_recorded(fake_backend *f, int device, void *stream)
{
    LOCKED(f);
    fake_stream *s = stream_of(f, stream, device);
    uint64_t n = s ? s->recorded : 0;
    UNLOCK(f);
    return n;
}

uint64_t fake_stream_completed(fake_backend *f, int device, void *stream)
{
    LOCKED(f);
    fake_stream *s = stream_of(f, stream, device);
    uint64_t n = s ? s->completed : 0;
    UNLOCK(f);
    return n;
}

void fake_device_complete(fake_backend *f, int device)
{
    LOCKED(f);
    complete_device(f, device);
    UNLOCK(f);
}

int64_t fake_backend_live_events(fake_backend *f)
{
    LOCKED(f);
    int64_t n = f->live_events;
    UNLOCK(f);
    return n;
}
