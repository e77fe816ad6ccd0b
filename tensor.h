/* tensor.h: a header-only C11 tensor library in the lineage of TH.
 *
 * One include gives strided, refcounted tensors of twelve dtypes over untyped, refcounted storages whose
 * memory comes from pluggable allocators. Per-dtype code is stamped from one generic file,
 * tensor_generic.h, through the generator headers in generate/, the way TH stamped TH_GENERIC_FILE.
 * This file is the table of contents: the core layers live in core/, the op families in ops/.
 *
 * USE
 *   In exactly one C file:      #define TH_IMPLEMENTATION
 *                               #include "tensor.h"
 *   Everywhere else (C or C++): #include "tensor.h"            (declarations only: compiles fast)
 *   Or, for a private copy:     #define TH_STATIC                 (every function static in this file)
 *                               #include "tensor.h"
 *   Link with -lm. The implementation must be compiled as C (C11 or later); C++ sees the declarations.
 *   Vendoring: copy tensor.h, tensor_generic.h, core/, ops/ and generate/, keeping their places.
 *
 * COMPILE-TIME OPTIONS (define before the include)
 *   TH_SELECT_DTYPES + TH_WANT_<ENUM>   stamp only these dtypes (default: all); see generate/select.h
 *   TH_MAX_DIMS                          the most dims a tensor may have (default 16)
 *   TH_NO_HUGE_PAGES                     never ask the kernel for transparent huge pages
 *   TH_NO_DLPACK                         leave the DLPack exchange out even where <dlpack/dlpack.h> is found
 *   TH_USE_CBLAS                         matrix products of f32, f64, c64, c128 through CBLAS (-lopenblas)
 *   TH_USE_LAPACK                        solve, inv, det, cholesky, qr, eigh, svd through LAPACKE (-llapacke)
 *   TH_USE_ZLIB                          deflated .npz members (np.savez_compressed) through zlib (-lz)
 *   TH_NO_FILE_MAP                       never map files (th_storage_map_file refuses; formats read files)
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
 * FILES
 *   th_tensor_load_npy / th_tensor_save_npy read and write NumPy's .npy (a loaded tensor is a view of the
 *   mapped file where it can be); th_safetensors_open / _get / _close / _save read and write Hugging Face's
 *   safetensors (a lazy index of names, dtypes and shapes; tensors as views of one mapping); th_npz_open /
 *   _get / _close / _save read and write NumPy's .npz (stored members as views of the mapping; deflated ones
 *   with TH_USE_ZLIB); th_gguf_open /
 *   _get / _get_raw / _dequantize / _close read GGUF (metadata walkable, Q4_0..Q8_0 dequantised);
 *   th_storage_map_file maps a file as a storage. docs/files.md.
 *
 * ERRORS
 *   Library code never aborts, exits or prints on a user error. Functions that return a pointer return
 *   NULL, functions that return int return a negative th_status, and th_last_error() gives a thread-local
 *   message naming the function and the bad value. Functions that return a value (th_f32_get,
 *   th_f32_numel, ...) say in their comment what they return on error.
 *   A typed function given a tensor of another dtype does nothing and records TH_ERR_DTYPE: each tensor
 *   argument must hold the dtype its parameter type names (th_f32_tensor * f32, th_bool_tensor * bool,
 *   th_i64_tensor * int64), whatever cast it came through. The function returns NULL, TH_ERR_DTYPE or (the
 *   value accessors) what it returns for a NULL tensor, and the message names it, the operand and both dtypes
 *   ("th_f32_add: b is f64, not f32").
 *   docs/core.md#errors has the details.
 *
 * NAMES
 *   th_<sfx>_<verb> for every dtype suffix (bool u8 i8 i16 i32 i64 f16 bf16 f32 f64 c64 c128); the
 *   one generic definition of th_f32_narrow is TH_NAME(narrow) in tensor_generic.h. docs/names.txt gives
 *   every verb with the file and line of its one definition. th__ and TH__ are private.
 *
 * HOW THE FILES FIT
 *   Every file below holds its declarations next to its definitions, behind one switch: TH__DEFINING.
 *   Every translation unit reads the list once for the declarations; the TH_IMPLEMENTATION one reads it a
 *   second time, with TH__DEFINING set, for the definitions (this file includes itself for that pass).
 *
 * Licence: MIT (see LICENSE). */
#if !defined(TENSOR_H) || defined(TH__DEFINING)
#ifndef TENSOR_H
#define TENSOR_H
#endif

#include "core/config.h"   /* options, linkage (TH_API), system headers, compiler attributes */

#ifdef __cplusplus
extern "C" {
#endif

#include "core/error.h"    /* th_status, th_last_error, the error hook */
#include "core/elem.h"     /* float16, bfloat16, complex element types */
#include "core/dtype.h"    /* th_dtype, its traits, per-dtype type names */
#include "core/cpu_cache.h" /* the CPU allocator's cache of large freed blocks */
#include "core/alloc.h"    /* devices and allocators */
#include "core/storage.h"  /* th_storage: refcounted bytes */
#include "core/file_map.h" /* files as storages: mapped (Linux), written through a temporary file */
#include "core/tensors.h"  /* th_tensor: shape checks, construction, the header cache, access */
#include "core/promote.h"  /* type promotion: th_promote_types, th_result_type */
#include "core/view.h"     /* views over the same storage */
#include "core/iter.h"     /* the strided iteration engine */
#include "core/thread.h"   /* OpenMP threads */
#include "core/plumbing.h" /* op plumbing: result shapes, outs, aliasing */
#include "core/device_ops.h" /* ops on device memory: the table a companion registers */
#include "core/copy.h"     /* copies and conversions between dtypes */
#include "core/print.h"    /* printing */
#include "core/dlpack.h"   /* DLPack export and import */
#include "core/npy.h"      /* NumPy .npy files */
#include "core/npz.h"      /* NumPy .npz archives (zip) */
#include "core/file_tensor.h" /* the multi-tensor formats' index entry and tensor maker */
#include "core/safetensors.h" /* Hugging Face safetensors files */
#include "core/gguf.h"     /* GGUF files (llama.cpp's weights), read only */
#include "core/vecmath.h"  /* SIMD exp, tanh, sigmoid, log, expm1, erf */

/* The op families' dtype-independent parts. */
#include "ops/pointwise_erased.h"
#include "ops/shape_erased.h"
#include "ops/index_erased.h"
#include "ops/reduce_erased.h"
#include "ops/random_erased.h"
#include "ops/linalg_erased.h"
#include "ops/nn_erased.h"
#include "ops/conv_erased.h"
#include "ops/attention_erased.h"
#include "ops/resize_erased.h"
#include "ops/lapack_erased.h"
#include "ops/products_erased.h"
#include "ops/stats_erased.h"
#include "ops/search_erased.h"

/* Every per-dtype function: tensor_generic.h (which includes the op families of ops/) stamped for every
 * selected dtype. */
#define TH_GENERIC_FILE "../tensor_generic.h"
#include "generate/all.h"

#ifdef __cplusplus
}
#endif

#include "core/front.h"    /* the C11 _Generic front end: th_add(a, b), th_numel(t), ... */

#endif /* !TENSOR_H || TH__DEFINING */

#if defined(TH_IMPLEMENTATION) && !defined(TH__DEFINING) && !defined(TH__IMPLEMENTED)
#define TH__IMPLEMENTED
#define TH__DEFINING
#include "tensor.h"
#undef TH__DEFINING
#endif
