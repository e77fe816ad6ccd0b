/* cuda/ew.h: the elementwise kernels of cuda/ew_kernels.cu as the companion's C files see them: one launcher
 * per op and dtype, found by the op's name (the name in its typed name: "add" for th_f32_add). */
#ifndef TH_CUDA_EW_H
#define TH_CUDA_EW_H

#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Queues out = op(inputs) over the plan (operand 0 the output, 1..nin the inputs) on stream (a cudaStream_t).
 * data[k] is operand k's first element (th_tensor_data); scalars[k - 1], when not NULL, is input k's value in
 * host memory (a 0-d host tensor: a scalar), read before the launch returns, and data[k] is then unused.
 * params: the op's values in its compute type (th_device_elementwise's params), or NULL for ops without.
 * Returns 0 or the launch's cudaError_t value. */
typedef int (*th__cuda_ew_launcher)(const th__cuda_plan *plan, char *const *data, const void *const *scalars,
                                    const void *params, void *stream);

/* The launcher of op for dtype (the op's dtype: its inputs'), with its arity and result dtype; NULL when the
 * device has no kernel for the pair. */
typedef struct th__cuda_ew_kernel {
    const char *op;
    int dtype, out_dtype, nin;
    th__cuda_ew_launcher launch;
} th__cuda_ew_kernel;
const th__cuda_ew_kernel *th__cuda_ew_find(const char *op, int dtype);
/* How many kernels there are (for the tests, which check the table against the host's op list). */
int th__cuda_ew_count(void);
const th__cuda_ew_kernel *th__cuda_ew_at(int i);

#ifdef __cplusplus
}
#endif

#endif
