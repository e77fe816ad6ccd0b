/* tests/cuda/test_cuda_reduce.c: the device reductions without a device. cuda/reduce_plan.c (the companion's
 * driver) runs over host memory, each level's threads a loop over cuda/reduce_tree.h's step function, the
 * text the kernels run; the results are compared with the CPU library's for every op and real dtype over
 * shapes that take each path of the tree (one part, one tile, several tiles and levels, empty runs, 0-d),
 * every dim and all dims, in contiguous and random layouts (permuted, stepped, flipped): exactly for integers,
 * bools, indices, extremes, scans and products of powers of two, within the bound rc_close states otherwise.
 * The tree's order is checked to depend on the sizes only: the same values in another layout give the same
 * bits. Also: the tree's rule itself (every element in exactly one part), outs of other layouts, outs that
 * overlap the input, values and indices outs of different layouts, scans in place, and the refusals. */
#include "reduce_cases.h"

/* Every element of a run of len in exactly one part, each part in order, within the rule's limits; the levels
 * end. */
static void test_tree(void)
{
    const int64_t lens[] = {0, 1, 2, 255, 256, 257, 2047, 2048, 2049, 4096, 65537, 1000003};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        const int64_t len = lens[k], parts = th__cuda_red_parts(len);
        unsigned char *seen = (unsigned char *)calloc((size_t)(len > 0 ? len : 1), 1);
        bool ok = parts >= 1 && (len > TH__CUDA_RED_SEQ) == (parts > 1);
        for (int64_t c = 0; ok && c < parts; c++) {
            int64_t start, stride, count;
            th__cuda_red_part(len, c, &start, &stride, &count);
            ok = count >= 0 && count <= (parts == 1 ? TH__CUDA_RED_SEQ : TH__CUDA_RED_STEPS) && stride >= 1;
            for (int64_t i = 0; ok && i < count; i++) {
                const int64_t j = start + i * stride;
                ok = j >= 0 && j < len && !seen[j];
                if (ok) seen[j] = 1;
            }
        }
        for (int64_t j = 0; ok && j < len; j++) ok = seen[j];
        CHECK(ok);
        if (!ok) fprintf(stderr, "tree: a run of %lld\n", (long long)len);
        free(seen);
        /* the levels: each shorter than the last, ending in one part */
        th__cuda_red_level lv = th__cuda_red_first_level(3, len, true);
        int levels = 1;
        while (lv.parts > 1 && levels < 10) {
            th__cuda_red_level next = th__cuda_red_next_level(&lv);
            CHECK(next.len == lv.parts && next.len < lv.len && !next.first);
            lv = next;
            levels++;
        }
        CHECK(lv.parts == 1);
        CHECK(levels == (len <= 256 ? 1 : len <= 2048 * 8 ? 2 : 3));
    }
    /* a tile's lanes read neighbouring elements at each step: what makes a warp's reads one transaction */
    int64_t s0, s1, st, n0;
    th__cuda_red_part(5000, 0, &s0, &st, &n0);
    th__cuda_red_part(5000, 1, &s1, &st, &n0);
    CHECK(s1 == s0 + 1 && st == TH__CUDA_RED_LANES && n0 == TH__CUDA_RED_STEPS);
}

static int compared, layouts_compared;

/* One op over one input and dim, on the CPU and by the driver, in two layouts. */
static void check_case(const rc_op *op, th_tensor *t, int dim, bool keep)
{
    const th_dtype dt = th_tensor_dtype(t);
    const int64_t n = rc_count(t, dim);
    th_tensor *cv = NULL, *ci = NULL, *ev = NULL, *ei = NULL, *lv = NULL, *li = NULL;
    const bool cpu_ok = rc_typed(op, t, dim, keep, &cv, &ci);
    CHECK(cpu_ok);
    if (!cpu_ok) fprintf(stderr, "the CPU's %s on %s: %s\n", op->name, th_dtype_name(dt), th_last_error());
    const int status = rc_emulate(op, t, dim, keep, NULL, &ev, &ei);
    CHECK_INT_EQ(status, TH_OK);
    if (cpu_ok && !status) {
        char what[96];
        snprintf(what, sizeof what, "driver, %d dims, dim %d%s", th_tensor_ndim(t), dim, keep ? " keepdim" : "");
        th_tensor *scale = cv ? rc_scale(op, t, dim, keep) : NULL;
        CHECK((cv == NULL) == (ev == NULL) && (ci == NULL) == (ei == NULL));
        if (cv && ev) CHECK(rc_close(what, op, dt, n, ev, cv, scale));
        if (ci && ei) CHECK(rc_close(what, op, TH_I64, n, ei, ci, NULL));
        th_tensor_release(scale);
        compared++;
        /* the same values in another layout: the same bits, whatever the op */
        th_tensor *other = rc_tensor(dt, th_tensor_ndim(t), th_tensor_sizes(t), t, 1, false, 0);
        CHECK_INT_EQ(rc_emulate(op, other, dim, keep, NULL, &lv, &li), TH_OK);
        CHECK(rc_same_bits(lv, ev) && rc_same_bits(li, ei));
        layouts_compared++;
        th_tensor_release(other);
    }
    th_tensor_release(li);
    th_tensor_release(lv);
    th_tensor_release(ei);
    th_tensor_release(ev);
    th_tensor_release(ci);
    th_tensor_release(cv);
}

static void test_against_cpu(void)
{
    for (int di = 0; di < RC_NDTYPES; di++) {
        const th_dtype dt = rc_dtypes[di];
        for (int s = 0; s < RC_NSHAPES; s++) {
            const rc_shape *sh = &rc_shapes[s];
            for (int variant = 0; variant < 3; variant++) {
                /* values: plain (contiguous, then a random layout), then with NaNs (floating), then for prod */
                const bool for_prod = variant == 2;
                if (variant == 1 && rc_kind_of(dt) != RC_FLOAT_OPS) continue;
                th_tensor *t = rc_tensor(dt, sh->ndim, sh->sizes, NULL, variant == 0 ? 0 : 1, for_prod,
                                         variant == 1 ? 50 : 0);
                for (int k = 0; k < RC_NOPS; k++) {
                    const rc_op *op = &rc_ops[k];
                    if (op->needs > rc_kind_of(dt) || (for_prod != rc_is(op, "prod") && !op->scan)) continue;
                    if (op->scan && variant == 1) continue;
                    for (int dim = op->scan ? 0 : -1; dim < (sh->ndim > 0 ? sh->ndim : 1); dim++) {
                        const int d = dim < 0 ? ALL_DIMS : (rc_below(2) ? dim : dim - (sh->ndim > 0 ? sh->ndim : 1));
                        if (!rc_has_identity(op) && rc_count(t, d) == 0) continue;
                        check_case(op, t, d, rc_below(2) == 0);
                    }
                }
                th_tensor_release(t);
            }
        }
    }
    /* every path was taken: several levels, and both ways of giving parts to threads */
    CHECK(compared > 3000 && layouts_compared == compared);
    CHECK(rc_multi_level > 100 && rc_lane_major_runs > 100 && rc_output_major_runs > 100 && rc_by_part > 100);
    printf("driver against the CPU: %d reductions (each also in a second layout), %d levels run (%d after a "
           "first, %d of them over part-major partials)\n", compared, rc_levels_run, rc_multi_level, rc_by_part);
}

static th_f32_tensor *f32_of(int ndim, const int64_t *sizes, int layout)
{
    return th_f32_from_base(rc_tensor(TH_F32, ndim, sizes, NULL, layout, false, 0));
}

/* Outs: another layout, overlapping the input, values and indices of different layouts, a scan in place. */
static void test_outs(void)
{
    const int64_t shape[2] = {40, 300}, rows[1] = {40}, cols[1] = {300};
    th_f32_tensor *a = f32_of(2, shape, 0);
    const rc_op sum = {"sum", RC_INT_OPS, 0, 0, false}, max = {"max", RC_BOOL_OPS, 0, 0, false};
    const rc_op cumsum = {"cumsum", RC_INT_OPS, 0, 0, true};
    /* a strided out (every other element of a longer tensor, flipped) */
    th_f32_tensor *big = f32_of(1, (const int64_t[]){600}, 0);
    th_f32_tensor *stepped = th_f32_from_base(th_tensor_new_with_storage(TH_F32, th_f32_storage(big), 599, 1, cols,
                                                                          (const int64_t[]){-2}));
    th_tensor *res_v = NULL, *res_i = NULL;
    th_tensor *outs[2] = {th_f32_base(stepped), NULL};
    CHECK_INT_EQ(rc_emulate(&sum, th_f32_base(a), 0, false, outs, &res_v, &res_i), TH_OK);
    th_f32_tensor *want = th_f32_sum_dim(a, 0, false);
    CHECK(res_v == th_f32_base(stepped) && rc_close("stepped out", &sum, TH_F32, 40, res_v, th_f32_base(want), NULL));
    th_tensor_release(res_v);
    th_f32_release(want);
    /* an out overlapping its input: the result is the input's as it was */
    th_f32_tensor *b = f32_of(2, shape, 0);
    th_f32_tensor *row0 = th_f32_select(b, 0, 0);
    th_f32_tensor *col = th_f32_narrow(row0, 0, 0, 40); /* (40): row 0's first elements, which output 0 reads */
    want = th_f32_sum_dim(b, 1, false);
    outs[0] = th_f32_base(col);
    CHECK_INT_EQ(rc_emulate(&sum, th_f32_base(b), 1, false, outs, &res_v, &res_i), TH_OK);
    CHECK(rc_close("overlapping out", &sum, TH_F32, 300, res_v, th_f32_base(want), NULL));
    th_tensor_release(res_v);
    th_f32_release(want);
    /* values contiguous, indices transposed: through temporaries, then into both */
    th_f32_tensor *vals = th_f32_zeros(1, rows);
    th_i64_tensor *idx_full = th_i64_zeros(2, (const int64_t[]){2, 40});
    th_i64_tensor *idx_flip = th_i64_from_base(th_tensor_new_with_storage(
        TH_I64, th_i64_storage(idx_full), 79, 1, rows, (const int64_t[]){-2}));
    th_tensor *two[2] = {th_f32_base(vals), th_i64_base(idx_flip)};
    CHECK_INT_EQ(rc_emulate(&max, th_f32_base(a), 1, false, two, &res_v, &res_i), TH_OK);
    th_i64_tensor *wi = NULL;
    th_f32_tensor *wv = th_f32_max_dim(a, 1, false, &wi);
    CHECK(res_v == th_f32_base(vals) && res_i == th_i64_base(idx_flip));
    CHECK(rc_same_bits(res_v, th_f32_base(wv)) && rc_same_bits(res_i, th_i64_base(wi)));
    th_tensor_release(res_v);
    th_tensor_release(res_i);
    th_i64_release(wi);
    th_f32_release(wv);
    /* a scan in place, and into a transposed out */
    th_f32_tensor *c = f32_of(2, shape, 1);
    th_f32_tensor *wc = th_f32_cumsum(c, 1);
    outs[0] = th_f32_base(c);
    CHECK_INT_EQ(rc_emulate(&cumsum, th_f32_base(c), 1, false, outs, &res_v, &res_i), TH_OK);
    CHECK(res_v == th_f32_base(c) && rc_same_bits(res_v, th_f32_base(wc)));
    th_tensor_release(res_v);
    th_f32_release(wc);
    th_f32_tensor *d = f32_of(2, shape, 0);
    th_f32_tensor *dt_full = th_f32_zeros(2, (const int64_t[]){300, 40});
    th_f32_tensor *dt = th_f32_transpose(dt_full, 0, 1);
    wc = th_f32_cumprod(d, 0);
    const rc_op cumprod = {"cumprod", RC_INT_OPS, 0, 0, true};
    outs[0] = th_f32_base(dt);
    CHECK_INT_EQ(rc_emulate(&cumprod, th_f32_base(d), 0, false, outs, &res_v, &res_i), TH_OK);
    CHECK(rc_same_bits(res_v, th_f32_base(wc)));
    th_tensor_release(res_v);
    th_f32_release(wc);
    th_f32_release(dt);
    th_f32_release(dt_full);
    th_f32_release(d);
    th_f32_release(c);
    th_i64_release(idx_flip);
    th_i64_release(idx_full);
    th_f32_release(vals);
    th_f32_release(col);
    th_f32_release(row0);
    th_f32_release(b);
    th_f32_release(stepped);
    th_f32_release(big);
    th_f32_release(a);
}

static void test_refusals(void)
{
    th_c64_tensor *z = th_c64_zeros(1, (const int64_t[]){3});
    th_device_reduce c;
    memset(&c, 0, sizeof c);
    c.op = "sum";
    c.dtype = TH_C64;
    c.out_dtype = TH_C64;
    c.in = th_c64_base(z);
    c.dim = -1;
    c.values = true;
    th_tensor *none[2] = {NULL, NULL}, *res[2] = {NULL, NULL};
    CHECK_FAILS(th__cuda_red_call(&rc_host_exec, NULL, "th_c64_sum_all", &c, none, res), TH_ERR_UNSUPPORTED,
                "th_c64_sum_all", "reduces no complex tensors (c64)");
    th_f32_tensor *f = th_f32_zeros(1, (const int64_t[]){3});
    c.op = "median";
    c.dtype = c.out_dtype = TH_F32;
    c.in = th_f32_base(f);
    CHECK_FAILS(th__cuda_red_call(&rc_host_exec, NULL, "th_f32_median", &c, none, res), TH_ERR_UNSUPPORTED,
                "th_f32_median", "no reduction 'median'");
    c.op = "sum";
    c.dim = 1; /* the core wraps and checks dims: a companion called with a bad one still refuses it */
    CHECK_FAILS(th__cuda_red_call(&rc_host_exec, NULL, "th_f32_sum_dim", &c, none, res), TH_ERR_RANGE,
                "th_f32_sum_dim", "dim 1 is out of range for a tensor of 1 dims");
    CHECK(res[0] == NULL && res[1] == NULL);
    th_f32_release(f);
    th_c64_release(z);
}

/* The lean sum (th__cuda_red_step_lean: plain floating sums' first levels over one dim, every later level of a
 * floating sum-class op) against the generic step on the same levels: the same bits for sum, mean, var (both
 * passes), logsumexp (its finish reads the centre) and the 2-norm, every floating dtype, runs of one part, one
 * tile and several levels, contiguous and strided along the reduced dim. */
static void test_lean(void)
{
    static const th_dtype dts[4] = {TH_F16, TH_BF16, TH_F32, TH_F64};
    static const int64_t shapes[4][2] = {{3, 5000}, {70, 300}, {1, 100003}, {5, 256}};
    const rc_op ops[5] = {{"sum", RC_INT_OPS, 0, 0, false}, {"mean", RC_FLOAT_OPS, 0, 0, false},
                          {"var", RC_FLOAT_OPS, 0, 1, false}, {"logsumexp", RC_FLOAT_OPS, 0, 0, false},
                          {"norm", RC_FLOAT_OPS, 2.0, 0, false}};
    const int before = rc_lean_levels;
    int same = 0;
    for (int d = 0; d < 4; d++)
        for (int s = 0; s < 4; s++)
            for (int k = 0; k < 5; k++)
                for (int dim = -1; dim < 2; dim++) {
                    th_tensor *t = rc_tensor(dts[d], 2, shapes[s], NULL, 0, false, 0);
                    th_tensor *lv = NULL, *li = NULL, *gv = NULL, *gi = NULL;
                    const int dd = dim < 0 ? ALL_DIMS : dim;
                    CHECK_INT_EQ(rc_emulate(&ops[k], t, dd, false, NULL, &lv, &li), TH_OK);
                    rc_no_lean = true;
                    CHECK_INT_EQ(rc_emulate(&ops[k], t, dd, false, NULL, &gv, &gi), TH_OK);
                    rc_no_lean = false;
                    const bool eq = lv && gv && rc_same_bits(lv, gv);
                    CHECK(eq);
                    if (!eq)
                        fprintf(stderr, "lean %s of %s (%lld, %lld), dim %d: other bits than the generic step's\n",
                                ops[k].name, th_dtype_name(dts[d]), (long long)shapes[s][0], (long long)shapes[s][1], dim);
                    same += eq;
                    th_tensor_release(gi);
                    th_tensor_release(gv);
                    th_tensor_release(li);
                    th_tensor_release(lv);
                    th_tensor_release(t);
                }
    /* the lean levels ran (over all dims a contiguous input is one dim; over dim 0 a strided one) */
    CHECK(rc_lean_levels - before > 100);
    printf("lean sum: %d reductions bit for bit the generic step's, %d lean levels\n", same, rc_lean_levels - before);
}

int main(void)
{
    test_begin();
    test_tree();
    test_lean();
    test_against_cpu();
    test_outs();
    test_refusals();
    return test_end("test_cuda_reduce");
}
