/* tests/cuda/index_cases.h: random cases of the indexing ops the device runs, shared by the host test of their
 * index math (test_cuda_indexing.c) and the device test (test_cuda_indexing_device.c): every op x every dtype,
 * operands in random layouts (permuted, stepped, flipped, offset), 0-d and size-0 dims, indices negative and
 * repeated, and the CPU's answer through the typed functions (which, on CUDA tensors, are the device's). */
#ifndef TH_TESTS_CUDA_INDEX_CASES_H
#define TH_TESTS_CUDA_INDEX_CASES_H

#include "../check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { IX_INDEX_SELECT, IX_GATHER, IX_TAKE, IX_SCATTER, IX_SCATTER_ADD, IX_MASKED_FILL, IX_OPS };
static const char *const ix_op_names[IX_OPS] = {"index_select", "gather", "take", "scatter", "scatter_add",
                                                "masked_fill"};
enum { IX_NEW, IX_OUT, IX_INPLACE };

static uint64_t ix_rng = 0x2545f4914f6cdd1du;
static inline uint64_t ix_next(void)
{
    ix_rng ^= ix_rng << 13;
    ix_rng ^= ix_rng >> 7;
    ix_rng ^= ix_rng << 17;
    return ix_rng;
}
static inline int64_t ix_below(int64_t n) { return n > 0 ? (int64_t)(ix_next() % (uint64_t)n) : 0; }

/* n elements of dtype dt at p: floats of magnitudes 2^-12..2^12 (a sum's bits depend on its order), every
 * integer bit pattern (sums wrap), bools 0 and 1. */
static inline void ix_fill(th_dtype dt, unsigned char *p, int64_t n)
{
    const int64_t es = (int64_t)th_dtype_info(dt)->size;
    for (int64_t i = 0; i < n; i++) {
        unsigned char *e = p + i * es;
        const int parts = dt == TH_C64 || dt == TH_C128 ? 2 : 1;
        for (int c = 0; c < parts; c++) {
            float f = (float)ldexp((double)(ix_below(1 << 20) + 1) / (double)(1 << 20), (int)ix_below(25) - 12);
            if (ix_next() & 1) f = -f;
            switch (dt) {
            case TH_BOOL: e[0] = (unsigned char)(ix_next() & 1); break;
            case TH_F16: { th_float16 h = th_float16_from_float(f); memcpy(e, &h, 2); break; }
            case TH_BF16: { th_bfloat16 h = th_bfloat16_from_float(f); memcpy(e, &h, 2); break; }
            case TH_F32: case TH_C64: memcpy(e + 4 * c, &f, 4); break;
            case TH_F64: case TH_C128: {
                double d = (double)f * (1.0 + ldexp((double)ix_below(1 << 20), -40));
                memcpy(e + 8 * c, &d, 8);
                break;
            }
            default: {
                uint64_t r = ix_next();
                memcpy(e, &r, (size_t)es);
                break;
            }
            }
        }
    }
}

/* A tensor of dtype dt and shape (ndim, sizes) over a fresh storage of random elements with room around it,
 * in a random layout: dims permuted in memory, stepped by 1 or 2, a quarter flipped (negative strides). */
static inline th_tensor *ix_tensor(th_dtype dt, int ndim, const int64_t *sizes)
{
    int64_t strides[TH_MAX_DIMS];
    int perm[TH_MAX_DIMS];
    for (int k = 0; k < ndim; k++) perm[k] = k;
    for (int k = ndim - 1; k > 0; k--) {
        int j = (int)ix_below(k + 1), t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    int64_t step = 1, offset = ix_below(3), need = offset + 1;
    for (int k = ndim - 1; k >= 0; k--) {
        int d = perm[k];
        strides[d] = step * (1 + ix_below(2));
        step = strides[d] * (sizes[d] > 0 ? sizes[d] : 1);
    }
    for (int k = 0; k < ndim; k++) {
        int64_t ext = sizes[k] > 0 ? sizes[k] - 1 : 0;
        if (ix_below(4) == 0) {
            offset += strides[k] * ext;
            strides[k] = -strides[k];
        }
        need += (strides[k] < 0 ? -strides[k] : strides[k]) * ext;
    }
    need += ix_below(3);
    th_storage *st = th_storage_new(need * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    ix_fill(dt, (unsigned char *)th_storage_raw_data(st), need);
    th_tensor *t = th_tensor_new_with_storage(dt, st, offset, ndim, sizes, strides);
    th_storage_release(st);
    return t;
}

/* An int64 index of shape (ndim, sizes) in a random layout, each value in [-bound, bound) (a few of them
 * negative), or with bad set one value (at a random place) just outside. */
static inline th_tensor *ix_index(int ndim, const int64_t *sizes, int64_t bound, bool bad)
{
    th_tensor *t = ix_tensor(TH_I64, ndim, sizes);
    const int64_t n = th_tensor_numel(t);
    th_i64_tensor *flat = th_i64_empty(1, &n);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = ix_below(bound);
        th_i64_data(flat)[i] = ix_below(3) == 0 ? v - bound : v;
    }
    if (bad && n > 0) th_i64_data(flat)[ix_below(n)] = ix_next() & 1 ? bound : -bound - 1;
    th_i64_tensor *shaped = th_i64_reshape(flat, ndim, sizes);
    th_tensor_copy(t, th_i64_base(shaped));
    th_i64_release(shaped);
    th_i64_release(flat);
    return t;
}

typedef struct ix_case {
    int op, form;
    th_dtype dt;
    th_tensor *self, *index, *mask, *src, *out; /* NULL where the op has none */
    int dim;
    unsigned char value[16]; /* masked_fill's */
} ix_case;

static inline void ix_random_shape(int ndim, int64_t *sizes, int64_t max)
{
    for (int k = 0; k < ndim; k++) sizes[k] = ix_below(8) == 0 ? 0 : 1 + ix_below(max);
}

/* A random case of op in form for dtype dt; bad: one index value out of range (not for masked_fill). */
static inline void ix_case_make(ix_case *c, int op, int form, th_dtype dt, bool bad)
{
    memset(c, 0, sizeof *c);
    c->op = op;
    c->form = form;
    c->dt = dt;
    const int nd = (int)ix_below(4);
    int64_t ts[TH_MAX_DIMS], xs[TH_MAX_DIMS], rs[TH_MAX_DIMS];
    ix_random_shape(nd, ts, 5);
    c->dim = nd > 0 ? (int)ix_below(2 * nd) - nd : (int)ix_below(2) - 1;
    const int d = c->dim < 0 ? c->dim + (nd > 0 ? nd : 1) : c->dim;
    int64_t bound = nd > 0 ? ts[d] : 1;
    if (op != IX_MASKED_FILL && op != IX_TAKE && nd > 0 && ts[d] == 0) ts[d] = bound = 1 + ix_below(4);
    c->self = ix_tensor(dt, nd, ts);
    switch (op) {
    case IX_INDEX_SELECT: {
        int xn = nd == 0 ? (int)ix_below(2) : 1 - (ix_below(6) == 0);
        int64_t len = nd == 0 ? 1 : xn == 0 ? 1 : ix_below(7);
        c->index = ix_index(xn, &len, bound, bad);
        memcpy(rs, ts, sizeof rs);
        if (nd > 0) rs[d] = len;
        if (form == IX_OUT) c->out = ix_tensor(dt, nd, rs);
        break;
    }
    case IX_GATHER: case IX_SCATTER: case IX_SCATTER_ADD: {
        for (int k = 0; k < nd; k++) xs[k] = k == d ? ix_below(7) : ix_below(ts[k] + 1);
        c->index = ix_index(nd, xs, bound, bad);
        if (op == IX_GATHER) {
            if (form == IX_OUT) c->out = ix_tensor(dt, nd, xs);
        } else {
            int64_t ss[TH_MAX_DIMS];
            for (int k = 0; k < nd; k++) ss[k] = xs[k] + ix_below(2);
            c->src = ix_tensor(dt, nd, ss);
        }
        break;
    }
    case IX_TAKE: {
        const int64_t n = th_tensor_numel(c->self);
        const int xn = n == 0 ? 1 : (int)ix_below(3); /* nothing to take from: an empty index */
        ix_random_shape(xn, xs, 4);
        if (n == 0) xs[0] = 0;
        c->index = ix_index(xn, xs, n, bad && n > 0);
        if (form == IX_OUT) c->out = ix_tensor(dt, xn, xs);
        break;
    }
    default: { /* masked_fill: a mask of fewer dims or size-1 dims broadcasts (in place: only so) */
        const int mn = (int)ix_below(nd + 1);
        int64_t ms[TH_MAX_DIMS];
        for (int k = 0; k < mn; k++) ms[k] = ix_below(3) == 0 ? 1 : ts[nd - mn + k];
        c->mask = ix_tensor(TH_BOOL, mn, ms);
        ix_fill(dt, c->value, 1);
        if (form == IX_OUT) c->out = ix_tensor(dt, nd, ts);
        break;
    }
    }
}

static inline void ix_case_free(ix_case *c)
{
    th_tensor_release(c->self);
    th_tensor_release(c->index);
    th_tensor_release(c->mask);
    th_tensor_release(c->src);
    th_tensor_release(c->out);
}

/* The op through its typed function, on c's tensors (host or device: the dispatch decides). The new forms
 * return their result; the others write out or self and return NULL; *rc is the status. */
static inline th_tensor *ix_run(const ix_case *c, int *rc)
{
    th_tensor *r = NULL;
    *rc = TH_OK;
    th_i64_tensor *x = c->index ? th_i64_from_base(c->index) : NULL;
    th_bool_tensor *m = c->mask ? th_bool_from_base(c->mask) : NULL;
    switch (c->dt) {
#define IX_DT(sfx, ENUM, elem, ...)                                                                                   \
    case TH_##ENUM: {                                                                                                 \
        th_##sfx##_tensor *s = th_##sfx##_from_base(c->self), *o = c->out ? th_##sfx##_from_base(c->out) : NULL;      \
        th_##sfx##_tensor *v = c->src ? th_##sfx##_from_base(c->src) : NULL;                                          \
        elem value;                                                                                                   \
        memcpy(&value, c->value, sizeof value);                                                                       \
        const bool fresh = c->form == IX_NEW, in = c->form == IX_INPLACE;                                             \
        switch (c->op) {                                                                                              \
        case IX_INDEX_SELECT:                                                                                         \
            if (fresh) r = th_##sfx##_base(th_##sfx##_index_select(s, c->dim, x));                                    \
            else *rc = th_##sfx##_index_select_out(o, s, c->dim, x);                                                  \
            break;                                                                                                    \
        case IX_GATHER:                                                                                               \
            if (fresh) r = th_##sfx##_base(th_##sfx##_gather(s, c->dim, x));                                          \
            else *rc = th_##sfx##_gather_out(o, s, c->dim, x);                                                        \
            break;                                                                                                    \
        case IX_TAKE:                                                                                                 \
            if (fresh) r = th_##sfx##_base(th_##sfx##_take(s, x));                                                    \
            else *rc = th_##sfx##_take_out(o, s, x);                                                                  \
            break;                                                                                                    \
        case IX_SCATTER:                                                                                              \
            if (fresh) r = th_##sfx##_base(th_##sfx##_scatter(s, c->dim, x, v));                                      \
            else *rc = th_##sfx##_scatter_inplace(s, c->dim, x, v);                                                   \
            break;                                                                                                    \
        case IX_SCATTER_ADD:                                                                                          \
            if (fresh) r = th_##sfx##_base(th_##sfx##_scatter_add(s, c->dim, x, v));                                  \
            else *rc = th_##sfx##_scatter_add_inplace(s, c->dim, x, v);                                               \
            break;                                                                                                    \
        default:                                                                                                      \
            if (fresh) r = th_##sfx##_base(th_##sfx##_masked_fill(s, m, value));                                      \
            else if (in) *rc = th_##sfx##_masked_fill_inplace(s, m, value);                                           \
            else *rc = th_##sfx##_masked_fill_out(o, s, m, value);                                                    \
            break;                                                                                                    \
        }                                                                                                             \
        break;                                                                                                        \
    }
        TH_FOREACH_DTYPE(IX_DT)
#undef IX_DT
    default: break;
    }
    if (c->form == IX_NEW && !r) *rc = th_last_status();
    return r;
}

/* A 1-d tensor over the whole of t's storage: what a form writes, compared whole, shows a write outside it. */
static inline th_tensor *ix_whole(const th_tensor *t)
{
    th_storage *st = th_tensor_storage(t);
    const int64_t n = th_storage_nbytes(st) / (int64_t)th_dtype_info(th_tensor_dtype(t))->size;
    return th_tensor_new_with_storage(th_tensor_dtype(t), st, 0, 1, &n, NULL);
}

/* A contiguous host copy of t (host or device memory: th_tensor_copy, or with the CUDA companion linked,
 * copy, moves it). */
typedef int (*ix_copy_fn)(th_tensor *dst, const th_tensor *src);
static ix_copy_fn ix_copy = th_tensor_copy;

static inline th_tensor *ix_dense(const th_tensor *t)
{
    const int64_t n = th_tensor_numel(t) * (int64_t)th_dtype_info(th_tensor_dtype(t))->size;
    th_storage *st = th_storage_new(n, NULL, NULL);
    th_tensor *c = th_tensor_new_with_storage(th_tensor_dtype(t), st, 0, th_tensor_ndim(t), th_tensor_sizes(t), NULL);
    th_storage_release(st);
    if (c && ix_copy(c, t)) {
        th_tensor_release(c);
        return NULL;
    }
    return c;
}

/* Whether two tensors of one shape and dtype hold the same bytes, element by element. */
static inline bool ix_same_bytes(const th_tensor *a, const th_tensor *b)
{
    if (th_tensor_ndim(a) != th_tensor_ndim(b) || th_tensor_dtype(a) != th_tensor_dtype(b) ||
        memcmp(th_tensor_sizes(a), th_tensor_sizes(b), (size_t)th_tensor_ndim(a) * sizeof(int64_t)) != 0)
        return false;
    th_tensor *ca = ix_dense(a), *cb = ix_dense(b);
    const size_t n = (size_t)th_tensor_numel(a) * th_dtype_info(th_tensor_dtype(a))->size;
    bool same = ca && cb && (n == 0 || memcmp(th_tensor_data(ca), th_tensor_data(cb), n) == 0); /* empty: NULL data */
    th_tensor_release(ca);
    th_tensor_release(cb);
    return same;
}

#endif
