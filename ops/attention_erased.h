/* ops/attention_erased.h: scaled_dot_product_attention, written once for f32, f64, f16 and bf16 (f16 and bf16
 * compute in float). ops/attention.h holds the typed front doors, which check the dtypes and call
 * th__sdpa_run here. Included twice by tensor.h: the options struct (public), and in the implementation the
 * definitions. docs/nn.md.
 *
 * The work: q, k, v (and a float mask) as contiguous copies in the compute type where they are not already
 * so; the batch dims broadcast by strides of 0, never copied. Each unit of work is one batch item's block of
 * TH__SDPA_BQ query rows, which goes over the keys in blocks of TH__SDPA_BK: the block's scores by one matrix
 * product (CBLAS sgemm/dgemm when built with TH_USE_CBLAS and th_linalg_blas() is on, else a loop), then the
 * online softmax (each row's running maximum and sum; the output rows rescaled when the maximum grows) and one
 * more product adding the block's weights times its values into the output rows. A thread holds two BQ x BK
 * buffers, so the L x S matrix is never made. Threads take consecutive units; each unit is computed alone, so
 * the result is the same bits for any thread count. */
#ifndef TH__DEFINING

/* The options of th_<sfx>_scaled_dot_product_attention; zero (or a NULL pointer) means the default. */
typedef struct th_sdpa_opts {
    double scale;   /* the scores' factor; 0: 1 / sqrt(E), E the last size of q; NaN or infinite is an error */
    bool is_causal; /* the upper-left causal mask: query i takes keys 0..i (torch's tril(ones(L, S))) */
} th_sdpa_opts;

#else

enum { TH__SDPA_BQ = 64, TH__SDPA_BK = 128 };

/* One call, as the threads see it. */
typedef struct th__sdpa_plan {
    int64_t nb, L, S, E, Ev;                    /* batch items (the broadcast batch dims' product), sizes */
    int nbd;                                    /* batch dims */
    int64_t bsize[TH_MAX_DIMS];                 /* the broadcast batch sizes */
    int64_t qbs[TH_MAX_DIMS], kbs[TH_MAX_DIMS], vbs[TH_MAX_DIMS], mbs[TH_MAX_DIMS]; /* batch strides, 0: broadcast */
    int64_t msl, mss;                           /* the mask's strides along L and S (0: broadcast) */
    const char *q, *k, *v, *m;                  /* contiguous, compute type; m NULL, bool or compute type */
    bool mask_bool, causal, f64;
    char *y;                                    /* the result, contiguous (nb, L, Ev), compute type */
    double scale;
    int64_t nqb;                                /* query blocks per batch item */
    _Atomic int failed;                         /* a thread could not get its buffers */
} th__sdpa_plan;

#if defined(__GNUC__) && !defined(__clang__)
#define TH__SDPA_HOT __attribute__((optimize("O3", "no-trapping-math")))
#else
#define TH__SDPA_HOT TH__HOT
#endif

#define TH__SDPA_T float
#define TH__SDPA_F(x) th__sdpa_f32_##x
#define TH__SDPA_GEMM cblas_sgemm
#define TH__SDPA_EXP th__vec_exp_f32
#include "attention_block.h"
#define TH__SDPA_T double
#define TH__SDPA_F(x) th__sdpa_f64_##x
#define TH__SDPA_GEMM cblas_dgemm
#define TH__SDPA_EXP th__vec_exp_f64
#include "attention_block.h"

/* Units begin..end-1 (threads' body for th__parallel_chunks). */
static void th__sdpa_units(void *ctx, int64_t begin, int64_t end)
{
    th__sdpa_plan *p = (th__sdpa_plan *)ctx;
    if (begin >= end) return;
    size_t es = p->f64 ? sizeof(double) : sizeof(float);
    char *buf = (char *)malloc((2 * (size_t)TH__SDPA_BQ * TH__SDPA_BK + 2 * (size_t)TH__SDPA_BQ) * es);
    if (!buf) {
        p->failed = 1;
        return;
    }
    for (int64_t u = begin; u < end; u++) {
        int64_t b = u / p->nqb, i0 = (u % p->nqb) * TH__SDPA_BQ;
        if (p->f64) {
            double *s = (double *)(void *)buf, *pr = s + TH__SDPA_BQ * TH__SDPA_BK, *mx = pr + TH__SDPA_BQ * TH__SDPA_BK;
            th__sdpa_f64_block(p, b, i0, s, pr, mx, mx + TH__SDPA_BQ);
        } else {
            float *s = (float *)(void *)buf, *pr = s + TH__SDPA_BQ * TH__SDPA_BK, *mx = pr + TH__SDPA_BQ * TH__SDPA_BK;
            th__sdpa_f32_block(p, b, i0, s, pr, mx, mx + TH__SDPA_BQ);
        }
    }
    free(buf);
}

/* t (a host tensor whose dtype the caller checked) as a contiguous tensor of dtype dt: t itself retained when
 * it is one and does not overlap out, else a copy. NULL on error. */
static th_tensor *th__sdpa_dense(const char *fn, th_dtype dt, const th_tensor *t, const th_tensor *out)
{
    if (t->dtype == dt && th_tensor_is_contiguous(t) && !(out && th__bytes_overlap(out, t)))
        return th_tensor_retain((th_tensor *)t);
    return th__convert_new(fn, dt, t);
}

/* A host tensor (device memory refused) whose view lies in its storage. */
static int th__sdpa_host(const char *fn, const char *name, const th_tensor *t)
{
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot touch", name,
                        (int)t->storage->device.type);
    return th__check_fits(fn, t);
}

/* Batch dim d of nbd (broadcast size bs) of t, whose last `tail` dims are not batch dims, as a stride in
 * elements of its contiguous copy (0 where t broadcasts). */
static void th__sdpa_batch_strides(const th_tensor *t, int tail, int nbd, int64_t *bst)
{
    int64_t span = 1;
    for (int d = t->ndim > tail ? t->ndim - tail : 0; d < t->ndim; d++) span *= t->sizes[d];
    for (int d = nbd - 1; d >= 0; d--) {
        int td = t->ndim - tail - (nbd - d);
        if (td < 0) {
            bst[d] = 0;
            continue;
        }
        bst[d] = t->sizes[td] == 1 ? 0 : span;
        span *= t->sizes[td];
    }
}

/* scaled_dot_product_attention of q (..., L, E), k (..., S, E), v (..., S, Ev) with mask (NULL, bool, or q's
 * dtype, broadcastable to (..., L, S)) into out (NULL: a new tensor) of (broadcast batch..., L, Ev). Returns the
 * result (out retained) or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__sdpa_run(const char *fn, th_tensor *out, const th_tensor *q,
                                                const th_tensor *k, const th_tensor *v, const th_tensor *mask,
                                                const th_sdpa_opts *o)
{
    if (!q || !k || !v) return th__fail(TH_ERR_INVALID, fn, "NULL %s", !q ? "q" : !k ? "k" : "v"), NULL;
    if (th__sdpa_host(fn, "q", q) || th__sdpa_host(fn, "k", k) || th__sdpa_host(fn, "v", v) ||
        (mask && th__sdpa_host(fn, "mask", mask)))
        return NULL;
    const th_tensor *qkv[3] = {q, k, v};
    static const char *const names[3] = {"q", "k", "v"};
    for (int i = 0; i < 3; i++)
        if (qkv[i]->ndim < 2) {
            char a[160];
            th__shape_string(qkv[i]->ndim, qkv[i]->sizes, a, sizeof a);
            return th__fail(TH_ERR_SHAPE, fn, "%s has shape %s (%d dims); it needs at least 2 (..., %s)", names[i], a,
                            qkv[i]->ndim, i == 0 ? "L, E" : i == 1 ? "S, E" : "S, Ev"),
                   NULL;
        }
    int64_t L = q->sizes[q->ndim - 2], E = q->sizes[q->ndim - 1], S = k->sizes[k->ndim - 2];
    int64_t Ev = v->sizes[v->ndim - 1];
    if (k->sizes[k->ndim - 1] != E)
        return th__fail(TH_ERR_SHAPE, fn, "k has %lld features (its last size); q has %lld",
                        (long long)k->sizes[k->ndim - 1], (long long)E),
               NULL;
    if (v->sizes[v->ndim - 2] != S)
        return th__fail(TH_ERR_SHAPE, fn, "v has %lld keys (its size -2); k has %lld", (long long)v->sizes[v->ndim - 2],
                        (long long)S),
               NULL;
    if (mask && mask->dtype != TH_BOOL && mask->dtype != q->dtype)
        return th__fail(TH_ERR_DTYPE, fn, "mask is %s; it must be bool or %s (q's dtype)", th_dtype_name(mask->dtype),
                        th_dtype_name(q->dtype)),
               NULL;
    bool causal = o && o->is_causal;
    if (causal && mask)
        return th__fail(TH_ERR_INVALID, fn, "a mask and is_causal together; give one (as PyTorch)"), NULL;
    double scale = o && o->scale != 0 ? o->scale : E > 0 ? 1.0 / sqrt((double)E) : INFINITY;
    if (o && o->scale != 0 && !isfinite(o->scale))
        return th__fail(TH_ERR_INVALID, fn, "scale is %g; it must be finite (0: 1 / sqrt(E))", o->scale), NULL;

    /* the batch dims: q's, k's, v's and the mask's beyond its last two, broadcast */
    th__sdpa_plan p;
    memset(&p, 0, sizeof p);
    int nbd = 0;
    const th_tensor *all[4] = {q, k, v, mask};
    int tails[4] = {2, 2, 2, 2};
    for (int i = 0; i < 4; i++)
        if (all[i] && all[i]->ndim - tails[i] > nbd) nbd = all[i]->ndim - tails[i];
    for (int d = 0; d < nbd; d++) p.bsize[d] = 1;
    for (int i = 0; i < 4; i++) {
        const th_tensor *t = all[i];
        if (!t) continue;
        for (int d = 0; d < t->ndim - 2; d++) {
            int bd = nbd - (t->ndim - 2) + d;
            int64_t have = t->sizes[d];
            if (have == p.bsize[bd] || have == 1) continue;
            if (p.bsize[bd] == 1) {
                p.bsize[bd] = have;
                continue;
            }
            char a[160];
            th__shape_string(t->ndim, t->sizes, a, sizeof a);
            return th__fail(TH_ERR_SHAPE, fn,
                            "%s has shape %s, whose batch size %lld in dim %d does not broadcast with %lld", i < 3 ? names[i] : "mask",
                            a, (long long)have, d, (long long)p.bsize[bd]),
                   NULL;
        }
    }
    if (mask)
        for (int j = 0; j < 2 && j < mask->ndim; j++) {
            int64_t have = mask->sizes[mask->ndim - 1 - j], want = j == 0 ? S : L;
            if (have != want && have != 1) {
                char a[160];
                th__shape_string(mask->ndim, mask->sizes, a, sizeof a);
                return th__fail(TH_ERR_SHAPE, fn, "mask has shape %s, which does not broadcast to the scores' (..., %lld, %lld)",
                                a, (long long)L, (long long)S),
                       NULL;
            }
        }
    int64_t rsizes[TH_MAX_DIMS];
    for (int d = 0; d < nbd; d++) rsizes[d] = p.bsize[d];
    rsizes[nbd] = L;
    rsizes[nbd + 1] = Ev;
    th_tensor *result = th__result(fn, out, q->dtype, nbd + 2, rsizes);
    if (!result) return NULL;
    if (th__numel(result) == 0) return result;

    p.f64 = q->dtype == TH_F64;
    th_dtype ct = p.f64 ? TH_F64 : TH_F32;
    th_tensor *qc = NULL, *kc = NULL, *vc = NULL, *mc = NULL, *tmp = NULL, *y = result;
    bool ok = false; /* set once every step went well */
    if (!(qc = th__sdpa_dense(fn, ct, q, out)) || !(kc = th__sdpa_dense(fn, ct, k, out)) ||
        !(vc = th__sdpa_dense(fn, ct, v, out)) ||
        (mask && !(mc = th__sdpa_dense(fn, mask->dtype == TH_BOOL ? TH_BOOL : ct, mask, out))))
        goto done;
    if (!(y = th__ct_staging(fn, result, ct, &tmp))) goto done;
    p.L = L;
    p.S = S;
    p.E = E;
    p.Ev = Ev;
    p.nbd = nbd;
    p.nb = 1;
    for (int d = 0; d < nbd; d++) p.nb *= p.bsize[d];
    th__sdpa_batch_strides(qc, 2, nbd, p.qbs);
    th__sdpa_batch_strides(kc, 2, nbd, p.kbs);
    th__sdpa_batch_strides(vc, 2, nbd, p.vbs);
    if (mc) {
        th__sdpa_batch_strides(mc, 2, nbd, p.mbs);
        int64_t ms = mc->ndim >= 1 ? mc->sizes[mc->ndim - 1] : 1, ml = mc->ndim >= 2 ? mc->sizes[mc->ndim - 2] : 1;
        p.mss = ms == 1 ? 0 : 1;
        p.msl = ml == 1 ? 0 : ms;
        p.m = (const char *)th_tensor_data(mc);
        p.mask_bool = mc->dtype == TH_BOOL;
    }
    p.q = (const char *)th_tensor_data(qc);
    p.k = (const char *)th_tensor_data(kc);
    p.v = (const char *)th_tensor_data(vc);
    p.y = (char *)th_tensor_data(y);
    p.scale = scale;
    p.causal = causal;
    if (S == 0) { /* no keys: the formula's empty product, zeros (as PyTorch) */
        memset(p.y, 0, (size_t)th__numel(y) * (p.f64 ? sizeof(double) : sizeof(float)));
    } else {
        p.nqb = (L + TH__SDPA_BQ - 1) / TH__SDPA_BQ;
        int64_t units = p.nb * p.nqb;
        int nthreads = th__threads_for(p.nb * L * S * (E + Ev + 8) / 8);
        if (nthreads > units) nthreads = (int)units;
        th__parallel_chunks(units, nthreads, th__sdpa_units, &p);
        if (p.failed) {
            th__fail(TH_ERR_NOMEM, fn, "out of memory for the score buffers");
            goto done;
        }
    }
    ok = true;
done:
    TH__RELEASE(qc, kc, vc, mc);
    return th__op_end(fn, ok, result, tmp);
}

#undef TH__SDPA_HOT

#endif /* TH__DEFINING */
