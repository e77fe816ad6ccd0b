/* ops/reduce_erased.h: the dtype-independent half of the reductions: what an op asks for, result
 * shapes, the reduction plan that hands the per-dtype kernels (ops/reduce.h) their rows, and the
 * drivers that check arguments and make or check the results. Included twice by tensor.h: public part
 * (nothing: every reduction is per dtype) and implementation (TH__DEFINING).
 *
 * The plan. A reduction over dim d of `in` writes one output element per position of the other dims. The
 * plan views `in` with dim d removed (op 0) and each output likewise (op 1, and op 2 for max/min's
 * indices; a scan's output is a full-shape tensor whose stride along d the kernel steps itself) and gives
 * them to the iteration engine, so the other dims are ordered by in's strides and merged; each row the
 * engine hands out is n output elements, and every output element owns a run of rlen input elements
 * rstride bytes apart. The kernel then picks its loop by which stride is smaller: runs along the reduced
 * dim when it is the inner one (a contiguous run per output), or, when the reduced dim is the outer one,
 * blocks of neighbouring outputs accumulated row by row, so memory is always read in its own order and no
 * dim is slow. Rows go to threads as disjoint ranges of output elements; each output is computed by one
 * thread the same way whatever the split, so dim reductions do not depend on the thread count.
 *
 * Full reductions (_all) iterate the input alone; its element order is cut into one chunk per thread, and
 * the chunks' partial results are combined first to last, so they are deterministic per thread count.
 *
 * Device memory: each driver (th__reduce_dim, th__reduce_scan, and reduce_op.h's _all forms) checks what needs
 * no reading of memory, then hands a reduction whose input or out is device memory to its companion
 * (th__reduce_on_device, core/device_ops.h), one branch after the host's own checks. */
#ifndef TH__DEFINING

/* (nothing public) */

#else

/* What a reduction computes. Sums add map(x) over the run, then apply post; two-pass sums first find a
 * centre (the mean for var, the max for logsumexp) that map uses. */
typedef enum th__reduce_kind {
    TH__RED_SUM,
    TH__RED_PROD,
    TH__RED_MAX,
    TH__RED_MIN,
    TH__RED_ALL,
    TH__RED_ANY,
    TH__RED_CUMSUM,
    TH__RED_CUMPROD
} th__reduce_kind;

typedef enum th__reduce_map {
    TH__MAP_ID,
    TH__MAP_ABS,     /* sums: |x|; max and min: compare and return |x| (norm with p = +-inf) */
    TH__MAP_SQUARE,  /* x * x */
    TH__MAP_POW,     /* |x|^p */
    TH__MAP_NONZERO, /* 1 for x != 0 (NaN too) */
    TH__MAP_DEV2,    /* (x - centre)^2 */
    TH__MAP_EXP      /* exp(x - centre) */
} th__reduce_map;

typedef enum th__reduce_post {
    TH__POST_NONE,
    TH__POST_MEAN, /* total / n */
    TH__POST_SQRT,
    TH__POST_ROOT, /* total^(1/p) */
    TH__POST_VAR,  /* total / max(0, n - correction) */
    TH__POST_STD,
    TH__POST_LSE   /* centre + log(total), or the centre itself when it is not finite */
} th__reduce_post;

typedef enum th__reduce_centre { TH__CENTRE_NONE, TH__CENTRE_MEAN, TH__CENTRE_MAX } th__reduce_centre;

typedef struct th__reduce_op {
    th__reduce_kind kind;
    th__reduce_map map;
    th__reduce_post post;
    th__reduce_centre centre;
    double p;           /* norm order */
    int64_t correction; /* var, std */
    /* Filled in by the plan: */
    int64_t rlen;       /* elements along the reduced dim */
    int64_t rstride[2]; /* its byte stride in the input and (scans only) in the output */
    bool has_value;     /* max/min: op 1 receives the values */
    bool has_index;     /* max/min: op 1 (or op 2 after the values) receives int64 indices */
    const char *name;   /* the op in its typed name ("sum", "argmax", "cumsum"): what a device's companion is told */
} th__reduce_op;

enum {
    TH__PAIRWISE_BLOCK = 256, /* sums of at most this many elements use 16 accumulators; longer runs split in two */
    TH__PAIRWISE_WIDE_BLOCK = 4096, /* the same where accreal is wider than the element */
    TH__REDUCE_BLOCK = 1024,  /* outputs accumulated together when the reduced dim is the outer one */
    TH__REDUCE_MAX_PARTS = 64 /* threads one full reduction is split across, at most */
};

/* The shape of a reduction of in over dim (wrapped): dim removed, or kept with size 1. */
TH__MAYBE_UNUSED static void th__reduce_shape(const th_tensor *in, int dim, bool keepdim, int *ndim, int64_t *sizes)
{
    int n = 0;
    for (int d = 0; d < in->ndim; d++) {
        if (d != dim) sizes[n++] = in->sizes[d];
        else if (keepdim) sizes[n++] = 1;
    }
    *ndim = n;
}

/* A header on the stack: t's elements with dim removed (dim < 0: all of t). Only the iteration engine sees
 * it; it holds no reference. */
TH__MAYBE_UNUSED static void th__reduce_drop_dim(const th_tensor *t, int dim, th_tensor *view)
{
    atomic_init(&view->refcount, 1);
    view->storage = t->storage;
    view->offset = t->offset;
    view->dtype = t->dtype;
    int n = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (d == dim) continue;
        view->sizes[n] = t->sizes[d];
        view->strides[n] = t->strides[d];
        n++;
    }
    view->ndim = n;
}

/* The plan over in (dim wrapped; a 0-d in reduces over its one element) and the outputs outs[0..nouts-1],
 * which have in's shape with dim removed or kept as size 1 (scans: in's shape). */
TH__MAYBE_UNUSED static int th__reduce_plan(const char *fn, th__iter *it, th__reduce_op *op, const th_tensor *in,
                                             int dim, int nouts, th_tensor *const *outs)
{
    th_tensor views[TH__ITER_MAX_OPS];
    const th_tensor *ops[TH__ITER_MAX_OPS];
    int in_dim = in->ndim > 0 ? dim : -1;
    th__reduce_drop_dim(in, in_dim, &views[0]);
    ops[0] = &views[0];
    for (int i = 0; i < nouts; i++) {
        th__reduce_drop_dim(outs[i], outs[i]->ndim == in->ndim ? in_dim : -1, &views[i + 1]);
        ops[i + 1] = &views[i + 1];
    }
    op->rlen = in_dim >= 0 ? in->sizes[in_dim] : 1;
    if (op->rlen == 0 && nouts > 0) /* nothing is read: the outputs (their identity) set the iteration */
        th__reduce_drop_dim(outs[0], outs[0]->ndim == in->ndim ? in_dim : -1, &views[0]);
    op->rstride[0] = in_dim >= 0 ? in->strides[in_dim] * (int64_t)th__elsize(in) : 0;
    op->rstride[1] = in_dim >= 0 && nouts > 0 && outs[0]->ndim == in->ndim
                         ? outs[0]->strides[in_dim] * (int64_t)th__elsize(outs[0])
                         : 0;
    return th__iter_init(fn, it, nouts + 1, ops);
}

/* Runs row over the plan's outputs, split across threads by output element when the work is big. */
TH__MAYBE_UNUSED static void th__reduce_run(const th__iter *it, int64_t work, th__row_fn row, void *ctx)
{
    int nthreads = th__threads_for(work);
    if (nthreads > it->numel) nthreads = (int)it->numel;
    if (nthreads <= 1) {
        th__iter_for_each(it, row, ctx);
        return;
    }
    th__iter_job job = {it, row, ctx};
    th__parallel_chunks(it->numel, nthreads, th__iter_job_run, &job);
}

TH__MAYBE_UNUSED static bool th__reduce_has_identity(const th__reduce_op *op)
{
    if (op->kind == TH__RED_MAX) return op->map == TH__MAP_ABS; /* |x| >= 0: the max of nothing is 0 */
    return op->kind != TH__RED_MIN;
}

/* Whether a reduction reads or writes device memory: a (which may be NULL: its error comes later) or an out. */
TH__MAYBE_UNUSED static bool th__reduce_touches_device(const th_tensor *a, const th_tensor *out1, const th_tensor *out2)
{
    return (a && !th_device_is_host(a->storage->device)) || (out1 && !th_device_is_host(out1->storage->device)) ||
           (out2 && !th_device_is_host(out2->storage->device));
}

/* A reduction (or scan) of a over dim (wrapped; -1: every element) with an operand in device memory, handed to
 * the ops its device's companion registered once the host has checked what it can without reading memory: a
 * and the outs on one device, a inside its storage, each out's dtype, shape (the result's: ndim, sizes),
 * writability and self-overlap. As th__reduce_dim: the results wanted are those whose pointer is not NULL,
 * each written into its out (or a new tensor when that out is NULL). Returns 0 or the status. */
TH__MAYBE_UNUSED static int th__reduce_on_device(const char *fn, const th__reduce_op *op, const th_tensor *a, int dim,
                                                  bool keepdim, th_dtype value_dtype, int ndim, const int64_t *sizes,
                                                  th_tensor *value_out, th_tensor **value_result, th_tensor *index_out,
                                                  th_tensor **index_result)
{
    if (!a) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    th_tensor *outs[2] = {value_result ? value_out : NULL, index_result ? index_out : NULL};
    static const char *const names[2] = {"out", "indices_out"};
    const th_device d = a->storage->device;
    for (int i = 0; i < 2; i++) {
        if (!outs[i]) continue;
        const th_device e = outs[i]->storage->device;
        if (e.type != d.type || e.index != d.index)
            return th__fail(TH_ERR_DEVICE, fn, "%s is on device %d:%d and a on device %d:%d: an op's tensors must share "
                            "one device (copy one over first)", names[i], (int)e.type, (int)e.index, (int)d.type,
                            (int)d.index);
    }
    if (th__check_fits(fn, a)) return th_last_status();
    if (outs[0] && th__check_out_layout(fn, outs[0], value_dtype, ndim, sizes, false)) return th_last_status();
    if (outs[1] && th__check_out_layout(fn, outs[1], TH_I64, ndim, sizes, false)) return th_last_status();
    const th_device_ops *ops = th__device_ops_for(fn, d);
    if (!ops) return th_last_status();
    if (!ops->reduce)
        return th__fail(TH_ERR_UNSUPPORTED, fn, "the %s companion has no reductions", ops->name ? ops->name : "?");
    const th_device_reduce call = {op->name, a->dtype, value_result ? value_dtype : TH_I64, a, dim, keepdim,
                                   value_result != NULL, index_result != NULL, op->p, op->correction};
    th_tensor *results[2] = {NULL, NULL};
    int status = ops->reduce(ops->ctx, fn, &call, outs, results);
    if (!status && ((value_result && !results[0]) || (index_result && !results[1])))
        status = th__fail(TH_ERR_INVALID, fn, "the %s companion returned no result", ops->name ? ops->name : "?");
    if (status) {
        th_tensor_release(results[0]);
        th_tensor_release(results[1]);
        return status;
    }
    if (value_result) *value_result = results[0];
    if (index_result) *index_result = results[1];
    return TH_OK;
}

/* A full reduction (_all, _all_out) of a with an operand in device memory: a 0-d result of value_dtype, or of
 * int64 indices (row-major positions) when want_index. NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__reduce_all_on_device(const char *fn, th_tensor *out, const th_tensor *a,
                                                             const th__reduce_op *op, th_dtype value_dtype,
                                                             bool want_index)
{
    if (!a) {
        th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        return NULL;
    }
    if (th__numel(a) == 0 && !th__reduce_has_identity(op)) {
        char shape[160];
        th__shape_string(a->ndim, a->sizes, shape, sizeof shape);
        th__fail(TH_ERR_SHAPE, fn, "cannot reduce a tensor of shape %s with no elements: the op has no identity", shape);
        return NULL;
    }
    th_tensor *r = NULL;
    int status = want_index ? th__reduce_on_device(fn, op, a, -1, false, TH_I64, 0, NULL, NULL, NULL, out, &r)
                            : th__reduce_on_device(fn, op, a, -1, false, value_dtype, 0, NULL, out, &r, NULL, NULL);
    return status ? NULL : r;
}

/* A reduction of a over dim into up to two results: values (dtype value_dtype, when value_result is not
 * NULL) and int64 indices (when index_result is not NULL). Each result is written into the given out, or into
 * a new tensor when that out is NULL; *value_result / *index_result receive it (a new reference). row is
 * the dtype's kernel. */
TH__MAYBE_UNUSED static int th__reduce_dim(const char *fn, const th_tensor *a, int dim, bool keepdim,
                                            th__reduce_op *op, th__row_fn row, th_dtype value_dtype,
                                            th_tensor *value_out, th_tensor **value_result, th_tensor *index_out,
                                            th_tensor **index_result)
{
    if (value_result) *value_result = NULL;
    if (index_result) *index_result = NULL;
    if (!a) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    int d = 0;
    if (th__wrap_dim(fn, dim, a->ndim, &d)) return th_last_status();
    if (a->ndim > 0 && a->sizes[d] == 0 && !th__reduce_has_identity(op)) {
        char shape[160];
        th__shape_string(a->ndim, a->sizes, shape, sizeof shape);
        return th__fail(TH_ERR_SHAPE, fn, "cannot reduce dim %d of size 0 (shape %s): the op has no identity", dim,
                        shape);
    }
    int nd;
    int64_t sizes[TH_MAX_DIMS];
    th__reduce_shape(a, d, keepdim, &nd, sizes);
    if (th__reduce_touches_device(a, value_result ? value_out : NULL, index_result ? index_out : NULL))
        return th__reduce_on_device(fn, op, a, d, keepdim, value_dtype, nd, sizes, value_out, value_result, index_out,
                                    index_result);
    th_tensor *outs[2] = {NULL, NULL}, *in = NULL;
    int nouts = 0, status = TH_OK;
    if (value_result) {
        outs[nouts] = th__result(fn, value_out, value_dtype, nd, sizes);
        if (!outs[nouts++]) goto fail;
    }
    if (index_result) {
        outs[nouts] = th__result(fn, index_out, TH_I64, nd, sizes);
        if (!outs[nouts++]) goto fail;
    }
    in = th_tensor_retain((th_tensor *)a);
    for (int i = 0; i < nouts; i++) { /* an out that overlaps a is written only after a is copied */
        th_tensor *safe = th__unalias(fn, outs[i], in);
        th_tensor_release(in);
        in = safe;
        if (!in) goto fail;
    }
    th__iter it;
    op->has_value = value_result != NULL;
    op->has_index = index_result != NULL;
    if (th__reduce_plan(fn, &it, op, in, d, nouts, outs)) goto fail;
    th__reduce_run(&it, th__numel(in), row, op);
    th_tensor_release(in);
    nouts = 0;
    if (value_result) *value_result = outs[nouts++];
    if (index_result) *index_result = outs[nouts++];
    return TH_OK;
fail:
    status = th_last_status();
    th_tensor_release(in);
    th_tensor_release(outs[0]);
    th_tensor_release(outs[1]);
    return status ? status : TH_ERR_INVALID;
}

/* A scan (cumsum, cumprod) of a along dim into out (NULL: a new tensor of a's shape and dtype). */
TH__MAYBE_UNUSED static th_tensor *th__reduce_scan(const char *fn, th_tensor *out, const th_tensor *a, int dim,
                                                    th__reduce_op *op, th__row_fn row)
{
    if (!a) {
        th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        return NULL;
    }
    int d = 0;
    if (th__wrap_dim(fn, dim, a->ndim, &d)) return NULL;
    if (th__reduce_touches_device(a, out, NULL)) {
        th_tensor *r = NULL;
        return th__reduce_on_device(fn, op, a, d, false, a->dtype, a->ndim, a->sizes, out, &r, NULL, NULL) ? NULL : r;
    }
    th_tensor *res = th__result(fn, out, a->dtype, a->ndim, a->sizes);
    if (!res) return NULL;
    if (th__numel(res) == 0) return res;
    th_tensor *in = th__unalias(fn, res, a);
    th__iter it;
    if (!in || th__reduce_plan(fn, &it, op, in, d, 1, &res)) {
        th_tensor_release(in);
        th_tensor_release(res);
        return NULL;
    }
    th__reduce_run(&it, th__numel(in), row, op);
    th_tensor_release(in);
    return res;
}

/* The iteration over every element of a for a full reduction; *holder keeps what it reads alive (a itself,
 * or a contiguous copy when indices must count in row-major order). */
TH__MAYBE_UNUSED static int th__reduce_all_iter(const char *fn, const th_tensor *a, bool row_major, th__iter *it,
                                                 th_tensor **holder)
{
    *holder = NULL;
    if (!a) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    th_tensor *src = row_major ? th__contiguous(fn, (th_tensor *)a) : th_tensor_retain((th_tensor *)a);
    if (!src) return th_last_status();
    const th_tensor *ops[1] = {src};
    if (th__iter_init(fn, it, 1, ops)) {
        th_tensor_release(src);
        return th_last_status();
    }
    *holder = src;
    return TH_OK;
}

/* The threads a full reduction of n elements is split across, and which part a chunk starting at begin is. */
TH__MAYBE_UNUSED static int th__reduce_all_threads(int64_t n)
{
    int t = th__threads_for(n);
    return t > TH__REDUCE_MAX_PARTS ? TH__REDUCE_MAX_PARTS : t;
}

TH__MAYBE_UNUSED static int th__reduce_part_of(int64_t n, int nthreads, int64_t begin)
{
    for (int i = 0; i < nthreads; i++)
        if (n * i / nthreads == begin) return i;
    return 0;
}

#endif
