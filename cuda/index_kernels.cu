// cuda/index_kernels.cu: the indexing kernels. The index math is cuda/index_plan.h's (plain C, tested on the
// host against the CPU's ops); these only launch it: grid-stride loops over a plan, the plan's 32-bit offsets
// where it allows them, elements moved as words of their size (every dtype, complex included: nothing but
// scatter_add computes) and scatter_add's sum stamped per dtype.
#include "tensor.h"

#include "index_plan.h"

#include <cuda_runtime.h>

namespace {

// The plan's offsets of element i, widened: the index value's own step is added in 64 bits.
template <typename Index> __device__ inline void offsets(const th__cuda_plan &p, int64_t i, int64_t *off);

template <> __device__ inline void offsets<int32_t>(const th__cuda_plan &p, int64_t i, int64_t *off)
{
    int32_t o[TH_CUDA_PLAN_MAX_OPS];
    th__cuda_plan_offsets32(&p, (int32_t)i, o);
#pragma unroll
    for (int k = 0; k < TH_CUDA_PLAN_MAX_OPS; k++) off[k] = o[k];
}

template <> __device__ inline void offsets<int64_t>(const th__cuda_plan &p, int64_t i, int64_t *off)
{
    th__cuda_plan_offsets(&p, i, off);
}

struct th__ix_pair {
    uint64_t lo, hi; // 16-byte elements (complex128) are 8-byte aligned
};

template <int Bytes> struct th__ix_word;
template <> struct th__ix_word<1> { typedef uint8_t type; };
template <> struct th__ix_word<2> { typedef uint16_t type; };
template <> struct th__ix_word<4> { typedef uint32_t type; };
template <> struct th__ix_word<8> { typedef uint64_t type; };
template <> struct th__ix_word<16> { typedef th__ix_pair type; };

// Elements of a tensor on the device are aligned to their size (8 for complex128): one load and one store.
template <int Bytes> __device__ inline void move(char *dst, const char *src)
{
    typedef typename th__ix_word<Bytes>::type T;
    *(T *)(void *)dst = *(const T *)(const void *)src;
}

// An element's bytes passed by value in the launch (masked_fill's value), aligned as move<16> reads them.
union th__ix_value {
    uint64_t words[2];
    unsigned char bytes[16];
};

const int threads = 256;

unsigned blocks_for(int64_t n)
{
    long long b = (n + threads - 1) / threads;
    if (b > 65535LL * 32) b = 65535LL * 32; // the loops stride over the rest
    return (unsigned)b;
}

// The loop counters are 64-bit on either path: near INT32_MAX elements a 32-bit one would wrap.
template <typename Index>
__global__ void check_kernel(th__cuda_plan p, const char *index, int64_t bound, unsigned long long *first_bad)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.numel; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[TH_CUDA_PLAN_MAX_OPS];
        offsets<Index>(p, i, off);
        if (th__cuda_ix_wrap(th__cuda_ix_load(index + off[0]), bound) < 0) atomicMin(first_bad, (unsigned long long)i);
    }
}

template <typename Index, int Bytes>
__global__ void pick_kernel(th__cuda_ix_pick p, char *out, const char *index, const char *src)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.plan.numel;
         i += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[TH_CUDA_PLAN_MAX_OPS], so;
        offsets<Index>(p.plan, i, off);
        if (th__cuda_ix_pick_at(&p, off, index, &so)) move<Bytes>(out + off[0], src + so);
    }
}

// One thread per line, in order along it: see index_plan.h for why this gives the CPU's bits.
template <typename Index, int Bytes>
__global__ void scatter_kernel(th__cuda_ix_scatter p, char *target, const char *index, const char *src)
{
    for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < p.plan.numel;
         l += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[TH_CUDA_PLAN_MAX_OPS];
        offsets<Index>(p.plan, l, off);
        for (int64_t j = 0; j < p.len; j++) {
            int64_t d, s;
            if (th__cuda_ix_scatter_at(&p, off, j, index, &d, &s)) move<Bytes>(target + d, src + s);
        }
    }
}

template <typename Index, int DT>
__global__ void scatter_add_kernel(th__cuda_ix_scatter p, char *target, const char *index, const char *src)
{
    for (int64_t l = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; l < p.plan.numel;
         l += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[TH_CUDA_PLAN_MAX_OPS];
        offsets<Index>(p.plan, l, off);
        for (int64_t j = 0; j < p.len; j++) {
            int64_t d, s;
            if (th__cuda_ix_scatter_at(&p, off, j, index, &d, &s))
                th__cuda_ix_add((unsigned char *)target + d, (const unsigned char *)src + s, DT);
        }
    }
}

template <typename Index, int Bytes>
__global__ void masked_fill_kernel(th__cuda_plan p, char *out, const char *mask, th__ix_value v)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < p.numel; i += (int64_t)gridDim.x * blockDim.x) {
        int64_t off[TH_CUDA_PLAN_MAX_OPS];
        offsets<Index>(p, i, off);
        if (mask[off[1]]) move<Bytes>(out + off[0], (const char *)v.bytes);
    }
}

// ---- launching: the element size (or dtype) and the index width chosen once per launch -----------------

template <typename Index>
cudaError_t pick(const th__cuda_ix_pick &p, char *out, const char *index, const char *src, int elsize, cudaStream_t s)
{
    const unsigned b = blocks_for(p.plan.numel);
    switch (elsize) {
    case 1: pick_kernel<Index, 1><<<b, threads, 0, s>>>(p, out, index, src); break;
    case 2: pick_kernel<Index, 2><<<b, threads, 0, s>>>(p, out, index, src); break;
    case 4: pick_kernel<Index, 4><<<b, threads, 0, s>>>(p, out, index, src); break;
    case 8: pick_kernel<Index, 8><<<b, threads, 0, s>>>(p, out, index, src); break;
    case 16: pick_kernel<Index, 16><<<b, threads, 0, s>>>(p, out, index, src); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

template <typename Index>
cudaError_t scatter(const th__cuda_ix_scatter &p, char *target, const char *index, const char *src, int dtype, bool add,
                    cudaStream_t s)
{
    const unsigned b = blocks_for(p.plan.numel);
    if (add) {
        switch (dtype) {
#define TH__IX_ADD(DT) case DT: scatter_add_kernel<Index, DT><<<b, threads, 0, s>>>(p, target, index, src); break;
        TH__IX_ADD(TH_BOOL) TH__IX_ADD(TH_U8) TH__IX_ADD(TH_I8) TH__IX_ADD(TH_I16) TH__IX_ADD(TH_I32)
        TH__IX_ADD(TH_I64) TH__IX_ADD(TH_F16) TH__IX_ADD(TH_BF16) TH__IX_ADD(TH_F32) TH__IX_ADD(TH_F64)
        TH__IX_ADD(TH_C64) TH__IX_ADD(TH_C128)
#undef TH__IX_ADD
        default: return cudaErrorInvalidValue;
        }
        return cudaGetLastError();
    }
    switch (th_dtype_info((th_dtype)dtype)->size) {
    case 1: scatter_kernel<Index, 1><<<b, threads, 0, s>>>(p, target, index, src); break;
    case 2: scatter_kernel<Index, 2><<<b, threads, 0, s>>>(p, target, index, src); break;
    case 4: scatter_kernel<Index, 4><<<b, threads, 0, s>>>(p, target, index, src); break;
    case 8: scatter_kernel<Index, 8><<<b, threads, 0, s>>>(p, target, index, src); break;
    case 16: scatter_kernel<Index, 16><<<b, threads, 0, s>>>(p, target, index, src); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

template <typename Index>
cudaError_t masked_fill(const th__cuda_plan &p, char *out, const char *mask, const th__ix_value &v, int elsize,
                        cudaStream_t s)
{
    const unsigned b = blocks_for(p.numel);
    switch (elsize) {
    case 1: masked_fill_kernel<Index, 1><<<b, threads, 0, s>>>(p, out, mask, v); break;
    case 2: masked_fill_kernel<Index, 2><<<b, threads, 0, s>>>(p, out, mask, v); break;
    case 4: masked_fill_kernel<Index, 4><<<b, threads, 0, s>>>(p, out, mask, v); break;
    case 8: masked_fill_kernel<Index, 8><<<b, threads, 0, s>>>(p, out, mask, v); break;
    case 16: masked_fill_kernel<Index, 16><<<b, threads, 0, s>>>(p, out, mask, v); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

} // namespace

// Each launcher clears what an earlier call left in cudaGetLastError (a query's cudaErrorNotReady), so the
// status it returns is its own launch's; a sticky error stays and is returned again.

extern "C" int th__cuda_ix_launch_check(const th__cuda_plan *plan, const void *index, int64_t bound,
                                        unsigned long long *first_bad, void *stream)
{
    if (plan->numel == 0) return 0;
    (void)cudaGetLastError();
    const unsigned b = blocks_for(plan->numel);
    cudaStream_t s = (cudaStream_t)stream;
    const char *x = (const char *)index;
    if (plan->use32) check_kernel<int32_t><<<b, threads, 0, s>>>(*plan, x, bound, first_bad);
    else check_kernel<int64_t><<<b, threads, 0, s>>>(*plan, x, bound, first_bad);
    return (int)cudaGetLastError();
}

extern "C" int th__cuda_ix_launch_pick(const th__cuda_ix_pick *p, void *out, const void *index, const void *src,
                                       int elsize, void *stream)
{
    if (p->plan.numel == 0) return 0;
    (void)cudaGetLastError();
    char *o = (char *)out;
    const char *x = (const char *)index, *v = (const char *)src;
    cudaStream_t s = (cudaStream_t)stream;
    return (int)(p->plan.use32 ? pick<int32_t>(*p, o, x, v, elsize, s) : pick<int64_t>(*p, o, x, v, elsize, s));
}

extern "C" int th__cuda_ix_launch_scatter(const th__cuda_ix_scatter *p, void *target, const void *index,
                                          const void *src, int dtype, bool add, void *stream)
{
    if (p->plan.numel == 0 || p->len == 0) return 0;
    (void)cudaGetLastError();
    char *t = (char *)target;
    const char *x = (const char *)index, *v = (const char *)src;
    cudaStream_t s = (cudaStream_t)stream;
    return (int)(p->plan.use32 ? scatter<int32_t>(*p, t, x, v, dtype, add, s)
                               : scatter<int64_t>(*p, t, x, v, dtype, add, s));
}

extern "C" int th__cuda_ix_launch_masked_fill(const th__cuda_plan *plan, void *out, const void *mask, const void *value,
                                              int elsize, void *stream)
{
    if (plan->numel == 0) return 0;
    if (elsize < 1 || elsize > 16) return (int)cudaErrorInvalidValue;
    (void)cudaGetLastError();
    th__ix_value v;
    memset(&v, 0, sizeof v);
    memcpy(v.bytes, value, (size_t)elsize);
    char *o = (char *)out;
    const char *m = (const char *)mask;
    cudaStream_t s = (cudaStream_t)stream;
    return (int)(plan->use32 ? masked_fill<int32_t>(*plan, o, m, v, elsize, s)
                             : masked_fill<int64_t>(*plan, o, m, v, elsize, s));
}
