/* cuda/blas_plan.h: matrix products on the device, everything that is not a cuBLAS call: the shape rules of the
 * CPU's products (so a CUDA tensor gets the same results and the same messages), the mapping of strided views
 * onto cuBLAS's column-major GEMM (transpose flags, leading dimensions, strided batches, which operand needs a
 * copy), and the run of a whole product over a table of three operations (make a tensor, copy, GEMM).
 *
 * Plain C11 without a CUDA header: cuda/blas.c gives the table cuBLAS and device memory, the host test
 * (tests/cuda/test_cuda_blas_plan.c) a reference GEMM with cuBLAS's documented semantics over host memory, so
 * every decision here is checked against the CPU's products without a GPU. */
#ifndef TH_CUDA_BLAS_PLAN_H
#define TH_CUDA_BLAS_PLAN_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which product's shape rules apply: the CPU's (ops/linalg.h), one for one. */
typedef enum th__cuda_mm_kind {
    TH__CUDA_MM_DOT,    /* a (k) . b (k): 0-d */
    TH__CUDA_MM_MV,     /* A (m, k) @ x (k): (m) */
    TH__CUDA_MM_MM,     /* A (m, k) @ B (k, n): (m, n) */
    TH__CUDA_MM_BMM,    /* A (b, m, k) @ B (b, k, n), equal batch sizes */
    TH__CUDA_MM_MATMUL, /* NumPy's matmul: 1-d operands as a row / a column, batch dims broadcast */
    TH__CUDA_MM_OUTER,  /* x (m) outer y (n): (m, n) */
    TH__CUDA_MM_KINDS
} th__cuda_mm_kind;

/* One operand of C[batch] = A[batch] @ B[batch]: its matrix's row and column strides and its stride per batch
 * dim, in elements (0 along a dim it is broadcast over). */
typedef struct th__cuda_mm_operand {
    int64_t rs, cs;
    int64_t bstride[TH_MAX_DIMS];
} th__cuda_mm_operand;

/* A product after its shape checks. A is m x k, B is k x n, C is m x n; the batch dims are the result's
 * leading dims. how_a / how_b say whether a 1-d operand is a row or a column (the result then lacks that dim:
 * keep_m, keep_n). */
typedef struct th__cuda_mm_shape {
    th__cuda_mm_kind kind;
    int64_t m, n, k;
    int nb;
    int64_t bsize[TH_MAX_DIMS];
    int rdim;
    int64_t rsizes[TH_MAX_DIMS]; /* the result's shape */
    int how_a, how_b;
    bool keep_m, keep_n;
} th__cuda_mm_shape;

/* The three operands' strides for a shape (after any copy, the strides of the tensors actually read). */
typedef struct th__cuda_mm_problem {
    int64_t m, n, k;
    int nb;
    int64_t bsize[TH_MAX_DIMS];
    th__cuda_mm_operand a, b, c;
} th__cuda_mm_problem;

/* The CPU's names of the operands, per kind ("A", "B", "C"; "a", "b", "out"; ...). */
const char *th__cuda_mm_name(th__cuda_mm_kind kind, int which /* 0: a, 1: b, 2: the result or bias */);

/* Checks a and b (and bias, when not NULL: it must broadcast to the result) against kind's shape rules, with
 * the CPU's messages under fn; fills s. Only the tensors' sizes are read, never their memory. */
int th__cuda_mm_shapes(const char *fn, th__cuda_mm_kind kind, const th_tensor *a, const th_tensor *b,
                       const th_tensor *bias, th__cuda_mm_shape *s);
/* The strides of a, b (the tensors of the shape, or copies of them with their shapes) and c (the result). */
void th__cuda_mm_problem_of(const th__cuda_mm_shape *s, const th_tensor *a, const th_tensor *b, const th_tensor *c,
                            th__cuda_mm_problem *p);

/* ---- the plan: one GEMM problem as cuBLAS calls ---- */

enum { TH__CUDA_OP_N = 0, TH__CUDA_OP_T = 1 }; /* cublasOperation_t's CUBLAS_OP_N and CUBLAS_OP_T */

/* cuBLAS computes C = alpha op(A) op(B) + beta C over column-major matrices. A row-major product is the same
 * call on the transposes (C^T = B^T A^T): swap says cuBLAS's A is our b and its B our a. A view cuBLAS cannot
 * read as it is (no unit stride, a leading dimension below the rows, negative or zero strides) is copied first
 * (copy_a, copy_b: a contiguous copy of that tensor); a result cuBLAS cannot write as it is goes through a
 * contiguous temporary (temp_c). After those copies the problem is planned again, and then needs none.
 *
 * Batches: the batch dims (size-1 dims dropped) that every operand walks with one uniform, non-negative stride
 * (0 for a broadcast operand) go into one strided-batched call of `batch` products; leading dims that do not
 * flatten so are a loop of `calls` such calls. An operand that breaks the flattening without being broadcast
 * is copied instead (one copy kernel costs less than a loop of GEMM launches, and a GEMM reads the operand
 * anyway); a broadcast one is not, since its copy would multiply its memory by the batch. */
typedef struct th__cuda_gemm_plan {
    bool copy_a, copy_b, temp_c;
    bool swap;
    int opa, opb;           /* TH__CUDA_OP_*, of cuBLAS's first and second operand */
    int64_t m, n, k;        /* cuBLAS's */
    int64_t lda, ldb, ldc;
    int64_t batch;          /* products per call: 1 is a plain GEMM call */
    int64_t stride_a, stride_b, stride_c; /* cuBLAS's operands, elements */
    int64_t calls;          /* calls, over the outer dims */
    int outer;              /* the leading batch dims the calls loop over */
    int64_t osize[TH_MAX_DIMS];
    int64_t ostride[3][TH_MAX_DIMS]; /* our a, b, c: element strides of the outer dims */
} th__cuda_gemm_plan;

void th__cuda_gemm_plan_make(const th__cuda_mm_problem *p, th__cuda_gemm_plan *plan);
/* The element offsets of our a, b and c (from their element [0, ..., 0]) for call number `call`. */
void th__cuda_gemm_call_offsets(const th__cuda_gemm_plan *plan, int64_t call, int64_t *oa, int64_t *ob,
                                int64_t *oc);

/* ---- the run ---- */

/* One cuBLAS call as th__cuda_gemm_plan says: C = alpha op(A) op(B) + beta C, column-major, batch products
 * with strides between them (batch 1: a plain GEMM). alpha and beta point to the dtype's compute type (float
 * for f16 and bf16); beta is exactly 0 when C must not be read. */
typedef struct th__cuda_gemm_call {
    th_dtype dtype;
    int opa, opb;
    int64_t m, n, k;
    const void *alpha, *beta;
    const void *a, *b;
    void *c;
    int64_t lda, ldb, ldc;
    int64_t stride_a, stride_b, stride_c, batch;
} th__cuda_gemm_call;

/* What a product needs from where its tensors live. Each returns NULL / a negative status with the error
 * recorded under fn. */
typedef struct th__cuda_mm_ops {
    /* 0 when t (named name) may be an operand here; else the error. */
    int (*check)(void *ctx, const char *fn, const char *name, const th_tensor *t);
    /* A new contiguous tensor where the operands are. */
    th_tensor *(*empty)(void *ctx, const char *fn, th_dtype dtype, int ndim, const int64_t *sizes);
    /* src into dst (src broadcast to dst's shape; they may overlap). */
    int (*copy)(void *ctx, const char *fn, th_tensor *dst, const th_tensor *src);
    int (*gemm)(void *ctx, const char *fn, const th__cuda_gemm_call *call);
} th__cuda_mm_ops;

/* The size in bytes of dtype's compute type for alpha and beta (0: no GEMM for dtype here), and whether the
 * value at p is zero. */
size_t th__cuda_mm_scalar_size(th_dtype dtype);
bool th__cuda_mm_scalar_is_zero(th_dtype dtype, const void *p);

/* The whole product, as the CPU's (ops/linalg.h) with the same checks, messages and aliasing rules:
 * out = beta*bias + alpha*(a @ b) when has_bias, else out = a @ b. dtype: the typed function's. out: the
 * result's tensor, checked (shape, dtype, writable, no two elements at one address); NULL with result given:
 * a new tensor (*result, retained; also set, to out retained, when both are given). Inputs overlapping the
 * result are copied first; bias is copied into the result unless it is the result; beta 0 never reads bias.
 * alpha and beta point to values of dtype's compute type (th__cuda_mm_scalar_size). 0 or a negative status. */
int th__cuda_mm_run(const th__cuda_mm_ops *ops, void *ctx, const char *fn, th__cuda_mm_kind kind, th_dtype dtype,
                    th_tensor *out, const th_tensor *bias, bool has_bias, const th_tensor *a, const th_tensor *b,
                    const void *beta, const void *alpha, th_tensor **result);

#ifdef __cplusplus
}
#endif

#endif
