/* tests/cuda/test_cuda_plan.c: the device iteration plan (cuda/plan.h) run over host buffers against the CPU
 * library's own results, the proof that the plans broadcast, reorder and coalesce correctly.
 *
 * Elementwise: out = a + b, where(cond, a, b) and addcmul(a, t1, t2, v) through th__cuda_plan_offsets (and the
 * 32-bit twin wherever the plan allows it, checked equal to the 64-bit one at every element), each into a copy
 * of out's storage, compared byte for byte with the whole storage after th_f64_add_out, th_f64_where_out and
 * th_f64_addcmul_out: random shapes and layouts (permuted, stepped, flipped, narrowed, broadcast either way,
 * fewer dims, 0-d scalars, size-0 and size-1 dims) and fixed cases up to 16 dims. Reductions: i64 sums over
 * every single dim, every pair and all dims, keepdim or not, into outs of random layouts, against
 * th_i64_sum_dim and th_i64_sum_all; the reduced walk checked to be row-major over the reduced dims; float sums
 * checked equal, bit for bit, to a naive row-major loop and across layouts of the same values. The plans'
 * decisions (dims left, their order, 32-bit or not at the boundary) are checked exactly on plain arrays, where
 * shapes no memory could hold cost nothing. Runs without a GPU. */
#include "tensor.h"
#include "../check.h"
#include "../../cuda/plan.h"

#include <math.h>
#include <stdlib.h>

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int64_t below(int64_t n) { return (int64_t)(next() % (uint64_t)n); }

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* ---- tensors with random layouts ------------------------------------------------------------------------ */

static void fill_random(th_dtype dt, unsigned char *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        switch (dt) {
        case TH_BOOL: p[i] = (unsigned char)(next() & 1); break;
        case TH_I64: {
            int64_t v = below(2001) - 1000;
            memcpy(p + i * 8, &v, 8);
            break;
        }
        case TH_F32: { /* magnitudes 2^-20 .. 2^20: a sum's bits depend on its order */
            float v = (float)ldexp((double)(below(1 << 24) + 1) / (double)(1 << 24), (int)below(41) - 20);
            if (next() & 1) v = -v;
            memcpy(p + i * 4, &v, 4);
            break;
        }
        default: {
            double v = (double)(below(2000001) - 1000000) / 1024.0;
            memcpy(p + i * 8, &v, 8);
            break;
        }
        }
    }
}

/* A tensor of dtype dt and the given shape over a fresh storage of random bytes, in a random layout: dims
 * permuted in memory, stepped by 1..max_step, a quarter of them flipped (negative strides, counted back from
 * an offset); a third of the time the result is th_<sfx>_narrow of a tensor one element longer at each end of
 * a dim. */
static th_tensor *random_tensor(th_dtype dt, int ndim, const int64_t *sizes, int max_step)
{
    int64_t full[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    int perm[TH_MAX_DIMS];
    for (int k = 0; k < ndim; k++) {
        full[k] = sizes[k];
        perm[k] = k;
    }
    int narrow_dim = ndim > 0 && below(3) == 0 ? (int)below(ndim) : -1;
    if (narrow_dim >= 0) full[narrow_dim] += 2;
    for (int k = ndim - 1; k > 0; k--) {
        int j = (int)below(k + 1), t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    int64_t step = 1, offset = 0, need = 1;
    for (int k = ndim - 1; k >= 0; k--) {
        int d = perm[k];
        strides[d] = step * (1 + below(max_step));
        step = strides[d] * (full[d] > 0 ? full[d] : 1);
    }
    for (int k = 0; k < ndim; k++) {
        int64_t ext = full[k] > 0 ? full[k] - 1 : 0;
        if (below(4) == 0) {
            offset += strides[k] * ext;
            strides[k] = -strides[k];
        }
        need += abs64(strides[k]) * ext;
    }
    const int64_t es = (int64_t)th_dtype_info(dt)->size;
    th_storage *st = th_storage_new(need * es, NULL, NULL);
    fill_random(dt, (unsigned char *)th_storage_raw_data(st), need);
    th_tensor *t = th_tensor_new_with_storage(dt, st, offset, ndim, full, strides);
    th_storage_release(st);
    if (!t || narrow_dim < 0) return t;
    th_tensor *v = NULL;
    switch (dt) {
    case TH_BOOL: v = th_bool_base(th_bool_narrow(th_bool_from_base(t), narrow_dim, 1, sizes[narrow_dim])); break;
    case TH_I64: v = th_i64_base(th_i64_narrow(th_i64_from_base(t), narrow_dim, 1, sizes[narrow_dim])); break;
    case TH_F32: v = th_f32_base(th_f32_narrow(th_f32_from_base(t), narrow_dim, 1, sizes[narrow_dim])); break;
    default: v = th_f64_base(th_f64_narrow(th_f64_from_base(t), narrow_dim, 1, sizes[narrow_dim])); break;
    }
    th_tensor_release(t);
    return v;
}

/* A shape that broadcasts to (ndim, sizes): a quarter of the time fewer dims (0: a scalar), a third of the
 * dims 1. */
static int broadcast_shape(int ndim, const int64_t *sizes, int64_t *out)
{
    int nd = below(4) == 0 ? (int)below(ndim + 1) : ndim;
    for (int d = 0; d < nd; d++) out[d] = below(3) == 0 ? 1 : sizes[ndim - nd + d];
    return nd;
}

/* ---- elementwise ---------------------------------------------------------------------------------------- */

enum { OP_ADD, OP_WHERE, OP_ADDCMUL };
static const int op_inputs[] = {2, 3, 3};
static int elementwise_runs, elementwise_elements;

static double load_f64(const unsigned char *p)
{
    double v;
    memcpy(&v, p, 8);
    return v;
}

/* Whether the es bytes at offset off from t's data lie in t's storage: a wrong plan is reported, not a crash. */
static bool inside(const th_tensor *t, int64_t off, int64_t es)
{
    const th_storage *st = th_tensor_storage(t);
    const unsigned char *base = (const unsigned char *)th_storage_raw_data(st);
    const int64_t pos = (int64_t)((const unsigned char *)th_tensor_data(t) - base) + off;
    return pos >= 0 && pos + es <= th_storage_nbytes(st);
}

/* What the plan must satisfy whatever the case: its numel and sizes agree with out, no dim is left that
 * could merge with the one inside it, dims run from out's smallest stride outwards, and use32 is what the
 * tensors' own reaches say. */
static void check_plan_shape(const th__cuda_plan *p, int nops, const th_tensor *const *ops)
{
    const th_tensor *out = ops[0];
    CHECK_INT_EQ(p->numel, th_tensor_numel(out));
    CHECK_INT_EQ(p->nops, nops);
    int big = 0;
    for (int d = 0; d < th_tensor_ndim(out); d++) big += th_tensor_sizes(out)[d] > 1;
    CHECK(p->ndim <= big);
    if (p->numel > 1) {
        int64_t prod = 1;
        for (int k = 0; k < p->ndim; k++) prod *= p->sizes[k];
        CHECK_INT_EQ(prod, p->numel);
        CHECK(p->ndim >= 1);
    } else {
        CHECK_INT_EQ(p->ndim, 0);
    }
    for (int k = 1; k < p->ndim; k++) {
        CHECK(abs64(p->strides[k - 1][0]) < abs64(p->strides[k][0]));
        bool mergeable = true;
        for (int op = 0; op < nops; op++)
            mergeable = mergeable && p->strides[k][op] == p->strides[k - 1][op] * p->sizes[k - 1];
        CHECK(!mergeable);
    }
    for (int k = 0; k < p->ndim; k++)
        for (int op = nops; op < TH_CUDA_PLAN_MAX_OPS; op++) CHECK_INT_EQ(p->strides[k][op], 0);
    bool fits = p->numel <= INT32_MAX;
    for (int op = 0; op < nops && p->numel > 0; op++) {
        const th_tensor *t = ops[op];
        int64_t es = (int64_t)th_dtype_info(th_tensor_dtype(t))->size, reach = es;
        for (int d = 0; d < th_tensor_ndim(t); d++)
            reach += abs64(th_tensor_strides(t)[d]) * es * (th_tensor_sizes(t)[d] - 1);
        fits = fits && reach <= INT32_MAX;
    }
    CHECK_INT_EQ(p->use32, fits);
}

/* Runs op over out and in[] through the plan into a copy of out's storage and through the CPU library into
 * the storage itself; the two storages must end byte-equal (the result, and nothing written outside it). */
static void run_elementwise(int op, th_tensor *out, th_tensor *const *in, double value)
{
    const int nops = 1 + op_inputs[op];
    const th_tensor *ops[TH_CUDA_PLAN_MAX_OPS] = {out, in[0], in[1], op == OP_ADD ? NULL : in[2]};
    th_storage *st = th_tensor_storage(out);
    const size_t nbytes = (size_t)th_storage_nbytes(st);
    unsigned char *cpu = (unsigned char *)th_storage_raw_data(st);
    unsigned char *mine = (unsigned char *)malloc(nbytes);
    memcpy(mine, cpu, nbytes);
    th__cuda_plan p;
    bool planned = th__cuda_plan_elementwise(&p, nops, ops);
    CHECK(planned);
    int rc;
    switch (op) {
    case OP_ADD:
        rc = th_f64_add_out(th_f64_from_base(out), th_f64_from_base(in[0]), th_f64_from_base(in[1]));
        break;
    case OP_WHERE:
        rc = th_f64_where_out(th_f64_from_base(out), th_bool_from_base(in[0]), th_f64_from_base(in[1]),
                              th_f64_from_base(in[2]));
        break;
    default:
        rc = th_f64_addcmul_out(th_f64_from_base(out), th_f64_from_base(in[0]), th_f64_from_base(in[1]),
                                th_f64_from_base(in[2]), value);
        break;
    }
    if (rc != TH_OK) fprintf(stderr, "CPU op %d: %s\n", op, th_last_error());
    CHECK_INT_EQ(rc, TH_OK);
    if (planned) {
        check_plan_shape(&p, nops, ops);
        const unsigned char *d[TH_CUDA_PLAN_MAX_OPS] = {NULL, NULL, NULL, NULL};
        for (int k = 1; k < nops; k++) d[k] = (const unsigned char *)th_tensor_data(ops[k]);
        unsigned char *o = mine + ((unsigned char *)th_tensor_data(out) - cpu);
        int64_t disagree = 0, outside = 0;
        for (int64_t i = 0; i < p.numel; i++) {
            int64_t off[TH_CUDA_PLAN_MAX_OPS];
            th__cuda_plan_offsets(&p, i, off);
            if (p.use32) {
                int32_t off32[TH_CUDA_PLAN_MAX_OPS];
                th__cuda_plan_offsets32(&p, (int32_t)i, off32);
                for (int k = 0; k < TH_CUDA_PLAN_MAX_OPS; k++) {
                    disagree += off32[k] != off[k];
                    if (i & 1) off[k] = off32[k]; /* half the elements go through the 32-bit offsets */
                }
            }
            bool in_range = true;
            for (int k = 0; k < nops; k++)
                in_range = in_range && inside(ops[k], off[k], k == 1 && op == OP_WHERE ? 1 : 8);
            if (!in_range) {
                outside++;
                continue;
            }
            double r;
            switch (op) {
            case OP_ADD: r = load_f64(d[1] + off[1]) + load_f64(d[2] + off[2]); break;
            case OP_WHERE: r = load_f64(d[1][off[1]] ? d[2] + off[2] : d[3] + off[3]); break;
            default: { /* one rounding per statement, as the CPU's (no contraction into a multiply-add) */
                double prod = load_f64(d[2] + off[2]) * load_f64(d[3] + off[3]);
                double scaled = value * prod;
                r = load_f64(d[1] + off[1]) + scaled;
                break;
            }
            }
            memcpy(o + off[0], &r, 8);
        }
        CHECK_INT_EQ(disagree, 0);
        CHECK_INT_EQ(outside, 0);
        elementwise_elements += (int)p.numel;
    }
    if (memcmp(mine, cpu, nbytes) != 0) {
        fprintf(stderr, "op %d over %d dims: the plan's result differs from the CPU's\n", op, th_tensor_ndim(out));
        CHECK(!"elementwise result equal to the CPU's");
    }
    elementwise_runs++;
    free(mine);
}

/* op over random inputs that broadcast to the given shape and an out of their broadcast shape (the CPU's _out
 * wants exactly that), in a random layout; with full, input 1 has the whole shape. */
static void elementwise_case(int op, int ndim, const int64_t *sizes, int max_step, bool full)
{
    th_tensor *in[3] = {NULL, NULL, NULL};
    int64_t osz[TH_MAX_DIMS];
    int ond = 0;
    for (int k = 0; k < op_inputs[op]; k++) {
        int64_t bs[TH_MAX_DIMS];
        int nd = full && k == 1 ? ndim : broadcast_shape(ndim, sizes, bs);
        if (full && k == 1) memcpy(bs, sizes, sizeof(int64_t) * (size_t)ndim);
        for (int r = 1; r <= nd; r++) { /* the broadcast of the inputs so far, aligned right */
            if (r > ond) osz[ndim - r] = 1;
            if (bs[nd - r] != 1) osz[ndim - r] = bs[nd - r];
        }
        if (nd > ond) ond = nd;
        in[k] = random_tensor(op == OP_WHERE && k == 0 ? TH_BOOL : TH_F64, nd, bs, max_step);
    }
    th_tensor *out = random_tensor(TH_F64, ond, osz + (ndim - ond), max_step);
    run_elementwise(op, out, in, (double)(below(17) - 8) / 4.0);
    for (int k = 0; k < 3; k++) th_tensor_release(in[k]);
    th_tensor_release(out);
}

static void test_elementwise_random(void)
{
    for (int trial = 0; trial < 600; trial++) {
        int ndim = (int)below(6);
        int64_t sizes[TH_MAX_DIMS];
        for (int d = 0; d < ndim; d++) sizes[d] = below(16) == 0 ? 0 : 1 + below(4);
        elementwise_case(trial % 3, ndim, sizes, 2, false);
    }
}

static th_tensor *contiguous_f64(int ndim, const int64_t *sizes)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    fill_random(TH_F64, (unsigned char *)th_f64_data(t), th_f64_numel(t));
    return th_f64_base(t);
}

static void test_elementwise_fixed(void)
{
    /* 16 dims: permuted and flipped, with random broadcasting; steps of 1 keep the storage at 65,536. */
    int64_t s16[TH_MAX_DIMS];
    for (int d = 0; d < TH_MAX_DIMS; d++) s16[d] = 2;
    for (int op = 0; op < 3; op++) {
        elementwise_case(op, TH_MAX_DIMS, s16, 1, true);
        elementwise_case(op, TH_MAX_DIMS, s16, 1, false);
    }
    /* All 0-d; 0-d scalars into a shape; broadcast both ways; a size-0 dim; size-1 dims around others. */
    for (int op = 0; op < 3; op++) {
        th_tensor *out = random_tensor(TH_F64, 0, NULL, 1);
        th_tensor *in[3];
        for (int k = 0; k < 3; k++) in[k] = random_tensor(op == OP_WHERE && k == 0 ? TH_BOOL : TH_F64, 0, NULL, 1);
        run_elementwise(op, out, in, 1.5);
        for (int k = 0; k < 3; k++) th_tensor_release(in[k]);
        th_tensor_release(out);
    }
    static const int64_t s34[] = {3, 4}, s31[] = {3, 1}, s14[] = {1, 4}, s4[] = {4};
    static const int64_t s203[] = {2, 0, 3}, s01[] = {0, 1}, s213[] = {2, 1, 3};
    static const int64_t s1513[] = {1, 5, 1, 3}, s1113[] = {1, 1, 1, 3}, s511[] = {5, 1, 1};
    struct {
        int nd[4];
        const int64_t *sz[4];
    } cases[] = {
        {{2, 0, 2, 1}, {s34, NULL, s34, s4}},          /* a scalar, and a row into (3, 4) */
        {{2, 2, 2, 2}, {s34, s31, s14, s34}},          /* a column and a row: broadcast both ways */
        {{3, 2, 3, 3}, {s203, s01, s213, s203}},       /* numel 0 */
        {{4, 4, 3, 4}, {s1513, s1113, s511, s1513}},   /* size-1 dims dropped, broadcast across them */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int op = 0; op < 3; op++) {
            th_tensor *out = random_tensor(TH_F64, cases[c].nd[0], cases[c].sz[0], 2);
            th_tensor *in[3];
            for (int k = 0; k < 3; k++)
                in[k] = random_tensor(op == OP_WHERE && k == 0 ? TH_BOOL : TH_F64, cases[c].nd[k + 1],
                                      cases[c].sz[k + 1], 2);
            run_elementwise(op, out, in, -0.5);
            for (int k = 0; k < 3; k++) th_tensor_release(in[k]);
            th_tensor_release(out);
        }
    }
    /* The view functions themselves: a transpose, a narrow, an expand (stride 0 in a size-7 dim) and a
     * permute, added into a contiguous out and into a transposed one. */
    static const int64_t s57[] = {5, 7}, s69[] = {6, 9}, s15[] = {1, 5}, s75[] = {7, 5}, s257[] = {2, 5, 7};
    th_tensor *x = contiguous_f64(2, s57), *y = contiguous_f64(2, s69), *z = contiguous_f64(2, s15);
    th_tensor *w = contiguous_f64(3, s257);
    th_tensor *xt = th_f64_base(th_f64_transpose(th_f64_from_base(x), 0, 1));            /* (7, 5) */
    th_tensor *yn = th_f64_base(th_f64_narrow(th_f64_from_base(y), 1, 2, 5));            /* (6, 5) */
    th_tensor *yn7 = th_f64_base(th_f64_narrow(th_f64_from_base(y), 0, 0, 5));           /* (5, 9) */
    th_tensor *ynt = th_f64_base(th_f64_transpose(th_f64_from_base(yn7), 0, 1));         /* (9, 5) */
    th_tensor *yn75 = th_f64_base(th_f64_narrow(th_f64_from_base(ynt), 0, 1, 7));        /* (7, 5) */
    th_tensor *ze = th_f64_base(th_f64_expand(th_f64_from_base(z), 2, s75));             /* (7, 5) */
    th_tensor *wp = th_f64_base(th_f64_permute(th_f64_from_base(w), (const int[]){2, 1, 0})); /* (7, 5, 2) */
    th_tensor *wps = th_f64_base(th_f64_select(th_f64_from_base(wp), 2, 1));               /* (7, 5) */
    th_tensor *o1 = contiguous_f64(2, s75);
    th_tensor *o2base = contiguous_f64(2, s57);
    th_tensor *o2 = th_f64_base(th_f64_transpose(th_f64_from_base(o2base), 0, 1));
    th_tensor *pairs[][2] = {{xt, ze}, {yn75, wps}, {xt, yn75}, {wps, ze}};
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        run_elementwise(OP_ADD, o1, pairs[k], 0);
        run_elementwise(OP_ADD, o2, pairs[k], 0);
        th_tensor *three[3] = {pairs[k][0], pairs[k][1], xt};
        run_elementwise(OP_ADDCMUL, o2, three, 2.0);
    }
    CHECK_INT_EQ(th_tensor_ndim(yn), 2);
    th_tensor *all[] = {x, y, z, w, xt, yn, yn7, ynt, yn75, ze, wp, wps, o1, o2base, o2};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) th_tensor_release(all[k]);
}

/* ---- the plans' decisions, exactly, on plain arrays ------------------------------------------------------ */

static th__cuda_plan_operand opnd(int ndim, const int64_t *sizes, const int64_t *strides, int64_t es)
{
    th__cuda_plan_operand o;
    o.ndim = ndim;
    o.sizes = sizes;
    o.strides = strides;
    o.elsize = es;
    return o;
}

/* The offsets of element i by the definition: i row-major over the plan's dims (dim 0 innermost). */
static void offsets_by_definition(const th__cuda_plan *p, int64_t i, int64_t *off)
{
    for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) off[op] = 0;
    for (int k = 0; k < p->ndim; k++) {
        for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) off[op] += (i % p->sizes[k]) * p->strides[k][op];
        i /= p->sizes[k];
    }
}

/* The 64-bit offsets against the definition at a spread of indices (the ends included), and the 32-bit ones
 * against both where the plan allows them. */
static void check_offsets_sampled(const th__cuda_plan *p)
{
    int64_t bad = 0;
    for (int s = 0; s < 200 && p->numel > 0; s++) {
        int64_t i = s == 0 ? 0 : s == 1 ? p->numel - 1 : below(p->numel);
        int64_t want[TH_CUDA_PLAN_MAX_OPS], got[TH_CUDA_PLAN_MAX_OPS];
        offsets_by_definition(p, i, want);
        th__cuda_plan_offsets(p, i, got);
        for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) bad += got[op] != want[op];
        if (p->use32) {
            int32_t g32[TH_CUDA_PLAN_MAX_OPS];
            th__cuda_plan_offsets32(p, (int32_t)i, g32);
            for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) bad += g32[op] != want[op];
        }
    }
    CHECK_INT_EQ(bad, 0);
}

static void test_plan_decisions(void)
{
    th__cuda_plan p;
    const int64_t M = INT32_MAX;
    /* Contiguous (2, 3, 4) f64, three operands: one dim of 24. */
    {
        const int64_t sz[] = {2, 3, 4}, st[] = {12, 4, 1};
        th__cuda_plan_operand o[3] = {opnd(3, sz, st, 8), opnd(3, sz, st, 8), opnd(3, sz, st, 8)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 3, o));
        CHECK_INT_EQ(p.ndim, 1);
        CHECK_INT_EQ(p.sizes[0], 24);
        CHECK(p.strides[0][0] == 8 && p.strides[0][1] == 8 && p.strides[0][2] == 8 && p.strides[0][3] == 0);
        CHECK(p.use32);
        check_offsets_sampled(&p);
    }
    /* A column-major out and a row-major input: the out's stride-1 dim (tensor dim 0) goes inside. */
    {
        const int64_t sz[] = {4, 5}, cm[] = {1, 4}, rm[] = {5, 1};
        th__cuda_plan_operand o[2] = {opnd(2, sz, cm, 8), opnd(2, sz, rm, 4)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 2, o));
        CHECK_INT_EQ(p.ndim, 2);
        CHECK(p.sizes[0] == 4 && p.strides[0][0] == 8 && p.strides[0][1] == 20);
        CHECK(p.sizes[1] == 5 && p.strides[1][0] == 32 && p.strides[1][1] == 4);
        check_offsets_sampled(&p);
        /* The out decides even against two inputs that agree with each other. */
        th__cuda_plan_operand o3[3] = {opnd(2, sz, cm, 8), opnd(2, sz, rm, 8), opnd(2, sz, rm, 8)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 3, o3));
        CHECK(p.ndim == 2 && p.sizes[0] == 4 && p.strides[0][0] == 8);
    }
    /* A broadcast out of ties: where out's strides cannot tell two dims apart (one is 0), an input decides. */
    {
        const int64_t sz[] = {3, 4}, ost[] = {0, 1}, ist[] = {1, 3};
        th__cuda_plan_operand o[2] = {opnd(2, sz, ost, 8), opnd(2, sz, ist, 8)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 2, o));
        CHECK(p.ndim == 2 && p.sizes[0] == 3 && p.strides[0][1] == 8 && p.strides[0][0] == 0);
    }
    /* A row (4,) and a column (3, 1) broadcast into a contiguous (3, 4): no merge (stride 0 in one). */
    {
        const int64_t sz[] = {3, 4}, st[] = {4, 1}, rs[] = {4}, r1[] = {1}, cs[] = {3, 1}, c1[] = {1, 1};
        th__cuda_plan_operand o[3] = {opnd(2, sz, st, 8), opnd(1, rs, r1, 8), opnd(2, cs, c1, 8)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 3, o));
        CHECK_INT_EQ(p.ndim, 2);
        CHECK(p.sizes[0] == 4 && p.strides[0][0] == 8 && p.strides[0][1] == 8 && p.strides[0][2] == 0);
        CHECK(p.sizes[1] == 3 && p.strides[1][0] == 32 && p.strides[1][1] == 0 && p.strides[1][2] == 8);
        check_offsets_sampled(&p);
        /* A 0-d input is a scalar: stride 0 everywhere, and the out merges alone. */
        th__cuda_plan_operand s[2] = {opnd(2, sz, st, 8), opnd(0, NULL, NULL, 8)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 2, s));
        CHECK(p.ndim == 1 && p.sizes[0] == 12 && p.strides[0][0] == 8 && p.strides[0][1] == 0);
    }
    /* Flipped in both dims: still one run, backwards. Size-1 dims vanish whatever their strides. */
    {
        const int64_t sz[] = {2, 3}, st[] = {3, 1}, fl[] = {-3, -1};
        th__cuda_plan_operand o[2] = {opnd(2, sz, st, 2), opnd(2, sz, fl, 2)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 2, o));
        CHECK(p.ndim == 1 && p.sizes[0] == 6 && p.strides[0][0] == 2 && p.strides[0][1] == -2);
        check_offsets_sampled(&p);
        const int64_t s1[] = {1, 5, 1, 3}, t1[] = {99, 3, 7, 1};
        th__cuda_plan_operand u[1] = {opnd(4, s1, t1, 4)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 1, u));
        CHECK(p.ndim == 1 && p.sizes[0] == 15 && p.strides[0][0] == 4);
    }
    /* numel 0 and numel 1. */
    {
        const int64_t sz[] = {3, 0}, st[] = {1, 1}, one[] = {1, 1};
        th__cuda_plan_operand o[1] = {opnd(2, sz, st, 8)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 1, o));
        CHECK(p.numel == 0 && p.ndim == 0);
        th__cuda_plan_operand u[1] = {opnd(2, one, st, 8)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 1, u));
        CHECK(p.numel == 1 && p.ndim == 0 && p.use32);
        int64_t off[TH_CUDA_PLAN_MAX_OPS];
        th__cuda_plan_offsets(&p, 0, off);
        CHECK(off[0] == 0);
    }
    /* What does not broadcast, and bad operand counts. */
    {
        const int64_t sz[] = {3, 4}, st[] = {4, 1}, bad[] = {3}, b1[] = {1}, more[] = {1, 3, 4}, ms[] = {12, 4, 1};
        th__cuda_plan_operand o[2] = {opnd(2, sz, st, 8), opnd(1, bad, b1, 8)};
        CHECK(!th__cuda_plan_elementwise_arrays(&p, 2, o));
        th__cuda_plan_operand m[2] = {opnd(2, sz, st, 8), opnd(3, more, ms, 8)};
        CHECK(!th__cuda_plan_elementwise_arrays(&p, 2, m));
        th__cuda_plan_operand five[5] = {o[0], o[0], o[0], o[0], o[0]};
        CHECK(!th__cuda_plan_elementwise_arrays(&p, 0, five));
        CHECK(!th__cuda_plan_elementwise_arrays(&p, 5, five));
        CHECK(th__cuda_plan_elementwise_arrays(&p, 4, five));
    }
    /* 32 bits at the boundary: numel; one operand's reach (sum of |stride| * (size - 1), plus its element)
     * exactly INT32_MAX bytes, and one byte more; backwards too; an f64 input beside a byte out. */
    {
        const int64_t one[] = {1};
        int64_t n[1] = {M};
        th__cuda_plan_operand o[1] = {opnd(1, n, one, 1)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 1, o) && p.use32);
        check_offsets_sampled(&p);
        n[0] = M + 1;
        CHECK(th__cuda_plan_elementwise_arrays(&p, 1, o) && !p.use32);
        check_offsets_sampled(&p);
        const int64_t two[] = {2};
        int64_t s[1];
        th__cuda_plan_operand q[1] = {opnd(1, two, s, 1)};
        const int64_t strides[] = {M - 1, M, -(M - 1), -M};
        const bool want[] = {true, false, true, false};
        for (int k = 0; k < 4; k++) {
            s[0] = strides[k];
            CHECK(th__cuda_plan_elementwise_arrays(&p, 1, q));
            CHECK_INT_EQ(p.use32, want[k]);
            check_offsets_sampled(&p);
        }
        const int64_t unit[] = {1};
        int64_t fs[1];
        th__cuda_plan_operand r[2] = {opnd(1, two, unit, 1), opnd(1, two, fs, 8)};
        fs[0] = (M - 8) / 8; /* 8 * fs + 8 <= INT32_MAX */
        CHECK(th__cuda_plan_elementwise_arrays(&p, 2, r) && p.use32);
        check_offsets_sampled(&p);
        fs[0]++;
        CHECK(th__cuda_plan_elementwise_arrays(&p, 2, r) && !p.use32);
        /* Two dims sharing the reach: not merged (gapped), the sum decides. */
        const int64_t sz2[] = {2, 2};
        int64_t st2[2];
        th__cuda_plan_operand g[1] = {opnd(2, sz2, st2, 1)};
        st2[1] = (M - 1) / 2;
        st2[0] = M - 1 - st2[1]; /* the two reaches sum to INT32_MAX - 1 */
        CHECK(th__cuda_plan_elementwise_arrays(&p, 1, g) && p.ndim == 2 && p.use32);
        check_offsets_sampled(&p);
        st2[0]++;
        CHECK(th__cuda_plan_elementwise_arrays(&p, 1, g) && !p.use32);
        /* Strides far past int32 (a view over a huge mapping): the saturated sum does not overflow. */
        const int64_t huge[] = {INT64_MAX / 64, INT64_MAX / 64};
        th__cuda_plan_operand h[1] = {opnd(2, sz2, huge, 16)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 1, h) && !p.use32);
    }
    /* 16 dims that cannot merge (each stride 4 times the last: gaps), unsorted: 16 plan dims, sorted, 64-bit. */
    {
        int64_t sz[TH_MAX_DIMS], st[TH_MAX_DIMS];
        for (int d = 0; d < TH_MAX_DIMS; d++) {
            sz[d] = 2;
            st[d] = (int64_t)1 << (2 * ((d * 7) % TH_MAX_DIMS)); /* a permutation of 4^0 .. 4^15 */
        }
        th__cuda_plan_operand o[2] = {opnd(TH_MAX_DIMS, sz, st, 8), opnd(0, NULL, NULL, 8)};
        CHECK(th__cuda_plan_elementwise_arrays(&p, 2, o));
        CHECK_INT_EQ(p.ndim, TH_MAX_DIMS);
        CHECK_INT_EQ(p.numel, (int64_t)1 << TH_MAX_DIMS);
        for (int k = 0; k < p.ndim; k++) CHECK_INT_EQ(p.strides[k][0], ((int64_t)8) << (2 * k));
        CHECK(!p.use32);
        check_offsets_sampled(&p);
    }
#if TH_MAX_DIMS == 16
    CHECK_INT_EQ(sizeof(th__cuda_plan), 744); /* the sizes docs/cuda.md and plan.h state */
    CHECK_INT_EQ(sizeof(th__cuda_reduce_plan), 496);
#endif
}

/* ---- the 32-bit division -------------------------------------------------------------------------------- */

static void test_div32(void)
{
    int64_t divisors[400], nd = 0;
    for (int64_t d = 1; d <= 40; d++) divisors[nd++] = d;
    for (int k = 1; k < 31; k++)
        for (int64_t e = -1; e <= 1; e++) divisors[nd++] = ((int64_t)1 << k) + e;
    divisors[nd++] = INT32_MAX;
    divisors[nd++] = INT32_MAX - 1;
    while (nd < 400) divisors[nd++] = 1 + below((int64_t)1 << (1 + below(31)));
    for (int64_t k = 0; k < nd; k++) {
        const uint32_t d = (uint32_t)divisors[k];
        uint32_t magic;
        uint8_t shift;
        th__cuda_div32_init(d, &magic, &shift);
        const uint32_t top = (uint32_t)INT32_MAX;
        const uint32_t edges[] = {0, 1, d - 1, d, d + 1, 2 * d - 1, top, top - 1, top - top % d, top - top % d - 1};
        int bad = 0;
        for (int s = 0; s < 300; s++) {
            uint32_t n = s < 10 ? edges[s] : (uint32_t)below((int64_t)INT32_MAX + 1);
            if (n > top) continue; /* 2d - 1 past the range for the largest d */
            bad += th__cuda_div32(n, magic, shift) != n / d;
        }
        if (bad) fprintf(stderr, "div32 by %u: %d wrong quotients\n", d, bad);
        CHECK_INT_EQ(bad, 0);
    }
}

/* ---- reductions ----------------------------------------------------------------------------------------- */

static int reduce_runs;

/* The reduced walk by definition: j row-major over in's reduced dims in their logical order. */
static int64_t reduced_offset_by_definition(const th_tensor *in, uint32_t mask, int64_t j)
{
    const int n = th_tensor_ndim(in);
    const int64_t es = (int64_t)th_dtype_info(th_tensor_dtype(in))->size;
    int64_t off = 0;
    for (int d = n - 1; d >= 0; d--) {
        if (!((mask >> d) & 1)) continue;
        const int64_t size = th_tensor_sizes(in)[d];
        off += (j % size) * th_tensor_strides(in)[d] * es;
        j /= size;
    }
    return off;
}

/* Sums in (i64) over mask into an out of random layout, through the plan into a copy of out's storage and
 * through th_i64_sum_dim (or th_i64_sum_all for every dim without keepdim) plus th_tensor_copy into out's
 * own; the storages must end byte-equal. */
static void run_reduce_i64(const th_tensor *in, uint32_t mask, bool keepdim)
{
    const int n = th_tensor_ndim(in);
    const uint32_t every = ((uint32_t)1 << n) - 1, m = mask == TH_CUDA_REDUCE_ALL ? every : mask;
    int64_t osz[TH_MAX_DIMS] = {0};
    int ond = 0;
    for (int d = 0; d < n; d++) {
        if (!((m >> d) & 1)) osz[ond++] = th_tensor_sizes(in)[d];
        else if (keepdim) osz[ond++] = 1;
    }
    th_tensor *out = random_tensor(TH_I64, ond, osz, 2);
    th_i64_tensor *ref = NULL;
    if (m == every && n > 0 && !keepdim) {
        ref = th_i64_sum_all(th_i64_from_base((th_tensor *)in));
    } else {
        ref = th_i64_from_base(th_tensor_retain((th_tensor *)in));
        for (int d = n - 1; d >= 0; d--) {
            if (!((m >> d) & 1)) continue;
            th_i64_tensor *next_ref = th_i64_sum_dim(ref, d, keepdim);
            th_i64_release(ref);
            ref = next_ref;
        }
    }
    th_storage *st = th_tensor_storage(out);
    const size_t nbytes = (size_t)th_storage_nbytes(st);
    unsigned char *cpu = (unsigned char *)th_storage_raw_data(st);
    unsigned char *mine = (unsigned char *)malloc(nbytes);
    memcpy(mine, cpu, nbytes);
    int rc = ref ? th_tensor_copy(out, th_i64_base(ref)) : th_last_status();
    if (rc != TH_OK) fprintf(stderr, "CPU sum: %s\n", th_last_error());
    CHECK_INT_EQ(rc, TH_OK);
    th__cuda_reduce_plan p;
    bool planned = th__cuda_plan_reduce(&p, in, mask, out);
    CHECK(planned);
    if (planned) {
        CHECK_INT_EQ(p.numel_out, th_tensor_numel(out));
        int64_t red = 1;
        for (int d = 0; d < n; d++)
            if ((m >> d) & 1) red *= th_tensor_sizes(in)[d];
        CHECK_INT_EQ(p.numel_red, red);
        for (int k = 1; k < p.ndim_out; k++) CHECK(abs64(p.out_strides[k - 1]) < abs64(p.out_strides[k]));
        for (int k = p.ndim_out; k < p.ndim_out + p.ndim_red; k++) CHECK_INT_EQ(p.out_strides[k], 0);
        int64_t bad = 0;
        for (int64_t j = 0; p.numel_out > 0 && j < p.numel_red; j++) {
            int64_t got = th__cuda_reduce_in_offset(&p, j);
            bad += got != reduced_offset_by_definition(in, m, j);
            if (p.use32) bad += th__cuda_reduce_in_offset32(&p, (int32_t)j) != got;
        }
        const unsigned char *src = (const unsigned char *)th_tensor_data(in);
        unsigned char *dst = mine + ((unsigned char *)th_tensor_data(out) - cpu);
        for (int64_t o = 0; o < p.numel_out; o++) {
            int64_t oo, io;
            th__cuda_reduce_out_offsets(&p, o, &oo, &io);
            bool thirty_two = p.use32 && (o & 1); /* half the outputs through the 32-bit path */
            if (p.use32) {
                int32_t oo32, io32;
                th__cuda_reduce_out_offsets32(&p, (int32_t)o, &oo32, &io32);
                bad += oo32 != oo || io32 != io;
            }
            if (!inside(out, oo, 8)) {
                bad++;
                continue;
            }
            uint64_t acc = 0;
            for (int64_t j = 0; j < p.numel_red; j++) {
                int64_t off = thirty_two ? th__cuda_reduce_in_offset32(&p, (int32_t)j)
                                         : th__cuda_reduce_in_offset(&p, j);
                if (!inside(in, io + off, 8)) {
                    bad++;
                    continue;
                }
                int64_t v;
                memcpy(&v, src + io + off, 8);
                acc += (uint64_t)v;
            }
            int64_t r = (int64_t)acc;
            memcpy(dst + oo, &r, 8);
        }
        CHECK_INT_EQ(bad, 0);
    }
    if (memcmp(mine, cpu, nbytes) != 0) {
        fprintf(stderr, "sum over mask %#x of %d dims (keepdim %d): the plan's result differs from the CPU's\n",
                (unsigned)mask, n, (int)keepdim);
        CHECK(!"reduction equal to the CPU's");
    }
    reduce_runs++;
    free(mine);
    th_i64_release(ref);
    th_tensor_release(out);
}

/* Every single dim, every pair, all dims (by the constant and by the full mask) and none, keepdim or not. */
static void reduce_every_mask(const th_tensor *in)
{
    const int n = th_tensor_ndim(in);
    for (int keep = 0; keep < 2; keep++) {
        for (int a = 0; a < n; a++) {
            run_reduce_i64(in, (uint32_t)1 << a, keep);
            for (int b = a + 1; b < n; b++) run_reduce_i64(in, ((uint32_t)1 << a) | ((uint32_t)1 << b), keep);
        }
        run_reduce_i64(in, TH_CUDA_REDUCE_ALL, keep);
        run_reduce_i64(in, ((uint32_t)1 << n) - 1, keep);
        run_reduce_i64(in, 0, keep);
    }
}

static void test_reduce_i64(void)
{
    for (int trial = 0; trial < 80; trial++) {
        int n = (int)below(5);
        int64_t sizes[TH_MAX_DIMS];
        for (int d = 0; d < n; d++) sizes[d] = below(12) == 0 ? 0 : 1 + below(5);
        th_tensor *in = random_tensor(TH_I64, n, sizes, 2);
        reduce_every_mask(in);
        th_tensor_release(in);
    }
    /* A permute of a contiguous tensor, and 16 dims (sizes 1 to 2, flipped and permuted). */
    static const int64_t s[] = {3, 4, 5};
    th_i64_tensor *c = th_i64_empty(3, s);
    fill_random(TH_I64, (unsigned char *)th_i64_data(c), 60);
    th_i64_tensor *perm = th_i64_permute(c, (const int[]){2, 0, 1});
    reduce_every_mask(th_i64_base(perm));
    th_i64_release(perm);
    th_i64_release(c);
    int64_t s16[TH_MAX_DIMS];
    for (int d = 0; d < TH_MAX_DIMS; d++) s16[d] = 1 + (d % 3 != 0);
    th_tensor *big = random_tensor(TH_I64, TH_MAX_DIMS, s16, 1);
    run_reduce_i64(big, TH_CUDA_REDUCE_ALL, false);
    run_reduce_i64(big, 0x5555, true);
    run_reduce_i64(big, 0xF00F, false);
    th_tensor_release(big);
}

/* Float sums: equal, bit for bit, to a naive row-major loop over the reduced dims; the same bits for the same
 * values in another layout and on a second run; and the data is such that another order gives other bits
 * (else the first check could not fail). */
static void plan_sum_f32(const th_tensor *in, uint32_t mask, float *res)
{
    const int n = th_tensor_ndim(in);
    int64_t osz[TH_MAX_DIMS] = {0};
    int ond = 0;
    for (int d = 0; d < n; d++)
        if (!((mask >> d) & 1)) osz[ond++] = th_tensor_sizes(in)[d];
    int64_t ost[TH_MAX_DIMS], step = 1;
    for (int d = ond - 1; d >= 0; d--) {
        ost[d] = step;
        step *= osz[d];
    }
    th__cuda_plan_operand i = th__cuda_plan_operand_of(in), o = {ond, osz, ost, 4};
    th__cuda_reduce_plan p;
    CHECK(th__cuda_plan_reduce_arrays(&p, &i, mask, &o));
    const unsigned char *src = (const unsigned char *)th_tensor_data(in);
    for (int64_t e = 0; e < p.numel_out; e++) {
        int64_t oo, io;
        th__cuda_reduce_out_offsets(&p, e, &oo, &io);
        float acc = 0;
        for (int64_t j = 0; j < p.numel_red; j++) {
            float v;
            memcpy(&v, src + io + th__cuda_reduce_in_offset(&p, j), 4);
            acc += v;
        }
        res[oo / 4] = acc;
    }
}

static void test_reduce_f32_order(void)
{
    static const int64_t s[] = {6, 7, 5};
    const uint32_t mask = 5; /* dims 0 and 2: out (7,) */
    int differs = 0, mismatch = 0, layout_mismatch = 0, rerun_mismatch = 0;
    for (int trial = 0; trial < 20; trial++) {
        th_tensor *a = random_tensor(TH_F32, 3, s, 2);
        th_f32_tensor *ca = th_f32_contiguous(th_f32_from_base(a));
        th_tensor *b = random_tensor(TH_F32, 3, s, 2); /* the same values in another layout */
        CHECK_INT_EQ(th_tensor_copy(b, th_f32_base(ca)), TH_OK);
        const float *x = th_f32_data(ca); /* row-major (6, 7, 5) */
        float mine[7], again[7], other[7];
        plan_sum_f32(a, mask, mine);
        plan_sum_f32(a, mask, again);
        plan_sum_f32(b, mask, other);
        for (int c = 0; c < 7; c++) {
            float naive = 0, reversed = 0;
            for (int i0 = 0; i0 < 6; i0++)
                for (int i2 = 0; i2 < 5; i2++) naive += x[(i0 * 7 + c) * 5 + i2];
            for (int i2 = 4; i2 >= 0; i2--)
                for (int i0 = 5; i0 >= 0; i0--) reversed += x[(i0 * 7 + c) * 5 + i2];
            mismatch += memcmp(&naive, &mine[c], 4) != 0;
            rerun_mismatch += memcmp(&again[c], &mine[c], 4) != 0;
            layout_mismatch += memcmp(&other[c], &mine[c], 4) != 0;
            differs += memcmp(&reversed, &naive, 4) != 0;
        }
        th_f32_release(ca);
        th_tensor_release(a);
        th_tensor_release(b);
    }
    CHECK_INT_EQ(mismatch, 0);
    CHECK_INT_EQ(rerun_mismatch, 0);
    CHECK_INT_EQ(layout_mismatch, 0);
    CHECK(differs > 0);
}

static void test_reduce_decisions(void)
{
    th__cuda_reduce_plan p;
    const int64_t M = INT32_MAX;
    const int64_t s[] = {4, 5, 6}, c[] = {30, 6, 1};
    const th__cuda_plan_operand in = opnd(3, s, c, 8);
    /* Dim 1 of a contiguous (4, 5, 6) into a contiguous (4, 6): the out merges, the input does not. */
    {
        const int64_t os[] = {4, 6}, oc[] = {6, 1};
        th__cuda_plan_operand out = opnd(2, os, oc, 8);
        CHECK(th__cuda_plan_reduce_arrays(&p, &in, 2, &out));
        CHECK(p.ndim_out == 2 && p.ndim_red == 1 && p.numel_out == 24 && p.numel_red == 5);
        CHECK(p.sizes[0] == 6 && p.out_strides[0] == 8 && p.in_strides[0] == 8);
        CHECK(p.sizes[1] == 4 && p.out_strides[1] == 48 && p.in_strides[1] == 240);
        CHECK(p.sizes[2] == 5 && p.in_strides[2] == 48 && p.out_strides[2] == 0);
        /* keepdim: the same plan. */
        const int64_t ks[] = {4, 1, 6}, kc[] = {6, 6, 1};
        th__cuda_plan_operand kout = opnd(3, ks, kc, 8);
        th__cuda_reduce_plan k;
        CHECK(th__cuda_plan_reduce_arrays(&k, &in, 2, &kout));
        CHECK(memcmp(&k, &p, sizeof p) == 0);
    }
    /* Dims 1 and 2: one reduced run of 30. Dims 0 and 2: two reduced dims, dim 2 inside. */
    {
        const int64_t os[] = {4}, oc[] = {1};
        th__cuda_plan_operand out = opnd(1, os, oc, 8);
        CHECK(th__cuda_plan_reduce_arrays(&p, &in, 6, &out));
        CHECK(p.ndim_out == 1 && p.ndim_red == 1 && p.sizes[1] == 30 && p.in_strides[1] == 8);
        const int64_t o5[] = {5};
        th__cuda_plan_operand out5 = opnd(1, o5, oc, 8);
        CHECK(th__cuda_plan_reduce_arrays(&p, &in, 5, &out5));
        CHECK(p.ndim_out == 1 && p.ndim_red == 2);
        CHECK(p.sizes[1] == 6 && p.in_strides[1] == 8 && p.sizes[2] == 4 && p.in_strides[2] == 240);
    }
    /* The reduced dims keep their logical order even where the input's strides run the other way: a
     * (4, 5, 6) whose dim 0 is innermost in memory still walks dim 2 inside dim 0. */
    {
        const int64_t t[] = {1, 4, 20}, os[] = {5}, oc[] = {1};
        th__cuda_plan_operand tin = opnd(3, s, t, 8), out = opnd(1, os, oc, 8);
        CHECK(th__cuda_plan_reduce_arrays(&p, &tin, 5, &out));
        CHECK(p.ndim_red == 2 && p.sizes[1] == 6 && p.in_strides[1] == 160 && p.sizes[2] == 4 &&
              p.in_strides[2] == 8);
    }
    /* Every dim into a 0-d out: no output dims; the constant and the full mask agree. */
    {
        th__cuda_plan_operand out = opnd(0, NULL, NULL, 8);
        CHECK(th__cuda_plan_reduce_arrays(&p, &in, TH_CUDA_REDUCE_ALL, &out));
        CHECK(p.ndim_out == 0 && p.numel_out == 1 && p.ndim_red == 1 && p.sizes[0] == 120 && p.in_strides[0] == 8);
        th__cuda_reduce_plan q;
        CHECK(th__cuda_plan_reduce_arrays(&q, &in, 7, &out));
        CHECK(memcmp(&q, &p, sizeof p) == 0);
        int64_t oo, io;
        th__cuda_reduce_out_offsets(&p, 0, &oo, &io);
        CHECK(oo == 0 && io == 0);
    }
    /* Refusals: a mask past the dims, an out of the wrong shape or rank. */
    {
        const int64_t os[] = {4, 6}, oc[] = {6, 1}, ws[] = {4, 5}, w3[] = {4, 2, 6}, w3c[] = {12, 6, 1};
        th__cuda_plan_operand out = opnd(2, os, oc, 8), wrong = opnd(2, ws, oc, 8), rank = opnd(1, os, oc, 8);
        th__cuda_plan_operand keep_wrong = opnd(3, w3, w3c, 8);
        CHECK(!th__cuda_plan_reduce_arrays(&p, &in, 8 | 2, &out));
        CHECK(!th__cuda_plan_reduce_arrays(&p, &in, 2, &wrong));
        CHECK(!th__cuda_plan_reduce_arrays(&p, &in, 2, &rank));
        CHECK(!th__cuda_plan_reduce_arrays(&p, &in, 2, &keep_wrong));
    }
    /* Size 0: a reduced dim of 0 (every output the identity), a kept dim of 0 (nothing to do). */
    {
        const int64_t z[] = {3, 0}, zc[] = {1, 1}, os[] = {3}, oc[] = {1}, o0[] = {0};
        th__cuda_plan_operand zin = opnd(2, z, zc, 8), out = opnd(1, os, oc, 8), out0 = opnd(1, o0, oc, 8);
        CHECK(th__cuda_plan_reduce_arrays(&p, &zin, 2, &out));
        CHECK(p.numel_out == 3 && p.numel_red == 0 && p.ndim_red == 0 && p.ndim_out == 1);
        CHECK(th__cuda_plan_reduce_arrays(&p, &zin, 1, &out0));
        CHECK(p.numel_out == 0 && p.ndim_out == 0);
    }
    /* 32 bits at the boundary: the input's reach over both spaces, the output's, and each numel. */
    {
        const int64_t two[] = {2, 2}, os[] = {2}, unit[] = {1};
        int64_t st[2];
        th__cuda_plan_operand bin = opnd(2, two, st, 1), out = opnd(1, os, unit, 1);
        st[1] = 1;
        st[0] = M - 2; /* reach (M - 2) + 1 plus the element: INT32_MAX */
        CHECK(th__cuda_plan_reduce_arrays(&p, &bin, 1, &out) && p.use32);
        st[0]++;
        CHECK(th__cuda_plan_reduce_arrays(&p, &bin, 1, &out) && !p.use32);
        st[0] = 1;
        st[1] = 2;
        int64_t ost[1] = {M - 1};
        th__cuda_plan_operand wide = opnd(1, os, ost, 1);
        CHECK(th__cuda_plan_reduce_arrays(&p, &bin, 1, &wide) && p.use32);
        ost[0] = M;
        CHECK(th__cuda_plan_reduce_arrays(&p, &bin, 1, &wide) && !p.use32);
        int64_t n[1] = {M};
        th__cuda_plan_operand lin = opnd(1, n, unit, 1), scalar = opnd(0, NULL, NULL, 1);
        CHECK(th__cuda_plan_reduce_arrays(&p, &lin, 1, &scalar) && p.use32);
        n[0] = M + 1;
        CHECK(th__cuda_plan_reduce_arrays(&p, &lin, 1, &scalar) && !p.use32);
        CHECK(th__cuda_plan_reduce_arrays(&p, &lin, 0, &lin) && !p.use32); /* numel_out past int32 */
    }
}

int main(void)
{
    test_begin();
    test_div32();
    test_plan_decisions();
    test_elementwise_random();
    test_elementwise_fixed();
    test_reduce_decisions();
    test_reduce_i64();
    test_reduce_f32_order();
    printf("test_cuda_plan: %d elementwise runs (%d elements), %d reductions\n", elementwise_runs,
           elementwise_elements, reduce_runs);
    CHECK(elementwise_runs >= 600 && reduce_runs >= 1000);
    return test_end("test_cuda_plan");
}
