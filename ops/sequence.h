/* ops/sequence.h: the values of arange and linspace, written once in plain C for the host and a device.
 * tensor.h's implementation includes it (ops/create.h's definitions use it), and so does the CUDA companion's
 * kernel file (cuda/fill_elems.h), so th_f32_cuda_linspace gives th_f32_linspace's bits. Element i is computed
 * in double (floating) or in uint64 arithmetic (integers, wrapping as the host's checks allow) from its index
 * alone; a device must not contract a * b + c (cuda/ builds with --fmad=false), as C11 does not. */
#ifndef TH_OPS_SEQUENCE_H
#define TH_OPS_SEQUENCE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define TH__SEQ_FN static inline __host__ __device__ __attribute__((unused))
#elif defined(__GNUC__)
#define TH__SEQ_FN static inline __attribute__((unused))
#else
#define TH__SEQ_FN static inline
#endif

/* The number of elements of a floating arange, ceil((end - start) / step), or false when it is not below
 * 2^62 (NaN included: end - start may overflow to inf). Bounds and step finite, step != 0. */
TH__SEQ_FN bool th__arange_count_f64(double start, double end, double step, int64_t *n)
{
    double count = ceil((end - start) / step);
    if (!(count < (double)(INT64_C(1) << 62))) return false;
    *n = count > 0 ? (int64_t)count : 0;
    return true;
}

TH__SEQ_FN double th__arange_f64_at(double start, double step, int64_t i) { return start + (double)i * step; }

/* The number of elements of an integer arange, exactly, or false beyond INT64_MAX. step != 0. Unsigned:
 * end - start may not fit int64 on the way. */
TH__SEQ_FN bool th__arange_count_i64(int64_t start, int64_t end, int64_t step, int64_t *n)
{
    uint64_t diff = 0, ustep = step > 0 ? (uint64_t)step : 0u - (uint64_t)step;
    if (step > 0 && end > start) diff = (uint64_t)end - (uint64_t)start;
    if (step < 0 && end < start) diff = (uint64_t)start - (uint64_t)end;
    uint64_t count = diff / ustep + (diff % ustep != 0);
    if (count > (uint64_t)INT64_MAX) return false;
    *n = (int64_t)count;
    return true;
}

TH__SEQ_FN int64_t th__arange_i64_at(int64_t start, int64_t step, int64_t i)
{
    return (int64_t)((uint64_t)start + (uint64_t)i * (uint64_t)step);
}

/* Element i of linspace(start, end, steps): the first half counted from start, the second from end, so both
 * ends are exact. */
TH__SEQ_FN double th__linspace_at(double start, double end, int64_t steps, int64_t i)
{
    if (steps == 1) return start;
    double step = (end - start) / (double)(steps - 1);
    return i < steps / 2 ? start + (double)i * step : end - (double)(steps - 1 - i) * step;
}

#endif /* TH_OPS_SEQUENCE_H */
