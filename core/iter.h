/* core/iter.h: the strided iteration engine (th__iter): broadcast, drop size-1 dims, order by operand 0's
 * strides, merge contiguous dims, hand one innermost row at a time to a kernel.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/iter.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Nothing public. */

#else /* TH__DEFINING */

/* The one element-size dispatch of the byte-moving kernels: calls fn(args..., size) with the size a constant
 * 1, 2, 4, 8 or 16 where es is one of those, so that the inlined sized kernel moves each element with one
 * load and one store, and with es itself otherwise. Every sized kernel takes the size as its last argument. */
#define TH__DISPATCH_ELSIZE(es, fn, ...)              \
    do {                                              \
        switch (es) {                                 \
        case 1: fn(__VA_ARGS__, 1); break;            \
        case 2: fn(__VA_ARGS__, 2); break;            \
        case 4: fn(__VA_ARGS__, 4); break;            \
        case 8: fn(__VA_ARGS__, 8); break;            \
        case 16: fn(__VA_ARGS__, 16); break;          \
        default: fn(__VA_ARGS__, es); break;          \
        }                                             \
    } while (0)

/* Every loop over elements goes through here. Operand 0 sets the shape, the others broadcast to it
 * (NumPy's rules); size-1 dims are dropped, dims are ordered so the innermost has the smallest stride of
 * operand 0, and neighbouring dims that are contiguous in every operand are merged. A kernel then gets one
 * innermost row at a time: the data pointers, their byte strides and the row length. */
enum { TH__ITER_MAX_OPS = 4 };

typedef struct th__iter {
    int ndim; /* after merging; at least 1 when numel > 0. dim 0 is the innermost */
    int nops;
    int64_t numel;
    int64_t shape[TH_MAX_DIMS];
    int64_t strides[TH__ITER_MAX_OPS][TH_MAX_DIMS]; /* bytes */
    char *data[TH__ITER_MAX_OPS];
} th__iter;

typedef void (*th__row_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);

static void th__shape_string(int ndim, const int64_t *sizes, char *buf, size_t cap)
{
    size_t n = 0;
    n += (size_t)snprintf(buf + n, cap - n, "(");
    for (int d = 0; d < ndim && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, d ? ", %lld" : "%lld", (long long)sizes[d]);
    if (n < cap) snprintf(buf + n, cap - n, ")");
}

static bool th__iter_dim_inner(const th__iter *it, int a, int b)
{
    for (int op = 0; op < it->nops; op++) {
        int64_t sa = llabs(it->strides[op][a]), sb = llabs(it->strides[op][b]);
        if (sa == 0 || sb == 0 || sa == sb) continue;
        return sa < sb;
    }
    return false;
}

static int th__iter_init(const char *fn, th__iter *it, int nops, const th_tensor *const *ops)
{
    for (int op = 0; op < nops; op++) {
        if (!ops[op]) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        if (!th_device_is_host(ops[op]->storage->device))
            return th__fail(TH_ERR_DEVICE, fn, "a tensor is on device type %d, which the host cannot touch",
                            (int)ops[op]->storage->device.type);
    }
    for (int op = 0; op < nops; op++)
        if (th__check_fits(fn, ops[op])) return th_last_status();
    const th_tensor *out = ops[0];
    const int nd = out->ndim;
    for (int op = 1; op < nops; op++) {
        const th_tensor *t = ops[op];
        bool fits = t->ndim <= nd;
        for (int d = 0; fits && d < t->ndim; d++) {
            int64_t have = t->sizes[t->ndim - 1 - d], want = out->sizes[nd - 1 - d];
            fits = have == want || have == 1;
        }
        if (!fits) {
            char a[160], b[160];
            th__shape_string(t->ndim, t->sizes, a, sizeof a);
            th__shape_string(nd, out->sizes, b, sizeof b);
            return th__fail(TH_ERR_SHAPE, fn, "shape %s does not broadcast to %s", a, b);
        }
    }
    it->nops = nops;
    it->numel = th__numel(out);
    for (int op = 0; op < nops; op++) it->data[op] = (char *)th_tensor_data(ops[op]);
    int n = 0;
    for (int k = 0; k < nd; k++) {
        int d = nd - 1 - k;
        if (out->sizes[d] == 1) continue;
        it->shape[n] = out->sizes[d];
        for (int op = 0; op < nops; op++) {
            const th_tensor *t = ops[op];
            int od = d - (nd - t->ndim);
            bool broadcast = od < 0 || t->sizes[od] != out->sizes[d];
            /* Nothing is visited when a size is 0, and then the strides (products of the other sizes, which
             * nothing bounds) may overflow as bytes: leave them 0. */
            it->strides[op][n] = broadcast || it->numel == 0 ? 0 : t->strides[od] * (int64_t)th__elsize(t);
        }
        n++;
    }
    it->ndim = n;
    for (int i = 1; i < n; i++) { /* insertion sort: stable, and n is small */
        for (int j = i; j > 0 && th__iter_dim_inner(it, j, j - 1); j--) {
            int64_t tmp = it->shape[j];
            it->shape[j] = it->shape[j - 1];
            it->shape[j - 1] = tmp;
            for (int op = 0; op < nops; op++) {
                tmp = it->strides[op][j];
                it->strides[op][j] = it->strides[op][j - 1];
                it->strides[op][j - 1] = tmp;
            }
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        bool merge = m > 0;
        for (int op = 0; merge && op < nops; op++)
            merge = it->strides[op][i] == it->strides[op][m - 1] * it->shape[m - 1];
        if (merge) {
            it->shape[m - 1] *= it->shape[i];
            continue;
        }
        it->shape[m] = it->shape[i];
        for (int op = 0; op < nops; op++) it->strides[op][m] = it->strides[op][i];
        m++;
    }
    if (m == 0) { /* a single element */
        it->shape[0] = 1;
        for (int op = 0; op < nops; op++) it->strides[op][0] = 0;
        m = 1;
    }
    it->ndim = m;
    return TH_OK;
}

static void th__iter_for_each(const th__iter *it, th__row_fn row, void *ctx)
{
    if (it->numel == 0) return;
    char *ptrs[TH__ITER_MAX_OPS];
    int64_t inner[TH__ITER_MAX_OPS];
    int64_t idx[TH_MAX_DIMS] = {0};
    for (int op = 0; op < it->nops; op++) {
        ptrs[op] = it->data[op];
        inner[op] = it->strides[op][0];
    }
    for (;;) {
        row(ptrs, inner, it->shape[0], ctx);
        int d = 1;
        for (; d < it->ndim; d++) {
            for (int op = 0; op < it->nops; op++) ptrs[op] += it->strides[op][d];
            if (++idx[d] < it->shape[d]) break;
            for (int op = 0; op < it->nops; op++) ptrs[op] -= it->strides[op][d] * it->shape[d];
            idx[d] = 0;
        }
        if (d >= it->ndim) return;
    }
}

/* Rows of the elements begin..end-1 (in the engine's order), so a range can go to one thread. A row may be
 * cut short at either end of the range. */
TH__MAYBE_UNUSED static void th__iter_for_range(const th__iter *it, int64_t begin, int64_t end, th__row_fn row, void *ctx)
{
    if (begin >= end) return;
    char *ptrs[TH__ITER_MAX_OPS];
    int64_t inner[TH__ITER_MAX_OPS];
    int64_t idx[TH_MAX_DIMS] = {0};
    int64_t rest = begin;
    for (int d = 0; d < it->ndim; d++) {
        idx[d] = rest % it->shape[d];
        rest /= it->shape[d];
    }
    for (int op = 0; op < it->nops; op++) {
        ptrs[op] = it->data[op];
        inner[op] = it->strides[op][0];
        for (int d = 0; d < it->ndim; d++) ptrs[op] += idx[d] * it->strides[op][d];
    }
    int64_t left = end - begin;
    for (;;) {
        int64_t n = it->shape[0] - idx[0];
        if (n > left) n = left;
        row(ptrs, inner, n, ctx);
        left -= n;
        if (left == 0) return;
        for (int op = 0; op < it->nops; op++) ptrs[op] -= idx[0] * it->strides[op][0];
        idx[0] = 0;
        for (int d = 1; d < it->ndim; d++) {
            for (int op = 0; op < it->nops; op++) ptrs[op] += it->strides[op][d];
            if (++idx[d] < it->shape[d]) break;
            for (int op = 0; op < it->nops; op++) ptrs[op] -= it->strides[op][d] * it->shape[d];
            idx[d] = 0;
        }
    }
}

#endif /* TH__DEFINING */
