/* cuda/ops.c: the typed ops on CUDA tensors. The core hands every op whose operands are CUDA memory to the
 * table here (core/device_ops.h; registered by th_cuda_init, which the companion's entry points call on first
 * use). A family without device kernels yet would be a NULL member, which the core refuses with
 * TH_ERR_UNSUPPORTED naming it, rather than touching device memory. */
#include "blas_plan.h"
#include "cuda_internal.h"

#include <string.h>

/* The core passes alpha and beta as elements of the dtype; cuBLAS takes them in the compute type, which
 * differs only for the 16-bit floats (float). */
static const void *th__cuda_scalar_for_blas(th_dtype dtype, const void *value, float *widened)
{
    if (dtype == TH_F16) *widened = th_float16_to_float(*(const th_float16 *)value);
    else if (dtype == TH_BF16) *widened = th_bfloat16_to_float(*(const th_bfloat16 *)value);
    else return value;
    return widened;
}

static th_tensor *th__cuda_product(void *ctx, const char *fn, th_tensor *out, const th_device_product *call)
{
    (void)ctx;
    static const char *const kinds[TH__CUDA_MM_KINDS] = {
        [TH__CUDA_MM_DOT] = "dot", [TH__CUDA_MM_MV] = "mv", [TH__CUDA_MM_MM] = "mm",
        [TH__CUDA_MM_BMM] = "bmm", [TH__CUDA_MM_MATMUL] = "matmul", [TH__CUDA_MM_OUTER] = "outer"};
    int kind = 0;
    while (kind < TH__CUDA_MM_KINDS && strcmp(kinds[kind], call->op) != 0) kind++;
    if (kind == TH__CUDA_MM_KINDS) {
        th_set_error(TH_ERR_UNSUPPORTED, fn, "the cuda companion has no product '%s'", call->op);
        return NULL;
    }
    float alpha_w, beta_w;
    const void *alpha = th__cuda_scalar_for_blas(call->dtype, call->alpha, &alpha_w);
    const void *beta = th__cuda_scalar_for_blas(call->dtype, call->beta, &beta_w);
    th_tensor *result = NULL;
    if (th__cuda_matmul(fn, (th__cuda_mm_kind)kind, call->dtype, out, call->bias, call->bias != NULL, call->a,
                        call->b, beta, alpha, out ? NULL : &result))
        return NULL;
    return out ? th_tensor_retain(out) : result;
}

const th_device_ops th__cuda_device_ops = {
    .name = "cuda",
    .elementwise = th__cuda_elementwise,
    .product = th__cuda_product,
    .reduce = th__cuda_reduce,
    .ctx = NULL,
    .random = th__cuda_random,
    .index = th__cuda_index,
};
