/* cuda/cuda_internal.h: what the companion's files share and users do not see. */
#ifndef TH_CUDA_INTERNAL_H
#define TH_CUDA_INTERNAL_H

#include "blas_plan.h"
#include "caching_allocator.h"
#include "runtime_backend.h"
#include "th_cuda.h"

/* Devices beyond this many are not used: the per-device tables here are as long as the allocator's. */
enum { TH_CUDA_MAX_DEVICES = TH__CUDA_MAX_DEVICES };

/* Records TH_ERR_DEVICE for a failed CUDA call ("what failed: cudaErrorX (its text)") and returns it. */
int th__cuda_fail(const char *fn, int code, const char *what);
/* 0 when device is a usable device of this process; else records why (no device, out of range, a forked
 * child) under fn and returns the status. */
int th__cuda_check_device(const char *fn, int device);
/* Why this process cannot use CUDA because it is a forked child of the process that did; NULL otherwise. */
const char *th__cuda_forked_reason(void);
/* cuda/ops.c: what the core hands over for CUDA tensors (core/device_ops.h), registered on first use. */
extern const th_device_ops th__cuda_device_ops;
/* cuda/ew.c: the table's elementwise member. */
th_tensor *th__cuda_elementwise(void *ctx, const char *fn, th_tensor *out, const th_device_elementwise *call);
/* cuda/fill.c: the table's random member, and the creation ops behind th_<sfx>_cuda_arange / _linspace / _eye
 * (checked as the CPU's; a new contiguous tensor of dtype on device, or NULL). */
int th__cuda_random(void *ctx, const char *fn, th_tensor *out, const th_device_random *call);
th_tensor *th__cuda_arange_f64(const char *fn, th_dtype dtype, int device, double start, double end, double step);
th_tensor *th__cuda_arange_i64(const char *fn, th_dtype dtype, int device, int64_t start, int64_t end, int64_t step);
th_tensor *th__cuda_linspace(const char *fn, th_dtype dtype, int device, double start, double end, int64_t steps);
th_tensor *th__cuda_eye(const char *fn, th_dtype dtype, int device, int64_t n, int64_t m);
/* cuda/index.c: the table's index member. */
th_tensor *th__cuda_index(void *ctx, const char *fn, th_tensor *out, const th_device_index *call);


#define TH_CUDA__STR_(x) #x
#define TH_CUDA__STR(x) TH_CUDA__STR_(x)

/* cuda/tensor.c: the dtype-erased work behind the typed doors; fn names the public function. want_dtype < 0
 * takes any dtype; a zero value (NULL) fills with zeros. */
th_tensor *th__cuda_empty(const char *fn, th_dtype dtype, int device, int ndim, const int64_t *sizes);
th_tensor *th__cuda_host_empty(const char *fn, th_dtype dtype, int ndim, const int64_t *sizes);
th_tensor *th__cuda_to(const char *fn, const th_tensor *t, int want_dtype, int device_type, int device);
th_tensor *th__cuda_full(const char *fn, th_dtype dtype, int device, int ndim, const int64_t *sizes,
                         const void *value);
th_tensor *th__cuda_like(const char *fn, const th_tensor *t, th_dtype dtype, const void *value, bool fill);
/* The device allocator forgets a stream about to be destroyed, its work done (cuda/allocators.c). */
int th__cuda_allocators_forget_stream(int device, void *stream);
int th__cuda_copy(const char *fn, th_tensor *dst, const th_tensor *src);
int th__cuda_fill(const char *fn, th_tensor *t, const void *value);
int th__cuda_fill_checked(const char *fn, th_tensor *t, th_dtype dtype, const void *value);

/* cuda/blas.c: a matrix product of CUDA tensors through cuBLAS, with the CPU's semantics (ops/linalg.h) and
 * messages: the dispatch of th_<sfx>_dot / mv / addmv / mm / addmm / bmm / baddbmm / matmul / outer / addr and
 * their _out and _inplace forms. kind: the product's shape rules (blas_plan.h); dtype: the typed function's;
 * has_bias: the fused forms, out = beta*bias + alpha*(a @ b) (beta 0: bias is checked, never read), else
 * out = a @ b. out NULL and result given: a new tensor on the operands' device in *result; out given: written
 * there (result, if given, gets out retained); both NULL: "NULL out". An _inplace form passes bias as out.
 * alpha and beta point to the dtype's compute type: float for f16, bf16 and f32, double for f64, two floats /
 * two doubles for c64 / c128 (th__cuda_mm_scalar_size); beta may be NULL without a bias. Every operand must be
 * on the CUDA device of the first CUDA one (TH_ERR_DEVICE naming both otherwise); f16, bf16, f32, f64, c64 and
 * c128 only (integers: TH_ERR_UNSUPPORTED, bool: TH_ERR_DTYPE). Queued on the calling thread's current stream
 * of that device, not waited for. 0 or a negative status. */
int th__cuda_matmul(const char *fn, th__cuda_mm_kind kind, th_dtype dtype, th_tensor *out, const th_tensor *bias,
                    bool has_bias, const th_tensor *a, const th_tensor *b, const void *beta, const void *alpha,
                    th_tensor **result);

/* cuda/reduce.c: the reductions and scans of CUDA tensors, th_device_ops's reduce member (core/device_ops.h). */
int th__cuda_reduce(void *ctx, const char *fn, const th_device_reduce *call, th_tensor *const *outs,
                    th_tensor **results);

#endif
