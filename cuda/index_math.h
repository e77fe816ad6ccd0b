/* cuda/index_math.h: where element i of a strided copy lives, written once for the host and the device.
 *
 * A copy of n elements over up to TH_MAX_DIMS dims is described by a th__cuda_copy_plan passed to the kernel
 * by value: the sizes (coalesced: dims contiguous in both tensors merged, size-1 dims dropped, as the CPU
 * engine does) and each side's byte strides. Element i (row-major over sizes) is read at src + src_offset(i)
 * and written at dst + dst_offset(i). When every offset fits in 32 bits the kernel takes the 32-bit path (one
 * divide per dim in 32 bits is several times cheaper on a GPU). The host tests run these functions over host
 * buffers against th_tensor_copy. Needs tensor.h's declarations before it. */
#ifndef TH_CUDA_INDEX_MATH_H
#define TH_CUDA_INDEX_MATH_H

#include <stdbool.h>
#include <stdint.h>

#ifndef TH__HD
#ifdef __CUDACC__
#define TH__HD static inline __host__ __device__
#else
#define TH__HD static inline
#endif
#endif

typedef struct th__cuda_copy_plan {
    int ndim;
    int src_dtype, dst_dtype;
    int64_t numel;
    int64_t sizes[TH_MAX_DIMS];
    int64_t src_strides[TH_MAX_DIMS]; /* bytes */
    int64_t dst_strides[TH_MAX_DIMS]; /* bytes */
    bool use32;                       /* every index and byte offset fits in int32 */
} th__cuda_copy_plan;

/* The byte offsets of element i (0 <= i < numel) in src and dst. */
TH__HD void th__cuda_offsets(const th__cuda_copy_plan *p, int64_t i, int64_t *src_off, int64_t *dst_off)
{
    int64_t s = 0, d = 0;
    for (int k = p->ndim - 1; k >= 0; k--) {
        int64_t idx = i % p->sizes[k];
        i /= p->sizes[k];
        s += idx * p->src_strides[k];
        d += idx * p->dst_strides[k];
    }
    *src_off = s;
    *dst_off = d;
}

TH__HD void th__cuda_offsets32(const th__cuda_copy_plan *p, int32_t i, int32_t *src_off, int32_t *dst_off)
{
    int32_t s = 0, d = 0;
    for (int k = p->ndim - 1; k >= 0; k--) {
        int32_t size = (int32_t)p->sizes[k];
        int32_t idx = i % size;
        i /= size;
        s += idx * (int32_t)p->src_strides[k];
        d += idx * (int32_t)p->dst_strides[k];
    }
    *src_off = s;
    *dst_off = d;
}

/* The plan of copying src (any dtype, broadcast to dst's shape) into dst: dims of size 1 dropped, neighbours
 * contiguous in both merged, 32-bit index math when it fits. Both tensors' data pointers are the bases the
 * offsets count from. False (no error recorded) when the shapes do not broadcast. */
static inline bool th__cuda_plan_copy(const th_tensor *dst, const th_tensor *src, th__cuda_copy_plan *p)
{
    const int nd = th_tensor_ndim(dst), ns = th_tensor_ndim(src);
    const int64_t *dsz = th_tensor_sizes(dst), *dst_st = th_tensor_strides(dst);
    const int64_t *ssz = th_tensor_sizes(src), *src_st = th_tensor_strides(src);
    const int64_t des = (int64_t)th_dtype_info(th_tensor_dtype(dst))->size;
    const int64_t ses = (int64_t)th_dtype_info(th_tensor_dtype(src))->size;
    if (ns > nd) return false;
    p->src_dtype = (int)th_tensor_dtype(src);
    p->dst_dtype = (int)th_tensor_dtype(dst);
    p->numel = th_tensor_numel(dst);
    p->ndim = 0;
    for (int k = 0; k < nd; k++) {
        int ks = k - (nd - ns); /* src's dims align with dst's last ones */
        int64_t sstride = 0;
        if (ks >= 0) {
            if (ssz[ks] != dsz[k] && ssz[ks] != 1) return false;
            sstride = ssz[ks] == 1 ? 0 : src_st[ks] * ses;
        }
        if (dsz[k] == 1) continue;
        int m = p->ndim;
        /* Merge with the previous dim when both sides step contiguously across the boundary. */
        if (m > 0 && p->dst_strides[m - 1] == dst_st[k] * des * dsz[k] && p->src_strides[m - 1] == sstride * dsz[k]) {
            p->sizes[m - 1] *= dsz[k];
            p->dst_strides[m - 1] = dst_st[k] * des;
            p->src_strides[m - 1] = sstride;
            continue;
        }
        p->sizes[m] = dsz[k];
        p->dst_strides[m] = dst_st[k] * des;
        p->src_strides[m] = sstride;
        p->ndim++;
    }
    /* 32-bit math needs the index and every partial offset (each |stride| * (size - 1), summed) in range. */
    int64_t sreach = 0, dreach = 0;
    for (int k = 0; k < p->ndim; k++) {
        int64_t sa = p->src_strides[k] < 0 ? -p->src_strides[k] : p->src_strides[k];
        int64_t da = p->dst_strides[k] < 0 ? -p->dst_strides[k] : p->dst_strides[k];
        sreach += sa * (p->sizes[k] - 1);
        dreach += da * (p->sizes[k] - 1);
    }
    p->use32 = p->numel <= INT32_MAX && sreach + ses <= INT32_MAX && dreach + des <= INT32_MAX;
    return true;
}

#endif
