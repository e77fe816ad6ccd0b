// cuda/fill_kernels.cu: the kernel of the ops whose elements depend on their index alone (the samplers, arange,
// linspace, eye). Each element is cuda/fill_elems.h's function, the text the host test checks against the CPU;
// this file only runs it over the elements. One kernel for every such op and dtype: the op and the dtype are
// the same for every thread of a launch, so their switches cost no divergence, and Philox's ten rounds, not
// the branches, are what a draw spends its time on.
#include "tensor.h"

#include "fill_elems.h"

#include <cuda_runtime.h>

namespace {

__global__ void fill_elements_kernel(th__cuda_fill_args a, unsigned char *dst, int64_t n, int64_t elem)
{
    // 64-bit counter: near INT64 sizes a 32-bit one would wrap (as in the copy kernel).
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        th__cuda_fill_element(&a, i, dst + i * elem);
}

} // namespace

extern "C" int th__cuda_launch_fill_elements(const th__cuda_fill_args *args, void *dst, int64_t n, void *stream)
{
    if (n == 0) return 0;
    const int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    if (blocks > 65535LL * 32) blocks = 65535LL * 32; // the loop strides over the rest
    const int64_t elem = (int64_t)th_dtype_info((th_dtype)args->dtype)->size;
    (void)cudaGetLastError(); // the result below is this launch's, not an earlier query's
    fill_elements_kernel<<<(unsigned)blocks, threads, 0, (cudaStream_t)stream>>>(*args, (unsigned char *)dst, n,
                                                                                  elem);
    return (int)cudaGetLastError();
}
