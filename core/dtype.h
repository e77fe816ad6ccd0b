/* core/dtype.h: th_dtype from the one list in generate/dtypes.h, its traits, and the per-dtype type names.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/dtype.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

#include "../generate/dtypes.h"
#include "../generate/select.h"

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

#define TH__X(sfx, ENUM, elem, acc, kind, code, bits) \
    typedef elem th_##sfx##_elem;                     \
    typedef acc th_##sfx##_acc;                       \
    typedef struct th_##sfx##_tensor th_##sfx##_tensor;
TH_FOREACH_DTYPE(TH__X)
#undef TH__X

/* The one-implementation rule, checked at link time. A program has one TH_IMPLEMENTATION translation unit (or
 * libtensor), and it must stamp every dtype any file uses. A file that selects dtypes (TH_SELECT_DTYPES) refers
 * to one marker per selected dtype, which only an implementation that stamped that dtype defines: a missing
 * dtype is then a link error that names itself and the fix, not a bare undefined reference to th_f64_zeros.
 * (A file that selects nothing sees all twelve dtypes and cannot ask for all of them.) TH_STATIC copies and
 * the implementation TU itself define what they use. */
#define TH__STAMP_MARKER(sfx, ENUM) th_##sfx##__not_stamped_by_the_TH_IMPLEMENTATION_TU__define_TH_WANT_##ENUM##_there
#if defined(TH_SELECT_DTYPES) && !defined(TH_IMPLEMENTATION) && !defined(__cplusplus) && defined(__GNUC__)
#define TH__X(sfx, ENUM, ...)                                      \
    TH__IF_##sfx(extern const char TH__STAMP_MARKER(sfx, ENUM);   \
                 __attribute__((used, unused)) static const char *const th__##sfx##_stamp_marker_ref = \
                     &TH__STAMP_MARKER(sfx, ENUM);)
TH_FOREACH_DTYPE(TH__X)
#undef TH__X
#endif

#else /* TH__DEFINING */

#if !defined(TH_STATIC)
/* The markers of the dtypes this implementation stamped (see the one-implementation rule above). */
#define TH__X(sfx, ENUM, ...) TH__IF_##sfx(extern const char TH__STAMP_MARKER(sfx, ENUM); const char TH__STAMP_MARKER(sfx, ENUM) = 1;)
TH_FOREACH_DTYPE(TH__X)
#undef TH__X
#endif

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

#endif /* TH__DEFINING */
