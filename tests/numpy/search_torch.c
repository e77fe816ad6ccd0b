/* tests/numpy/search_torch.c: searchsorted, bucketize, histc, bincount, isin and isclose (ops/search.h) against
 * PyTorch 1.13, histogram, isclose and allclose (with their defaults) against NumPy (tests/numpy/search_torch.py
 * writes the cases: random shapes, ties, NaNs and infinities, N-d rows, empty operands, and the peers' results).
 * Each case runs in its dtype with its operands contiguous or in Fortran order (a transposed layout), as a new
 * result and, where the op has one, into an out (searchsorted's int32 out every other case); every result must
 * equal the peer's exactly (NaN where it has NaN): these ops compare and count, so there is no rounding to allow
 * for, and histc and the isclose of f32 compute in float as torch does.
 *
 * Usage: search_torch DIR PYTHON SCRIPT (the test command; skips with 77 without /usr/bin/python3 or torch). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "peer_files.h"

static const char *dir;
enum { NOPS = 9 };
static const char *op_names[NOPS] = {"searchsorted", "bucketize", "histc",      "histogram",  "bincount",
                                     "isin",         "isclose",   "np_isclose", "np_allclose"};
static int cases[NOPS], failed[NOPS];

static th_tensor *load(const char *name, const char *part)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s_%s.npy", dir, name, part);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fclose(f);
    return th_tensor_load_npy(path);
}

/* t copied into Fortran order (dims reversed in memory): a transposed layout of the same shape. */
static th_tensor *fortran(const th_tensor *t)
{
    int nd = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    int64_t strides[TH_MAX_DIMS], span = 1;
    for (int d = 0; d < nd; d++) strides[d] = span, span *= sizes[d] > 0 ? sizes[d] : 1;
    th_storage *s = th_storage_new(span * (int64_t)th_dtype_info(th_tensor_dtype(t))->size, NULL, NULL);
    th_tensor *v = th_tensor_new_with_storage(th_tensor_dtype(t), s, 0, nd, sizes, strides);
    th_storage_release(s);
    if (v) th_tensor_copy(v, t);
    return v;
}

/* A new contiguous tensor of dtype and shape. */
static th_tensor *newt(th_dtype dtype, int nd, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < nd; d++) n *= sizes[d];
    th_storage *s = th_storage_new(n * (int64_t)th_dtype_info(dtype)->size, NULL, NULL);
    th_tensor *t = th_tensor_new_with_storage(dtype, s, 0, nd, sizes, NULL);
    th_storage_release(s);
    return t;
}

/* got equals ref: one shape, and every value equal as double (NaN where ref has NaN). */
static bool same(const th_tensor *got, const th_tensor *ref)
{
    if (!got || !ref || th_tensor_ndim(got) != th_tensor_ndim(ref)) return false;
    for (int d = 0; d < th_tensor_ndim(ref); d++)
        if (th_tensor_sizes(got)[d] != th_tensor_sizes(ref)[d]) return false;
    th_tensor *g = newt(TH_F64, th_tensor_ndim(ref), th_tensor_sizes(ref));
    th_tensor *r = newt(TH_F64, th_tensor_ndim(ref), th_tensor_sizes(ref));
    bool ok = g && r && th_tensor_copy(g, got) == TH_OK && th_tensor_copy(r, ref) == TH_OK;
    const double *a = ok ? (const double *)th_tensor_data(g) : NULL, *b = ok ? (const double *)th_tensor_data(r) : NULL;
    for (int64_t i = 0; ok && i < th_tensor_numel(ref); i++) ok = a[i] == b[i] || (isnan(a[i]) && isnan(b[i]));
    th_tensor_release(g);
    th_tensor_release(r);
    return ok;
}

/* A new tensor of dtype with ref's shape, for the _out forms. */
static th_tensor *out_like(th_dtype dtype, const th_tensor *ref)
{
    return newt(dtype, th_tensor_ndim(ref), th_tensor_sizes(ref));
}

#define T(sfx, p) ((th_##sfx##_tensor *)(p))
/* The call for the real dtypes the cases use. */
#define EACH_REAL(dt, X)                                                                                       \
    switch (dt) {                                                                                              \
    case TH_F32: X(f32); break;                                                                                \
    case TH_F64: X(f64); break;                                                                                \
    case TH_I16: X(i16); break;                                                                                \
    case TH_I32: X(i32); break;                                                                                \
    case TH_I64: X(i64); break;                                                                                \
    case TH_U8: X(u8); break;                                                                                  \
    default: break;                                                                                            \
    }
#define EACH_FLOAT(dt, X)                                                                                      \
    switch (dt) {                                                                                              \
    case TH_F32: X(f32); break;                                                                                \
    case TH_F64: X(f64); break;                                                                                \
    default: break;                                                                                            \
    }
#define EACH_INT(dt, X)                                                                                        \
    switch (dt) {                                                                                              \
    case TH_I16: X(i16); break;                                                                                \
    case TH_I32: X(i32); break;                                                                                \
    case TH_I64: X(i64); break;                                                                                \
    case TH_U8: X(u8); break;                                                                                  \
    default: break;                                                                                            \
    }

static void one_case(const char *line)
{
    char name[64], op[32], dts[16];
    int layout;
    double p[4];
    if (sscanf(line, "%63s %31s %15s %d %lf %lf %lf %lf", name, op, dts, &layout, &p[0], &p[1], &p[2], &p[3]) != 8) {
        CHECK(!"a line of cases.txt");
        return;
    }
    int k = 0;
    while (k < NOPS && strcmp(op_names[k], op) != 0) k++;
    if (k == NOPS) {
        CHECK(!"a known op");
        return;
    }
    th_tensor *a0 = load(name, "a"), *b0 = load(name, "b"), *c0 = load(name, "c"), *ref = load(name, "ref");
    th_tensor *ref2 = load(name, "ref2");
    th_tensor *a = a0 && layout ? fortran(a0) : th_tensor_retain(a0);
    th_tensor *b = b0 && layout ? fortran(b0) : th_tensor_retain(b0);
    const th_dtype dt = th_tensor_dtype(a0);
    th_tensor *r = NULL, *r2 = NULL, *o = NULL;
    int st = TH_OK;
    bool ok = ref != NULL;
    if (k == 0 || k == 1) {
        const th_search_opts opts = {.right = p[0] != 0};
        o = out_like(cases[k] % 2 ? TH_I32 : TH_I64, ref);
#define SS(sfx)                                                                                                \
    if (k == 0) {                                                                                              \
        r = (th_tensor *)th_##sfx##_searchsorted(T(sfx, a), T(sfx, b), &opts);                                 \
        st = th_##sfx##_searchsorted_out(o, T(sfx, a), T(sfx, b), &opts);                                      \
    } else {                                                                                                   \
        r = (th_tensor *)th_##sfx##_bucketize(T(sfx, a), T(sfx, b), opts.right);                               \
        st = th_##sfx##_bucketize_out(o, T(sfx, a), T(sfx, b), opts.right);                                    \
    }
        EACH_REAL(dt, SS)
        ok = ok && r && th_tensor_dtype(r) == TH_I64 && same(r, ref) && st == TH_OK && same(o, ref);
    } else if (k == 2) {
        o = out_like(dt, ref);
#define HC(sfx)                                                                                                \
    r = (th_tensor *)th_##sfx##_histc(T(sfx, a), (int64_t)p[0], p[1], p[2]);                                   \
    st = th_##sfx##_histc_out(T(sfx, o), T(sfx, a), (int64_t)p[0], p[1], p[2]);
        EACH_FLOAT(dt, HC)
        ok = ok && r && th_tensor_dtype(r) == dt && same(r, ref) && st == TH_OK && same(o, ref);
    } else if (k == 3) {
        const double range[2] = {p[2], p[3]};
        th_f64_tensor *h = NULL, *e = NULL;
        st = th_f64_histogram(T(f64, a), (int64_t)p[0], p[1] != 0 ? range : NULL, T(f64, c0), &h, &e);
        r = (th_tensor *)h;
        r2 = (th_tensor *)e;
        ok = ok && st == TH_OK && same(r, ref) && same(r2, ref2);
    } else if (k == 4) {
#define BC(sfx) r = c0 ? (th_tensor *)th_##sfx##_bincount_weighted(T(sfx, a), T(f64, c0), (int64_t)p[0])        \
                       : (th_tensor *)th_##sfx##_bincount(T(sfx, a), (int64_t)p[0]);
        EACH_INT(dt, BC)
        ok = ok && r && th_tensor_dtype(r) == (c0 ? TH_F64 : TH_I64) && same(r, ref);
    } else if (k == 5) {
        o = out_like(TH_BOOL, ref);
#define II(sfx)                                                                                                \
    r = (th_tensor *)th_##sfx##_isin(T(sfx, a), T(sfx, b), p[0] != 0);                                         \
    st = th_##sfx##_isin_out(T(bool, o), T(sfx, a), T(sfx, b), p[0] != 0);
        EACH_REAL(dt, II)
        ok = ok && r && same(r, ref) && st == TH_OK && same(o, ref);
    } else if (k == 6 || k == 7) {
        o = out_like(TH_BOOL, ref);
#define IC(sfx)                                                                                                \
    r = (th_tensor *)th_##sfx##_isclose(T(sfx, a), T(sfx, b), p[0], p[1], p[2] != 0);                          \
    st = th_##sfx##_isclose_out(T(bool, o), T(sfx, a), T(sfx, b), p[0], p[1], p[2] != 0);
        EACH_FLOAT(dt, IC)
        ok = ok && r && same(r, ref) && st == TH_OK && same(o, ref);
    } else {
        bool all = false;
        st = th_f64_allclose(T(f64, a), T(f64, b), p[0], p[1], p[2] != 0, &all);
        ok = ok && st == TH_OK && all == *(const bool *)th_tensor_data(ref);
    }
    cases[k]++;
    if (!ok) {
        failed[k]++;
        fprintf(stderr, "%s (%s %s layout %d): differs from the peer%s%s\n", name, op, dts, layout,
                th_last_error()[0] ? ": " : "", th_last_error());
    }
    CHECK(ok);
    th_clear_error();
    th_tensor *all[] = {a0, b0, c0, ref, ref2, a, b, r, r2, o};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) th_tensor_release(all[i]);
}

int main(int argc, char **argv)
{
    int rc = peer_start(argc, argv, "search_torch", "torch");
    if (rc >= 0) return rc;
    dir = argv[1];
    test_begin();
    int n = peer_each_case(dir, one_case);
    printf("search_torch: %d cases\n", n);
    for (int k = 0; k < NOPS; k++) printf("  %-13s %3d cases, %d differ\n", op_names[k], cases[k], failed[k]);
    return test_end("search_torch");
}
