/* tests/cuda/test_cuda_blas_plan.c: matrix products on the device, everything but cuBLAS (cuda/blas_plan.c),
 * run on the host. The plan's calls go to a reference GEMM written from cuBLAS's documented semantics
 * (column-major, op N / op T, m, n, k, lda >= max(1, rows), ldc >= max(1, m), beta 0 never reads C, strided
 * batches), which also refuses any element outside the tensors' storages. The same scenario is built twice
 * and run once through the CPU's products (th_f64_mm, ...) and once through th__cuda_mm_run: the storages must
 * then hold the same bits, and errors must carry the same status and message. Values are small integers, so
 * every sum is exact and the comparison is bitwise. No GPU needed. */
#include "../check.h"
#include "../../cuda/blas_plan.h"

#include <math.h>
#include <stdlib.h>

/* ---- the host side of the table: host tensors, th_tensor_copy, the reference GEMM ---- */

typedef struct host_ctx {
    int calls, batched_calls, empties, copies, bad;
    int64_t products;
    int fail_empty_at, fail_gemm_at; /* 1-based call numbers to fail; 0: none */
    struct {
        const char *lo, *hi;
    } ranges[64];
    int nranges;
} host_ctx;

static void ctx_range(host_ctx *x, const th_storage *s)
{
    if (x->nranges < 64) {
        x->ranges[x->nranges].lo = (const char *)th_storage_raw_data(s);
        x->ranges[x->nranges].hi = (const char *)th_storage_raw_data(s) + th_storage_nbytes(s);
        x->nranges++;
    }
}

static int host_check(void *ctx, const char *fn, const char *name, const th_tensor *t)
{
    th_device d = th_storage_device(th_tensor_storage(t));
    if (d.type != TH_DEVICE_CPU) return th_set_error(TH_ERR_DEVICE, fn, "%s is not on the CPU", name);
    ctx_range((host_ctx *)ctx, th_tensor_storage(t));
    return TH_OK;
}

static th_tensor *host_empty(void *ctx, const char *fn, th_dtype dtype, int ndim, const int64_t *sizes)
{
    host_ctx *x = (host_ctx *)ctx;
    if (++x->empties == x->fail_empty_at) {
        th_set_error(TH_ERR_NOMEM, fn, "injected: no memory");
        return NULL;
    }
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    th_storage *s = th_storage_new(n * (int64_t)th_dtype_info(dtype)->size, NULL, NULL);
    if (!s) return NULL;
    ctx_range(x, s);
    th_tensor *t = th_tensor_new_with_storage(dtype, s, 0, ndim, sizes, NULL);
    th_storage_release(s);
    return t;
}

static int host_copy(void *ctx, const char *fn, th_tensor *dst, const th_tensor *src)
{
    (void)fn;
    ((host_ctx *)ctx)->copies++;
    return th_tensor_copy(dst, src);
}

/* One element of a reference operand, or NULL (counted as bad) outside every storage. */
static const char *ref_at(host_ctx *x, const void *base, int64_t index, size_t es)
{
    const char *p = (const char *)base + index * (int64_t)es;
    for (int i = 0; i < x->nranges; i++)
        if (p >= x->ranges[i].lo && p + es <= x->ranges[i].hi) return p;
    x->bad++;
    return NULL;
}

typedef struct cval {
    double re, im;
} cval;

static cval ref_load(th_dtype dt, const char *p)
{
    cval v = {0, 0};
    float f[2];
    if (dt == TH_F32 || dt == TH_C64) {
        memcpy(f, p, dt == TH_F32 ? 4 : 8);
        v.re = f[0];
        v.im = dt == TH_C64 ? f[1] : 0;
    } else {
        memcpy(&v.re, p, 8);
        if (dt == TH_C128) memcpy(&v.im, p + 8, 8);
    }
    return v;
}

static void ref_store(th_dtype dt, char *p, cval v)
{
    float f[2] = {(float)v.re, (float)v.im};
    if (dt == TH_F32 || dt == TH_C64) {
        memcpy(p, f, dt == TH_F32 ? 4 : 8);
    } else {
        memcpy(p, &v.re, 8);
        if (dt == TH_C128) memcpy(p + 8, &v.im, 8);
    }
}

static cval cmul(cval a, cval b) { return (cval){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

static int64_t max1(int64_t v) { return v > 1 ? v : 1; }

/* cuBLAS's <t>gemm / <t>gemmStridedBatched as its documentation states them. */
static int host_gemm(void *ctx, const char *fn, const th__cuda_gemm_call *c)
{
    host_ctx *x = (host_ctx *)ctx;
    x->calls++;
    x->products += c->batch;
    if (c->batch > 1) x->batched_calls++;
    if (x->calls == x->fail_gemm_at) return th_set_error(TH_ERR_DEVICE, fn, "injected: CUBLAS_STATUS_EXECUTION_FAILED");
    const bool valid = c->m >= 0 && c->n >= 0 && c->k >= 0 && c->batch >= 1 &&
                       (c->opa == TH__CUDA_OP_N || c->opa == TH__CUDA_OP_T) &&
                       (c->opb == TH__CUDA_OP_N || c->opb == TH__CUDA_OP_T) &&
                       c->lda >= max1(c->opa == TH__CUDA_OP_N ? c->m : c->k) &&
                       c->ldb >= max1(c->opb == TH__CUDA_OP_N ? c->k : c->n) && c->ldc >= max1(c->m) &&
                       /* the products of a batch write disjoint matrices */
                       (c->batch == 1 || c->stride_c >= c->ldc * (c->n - 1) + c->m) && c->stride_a >= 0 &&
                       c->stride_b >= 0;
    if (!valid) {
        x->bad++;
        return th_set_error(TH_ERR_INVALID, fn, "reference GEMM: CUBLAS_STATUS_INVALID_VALUE");
    }
    const th_dtype dt = c->dtype;
    const size_t es = th_dtype_info(dt)->size;
    cval alpha = ref_load(dt, (const char *)c->alpha), beta = ref_load(dt, (const char *)c->beta);
    if (dt == TH_F64 || dt == TH_C128) { /* compute types: double for these, float for the others */
        memcpy(&alpha.re, c->alpha, 8);
        memcpy(&beta.re, c->beta, 8);
    }
    const bool read_c = beta.re != 0 || beta.im != 0;
    for (int64_t p = 0; p < c->batch; p++) {
        const char *A = (const char *)c->a + p * c->stride_a * (int64_t)es;
        const char *B = (const char *)c->b + p * c->stride_b * (int64_t)es;
        char *C = (char *)c->c + p * c->stride_c * (int64_t)es;
        for (int64_t j = 0; j < c->n; j++)
            for (int64_t i = 0; i < c->m; i++) {
                cval acc = {0, 0};
                for (int64_t l = 0; l < c->k; l++) {
                    const char *pa = ref_at(x, A, c->opa == TH__CUDA_OP_N ? i + l * c->lda : l + i * c->lda, es);
                    const char *pb = ref_at(x, B, c->opb == TH__CUDA_OP_N ? l + j * c->ldb : j + l * c->ldb, es);
                    if (!pa || !pb) return th_set_error(TH_ERR_INVALID, fn, "reference GEMM: read outside memory");
                if (alpha.re == 0 && alpha.im == 0) break; /* BLAS: alpha 0 reads neither A nor B */
                    cval t = cmul(ref_load(dt, pa), ref_load(dt, pb));
                    acc.re += t.re;
                    acc.im += t.im;
                }
                char *pc = (char *)ref_at(x, C, i + j * c->ldc, es);
                if (!pc) return th_set_error(TH_ERR_INVALID, fn, "reference GEMM: write outside memory");
                /* BLAS's quick return for alpha 0 is C = beta C: no product, so no -0 from 0 * -x */
                const bool no_product = alpha.re == 0 && alpha.im == 0;
                cval v = no_product ? (cval){0, 0} : cmul(alpha, acc);
                if (no_product && read_c) {
                    v = cmul(beta, ref_load(dt, pc));
                } else if (read_c) {
                    cval o = cmul(beta, ref_load(dt, pc));
                    v.re += o.re;
                    v.im += o.im;
                }
                ref_store(dt, pc, v);
            }
    }
    return TH_OK;
}

static const th__cuda_mm_ops host_ops = {host_check, host_empty, host_copy, host_gemm};

/* ---- scenarios: operands as views of up to four storages, built twice ---- */

typedef struct spec {
    int ndim;             /* 0 with sizes NULL-ish: unused when !used */
    bool used;
    int64_t sizes[6];
    const char *order;    /* memory order, outermost dim first ("10": transposed); NULL: row-major */
    int64_t pad;          /* extra elements per innermost memory row: a leading dimension above the size */
    unsigned flip, zero;  /* dims (bit d) walked backwards / with stride 0 */
    int storage;          /* 0..3: operands naming one storage share it */
    int64_t offset;       /* elements before the view */
    bool nan;             /* the storage starts as NaNs (an out that must be written, never read) */
} spec;

enum { NSTORE = 4 };

typedef struct world {
    th_storage *st[NSTORE];
    th_tensor *t[4]; /* a, b, bias, out */
} world;

static void spec_strides(const spec *s, int64_t *strides, int64_t *first, int64_t *extent)
{
    int64_t running = 1, lo = 0, hi = 0;
    for (int pos = s->ndim - 1; pos >= 0; pos--) {
        int d = s->order ? s->order[pos] - '0' : pos;
        if (s->zero >> d & 1) {
            strides[d] = 0;
            continue;
        }
        strides[d] = running;
        running *= max1(s->sizes[d]) + (pos == s->ndim - 1 ? s->pad : 0);
    }
    for (int d = 0; d < s->ndim; d++) {
        if (s->flip >> d & 1) strides[d] = -strides[d];
        int64_t reach = (max1(s->sizes[d]) - 1) * strides[d];
        if (reach < 0) lo += reach;
        else hi += reach;
    }
    *first = s->offset - lo;
    *extent = *first + hi + 1;
}

static void world_build(world *w, const spec *specs, uint32_t seed)
{
    int64_t need[NSTORE] = {0};
    bool nan[NSTORE] = {false};
    for (int i = 0; i < 4; i++) {
        if (!specs[i].used) continue;
        int64_t st[6], first, extent;
        spec_strides(&specs[i], st, &first, &extent);
        if (extent > need[specs[i].storage]) need[specs[i].storage] = extent;
        nan[specs[i].storage] |= specs[i].nan;
    }
    for (int s = 0; s < NSTORE; s++) {
        w->st[s] = need[s] ? th_storage_new(need[s] * 8, NULL, NULL) : NULL;
        double *v = w->st[s] ? (double *)th_storage_raw_data(w->st[s]) : NULL;
        for (int64_t e = 0; e < need[s]; e++)
            v[e] = nan[s] ? NAN : (double)((int64_t)((e * 7 + (int64_t)s * 5 + seed) % 7) - 3);
    }
    for (int i = 0; i < 4; i++) {
        w->t[i] = NULL;
        if (!specs[i].used) continue;
        int64_t st[6], first, extent;
        spec_strides(&specs[i], st, &first, &extent);
        w->t[i] = th_tensor_new_with_storage(TH_F64, w->st[specs[i].storage], first, specs[i].ndim,
                                             specs[i].sizes, st);
        if (!w->t[i]) fprintf(stderr, "world_build: %s\n", th_last_error());
    }
}

static void world_free(world *w)
{
    for (int i = 0; i < 4; i++) th_tensor_release(w->t[i]);
    for (int s = 0; s < NSTORE; s++) th_storage_release(w->st[s]);
}

/* ---- the products, on the CPU and through the plan ---- */

typedef enum { OP_DOT, OP_MV, OP_ADDMV, OP_MM, OP_ADDMM, OP_BMM, OP_BADDBMM, OP_MATMUL, OP_OUTER, OP_ADDR } op_id;
static const struct {
    const char *name;
    th__cuda_mm_kind kind;
    bool bias;
} OPS[] = {
    [OP_DOT] = {"dot", TH__CUDA_MM_DOT, false},       [OP_MV] = {"mv", TH__CUDA_MM_MV, false},
    [OP_ADDMV] = {"addmv", TH__CUDA_MM_MV, true},     [OP_MM] = {"mm", TH__CUDA_MM_MM, false},
    [OP_ADDMM] = {"addmm", TH__CUDA_MM_MM, true},     [OP_BMM] = {"bmm", TH__CUDA_MM_BMM, false},
    [OP_BADDBMM] = {"baddbmm", TH__CUDA_MM_BMM, true}, [OP_MATMUL] = {"matmul", TH__CUDA_MM_MATMUL, false},
    [OP_OUTER] = {"outer", TH__CUDA_MM_OUTER, false}, [OP_ADDR] = {"addr", TH__CUDA_MM_OUTER, true},
};
typedef enum { F_NEW, F_OUT, F_INPLACE } form_id;

#define T64(t) ((th_f64_tensor *)(t))

static int cpu_call(op_id op, form_id form, th_tensor *out, th_tensor *bias, th_tensor *a, th_tensor *b, double beta,
                    double alpha, th_tensor **res)
{
    th_f64_tensor *r = NULL;
    int st = 0;
#define TH__PLAIN(f)                                                                                           \
    if (form == F_NEW) r = th_f64_##f(T64(a), T64(b));                                                         \
    else st = th_f64_##f##_out(T64(out), T64(a), T64(b));                                                      \
    break;
#define TH__FUSED(f)                                                                                           \
    if (form == F_NEW) r = th_f64_##f(T64(bias), T64(a), T64(b), beta, alpha);                                 \
    else if (form == F_OUT) st = th_f64_##f##_out(T64(out), T64(bias), T64(a), T64(b), beta, alpha);           \
    else st = th_f64_##f##_inplace(T64(bias), T64(a), T64(b), beta, alpha);                                    \
    break;
    switch (op) {
    case OP_DOT: TH__PLAIN(dot)
    case OP_MV: TH__PLAIN(mv)
    case OP_ADDMV: TH__FUSED(addmv)
    case OP_MM: TH__PLAIN(mm)
    case OP_ADDMM: TH__FUSED(addmm)
    case OP_BMM: TH__PLAIN(bmm)
    case OP_BADDBMM: TH__FUSED(baddbmm)
    case OP_MATMUL: TH__PLAIN(matmul)
    case OP_OUTER: TH__PLAIN(outer)
    case OP_ADDR: TH__FUSED(addr)
    }
#undef TH__PLAIN
#undef TH__FUSED
    if (form == F_NEW) {
        *res = (th_tensor *)r;
        return r ? TH_OK : th_last_status();
    }
    return st;
}

static int scenarios, mismatches;

/* n doubles with the same bits; with alpha 0 a zero's sign may differ, since the CPU's own paths differ there
 * (its BLAS returns beta*C, its built-in kernel adds 0 * sum, which is -0 for a negative sum). */
static bool same_bits(const void *x, const void *y, int64_t n, bool any_zero_sign)
{
    const double *a = (const double *)x, *b = (const double *)y;
    for (int64_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], 8) != 0 && !(any_zero_sign && a[i] == 0 && b[i] == 0)) return false;
    return true;
}

/* Runs op in form on two builds of specs (a, b, bias, out) and compares everything; ctx_out gets the plan
 * side's counters. Returns the status both gave. */
static int compare(const char *label, op_id op, form_id form, const spec *specs, double beta, double alpha,
                   host_ctx *ctx_out)
{
    scenarios++;
    char fn[64];
    snprintf(fn, sizeof fn, "th_f64_%s%s", OPS[op].name, form == F_OUT ? "_out" : form == F_INPLACE ? "_inplace" : "");
    world w1, w2;
    uint32_t seed = (uint32_t)scenarios % 5u;
    world_build(&w1, specs, seed);
    world_build(&w2, specs, seed);
    th_tensor *r1 = NULL, *r2 = NULL;

    th_clear_error();
    int s1 = cpu_call(op, form, w1.t[3], w1.t[2], w1.t[0], w1.t[1], beta, alpha, &r1);
    char msg1[1024];
    snprintf(msg1, sizeof msg1, "%s", th_last_error());

    host_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    if (ctx_out) {
        ctx.fail_empty_at = ctx_out->fail_empty_at;
        ctx.fail_gemm_at = ctx_out->fail_gemm_at;
    }
    th_clear_error();
    th_tensor *out2 = form == F_OUT ? w2.t[3] : form == F_INPLACE ? w2.t[2] : NULL;
    int s2 = th__cuda_mm_run(&host_ops, &ctx, fn, OPS[op].kind, TH_F64, out2, w2.t[2], OPS[op].bias, w2.t[0], w2.t[1],
                             &beta, &alpha, form == F_NEW ? &r2 : NULL);
    const char *msg2 = th_last_error();

    bool same = s1 == s2 && ctx.bad == 0;
    if (s1 || s2) same = same && strcmp(msg1, msg2) == 0;
    for (int s = 0; same && s < NSTORE; s++)
        if (w1.st[s])
            same = same_bits(th_storage_raw_data(w1.st[s]), th_storage_raw_data(w2.st[s]),
                             th_storage_nbytes(w1.st[s]) / 8, alpha == 0);
    if (same && form == F_NEW && !s1) {
        same = r1 && r2 && th_tensor_ndim(r1) == th_tensor_ndim(r2) &&
               memcmp(th_tensor_sizes(r1), th_tensor_sizes(r2), sizeof(int64_t) * (size_t)th_tensor_ndim(r1)) == 0 &&
               th_tensor_is_contiguous(r2) && same_bits(th_tensor_data(r1), th_tensor_data(r2), th_tensor_numel(r1), alpha == 0);
    }
    check_count++;
    if (!same) {
        check_failures++;
        mismatches++;
        fprintf(stderr, "MISMATCH %s (%s): cpu %d \"%s\", plan %d \"%s\", reference refusals %d\n", label, fn, s1, msg1,
                s2, msg2, ctx.bad);
    }
    th_tensor_release(r1);
    th_tensor_release(r2);
    world_free(&w1);
    world_free(&w2);
    if (ctx_out) *ctx_out = ctx;
    return s1;
}

/* ---- layouts ---- */

static spec mat(int64_t r, int64_t c, int layout, int storage)
{
    spec s;
    memset(&s, 0, sizeof s);
    s.used = true;
    s.ndim = 2;
    s.sizes[0] = r;
    s.sizes[1] = c;
    s.storage = storage;
    switch (layout) {
    case 0: break;                           /* row-major, contiguous */
    case 1: s.order = "10"; break;           /* a transposed view */
    case 2: s.pad = 3; s.offset = 2; break;  /* narrowed: ld > cols */
    case 3: s.order = "10"; s.pad = 2; break;
    case 4: s.flip = 1; break;               /* rows backwards: no layout cuBLAS takes */
    case 5: s.zero = 1; break;               /* rows repeated (stride 0) */
    case 6: s.pad = 1; s.order = "10"; s.flip = 2; break;
    default: break;
    }
    return s;
}
enum { NLAYOUTS = 7 };

static spec none(void)
{
    spec s;
    memset(&s, 0, sizeof s);
    return s;
}

static spec tens(int ndim, const int64_t *sizes, const char *order, int64_t pad, unsigned zero, int storage)
{
    spec s = none();
    s.used = true;
    s.ndim = ndim;
    for (int d = 0; d < ndim; d++) s.sizes[d] = sizes[d];
    s.order = order;
    s.pad = pad;
    s.zero = zero;
    s.storage = storage;
    return s;
}

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* ---- the cases ---- */

static void test_mm_layouts(void)
{
    const int64_t dims[][3] = {{1, 1, 1}, {2, 3, 4}, {4, 1, 3}, {3, 5, 1}, {1, 4, 3}, {0, 2, 3}, {3, 0, 2}, {2, 3, 0},
                               {5, 2, 5}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        int64_t m = dims[d][0], k = dims[d][1], n = dims[d][2];
        for (int la = 0; la < NLAYOUTS; la++)
            for (int lb = 0; lb < NLAYOUTS; lb++)
                for (int lo = -1; lo < 6; lo++) { /* -1: a new result; layout 5 (stride 0) is no valid out */
                    spec s[4] = {mat(m, k, la, 0), mat(k, n, lb, 1), none(), lo < 0 ? none() : mat(m, n, lo == 5 ? 6 : lo, 2)};
                    s[3].nan = true;
                    compare("mm layouts", OP_MM, lo < 0 ? F_NEW : F_OUT, s, 0, 1, NULL);
                }
    }
}

static void test_addmm(void)
{
    const double betas[] = {0, 1, 2, -1}, alphas[] = {1, 3, 0};
    const int64_t m = 3, k = 4, n = 2;
    spec biases[] = {mat(m, n, 0, 3), mat(m, n, 1, 3), tens(1, SZ(n), NULL, 0, 0, 3), tens(2, SZ(1, n), NULL, 0, 0, 3),
                     tens(2, SZ(m, 1), NULL, 0, 0, 3), tens(0, SZ(0), NULL, 0, 0, 3)};
    for (size_t bi = 0; bi < sizeof biases / sizeof biases[0]; bi++)
        for (size_t be = 0; be < 4; be++)
            for (size_t al = 0; al < 3; al++)
                for (int lo = 0; lo < 3; lo++) {
                    spec s[4] = {mat(m, k, (int)(bi + al) % NLAYOUTS, 0), mat(k, n, (int)(bi + be) % NLAYOUTS, 1),
                                 biases[bi], mat(m, n, lo == 2 ? 6 : lo, 2)};
                    s[3].nan = true; /* beta 0: the bias is not read and the out's NaNs all overwritten */
                    compare("addmm", OP_ADDMM, lo == 0 ? F_NEW : F_OUT, s, betas[be], alphas[al], NULL);
                }
    /* in place: the bias is the result, in any layout */
    for (int lc = 0; lc < NLAYOUTS - 2; lc++)
        for (size_t be = 0; be < 4; be++) {
            spec s[4] = {mat(m, k, 1, 0), mat(k, n, 2, 1), mat(m, n, lc == 4 ? 6 : lc, 2), none()};
            compare("addmm inplace", OP_ADDMM, F_INPLACE, s, betas[be], 2, NULL);
        }
}

static void test_batched(void)
{
    host_ctx c; /* compare() reads its failure injections from it: none */
    memset(&c, 0, sizeof c);
    /* bmm: contiguous, transposed matrices, batch dim innermost in memory, padded, batch of 0 and 1 */
    const char *orders[] = {NULL, "021", "120", "201", "102"};
    for (int oa = 0; oa < 5; oa++)
        for (int ob = 0; ob < 5; ob++)
            for (int oc = 0; oc < 5; oc++)
                for (int64_t bs = 0; bs < 4; bs += 3) {
                    spec s[4] = {tens(3, SZ(bs + 1, 2, 3), orders[oa], oa, 0, 0), tens(3, SZ(bs + 1, 3, 4), orders[ob], 0, 0, 1),
                                 none(), tens(3, SZ(bs + 1, 2, 4), orders[oc], oc & 1, 0, 2)};
                    compare("bmm orders", OP_BMM, F_OUT, s, 0, 1, NULL);
                }
    /* contiguous bmm: one strided-batched call, no copy */
    {
        spec s[4] = {tens(3, SZ(5, 2, 3), NULL, 0, 0, 0), tens(3, SZ(5, 3, 4), NULL, 0, 0, 1), none(), none()};
        compare("bmm contiguous", OP_BMM, F_NEW, s, 0, 1, &c);
        CHECK_INT_EQ(c.calls, 1);
        CHECK_INT_EQ(c.products, 5);
        CHECK_INT_EQ(c.copies, 0);
    }
    /* baddbmm with broadcast biases, beta 0 and not */
    spec bb[] = {tens(3, SZ(3, 2, 4), NULL, 0, 0, 2), tens(1, SZ(4), NULL, 0, 0, 2), tens(3, SZ(1, 2, 1), NULL, 0, 0, 2),
                 tens(3, SZ(3, 2, 4), "210", 1, 0, 2)};
    for (size_t i = 0; i < 4; i++)
        for (int be = 0; be < 2; be++)
            for (int f = 0; f < 3; f++) {
                if (f == F_INPLACE && i != 0 && i != 3) continue;
                spec s[4] = {tens(3, SZ(3, 2, 5), "021", 0, 0, 0), tens(3, SZ(3, 5, 4), NULL, 0, 0, 1), bb[i],
                             tens(3, SZ(3, 2, 4), "102", 0, 0, 3)};
                compare("baddbmm", OP_BADDBMM, (form_id)f, s, be ? 2 : 0, -1, NULL);
            }
    /* matmul's broadcasting: (2,1,m,k) @ (1,3,k,n) loops over the leading dim, with no copy of either */
    {
        spec s[4] = {tens(4, SZ(2, 1, 2, 3), NULL, 0, 0, 0), tens(4, SZ(1, 3, 3, 4), NULL, 0, 0, 1), none(), none()};
        compare("matmul broadcast", OP_MATMUL, F_NEW, s, 0, 1, &c);
        CHECK_INT_EQ(c.calls, 2);
        CHECK_INT_EQ(c.products, 6);
        CHECK_INT_EQ(c.copies, 0);
    }
    /* (3,m,k) @ (2,3,k,n): a broadcast over the leading dim only: one call of 6 with a's stride uniform? no:
     * a walks 0, s, 2s, 0, s, 2s; b flattens; so 2 calls of 3 */
    {
        spec s[4] = {tens(3, SZ(3, 2, 3), NULL, 0, 0, 0), tens(4, SZ(2, 3, 3, 4), NULL, 0, 0, 1), none(), none()};
        compare("matmul broadcast 2", OP_MATMUL, F_NEW, s, 0, 1, &c);
        CHECK_INT_EQ(c.calls, 2);
        CHECK_INT_EQ(c.batched_calls, 2);
    }
    /* (m,k) @ (4,k,n): a broadcast over every batch dim: one call with a's stride 0 */
    {
        spec s[4] = {tens(2, SZ(2, 3), "10", 0, 0, 0), tens(3, SZ(4, 3, 5), NULL, 0, 0, 1), none(), none()};
        compare("matmul broadcast all", OP_MATMUL, F_NEW, s, 0, 1, &c);
        CHECK_INT_EQ(c.calls, 1);
        CHECK_INT_EQ(c.products, 4);
        CHECK_INT_EQ(c.copies, 0);
    }
    /* an expanded batch (stride 0 over a dim of size 4): one call */
    {
        spec s[4] = {tens(3, SZ(4, 2, 3), NULL, 0, 1, 0), tens(3, SZ(4, 3, 2), NULL, 0, 0, 1), none(), none()};
        compare("matmul expanded batch", OP_MATMUL, F_NEW, s, 0, 1, &c);
        CHECK_INT_EQ(c.calls, 1);
        CHECK_INT_EQ(c.copies, 0);
    }
    /* batch dims that do not flatten (2 x 3 batch, padded between the batch dims): a is copied, one call */
    {
        spec s[4] = {tens(4, SZ(2, 3, 2, 3), "0123", 0, 0, 0), tens(4, SZ(2, 3, 3, 2), NULL, 0, 0, 1), none(), none()};
        s[0].order = "1023"; /* dim 1 outermost: dim 0's stride 6, dim 1's 12: no single stride */
        compare("matmul unflattened a", OP_MATMUL, F_NEW, s, 0, 1, &c);
        CHECK_INT_EQ(c.calls, 1);
        CHECK_INT_EQ(c.products, 6);
        CHECK_INT_EQ(c.copies, 1);
    }
    /* an out whose batch dims do not flatten: a temporary, copied back */
    {
        spec s[4] = {tens(4, SZ(2, 3, 2, 3), NULL, 0, 0, 0), tens(4, SZ(2, 3, 3, 2), NULL, 0, 0, 1), none(),
                     tens(4, SZ(2, 3, 2, 2), "1023", 0, 0, 2)};
        s[3].nan = true;
        compare("matmul unflattened out", OP_MATMUL, F_OUT, s, 0, 1, &c);
        CHECK_INT_EQ(c.calls, 1);
        CHECK_INT_EQ(c.copies, 1); /* back into out only: beta 0 does not read the old result */
    }
    /* 1-d operands */
    const int64_t vk = 3;
    spec v = tens(1, SZ(vk), NULL, 0, 0, 0);
    spec shapes_b[] = {tens(1, SZ(vk), NULL, 0, 0, 1), tens(2, SZ(vk, 4), "10", 0, 0, 1), tens(3, SZ(2, vk, 4), NULL, 0, 0, 1)};
    spec shapes_a[] = {v, tens(2, SZ(4, vk), "10", 1, 0, 0), tens(3, SZ(2, 5, vk), "021", 0, 0, 0)};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            spec s[4] = {shapes_a[i], shapes_b[j], none(), none()};
            compare("matmul 1-d", OP_MATMUL, F_NEW, s, 0, 1, NULL);
        }
}

static void test_vector_products(void)
{
    for (int l = 0; l < NLAYOUTS; l++) {
        spec x = tens(1, SZ(4), NULL, l, 0, 0), y = tens(1, SZ(4), NULL, 0, 0, 1);
        x.flip = l == 4; /* backwards */
        spec s1[4] = {x, y, none(), none()};
        compare("dot", OP_DOT, F_NEW, s1, 0, 1, NULL);
        spec s2[4] = {mat(3, 4, l, 2), y, none(), none()};
        compare("mv", OP_MV, F_NEW, s2, 0, 1, NULL);
        spec s3[4] = {mat(3, 4, l, 2), x, tens(1, SZ(3), NULL, 1, 0, 3), tens(1, SZ(3), NULL, 2, 0, 1)};
        compare("addmv", OP_ADDMV, F_OUT, s3, 2, 3, NULL);
        spec s4[4] = {tens(1, SZ(3), NULL, 0, 0, 0), x, none(), mat(3, 4, l == 4 ? 6 : l % 4, 2)};
        s4[3].nan = true;
        compare("outer", OP_OUTER, F_OUT, s4, 0, 1, NULL);
        spec s5[4] = {tens(1, SZ(3), NULL, 0, 0, 0), x, mat(3, 4, l, 3), none()};
        compare("addr", OP_ADDR, F_NEW, s5, -2, 1, NULL);
    }
}

static void test_aliasing(void)
{
    /* out is a: read from a copy */
    spec s1[4] = {mat(3, 3, 0, 0), mat(3, 3, 1, 1), none(), mat(3, 3, 0, 0)};
    compare("out is a", OP_MM, F_OUT, s1, 0, 1, NULL);
    /* out overlaps b's memory in part */
    spec s2[4] = {mat(3, 3, 0, 0), mat(3, 3, 2, 1), none(), mat(3, 3, 0, 1)};
    s2[3].offset = 4;
    compare("out overlaps b", OP_MM, F_OUT, s2, 0, 1, NULL);
    /* addmm in place with a a view of the bias */
    spec s3[4] = {mat(3, 3, 1, 2), mat(3, 3, 0, 1), mat(3, 3, 0, 2), none()};
    compare("inplace, a is the bias transposed", OP_ADDMM, F_INPLACE, s3, 1, 2, NULL);
    /* baddbmm: out and bias the same memory with another layout */
    spec s4[4] = {tens(3, SZ(2, 2, 2), NULL, 0, 0, 0), tens(3, SZ(2, 2, 2), NULL, 0, 0, 1),
                  tens(3, SZ(2, 2, 2), NULL, 0, 0, 2), tens(3, SZ(2, 2, 2), "021", 0, 0, 2)};
    compare("bias and out share memory", OP_BADDBMM, F_OUT, s4, 3, 1, NULL);
}

static void test_errors(void)
{
    /* each shape error, with the CPU's status and message (compare checks both) */
    spec s[4];
    memcpy(s, (spec[4]){mat(2, 3, 0, 0), mat(4, 2, 0, 1), none(), none()}, sizeof s);
    CHECK_INT_EQ(compare("inner sizes", OP_MM, F_NEW, s, 0, 1, NULL), TH_ERR_SHAPE);
    memcpy(s, (spec[4]){tens(1, SZ(3), NULL, 0, 0, 0), mat(3, 2, 0, 1), none(), none()}, sizeof s);
    CHECK_INT_EQ(compare("mm of a vector", OP_MM, F_NEW, s, 0, 1, NULL), TH_ERR_SHAPE);
    memcpy(s, (spec[4]){tens(3, SZ(2, 2, 3), NULL, 0, 0, 0), tens(3, SZ(3, 3, 2), NULL, 0, 0, 1), none(), none()}, sizeof s);
    CHECK_INT_EQ(compare("bmm batch sizes", OP_BMM, F_NEW, s, 0, 1, NULL), TH_ERR_SHAPE);
    memcpy(s, (spec[4]){tens(3, SZ(2, 2, 3), NULL, 0, 0, 0), tens(3, SZ(3, 3, 2), NULL, 0, 0, 1), none(), none()}, sizeof s);
    CHECK_INT_EQ(compare("matmul batch broadcast", OP_MATMUL, F_NEW, s, 0, 1, NULL), TH_ERR_SHAPE);
    memcpy(s, (spec[4]){tens(0, SZ(0), NULL, 0, 0, 0), mat(3, 2, 0, 1), none(), none()}, sizeof s);
    CHECK_INT_EQ(compare("matmul of a 0-d", OP_MATMUL, F_NEW, s, 0, 1, NULL), TH_ERR_SHAPE);
    memcpy(s, (spec[4]){mat(2, 3, 0, 0), mat(3, 4, 0, 1), mat(3, 4, 0, 2), none()}, sizeof s);
    CHECK_INT_EQ(compare("bias does not broadcast", OP_ADDMM, F_NEW, s, 1, 1, NULL), TH_ERR_SHAPE);
    CHECK_INT_EQ(compare("bias does not broadcast, beta 0", OP_ADDMM, F_NEW, s, 0, 1, NULL), TH_ERR_SHAPE);
    memcpy(s, (spec[4]){mat(2, 3, 0, 0), mat(3, 4, 0, 1), none(), mat(4, 2, 0, 2)}, sizeof s);
    CHECK_INT_EQ(compare("out shape", OP_MM, F_OUT, s, 0, 1, NULL), TH_ERR_SHAPE);
    memcpy(s, (spec[4]){mat(2, 3, 0, 0), mat(3, 4, 0, 1), none(), mat(2, 4, 5, 2)}, sizeof s);
    CHECK_INT_EQ(compare("out overlaps itself", OP_MM, F_OUT, s, 0, 1, NULL), TH_ERR_INVALID);
    memcpy(s, (spec[4]){mat(2, 3, 0, 0), mat(3, 4, 0, 1), none(), none()}, sizeof s);
    CHECK_INT_EQ(compare("NULL out", OP_MM, F_OUT, s, 0, 1, NULL), TH_ERR_INVALID);
    memcpy(s, (spec[4]){none(), mat(3, 4, 0, 1), none(), none()}, sizeof s);
    CHECK_INT_EQ(compare("NULL a", OP_MM, F_NEW, s, 0, 1, NULL), TH_ERR_INVALID);
    memcpy(s, (spec[4]){mat(2, 3, 0, 0), mat(3, 4, 0, 1), none(), none()}, sizeof s);
    CHECK_INT_EQ(compare("NULL bias", OP_ADDMM, F_NEW, s, 1, 1, NULL), TH_ERR_INVALID);

    /* what the CPU does not have: the same run refuses what cuBLAS cannot do, naming the dtype */
    host_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    const double one = 1;
    th_i32_tensor *ia = th_i32_zeros(2, SZ(2, 2));
    CHECK_ERROR(th__cuda_mm_run(&host_ops, &ctx, "th_i32_mm_out", TH__CUDA_MM_MM, TH_I32, (th_tensor *)ia, NULL, false,
                                (th_tensor *)ia, (th_tensor *)ia, &one, &one, NULL) == TH_ERR_UNSUPPORTED,
                TH_ERR_UNSUPPORTED, "th_i32_mm_out", "matrix products of i32 tensors are not supported");
    CHECK_ERROR(th__cuda_mm_run(&host_ops, &ctx, "th_f64_mm_out", TH__CUDA_MM_MM, TH_F64, (th_tensor *)ia, NULL, false,
                                (th_tensor *)ia, (th_tensor *)ia, &one, &one, NULL) == TH_ERR_DTYPE,
                TH_ERR_DTYPE, "th_f64_mm_out", "A is i32, not f64");
    th_bool_tensor *ba = th_bool_zeros(2, SZ(2, 2));
    CHECK_ERROR(th__cuda_mm_run(&host_ops, &ctx, "th_bool_mm", TH__CUDA_MM_MM, TH_BOOL, NULL, NULL, false,
                                (th_tensor *)ba, (th_tensor *)ba, &one, &one, &(th_tensor *){NULL}) == TH_ERR_DTYPE,
                TH_ERR_DTYPE, "th_bool_mm", "no matrix product of bool");
    th_f64_tensor *fa = th_f64_zeros(2, SZ(2, 2));
    CHECK_ERROR(th__cuda_mm_run(&host_ops, &ctx, "th_f64_mm", (th__cuda_mm_kind)42, TH_F64, NULL, NULL, false,
                                (th_tensor *)fa, (th_tensor *)fa, &one, &one, &(th_tensor *){NULL}) == TH_ERR_INVALID,
                TH_ERR_INVALID, "th_f64_mm", "product kind 42");
    CHECK_ERROR(th__cuda_mm_run(&host_ops, &ctx, "th_f64_mm", TH__CUDA_MM_MM, TH_F64, NULL, NULL, false,
                                (th_tensor *)fa, (th_tensor *)fa, &one, NULL, &(th_tensor *){NULL}) == TH_ERR_INVALID,
                TH_ERR_INVALID, "th_f64_mm", "NULL alpha");
    /* a read-only out, as the CPU refuses it */
    th_f64_tensor *ro = th_f64_zeros(2, SZ(2, 2));
    th_storage_make_read_only(th_tensor_storage((th_tensor *)ro));
    CHECK_ERROR(th__cuda_mm_run(&host_ops, &ctx, "th_f64_mm_out", TH__CUDA_MM_MM, TH_F64, (th_tensor *)ro, NULL, false,
                                (th_tensor *)fa, (th_tensor *)fa, &one, &one, NULL) == TH_ERR_READ_ONLY,
                TH_ERR_READ_ONLY, "th_f64_mm_out", "read-only");
    CHECK_ERROR(th_f64_mm_out(ro, fa, fa) == TH_ERR_READ_ONLY, TH_ERR_READ_ONLY, "th_f64_mm_out", "read-only");
    th_f64_release(ro);
    th_f64_release(fa);
    th_bool_release(ba);
    th_i32_release(ia);

    /* failures on the way (no memory for a copy, a failed GEMM) come back, and nothing leaks (test_end) */
    for (int at = 1; at <= 3; at++) {
        host_ctx inj;
        memset(&inj, 0, sizeof inj);
        inj.fail_empty_at = at;
        spec t[4] = {mat(3, 4, 4, 0), mat(4, 2, 5, 1), none(), mat(3, 2, 6, 2)};
        world w;
        world_build(&w, t, 1);
        double beta = 1, alpha = 1;
        int st = th__cuda_mm_run(&host_ops, &inj, "th_f64_mm_out", TH__CUDA_MM_MM, TH_F64, w.t[3], NULL, false, w.t[0],
                                 w.t[1], &beta, &alpha, NULL);
        CHECK_INT_EQ(st, TH_ERR_NOMEM);
        CHECK(strstr(th_last_error(), "injected") != NULL);
        world_free(&w);
    }
    {
        host_ctx inj;
        memset(&inj, 0, sizeof inj);
        inj.fail_gemm_at = 2;
        spec t[4] = {tens(4, SZ(2, 1, 2, 3), NULL, 0, 0, 0), tens(4, SZ(1, 3, 3, 4), NULL, 0, 0, 1), none(), none()};
        world w;
        world_build(&w, t, 1);
        double beta = 0, alpha = 1;
        th_tensor *r = NULL;
        int st = th__cuda_mm_run(&host_ops, &inj, "th_f64_matmul", TH__CUDA_MM_MATMUL, TH_F64, NULL, NULL, false, w.t[0],
                                 w.t[1], &beta, &alpha, &r);
        CHECK_INT_EQ(st, TH_ERR_DEVICE);
        CHECK(r == NULL);
        CHECK_INT_EQ(inj.calls, 2);
        world_free(&w);
    }
}

/* Exact plan decisions for known layouts. */
static th__cuda_gemm_plan plan_of(op_id op, const spec *specs)
{
    world w;
    world_build(&w, specs, 0);
    th__cuda_mm_shape s;
    th__cuda_gemm_plan plan;
    memset(&plan, 0xff, sizeof plan);
    CHECK_INT_EQ(th__cuda_mm_shapes("plan_of", OPS[op].kind, w.t[0], w.t[1], NULL, &s), TH_OK);
    host_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    th_tensor *c = w.t[3] ? th_tensor_retain(w.t[3]) : host_empty(&ctx, "plan_of", TH_F64, s.rdim, s.rsizes);
    if (c) {
        th__cuda_mm_problem p;
        th__cuda_mm_problem_of(&s, w.t[0], w.t[1], c, &p);
        th__cuda_gemm_plan_make(&p, &plan);
        th_tensor_release(c);
    }
    world_free(&w);
    return plan;
}

static void test_plan_decisions(void)
{
    /* row-major C (2x4) = A (2x3) B (3x4): C^T = B^T A^T, both op N, ld the row lengths */
    th__cuda_gemm_plan p = plan_of(OP_MM, (spec[4]){mat(2, 3, 0, 0), mat(3, 4, 0, 1), none(), none()});
    CHECK(p.swap && !p.copy_a && !p.copy_b && !p.temp_c);
    CHECK(p.opa == TH__CUDA_OP_N && p.opb == TH__CUDA_OP_N);
    CHECK(p.m == 4 && p.n == 2 && p.k == 3 && p.lda == 4 && p.ldb == 3 && p.ldc == 4);
    CHECK(p.batch == 1 && p.calls == 1);
    /* a transposed view of a: op T on cuBLAS's B with ld = m */
    p = plan_of(OP_MM, (spec[4]){mat(2, 3, 1, 0), mat(3, 4, 0, 1), none(), none()});
    CHECK(p.swap && p.opa == TH__CUDA_OP_N && p.opb == TH__CUDA_OP_T && p.ldb == 2 && !p.copy_a);
    /* narrowed b (ld 4 + 3 = 7 > 4 columns) */
    p = plan_of(OP_MM, (spec[4]){mat(2, 3, 0, 0), mat(3, 4, 2, 1), none(), none()});
    CHECK(p.lda == 7 && p.opa == TH__CUDA_OP_N && !p.copy_b);
    /* a column-major out: no swap; a row-major a and b read as op T */
    p = plan_of(OP_MM, (spec[4]){mat(2, 3, 0, 0), mat(3, 4, 0, 1), none(), mat(2, 4, 1, 2)});
    CHECK(!p.swap && p.m == 2 && p.n == 4 && p.ldc == 2 && p.opa == TH__CUDA_OP_T && p.lda == 3 &&
          p.opb == TH__CUDA_OP_T && p.ldb == 4);
    /* rows backwards, rows repeated: copies; an out with rows backwards: a temporary */
    p = plan_of(OP_MM, (spec[4]){mat(2, 3, 4, 0), mat(3, 4, 5, 1), none(), mat(2, 4, 6, 2)});
    CHECK(p.copy_a && p.copy_b && p.temp_c);
    /* (1 x k) and (k x 1) views with odd strides need no copy */
    spec row = tens(2, SZ(1, 3), "10", 5, 0, 0), col = tens(2, SZ(3, 1), NULL, 4, 0, 1);
    p = plan_of(OP_MM, (spec[4]){row, col, none(), none()});
    CHECK(!p.copy_a && !p.copy_b && !p.temp_c && p.m == 1 && p.n == 1 && p.k == 3);
    /* strided batch: bmm of contiguous (5, 2, 3) @ (5, 3, 4) */
    p = plan_of(OP_BMM, (spec[4]){tens(3, SZ(5, 2, 3), NULL, 0, 0, 0), tens(3, SZ(5, 3, 4), NULL, 0, 0, 1), none(), none()});
    CHECK(p.batch == 5 && p.calls == 1 && p.stride_a == 12 && p.stride_b == 6 && p.stride_c == 8);
    /* matmul (2,1,2,3) @ (1,3,3,4): two calls of three, our a's stride 0 inside a call */
    p = plan_of(OP_MATMUL, (spec[4]){tens(4, SZ(2, 1, 2, 3), NULL, 0, 0, 0), tens(4, SZ(1, 3, 3, 4), NULL, 0, 0, 1), none(), none()});
    CHECK(p.calls == 2 && p.batch == 3 && p.outer == 1 && p.stride_b == 0 && p.stride_a == 12 && p.stride_c == 8);
    CHECK(p.ostride[0][0] == 6 && p.ostride[1][0] == 0 && p.ostride[2][0] == 24);
    int64_t oa, ob, oc;
    th__cuda_gemm_call_offsets(&p, 1, &oa, &ob, &oc);
    CHECK(oa == 6 && ob == 0 && oc == 24);
}

int main(void)
{
    test_begin();
    test_plan_decisions();
    test_mm_layouts();
    test_addmm();
    test_batched();
    test_vector_products();
    test_aliasing();
    test_errors();
    printf("%d scenarios compared with the CPU's products, %d mismatches\n", scenarios, mismatches);
    return test_end("cuda_blas_plan");
}
