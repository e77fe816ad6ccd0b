/* tensor.h: a header-only C11 tensor library in the lineage of TH.
 *
 * One include gives strided, refcounted tensors of twelve dtypes over untyped, refcounted storages whose
 * memory comes from pluggable allocators. Per-dtype code is stamped from one generic file,
 * tensor_generic.h, through the generator headers in generate/, the way TH stamped TH_GENERIC_FILE.
 *
 * USE
 *   In exactly one C file:      #define TH_IMPLEMENTATION
 *                               #include "tensor.h"
 *   Everywhere else (C or C++): #include "tensor.h"            (declarations only: compiles fast)
 *   Or, for a private copy:     #define TH_STATIC                 (every function static in this file)
 *                               #include "tensor.h"
 *   Link with -lm. The implementation must be compiled as C (C11 or later); C++ sees the declarations.
 *
 * COMPILE-TIME OPTIONS (define before the include)
 *   TH_SELECT_DTYPES + TH_WANT_<ENUM>   stamp only these dtypes (default: all); see generate/select.h
 *   TH_MAX_DIMS                          the most dims a tensor may have (default 16)
 *   TH_NO_HUGE_PAGES                     never ask the kernel for transparent huge pages
 *
 * EXAMPLE
 *   int64_t sizes[2] = {2, 3};
 *   th_f32_tensor *a = th_f32_full(2, sizes, 1.5f);     // 2x3, every element 1.5
 *   th_f32_tensor *t = th_f32_transpose(a, 0, 1);       // 3x2 view over the same storage
 *   th_f32_set(t, (int64_t[]){2, 1}, 7.0f);             // writes a[1][2]
 *   th_f32_print(stdout, a);
 *   th_f32_release(t);
 *   th_f32_release(a);
 *
 * ERRORS
 *   Library code never aborts, exits or prints on a user error. Functions that return a pointer return
 *   NULL, functions that return int return a negative th_status, and th_last_error() gives a thread-local
 *   message naming the function and the bad value. Functions that return a value (th_f32_get,
 *   th_f32_numel, ...) say in their comment what they return on error.
 *
 * NAMES
 *   th_<sfx>_<verb> for every dtype suffix (bool u8 i8 i16 i32 i64 f16 bf16 f32 f64 c64 c128); the
 *   one generic definition of th_f32_narrow is TH_NAME(narrow) in tensor_generic.h. docs/names.txt lists
 *   every public name. th__ and TH__ are private.
 *
 * Licence: MIT (see LICENSE). */
#ifndef TENSOR_H
#define TENSOR_H

#define TH_VERSION_MAJOR 0
#define TH_VERSION_MINOR 1
#define TH_VERSION_PATCH 0

#if defined(TH_STATIC) && !defined(TH_IMPLEMENTATION)
#define TH_IMPLEMENTATION
#endif
#if defined(TH_IMPLEMENTATION) && defined(__cplusplus)
#error "tensor.h: compile the TH_IMPLEMENTATION translation unit as C (C11); C++ files include tensor.h without it"
#endif
#if !defined(__cplusplus) && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L)
#error "tensor.h needs C11 or later (-std=c11)"
#endif

#ifndef TH_MAX_DIMS
#define TH_MAX_DIMS 16
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#ifdef TH_STATIC
#if defined(__GNUC__)
#define TH_API static __attribute__((unused))
#else
#define TH_API static
#endif
#else
#define TH_API extern
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ==== th: element types ==================================================================== */

/* float16 (IEEE binary16) and bfloat16 are stored as their 16 bits; arithmetic converts to float.
 * The struct keeps the ABI the same in C and C++ whatever the compiler knows about _Float16. */
typedef struct th_float16 { uint16_t bits; } th_float16;
typedef struct th_bfloat16 { uint16_t bits; } th_bfloat16;

#ifdef __cplusplus
/* C++ has no _Complex. Two-member structs of float or double have the same layout and are passed and
 * returned in the same registers as C's complex types (x86-64 SysV and AArch64 alike); their layout is also
 * that of std::complex, so a C++ caller may reinterpret one as the other. */
typedef struct th_complex64 { float re, im; } th_complex64;
typedef struct th_complex128 { double re, im; } th_complex128;
#else
typedef float _Complex th_complex64;
typedef double _Complex th_complex128;
#endif

/* Correctly rounded (round to nearest, ties to even) conversions; NaN stays NaN, infinities stay infinite. */
TH_API float th_float16_to_float(th_float16 h);
TH_API th_float16 th_float16_from_float(float f);
TH_API th_float16 th_float16_from_double(double d);
TH_API float th_bfloat16_to_float(th_bfloat16 h);
TH_API th_bfloat16 th_bfloat16_from_float(float f);
TH_API th_bfloat16 th_bfloat16_from_double(double d);

/* ==== th: dtypes =========================================================================== */

#include "generate/dtypes.h"
#include "generate/select.h"

typedef enum th_dtype {
    TH_DTYPE_INVALID = -1, /* what th_tensor_dtype(NULL) returns */
#define TH__X(sfx, ENUM, elem, acc, kind, code, bits) TH_##ENUM,
    TH_FOREACH_DTYPE(TH__X)
#undef TH__X
    TH_NUM_DTYPES
} th_dtype;

typedef enum th_dtype_kind {
    TH_KIND_BOOL,
    TH_KIND_UINT,
    TH_KIND_INT,
    TH_KIND_FLOAT,
    TH_KIND_COMPLEX
} th_dtype_kind;

/* What the library knows about a dtype, whether or not it was stamped in this build. */
typedef struct th_dtype_traits {
    const char *name;      /* "f32": the name suffix */
    size_t size;           /* bytes per element */
    th_dtype_kind kind;
    uint8_t dlpack_code;   /* DLPack's DLDataTypeCode */
    uint8_t dlpack_bits;
    bool stamped;          /* compiled into this build (see TH_SELECT_DTYPES) */
} th_dtype_traits;

/* The traits of dtype, or NULL (with an error recorded) for a value that is no th_dtype. */
TH_API const th_dtype_traits *th_dtype_info(th_dtype dtype);
/* The name suffix ("f32"), or "?" for a value that is no th_dtype. */
TH_API const char *th_dtype_name(th_dtype dtype);

/* ==== th: errors =========================================================================== */

typedef enum th_status {
    TH_OK = 0,
    TH_ERR_INVALID = -1,     /* a bad argument: NULL where an object is needed, a negative size, ... */
    TH_ERR_NOMEM = -2,       /* an allocator failed */
    TH_ERR_RANGE = -3,       /* an index, dim or range outside its bounds */
    TH_ERR_SHAPE = -4,       /* shapes or strides that do not fit together */
    TH_ERR_DTYPE = -5,       /* a dtype that does not fit, or was not compiled in */
    TH_ERR_DEVICE = -6,      /* memory on a device this build cannot touch */
    TH_ERR_OVERFLOW = -7,    /* an element count or byte size that overflows */
    TH_ERR_UNSUPPORTED = -8, /* an operation the object does not allow (resizing a wrapped blob, ...) */
    TH_ERR_READ_ONLY = -9,   /* a write to read-only memory */
    TH_ERR_IO = -10          /* a stream that could not be written */
} th_status;

/* The message of the last error on this thread ("" if none since th_clear_error). Valid until the
 * next error on this thread. */
TH_API const char *th_last_error(void);
/* The status of the last error on this thread (TH_OK if none since th_clear_error). */
TH_API th_status th_last_status(void);
TH_API void th_clear_error(void);
/* "TH_ERR_RANGE" and so on; "TH_ERR_?" for an unknown value. */
TH_API const char *th_status_name(th_status status);
/* Records an error as the library does ("fn: message", the hook called) and returns status: for companions
 * (shm/, cuda/) and extensions built on tensor.h, so their errors reach th_last_error too. */
TH_API int th_set_error(th_status status, const char *fn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Called, on the thread that hit it, for every error the library records. */
typedef struct th_error_hook {
    void (*on_error)(th_status status, const char *message, void *ctx);
    void *ctx;
} th_error_hook;
/* Installs hook for the whole process (NULL removes it) and returns the previous one. A thread that failed
 * just before the swap may still be inside the old hook: keep a hook (and its ctx) alive as long as any
 * thread that may have seen it can run. */
TH_API const th_error_hook *th_set_error_hook(const th_error_hook *hook);

/* ==== th: devices and allocators =========================================================== */

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
 * cheaper to fault in. Its context is unused (pass NULL). */
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

/* ==== th: storage ========================================================================== */

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

/* ==== th: dtype-erased tensors ============================================================= */

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
/* Copies src into dst converting between any two dtypes; src broadcasts to dst's shape; any strides, and
 * src may overlap dst. Conversions: to bool, nonzero (NaN included) is true; floating to integer
 * truncates toward zero, saturates at the integer's range, NaN gives 0; integer to a narrower integer
 * wraps modulo 2^bits; complex to real keeps the real part; everything else rounds to nearest even.
 * Errors: shapes that do not broadcast, a dst whose elements overlap (a stride-0 dim), device memory,
 * a dtype not compiled in. */
TH_API int th_tensor_copy(th_tensor *dst, const th_tensor *src);
/* Prints like "tensor([[1., 2.],\n        [3., 4.]], dtype=f32)"; more than 1000 elements are
 * summarised with "...". Returns 0, or a negative status (NULL arguments, device memory, a write error). */
TH_API int th_tensor_print(FILE *f, const th_tensor *t);

/* ==== th: threads ========================================================================== */

/* Built with OpenMP (-fopenmp; the Meson option openmp), ops split loops of more than 64K elements across
 * threads. Results do not depend on the thread count except where floating-point sums are split: those
 * are deterministic for a given count. th_set_num_threads sets the count for ops started from the calling
 * thread (it is OpenMP's per-thread setting); n < 1 counts as 1. Without OpenMP both are no-ops and the
 * count is 1. */
TH_API void th_set_num_threads(int n);
TH_API int th_get_num_threads(void);

/* ==== th: DLPack =========================================================================== */

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
 * memory import as host memory; other devices are refused with TH_ERR_DEVICE (CUDA device memory waits for
 * the CUDA companion). Errors: NULL managed tensor, NULL data with elements, ndim outside 0..TH_MAX_DIMS, NULL
 * shape with ndim > 0, negative sizes, size times stride overflow, lanes != 1, an unknown dtype code or
 * width, a dtype not compiled in, a versioned major version other than 1. */
TH_API th_tensor *th_tensor_from_dlpack(DLManagedTensor *managed);
TH_API th_tensor *th_tensor_from_dlpack_versioned(struct DLManagedTensorVersioned *managed);
/* The dtype of a DLPack data type; TH_ERR_DTYPE for lanes != 1 or a code and width we have no dtype for. */
TH_API int th_dtype_from_dlpack(DLDataType type, th_dtype *out);
#endif /* TH_HAS_DLPACK */

/* ==== th: per-dtype types and functions (stamped) ========================================== */

#define TH__X(sfx, ENUM, elem, acc, kind, code, bits) \
    typedef elem th_##sfx##_elem;                     \
    typedef acc th_##sfx##_acc;                       \
    typedef struct th_##sfx##_tensor th_##sfx##_tensor;
TH_FOREACH_DTYPE(TH__X)
#undef TH__X

/* The dtype-independent parts of the op families (types such as the random generator, and the engine
 * pieces that are not per dtype): each file declares here and defines in the implementation below. */
#include "generate/ops/pointwise_erased.h"
#include "generate/ops/shape_erased.h"
#include "generate/ops/index_erased.h"
#include "generate/ops/reduce_erased.h"
#include "generate/ops/random_erased.h"
#include "generate/ops/vecmath_erased.h"
#include "generate/ops/linalg_erased.h"

#define TH__DECLARE_ONLY
#define TH_GENERIC_FILE "../tensor_generic.h"
#include "generate/all.h"
#undef TH__DECLARE_ONLY

#ifdef __cplusplus
}
#endif

/* ==== th: the _Generic front end (C only) ================================================== */

#if !defined(__cplusplus)
/* th_numel(t) calls th_f32_numel(t) for a th_f32_tensor *, and so on. Tensor types of dtypes that were
 * not stamped are left out, so passing one is a compile error. */
/* Each entry pastes the suffix at once: bool is a macro (stdbool.h) and must not expand first. */
#define TH__ENTRY(IF, T, F) IF(, T * : F)
#define TH__ENTRY_CONST(IF, T, F) IF(, T * : F, const T * : F)
#define TH__X_NUMEL(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_numel)
#define TH__X_NDIM(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_ndim)
#define TH__X_SIZE(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_size)
#define TH__X_STRIDE(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_stride)
#define TH__X_DATA(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_data)
#define TH__X_BASE(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_base)
#define TH__X_IS_CONTIGUOUS(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_is_contiguous)
#define TH__X_PRINT(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_print)
#define TH__X_GET(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_get)
#define TH__X_CLONE(sfx, ...) TH__ENTRY_CONST(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_clone)
#define TH__X_RETAIN(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_retain)
#define TH__X_RELEASE(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_release)
#define TH__X_SET(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_set)
#define TH__X_FILL(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_fill)
#define TH__X_COPY(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_copy)
#define TH__X_CONTIGUOUS(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_contiguous)
#define TH__X_VIEW(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_view)
#define TH__X_RESHAPE(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_reshape)
#define TH__X_TRANSPOSE(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_transpose)
#define TH__X_PERMUTE(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_permute)
#define TH__X_NARROW(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_narrow)
#define TH__X_SELECT(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_select)
#define TH__X_UNFOLD(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_unfold)
#define TH__X_SQUEEZE(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_squeeze)
#define TH__X_SQUEEZE_DIM(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_squeeze_dim)
#define TH__X_UNSQUEEZE(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_unsqueeze)
#define TH__X_EXPAND(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_expand)
#define TH__X_AS_STRIDED(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_as_strided)
#define TH__X_FLATTEN(sfx, ...) TH__ENTRY(TH__IF_##sfx, th_##sfx##_tensor, th_##sfx##_flatten)

/* The math ops exist for some kinds only: TH__WHEN(PRED, kind, ...) keeps its arguments when the dtype's
 * kind satisfies PRED (NUM: all but bool; ORDERED: integer and floating; REAL: all but complex; FLOAT:
 * floating; FLOATLIKE: floating and complex; ALL). */
#define TH__WHEN(pred, kind, ...) TH__WHEN_##pred##_##kind(__VA_ARGS__)
#define TH__WHEN_NUM_TH_KIND_BOOL(...)
#define TH__WHEN_NUM_TH_KIND_UINT(...) __VA_ARGS__
#define TH__WHEN_NUM_TH_KIND_INT(...) __VA_ARGS__
#define TH__WHEN_NUM_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_NUM_TH_KIND_COMPLEX(...) __VA_ARGS__
#define TH__WHEN_ORDERED_TH_KIND_BOOL(...)
#define TH__WHEN_ORDERED_TH_KIND_UINT(...) __VA_ARGS__
#define TH__WHEN_ORDERED_TH_KIND_INT(...) __VA_ARGS__
#define TH__WHEN_ORDERED_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_ORDERED_TH_KIND_COMPLEX(...)
#define TH__WHEN_FLOATLIKE_TH_KIND_BOOL(...)
#define TH__WHEN_FLOATLIKE_TH_KIND_UINT(...)
#define TH__WHEN_FLOATLIKE_TH_KIND_INT(...)
#define TH__WHEN_FLOATLIKE_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_FLOATLIKE_TH_KIND_COMPLEX(...) __VA_ARGS__
#define TH__WHEN_FLOAT_TH_KIND_BOOL(...)
#define TH__WHEN_FLOAT_TH_KIND_UINT(...)
#define TH__WHEN_FLOAT_TH_KIND_INT(...)
#define TH__WHEN_FLOAT_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_FLOAT_TH_KIND_COMPLEX(...)
#define TH__WHEN_REAL_TH_KIND_BOOL(...) __VA_ARGS__
#define TH__WHEN_REAL_TH_KIND_UINT(...) __VA_ARGS__
#define TH__WHEN_REAL_TH_KIND_INT(...) __VA_ARGS__
#define TH__WHEN_REAL_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_REAL_TH_KIND_COMPLEX(...)
#define TH__WHEN_ALL_TH_KIND_BOOL(...) __VA_ARGS__
#define TH__WHEN_ALL_TH_KIND_UINT(...) __VA_ARGS__
#define TH__WHEN_ALL_TH_KIND_INT(...) __VA_ARGS__
#define TH__WHEN_ALL_TH_KIND_FLOAT(...) __VA_ARGS__
#define TH__WHEN_ALL_TH_KIND_COMPLEX(...) __VA_ARGS__
/* One row per op: the predicate and the verb. The entry takes const tensors (the inputs of a math op);
 * an in-place op's first argument is written, so its entry takes only non-const tensors. The row pastes
 * the suffix into IF and th_sfx itself: passed on unpasted, bool would expand to _Bool first. */
#define TH__OP_ENTRY(pred, verb, kind, IF, th_sfx) \
    TH__WHEN(pred, kind, TH__ENTRY_CONST(IF, th_sfx##_tensor, th_sfx##_##verb))
#define TH__OP_ENTRY_MUT(pred, verb, kind, IF, th_sfx) \
    TH__WHEN(pred, kind, TH__ENTRY(IF, th_sfx##_tensor, th_sfx##_##verb))
#define TH__X_ADD(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, add, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ADD_OUT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, add_out, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ADD_INPLACE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY_MUT(NUM, add_inplace, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ADD_SCALAR(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, add_scalar, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SUB(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, sub, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SUB_OUT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, sub_out, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SUB_INPLACE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY_MUT(NUM, sub_inplace, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SUB_SCALAR(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, sub_scalar, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MUL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, mul, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MUL_OUT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, mul_out, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MUL_INPLACE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY_MUT(NUM, mul_inplace, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MUL_SCALAR(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, mul_scalar, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_DIV(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, div, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_DIV_OUT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, div_out, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_DIV_INPLACE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY_MUT(NUM, div_inplace, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_DIV_SCALAR(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, div_scalar, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_POW(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, pow, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_POW_OUT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, pow_out, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_POW_SCALAR(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, pow_scalar, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MAXIMUM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, maximum, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MINIMUM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, minimum, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_EQ(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ALL, eq, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_NE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ALL, ne, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_LT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, lt, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_LE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, le, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_GT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, gt, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_GE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, ge, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_NEG(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, neg, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ABS(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, abs, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_RELU(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ORDERED, relu, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_EXP(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, exp, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_LOG(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, log, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SQRT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, sqrt, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SIN(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, sin, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_COS(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, cos, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_TANH(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, tanh, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SIGMOID(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, sigmoid, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_EXP_OUT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, exp_out, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_EXP_INPLACE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY_MUT(FLOATLIKE, exp_inplace, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_FLOOR(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ORDERED, floor, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_CEIL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ORDERED, ceil, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ROUND(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ORDERED, round, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ISNAN(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, isnan, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ISFINITE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, isfinite, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_WHERE(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ALL, where, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_CLAMP(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ORDERED, clamp, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SUM_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, sum_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SUM_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, sum_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_SUM_DIM_OUT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, sum_dim_out, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_PROD_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, prod_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_PROD_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, prod_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MEAN_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, mean_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MEAN_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, mean_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_VAR_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOAT, var_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_VAR_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOAT, var_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_STD_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOAT, std_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_STD_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOAT, std_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_NORM_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, norm_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_NORM_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(FLOATLIKE, norm_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MAX_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, max_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MAX_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, max_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MIN_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, min_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MIN_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, min_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ARGMAX_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, argmax_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ARGMAX_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, argmax_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ARGMIN_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, argmin_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ARGMIN_DIM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(REAL, argmin_dim, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ALL_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ALL, all_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_ANY_ALL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(ALL, any_all, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_CUMSUM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, cumsum, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_DOT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, dot, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MV(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, mv, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, mm, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_BMM(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, bmm, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MATMUL(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, matmul, kind, TH__IF_##sfx, th_##sfx)
#define TH__X_MATMUL_OUT(sfx, E, el, ac, kind, ...) TH__OP_ENTRY(NUM, matmul_out, kind, TH__IF_##sfx, th_##sfx)

/* The first association is never chosen; it lets every stamped dtype add ", type: function". */
#define TH__DISPATCH(t, X) _Generic((t), struct th__not_a_tensor * : 0 TH_FOREACH_DTYPE(X))

#define th_numel(t) TH__DISPATCH(t, TH__X_NUMEL)(t)
#define th_ndim(t) TH__DISPATCH(t, TH__X_NDIM)(t)
#define th_size(t, dim) TH__DISPATCH(t, TH__X_SIZE)(t, dim)
#define th_stride(t, dim) TH__DISPATCH(t, TH__X_STRIDE)(t, dim)
#define th_data(t) TH__DISPATCH(t, TH__X_DATA)(t)
#define th_base(t) TH__DISPATCH(t, TH__X_BASE)(t)
#define th_is_contiguous(t) TH__DISPATCH(t, TH__X_IS_CONTIGUOUS)(t)
#define th_print(f, t) TH__DISPATCH(t, TH__X_PRINT)(f, t)
#define th_get(t, idx) TH__DISPATCH(t, TH__X_GET)(t, idx)
#define th_retain(t) TH__DISPATCH(t, TH__X_RETAIN)(t)
#define th_release(t) TH__DISPATCH(t, TH__X_RELEASE)(t)
#define th_set(t, idx, value) TH__DISPATCH(t, TH__X_SET)(t, idx, value)
#define th_fill(t, value) TH__DISPATCH(t, TH__X_FILL)(t, value)
#define th_copy(dst, src) TH__DISPATCH(dst, TH__X_COPY)(dst, src)
#define th_clone(t) TH__DISPATCH(t, TH__X_CLONE)(t)
#define th_contiguous(t) TH__DISPATCH(t, TH__X_CONTIGUOUS)(t)
#define th_view(t, ndim, sizes) TH__DISPATCH(t, TH__X_VIEW)(t, ndim, sizes)
#define th_reshape(t, ndim, sizes) TH__DISPATCH(t, TH__X_RESHAPE)(t, ndim, sizes)
#define th_transpose(t, d0, d1) TH__DISPATCH(t, TH__X_TRANSPOSE)(t, d0, d1)
#define th_permute(t, dims) TH__DISPATCH(t, TH__X_PERMUTE)(t, dims)
#define th_narrow(t, dim, start, length) TH__DISPATCH(t, TH__X_NARROW)(t, dim, start, length)
#define th_select(t, dim, index) TH__DISPATCH(t, TH__X_SELECT)(t, dim, index)
#define th_unfold(t, dim, size, step) TH__DISPATCH(t, TH__X_UNFOLD)(t, dim, size, step)
#define th_squeeze(t) TH__DISPATCH(t, TH__X_SQUEEZE)(t)
#define th_squeeze_dim(t, dim) TH__DISPATCH(t, TH__X_SQUEEZE_DIM)(t, dim)
#define th_unsqueeze(t, dim) TH__DISPATCH(t, TH__X_UNSQUEEZE)(t, dim)
#define th_expand(t, ndim, sizes) TH__DISPATCH(t, TH__X_EXPAND)(t, ndim, sizes)
#define th_as_strided(t, ndim, sizes, strides, offset) \
    TH__DISPATCH(t, TH__X_AS_STRIDED)(t, ndim, sizes, strides, offset)
#define th_flatten(t, start_dim, end_dim) TH__DISPATCH(t, TH__X_FLATTEN)(t, start_dim, end_dim)
/* Math: th_add(a, b) is th_f32_add(a, b) for float32 tensors, th_add_out(out, a, b) is th_f32_add_out, and
 * so on: the dtype is read from the first input tensor, a (th_where reads a, not cond). A dtype without the
 * op does not compile. */
#define th_add(a, b) TH__DISPATCH(a, TH__X_ADD)(a, b)
#define th_add_out(out, a, b) TH__DISPATCH(a, TH__X_ADD_OUT)(out, a, b)
#define th_add_inplace(a, b) TH__DISPATCH(a, TH__X_ADD_INPLACE)(a, b)
#define th_add_scalar(a, s) TH__DISPATCH(a, TH__X_ADD_SCALAR)(a, s)
#define th_sub(a, b) TH__DISPATCH(a, TH__X_SUB)(a, b)
#define th_sub_out(out, a, b) TH__DISPATCH(a, TH__X_SUB_OUT)(out, a, b)
#define th_sub_inplace(a, b) TH__DISPATCH(a, TH__X_SUB_INPLACE)(a, b)
#define th_sub_scalar(a, s) TH__DISPATCH(a, TH__X_SUB_SCALAR)(a, s)
#define th_mul(a, b) TH__DISPATCH(a, TH__X_MUL)(a, b)
#define th_mul_out(out, a, b) TH__DISPATCH(a, TH__X_MUL_OUT)(out, a, b)
#define th_mul_inplace(a, b) TH__DISPATCH(a, TH__X_MUL_INPLACE)(a, b)
#define th_mul_scalar(a, s) TH__DISPATCH(a, TH__X_MUL_SCALAR)(a, s)
#define th_div(a, b) TH__DISPATCH(a, TH__X_DIV)(a, b)
#define th_div_out(out, a, b) TH__DISPATCH(a, TH__X_DIV_OUT)(out, a, b)
#define th_div_inplace(a, b) TH__DISPATCH(a, TH__X_DIV_INPLACE)(a, b)
#define th_div_scalar(a, s) TH__DISPATCH(a, TH__X_DIV_SCALAR)(a, s)
#define th_pow(a, b) TH__DISPATCH(a, TH__X_POW)(a, b)
#define th_pow_out(out, a, b) TH__DISPATCH(a, TH__X_POW_OUT)(out, a, b)
#define th_pow_scalar(a, s) TH__DISPATCH(a, TH__X_POW_SCALAR)(a, s)
#define th_maximum(a, b) TH__DISPATCH(a, TH__X_MAXIMUM)(a, b)
#define th_minimum(a, b) TH__DISPATCH(a, TH__X_MINIMUM)(a, b)
#define th_eq(a, b) TH__DISPATCH(a, TH__X_EQ)(a, b)
#define th_ne(a, b) TH__DISPATCH(a, TH__X_NE)(a, b)
#define th_lt(a, b) TH__DISPATCH(a, TH__X_LT)(a, b)
#define th_le(a, b) TH__DISPATCH(a, TH__X_LE)(a, b)
#define th_gt(a, b) TH__DISPATCH(a, TH__X_GT)(a, b)
#define th_ge(a, b) TH__DISPATCH(a, TH__X_GE)(a, b)
#define th_neg(a) TH__DISPATCH(a, TH__X_NEG)(a)
#define th_abs(a) TH__DISPATCH(a, TH__X_ABS)(a)
#define th_relu(a) TH__DISPATCH(a, TH__X_RELU)(a)
#define th_exp(a) TH__DISPATCH(a, TH__X_EXP)(a)
#define th_log(a) TH__DISPATCH(a, TH__X_LOG)(a)
#define th_sqrt(a) TH__DISPATCH(a, TH__X_SQRT)(a)
#define th_sin(a) TH__DISPATCH(a, TH__X_SIN)(a)
#define th_cos(a) TH__DISPATCH(a, TH__X_COS)(a)
#define th_tanh(a) TH__DISPATCH(a, TH__X_TANH)(a)
#define th_sigmoid(a) TH__DISPATCH(a, TH__X_SIGMOID)(a)
#define th_exp_out(out, a) TH__DISPATCH(a, TH__X_EXP_OUT)(out, a)
#define th_exp_inplace(a) TH__DISPATCH(a, TH__X_EXP_INPLACE)(a)
#define th_floor(a) TH__DISPATCH(a, TH__X_FLOOR)(a)
#define th_ceil(a) TH__DISPATCH(a, TH__X_CEIL)(a)
#define th_round(a) TH__DISPATCH(a, TH__X_ROUND)(a)
#define th_isnan(a) TH__DISPATCH(a, TH__X_ISNAN)(a)
#define th_isfinite(a) TH__DISPATCH(a, TH__X_ISFINITE)(a)
#define th_where(cond, a, b) TH__DISPATCH(a, TH__X_WHERE)(cond, a, b)
#define th_clamp(a, lo, hi) TH__DISPATCH(a, TH__X_CLAMP)(a, lo, hi)
#define th_sum_all(a) TH__DISPATCH(a, TH__X_SUM_ALL)(a)
#define th_sum_dim(a, dim, keepdim) TH__DISPATCH(a, TH__X_SUM_DIM)(a, dim, keepdim)
#define th_sum_dim_out(out, a, dim, keepdim) TH__DISPATCH(a, TH__X_SUM_DIM_OUT)(out, a, dim, keepdim)
#define th_prod_all(a) TH__DISPATCH(a, TH__X_PROD_ALL)(a)
#define th_prod_dim(a, dim, keepdim) TH__DISPATCH(a, TH__X_PROD_DIM)(a, dim, keepdim)
#define th_mean_all(a) TH__DISPATCH(a, TH__X_MEAN_ALL)(a)
#define th_mean_dim(a, dim, keepdim) TH__DISPATCH(a, TH__X_MEAN_DIM)(a, dim, keepdim)
#define th_var_all(a, correction) TH__DISPATCH(a, TH__X_VAR_ALL)(a, correction)
#define th_var_dim(a, dim, correction, keepdim) TH__DISPATCH(a, TH__X_VAR_DIM)(a, dim, correction, keepdim)
#define th_std_all(a, correction) TH__DISPATCH(a, TH__X_STD_ALL)(a, correction)
#define th_std_dim(a, dim, correction, keepdim) TH__DISPATCH(a, TH__X_STD_DIM)(a, dim, correction, keepdim)
#define th_norm_all(a, p) TH__DISPATCH(a, TH__X_NORM_ALL)(a, p)
#define th_norm_dim(a, p, dim, keepdim) TH__DISPATCH(a, TH__X_NORM_DIM)(a, p, dim, keepdim)
#define th_max_all(a) TH__DISPATCH(a, TH__X_MAX_ALL)(a)
#define th_max_dim(a, dim, keepdim, indices) TH__DISPATCH(a, TH__X_MAX_DIM)(a, dim, keepdim, indices)
#define th_min_all(a) TH__DISPATCH(a, TH__X_MIN_ALL)(a)
#define th_min_dim(a, dim, keepdim, indices) TH__DISPATCH(a, TH__X_MIN_DIM)(a, dim, keepdim, indices)
#define th_argmax_all(a) TH__DISPATCH(a, TH__X_ARGMAX_ALL)(a)
#define th_argmax_dim(a, dim, keepdim) TH__DISPATCH(a, TH__X_ARGMAX_DIM)(a, dim, keepdim)
#define th_argmin_all(a) TH__DISPATCH(a, TH__X_ARGMIN_ALL)(a)
#define th_argmin_dim(a, dim, keepdim) TH__DISPATCH(a, TH__X_ARGMIN_DIM)(a, dim, keepdim)
#define th_all_all(a) TH__DISPATCH(a, TH__X_ALL_ALL)(a)
#define th_any_all(a) TH__DISPATCH(a, TH__X_ANY_ALL)(a)
#define th_cumsum(a, dim) TH__DISPATCH(a, TH__X_CUMSUM)(a, dim)
#define th_dot(a, b) TH__DISPATCH(a, TH__X_DOT)(a, b)
#define th_mv(a, b) TH__DISPATCH(a, TH__X_MV)(a, b)
#define th_mm(a, b) TH__DISPATCH(a, TH__X_MM)(a, b)
#define th_bmm(a, b) TH__DISPATCH(a, TH__X_BMM)(a, b)
#define th_matmul(a, b) TH__DISPATCH(a, TH__X_MATMUL)(a, b)
#define th_matmul_out(out, a, b) TH__DISPATCH(a, TH__X_MATMUL_OUT)(out, a, b)
#endif /* !__cplusplus */

#endif /* TENSOR_H */

/* ==== th: implementation =================================================================== */

#if defined(TH_IMPLEMENTATION) && !defined(TH__IMPLEMENTED)
#define TH__IMPLEMENTED
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__linux__) && !defined(TH_NO_HUGE_PAGES)
#include <sys/mman.h>
#ifndef MADV_HUGEPAGE
/* A strict -std=c11 build hides madvise and its flags; the kernel's value has been 14 since Linux 2.6.38. */
#define MADV_HUGEPAGE 14
extern int madvise(void *addr, size_t length, int advice);
#endif
#define TH__USE_HUGE_PAGES 1
#endif

#if defined(__GNUC__) && !defined(__clang__)
/* Kernels stay vectorised even when the including file is built at -O0 or -O2 (gcc only vectorises
 * loops of unknown trip count from -O3 on). */
#define TH__HOT __attribute__((optimize("O3")))
#else
#define TH__HOT
#endif

#if defined(__FLT16_MAX__) && !defined(TH_NO_FLOAT16)
#define TH__HAVE_FLOAT16 1
__extension__ typedef _Float16 th__native_f16;
#endif

#if defined(__GNUC__)
/* Helpers only some dtypes use: a build that stamps a subset (TH_SELECT_DTYPES) leaves them unused. */
#define TH__MAYBE_UNUSED __attribute__((unused))
/* For the bodies every form of an op shares: one copy each, rather than one inlined into every form. */
#define TH__NOINLINE __attribute__((noinline))
#else
#define TH__MAYBE_UNUSED
#define TH__NOINLINE
#endif

#define TH__STR_(x) #x
#define TH__STR(x) TH__STR_(x)

/* ---- th__ errors ------------------------------------------------------------------------- */

static _Thread_local char th__error_message[512];
static _Thread_local th_status th__error_status;
/* Process-wide because a logger is a process-wide concern; atomic so any thread may swap it. */
static _Atomic(const th_error_hook *) th__error_hook;

TH_API const char *th_last_error(void) { return th__error_message; }
TH_API th_status th_last_status(void) { return th__error_status; }
TH_API void th_clear_error(void)
{
    th__error_message[0] = '\0';
    th__error_status = TH_OK;
}

TH_API const char *th_status_name(th_status status)
{
    switch (status) {
    case TH_OK: return "TH_OK";
    case TH_ERR_INVALID: return "TH_ERR_INVALID";
    case TH_ERR_NOMEM: return "TH_ERR_NOMEM";
    case TH_ERR_RANGE: return "TH_ERR_RANGE";
    case TH_ERR_SHAPE: return "TH_ERR_SHAPE";
    case TH_ERR_DTYPE: return "TH_ERR_DTYPE";
    case TH_ERR_DEVICE: return "TH_ERR_DEVICE";
    case TH_ERR_OVERFLOW: return "TH_ERR_OVERFLOW";
    case TH_ERR_UNSUPPORTED: return "TH_ERR_UNSUPPORTED";
    case TH_ERR_READ_ONLY: return "TH_ERR_READ_ONLY";
    case TH_ERR_IO: return "TH_ERR_IO";
    }
    return "TH_ERR_?";
}

TH_API const th_error_hook *th_set_error_hook(const th_error_hook *hook)
{
    return atomic_exchange(&th__error_hook, hook);
}

static int th__fail_v(th_status status, const char *fn, const char *fmt, va_list ap)
{
    int n = snprintf(th__error_message, sizeof th__error_message, "%s: ", fn ? fn : "?");
    if (n < 0 || (size_t)n >= sizeof th__error_message) n = 0;
    vsnprintf(th__error_message + n, sizeof th__error_message - (size_t)n, fmt, ap);
    th__error_status = status;
    const th_error_hook *hook = atomic_load(&th__error_hook);
    if (hook && hook->on_error) hook->on_error(status, th__error_message, hook->ctx);
    return status;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int th__fail(th_status status, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = th__fail_v(status, fn, fmt, ap);
    va_end(ap);
    return r;
}

TH_API int th_set_error(th_status status, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = th__fail_v(status, fn, fmt ? fmt : "", ap);
    va_end(ap);
    return r;
}

/* ---- th__ float16 and bfloat16 ----------------------------------------------------------- */

/* Rounds d to the nearest value (ties to even) of a binary format with mant_bits fraction bits and
 * exp_bits exponent bits, and returns its 16-bit encoding. Exact steps only: ldexp, floor and frexp
 * scale by powers of two, so the one rounding happens here. */
static uint16_t th__narrow_from_double(double d, int mant_bits, int exp_bits)
{
    const uint16_t sign = signbit(d) ? (uint16_t)0x8000u : 0;
    const uint16_t inf = (uint16_t)(((1u << exp_bits) - 1u) << mant_bits);
    if (isnan(d)) return (uint16_t)(sign | inf | (1u << (mant_bits - 1)));
    double a = fabs(d);
    if (isinf(a)) return (uint16_t)(sign | inf);
    if (a == 0.0) return sign;
    const int bias = (1 << (exp_bits - 1)) - 1;
    const int emin = 1 - bias;
    int e2;
    (void)frexp(a, &e2);
    int e = e2 - 1; /* a = 1.f * 2^e */
    if (e > bias) return (uint16_t)(sign | inf);
    int ulp_exp = (e >= emin ? e : emin) - mant_bits;
    double q = ldexp(a, -ulp_exp);
    double fl = floor(q);
    double rem = q - fl;
    uint32_t n = (uint32_t)fl;
    if (rem > 0.5 || (rem == 0.5 && (n & 1u))) n++;
    if (e < emin) return (uint16_t)(sign | n); /* subnormal; n == 2^mant_bits encodes the least normal */
    if (n == (1u << (mant_bits + 1))) {        /* rounding carried into the next binade */
        n >>= 1;
        e++;
        if (e > bias) return (uint16_t)(sign | inf);
    }
    return (uint16_t)(sign | ((uint32_t)(e + bias) << mant_bits) | (n - (1u << mant_bits)));
}

static float th__f32_from_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

TH_API float th_float16_to_float(th_float16 h)
{
#ifdef TH__HAVE_FLOAT16
    th__native_f16 x;
    memcpy(&x, &h.bits, sizeof x);
    return (float)x;
#else
    uint32_t sign = (uint32_t)(h.bits >> 15) << 31;
    uint32_t exp = (h.bits >> 10) & 0x1fu, frac = h.bits & 0x3ffu;
    if (exp == 0x1f) return th__f32_from_bits(sign | 0x7f800000u | (frac << 13));
    float mag = exp == 0 ? ldexpf((float)frac, -24) : ldexpf((float)(frac | 0x400u), (int)exp - 25);
    return sign ? -mag : mag;
#endif
}

TH_API th_float16 th_float16_from_double(double d)
{
    th_float16 h;
#ifdef TH__HAVE_FLOAT16
    th__native_f16 x = (th__native_f16)d;
    memcpy(&h.bits, &x, sizeof h.bits);
#else
    h.bits = th__narrow_from_double(d, 10, 5);
#endif
    return h;
}

TH_API th_float16 th_float16_from_float(float f)
{
#ifdef TH__HAVE_FLOAT16
    th_float16 h;
    th__native_f16 x = (th__native_f16)f;
    memcpy(&h.bits, &x, sizeof h.bits);
    return h;
#else
    return th_float16_from_double((double)f); /* float -> double is exact: one rounding */
#endif
}

TH_API float th_bfloat16_to_float(th_bfloat16 h) { return th__f32_from_bits((uint32_t)h.bits << 16); }

TH_API th_bfloat16 th_bfloat16_from_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    th_bfloat16 h;
    if (isnan(f)) {
        h.bits = (uint16_t)((u >> 16) | 0x40u); /* keep sign and payload top, force quiet */
        return h;
    }
    u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even on the dropped 16 bits */
    h.bits = (uint16_t)(u >> 16);
    return h;
}

TH_API th_bfloat16 th_bfloat16_from_double(double d)
{
    th_bfloat16 h;
    h.bits = th__narrow_from_double(d, 7, 8);
    return h;
}

/* int64 -> double rounded to odd when inexact. A 53-bit value rounded to odd then rounded again to
 * 24 or fewer bits gives the same result as rounding the int64 once, which a plain (double) cast would not
 * (it can land exactly on a midpoint of the narrower format). */
TH__MAYBE_UNUSED static double th__i64_to_f64_round_odd(int64_t v)
{
    uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
    if (u < (UINT64_C(1) << 53)) return (double)v;
    int shift = 0;
    while ((u >> shift) >= (UINT64_C(1) << 53)) shift++;
    uint64_t kept = u >> shift;
    if (u & ((UINT64_C(1) << shift) - 1u)) kept |= 1u;
    double mag = ldexp((double)kept, shift);
    return v < 0 ? -mag : mag;
}

/* double -> integer: truncate toward zero, saturate at [lo, hi], NaN -> 0 (a C cast would be undefined). */
TH__MAYBE_UNUSED static int64_t th__f64_to_int_saturating(double v, int64_t lo, int64_t hi)
{
    if (isnan(v)) return 0;
    if (v <= (double)lo) return lo;
    if (v >= (double)hi) return hi; /* (double)INT64_MAX is 2^63: every value at or above saturates */
    return (int64_t)v;
}

TH__MAYBE_UNUSED static double th__c128_real(th_complex128 z) { return (double)z; }
TH__MAYBE_UNUSED static double th__c128_imag(th_complex128 z)
{
    double p[2];
    memcpy(p, &z, sizeof p);
    return p[1];
}
TH__MAYBE_UNUSED static th_complex128 th__c128_make(double re, double im)
{
    th_complex128 z;
    double p[2] = {re, im};
    memcpy(&z, p, sizeof z);
    return z;
}
TH__MAYBE_UNUSED static th_complex64 th__c64_make(float re, float im)
{
    th_complex64 z;
    float p[2] = {re, im};
    memcpy(&z, p, sizeof z);
    return z;
}

/* ---- th__ dtypes ------------------------------------------------------------------------- */

static const th_dtype_traits th__dtype_traits[TH_NUM_DTYPES] = {
#define TH__X(sfx, ENUM, elem, acc, kind, code, bits) \
    {#sfx, sizeof(elem), kind, code, bits, TH__IF_##sfx(true) + 0 != 0},
    TH_FOREACH_DTYPE(TH__X)
#undef TH__X
};

static bool th__dtype_valid(th_dtype dtype) { return (int)dtype >= 0 && (int)dtype < TH_NUM_DTYPES; }

TH_API const th_dtype_traits *th_dtype_info(th_dtype dtype)
{
    if (!th__dtype_valid(dtype)) {
        th__fail(TH_ERR_DTYPE, "th_dtype_info", "%d is no dtype (0..%d)", (int)dtype, TH_NUM_DTYPES - 1);
        return NULL;
    }
    return &th__dtype_traits[dtype];
}

TH_API const char *th_dtype_name(th_dtype dtype)
{
    return th__dtype_valid(dtype) ? th__dtype_traits[dtype].name : "?";
}

/* ---- th__ devices and allocators --------------------------------------------------------- */

TH_API bool th_device_is_host(th_device device)
{
    return device.type == TH_DEVICE_CPU || device.type == TH_DEVICE_CUDA_HOST ||
           device.type == TH_DEVICE_CUDA_MANAGED;
}

static const th_device th__cpu_device = {TH_DEVICE_CPU, 0};

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
    void *p = aligned_alloc(TH__HUGE_PAGE, rounded);
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
        free(ptr);
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

/* ---- th__ storage ------------------------------------------------------------------------ */

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
    th_storage *s = (th_storage *)malloc(sizeof *s);
    if (!s) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the storage header");
        return NULL;
    }
    void *data = NULL;
    if (nbytes > 0) {
        data = allocator->alloc(allocator_ctx, (size_t)nbytes);
        if (!data) {
            free(s);
            th__fail(TH_ERR_NOMEM, fn, "allocator '%s' could not allocate %lld bytes",
                     allocator->name ? allocator->name : "?", (long long)nbytes);
            return NULL;
        }
    }
    atomic_init(&s->refcount, 1);
    s->data = data;
    s->nbytes = nbytes;
    s->device = allocator->device;
    s->flags = TH__STORAGE_RESIZABLE;
    s->allocator = allocator;
    s->allocator_ctx = allocator_ctx;
    s->deleter = NULL;
    s->deleter_data = NULL;
    s->deleter_ctx = NULL;
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
    th_storage *s = (th_storage *)malloc(sizeof *s);
    if (!s) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the storage header");
        return NULL;
    }
    atomic_init(&s->refcount, 1);
    s->data = data;
    s->nbytes = nbytes;
    s->device = device;
    s->flags = 0;
    s->allocator = NULL;
    s->allocator_ctx = NULL;
    s->deleter = deleter;
    s->deleter_data = deleter_data;
    s->deleter_ctx = deleter_ctx;
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

TH_API void th_storage_release(th_storage *storage)
{
    if (!storage) return;
    /* A count of 1 seen by a holder means no other thread holds a reference, so none can race us: the
     * common case (a temporary's storage) skips the locked decrement. */
    if (atomic_load_explicit(&storage->refcount, memory_order_acquire) != 1 &&
        atomic_fetch_sub_explicit(&storage->refcount, 1, memory_order_acq_rel) != 1)
        return;
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
        data = a->realloc(storage->allocator_ctx, storage->data, (size_t)storage->nbytes, (size_t)nbytes);
        if (!data)
            return th__fail(TH_ERR_NOMEM, fn, "allocator '%s' could not grow the storage to %lld bytes",
                            a->name ? a->name : "?", (long long)nbytes);
    } else {
        if (storage->data && nbytes > 0 && !th_device_is_host(storage->device))
            return th__fail(TH_ERR_DEVICE, fn, "allocator '%s' has no realloc and the host cannot copy device memory",
                            a->name ? a->name : "?");
        if (nbytes > 0) {
            data = a->alloc(storage->allocator_ctx, (size_t)nbytes);
            if (!data)
                return th__fail(TH_ERR_NOMEM, fn, "allocator '%s' could not allocate %lld bytes",
                                a->name ? a->name : "?", (long long)nbytes);
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
        data = allocator->alloc(ctx, (size_t)storage->nbytes);
        if (!data)
            return th__fail(TH_ERR_NOMEM, fn, "allocator '%s' could not allocate %lld bytes",
                            allocator->name ? allocator->name : "?", (long long)storage->nbytes);
        memcpy(data, storage->data, (size_t)storage->nbytes);
    }
    th__storage_free_memory(storage);
    storage->data = data;
    storage->device = allocator->device;
    storage->allocator = allocator;
    storage->allocator_ctx = ctx;
    storage->deleter = NULL;
    storage->deleter_data = NULL;
    storage->deleter_ctx = NULL;
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

/* ---- th__ tensors: shape checks ---------------------------------------------------------- */

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

/* ---- th__ tensors: construction ---------------------------------------------------------- */

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
static bool th__headers_key_ok;

static void th__headers_drain(void *cache)
{
    th__header_cache *c = (th__header_cache *)cache;
    while (c->count > 0) free(c->items[--c->count]);
    c->disabled = true; /* headers freed later in this thread's exit go straight to free */
}

static void th__headers_make_key(void) { th__headers_key_ok = tss_create(&th__headers_key, th__headers_drain) == thrd_success; }

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
        c->disabled = !th__headers_key_ok || tss_set(th__headers_key, c) != thrd_success;
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

static th_tensor *th__tensor_empty(const char *fn, th_dtype dtype, int ndim, const int64_t *sizes)
{
    int64_t numel;
    if (th__check_sizes(fn, ndim, sizes, &numel)) return NULL;
    void *ctx;
    const th_allocator *a = th_default_allocator(&ctx);
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

/* ---- th__ tensors: access ---------------------------------------------------------------- */

TH_API th_tensor *th_tensor_retain(th_tensor *t)
{
    if (t) atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
    return t;
}

TH_API void th_tensor_release(th_tensor *t)
{
    if (!t) return;
    if (atomic_load_explicit(&t->refcount, memory_order_acquire) != 1 && /* see th_storage_release */
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

/* ---- th__ tensors: views ----------------------------------------------------------------- */

static th_tensor *th__view_of(const char *fn, const th_tensor *src, int64_t offset, int ndim, const int64_t *sizes,
                              const int64_t *strides)
{
    return th__tensor_make(fn, src->dtype, src->storage, offset, ndim, sizes, strides);
}

#define TH__NEED(t, fn)                                    \
    do {                                                   \
        if (!(t)) {                                        \
            th__fail(TH_ERR_INVALID, fn, "NULL tensor");   \
            return NULL;                                   \
        }                                                  \
    } while (0)

/* Replaces one -1 in sizes by what makes the element count numel. */
static int th__infer_size(const char *fn, int ndim, const int64_t *sizes, int64_t numel, int64_t *out)
{
    if (ndim < 0 || ndim > TH_MAX_DIMS)
        return th__fail(TH_ERR_RANGE, fn, "ndim %d is outside 0..%d (TH_MAX_DIMS)", ndim, TH_MAX_DIMS);
    if (ndim > 0 && !sizes) return th__fail(TH_ERR_INVALID, fn, "NULL sizes for ndim %d", ndim);
    int infer = -1;
    int64_t known = 1, nonzero = 1; /* nonzero: a zero size must not hide an overflowing shape */
    for (int d = 0; d < ndim; d++) {
        out[d] = sizes[d];
        if (sizes[d] == -1) {
            if (infer >= 0) return th__fail(TH_ERR_INVALID, fn, "more than one -1 in the sizes (dims %d and %d)", infer, d);
            infer = d;
        } else if (sizes[d] < 0) {
            return th__fail(TH_ERR_INVALID, fn, "negative size %lld in dim %d", (long long)sizes[d], d);
        } else if (__builtin_mul_overflow(nonzero, sizes[d] ? sizes[d] : 1, &nonzero)) {
            return th__fail(TH_ERR_OVERFLOW, fn, "the element count of the sizes overflows int64 at dim %d", d);
        } else {
            known *= sizes[d];
        }
    }
    if (infer >= 0) {
        if (known == 0 || numel % known != 0)
            return th__fail(TH_ERR_SHAPE, fn, "cannot infer the size of dim %d: %lld elements do not divide by %lld",
                            infer, (long long)numel, (long long)known);
        out[infer] = numel / known;
        known = numel;
    }
    if (known != numel)
        return th__fail(TH_ERR_SHAPE, fn, "a view of %lld elements cannot hold the tensor's %lld elements",
                        (long long)known, (long long)numel);
    return TH_OK;
}

/* Strides that let a tensor of (sizes, strides) be seen as new_sizes without moving data; false when the
 * memory layout does not allow it. Dims are grouped into runs that are contiguous with each other, and
 * each run must be split or merged by the new shape without crossing a run's border. */
static bool th__view_strides(int ndim, const int64_t *sizes, const int64_t *strides, int new_ndim,
                             const int64_t *new_sizes, int64_t *new_strides)
{
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) numel *= sizes[d];
    if (numel == 0 || ndim == 0) {
        th__contiguous_strides(new_ndim, new_sizes, new_strides);
        return true;
    }
    int view_d = new_ndim - 1;
    int64_t chunk_stride = strides[ndim - 1];
    int64_t tensor_numel = 1, view_numel = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        tensor_numel *= sizes[d];
        bool run_ends = d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_stride);
        if (!run_ends) continue;
        while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
            new_strides[view_d] = view_numel * chunk_stride;
            view_numel *= new_sizes[view_d];
            view_d--;
        }
        if (view_numel != tensor_numel) return false;
        if (d > 0) {
            chunk_stride = strides[d - 1];
            tensor_numel = 1;
            view_numel = 1;
        }
    }
    return view_d == -1;
}

static th_tensor *th__view(const char *fn, const th_tensor *t, int ndim, const int64_t *sizes)
{
    TH__NEED(t, fn);
    int64_t new_sizes[TH_MAX_DIMS], new_strides[TH_MAX_DIMS];
    if (th__infer_size(fn, ndim, sizes, th__numel(t), new_sizes)) return NULL;
    if (th_tensor_is_contiguous(t))
        th__contiguous_strides(ndim, new_sizes, new_strides);
    else if (!th__view_strides(t->ndim, t->sizes, t->strides, ndim, new_sizes, new_strides)) {
        th__fail(TH_ERR_SHAPE, fn, "the tensor's strides do not allow this shape without a copy (use reshape or contiguous)");
        return NULL;
    }
    return th__view_of(fn, t, t->offset, ndim, new_sizes, new_strides);
}

static th_tensor *th__transpose(const char *fn, const th_tensor *t, int dim0, int dim1)
{
    TH__NEED(t, fn);
    int a = 0, b = 0;
    if (th__wrap_dim(fn, dim0, t->ndim, &a) || th__wrap_dim(fn, dim1, t->ndim, &b)) return NULL;
    th_tensor *v = th__view_of(fn, t, t->offset, t->ndim, t->sizes, t->strides);
    if (v && t->ndim > 0) {
        v->sizes[a] = t->sizes[b];
        v->sizes[b] = t->sizes[a];
        v->strides[a] = t->strides[b];
        v->strides[b] = t->strides[a];
    }
    return v;
}

static th_tensor *th__permute(const char *fn, const th_tensor *t, const int *dims)
{
    TH__NEED(t, fn);
    if (t->ndim > 0 && !dims) {
        th__fail(TH_ERR_INVALID, fn, "NULL dims for a %d-d tensor", t->ndim);
        return NULL;
    }
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    bool seen[TH_MAX_DIMS] = {false};
    for (int d = 0; d < t->ndim; d++) {
        int s = 0;
        if (th__wrap_dim(fn, dims[d], t->ndim, &s)) return NULL;
        if (seen[s]) {
            th__fail(TH_ERR_INVALID, fn, "dim %d appears twice in the permutation", s);
            return NULL;
        }
        seen[s] = true;
        sizes[d] = t->sizes[s];
        strides[d] = t->strides[s];
    }
    return th__view_of(fn, t, t->offset, t->ndim, sizes, strides);
}

static th_tensor *th__narrow(const char *fn, const th_tensor *t, int dim, int64_t start, int64_t length)
{
    TH__NEED(t, fn);
    int d = 0;
    if (th__wrap_dim(fn, dim, t->ndim, &d)) return NULL;
    if (t->ndim == 0) {
        th__fail(TH_ERR_RANGE, fn, "cannot narrow a 0-d tensor");
        return NULL;
    }
    int64_t size = t->sizes[d];
    int64_t s = start < 0 ? start + size : start;
    if (s < 0 || s > size) {
        th__fail(TH_ERR_RANGE, fn, "start %lld is out of range for size %lld of dim %d", (long long)start,
                 (long long)size, d);
        return NULL;
    }
    if (length < 0 || length > size - s) {
        th__fail(TH_ERR_RANGE, fn, "start %lld + length %lld exceeds size %lld of dim %d", (long long)s,
                 (long long)length, (long long)size, d);
        return NULL;
    }
    th_tensor *v = th__view_of(fn, t, t->offset + (length > 0 ? s * t->strides[d] : 0), t->ndim, t->sizes,
                               t->strides);
    if (v) v->sizes[d] = length;
    return v;
}

static th_tensor *th__select(const char *fn, const th_tensor *t, int dim, int64_t index)
{
    TH__NEED(t, fn);
    if (t->ndim == 0) {
        th__fail(TH_ERR_RANGE, fn, "cannot select from a 0-d tensor");
        return NULL;
    }
    int d = 0;
    if (th__wrap_dim(fn, dim, t->ndim, &d)) return NULL;
    int64_t i = index < 0 ? index + t->sizes[d] : index;
    if (i < 0 || i >= t->sizes[d]) {
        th__fail(TH_ERR_RANGE, fn, "index %lld is out of range for size %lld of dim %d", (long long)index,
                 (long long)t->sizes[d], d);
        return NULL;
    }
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    for (int k = 0, o = 0; k < t->ndim; k++) {
        if (k == d) continue;
        sizes[o] = t->sizes[k];
        strides[o++] = t->strides[k];
    }
    return th__view_of(fn, t, t->offset + i * t->strides[d], t->ndim - 1, sizes, strides);
}

static th_tensor *th__unfold(const char *fn, const th_tensor *t, int dim, int64_t size, int64_t step)
{
    TH__NEED(t, fn);
    if (t->ndim == 0 || t->ndim >= TH_MAX_DIMS) {
        th__fail(TH_ERR_RANGE, fn, "unfold needs 1..%d dims, the tensor has %d", TH_MAX_DIMS - 1, t->ndim);
        return NULL;
    }
    int d = 0;
    if (th__wrap_dim(fn, dim, t->ndim, &d)) return NULL;
    if (size < 0 || size > t->sizes[d]) {
        th__fail(TH_ERR_RANGE, fn, "window size %lld exceeds size %lld of dim %d", (long long)size,
                 (long long)t->sizes[d], d);
        return NULL;
    }
    if (step <= 0) {
        th__fail(TH_ERR_INVALID, fn, "step %lld must be positive", (long long)step);
        return NULL;
    }
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    memcpy(sizes, t->sizes, sizeof sizes);
    memcpy(strides, t->strides, sizeof strides);
    sizes[d] = (t->sizes[d] - size) / step + 1;
    if (__builtin_mul_overflow(t->strides[d], step, &strides[d])) {
        if (sizes[d] > 1) {
            th__fail(TH_ERR_OVERFLOW, fn, "stride %lld times step %lld overflows int64", (long long)t->strides[d],
                     (long long)step);
            return NULL;
        }
        strides[d] = t->strides[d]; /* a single window: its stride is never used */
    }
    sizes[t->ndim] = size;
    strides[t->ndim] = t->strides[d];
    int64_t numel;
    if (th__check_sizes(fn, t->ndim + 1, sizes, &numel)) return NULL;
    return th__view_of(fn, t, t->offset, t->ndim + 1, sizes, strides);
}

static th_tensor *th__squeeze(const char *fn, const th_tensor *t, int only_dim)
{
    TH__NEED(t, fn);
    int d_only = -1;
    if (only_dim != INT_MIN && th__wrap_dim(fn, only_dim, t->ndim, &d_only)) return NULL;
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        bool drop = t->sizes[d] == 1 && (d_only < 0 || d == d_only);
        if (drop) continue;
        sizes[n] = t->sizes[d];
        strides[n++] = t->strides[d];
    }
    return th__view_of(fn, t, t->offset, n, sizes, strides);
}

static th_tensor *th__unsqueeze(const char *fn, const th_tensor *t, int dim)
{
    TH__NEED(t, fn);
    if (t->ndim >= TH_MAX_DIMS) {
        th__fail(TH_ERR_RANGE, fn, "the tensor already has TH_MAX_DIMS (%d) dims", TH_MAX_DIMS);
        return NULL;
    }
    if (dim < -(t->ndim + 1) || dim > t->ndim) {
        th__fail(TH_ERR_RANGE, fn, "dim %d is out of range %d..%d", dim, -(t->ndim + 1), t->ndim);
        return NULL;
    }
    int at = dim < 0 ? dim + t->ndim + 1 : dim;
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    for (int d = 0, o = 0; d <= t->ndim; d++) {
        if (d == at) {
            int64_t stride = 1; /* a size-1 dim's stride is never used: pick the contiguous one when it fits */
            if (d < t->ndim && __builtin_mul_overflow(t->sizes[d], t->strides[d], &stride)) stride = 1;
            sizes[o] = 1;
            strides[o++] = stride;
        }
        if (d < t->ndim) {
            sizes[o] = t->sizes[d];
            strides[o++] = t->strides[d];
        }
    }
    return th__view_of(fn, t, t->offset, t->ndim + 1, sizes, strides);
}

static th_tensor *th__expand(const char *fn, const th_tensor *t, int ndim, const int64_t *sizes)
{
    TH__NEED(t, fn);
    if (ndim < t->ndim || ndim > TH_MAX_DIMS) {
        th__fail(TH_ERR_RANGE, fn, "cannot expand %d dims to %d (at least %d, at most TH_MAX_DIMS %d)", t->ndim,
                 ndim, t->ndim, TH_MAX_DIMS);
        return NULL;
    }
    if (ndim > 0 && !sizes) {
        th__fail(TH_ERR_INVALID, fn, "NULL sizes for ndim %d", ndim);
        return NULL;
    }
    int64_t new_sizes[TH_MAX_DIMS], new_strides[TH_MAX_DIMS];
    int lead = ndim - t->ndim;
    for (int d = 0; d < ndim; d++) {
        int64_t want = sizes[d];
        if (d < lead) {
            if (want < 0) {
                th__fail(TH_ERR_INVALID, fn, "size %lld for new leading dim %d (must be >= 0)", (long long)want, d);
                return NULL;
            }
            new_sizes[d] = want;
            new_strides[d] = 0;
            continue;
        }
        int64_t have = t->sizes[d - lead];
        if (want == -1 || want == have) {
            new_sizes[d] = have;
            new_strides[d] = t->strides[d - lead];
        } else if (have == 1 && want >= 0) {
            new_sizes[d] = want;
            new_strides[d] = 0;
        } else {
            th__fail(TH_ERR_SHAPE, fn, "cannot expand dim %d of size %lld to %lld (only size-1 dims expand)",
                     d - lead, (long long)have, (long long)want);
            return NULL;
        }
    }
    int64_t numel;
    if (th__check_sizes(fn, ndim, new_sizes, &numel)) return NULL;
    return th__view_of(fn, t, t->offset, ndim, new_sizes, new_strides);
}

static th_tensor *th__as_strided(const char *fn, const th_tensor *t, int ndim, const int64_t *sizes,
                                 const int64_t *strides, int64_t offset)
{
    TH__NEED(t, fn);
    int64_t numel;
    if (th__check_sizes(fn, ndim, sizes, &numel)) return NULL;
    if (ndim > 0 && !strides) {
        th__fail(TH_ERR_INVALID, fn, "NULL strides for ndim %d", ndim);
        return NULL;
    }
    if (th__check_in_storage(fn, t->dtype, t->storage, offset, ndim, sizes, strides, numel)) return NULL;
    return th__view_of(fn, t, offset, ndim, sizes, strides);
}

static th_tensor *th__flatten(const char *fn, const th_tensor *t, int start_dim, int end_dim)
{
    TH__NEED(t, fn);
    if (t->ndim == 0) {
        int64_t one = 1;
        int dummy;
        if (th__wrap_dim(fn, start_dim, 0, &dummy) || th__wrap_dim(fn, end_dim, 0, &dummy)) return NULL;
        return th__view(fn, t, 1, &one);
    }
    int s = 0, e = 0;
    if (th__wrap_dim(fn, start_dim, t->ndim, &s) || th__wrap_dim(fn, end_dim, t->ndim, &e)) return NULL;
    if (s > e) {
        th__fail(TH_ERR_RANGE, fn, "start_dim %d comes after end_dim %d", s, e);
        return NULL;
    }
    int64_t sizes[TH_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < s; d++) sizes[n++] = t->sizes[d];
    int64_t merged = 1;
    for (int d = s; d <= e; d++) merged *= t->sizes[d];
    sizes[n++] = merged;
    for (int d = e + 1; d < t->ndim; d++) sizes[n++] = t->sizes[d];
    return th__view(fn, t, n, sizes);
}

/* ---- th__ the strided iteration engine --------------------------------------------------- */

/* Every loop over elements goes through here. Operand 0 sets the shape, the others broadcast to it
 * (NumPy's rules); size-1 dims are dropped, dims are ordered so the innermost has the smallest stride of
 * operand 0, and neighbouring dims that are contiguous in every operand are merged. A kernel then gets one
 * innermost row at a time: the data pointers, their byte strides and the row length. */
enum { TH__ITER_MAX_OPS = 4 };

typedef struct th__iter {
    int ndim; /* after merging; at least 1 when numel > 0. dim 0 is the innermost */
    int nops;
    int64_t numel;
    int64_t shape[TH_MAX_DIMS];
    int64_t strides[TH__ITER_MAX_OPS][TH_MAX_DIMS]; /* bytes */
    char *data[TH__ITER_MAX_OPS];
} th__iter;

typedef void (*th__row_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);

static void th__shape_string(int ndim, const int64_t *sizes, char *buf, size_t cap)
{
    size_t n = 0;
    n += (size_t)snprintf(buf + n, cap - n, "(");
    for (int d = 0; d < ndim && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, d ? ", %lld" : "%lld", (long long)sizes[d]);
    if (n < cap) snprintf(buf + n, cap - n, ")");
}

static bool th__iter_dim_inner(const th__iter *it, int a, int b)
{
    for (int op = 0; op < it->nops; op++) {
        int64_t sa = llabs(it->strides[op][a]), sb = llabs(it->strides[op][b]);
        if (sa == 0 || sb == 0 || sa == sb) continue;
        return sa < sb;
    }
    return false;
}

static int th__iter_init(const char *fn, th__iter *it, int nops, const th_tensor *const *ops)
{
    for (int op = 0; op < nops; op++) {
        if (!ops[op]) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        if (!th_device_is_host(ops[op]->storage->device))
            return th__fail(TH_ERR_DEVICE, fn, "a tensor is on device type %d, which the host cannot touch",
                            (int)ops[op]->storage->device.type);
    }
    for (int op = 0; op < nops; op++)
        if (th__check_fits(fn, ops[op])) return th_last_status();
    const th_tensor *out = ops[0];
    const int nd = out->ndim;
    for (int op = 1; op < nops; op++) {
        const th_tensor *t = ops[op];
        bool fits = t->ndim <= nd;
        for (int d = 0; fits && d < t->ndim; d++) {
            int64_t have = t->sizes[t->ndim - 1 - d], want = out->sizes[nd - 1 - d];
            fits = have == want || have == 1;
        }
        if (!fits) {
            char a[160], b[160];
            th__shape_string(t->ndim, t->sizes, a, sizeof a);
            th__shape_string(nd, out->sizes, b, sizeof b);
            return th__fail(TH_ERR_SHAPE, fn, "shape %s does not broadcast to %s", a, b);
        }
    }
    it->nops = nops;
    it->numel = th__numel(out);
    for (int op = 0; op < nops; op++) it->data[op] = (char *)th_tensor_data(ops[op]);
    int n = 0;
    for (int k = 0; k < nd; k++) {
        int d = nd - 1 - k;
        if (out->sizes[d] == 1) continue;
        it->shape[n] = out->sizes[d];
        for (int op = 0; op < nops; op++) {
            const th_tensor *t = ops[op];
            int od = d - (nd - t->ndim);
            bool broadcast = od < 0 || t->sizes[od] != out->sizes[d];
            it->strides[op][n] = broadcast ? 0 : t->strides[od] * (int64_t)th__elsize(t);
        }
        n++;
    }
    it->ndim = n;
    for (int i = 1; i < n; i++) { /* insertion sort: stable, and n is small */
        for (int j = i; j > 0 && th__iter_dim_inner(it, j, j - 1); j--) {
            int64_t tmp = it->shape[j];
            it->shape[j] = it->shape[j - 1];
            it->shape[j - 1] = tmp;
            for (int op = 0; op < nops; op++) {
                tmp = it->strides[op][j];
                it->strides[op][j] = it->strides[op][j - 1];
                it->strides[op][j - 1] = tmp;
            }
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        bool merge = m > 0;
        for (int op = 0; merge && op < nops; op++)
            merge = it->strides[op][i] == it->strides[op][m - 1] * it->shape[m - 1];
        if (merge) {
            it->shape[m - 1] *= it->shape[i];
            continue;
        }
        it->shape[m] = it->shape[i];
        for (int op = 0; op < nops; op++) it->strides[op][m] = it->strides[op][i];
        m++;
    }
    if (m == 0) { /* a single element */
        it->shape[0] = 1;
        for (int op = 0; op < nops; op++) it->strides[op][0] = 0;
        m = 1;
    }
    it->ndim = m;
    return TH_OK;
}

static void th__iter_for_each(const th__iter *it, th__row_fn row, void *ctx)
{
    if (it->numel == 0) return;
    char *ptrs[TH__ITER_MAX_OPS];
    int64_t inner[TH__ITER_MAX_OPS];
    int64_t idx[TH_MAX_DIMS] = {0};
    for (int op = 0; op < it->nops; op++) {
        ptrs[op] = it->data[op];
        inner[op] = it->strides[op][0];
    }
    for (;;) {
        row(ptrs, inner, it->shape[0], ctx);
        int d = 1;
        for (; d < it->ndim; d++) {
            for (int op = 0; op < it->nops; op++) ptrs[op] += it->strides[op][d];
            if (++idx[d] < it->shape[d]) break;
            for (int op = 0; op < it->nops; op++) ptrs[op] -= it->strides[op][d] * it->shape[d];
            idx[d] = 0;
        }
        if (d >= it->ndim) return;
    }
}

/* Rows of the elements begin..end-1 (in the engine's order), so a range can go to one thread. A row may be
 * cut short at either end of the range. */
TH__MAYBE_UNUSED static void th__iter_for_range(const th__iter *it, int64_t begin, int64_t end, th__row_fn row, void *ctx)
{
    if (begin >= end) return;
    char *ptrs[TH__ITER_MAX_OPS];
    int64_t inner[TH__ITER_MAX_OPS];
    int64_t idx[TH_MAX_DIMS] = {0};
    int64_t rest = begin;
    for (int d = 0; d < it->ndim; d++) {
        idx[d] = rest % it->shape[d];
        rest /= it->shape[d];
    }
    for (int op = 0; op < it->nops; op++) {
        ptrs[op] = it->data[op];
        inner[op] = it->strides[op][0];
        for (int d = 0; d < it->ndim; d++) ptrs[op] += idx[d] * it->strides[op][d];
    }
    int64_t left = end - begin;
    for (;;) {
        int64_t n = it->shape[0] - idx[0];
        if (n > left) n = left;
        row(ptrs, inner, n, ctx);
        left -= n;
        if (left == 0) return;
        for (int op = 0; op < it->nops; op++) ptrs[op] -= idx[0] * it->strides[op][0];
        idx[0] = 0;
        for (int d = 1; d < it->ndim; d++) {
            for (int op = 0; op < it->nops; op++) ptrs[op] += it->strides[op][d];
            if (++idx[d] < it->shape[d]) break;
            for (int op = 0; op < it->nops; op++) ptrs[op] -= it->strides[op][d] * it->shape[d];
            idx[d] = 0;
        }
    }
}

/* ---- th__ threads ------------------------------------------------------------------------ */

/* Below this many elements of work a loop stays on the calling thread: starting a team costs a few
 * microseconds, about what 32K elements of a cheap elementwise op take. */
enum { TH__GRAIN = 32768 };

/* How many threads a loop of work elements should use: 1 inside another parallel region or below the
 * grain, else up to OpenMP's limit for this thread (th_set_num_threads). */
TH__MAYBE_UNUSED static int th__threads_for(int64_t work)
{
#ifdef _OPENMP
    if (work < 2 * (int64_t)TH__GRAIN || omp_in_parallel()) return 1;
    int64_t n = omp_get_max_threads();
    if (n > work / TH__GRAIN) n = work / TH__GRAIN;
    return n < 1 ? 1 : (int)n;
#else
    (void)work;
    return 1;
#endif
}

/* Calls body(ctx, begin, end) on nthreads disjoint, consecutive chunks covering 0..n-1. The split depends
 * only on n and nthreads, so a kernel that is deterministic per chunk is deterministic per thread count. */
typedef void (*th__chunk_fn)(void *ctx, int64_t begin, int64_t end);

TH__MAYBE_UNUSED static void th__parallel_chunks(int64_t n, int nthreads, th__chunk_fn body, void *ctx)
{
    if (nthreads <= 1 || n <= 1) {
        body(ctx, 0, n);
        return;
    }
#ifdef _OPENMP
#pragma omp parallel for num_threads(nthreads) schedule(static, 1)
    for (int i = 0; i < nthreads; i++) body(ctx, n * i / nthreads, n * (i + 1) / nthreads);
#else
    for (int i = 0; i < nthreads; i++) body(ctx, n * i / nthreads, n * (i + 1) / nthreads);
#endif
}

typedef struct th__iter_job {
    const th__iter *it;
    th__row_fn row;
    void *ctx;
} th__iter_job;

static void th__iter_job_run(void *job_, int64_t begin, int64_t end)
{
    const th__iter_job *job = (const th__iter_job *)job_;
    th__iter_for_range(job->it, begin, end, job->row, job->ctx);
}

/* th__iter_for_each across threads. Only for kernels whose rows are independent: each output element is
 * written by exactly one row (elementwise ops), never accumulated across rows. */
TH__MAYBE_UNUSED static void th__iter_parallel(const th__iter *it, th__row_fn row, void *ctx)
{
    int nthreads = th__threads_for(it->numel);
    if (nthreads <= 1) {
        th__iter_for_each(it, row, ctx);
        return;
    }
    th__iter_job job = {it, row, ctx};
    th__parallel_chunks(it->numel, nthreads, th__iter_job_run, &job);
}

TH_API void th_set_num_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n < 1 ? 1 : n);
#else
    (void)n;
#endif
}

TH_API int th_get_num_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* ---- th__ op plumbing: result shapes, outs and aliasing ---------------------------------- */

/* The shape n tensors broadcast to (NumPy's rules: align at the last dim; sizes must match or be 1). */
TH__MAYBE_UNUSED static int th__broadcast_shape(const char *fn, int n, const th_tensor *const *ts, int *ndim, int64_t *sizes)
{
    int nd = 0;
    for (int i = 0; i < n; i++) {
        if (!ts[i]) return th__fail(TH_ERR_INVALID, fn, "NULL tensor (operand %d)", i + 1);
        if (ts[i]->ndim > nd) nd = ts[i]->ndim;
    }
    for (int k = 0; k < nd; k++) sizes[k] = 1;
    for (int i = 0; i < n; i++) {
        const th_tensor *t = ts[i];
        for (int k = 0; k < t->ndim; k++) {
            int64_t have = t->sizes[t->ndim - 1 - k], *want = &sizes[nd - 1 - k];
            if (have == *want || have == 1) continue;
            if (*want == 1) {
                *want = have;
                continue;
            }
            char a[160], b[160];
            th__shape_string(ts[0]->ndim, ts[0]->sizes, a, sizeof a);
            th__shape_string(t->ndim, t->sizes, b, sizeof b);
            return th__fail(TH_ERR_SHAPE, fn, "shapes %s and %s do not broadcast (dim %d: %lld vs %lld)", a, b,
                            -1 - k, (long long)*want, (long long)have);
        }
    }
    *ndim = nd;
    return TH_OK;
}

/* Checks that out can receive a result of dtype and shape: the right dtype and exactly that shape, host
 * memory that is writable, and no two of its elements at one address (a stride 0 or an overlapping view). */
TH__MAYBE_UNUSED static int th__check_out(const char *fn, const th_tensor *out, th_dtype dtype, int ndim, const int64_t *sizes)
{
    if (!out) return th__fail(TH_ERR_INVALID, fn, "NULL out");
    if (out->dtype != dtype)
        return th__fail(TH_ERR_DTYPE, fn, "out is %s; this result is %s", th_dtype_name(out->dtype),
                        th_dtype_name(dtype));
    bool same = out->ndim == ndim;
    for (int d = 0; same && d < ndim; d++) same = out->sizes[d] == sizes[d];
    if (!same) {
        char a[160], b[160];
        th__shape_string(out->ndim, out->sizes, a, sizeof a);
        th__shape_string(ndim, sizes, b, sizeof b);
        return th__fail(TH_ERR_SHAPE, fn, "out has shape %s; the result has shape %s", a, b);
    }
    if (!th_device_is_host(out->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "out is on device type %d, which the host cannot touch",
                        (int)out->storage->device.type);
    if (th__check_fits(fn, out) || th__check_writable(fn, out->storage)) return th_last_status();
    /* Sorted by stride, a tensor is free of self-overlap when each stride exceeds the span of the dims
     * inside it; anything else might put two elements at one address. */
    int order[TH_MAX_DIMS], n = 0;
    for (int d = 0; d < out->ndim; d++)
        if (out->sizes[d] > 1) order[n++] = d;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && llabs(out->strides[order[j]]) < llabs(out->strides[order[j - 1]]); j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    int64_t span = 0;
    for (int i = 0; i < n; i++) {
        int64_t s = llabs(out->strides[order[i]]);
        if (s <= span)
            return th__fail(TH_ERR_INVALID, fn,
                            "out dim %d (stride %lld) overlaps its other dims: several elements share an address",
                            order[i], (long long)out->strides[order[i]]);
        span += s * (out->sizes[order[i]] - 1);
    }
    return TH_OK;
}

/* The tensor an op writes to: out itself (retained) once it is checked, or when out is NULL a new
 * contiguous tensor of dtype and shape. NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__result(const char *fn, th_tensor *out, th_dtype dtype, int ndim, const int64_t *sizes)
{
    if (!out) return th__tensor_empty(fn, dtype, ndim, sizes);
    if (th__check_out(fn, out, dtype, ndim, sizes)) return NULL;
    return th_tensor_retain(out);
}

static void th__byte_range(const th_tensor *t, uintptr_t *lo, uintptr_t *hi);
static bool th__same_layout(const th_tensor *a, const th_tensor *b);
static th_tensor *th__convert_new(const char *fn, th_dtype dtype, const th_tensor *src);

/* in, as an op writing out may read it: in itself (retained) when their memory is disjoint, or when in is
 * exactly out (same first element and strides, so each element is read before it is written), else a
 * copy made before out is touched. NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__unalias(const char *fn, const th_tensor *out, const th_tensor *in)
{
    if (!in) {
        th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        return NULL;
    }
    if (out && in->storage == out->storage && th__numel(in) > 0 && th__numel(out) > 0) {
        if (th__same_layout(out, in)) return th_tensor_retain((th_tensor *)in);
        uintptr_t olo, ohi, ilo, ihi;
        th__byte_range(out, &olo, &ohi);
        th__byte_range(in, &ilo, &ihi);
        if (olo < ihi && ilo < ohi) return th__convert_new(fn, in->dtype, in);
    }
    return th_tensor_retain((th_tensor *)in);
}

/* ---- th__ copies ------------------------------------------------------------------------- */

/* The per-dtype loops that copies between dtypes go through: each dtype reads into and writes from the
 * three wide types (int64, double, double complex), so N dtypes need 6N loops, not N^2. */
typedef struct th__kernels {
    void (*load_i64)(const char *src, int64_t stride, int64_t n, int64_t *out);
    void (*load_f64)(const char *src, int64_t stride, int64_t n, double *out);
    void (*load_c128)(const char *src, int64_t stride, int64_t n, th_complex128 *out);
    void (*store_i64)(const int64_t *in, char *dst, int64_t stride, int64_t n);
    void (*store_f64)(const double *in, char *dst, int64_t stride, int64_t n);
    void (*store_c128)(const th_complex128 *in, char *dst, int64_t stride, int64_t n);
} th__kernels;

/* Defined after the dtypes are stamped; NULL for a dtype that was not. */
static const th__kernels *th__kernels_of(th_dtype dtype);

static int th__need_kernels(const char *fn, th_dtype dtype, const th__kernels **out)
{
    *out = th__kernels_of(dtype);
    if (!*out)
        return th__fail(TH_ERR_DTYPE, fn, "dtype %s is not compiled into this build (see TH_SELECT_DTYPES)",
                        th_dtype_name(dtype));
    return TH_OK;
}

/* Constant es after inlining, so each call site becomes plain loads and stores of that width. */
static inline void th__copy_row_sized(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, size_t es)
{
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, es);
}

static TH__HOT void th__copy_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    size_t es = *(const size_t *)ctx;
    if (strides[0] == (int64_t)es && strides[1] == (int64_t)es) {
        memcpy(data[0], data[1], (size_t)n * es);
        return;
    }
    switch (es) {
    case 1: th__copy_row_sized(data[0], strides[0], data[1], strides[1], n, 1); break;
    case 2: th__copy_row_sized(data[0], strides[0], data[1], strides[1], n, 2); break;
    case 4: th__copy_row_sized(data[0], strides[0], data[1], strides[1], n, 4); break;
    case 8: th__copy_row_sized(data[0], strides[0], data[1], strides[1], n, 8); break;
    default: th__copy_row_sized(data[0], strides[0], data[1], strides[1], n, es); break;
    }
}

/* A 2-d copy where dst is contiguous along dim 0 and src along dim 1 (a transpose): square tiles keep both
 * the rows read and the rows written in L1, where a row-by-row copy would miss on every element of src. */
enum { TH__TILE = 32 };

static inline void th__copy_tiled_sized(const th__iter *it, size_t es)
{
    const int64_t n0 = it->shape[0], n1 = it->shape[1];
    const int64_t d0 = it->strides[0][0], d1 = it->strides[0][1];
    const int64_t s0 = it->strides[1][0], s1 = it->strides[1][1];
    for (int64_t i1 = 0; i1 < n1; i1 += TH__TILE) {
        int64_t e1 = i1 + TH__TILE < n1 ? i1 + TH__TILE : n1;
        for (int64_t i0 = 0; i0 < n0; i0 += TH__TILE) {
            int64_t e0 = i0 + TH__TILE < n0 ? i0 + TH__TILE : n0;
            for (int64_t j1 = i1; j1 < e1; j1++) {
                char *dst = it->data[0] + j1 * d1;
                const char *src = it->data[1] + j1 * s1;
                for (int64_t j0 = i0; j0 < e0; j0++) memcpy(dst + j0 * d0, src + j0 * s0, es);
            }
        }
    }
}

static TH__HOT void th__copy_tiled(const th__iter *it, size_t es)
{
    switch (es) {
    case 1: th__copy_tiled_sized(it, 1); break;
    case 2: th__copy_tiled_sized(it, 2); break;
    case 4: th__copy_tiled_sized(it, 4); break;
    case 8: th__copy_tiled_sized(it, 8); break;
    default: th__copy_tiled_sized(it, es); break;
    }
}

typedef enum th__wide { TH__WIDE_I64, TH__WIDE_F64, TH__WIDE_C128 } th__wide;

typedef struct th__convert_plan {
    const th__kernels *src, *dst;
    th__wide wide;
    bool dst_is_wide; /* dst's elements are the wide type itself: load straight into it */
} th__convert_plan;

enum { TH__CONVERT_BLOCK = 256 };

static TH__HOT void th__convert_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const th__convert_plan *p = (const th__convert_plan *)ctx;
    union {
        int64_t i[TH__CONVERT_BLOCK];
        double f[TH__CONVERT_BLOCK];
        th_complex128 c[TH__CONVERT_BLOCK];
    } buf;
    const size_t wide_size = p->wide == TH__WIDE_C128 ? sizeof(th_complex128) : 8;
    for (int64_t done = 0; done < n; done += TH__CONVERT_BLOCK) {
        int64_t m = n - done < TH__CONVERT_BLOCK ? n - done : TH__CONVERT_BLOCK;
        char *dst = data[0] + done * strides[0];
        const char *src = data[1] + done * strides[1];
        bool direct = p->dst_is_wide && strides[0] == (int64_t)wide_size && (uintptr_t)dst % wide_size == 0;
        switch (p->wide) {
        case TH__WIDE_I64:
            if (direct) { p->src->load_i64(src, strides[1], m, (int64_t *)(void *)dst); break; }
            p->src->load_i64(src, strides[1], m, buf.i);
            p->dst->store_i64(buf.i, dst, strides[0], m);
            break;
        case TH__WIDE_F64:
            if (direct) { p->src->load_f64(src, strides[1], m, (double *)(void *)dst); break; }
            p->src->load_f64(src, strides[1], m, buf.f);
            p->dst->store_f64(buf.f, dst, strides[0], m);
            break;
        case TH__WIDE_C128:
            if (direct) { p->src->load_c128(src, strides[1], m, (th_complex128 *)(void *)dst); break; }
            p->src->load_c128(src, strides[1], m, buf.c);
            p->dst->store_c128(buf.c, dst, strides[0], m);
            break;
        }
    }
}

/* The byte range [lo, hi) a tensor's elements occupy. */
static void th__byte_range(const th_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    int64_t l, h;
    th__span(t, &l, &h);
    int64_t es = (int64_t)th__elsize(t);
    uintptr_t base = (uintptr_t)th_tensor_data(t);
    *lo = base + (uintptr_t)(l * es);
    *hi = base + (uintptr_t)((h + 1) * es);
}

static bool th__same_layout(const th_tensor *a, const th_tensor *b)
{
    if (a->dtype != b->dtype || a->ndim != b->ndim || th_tensor_data(a) != th_tensor_data(b)) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || (a->sizes[d] > 1 && a->strides[d] != b->strides[d])) return false;
    return true;
}

static th_tensor *th__convert_new(const char *fn, th_dtype dtype, const th_tensor *src);

static int th__copy(const char *fn, th_tensor *dst, const th_tensor *src)
{
    if (!dst || !src) return th__fail(TH_ERR_INVALID, fn, "NULL %s", dst ? "src" : "dst");
    const th__kernels *kd, *ks;
    if (th__need_kernels(fn, dst->dtype, &kd) || th__need_kernels(fn, src->dtype, &ks)) return th_last_status();
    for (int d = 0; d < dst->ndim; d++)
        if (dst->strides[d] == 0 && dst->sizes[d] > 1)
            return th__fail(TH_ERR_INVALID, fn,
                            "dst dim %d has stride 0, so several of its elements are one memory location", d);
    if (th__check_writable(fn, dst->storage)) return th_last_status();
    const th_tensor *ops[2] = {dst, src};
    th__iter it;
    int status = th__iter_init(fn, &it, 2, ops);
    if (status || it.numel == 0) return status;
    if (th__same_layout(dst, src)) return TH_OK;
    uintptr_t dlo, dhi, slo, shi;
    th__byte_range(dst, &dlo, &dhi);
    th__byte_range(src, &slo, &shi);
    if (dlo < shi && slo < dhi) { /* src may change under the copy: copy it out first */
        th_tensor *tmp = th__convert_new(fn, src->dtype, src);
        if (!tmp) return th_last_status();
        status = th__copy(fn, dst, tmp);
        th_tensor_release(tmp);
        return status;
    }
    if (dst->dtype == src->dtype) {
        size_t es = th__elsize(dst);
        bool transposed = it.ndim == 2 && it.strides[0][0] == (int64_t)es && it.strides[1][1] == (int64_t)es &&
                          it.strides[1][0] != (int64_t)es && it.shape[0] >= TH__TILE && it.shape[1] >= TH__TILE;
        if (transposed)
            th__copy_tiled(&it, es);
        else
            th__iter_for_each(&it, th__copy_row, &es);
        return TH_OK;
    }
    th_dtype_kind sk = th__dtype_traits[src->dtype].kind, dk = th__dtype_traits[dst->dtype].kind;
    th__convert_plan plan;
    plan.src = ks;
    plan.dst = kd;
    /* Integers go through int64 even to floating and complex dtypes, so int64 -> float32 or complex64 rounds
     * once, not twice. */
    if (sk == TH_KIND_COMPLEX || (dk == TH_KIND_COMPLEX && sk == TH_KIND_FLOAT))
        plan.wide = TH__WIDE_C128;
    else if (sk == TH_KIND_FLOAT)
        plan.wide = TH__WIDE_F64;
    else
        plan.wide = TH__WIDE_I64;
    plan.dst_is_wide = (plan.wide == TH__WIDE_I64 && dst->dtype == TH_I64) ||
                       (plan.wide == TH__WIDE_F64 && dst->dtype == TH_F64) ||
                       (plan.wide == TH__WIDE_C128 && dst->dtype == TH_C128);
    th__iter_for_each(&it, th__convert_row, &plan);
    return TH_OK;
}

TH_API int th_tensor_copy(th_tensor *dst, const th_tensor *src) { return th__copy("th_tensor_copy", dst, src); }

/* A new contiguous tensor of dtype with src's values. */
static th_tensor *th__convert_new(const char *fn, th_dtype dtype, const th_tensor *src)
{
    TH__NEED(src, fn);
    th_tensor *t = th__tensor_empty(fn, dtype, src->ndim, src->sizes);
    if (!t) return NULL;
    if (th__copy(fn, t, src)) {
        th_tensor_release(t);
        return NULL;
    }
    return t;
}

static th_tensor *th__contiguous(const char *fn, th_tensor *t)
{
    TH__NEED(t, fn);
    if (th_tensor_is_contiguous(t)) return th_tensor_retain(t);
    return th__convert_new(fn, t->dtype, t);
}

static th_tensor *th__reshape(const char *fn, th_tensor *t, int ndim, const int64_t *sizes)
{
    TH__NEED(t, fn);
    int64_t new_sizes[TH_MAX_DIMS], new_strides[TH_MAX_DIMS];
    if (th__infer_size(fn, ndim, sizes, th__numel(t), new_sizes)) return NULL;
    if (th__view_strides(t->ndim, t->sizes, t->strides, ndim, new_sizes, new_strides))
        return th__view_of(fn, t, t->offset, ndim, new_sizes, new_strides);
    th_tensor *copy = th__convert_new(fn, t->dtype, t);
    if (!copy) return NULL;
    th_tensor *v = th__view(fn, copy, ndim, new_sizes);
    th_tensor_release(copy);
    return v;
}

/* ---- th__ printing ----------------------------------------------------------------------- */

enum { TH__PRINT_SUMMARY_AT = 1000, TH__PRINT_EDGE = 3 };

typedef struct th__printer {
    FILE *f;
    const th_tensor *t;
    const th__kernels *k;
    th_dtype_kind kind;
    bool summarise;
    bool measuring;
    /* what the values seen so far need */
    bool all_integral, any_finite;
    double max_abs, min_abs_nonzero;
    /* how to print them */
    bool scientific;
    int width;
} th__printer;

static void th__format_real(const th__printer *p, double v, char *buf, size_t cap)
{
    if (isnan(v))
        snprintf(buf, cap, "nan");
    else if (isinf(v))
        snprintf(buf, cap, v < 0 ? "-inf" : "inf");
    else if (p->scientific)
        snprintf(buf, cap, "%.4e", v);
    else if (p->all_integral)
        snprintf(buf, cap, "%.0f.", v);
    else
        snprintf(buf, cap, "%.4f", v);
}

static void th__note_real(th__printer *p, double v)
{
    if (!isfinite(v)) return;
    double a = fabs(v);
    p->any_finite = true;
    if (a != floor(a)) p->all_integral = false;
    if (a > p->max_abs) p->max_abs = a;
    if (a > 0 && (p->min_abs_nonzero == 0 || a < p->min_abs_nonzero)) p->min_abs_nonzero = a;
}

static void th__print_element(th__printer *p, const char *ptr)
{
    char buf[128];
    switch (p->kind) {
    case TH_KIND_BOOL:
    case TH_KIND_UINT:
    case TH_KIND_INT: {
        int64_t v;
        p->k->load_i64(ptr, 0, 1, &v);
        if (p->kind == TH_KIND_BOOL)
            snprintf(buf, sizeof buf, v ? "True" : "False");
        else
            snprintf(buf, sizeof buf, "%lld", (long long)v);
        break;
    }
    case TH_KIND_FLOAT: {
        double v;
        p->k->load_f64(ptr, 0, 1, &v);
        if (p->measuring) th__note_real(p, v);
        th__format_real(p, v, buf, sizeof buf);
        break;
    }
    case TH_KIND_COMPLEX: {
        th_complex128 z;
        p->k->load_c128(ptr, 0, 1, &z);
        double re = th__c128_real(z), im = th__c128_imag(z);
        if (p->measuring) {
            th__note_real(p, re);
            th__note_real(p, im);
        }
        char a[48], b[48];
        th__format_real(p, re, a, sizeof a);
        th__format_real(p, fabs(im), b, sizeof b);
        snprintf(buf, sizeof buf, "%s%s%sj", a, signbit(im) ? "-" : "+", b);
        break;
    }
    }
    int len = (int)strlen(buf);
    if (p->measuring) {
        if (len > p->width) p->width = len;
    } else {
        fprintf(p->f, "%*s", p->width, buf);
    }
}

static void th__print_dim(th__printer *p, int dim, const char *ptr, int indent)
{
    const th_tensor *t = p->t;
    if (dim == t->ndim) {
        th__print_element(p, ptr);
        return;
    }
    int64_t size = t->sizes[dim];
    /* The stride of a size-1 dim may be anything (DLPack imports keep it): never multiply it. */
    int64_t step = size > 1 ? t->strides[dim] * (int64_t)th__elsize(t) : 0;
    bool cut = p->summarise && size > 2 * TH__PRINT_EDGE;
    bool last = dim == t->ndim - 1;
    if (!p->measuring) fputc('[', p->f);
    for (int64_t i = 0; i < size; i++) {
        if (cut && i == TH__PRINT_EDGE) {
            if (!p->measuring) fprintf(p->f, last ? ", ..." : ",\n%*s...", indent + dim + 1, "");
            i = size - TH__PRINT_EDGE;
        }
        if (i > 0 && !p->measuring) {
            if (last)
                fputs(", ", p->f);
            else {
                fputc(',', p->f);
                for (int k = dim; k < t->ndim - 1; k++) fputc('\n', p->f);
                fprintf(p->f, "%*s", indent + dim + 1, "");
            }
        }
        th__print_dim(p, dim + 1, ptr + i * step, indent);
    }
    if (!p->measuring) fputc(']', p->f);
}

static int th__print(const char *fn, FILE *f, const th_tensor *t)
{
    if (!f || !t) return th__fail(TH_ERR_INVALID, fn, "NULL %s", f ? "tensor" : "stream");
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "the tensor is on device type %d, which the host cannot touch",
                        (int)t->storage->device.type);
    if (th__check_fits(fn, t)) return th_last_status();
    th__printer p;
    memset(&p, 0, sizeof p);
    if (th__need_kernels(fn, t->dtype, &p.k)) return th_last_status();
    p.f = f;
    p.t = t;
    p.kind = th__dtype_traits[t->dtype].kind;
    p.summarise = th__numel(t) > TH__PRINT_SUMMARY_AT;
    p.all_integral = true;
    static const char prefix[] = "tensor(";
    const int indent = (int)sizeof prefix - 1;
    const char *data = (const char *)th_tensor_data(t);
    fputs(prefix, f);
    if (th__numel(t) == 0) {
        fputs("[], size=(", f);
        for (int d = 0; d < t->ndim; d++) fprintf(f, d ? ", %lld" : "%lld", (long long)t->sizes[d]);
        fputs(t->ndim == 1 ? ",)" : ")", f);
    } else {
        p.measuring = true;
        th__print_dim(&p, 0, data, indent);
        p.scientific = p.any_finite && (p.max_abs >= 1e8 || (p.min_abs_nonzero > 0 && p.min_abs_nonzero < 1e-4));
        p.width = 0;
        th__print_dim(&p, 0, data, indent); /* widths with the final format */
        p.measuring = false;
        th__print_dim(&p, 0, data, indent);
    }
    fprintf(f, ", dtype=%s)\n", th_dtype_name(t->dtype));
    if (ferror(f)) return th__fail(TH_ERR_IO, fn, "writing to the stream failed");
    return TH_OK;
}

TH_API int th_tensor_print(FILE *f, const th_tensor *t) { return th__print("th_tensor_print", f, t); }

/* ---- th__ DLPack ------------------------------------------------------------------------- */

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
    th_dtype dtype;
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
    if (device.type == TH_DEVICE_CUDA) {
        th__fail(TH_ERR_DEVICE, fn, "CUDA device memory (device %d) cannot be imported: this build has no CUDA "
                 "support and the host cannot touch it", (int)device.index);
        return NULL;
    }
    if (!th_device_is_host(device)) {
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

/* ---- th__ the op families' dtype-independent definitions --------------------------------- */

#define TH__ERASED_IMPL
#include "generate/ops/pointwise_erased.h"
#include "generate/ops/shape_erased.h"
#include "generate/ops/index_erased.h"
#include "generate/ops/reduce_erased.h"
#include "generate/ops/random_erased.h"
#include "generate/ops/vecmath_erased.h"
#include "generate/ops/linalg_erased.h"
#undef TH__ERASED_IMPL

/* ---- th__ per-dtype definitions ---------------------------------------------------------- */

#define TH_GENERIC_FILE "../tensor_generic.h"
#include "generate/all.h"

static const th__kernels *th__kernels_of(th_dtype dtype)
{
    static const th__kernels *const table[TH_NUM_DTYPES] = {
#define TH__X(sfx, ENUM, ...) TH__IF_##sfx([TH_##ENUM] = &th__##sfx##_kernels, )
        TH_FOREACH_DTYPE(TH__X)
#undef TH__X
    };
    return th__dtype_valid(dtype) ? table[dtype] : NULL;
}
#endif /* TH_IMPLEMENTATION */
