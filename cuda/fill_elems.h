/* cuda/fill_elems.h: one element of an op that computes each element from its index alone: the samplers (a
 * draw's element i from Philox block offset + i) and arange, linspace and eye. Written once in plain C for the
 * host and the device, over the host's own arithmetic (ops/philox.h, ops/sequence.h) and the conversions the
 * copy kernels use (cuda/convert.h), which equal the host's from_f64 / from_i64 bit for bit.
 *
 * The kernel (cuda/fill_kernels.cu) calls th__cuda_fill_element for each element; the host test
 * (tests/cuda/test_cuda_fill.c) runs the same function over host buffers against the CPU library's samplers
 * and creation ops for every dtype, so "the device's numbers are the CPU's" is checked without a GPU, up to the
 * device's own libm (normal, exponential: docs/cuda.md). Needs tensor.h's declarations (th_dtype) before it. */
#ifndef TH_CUDA_FILL_ELEMS_H
#define TH_CUDA_FILL_ELEMS_H

#include "../ops/philox.h"
#include "../ops/sequence.h"
#include "convert.h"

typedef enum th__cuda_fill_kind {
    TH__CUDA_FILL_UNIFORM,
    TH__CUDA_FILL_NORMAL,
    TH__CUDA_FILL_EXPONENTIAL,
    TH__CUDA_FILL_BERNOULLI,
    TH__CUDA_FILL_RANDINT,
    TH__CUDA_FILL_ARANGE_F64, /* floating dtypes: the values in double */
    TH__CUDA_FILL_ARANGE_I64, /* integer dtypes: exactly, in int64 */
    TH__CUDA_FILL_LINSPACE,
    TH__CUDA_FILL_EYE
} th__cuda_fill_kind;

/* A kernel parameter (passed by value). */
typedef struct th__cuda_fill_args {
    int32_t kind;  /* th__cuda_fill_kind */
    int32_t dtype; /* the output's */
    th__philox_stream stream; /* the samplers' blocks */
    double a, b;   /* uniform: lo, hi; normal: mean, std; exponential: lambda; bernoulli: p; arange: start, step;
                    * linspace: start, end */
    double top;    /* uniform: the largest value of the dtype below hi */
    int64_t i0, i1; /* randint: lo; integer arange: start, step; linspace: steps; eye: columns */
    uint64_t range; /* randint: hi - lo (0: 2^64) */
} th__cuda_fill_args;

/* Element i (row-major) of the output, written at dst in the output's dtype. */
TH__HD void th__cuda_fill_element(const th__cuda_fill_args *a, int64_t i, unsigned char *dst)
{
    const uint64_t u = (uint64_t)i;
    switch (a->kind) {
    case TH__CUDA_FILL_UNIFORM:
        /* As the host's uniform kernel: a value that rounds up to hi in the dtype becomes top. */
        th__cv_store_f64(dst, a->dtype, th__rand_uniform(&a->stream, u, a->a, a->b));
        if (th__cv_load_f64(dst, a->dtype) >= a->b) th__cv_store_f64(dst, a->dtype, a->top);
        break;
    case TH__CUDA_FILL_NORMAL: th__cv_store_f64(dst, a->dtype, th__rand_normal(&a->stream, u, a->a, a->b)); break;
    case TH__CUDA_FILL_EXPONENTIAL: th__cv_store_f64(dst, a->dtype, th__rand_exponential(&a->stream, u, a->a)); break;
    case TH__CUDA_FILL_BERNOULLI: th__cv_store_i64(dst, a->dtype, th__rand_bernoulli(&a->stream, u, a->a) ? 1 : 0); break;
    case TH__CUDA_FILL_RANDINT:
        th__cv_store_i64(dst, a->dtype, (int64_t)((uint64_t)a->i0 + th__rand_below(&a->stream, u, a->range)));
        break;
    case TH__CUDA_FILL_ARANGE_F64: th__cv_store_f64(dst, a->dtype, th__arange_f64_at(a->a, a->b, i)); break;
    case TH__CUDA_FILL_ARANGE_I64: th__cv_store_i64(dst, a->dtype, th__arange_i64_at(a->i0, a->i1, i)); break;
    case TH__CUDA_FILL_LINSPACE: th__cv_store_f64(dst, a->dtype, th__linspace_at(a->a, a->b, a->i0, i)); break;
    default: th__cv_store_i64(dst, a->dtype, i / a->i0 == i % a->i0 ? 1 : 0); break; /* eye: i0 > 0 here */
    }
}

/* The arguments of each op, made on the host (cuda/fill.c, and the host test, which must build them as the
 * companion does). */
#ifndef __CUDACC__
/* A draw the core hands over (core/device_ops.h); false for a sampler this file does not know. */
static inline __attribute__((unused)) bool th__cuda_fill_random_args(const th_device_random *call, th__cuda_fill_args *a)
{
    static const char *const samplers[] = {
        [TH__CUDA_FILL_UNIFORM] = "uniform", [TH__CUDA_FILL_NORMAL] = "normal",
        [TH__CUDA_FILL_EXPONENTIAL] = "exponential", [TH__CUDA_FILL_BERNOULLI] = "bernoulli",
        [TH__CUDA_FILL_RANDINT] = "randint"};
    int kind = 0;
    while (kind <= TH__CUDA_FILL_RANDINT && strcmp(samplers[kind], call->op) != 0) kind++;
    if (kind > TH__CUDA_FILL_RANDINT) return false;
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->dtype = (int32_t)call->dtype;
    a->stream = th__philox_stream_of(call->seed, call->offset);
    a->a = call->a;
    a->b = call->b;
    a->top = call->top;
    a->i0 = call->lo;
    a->range = call->range;
    return true;
}

static inline __attribute__((unused)) th__cuda_fill_args th__cuda_fill_arange_f64_args(th_dtype dtype, double start,
                                                                                       double step)
{
    th__cuda_fill_args a;
    memset(&a, 0, sizeof a);
    a.kind = TH__CUDA_FILL_ARANGE_F64;
    a.dtype = (int32_t)dtype;
    a.a = start;
    a.b = step;
    return a;
}

static inline __attribute__((unused)) th__cuda_fill_args th__cuda_fill_arange_i64_args(th_dtype dtype, int64_t start,
                                                                                       int64_t step)
{
    th__cuda_fill_args a;
    memset(&a, 0, sizeof a);
    a.kind = TH__CUDA_FILL_ARANGE_I64;
    a.dtype = (int32_t)dtype;
    a.i0 = start;
    a.i1 = step;
    return a;
}

static inline __attribute__((unused)) th__cuda_fill_args th__cuda_fill_linspace_args(th_dtype dtype, double start,
                                                                                     double end, int64_t steps)
{
    th__cuda_fill_args a;
    memset(&a, 0, sizeof a);
    a.kind = TH__CUDA_FILL_LINSPACE;
    a.dtype = (int32_t)dtype;
    a.a = start;
    a.b = end;
    a.i0 = steps;
    return a;
}

/* m: the columns (the element count n * m is 0 when m is). */
static inline __attribute__((unused)) th__cuda_fill_args th__cuda_fill_eye_args(th_dtype dtype, int64_t m)
{
    th__cuda_fill_args a;
    memset(&a, 0, sizeof a);
    a.kind = TH__CUDA_FILL_EYE;
    a.dtype = (int32_t)dtype;
    a.i0 = m;
    return a;
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Queues the kernel that writes elements 0..n-1 of a contiguous output at dst (device memory) on stream (a
 * cudaStream_t). 0 or the launch's cudaError_t value. */
int th__cuda_launch_fill_elements(const th__cuda_fill_args *args, void *dst, int64_t n, void *stream);

#ifdef __cplusplus
}
#endif

#endif
