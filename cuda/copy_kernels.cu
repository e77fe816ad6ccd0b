// cuda/copy_kernels.cu: the device side of copies: strided copies with dtype conversion, and fills.
//
// The index math (index_math.h) and the conversions (convert.h) are the plain C the host tests check against
// th_tensor_copy; this file only launches them: a grid-stride loop over the elements, the 32-bit index path
// where the plan allows, a conversion-free path (a move of the element's bytes) for equal dtypes, and a tiled
// kernel for transposes of equal dtypes.
#include "tensor.h"

#include "convert.h"
#include "index_math.h"
#include "kernels.h"

#include <cuda_runtime.h>

namespace {

__device__ inline void offsets(const th__cuda_copy_plan &p, int32_t i, int32_t *so, int32_t *dof)
{
    th__cuda_offsets32(&p, i, so, dof);
}

__device__ inline void offsets(const th__cuda_copy_plan &p, int64_t i, int64_t *so, int64_t *dof)
{
    th__cuda_offsets(&p, i, so, dof);
}

template <typename Index, int Bytes>
__device__ void move_element(const th__cuda_copy_plan &p, Index i, const unsigned char *src, unsigned char *dst)
{
    Index so, dof;
    offsets(p, i, &so, &dof);
    if (Bytes == 0)
        th__cv_convert(dst + dof, p.dst_dtype, src + so, p.src_dtype);
    else
        memcpy(dst + dof, src + so, Bytes);
}

// Bytes > 0: equal dtypes of that element size; 0: a conversion.
template <typename Index, int Bytes>
__global__ void copy_kernel(th__cuda_copy_plan p, const unsigned char *src, unsigned char *dst)
{
    // The loop counter is 64-bit even on the 32-bit path: near INT32_MAX elements, i + the grid's stride
    // (up to 5.4e8) would overflow an int32 and wrap to a negative index that still passes i < n. Only the
    // index math, where the divisions are, runs in 32 bits.
    const int64_t n = p.numel;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        move_element<Index, Bytes>(p, (Index)i, src, dst);
}

template <typename Index>
cudaError_t launch(const th__cuda_copy_plan &p, const unsigned char *src, unsigned char *dst, cudaStream_t s,
                   int bytes)
{
    // cudaGetLastError below must speak of this launch only: clear what an earlier call left (a query's
    // cudaErrorNotReady, made by the program or by this library, is recorded there too). A sticky error
    // stays: the launch returns it again.
    (void)cudaGetLastError();
    const int threads = 256;
    long long blocks = (p.numel + threads - 1) / threads;
    if (blocks > 65535LL * 32) blocks = 65535LL * 32; // the loop strides over the rest
    dim3 grid((unsigned)blocks);
    switch (bytes) {
    case 1: copy_kernel<Index, 1><<<grid, threads, 0, s>>>(p, src, dst); break;
    case 2: copy_kernel<Index, 2><<<grid, threads, 0, s>>>(p, src, dst); break;
    case 4: copy_kernel<Index, 4><<<grid, threads, 0, s>>>(p, src, dst); break;
    case 8: copy_kernel<Index, 8><<<grid, threads, 0, s>>>(p, src, dst); break;
    case 16: copy_kernel<Index, 16><<<grid, threads, 0, s>>>(p, src, dst); break;
    default: copy_kernel<Index, 0><<<grid, threads, 0, s>>>(p, src, dst); break;
    }
    return cudaGetLastError();
}

// An element of Bytes bytes, moved as one value (the tiled transpose's typed loads and stores).
template <int Bytes> struct elem_of;
template <> struct elem_of<1> { typedef unsigned char type; };
template <> struct elem_of<2> { typedef unsigned short type; };
template <> struct elem_of<4> { typedef unsigned int type; };
template <> struct elem_of<8> { typedef unsigned long long type; };
template <> struct elem_of<16> { typedef ulonglong2 type; };

// A transposing copy through shared memory: element (b, i, j) is at b s_b + i Bytes + j s_j in src (dense along
// i) and at b d_b + i d_i + j Bytes in dst (dense along j). The generic kernel reads such a src a column at a
// time, each warp's 32 reads in 32 memory segments (an 8192^2 f32 transpose at 12% of a device copy's rate on an
// H200); here a Tile x Tile tile is read along i and written along j, both coalesced. The tile's row is padded by
// one element so that a warp reading a column of it hits 32 banks.
//
// A block of 32 x 8 threads moves (Tile / 32) x (Tile / 8) elements a thread per tile: a whole tile's loads are
// issued before the first is stored, from one base address per tile and constant steps. With 32 x 32 tiles (4
// elements a thread, every address from 64-bit products, every element behind a bounds check) the same copy ran
// at 54% of a device copy's rate: 34% of DRAM's throughput and 64% of the SMs' issue slots, the index math's.
// Tiles on an edge keep the checks. 16-byte elements take 32 x 32 tiles (a 64 x 65 tile of them would not fit in
// the 48 KiB of static shared memory).
template <int Bytes, int Tile>
__global__ void transpose_kernel(const unsigned char *__restrict__ src, unsigned char *__restrict__ dst,
                                 int64_t batch, int64_t ni, int64_t nj, int64_t s_b, int64_t s_j, int64_t d_b,
                                 int64_t d_i)
{
    typedef typename elem_of<Bytes>::type T;
    enum { C = Tile / 32, R = Tile / 8 }; // a thread's columns (along x) and rows (along y) of a tile
    __shared__ T tile[Tile][Tile + 1];
    const int x = threadIdx.x, y = threadIdx.y;
    for (int64_t b = blockIdx.z; b < batch; b += gridDim.z)
        for (int64_t i0 = (int64_t)blockIdx.x * Tile; i0 < ni; i0 += (int64_t)gridDim.x * Tile)
            for (int64_t j0 = (int64_t)blockIdx.y * Tile; j0 < nj; j0 += (int64_t)gridDim.y * Tile) {
                // tile[k][c] is src's (i0 + c, j0 + k); dst's (i0 + k, j0 + c) is tile[c][k].
                const unsigned char *sp = src + b * s_b + i0 * Bytes + j0 * s_j + x * Bytes + y * s_j;
                unsigned char *dp = dst + b * d_b + i0 * d_i + j0 * Bytes + x * Bytes + y * d_i;
                if (i0 + Tile <= ni && j0 + Tile <= nj) {
                    T v[R][C];
#pragma unroll
                    for (int r = 0; r < R; r++)
#pragma unroll
                        for (int c = 0; c < C; c++)
                            v[r][c] = *(const T *)(const void *)(sp + (int64_t)(8 * r) * s_j + 32 * c * Bytes);
#pragma unroll
                    for (int r = 0; r < R; r++)
#pragma unroll
                        for (int c = 0; c < C; c++) tile[y + 8 * r][x + 32 * c] = v[r][c];
                    __syncthreads();
#pragma unroll
                    for (int r = 0; r < R; r++)
#pragma unroll
                        for (int c = 0; c < C; c++)
                            *(T *)(void *)(dp + (int64_t)(8 * r) * d_i + 32 * c * Bytes) = tile[x + 32 * c][y + 8 * r];
                } else {
                    // Not unrolled: unrolled, these loops took the kernel from 32 registers a thread to 96 (ptxas
                    // -v), the whole tiles' path too (an 8192^2 f32 copy at 81% of a device copy's rate against
                    // 95% at 32 registers).
#pragma unroll 1
                    for (int r = 0; r < R; r++)
#pragma unroll 1
                        for (int c = 0; c < C; c++)
                            if (i0 + x + 32 * c < ni && j0 + y + 8 * r < nj)
                                tile[y + 8 * r][x + 32 * c] =
                                    *(const T *)(const void *)(sp + (int64_t)(8 * r) * s_j + 32 * c * Bytes);
                    __syncthreads();
#pragma unroll 1
                    for (int r = 0; r < R; r++)
#pragma unroll 1
                        for (int c = 0; c < C; c++)
                            if (i0 + y + 8 * r < ni && j0 + x + 32 * c < nj)
                                *(T *)(void *)(dp + (int64_t)(8 * r) * d_i + 32 * c * Bytes) = tile[x + 32 * c][y + 8 * r];
                }
                __syncthreads();
            }
}

// The plan is a transpose (the last two dims dense in src along one and in dst along the other, at most one
// batch dim outside them) of equal dtypes, every address aligned for a typed move: launched as one.
template <int Bytes>
bool try_transpose(const th__cuda_copy_plan &p, const unsigned char *src, unsigned char *dst, cudaStream_t s)
{
    if (p.ndim < 2 || p.ndim > 3) return false;
    const int pi = p.ndim - 2, qj = p.ndim - 1;
    if (p.src_strides[pi] != Bytes || p.dst_strides[qj] != Bytes) return false;
    int64_t all = (int64_t)(uintptr_t)src | (int64_t)(uintptr_t)dst;
    for (int k = 0; k < p.ndim; k++) all |= p.src_strides[k] | p.dst_strides[k];
    if (all % Bytes) return false;
    enum { Tile = Bytes <= 8 ? 64 : 32 };
    const int64_t batch = p.ndim == 3 ? p.sizes[0] : 1;
    const int64_t s_b = p.ndim == 3 ? p.src_strides[0] : 0, d_b = p.ndim == 3 ? p.dst_strides[0] : 0;
    const int64_t ti = (p.sizes[pi] + Tile - 1) / Tile, tj = (p.sizes[qj] + Tile - 1) / Tile;
    // x may have 2^31 - 1 blocks, y and z 65535; the loops stride over what a dimension's cap leaves.
    dim3 grid((unsigned)(ti < INT32_MAX ? ti : INT32_MAX), (unsigned)(tj < 65535 ? tj : 65535),
              (unsigned)(batch < 65535 ? batch : 65535));
    transpose_kernel<Bytes, Tile><<<grid, dim3(32, 8), 0, s>>>(src, dst, batch, p.sizes[pi], p.sizes[qj], s_b,
                                                               p.src_strides[qj], d_b, p.dst_strides[pi]);
    return true;
}

template <int Bytes>
__global__ void fill_kernel(unsigned char *dst, int64_t n, th__cv_c128 value)
{
    unsigned char v[16];
    // The value arrives as bytes of the dtype already (the host converted it); Bytes of it are the element.
    memcpy(v, &value, 16);
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
        memcpy(dst + i * Bytes, v, Bytes);
}

} // namespace

extern "C" int th__cuda_launch_copy(const th__cuda_copy_plan *plan, const void *src, void *dst, void *stream)
{
    if (plan->numel == 0) return 0;
    int bytes = 0;
    if (plan->src_dtype == plan->dst_dtype && plan->src_dtype != TH_BOOL) // bool bytes are normalised to 0/1
        bytes = (int)th_dtype_info((th_dtype)plan->src_dtype)->size;
    const unsigned char *s = (const unsigned char *)src;
    unsigned char *d = (unsigned char *)dst;
    cudaStream_t st = (cudaStream_t)stream;
    bool tiled = false;
    (void)cudaGetLastError(); // as in launch(): the result below is this launch's
    switch (bytes) {
    case 1: tiled = try_transpose<1>(*plan, s, d, st); break;
    case 2: tiled = try_transpose<2>(*plan, s, d, st); break;
    case 4: tiled = try_transpose<4>(*plan, s, d, st); break;
    case 8: tiled = try_transpose<8>(*plan, s, d, st); break;
    case 16: tiled = try_transpose<16>(*plan, s, d, st); break;
    default: break;
    }
    if (tiled) return (int)cudaGetLastError();
    return (int)(plan->use32 ? launch<int32_t>(*plan, s, d, st, bytes) : launch<int64_t>(*plan, s, d, st, bytes));
}

extern "C" int th__cuda_launch_fill(void *dst, int64_t n, int elem_bytes, const void *value, void *stream)
{
    if (n == 0) return 0;
    th__cv_c128 v;
    memset(&v, 0, sizeof v);
    memcpy(&v, value, (size_t)elem_bytes);
    const int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    if (blocks > 65535LL * 32) blocks = 65535LL * 32;
    unsigned char *d = (unsigned char *)dst;
    cudaStream_t st = (cudaStream_t)stream;
    (void)cudaGetLastError(); // as in launch(): the result below is this launch's
    switch (elem_bytes) {
    case 1: fill_kernel<1><<<(unsigned)blocks, threads, 0, st>>>(d, n, v); break;
    case 2: fill_kernel<2><<<(unsigned)blocks, threads, 0, st>>>(d, n, v); break;
    case 4: fill_kernel<4><<<(unsigned)blocks, threads, 0, st>>>(d, n, v); break;
    case 8: fill_kernel<8><<<(unsigned)blocks, threads, 0, st>>>(d, n, v); break;
    default: fill_kernel<16><<<(unsigned)blocks, threads, 0, st>>>(d, n, v); break;
    }
    return (int)cudaGetLastError();
}

namespace {
__global__ void empty_kernel() {}
} // namespace

extern "C" int th__cuda_launch_empty(void *stream)
{
    (void)cudaGetLastError();
    empty_kernel<<<1, 1, 0, (cudaStream_t)stream>>>();
    return (int)cudaGetLastError();
}
