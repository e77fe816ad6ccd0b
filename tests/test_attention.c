/* tests/test_attention.c: scaled_dot_product_attention (ops/attention.h) for f32, f64, f16 and bf16 against a
 * reference computed here in double from the formula softmax(q k^T * scale + mask) v, the scores materialised
 * whole (which the library never does): batch dims that broadcast, L != S, E != Ev, bool and float masks of
 * broadcast shapes with -inf, causal with L < S and L > S, scales, inputs and outs in three layouts, sequences
 * longer than the blocks, empty sizes, fully masked rows (NaN, as the formula), the same bits for 1 and 2
 * threads, BLAS on and off, and every error. The peer check against PyTorch is tests/numpy/attention_torch.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};
static const double tols[4] = {2e-5, 1e-12, 6e-3, 5e-2}; /* absolute, for values of magnitude <= 2 */

static uint32_t seed = 1616;
static double rnd(void) /* [-1, 1) */
{
    seed = seed * 1664525u + 1013904223u;
    return (double)(seed >> 8) / (double)(1u << 23) - 1.0;
}

/* A tensor over a fresh storage: layout 0 contiguous, 1 its last two dims transposed in memory, 2 every dim
 * stepped by 2. */
static th_tensor *view_new(th_dtype dt, int ndim, const int64_t *sizes, int layout)
{
    int64_t strides[TH_MAX_DIMS], span = 1, step = layout == 2 ? 2 : 1;
    int order[TH_MAX_DIMS];
    for (int d = 0; d < ndim; d++) order[d] = d;
    if (layout == 1 && ndim >= 2) order[ndim - 2] = ndim - 1, order[ndim - 1] = ndim - 2;
    for (int i = ndim - 1; i >= 0; i--) {
        int d = order[i];
        strides[d] = span * step;
        span *= sizes[d] > 0 ? sizes[d] : 1;
    }
    th_storage *s = th_storage_new(step * span * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *t = th_tensor_new_with_storage(dt, s, 0, ndim, sizes, strides);
    th_storage_release(s);
    return t;
}

/* A random tensor of dtype dt in layout, values in [-lo_hi, lo_hi). */
static th_tensor *rand_new(th_dtype dt, int ndim, const int64_t *sizes, int layout, double amp)
{
    th_tensor *src = view_new(TH_F64, ndim, sizes, 0), *t = view_new(dt, ndim, sizes, layout);
    double *p = (double *)th_tensor_data(src);
    for (int64_t i = 0; i < th_tensor_numel(src); i++) p[i] = amp * rnd();
    CHECK_INT_EQ(th_tensor_copy(t, src), TH_OK);
    th_tensor_release(src);
    return t;
}

/* t's values as a contiguous f64 tensor expanded to (ndim, sizes). */
static th_tensor *f64_expanded(const th_tensor *t, int ndim, const int64_t *sizes)
{
    th_f64_tensor *c = th_f64_convert(t);
    th_f64_tensor *e = th_f64_expand(c, ndim, sizes);
    th_f64_tensor *r = th_f64_convert((th_tensor *)e);
    th_tensor_release((th_tensor *)c);
    th_tensor_release((th_tensor *)e);
    return (th_tensor *)r;
}

/* The reference: q (nb, L, E), k (nb, S, E), v (nb, S, Ev), mask NULL or (nb, L, S) (bool or f64, already
 * expanded), into ref (nb, L, Ev). */
static void reference(int64_t nb, int64_t L, int64_t S, int64_t E, int64_t Ev, const double *q, const double *k,
                      const double *v, const th_tensor *mask, bool causal, double scale, double *ref)
{
    double *w = (double *)malloc((size_t)(S > 0 ? S : 1) * sizeof(double));
    const bool *mb = mask && th_tensor_dtype(mask) == TH_BOOL ? (const bool *)th_tensor_data(mask) : NULL;
    const double *mf = mask && !mb ? (const double *)th_tensor_data(mask) : NULL;
    for (int64_t b = 0; b < nb; b++)
        for (int64_t i = 0; i < L; i++) {
            double mx = -INFINITY, sum = 0;
            for (int64_t j = 0; j < S; j++) {
                double s = 0;
                for (int64_t e = 0; e < E; e++) s += q[(b * L + i) * E + e] * k[(b * S + j) * E + e];
                s = E > 0 ? s * scale : 0;
                if (mb && !mb[(b * L + i) * S + j]) s = -INFINITY;
                if (mf) s += mf[(b * L + i) * S + j];
                if (causal && j > i) s = -INFINITY;
                w[j] = s;
                if (s > mx) mx = s;
            }
            for (int64_t j = 0; j < S; j++) sum += w[j] = exp(w[j] - mx);
            for (int64_t c = 0; c < Ev; c++) {
                double acc = 0;
                for (int64_t j = 0; j < S; j++) acc += w[j] / sum * v[(b * S + j) * Ev + c];
                ref[(b * L + i) * Ev + c] = S == 0 ? 0 : acc;
            }
        }
    free(w);
}

/* The worst |got - ref| over n values (got converted to f64); NaN must be where ref has NaN. */
static double worst(const th_tensor *got, const double *ref, int64_t n, int64_t *nan_mismatch)
{
    th_f64_tensor *g = th_f64_convert(got);
    const double *p = (const double *)th_tensor_data((th_tensor *)g);
    double w = 0;
    *nan_mismatch = 0;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(ref[i]) || isnan(p[i])) {
            *nan_mismatch += isnan(ref[i]) != isnan(p[i]);
            continue;
        }
        double d = fabs(p[i] - ref[i]);
        if (d > w) w = d;
    }
    th_tensor_release((th_tensor *)g);
    return w;
}

typedef struct tcase {
    int qn, kn, vn, mn;                 /* dims */
    int64_t qs[5], ks[5], vs[5], ms[5]; /* shapes */
    int mask;                           /* 0 none, 1 bool, 2 float, 3 float with -inf */
    bool causal;
    double scale;
} tcase;

/* The dtype-erased call of the typed function of t's dtype. */
static th_tensor *sdpa(th_tensor *out, const th_tensor *q, const th_tensor *k, const th_tensor *v,
                       const th_tensor *mask, const th_sdpa_opts *o, int *status)
{
    *status = TH_OK;
    switch (th_tensor_dtype(q)) {
#define ONE(sfx)                                                                                                  \
    if (out) {                                                                                                     \
        *status = th_##sfx##_scaled_dot_product_attention_out((th_##sfx##_tensor *)out, (const th_##sfx##_tensor *)q, \
                                                             (const th_##sfx##_tensor *)k,                         \
                                                             (const th_##sfx##_tensor *)v, mask, o);               \
        return *status ? NULL : out;                                                                               \
    }                                                                                                              \
    return (th_tensor *)th_##sfx##_scaled_dot_product_attention((const th_##sfx##_tensor *)q,                      \
                                                                (const th_##sfx##_tensor *)k,                      \
                                                                (const th_##sfx##_tensor *)v, mask, o);
    case TH_F32: ONE(f32)
    case TH_F64: ONE(f64)
    case TH_F16: ONE(f16)
    case TH_BF16: ONE(bf16)
    default: return NULL;
#undef ONE
    }
}

/* One case in dtype index di, inputs in layout, the result new (use_out false) or into an out of layout. */
static void run_case(const tcase *c, int di, int layout, bool use_out)
{
    th_dtype dt = dtypes[di];
    th_tensor *q = rand_new(dt, c->qn, c->qs, layout, 2), *k = rand_new(dt, c->kn, c->ks, (layout + 1) % 3, 2);
    th_tensor *v = rand_new(dt, c->vn, c->vs, layout, 2), *m = NULL;
    if (c->mask == 1) {
        m = view_new(TH_BOOL, c->mn, c->ms, layout);
        th_tensor *src = view_new(TH_F64, c->mn, c->ms, 0);
        double *p = (double *)th_tensor_data(src);
        for (int64_t i = 0; i < th_tensor_numel(src); i++) p[i] = rnd() > -0.4;
        CHECK_INT_EQ(th_tensor_copy(m, src), TH_OK);
        th_tensor_release(src);
    } else if (c->mask >= 2) {
        m = rand_new(dt, c->mn, c->ms, layout, 1);
        if (c->mask == 3) { /* a few -inf, and the first row all -inf when the mask has rows */
            th_tensor *src = f64_expanded(m, c->mn, c->ms);
            double *p = (double *)th_tensor_data(src);
            int64_t n = th_tensor_numel(src), S = c->ms[c->mn - 1];
            for (int64_t i = 0; i < n; i++)
                if (rnd() > 0.5 || (c->mn >= 2 && c->ms[c->mn - 2] > 1 && i < S)) p[i] = -INFINITY;
            CHECK_INT_EQ(th_tensor_copy(m, src), TH_OK);
            th_tensor_release(src);
        }
    }
    /* the broadcast shape */
    int nbd = 0;
    const int ns[4] = {c->qn, c->kn, c->vn, m ? c->mn : 0};
    const int64_t *ss[4] = {c->qs, c->ks, c->vs, c->ms};
    for (int i = 0; i < 4; i++)
        if (ns[i] - 2 > nbd) nbd = ns[i] - 2;
    int64_t bs[8], nb = 1;
    for (int d = 0; d < nbd; d++) bs[d] = 1;
    for (int i = 0; i < 4; i++)
        for (int d = 0; d < ns[i] - 2; d++) {
            int64_t s = ss[i][d];
            if (s != 1) bs[nbd - (ns[i] - 2) + d] = s;
        }
    for (int d = 0; d < nbd; d++) nb *= bs[d];
    int64_t L = c->qs[c->qn - 1 - 1], E = c->qs[c->qn - 1], S = c->ks[c->kn - 2], Ev = c->vs[c->vn - 1];
    int64_t full[8];
    memcpy(full, bs, sizeof bs);
    full[nbd] = L, full[nbd + 1] = E;
    th_tensor *qe = f64_expanded(q, nbd + 2, full);
    full[nbd] = S;
    th_tensor *ke = f64_expanded(k, nbd + 2, full);
    full[nbd + 1] = Ev;
    th_tensor *ve = f64_expanded(v, nbd + 2, full);
    full[nbd] = L, full[nbd + 1] = S;
    th_tensor *me = NULL;
    if (m && c->mask == 1) {
        th_bool_tensor *e = th_bool_expand((th_bool_tensor *)m, nbd + 2, full);
        me = (th_tensor *)th_bool_convert((th_tensor *)e);
        th_tensor_release((th_tensor *)e);
    } else if (m) {
        me = f64_expanded(m, nbd + 2, full);
    }
    double scale = c->scale != 0 ? c->scale : 1 / sqrt((double)E);
    double *ref = (double *)malloc((size_t)(nb * L * Ev + 1) * sizeof(double));
    reference(nb, L, S, E, Ev, (const double *)th_tensor_data(qe), (const double *)th_tensor_data(ke),
              (const double *)th_tensor_data(ve), me, c->causal, scale, ref);
    th_sdpa_opts o = {.scale = c->scale, .is_causal = c->causal};
    full[nbd] = L, full[nbd + 1] = Ev;
    th_tensor *out = use_out ? view_new(dt, nbd + 2, full, (layout + 2) % 3) : NULL;
    int status;
    th_tensor *got = sdpa(out, q, k, v, m, &o, &status);
    CHECK(got != NULL);
    if (got) {
        CHECK_INT_EQ(th_tensor_ndim(got), nbd + 2);
        for (int d = 0; d < nbd + 2 && d < th_tensor_ndim(got); d++) CHECK_INT_EQ(th_tensor_sizes(got)[d], full[d]);
        int64_t nanbad;
        double w = worst(got, ref, nb * L * Ev, &nanbad);
        CHECK_INT_EQ(nanbad, 0);
        if (!(w <= tols[di]))
            fprintf(stderr, "case L=%lld S=%lld E=%lld Ev=%lld mask %d causal %d dtype %s layout %d: worst %g\n",
                    (long long)L, (long long)S, (long long)E, (long long)Ev, c->mask, c->causal, th_dtype_name(dt),
                    layout, w);
        CHECK(w <= tols[di]);
        if (!use_out) th_tensor_release(got);
    } else {
        fprintf(stderr, "error: %s\n", th_last_error());
    }
    free(ref);
    th_tensor_release(out);
    th_tensor_release(q), th_tensor_release(k), th_tensor_release(v), th_tensor_release(m);
    th_tensor_release(qe), th_tensor_release(ke), th_tensor_release(ve), th_tensor_release(me);
}

static const tcase cases[] = {
    /* 2-d, L == S */
    {2, 2, 2, 0, {5, 4}, {5, 4}, {5, 4}, {0}, 0, false, 0},
    /* batch and heads, L != S, E != Ev */
    {4, 4, 4, 0, {2, 3, 7, 5}, {2, 3, 9, 5}, {2, 3, 9, 6}, {0}, 0, false, 0},
    /* batch dims broadcast: q (2, 1, L, E), k (3, S, E), v (1, S, Ev); a scale */
    {4, 3, 3, 0, {2, 1, 6, 3}, {3, 8, 3}, {1, 8, 4}, {0}, 0, false, 0.7},
    /* a negative scale */
    {3, 3, 3, 0, {2, 6, 3}, {2, 8, 3}, {2, 8, 4}, {0}, 0, false, -1.25},
    /* bool mask (L, S) broadcast over batch */
    {3, 3, 3, 2, {2, 6, 4}, {2, 7, 4}, {2, 7, 3}, {6, 7}, 1, false, 0},
    /* bool mask (B, 1, S): a key-padding mask */
    {3, 3, 3, 3, {2, 6, 4}, {2, 7, 4}, {2, 7, 3}, {2, 1, 7}, 1, false, 0},
    /* float mask (S) */
    {3, 3, 3, 1, {2, 5, 4}, {2, 7, 4}, {2, 7, 3}, {7}, 2, false, 0},
    /* 0-d masks: a bool (all keys or none) and a float (a shift of every score) */
    {3, 3, 3, 0, {2, 5, 4}, {2, 6, 4}, {2, 6, 3}, {0}, 1, false, 0},
    {3, 3, 3, 0, {2, 5, 4}, {2, 6, 4}, {2, 6, 3}, {0}, 2, false, 0},
    /* float mask with -inf, its first row all -inf (NaN), batch dims growing the result: (3, 1, L, S) */
    {3, 3, 3, 4, {2, 5, 4}, {2, 7, 4}, {2, 7, 3}, {3, 1, 5, 7}, 3, false, 0},
    /* causal, L < S and L > S and L == S */
    {3, 3, 3, 0, {2, 5, 4}, {2, 9, 4}, {2, 9, 3}, {0}, 0, true, 0},
    {3, 3, 3, 0, {2, 9, 4}, {2, 5, 4}, {2, 5, 3}, {0}, 0, true, 0},
    {2, 2, 2, 0, {8, 3}, {8, 3}, {8, 2}, {0}, 0, true, 0.5},
    /* across blocks: L = 150 (3 query blocks), S = 300 (3 key blocks), masks and causal */
    {3, 3, 3, 2, {2, 150, 8}, {2, 300, 8}, {2, 300, 5}, {150, 300}, 1, false, 0},
    {3, 3, 3, 2, {1, 150, 8}, {1, 300, 8}, {1, 300, 5}, {150, 300}, 3, false, 0},
    {3, 3, 3, 0, {1, 300, 8}, {1, 150, 8}, {1, 150, 5}, {0}, 0, true, 0},
    /* empty: L = 0, S = 0 (zeros), E = 0 (every score 0), Ev = 0, batch 0 */
    {3, 3, 3, 0, {2, 0, 4}, {2, 5, 4}, {2, 5, 3}, {0}, 0, false, 0},
    {3, 3, 3, 0, {2, 4, 4}, {2, 0, 4}, {2, 0, 3}, {0}, 0, false, 0},
    {3, 3, 3, 0, {2, 4, 0}, {2, 5, 0}, {2, 5, 3}, {0}, 0, false, 0},
    {3, 3, 3, 0, {2, 4, 3}, {2, 5, 3}, {2, 5, 0}, {0}, 0, true, 0},
    {3, 3, 3, 0, {0, 4, 3}, {1, 5, 3}, {1, 5, 2}, {0}, 0, false, 0},
};

/* A long sequence (L = S = 1030, across 17 query and 9 key blocks), f32 and f64 causal; the same bits
 * for 1 and 2 threads; BLAS on and off close. */
static void long_sequence(void)
{
    for (int di = 0; di < 2; di++) { /* f32 plain, f64 causal */
        tcase c = {3, 3, 3, 0, {1, 1030, 4}, {1, 1030, 4}, {1, 1030, 4}, {0}, 0, di == 1, 0};
        run_case(&c, di, di, false);
    }
    th_tensor *q = rand_new(TH_F32, 3, SZ(2, 200, 8), 1, 2), *k = rand_new(TH_F32, 3, SZ(2, 260, 8), 0, 2);
    th_tensor *v = rand_new(TH_F32, 3, SZ(2, 260, 8), 2, 2);
    th_sdpa_opts o = {.is_causal = true};
    int st;
    bool two = test_set_threads(2);
    th_tensor *a = sdpa(NULL, q, k, v, NULL, &o, &st);
    test_set_threads(1);
    th_tensor *b = sdpa(NULL, q, k, v, NULL, &o, &st);
    bool was = th_linalg_set_blas(false);
    th_tensor *c = sdpa(NULL, q, k, v, NULL, &o, &st);
    th_linalg_set_blas(was);
    CHECK(a && b && c);
    if (a && b && c) {
        const float *pa = (const float *)th_tensor_data(a), *pb = (const float *)th_tensor_data(b);
        const float *pc = (const float *)th_tensor_data(c);
        int64_t n = th_tensor_numel(a), same = 0, close = 0;
        for (int64_t i = 0; i < n; i++) {
            same += memcmp(&pa[i], &pb[i], sizeof(float)) == 0;
            close += fabsf(pa[i] - pc[i]) <= 1e-5f;
        }
        if (two) CHECK_INT_EQ(same, n);
        CHECK_INT_EQ(close, n);
    }
    th_tensor_release(a), th_tensor_release(b), th_tensor_release(c);
    th_tensor_release(q), th_tensor_release(k), th_tensor_release(v);
}

static void errors(void)
{
#define fn "th_f32_scaled_dot_product_attention"
#define fo "th_f32_scaled_dot_product_attention_out"
    th_f32_tensor *q = th_f32_zeros(3, SZ(2, 4, 3)), *k = th_f32_zeros(3, SZ(2, 5, 3)), *v = th_f32_zeros(3, SZ(2, 5, 6));
    th_f64_tensor *q64 = th_f64_zeros(3, SZ(2, 4, 3));
    th_f32_tensor *one = th_f32_zeros(1, SZ(3)), *k4 = th_f32_zeros(3, SZ(2, 5, 4)), *v7 = th_f32_zeros(3, SZ(2, 7, 6));
    th_f32_tensor *kb = th_f32_zeros(3, SZ(3, 5, 3)), *out = th_f32_zeros(3, SZ(2, 4, 6));
    th_f32_tensor *bad_out = th_f32_zeros(3, SZ(2, 4, 5));
    th_tensor *mask_i32 = (th_tensor *)th_i32_zeros(2, SZ(4, 5)), *mask_f64 = (th_tensor *)th_f64_zeros(2, SZ(4, 5));
    th_tensor *mask_bad = (th_tensor *)th_bool_zeros(2, SZ(4, 6)), *mask_badb = (th_tensor *)th_bool_zeros(3, SZ(3, 4, 5));
    th_tensor *mask_ok = (th_tensor *)th_bool_ones(2, SZ(4, 5));
    th_sdpa_opts causal = {.is_causal = true}, nan_scale = {.scale = NAN}, inf_scale = {.scale = -INFINITY};

    CHECK_NULL(th_f32_scaled_dot_product_attention(NULL, k, v, NULL, NULL), TH_ERR_INVALID, fn, "NULL q");
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, NULL, NULL, NULL), TH_ERR_INVALID, fn, "NULL v");
    /* wrong dtype in each tensor parameter */
    CHECK_NULL(th_f32_scaled_dot_product_attention((th_f32_tensor *)q64, k, v, NULL, NULL), TH_ERR_DTYPE, fn, "f64");
    CHECK_NULL(th_f64_scaled_dot_product_attention(q64, (th_f64_tensor *)k, (th_f64_tensor *)v, NULL, NULL),
               TH_ERR_DTYPE, "th_f64_scaled_dot_product_attention", "f32");
    CHECK_FAILS(th_f32_scaled_dot_product_attention_out((th_f32_tensor *)q64, q, k, v, NULL, NULL), TH_ERR_DTYPE, fo,
                "f64");
    CHECK_FAILS(th_f32_scaled_dot_product_attention_out(NULL, q, k, v, NULL, NULL), TH_ERR_INVALID, fo, "NULL out");
    /* rank < 2 */
    CHECK_NULL(th_f32_scaled_dot_product_attention(one, k, v, NULL, NULL), TH_ERR_SHAPE, fn, "q has shape (3)");
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, one, NULL, NULL), TH_ERR_SHAPE, fn, "v has shape (3)");
    /* mismatched E, mismatched S */
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k4, v, NULL, NULL), TH_ERR_SHAPE, fn, "k has 4 features");
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, v7, NULL, NULL), TH_ERR_SHAPE, fn, "v has 7 keys");
    /* batch dims that do not broadcast */
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, kb, v, NULL, NULL), TH_ERR_SHAPE, fn, "does not broadcast");
    /* masks: a dtype neither bool nor q's, a shape that does not broadcast (in L, S or the batch) */
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, v, mask_i32, NULL), TH_ERR_DTYPE, fn, "mask is i32");
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, v, mask_f64, NULL), TH_ERR_DTYPE, fn, "mask is f64");
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, v, mask_bad, NULL), TH_ERR_SHAPE, fn, "mask has shape (4, 6)");
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, v, mask_badb, NULL), TH_ERR_SHAPE, fn, "mask has shape (3, 4, 5)");
    /* a mask with is_causal; a NaN or infinite scale */
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, v, mask_ok, &causal), TH_ERR_INVALID, fn, "is_causal");
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, v, NULL, &nan_scale), TH_ERR_INVALID, fn, "scale is nan");
    CHECK_NULL(th_f32_scaled_dot_product_attention(q, k, v, NULL, &inf_scale), TH_ERR_INVALID, fn, "scale is -inf");
    /* an out of the wrong shape; read-only out */
    CHECK_FAILS(th_f32_scaled_dot_product_attention_out(bad_out, q, k, v, NULL, NULL), TH_ERR_SHAPE, fo, "out");
    th_storage_make_read_only(th_tensor_storage((th_tensor *)out));
    CHECK_FAILS(th_f32_scaled_dot_product_attention_out(out, q, k, v, NULL, NULL), TH_ERR_READ_ONLY, fo, "");
    /* the mask alone is fine */
    th_f32_tensor *r = th_f32_scaled_dot_product_attention(q, k, v, mask_ok, NULL);
    CHECK(r != NULL);
    th_tensor_release((th_tensor *)r);
    th_tensor *all[] = {(th_tensor *)q, (th_tensor *)k, (th_tensor *)v, (th_tensor *)q64, (th_tensor *)one,
                        (th_tensor *)k4, (th_tensor *)v7, (th_tensor *)kb, (th_tensor *)out, (th_tensor *)bad_out,
                        mask_i32, mask_f64, mask_bad, mask_badb, mask_ok};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) th_tensor_release(all[i]);
#undef fn
#undef fo
}

/* out overlapping an input: q used as out (same shape) gives the same values as a fresh result. */
static void aliasing(void)
{
    th_tensor *q = rand_new(TH_F64, 3, SZ(2, 70, 4), 0, 2), *k = rand_new(TH_F64, 3, SZ(2, 140, 4), 0, 2);
    th_tensor *v = rand_new(TH_F64, 3, SZ(2, 140, 4), 0, 2);
    int st;
    th_tensor *want = sdpa(NULL, q, k, v, NULL, NULL, &st);
    CHECK_INT_EQ(th_f64_scaled_dot_product_attention_out((th_f64_tensor *)v, (th_f64_tensor *)q, (th_f64_tensor *)k,
                                                         (th_f64_tensor *)v, NULL, NULL),
                 TH_ERR_SHAPE);
    CHECK_INT_EQ(th_f64_scaled_dot_product_attention_out((th_f64_tensor *)q, (th_f64_tensor *)q, (th_f64_tensor *)k,
                                                         (th_f64_tensor *)v, NULL, NULL),
                 TH_OK);
    CHECK(want && memcmp(th_tensor_data(want), th_tensor_data(q), 2 * 70 * 4 * sizeof(double)) == 0);
    th_tensor_release(want), th_tensor_release(q), th_tensor_release(k), th_tensor_release(v);
}

int main(void)
{
    test_begin();
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        bool big = cases[ci].qs[cases[ci].qn - 2] * cases[ci].ks[cases[ci].kn - 2] > 10000;
        for (int di = 0; di < 4; di++)
            for (int layout = 0; layout < 3; layout++) /* the big cases in one layout per dtype (valgrind's time) */
                if (!big || layout == (int)((ci + (size_t)di) % 3)) run_case(&cases[ci], di, layout, layout == 2);
    }
    long_sequence();
    aliasing();
    errors();
    return test_end("attention");
}
