/* cuda/index.c: indexing ops on CUDA tensors, the `index` member of the companion's op table (cuda/ops.c).
 * The core has checked what it can without reading device memory (core/device_ops.h, th_device_index); this
 * checks the index values on the device before anything is written, makes or takes the result, copies an
 * input that overlaps it, plans the op (cuda/index_plan.h) and queues its kernel (cuda/index_kernels.cu) on the
 * thread's current stream of the tensors' device.
 *
 * The one wait: a kernel finds the first index outside [-size, size), and the host reads its answer back,
 * which synchronises the stream (everything queued on it before the op included). That is the price of the
 * host's rule, an out-of-range index is an error with nothing written, on memory only the device reads. An
 * op with an empty index reads nothing and does not wait. */
#include "cuda_internal.h"
#include "index_plan.h"

#include <cuda_runtime_api.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The lowest and one past the highest byte t's elements occupy. */
static void th__ix_byte_range(const th_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    const int64_t es = th__cuda_ix_elsize(t);
    int64_t first = 0, last = 0;
    for (int d = 0; d < th_tensor_ndim(t); d++) {
        int64_t span = (th_tensor_sizes(t)[d] - 1) * th_tensor_strides(t)[d] * es;
        if (span < 0) first += span;
        else last += span;
    }
    uintptr_t base = (uintptr_t)th_tensor_data(t);
    *lo = base + (uintptr_t)first;
    *hi = base + (uintptr_t)last + (uintptr_t)es;
}

static bool th__ix_overlap(const th_tensor *a, const th_tensor *b)
{
    if (th_tensor_storage(a) != th_tensor_storage(b) || th_tensor_numel(a) == 0 || th_tensor_numel(b) == 0)
        return false;
    uintptr_t alo, ahi, blo, bhi;
    th__ix_byte_range(a, &alo, &ahi);
    th__ix_byte_range(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}

static bool th__ix_same_layout(const th_tensor *a, const th_tensor *b)
{
    const int nd = th_tensor_ndim(a);
    return th_tensor_data(a) == th_tensor_data(b) && nd == th_tensor_ndim(b) &&
           th_tensor_dtype(a) == th_tensor_dtype(b) &&
           memcmp(th_tensor_sizes(a), th_tensor_sizes(b), (size_t)nd * sizeof(int64_t)) == 0 &&
           memcmp(th_tensor_strides(a), th_tensor_strides(b), (size_t)nd * sizeof(int64_t)) == 0;
}

/* A new contiguous tensor on device holding t. */
static th_tensor *th__ix_clone(const char *fn, int device, const th_tensor *t)
{
    th_tensor *c = th__cuda_empty(fn, th_tensor_dtype(t), device, th_tensor_ndim(t), th_tensor_sizes(t));
    if (c && th__cuda_copy(fn, c, t)) {
        th_tensor_release(c);
        return NULL;
    }
    return c;
}

/* in as an op writing out may read it: in itself when their memory is disjoint (or, same_ok, when in is
 * exactly out: each element read by the thread that then writes it), else a copy queued before the op. */
static th_tensor *th__ix_unalias(const char *fn, int device, const th_tensor *out, const th_tensor *in, bool same_ok)
{
    if (!th__ix_overlap(out, in) || (same_ok && th__ix_same_layout(out, in))) return th_tensor_retain((th_tensor *)in);
    return th__ix_clone(fn, device, in);
}

/* Fails as the host words it when an index value lies outside [-bound, bound); where names the bound ("dim 1 of
 * size 4"). The first bad value in the host's order (the plan's: the same dims, in the same order) is reported,
 * so the message is the host's own. */
static int th__ix_check_range(const char *fn, int device, cudaStream_t stream, const th_tensor *index, int64_t bound,
                              const char *where)
{
    if (th_tensor_numel(index) == 0) return TH_OK;
    th__cuda_plan plan;
    const th_tensor *ops[1] = {index};
    if (!th__cuda_plan_elementwise(&plan, 1, ops)) return th_set_error(TH_ERR_SHAPE, fn, "the index has no plan");
    th_tensor *flag = th__cuda_empty(fn, TH_I64, device, 0, NULL);
    if (!flag) return th_last_status();
    unsigned long long *first_bad = (unsigned long long *)th_tensor_data(flag), first = 0;
    const char *what = "cudaMemsetAsync";
    cudaError_t e = cudaMemsetAsync(first_bad, 0xff, sizeof first, stream); /* UINT64_MAX: none yet */
    if (e == cudaSuccess) {
        what = "the index check kernel's launch";
        e = (cudaError_t)th__cuda_ix_launch_check(&plan, th_tensor_data(index), bound, first_bad, stream);
    }
    if (e == cudaSuccess) {
        what = "reading the index check back";
        e = cudaMemcpyAsync(&first, first_bad, sizeof first, cudaMemcpyDeviceToHost, stream);
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    int64_t value = 0;
    if (e == cudaSuccess && first != ULLONG_MAX) {
        int64_t off[TH_CUDA_PLAN_MAX_OPS];
        th__cuda_plan_offsets(&plan, (int64_t)first, off);
        what = "reading the bad index back";
        e = cudaMemcpyAsync(&value, (const char *)th_tensor_data(index) + off[0], sizeof value, cudaMemcpyDeviceToHost,
                            stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    }
    th_tensor_release(flag); /* the stream is idle: its reuse cannot race the kernel */
    if (e != cudaSuccess) return th__cuda_fail(fn, (int)e, what);
    if (first == ULLONG_MAX) return TH_OK;
    return th_set_error(TH_ERR_RANGE, fn, "index %lld is out of range for %s (valid: %lld..%lld)", (long long)value,
                        where, (long long)-bound, (long long)(bound - 1));
}

/* Runs on device for one op, then puts the caller's device back. */
typedef struct th__ix_guard {
    int prev, device;
} th__ix_guard;

static cudaError_t th__ix_enter(th__ix_guard *g, int device)
{
    g->device = device;
    g->prev = device;
    cudaError_t e = cudaGetDevice(&g->prev);
    if (e == cudaSuccess && g->prev != device) e = cudaSetDevice(device);
    return e;
}

static void th__ix_leave(const th__ix_guard *g)
{
    if (g->prev != g->device) (void)cudaSetDevice(g->prev);
}

/* index_select, gather, take: out (or a new result) = the picked elements of self. */
static th_tensor *th__ix_pick(const char *fn, int device, cudaStream_t stream, th_tensor *out,
                              const th_device_index *call)
{
    const th_tensor *self = call->self, *index = call->index;
    const int d = call->dim, nd = th_tensor_ndim(self);
    const bool take = strcmp(call->op, "take") == 0, select = strcmp(call->op, "index_select") == 0;
    const int64_t bound = take ? th_tensor_numel(self) : nd > 0 ? th_tensor_sizes(self)[d] : 1;
    char where[96];
    if (take) snprintf(where, sizeof where, "a tensor of %lld elements", (long long)bound);
    else snprintf(where, sizeof where, "dim %d of size %lld", d, (long long)bound);
    if (th__ix_check_range(fn, device, stream, index, bound, where)) return NULL;
    th_tensor *result = th_tensor_retain(out);
    if (!result && select) {
        int64_t sizes[TH_MAX_DIMS];
        memcpy(sizes, th_tensor_sizes(self), (size_t)nd * sizeof *sizes);
        if (nd > 0) sizes[d] = th_tensor_numel(index);
        result = th__cuda_empty(fn, call->dtype, device, nd, sizes);
    } else if (!result) {
        result = th__cuda_empty(fn, call->dtype, device, th_tensor_ndim(index), th_tensor_sizes(index));
    }
    if (!result || th_tensor_numel(result) == 0) return result;
    th_tensor *src = th__ix_unalias(fn, device, result, self, false);
    th_tensor *idx = src ? th__ix_unalias(fn, device, result, index, false) : NULL;
    int status = idx ? TH_OK : th_last_status();
    if (!status) {
        th__cuda_ix_pick p;
        bool planned = take ? th__cuda_ix_plan_take(&p, result, src, idx)
                            : select ? th__cuda_ix_plan_index_select(&p, result, src, d, idx)
                                     : th__cuda_ix_plan_gather(&p, result, src, d, idx);
        if (!planned) {
            status = th_set_error(TH_ERR_SHAPE, fn, "the operands of %s do not fit its result", call->op);
        } else {
            int e = th__cuda_ix_launch_pick(&p, th_tensor_data(result), th_tensor_data(idx), th_tensor_data(src),
                                            (int)th__cuda_ix_elsize(result), stream);
            if (e) status = th__cuda_fail(fn, e, "the indexing kernel's launch");
        }
    }
    /* Copies go back to the cache now: their reuse is ordered after the kernel on this stream. */
    th_tensor_release(idx);
    th_tensor_release(src);
    if (status) {
        th_tensor_release(result);
        return NULL;
    }
    return result;
}

/* scatter, scatter_add: into out (self, in place) or a copy of self. */
static th_tensor *th__ix_scatter(const char *fn, int device, cudaStream_t stream, th_tensor *out,
                                 const th_device_index *call)
{
    const th_tensor *self = call->self;
    const int d = call->dim;
    const int64_t bound = th_tensor_ndim(self) > 0 ? th_tensor_sizes(self)[d] : 1;
    char where[96];
    snprintf(where, sizeof where, "dim %d of size %lld", d, (long long)bound);
    if (th__ix_check_range(fn, device, stream, call->index, bound, where)) return NULL;
    th_tensor *target = out ? th_tensor_retain(out) : th__ix_clone(fn, device, self);
    if (!target || th_tensor_numel(call->index) == 0) return target;
    th_tensor *src = th__ix_unalias(fn, device, target, call->src, false);
    th_tensor *idx = src ? th__ix_unalias(fn, device, target, call->index, false) : NULL;
    int status = idx ? TH_OK : th_last_status();
    if (!status) {
        th__cuda_ix_scatter p;
        if (!th__cuda_ix_plan_scatter(&p, target, d, idx, src)) {
            status = th_set_error(TH_ERR_SHAPE, fn, "the operands of %s do not fit the tensor", call->op);
        } else {
            int e = th__cuda_ix_launch_scatter(&p, th_tensor_data(target), th_tensor_data(idx), th_tensor_data(src),
                                               (int)call->dtype, strcmp(call->op, "scatter_add") == 0, stream);
            if (e) status = th__cuda_fail(fn, e, "the scatter kernel's launch");
        }
    }
    th_tensor_release(idx);
    th_tensor_release(src);
    if (status) {
        th_tensor_release(target);
        return NULL;
    }
    return target;
}

/* masked_fill: out (self, in place, or an _out's out) or a new result holding self, with the value where the
 * mask is set. */
static th_tensor *th__ix_masked_fill(const char *fn, int device, cudaStream_t stream, th_tensor *out,
                                     const th_device_index *call)
{
    const th_tensor *self = call->self, *mask = call->mask;
    th_tensor *result = th_tensor_retain(out);
    if (!result) {
        /* self and mask broadcast together (the core checked that they do). */
        const int nt = th_tensor_ndim(self), nm = th_tensor_ndim(mask), nd = nt > nm ? nt : nm;
        int64_t sizes[TH_MAX_DIMS];
        for (int k = 0; k < nd; k++) {
            const int64_t a = k < nt ? th_tensor_sizes(self)[nt - 1 - k] : 1;
            const int64_t b = k < nm ? th_tensor_sizes(mask)[nm - 1 - k] : 1;
            sizes[nd - 1 - k] = a == 1 ? b : a;
        }
        result = th__cuda_empty(fn, call->dtype, device, nd, sizes);
        if (!result) return NULL;
    }
    const bool inplace = out == self;
    /* Copying self into out must not change the mask: the mask is read from a copy where they overlap. In
     * place, the mask may be exactly self (a bool tensor masking itself): each thread reads its own byte first. */
    th_tensor *m = th__ix_unalias(fn, device, result, mask, inplace);
    int status = m ? TH_OK : th_last_status();
    if (!status && !inplace) status = th__cuda_copy(fn, result, self);
    if (!status) {
        th__cuda_plan plan;
        const th_tensor *ops[2] = {result, m};
        if (!th__cuda_plan_elementwise(&plan, 2, ops)) {
            status = th_set_error(TH_ERR_SHAPE, fn, "the mask does not broadcast to the result's shape");
        } else {
            int e = th__cuda_ix_launch_masked_fill(&plan, th_tensor_data(result), th_tensor_data(m), call->value,
                                                   (int)th__cuda_ix_elsize(result), stream);
            if (e) status = th__cuda_fail(fn, e, "the masked_fill kernel's launch");
        }
    }
    th_tensor_release(m);
    if (status) {
        th_tensor_release(result);
        return NULL;
    }
    return result;
}

th_tensor *th__cuda_index(void *ctx, const char *fn, th_tensor *out, const th_device_index *call)
{
    (void)ctx;
    const char *op = call->op;
    if (strcmp(op, "masked_select") == 0 || strcmp(op, "nonzero") == 0 || strcmp(op, "put") == 0) {
        th_set_error(TH_ERR_UNSUPPORTED, fn, "the CUDA companion has no device kernel for %s (%s)", op,
                     strcmp(op, "put") == 0
                         ? "its indices may name any element in any order, so matching the CPU's order needs a "
                           "grouping of them by element that the device does not do yet; use scatter, or the CPU"
                         : "its result's size depends on the values, which the device does not count yet; use the CPU");
        return NULL;
    }
    const bool pick = strcmp(op, "index_select") == 0 || strcmp(op, "gather") == 0 || strcmp(op, "take") == 0;
    const bool scatter = strcmp(op, "scatter") == 0 || strcmp(op, "scatter_add") == 0;
    if (!pick && !scatter && strcmp(op, "masked_fill") != 0) {
        th_set_error(TH_ERR_UNSUPPORTED, fn, "the CUDA companion has no indexing op '%s'", op);
        return NULL;
    }
    const th_device where = th_storage_device(th_tensor_storage(call->self));
    if (where.type != TH_DEVICE_CUDA) {
        th_set_error(TH_ERR_DEVICE, fn, "the operands are on device type %d, not CUDA memory", (int)where.type);
        return NULL;
    }
    const int device = (int)where.index;
    if (th__cuda_check_device(fn, device)) return NULL;
    th__ix_guard g;
    cudaError_t e = th__ix_enter(&g, device);
    if (e != cudaSuccess) {
        th__cuda_fail(fn, (int)e, "cudaSetDevice");
        return NULL;
    }
    cudaStream_t stream = (cudaStream_t)th_cuda_stream_handle(th_cuda_current_stream(device));
    th_tensor *r = pick      ? th__ix_pick(fn, device, stream, out, call)
                   : scatter ? th__ix_scatter(fn, device, stream, out, call)
                             : th__ix_masked_fill(fn, device, stream, out, call);
    th__ix_leave(&g);
    return r;
}
