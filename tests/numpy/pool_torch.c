/* tests/numpy/pool_torch.c: max_pool1d/3d, avg_pool1d/3d, adaptive_avg_pool1d/3d and adaptive_max_pool1d/3d,
 * and max_pool1d/2d/3d and avg_pool1d/2d/3d with th_pool_opts' ceil_mode, count_exclude_pad and
 * divisor_override (ops/conv.h) against PyTorch 1.13 in float64 (tests/numpy/pool_torch.py writes the cases: inputs already
 * rounded to each case's dtype, some max inputs with NaNs, torch's float64 result and indices from them).
 * Every case runs as a new result and into an out, the input in the layout the case names (contiguous, dims
 * reversed, stepped, last dim reversed), the out and the indices out in others. The error is measured in ulps
 * of the dtype at the reference (at least at 2^-10); NaNs must be where torch has them, and the max ops'
 * indices must be torch's, except where an adaptive window holds several NaNs: torch 1.13 takes the last,
 * the library (as adaptive_max_pool2d, docs/nn.md) the first, and the index must be one of a NaN. The worst per op and dtype is printed and bounded.
 *
 * Usage: pool_torch DIR PYTHON SCRIPT (the test command; skips with 77 without /usr/bin/python3 or torch). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "peer_files.h"

#define NOPS 10
static const char *ops[NOPS] = {"max_pool1d",          "max_pool3d",          "avg_pool1d",
                                "avg_pool3d",          "adaptive_avg_pool1d", "adaptive_avg_pool3d",
                                "adaptive_max_pool1d", "adaptive_max_pool3d", "max_pool2d",
                                "avg_pool2d"};
static const char *dts[4] = {"f32", "f64", "f16", "bf16"};
static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};
/* Bounds in ulps: the maxima exact; the averages sum in double and round once (half an ulp), f64's sum of up
 * to 27 doubles a few ulps of the result. */
static const double bound[NOPS][4] = {{0, 0, 0, 0},       {0, 0, 0, 0},       {0.5, 2, 0.5, 0.5}, {0.5, 4, 0.5, 0.5},
                                      {0.5, 4, 0.5, 0.5}, {0.5, 8, 0.5, 0.5}, {0, 0, 0, 0},       {0, 0, 0, 0},
                                      {0, 0, 0, 0},       {0.5, 4, 0.5, 0.5}};
/* The option cases' counts per op (ceil_mode, count_exclude_pad, divisor_override given). */
static int with_ceil[NOPS], with_excl[NOPS], with_div[NOPS];
static double worst[NOPS][4];
static int count[NOPS][4];
static const char *dir;
static int cases;

/* A copy of t of dtype dt in layout: 0 contiguous, 1 dims reversed in memory, 2 every element a step apart,
 * 3 the last dim reversed. */
static th_tensor *laid_out(const th_tensor *t, th_dtype dt, int layout)
{
    int nd = th_tensor_ndim(t);
    const int64_t *sz = th_tensor_sizes(t);
    int64_t st[TH_MAX_DIMS], n = 1, off = 0;
    int step = layout == 2 ? 2 : 1;
    for (int i = 0; i < nd; i++) {
        int d = layout == 1 ? i : nd - 1 - i;
        st[d] = n * step;
        n *= sz[d] > 0 ? sz[d] : 1;
    }
    if (layout == 3 && nd > 0) {
        off = (sz[nd - 1] - 1) * st[nd - 1];
        st[nd - 1] = -st[nd - 1];
    }
    th_storage *s = th_storage_new(step * n * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *v = th_tensor_new_with_storage(dt, s, off, nd, sz, st);
    th_storage_release(s);
    if (v && th_tensor_copy(v, t) != TH_OK) {
        th_tensor_release(v);
        v = NULL;
    }
    return v;
}

static int mant_of(th_dtype dt) { return dt == TH_F32 ? 24 : dt == TH_F64 ? 53 : dt == TH_F16 ? 11 : 8; }

/* got against ref (float64, contiguous) in ulps of dt at ref (at least at 2^-10); -1 when the shapes differ
 * or a NaN is not where ref has one. */
static double error_of(const th_tensor *got, const th_tensor *ref, th_dtype dt)
{
    if (th_tensor_ndim(got) != th_tensor_ndim(ref)) return -1;
    for (int d = 0; d < th_tensor_ndim(ref); d++)
        if (th_tensor_sizes(got)[d] != th_tensor_sizes(ref)[d]) return -1;
    th_tensor *g = laid_out(got, TH_F64, 0);
    if (!g) return -1;
    const double *a = (const double *)th_tensor_data(g), *b = (const double *)th_tensor_data(ref);
    double w = 0;
    for (int64_t i = 0; i < th_tensor_numel(ref) && w >= 0; i++) {
        if (isnan(a[i]) || isnan(b[i])) {
            if (!(isnan(a[i]) && isnan(b[i]))) w = -1;
            continue;
        }
        int e;
        frexp(fabs(b[i]) > 0x1p-10 ? fabs(b[i]) : 0x1p-10, &e);
        double err = fabs(a[i] - b[i]) / ldexp(1.0, e - mant_of(dt));
        if (err > w) w = err;
    }
    th_tensor_release(g);
    return w;
}

/* Whether the i64 tensor got holds ref's indices (as loaded: i64, contiguous); where ref has -1 (an adaptive
 * window with several NaNs, where torch takes the last and the library the first) got must index a NaN of
 * the output's plane of x64 (contiguous, inl elements a plane). */
static bool same_indices(const th_tensor *got, const th_tensor *ref, const th_tensor *x64, int nsp)
{
    if (!got || !ref || th_tensor_numel(got) != th_tensor_numel(ref)) return false;
    th_tensor *a = laid_out(got, TH_I64, 0);
    if (!a) return false;
    const int64_t *g = (const int64_t *)th_tensor_data(a), *r = (const int64_t *)th_tensor_data(ref);
    const double *xv = (const double *)th_tensor_data(x64);
    int64_t outl = 1, inl = 1;
    for (int i = 0; i < nsp; i++) {
        outl *= th_tensor_sizes(ref)[th_tensor_ndim(ref) - 1 - i];
        inl *= th_tensor_sizes(x64)[th_tensor_ndim(x64) - 1 - i];
    }
    bool same = true;
    for (int64_t i = 0; i < th_tensor_numel(ref) && same; i++)
        same = r[i] >= 0 ? g[i] == r[i] : g[i] >= 0 && g[i] < inl && isnan(xv[i / outl * inl + g[i]]);
    th_tensor_release(a);
    return same;
}

/* One op of one dtype: into out (with ixo) when out is not NULL, else a new result (indices into *ix). */
#define POOL_CALL(sfx)                                                                                              \
    do {                                                                                                            \
        typedef th_##sfx##_tensor T;                                                                                \
        const T *tx = (const T *)x;                                                                                 \
        T *to = (T *)out;                                                                                           \
        th_i64_tensor *io = (th_i64_tensor *)ixo, **in = (th_i64_tensor **)ix;                                      \
        switch (op) {                                                                                               \
        case 0: st = to ? th_##sfx##_max_pool1d_out(to, io, tx, k, po) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_max_pool1d(tx, k, po, in); break; \
        case 1: st = to ? th_##sfx##_max_pool3d_out(to, io, tx, k, po) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_max_pool3d(tx, k, po, in); break; \
        case 2: st = to ? th_##sfx##_avg_pool1d_out(to, tx, k, po) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_avg_pool1d(tx, k, po); break; \
        case 3: st = to ? th_##sfx##_avg_pool3d_out(to, tx, k, po) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_avg_pool3d(tx, k, po); break; \
        case 4: st = to ? th_##sfx##_adaptive_avg_pool1d_out(to, tx, k) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_adaptive_avg_pool1d(tx, k); break; \
        case 5: st = to ? th_##sfx##_adaptive_avg_pool3d_out(to, tx, k) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_adaptive_avg_pool3d(tx, k); break; \
        case 6: st = to ? th_##sfx##_adaptive_max_pool1d_out(to, io, tx, k) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_adaptive_max_pool1d(tx, k, in); break; \
        case 8: st = to ? th_##sfx##_max_pool2d_out(to, io, tx, k, po) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_max_pool2d(tx, k, po, in); break; \
        case 9: st = to ? th_##sfx##_avg_pool2d_out(to, tx, k, po) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_avg_pool2d(tx, k, po); break; \
        default: st = to ? th_##sfx##_adaptive_max_pool3d_out(to, io, tx, k) : 0; r = to ? NULL : (th_tensor *)th_##sfx##_adaptive_max_pool3d(tx, k, in); \
        }                                                                                                           \
    } while (0)

/* The op's result: a new tensor, or out itself (NULL on error). */
static th_tensor *call(int op, int dti, th_tensor *out, th_tensor *ixo, th_tensor **ix, const th_tensor *x,
                       const int64_t *k, const th_pool_opts *po)
{
    th_tensor *r = NULL;
    int st = 0;
    switch (dti) {
    case 0: POOL_CALL(f32); break;
    case 1: POOL_CALL(f64); break;
    case 2: POOL_CALL(f16); break;
    default: POOL_CALL(bf16);
    }
    return out ? (st == TH_OK ? out : NULL) : r;
}

static th_tensor *load(const char *name, const char *part)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, part);
    return th_tensor_load_npy(path);
}

static void one_case(const char *line)
{
    char name[64], opn[32], dtn[16];
    long long v[15];
    int layout;
    if (sscanf(line, "%63s %31s %15s %d %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld",
               name, opn, dtn, &layout, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10],
               &v[11], &v[12], &v[13], &v[14]) != 19) {
        CHECK(!"a line of cases.txt that does not parse");
        return;
    }
    int op = 0, dti = 0;
    while (op < NOPS && strcmp(ops[op], opn)) op++;
    while (dti < 4 && strcmp(dts[dti], dtn)) dti++;
    CHECK(op < NOPS && dti < 4);
    if (op >= NOPS || dti >= 4) return;
    bool is_max = op < 2 || op == 6 || op == 7 || op == 8;
    th_dtype dt = dtypes[dti];
    th_pool_opts po;
    memset(&po, 0, sizeof po);
    int64_t k[3];
    for (int i = 0; i < 3; i++) {
        k[i] = v[i];
        po.stride[i] = v[3 + i];
        po.padding[i] = v[6 + i];
        po.dilation[i] = v[9 + i];
    }
    po.ceil_mode = v[12] != 0;
    po.count_exclude_pad = v[13] != 0;
    po.divisor_override = v[14];
    with_ceil[op] += po.ceil_mode;
    with_excl[op] += po.count_exclude_pad;
    with_div[op] += po.divisor_override != 0;
    th_tensor *x64 = load(name, "x"), *ref = load(name, "ref"), *idx = is_max ? load(name, "idx") : NULL;
    CHECK(x64 && ref && (!is_max || idx));
    if (x64 && ref && (!is_max || idx)) {
        th_tensor *x = laid_out(x64, dt, layout), *o = laid_out(ref, dt, (layout + 3) % 4);
        th_tensor *ixo = is_max ? laid_out(idx, TH_I64, (layout + 1) % 4) : NULL, *ix = NULL;
        th_tensor *y = call(op, dti, NULL, NULL, is_max ? &ix : NULL, x, k, &po);
        th_tensor *yo = call(op, dti, o, ixo, NULL, x, k, &po);
        CHECK(y != NULL && yo == o);
        if (!y || yo != o) fprintf(stderr, "pool_torch: %s (%s %s): %s\n", name, opn, dtn, th_last_error());
        for (int j = 0; j < 2 && y && yo; j++) {
            double e = error_of(j ? yo : y, ref, dt);
            if (e < 0 || e > bound[op][dti])
                fprintf(stderr, "pool_torch: %s (%s %s layout %d, %s): error %g above the bound %g\n", name, opn, dtn,
                        layout, j ? "out" : "new", e, bound[op][dti]);
            CHECK(e >= 0 && e <= bound[op][dti]);
            if (e > worst[op][dti]) worst[op][dti] = e;
        }
        if (is_max) {
            int nsp = opn[strlen(opn) - 2] - '0';
            bool same = same_indices(ix, idx, x64, nsp) && same_indices(ixo, idx, x64, nsp);
            if (!same) fprintf(stderr, "pool_torch: %s (%s %s): indices differ from torch's\n", name, opn, dtn);
            CHECK(same);
        }
        count[op][dti]++;
        cases++;
        th_tensor_release(y);
        th_tensor_release(ix);
        th_tensor_release(ixo);
        th_tensor_release(x);
        th_tensor_release(o);
    }
    th_tensor_release(x64);
    th_tensor_release(ref);
    th_tensor_release(idx);
}

int main(int argc, char **argv)
{
    (void)peer_read_all;
    (void)peer_contiguous;
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "pool_torch", "PyTorch");
    if (rc >= 0) return rc;
    test_begin();
    peer_each_case(dir, one_case);
    printf("pool_torch: %d cases against torch float64; worst error in ulps of the dtype:\n", cases);
    for (int op = 0; op < NOPS; op++) {
        printf("  %-20s", ops[op]);
        for (int dd = 0; dd < 4; dd++) printf("  %s %.3f (%d)", dts[dd], worst[op][dd], count[op][dd]);
        printf("\n");
    }
    printf("pool_torch: option cases with ceil_mode, count_exclude_pad, divisor_override:");
    for (int op = 0; op < NOPS; op++)
        if (with_ceil[op]) printf(" %s %d, %d, %d;", ops[op], with_ceil[op], with_excl[op], with_div[op]);
    printf("\n");
    CHECK(cases >= 800);
    static const int max_ops[3] = {0, 1, 8}, avg_ops[3] = {2, 3, 9};
    for (int i = 0; i < 3; i++) {
        CHECK(with_ceil[max_ops[i]] >= 16);
        CHECK(with_ceil[avg_ops[i]] >= 16 && with_excl[avg_ops[i]] >= 16 && with_div[avg_ops[i]] >= 8);
    }
    return test_end("pool_torch");
}
