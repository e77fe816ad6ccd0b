/* tests/test_conv.c: conv1d, conv2d, conv3d, max_pool2d and avg_pool2d (ops/conv.h) for f32, f64, f16 and
 * bf16 against references computed here in double from the defining sums. The values are small integers (and
 * halves for the averages), so every dtype's result is exact and compared for equality; inputs, weights and
 * outs in four layouts; BLAS on and off; a hand-worked case each; every error. The peer check against
 * PyTorch is tests/numpy/conv_torch.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};

static uint32_t seed = 16;
static int64_t rnd_int(int64_t lo, int64_t hi) /* lo..hi */
{
    seed = seed * 1664525u + 1013904223u;
    return lo + (int64_t)((seed >> 8) % (uint32_t)(hi - lo + 1));
}

/* A tensor of shape sizes, dtype dt, over a fresh storage: layout 0 contiguous, 1 dims in reverse order, 2
 * every dim stepped by 2, 3 the last dim reversed. */
static th_tensor *view_new(th_dtype dt, int ndim, const int64_t *sizes, int layout)
{
    int64_t strides[TH_MAX_DIMS], span = 1, numel = 1;
    for (int d = 0; d < ndim; d++) numel *= sizes[d];
    if (layout == 1)
        for (int d = 0; d < ndim; d++) strides[d] = span, span *= sizes[d] > 0 ? sizes[d] : 1;
    else
        for (int d = ndim - 1; d >= 0; d--) strides[d] = span * (layout == 2 ? 2 : 1), span *= sizes[d] > 0 ? sizes[d] : 1;
    int64_t offset = 0;
    if (layout == 3 && ndim > 0 && sizes[ndim - 1] > 0) {
        offset = (sizes[ndim - 1] - 1) * strides[ndim - 1];
        strides[ndim - 1] = -strides[ndim - 1];
    }
    int64_t elems = (layout == 2 ? 2 : 1) * (numel > 0 ? numel : 1);
    th_storage *s = th_storage_new(elems * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *t = th_tensor_new_with_storage(dt, s, offset, ndim, sizes, strides);
    th_storage_release(s);
    return t;
}

static th_tensor *as_f64(const th_tensor *t)
{
    th_tensor *c = view_new(TH_F64, th_tensor_ndim(t), th_tensor_sizes(t), 0);
    th_tensor_copy(c, t);
    return c;
}

/* Integers lo..hi into t. */
static void fill_ints(th_tensor *t, int64_t lo, int64_t hi)
{
    th_tensor *c = view_new(TH_F64, th_tensor_ndim(t), th_tensor_sizes(t), 0);
    double *p = (double *)th_tensor_data(c);
    for (int64_t i = 0; i < th_tensor_numel(c); i++) p[i] = (double)rnd_int(lo, hi);
    th_tensor_copy(t, c);
    th_tensor_release(c);
}

/* Whether t (any dtype) equals the contiguous f64 ref exactly (NaN equal to NaN). */
static bool equals(const th_tensor *t, const double *ref, int64_t n)
{
    if (!t || th_tensor_numel(t) != n) return false;
    th_tensor *c = as_f64(t);
    const double *p = (const double *)th_tensor_data(c);
    bool ok = true;
    for (int64_t i = 0; i < n && ok; i++) ok = p[i] == ref[i] || (isnan(p[i]) && isnan(ref[i]));
    th_tensor_release(c);
    return ok;
}

/* ---- calls through the typed front doors of a dtype ---- */

#define CONV_CALL(sfx)                                                                                          \
    do {                                                                                                        \
        typedef th_##sfx##_tensor T;                                                                            \
        const T *tx = (const T *)x, *tw = (const T *)w, *tb = (const T *)b;                                     \
        T *to = (T *)out;                                                                                       \
        if (nsp == 1) {                                                                                         \
            if (to) *status = th_##sfx##_conv1d_out(to, tx, tw, tb, o);                                         \
            else r = (th_tensor *)th_##sfx##_conv1d(tx, tw, tb, o);                                             \
        } else if (nsp == 2) {                                                                                  \
            if (to) *status = th_##sfx##_conv2d_out(to, tx, tw, tb, o);                                         \
            else r = (th_tensor *)th_##sfx##_conv2d(tx, tw, tb, o);                                             \
        } else {                                                                                                \
            if (to) *status = th_##sfx##_conv3d_out(to, tx, tw, tb, o);                                         \
            else r = (th_tensor *)th_##sfx##_conv3d(tx, tw, tb, o);                                             \
        }                                                                                                       \
    } while (0)

static th_tensor *conv(int nsp, th_tensor *out, const th_tensor *x, const th_tensor *w, const th_tensor *b,
                       const th_conv_opts *o, int *status)
{
    th_tensor *r = NULL;
    switch (th_tensor_dtype(x)) {
    case TH_F32: CONV_CALL(f32); break;
    case TH_F64: CONV_CALL(f64); break;
    case TH_F16: CONV_CALL(f16); break;
    default: CONV_CALL(bf16);
    }
    return r;
}

#define POOL_CALL(sfx)                                                                                          \
    do {                                                                                                        \
        typedef th_##sfx##_tensor T;                                                                            \
        if (is_max) {                                                                                           \
            if (out) *status = th_##sfx##_max_pool2d_out((T *)out, (th_i64_tensor *)ixo, (const T *)x, k, o);   \
            else r = (th_tensor *)th_##sfx##_max_pool2d((const T *)x, k, o, (th_i64_tensor **)ix);             \
        } else {                                                                                                \
            if (out) *status = th_##sfx##_avg_pool2d_out((T *)out, (const T *)x, k, o);                         \
            else r = (th_tensor *)th_##sfx##_avg_pool2d((const T *)x, k, o);                                   \
        }                                                                                                       \
    } while (0)

static th_tensor *pool(bool is_max, th_tensor *out, th_tensor *ixo, th_tensor **ix, const th_tensor *x,
                       const int64_t *k, const th_pool_opts *o, int *status)
{
    th_tensor *r = NULL;
    switch (th_tensor_dtype(x)) {
    case TH_F32: POOL_CALL(f32); break;
    case TH_F64: POOL_CALL(f64); break;
    case TH_F16: POOL_CALL(f16); break;
    default: POOL_CALL(bf16);
    }
    return r;
}

/* ---- references in double, over contiguous f64 copies; 1d and 2d are 3d with leading size-1 dims ---- */

typedef struct geo {
    int nsp;
    int64_t n, c, o, g, in[3], k[3], out[3], s[3], p[3], d[3];
} geo;

static void ref_conv(const geo *q, const double *x, const double *w, const double *b, double *y)
{
    int64_t cg = q->c / q->g, og = q->o / q->g;
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t oc = 0; oc < q->o; oc++) {
            int64_t gi = oc / og;
            for (int64_t a = 0; a < q->out[0]; a++)
                for (int64_t bb = 0; bb < q->out[1]; bb++)
                    for (int64_t cc = 0; cc < q->out[2]; cc++) {
                        double s = b ? b[oc] : 0;
                        for (int64_t ic = 0; ic < cg; ic++)
                            for (int64_t ka = 0; ka < q->k[0]; ka++)
                                for (int64_t kb = 0; kb < q->k[1]; kb++)
                                    for (int64_t kc = 0; kc < q->k[2]; kc++) {
                                        int64_t ia = a * q->s[0] - q->p[0] + ka * q->d[0];
                                        int64_t ib = bb * q->s[1] - q->p[1] + kb * q->d[1];
                                        int64_t icc = cc * q->s[2] - q->p[2] + kc * q->d[2];
                                        if (ia < 0 || ia >= q->in[0] || ib < 0 || ib >= q->in[1] || icc < 0 ||
                                            icc >= q->in[2])
                                            continue;
                                        s += x[(((n * q->c + gi * cg + ic) * q->in[0] + ia) * q->in[1] + ib) * q->in[2] + icc] *
                                             w[(((oc * cg + ic) * q->k[0] + ka) * q->k[1] + kb) * q->k[2] + kc];
                                    }
                        *y++ = s;
                    }
        }
}

/* One random conv case of nsp dims in every dtype, layout and form, BLAS on and off. */
static void conv_case(int nsp, int iter)
{
    geo q = {.nsp = nsp};
    th_conv_opts o;
    memset(&o, 0, sizeof o);
    bool batched = iter % 3 != 0, use_bias = iter % 2 == 0;
    q.n = batched ? rnd_int(1, 3) : 1;
    q.g = rnd_int(1, 3);
    if (iter % 7 == 3) q.g = 4; /* depthwise below */
    int64_t cg = q.g == 4 ? 1 : rnd_int(1, 3);
    q.c = cg * q.g;
    q.o = q.g * (q.g == 4 ? 1 : rnd_int(1, 3));
    o.groups = q.g == 1 && iter % 2 ? 0 : q.g;
    for (int i = 0; i < 3; i++) {
        q.in[i] = q.k[i] = q.out[i] = q.s[i] = q.d[i] = 1;
        q.p[i] = 0;
    }
    for (int i = 3 - nsp; i < 3; i++) {
        int j = i - (3 - nsp);
        q.k[i] = rnd_int(1, nsp == 3 ? 2 : 3);
        q.s[i] = rnd_int(1, 3);
        q.d[i] = rnd_int(1, 2);
        q.p[i] = rnd_int(0, 2);
        q.in[i] = rnd_int(q.d[i] * (q.k[i] - 1) + 1, 9) - (iter % 5 == 0 ? 0 : 0);
        q.out[i] = (q.in[i] + 2 * q.p[i] - q.d[i] * (q.k[i] - 1) - 1) / q.s[i] + 1;
        o.stride[j] = q.s[i] == 1 && iter % 2 ? 0 : q.s[i];
        o.padding[j] = q.p[i];
        o.dilation[j] = q.d[i] == 1 && iter % 2 ? 0 : q.d[i];
    }
    int64_t xs[5], ws[5], ys[5];
    int xn = 0, wn = 0, yn = 0;
    if (batched) xs[xn++] = q.n, ys[yn++] = q.n;
    xs[xn++] = q.c;
    ys[yn++] = q.o;
    ws[wn++] = q.o;
    ws[wn++] = cg;
    for (int i = 3 - nsp; i < 3; i++) xs[xn++] = q.in[i], ws[wn++] = q.k[i], ys[yn++] = q.out[i];
    int64_t ny = 1;
    for (int i = 0; i < yn; i++) ny *= ys[i];
    th_tensor *x64 = view_new(TH_F64, xn, xs, 0), *w64 = view_new(TH_F64, wn, ws, 0), *b64 = view_new(TH_F64, 1, &q.o, 0);
    fill_ints(x64, -2, 2);
    fill_ints(w64, -2, 2);
    fill_ints(b64, -3, 3);
    double *ref = (double *)malloc((size_t)ny * sizeof(double));
    ref_conv(&q, (const double *)th_tensor_data(x64), (const double *)th_tensor_data(w64),
             use_bias ? (const double *)th_tensor_data(b64) : NULL, ref);
    for (int di = 0; di < 4; di++) {
        int layout = (iter + di) % 4;
        th_tensor *x = view_new(dtypes[di], xn, xs, layout), *w = view_new(dtypes[di], wn, ws, (layout + 1) % 4);
        th_tensor *b = use_bias ? view_new(dtypes[di], 1, &q.o, layout) : NULL;
        th_tensor_copy(x, x64);
        th_tensor_copy(w, w64);
        if (b) th_tensor_copy(b, b64);
        for (int blas = 0; blas < 2; blas++) {
            th_linalg_set_blas(blas == 0);
            int st = -99;
            bool defaults = q.g == 1;
            for (int i = 0; i < 3; i++) defaults = defaults && q.s[i] == 1 && q.p[i] == 0 && q.d[i] == 1;
            th_tensor *r = conv(nsp, NULL, x, w, b, defaults && iter % 2 ? NULL : &o, &st);
            CHECK(equals(r, ref, ny));
            if (!equals(r, ref, ny))
                fprintf(stderr, "  conv%dd case %d dtype %d blas %d layout %d\n", nsp, iter, di, blas == 0, layout);
            th_tensor_release(r);
            {
                th_tensor *out = view_new(dtypes[di], yn, ys, (layout + 2) % 4);
                CHECK_INT_EQ(conv(nsp, out, x, w, b, &o, &st), 0);
                CHECK_INT_EQ(st, TH_OK);
                CHECK(equals(out, ref, ny));
                th_tensor_release(out);
            }
        }
        th_linalg_set_blas(true);
        th_tensor_release(x);
        th_tensor_release(w);
        th_tensor_release(b);
    }
    free(ref);
    th_tensor_release(x64);
    th_tensor_release(w64);
    th_tensor_release(b64);
}

/* A hand-worked conv2d: a 3x3 input 1..9, a 2x2 kernel of ones, padding 1, stride 2: the corners' sums. */
static void conv_by_hand(void)
{
    th_f32_tensor *x = th_f32_empty(4, SZ(1, 1, 3, 3)), *w = th_f32_full(4, SZ(1, 1, 2, 2), 1.0f);
    th_f32_tensor *b = th_f32_full(1, SZ(1), 0.5f);
    for (int i = 0; i < 9; i++) th_f32_data(x)[i] = (float)(i + 1);
    th_conv_opts o = {.stride = {2, 2}, .padding = {1, 1}};
    th_f32_tensor *y = th_f32_conv2d(x, w, b, &o);
    /* windows at rows -1..0, 1..2 and cols -1..0, 1..2: {1}, {2,3}, {4,7}, {5,6,8,9} */
    CHECK(y && th_f32_ndim(y) == 4 && th_f32_size(y, 2) == 2 && th_f32_size(y, 3) == 2);
    if (y) {
        CHECK(th_f32_data(y)[0] == 1.5f && th_f32_data(y)[1] == 5.5f);
        CHECK(th_f32_data(y)[2] == 11.5f && th_f32_data(y)[3] == 28.5f);
    }
    /* depthwise: 2 channels, groups 2, each its own 1x1 weight */
    th_f32_tensor *x2 = th_f32_ones(3, SZ(2, 2, 2)), *w2 = th_f32_empty(4, SZ(2, 1, 1, 1));
    th_f32_data(w2)[0] = 3;
    th_f32_data(w2)[1] = -1;
    th_conv_opts dw = {.groups = 2};
    th_f32_tensor *y2 = th_f32_conv2d(x2, w2, NULL, &dw);
    CHECK(y2 && th_f32_ndim(y2) == 3 && th_f32_data(y2)[0] == 3 && th_f32_data(y2)[7] == -1);
    /* conv1d: [1 2 3 4] with [1 -1], dilation 2: x[i] - x[i+2] */
    th_f32_tensor *x1 = th_f32_empty(2, SZ(1, 4)), *w1 = th_f32_empty(3, SZ(1, 1, 2));
    for (int i = 0; i < 4; i++) th_f32_data(x1)[i] = (float)(i + 1);
    th_f32_data(w1)[0] = 1;
    th_f32_data(w1)[1] = -1;
    th_conv_opts d2 = {.dilation = {2}};
    th_f32_tensor *y1 = th_f32_conv1d(x1, w1, NULL, &d2);
    CHECK(y1 && th_f32_size(y1, 1) == 2 && th_f32_data(y1)[0] == -2 && th_f32_data(y1)[1] == -2);
    /* zero batch: an empty result */
    th_f32_tensor *x0 = th_f32_empty(4, SZ(0, 1, 3, 3));
    th_f32_tensor *y0 = th_f32_conv2d(x0, w, NULL, NULL);
    CHECK(y0 && th_f32_numel(y0) == 0 && th_f32_size(y0, 2) == 2);
    th_f32_release(x);
    th_f32_release(w);
    th_f32_release(b);
    th_f32_release(y);
    th_f32_release(x2);
    th_f32_release(w2);
    th_f32_release(y2);
    th_f32_release(x1);
    th_f32_release(w1);
    th_f32_release(y1);
    th_f32_release(x0);
    th_f32_release(y0);
}

/* ---- pooling ---- */

static void ref_pool(bool is_max, const geo *q, const double *x, double *y, double *ix)
{
    for (int64_t pl = 0; pl < q->n * q->c; pl++)
        for (int64_t oh = 0; oh < q->out[1]; oh++)
            for (int64_t ow = 0; ow < q->out[2]; ow++) {
                int64_t h0 = oh * q->s[1] - q->p[1], w0 = ow * q->s[2] - q->p[2];
                double best = -INFINITY, sum = 0;
                int64_t at = -1;
                for (int64_t kh = 0; kh < q->k[1]; kh++)
                    for (int64_t kw = 0; kw < q->k[2]; kw++) {
                        int64_t ih = h0 + kh * q->d[1], iw = w0 + kw * q->d[2];
                        if (ih < 0 || ih >= q->in[1] || iw < 0 || iw >= q->in[2]) continue;
                        double v = x[(pl * q->in[1] + ih) * q->in[2] + iw];
                        sum += v;
                        if (at < 0 || v > best) best = v, at = ih * q->in[2] + iw;
                    }
                *y++ = is_max ? best : sum / (double)(q->k[1] * q->k[2]);
                if (ix) *ix++ = (double)at;
            }
}

static void pool_case(bool is_max, int iter)
{
    geo q = {.nsp = 2};
    th_pool_opts o;
    memset(&o, 0, sizeof o);
    bool batched = iter % 3 != 0;
    q.n = batched ? rnd_int(1, 2) : 1;
    q.c = rnd_int(1, 3);
    for (int i = 1; i < 3; i++) {
        q.k[i] = rnd_int(1, 3);
        q.s[i] = iter % 2 ? q.k[i] : rnd_int(1, 3);
        q.d[i] = is_max ? rnd_int(1, 2) : 1;
        q.p[i] = rnd_int(0, q.k[i] / 2);
        q.in[i] = rnd_int(q.d[i] * (q.k[i] - 1) + 1, 8);
        q.out[i] = (q.in[i] + 2 * q.p[i] - q.d[i] * (q.k[i] - 1) - 1) / q.s[i] + 1;
        o.stride[i - 1] = iter % 2 ? 0 : q.s[i];
        o.padding[i - 1] = q.p[i];
        o.dilation[i - 1] = q.d[i] == 1 ? 0 : q.d[i];
    }
    int64_t xs[4], ys[4], k[2] = {q.k[1], q.k[2]};
    int xn = 0;
    if (batched) xs[xn] = q.n, ys[xn++] = q.n;
    xs[xn] = q.c, ys[xn++] = q.c;
    for (int i = 1; i < 3; i++) xs[xn] = q.in[i], ys[xn++] = q.out[i];
    int64_t ny = q.n * q.c * q.out[1] * q.out[2];
    th_tensor *x64 = view_new(TH_F64, xn, xs, 0);
    /* distinct values (a permutation) so the maximum's index is unique; even ones so averages of up to 9 are
     * exact in bf16 only when small: keep them within -8..8 scaled by 1/2 */
    {
        double *p = (double *)th_tensor_data(x64);
        int64_t nx = th_tensor_numel(x64);
        for (int64_t i = 0; i < nx; i++) p[i] = is_max ? (double)((i * 37) % 101) - 50 : (double)rnd_int(-8, 8) * 0.5;
    }
    double *ref = (double *)malloc((size_t)ny * sizeof(double)), *rix = (double *)malloc((size_t)ny * sizeof(double));
    ref_pool(is_max, &q, (const double *)th_tensor_data(x64), ref, rix);
    for (int di = 0; di < 4; di++) {
        int layout = (iter + di) % 4;
        th_tensor *x = view_new(dtypes[di], xn, xs, layout);
        th_tensor_copy(x, x64);
        th_tensor *xr = as_f64(x); /* the rounded values (bf16 rounds the max's values) */
        double *rr = (double *)malloc((size_t)ny * sizeof(double));
        ref_pool(is_max, &q, (const double *)th_tensor_data(xr), rr, NULL);
        /* the average in the dtype: the double reference rounded once */
        th_tensor *rt = view_new(dtypes[di], xn, ys, 0), *rd = view_new(TH_F64, xn, ys, 0);
        th_tensor *r32 = view_new(TH_F32, xn, ys, 0);
        memcpy(th_tensor_data(rd), rr, (size_t)ny * sizeof(double));
        th_tensor_copy(r32, rd); /* float first, as the library computes f16 and bf16 */
        th_tensor_copy(rt, dtypes[di] == TH_F64 ? rd : r32);
        th_tensor_release(r32);
        th_tensor *rt64 = as_f64(rt);
        const double *want = (const double *)th_tensor_data(rt64);
        int st = -99;
        th_tensor *ix = NULL;
        th_tensor *r = pool(is_max, NULL, NULL, is_max ? &ix : NULL, x, k, &o, &st);
        CHECK(equals(r, want, ny));
        if (is_max) CHECK(equals(ix, rix, ny));
        th_tensor *out = view_new(dtypes[di], xn, ys, (layout + 1) % 4);
        th_tensor *ixo = is_max ? view_new(TH_I64, xn, ys, layout) : NULL;
        CHECK_INT_EQ((pool(is_max, out, ixo, NULL, x, k, &o, &st), st), TH_OK);
        CHECK(equals(out, want, ny));
        if (is_max) CHECK(equals(ixo, rix, ny));
        th_tensor_release(r);
        th_tensor_release(ix);
        th_tensor_release(out);
        th_tensor_release(ixo);
        th_tensor_release(x);
        th_tensor_release(xr);
        th_tensor_release(rt);
        th_tensor_release(rd);
        th_tensor_release(rt64);
        free(rr);
    }
    free(ref);
    free(rix);
    th_tensor_release(x64);
}

static void pool_by_hand(void)
{
    /* 4x4 of 0..15, 2x2 windows: max 5 7 13 15 at those indices, average 2.5 4.5 10.5 12.5 */
    th_f32_tensor *x = th_f32_empty(3, SZ(1, 4, 4));
    for (int i = 0; i < 16; i++) th_f32_data(x)[i] = (float)i;
    th_i64_tensor *ix = NULL;
    th_f32_tensor *m = th_f32_max_pool2d(x, SZ(2, 2), NULL, &ix);
    th_f32_tensor *a = th_f32_avg_pool2d(x, SZ(2, 2), NULL);
    CHECK(m && ix && a);
    if (m && ix && a) {
        CHECK(th_f32_data(m)[0] == 5 && th_f32_data(m)[3] == 15 && th_i64_data(ix)[1] == 7 && th_i64_data(ix)[2] == 13);
        CHECK(th_f32_data(a)[0] == 2.5f && th_f32_data(a)[3] == 12.5f);
    }
    /* padding 1, kernel 2, stride 2 on 4x4: the corner window holds one value, divided by 4 (pad counted) */
    th_pool_opts po = {.padding = {1, 1}};
    th_f32_tensor *a2 = th_f32_avg_pool2d(x, SZ(2, 2), &po);
    CHECK(a2 && th_f32_size(a2, 1) == 3 && th_f32_data(a2)[0] == 0.0f && th_f32_data(a2)[8] == 15.0f / 4);
    /* NaN wins */
    th_f32_data(x)[4] = NAN;
    th_f32_tensor *mn = th_f32_max_pool2d(x, SZ(2, 2), NULL, NULL);
    CHECK(mn && isnan(th_f32_data(mn)[0]) && th_f32_data(mn)[1] == 7);
    th_f32_release(x);
    th_f32_release(m);
    th_i64_release(ix);
    th_f32_release(a);
    th_f32_release(a2);
    th_f32_release(mn);
}

/* ---- pad ---- */

/* Whether f32 t holds the n values want. */
static bool f32_is(const th_f32_tensor *t, const float *want, int64_t n)
{
    if (!t || th_f32_numel(t) != n) return false;
    for (int64_t i = 0; i < n; i++)
        if (th_f32_get(t, (int64_t[]){i / th_f32_size(t, -1), i % th_f32_size(t, -1)}) != want[i]) return false;
    return true;
}

static void pad_by_hand(void)
{
    /* [0 1 2 3] as a 1x4 row, then on a reversed view (values 3 2 1 0) */
    th_f32_tensor *x = th_f32_empty(2, SZ(1, 4));
    for (int i = 0; i < 4; i++) th_f32_data(x)[i] = (float)i;
    struct {
        th_pad_mode mode;
        int64_t l, r;
        int n;
        float want[9];
    } cases[] = {
        {TH_PAD_CONSTANT, 2, 1, 7, {9, 9, 0, 1, 2, 3, 9}},
        {TH_PAD_REFLECT, 2, 3, 9, {2, 1, 0, 1, 2, 3, 2, 1, 0}},
        {TH_PAD_REPLICATE, 2, 1, 7, {0, 0, 0, 1, 2, 3, 3}},
        {TH_PAD_CIRCULAR, 2, 3, 9, {2, 3, 0, 1, 2, 3, 0, 1, 2}},
        {TH_PAD_CONSTANT, -1, -2, 1, {1}},
        {TH_PAD_CIRCULAR, -1, 1, 4, {1, 2, 3, 1}},  /* crop first, then wrap in what is left */
        {TH_PAD_REFLECT, -1, 2, 5, {1, 2, 3, 2, 1}},
        {TH_PAD_REPLICATE, 1, -3, 2, {0, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        th_f32_tensor *y = th_f32_pad(x, 2, (int64_t[]){cases[c].l, cases[c].r}, cases[c].mode, 9.0);
        CHECK(f32_is(y, cases[c].want, cases[c].n));
        if (!f32_is(y, cases[c].want, cases[c].n)) fprintf(stderr, "  pad case %zu\n", c);
        /* every dtype and into a transposed out */
        for (int di = 0; di < 4; di++) {
            th_tensor *xd = view_new(dtypes[di], 2, SZ(1, 4), di), *od = view_new(dtypes[di], 2, SZ(1, cases[c].n), 1);
            th_tensor_copy(xd, (th_tensor *)x);
            double want[9];
            for (int i = 0; i < cases[c].n; i++) want[i] = cases[c].want[i];
            int st = -1;
            switch (dtypes[di]) {
            case TH_F32: st = th_f32_pad_out((th_f32_tensor *)od, (th_f32_tensor *)xd, 2, (int64_t[]){cases[c].l, cases[c].r}, cases[c].mode, 9.0); break;
            case TH_F64: st = th_f64_pad_out((th_f64_tensor *)od, (th_f64_tensor *)xd, 2, (int64_t[]){cases[c].l, cases[c].r}, cases[c].mode, 9.0); break;
            case TH_F16: st = th_f16_pad_out((th_f16_tensor *)od, (th_f16_tensor *)xd, 2, (int64_t[]){cases[c].l, cases[c].r}, cases[c].mode, 9.0); break;
            default: st = th_bf16_pad_out((th_bf16_tensor *)od, (th_bf16_tensor *)xd, 2, (int64_t[]){cases[c].l, cases[c].r}, cases[c].mode, 9.0);
            }
            CHECK_INT_EQ(st, TH_OK);
            CHECK(equals(od, want, cases[c].n));
            th_tensor_release(xd);
            th_tensor_release(od);
        }
        th_f32_release(y);
    }
    /* two dims, F.pad's order: (left, right, top, bottom); a 2x2 of 1 2 / 3 4 replicated */
    th_f32_tensor *s = th_f32_empty(2, SZ(2, 2));
    for (int i = 0; i < 4; i++) th_f32_data(s)[i] = (float)(i + 1);
    th_f32_tensor *y2 = th_f32_pad(s, 4, (int64_t[]){1, 0, 0, 1}, TH_PAD_REPLICATE, 0);
    const float want2[9] = {1, 1, 2, 3, 3, 4, 3, 3, 4};
    CHECK(f32_is(y2, want2, 9));
    /* pad in place of nothing: npad 0 is a copy */
    th_f32_tensor *y0 = th_f32_pad(s, 0, NULL, TH_PAD_REFLECT, 0);
    CHECK(f32_is(y0, (const float[]){1, 2, 3, 4}, 4));
    th_f32_release(x);
    th_f32_release(s);
    th_f32_release(y2);
    th_f32_release(y0);
}

/* ---- errors ---- */

static void errors(void)
{
    th_f32_tensor *x = th_f32_ones(4, SZ(1, 4, 5, 5)), *w = th_f32_ones(4, SZ(6, 2, 3, 3));
    th_f32_tensor *b = th_f32_ones(1, SZ(6));
    th_f64_tensor *x64 = th_f64_ones(4, SZ(1, 4, 5, 5));
    th_conv_opts g2 = {.groups = 2};
    th_f32_tensor *ok = th_f32_conv2d(x, w, b, &g2); /* the valid call the errors below vary */
    CHECK(ok != NULL);
    CHECK_NULL(th_f32_conv2d(NULL, w, b, &g2), TH_ERR_INVALID, "th_f32_conv2d", "NULL input");
    CHECK_NULL(th_f32_conv2d(x, NULL, b, &g2), TH_ERR_INVALID, "th_f32_conv2d", "NULL weight");
    CHECK_NULL(th_f32_conv2d((th_f32_tensor *)x64, w, b, &g2), TH_ERR_DTYPE, "th_f32_conv2d", "input");
    th_f32_tensor *x2 = th_f32_ones(2, SZ(5, 5));
    CHECK_NULL(th_f32_conv2d(x2, w, b, &g2), TH_ERR_SHAPE, "th_f32_conv2d", "input has shape (5, 5) (2 dims)");
    th_f32_tensor *w3 = th_f32_ones(3, SZ(6, 2, 3));
    CHECK_NULL(th_f32_conv2d(x, w3, b, &g2), TH_ERR_SHAPE, "th_f32_conv2d", "weight has shape (6, 2, 3) (3 dims)");
    th_conv_opts g3 = {.groups = 3};
    CHECK_NULL(th_f32_conv2d(x, w, b, &g3), TH_ERR_SHAPE, "th_f32_conv2d", "groups 3 does not divide the input's 4 channels");
    th_conv_opts g4 = {.groups = 4};
    CHECK_NULL(th_f32_conv2d(x, w, b, &g4), TH_ERR_SHAPE, "th_f32_conv2d",
               "groups 4 does not divide the weight's output's 6 channels");
    CHECK_NULL(th_f32_conv2d(x, w, b, NULL), TH_ERR_SHAPE, "th_f32_conv2d",
               "weight has 2 input channels per group; the input's 4 channels in 1 groups need 4");
    th_conv_opts gneg = {.groups = -1};
    CHECK_NULL(th_f32_conv2d(x, w, b, &gneg), TH_ERR_INVALID, "th_f32_conv2d", "groups is -1");
    th_f32_tensor *b5 = th_f32_ones(1, SZ(5));
    CHECK_NULL(th_f32_conv2d(x, w, b5, &g2), TH_ERR_SHAPE, "th_f32_conv2d", "bias has shape (5); the weight's 6 output channels");
    th_conv_opts sneg = {.stride = {1, -2}, .groups = 2};
    CHECK_NULL(th_f32_conv2d(x, w, b, &sneg), TH_ERR_INVALID, "th_f32_conv2d", "stride[1] is -2");
    th_conv_opts pneg = {.padding = {-1}, .groups = 2};
    CHECK_NULL(th_f32_conv2d(x, w, b, &pneg), TH_ERR_INVALID, "th_f32_conv2d", "padding[0] is -1");
    th_conv_opts dneg = {.dilation = {0, -3}, .groups = 2};
    CHECK_NULL(th_f32_conv2d(x, w, b, &dneg), TH_ERR_INVALID, "th_f32_conv2d", "dilation[1] is -3");
    th_conv_opts dbig = {.dilation = {3, 1}, .groups = 2};
    CHECK_NULL(th_f32_conv2d(x, w, b, &dbig), TH_ERR_SHAPE, "th_f32_conv2d",
               "the kernel (3, dilated to 7) is larger than the padded input (5 + 2 * 0 = 5) in spatial dim 0");
    th_f32_tensor *w0 = th_f32_ones(4, SZ(6, 2, 3, 0));
    CHECK_NULL(th_f32_conv2d(x, w0, b, &g2), TH_ERR_SHAPE, "th_f32_conv2d", "kernel size 0 in spatial dim 1");
    th_f32_tensor *outbad = th_f32_empty(4, SZ(1, 6, 3, 4));
    CHECK_FAILS(th_f32_conv2d_out(outbad, x, w, b, &g2), TH_ERR_SHAPE, "th_f32_conv2d_out", "");
    CHECK_FAILS(th_f32_conv2d_out(NULL, x, w, b, &g2), TH_ERR_INVALID, "th_f32_conv2d_out", "NULL out");
    th_f32_tensor *x1 = th_f32_ones(3, SZ(1, 4, 5));
    CHECK_NULL(th_f32_conv1d(x1, w, b, &g2), TH_ERR_SHAPE, "th_f32_conv1d", "weight has shape (6, 2, 3, 3) (4 dims); conv1d takes 3");
    CHECK_NULL(th_f32_conv3d(x1, w, b, &g2), TH_ERR_SHAPE, "th_f32_conv3d", "input has shape (1, 4, 5) (3 dims); conv3d takes 4");
    CHECK_FAILS(th_f32_conv1d_out(NULL, x1, w, b, NULL), TH_ERR_INVALID, "th_f32_conv1d_out", "NULL out");
    CHECK_FAILS(th_f32_conv3d_out(NULL, x1, w, b, NULL), TH_ERR_INVALID, "th_f32_conv3d_out", "NULL out");

    /* pooling */
    th_i64_tensor *ix = (th_i64_tensor *)(uintptr_t)1;
    CHECK_NULL(th_f32_max_pool2d(NULL, SZ(2, 2), NULL, &ix), TH_ERR_INVALID, "th_f32_max_pool2d", "NULL input");
    CHECK(ix == NULL);
    CHECK_NULL(th_f32_max_pool2d(x, NULL, NULL, NULL), TH_ERR_INVALID, "th_f32_max_pool2d", "NULL kernel");
    CHECK_NULL(th_f32_max_pool2d(x, SZ(2, 0), NULL, NULL), TH_ERR_INVALID, "th_f32_max_pool2d", "kernel[1] is 0");
    th_pool_opts pp = {.padding = {2, 0}};
    CHECK_NULL(th_f32_max_pool2d(x, SZ(3, 3), &pp, NULL), TH_ERR_INVALID, "th_f32_max_pool2d",
               "padding[0] is 2; it must be at most half the kernel (3)");
    th_pool_opts ps = {.stride = {0, -1}};
    CHECK_NULL(th_f32_avg_pool2d(x, SZ(3, 3), &ps), TH_ERR_INVALID, "th_f32_avg_pool2d", "stride[1] is -1");
    th_pool_opts pd = {.dilation = {2, 0}};
    CHECK_NULL(th_f32_avg_pool2d(x, SZ(3, 3), &pd), TH_ERR_INVALID, "th_f32_avg_pool2d", "dilation[0] is 2; avg_pool2d takes none");
    CHECK_NULL(th_f32_max_pool2d(x, SZ(6, 2), NULL, NULL), TH_ERR_SHAPE, "th_f32_max_pool2d",
               "the kernel (6, dilated to 6) is larger than the padded input (5 + 2 * 0 = 5) in spatial dim 0");
    CHECK_NULL(th_f32_avg_pool2d(x2, SZ(2, 2), NULL), TH_ERR_SHAPE, "th_f32_avg_pool2d", "avg_pool2d takes 3 (C, spatial) or 4");
    th_f32_tensor *pout = th_f32_empty(4, SZ(1, 4, 2, 2));
    th_i64_tensor *ibad = th_i64_empty(4, SZ(1, 4, 2, 3));
    CHECK_FAILS(th_f32_max_pool2d_out(pout, ibad, x, SZ(2, 2), NULL), TH_ERR_SHAPE, "th_f32_max_pool2d_out", "");
    CHECK_FAILS(th_f32_max_pool2d_out(NULL, NULL, x, SZ(2, 2), NULL), TH_ERR_INVALID, "th_f32_max_pool2d_out", "NULL out");
    CHECK_FAILS(th_f32_avg_pool2d_out(NULL, x, SZ(2, 2), NULL), TH_ERR_INVALID, "th_f32_avg_pool2d_out", "NULL out");
    CHECK_FAILS(th_f32_max_pool2d_out(pout, (th_i64_tensor *)pout, x, SZ(2, 2), NULL), TH_ERR_DTYPE,
                "th_f32_max_pool2d_out", "indices_out");

    /* pad */
    CHECK_NULL(th_f32_pad(NULL, 2, SZ(1, 1), TH_PAD_CONSTANT, 0), TH_ERR_INVALID, "th_f32_pad", "NULL x");
    CHECK_NULL(th_f32_pad(x, 3, SZ(1, 1, 1), TH_PAD_CONSTANT, 0), TH_ERR_INVALID, "th_f32_pad", "npad is 3");
    CHECK_NULL(th_f32_pad(x, 10, SZ(1, 1, 1, 1, 1, 1, 1, 1, 1, 1), TH_PAD_CONSTANT, 0), TH_ERR_INVALID, "th_f32_pad",
               "npad is 10; it must be even, >= 0 and at most twice x's 4 dims");
    CHECK_NULL(th_f32_pad(x, -2, SZ(1, 1), TH_PAD_CONSTANT, 0), TH_ERR_INVALID, "th_f32_pad", "npad is -2");
    CHECK_NULL(th_f32_pad(x, 2, NULL, TH_PAD_CONSTANT, 0), TH_ERR_INVALID, "th_f32_pad", "NULL pads");
    CHECK_NULL(th_f32_pad(x, 2, SZ(1, 1), (th_pad_mode)7, 0), TH_ERR_INVALID, "th_f32_pad", "mode 7 is no th_pad_mode");
    CHECK_NULL(th_f32_pad(x, 2, SZ(-3, -3), TH_PAD_CONSTANT, 0), TH_ERR_SHAPE, "th_f32_pad",
               "dim 3 of size 5 padded by -3 and -3 would have size -1");
    CHECK_NULL(th_f32_pad(x, 2, SZ(5, 0), TH_PAD_REFLECT, 0), TH_ERR_SHAPE, "th_f32_pad",
               "reflect padding 5 of dim 3 must be less than its size 5");
    CHECK_NULL(th_f32_pad(x, 4, SZ(0, 0, 6, 0), TH_PAD_CIRCULAR, 0), TH_ERR_SHAPE, "th_f32_pad",
               "circular padding 6 of dim 2 needs a size of at least 6; it is 5");
    CHECK_NULL(th_f32_pad(x, 2, SZ(-5, 1), TH_PAD_REPLICATE, 0), TH_ERR_SHAPE, "th_f32_pad",
               "replicate padding 1 of dim 3 needs a size of at least 1; it is 0");
    CHECK_FAILS(th_f32_pad_out(outbad, x, 2, SZ(1, 1), TH_PAD_CONSTANT, 0), TH_ERR_SHAPE, "th_f32_pad_out", "");
    CHECK_FAILS(th_f32_pad_out(NULL, x, 2, SZ(1, 1), TH_PAD_CONSTANT, 0), TH_ERR_INVALID, "th_f32_pad_out", "NULL out");

    th_f32_release(x);
    th_f32_release(w);
    th_f32_release(b);
    th_f64_release(x64);
    th_f32_release(ok);
    th_f32_release(x2);
    th_f32_release(w3);
    th_f32_release(b5);
    th_f32_release(w0);
    th_f32_release(outbad);
    th_f32_release(x1);
    th_f32_release(pout);
    th_i64_release(ibad);
}

int main(void)
{
    test_begin();
    conv_by_hand();
    for (int i = 0; i < 40; i++) conv_case(2, i);
    for (int i = 0; i < 20; i++) conv_case(1, i);
    for (int i = 0; i < 10; i++) conv_case(3, i);
    pool_by_hand();
    for (int i = 0; i < 30; i++) pool_case(true, i);
    for (int i = 0; i < 30; i++) pool_case(false, i);
    pad_by_hand();
    errors();
    return test_end("conv");
}
