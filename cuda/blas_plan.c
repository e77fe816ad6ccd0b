/* cuda/blas_plan.c: matrix products on the device without the device (blas_plan.h): shape rules, the cuBLAS
 * plan of a strided problem, and the run of a product over a table of operations. Only tensor.h's public
 * functions are used: the CPU's own checks are private to its implementation, so their messages are written
 * again here, word for word, and the host test compares the two. */
#include "blas_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shapes ---- */

enum { TH__AS_IS, TH__AS_ROW, TH__AS_COLUMN };

static const char *const th__mm_names[TH__CUDA_MM_KINDS][3] = {
    [TH__CUDA_MM_DOT] = {"a", "b", "out"},    [TH__CUDA_MM_MV] = {"A", "x", "y"},
    [TH__CUDA_MM_MM] = {"A", "B", "C"},       [TH__CUDA_MM_BMM] = {"A", "B", "C"},
    [TH__CUDA_MM_MATMUL] = {"a", "b", "out"}, [TH__CUDA_MM_OUTER] = {"x", "y", "A"},
};

const char *th__cuda_mm_name(th__cuda_mm_kind kind, int which)
{
    if ((int)kind < 0 || kind >= TH__CUDA_MM_KINDS || which < 0 || which > 2) return "?";
    return th__mm_names[kind][which];
}

static void th__shape_str(int ndim, const int64_t *sizes, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "(");
    for (int d = 0; d < ndim && n < cap; d++) n += (size_t)snprintf(buf + n, cap - n, d ? ", %lld" : "%lld", (long long)sizes[d]);
    if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* An operand as a batch of matrices: a 1-d one gets a size-1 dim before its dim (a row) or after it (a
 * column), with stride 0. */
typedef struct th__mm_view {
    int ndim;
    int64_t sizes[TH_MAX_DIMS + 1], strides[TH_MAX_DIMS + 1];
} th__mm_view;

static void th__view_of(const th_tensor *t, int how, th__mm_view *v)
{
    const int nd = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t), *strides = th_tensor_strides(t);
    v->ndim = 0;
    for (int d = 0; d < nd; d++) {
        if (how == TH__AS_ROW && d == nd - 1) {
            v->sizes[v->ndim] = 1;
            v->strides[v->ndim++] = 0;
        }
        v->sizes[v->ndim] = sizes[d];
        v->strides[v->ndim++] = strides[d];
    }
    if (how == TH__AS_COLUMN) {
        v->sizes[v->ndim] = 1;
        v->strides[v->ndim++] = 0;
    }
}

static int th__need_ndim(const char *fn, const char *name, const th_tensor *t, int ndim)
{
    if (th_tensor_ndim(t) == ndim) return TH_OK;
    char s[160];
    th__shape_str(th_tensor_ndim(t), th_tensor_sizes(t), s, sizeof s);
    return th_set_error(TH_ERR_SHAPE, fn, "%s must have %d dim%s; it has shape %s", name, ndim, ndim == 1 ? "" : "s",
                        s);
}

/* The views of a and b for a shape (outer: x as a column, y as a row). */
static void th__views(const th__cuda_mm_shape *s, const th_tensor *a, const th_tensor *b, th__mm_view *va,
                      th__mm_view *vb)
{
    th__view_of(a, s->how_a, va);
    if (s->kind == TH__CUDA_MM_OUTER) {
        vb->ndim = 2;
        vb->sizes[0] = 1;
        vb->strides[0] = 0;
        vb->sizes[1] = th_tensor_sizes(b)[0];
        vb->strides[1] = th_tensor_strides(b)[0];
    } else {
        th__view_of(b, s->how_b, vb);
    }
}

int th__cuda_mm_shapes(const char *fn, th__cuda_mm_kind kind, const th_tensor *a, const th_tensor *b,
                       const th_tensor *bias, th__cuda_mm_shape *s)
{
    if ((int)kind < 0 || kind >= TH__CUDA_MM_KINDS)
        return th_set_error(TH_ERR_INVALID, fn, "product kind %d is none of the products", (int)kind);
    const char *na = th__mm_names[kind][0], *nbn = th__mm_names[kind][1], *nc = th__mm_names[kind][2];
    if (!a || !b) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", a ? nbn : na);
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->how_a = s->how_b = TH__AS_IS;
    const int nda = th_tensor_ndim(a), ndb = th_tensor_ndim(b);
    switch (kind) {
    case TH__CUDA_MM_DOT:
        if (th__need_ndim(fn, na, a, 1) || th__need_ndim(fn, nbn, b, 1)) return th_last_status();
        s->how_a = TH__AS_ROW;
        s->how_b = TH__AS_COLUMN;
        break;
    case TH__CUDA_MM_MV:
        if (th__need_ndim(fn, na, a, 2) || th__need_ndim(fn, nbn, b, 1)) return th_last_status();
        s->how_b = TH__AS_COLUMN;
        break;
    case TH__CUDA_MM_MM:
        if (th__need_ndim(fn, na, a, 2) || th__need_ndim(fn, nbn, b, 2)) return th_last_status();
        break;
    case TH__CUDA_MM_BMM:
        if (th__need_ndim(fn, na, a, 3) || th__need_ndim(fn, nbn, b, 3)) return th_last_status();
        break;
    case TH__CUDA_MM_MATMUL:
        if (nda == 0 || ndb == 0)
            return th_set_error(TH_ERR_SHAPE, fn, "%s has %d dims and %s has %d: both need at least 1", na, nda, nbn,
                                ndb);
        if (nda == 1) s->how_a = TH__AS_ROW;
        if (ndb == 1) s->how_b = TH__AS_COLUMN;
        break;
    case TH__CUDA_MM_OUTER:
        if (th__need_ndim(fn, na, a, 1) || th__need_ndim(fn, nbn, b, 1)) return th_last_status();
        s->how_a = TH__AS_COLUMN;
        break;
    default:
        break;
    }
    th__mm_view va, vb;
    th__views(s, a, b, &va, &vb);

    char sa[160], sb[160];
    const int64_t k = va.sizes[va.ndim - 1];
    if (k != vb.sizes[vb.ndim - 2]) {
        th__shape_str(nda, th_tensor_sizes(a), sa, sizeof sa);
        th__shape_str(ndb, th_tensor_sizes(b), sb, sizeof sb);
        return th_set_error(TH_ERR_SHAPE, fn, "%s has shape %s and %s has shape %s: inner sizes %lld and %lld differ",
                            na, sa, nbn, sb, (long long)k, (long long)vb.sizes[vb.ndim - 2]);
    }
    /* Batch dims: NumPy's broadcasting for matmul; bmm wants equal sizes, as PyTorch's does. */
    const int nba = va.ndim - 2, nbb = vb.ndim - 2, nb = nba > nbb ? nba : nbb;
    for (int d = 0; d < nb; d++) {
        int da = d - (nb - nba), db = d - (nb - nbb);
        int64_t x = da >= 0 ? va.sizes[da] : 1, y = db >= 0 ? vb.sizes[db] : 1;
        bool ok = kind == TH__CUDA_MM_BMM ? x == y : (x == y || x == 1 || y == 1);
        if (!ok) {
            th__shape_str(nda, th_tensor_sizes(a), sa, sizeof sa);
            th__shape_str(ndb, th_tensor_sizes(b), sb, sizeof sb);
            return th_set_error(TH_ERR_SHAPE, fn, "the batch dims of %s %s and %s %s do not %s (%lld vs %lld)", na, sa,
                                nbn, sb, kind == TH__CUDA_MM_BMM ? "match" : "broadcast", (long long)x, (long long)y);
        }
        s->bsize[d] = x == 1 ? y : x;
    }
    s->nb = nb;
    s->m = va.sizes[va.ndim - 2];
    s->n = vb.sizes[vb.ndim - 1];
    s->k = k;
    /* The result drops the row of a vector on the left and the column of a vector on the right. */
    for (int d = 0; d < nb; d++) s->rsizes[s->rdim++] = s->bsize[d];
    s->keep_m = s->how_a != TH__AS_ROW;
    s->keep_n = s->how_b != TH__AS_COLUMN;
    if (s->keep_m) s->rsizes[s->rdim++] = s->m;
    if (s->keep_n) s->rsizes[s->rdim++] = s->n;

    if (bias) {
        const int ndc = th_tensor_ndim(bias);
        const int64_t *cs = th_tensor_sizes(bias);
        bool fits = ndc <= s->rdim;
        for (int d = 0; fits && d < ndc; d++) {
            int64_t have = cs[ndc - 1 - d], want = s->rsizes[s->rdim - 1 - d];
            fits = have == want || have == 1;
        }
        if (!fits) {
            th__shape_str(ndc, cs, sa, sizeof sa);
            th__shape_str(s->rdim, s->rsizes, sb, sizeof sb);
            return th_set_error(TH_ERR_SHAPE, fn, "%s has shape %s, which does not broadcast to the result's %s", nc,
                                sa, sb);
        }
    }
    return TH_OK;
}

void th__cuda_mm_problem_of(const th__cuda_mm_shape *s, const th_tensor *a, const th_tensor *b, const th_tensor *c,
                            th__cuda_mm_problem *p)
{
    th__mm_view va, vb;
    th__views(s, a, b, &va, &vb);
    memset(p, 0, sizeof *p);
    p->m = s->m;
    p->n = s->n;
    p->k = s->k;
    p->nb = s->nb;
    const int nba = va.ndim - 2, nbb = vb.ndim - 2;
    const int64_t *cst = th_tensor_strides(c);
    for (int d = 0; d < s->nb; d++) {
        p->bsize[d] = s->bsize[d];
        int da = d - (s->nb - nba), db = d - (s->nb - nbb);
        p->a.bstride[d] = da >= 0 && va.sizes[da] != 1 ? va.strides[da] : 0;
        p->b.bstride[d] = db >= 0 && vb.sizes[db] != 1 ? vb.strides[db] : 0;
        p->c.bstride[d] = cst[d];
    }
    p->a.rs = va.strides[va.ndim - 2];
    p->a.cs = va.strides[va.ndim - 1];
    p->b.rs = vb.strides[vb.ndim - 2];
    p->b.cs = vb.strides[vb.ndim - 1];
    p->c.rs = s->keep_m ? cst[s->nb] : 0;
    p->c.cs = s->keep_n ? cst[s->rdim - 1] : 0;
}

/* ---- the plan ---- */

/* Whether a rows x cols matrix with element strides rs, cs is a column-major matrix as cuBLAS reads it
 * (unit stride down a column, ld >= max(1, rows)), and its ld. The stride of a size-1 dim never matters, and a
 * matrix without elements is never read (any valid ld does). */
static bool th__col_major(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int64_t *ld)
{
    if (rows == 0 || cols == 0) {
        *ld = rows > 1 ? rows : 1;
        return true;
    }
    if ((rows == 1 || rs == 1) && (cols == 1 || cs >= rows)) {
        *ld = cols == 1 ? rows : cs;
        return true;
    }
    return false;
}

/* An operand cuBLAS reads: as it is (op N) or as the transpose of what its memory holds (op T). */
static bool th__operand_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, int *op, int64_t *ld)
{
    if (th__col_major(rows, cols, rs, cs, ld)) {
        *op = TH__CUDA_OP_N;
        return true;
    }
    if (th__col_major(cols, rows, cs, rs, ld)) {
        *op = TH__CUDA_OP_T;
        return true;
    }
    return false;
}

/* Whether an operand's strides over batch dims from..nd-1 are one uniform, non-negative stride. */
static bool th__flattens(const int64_t *st, const int64_t *sz, int from, int nd)
{
    for (int d = from; d + 1 < nd; d++)
        if (st[d] != st[d + 1] * sz[d + 1]) return false;
    return from >= nd || st[nd - 1] >= 0;
}

static bool th__broadcast(const int64_t *st, int nd)
{
    for (int d = 0; d < nd; d++)
        if (st[d] == 0) return true;
    return false;
}

void th__cuda_gemm_plan_make(const th__cuda_mm_problem *p, th__cuda_gemm_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    int64_t ld_row = 1, ld_col = 1;
    const bool row = th__col_major(p->n, p->m, p->c.cs, p->c.rs, &ld_row);
    const bool col = th__col_major(p->m, p->n, p->c.rs, p->c.cs, &ld_col);
    plan->temp_c = !row && !col;
    /* Row-major C (or its row-major temporary) is computed as C^T = B^T A^T; either will do when both fit. */
    plan->swap = row || !col;
    plan->k = p->k;
    bool ok_a, ok_b;
    if (plan->swap) {
        plan->m = p->n;
        plan->n = p->m;
        plan->ldc = ld_row;
        ok_b = th__operand_layout(p->n, p->k, p->b.cs, p->b.rs, &plan->opa, &plan->lda);
        ok_a = th__operand_layout(p->k, p->m, p->a.cs, p->a.rs, &plan->opb, &plan->ldb);
    } else {
        plan->m = p->m;
        plan->n = p->n;
        plan->ldc = ld_col;
        ok_a = th__operand_layout(p->m, p->k, p->a.rs, p->a.cs, &plan->opa, &plan->lda);
        ok_b = th__operand_layout(p->k, p->n, p->b.rs, p->b.cs, &plan->opb, &plan->ldb);
    }
    plan->copy_a = !ok_a;
    plan->copy_b = !ok_b;

    /* The batch dims of more than one entry (a size-1 dim adds no offset). */
    int nd = 0;
    int64_t sz[TH_MAX_DIMS] = {0}, st[3][TH_MAX_DIMS] = {{0}};
    bool empty = false;
    for (int d = 0; d < p->nb; d++) {
        if (p->bsize[d] == 0) empty = true;
        if (p->bsize[d] == 1) continue;
        sz[nd] = p->bsize[d];
        st[0][nd] = p->a.bstride[d];
        st[1][nd] = p->b.bstride[d];
        st[2][nd] = p->c.bstride[d];
        nd++;
    }
    if (!th__flattens(st[0], sz, 0, nd) && !th__broadcast(st[0], nd)) plan->copy_a = true;
    if (!th__flattens(st[1], sz, 0, nd) && !th__broadcast(st[1], nd)) plan->copy_b = true;
    if (!th__flattens(st[2], sz, 0, nd)) plan->temp_c = true;

    int from = 0;
    while (from < nd && !(th__flattens(st[0], sz, from, nd) && th__flattens(st[1], sz, from, nd) &&
                          th__flattens(st[2], sz, from, nd)))
        from++;
    plan->batch = 1;
    for (int d = from; d < nd; d++) plan->batch *= sz[d];
    int64_t sa = from < nd ? st[0][nd - 1] : 0, sb = from < nd ? st[1][nd - 1] : 0;
    plan->stride_a = plan->swap ? sb : sa;
    plan->stride_b = plan->swap ? sa : sb;
    plan->stride_c = from < nd ? st[2][nd - 1] : 0;
    /* cuBLAS writes the products of one call in parallel and promises nothing for results whose matrices
     * interleave (a batch dim innermost in memory), even when no element is shared: such a result goes
     * through a temporary. */
    if (plan->batch > 1 && plan->stride_c < plan->ldc * (plan->n - 1) + plan->m) plan->temp_c = true;
    plan->outer = from;
    plan->calls = 1;
    for (int d = 0; d < from; d++) {
        plan->osize[d] = sz[d];
        plan->calls *= sz[d];
        for (int x = 0; x < 3; x++) plan->ostride[x][d] = st[x][d];
    }
    if (empty) {
        plan->calls = 0;
        plan->batch = 0;
    }
}

void th__cuda_gemm_call_offsets(const th__cuda_gemm_plan *plan, int64_t call, int64_t *oa, int64_t *ob, int64_t *oc)
{
    int64_t o[3] = {0, 0, 0};
    for (int d = plan->outer - 1; d >= 0; d--) {
        int64_t i = call % plan->osize[d];
        call /= plan->osize[d];
        for (int x = 0; x < 3; x++) o[x] += i * plan->ostride[x][d];
    }
    *oa = o[0];
    *ob = o[1];
    *oc = o[2];
}

/* ---- the run ---- */

size_t th__cuda_mm_scalar_size(th_dtype dtype)
{
    switch (dtype) {
    case TH_F16:
    case TH_BF16:
    case TH_F32:
        return sizeof(float);
    case TH_F64:
        return sizeof(double);
    case TH_C64:
        return 2 * sizeof(float);
    case TH_C128:
        return 2 * sizeof(double);
    default:
        return 0;
    }
}

bool th__cuda_mm_scalar_is_zero(th_dtype dtype, const void *p)
{
    float f[2];
    double d[2];
    switch (th__cuda_mm_scalar_size(dtype)) {
    case sizeof(float):
        memcpy(f, p, sizeof(float));
        return f[0] == 0;
    case 2 * sizeof(double):
        memcpy(d, p, 2 * sizeof(double));
        return d[0] == 0 && d[1] == 0;
    default: /* 8 bytes: a double (f64) or two floats (c64) */
        if (dtype == TH_F64) {
            memcpy(d, p, sizeof(double));
            return d[0] == 0;
        }
        memcpy(f, p, 2 * sizeof(float));
        return f[0] == 0 && f[1] == 0;
    }
}

/* The lowest and highest element a tensor addresses, relative to its first; false when it has none. */
static bool th__span(const th_tensor *t, int64_t *lo, int64_t *hi)
{
    *lo = *hi = 0;
    if (th_tensor_numel(t) == 0) return false;
    for (int d = 0; d < th_tensor_ndim(t); d++) {
        int64_t reach = (th_tensor_sizes(t)[d] - 1) * th_tensor_strides(t)[d];
        if (reach < 0) *lo += reach;
        else *hi += reach;
    }
    return true;
}

static size_t th__es(const th_tensor *t) { return th_dtype_info(th_tensor_dtype(t))->size; }

/* Whether the bytes of x and y intersect (an exact alias too: a product reads its inputs after it has begun
 * writing its result). */
static bool th__overlaps(const th_tensor *x, const th_tensor *y)
{
    int64_t xl, xh, yl, yh;
    if (th_tensor_storage(x) != th_tensor_storage(y) || !th__span(x, &xl, &xh) || !th__span(y, &yl, &yh)) return false;
    int64_t xo = th_tensor_offset(x) * (int64_t)th__es(x), yo = th_tensor_offset(y) * (int64_t)th__es(y);
    int64_t xlo = xo + xl * (int64_t)th__es(x), xhi = xo + (xh + 1) * (int64_t)th__es(x);
    int64_t ylo = yo + yl * (int64_t)th__es(y), yhi = yo + (yh + 1) * (int64_t)th__es(y);
    return xlo < yhi && ylo < xhi;
}

static bool th__same_layout(const th_tensor *x, const th_tensor *y)
{
    if (th_tensor_dtype(x) != th_tensor_dtype(y) || th_tensor_ndim(x) != th_tensor_ndim(y) ||
        th_tensor_storage(x) != th_tensor_storage(y) || th_tensor_offset(x) != th_tensor_offset(y))
        return false;
    for (int d = 0; d < th_tensor_ndim(x); d++)
        if (th_tensor_sizes(x)[d] != th_tensor_sizes(y)[d] ||
            (th_tensor_sizes(x)[d] > 1 && th_tensor_strides(x)[d] != th_tensor_strides(y)[d]))
            return false;
    return true;
}

/* The storage still holds every element t addresses (a storage can shrink under its views). */
static int th__check_fits(const char *fn, const th_tensor *t)
{
    int64_t lo, hi;
    if (!th__span(t, &lo, &hi)) return TH_OK;
    int64_t avail = th_storage_nbytes(th_tensor_storage(t)) / (int64_t)th__es(t), off = th_tensor_offset(t);
    if (off + lo < 0 || off + hi >= avail)
        return th_set_error(TH_ERR_RANGE, fn, "the tensor addresses elements %lld..%lld but its storage now holds %lld",
                            (long long)(off + lo), (long long)(off + hi), (long long)avail);
    return TH_OK;
}

static int th__check_input(const th__cuda_mm_ops *ops, void *ctx, const char *fn, const char *name,
                           const th_tensor *t, th_dtype dtype)
{
    if (!t) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", name);
    if (th_tensor_dtype(t) != dtype)
        return th_set_error(TH_ERR_DTYPE, fn, "%s is %s, not %s", name, th_dtype_name(th_tensor_dtype(t)),
                            th_dtype_name(dtype));
    if (ops->check(ctx, fn, name, t)) return th_last_status();
    return th__check_fits(fn, t);
}

/* The CPU's checks of an out (core/plumbing.h's th__check_out), with the device's own check. */
static int th__check_out(const th__cuda_mm_ops *ops, void *ctx, const char *fn, const th_tensor *out, th_dtype dtype,
                         int ndim, const int64_t *sizes)
{
    if (th_tensor_dtype(out) != dtype)
        return th_set_error(TH_ERR_DTYPE, fn, "out is %s; this result is %s", th_dtype_name(th_tensor_dtype(out)),
                            th_dtype_name(dtype));
    const int nd = th_tensor_ndim(out);
    const int64_t *os = th_tensor_sizes(out), *ost = th_tensor_strides(out);
    bool same = nd == ndim;
    for (int d = 0; same && d < ndim; d++) same = os[d] == sizes[d];
    if (!same) {
        char a[160], b[160];
        th__shape_str(nd, os, a, sizeof a);
        th__shape_str(ndim, sizes, b, sizeof b);
        return th_set_error(TH_ERR_SHAPE, fn, "out has shape %s; the result has shape %s", a, b);
    }
    if (ops->check(ctx, fn, "out", out) || th__check_fits(fn, out)) return th_last_status();
    if (th_storage_is_read_only(th_tensor_storage(out)))
        return th_set_error(TH_ERR_READ_ONLY, fn, "the tensor's memory is read-only");
    /* Sorted by stride, a tensor is free of self-overlap when each stride exceeds the span of the dims inside
     * it; anything else may put two elements at one address, which one GEMM cannot write. */
    int order[TH_MAX_DIMS], n = 0;
    for (int d = 0; d < nd; d++)
        if (os[d] > 1) order[n++] = d;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && llabs(ost[order[j]]) < llabs(ost[order[j - 1]]); j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    int64_t span = 0;
    for (int i = 0; i < n; i++) {
        int64_t s = llabs(ost[order[i]]);
        if (s <= span)
            return th_set_error(TH_ERR_INVALID, fn,
                                "out dim %d (stride %lld) overlaps its other dims: several elements share an address",
                                order[i], (long long)ost[order[i]]);
        span += s * (os[order[i]] - 1);
    }
    return TH_OK;
}

/* A contiguous copy of t made by ops (t retained instead when it does not need one). */
static th_tensor *th__dense_copy(const th__cuda_mm_ops *ops, void *ctx, const char *fn, const th_tensor *t)
{
    th_tensor *c = ops->empty(ctx, fn, th_tensor_dtype(t), th_tensor_ndim(t), th_tensor_sizes(t));
    if (c && ops->copy(ctx, fn, c, t)) {
        th_tensor_release(c);
        return NULL;
    }
    return c;
}

static void th__swap_in(th_tensor **slot, th_tensor *t)
{
    th_tensor_release(*slot);
    *slot = t;
}

/* The GEMM calls of a planned problem over a, b, c (the tensors the plan was made of). */
static int th__gemm_calls(const th__cuda_mm_ops *ops, void *ctx, const char *fn, th_dtype dtype,
                          const th__cuda_gemm_plan *plan, const th_tensor *a, const th_tensor *b, th_tensor *c,
                          const void *alpha, const void *beta)
{
    const int64_t es = (int64_t)th_dtype_info(dtype)->size;
    char *cd = (char *)th_tensor_data(c);
    /* An operand without elements (k = 0) may have no memory at all: cuBLAS never reads it, but it gets a
     * pointer that is not NULL. */
    char *ad = th_tensor_numel(a) ? (char *)th_tensor_data(a) : NULL, *bd = th_tensor_numel(b) ? (char *)th_tensor_data(b) : NULL;
    th__cuda_gemm_call call = {dtype, plan->opa, plan->opb, plan->m, plan->n, plan->k, alpha, beta, NULL, NULL, NULL,
                               plan->lda, plan->ldb, plan->ldc, plan->stride_a, plan->stride_b, plan->stride_c,
                               plan->batch};
    for (int64_t i = 0; i < plan->calls; i++) {
        int64_t oa, ob, oc;
        th__cuda_gemm_call_offsets(plan, i, &oa, &ob, &oc);
        const char *pa = ad ? ad + oa * es : cd, *pb = bd ? bd + ob * es : cd;
        call.a = plan->swap ? pb : pa;
        call.b = plan->swap ? pa : pb;
        call.c = cd + oc * es;
        int status = ops->gemm(ctx, fn, &call);
        if (status) return status;
    }
    return TH_OK;
}

int th__cuda_mm_run(const th__cuda_mm_ops *ops, void *ctx, const char *fn, th__cuda_mm_kind kind, th_dtype dtype,
                    th_tensor *out, const th_tensor *bias, bool has_bias, const th_tensor *a, const th_tensor *b,
                    const void *beta, const void *alpha, th_tensor **result)
{
    if (!out && !result) return th_set_error(TH_ERR_INVALID, fn, "NULL out");
    if ((int)kind < 0 || kind >= TH__CUDA_MM_KINDS)
        return th_set_error(TH_ERR_INVALID, fn, "product kind %d is none of the products", (int)kind);
    if ((int)dtype < 0 || (int)dtype >= TH_NUM_DTYPES)
        return th_set_error(TH_ERR_DTYPE, fn, "%d is no dtype", (int)dtype);
    const char *na = th__mm_names[kind][0], *nbn = th__mm_names[kind][1], *nc = th__mm_names[kind][2];
    if (th__check_input(ops, ctx, fn, na, a, dtype) || th__check_input(ops, ctx, fn, nbn, b, dtype))
        return th_last_status();
    if (has_bias && th__check_input(ops, ctx, fn, nc, bias, dtype)) return th_last_status();
    const th_dtype_kind dk = th_dtype_info(dtype)->kind;
    if (dk == TH_KIND_BOOL)
        return th_set_error(TH_ERR_DTYPE, fn, "there is no matrix product of bool tensors");
    if (th__cuda_mm_scalar_size(dtype) == 0)
        return th_set_error(TH_ERR_UNSUPPORTED, fn,
                            "matrix products of %s tensors are not supported on CUDA devices (cuBLAS has no integer "
                            "GEMM); the CPU has them",
                            th_dtype_name(dtype));
    if (!alpha || (has_bias && !beta))
        return th_set_error(TH_ERR_INVALID, fn, "NULL %s", alpha ? "beta" : "alpha");

    th__cuda_mm_shape s;
    if (th__cuda_mm_shapes(fn, kind, a, b, has_bias ? bias : NULL, &s)) return th_last_status();
    const bool use_beta = has_bias && !th__cuda_mm_scalar_is_zero(dtype, beta);

    th_tensor *res = NULL;
    if (out) {
        if (th__check_out(ops, ctx, fn, out, dtype, s.rdim, s.rsizes)) return th_last_status();
        res = th_tensor_retain(out);
    } else {
        res = ops->empty(ctx, fn, dtype, s.rdim, s.rsizes);
        if (!res) return th_last_status();
    }
    th_tensor *ra = th__overlaps(res, a) ? th__dense_copy(ops, ctx, fn, a) : th_tensor_retain((th_tensor *)a);
    th_tensor *rb = ra && th__overlaps(res, b) ? th__dense_copy(ops, ctx, fn, b) : th_tensor_retain((th_tensor *)b);
    th_tensor *rc = th_tensor_retain(res);
    int status = ra && rb ? TH_OK : th_last_status();
    if (!status && use_beta && bias != res && !th__same_layout(bias, res)) status = ops->copy(ctx, fn, res, bias);

    th__cuda_mm_problem p;
    th__cuda_gemm_plan plan;
    bool empty = s.m == 0 || s.n == 0;
    for (int d = 0; d < s.nb; d++) empty = empty || s.bsize[d] == 0;
    if (!status && !empty) {
        th__cuda_mm_problem_of(&s, ra, rb, rc, &p);
        th__cuda_gemm_plan_make(&p, &plan);
        if (plan.copy_a || plan.copy_b || plan.temp_c) {
            th_tensor *t = NULL;
            if (!status && plan.copy_a) status = (t = th__dense_copy(ops, ctx, fn, ra)) ? TH_OK : th_last_status();
            if (t) th__swap_in(&ra, t);
            t = NULL;
            if (!status && plan.copy_b) status = (t = th__dense_copy(ops, ctx, fn, rb)) ? TH_OK : th_last_status();
            if (t) th__swap_in(&rb, t);
            t = NULL;
            if (!status && plan.temp_c) {
                /* beta reads the old result, so the temporary starts as its copy; otherwise it is only written */
                t = use_beta ? th__dense_copy(ops, ctx, fn, res) : ops->empty(ctx, fn, dtype, s.rdim, s.rsizes);
                status = t ? TH_OK : th_last_status();
            }
            if (t) th__swap_in(&rc, t);
            if (!status) {
                th__cuda_mm_problem_of(&s, ra, rb, rc, &p);
                th__cuda_gemm_plan_make(&p, &plan);
                if (plan.copy_a || plan.copy_b || plan.temp_c) /* contiguous tensors always fit: a bug here */
                    status = th_set_error(TH_ERR_INVALID, fn, "internal error: the plan of contiguous copies asks "
                                                              "for copies again");
            }
        }
        /* beta 0 is passed as exact zeros, so cuBLAS does not read C (NaN there stays out, as on the CPU) */
        const unsigned char zeros[16] = {0};
        if (!status) status = th__gemm_calls(ops, ctx, fn, dtype, &plan, ra, rb, rc, alpha, use_beta ? beta : zeros);
        if (!status && rc != res) status = ops->copy(ctx, fn, res, rc);
    }
    th_tensor_release(ra);
    th_tensor_release(rb);
    th_tensor_release(rc);
    if (!status && result) *result = th_tensor_retain(res);
    th_tensor_release(res);
    return status;
}
