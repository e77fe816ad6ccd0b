// cuda/reduce_kernels.cu: the device side of reductions and scans. The order of operations, the element
// arithmetic and each thread's work are cuda/reduce_tree.h's, the plain C the host test runs against the CPU's
// reductions; this file only instantiates them per dtype and class (so their switches fold away) and launches a
// grid-stride loop over the threads of one level. No atomics and no shared-memory tree: which thread computes
// a part changes nothing in the result.
#include "tensor.h"

#include "reduce_kernels.h"

#include <cuda_runtime.h>

namespace {

template <int DT, int CLS>
__global__ void reduce_level(th__cuda_reduce_plan plan, th__cuda_red_op op, th__cuda_red_level lv,
                             th__cuda_red_ptrs ptrs)
{
    const int64_t total = lv.numel_out * lv.parts;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x)
        th__cuda_red_step(&plan, &op, &lv, &ptrs, t, DT, CLS);
}

// A level th__cuda_red_lean accepts (floating DT only: f64 for the partials after the first level). The bounds
// cap the registers at 48 a thread (5 blocks of 256 an SM on Ampere and Hopper) where ptxas gave 64 unasked, for the finish's code,
// which runs once a thread; the f64 kernel, 32 loads in flight, takes what it needs (104, no spills).
// Turing (sm_75) runs at most 1024 threads an SM: 4 blocks of 256 there (ptxas refuses 5).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define TH__LEAN_BLOCKS 4
#else
#define TH__LEAN_BLOCKS 5
#endif
template <int DT>
__global__ void __launch_bounds__(256, DT == TH_F64 ? 2 : TH__LEAN_BLOCKS) reduce_level_lean(th__cuda_reduce_plan plan, th__cuda_red_op op, th__cuda_red_level lv,
                                  th__cuda_red_ptrs ptrs)
{
    const int64_t total = lv.numel_out * lv.parts;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x)
        th__cuda_red_step_lean(&plan, &op, &lv, &ptrs, t, DT);
}

template <int DT>
__global__ void scan_rows(th__cuda_reduce_plan plan, bool product, bool acc_float, const unsigned char *in,
                          unsigned char *out, int64_t out_step)
{
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < plan.numel_out;
         o += (int64_t)gridDim.x * blockDim.x)
        th__cuda_red_scan_row(&plan, DT, product, acc_float, in, out, out_step, plan.numel_red, o);
}

const int threads = 256;

dim3 grid_for(int64_t n)
{
    long long blocks = (n + threads - 1) / threads;
    if (blocks > 65535LL * 32) blocks = 65535LL * 32; // the loops stride over the rest
    return dim3((unsigned)blocks);
}

template <int DT>
void launch_level(int cls, dim3 grid, cudaStream_t s, const th__cuda_reduce_plan &p, const th__cuda_red_op &op,
                  const th__cuda_red_level &lv, const th__cuda_red_ptrs &ptrs)
{
    switch (cls) {
    case TH__CUDA_RED_SUM: reduce_level<DT, TH__CUDA_RED_SUM><<<grid, threads, 0, s>>>(p, op, lv, ptrs); break;
    case TH__CUDA_RED_PROD: reduce_level<DT, TH__CUDA_RED_PROD><<<grid, threads, 0, s>>>(p, op, lv, ptrs); break;
    case TH__CUDA_RED_EXT: reduce_level<DT, TH__CUDA_RED_EXT><<<grid, threads, 0, s>>>(p, op, lv, ptrs); break;
    default: reduce_level<DT, TH__CUDA_RED_BOOL><<<grid, threads, 0, s>>>(p, op, lv, ptrs); break;
    }
}

} // namespace

extern "C" int th__cuda_launch_reduce_level(const th__cuda_reduce_plan *plan, const th__cuda_red_op *op,
                                            const th__cuda_red_level *lv, const th__cuda_red_ptrs *ptrs, void *stream)
{
    const int64_t total = lv->numel_out * lv->parts;
    if (total == 0) return 0;
    // cudaGetLastError below must speak of this launch only (as the copy kernels' launch: a sticky error
    // stays and is returned again).
    (void)cudaGetLastError();
    const dim3 grid = grid_for(total);
    const cudaStream_t s = (cudaStream_t)stream;
    if (th__cuda_red_lean(plan, op, lv)) {
        switch (th__cuda_red_level_dtype(op, lv)) {
        case TH_F16: reduce_level_lean<TH_F16><<<grid, threads, 0, s>>>(*plan, *op, *lv, *ptrs); break;
        case TH_BF16: reduce_level_lean<TH_BF16><<<grid, threads, 0, s>>>(*plan, *op, *lv, *ptrs); break;
        case TH_F32: reduce_level_lean<TH_F32><<<grid, threads, 0, s>>>(*plan, *op, *lv, *ptrs); break;
        default: reduce_level_lean<TH_F64><<<grid, threads, 0, s>>>(*plan, *op, *lv, *ptrs); break;
        }
        return (int)cudaGetLastError();
    }
    switch (th__cuda_red_level_dtype(op, lv)) {
    case TH_BOOL: launch_level<TH_BOOL>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    case TH_U8: launch_level<TH_U8>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    case TH_I8: launch_level<TH_I8>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    case TH_I16: launch_level<TH_I16>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    case TH_I32: launch_level<TH_I32>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    case TH_I64: launch_level<TH_I64>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    case TH_F16: launch_level<TH_F16>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    case TH_BF16: launch_level<TH_BF16>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    case TH_F32: launch_level<TH_F32>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    case TH_F64: launch_level<TH_F64>(op->cls, grid, s, *plan, *op, *lv, *ptrs); break;
    default: return (int)cudaErrorInvalidValue; // complex: refused by cuda/reduce_plan.c before any launch
    }
    return (int)cudaGetLastError();
}

extern "C" int th__cuda_launch_scan(const th__cuda_reduce_plan *plan, int dtype, bool product, bool acc_float,
                                    const void *in, void *out, int64_t out_step, void *stream)
{
    if (plan->numel_out == 0 || plan->numel_red == 0) return 0;
    (void)cudaGetLastError();
    const dim3 grid = grid_for(plan->numel_out);
    const cudaStream_t s = (cudaStream_t)stream;
    const unsigned char *i = (const unsigned char *)in;
    unsigned char *o = (unsigned char *)out;
    switch (dtype) {
    case TH_U8: scan_rows<TH_U8><<<grid, threads, 0, s>>>(*plan, product, acc_float, i, o, out_step); break;
    case TH_I8: scan_rows<TH_I8><<<grid, threads, 0, s>>>(*plan, product, acc_float, i, o, out_step); break;
    case TH_I16: scan_rows<TH_I16><<<grid, threads, 0, s>>>(*plan, product, acc_float, i, o, out_step); break;
    case TH_I32: scan_rows<TH_I32><<<grid, threads, 0, s>>>(*plan, product, acc_float, i, o, out_step); break;
    case TH_I64: scan_rows<TH_I64><<<grid, threads, 0, s>>>(*plan, product, acc_float, i, o, out_step); break;
    case TH_F16: scan_rows<TH_F16><<<grid, threads, 0, s>>>(*plan, product, acc_float, i, o, out_step); break;
    case TH_BF16: scan_rows<TH_BF16><<<grid, threads, 0, s>>>(*plan, product, acc_float, i, o, out_step); break;
    case TH_F32: scan_rows<TH_F32><<<grid, threads, 0, s>>>(*plan, product, acc_float, i, o, out_step); break;
    case TH_F64: scan_rows<TH_F64><<<grid, threads, 0, s>>>(*plan, product, acc_float, i, o, out_step); break;
    default: return (int)cudaErrorInvalidValue; // bool has no scans; complex is refused before
    }
    return (int)cudaGetLastError();
}
