/* tests/numpy/attention_torch.c: th_<sfx>_scaled_dot_product_attention (ops/attention.h) against PyTorch:
 * attention_torch.py draws the cases and computes PyTorch 2.x's documented formula in float64 with torch 1.13
 * (which lacks F.scaled_dot_product_attention); each case runs here in its dtype with its inputs in one of
 * three layouts (contiguous, the last two dims transposed in memory, every dim stepped by 2), as a new result
 * and into an out, and the worst absolute error per dtype is bounded (the values are below 2 in magnitude; a
 * fully masked row must be NaN where torch's is). Skips (77) without /usr/bin/python3 or torch. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "peer_files.h"

static const char *dir;
static const char *const dts[4] = {"f32", "f64", "f16", "bf16"};
static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};
static const double tols[4] = {2e-5, 1e-12, 8e-3, 6e-2};
static double worst[4];
static int count[4], cases, nan_rows;

static th_tensor *load(const char *name, const char *part)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, part);
    return th_tensor_load_npy(path);
}

/* t's values in dtype dt over a fresh storage: layout 0 contiguous, 1 the last two dims transposed in memory,
 * 2 every dim stepped by 2. */
static th_tensor *in_layout(const th_tensor *t, th_dtype dt, int layout)
{
    int ndim = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    int64_t strides[TH_MAX_DIMS], span = 1, step = layout == 2 ? 2 : 1;
    int order[TH_MAX_DIMS];
    for (int d = 0; d < ndim; d++) order[d] = d;
    if (layout == 1 && ndim >= 2) order[ndim - 2] = ndim - 1, order[ndim - 1] = ndim - 2;
    for (int i = ndim - 1; i >= 0; i--) {
        strides[order[i]] = span * step;
        span *= sizes[order[i]] > 0 ? sizes[order[i]] : 1;
    }
    th_storage *s = th_storage_new(step * span * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *r = th_tensor_new_with_storage(dt, s, 0, ndim, sizes, strides);
    th_storage_release(s);
    CHECK_INT_EQ(th_tensor_copy(r, t), TH_OK);
    return r;
}

static int call(int dd, th_tensor *out, const th_tensor *q, const th_tensor *k, const th_tensor *v,
                const th_tensor *m, const th_sdpa_opts *o, th_tensor **res)
{
    *res = NULL;
    switch (dd) {
#define ONE(sfx)                                                                                                    \
    if (out)                                                                                                         \
        return th_##sfx##_scaled_dot_product_attention_out((th_##sfx##_tensor *)out, (const th_##sfx##_tensor *)q, \
                                                           (const th_##sfx##_tensor *)k,                           \
                                                           (const th_##sfx##_tensor *)v, m, o);                    \
    *res = (th_tensor *)th_##sfx##_scaled_dot_product_attention(                                                    \
        (const th_##sfx##_tensor *)q, (const th_##sfx##_tensor *)k, (const th_##sfx##_tensor *)v, m, o);          \
    return *res ? TH_OK : th_last_status();
    case 0: ONE(f32)
    case 1: ONE(f64)
    case 2: ONE(f16)
    default: ONE(bf16)
#undef ONE
    }
}

/* The worst |got - ref|; NaN must match. */
static double error_of(const th_tensor *got, const th_tensor *ref)
{
    th_f64_tensor *g = th_f64_convert(got);
    const double *p = (const double *)th_tensor_data((th_tensor *)g), *r = (const double *)th_tensor_data(ref);
    double w = 0;
    for (int64_t i = 0; i < th_tensor_numel(ref); i++) {
        if (isnan(r[i]) || isnan(p[i])) {
            if (isnan(r[i]) != isnan(p[i])) w = INFINITY;
            nan_rows += isnan(r[i]) && isnan(p[i]);
            continue;
        }
        double e = fabs(p[i] - r[i]);
        if (e > w) w = e;
    }
    th_tensor_release((th_tensor *)g);
    return w;
}

static void one_case(const char *line)
{
    char name[64], dt[8];
    int mask_kind, causal, layout;
    double scale;
    if (sscanf(line, "%63s %7s %d %d %lf %d", name, dt, &mask_kind, &causal, &scale, &layout) != 6) {
        CHECK(!"a line of cases.txt");
        return;
    }
    int dd = 0;
    while (dd < 3 && strcmp(dts[dd], dt) != 0) dd++;
    th_tensor *q64 = load(name, "q"), *k64 = load(name, "k"), *v64 = load(name, "v"), *ref = load(name, "ref");
    th_tensor *m64 = mask_kind ? load(name, "m") : NULL;
    bool loaded = q64 && k64 && v64 && ref && (!mask_kind || m64);
    CHECK(loaded);
    if (loaded) {
        th_tensor *q = in_layout(q64, dtypes[dd], layout), *k = in_layout(k64, dtypes[dd], (layout + 1) % 3);
        th_tensor *v = in_layout(v64, dtypes[dd], (layout + 2) % 3);
        th_tensor *m = m64 ? in_layout(m64, mask_kind == 1 ? TH_BOOL : dtypes[dd], layout) : NULL;
        th_sdpa_opts o = {.scale = scale, .is_causal = causal != 0};
        th_tensor *got = NULL, *out = in_layout(ref, dtypes[dd], (layout + 1) % 3);
        CHECK_INT_EQ(call(dd, NULL, q, k, v, m, &o, &got), TH_OK);
        CHECK_INT_EQ(call(dd, out, q, k, v, m, &o, &(th_tensor *){NULL}), TH_OK);
        if (got) {
            double e = error_of(got, ref), e2 = error_of(out, ref);
            if (e2 > e) e = e2;
            if (!(e <= tols[dd])) fprintf(stderr, "%s (%s): error %g\n", name, dt, e);
            CHECK(e <= tols[dd]);
            if (e > worst[dd]) worst[dd] = e;
            count[dd]++;
        }
        th_tensor_release(got), th_tensor_release(out);
        th_tensor_release(q), th_tensor_release(k), th_tensor_release(v), th_tensor_release(m);
        cases++;
    }
    th_tensor_release(q64), th_tensor_release(k64), th_tensor_release(v64), th_tensor_release(ref);
    th_tensor_release(m64);
}

int main(int argc, char **argv)
{
    (void)peer_read_all;
    (void)peer_contiguous;
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "attention_torch", "PyTorch");
    if (rc >= 0) return rc;
    test_begin();
    peer_each_case(dir, one_case);
    printf("attention_torch: %d cases against torch 1.13's formula in float64 (%d NaN elements of fully masked "
           "rows matched); worst absolute error:", cases, nan_rows);
    for (int dd = 0; dd < 4; dd++) printf("  %s %.3g (%d)", dts[dd], worst[dd], count[dd]);
    printf("\n");
    CHECK(cases >= 100);
    CHECK(nan_rows > 0);
    return test_end("attention_torch");
}
