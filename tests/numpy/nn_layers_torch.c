/* tests/numpy/nn_layers_torch.c: group_norm, batch_norm (inference), glu, swiglu, geglu, embedding, rope,
 * nll_loss and cross_entropy (ops/nn.h), adaptive_avg_pool2d and adaptive_max_pool2d (ops/conv.h, indices
 * equal to torch's) against PyTorch 1.13 in float64 (tests/numpy/nn_layers_torch.py writes the cases: inputs already rounded to each
 * case's dtype, and torch's float64 result from them). Every case runs as a new result and into an out, the
 * input in the layout the case names (contiguous, dims reversed, stepped, last dim reversed) and the out and
 * parameters in others. The error is measured in units in the last place of the case's dtype at the reference
 * value, counted at no less than 2^-10 (1 for the f64 norms, whose x - mean rounds in double), since the results
 * pass through 0; for f64 gated units at no less than the scale of the rounding, |a| (glu) or |a * b|, since
 * torch's own float64 gelu (1 + erf, 1 + tanh) cancels for negative a, and for f64 rope at no less than
 * |a cos| + |b sin| (the difference of the two products cancels in both), for f64 losses at no less than 1
 * (cross_entropy's logit - logsumexp cancels at the logits' magnitude, up to 60 here, in torch's float64 too).
 * embedding must be exact. The worst per op and dtype is printed and
 * bounded.
 *
 * Usage: nn_layers_torch DIR PYTHON SCRIPT (the test command; skips with 77 without /usr/bin/python3 or torch). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "peer_files.h"

enum { NOPS = 13, OP_EMBEDDING = 6, OP_ROPE = 7, OP_NLL = 9, OP_APOOL = 11 };
static const char *ops[NOPS] = {"group_norm", "batch_norm", "glu", "swiglu", "geglu", "geglu_tanh", "embedding",
                                "rope_halves", "rope_interleaved", "nll_loss", "cross_entropy",
                                "adaptive_avg_pool2d", "adaptive_max_pool2d"};
static const char *dts[4] = {"f32", "f64", "f16", "bf16"};
static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_F16, TH_BF16};
/* Bounds on the error, ulps: op x dtype (f32, f64, f16, bf16). f32, f16 and bf16 compute in double and round
 * once (0.5 ulp, and a little more where the value lies within double's error of a rounding boundary); f64 has
 * no wider type, and torch's float64 silu, gelu and sigmoid have their own roundings. */
static const double bound[NOPS][4] = {{0.51, 8, 0.51, 0.51}, {0.51, 6, 0.51, 0.51}, {0.51, 4, 0.51, 0.51},
                                      {0.51, 4, 0.51, 0.51}, {0.51, 4, 0.51, 0.51}, {0.51, 4, 0.51, 0.51},
                                      {0, 0, 0, 0},          {0.51, 2, 0.51, 0.51}, {0.51, 2, 0.51, 0.51},
                                      {0.51, 8, 0.51, 0.51}, {0.51, 32, 0.51, 0.51},
                                      {0.51, 8, 0.51, 0.51}, {0, 0, 0, 0}};
static double worst[NOPS][4];
static int count[NOPS][4];

/* A view of t's shape and dtype dt over a new storage, in layout 0 contiguous, 1 dims reversed, 2 stepped by
 * 2, 3 the last dim reversed; holding t's values. */
static th_tensor *in_layout(const th_tensor *t, th_dtype dt, int layout)
{
    int ndim = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    int64_t strides[TH_MAX_DIMS], span = 1, offset = 0;
    if (layout == 1)
        for (int d = 0; d < ndim; d++) {
            strides[d] = span;
            span *= sizes[d];
        }
    else
        for (int d = ndim - 1; d >= 0; d--) {
            strides[d] = span * (layout == 2 ? 2 : 1);
            span *= sizes[d];
        }
    if (layout == 3 && ndim > 0) {
        offset = (sizes[ndim - 1] - 1) * strides[ndim - 1];
        strides[ndim - 1] = -strides[ndim - 1];
    }
    th_storage *s = th_storage_new((layout == 2 ? 2 : 1) * span * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *v = th_tensor_new_with_storage(dt, s, offset, ndim, sizes, strides);
    th_storage_release(s);
    if (v) th_tensor_copy(v, t);
    return v;
}

static double ulp_at(th_dtype dt, double v, double floor)
{
    int mant = dt == TH_F32 ? 24 : dt == TH_F64 ? 53 : dt == TH_F16 ? 11 : 8;
    int emin = dt == TH_F32 ? -126 : dt == TH_F64 ? -1022 : dt == TH_F16 ? -14 : -126;
    double a = fabs(v) > floor ? fabs(v) : floor;
    int e;
    frexp(a, &e);
    if (e - 1 < emin) e = emin + 1;
    return ldexp(1.0, e - mant);
}

/* got against ref: the worst error in ulps at no less than floor (nor than scale's element, where scale is not
 * NULL); -1 where a NaN or infinity differs. */
static double ulps(const th_tensor *got, const th_tensor *ref, th_dtype dt, double floor, const th_tensor *scale)
{
    th_tensor *g = in_layout(got, TH_F64, 0);
    const double *a = (const double *)th_tensor_data(g), *b = (const double *)th_tensor_data(ref);
    const double *sc = scale ? (const double *)th_tensor_data(scale) : NULL;
    double w = 0;
    for (int64_t i = 0; i < th_tensor_numel(ref); i++) {
        if (isnan(b[i]) || isinf(b[i]) || isnan(a[i]) || isinf(a[i])) {
            if (!(isnan(a[i]) && isnan(b[i])) && a[i] != b[i]) w = -1;
            if (w < 0) break;
            continue;
        }
        double e = fabs(a[i] - b[i]) / ulp_at(dt, b[i], sc && sc[i] > floor ? sc[i] : floor);
        if (e > w) w = e;
    }
    th_tensor_release(g);
    return w;
}

#define LAYER_CALL(sfx)                                                                                        \
    do {                                                                                                       \
        typedef th_##sfx##_tensor T;                                                                           \
        const T *tx = (const T *)x, *tm = (const T *)m, *tv = (const T *)v, *tw = (const T *)w,                \
                *tb = (const T *)b;                                                                            \
        T *to = (T *)out;                                                                                      \
        th_rope_layout lay = op == 8 ? TH_ROPE_INTERLEAVED : TH_ROPE_HALVES;                                   \
        const int64_t os[2] = {g / 1000, g % 1000};                                                            \
        switch (op) {                                                                                          \
        case 0: st = to ? th_##sfx##_group_norm_out(to, tx, g, tw, tb, eps) : ((r = (th_tensor *)th_##sfx##_group_norm(tx, g, tw, tb, eps)) ? 0 : -1); break; \
        case 1: st = to ? th_##sfx##_batch_norm_out(to, tx, tm, tv, tw, tb, eps) : ((r = (th_tensor *)th_##sfx##_batch_norm(tx, tm, tv, tw, tb, eps)) ? 0 : -1); break; \
        case 2: st = to ? th_##sfx##_glu_out(to, tx, (int)g) : ((r = (th_tensor *)th_##sfx##_glu(tx, (int)g)) ? 0 : -1); break; \
        case 3: st = to ? th_##sfx##_swiglu_out(to, tx, (int)g) : ((r = (th_tensor *)th_##sfx##_swiglu(tx, (int)g)) ? 0 : -1); break; \
        case 4: case 5: st = to ? th_##sfx##_geglu_out(to, tx, (int)g, op == 5) : ((r = (th_tensor *)th_##sfx##_geglu(tx, (int)g, op == 5)) ? 0 : -1); break; \
        case 6: st = to ? th_##sfx##_embedding_out(to, tx, (const th_i64_tensor *)m) : ((r = (th_tensor *)th_##sfx##_embedding(tx, (const th_i64_tensor *)m)) ? 0 : -1); break; \
        case 9: st = to ? th_##sfx##_nll_loss_out(to, tx, (const th_i64_tensor *)m, tw, lo) : ((r = (th_tensor *)th_##sfx##_nll_loss(tx, (const th_i64_tensor *)m, tw, lo)) ? 0 : -1); break; \
        case 10: st = to ? th_##sfx##_cross_entropy_out(to, tx, (const th_i64_tensor *)m, tw, lo) : ((r = (th_tensor *)th_##sfx##_cross_entropy(tx, (const th_i64_tensor *)m, tw, lo)) ? 0 : -1); break; \
        case 11: st = to ? th_##sfx##_adaptive_avg_pool2d_out(to, tx, os) : ((r = (th_tensor *)th_##sfx##_adaptive_avg_pool2d(tx, os)) ? 0 : -1); break; \
        case 12: st = to ? th_##sfx##_adaptive_max_pool2d_out(to, (th_i64_tensor *)v, tx, os) : ((r = (th_tensor *)th_##sfx##_adaptive_max_pool2d(tx, os, (th_i64_tensor **)ixp)) ? 0 : -1); break; \
        default: st = to ? th_##sfx##_rope_out(to, tx, tm, tv, lay) : ((r = (th_tensor *)th_##sfx##_rope(tx, tm, tv, lay)) ? 0 : -1); \
        }                                                                                                      \
    } while (0)

/* op in dtype dti: a new result (out NULL), or into out (returned on success); NULL on error. */
static th_tensor *call(int op, int dti, th_tensor *out, const th_tensor *x, int64_t g, const th_tensor *m,
                       const th_tensor *v, const th_tensor *w, const th_tensor *b, double eps, const th_loss_opts *lo,
                       th_tensor **ixp)
{
    th_tensor *r = NULL;
    int st = -1;
    switch (dti) {
    case 0: LAYER_CALL(f32); break;
    case 1: LAYER_CALL(f64); break;
    case 2: LAYER_CALL(f16); break;
    default: LAYER_CALL(bf16);
    }
    return out ? (st == 0 ? out : NULL) : r;
}

static const char *dir;
static int cases;

static th_tensor *load(const char *name, const char *part)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, part);
    return th_tensor_load_npy(path);
}

static void one_case(const char *line)
{
    char name[64], opn[32], dtn[16];
    long long g;
    int has_w, has_b, layout;
    double eps;
    if (sscanf(line, "%63s %31s %15s %lld %d %d %lf %d", name, opn, dtn, &g, &has_w, &has_b, &eps, &layout) != 8) {
        CHECK(!"a line of cases.txt that does not parse");
        return;
    }
    int op = 0, dti = 0;
    while (op < NOPS && strcmp(ops[op], opn)) op++;
    while (dti < 4 && strcmp(dts[dti], dtn)) dti++;
    CHECK(op < NOPS && dti < 4);
    if (op >= NOPS || dti >= 4) return;
    th_dtype dt = dtypes[dti];
    bool bn = op == 1 || op == OP_ROPE || op == OP_ROPE + 1; /* batch_norm's running statistics, rope's cosines and sines */
    bool loss = op == OP_NLL || op == OP_NLL + 1;
    bool scaled = op >= 2 && op != OP_EMBEDDING && op < OP_NLL, indexed = op == OP_EMBEDDING || loss;
    th_tensor *x64 = load(name, "x"), *ref = load(name, "ref");
    th_tensor *m64 = bn ? load(name, "m") : indexed ? load(name, "i") : NULL;
    th_tensor *v64 = bn ? load(name, "v") : NULL;
    int use_ignore = has_b; /* the losses' has_b: whether ignore_index is on */
    if (loss) has_b = 0;
    th_tensor *w64 = has_w ? load(name, "w") : NULL, *b64 = has_b ? load(name, "b") : NULL;
    th_tensor *s64 = scaled ? load(name, "s") : NULL;
    /* the losses: g is the reduction, use_ignore whether ignore_index (in _m) is on, eps the label smoothing */
    th_tensor *ig = loss ? load(name, "m") : NULL;
    th_loss_opts lo = {(th_reduction)(loss ? g : 0), loss && use_ignore,
                       ig ? (int64_t)*(const double *)th_tensor_data(ig) : 0, loss ? eps : 0};
    bool loaded = x64 && ref && (!bn || (m64 && v64)) && (!indexed || m64) && (!has_w || w64) &&
                  (!has_b || b64) && (!scaled || s64) && (!loss || ig);
    CHECK(loaded);
    if (loaded) {
        th_tensor *x = in_layout(x64, dt, layout);
        th_tensor *m = m64 ? in_layout(m64, indexed ? TH_I64 : dt, (layout + 1) % 4) : NULL;
        th_tensor *v = v64 ? in_layout(v64, dt, (layout + 2) % 4) : NULL;
        th_tensor *w = w64 ? in_layout(w64, dt, (layout + 3) % 4) : NULL;
        th_tensor *b = b64 ? in_layout(b64, dt, (layout + 1) % 4) : NULL;
        th_tensor *o = in_layout(ref, dt, (layout + 3) % 4);
        /* adaptive_max_pool2d: its indices, new and into an out, must equal torch's */
        th_tensor *ix = NULL, *ixo = op == OP_APOOL + 1 && ref ? in_layout(ref, TH_I64, layout) : NULL;
        th_tensor *y = call(op, dti, NULL, x, (int64_t)g, m, op == OP_APOOL + 1 ? ixo : v, w, b, eps, &lo, &ix);
        th_tensor *yo = call(op, dti, o, x, (int64_t)g, m, op == OP_APOOL + 1 ? ixo : v, w, b, eps, &lo, NULL);
        if (op == OP_APOOL + 1) {
            th_tensor *want = load(name, "j"), *c1 = want ? in_layout(want, TH_I64, 0) : NULL;
            th_tensor *c2 = want ? in_layout(want, TH_I64, 0) : NULL;
            bool same = want && ix && ixo && th_tensor_copy(c1, ix) == TH_OK && th_tensor_copy(c2, ixo) == TH_OK;
            for (int64_t i = 0; same && i < th_tensor_numel(want); i++)
                same = ((const int64_t *)th_tensor_data(c1))[i] == ((const int64_t *)th_tensor_data(want))[i] &&
                       ((const int64_t *)th_tensor_data(c2))[i] == ((const int64_t *)th_tensor_data(want))[i];
            if (!same) fprintf(stderr, "nn_layers_torch: %s (%s %s): indices differ from torch's\n", name, opn, dtn);
            CHECK(same);
            th_tensor *relj[] = {want, c1, c2};
            for (size_t k = 0; k < 3; k++) th_tensor_release(relj[k]);
        }
        th_tensor_release(ix);
        th_tensor_release(ixo);
        CHECK(y != NULL && yo == o);
        double floor = (op <= 1 || op >= OP_NLL) && dt == TH_F64 ? 1.0 : 0x1p-10;
        for (int k = 0; k < 2 && y && yo; k++) {
            double e = ulps(k ? yo : y, ref, dt, floor, dt == TH_F64 ? s64 : NULL);
            if (e < 0 || e > bound[op][dti])
                fprintf(stderr, "nn_layers_torch: %s (%s %s g %lld layout %d, %s): %s (%g ulps)\n", name, opn, dtn, g,
                        layout, k ? "out" : "new", e < 0 ? "a NaN or infinity differs" : "error above the bound", e);
            CHECK(e >= 0 && e <= bound[op][dti]);
            if (e > worst[op][dti]) worst[op][dti] = e;
        }
        count[op][dti]++;
        cases++;
        th_tensor *rel[] = {y, x, m, v, w, b, o};
        for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_tensor_release(rel[k]);
    }
    th_tensor *rel[] = {x64, ref, m64, v64, w64, b64, s64, ig};
    for (size_t k = 0; k < sizeof rel / sizeof rel[0]; k++) th_tensor_release(rel[k]);
}

int main(int argc, char **argv)
{
    (void)peer_read_all; /* peer_files.h's file readers: the file tests', not this one's */
    (void)peer_contiguous;
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "nn_layers_torch", "PyTorch");
    if (rc >= 0) return rc; /* 77: torch missing */
    test_begin();
    peer_each_case(dir, one_case);
    printf("nn_layers_torch: %d cases against torch float64; worst error in ulps of the result's dtype:\n", cases);
    for (int op = 0; op < NOPS; op++) {
        printf("  %-19s", ops[op]);
        for (int d = 0; d < 4; d++) printf("  %s %.4f (%d)", dts[d], worst[op][d], count[op][d]);
        printf("\n");
    }
    CHECK(cases >= 1500);
    return test_end("nn_layers_torch");
}
