/* tests/test_pool_nd.c: max_pool1d/3d, avg_pool1d/3d, adaptive_avg_pool1d/3d and adaptive_max_pool1d/3d
 * (ops/conv.h): hand-worked values and indices (padding counted in the averages, NaN winning the maxima,
 * unbatched forms, strided inputs and outs), each 3d form on a depth-1 volume against its 2d form bit for bit,
 * th_pool_opts' ceil_mode, count_exclude_pad and divisor_override, and every error. The peer check against PyTorch is tests/numpy/pool_torch.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* An f32 tensor of shape sizes holding 0, 1, 2, ... in order. */
static th_f32_tensor *iota(int ndim, const int64_t *sizes)
{
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    if (t)
        for (int64_t i = 0; i < th_f32_numel(t); i++) th_f32_data(t)[i] = (float)i;
    return t;
}

/* Whether f32 t (contiguous) holds want[0..n) and i64 ix (when not NULL) holds wix[0..n). */
static bool holds(const th_f32_tensor *t, const float *want, const th_i64_tensor *ix, const int64_t *wix, int64_t n)
{
    if (!t || th_f32_numel(t) != n || (wix && (!ix || th_i64_numel(ix) != n))) return false;
    for (int64_t i = 0; i < n; i++) {
        if (!(th_f32_data(t)[i] == want[i] || (isnan(want[i]) && isnan(th_f32_data(t)[i])))) return false;
        if (wix && th_i64_data(ix)[i] != wix[i]) return false;
    }
    return true;
}

static void by_hand_1d(void)
{
    /* 0..7, kernel 3, stride 2, padding 1: windows -1..1, 1..3, 3..5, 5..7 */
    th_f32_tensor *x = iota(3, SZ(1, 1, 8));
    th_pool_opts o = {.stride = {2}, .padding = {1}};
    th_i64_tensor *ix = NULL;
    th_f32_tensor *m = th_f32_max_pool1d(x, SZ(3), &o, &ix), *a = th_f32_avg_pool1d(x, SZ(3), &o);
    CHECK(holds(m, (const float[]){1, 3, 5, 7}, ix, SZ(1, 3, 5, 7), 4));
    CHECK(holds(a, (const float[]){1.0f / 3, 2, 4, 6}, NULL, NULL, 4));
    CHECK(m && th_f32_ndim(m) == 3 && th_f32_size(m, 2) == 4);
    /* dilation 2, kernel 2, stride default (2): windows {0, 2}, {2, 4}, {4, 6} */
    th_pool_opts od = {.dilation = {2}};
    th_i64_tensor *ixd = NULL;
    th_f32_tensor *md = th_f32_max_pool1d(x, SZ(2), &od, &ixd);
    CHECK(holds(md, (const float[]){2, 4, 6}, ixd, SZ(2, 4, 6), 3));
    /* adaptive over 5 to 3: windows [0, 2), [1, 4), [3, 5), unbatched (C, L) */
    th_f32_tensor *x5 = iota(2, SZ(1, 5));
    th_i64_tensor *aix = NULL;
    th_f32_tensor *aa = th_f32_adaptive_avg_pool1d(x5, SZ(3)), *am = th_f32_adaptive_max_pool1d(x5, SZ(3), &aix);
    CHECK(holds(aa, (const float[]){0.5f, 2, 3.5f}, NULL, NULL, 3) && th_f32_ndim(aa) == 2);
    CHECK(holds(am, (const float[]){1, 3, 4}, aix, SZ(1, 3, 4), 3));
    /* NaN: max_pool1d's window maximum (the last NaN, as torch), adaptive's first NaN */
    th_f32_data(x)[2] = NAN;
    th_f32_data(x5)[1] = NAN;
    th_f32_data(x5)[2] = NAN;
    th_i64_tensor *nix = NULL, *anix = NULL;
    th_f32_tensor *mn = th_f32_max_pool1d(x, SZ(3), &o, &nix), *amn = th_f32_adaptive_max_pool1d(x5, SZ(3), &anix);
    CHECK(holds(mn, (const float[]){1, NAN, 5, 7}, nix, SZ(1, 2, 5, 7), 4));
    CHECK(holds(amn, (const float[]){NAN, NAN, 4}, anix, SZ(1, 1, 4), 3));
    /* into a strided out (every other element of 8) with a strided input (every other element of 16) */
    th_f32_tensor *big = iota(3, SZ(1, 1, 16)), *ob = th_f32_zeros(3, SZ(1, 1, 8));
    th_f32_tensor *xs = th_f32_as_strided(big, 3, SZ(1, 1, 8), SZ(16, 16, 2), 0);
    th_f32_tensor *os = th_f32_as_strided(ob, 3, SZ(1, 1, 4), SZ(8, 8, 2), 0);
    CHECK_INT_EQ(th_f32_avg_pool1d_out(os, xs, SZ(2), NULL), TH_OK); /* 0 2 4 ... 14 in pairs: 1 5 9 13 */
    CHECK(ob && th_f32_data(ob)[0] == 1 && th_f32_data(ob)[2] == 5 && th_f32_data(ob)[6] == 13 && th_f32_data(ob)[1] == 0);
    th_f32_release(x);
    th_f32_release(m);
    th_i64_release(ix);
    th_f32_release(a);
    th_f32_release(md);
    th_i64_release(ixd);
    th_f32_release(x5);
    th_f32_release(aa);
    th_f32_release(am);
    th_i64_release(aix);
    th_f32_release(mn);
    th_i64_release(nix);
    th_f32_release(amn);
    th_i64_release(anix);
    th_f32_release(big);
    th_f32_release(ob);
    th_f32_release(xs);
    th_f32_release(os);
}

static void by_hand_3d(void)
{
    /* 4x4x4 of 0..63, 2x2x2 windows: each maximum at (2d + 1, 2h + 1, 2w + 1) = 16 (2d + 1) + 4 (2h + 1) + 2w + 1 */
    th_f32_tensor *x = iota(5, SZ(1, 1, 4, 4, 4));
    th_i64_tensor *ix = NULL;
    th_f32_tensor *m = th_f32_max_pool3d(x, SZ(2, 2, 2), NULL, &ix), *a = th_f32_avg_pool3d(x, SZ(2, 2, 2), NULL);
    CHECK(holds(m, (const float[]){21, 23, 29, 31, 53, 55, 61, 63}, ix, SZ(21, 23, 29, 31, 53, 55, 61, 63), 8));
    CHECK(holds(a, (const float[]){10.5f, 12.5f, 18.5f, 20.5f, 42.5f, 44.5f, 50.5f, 52.5f}, NULL, NULL, 8));
    /* padding 1 in depth only, kernel (2, 4, 4), stride 2: the first window holds depth 0 only, /32 */
    th_pool_opts o = {.padding = {1, 0, 0}, .stride = {2, 4, 4}};
    th_f32_tensor *ap = th_f32_avg_pool3d(x, SZ(2, 4, 4), &o);
    CHECK(ap && th_f32_numel(ap) == 3 && th_f32_data(ap)[0] == 120.0f / 32);
    /* unbatched (C, D, H, W); adaptive to (1, 1, 1) and to the input's own size (every cell itself) */
    th_f32_tensor *u = iota(4, SZ(1, 2, 2, 2));
    th_i64_tensor *aix = NULL, *iix = NULL;
    th_f32_tensor *aa = th_f32_adaptive_avg_pool3d(u, SZ(1, 1, 1)), *am = th_f32_adaptive_max_pool3d(u, SZ(1, 1, 1), &aix);
    th_f32_tensor *id = th_f32_adaptive_max_pool3d(u, SZ(2, 2, 2), &iix);
    CHECK(holds(aa, (const float[]){3.5f}, NULL, NULL, 1) && th_f32_ndim(aa) == 4);
    CHECK(holds(am, (const float[]){7}, aix, SZ(7), 1));
    CHECK(holds(id, (const float[]){0, 1, 2, 3, 4, 5, 6, 7}, iix, SZ(0, 1, 2, 3, 4, 5, 6, 7), 8));
    th_f32_release(x);
    th_f32_release(m);
    th_i64_release(ix);
    th_f32_release(a);
    th_f32_release(ap);
    th_f32_release(u);
    th_f32_release(aa);
    th_f32_release(am);
    th_i64_release(aix);
    th_f32_release(id);
    th_i64_release(iix);
}

/* The 3d forms on (N, C, 1, H, W) with a depth-1 kernel equal the 2d forms on (N, C, H, W), bit for bit, in
 * f64 with irregular values, dilation and padding. */
static void three_equals_two(void)
{
    th_f64_tensor *x = th_f64_empty(4, SZ(2, 3, 7, 9));
    for (int64_t i = 0; i < th_f64_numel(x); i++) th_f64_data(x)[i] = sin((double)i * 1.7) * 3;
    th_f64_tensor *x3 = th_f64_unsqueeze(x, 2);
    th_pool_opts o2 = {.stride = {2, 1}, .padding = {1, 1}, .dilation = {1, 2}};
    th_pool_opts o3 = {.stride = {1, 2, 1}, .padding = {0, 1, 1}, .dilation = {1, 1, 2}};
    th_pool_opts a2 = {.stride = {2, 3}, .padding = {1, 1}}, a3 = {.stride = {1, 2, 3}, .padding = {0, 1, 1}};
    th_i64_tensor *i2 = NULL, *i3 = NULL, *j2 = NULL, *j3 = NULL;
    th_f64_tensor *m2 = th_f64_max_pool2d(x, SZ(3, 2), &o2, &i2), *m3 = th_f64_max_pool3d(x3, SZ(1, 3, 2), &o3, &i3);
    th_f64_tensor *v2 = th_f64_avg_pool2d(x, SZ(3, 3), &a2), *v3 = th_f64_avg_pool3d(x3, SZ(1, 3, 3), &a3);
    th_f64_tensor *g2 = th_f64_adaptive_avg_pool2d(x, SZ(4, 5)), *g3 = th_f64_adaptive_avg_pool3d(x3, SZ(1, 4, 5));
    th_f64_tensor *h2 = th_f64_adaptive_max_pool2d(x, SZ(4, 5), &j2), *h3 = th_f64_adaptive_max_pool3d(x3, SZ(1, 4, 5), &j3);
    th_f64_tensor *pairs[4][2] = {{m2, m3}, {v2, v3}, {g2, g3}, {h2, h3}};
    for (int p = 0; p < 4; p++) {
        bool same = pairs[p][0] && pairs[p][1] && th_f64_numel(pairs[p][0]) == th_f64_numel(pairs[p][1]) &&
                    th_f64_ndim(pairs[p][1]) == 5 && th_f64_size(pairs[p][1], 2) == 1;
        for (int64_t i = 0; same && i < th_f64_numel(pairs[p][0]); i++)
            same = memcmp(&th_f64_data(pairs[p][0])[i], &th_f64_data(pairs[p][1])[i], sizeof(double)) == 0;
        CHECK(same);
    }
    th_i64_tensor *ipairs[2][2] = {{i2, i3}, {j2, j3}};
    for (int p = 0; p < 2; p++) {
        bool same = ipairs[p][0] && ipairs[p][1] && th_i64_numel(ipairs[p][0]) == th_i64_numel(ipairs[p][1]);
        for (int64_t i = 0; same && i < th_i64_numel(ipairs[p][0]); i++)
            same = th_i64_data(ipairs[p][0])[i] == th_i64_data(ipairs[p][1])[i];
        CHECK(same);
    }
    th_f64_release(x);
    th_f64_release(x3);
    for (int p = 0; p < 4; p++) th_f64_release(pairs[p][0]), th_f64_release(pairs[p][1]);
    for (int p = 0; p < 2; p++) th_i64_release(ipairs[p][0]), th_i64_release(ipairs[p][1]);
}

static void errors(void)
{
    th_f32_tensor *x1 = iota(3, SZ(1, 2, 5)), *x3 = iota(5, SZ(1, 2, 3, 4, 5)), *bad = iota(4, SZ(1, 2, 3, 4));
    th_i64_tensor *ix = (th_i64_tensor *)(uintptr_t)1;
    CHECK_NULL(th_f32_max_pool1d(NULL, SZ(2), NULL, &ix), TH_ERR_INVALID, "th_f32_max_pool1d", "NULL input");
    CHECK(ix == NULL);
    CHECK_NULL(th_f32_max_pool3d(x3, NULL, NULL, NULL), TH_ERR_INVALID, "th_f32_max_pool3d", "NULL kernel");
    CHECK_NULL(th_f32_avg_pool1d(x1, SZ(0), NULL), TH_ERR_INVALID, "th_f32_avg_pool1d", "kernel[0] is 0");
    CHECK_NULL(th_f32_max_pool3d(x3, SZ(1, 2, -1), NULL, NULL), TH_ERR_INVALID, "th_f32_max_pool3d", "kernel[2] is -1");
    th_pool_opts pp = {.padding = {0, 2, 0}};
    CHECK_NULL(th_f32_avg_pool3d(x3, SZ(1, 3, 3), &pp), TH_ERR_INVALID, "th_f32_avg_pool3d",
               "padding[1] is 2; it must be at most half the kernel (3)");
    th_pool_opts p1 = {.padding = {2}};
    CHECK_NULL(th_f32_max_pool1d(x1, SZ(3), &p1, NULL), TH_ERR_INVALID, "th_f32_max_pool1d",
               "padding[0] is 2; it must be at most half the kernel (3)");
    th_pool_opts ps = {.stride = {0, 0, -2}};
    CHECK_NULL(th_f32_max_pool3d(x3, SZ(2, 2, 2), &ps, NULL), TH_ERR_INVALID, "th_f32_max_pool3d", "stride[2] is -2");
    th_pool_opts pn = {.padding = {-1}};
    CHECK_NULL(th_f32_avg_pool1d(x1, SZ(2), &pn), TH_ERR_INVALID, "th_f32_avg_pool1d", "padding[0] is -1");
    th_pool_opts pd = {.dilation = {1, 1, 2}};
    CHECK_NULL(th_f32_avg_pool3d(x3, SZ(2, 2, 2), &pd), TH_ERR_INVALID, "th_f32_avg_pool3d",
               "dilation[2] is 2; avg_pool3d takes none (0 or 1)");
    th_pool_opts pd1 = {.dilation = {3}};
    CHECK_NULL(th_f32_avg_pool1d(x1, SZ(2), &pd1), TH_ERR_INVALID, "th_f32_avg_pool1d", "dilation[0] is 3; avg_pool1d takes none");
    CHECK_NULL(th_f32_max_pool1d(x1, SZ(3), &pd1, NULL), TH_ERR_SHAPE, "th_f32_max_pool1d",
               "the kernel (3, dilated to 7) is larger than the padded input (5 + 2 * 0 = 5) in spatial dim 0");
    CHECK_NULL(th_f32_avg_pool3d(x3, SZ(4, 2, 2), NULL), TH_ERR_SHAPE, "th_f32_avg_pool3d",
               "the kernel (4, dilated to 4) is larger than the padded input (3 + 2 * 0 = 3) in spatial dim 0");
    CHECK_NULL(th_f32_max_pool1d(bad, SZ(2), NULL, NULL), TH_ERR_SHAPE, "th_f32_max_pool1d",
               "input has shape (1, 2, 3, 4) (4 dims); max_pool1d takes 2 (C, spatial) or 3 (N, C, spatial) dims");
    CHECK_NULL(th_f32_avg_pool3d(x1, SZ(2, 2, 2), NULL), TH_ERR_SHAPE, "th_f32_avg_pool3d",
               "input has shape (1, 2, 5) (3 dims); avg_pool3d takes 4 (C, spatial) or 5 (N, C, spatial) dims");
    th_f32_tensor *o1 = th_f32_empty(3, SZ(1, 2, 3)), *o3 = th_f32_empty(5, SZ(1, 2, 1, 2, 2));
    th_i64_tensor *i3 = th_i64_empty(5, SZ(1, 2, 1, 2, 2));
    CHECK_FAILS(th_f32_max_pool1d_out(o1, NULL, x1, SZ(2), NULL), TH_ERR_SHAPE, "th_f32_max_pool1d_out",
                "out has shape (1, 2, 3)");
    CHECK_FAILS(th_f32_avg_pool3d_out(o3, x3, SZ(1, 2, 2), NULL), TH_ERR_SHAPE, "th_f32_avg_pool3d_out", "out has shape");
    CHECK_FAILS(th_f32_max_pool3d_out(o3, (th_i64_tensor *)o3, x3, SZ(2, 2, 2), NULL), TH_ERR_DTYPE,
                "th_f32_max_pool3d_out", "indices_out");
    CHECK_FAILS(th_f32_max_pool1d_out(NULL, NULL, x1, SZ(2), NULL), TH_ERR_INVALID, "th_f32_max_pool1d_out", "NULL out");
    CHECK_FAILS(th_f32_avg_pool1d_out(NULL, x1, SZ(2), NULL), TH_ERR_INVALID, "th_f32_avg_pool1d_out", "NULL out");
    CHECK_FAILS(th_f32_max_pool3d_out(NULL, NULL, x3, SZ(2, 2, 2), NULL), TH_ERR_INVALID, "th_f32_max_pool3d_out", "NULL out");
    CHECK_FAILS(th_f32_avg_pool3d_out(NULL, x3, SZ(2, 2, 2), NULL), TH_ERR_INVALID, "th_f32_avg_pool3d_out", "NULL out");
    CHECK_FAILS(th_f32_adaptive_max_pool1d_out(o1, i3, x1, SZ(3)), TH_ERR_SHAPE, "th_f32_adaptive_max_pool1d_out",
                "out has shape (1, 2, 1, 2, 2); the result has shape (1, 2, 3)");
    CHECK_INT_EQ(th_f32_max_pool3d_out(o3, i3, x3, SZ(2, 2, 2), NULL), TH_OK);
    CHECK(th_i64_data(i3)[0] == 1 * 20 + 1 * 5 + 1);
    /* a wrong dtype */
    th_f64_tensor *d1 = th_f64_zeros(3, SZ(1, 2, 5));
    CHECK_NULL(th_f32_max_pool1d((const th_f32_tensor *)d1, SZ(2), NULL, NULL), TH_ERR_DTYPE, "th_f32_max_pool1d", "f64");
    CHECK_FAILS(th_f32_adaptive_avg_pool1d_out((th_f32_tensor *)d1, x1, SZ(5)), TH_ERR_DTYPE,
                "th_f32_adaptive_avg_pool1d_out", "f64");
    /* adaptive */
    CHECK_NULL(th_f32_adaptive_avg_pool1d(NULL, SZ(1)), TH_ERR_INVALID, "th_f32_adaptive_avg_pool1d", "NULL input");
    CHECK_NULL(th_f32_adaptive_max_pool3d(x3, NULL, &ix), TH_ERR_INVALID, "th_f32_adaptive_max_pool3d", "NULL output_size");
    CHECK(ix == NULL);
    CHECK_NULL(th_f32_adaptive_avg_pool3d(x3, SZ(1, 0, 1)), TH_ERR_INVALID, "th_f32_adaptive_avg_pool3d",
               "output_size[1] is 0; it must be >= 1");
    CHECK_NULL(th_f32_adaptive_max_pool1d(x1, SZ(-3), NULL), TH_ERR_INVALID, "th_f32_adaptive_max_pool1d",
               "output_size[0] is -3; it must be >= 1");
    CHECK_NULL(th_f32_adaptive_max_pool3d(x1, SZ(1, 1, 1), NULL), TH_ERR_SHAPE, "th_f32_adaptive_max_pool3d",
               "input has shape (1, 2, 5) (3 dims); adaptive_max_pool3d takes 4 (C, spatial) or 5 (N, C, spatial) dims");
    CHECK_NULL(th_f32_adaptive_avg_pool1d(bad, SZ(1)), TH_ERR_SHAPE, "th_f32_adaptive_avg_pool1d",
               "adaptive_avg_pool1d takes 2 (C, spatial) or 3 (N, C, spatial) dims");
    th_f32_tensor *e1 = th_f32_empty(2, SZ(2, 0)), *e3 = th_f32_empty(4, SZ(1, 2, 0, 3));
    CHECK_NULL(th_f32_adaptive_avg_pool1d(e1, SZ(1)), TH_ERR_SHAPE, "th_f32_adaptive_avg_pool1d",
               "input has an empty spatial dim (0); adaptive_avg_pool1d needs at least one element");
    CHECK_NULL(th_f32_adaptive_max_pool3d(e3, SZ(1, 1, 1), NULL), TH_ERR_SHAPE, "th_f32_adaptive_max_pool3d",
               "input has an empty spatial dim (2 x 0 x 3)");
    CHECK_FAILS(th_f32_adaptive_avg_pool3d_out(NULL, x3, SZ(1, 1, 1)), TH_ERR_INVALID, "th_f32_adaptive_avg_pool3d_out", "NULL out");
    CHECK_FAILS(th_f32_adaptive_max_pool3d_out(NULL, NULL, x3, SZ(1, 1, 1)), TH_ERR_INVALID,
                "th_f32_adaptive_max_pool3d_out", "NULL out");
    CHECK_FAILS(th_f32_adaptive_avg_pool3d_out(o3, x3, SZ(1, 1, 1)), TH_ERR_SHAPE, "th_f32_adaptive_avg_pool3d_out",
                "out has shape (1, 2, 1, 2, 2)");
    th_f32_release(x1);
    th_f32_release(x3);
    th_f32_release(bad);
    th_f32_release(o1);
    th_f32_release(o3);
    th_i64_release(i3);
    th_f64_release(d1);
    th_f32_release(e1);
    th_f32_release(e3);
}

/* th_pool_opts' ceil_mode, count_exclude_pad and divisor_override (PyTorch's ceil_mode, count_include_pad=False,
 * divisor_override) by hand, and their errors. */
static void options(void)
{
    /* 0..7, kernel 3, stride 2, padding 1: four windows -1..1, 1..3, 3..5, 5..7; ceil_mode adds a fifth, 7..9,
     * which starts inside the input: {7} and the right padding (two places of the padded input's) */
    th_f32_tensor *x = iota(3, SZ(1, 1, 8));
    th_i64_tensor *ix = NULL;
    th_pool_opts c = {.stride = {2}, .padding = {1}, .ceil_mode = true};
    th_f32_tensor *m = th_f32_max_pool1d(x, SZ(3), &c, &ix), *a = th_f32_avg_pool1d(x, SZ(3), &c);
    CHECK(holds(m, (const float[]){1, 3, 5, 7, 7}, ix, SZ(1, 3, 5, 7, 7), 5));
    CHECK(holds(a, (const float[]){1.0f / 3, 2, 4, 6, 3.5f}, NULL, NULL, 5));
    /* the padding not counted: the first window averages {0, 1}, the fifth {7} */
    th_pool_opts e = {.stride = {2}, .padding = {1}, .count_exclude_pad = true};
    th_f32_tensor *ae = th_f32_avg_pool1d(x, SZ(3), &e);
    CHECK(holds(ae, (const float[]){0.5f, 2, 4, 6}, NULL, NULL, 4));
    e.ceil_mode = true;
    th_f32_tensor *aec = th_f32_avg_pool1d(x, SZ(3), &e);
    CHECK(holds(aec, (const float[]){0.5f, 2, 4, 6, 7}, NULL, NULL, 5));
    /* every window's sum over 2, padding or not */
    th_pool_opts dv = {.stride = {2}, .padding = {1}, .ceil_mode = true, .divisor_override = 2};
    th_f32_tensor *ad = th_f32_avg_pool1d(x, SZ(3), &dv);
    CHECK(holds(ad, (const float[]){0.5f, 3, 6, 9, 3.5f}, NULL, NULL, 5));
    /* 0..4, kernel 2, stride 2, padding 1: rounding up would give a fourth window at 5..6, which starts in the
     * right padding: dropped, as torch, so ceil_mode gives floor's three */
    th_f32_tensor *x5 = iota(2, SZ(1, 5));
    th_pool_opts c2 = {.stride = {2}, .padding = {1}, .ceil_mode = true};
    th_i64_tensor *ix5 = NULL;
    th_f32_tensor *m5 = th_f32_max_pool1d(x5, SZ(2), &c2, &ix5);
    CHECK(holds(m5, (const float[]){0, 2, 4}, ix5, SZ(0, 2, 4), 3));
    /* 2d and 3d: a 5x5 plane, kernel 2: floor 2x2 windows, ceil 3x3 (the last row and column alone) */
    th_f32_tensor *x2 = iota(3, SZ(1, 5, 5)), *x3 = iota(4, SZ(1, 1, 5, 5));
    th_pool_opts c3 = {.ceil_mode = true};
    th_f32_tensor *a2 = th_f32_avg_pool2d(x2, SZ(2, 2), &c3), *m3 = th_f32_max_pool3d(x3, SZ(1, 2, 2), &c3, NULL);
    CHECK(holds(a2, (const float[]){3, 5, 6.5f, 13, 15, 16.5f, 20.5f, 22.5f, 24}, NULL, NULL, 9));
    CHECK(holds(m3, (const float[]){6, 8, 9, 16, 18, 19, 21, 23, 24}, NULL, NULL, 9));
    /* the out of a ceil_mode call has the rounded-up size */
    th_f32_tensor *o4 = th_f32_empty(3, SZ(1, 1, 4));
    CHECK_FAILS(th_f32_avg_pool1d_out(o4, x, SZ(3), &c), TH_ERR_SHAPE, "th_f32_avg_pool1d_out", "out has shape");

    /* errors: the average's options given to a max pool, a negative divisor */
    th_i64_tensor *ixe = (th_i64_tensor *)x; /* nulled on error */
    CHECK_NULL(th_f32_max_pool1d(x, SZ(3), &e, &ixe), TH_ERR_INVALID, "th_f32_max_pool1d",
               "count_exclude_pad is 1; max_pool1d takes none (0): it is the average pools' option");
    CHECK(ixe == NULL);
    CHECK_NULL(th_f32_max_pool3d(x3, SZ(1, 2, 2), &(th_pool_opts){.divisor_override = 2}, NULL), TH_ERR_INVALID,
               "th_f32_max_pool3d", "divisor_override is 2; max_pool3d takes none (0)");
    CHECK_FAILS(th_f32_max_pool1d_out(o4, NULL, x, SZ(3), &dv), TH_ERR_INVALID, "th_f32_max_pool1d_out",
                "divisor_override is 2; max_pool1d takes none");
    CHECK_NULL(th_f32_avg_pool2d(x2, SZ(2, 2), &(th_pool_opts){.divisor_override = -1}), TH_ERR_INVALID,
               "th_f32_avg_pool2d", "divisor_override is -1; it must be >= 1 (0: none, the window's size)");
    CHECK_FAILS(th_f32_avg_pool3d_out(o4, x3, SZ(1, 2, 2), &(th_pool_opts){.divisor_override = -3}), TH_ERR_INVALID,
                "th_f32_avg_pool3d_out", "divisor_override is -3");

    th_f32_release(x);
    th_i64_release(ix);
    th_f32_release(m);
    th_f32_release(a);
    th_f32_release(ae);
    th_f32_release(aec);
    th_f32_release(ad);
    th_f32_release(x5);
    th_i64_release(ix5);
    th_f32_release(m5);
    th_f32_release(x2);
    th_f32_release(x3);
    th_f32_release(a2);
    th_f32_release(m3);
    th_f32_release(o4);
}

int main(void)
{
    test_begin();
    by_hand_1d();
    by_hand_3d();
    three_equals_two();
    errors();
    options();
    return test_end("pool_nd");
}
