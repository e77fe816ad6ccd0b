/* core/tensors.h: th_tensor: dtype, sizes, strides and offset over a storage; shape checks, construction, the
 * header cache, element access.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/tensors.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Every typed tensor (th_f32_tensor, ...) is a th_tensor underneath; th_f32_base(t) gives it. Runtime code
 * that works for any dtype (conversion, printing, DLPack, files) takes th_tensor. */
typedef struct th_tensor th_tensor;

/* NULL is a no-op for retain and release. Accessors of a NULL tensor return 0 / NULL / TH_DTYPE_INVALID. */
TH_API th_tensor *th_tensor_retain(th_tensor *t);
TH_API void th_tensor_release(th_tensor *t);
TH_API th_dtype th_tensor_dtype(const th_tensor *t);
TH_API int th_tensor_ndim(const th_tensor *t);
/* The sizes and strides (in elements) of every dim; valid while t lives. */
TH_API const int64_t *th_tensor_sizes(const th_tensor *t);
TH_API const int64_t *th_tensor_strides(const th_tensor *t);
TH_API int64_t th_tensor_numel(const th_tensor *t);
TH_API void *th_tensor_data(const th_tensor *t);
TH_API th_storage *th_tensor_storage(const th_tensor *t);
TH_API int64_t th_tensor_offset(const th_tensor *t);
TH_API bool th_tensor_is_contiguous(const th_tensor *t);
/* A tensor of dtype over storage (retained), as th_<sfx>_new_with_storage, for code that works for any dtype
 * (companions, files): offset in elements, strides in elements or NULL for contiguous. NULL on error (NULL
 * storage, a dtype not compiled in, a shape outside the storage, ...). */
TH_API th_tensor *th_tensor_new_with_storage(th_dtype dtype, th_storage *storage, int64_t offset, int ndim,
                                             const int64_t *sizes, const int64_t *strides);

#else /* TH__DEFINING */

struct th_tensor {
    _Atomic int64_t refcount;
    th_storage *storage;
    int64_t offset; /* in elements */
    th_dtype dtype;
    int32_t ndim;
    int64_t sizes[TH_MAX_DIMS];
    int64_t strides[TH_MAX_DIMS]; /* in elements; may be 0 (expand) or negative (wrapped blobs) */
};

/* Checks ndim and sizes, and stores the element count in *numel. */
static int th__check_sizes(const char *fn, int ndim, const int64_t *sizes, int64_t *numel)
{
    if (ndim < 0 || ndim > TH_MAX_DIMS)
        return th__fail(TH_ERR_RANGE, fn, "ndim %d is outside 0..%d (TH_MAX_DIMS)", ndim, TH_MAX_DIMS);
    if (ndim > 0 && !sizes) return th__fail(TH_ERR_INVALID, fn, "NULL sizes for ndim %d", ndim);
    int64_t n = 1;
    bool zero = false;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] < 0)
            return th__fail(TH_ERR_INVALID, fn, "negative size %lld in dim %d", (long long)sizes[d], d);
        if (sizes[d] == 0) zero = true;
    }
    /* Overflow is checked on the nonzero sizes too: a zero-size tensor with an overflowing shape is a bug. */
    for (int d = 0; d < ndim; d++) {
        if (__builtin_mul_overflow(n, sizes[d] ? sizes[d] : 1, &n))
            return th__fail(TH_ERR_OVERFLOW, fn, "the element count of the sizes overflows int64 at dim %d", d);
    }
    *numel = zero ? 0 : n;
    return TH_OK;
}

static int th__wrap_dim(const char *fn, int dim, int ndim, int *out)
{
    int n = ndim > 0 ? ndim : 1; /* a 0-d tensor accepts dim 0 and -1, as PyTorch does */
    if (dim < -n || dim >= n)
        return th__fail(TH_ERR_RANGE, fn, "dim %d is out of range for a tensor of %d dims", dim, ndim);
    *out = dim < 0 ? dim + n : dim;
    return TH_OK;
}

/* th__wrap_dim for one of a list of dims that must differ: seen[] marks the dims taken so far; what names the
 * list in the message ("dim 1 appears twice in dims"). */
TH__MAYBE_UNUSED static int th__wrap_dim_once(const char *fn, int dim, int ndim, bool *seen, const char *what, int *out)
{
    if (th__wrap_dim(fn, dim, ndim, out)) return th_last_status();
    if (seen[*out]) return th__fail(TH_ERR_INVALID, fn, "dim %d appears twice in %s", *out, what);
    seen[*out] = true;
    return TH_OK;
}

static void th__contiguous_strides(int ndim, const int64_t *sizes, int64_t *strides)
{
    int64_t s = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        strides[d] = s;
        s *= sizes[d] > 1 ? sizes[d] : 1;
    }
}

/* Lowest and highest element offset, relative to the first element, that the shape addresses. With
 * stride products checked against int64 overflow. Only meaningful for numel > 0. */
static int th__extent(const char *fn, int ndim, const int64_t *sizes, const int64_t *strides, int64_t *lo,
                      int64_t *hi)
{
    int64_t l = 0, h = 0;
    for (int d = 0; d < ndim; d++) {
        if (sizes[d] <= 1 || strides[d] == 0) continue;
        int64_t span;
        if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &span))
            return th__fail(TH_ERR_OVERFLOW, fn, "size %lld times stride %lld of dim %d overflows int64",
                            (long long)sizes[d], (long long)strides[d], d);
        if (span > 0 ? __builtin_add_overflow(h, span, &h) : __builtin_add_overflow(l, span, &l))
            return th__fail(TH_ERR_OVERFLOW, fn, "the strides address more than int64 can count");
    }
    *lo = l;
    *hi = h;
    return TH_OK;
}

static size_t th__elsize(const th_tensor *t) { return th__dtype_traits[t->dtype].size; }

static int64_t th__numel(const th_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++) n *= t->sizes[d];
    return n;
}

/* ---- the dtype behind a typed handle ---- */

/* A th_f32_tensor * is only a promise: a cast from void *, th_tensor * or another handle type compiles
 * silently. Every typed function therefore checks its tensors' dtype before it does anything. */

#if defined(__GNUC__)
__attribute__((cold))
#endif
static TH__NOINLINE void th__dtype_refuse(const char *fn, const char *what, const th_tensor *t, th_dtype want)
{
    th__fail(TH_ERR_DTYPE, fn, "%s is %s, not %s", what, th_dtype_name(t->dtype), th_dtype_name(want));
}

/* True, with TH_ERR_DTYPE recorded under fn, when t holds another dtype than want. NULL passes: each
 * function reports a NULL tensor in its own words. Inline so that the right dtype costs one compare of a
 * field in the header the function reads anyway; the message is built out of line. */
static inline bool th__dtype_mismatch(const char *fn, const char *what, const th_tensor *t, th_dtype want)
{
    if (!t || t->dtype == want) return false;
    th__dtype_refuse(fn, what, t, want);
    return true; /* here, not from the call: the caller's arguments are then dead after it, not saved for it */
}

/* ---- tensors: construction ---- */

/* Each thread keeps a few freed tensor headers for the next view to reuse: malloc and free of the 300-byte
 * header are a third of what a view costs. Thread-local, so no locks; a thread's cache is freed when it
 * exits (C11 tss destructor). Off under AddressSanitizer, which should see every use after release, and
 * with TH_NO_HEADER_CACHE. */
#if defined(__SANITIZE_ADDRESS__) && !defined(TH_NO_HEADER_CACHE)
#define TH_NO_HEADER_CACHE
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(TH_NO_HEADER_CACHE)
#define TH_NO_HEADER_CACHE
#endif
#endif
#if defined(__STDC_NO_THREADS__) && !defined(TH_NO_HEADER_CACHE)
#define TH_NO_HEADER_CACHE
#endif

#ifndef TH_NO_HEADER_CACHE
#include <threads.h>

enum { TH__HEADER_CACHE_SIZE = 32 };

typedef struct th__header_cache {
    int count;
    bool registered; /* with the thread-exit destructor */
    bool disabled;   /* registering failed: without a destructor the cache would leak at thread exit */
    struct th_tensor *items[TH__HEADER_CACHE_SIZE];
} th__header_cache;

static _Thread_local th__header_cache th__headers;
static tss_t th__headers_key;
static once_flag th__headers_once = ONCE_FLAG_INIT;
/* Atomic although call_once already orders its write before every later read: ThreadSanitizer does not
 * see inside glibc's call_once (its C11 entry points are not intercepted) and reported each thread's first
 * read as a race with the writer's. Release and acquire make the order visible to it; the load is once per
 * thread. */
static _Atomic bool th__headers_key_ok;

static void th__headers_drain(void *cache)
{
    th__header_cache *c = (th__header_cache *)cache;
    while (c->count > 0) free(c->items[--c->count]);
    c->disabled = true; /* headers freed later in this thread's exit go straight to free */
}

static void th__headers_make_key(void)
{
    atomic_store_explicit(&th__headers_key_ok, tss_create(&th__headers_key, th__headers_drain) == thrd_success,
                          memory_order_release);
}

static void *th__header_alloc(size_t size)
{
    if (th__headers.count > 0) return th__headers.items[--th__headers.count];
    return malloc(size);
}

static void th__header_free(void *header)
{
    th__header_cache *c = &th__headers;
    if (!c->registered) {
        call_once(&th__headers_once, th__headers_make_key);
        c->registered = true;
        c->disabled = !atomic_load_explicit(&th__headers_key_ok, memory_order_acquire) ||
                      tss_set(th__headers_key, c) != thrd_success;
    }
    if (!c->disabled && c->count < TH__HEADER_CACHE_SIZE)
        c->items[c->count++] = (struct th_tensor *)header;
    else
        free(header);
}
#else
static void *th__header_alloc(size_t size) { return malloc(size); }
static void th__header_free(void *header) { free(header); }
#endif

/* A tensor over storage (which it retains). sizes and strides are trusted: callers check them. */
static th_tensor *th__tensor_make(const char *fn, th_dtype dtype, th_storage *storage, int64_t offset, int ndim,
                                  const int64_t *sizes, const int64_t *strides)
{
    th_tensor *t = (th_tensor *)th__header_alloc(sizeof *t);
    if (!t) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the tensor header");
        return NULL;
    }
    atomic_init(&t->refcount, 1);
    t->storage = th_storage_retain(storage);
    t->offset = offset;
    t->dtype = dtype;
    t->ndim = ndim;
    if (ndim > 0) {
        memcpy(t->sizes, sizes, (size_t)ndim * sizeof *sizes);
        memcpy(t->strides, strides, (size_t)ndim * sizeof *strides);
    }
    return t;
}

/* A new contiguous tensor from allocator a (with its ctx). */
static th_tensor *th__tensor_empty_from(const char *fn, th_dtype dtype, int ndim, const int64_t *sizes,
                                        const th_allocator *a, void *ctx)
{
    int64_t numel = 0; /* set by th__check_sizes; gcc 12 cannot always see it */
    if (th__check_sizes(fn, ndim, sizes, &numel)) return NULL;
    th_storage *s = th__storage_new_elems(fn, dtype, numel, a, ctx);
    if (!s) return NULL;
    int64_t strides[TH_MAX_DIMS];
    th__contiguous_strides(ndim, sizes, strides);
    th_tensor *t = th__tensor_make(fn, dtype, s, 0, ndim, sizes, strides);
    if (t)
        atomic_store_explicit(&s->refcount, 1, memory_order_relaxed); /* the tensor takes our reference over */
    else
        th_storage_release(s);
    return t;
}

/* A new contiguous tensor from the thread's default allocator. */
static th_tensor *th__tensor_empty(const char *fn, th_dtype dtype, int ndim, const int64_t *sizes)
{
    void *ctx;
    const th_allocator *a = th_default_allocator(&ctx);
    return th__tensor_empty_from(fn, dtype, ndim, sizes, a, ctx);
}

/* A new contiguous tensor of src's shape on src's device: the thread's default allocator for plain CPU memory
 * (as every new tensor), else src's own allocator, so that a _like of a CUDA or pinned tensor is one too and
 * never silently a CPU tensor. Memory wrapped from outside has no allocator to ask: refused. */
TH__MAYBE_UNUSED static th_tensor *th__tensor_empty_like(const char *fn, th_dtype dtype, const th_tensor *src)
{
    const th_storage *s = src->storage;
    if (s->device.type == TH_DEVICE_CPU) return th__tensor_empty(fn, dtype, src->ndim, src->sizes);
    if (!s->allocator) {
        th__fail(TH_ERR_DEVICE, fn, "the tensor's memory (device type %d) was wrapped from outside, so there is no "
                 "allocator to make another like it", (int)s->device.type);
        return NULL;
    }
    return th__tensor_empty_from(fn, dtype, src->ndim, src->sizes, s->allocator, s->allocator_ctx);
}

/* Checks that offset, sizes and strides address only elements inside storage. */
static int th__check_in_storage(const char *fn, th_dtype dtype, const th_storage *storage, int64_t offset,
                                int ndim, const int64_t *sizes, const int64_t *strides, int64_t numel)
{
    if (offset < 0) return th__fail(TH_ERR_RANGE, fn, "negative storage offset %lld", (long long)offset);
    int64_t avail = storage->nbytes / (int64_t)th__dtype_traits[dtype].size;
    if (numel == 0) {
        if (offset > avail)
            return th__fail(TH_ERR_RANGE, fn, "offset %lld is past the end of the storage's %lld elements",
                            (long long)offset, (long long)avail);
        return TH_OK;
    }
    int64_t lo = 0, hi = 0;
    if (th__extent(fn, ndim, sizes, strides, &lo, &hi)) return th_last_status();
    if (offset + lo < 0 || hi > avail - 1 - offset)
    {
        int64_t first, last;
        if (__builtin_add_overflow(offset, lo, &first) || __builtin_add_overflow(offset, hi, &last))
            return th__fail(TH_ERR_RANGE, fn,
                            "offset %lld with these sizes and strides addresses elements beyond int64, outside the "
                            "storage's %lld elements",
                            (long long)offset, (long long)avail);
        return th__fail(TH_ERR_RANGE, fn,
                        "offset %lld with these sizes and strides addresses elements %lld..%lld, outside the "
                        "storage's %lld elements",
                        (long long)offset, (long long)first, (long long)last, (long long)avail);
    }
    return TH_OK;
}

static th_tensor *th__tensor_new_with_storage(const char *fn, th_dtype dtype, th_storage *storage, int64_t offset,
                                              int ndim, const int64_t *sizes, const int64_t *strides)
{
    if (!storage) {
        th__fail(TH_ERR_INVALID, fn, "NULL storage");
        return NULL;
    }
    int64_t numel;
    if (th__check_sizes(fn, ndim, sizes, &numel)) return NULL;
    int64_t contiguous[TH_MAX_DIMS];
    if (!strides) {
        th__contiguous_strides(ndim, sizes, contiguous);
        strides = contiguous;
    }
    if (th__check_in_storage(fn, dtype, storage, offset, ndim, sizes, strides, numel)) return NULL;
    return th__tensor_make(fn, dtype, storage, offset, ndim, sizes, strides);
}

TH_API th_tensor *th_tensor_new_with_storage(th_dtype dtype, th_storage *storage, int64_t offset, int ndim,
                                             const int64_t *sizes, const int64_t *strides)
{
    const char *fn = "th_tensor_new_with_storage";
    if (!th__dtype_valid(dtype) || !th__dtype_traits[dtype].stamped) {
        th__fail(TH_ERR_DTYPE, fn, "dtype %d is not a dtype compiled into this build", (int)dtype);
        return NULL;
    }
    return th__tensor_new_with_storage(fn, dtype, storage, offset, ndim, sizes, strides);
}

/* The address of the lowest element (lo elements of es bytes from first) and the byte size of the range up to
 * the highest (hi), checked to lie inside the address space: a producer's strides can claim anything. */
static int th__address_range(const char *fn, const char *first, int64_t lo, int64_t hi, int64_t es, char **start,
                             int64_t *nbytes)
{
    uintptr_t base = (uintptr_t)first;
    /* Unsigned: lo <= 0 <= hi each fit int64, their difference need not. */
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    if (span >= (uint64_t)INT64_MAX / (uint64_t)es)
        return th__fail(TH_ERR_OVERFLOW, fn, "the tensor's byte size overflows int64");
    uint64_t below = (0u - (uint64_t)lo) * (uint64_t)es, above = ((uint64_t)hi + 1u) * (uint64_t)es;
    if (below > base || above > UINTPTR_MAX - base)
        return th__fail(TH_ERR_OVERFLOW, fn, "the sizes and strides address memory outside the address space");
    *start = (char *)(base - (uintptr_t)below);
    *nbytes = (hi - lo + 1) * es;
    return TH_OK;
}

static th_tensor *th__tensor_from_blob(const char *fn, th_dtype dtype, void *data, int ndim, const int64_t *sizes,
                                       const int64_t *strides, th_deleter deleter, void *deleter_ctx)
{
    int64_t numel;
    if (th__check_sizes(fn, ndim, sizes, &numel)) return NULL;
    if (!data && numel > 0) {
        th__fail(TH_ERR_INVALID, fn, "NULL data for %lld elements", (long long)numel);
        return NULL;
    }
    int64_t contiguous[TH_MAX_DIMS];
    if (!strides) {
        th__contiguous_strides(ndim, sizes, contiguous);
        strides = contiguous;
    }
    int64_t lo = 0, hi = -1;
    if (numel > 0 && th__extent(fn, ndim, sizes, strides, &lo, &hi)) return NULL;
    /* The storage starts at the lowest addressed element, which is below data for negative strides. */
    char *start = (char *)data;
    int64_t nbytes = 0;
    if (numel > 0 &&
        th__address_range(fn, (char *)data, lo, hi, (int64_t)th__dtype_traits[dtype].size, &start, &nbytes))
        return NULL;
    th_storage *s = th__storage_wrap(fn, start, nbytes, th__cpu_device, deleter, data, deleter_ctx);
    if (!s) return NULL;
    th_tensor *t = th__tensor_make(fn, dtype, s, -lo, ndim, sizes, strides);
    if (!t) {
        s->deleter = NULL; /* on error the caller keeps the blob: do not run its deleter */
    }
    th_storage_release(s);
    return t;
}

/* ---- tensors: access ---- */

TH_API th_tensor *th_tensor_retain(th_tensor *t)
{
    if (t) atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
    return t;
}

TH_API void th_tensor_release(th_tensor *t)
{
    if (!t) return;
    /* A count of 1 seen by a holder means no other thread holds a reference, and a tensor has no weak ones
     * (unlike a storage: th_storage_try_retain), so none can race us: the common case (a temporary) skips
     * the locked decrement. */
    if (atomic_load_explicit(&t->refcount, memory_order_acquire) != 1 &&
        atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) != 1)
        return;
    th_storage_release(t->storage);
    th__header_free(t);
}

TH_API th_dtype th_tensor_dtype(const th_tensor *t) { return t ? t->dtype : TH_DTYPE_INVALID; }
TH_API int th_tensor_ndim(const th_tensor *t) { return t ? t->ndim : 0; }
TH_API const int64_t *th_tensor_sizes(const th_tensor *t) { return t ? t->sizes : NULL; }
TH_API const int64_t *th_tensor_strides(const th_tensor *t) { return t ? t->strides : NULL; }
TH_API int64_t th_tensor_numel(const th_tensor *t) { return t ? th__numel(t) : 0; }
TH_API th_storage *th_tensor_storage(const th_tensor *t) { return t ? t->storage : NULL; }
TH_API int64_t th_tensor_offset(const th_tensor *t) { return t ? t->offset : 0; }

TH_API void *th_tensor_data(const th_tensor *t)
{
    if (!t || !t->storage->data) return NULL;
    return (char *)t->storage->data + t->offset * (int64_t)th__elsize(t);
}

TH_API bool th_tensor_is_contiguous(const th_tensor *t)
{
    if (!t) return false;
    if (th__numel(t) == 0) return true;
    int64_t expected = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->sizes[d] == 0) return true;
        if (t->sizes[d] == 1) continue; /* the stride of a size-1 dim never matters */
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d];
    }
    return true;
}

static int64_t th__size(const char *fn, const th_tensor *t, int dim)
{
    if (!t) {
        th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        return -1;
    }
    int d = 0;
    if (t->ndim == 0) {
        th__fail(TH_ERR_RANGE, fn, "a 0-d tensor has no dim %d", dim);
        return -1;
    }
    if (th__wrap_dim(fn, dim, t->ndim, &d)) return -1;
    return t->sizes[d];
}

static int64_t th__stride(const char *fn, const th_tensor *t, int dim)
{
    if (!t) {
        th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        return 0;
    }
    int d = 0;
    if (t->ndim == 0) {
        th__fail(TH_ERR_RANGE, fn, "a 0-d tensor has no dim %d", dim);
        return 0;
    }
    if (th__wrap_dim(fn, dim, t->ndim, &d)) return 0;
    return t->strides[d];
}

/* A storage can be resized under its tensors: before touching elements, check the tensor still fits. */
/* The lowest and highest element offset a tensor addresses, relative to its first element. Every tensor's
 * span was checked against overflow (th__extent) when it was made, so plain arithmetic is safe here. */
static void th__span(const th_tensor *t, int64_t *lo, int64_t *hi)
{
    int64_t l = 0, h = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] <= 1) continue;
        int64_t span = (t->sizes[d] - 1) * t->strides[d];
        if (span > 0) h += span; else l += span;
    }
    *lo = l;
    *hi = h;
}

static int th__check_fits(const char *fn, const th_tensor *t)
{
    if (th__numel(t) == 0) return TH_OK;
    int64_t lo, hi;
    th__span(t, &lo, &hi);
    int64_t avail = t->storage->nbytes / (int64_t)th__elsize(t);
    if (t->offset + lo < 0 || t->offset + hi >= avail)
        return th__fail(TH_ERR_RANGE, fn, "the tensor addresses elements %lld..%lld but its storage now holds %lld",
                        (long long)(t->offset + lo), (long long)(t->offset + hi), (long long)avail);
    return TH_OK;
}

/* t can be read element by element through its strides: not NULL, host memory, inside its storage. */
TH__MAYBE_UNUSED static int th__check_readable(const char *fn, const th_tensor *t)
{
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "the tensor is on device type %d, which the host cannot touch",
                        (int)t->storage->device.type);
    return th__check_fits(fn, t);
}

/* The element offset (into the storage) of idx, with negative indices counting from the end. */
static int th__element_offset(const char *fn, const th_tensor *t, const int64_t *idx, int64_t *out)
{
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    if (t->ndim > 0 && !idx) return th__fail(TH_ERR_INVALID, fn, "NULL index for a %d-d tensor", t->ndim);
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "the tensor is on device type %d, which the host cannot touch",
                        (int)t->storage->device.type);
    int64_t off = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        int64_t i = idx[d] < 0 ? idx[d] + t->sizes[d] : idx[d];
        if (i < 0 || i >= t->sizes[d])
            return th__fail(TH_ERR_RANGE, fn, "index %lld is out of range for dim %d of size %lld",
                            (long long)idx[d], d, (long long)t->sizes[d]);
        off += i * t->strides[d];
    }
    if (off >= t->storage->nbytes / (int64_t)th__elsize(t))
        return th__fail(TH_ERR_RANGE, fn, "element %lld is past the end of the storage's %lld elements (was it resized?)",
                        (long long)off, (long long)(t->storage->nbytes / (int64_t)th__elsize(t)));
    *out = off;
    return TH_OK;
}

#endif /* TH__DEFINING */
