/* cuda/reduce_kernels.h: the launchers of cuda/reduce_kernels.cu, callable from the companion's C files. Each
 * returns 0 or a cudaError_t value; the work is queued on stream (a cudaStream_t; NULL: the default stream) of
 * the current device. Needs tensor.h's declarations before it. */
#ifndef TH_CUDA_REDUCE_KERNELS_H
#define TH_CUDA_REDUCE_KERNELS_H

#include "reduce_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every thread t < lv->numel_out * lv->parts of one level: th__cuda_red_step. */
int th__cuda_launch_reduce_level(const th__cuda_reduce_plan *plan, const th__cuda_red_op *op,
                                 const th__cuda_red_level *lv, const th__cuda_red_ptrs *ptrs, void *stream);
/* Every row o < plan->numel_out of a scan: th__cuda_red_scan_row. */
int th__cuda_launch_scan(const th__cuda_reduce_plan *plan, int dtype, bool product, bool acc_float, const void *in,
                         void *out, int64_t out_step, void *stream);

#ifdef __cplusplus
}
#endif

#endif
