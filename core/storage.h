/* core/storage.h: th_storage: untyped, refcounted bytes from an allocator (or wrapped memory with a deleter).
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/storage.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Untyped, refcounted bytes with an allocator and a device. Typed views of it are per dtype
 * (th_f32_storage_new, th_f32_storage_data, ...). */
typedef struct th_storage th_storage;

/* Called once with the data pointer and its context when the last user of wrapped memory lets go. */
typedef void (*th_deleter)(void *data, void *ctx);

/* A storage of nbytes from allocator (NULL: the default). NULL on error (negative size, out of memory). */
TH_API th_storage *th_storage_new(int64_t nbytes, const th_allocator *allocator, void *allocator_ctx);
/* Wraps nbytes at data on device without copying; deleter (may be NULL) runs once with data and
 * deleter_ctx when the last user lets go. Not resizable. On error returns NULL and does NOT run the
 * deleter: the caller still owns data. */
TH_API th_storage *th_storage_from_blob(void *data, int64_t nbytes, th_device device, th_deleter deleter,
                                        void *deleter_ctx);
/* Both return the storage; NULL is a no-op. */
TH_API th_storage *th_storage_retain(th_storage *storage);
TH_API void th_storage_release(th_storage *storage);
/* A weak reference's upgrade: retains storage only while its count is above 0, and returns it, or NULL when
 * the last reference has gone (or storage is NULL): a storage being freed is never brought back. The struct
 * itself must still be there, so the caller keeps it from being freed meanwhile; the usual way is a table
 * under a lock, which the storage's allocator free (or wrapped memory's deleter) takes to remove the entry:
 * th_storage_release drops the count to 0, then calls that free, then frees the struct, so under the lock an
 * entry not yet removed is a struct that is still there. Safe from any number of threads at once. */
TH_API th_storage *th_storage_try_retain(th_storage *storage);
/* Resizes to nbytes, keeping the first min(old, new) bytes; the storage is unchanged on error. Errors:
 * TH_ERR_INVALID (NULL, negative size), TH_ERR_READ_ONLY, TH_ERR_UNSUPPORTED (wrapped memory),
 * TH_ERR_OVERFLOW (more than size_t), TH_ERR_DEVICE (device memory without the allocator's realloc),
 * TH_ERR_NOMEM (the allocator failed). Tensors over a shrunk storage refuse element access afterwards. */
TH_API int th_storage_resize(th_storage *storage, int64_t nbytes);
/* 0 / a zero device / NULL for a NULL storage. */
TH_API int64_t th_storage_nbytes(const th_storage *storage);
TH_API th_device th_storage_device(const th_storage *storage);
TH_API void *th_storage_raw_data(const th_storage *storage);
TH_API int64_t th_storage_refcount(const th_storage *storage);
TH_API bool th_storage_is_resizable(const th_storage *storage);
/* Read-only storage refuses every write the library makes (set, fill, copy into it, resize) with
 * TH_ERR_READ_ONLY; the pointers th_f32_data returns stay the caller's responsibility. Imports of read-only
 * DLPack tensors are read-only. Making a storage read-only cannot be undone, and is not synchronised with
 * other threads writing through the storage at the same moment. NULL is a no-op / false. */
TH_API void th_storage_make_read_only(th_storage *storage);
TH_API bool th_storage_is_read_only(const th_storage *storage);
/* The allocator (and its context) the storage's memory came from; NULL for wrapped memory or NULL. */
TH_API const th_allocator *th_storage_allocator(const th_storage *storage, void **ctx_out);
/* Moves the storage's bytes, in place, into memory from allocator (and ctx): every tensor and view over the
 * storage then sees the new memory, with the same contents. This is how a storage moves into shared memory.
 * The old memory is freed through its allocator (or its deleter runs). Not safe while another thread uses the
 * storage. Errors: NULL storage or allocator, device memory on either side, a read-only storage, the
 * allocator failing (the storage is then unchanged). */
TH_API int th_storage_move_to(th_storage *storage, const th_allocator *allocator, void *ctx);

#else /* TH__DEFINING */

enum { TH__STORAGE_RESIZABLE = 1, TH__STORAGE_READ_ONLY = 2 };

struct th_storage {
    _Atomic int64_t refcount;
    void *data;
    int64_t nbytes;
    th_device device;
    uint32_t flags;
    const th_allocator *allocator; /* NULL for wrapped memory */
    void *allocator_ctx;
    th_deleter deleter; /* wrapped memory: called once with deleter_data */
    void *deleter_data;
    void *deleter_ctx;
};

/* An allocator returned NULL for nbytes: the error names the allocator and keeps the reason the allocator
 * recorded, if it recorded one since errors_before (a CUDA allocator says capacity, free, reserved and the
 * largest free block: the figure a user needs to act on). */
static int th__alloc_failed(const char *fn, const th_allocator *a, const char *what, int64_t nbytes,
                            unsigned errors_before)
{
    const char *name = a->name ? a->name : "?";
    if (th__error_count == errors_before)
        return th__fail(TH_ERR_NOMEM, fn, "allocator '%s' could not %s %lld bytes", name, what, (long long)nbytes);
    char reason[sizeof th__error_message];
    memcpy(reason, th__error_message, sizeof reason);
    size_t skip = strlen(fn); /* "fn: " once is enough, when the allocator recorded its reason under fn too */
    if (strncmp(reason, fn, skip) != 0 || strncmp(reason + skip, ": ", 2) != 0) skip = 0;
    else skip += 2;
    return th__fail(TH_ERR_NOMEM, fn, "allocator '%s' could not %s %lld bytes: %s", name, what, (long long)nbytes,
                    reason + skip);
}

/* A new storage header (refcount 1) of nbytes and flags, its memory not set yet. NULL on error. */
static th_storage *th__storage_header(const char *fn, int64_t nbytes, uint32_t flags)
{
    th_storage *s = (th_storage *)malloc(sizeof *s);
    if (!s) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the storage header");
        return NULL;
    }
    atomic_init(&s->refcount, 1);
    s->nbytes = nbytes;
    s->flags = flags;
    return s;
}

/* Points s at its memory: data on device, handed back by allocator (allocator_ctx its context) or, for wrapped
 * memory (allocator NULL), by deleter(deleter_data, deleter_ctx) when there is one. */
static void th__storage_set_memory(th_storage *s, void *data, th_device device, const th_allocator *allocator,
                                   void *allocator_ctx, th_deleter deleter, void *deleter_data, void *deleter_ctx)
{
    s->data = data;
    s->device = device;
    s->allocator = allocator;
    s->allocator_ctx = allocator_ctx;
    s->deleter = deleter;
    s->deleter_data = deleter_data;
    s->deleter_ctx = deleter_ctx;
}

static th_storage *th__storage_alloc(const char *fn, int64_t nbytes, const th_allocator *allocator,
                                     void *allocator_ctx)
{
    if (nbytes < 0) {
        th__fail(TH_ERR_INVALID, fn, "negative size %lld bytes", (long long)nbytes);
        return NULL;
    }
    if ((uint64_t)nbytes > (uint64_t)SIZE_MAX) {
        th__fail(TH_ERR_OVERFLOW, fn, "%lld bytes do not fit in size_t", (long long)nbytes);
        return NULL;
    }
    if (!allocator) allocator = th_default_allocator(&allocator_ctx);
    if (!allocator->alloc || !allocator->free) {
        th__fail(TH_ERR_INVALID, fn, "allocator '%s' has no alloc or free function",
                 allocator->name ? allocator->name : "?");
        return NULL;
    }
    th_storage *s = th__storage_header(fn, nbytes, TH__STORAGE_RESIZABLE);
    if (!s) return NULL;
    void *data = NULL;
    if (nbytes > 0) {
        unsigned errors_before = th__error_count;
        data = allocator->alloc(allocator_ctx, (size_t)nbytes);
        if (!data) {
            free(s);
            th__alloc_failed(fn, allocator, "allocate", nbytes, errors_before);
            return NULL;
        }
    }
    th__storage_set_memory(s, data, allocator->device, allocator, allocator_ctx, NULL, NULL, NULL);
    return s;
}

/* Hands the memory back: the wrapped memory's deleter, or the allocator that made it. */
static void th__storage_free_memory(th_storage *storage)
{
    if (storage->deleter)
        storage->deleter(storage->deleter_data, storage->deleter_ctx);
    else if (storage->allocator && storage->data)
        storage->allocator->free(storage->allocator_ctx, storage->data, (size_t)storage->nbytes);
}

static int th__check_writable(const char *fn, const th_storage *storage)
{
    if (storage->flags & TH__STORAGE_READ_ONLY)
        return th__fail(TH_ERR_READ_ONLY, fn, "the tensor's memory is read-only");
    return TH_OK;
}

TH_API th_storage *th_storage_new(int64_t nbytes, const th_allocator *allocator, void *allocator_ctx)
{
    return th__storage_alloc("th_storage_new", nbytes, allocator, allocator_ctx);
}

/* Wraps [data, data + nbytes); the deleter gets deleter_data, which may differ from data (a view of a
 * blob with negative strides starts below the pointer its owner handed out). */
static th_storage *th__storage_wrap(const char *fn, void *data, int64_t nbytes, th_device device,
                                    th_deleter deleter, void *deleter_data, void *deleter_ctx)
{
    if (nbytes < 0) {
        th__fail(TH_ERR_INVALID, fn, "negative size %lld bytes", (long long)nbytes);
        return NULL;
    }
    if (!data && nbytes > 0) {
        th__fail(TH_ERR_INVALID, fn, "NULL data for %lld bytes", (long long)nbytes);
        return NULL;
    }
    th_storage *s = th__storage_header(fn, nbytes, 0);
    if (!s) return NULL;
    th__storage_set_memory(s, data, device, NULL, NULL, deleter, deleter_data, deleter_ctx);
    return s;
}

TH_API th_storage *th_storage_from_blob(void *data, int64_t nbytes, th_device device, th_deleter deleter,
                                        void *deleter_ctx)
{
    return th__storage_wrap("th_storage_from_blob", data, nbytes, device, deleter, data, deleter_ctx);
}

TH_API th_storage *th_storage_retain(th_storage *storage)
{
    if (storage) atomic_fetch_add_explicit(&storage->refcount, 1, memory_order_relaxed);
    return storage;
}

TH_API th_storage *th_storage_try_retain(th_storage *storage)
{
    if (!storage) return NULL;
    int64_t n = atomic_load_explicit(&storage->refcount, memory_order_relaxed);
    do {
        if (n <= 0) return NULL;
    } while (!atomic_compare_exchange_weak_explicit(&storage->refcount, &n, n + 1, memory_order_acquire,
                                                    memory_order_relaxed));
    return storage;
}

TH_API void th_storage_release(th_storage *storage)
{
    if (!storage) return;
    /* Always the locked decrement, never "a count of 1 is ours alone, free without writing it" (as
     * th_tensor_release does): th_storage_try_retain may take a count of 1 to 2 at any moment, and only a
     * count that reached 0 tells it the storage is going. The memory goes before the struct, and the count
     * is 0 by then: th_storage_try_retain relies on both. */
    if (atomic_fetch_sub_explicit(&storage->refcount, 1, memory_order_acq_rel) != 1) return;
    th__storage_free_memory(storage);
    free(storage);
}

TH_API int th_storage_resize(th_storage *storage, int64_t nbytes)
{
    static const char fn[] = "th_storage_resize";
    if (!storage) return th__fail(TH_ERR_INVALID, fn, "NULL storage");
    if (nbytes < 0) return th__fail(TH_ERR_INVALID, fn, "negative size %lld bytes", (long long)nbytes);
    if (th__check_writable(fn, storage)) return th_last_status();
    if (!(storage->flags & TH__STORAGE_RESIZABLE))
        return th__fail(TH_ERR_UNSUPPORTED, fn, "the storage wraps memory it does not own and cannot resize it");
    if ((uint64_t)nbytes > (uint64_t)SIZE_MAX)
        return th__fail(TH_ERR_OVERFLOW, fn, "%lld bytes do not fit in size_t", (long long)nbytes);
    if (nbytes == storage->nbytes) return TH_OK;
    const th_allocator *a = storage->allocator;
    void *data = NULL;
    if (nbytes > 0 && storage->data && a->realloc) {
        unsigned errors_before = th__error_count;
        data = a->realloc(storage->allocator_ctx, storage->data, (size_t)storage->nbytes, (size_t)nbytes);
        if (!data) return th__alloc_failed(fn, a, "resize the storage to", nbytes, errors_before);
    } else {
        if (storage->data && nbytes > 0 && !th_device_is_host(storage->device))
            return th__fail(TH_ERR_DEVICE, fn, "allocator '%s' has no realloc and the host cannot copy device memory",
                            a->name ? a->name : "?");
        if (nbytes > 0) {
            unsigned errors_before = th__error_count;
            data = a->alloc(storage->allocator_ctx, (size_t)nbytes);
            if (!data) return th__alloc_failed(fn, a, "allocate", nbytes, errors_before);
            if (storage->data)
                memcpy(data, storage->data, (size_t)(nbytes < storage->nbytes ? nbytes : storage->nbytes));
        }
        if (storage->data) a->free(storage->allocator_ctx, storage->data, (size_t)storage->nbytes);
    }
    storage->data = data;
    storage->nbytes = nbytes;
    return TH_OK;
}

TH_API int64_t th_storage_nbytes(const th_storage *storage) { return storage ? storage->nbytes : 0; }
TH_API th_device th_storage_device(const th_storage *storage)
{
    th_device none = {0, 0};
    return storage ? storage->device : none;
}
TH_API void *th_storage_raw_data(const th_storage *storage) { return storage ? storage->data : NULL; }
TH_API int64_t th_storage_refcount(const th_storage *storage)
{
    return storage ? atomic_load(&((th_storage *)storage)->refcount) : 0;
}
TH_API bool th_storage_is_resizable(const th_storage *storage)
{
    return storage && (storage->flags & TH__STORAGE_RESIZABLE);
}

TH_API void th_storage_make_read_only(th_storage *storage)
{
    if (storage) storage->flags |= TH__STORAGE_READ_ONLY;
}

TH_API bool th_storage_is_read_only(const th_storage *storage)
{
    return storage && (storage->flags & TH__STORAGE_READ_ONLY);
}

TH_API const th_allocator *th_storage_allocator(const th_storage *storage, void **ctx_out)
{
    if (ctx_out) *ctx_out = storage ? storage->allocator_ctx : NULL;
    return storage ? storage->allocator : NULL;
}

TH_API int th_storage_move_to(th_storage *storage, const th_allocator *allocator, void *ctx)
{
    static const char fn[] = "th_storage_move_to";
    if (!storage || !allocator) return th__fail(TH_ERR_INVALID, fn, "NULL %s", storage ? "allocator" : "storage");
    if (!allocator->alloc || !allocator->free)
        return th__fail(TH_ERR_INVALID, fn, "allocator '%s' has no alloc or free function",
                        allocator->name ? allocator->name : "?");
    if (!th_device_is_host(storage->device) || !th_device_is_host(allocator->device))
        return th__fail(TH_ERR_DEVICE, fn, "moving memory between devices needs the device's copy, not the host's");
    if (storage->flags & TH__STORAGE_READ_ONLY)
        return th__fail(TH_ERR_READ_ONLY, fn, "the storage is read-only");
    void *data = NULL;
    if (storage->nbytes > 0) {
        unsigned errors_before = th__error_count;
        data = allocator->alloc(ctx, (size_t)storage->nbytes);
        if (!data) return th__alloc_failed(fn, allocator, "allocate", storage->nbytes, errors_before);
        memcpy(data, storage->data, (size_t)storage->nbytes);
    }
    th__storage_free_memory(storage);
    th__storage_set_memory(storage, data, allocator->device, allocator, ctx, NULL, NULL, NULL);
    storage->flags |= TH__STORAGE_RESIZABLE; /* its memory is now an allocator's */
    return TH_OK;
}


static th_storage *th__storage_new_elems(const char *fn, th_dtype dtype, int64_t n,
                                         const th_allocator *allocator, void *ctx)
{
    size_t es = th__dtype_traits[dtype].size;
    if (n < 0) {
        th__fail(TH_ERR_INVALID, fn, "negative size %lld", (long long)n);
        return NULL;
    }
    int64_t nbytes;
    if (__builtin_mul_overflow(n, (int64_t)es, &nbytes)) {
        th__fail(TH_ERR_OVERFLOW, fn, "%lld elements of %zu bytes overflow int64", (long long)n, es);
        return NULL;
    }
    return th__storage_alloc(fn, nbytes, allocator, ctx);
}

static void *th__storage_host_data(const char *fn, const th_storage *s)
{
    if (!s) {
        th__fail(TH_ERR_INVALID, fn, "NULL storage");
        return NULL;
    }
    if (!th_device_is_host(s->device)) {
        th__fail(TH_ERR_DEVICE, fn, "the storage is on device type %d, which the host cannot touch",
                 (int)s->device.type);
        return NULL;
    }
    return s->data;
}

#endif /* TH__DEFINING */
