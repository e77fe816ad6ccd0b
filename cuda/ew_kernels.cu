// cuda/ew_kernels.cu: the elementwise ops on the device, every op of ops/pointwise.h for every dtype but
// complex, each written once: this file stamps the host's op family again in device mode (ops/pointwise.h
// explains it), so each op's element function, the host's own, is compiled for the device, and each op's
// template gives a functor (cuda/ew_unary.cuh, ew_binary.cuh) that one kernel template runs over the device
// iteration plan (cuda/plan.h). The kernels register themselves in a table the companion looks ops up in by
// name and dtype (cuda/ew.h).
#include "tensor.h"

#include "convert.h"
#include "ew.h"

#include <cuda_runtime.h>
#include <limits.h>
#include <math.h>
#include <string.h>

// ---- the table ------------------------------------------------------------------------------------------

namespace {

// 63 ops x 9 dtypes at most today; the constructor below refuses to overflow it (and the test counts).
const int th__ew_capacity = 1024;
th__cuda_ew_kernel th__ew_table[th__ew_capacity];
int th__ew_n;
bool th__ew_overflow;

int th__ew_cmp(const th__cuda_ew_kernel &a, const char *op, int dtype)
{
    int c = strcmp(a.op, op);
    return c ? c : a.dtype - dtype;
}

// Sorted by (op, dtype) once, on the first lookup: the registrations run in static initialisation, before.
bool th__ew_sort()
{
    for (int i = 1; i < th__ew_n; i++) {
        th__cuda_ew_kernel k = th__ew_table[i];
        int j = i;
        for (; j > 0 && th__ew_cmp(th__ew_table[j - 1], k.op, k.dtype) > 0; j--) th__ew_table[j] = th__ew_table[j - 1];
        th__ew_table[j] = k;
    }
    return true;
}

} // namespace

// One per op and dtype, made in static initialisation by the stamped templates.
struct th__cuda_ew_register {
    th__cuda_ew_register(const char *op, int dtype, int out_dtype, int nin, th__cuda_ew_launcher launch)
    {
        if (th__ew_n == th__ew_capacity) {
            th__ew_overflow = true;
            return;
        }
        th__ew_table[th__ew_n++] = th__cuda_ew_kernel{op, dtype, out_dtype, nin, launch};
    }
};

extern "C" const th__cuda_ew_kernel *th__cuda_ew_find(const char *op, int dtype)
{
    static const bool sorted = th__ew_sort(); // C++11: made once, thread-safe
    (void)sorted;
    int lo = 0, hi = th__ew_n;
    while (lo < hi) {
        int mid = (lo + hi) / 2, c = th__ew_cmp(th__ew_table[mid], op, dtype);
        if (c == 0) return &th__ew_table[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return nullptr;
}

extern "C" int th__cuda_ew_count(void) { return th__ew_overflow ? -1 : th__ew_n; }

extern "C" const th__cuda_ew_kernel *th__cuda_ew_at(int i)
{
    (void)th__cuda_ew_find("", 0); // sorted, as lookups see it
    return i >= 0 && i < th__ew_n ? &th__ew_table[i] : nullptr;
}

// ---- the kernel --------------------------------------------------------------------------------------------

namespace {

// An element of any real dtype, or the op's values, by value in the launch: aligned for any of them.
union th__ew_value {
    double d[2];
    int64_t i[2];
    unsigned char bytes[16];
};

// What a launch passes besides the plan: the operands' first elements, the scalars' values (a 0-d host
// tensor's value is read when the op is queued, as the host's _scalar forms read theirs), and the op's values
// (add_alpha's alpha, clamp's bounds) in its compute type.
struct th__ew_args {
    char *out;
    const char *in[3];
    th__ew_value value[3];
    th__ew_value params;
    unsigned scalar_mask; // bit k: input k is value[k]
};

__device__ inline void th__ew_offsets(const th__cuda_plan &p, int32_t i, int32_t *off)
{
    th__cuda_plan_offsets32(&p, i, off);
}

__device__ inline void th__ew_offsets(const th__cuda_plan &p, int64_t i, int64_t *off)
{
    th__cuda_plan_offsets(&p, i, off);
}

// A grid-stride loop over the plan's elements. The loop counter is 64-bit on either path (near INT32_MAX
// elements a 32-bit one would wrap); only the offsets, where the divisions are, may be 32-bit. F loads its own
// inputs from the pointers it is given (where's cond is bool, its a and b are not).
template <typename F, typename Index> __global__ void th__ew_kernel(th__cuda_plan p, th__ew_args a)
{
    const F f = F();
    const int64_t n = p.numel;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        Index off[TH_CUDA_PLAN_MAX_OPS];
        th__ew_offsets(p, (Index)i, off);
        const char *x[3] = {nullptr, nullptr, nullptr};
        for (int k = 0; k < F::nin; k++)
            x[k] = (a.scalar_mask >> k & 1u) ? (const char *)a.value[k].bytes : a.in[k] + off[k + 1];
        *(typename F::out_t *)(void *)(a.out + off[0]) = f(x, a.params.bytes);
    }
}

// Plans of at most one dim (every contiguous operand, a scalar broadcast, a strided 1-d view): offsets are
// products, no divisions, and each thread computes a tile of th__ew_unroll elements a block apart. In a whole
// tile of operands in memory (no scalar), every load of the tile is issued before the first store: elementwise,
// one at a time, a store may alias the next element's loads as far as the compiler knows, and a per-element
// choice between a scalar and memory puts each load behind its own branch; either way a thread had one
// element's reads in flight, and a 256 MiB f32 add ran at 71% of a device copy's rate on an H200. An element's
// store still follows its own loads, so exact in-place use stays right.
const int th__ew_unroll = 4;

template <typename F, typename Index, bool Scalars, bool Full>
__device__ __forceinline__ void th__ew_tile(const F &f, const th__ew_args &a, const Index *st, int64_t n, int64_t base)
{
    typename F::out_t r[th__ew_unroll] = {};
#pragma unroll
    for (int u = 0; u < th__ew_unroll; u++) {
        const int64_t i = base + (int64_t)u * blockDim.x;
        if (Full || i < n) {
            const char *x[3] = {nullptr, nullptr, nullptr};
            for (int k = 0; k < F::nin; k++)
                x[k] = Scalars && (a.scalar_mask >> k & 1u) ? (const char *)a.value[k].bytes
                                                             : a.in[k] + (Index)i * st[k + 1];
            r[u] = f(x, a.params.bytes);
        }
    }
#pragma unroll
    for (int u = 0; u < th__ew_unroll; u++) {
        const int64_t i = base + (int64_t)u * blockDim.x;
        if (Full || i < n) *(typename F::out_t *)(void *)(a.out + (Index)i * st[0]) = r[u];
    }
}

// What a plan of at most one dim comes to: 40 bytes of kernel parameters instead of th__cuda_plan's 744, which
// the driver copies at every launch (a tiny op's launch is most of its time).
struct th__ew_line {
    int64_t numel;
    int64_t strides[TH_CUDA_PLAN_MAX_OPS]; // bytes; 0 for a single element
};

template <typename F, typename Index> __global__ void th__ew_kernel_linear(th__ew_line p, th__ew_args a)
{
    const F f = F();
    Index st[TH_CUDA_PLAN_MAX_OPS];
    for (int k = 0; k < TH_CUDA_PLAN_MAX_OPS; k++) st[k] = (Index)p.strides[k];
    const int64_t n = p.numel, step = (int64_t)gridDim.x * blockDim.x * th__ew_unroll;
    for (int64_t base = (int64_t)blockIdx.x * blockDim.x * th__ew_unroll + threadIdx.x; base < n; base += step) {
        if (a.scalar_mask) th__ew_tile<F, Index, true, false>(f, a, st, n, base);
        else if (base + (int64_t)(th__ew_unroll - 1) * blockDim.x < n) th__ew_tile<F, Index, false, true>(f, a, st, n, base);
        else th__ew_tile<F, Index, false, false>(f, a, st, n, base);
    }
}

// Operands all in memory one element after another, each from an address that is a multiple of its vector's
// size, and no scalar operand: a thread reads each input's V consecutive elements with one load of up to 16
// bytes, and writes its V results with one store. One element a load (th__ew_kernel_linear) was 0.94-0.96x of
// PyTorch's add on an H200; this kernel is 1.04x of a device copy's rate and 1.006x of PyTorch's (2026-11-28).
// A scalar operand stays on the linear kernel: pointing an element's input at the launch's value[k] takes the
// address of a kernel parameter, which makes every thread copy the parameters to its local memory on entry (48
// bytes a thread here: the first version of this kernel, with scalars, ran at 0.81x of the copy).
// V: as many elements as 16 bytes hold of the widest operand (4 for f32, 2 for f64, 8 for f16, 4 for a
// comparison of f32 into bool).
template <typename F> struct th__ew_vec {
    static constexpr size_t widest_in = F::in_bytes[0] > F::in_bytes[1]
                                            ? (F::in_bytes[0] > F::in_bytes[2] ? F::in_bytes[0] : F::in_bytes[2])
                                            : (F::in_bytes[1] > F::in_bytes[2] ? F::in_bytes[1] : F::in_bytes[2]);
    static constexpr size_t widest = widest_in > sizeof(typename F::out_t) ? widest_in : sizeof(typename F::out_t);
    static constexpr int width = (int)(16 / widest);
};

// The integer type of a load or store of B bytes (B a power of two, 1 to 16).
template <int B> struct th__ew_word;
template <> struct th__ew_word<1> { typedef unsigned char type; };
template <> struct th__ew_word<2> { typedef unsigned short type; };
template <> struct th__ew_word<4> { typedef unsigned int type; };
template <> struct th__ew_word<8> { typedef uint2 type; };
template <> struct th__ew_word<16> { typedef uint4 type; };

// B bytes that one load or store moves; the elements are read out of (written into) its bytes.
template <int B> union th__ew_chunk {
    typename th__ew_word<B>::type word;
    unsigned char bytes[B];
};

// Each thread computes th__ew_vec_unroll vectors a grid apart per step, every load of the step before its first
// store (as th__ew_tile, for the same reason). The elements after the last whole vector go to the first
// threads, one each.
const int th__ew_vec_unroll = 2;

template <typename F> __global__ void th__ew_kernel_vec(int64_t numel, th__ew_args a)
{
    constexpr int V = th__ew_vec<F>::width, U = th__ew_vec_unroll;
    // The element sizes as constants of this function: F::in_bytes itself is a host variable.
    constexpr int S0 = (int)F::in_bytes[0], S1 = (int)F::in_bytes[1], S2 = (int)F::in_bytes[2];
    constexpr int B0 = S0 * V, B1 = S1 ? S1 * V : 1, B2 = S2 ? S2 * V : 1, BO = (int)sizeof(typename F::out_t) * V;
    typedef typename F::out_t out_t;
    const F f = F();
    const int64_t nvec = numel / V, grid = (int64_t)gridDim.x * blockDim.x;
    const int64_t first = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (int64_t v0 = first; v0 < nvec; v0 += grid * U) {
        th__ew_chunk<B0> c0[U];
        th__ew_chunk<B1> c1[U];
        th__ew_chunk<B2> c2[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t v = v0 + u * grid;
            if (v >= nvec) break;
            c0[u].word = ((const typename th__ew_word<B0>::type *)(const void *)a.in[0])[v];
            if (F::nin > 1) c1[u].word = ((const typename th__ew_word<B1>::type *)(const void *)a.in[1])[v];
            if (F::nin > 2) c2[u].word = ((const typename th__ew_word<B2>::type *)(const void *)a.in[2])[v];
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t v = v0 + u * grid;
            if (v >= nvec) break;
            th__ew_chunk<BO> r;
#pragma unroll
            for (int j = 0; j < V; j++) {
                const char *x[3] = {(const char *)c0[u].bytes + j * S0, (const char *)c1[u].bytes + j * S1,
                                    (const char *)c2[u].bytes + j * S2};
                const out_t y = f(x, a.params.bytes);
                memcpy(r.bytes + j * sizeof(out_t), &y, sizeof(out_t));
            }
            ((typename th__ew_word<BO>::type *)(void *)a.out)[v] = r.word;
        }
    }
    const int64_t tail = nvec * V + first;
    if (tail < numel) {
        const int64_t size[3] = {S0, S1, S2};
        const char *x[3] = {nullptr, nullptr, nullptr};
        for (int k = 0; k < F::nin; k++) x[k] = a.in[k] + tail * size[k];
        *(out_t *)(void *)(a.out + tail * (int64_t)sizeof(out_t)) = f(x, a.params.bytes);
    }
}

// Whether the vector kernel can run the plan: one dim, every operand in memory contiguous (its stride its
// element's size) and its first element on a multiple of its vector's size.
template <typename F> bool th__ew_vec_fits(const th__cuda_plan *plan, const th__ew_args &a)
{
    constexpr int V = th__ew_vec<F>::width;
    if (plan->ndim != 1 || V < 2 || plan->numel < V) return false;
    if (plan->strides[0][0] != (int64_t)sizeof(typename F::out_t) || (uintptr_t)a.out % (V * sizeof(typename F::out_t)))
        return false;
    if (a.scalar_mask) return false;
    for (int k = 0; k < F::nin; k++) {
        if (plan->strides[0][k + 1] != (int64_t)F::in_bytes[k] || (uintptr_t)a.in[k] % (V * F::in_bytes[k])) return false;
    }
    return true;
}

} // namespace

template <typename F>
int th__cuda_ew_launch(const th__cuda_plan *plan, char *const *data, const void *const *scalars, const void *params,
                       void *stream)
{
    if (plan->numel == 0) return 0;
    th__ew_args a;
    memset(&a, 0, sizeof a);
    a.out = data[0];
    for (int k = 0; k < F::nin; k++) {
        if (scalars[k]) {
            memcpy(a.value[k].bytes, scalars[k], F::in_bytes[k]);
            a.scalar_mask |= 1u << k;
        } else {
            a.in[k] = data[k + 1];
        }
    }
    if (F::params_bytes) memcpy(a.params.bytes, params, F::params_bytes);
    const int threads = 256;
    cudaStream_t s = (cudaStream_t)stream;
    (void)cudaGetLastError(); // the result below is this launch's, not an earlier query's
    if (th__ew_vec_fits<F>(plan, a)) {
        const long long per_block = (long long)threads * th__ew_vec<F>::width * th__ew_vec_unroll;
        long long blocks = (plan->numel + per_block - 1) / per_block;
        if (blocks > 65535LL * 32) blocks = 65535LL * 32;
        th__ew_kernel_vec<F><<<(unsigned)blocks, threads, 0, s>>>(plan->numel, a);
        return (int)cudaGetLastError();
    }
    const bool linear = plan->ndim <= 1;
    const long long per_block = linear ? threads * th__ew_unroll : threads;
    long long blocks = (plan->numel + per_block - 1) / per_block;
    if (blocks > 65535LL * 32) blocks = 65535LL * 32; // the loop strides over the rest
    th__ew_line line;
    line.numel = plan->numel;
    for (int k = 0; k < TH_CUDA_PLAN_MAX_OPS; k++) line.strides[k] = plan->ndim ? plan->strides[0][k] : 0;
    if (linear && plan->use32) th__ew_kernel_linear<F, int32_t><<<(unsigned)blocks, threads, 0, s>>>(line, a);
    else if (linear) th__ew_kernel_linear<F, int64_t><<<(unsigned)blocks, threads, 0, s>>>(line, a);
    else if (plan->use32) th__ew_kernel<F, int32_t><<<(unsigned)blocks, threads, 0, s>>>(*plan, a);
    else th__ew_kernel<F, int64_t><<<(unsigned)blocks, threads, 0, s>>>(*plan, a);
    return (int)cudaGetLastError();
}

// ---- every op, stamped --------------------------------------------------------------------------------------

#define TH__DEVICE_ELEMS
#define TH__DEVICE_UNARY_OP "cuda/ew_unary.cuh"
#define TH__DEVICE_BINARY_OP "cuda/ew_binary.cuh"
#define TH__DEVICE_TERNARY_OP "cuda/ew_ternary.cuh"
#define TH__DEVICE_TO_FLOAT(dt, bits) ((dt) == TH_F16 ? th__cv_half_to_float(bits) : th__cv_bf16_to_float(bits))
#define TH__DEVICE_FROM_FLOAT(dt, f) ((dt) == TH_F16 ? th__cv_half_from_float(f) : th__cv_bf16_from_float(f))
#define TH_GENERIC_FILE "../cuda/ew_generic.cuh"
#include "generate/real.h"
