/* tests/cuda/test_cuda_reduce_device.c: reductions and scans of CUDA tensors through the typed names, on a GPU.
 *
 * Everywhere: the companion's refusals that need no device (a complex tensor, on memory that only claims to be
 * CUDA memory and is never touched), and without a usable device the clean failure naming why; then exit 77.
 * With a GPU: every op x real dtype x dim (and all dims) x keepdim, over the shapes of reduce_cases.h, in
 * contiguous and random device layouts, against the CPU's result on the same values: exactly where
 * reduce_cases.h's rc_exact says so, within rc_close's bound otherwise; against the driver run on the host
 * (test_cuda_reduce's emulation of the device's order) bit for bit, except the ops that call exp, log or pow;
 * and each reduction run twice with identical bits. Then outs on the device (strided, overlapping the input,
 * values and indices of different layouts, a scan in place) and reductions of 16M elements over all dims and
 * each of two dims, bitwise reproducible. */
#include "reduce_cases.h"
#include "th_cuda.h"

static void free_blob(void *data, void *ctx)
{
    (void)ctx;
    free(data);
}

/* Host memory that claims to be CUDA memory of device 0: the library must not touch it. */
static th_tensor *claims_cuda(th_dtype dt, int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    const int64_t bytes = n * (int64_t)th_dtype_info(dt)->size;
    void *mem = calloc(1, (size_t)(bytes ? bytes : 1));
    th_storage *s = th_storage_from_blob(mem, (size_t)bytes, (th_device){TH_DEVICE_CUDA, 0}, free_blob, NULL);
    th_tensor *t = th_tensor_new_with_storage(dt, s, 0, ndim, sizes, NULL);
    th_storage_release(s);
    return t;
}

static void test_refusals(bool have_device)
{
    CHECK_INT_EQ(th_cuda_init(), TH_OK);
    th_c64_tensor *z = th_c64_from_base(claims_cuda(TH_C64, 1, (const int64_t[]){4}));
    CHECK_NULL(th_c64_sum_all(z), TH_ERR_UNSUPPORTED, "th_c64_sum_all", "reduces no complex tensors (c64)");
    CHECK_NULL(th_c64_norm_dim(z, 2.0, 0, false), TH_ERR_UNSUPPORTED, "th_c64_norm_dim", "(c64)");
    th_c64_release(z);
    if (!have_device) { /* a valid reduction: refused naming why, nothing touched */
        th_f32_tensor *f = th_f32_from_base(claims_cuda(TH_F32, 1, (const int64_t[]){4}));
        CHECK_NULL(th_f32_sum_all(f), TH_ERR_DEVICE, "th_f32_sum_all", "");
        th_f32_release(f);
    }
}

/* t (host) on device 0, contiguous (layout 0) or in a random layout. */
static th_tensor *on_device(const th_tensor *t, int layout)
{
    th_tensor *h = rc_tensor(th_tensor_dtype(t), th_tensor_ndim(t), th_tensor_sizes(t), t, layout, false, 0);
    const int64_t nbytes = th_storage_nbytes(th_tensor_storage(h));
    th_tensor *raw = th_cuda_empty(TH_U8, 0, 1, &nbytes);
    th_tensor *d = raw ? th_tensor_new_with_storage(th_tensor_dtype(h), th_tensor_storage(raw), th_tensor_offset(h),
                                                    th_tensor_ndim(h), th_tensor_sizes(h), th_tensor_strides(h))
                       : NULL;
    if (d) CHECK_INT_EQ(th_cuda_copy(d, h), TH_OK);
    th_tensor_release(raw);
    th_tensor_release(h);
    return d;
}

static bool is_cuda(const th_tensor *t) { return t && th_storage_device(th_tensor_storage(t)).type == TH_DEVICE_CUDA; }

/* Equal values, bit for bit but NaN (whose payload the GPU does not keep). */
static bool same_values(const th_tensor *x, const th_tensor *y)
{
    if (!x || !y) return x == y;
    const th_dtype dt = th_tensor_dtype(x);
    if (!(dt == TH_F16 || dt == TH_BF16 || dt == TH_F32 || dt == TH_F64)) return rc_same_bits(x, y);
    th_tensor *a = rc_as_f64(x), *b = rc_as_f64(y);
    const double *av = (const double *)th_tensor_data(a), *bv = (const double *)th_tensor_data(b);
    bool same = th_tensor_numel(a) == th_tensor_numel(b);
    for (int64_t i = 0; same && i < th_tensor_numel(a); i++)
        same = (isnan(av[i]) && isnan(bv[i])) || (av[i] == bv[i] && signbit(av[i]) == signbit(bv[i]));
    th_tensor_release(b);
    th_tensor_release(a);
    return same;
}

static int device_cases, emulation_compared;

static void device_case(const rc_op *op, th_tensor *t, int dim, bool keep, int layout)
{
    const th_dtype dt = th_tensor_dtype(t);
    const int64_t n = rc_count(t, dim);
    th_tensor *d = on_device(t, layout);
    th_tensor *cv = NULL, *ci = NULL, *gv = NULL, *gi = NULL, *gv2 = NULL, *gi2 = NULL, *ev = NULL, *ei = NULL;
    CHECK(rc_typed(op, t, dim, keep, &cv, &ci));
    const bool ok = d && rc_typed(op, d, dim, keep, &gv, &gi) && rc_typed(op, d, dim, keep, &gv2, &gi2);
    CHECK(ok);
    if (!ok) fprintf(stderr, "%s on %s: %s\n", op->name, th_dtype_name(dt), th_last_error());
    if (ok) {
        CHECK((gv == NULL || is_cuda(gv)) && (gi == NULL || is_cuda(gi)));
        th_tensor *hv = gv ? th_tensor_to_cpu(gv) : NULL, *hi = gi ? th_tensor_to_cpu(gi) : NULL;
        th_tensor *hv2 = gv2 ? th_tensor_to_cpu(gv2) : NULL, *hi2 = gi2 ? th_tensor_to_cpu(gi2) : NULL;
        char what[96];
        snprintf(what, sizeof what, "device, %d dims, dim %d%s, layout %d", th_tensor_ndim(t), dim,
                 keep ? " keepdim" : "", layout);
        th_tensor *scale = cv ? rc_scale(op, t, dim, keep) : NULL;
        if (cv) CHECK(hv && rc_close(what, op, dt, n, hv, cv, scale));
        if (ci) CHECK(hi && rc_close(what, op, TH_I64, n, hi, ci, NULL));
        CHECK(rc_same_bits(hv, hv2) && rc_same_bits(hi, hi2)); /* run to run */
        if (!rc_transcendental(op) && rc_emulate(op, t, dim, keep, NULL, &ev, &ei) == TH_OK) {
            const bool same = same_values(hv, ev) && same_values(hi, ei);
            CHECK(same);
            if (!same) fprintf(stderr, "%s: %s on %s differs from the host's emulation\n", what, op->name, th_dtype_name(dt));
            emulation_compared++;
        }
        th_tensor_release(scale);
        th_tensor_release(hi2);
        th_tensor_release(hv2);
        th_tensor_release(hi);
        th_tensor_release(hv);
        device_cases++;
    }
    th_tensor_release(ei);
    th_tensor_release(ev);
    th_tensor_release(gi2);
    th_tensor_release(gv2);
    th_tensor_release(gi);
    th_tensor_release(gv);
    th_tensor_release(ci);
    th_tensor_release(cv);
    th_tensor_release(d);
}

static void test_every_op(void)
{
    for (int di = 0; di < RC_NDTYPES; di++) {
        const th_dtype dt = rc_dtypes[di];
        for (int s = 0; s < RC_NSHAPES; s++) {
            const rc_shape *sh = &rc_shapes[s];
            for (int variant = 0; variant < 3; variant++) {
                const bool for_prod = variant == 2;
                if (variant == 1 && rc_kind_of(dt) != RC_FLOAT_OPS) continue;
                th_tensor *t = rc_tensor(dt, sh->ndim, sh->sizes, NULL, 0, for_prod, variant == 1 ? 50 : 0);
                for (int k = 0; k < RC_NOPS; k++) {
                    const rc_op *op = &rc_ops[k];
                    if (op->needs > rc_kind_of(dt) || (for_prod != rc_is(op, "prod") && !op->scan)) continue;
                    if (op->scan && variant == 1) continue;
                    for (int dim = op->scan ? 0 : -1; dim < (sh->ndim > 0 ? sh->ndim : 1); dim++) {
                        const int d = dim < 0 ? ALL_DIMS : dim;
                        if (!rc_has_identity(op) && rc_count(t, d) == 0) continue;
                        device_case(op, t, d, rc_below(2) == 0, (int)rc_below(2));
                    }
                }
                th_tensor_release(t);
            }
        }
    }
    CHECK(device_cases > 3000 && emulation_compared > 2000);
    printf("device against the CPU: %d reductions, %d also bit for bit against the host's emulation\n", device_cases,
           emulation_compared);
}

/* Outs on the device, each checked against the CPU. */
static void test_outs(void)
{
    const int64_t shape[2] = {40, 300};
    th_tensor *h = rc_tensor(TH_F32, 2, shape, NULL, 0, false, 0);
    th_f32_tensor *a = th_f32_from_base(on_device(h, 0)), *ha = th_f32_from_base(h);
    /* a flipped, stepped out */
    const int64_t n600 = 600, n80 = 80;
    th_tensor *raw = th_cuda_empty(TH_F32, 0, 1, &n600);
    th_f32_tensor *stepped = th_f32_from_base(th_tensor_new_with_storage(TH_F32, th_tensor_storage(raw), 599, 1,
                                                                          (const int64_t[]){300}, (const int64_t[]){-2}));
    CHECK_INT_EQ(th_f32_sum_dim_out(stepped, a, 0, false), TH_OK);
    th_f32_tensor *want = th_f32_sum_dim(ha, 0, false);
    th_tensor *got = th_tensor_to_cpu(th_f32_base(stepped));
    const rc_op sum = {"sum", RC_INT_OPS, 0, 0, false}, cumsum = {"cumsum", RC_INT_OPS, 0, 0, true};
    CHECK(got && rc_close("stepped out", &sum, TH_F32, 40, got, th_f32_base(want), NULL));
    th_tensor_release(got);
    th_f32_release(want);
    /* an out inside the input, read by output 0 */
    th_f32_tensor *b = th_f32_from_base(on_device(h, 0));
    th_f32_tensor *row0 = th_f32_select(b, 0, 0), *col = th_f32_narrow(row0, 0, 0, 40);
    CHECK_INT_EQ(th_f32_sum_dim_out(col, b, 1, false), TH_OK);
    want = th_f32_sum_dim(ha, 1, false);
    got = th_tensor_to_cpu(th_f32_base(col));
    CHECK(got && rc_close("overlapping out", &sum, TH_F32, 300, got, th_f32_base(want), NULL));
    th_tensor_release(got);
    th_f32_release(want);
    /* values contiguous, indices flipped and stepped */
    th_f32_tensor *vals = th_f32_from_base(th_cuda_empty(TH_F32, 0, 1, (const int64_t[]){40}));
    th_tensor *iraw = th_cuda_empty(TH_I64, 0, 1, &n80);
    th_i64_tensor *idx = th_i64_from_base(th_tensor_new_with_storage(TH_I64, th_tensor_storage(iraw), 79, 1,
                                                                      (const int64_t[]){40}, (const int64_t[]){-2}));
    CHECK_INT_EQ(th_f32_max_dim_out(vals, idx, a, 1, false), TH_OK);
    th_i64_tensor *wi = NULL;
    th_f32_tensor *wv = th_f32_max_dim(ha, 1, false, &wi);
    th_tensor *gv = th_tensor_to_cpu(th_f32_base(vals)), *gi = th_tensor_to_cpu(th_i64_base(idx));
    CHECK(rc_same_bits(gv, th_f32_base(wv)) && rc_same_bits(gi, th_i64_base(wi)));
    th_tensor_release(gi);
    th_tensor_release(gv);
    th_i64_release(wi);
    th_f32_release(wv);
    /* a scan in place (of b as the overlapping out left it): the CPU's bits, the same operations in order */
    th_f32_tensor *hb = th_f32_from_base(th_tensor_to_cpu(th_f32_base(b)));
    CHECK_INT_EQ(th_f32_cumsum_out(b, b, 1), TH_OK);
    th_f32_tensor *wc = th_f32_cumsum(hb, 1);
    got = th_tensor_to_cpu(th_f32_base(b));
    CHECK(got && rc_close("scan in place", &cumsum, TH_F32, 300, got, th_f32_base(wc), NULL));
    th_tensor_release(got);
    th_f32_release(wc);
    th_f32_release(hb);
    th_i64_release(idx);
    th_tensor_release(iraw);
    th_f32_release(vals);
    th_f32_release(col);
    th_f32_release(row0);
    th_f32_release(b);
    th_f32_release(stepped);
    th_tensor_release(raw);
    th_f32_release(a);
    th_f32_release(ha);
}

/* 16M float32 elements (three levels over all dims): within the bound of the CPU, the same bits every run. */
static void test_large(void)
{
    const int64_t shape[2] = {4096, 4096};
    th_tensor *h = rc_tensor(TH_F32, 2, shape, NULL, 0, false, 0);
    th_tensor *d = on_device(h, 0);
    const rc_op sum = {"sum", RC_INT_OPS, 0, 0, false}, var = {"var", RC_FLOAT_OPS, 0, 1, false};
    const rc_op *ops[2] = {&sum, &var};
    const int dims[3] = {ALL_DIMS, 0, 1};
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++) {
            th_tensor *cv = NULL, *ci = NULL, *g1 = NULL, *g2 = NULL, *gi = NULL;
            CHECK(rc_typed(ops[k], h, dims[i], false, &cv, &ci));
            CHECK(rc_typed(ops[k], d, dims[i], false, &g1, &gi) && rc_typed(ops[k], d, dims[i], false, &g2, &gi));
            th_tensor *h1 = g1 ? th_tensor_to_cpu(g1) : NULL, *h2 = g2 ? th_tensor_to_cpu(g2) : NULL;
            th_tensor *scale = rc_scale(ops[k], h, dims[i], false);
            CHECK(h1 && h2 && rc_same_bits(h1, h2));
            CHECK(h1 && cv && rc_close("16M elements", ops[k], TH_F32, rc_count(h, dims[i]), h1, cv, scale));
            th_tensor_release(scale);
            th_tensor_release(h2);
            th_tensor_release(h1);
            th_tensor_release(g2);
            th_tensor_release(g1);
            th_tensor_release(cv);
        }
    th_tensor_release(d);
    th_tensor_release(h);
}

int main(void)
{
    test_begin();
    const bool have_device = th_cuda_device_count() > 0;
    test_refusals(have_device);
    if (!have_device) {
        printf("no usable CUDA device (%s): the device reductions are skipped\n", th_cuda_unavailable_reason());
        int rc = test_end("cuda_reduce_device");
        return rc ? rc : 77;
    }
    test_every_op();
    test_outs();
    test_large();
    CHECK_INT_EQ(th_cuda_stream_synchronize(th_cuda_current_stream(0)), 0);
    return test_end("cuda_reduce_device");
}
