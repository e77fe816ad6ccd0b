// tests/cuda/plan_check.cu: cuda/plan.h compiles under nvcc, for the host and for every configured
// architecture, with every warning an error: kernels that take each plan by value and call every offsets
// function in both widths. Compiling is the check (a library, not a program to run); the host tests
// (test_cuda_plan.c) check what the functions compute.
#include "tensor.h"

#include "../../cuda/plan.h"

__global__ void plan_check_elementwise(th__cuda_plan p, int64_t *out)
{
    const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p.numel) return;
    if (p.use32) {
        int32_t off[TH_CUDA_PLAN_MAX_OPS];
        th__cuda_plan_offsets32(&p, (int32_t)i, off);
        out[i] = off[0] + off[1] + off[2] + off[3];
    } else {
        int64_t off[TH_CUDA_PLAN_MAX_OPS];
        th__cuda_plan_offsets(&p, i, off);
        out[i] = off[0] + off[1] + off[2] + off[3];
    }
}

__global__ void plan_check_reduce(th__cuda_reduce_plan p, int64_t *out)
{
    const int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= p.numel_out) return;
    int64_t sum = 0;
    if (p.use32) {
        int32_t oo, io;
        th__cuda_reduce_out_offsets32(&p, (int32_t)o, &oo, &io);
        for (int32_t j = 0; j < (int32_t)p.numel_red; j++) sum += io + th__cuda_reduce_in_offset32(&p, j);
        out[oo / 8] = sum;
    } else {
        int64_t oo, io;
        th__cuda_reduce_out_offsets(&p, o, &oo, &io);
        for (int64_t j = 0; j < p.numel_red; j++) sum += io + th__cuda_reduce_in_offset(&p, j);
        out[oo / 8] = sum;
    }
}

// The host builders compile here too, as C++.
bool plan_check_build(th__cuda_plan *p, th__cuda_reduce_plan *r, const th_tensor *const *ops)
{
    return th__cuda_plan_elementwise(p, 3, ops) && th__cuda_plan_reduce(r, ops[1], TH_CUDA_REDUCE_ALL, ops[0]);
}
