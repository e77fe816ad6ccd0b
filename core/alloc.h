/* core/alloc.h: devices and allocators: th_allocator with its context, the default CPU allocator, the thread's
 * default allocator, the counting allocator.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/alloc.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Device types use DLPack's DLDeviceType values, so exchanging tensors needs no table. */
typedef enum th_device_type {
    TH_DEVICE_CPU = 1,
    TH_DEVICE_CUDA = 2,           /* device memory: the host cannot touch it */
    TH_DEVICE_CUDA_HOST = 3,      /* pinned host memory: the host reads and writes it */
    TH_DEVICE_CUDA_MANAGED = 13   /* managed memory: the host reads and writes it */
} th_device_type;

typedef struct th_device {
    int32_t type;   /* a th_device_type */
    int32_t index;  /* which device of that type; 0 for the CPU */
} th_device;

/* True for memory the host may read and write directly (CPU, pinned and managed CUDA memory). */
TH_API bool th_device_is_host(th_device device);

/* Memory the host cannot touch (CUDA device memory) is accepted from outside (th_tensor_from_dlpack) only when a
 * companion that can use it has registered a check for its device type: the core stays free of CUDA, and a
 * build without the companion refuses such memory with TH_ERR_DEVICE. check returns 0 when the nbytes at data are
 * memory of device that this process can use, else records why (naming fn) and returns the status. The cuda/
 * companion registers its check when first used. NULL unregisters. Returns 0, or TH_ERR_INVALID for a host
 * device type (the host needs no check) or a type outside 0..63. */
typedef int (*th_device_memory_check)(const char *fn, th_device device, const void *data, int64_t nbytes);
TH_API int th_register_device_memory_check(int32_t device_type, th_device_memory_check check);

/* An allocator: three functions that each get the allocator's context, a name, and where its memory
 * lives. realloc may be NULL (the storage then allocates, copies and frees). free gets the size that was
 * allocated. Allocating 0 bytes is never asked for. */
typedef struct th_allocator {
    const char *name;
    void *(*alloc)(void *ctx, size_t nbytes);
    void *(*realloc)(void *ctx, void *ptr, size_t old_nbytes, size_t new_nbytes);
    void (*free)(void *ctx, void *ptr, size_t nbytes);
    th_device device;
} th_allocator;

/* The default CPU allocator: 64-byte aligned; blocks of 4 MiB and more are 2 MiB aligned and asked to be
 * backed by transparent huge pages (unless TH_NO_HUGE_PAGES), which makes fresh large tensors far
 * cheaper to fault in, and freed into a cache of warm blocks (core/cpu_cache.h: th_cpu_cache_set_limit).
 * Its context is unused (pass NULL). */
TH_API const th_allocator *th_cpu_allocator(void);

/* The allocator (and context) that th_<sfx>_empty and every other function that makes a new tensor use
 * on this thread. Thread-local so that a test or a worker can route its own allocations without touching
 * other threads; NULL restores th_cpu_allocator(). */
TH_API void th_set_default_allocator(const th_allocator *allocator, void *ctx);
TH_API const th_allocator *th_default_allocator(void **ctx_out);

/* A counting allocator wraps another one and counts live blocks and bytes, the peak of live bytes and
 * all allocations; tests use it to prove that nothing leaks. It can also be told to fail from the n-th
 * allocation on, to test out-of-memory paths. Counts are atomic: share it between threads freely. */
typedef struct th_counting_allocator th_counting_allocator;
typedef struct th_alloc_stats {
    int64_t live_blocks, live_bytes, peak_bytes, total_allocs, failed_allocs;
} th_alloc_stats;
/* NULL inner means th_cpu_allocator(). Returns NULL on out of memory. */
TH_API th_counting_allocator *th_counting_allocator_new(const th_allocator *inner, void *inner_ctx);
/* Frees the counter itself (not the blocks it handed out): release every storage it allocated first. NULL
 * is a no-op. */
TH_API void th_counting_allocator_free(th_counting_allocator *counter);
/* The allocator to plug in; its context is the counter itself. NULL for NULL; stats of NULL are zeros and
 * fail_after(NULL, n) does nothing. */
TH_API const th_allocator *th_counting_allocator_get(th_counting_allocator *counter);
TH_API th_alloc_stats th_counting_allocator_stats(const th_counting_allocator *counter);
/* From the n-th allocation counted from now on (1 = the next), every allocation fails; n <= 0 never. */
TH_API void th_counting_allocator_fail_after(th_counting_allocator *counter, int64_t n);

#else /* TH__DEFINING */

TH_API bool th_device_is_host(th_device device)
{
    return device.type == TH_DEVICE_CPU || device.type == TH_DEVICE_CUDA_HOST ||
           device.type == TH_DEVICE_CUDA_MANAGED;
}

static const th_device th__cpu_device = {TH_DEVICE_CPU, 0};

/* The registered checks, by device type. Process-wide: a companion serves every thread; atomic, so a check
 * registered on one thread is seen whole by the others. */
enum { TH__DEVICE_TYPES = 64 };
static _Atomic(th_device_memory_check) th__device_checks[TH__DEVICE_TYPES];

TH_API int th_register_device_memory_check(int32_t device_type, th_device_memory_check check)
{
    const char *fn = "th_register_device_memory_check";
    if (device_type < 0 || device_type >= TH__DEVICE_TYPES)
        return th__fail(TH_ERR_INVALID, fn, "device type %d is outside 0..%d", (int)device_type, TH__DEVICE_TYPES - 1);
    if (th_device_is_host((th_device){device_type, 0}))
        return th__fail(TH_ERR_INVALID, fn, "device type %d is host memory, which needs no check", (int)device_type);
    atomic_store(&th__device_checks[device_type], check);
    return TH_OK;
}

/* The check for device's type, or NULL when none is registered. */
static th_device_memory_check th__device_check(th_device device)
{
    if (device.type < 0 || device.type >= TH__DEVICE_TYPES) return NULL;
    return atomic_load(&th__device_checks[device.type]);
}

enum { TH__ALIGNMENT = 64 };
#define TH__HUGE_PAGE ((size_t)2 << 20)
#define TH__HUGE_THRESHOLD ((size_t)4 << 20)

static size_t th__round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* Small blocks: malloc 64 bytes more and align by hand, keeping malloc's pointer just below the block.
 * glibc's aligned_alloc skips its per-thread cache and costs 5x a malloc; small tensors are made often. */
static void *th__cpu_alloc_small(size_t nbytes)
{
    char *raw = (char *)malloc(nbytes + TH__ALIGNMENT);
    if (!raw) return NULL;
    /* malloc aligns to at least 16, so there are 16..64 bytes below the aligned block for the pointer. */
    char *block = (char *)(((uintptr_t)raw + TH__ALIGNMENT) & ~(uintptr_t)(TH__ALIGNMENT - 1));
    memcpy(block - sizeof raw, &raw, sizeof raw);
    return block;
}

static void *th__cpu_alloc(void *ctx, size_t nbytes)
{
    (void)ctx;
    if (nbytes > SIZE_MAX - TH__HUGE_PAGE) return NULL;
    if (nbytes < TH__HUGE_THRESHOLD) return th__cpu_alloc_small(nbytes);
    size_t rounded = th__round_up(nbytes, TH__HUGE_PAGE);
    void *p = th__cpu_cache_take(rounded);
    if (p) return p;
    p = aligned_alloc(TH__HUGE_PAGE, rounded);
    if (!p) {
        /* The cache's blocks may be what the system lacks: give them back and ask again. */
        th_cpu_cache_empty();
        p = aligned_alloc(TH__HUGE_PAGE, rounded);
    }
#ifdef TH__USE_HUGE_PAGES
    /* Advice only: a kernel without transparent huge pages still hands out ordinary pages. */
    if (p) (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

static void th__cpu_free(void *ctx, void *ptr, size_t nbytes)
{
    (void)ctx;
    if (nbytes >= TH__HUGE_THRESHOLD) {
        th__cpu_cache_give(ptr, th__round_up(nbytes, TH__HUGE_PAGE));
        return;
    }
    char *raw;
    memcpy(&raw, (char *)ptr - sizeof raw, sizeof raw);
    free(raw);
}

/* realloc is NULL: C's realloc would not keep the 64-byte (or 2 MiB) alignment. */
static const th_allocator th__cpu_allocator = {"cpu", th__cpu_alloc, NULL, th__cpu_free, {TH_DEVICE_CPU, 0}};

TH_API const th_allocator *th_cpu_allocator(void) { return &th__cpu_allocator; }

/* Thread-local so a test or a worker thread routes only its own allocations (see th_set_default_allocator). */
static _Thread_local const th_allocator *th__default_allocator;
static _Thread_local void *th__default_allocator_ctx;

TH_API void th_set_default_allocator(const th_allocator *allocator, void *ctx)
{
    th__default_allocator = allocator;
    th__default_allocator_ctx = allocator ? ctx : NULL;
}

TH_API const th_allocator *th_default_allocator(void **ctx_out)
{
    if (ctx_out) *ctx_out = th__default_allocator ? th__default_allocator_ctx : NULL;
    return th__default_allocator ? th__default_allocator : &th__cpu_allocator;
}

struct th_counting_allocator {
    th_allocator vtable; /* first, so a pointer to it is a pointer to the counter */
    const th_allocator *inner;
    void *inner_ctx;
    _Atomic int64_t live_blocks, live_bytes, peak_bytes, total_allocs, failed_allocs, fail_at;
};

static void th__counting_note_peak(th_counting_allocator *c, int64_t live)
{
    int64_t peak = atomic_load(&c->peak_bytes);
    while (live > peak && !atomic_compare_exchange_weak(&c->peak_bytes, &peak, live)) {
    }
}

static void *th__counting_alloc(void *ctx, size_t nbytes)
{
    th_counting_allocator *c = (th_counting_allocator *)ctx;
    int64_t nth = atomic_fetch_add(&c->total_allocs, 1) + 1;
    int64_t fail_at = atomic_load(&c->fail_at);
    void *p = (fail_at > 0 && nth >= fail_at) ? NULL : c->inner->alloc(c->inner_ctx, nbytes);
    if (!p) {
        atomic_fetch_add(&c->failed_allocs, 1);
        return NULL;
    }
    atomic_fetch_add(&c->live_blocks, 1);
    th__counting_note_peak(c, atomic_fetch_add(&c->live_bytes, (int64_t)nbytes) + (int64_t)nbytes);
    return p;
}

static void *th__counting_realloc(void *ctx, void *ptr, size_t old_nbytes, size_t new_nbytes)
{
    th_counting_allocator *c = (th_counting_allocator *)ctx;
    int64_t nth = atomic_fetch_add(&c->total_allocs, 1) + 1;
    int64_t fail_at = atomic_load(&c->fail_at);
    void *p = (fail_at > 0 && nth >= fail_at)
                  ? NULL
                  : c->inner->realloc(c->inner_ctx, ptr, old_nbytes, new_nbytes);
    if (!p) {
        atomic_fetch_add(&c->failed_allocs, 1);
        return NULL;
    }
    int64_t delta = (int64_t)new_nbytes - (int64_t)old_nbytes;
    th__counting_note_peak(c, atomic_fetch_add(&c->live_bytes, delta) + delta);
    return p;
}

static void th__counting_free(void *ctx, void *ptr, size_t nbytes)
{
    th_counting_allocator *c = (th_counting_allocator *)ctx;
    atomic_fetch_sub(&c->live_blocks, 1);
    atomic_fetch_sub(&c->live_bytes, (int64_t)nbytes);
    c->inner->free(c->inner_ctx, ptr, nbytes);
}

TH_API th_counting_allocator *th_counting_allocator_new(const th_allocator *inner, void *inner_ctx)
{
    th_counting_allocator *c = (th_counting_allocator *)calloc(1, sizeof *c);
    if (!c) {
        th__fail(TH_ERR_NOMEM, "th_counting_allocator_new", "out of memory");
        return NULL;
    }
    c->inner = inner ? inner : &th__cpu_allocator;
    c->inner_ctx = inner ? inner_ctx : NULL;
    c->vtable.name = "counting";
    c->vtable.alloc = th__counting_alloc;
    c->vtable.realloc = c->inner->realloc ? th__counting_realloc : NULL;
    c->vtable.free = th__counting_free;
    c->vtable.device = c->inner->device;
    return c;
}

TH_API void th_counting_allocator_free(th_counting_allocator *counter) { free(counter); }

TH_API const th_allocator *th_counting_allocator_get(th_counting_allocator *counter)
{
    return counter ? &counter->vtable : NULL;
}

TH_API th_alloc_stats th_counting_allocator_stats(const th_counting_allocator *counter)
{
    th_alloc_stats s = {0, 0, 0, 0, 0};
    if (!counter) return s;
    th_counting_allocator *c = (th_counting_allocator *)counter; /* atomic loads take non-const */
    s.live_blocks = atomic_load(&c->live_blocks);
    s.live_bytes = atomic_load(&c->live_bytes);
    s.peak_bytes = atomic_load(&c->peak_bytes);
    s.total_allocs = atomic_load(&c->total_allocs);
    s.failed_allocs = atomic_load(&c->failed_allocs);
    return s;
}

TH_API void th_counting_allocator_fail_after(th_counting_allocator *counter, int64_t n)
{
    if (!counter) return;
    atomic_store(&counter->fail_at, n > 0 ? atomic_load(&counter->total_allocs) + n : 0);
}

#endif /* TH__DEFINING */
