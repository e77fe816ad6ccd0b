/* cuda/kernels.h: the launchers of cuda/copy_kernels.cu, callable from the companion's C files. Each returns
 * 0 or a cudaError_t value; the work is queued on stream (a cudaStream_t; NULL: the default stream). */
#ifndef TH_CUDA_KERNELS_H
#define TH_CUDA_KERNELS_H

#include "index_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = convert(src[i]) for every element of the plan; src and dst are device (or managed) memory. */
int th__cuda_launch_copy(const th__cuda_copy_plan *plan, const void *src, void *dst, void *stream);
/* n contiguous elements of elem_bytes each at dst set to the bytes at value (the dtype's encoding). */
int th__cuda_launch_fill(void *dst, int64_t n, int elem_bytes, const void *value, void *stream);
/* One block of one thread that does nothing: what the benchmark compares a tiny op's cost with (the launch
 * alone). */
int th__cuda_launch_empty(void *stream);

#ifdef __cplusplus
}
#endif

#endif
