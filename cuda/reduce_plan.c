/* cuda/reduce_plan.c: reductions on the device without the device (reduce_plan.h): the op a call names, its
 * results, the input's snapshot, the plan and the run of the tree's levels over a table of operations. Only
 * tensor.h's public functions are used. */
#include "reduce_plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the op ---- */

int th__cuda_red_describe(const char *fn, const th_device_reduce *call, th__cuda_red_op *op, th__cuda_red_op *centre,
                          bool *scan, bool *product)
{
    const th_dtype dt = call->dtype;
    const char *name = call->op ? call->op : "";
    memset(op, 0, sizeof *op);
    memset(centre, 0, sizeof *centre);
    *scan = *product = false;
    if (dt == TH_C64 || dt == TH_C128)
        return th_set_error(TH_ERR_UNSUPPORTED, fn, "the cuda companion reduces no complex tensors (%s): %s runs on "
                            "the CPU only", th_dtype_name(dt), name);
    op->dtype = dt;
    op->out_dtype = call->out_dtype;
    op->values = call->values;
    op->indices = call->indices;
    op->acc_float = dt == TH_F16 || dt == TH_BF16;
    op->p = call->p;
    op->correction = call->correction;
    op->cls = TH__CUDA_RED_SUM;
    op->map = TH__CUDA_MAP_ID;
    op->post = TH__CUDA_POST_NONE;
    if (strcmp(name, "cumsum") == 0 || strcmp(name, "cumprod") == 0) {
        *scan = true;
        *product = name[3] == 'p';
        return TH_OK;
    }
    if (strcmp(name, "sum") == 0) {
    } else if (strcmp(name, "prod") == 0) {
        op->cls = TH__CUDA_RED_PROD;
    } else if (strcmp(name, "mean") == 0) {
        op->post = TH__CUDA_POST_MEAN;
    } else if (strcmp(name, "var") == 0 || strcmp(name, "std") == 0) {
        op->map = TH__CUDA_MAP_DEV2;
        op->post = name[0] == 'v' ? TH__CUDA_POST_VAR : TH__CUDA_POST_STD;
        op->centred = true;
    } else if (strcmp(name, "logsumexp") == 0) {
        op->map = TH__CUDA_MAP_EXP;
        op->post = TH__CUDA_POST_LSE;
        op->centred = true;
    } else if (strcmp(name, "norm") == 0) {
        const double p = call->p;
        if (p != p) return th_set_error(TH_ERR_INVALID, fn, "the order p is NaN");
        if (p == (double)INFINITY || p == -(double)INFINITY) {
            op->cls = TH__CUDA_RED_EXT;
            op->is_max = p > 0;
            op->map = TH__CUDA_MAP_ABS;
        } else if (p == 0.0) {
            op->map = TH__CUDA_MAP_NONZERO;
        } else if (p == 1.0) {
            op->map = TH__CUDA_MAP_ABS;
        } else if (p == 2.0) {
            op->map = TH__CUDA_MAP_SQUARE;
            op->post = TH__CUDA_POST_SQRT;
        } else {
            op->map = TH__CUDA_MAP_POW;
            op->post = TH__CUDA_POST_ROOT;
        }
    } else if (strcmp(name, "max") == 0 || strcmp(name, "argmax") == 0 || strcmp(name, "min") == 0 ||
               strcmp(name, "argmin") == 0) {
        op->cls = TH__CUDA_RED_EXT;
        op->is_max = strstr(name, "max") != NULL;
    } else if (strcmp(name, "all") == 0 || strcmp(name, "any") == 0) {
        op->cls = TH__CUDA_RED_BOOL;
        op->all = name[1] == 'l';
    } else {
        return th_set_error(TH_ERR_UNSUPPORTED, fn, "the cuda companion has no reduction '%s'", name);
    }
    if (op->centred) { /* the first pass: the mean (var, std) or the max (logsumexp) of each output */
        *centre = *op;
        centre->centred = false;
        centre->values = centre->indices = false;
        centre->map = TH__CUDA_MAP_ID;
        if (op->post == TH__CUDA_POST_LSE) {
            centre->cls = TH__CUDA_RED_EXT;
            centre->is_max = true;
            centre->post = TH__CUDA_POST_CENTRE_MAX;
        } else {
            centre->post = TH__CUDA_POST_CENTRE_MEAN;
        }
    }
    return TH_OK;
}

/* ---- layouts ---- */

static bool th__red_span(const th_tensor *t, int64_t *lo, int64_t *hi)
{
    *lo = *hi = 0;
    if (th_tensor_numel(t) == 0) return false;
    for (int d = 0; d < th_tensor_ndim(t); d++) {
        const int64_t reach = (th_tensor_sizes(t)[d] - 1) * th_tensor_strides(t)[d];
        if (reach < 0) *lo += reach;
        else *hi += reach;
    }
    return true;
}

/* Whether the bytes of x and y intersect. */
static bool th__red_overlaps(const th_tensor *x, const th_tensor *y)
{
    int64_t xl, xh, yl, yh;
    if (th_tensor_storage(x) != th_tensor_storage(y) || !th__red_span(x, &xl, &xh) || !th__red_span(y, &yl, &yh))
        return false;
    const int64_t xe = (int64_t)th_dtype_info(th_tensor_dtype(x))->size;
    const int64_t ye = (int64_t)th_dtype_info(th_tensor_dtype(y))->size;
    const int64_t xo = th_tensor_offset(x) * xe, yo = th_tensor_offset(y) * ye;
    return xo + xl * xe < yo + (yh + 1) * ye && yo + yl * ye < xo + (xh + 1) * xe;
}

/* Same element strides wherever a dim has more than one element (shapes equal). */
static bool th__red_same_strides(const th_tensor *x, const th_tensor *y)
{
    for (int d = 0; d < th_tensor_ndim(x); d++)
        if (th_tensor_sizes(x)[d] > 1 && th_tensor_strides(x)[d] != th_tensor_strides(y)[d]) return false;
    return true;
}

static bool th__red_same_layout(const th_tensor *x, const th_tensor *y)
{
    return th_tensor_data(x) == th_tensor_data(y) && th_tensor_dtype(x) == th_tensor_dtype(y) &&
           th__red_same_strides(x, y);
}

/* ---- the levels ---- */

/* Every level of op over plan, finishing into ptrs' outputs: partials of one level are the next one's input. */
static int th__red_levels(const th__cuda_red_exec *x, void *ctx, const char *fn, const th__cuda_reduce_plan *plan,
                          const th__cuda_red_op *op, const th__cuda_red_ptrs *ptrs, bool lane_major)
{
    th__cuda_red_level lv = th__cuda_red_first_level(plan->numel_out, plan->numel_red, lane_major);
    const int64_t psize = th__cuda_red_part_size(op->cls);
    void *prev = NULL, *prev_handle = NULL;
    for (;;) {
        void *buf = NULL, *handle = NULL;
        if (lv.parts > 1 && x->scratch(ctx, fn, lv.numel_out * lv.parts * psize, &buf, &handle)) {
            if (prev_handle) x->release(ctx, prev_handle);
            return th_last_status();
        }
        th__cuda_red_ptrs p = *ptrs;
        p.part_in = (const unsigned char *)prev;
        p.part_out = (unsigned char *)buf;
        const int status = x->level(ctx, fn, plan, op, &lv, &p);
        if (prev_handle) x->release(ctx, prev_handle); /* its last reader is queued */
        if (status || lv.parts == 1) {
            if (handle) x->release(ctx, handle);
            return status;
        }
        prev = buf;
        prev_handle = handle;
        lv = th__cuda_red_next_level(&lv);
    }
}

/* Whether consecutive threads should take consecutive parts of one output: when the reduced elements lie
 * closer together than neighbouring outputs' runs (or there is one output). */
static bool th__red_lane_major(const th__cuda_reduce_plan *plan)
{
    if (plan->ndim_out == 0 || plan->ndim_red == 0) return true;
    const int64_t r = plan->in_strides[plan->ndim_out], o = plan->in_strides[0];
    return (r < 0 ? -r : r) <= (o < 0 ? -o : o);
}

static int th__red_run(const th__cuda_red_exec *x, void *ctx, const char *fn, const th__cuda_reduce_plan *plan,
                       const th__cuda_red_op *op, const th__cuda_red_op *centre_op, th__cuda_red_ptrs ptrs)
{
    if (plan->numel_out == 0) return TH_OK;
    const bool lane_major = th__red_lane_major(plan);
    if (!op->centred) return th__red_levels(x, ctx, fn, plan, op, &ptrs, lane_major);
    void *centres = NULL, *handle = NULL;
    if (x->scratch(ctx, fn, plan->numel_out * (int64_t)sizeof(double), &centres, &handle)) return th_last_status();
    th__cuda_red_ptrs first = ptrs;
    first.centre_out = (double *)centres;
    int status = th__red_levels(x, ctx, fn, plan, centre_op, &first, lane_major);
    if (!status) {
        ptrs.centre_in = (const double *)centres;
        status = th__red_levels(x, ctx, fn, plan, op, &ptrs, lane_major);
    }
    x->release(ctx, handle);
    return status;
}

/* ---- the call ---- */

int th__cuda_red_call(const th__cuda_red_exec *x, void *ctx, const char *fn, const th_device_reduce *call,
                      th_tensor *const *outs, th_tensor **results)
{
    th__cuda_red_op op, centre_op;
    bool scan, product;
    if (th__cuda_red_describe(fn, call, &op, &centre_op, &scan, &product)) return th_last_status();
    const th_tensor *in = call->in;
    const int n = th_tensor_ndim(in);
    const int64_t *isz = th_tensor_sizes(in);
    const int dim = n == 0 ? -1 : call->dim; /* a 0-d input: its one element, whatever dim says */
    if (dim >= n)
        return th_set_error(TH_ERR_RANGE, fn, "dim %d is out of range for a tensor of %d dims", call->dim, n);
    int nd = 0;
    int64_t sizes[TH_MAX_DIMS];
    for (int d = 0; d < n && dim >= 0; d++)
        if (scan || d != dim) sizes[nd++] = isz[d];
        else if (call->keepdim) sizes[nd++] = 1;
    /* The tensors the kernels write: each out, or a new tensor; both new when values and indices would not share
     * element strides (one plan serves both), then copied into the outs. */
    const bool want[2] = {op.values, op.indices};
    th_tensor *given[2] = {want[0] ? outs[0] : NULL, want[1] ? outs[1] : NULL};
    th_tensor *res[2] = {NULL, NULL}, *src = NULL;
    int status = TH_OK;
    for (int i = 0; i < 2 && !status; i++) {
        if (!want[i]) continue;
        res[i] = given[i] ? th_tensor_retain(given[i]) : x->empty(ctx, fn, i ? TH_I64 : (th_dtype)op.out_dtype, nd, sizes);
        if (!res[i]) status = th_last_status();
    }
    const bool stage = !status && want[0] && want[1] && !th__red_same_strides(res[0], res[1]);
    for (int i = 0; i < 2 && stage && !status; i++) {
        if (!given[i]) continue;
        th_tensor_release(res[i]);
        res[i] = x->empty(ctx, fn, i ? TH_I64 : (th_dtype)op.out_dtype, nd, sizes);
        if (!res[i]) status = th_last_status();
    }
    /* An out that overlaps the input would be written while other threads still read it: read a snapshot. A
     * scan whose out is exactly its input reads each element before writing it, in the same thread. */
    src = th_tensor_retain((th_tensor *)in);
    for (int i = 0; i < 2 && !status; i++) {
        if (!given[i] || !th__red_overlaps(given[i], in) || (scan && th__red_same_layout(given[i], in))) continue;
        th_tensor_release(src);
        src = x->empty(ctx, fn, th_tensor_dtype(in), n, isz);
        status = src ? x->copy(ctx, fn, src, in) : th_last_status();
        break;
    }
    if (!status) {
        const th_tensor *target = res[want[0] ? 0 : 1];
        th__cuda_plan_operand io = {n, isz, th_tensor_strides(src), (int64_t)th_dtype_info(th_tensor_dtype(src))->size};
        th__cuda_plan_operand oo = {th_tensor_ndim(target), th_tensor_sizes(target), th_tensor_strides(target),
                                    (int64_t)th_dtype_info(th_tensor_dtype(target))->size};
        int64_t row_sizes[TH_MAX_DIMS];
        if (scan && dim >= 0) { /* the rows: out with the scanned dim as size 1 */
            memcpy(row_sizes, oo.sizes, (size_t)n * sizeof row_sizes[0]);
            row_sizes[dim] = 1;
            oo.sizes = row_sizes;
        }
        const uint32_t mask = dim < 0 ? TH_CUDA_REDUCE_ALL : (uint32_t)1 << dim;
        th__cuda_reduce_plan plan;
        if (!th__cuda_plan_reduce_arrays(&plan, &io, mask, &oo)) {
            status = th_set_error(TH_ERR_INVALID, fn, "the cuda companion could not plan this reduction (a result of %d "
                                  "dims from an input of %d)", oo.ndim, n);
        } else if (scan) {
            const int64_t step = dim >= 0 ? th_tensor_strides(target)[dim] * oo.elsize : 0;
            if (plan.numel_out > 0 && plan.numel_red > 0)
                status = x->scan(ctx, fn, &plan, op.dtype, product, op.acc_float,
                                 (const unsigned char *)th_tensor_data(src), (unsigned char *)th_tensor_data(target),
                                 step);
        } else {
            op.n = centre_op.n = plan.numel_red;
            /* Strides count elements, so one aligned element makes them all aligned. */
            op.aligned = centre_op.aligned = (uintptr_t)th_tensor_data(src) % (uintptr_t)io.elsize == 0;
            th__cuda_red_ptrs ptrs;
            memset(&ptrs, 0, sizeof ptrs);
            ptrs.in = (const unsigned char *)th_tensor_data(src);
            ptrs.values = res[0] ? (unsigned char *)th_tensor_data(res[0]) : NULL;
            ptrs.indices = res[1] ? (unsigned char *)th_tensor_data(res[1]) : NULL;
            status = th__red_run(x, ctx, fn, &plan, &op, &centre_op, ptrs);
        }
    }
    for (int i = 0; i < 2 && !status && stage; i++) {
        if (!given[i]) continue;
        status = x->copy(ctx, fn, given[i], res[i]);
        th_tensor_release(res[i]);
        res[i] = th_tensor_retain(given[i]);
    }
    th_tensor_release(src);
    if (status) {
        th_tensor_release(res[0]);
        th_tensor_release(res[1]);
        return status;
    }
    results[0] = res[0];
    results[1] = res[1];
    return TH_OK;
}
