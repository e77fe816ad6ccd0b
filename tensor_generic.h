/* tensor_generic.h: the per-dtype part of tensor.h, written once and stamped for every dtype by generate/.
 *
 * Read TH_NAME(narrow) as th_f32_narrow, th_i64_narrow, ...; real is the element type and accreal the
 * accumulation type (generate/stamp.h lists every macro a generic file can use). The layout and
 * dtype-independent logic (views, shape checks, copies between dtypes) lives once, dtype-erased, in core/;
 * the functions here are the typed front doors to it and the loops that need the element type.
 *
 * tensor.h stamps this file in both of its passes: the declarations, then (TH__DEFINING, in the
 * TH_IMPLEMENTATION translation unit) the definitions. */
#ifndef TH_NAME
#error "tensor_generic.h is stamped through generate/ by tensor.h; include tensor.h instead"
#endif

/* The names of the op an op template (ops/unary_op.h, binary_op.h, reduce_op.h) is stamping: with TH_OP add
 * and dtype f32, TH__OP_NAME(_out) is th_f32_add_out, TH__OP_PRIVATE(_row) is th__f32_add_row and
 * TH__OP_FN(_out) is "th_f32_add_out", the name its errors give. */
#define TH__OP_PASTE_(op, sfx) op##sfx
#define TH__OP_PASTE(op, sfx) TH__OP_PASTE_(op, sfx)
#define TH__OP_NAME(sfx) TH_NAME(TH__OP_PASTE(TH_OP, sfx))
#define TH__OP_PRIVATE(sfx) TH_PRIVATE(TH__OP_PASTE(TH_OP, sfx))
#define TH__OP_FN(sfx) TH__STR(TH__OP_NAME(sfx))
/* A complex dtype's parts: real and imag views are tensors of this type. */
#if defined(TH_REAL_IS_C64)
#define TH__PART_TENSOR th_f32_tensor
#elif defined(TH_REAL_IS_C128)
#define TH__PART_TENSOR th_f64_tensor
#endif

#ifndef TH__DEFINING

/* ---- storage, counted in elements of this dtype ---- */

/* A storage of n elements from the default allocator; NULL on error (negative n, overflow, out of memory). */
TH_API th_storage *TH_NAME(storage_new)(int64_t n);
/* The same from allocator and its context. */
TH_API th_storage *TH_NAME(storage_new_with_allocator)(int64_t n, const th_allocator *allocator, void *ctx);
/* Wraps n elements at data (host memory) without copying; deleter runs once when the last user lets go.
 * On error returns NULL and does not run the deleter. */
TH_API th_storage *TH_NAME(storage_from_blob)(real *data, int64_t n, th_deleter deleter, void *deleter_ctx);
/* The first element; NULL for a NULL or empty storage. */
TH_API real *TH_NAME(storage_data)(const th_storage *s);
/* The number of whole elements of this dtype; 0 for NULL. */
TH_API int64_t TH_NAME(storage_size)(const th_storage *s);
/* Sets every element; a negative status for NULL or device memory. */
TH_API int TH_NAME(storage_fill)(th_storage *s, real value);

/* ---- creation: each returns a new tensor (refcount 1) or NULL on error ---- */

/* Contiguous, uninitialised, from the default allocator. Errors: ndim outside 0..TH_MAX_DIMS, NULL sizes,
 * a negative size, an element count that overflows, out of memory. */
TH_API TH_NAME(tensor) *TH_NAME(empty)(int ndim, const int64_t *sizes);
TH_API TH_NAME(tensor) *TH_NAME(zeros)(int ndim, const int64_t *sizes);
TH_API TH_NAME(tensor) *TH_NAME(ones)(int ndim, const int64_t *sizes);
TH_API TH_NAME(tensor) *TH_NAME(full)(int ndim, const int64_t *sizes, real value);
/* Wraps host memory without copying. strides (elements, may be negative or 0) may be NULL for contiguous;
 * data points at element [0, 0, ...]. deleter (may be NULL) runs once, with data and deleter_ctx, when the
 * last tensor or storage over it lets go. On error returns NULL and does not run the deleter. */
TH_API TH_NAME(tensor) *TH_NAME(from_blob)(real *data, int ndim, const int64_t *sizes, const int64_t *strides,
                                           th_deleter deleter, void *deleter_ctx);
/* A tensor over storage (retained), starting offset elements in; strides may be NULL for contiguous.
 * Errors: NULL storage, bad sizes, elements outside the storage. */
TH_API TH_NAME(tensor) *TH_NAME(new_with_storage)(th_storage *storage, int64_t offset, int ndim,
                                                  const int64_t *sizes, const int64_t *strides);
/* A new tensor of this dtype holding src's values converted (see th_tensor_copy). */
TH_API TH_NAME(tensor) *TH_NAME(convert)(const th_tensor *src);

/* ---- references ---- */

/* retain returns t; NULL is a no-op. The last release frees the tensor and lets go of its storage. A tensor of
 * another dtype is neither retained nor released (TH_ERR_DTYPE; retain returns NULL). */
TH_API TH_NAME(tensor) *TH_NAME(retain)(TH_NAME(tensor) *t);
TH_API void TH_NAME(release)(TH_NAME(tensor) *t);
/* The dtype-erased tensor underneath (NULL for NULL, and with TH_ERR_DTYPE for a tensor of another dtype). */
TH_API th_tensor *TH_NAME(base)(const TH_NAME(tensor) *t);
/* t as this dtype's tensor; NULL (with TH_ERR_DTYPE) when its dtype is another. */
TH_API TH_NAME(tensor) *TH_NAME(from_base)(th_tensor *t);

/* ---- properties: each returns, for a tensor of another dtype, what it returns for NULL, and records
 * TH_ERR_DTYPE ---- */

/* 0 for NULL. */
TH_API int TH_NAME(ndim)(const TH_NAME(tensor) *t);
/* The size of dim (negative counts from the end); -1 with an error for a NULL tensor or a dim out of range. */
TH_API int64_t TH_NAME(size)(const TH_NAME(tensor) *t, int dim);
/* The stride of dim in elements; 0 with an error for a NULL tensor or a dim out of range (0 is also a
 * valid stride: check th_last_status() if that matters). */
TH_API int64_t TH_NAME(stride)(const TH_NAME(tensor) *t, int dim);
/* All sizes / strides, valid while t lives; NULL for NULL. */
TH_API const int64_t *TH_NAME(sizes)(const TH_NAME(tensor) *t);
TH_API const int64_t *TH_NAME(strides)(const TH_NAME(tensor) *t);
/* 0 for NULL. */
TH_API int64_t TH_NAME(numel)(const TH_NAME(tensor) *t);
/* The first element; NULL for NULL or a tensor over no memory. */
TH_API real *TH_NAME(data)(const TH_NAME(tensor) *t);
/* The storage (not retained) and the element offset into it. */
TH_API th_storage *TH_NAME(storage)(const TH_NAME(tensor) *t);
TH_API int64_t TH_NAME(offset)(const TH_NAME(tensor) *t);
/* Row-major with no gaps; the strides of size-1 dims do not matter. false for NULL. */
TH_API bool TH_NAME(is_contiguous)(const TH_NAME(tensor) *t);

/* ---- elements ---- */

/* The element at idx (ndim indices, negative count from the end). On error (NULL, another dtype, index out of
 * range, device memory) returns zero and records the error: clear it first and check th_last_status(). */
TH_API real TH_NAME(get)(const TH_NAME(tensor) *t, const int64_t *idx);
/* Writes the element at idx; 0 or a negative status. */
TH_API int TH_NAME(set)(TH_NAME(tensor) *t, const int64_t *idx, real value);
/* Sets every element (any strides); 0 or a negative status. A tensor whose elements overlap (stride 0)
 * is filled too: every element gets the same value. */
TH_API int TH_NAME(fill)(TH_NAME(tensor) *t, real value);
/* Copies src into dst (same dtype; src broadcasts to dst's shape; any strides; overlap allowed). For other
 * dtypes see th_tensor_copy. 0 or a negative status. */
TH_API int TH_NAME(copy)(TH_NAME(tensor) *dst, const TH_NAME(tensor) *src);
/* t itself (retained) if it is contiguous, else a contiguous copy. NULL on error. */
TH_API TH_NAME(tensor) *TH_NAME(contiguous)(TH_NAME(tensor) *t);
/* A contiguous copy. NULL on error. */
TH_API TH_NAME(tensor) *TH_NAME(clone)(const TH_NAME(tensor) *t);
/* See th_tensor_print. */
TH_API int TH_NAME(print)(FILE *f, const TH_NAME(tensor) *t);

/* ---- views: each returns a new tensor over the same storage (no copy), or NULL on error ---- */

/* The same elements in a new shape (one size may be -1); TH_ERR_SHAPE if the strides do not allow it. */
TH_API TH_NAME(tensor) *TH_NAME(view)(TH_NAME(tensor) *t, int ndim, const int64_t *sizes);
/* view when the strides allow it, else a contiguous copy in the new shape. */
TH_API TH_NAME(tensor) *TH_NAME(reshape)(TH_NAME(tensor) *t, int ndim, const int64_t *sizes);
TH_API TH_NAME(tensor) *TH_NAME(transpose)(TH_NAME(tensor) *t, int dim0, int dim1);
/* dims holds ndim distinct dims: dim d of the result is dim dims[d] of t. */
TH_API TH_NAME(tensor) *TH_NAME(permute)(TH_NAME(tensor) *t, const int *dims);
/* Elements start .. start+length-1 of dim (a negative start counts from the end). */
TH_API TH_NAME(tensor) *TH_NAME(narrow)(TH_NAME(tensor) *t, int dim, int64_t start, int64_t length);
/* The slice at index of dim, which is removed. */
TH_API TH_NAME(tensor) *TH_NAME(select)(TH_NAME(tensor) *t, int dim, int64_t index);
#if defined(TH_REAL_IS_C64) || defined(TH_REAL_IS_C128)
/* The real and imaginary parts, as views of the real dtype of the same precision (th_c64_real gives an f32 view
 * whose strides are twice t's): writing through them writes t. th_tensor_real / th_tensor_imag in core/view.h. */
TH_API TH__PART_TENSOR *TH_DT_PASTE(th_, _real)(TH_NAME(tensor) *t); /* not TH_NAME: `real` is the element type's macro */
TH_API TH__PART_TENSOR *TH_DT_PASTE(th_, _imag)(TH_NAME(tensor) *t);
#endif
/* Windows of size elements every step along dim, as a new last dim. */
TH_API TH_NAME(tensor) *TH_NAME(unfold)(TH_NAME(tensor) *t, int dim, int64_t size, int64_t step);
/* Without its size-1 dims / without dim if it has size 1 (else an unchanged view). */
TH_API TH_NAME(tensor) *TH_NAME(squeeze)(TH_NAME(tensor) *t);
TH_API TH_NAME(tensor) *TH_NAME(squeeze_dim)(TH_NAME(tensor) *t, int dim);
/* With a new size-1 dim at dim (-1 appends). */
TH_API TH_NAME(tensor) *TH_NAME(unsqueeze)(TH_NAME(tensor) *t, int dim);
/* Size-1 dims repeated without copying (stride 0), new leading dims allowed; -1 keeps a size. */
TH_API TH_NAME(tensor) *TH_NAME(expand)(TH_NAME(tensor) *t, int ndim, const int64_t *sizes);
/* Any sizes and strides over t's storage, offset elements from the storage's start; every element
 * addressed must lie inside the storage. */
TH_API TH_NAME(tensor) *TH_NAME(as_strided)(TH_NAME(tensor) *t, int ndim, const int64_t *sizes,
                                            const int64_t *strides, int64_t offset);
/* Dims start_dim..end_dim merged into one; TH_ERR_SHAPE when the strides do not allow it without a copy. */
TH_API TH_NAME(tensor) *TH_NAME(flatten)(TH_NAME(tensor) *t, int start_dim, int end_dim);

#ifdef TH_HAS_DLPACK
/* ---- DLPack: see th_tensor_to_dlpack and th_tensor_from_dlpack for ownership and errors ---- */

TH_API DLManagedTensor *TH_NAME(to_dlpack)(TH_NAME(tensor) *t);
TH_API struct DLManagedTensorVersioned *TH_NAME(to_dlpack_versioned)(TH_NAME(tensor) *t);
/* As th_tensor_from_dlpack, and TH_ERR_DTYPE (deleter run) when the managed tensor holds another dtype. */
TH_API TH_NAME(tensor) *TH_NAME(from_dlpack)(DLManagedTensor *managed);
TH_API TH_NAME(tensor) *TH_NAME(from_dlpack_versioned)(struct DLManagedTensorVersioned *managed);
#endif

#else /* definitions */

#define TH__FN(verb) TH__STR(TH_NAME(verb))
#define TH__T(p) ((TH_NAME(tensor) *)(p))
#define TH__B(p) ((th_tensor *)(p))
/* The check a typed function starts with (ERRORS in tensor.h): true, with TH_ERR_DTYPE recorded under the
 * function's and the operand's names, when t holds another dtype than this one; the function then returns its
 * error value having touched nothing. Operands that the shared code checks as its first step keep that check,
 * whose message names them as the docs do: outs ("out is i32; this result is f32"), bool masks and conds and
 * int64 indices, a product's A, B and C, the tensors of cat and stack, the src of scatter and put.
 * tests/test_dtype_check.c passes a wrong dtype in every tensor parameter of every function. */
#define TH__WRONG_DTYPE(t) th__dtype_mismatch(__func__, #t, TH__B(t), TH_DT_ENUM)

/* ---- element conversions, through the three wide types copies between dtypes use ---- */

static inline double TH_PRIVATE(to_f64)(real x)
{
#if defined(TH_REAL_IS_F16)
    return (double)th_float16_to_float(x);
#elif defined(TH_REAL_IS_BF16)
    return (double)th_bfloat16_to_float(x);
#else
    return (double)x; /* complex: C keeps the real part */
#endif
}

static inline int64_t TH_PRIVATE(to_i64)(real x)
{
#if defined(TH_REAL_IS_BOOL) || defined(TH_REAL_IS_INTEGER)
    return (int64_t)x;
#else
    return th__f64_to_int_saturating(TH_PRIVATE(to_f64)(x), INT64_MIN, INT64_MAX);
#endif
}

static inline th_complex128 TH_PRIVATE(to_c128)(real x)
{
#if defined(TH_REAL_IS_COMPLEX)
    return (th_complex128)x;
#else
    return th__c128_make(TH_PRIVATE(to_f64)(x), 0.0);
#endif
}

static inline real TH_PRIVATE(from_f64)(double v)
{
#if defined(TH_REAL_IS_BOOL)
    return v != 0.0; /* NaN is true, as in C */
#elif defined(TH_REAL_IS_U8)
    return (real)th__f64_to_int_saturating(v, 0, UINT8_MAX);
#elif defined(TH_REAL_IS_I8)
    return (real)th__f64_to_int_saturating(v, INT8_MIN, INT8_MAX);
#elif defined(TH_REAL_IS_I16)
    return (real)th__f64_to_int_saturating(v, INT16_MIN, INT16_MAX);
#elif defined(TH_REAL_IS_I32)
    return (real)th__f64_to_int_saturating(v, INT32_MIN, INT32_MAX);
#elif defined(TH_REAL_IS_I64)
    return (real)th__f64_to_int_saturating(v, INT64_MIN, INT64_MAX);
#elif defined(TH_REAL_IS_F16)
    return th_float16_from_double(v);
#elif defined(TH_REAL_IS_BF16)
    return th_bfloat16_from_double(v);
#else
    return (real)v;
#endif
}

static inline real TH_PRIVATE(from_i64)(int64_t v)
{
#if defined(TH_REAL_IS_BOOL)
    return v != 0;
#elif defined(TH_REAL_IS_INTEGER)
    /* Through the unsigned type: wraps modulo 2^bits (gcc and clang define the final signed conversion). */
    return (real)(uint64_t)v;
#elif defined(TH_REAL_IS_F16)
    return th_float16_from_double(th__i64_to_f64_round_odd(v));
#elif defined(TH_REAL_IS_BF16)
    return th_bfloat16_from_double(th__i64_to_f64_round_odd(v));
#elif defined(TH_REAL_IS_F32)
    /* Not (float)v: some targets (and valgrind) convert int64 -> float through double, rounding twice. */
    return (float)th__i64_to_f64_round_odd(v);
#elif defined(TH_REAL_IS_C64)
    return th__c64_make((float)th__i64_to_f64_round_odd(v), 0.0f);
#else
    return (real)v; /* double: the cast rounds once */
#endif
}

static inline real TH_PRIVATE(from_c128)(th_complex128 v)
{
#if defined(TH_REAL_IS_BOOL)
    return th__c128_real(v) != 0.0 || th__c128_imag(v) != 0.0;
#elif defined(TH_REAL_IS_COMPLEX)
    return (real)v;
#else
    return TH_PRIVATE(from_f64)(th__c128_real(v));
#endif
}

static inline real TH_PRIVATE(load)(const char *p)
{
#if defined(TH_REAL_IS_BOOL)
    uint8_t byte; /* storages are untyped: a bool byte other than 0 or 1 must not become an invalid _Bool */
    memcpy(&byte, p, 1);
    return byte != 0;
#else
    real x;
    memcpy(&x, p, sizeof x); /* blobs may be unaligned */
    return x;
#endif
}

static inline void TH_PRIVATE(store)(char *p, real x) { memcpy(p, &x, sizeof x); }

static TH__HOT void TH_PRIVATE(load_i64)(const char *src, int64_t stride, int64_t n, int64_t *out)
{
    if (stride == (int64_t)sizeof(real)) /* a constant stride: the compiler emits straight vector loads */
        for (int64_t i = 0; i < n; i++) out[i] = TH_PRIVATE(to_i64)(TH_PRIVATE(load)(src + i * (int64_t)sizeof(real)));
    else
        for (int64_t i = 0; i < n; i++) out[i] = TH_PRIVATE(to_i64)(TH_PRIVATE(load)(src + i * stride));
}

static TH__HOT void TH_PRIVATE(load_f64)(const char *src, int64_t stride, int64_t n, double *out)
{
    if (stride == (int64_t)sizeof(real)) /* a constant stride: the compiler emits straight vector loads */
        for (int64_t i = 0; i < n; i++) out[i] = TH_PRIVATE(to_f64)(TH_PRIVATE(load)(src + i * (int64_t)sizeof(real)));
    else
        for (int64_t i = 0; i < n; i++) out[i] = TH_PRIVATE(to_f64)(TH_PRIVATE(load)(src + i * stride));
}

static TH__HOT void TH_PRIVATE(load_c128)(const char *src, int64_t stride, int64_t n, th_complex128 *out)
{
    if (stride == (int64_t)sizeof(real)) /* a constant stride: the compiler emits straight vector loads */
        for (int64_t i = 0; i < n; i++) out[i] = TH_PRIVATE(to_c128)(TH_PRIVATE(load)(src + i * (int64_t)sizeof(real)));
    else
        for (int64_t i = 0; i < n; i++) out[i] = TH_PRIVATE(to_c128)(TH_PRIVATE(load)(src + i * stride));
}

static TH__HOT void TH_PRIVATE(store_i64)(const int64_t *in, char *dst, int64_t stride, int64_t n)
{
    if (stride == (int64_t)sizeof(real))
        for (int64_t i = 0; i < n; i++) TH_PRIVATE(store)(dst + i * (int64_t)sizeof(real), TH_PRIVATE(from_i64)(in[i]));
    else
        for (int64_t i = 0; i < n; i++) TH_PRIVATE(store)(dst + i * stride, TH_PRIVATE(from_i64)(in[i]));
}

static TH__HOT void TH_PRIVATE(store_f64)(const double *in, char *dst, int64_t stride, int64_t n)
{
    if (stride == (int64_t)sizeof(real))
        for (int64_t i = 0; i < n; i++) TH_PRIVATE(store)(dst + i * (int64_t)sizeof(real), TH_PRIVATE(from_f64)(in[i]));
    else
        for (int64_t i = 0; i < n; i++) TH_PRIVATE(store)(dst + i * stride, TH_PRIVATE(from_f64)(in[i]));
}

static TH__HOT void TH_PRIVATE(store_c128)(const th_complex128 *in, char *dst, int64_t stride, int64_t n)
{
    if (stride == (int64_t)sizeof(real))
        for (int64_t i = 0; i < n; i++) TH_PRIVATE(store)(dst + i * (int64_t)sizeof(real), TH_PRIVATE(from_c128)(in[i]));
    else
        for (int64_t i = 0; i < n; i++) TH_PRIVATE(store)(dst + i * stride, TH_PRIVATE(from_c128)(in[i]));
}

static TH__HOT void TH_PRIVATE(fill_row)(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const real value = *(const real *)ctx;
    char *p = data[0];
    if (strides[0] == (int64_t)sizeof(real) && ((uintptr_t)p % _Alignof(real)) == 0) {
        real *restrict out = (real *)(void *)p;
        for (int64_t i = 0; i < n; i++) out[i] = value;
        return;
    }
    for (int64_t i = 0; i < n; i++) TH_PRIVATE(store)(p + i * strides[0], value);
}

static const th__kernels TH_PRIVATE(kernels) = {
    TH_PRIVATE(load_i64),  TH_PRIVATE(load_f64),  TH_PRIVATE(load_c128),
    TH_PRIVATE(store_i64), TH_PRIVATE(store_f64), TH_PRIVATE(store_c128),
};

/* ---- storage ---- */

TH_API th_storage *TH_NAME(storage_new)(int64_t n)
{
    void *ctx;
    const th_allocator *a = th_default_allocator(&ctx);
    return th__storage_new_elems(TH__FN(storage_new), TH_DT_ENUM, n, a, ctx);
}

TH_API th_storage *TH_NAME(storage_new_with_allocator)(int64_t n, const th_allocator *allocator, void *ctx)
{
    return th__storage_new_elems(TH__FN(storage_new_with_allocator), TH_DT_ENUM, n, allocator, ctx);
}

TH_API th_storage *TH_NAME(storage_from_blob)(real *data, int64_t n, th_deleter deleter, void *deleter_ctx)
{
    if (n < 0 || n > INT64_MAX / (int64_t)sizeof(real)) {
        th__fail(n < 0 ? TH_ERR_INVALID : TH_ERR_OVERFLOW, TH__FN(storage_from_blob), "bad element count %lld",
                 (long long)n);
        return NULL;
    }
    return th__storage_wrap(TH__FN(storage_from_blob), data, n * (int64_t)sizeof(real), th__cpu_device, deleter,
                            data, deleter_ctx);
}

TH_API real *TH_NAME(storage_data)(const th_storage *s) { return s ? (real *)s->data : NULL; }

TH_API int64_t TH_NAME(storage_size)(const th_storage *s) { return s ? s->nbytes / (int64_t)sizeof(real) : 0; }

TH_API int TH_NAME(storage_fill)(th_storage *s, real value)
{
    char *p = (char *)th__storage_host_data(TH__FN(storage_fill), s);
    if (!p) return s && th_device_is_host(s->device) ? TH_OK : th_last_status(); /* empty, or an error */
    if (th__check_writable(TH__FN(storage_fill), s)) return th_last_status();
    int64_t strides[1] = {(int64_t)sizeof(real)};
    TH_PRIVATE(fill_row)(&p, strides, s->nbytes / (int64_t)sizeof(real), &value);
    return TH_OK;
}

/* ---- creation ---- */

TH_API TH_NAME(tensor) *TH_NAME(empty)(int ndim, const int64_t *sizes)
{
    return TH__T(th__tensor_empty(TH__FN(empty), TH_DT_ENUM, ndim, sizes));
}

/* t, a new tensor, filled with value; NULL (t released) where the host cannot touch its memory. */
static TH_NAME(tensor) *TH_PRIVATE(fill_new)(const char *fn, th_tensor *t, real value)
{
    if (!t) return NULL;
    if (!th_device_is_host(t->storage->device)) {
        const int type = (int)t->storage->device.type;
        th_tensor_release(t);
        th__fail(TH_ERR_DEVICE, fn, "the new tensor's memory is on device type %d, which the host cannot fill (its "
                 "companion fills device tensors)", type);
        return NULL;
    }
    char *p = (char *)th_tensor_data(t);
    int64_t strides[1] = {(int64_t)sizeof(real)};
    TH_PRIVATE(fill_row)(&p, strides, th__numel(t), &value);
    return TH__T(t);
}

static TH_NAME(tensor) *TH_PRIVATE(filled)(const char *fn, int ndim, const int64_t *sizes, real value)
{
    return TH_PRIVATE(fill_new)(fn, th__tensor_empty(fn, TH_DT_ENUM, ndim, sizes), value);
}

TH_API TH_NAME(tensor) *TH_NAME(zeros)(int ndim, const int64_t *sizes)
{
    return TH_PRIVATE(filled)(TH__FN(zeros), ndim, sizes, TH_PRIVATE(from_i64)(0));
}

TH_API TH_NAME(tensor) *TH_NAME(ones)(int ndim, const int64_t *sizes)
{
    return TH_PRIVATE(filled)(TH__FN(ones), ndim, sizes, TH_PRIVATE(from_i64)(1));
}

TH_API TH_NAME(tensor) *TH_NAME(full)(int ndim, const int64_t *sizes, real value)
{
    return TH_PRIVATE(filled)(TH__FN(full), ndim, sizes, value);
}

TH_API TH_NAME(tensor) *TH_NAME(from_blob)(real *data, int ndim, const int64_t *sizes, const int64_t *strides,
                                           th_deleter deleter, void *deleter_ctx)
{
    return TH__T(th__tensor_from_blob(TH__FN(from_blob), TH_DT_ENUM, data, ndim, sizes, strides, deleter,
                                      deleter_ctx));
}

TH_API TH_NAME(tensor) *TH_NAME(new_with_storage)(th_storage *storage, int64_t offset, int ndim,
                                                  const int64_t *sizes, const int64_t *strides)
{
    return TH__T(th__tensor_new_with_storage(TH__FN(new_with_storage), TH_DT_ENUM, storage, offset, ndim, sizes,
                                             strides));
}

TH_API TH_NAME(tensor) *TH_NAME(convert)(const th_tensor *src)
{
    return TH__T(th__convert_new(TH__FN(convert), TH_DT_ENUM, src));
}

/* ---- references and properties ---- */

TH_API TH_NAME(tensor) *TH_NAME(retain)(TH_NAME(tensor) *t)
{
    return TH__WRONG_DTYPE(t) ? NULL : TH__T(th_tensor_retain(TH__B(t)));
}

/* Releasing through the wrong handle is a bug in the caller: a leak is safer than freeing what the caller
 * may still take for something else. */
TH_API void TH_NAME(release)(TH_NAME(tensor) *t)
{
    if (!TH__WRONG_DTYPE(t)) th_tensor_release(TH__B(t));
}

TH_API th_tensor *TH_NAME(base)(const TH_NAME(tensor) *t) { return TH__WRONG_DTYPE(t) ? NULL : TH__B(t); }

TH_API TH_NAME(tensor) *TH_NAME(from_base)(th_tensor *t)
{
    if (!t) {
        th__fail(TH_ERR_INVALID, TH__FN(from_base), "NULL tensor");
        return NULL;
    }
    if (t->dtype != TH_DT_ENUM) {
        th__fail(TH_ERR_DTYPE, TH__FN(from_base), "the tensor's dtype is %s", th_dtype_name(t->dtype));
        return NULL;
    }
    return TH__T(t);
}

TH_API int TH_NAME(ndim)(const TH_NAME(tensor) *t) { return TH__WRONG_DTYPE(t) ? 0 : th_tensor_ndim(TH__B(t)); }

TH_API int64_t TH_NAME(size)(const TH_NAME(tensor) *t, int dim)
{
    return TH__WRONG_DTYPE(t) ? -1 : th__size(TH__FN(size), TH__B(t), dim);
}

TH_API int64_t TH_NAME(stride)(const TH_NAME(tensor) *t, int dim)
{
    return TH__WRONG_DTYPE(t) ? 0 : th__stride(TH__FN(stride), TH__B(t), dim);
}

TH_API const int64_t *TH_NAME(sizes)(const TH_NAME(tensor) *t)
{
    return TH__WRONG_DTYPE(t) ? NULL : th_tensor_sizes(TH__B(t));
}

TH_API const int64_t *TH_NAME(strides)(const TH_NAME(tensor) *t)
{
    return TH__WRONG_DTYPE(t) ? NULL : th_tensor_strides(TH__B(t));
}

TH_API int64_t TH_NAME(numel)(const TH_NAME(tensor) *t) { return TH__WRONG_DTYPE(t) ? 0 : th_tensor_numel(TH__B(t)); }

TH_API real *TH_NAME(data)(const TH_NAME(tensor) *t)
{
    return TH__WRONG_DTYPE(t) ? NULL : (real *)th_tensor_data(TH__B(t));
}

TH_API th_storage *TH_NAME(storage)(const TH_NAME(tensor) *t)
{
    return TH__WRONG_DTYPE(t) ? NULL : th_tensor_storage(TH__B(t));
}

TH_API int64_t TH_NAME(offset)(const TH_NAME(tensor) *t) { return TH__WRONG_DTYPE(t) ? 0 : th_tensor_offset(TH__B(t)); }

TH_API bool TH_NAME(is_contiguous)(const TH_NAME(tensor) *t)
{
    return TH__WRONG_DTYPE(t) ? false : th_tensor_is_contiguous(TH__B(t));
}

/* ---- elements ---- */

TH_API real TH_NAME(get)(const TH_NAME(tensor) *t, const int64_t *idx)
{
    int64_t off = 0;
    if (TH__WRONG_DTYPE(t) || th__element_offset(TH__FN(get), TH__B(t), idx, &off)) return TH_PRIVATE(from_i64)(0);
    return TH_PRIVATE(load)((const char *)TH__B(t)->storage->data + off * (int64_t)sizeof(real));
}

TH_API int TH_NAME(set)(TH_NAME(tensor) *t, const int64_t *idx, real value)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    int64_t off = 0;
    int status = th__element_offset(TH__FN(set), TH__B(t), idx, &off);
    if (status) return status;
    if (th__check_writable(TH__FN(set), TH__B(t)->storage)) return th_last_status();
    TH_PRIVATE(store)((char *)TH__B(t)->storage->data + off * (int64_t)sizeof(real), value);
    return TH_OK;
}

TH_API int TH_NAME(fill)(TH_NAME(tensor) *t, real value)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    const th_tensor *ops[1] = {TH__B(t)};
    th__iter it;
    int status = th__iter_init(TH__FN(fill), &it, 1, ops);
    if (status) return status;
    if (th__check_writable(TH__FN(fill), TH__B(t)->storage)) return th_last_status();
    th__iter_for_each(&it, TH_PRIVATE(fill_row), &value);
    return TH_OK;
}

TH_API int TH_NAME(copy)(TH_NAME(tensor) *dst, const TH_NAME(tensor) *src)
{
    if (TH__WRONG_DTYPE(dst)) return TH_ERR_DTYPE;
    /* src's check says more than the others': the caller may well have meant a conversion */
    if (src && TH__B(src)->dtype != TH_DT_ENUM)
        return th__fail(TH_ERR_DTYPE, TH__FN(copy), "src is %s, not %s: use th_tensor_copy to convert",
                        th_dtype_name(TH__B(src)->dtype), th_dtype_name(TH_DT_ENUM));
    return th__copy(TH__FN(copy), TH__B(dst), TH__B(src));
}

TH_API TH_NAME(tensor) *TH_NAME(contiguous)(TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__contiguous(TH__FN(contiguous), TH__B(t)));
}

TH_API TH_NAME(tensor) *TH_NAME(clone)(const TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__convert_new(TH__FN(clone), TH_DT_ENUM, TH__B(t)));
}

TH_API int TH_NAME(print)(FILE *f, const TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    return th__print(TH__FN(print), f, TH__B(t));
}

/* ---- views ---- */

TH_API TH_NAME(tensor) *TH_NAME(view)(TH_NAME(tensor) *t, int ndim, const int64_t *sizes)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__view(TH__FN(view), TH__B(t), ndim, sizes));
}

TH_API TH_NAME(tensor) *TH_NAME(reshape)(TH_NAME(tensor) *t, int ndim, const int64_t *sizes)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__reshape(TH__FN(reshape), TH__B(t), ndim, sizes));
}

TH_API TH_NAME(tensor) *TH_NAME(transpose)(TH_NAME(tensor) *t, int dim0, int dim1)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__transpose(TH__FN(transpose), TH__B(t), dim0, dim1));
}

TH_API TH_NAME(tensor) *TH_NAME(permute)(TH_NAME(tensor) *t, const int *dims)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__permute(TH__FN(permute), TH__B(t), dims));
}

TH_API TH_NAME(tensor) *TH_NAME(narrow)(TH_NAME(tensor) *t, int dim, int64_t start, int64_t length)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__narrow(TH__FN(narrow), TH__B(t), dim, start, length));
}

TH_API TH_NAME(tensor) *TH_NAME(select)(TH_NAME(tensor) *t, int dim, int64_t index)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__select(TH__FN(select), TH__B(t), dim, index));
}

#if defined(TH_REAL_IS_C64) || defined(TH_REAL_IS_C128)
TH_API TH__PART_TENSOR *TH_DT_PASTE(th_, _real)(TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return (TH__PART_TENSOR *)th__complex_part(__func__, TH__B(t), false);
}

TH_API TH__PART_TENSOR *TH_DT_PASTE(th_, _imag)(TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return (TH__PART_TENSOR *)th__complex_part(__func__, TH__B(t), true);
}
#endif

TH_API TH_NAME(tensor) *TH_NAME(unfold)(TH_NAME(tensor) *t, int dim, int64_t size, int64_t step)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__unfold(TH__FN(unfold), TH__B(t), dim, size, step));
}

TH_API TH_NAME(tensor) *TH_NAME(squeeze)(TH_NAME(tensor) *t)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__squeeze(TH__FN(squeeze), TH__B(t), INT_MIN));
}

TH_API TH_NAME(tensor) *TH_NAME(squeeze_dim)(TH_NAME(tensor) *t, int dim)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    if (dim == INT_MIN) {
        th__fail(TH_ERR_RANGE, TH__FN(squeeze_dim), "dim %d is out of range", dim);
        return NULL;
    }
    return TH__T(th__squeeze(TH__FN(squeeze_dim), TH__B(t), dim));
}

TH_API TH_NAME(tensor) *TH_NAME(unsqueeze)(TH_NAME(tensor) *t, int dim)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__unsqueeze(TH__FN(unsqueeze), TH__B(t), dim));
}

TH_API TH_NAME(tensor) *TH_NAME(expand)(TH_NAME(tensor) *t, int ndim, const int64_t *sizes)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__expand(TH__FN(expand), TH__B(t), ndim, sizes));
}

TH_API TH_NAME(tensor) *TH_NAME(as_strided)(TH_NAME(tensor) *t, int ndim, const int64_t *sizes,
                                            const int64_t *strides, int64_t offset)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__as_strided(TH__FN(as_strided), TH__B(t), ndim, sizes, strides, offset));
}

TH_API TH_NAME(tensor) *TH_NAME(flatten)(TH_NAME(tensor) *t, int start_dim, int end_dim)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__flatten(TH__FN(flatten), TH__B(t), start_dim, end_dim));
}

#ifdef TH_HAS_DLPACK
/* ---- DLPack ---- */

TH_API DLManagedTensor *TH_NAME(to_dlpack)(TH_NAME(tensor) *t)
{
    return TH__WRONG_DTYPE(t) ? NULL : th_tensor_to_dlpack(TH__B(t));
}

TH_API struct DLManagedTensorVersioned *TH_NAME(to_dlpack_versioned)(TH_NAME(tensor) *t)
{
    return TH__WRONG_DTYPE(t) ? NULL : th_tensor_to_dlpack_versioned(TH__B(t));
}

TH_API TH_NAME(tensor) *TH_NAME(from_dlpack)(DLManagedTensor *managed)
{
    return TH__T(th__from_dlpack(TH__FN(from_dlpack), managed, TH_DT_ENUM));
}

TH_API TH_NAME(tensor) *TH_NAME(from_dlpack_versioned)(struct DLManagedTensorVersioned *managed)
{
    return TH__T(th__from_dlpack_versioned(TH__FN(from_dlpack_versioned), managed, TH_DT_ENUM));
}
#endif

#endif /* definitions */

/* ---- the op families: each file holds its declarations and, in the implementation, its definitions ---- */
#include "ops/pointwise.h"
#include "ops/shape.h"
#include "ops/index.h"

#include "ops/reduce.h"

#include "ops/random.h"
#include "ops/create.h"
#include "ops/sort.h"
#include "ops/linalg.h"
#include "ops/nn.h"
#include "ops/conv.h"
#include "ops/attention.h"
#include "ops/resize.h"
#include "ops/lapack.h"
#include "ops/products.h"
#include "ops/stats.h"
#include "ops/search.h"

#ifdef TH__DEFINING
#undef TH__FN
#undef TH__T
#undef TH__B
#undef TH__WRONG_DTYPE
#endif
#undef TH__OP_PASTE_
#undef TH__OP_PASTE
#undef TH__OP_NAME
#undef TH__OP_PRIVATE
#undef TH__OP_FN
#undef TH__PART_TENSOR
