/* core/dlpack.h: DLPack export and import: zero-copy exchange with NumPy, PyTorch and JAX.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/dlpack.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* DLPack is how tensors cross into other frameworks (NumPy, PyTorch, JAX) without a copy. It needs
 * <dlpack/dlpack.h> (Debian: libdlpack-dev); without it, or with TH_NO_DLPACK, this part is left out and
 * TH_HAS_DLPACK stays undefined. A header older than 1.0 (Debian's is 0.6) lacks the versioned struct: it is
 * declared here, ABI-identical (checked below). */
#if !defined(TH_NO_DLPACK) && defined(__has_include)
#if __has_include(<dlpack/dlpack.h>)
#include <dlpack/dlpack.h>
#define TH_HAS_DLPACK 1
#endif
#endif

#ifdef TH_HAS_DLPACK
#ifndef DLPACK_MAJOR_VERSION
typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
};
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << UINT64_C(0))
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << UINT64_C(1))
#define TH_DLPACK_HEADER_MAJOR 0
#else
#define TH_DLPACK_HEADER_MAJOR DLPACK_MAJOR_VERSION
#endif

#ifdef __cplusplus
#define TH__STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define TH__STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
#if UINTPTR_MAX == UINT64_MAX
TH__STATIC_ASSERT(sizeof(DLTensor) == 48 && offsetof(DLTensor, byte_offset) == 40, "DLTensor layout");
TH__STATIC_ASSERT(sizeof(DLManagedTensor) == 64 && offsetof(DLManagedTensor, deleter) == 56, "DLManagedTensor layout");
TH__STATIC_ASSERT(sizeof(struct DLManagedTensorVersioned) == 80 &&
                      offsetof(struct DLManagedTensorVersioned, manager_ctx) == 8 &&
                      offsetof(struct DLManagedTensorVersioned, deleter) == 16 &&
                      offsetof(struct DLManagedTensorVersioned, flags) == 24 &&
                      offsetof(struct DLManagedTensorVersioned, dl_tensor) == 32,
                  "DLManagedTensorVersioned layout");
#endif

/* The highest DLPack major version this build reads and writes. */
#define TH_DLPACK_MAJOR 1
#define TH_DLPACK_MINOR 0

/* Export: a managed tensor over t's memory (no copy) that keeps t's storage alive until its deleter runs.
 * The deleter releases exactly what the export retained, once, from any thread. Shape and strides live as
 * long as the managed tensor; strides are always filled (ndim > 0); the element offset is folded into data
 * (byte_offset is 0). The versioned form is DLPack 1.0 with READ_ONLY set for read-only storage and
 * IS_COPIED never set. NULL on error (NULL tensor, out of memory). Works for any device. */
TH_API DLManagedTensor *th_tensor_to_dlpack(th_tensor *t);
TH_API struct DLManagedTensorVersioned *th_tensor_to_dlpack_versioned(th_tensor *t);

/* Import, without a copy, a managed tensor of any dtype. OWNERSHIP: the import always takes ownership of
 * managed: on success the producer's deleter runs exactly once, when the last tensor or view over the memory
 * is released; on ANY error it has already run when the import returns NULL (so a caller never calls it).
 * Honours byte_offset, NULL strides (compact row-major), 0-d and zero-size tensors, zero and negative
 * strides, and READ_ONLY (the import's storage is read-only). CPU, CUDA pinned (kDLCUDAHost) and managed
 * memory import as host memory; CUDA device memory imports as a CUDA tensor once the cuda/ companion has
 * registered its check (th_register_device_memory_check), which confirms the memory is on that device; other
 * devices, and CUDA memory without the companion, are refused with TH_ERR_DEVICE. Errors: NULL managed tensor, NULL data with elements, ndim outside 0..TH_MAX_DIMS, NULL
 * shape with ndim > 0, negative sizes, size times stride overflow, lanes != 1, an unknown dtype code or
 * width, a dtype not compiled in, a versioned major version other than 1. */
TH_API th_tensor *th_tensor_from_dlpack(DLManagedTensor *managed);
TH_API th_tensor *th_tensor_from_dlpack_versioned(struct DLManagedTensorVersioned *managed);
/* The dtype of a DLPack data type; TH_ERR_DTYPE for lanes != 1 or a code and width we have no dtype for. */
TH_API int th_dtype_from_dlpack(DLDataType type, th_dtype *out);
#endif /* TH_HAS_DLPACK */

#else /* TH__DEFINING */

#if !defined(TH_HAS_DLPACK) && !defined(TH_NO_DLPACK) && defined(__GNUC__) && !defined(__clang__)
#pragma message("tensor.h: <dlpack/dlpack.h> was not found, so DLPack exchange is left out (install libdlpack-dev, or define TH_NO_DLPACK to say you know)")
#endif

#ifdef TH_HAS_DLPACK

static int th__dtype_from_dlpack(const char *fn, DLDataType type, th_dtype *out)
{
    if (type.lanes != 1)
        return th__fail(TH_ERR_DTYPE, fn, "%u lanes: only scalar elements (lanes 1) have a dtype", (unsigned)type.lanes);
    for (int d = 0; d < TH_NUM_DTYPES; d++) {
        if (th__dtype_traits[d].dlpack_code == type.code && th__dtype_traits[d].dlpack_bits == type.bits) {
            if (out) *out = (th_dtype)d;
            return TH_OK;
        }
    }
    return th__fail(TH_ERR_DTYPE, fn, "no dtype for DLPack type code %u with %u bits", (unsigned)type.code,
                    (unsigned)type.bits);
}

TH_API int th_dtype_from_dlpack(DLDataType type, th_dtype *out)
{
    return th__dtype_from_dlpack("th_dtype_from_dlpack", type, out);
}

/* One block per export: the managed tensor first, then what it points to. */
typedef struct th__dl_export {
    union {
        DLManagedTensor legacy;
        struct DLManagedTensorVersioned versioned;
    } managed;
    th_tensor *tensor; /* retained by the export */
    int64_t shape[TH_MAX_DIMS];
    int64_t strides[TH_MAX_DIMS];
} th__dl_export;

static void th__dl_export_delete_legacy(DLManagedTensor *self)
{
    th__dl_export *e = (th__dl_export *)self->manager_ctx;
    th_tensor_release(e->tensor);
    free(e);
}

static void th__dl_export_delete_versioned(struct DLManagedTensorVersioned *self)
{
    th__dl_export *e = (th__dl_export *)self->manager_ctx;
    th_tensor_release(e->tensor);
    free(e);
}

static th__dl_export *th__dl_export_new(const char *fn, th_tensor *t, DLTensor *out_of(th__dl_export *))
{
    if (!t) {
        th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        return NULL;
    }
    if (th__check_fits(fn, t)) return NULL;
    if (!t->storage->data && th__numel(t) > 0) {
        th__fail(TH_ERR_INVALID, fn, "the tensor has elements but its storage has no memory");
        return NULL;
    }
    th__dl_export *e = (th__dl_export *)calloc(1, sizeof *e);
    if (!e) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the managed tensor");
        return NULL;
    }
    e->tensor = th_tensor_retain(t);
    DLTensor *dl = out_of(e);
    for (int d = 0; d < t->ndim; d++) {
        e->shape[d] = t->sizes[d];
        e->strides[d] = t->strides[d];
    }
    dl->data = th_tensor_data(t);
    dl->device.device_type = (DLDeviceType)t->storage->device.type;
    dl->device.device_id = t->storage->device.index;
    dl->ndim = t->ndim;
    dl->dtype.code = th__dtype_traits[t->dtype].dlpack_code;
    dl->dtype.bits = th__dtype_traits[t->dtype].dlpack_bits;
    dl->dtype.lanes = 1;
    dl->shape = e->shape;
    dl->strides = e->strides;
    dl->byte_offset = 0;
    return e;
}

static DLTensor *th__dl_legacy_tensor(th__dl_export *e) { return &e->managed.legacy.dl_tensor; }
static DLTensor *th__dl_versioned_tensor(th__dl_export *e) { return &e->managed.versioned.dl_tensor; }

TH_API DLManagedTensor *th_tensor_to_dlpack(th_tensor *t)
{
    th__dl_export *e = th__dl_export_new("th_tensor_to_dlpack", t, th__dl_legacy_tensor);
    if (!e) return NULL;
    DLManagedTensor *m = &e->managed.legacy;
    /* PyTorch 1.13 never calls the deleter of a zero-size tensor whose data is NULL: give it a pointer. */
    if (!m->dl_tensor.data) m->dl_tensor.data = e;
    m->manager_ctx = e;
    m->deleter = th__dl_export_delete_legacy;
    return m;
}

TH_API struct DLManagedTensorVersioned *th_tensor_to_dlpack_versioned(th_tensor *t)
{
    th__dl_export *e = th__dl_export_new("th_tensor_to_dlpack_versioned", t, th__dl_versioned_tensor);
    if (!e) return NULL;
    struct DLManagedTensorVersioned *m = &e->managed.versioned;
    if (th__numel(t) == 0) m->dl_tensor.data = NULL; /* DLPack 1.0: zero-size data should be NULL */
    m->version.major = TH_DLPACK_MAJOR;
    m->version.minor = TH_DLPACK_MINOR;
    m->manager_ctx = e;
    m->deleter = th__dl_export_delete_versioned;
    m->flags = th_storage_is_read_only(t->storage) ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    return m;
}

/* The storage's deleter: hands the memory back to the producer. */
static void th__dl_import_release_legacy(void *data, void *ctx)
{
    (void)data;
    DLManagedTensor *m = (DLManagedTensor *)ctx;
    if (m->deleter) m->deleter(m);
}

static void th__dl_import_release_versioned(void *data, void *ctx)
{
    (void)data;
    struct DLManagedTensorVersioned *m = (struct DLManagedTensorVersioned *)ctx;
    if (m->deleter) m->deleter(m);
}

/* Checks dl and makes a tensor over its memory; on success the storage owns the managed tensor (through
 * release and ctx), on error the caller runs the deleter. */
static th_tensor *th__dl_import(const char *fn, const DLTensor *dl, bool read_only, th_deleter release, void *ctx,
                                int want_dtype)
{
    if (dl->ndim < 0 || dl->ndim > TH_MAX_DIMS) {
        th__fail(TH_ERR_RANGE, fn, "ndim %d is outside 0..%d (TH_MAX_DIMS)", (int)dl->ndim, TH_MAX_DIMS);
        return NULL;
    }
    const int ndim = (int)dl->ndim;
    if (ndim > 0 && !dl->shape) {
        th__fail(TH_ERR_INVALID, fn, "NULL shape for ndim %d", ndim);
        return NULL;
    }
    th_dtype dtype = TH_F32; /* set by th__dtype_from_dlpack when it succeeds; gcc -O3 cannot see that */
    if (th__dtype_from_dlpack(fn, dl->dtype, &dtype)) return NULL;
    if (want_dtype >= 0 && (int)dtype != want_dtype) {
        th__fail(TH_ERR_DTYPE, fn, "the managed tensor holds %s, not %s", th_dtype_name(dtype),
                 th_dtype_name((th_dtype)want_dtype));
        return NULL;
    }
    if (!th__kernels_of(dtype)) {
        th__fail(TH_ERR_DTYPE, fn, "dtype %s is not compiled into this build (see TH_SELECT_DTYPES)",
                 th_dtype_name(dtype));
        return NULL;
    }
    th_device device = {(int32_t)dl->device.device_type, (int32_t)dl->device.device_id};
    th_device_memory_check check = th_device_is_host(device) ? NULL : th__device_check(device);
    if (!th_device_is_host(device) && !check) {
        if (device.type == TH_DEVICE_CUDA)
            th__fail(TH_ERR_DEVICE, fn, "CUDA device memory (device %d) cannot be imported: the CUDA companion "
                     "(th_cuda) is not linked in or not initialised, and the host cannot touch it", (int)device.index);
        else
            th__fail(TH_ERR_DEVICE, fn, "DLPack device type %d is not memory this build can touch", (int)device.type);
        return NULL;
    }
    int64_t numel;
    if (th__check_sizes(fn, ndim, ndim > 0 ? dl->shape : NULL, &numel)) return NULL;
    int64_t strides[TH_MAX_DIMS];
    if (dl->strides && ndim > 0)
        memcpy(strides, dl->strides, (size_t)ndim * sizeof *strides);
    else
        th__contiguous_strides(ndim, dl->shape, strides);
    char *first = (char *)dl->data;
    if (numel > 0) {
        if (!first) {
            th__fail(TH_ERR_INVALID, fn, "NULL data for %lld elements", (long long)numel);
            return NULL;
        }
        if (dl->byte_offset > UINTPTR_MAX - (uintptr_t)first) {
            th__fail(TH_ERR_OVERFLOW, fn, "byte_offset %llu runs past the end of the address space",
                     (unsigned long long)dl->byte_offset);
            return NULL;
        }
        first = (char *)((uintptr_t)first + (uintptr_t)dl->byte_offset);
    }
    int64_t lo = 0, hi = -1;
    if (numel > 0 && th__extent(fn, ndim, dl->shape, strides, &lo, &hi)) return NULL;
    char *start = NULL;
    int64_t nbytes = 0;
    if (numel > 0 && th__address_range(fn, first, lo, hi, (int64_t)th__dtype_traits[dtype].size, &start, &nbytes))
        return NULL;
    if (check && numel > 0 && check(fn, device, start, nbytes)) return NULL;
    th_storage *s = th__storage_wrap(fn, start, nbytes, device, release, dl->data, ctx);
    if (!s) return NULL;
    if (read_only) s->flags |= TH__STORAGE_READ_ONLY;
    th_tensor *t = th__tensor_make(fn, dtype, s, numel > 0 ? -lo : 0, ndim, ndim > 0 ? dl->shape : NULL, strides);
    if (!t) s->deleter = NULL; /* the caller runs the producer's deleter on error */
    th_storage_release(s);
    return t;
}

static th_tensor *th__from_dlpack(const char *fn, DLManagedTensor *m, int want_dtype)
{
    if (!m) {
        th__fail(TH_ERR_INVALID, fn, "NULL managed tensor");
        return NULL;
    }
    th_tensor *t = th__dl_import(fn, &m->dl_tensor, false, th__dl_import_release_legacy, m, want_dtype);
    if (!t && m->deleter) m->deleter(m);
    return t;
}

static th_tensor *th__from_dlpack_versioned(const char *fn, struct DLManagedTensorVersioned *m, int want_dtype)
{
    if (!m) {
        th__fail(TH_ERR_INVALID, fn, "NULL managed tensor");
        return NULL;
    }
    th_tensor *t = NULL;
    if (m->version.major != TH_DLPACK_MAJOR)
        th__fail(TH_ERR_UNSUPPORTED, fn, "DLPack major version %u (this build reads %d)", (unsigned)m->version.major,
                 TH_DLPACK_MAJOR);
    else
        t = th__dl_import(fn, &m->dl_tensor, (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0,
                          th__dl_import_release_versioned, m, want_dtype);
    if (!t && m->deleter) m->deleter(m);
    return t;
}

TH_API th_tensor *th_tensor_from_dlpack(DLManagedTensor *managed)
{
    return th__from_dlpack("th_tensor_from_dlpack", managed, -1);
}

TH_API th_tensor *th_tensor_from_dlpack_versioned(struct DLManagedTensorVersioned *managed)
{
    return th__from_dlpack_versioned("th_tensor_from_dlpack_versioned", managed, -1);
}
#endif /* TH_HAS_DLPACK */

#endif /* TH__DEFINING */
