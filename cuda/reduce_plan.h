/* cuda/reduce_plan.h: reductions on the device, everything that is not a kernel launch: what a th_device_reduce
 * call asks for (cuda/reduce_tree.h's op), its results (new tensors or the checked outs), a snapshot of the input
 * when an out overlaps it, the plan, and the levels of the tree with their scratch memory, run over a table of
 * four operations (make a tensor, copy, scratch memory, run a level or a scan).
 *
 * Plain C: cuda/reduce.c gives the table device memory and the kernels of cuda/reduce_kernels.cu; the host test
 * (tests/cuda/test_cuda_reduce.c) gives it host memory and runs each level's threads in a loop over the very
 * same step function, so the whole companion is checked against the CPU's reductions without a GPU. */
#ifndef TH_CUDA_REDUCE_PLAN_H
#define TH_CUDA_REDUCE_PLAN_H

#include "tensor.h"

#include "reduce_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a reduction runs. Each returns 0 or a status it recorded. */
typedef struct th__cuda_red_exec {
    /* A new contiguous tensor on the reduction's device. */
    th_tensor *(*empty)(void *ctx, const char *fn, th_dtype dtype, int ndim, const int64_t *sizes);
    int (*copy)(void *ctx, const char *fn, th_tensor *dst, const th_tensor *src);
    /* nbytes of scratch memory there at *ptr; *handle is given to release once the work queued after it no
     * longer needs it (work is queued in order: a release right after the last launch that reads it is safe). */
    int (*scratch)(void *ctx, const char *fn, int64_t nbytes, void **ptr, void **handle);
    void (*release)(void *ctx, void *handle);
    /* Every thread t < lv->numel_out * lv->parts of a level: th__cuda_red_step(plan, op, lv, ptrs, t,
     * th__cuda_red_level_dtype(op, lv), op->cls). */
    int (*level)(void *ctx, const char *fn, const th__cuda_reduce_plan *plan, const th__cuda_red_op *op,
                 const th__cuda_red_level *lv, const th__cuda_red_ptrs *ptrs);
    /* Every row o < plan->numel_out of a scan: th__cuda_red_scan_row(plan, dt, product, acc_float, in, out,
     * out_step, plan->numel_red, o). */
    int (*scan)(void *ctx, const char *fn, const th__cuda_reduce_plan *plan, int dt, bool product, bool acc_float,
                const unsigned char *in, unsigned char *out, int64_t out_step);
} th__cuda_red_exec;

/* The companion's reduce member (core/device_ops.h) over x: call checked by the host already (dtypes, dim, the
 * outs' shapes and dtypes, one device). Complex inputs and unknown ops: TH_ERR_UNSUPPORTED naming them. */
int th__cuda_red_call(const th__cuda_red_exec *x, void *ctx, const char *fn, const th_device_reduce *call,
                      th_tensor *const *outs, th_tensor **results);

/* The op of call into *op; for var, std and logsumexp (op->centred) also the first pass, the centres, into
 * *centre. *scan says cumsum or cumprod (then only op's dtype and acc_float are set, and *product). 0 or the
 * status. */
int th__cuda_red_describe(const char *fn, const th_device_reduce *call, th__cuda_red_op *op, th__cuda_red_op *centre,
                          bool *scan, bool *product);

#ifdef __cplusplus
}
#endif

#endif
