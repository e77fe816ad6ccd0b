/* tests/test_conv_transpose.c: conv_transpose1d, conv_transpose2d, conv_transpose3d, im2col (F.unfold) and col2im (F.fold)
 * (ops/conv.h) for f32, f64, f16 and bf16 against references computed here in double from the defining sums
 * (the transposed convolution as each input element scattering its kernel-weighted copy into the output,
 * im2col as reads, col2im as the sums of those reads' places). The values are small integers, so every
 * dtype's result is exact and compared for equality; operands and outs in four layouts; BLAS on and off;
 * hand-worked cases; the shapes; every error. The peer check against PyTorch is
 * tests/numpy/conv_transpose_torch.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};

static uint32_t seed = 1616;
static int64_t rnd_int(int64_t lo, int64_t hi) /* lo..hi */
{
    seed = seed * 1664525u + 1013904223u;
    return lo + (int64_t)((seed >> 8) % (uint32_t)(hi - lo + 1));
}

/* A tensor over a fresh storage: layout 0 contiguous, 1 dims in reverse order, 2 every dim stepped by 2, 3 the
 * last dim reversed. */
static th_tensor *view_new(th_dtype dt, int ndim, const int64_t *sizes, int layout)
{
    int64_t strides[TH_MAX_DIMS], span = 1, offset = 0, step = layout == 2 ? 2 : 1;
    if (layout == 1)
        for (int d = 0; d < ndim; d++) strides[d] = span, span *= sizes[d] > 0 ? sizes[d] : 1;
    else
        for (int d = ndim - 1; d >= 0; d--) strides[d] = span * step, span *= sizes[d] > 0 ? sizes[d] : 1;
    if (layout == 3 && ndim > 0 && sizes[ndim - 1] > 0) {
        offset = (sizes[ndim - 1] - 1) * strides[ndim - 1];
        strides[ndim - 1] = -strides[ndim - 1];
    }
    th_storage *s = th_storage_new(step * span * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *t = th_tensor_new_with_storage(dt, s, offset, ndim, sizes, strides);
    th_storage_release(s);
    return t;
}

/* A contiguous f64 tensor of integers lo..hi. */
static th_tensor *ints_new(int ndim, const int64_t *sizes, int64_t lo, int64_t hi)
{
    th_tensor *t = view_new(TH_F64, ndim, sizes, 0);
    double *p = (double *)th_tensor_data(t);
    for (int64_t i = 0; i < th_tensor_numel(t); i++) p[i] = (double)rnd_int(lo, hi);
    return t;
}

/* Whether t (any dtype, shape sizes) equals the contiguous f64 ref exactly. */
static bool equals(const th_tensor *t, int ndim, const int64_t *sizes, const double *ref)
{
    if (!t || th_tensor_ndim(t) != ndim) return false;
    for (int d = 0; d < ndim; d++)
        if (th_tensor_sizes(t)[d] != sizes[d]) return false;
    th_tensor *c = view_new(TH_F64, ndim, sizes, 0);
    th_tensor_copy(c, t);
    const double *p = (const double *)th_tensor_data(c);
    bool ok = true;
    for (int64_t i = 0; i < th_tensor_numel(c) && ok; i++) ok = p[i] == ref[i];
    th_tensor_release(c);
    return ok;
}

/* ---- calls through the typed front doors: op 0 conv_transpose1d, 1 conv_transpose2d, 2 im2col, 3 col2im,
 * 4 conv_transpose3d ---- */

#define CT_CALL(sfx)                                                                                            \
    do {                                                                                                        \
        typedef th_##sfx##_tensor T;                                                                            \
        const T *tx = (const T *)x, *tw = (const T *)w, *tb = (const T *)b;                                     \
        T *to = (T *)out;                                                                                       \
        if (op == 0) {                                                                                          \
            if (to) *status = th_##sfx##_conv_transpose1d_out(to, tx, tw, tb, o);                               \
            else r = (th_tensor *)th_##sfx##_conv_transpose1d(tx, tw, tb, o);                                   \
        } else if (op == 1) {                                                                                   \
            if (to) *status = th_##sfx##_conv_transpose2d_out(to, tx, tw, tb, o);                               \
            else r = (th_tensor *)th_##sfx##_conv_transpose2d(tx, tw, tb, o);                                   \
        } else if (op == 4) {                                                                                   \
            if (to) *status = th_##sfx##_conv_transpose3d_out(to, tx, tw, tb, o);                               \
            else r = (th_tensor *)th_##sfx##_conv_transpose3d(tx, tw, tb, o);                                   \
        } else if (op == 2) {                                                                                   \
            if (to) *status = th_##sfx##_im2col_out(to, tx, k, o);                                              \
            else r = (th_tensor *)th_##sfx##_im2col(tx, k, o);                                                  \
        } else {                                                                                                \
            if (to) *status = th_##sfx##_col2im_out(to, tx, osz, k, o);                                         \
            else r = (th_tensor *)th_##sfx##_col2im(tx, osz, k, o);                                             \
        }                                                                                                       \
    } while (0)

static th_tensor *call(int op, th_tensor *out, const th_tensor *x, const th_tensor *w, const th_tensor *b,
                       const int64_t *osz, const int64_t *k, const th_conv_opts *o, int *status)
{
    th_tensor *r = NULL;
    switch (th_tensor_dtype(x)) {
    case TH_F32: CT_CALL(f32); break;
    case TH_F64: CT_CALL(f64); break;
    case TH_F16: CT_CALL(f16); break;
    default: CT_CALL(bf16);
    }
    return r;
}

/* ---- references in double over contiguous f64 data; the transposed convolution's over three spatial dims (1d
 * and 2d with leading size-1 dims), im2col's over two ---- */

/* One call's geometry: for the transposed convolution c input and o output channels, in and out its input
 * and output sizes; for im2col / col2im c channels, in the image's sizes and out the block grid. */
typedef struct geo {
    int64_t n, c, o, g, in[3], k[3], out[3], s[3], p[3], d[3], op[3];
} geo;

static void ref_convt(const geo *q, const double *x, const double *w, const double *b, double *y)
{
    int64_t cg = q->c / q->g, og = q->o / q->g, inl = q->in[0] * q->in[1] * q->in[2];
    int64_t kl = q->k[0] * q->k[1] * q->k[2], outl = q->out[0] * q->out[1] * q->out[2];
    memset(y, 0, (size_t)(q->n * q->o * outl) * sizeof(double));
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t ci = 0; ci < q->c; ci++)
            for (int64_t i = 0; i < inl; i++) {
                int64_t at[3] = {i / (q->in[1] * q->in[2]), i / q->in[2] % q->in[1], i % q->in[2]};
                double xv = x[(n * q->c + ci) * inl + i];
                int64_t gi = ci / cg;
                for (int64_t oc = 0; oc < og; oc++)
                    for (int64_t kk = 0; kk < kl; kk++) {
                        int64_t ka[3] = {kk / (q->k[1] * q->k[2]), kk / q->k[2] % q->k[1], kk % q->k[2]}, yi = 0;
                        bool inside = true;
                        for (int d = 0; d < 3; d++) {
                            int64_t v = at[d] * q->s[d] - q->p[d] + ka[d] * q->d[d];
                            inside = inside && v >= 0 && v < q->out[d];
                            yi = yi * q->out[d] + v;
                        }
                        if (inside) y[(n * q->o + gi * og + oc) * outl + yi] += xv * w[(ci * og + oc) * kl + kk];
                    }
            }
    if (b)
        for (int64_t n = 0; n < q->n; n++)
            for (int64_t oc = 0; oc < q->o; oc++)
                for (int64_t i = 0; i < outl; i++) y[(n * q->o + oc) * outl + i] += b[oc];
}

/* im2col (back false: col from img) or col2im (back: img += each col element at its place; img zeroed here). */
static void ref_cols(const geo *q, bool back, double *img, double *col)
{
    int64_t inl = q->in[0] * q->in[1], outl = q->out[0] * q->out[1], kl = q->k[0] * q->k[1];
    if (back) memset(img, 0, (size_t)(q->n * q->c * inl) * sizeof(double));
    for (int64_t n = 0; n < q->n; n++)
        for (int64_t c = 0; c < q->c; c++)
            for (int64_t ka = 0; ka < q->k[0]; ka++)
                for (int64_t kb = 0; kb < q->k[1]; kb++)
                    for (int64_t oa = 0; oa < q->out[0]; oa++)
                        for (int64_t ob = 0; ob < q->out[1]; ob++) {
                            int64_t ia = oa * q->s[0] - q->p[0] + ka * q->d[0], ib = ob * q->s[1] - q->p[1] + kb * q->d[1];
                            bool in = ia >= 0 && ia < q->in[0] && ib >= 0 && ib < q->in[1];
                            double *cv = col + ((n * q->c + c) * kl + ka * q->k[1] + kb) * outl + oa * q->out[1] + ob;
                            double *iv = img + (n * q->c + c) * inl + ia * q->in[1] + ib;
                            if (back && in) *iv += *cv;
                            if (!back) *cv = in ? *iv : 0;
                        }
}

/* Runs op on the f64 operands in every dtype and layout, new and into an out, BLAS on and off, against ref of
 * shape (yn, ys). */
static void run_all(int op, int iter, const th_tensor *x64, const th_tensor *w64, const th_tensor *b64,
                    const int64_t *osz, const int64_t *k, const th_conv_opts *o, int yn, const int64_t *ys,
                    const double *ref)
{
    for (int di = 0; di < 4; di++) {
        int layout = (iter + di) % 4;
        th_tensor *x = view_new(dtypes[di], th_tensor_ndim(x64), th_tensor_sizes(x64), layout);
        th_tensor *w = w64 ? view_new(dtypes[di], th_tensor_ndim(w64), th_tensor_sizes(w64), (layout + 1) % 4) : NULL;
        th_tensor *b = b64 ? view_new(dtypes[di], 1, th_tensor_sizes(b64), (layout + 2) % 4) : NULL;
        th_tensor_copy(x, x64);
        if (w) th_tensor_copy(w, w64);
        if (b) th_tensor_copy(b, b64);
        for (int blas = 0; blas < 2; blas++) {
            th_linalg_set_blas(blas == 0);
            int st = -99;
            th_tensor *r = call(op, NULL, x, w, b, osz, k, o, &st);
            bool same = equals(r, yn, ys, ref);
            CHECK(same);
            if (!same) fprintf(stderr, "  op %d case %d dtype %d blas %d layout %d: %s\n", op, iter, di, blas == 0, layout, r ? "differs" : th_last_error());
            th_tensor_release(r);
            th_tensor *out = view_new(dtypes[di], yn, ys, (layout + 3) % 4);
            CHECK(call(op, out, x, w, b, osz, k, o, &st) == NULL);
            CHECK_INT_EQ(st, TH_OK);
            CHECK(equals(out, yn, ys, ref));
            th_tensor_release(out);
        }
        th_linalg_set_blas(true);
        th_tensor_release(x);
        th_tensor_release(w);
        th_tensor_release(b);
    }
}

static int cases_run;

static void convt_case(int nsp, int iter)
{
    geo q;
    th_conv_opts o;
    memset(&q, 0, sizeof q);
    memset(&o, 0, sizeof o);
    bool batched = iter % 3 != 0, use_bias = iter % 2 == 0;
    q.n = batched ? rnd_int(1, 3) : 1;
    q.g = iter % 7 == 3 ? 3 : rnd_int(1, 3);
    int64_t cg = iter % 7 == 3 ? 1 : rnd_int(1, 3), og = iter % 7 == 3 ? 1 : rnd_int(1, 3);
    q.c = cg * q.g;
    q.o = og * q.g;
    o.groups = q.g == 1 && iter % 2 ? 0 : q.g;
    for (int i = 0; i < 3; i++) {
        q.in[i] = q.k[i] = q.out[i] = q.s[i] = q.d[i] = 1;
        if (i < 3 - nsp) continue;
        int j = i - (3 - nsp);
        q.k[i] = rnd_int(1, nsp == 3 ? 3 : 4);
        q.s[i] = rnd_int(1, 3);
        q.d[i] = rnd_int(1, 2);
        q.p[i] = rnd_int(0, 2);
        q.op[i] = rnd_int(0, (q.s[i] > q.d[i] ? q.s[i] : q.d[i]) - 1);
        q.in[i] = rnd_int(1, nsp == 3 ? 4 : 6);
        q.out[i] = (q.in[i] - 1) * q.s[i] - 2 * q.p[i] + q.d[i] * (q.k[i] - 1) + q.op[i] + 1;
        if (q.out[i] < 1) {
            q.p[i] = 0;
            q.out[i] = (q.in[i] - 1) * q.s[i] + q.d[i] * (q.k[i] - 1) + q.op[i] + 1;
        }
        o.stride[j] = q.s[i] == 1 && iter % 2 ? 0 : q.s[i];
        o.padding[j] = q.p[i];
        o.dilation[j] = q.d[i] == 1 && iter % 2 ? 0 : q.d[i];
        o.output_padding[j] = q.op[i];
    }
    int64_t xs[5], ws[5], ys[5];
    int xn = 0, wn = 0, yn = 0;
    if (batched) xs[xn++] = q.n, ys[yn++] = q.n;
    xs[xn++] = q.c;
    ys[yn++] = q.o;
    ws[wn++] = q.c;
    ws[wn++] = og;
    for (int i = 3 - nsp; i < 3; i++) xs[xn++] = q.in[i], ws[wn++] = q.k[i], ys[yn++] = q.out[i];
    th_tensor *x64 = ints_new(xn, xs, -2, 2), *w64 = ints_new(wn, ws, -2, 2), *b64 = ints_new(1, &q.o, -3, 3);
    double *ref = (double *)malloc((size_t)(q.n * q.o * q.out[0] * q.out[1] * q.out[2]) * sizeof(double));
    ref_convt(&q, (const double *)th_tensor_data(x64), (const double *)th_tensor_data(w64),
              use_bias ? (const double *)th_tensor_data(b64) : NULL, ref);
    run_all(nsp == 3 ? 4 : nsp - 1, iter, x64, w64, use_bias ? b64 : NULL, NULL, NULL, &o, yn, ys, ref);
    cases_run++;
    free(ref);
    th_tensor_release(x64);
    th_tensor_release(w64);
    th_tensor_release(b64);
}

/* im2col of a random image, and col2im of random columns back to one, on the same geometry. */
static void cols_case(int iter)
{
    geo q;
    th_conv_opts o;
    memset(&q, 0, sizeof q);
    memset(&o, 0, sizeof o);
    bool batched = iter % 3 != 0;
    q.n = batched ? rnd_int(1, 3) : 1;
    q.c = rnd_int(1, 3);
    for (int i = 0; i < 2; i++) {
        q.k[i] = rnd_int(1, 3);
        q.s[i] = rnd_int(1, 3);
        q.d[i] = rnd_int(1, 2);
        q.p[i] = rnd_int(0, 2);
        int64_t eff = q.d[i] * (q.k[i] - 1) + 1, lo = eff - 2 * q.p[i];
        q.in[i] = rnd_int(lo > 1 ? lo : 1, 8);
        q.out[i] = (q.in[i] + 2 * q.p[i] - eff) / q.s[i] + 1;
        o.stride[i] = q.s[i] == 1 && iter % 2 ? 0 : q.s[i];
        o.padding[i] = q.p[i];
        o.dilation[i] = q.d[i] == 1 && iter % 2 ? 0 : q.d[i];
    }
    o.groups = iter % 4 == 1;
    int64_t kl = q.k[0] * q.k[1], outl = q.out[0] * q.out[1];
    int64_t is[4], cs[3];
    int in_n = 0, cn = 0;
    if (batched) is[in_n++] = q.n, cs[cn++] = q.n;
    is[in_n++] = q.c;
    is[in_n++] = q.in[0];
    is[in_n++] = q.in[1];
    cs[cn++] = q.c * kl;
    cs[cn++] = outl;
    th_tensor *img = ints_new(in_n, is, -3, 3), *col = ints_new(cn, cs, -3, 3);
    double *rcol = (double *)malloc((size_t)(q.n * q.c * kl * outl) * sizeof(double));
    double *rimg = (double *)malloc((size_t)(q.n * q.c * q.in[0] * q.in[1]) * sizeof(double));
    ref_cols(&q, false, (double *)th_tensor_data(img), rcol);
    ref_cols(&q, true, rimg, (double *)th_tensor_data(col));
    run_all(2, iter, img, NULL, NULL, NULL, q.k, iter % 5 == 0 && !q.p[0] && !q.p[1] && q.s[0] * q.s[1] * q.d[0] * q.d[1] == 1 ? NULL : &o, cn, cs, rcol);
    run_all(3, iter, col, NULL, NULL, q.in, q.k, &o, in_n, is, rimg);
    cases_run += 2;
    free(rcol);
    free(rimg);
    th_tensor_release(img);
    th_tensor_release(col);
}

/* Worked by hand: conv_transpose1d of [1 2 3] with the kernel [1 10] at stride 2 interleaves the scaled copies;
 * output_padding adds a zero at the end, padding 1 crops one each side; im2col of a 3x3 image 1..9 with a 2x2
 * kernel; col2im of ones counts how many blocks cover each pixel. */
static void by_hand(void)
{
    th_f32_tensor *x = th_f32_empty(3, SZ(1, 1, 3)), *w = th_f32_empty(3, SZ(1, 1, 2));
    for (int i = 0; i < 3; i++) th_f32_data(x)[i] = (float)(i + 1);
    th_f32_data(w)[0] = 1, th_f32_data(w)[1] = 10;
    th_f32_tensor *y = th_f32_conv_transpose1d(x, w, NULL, &(th_conv_opts){.stride = {2}});
    CHECK(equals((th_tensor *)y, 3, SZ(1, 1, 6), (const double[]){1, 10, 2, 20, 3, 30}));
    th_f32_tensor *yp = th_f32_conv_transpose1d(x, w, NULL, &(th_conv_opts){.stride = {2}, .output_padding = {1}});
    CHECK(equals((th_tensor *)yp, 3, SZ(1, 1, 7), (const double[]){1, 10, 2, 20, 3, 30, 0}));
    th_f32_tensor *yc = th_f32_conv_transpose1d(x, w, NULL, &(th_conv_opts){.stride = {2}, .padding = {1}});
    CHECK(equals((th_tensor *)yc, 3, SZ(1, 1, 4), (const double[]){10, 2, 20, 3}));
    /* stride 1: the overlapping copies add up (a full 1d convolution) */
    th_f32_tensor *y1 = th_f32_conv_transpose1d(x, w, NULL, NULL);
    CHECK(equals((th_tensor *)y1, 3, SZ(1, 1, 4), (const double[]){1, 12, 23, 30}));

    th_f32_tensor *img = th_f32_empty(4, SZ(1, 1, 3, 3));
    for (int i = 0; i < 9; i++) th_f32_data(img)[i] = (float)(i + 1);
    th_f32_tensor *col = th_f32_im2col(img, SZ(2, 2), NULL);
    CHECK(equals((th_tensor *)col, 3, SZ(1, 4, 4),
                 (const double[]){1, 2, 4, 5, 2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9}));
    th_f32_tensor *ones = th_f32_ones(3, SZ(1, 4, 4));
    th_f32_tensor *cover = th_f32_col2im(ones, SZ(3, 3), SZ(2, 2), NULL);
    CHECK(equals((th_tensor *)cover, 4, SZ(1, 1, 3, 3), (const double[]){1, 2, 1, 2, 4, 2, 1, 2, 1}));
    /* padding 1, stride 2: the corners' blocks, zero outside */
    th_f32_tensor *colp = th_f32_im2col(img, SZ(2, 2), &(th_conv_opts){.stride = {2, 2}, .padding = {1, 1}});
    CHECK(equals((th_tensor *)colp, 3, SZ(1, 4, 4),
                 (const double[]){0, 0, 0, 5, 0, 0, 4, 6, 0, 2, 0, 8, 1, 3, 7, 9}));

    /* a decoder layer's shape: (2, 4, 5, 5) with a (4, 3, 4, 4) weight, stride 2, padding 1 doubles to 10x10 */
    th_f32_tensor *dx = th_f32_ones(4, SZ(2, 4, 5, 5)), *dw = th_f32_ones(4, SZ(4, 3, 4, 4));
    th_f32_tensor *dy = th_f32_conv_transpose2d(dx, dw, NULL, &(th_conv_opts){.stride = {2, 2}, .padding = {1, 1}});
    CHECK(dy && th_f32_ndim(dy) == 4 && th_f32_size(dy, 0) == 2 && th_f32_size(dy, 1) == 3 && th_f32_size(dy, 2) == 10 &&
          th_f32_size(dy, 3) == 10);
    /* an inner pixel is covered by 2 x 2 kernel taps of each of the 4 channels */
    CHECK(dy && th_f32_get(dy, SZ(1, 2, 4, 5)) == 16.0f);
    /* groups 2 and unbatched: (4, 5) with a (4, 2, 3) weight gives (4, 7) */
    th_f32_tensor *ux = th_f32_ones(2, SZ(4, 5)), *uw = th_f32_ones(3, SZ(4, 2, 3));
    th_f32_tensor *uy = th_f32_conv_transpose1d(ux, uw, NULL, &(th_conv_opts){.groups = 2});
    CHECK(uy && th_f32_ndim(uy) == 2 && th_f32_size(uy, 0) == 4 && th_f32_size(uy, 1) == 7 &&
          th_f32_get(uy, SZ(3, 3)) == 6.0f);
    /* conv's callers that never name output_padding keep working (it stays zero) */
    th_f32_tensor *k22 = th_f32_ones(4, SZ(1, 1, 2, 2)), *nx = th_f32_ones(4, SZ(0, 4, 5, 5));
    th_f32_tensor *cv = th_f32_conv2d(img, k22, NULL, &(th_conv_opts){.padding = {0, 0}});
    CHECK(cv && th_f32_get(cv, SZ(0, 0, 1, 1)) == 28.0f);
    th_f32_tensor *empty_n = th_f32_conv_transpose2d(nx, dw, NULL, NULL);
    CHECK(empty_n && th_f32_size(empty_n, 0) == 0 && th_f32_size(empty_n, 2) == 8);

    th_f32_release(x);
    th_f32_release(w);
    th_f32_release(y);
    th_f32_release(yp);
    th_f32_release(yc);
    th_f32_release(y1);
    th_f32_release(img);
    th_f32_release(col);
    th_f32_release(ones);
    th_f32_release(cover);
    th_f32_release(colp);
    th_f32_release(dx);
    th_f32_release(dw);
    th_f32_release(dy);
    th_f32_release(ux);
    th_f32_release(uw);
    th_f32_release(uy);
    th_f32_release(cv);
    th_f32_release(k22);
    th_f32_release(nx);
    th_f32_release(empty_n);
}

static void errors(void)
{
    th_f32_tensor *x = th_f32_ones(4, SZ(1, 4, 5, 5)), *w = th_f32_ones(4, SZ(4, 3, 3, 3));
    th_f32_tensor *b = th_f32_ones(1, SZ(6));
    th_f64_tensor *x64 = th_f64_ones(4, SZ(1, 4, 5, 5));
    th_conv_opts g2 = {.groups = 2};
    th_f32_tensor *ok = th_f32_conv_transpose2d(x, w, b, &g2); /* the valid call the errors below vary */
    CHECK(ok != NULL && th_f32_size(ok, 1) == 6 && th_f32_size(ok, 2) == 7);
#define f2 "th_f32_conv_transpose2d"
    CHECK_NULL(th_f32_conv_transpose2d(NULL, w, b, &g2), TH_ERR_INVALID, f2, "NULL input");
    CHECK_NULL(th_f32_conv_transpose2d(x, NULL, b, &g2), TH_ERR_INVALID, f2, "NULL weight");
    CHECK_NULL(th_f32_conv_transpose2d((th_f32_tensor *)x64, w, b, &g2), TH_ERR_DTYPE, f2, "input");
    th_f32_tensor *x2 = th_f32_ones(2, SZ(5, 5));
    CHECK_NULL(th_f32_conv_transpose2d(x2, w, b, &g2), TH_ERR_SHAPE, f2,
               "input has shape (5, 5) (2 dims); conv_transpose2d takes 3 (C, spatial) or 4");
    th_f32_tensor *w3 = th_f32_ones(3, SZ(4, 3, 3));
    CHECK_NULL(th_f32_conv_transpose2d(x, w3, b, &g2), TH_ERR_SHAPE, f2,
               "weight has shape (4, 3, 3) (3 dims); conv_transpose2d takes 4 (in channels, out channels / groups, kernel)");
    th_f32_tensor *w5 = th_f32_ones(4, SZ(5, 3, 3, 3));
    CHECK_NULL(th_f32_conv_transpose2d(x, w5, b, &g2), TH_ERR_SHAPE, f2,
               "weight has 5 input channels (dim 0); the input has 4");
    th_conv_opts g3 = {.groups = 3};
    CHECK_NULL(th_f32_conv_transpose2d(x, w, b, &g3), TH_ERR_SHAPE, f2, "groups 3 does not divide the input's 4 channels");
    th_conv_opts gneg = {.groups = -1};
    CHECK_NULL(th_f32_conv_transpose2d(x, w, b, &gneg), TH_ERR_INVALID, f2, "groups is -1");
    th_f32_tensor *b3 = th_f32_ones(1, SZ(3));
    CHECK_NULL(th_f32_conv_transpose2d(x, w, b3, &g2), TH_ERR_SHAPE, f2,
               "bias has shape (3); the weight's 3 x 2 groups output channels need (6)");
    th_conv_opts sneg = {.stride = {1, -2}, .groups = 2};
    CHECK_NULL(th_f32_conv_transpose2d(x, w, b, &sneg), TH_ERR_INVALID, f2, "stride[1] is -2");
    th_conv_opts pneg = {.padding = {-1}, .groups = 2};
    CHECK_NULL(th_f32_conv_transpose2d(x, w, b, &pneg), TH_ERR_INVALID, f2, "padding[0] is -1");
    th_conv_opts dneg = {.dilation = {0, -3}, .groups = 2};
    CHECK_NULL(th_f32_conv_transpose2d(x, w, b, &dneg), TH_ERR_INVALID, f2, "dilation[1] is -3");
    th_conv_opts opbig = {.stride = {2, 2}, .dilation = {1, 3}, .output_padding = {2, 0}, .groups = 2};
    CHECK_NULL(th_f32_conv_transpose2d(x, w, b, &opbig), TH_ERR_INVALID, f2,
               "output_padding[0] is 2; it must be >= 0 and smaller than the stride (2) or the dilation (1)");
    th_conv_opts opneg = {.output_padding = {0, -1}, .groups = 2};
    CHECK_NULL(th_f32_conv_transpose2d(x, w, b, &opneg), TH_ERR_INVALID, f2, "output_padding[1] is -1");
    th_conv_opts opdil = {.dilation = {1, 3}, .output_padding = {0, 2}, .groups = 2}; /* below the dilation: fine */
    th_f32_tensor *okd = th_f32_conv_transpose2d(x, w, b, &opdil);
    CHECK(okd && th_f32_size(okd, 3) == 5 + 6 + 2);
    th_conv_opts crop = {.padding = {4, 0}, .groups = 2};
    CHECK_NULL(th_f32_conv_transpose2d(x, w, b, &crop), TH_ERR_SHAPE, f2,
               "the output would have size -1 in spatial dim 0: (5 - 1) * stride 1 - 2 * padding 4 + dilation 1 * "
               "(kernel 3 - 1) + output_padding 0 + 1");
    th_f32_tensor *w0 = th_f32_ones(4, SZ(4, 3, 3, 0));
    CHECK_NULL(th_f32_conv_transpose2d(x, w0, b, &g2), TH_ERR_SHAPE, f2, "kernel size 0 in spatial dim 1");
    th_f32_tensor *outbad = th_f32_empty(4, SZ(1, 6, 7, 6));
    CHECK_FAILS(th_f32_conv_transpose2d_out(outbad, x, w, b, &g2), TH_ERR_SHAPE, "th_f32_conv_transpose2d_out", "");
    CHECK_FAILS(th_f32_conv_transpose2d_out(NULL, x, w, b, &g2), TH_ERR_INVALID, "th_f32_conv_transpose2d_out", "NULL out");
    CHECK_FAILS(th_f32_conv_transpose2d_out(outbad, x, (th_f32_tensor *)x64, b, &g2), TH_ERR_DTYPE,
                "th_f32_conv_transpose2d_out", "weight");
    th_f32_tensor *x1 = th_f32_ones(3, SZ(1, 4, 5));
    CHECK_NULL(th_f32_conv_transpose1d(x1, w, b, &g2), TH_ERR_SHAPE, "th_f32_conv_transpose1d",
               "weight has shape (4, 3, 3, 3) (4 dims); conv_transpose1d takes 3");
    CHECK_NULL(th_f32_conv_transpose1d(x, w, b, &g2), TH_ERR_SHAPE, "th_f32_conv_transpose1d",
               "input has shape (1, 4, 5, 5) (4 dims); conv_transpose1d takes 2 (C, spatial) or 3");
    CHECK_FAILS(th_f32_conv_transpose1d_out(NULL, x1, w, b, NULL), TH_ERR_INVALID, "th_f32_conv_transpose1d_out", "NULL out");
    /* output_padding belongs to the transposed forms: conv refuses one */
    th_f32_tensor *wc = th_f32_ones(4, SZ(2, 4, 3, 3));
    CHECK_NULL(th_f32_conv2d(x, wc, NULL, &(th_conv_opts){.output_padding = {0, 1}}),
               TH_ERR_INVALID, "th_f32_conv2d", "output_padding[1] is 1; only conv_transpose takes one (0)");

    /* im2col and col2im */
    CHECK_NULL(th_f32_im2col(NULL, SZ(2, 2), NULL), TH_ERR_INVALID, "th_f32_im2col", "NULL input");
    CHECK_NULL(th_f32_im2col(x, NULL, NULL), TH_ERR_INVALID, "th_f32_im2col", "NULL kernel");
    CHECK_NULL(th_f32_im2col((th_f32_tensor *)x64, SZ(2, 2), NULL), TH_ERR_DTYPE, "th_f32_im2col", "input");
    CHECK_NULL(th_f32_im2col(x2, SZ(2, 2), NULL), TH_ERR_SHAPE, "th_f32_im2col",
               "input has shape (5, 5) (2 dims); im2col takes 3 (C, spatial) or 4");
    CHECK_NULL(th_f32_im2col(x, SZ(2, 0), NULL), TH_ERR_SHAPE, "th_f32_im2col", "kernel size 0 in spatial dim 1");
    CHECK_NULL(th_f32_im2col(x, SZ(6, 2), NULL), TH_ERR_SHAPE, "th_f32_im2col",
               "the kernel (6, dilated to 6) is larger than the padded input (5 + 2 * 0 = 5) in spatial dim 0");
    CHECK_NULL(th_f32_im2col(x, SZ(2, 2), &g2), TH_ERR_INVALID, "th_f32_im2col", "groups is 2; im2col takes none (0 or 1)");
    CHECK_NULL(th_f32_im2col(x, SZ(2, 2), &(th_conv_opts){.output_padding = {1}}), TH_ERR_INVALID, "th_f32_im2col",
               "output_padding[0] is 1; only conv_transpose takes one");
    CHECK_NULL(th_f32_im2col(x, SZ(2, 2), &sneg), TH_ERR_INVALID, "th_f32_im2col", "groups is 2");
    CHECK_NULL(th_f32_im2col(x, SZ(2, 2), &(th_conv_opts){.stride = {-1}}), TH_ERR_INVALID, "th_f32_im2col", "stride[0] is -1");
    th_f32_tensor *cols = th_f32_ones(3, SZ(2, 8, 16)); /* 2 channels of 2x2 blocks at 4x4 places: a 5x5 image */
    th_f32_tensor *okf = th_f32_col2im(cols, SZ(5, 5), SZ(2, 2), NULL);
    CHECK(okf && th_f32_size(okf, 1) == 2 && th_f32_get(okf, SZ(1, 1, 2, 2)) == 4.0f);
    CHECK_NULL(th_f32_col2im(NULL, SZ(5, 5), SZ(2, 2), NULL), TH_ERR_INVALID, "th_f32_col2im", "NULL input");
    CHECK_NULL(th_f32_col2im(cols, NULL, SZ(2, 2), NULL), TH_ERR_INVALID, "th_f32_col2im", "NULL output_size");
    CHECK_NULL(th_f32_col2im(cols, SZ(5, 5), NULL, NULL), TH_ERR_INVALID, "th_f32_col2im", "NULL kernel");
    CHECK_NULL(th_f32_col2im(cols, SZ(5, 0), SZ(2, 2), NULL), TH_ERR_INVALID, "th_f32_col2im",
               "output_size[1] is 0; it must be >= 1");
    CHECK_NULL(th_f32_col2im(x, SZ(5, 5), SZ(2, 2), NULL), TH_ERR_SHAPE, "th_f32_col2im",
               "input has shape (1, 4, 5, 5) (4 dims); col2im takes 2 (C * kernel, L) or 3 (N, C * kernel, L)");
    CHECK_NULL(th_f32_col2im(cols, SZ(5, 5), SZ(3, 2), NULL), TH_ERR_SHAPE, "th_f32_col2im",
               "input has 8 rows (dim 1); a 3 x 2 kernel needs a multiple of 6");
    CHECK_NULL(th_f32_col2im(cols, SZ(6, 5), SZ(2, 2), NULL), TH_ERR_SHAPE, "th_f32_col2im",
               "input has 16 blocks (its last dim); output_size 6 x 5 with this kernel, stride, padding and dilation has 5 x 4 = 20");
    CHECK_NULL(th_f32_col2im(cols, SZ(5, 5), SZ(2, 2), &g2), TH_ERR_INVALID, "th_f32_col2im", "groups is 2; col2im takes none");
    CHECK_NULL(th_f32_col2im(cols, SZ(1, 5), SZ(2, 2), NULL), TH_ERR_SHAPE, "th_f32_col2im",
               "the kernel (2, dilated to 2) is larger than the padded input (1 + 2 * 0 = 1) in spatial dim 0");
    th_f32_tensor *fout = th_f32_empty(4, SZ(2, 2, 5, 4));
    CHECK_FAILS(th_f32_col2im_out(fout, cols, SZ(5, 5), SZ(2, 2), NULL), TH_ERR_SHAPE, "th_f32_col2im_out", "");
    CHECK_FAILS(th_f32_col2im_out(NULL, cols, SZ(5, 5), SZ(2, 2), NULL), TH_ERR_INVALID, "th_f32_col2im_out", "NULL out");
    CHECK_FAILS(th_f32_im2col_out(fout, x, SZ(2, 2), NULL), TH_ERR_SHAPE, "th_f32_im2col_out", "");
    CHECK_FAILS(th_f32_im2col_out(NULL, x, SZ(2, 2), NULL), TH_ERR_INVALID, "th_f32_im2col_out", "NULL out");
    CHECK_FAILS(th_f32_im2col_out(fout, (th_f32_tensor *)x64, SZ(2, 2), NULL), TH_ERR_DTYPE, "th_f32_im2col_out", "input");

    th_f32_release(x);
    th_f32_release(w);
    th_f32_release(b);
    th_f64_release(x64);
    th_f32_release(ok);
    th_f32_release(okd);
    th_f32_release(wc);
    th_f32_release(x2);
    th_f32_release(w3);
    th_f32_release(w5);
    th_f32_release(b3);
    th_f32_release(w0);
    th_f32_release(outbad);
    th_f32_release(x1);
    th_f32_release(cols);
    th_f32_release(okf);
    th_f32_release(fout);
#undef f2
}

/* conv_transpose3d's errors: the shared checks, seen with its name and 3-d shapes. */
static void errors_3d(void)
{
    th_f32_tensor *x = th_f32_ones(5, SZ(1, 4, 3, 4, 4)), *w = th_f32_ones(5, SZ(4, 3, 2, 2, 2));
    th_f32_tensor *b = th_f32_ones(1, SZ(6));
    th_f64_tensor *x64 = th_f64_ones(5, SZ(1, 4, 3, 4, 4));
    th_conv_opts g2 = {.groups = 2};
    th_f32_tensor *ok = th_f32_conv_transpose3d(x, w, b, &g2); /* the valid call the errors below vary */
    CHECK(ok != NULL && th_f32_size(ok, 1) == 6 && th_f32_size(ok, 2) == 4 && th_f32_size(ok, 4) == 5);
#define f3 "th_f32_conv_transpose3d"
    CHECK_NULL(th_f32_conv_transpose3d(NULL, w, b, &g2), TH_ERR_INVALID, f3, "NULL input");
    CHECK_NULL(th_f32_conv_transpose3d(x, NULL, b, &g2), TH_ERR_INVALID, f3, "NULL weight");
    CHECK_NULL(th_f32_conv_transpose3d((th_f32_tensor *)x64, w, b, &g2), TH_ERR_DTYPE, f3, "input");
    th_f32_tensor *x3 = th_f32_ones(3, SZ(4, 4, 4));
    CHECK_NULL(th_f32_conv_transpose3d(x3, w, b, &g2), TH_ERR_SHAPE, f3,
               "input has shape (4, 4, 4) (3 dims); conv_transpose3d takes 4 (C, spatial) or 5 (N, C, spatial)");
    th_f32_tensor *w4 = th_f32_ones(4, SZ(4, 3, 2, 2));
    CHECK_NULL(th_f32_conv_transpose3d(x, w4, b, &g2), TH_ERR_SHAPE, f3,
               "weight has shape (4, 3, 2, 2) (4 dims); conv_transpose3d takes 5 (in channels, out channels / groups, kernel)");
    th_f32_tensor *w5 = th_f32_ones(5, SZ(5, 3, 2, 2, 2));
    CHECK_NULL(th_f32_conv_transpose3d(x, w5, b, &g2), TH_ERR_SHAPE, f3, "weight has 5 input channels (dim 0); the input has 4");
    CHECK_NULL(th_f32_conv_transpose3d(x, w, b, &(th_conv_opts){.groups = 3}), TH_ERR_SHAPE, f3,
               "groups 3 does not divide the input's 4 channels");
    th_f32_tensor *b4 = th_f32_ones(1, SZ(4));
    CHECK_NULL(th_f32_conv_transpose3d(x, w, b4, &g2), TH_ERR_SHAPE, f3,
               "bias has shape (4); the weight's 3 x 2 groups output channels need (6)");
    CHECK_NULL(th_f32_conv_transpose3d(x, w, b, &(th_conv_opts){.stride = {1, 1, 2}, .output_padding = {0, 0, 2}, .groups = 2}),
               TH_ERR_INVALID, f3, "output_padding[2] is 2; it must be >= 0 and smaller than the stride (2) or the dilation (1)");
    CHECK_NULL(th_f32_conv_transpose3d(x, w, b, &(th_conv_opts){.stride = {2}, .dilation = {3}, .output_padding = {3}, .groups = 2}),
               TH_ERR_INVALID, f3, "output_padding[0] is 3; it must be >= 0 and smaller than the stride (2) or the dilation (3)");
    CHECK_NULL(th_f32_conv_transpose3d(x, w, b, &(th_conv_opts){.output_padding = {0, 1}, .groups = 2}), TH_ERR_INVALID, f3,
               "output_padding[1] is 1; it must be >= 0 and smaller than the stride (1) or the dilation (1)");
    CHECK_NULL(th_f32_conv_transpose3d(x, w, b, &(th_conv_opts){.dilation = {0, 0, -1}, .groups = 2}), TH_ERR_INVALID, f3,
               "dilation[2] is -1");
    CHECK_NULL(th_f32_conv_transpose3d(x, w, b, &(th_conv_opts){.padding = {0, 0, 3}, .groups = 2}), TH_ERR_SHAPE, f3,
               "the output would have size -1 in spatial dim 2: (4 - 1) * stride 1 - 2 * padding 3 + dilation 1 * "
               "(kernel 2 - 1) + output_padding 0 + 1");
    th_f32_tensor *out = th_f32_empty(5, SZ(1, 6, 4, 5, 4));
    CHECK_FAILS(th_f32_conv_transpose3d_out(out, x, w, b, &g2), TH_ERR_SHAPE, f3 "_out", "");
    CHECK_FAILS(th_f32_conv_transpose3d_out(NULL, x, w, b, &g2), TH_ERR_INVALID, f3 "_out", "NULL out");
    CHECK_FAILS(th_f32_conv_transpose3d_out(out, x, w, (th_f32_tensor *)x64, &g2), TH_ERR_DTYPE, f3 "_out", "bias");
#undef f3
    th_f32_release(x);
    th_f32_release(w);
    th_f32_release(b);
    th_f64_release(x64);
    th_f32_release(ok);
    th_f32_release(x3);
    th_f32_release(w4);
    th_f32_release(w5);
    th_f32_release(b4);
    th_f32_release(out);
}

int main(void)
{
    test_begin();
    by_hand();
    for (int i = 0; i < 40; i++) convt_case(2, i);
    for (int i = 0; i < 30; i++) convt_case(1, i);
    for (int i = 0; i < 16; i++) convt_case(3, i);
    for (int i = 0; i < 40; i++) cols_case(i);
    errors();
    errors_3d();
    printf("conv_transpose: %d random cases, each in 4 dtypes x 2 BLAS settings x (new, out)\n", cases_run);
    return test_end("conv_transpose");
}
