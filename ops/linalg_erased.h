/* ops/linalg_erased.h: the dtype-independent half of linear algebra: checking the shapes of dot, mv,
 * mm, bmm, matmul and outer (and the bias of their add* forms), making the result, and describing the
 * product as a batch of strided matrix products that the per-dtype kernels in linalg.h run. Included twice
 * by tensor.h: declarations (none are public) and, in the implementation, the definitions. */
#ifndef TH__DEFINING

/* Whether this thread's f32, f64, c64 and c128 products go to CBLAS. Built with TH_USE_CBLAS they do unless
 * switched off here (to compare with, or test, the built-in kernel that every other dtype uses); without it
 * this is always false. Returns the previous setting. */
TH_API bool th_linalg_set_blas(bool enabled);
TH_API bool th_linalg_blas(void);

#else

#ifdef TH_USE_CBLAS
/* OpenBLAS's cblas.h would include <complex.h>, whose macros complex and I then break user code in this
 * translation unit (a variable named complex); its struct fallback declares the same functions. */
#ifndef FORCE_OPENBLAS_COMPLEX_STRUCT
#define FORCE_OPENBLAS_COMPLEX_STRUCT
#define TH__FORCED_OPENBLAS_STRUCT
#endif
#include <cblas.h>
#ifdef TH__FORCED_OPENBLAS_STRUCT
#undef FORCE_OPENBLAS_COMPLEX_STRUCT
#undef TH__FORCED_OPENBLAS_STRUCT
#endif
static _Thread_local bool th__linalg_blas_off;
TH_API bool th_linalg_set_blas(bool enabled)
{
    bool was = !th__linalg_blas_off;
    th__linalg_blas_off = !enabled;
    return was;
}
TH_API bool th_linalg_blas(void) { return !th__linalg_blas_off; }
#else
TH_API bool th_linalg_set_blas(bool enabled)
{
    (void)enabled;
    return false;
}
TH_API bool th_linalg_blas(void) { return false; }
#endif

/* x86-64 with gcc or clang: the built-in kernel's inner loop is compiled a second time for AVX2 and picked at
 * run time, so a build for the baseline instruction set (SSE2) still gets 256-bit vectors where the CPU has
 * them. TH_NO_AVX2 leaves it out. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(TH_NO_AVX2)
#define TH__MM_AVX2 1
TH__MAYBE_UNUSED static bool th__mm_have_avx2(void)
{
    static _Atomic int known; /* 0: not asked yet, 1: no, 2: yes */
    int k = atomic_load_explicit(&known, memory_order_relaxed);
    if (k == 0) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("avx2") ? 2 : 1;
        atomic_store_explicit(&known, k, memory_order_relaxed);
    }
    return k == 2;
}
#endif

/* Complex products are computed in pairs of doubles written out by hand: C's complex multiply calls a
 * library function to get infinities right, which would dominate the kernel. */
typedef struct th__mm_complex {
    double re, im;
} th__mm_complex;

/* C[batch] = A[batch] @ B[batch] over a batch of any number of dims, every operand with its own strides
 * (elements; 0 where an operand is broadcast, negative allowed). A is m x k, B is k x n, C is m x n. */
typedef struct th__mm_operand {
    char *data;                   /* element [0, ..., 0] */
    int64_t rs, cs;               /* row and column strides, elements */
    int64_t bstride[TH_MAX_DIMS]; /* per batch dim, elements */
} th__mm_operand;

typedef struct th__mm {
    int64_t m, n, k;
    int nb;                     /* batch dims */
    int64_t bsize[TH_MAX_DIMS]; /* their sizes */
    int64_t batch;              /* product of bsize */
    size_t es;                  /* element size, bytes */
    th__mm_operand c, a, b;
} th__mm;

/* Which function's rules the shapes follow. */
typedef enum th__mm_kind { TH__MM_DOT, TH__MM_MV, TH__MM_MM, TH__MM_BMM, TH__MM_MATMUL, TH__MM_OUTER } th__mm_kind;

/* What th__mm_prepare hands the kernel: the plan, the result (retained) and the inputs it reads (retained;
 * copies where they overlapped the result). */
typedef struct th__mm_job {
    th__mm plan;
    th_tensor *result, *a, *b;
} th__mm_job;

TH__MAYBE_UNUSED static void th__mm_job_release(th__mm_job *job)
{
    th_tensor_release(job->result);
    th_tensor_release(job->a);
    th_tensor_release(job->b);
    job->result = job->a = job->b = NULL;
}

/* The operands' first elements for batch entry index (row-major over bsize). a and b may be NULL (not
 * wanted: an empty operand's memory may be NULL, where no offset is defined). */
TH__MAYBE_UNUSED static void th__mm_batch_data(const th__mm *p, int64_t index, char **c, char **a, char **b)
{
    int64_t oc = 0, oa = 0, ob = 0;
    for (int d = p->nb - 1; d >= 0; d--) {
        int64_t i = index % p->bsize[d];
        index /= p->bsize[d];
        oc += i * p->c.bstride[d];
        oa += i * p->a.bstride[d];
        ob += i * p->b.bstride[d];
    }
    int64_t es = (int64_t)p->es;
    *c = p->c.data + oc * es;
    if (a) *a = p->a.data + oa * es;
    if (b) *b = p->b.data + ob * es;
}

TH__MAYBE_UNUSED static int th__mm_check_dtype(const char *fn, const char *name, const th_tensor *t, th_dtype dtype)
{
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL %s", name);
    if (t->dtype != dtype)
        return th__fail(TH_ERR_DTYPE, fn, "%s is %s, not %s", name, th_dtype_name(t->dtype), th_dtype_name(dtype));
    return TH_OK;
}

TH__MAYBE_UNUSED static int th__mm_check_input(const char *fn, const char *name, const th_tensor *t, th_dtype dtype)
{
    if (th__mm_check_dtype(fn, name, t, dtype)) return th_last_status();
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot touch", name,
                        (int)t->storage->device.type);
    return th__check_fits(fn, t);
}

/* Whether any operand of a product is device memory: the product is then its companion's
 * (th__mm_on_device). Operands not yet checked may be NULL. */
TH__MAYBE_UNUSED static bool th__mm_any_on_device(const th_tensor *out, const th_tensor *bias, const th_tensor *a,
                                                  const th_tensor *b)
{
    const th_tensor *ts[4] = {out, bias, a, b};
    for (int i = 0; i < 4; i++)
        if (ts[i] && !th_device_is_host(ts[i]->storage->device)) return true;
    return false;
}

/* A product with device operands, handed to the ops their companion registered once the host has checked
 * what it can without reading them: NULLs, dtypes, one device. The result (a new reference) goes to
 * *result; returns 0 or the status. */
TH__MAYBE_UNUSED static int th__mm_on_device(const char *fn, th__mm_kind kind, th_dtype dtype, th_tensor *out,
                                             const th_tensor *bias, bool has_bias, const th_tensor *a,
                                             const th_tensor *b, const void *beta, const void *alpha,
                                             th_tensor **result)
{
    static const char *const kinds[] = {[TH__MM_DOT] = "dot", [TH__MM_MV] = "mv", [TH__MM_MM] = "mm",
                                        [TH__MM_BMM] = "bmm", [TH__MM_MATMUL] = "matmul", [TH__MM_OUTER] = "outer"};
    if (th__mm_check_dtype(fn, "a", a, dtype) || th__mm_check_dtype(fn, "b", b, dtype) ||
        (has_bias && th__mm_check_dtype(fn, "bias", bias, dtype)) || (out && th__mm_check_dtype(fn, "out", out, dtype)))
        return th_last_status();
    const th_tensor *in[3] = {a, b, has_bias ? bias : NULL};
    th_device device = {0, 0};
    if (th__device_of_operands(fn, out, has_bias ? 3 : 2, in, &device)) return th_last_status();
    for (int i = 0; i < (has_bias ? 3 : 2); i++)
        if (th__check_fits(fn, in[i])) return th_last_status();
    if (out && (th__check_fits(fn, out) || th__check_writable(fn, out->storage))) return th_last_status();
    const th_device_ops *ops = th__device_ops_for(fn, device);
    if (!ops) return th_last_status();
    if (!ops->product)
        return th__fail(TH_ERR_UNSUPPORTED, fn, "the %s companion has no matrix products", ops->name ? ops->name : "?");
    const th_device_product call = {kinds[kind], dtype, a, b, has_bias ? bias : NULL, alpha, beta};
    th_tensor *r = ops->product(ops->ctx, fn, out, &call);
    if (!r) return th_last_status();
    if (result) *result = r;
    else th_tensor_release(r);
    return TH_OK;
}

TH__MAYBE_UNUSED static int th__mm_need_ndim(const char *fn, const char *name, const th_tensor *t, int ndim)
{
    if (t->ndim == ndim) return TH_OK;
    char s[160];
    th__shape_string(t->ndim, t->sizes, s, sizeof s);
    return th__fail(TH_ERR_SHAPE, fn, "%s must have %d dim%s; it has shape %s", name, ndim, ndim == 1 ? "" : "s", s);
}

/* An operand as a batch of matrices: t's sizes and strides with a size-1 dim inserted before its last dim
 * (a vector as a row) or after it (as a column), when asked. */
typedef struct th__mm_view {
    int ndim;
    int64_t sizes[TH_MAX_DIMS + 1], strides[TH_MAX_DIMS + 1];
} th__mm_view;

enum { TH__MM_AS_IS, TH__MM_AS_ROW, TH__MM_AS_COLUMN };

TH__MAYBE_UNUSED static void th__mm_view_of(const th_tensor *t, int how, th__mm_view *v)
{
    v->ndim = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (how == TH__MM_AS_ROW && d == t->ndim - 1) {
            v->sizes[v->ndim] = 1;
            v->strides[v->ndim++] = 0;
        }
        v->sizes[v->ndim] = t->sizes[d];
        v->strides[v->ndim++] = t->strides[d];
    }
    if (how == TH__MM_AS_COLUMN) {
        v->sizes[v->ndim] = 1;
        v->strides[v->ndim++] = 0;
    }
}

/* The shape checks, the result (out retained, or a new tensor), the bias copied into it when add_bias,
 * and the plan. bias (may be NULL for the plain forms) must broadcast to the result's shape; it is checked
 * whether or not it is added (add_bias is false when beta is 0: the bias is then not read, so NaN in it does
 * not reach the result). On error nothing is retained and the status is returned. */
TH__MAYBE_UNUSED static int th__mm_prepare(const char *fn, th__mm_kind kind, th_dtype dtype, th_tensor *out,
                                           const th_tensor *bias, bool has_bias, bool add_bias, const th_tensor *a,
                                           const th_tensor *b, th__mm_job *job)
{
    static const char *const names[][3] = {
        [TH__MM_DOT] = {"a", "b", "out"},       [TH__MM_MV] = {"A", "x", "y"},
        [TH__MM_MM] = {"A", "B", "C"},          [TH__MM_BMM] = {"A", "B", "C"},
        [TH__MM_MATMUL] = {"a", "b", "out"},    [TH__MM_OUTER] = {"x", "y", "A"},
    };
    const char *na = names[kind][0], *nbn = names[kind][1], *nc = names[kind][2];
    job->result = job->a = job->b = NULL;
    if (th__mm_check_input(fn, na, a, dtype) || th__mm_check_input(fn, nbn, b, dtype)) return th_last_status();
    if (has_bias && th__mm_check_input(fn, nc, bias, dtype)) return th_last_status();

    int how_a = TH__MM_AS_IS, how_b = TH__MM_AS_IS;
    switch (kind) {
    case TH__MM_DOT:
        if (th__mm_need_ndim(fn, na, a, 1) || th__mm_need_ndim(fn, nbn, b, 1)) return th_last_status();
        how_a = TH__MM_AS_ROW;
        how_b = TH__MM_AS_COLUMN;
        break;
    case TH__MM_MV:
        if (th__mm_need_ndim(fn, na, a, 2) || th__mm_need_ndim(fn, nbn, b, 1)) return th_last_status();
        how_b = TH__MM_AS_COLUMN;
        break;
    case TH__MM_MM:
        if (th__mm_need_ndim(fn, na, a, 2) || th__mm_need_ndim(fn, nbn, b, 2)) return th_last_status();
        break;
    case TH__MM_BMM:
        if (th__mm_need_ndim(fn, na, a, 3) || th__mm_need_ndim(fn, nbn, b, 3)) return th_last_status();
        break;
    case TH__MM_MATMUL:
        if (a->ndim == 0 || b->ndim == 0)
            return th__fail(TH_ERR_SHAPE, fn, "%s has %d dims and %s has %d: both need at least 1", na, a->ndim, nbn,
                            b->ndim);
        if (a->ndim == 1) how_a = TH__MM_AS_ROW;
        if (b->ndim == 1) how_b = TH__MM_AS_COLUMN;
        break;
    case TH__MM_OUTER:
        if (th__mm_need_ndim(fn, na, a, 1) || th__mm_need_ndim(fn, nbn, b, 1)) return th_last_status();
        break;
    }
    th__mm_view va, vb;
    th__mm_view_of(a, how_a, &va);
    th__mm_view_of(b, how_b, &vb);
    if (kind == TH__MM_OUTER) { /* x as a column (m x 1) times y as a row (1 x n) */
        th__mm_view_of(a, TH__MM_AS_COLUMN, &va);
        vb.ndim = 2;
        vb.sizes[0] = 1;
        vb.strides[0] = 0;
        vb.sizes[1] = b->sizes[0];
        vb.strides[1] = b->strides[0];
    }

    char sa[160], sb[160];
    int64_t k = va.sizes[va.ndim - 1];
    if (k != vb.sizes[vb.ndim - 2]) {
        th__shape_string(a->ndim, a->sizes, sa, sizeof sa);
        th__shape_string(b->ndim, b->sizes, sb, sizeof sb);
        return th__fail(TH_ERR_SHAPE, fn, "%s has shape %s and %s has shape %s: inner sizes %lld and %lld differ", na,
                        sa, nbn, sb, (long long)k, (long long)vb.sizes[vb.ndim - 2]);
    }

    /* Batch dims: NumPy broadcasting for matmul; bmm asks for equal batch sizes, as PyTorch's does. */
    int nba = va.ndim - 2, nbb = vb.ndim - 2, nb = nba > nbb ? nba : nbb;
    int64_t bsize[TH_MAX_DIMS];
    for (int d = 0; d < nb; d++) {
        int da = d - (nb - nba), db = d - (nb - nbb);
        int64_t x = da >= 0 ? va.sizes[da] : 1, y = db >= 0 ? vb.sizes[db] : 1;
        bool ok = kind == TH__MM_BMM ? x == y : (x == y || x == 1 || y == 1);
        if (!ok) {
            th__shape_string(a->ndim, a->sizes, sa, sizeof sa);
            th__shape_string(b->ndim, b->sizes, sb, sizeof sb);
            return th__fail(TH_ERR_SHAPE, fn, "the batch dims of %s %s and %s %s do not %s (%lld vs %lld)", na, sa, nbn,
                            sb, kind == TH__MM_BMM ? "match" : "broadcast", (long long)x, (long long)y);
        }
        bsize[d] = x == 1 ? y : x;
    }
    int64_t m = va.sizes[va.ndim - 2], n = vb.sizes[vb.ndim - 1];

    /* The result drops the row of a vector on the left and the column of a vector on the right. */
    int rdim = 0;
    int64_t rsizes[TH_MAX_DIMS];
    for (int d = 0; d < nb; d++) rsizes[rdim++] = bsize[d];
    bool keep_m = how_a != TH__MM_AS_ROW, keep_n = how_b != TH__MM_AS_COLUMN;
    if (keep_m) rsizes[rdim++] = m;
    if (keep_n) rsizes[rdim++] = n;

    if (has_bias) {
        bool fits = bias->ndim <= rdim;
        for (int d = 0; fits && d < bias->ndim; d++) {
            int64_t have = bias->sizes[bias->ndim - 1 - d], want = rsizes[rdim - 1 - d];
            fits = have == want || have == 1;
        }
        if (!fits) {
            th__shape_string(bias->ndim, bias->sizes, sa, sizeof sa);
            th__shape_string(rdim, rsizes, sb, sizeof sb);
            return th__fail(TH_ERR_SHAPE, fn, "%s has shape %s, which does not broadcast to the result's %s", nc, sa,
                            sb);
        }
    }

    th_tensor *result = th__result(fn, out, dtype, rdim, rsizes);
    if (!result) return th_last_status();
    job->result = result;
    /* An input overlapping the result at all is copied (an exact alias too: a product reads its inputs after it
     * has begun writing the result). */
    job->a = th__bytes_overlap(result, a) ? th__convert_new(fn, dtype, a) : th_tensor_retain((th_tensor *)a);
    job->b = th__bytes_overlap(result, b) ? th__convert_new(fn, dtype, b) : th_tensor_retain((th_tensor *)b);
    if (!job->a || !job->b) {
        th__mm_job_release(job);
        return th_last_status();
    }
    if (add_bias && bias != result && !th__same_layout(bias, result) && th__copy(fn, result, bias)) {
        th__mm_job_release(job);
        return th_last_status();
    }
    /* The views were taken of the inputs; a copy has the same shape, so only the strides change. */
    th__mm_view_of(job->a, how_a, &va);
    if (kind == TH__MM_OUTER) {
        th__mm_view_of(job->a, TH__MM_AS_COLUMN, &va);
        vb.strides[1] = job->b->strides[0];
    } else {
        th__mm_view_of(job->b, how_b, &vb);
    }

    th__mm *p = &job->plan;
    p->m = m;
    p->n = n;
    p->k = k;
    p->nb = nb;
    p->batch = 1;
    p->es = th__elsize(result);
    for (int d = 0; d < nb; d++) {
        p->bsize[d] = bsize[d];
        /* only an empty result (m or n 0, never run) can have batch sizes whose product overflows */
        if (__builtin_mul_overflow(p->batch, bsize[d], &p->batch)) p->batch = INT64_MAX;
        int da = d - (nb - nba), db = d - (nb - nbb);
        p->a.bstride[d] = da >= 0 && va.sizes[da] != 1 ? va.strides[da] : 0;
        p->b.bstride[d] = db >= 0 && vb.sizes[db] != 1 ? vb.strides[db] : 0;
        p->c.bstride[d] = result->strides[d];
    }
    p->a.data = (char *)th_tensor_data(job->a);
    p->a.rs = va.strides[va.ndim - 2];
    p->a.cs = va.strides[va.ndim - 1];
    p->b.data = (char *)th_tensor_data(job->b);
    p->b.rs = vb.strides[vb.ndim - 2];
    p->b.cs = vb.strides[vb.ndim - 1];
    p->c.data = (char *)th_tensor_data(result);
    p->c.rs = keep_m ? result->strides[nb] : 0;
    p->c.cs = keep_n ? result->strides[rdim - 1] : 0;
    return TH_OK;
}

/* BLAS's view of a rows x cols matrix with element strides rs, cs: row-major (trans false) or column-major
 * (trans true) with leading dimension ld, when one stride is 1 and the other covers the size; false when
 * BLAS cannot take it as it is. Strides of size-1 dims do not matter. */
TH__MAYBE_UNUSED static bool th__blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *trans,
                                             int64_t *ld)
{
    int64_t r = rows > 1 ? rows : 1, c = cols > 1 ? cols : 1;
    if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= c)) {
        *trans = false;
        *ld = rows <= 1 ? c : rs;
    } else if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= r)) {
        *trans = true;
        *ld = cols <= 1 ? r : cs;
    } else {
        return false;
    }
    return *ld <= INT_MAX;
}

#endif
