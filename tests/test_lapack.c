/* tests/test_lapack.c: solve, inv, det, slogdet and cholesky (ops/lapack.h) for f32, f64, c64 and c128, through
 * LAPACKE or (a build without TH_USE_LAPACK) the built-in LU / Cholesky: closed-form cases, reconstruction
 * (A X = B, A A^-1 = I, L L^H = A, det(A) det(A^-1) = 1, det = sign exp(logabsdet)), batches, broadcast batch
 * dims, transposed and strided inputs and outs, empty and 0 x 0 matrices, and every error path: singular and
 * not positive-definite matrices at a batch index, inf / NaN, wrong shapes, wrong dtypes of inputs and outs,
 * NULLs. The reference products are computed in c128 with th_c128_matmul. NumPy's numbers are in
 * tests/numpy/numpy_lapack. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_C64, TH_C128};

static uint32_t seed = 2024;
static double urand(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (double)(seed >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

static bool is_complex(th_dtype dt) { return dt == TH_C64 || dt == TH_C128; }
static double tol(th_dtype dt) { return dt == TH_F32 || dt == TH_C64 ? 2e-4 : 1e-11; }

/* A tensor of dtype dt with the values v (real parts; imaginary parts im, or 0), row-major. */
static th_tensor *make(th_dtype dt, int ndim, const int64_t *sizes, const double *re, const double *im)
{
    th_c128_tensor *c = th_c128_empty(ndim, sizes);
    th_complex128 *p = th_c128_data(c);
    for (int64_t i = 0; i < th_c128_numel(c); i++) p[i] = re[i] + (im && is_complex(dt) ? im[i] : 0.0) * I;
    th_tensor *t = th_tensor_retain(th_c128_base(c));
    th_tensor *r = NULL;
    if (dt != TH_C128) {
        switch (dt) {
        case TH_F32: r = th_f32_base(th_f32_empty(ndim, sizes)); break;
        case TH_F64: r = th_f64_base(th_f64_empty(ndim, sizes)); break;
        default: r = th_c64_base(th_c64_empty(ndim, sizes)); break;
        }
        CHECK(th_tensor_copy(r, t) == TH_OK);
        th_tensor_release(t);
        t = r;
    }
    th_c128_release(c);
    return t;
}

/* Random values in [-1, 1] (and imaginary parts for complex dtypes), plus shift on the diagonal of each
 * trailing square matrix (a well-conditioned matrix for shift of a few n). */
static th_tensor *random_matrix(th_dtype dt, int ndim, const int64_t *sizes, double shift)
{
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) numel *= sizes[d];
    double re[4096], im[4096];
    int64_t r = ndim >= 2 ? sizes[ndim - 2] : 1, c = sizes[ndim - 1];
    for (int64_t i = 0; i < numel; i++) {
        re[i] = urand();
        im[i] = urand();
        int64_t row = (i / c) % r, col = i % c;
        if (ndim >= 2 && row == col) re[i] += shift;
    }
    return make(dt, ndim, sizes, re, im);
}

/* A c128 copy of t. */
static th_c128_tensor *as_c128(const th_tensor *t)
{
    th_c128_tensor *c = th_c128_empty(th_tensor_ndim(t), th_tensor_sizes(t));
    CHECK(th_tensor_copy(th_c128_base(c), t) == TH_OK);
    return c;
}

/* The largest |x - y| over the elements (shapes must match: else infinity). */
static double max_diff(const th_tensor *x, const th_tensor *y)
{
    if (!x || !y || th_tensor_ndim(x) != th_tensor_ndim(y)) return INFINITY;
    for (int d = 0; d < th_tensor_ndim(x); d++)
        if (th_tensor_sizes(x)[d] != th_tensor_sizes(y)[d]) return INFINITY;
    th_c128_tensor *a = as_c128(x), *b = as_c128(y);
    double m = 0;
    for (int64_t i = 0; i < th_c128_numel(a); i++) {
        double d = cabs(th_c128_data(a)[i] - th_c128_data(b)[i]);
        if (!(d <= m)) m = d;
    }
    th_c128_release(a);
    th_c128_release(b);
    return m;
}

/* x @ y in c128, as a th_tensor of c128. */
static th_tensor *product(const th_tensor *x, const th_tensor *y)
{
    th_c128_tensor *a = as_c128(x), *b = as_c128(y);
    th_c128_tensor *p = th_c128_matmul(a, b);
    th_c128_release(a);
    th_c128_release(b);
    return th_c128_base(p);
}

/* The conjugate transpose of the last two dims, in c128. */
static th_tensor *adjoint(const th_tensor *x)
{
    th_c128_tensor *a = as_c128(x);
    int nd = th_c128_ndim(a);
    th_c128_tensor *t = th_c128_transpose(a, nd - 2, nd - 1);
    th_c128_tensor *c = th_c128_clone(t);
    for (int64_t i = 0; i < th_c128_numel(c); i++) th_c128_data(c)[i] = conj(th_c128_data(c)[i]);
    th_c128_release(t);
    th_c128_release(a);
    return th_c128_base(c);
}

/* ---- the typed calls, by dtype ---- */

#define CALL(dt, verb, ...)                                                                                      \
    ((dt) == TH_F32 ? (th_tensor *)th_f32_##verb(__VA_ARGS__)                                                  \
     : (dt) == TH_F64 ? (th_tensor *)th_f64_##verb(__VA_ARGS__)                                                 \
     : (dt) == TH_C64 ? (th_tensor *)th_c64_##verb(__VA_ARGS__)                                                 \
                      : (th_tensor *)th_c128_##verb(__VA_ARGS__))
#define CALL_INT(dt, verb, ...)                                                                                  \
    ((dt) == TH_F32 ? th_f32_##verb(__VA_ARGS__)                                                                \
     : (dt) == TH_F64 ? th_f64_##verb(__VA_ARGS__)                                                              \
     : (dt) == TH_C64 ? th_c64_##verb(__VA_ARGS__)                                                              \
                      : th_c128_##verb(__VA_ARGS__))

static th_tensor *solve(th_dtype dt, const th_tensor *a, const th_tensor *b)
{
    return CALL(dt, solve, (void *)a, (void *)b);
}
static th_tensor *inv(th_dtype dt, const th_tensor *a) { return CALL(dt, inv, (void *)a); }
static th_tensor *det(th_dtype dt, const th_tensor *a) { return CALL(dt, det, (void *)a); }
static th_tensor *cholesky(th_dtype dt, const th_tensor *a) { return CALL(dt, cholesky, (void *)a); }
static int slogdet(th_dtype dt, const th_tensor *a, th_tensor **sign, th_tensor **logabs)
{
    return CALL_INT(dt, slogdet, (void *)a, (void *)sign, (void *)logabs);
}

static double c128_at(const th_tensor *t, int64_t i)
{
    th_c128_tensor *c = as_c128(t);
    double v = creal(th_c128_data(c)[i]);
    th_c128_release(c);
    return v;
}

/* ---- closed forms ---- */

static void test_closed_forms(void)
{
    /* A = [[4, 3], [6, 3]]: det -6, A^-1 = [[-1/2, 1/2], [1, -2/3]], A [1, 2] = [10, 12] */
    const double a[] = {4, 3, 6, 3}, b[] = {10, 12}, x[] = {1, 2}, ainv[] = {-0.5, 0.5, 1, -2.0 / 3.0};
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        th_tensor *A = make(dt, 2, SZ(2, 2), a, NULL), *B = make(dt, 1, SZ(2), b, NULL);
        th_tensor *X = solve(dt, A, B), *Xw = make(dt, 1, SZ(2), x, NULL);
        CHECK(X && th_tensor_ndim(X) == 1 && max_diff(X, Xw) < tol(dt));
        th_tensor *Ai = inv(dt, A), *Aw = make(dt, 2, SZ(2, 2), ainv, NULL);
        CHECK(max_diff(Ai, Aw) < tol(dt));
        th_tensor *D = det(dt, A);
        CHECK(D && th_tensor_ndim(D) == 0 && fabs(c128_at(D, 0) + 6.0) < 6 * tol(dt));
        th_tensor *S = NULL, *L = NULL;
        CHECK(slogdet(dt, A, &S, &L) == TH_OK);
        CHECK(S && L && th_tensor_ndim(S) == 0 && th_tensor_dtype(L) == (dt == TH_C64 ? TH_F32 : dt == TH_C128 ? TH_F64 : dt));
        CHECK(fabs(c128_at(S, 0) + 1.0) < tol(dt) && fabs(c128_at(L, 0) - log(6.0)) < tol(dt));
        th_tensor *tensors[] = {A, B, X, Xw, Ai, Aw, D, S, L};
        for (int i = 0; i < 9; i++) th_tensor_release(tensors[i]);

        /* [[4, 2], [2, 3]] = L L^T with L = [[2, 0], [1, sqrt 2]] */
        const double s[] = {4, 2, 2, 3}, l[] = {2, 0, 1, sqrt(2.0)};
        th_tensor *P = make(dt, 2, SZ(2, 2), s, NULL), *Lw = make(dt, 2, SZ(2, 2), l, NULL), *C = cholesky(dt, P);
        CHECK(max_diff(C, Lw) < tol(dt));
        th_tensor_release(P);
        th_tensor_release(Lw);
        th_tensor_release(C);
    }
    /* a Hermitian one: [[2, i], [-i, 2]] = L L^H with L = [[sqrt 2, 0], [-i/sqrt 2, sqrt(3/2)]]; the upper
     * triangle is not read (garbage there changes nothing) */
    const double hre[] = {2, 99, 0, 2}, him[] = {0, 99, -1, 0}, lre[] = {sqrt(2.0), 0, 0, sqrt(1.5)},
                 lim[] = {0, 0, -1 / sqrt(2.0), 0};
    for (int k = 2; k < 4; k++) {
        th_dtype dt = dtypes[k];
        th_tensor *H = make(dt, 2, SZ(2, 2), hre, him), *Lw = make(dt, 2, SZ(2, 2), lre, lim), *C = cholesky(dt, H);
        CHECK(max_diff(C, Lw) < tol(dt));
        th_tensor_release(H);
        th_tensor_release(Lw);
        th_tensor_release(C);
    }
    /* det of a permutation matrix (one swap): -1; of a singular one: 0, slogdet (0, -inf) */
    const double perm[] = {0, 1, 0, 1, 0, 0, 0, 0, 1}, sing[] = {1, 2, 3, 2, 4, 6, 1, 1, 1};
    th_tensor *P = make(TH_F64, 2, SZ(3, 3), perm, NULL), *Z = make(TH_F64, 2, SZ(3, 3), sing, NULL);
    th_tensor *D = det(TH_F64, P), *DZ = det(TH_F64, Z), *S = NULL, *L = NULL;
    CHECK(D && c128_at(D, 0) == -1.0);
    CHECK(DZ && c128_at(DZ, 0) == 0.0);
    CHECK(slogdet(TH_F64, Z, &S, &L) == TH_OK && c128_at(S, 0) == 0.0 && isinf(c128_at(L, 0)) && c128_at(L, 0) < 0);
    th_tensor *tensors[] = {P, Z, D, DZ, S, L};
    for (int i = 0; i < 6; i++) th_tensor_release(tensors[i]);
}

/* ---- reconstruction over random batches, every dtype ---- */

static void test_reconstruction(void)
{
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        /* solve: A (2, 3, 5, 5), B (2, 3, 5, 4): A X = B */
        th_tensor *A = random_matrix(dt, 4, SZ(2, 3, 5, 5), 4.0), *B = random_matrix(dt, 4, SZ(2, 3, 5, 4), 0.0);
        th_tensor *X = solve(dt, A, B), *AX = X ? product(A, X) : NULL;
        CHECK(max_diff(AX, B) < 10 * tol(dt));
        /* inv: A A^-1 = I */
        th_tensor *Ai = inv(dt, A), *AAi = Ai ? product(A, Ai) : NULL;
        th_c128_tensor *I5 = th_c128_eye(5, 5);
        th_tensor *Ib = th_c128_base(th_c128_expand(I5, 4, SZ(2, 3, 5, 5)));
        CHECK(max_diff(AAi, Ib) < 10 * tol(dt));
        /* det(A) det(A^-1) = 1, det = sign exp(logabsdet), batch shape (2, 3) */
        th_tensor *D = det(dt, A), *Di = det(dt, Ai), *S = NULL, *L = NULL;
        CHECK(D && th_tensor_ndim(D) == 2 && th_tensor_sizes(D)[0] == 2 && th_tensor_sizes(D)[1] == 3);
        CHECK(slogdet(dt, A, &S, &L) == TH_OK);
        th_c128_tensor *d = as_c128(D), *di = as_c128(Di), *s = as_c128(S), *l = as_c128(L);
        for (int64_t i = 0; i < 6; i++) {
            double complex dd = th_c128_data(d)[i], ddi = th_c128_data(di)[i];
            double complex via = th_c128_data(s)[i] * exp(creal(th_c128_data(l)[i]));
            CHECK(cabs(dd * ddi - 1.0) < 10 * tol(dt));
            CHECK(cabs(dd - via) < 10 * tol(dt) * cabs(dd));
            CHECK(fabs(cabs(th_c128_data(s)[i]) - 1.0) < tol(dt));
        }
        /* cholesky: A = M M^H + n I, L L^H = A, L lower with a positive real diagonal */
        th_tensor *M = random_matrix(dt, 3, SZ(3, 6, 6), 0.0), *MH = adjoint(M), *MMH = product(M, MH);
        th_c128_tensor *I6 = th_c128_eye(6, 6), *I6s = th_c128_mul_scalar(I6, 6.0);
        th_c128_tensor *shifted = th_c128_add(I6s, (th_c128_tensor *)MMH);
        th_tensor *P = th_tensor_retain(th_c128_base(shifted));
        if (dt != TH_C128) {
            th_tensor_release(P);
            P = make(dt, 3, SZ(3, 6, 6), (double[108]){0}, NULL);
            CHECK(th_tensor_copy(P, th_c128_base(shifted)) == TH_OK);
        }
        th_tensor *C = cholesky(dt, P), *CH = C ? adjoint(C) : NULL, *CCH = C ? product(C, CH) : NULL;
        CHECK(max_diff(CCH, P) < 20 * tol(dt));
        th_c128_tensor *c = C ? as_c128(C) : NULL;
        for (int64_t i = 0; c && i < th_c128_numel(c); i++) {
            int64_t row = i / 6 % 6, col = i % 6;
            double complex v = th_c128_data(c)[i];
            if (col > row) CHECK(v == 0);
            if (col == row) CHECK(creal(v) > 0 && cimag(v) == 0);
        }
        th_c128_release(c);
        th_tensor *tensors[] = {A, B, X, AX, Ai, AAi, Ib, D, Di, S, L, M, MH, MMH, P, C, CH, CCH};
        for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) th_tensor_release(tensors[i]);
        th_c128_tensor *cs[] = {I5, d, di, s, l, I6, I6s, shifted};
        for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) th_c128_release(cs[i]);
    }
}

/* ---- shapes: the vector rule, broadcasting, layouts, outs, empty ---- */

static void test_shapes(void)
{
    th_f64_tensor *A = (th_f64_tensor *)random_matrix(TH_F64, 3, SZ(2, 3, 3), 3.0);
    /* B (2, 3): A's shape without its last dim: a batch of vectors, X (2, 3) */
    th_f64_tensor *b = (th_f64_tensor *)random_matrix(TH_F64, 2, SZ(2, 3), 0.0);
    th_f64_tensor *x = th_f64_solve(A, b);
    CHECK(x && th_f64_ndim(x) == 2 && th_f64_size(x, 0) == 2 && th_f64_size(x, 1) == 3);
    th_f64_tensor *bc = th_f64_unsqueeze(b, 2), *xc = th_f64_solve(A, bc);
    th_f64_tensor *xcs = xc ? th_f64_squeeze_dim(xc, 2) : NULL;
    CHECK(xcs && max_diff(th_f64_base(x), th_f64_base(xcs)) < 1e-14);
    /* B (3,): one vector for the whole batch, X (2, 3) */
    th_f64_tensor *v = (th_f64_tensor *)random_matrix(TH_F64, 1, SZ(3), 0.0), *xv = th_f64_solve(A, v);
    CHECK(xv && th_f64_ndim(xv) == 2 && th_f64_size(xv, 0) == 2 && th_f64_size(xv, 1) == 3);
    /* B (3, 2): a matrix, broadcast over A's batch: X (2, 3, 2) */
    th_f64_tensor *m = (th_f64_tensor *)random_matrix(TH_F64, 2, SZ(3, 2), 0.0), *xm = th_f64_solve(A, m);
    CHECK(xm && th_f64_ndim(xm) == 3 && th_f64_size(xm, 2) == 2);
    th_tensor *axm = xm ? product(th_f64_base(A), th_f64_base(xm)) : NULL;
    th_f64_tensor *mb = th_f64_expand(m, 3, SZ(2, 3, 2));
    CHECK(max_diff(axm, th_f64_base(mb)) < 1e-12);
    /* A (4, 1, 3, 3) and B (2, 3, 1): batch (4, 2) */
    th_f64_tensor *A4 = (th_f64_tensor *)random_matrix(TH_F64, 4, SZ(4, 1, 3, 3), 3.0);
    th_f64_tensor *B2 = (th_f64_tensor *)random_matrix(TH_F64, 3, SZ(2, 3, 1), 0.0), *x42 = th_f64_solve(A4, B2);
    CHECK(x42 && th_f64_ndim(x42) == 4 && th_f64_size(x42, 0) == 4 && th_f64_size(x42, 1) == 2);

    /* transposed and strided inputs give what their contiguous copies give; outs of any strides */
    th_f64_tensor *big = (th_f64_tensor *)random_matrix(TH_F64, 2, SZ(6, 8), 0.0);
    th_f64_tensor *sq = th_f64_narrow(big, 1, 1, 6), *sqt = th_f64_transpose(sq, 0, 1);
    for (int64_t i = 0; i < 6; i++) th_f64_set(sqt, SZ(i, i), th_f64_get(sqt, SZ(i, i)) + 5.0);
    th_f64_tensor *sqc = th_f64_contiguous(sqt);
    th_f64_tensor *r1 = th_f64_inv(sqt), *r2 = th_f64_inv(sqc);
    CHECK(max_diff(th_f64_base(r1), th_f64_base(r2)) == 0);
    th_f64_tensor *outbig = th_f64_zeros(2, SZ(6, 12)), *outv = th_f64_narrow(outbig, 1, 0, 6);
    th_f64_tensor *outt = th_f64_transpose(outv, 0, 1);
    CHECK(th_f64_inv_out(outt, sqt) == TH_OK && max_diff(th_f64_base(outt), th_f64_base(r2)) < 1e-15);
    th_f64_tensor *sqct = th_f64_transpose(sqc, 0, 1), *sym = th_f64_matmul(sqc, sqct);
    th_f64_release(sqct);
    th_f64_tensor *ch1 = th_f64_cholesky(sym);
    CHECK(th_f64_cholesky_out(outt, sym) == TH_OK && max_diff(th_f64_base(outt), th_f64_base(ch1)) < 1e-15);
    th_f64_tensor *d1 = th_f64_det(sqt), *d0 = th_f64_zeros(0, NULL);
    CHECK(th_f64_det_out(d0, sqc) == TH_OK && fabs(th_f64_get(d0, NULL) - th_f64_get(d1, NULL)) <=
                                                  1e-12 * fabs(th_f64_get(d1, NULL)));
    th_f64_tensor *rhs = (th_f64_tensor *)random_matrix(TH_F64, 2, SZ(6, 12), 0.0), *rhsv = th_f64_narrow(rhs, 1, 0, 6);
    th_f64_tensor *s1 = th_f64_solve(sqt, rhsv), *s2 = th_f64_solve(sqc, rhsv);
    CHECK(max_diff(th_f64_base(s1), th_f64_base(s2)) < 1e-13);
    /* out overlapping the input: in place */
    th_f64_tensor *ip = th_f64_clone(sqc);
    CHECK(th_f64_inv_out(ip, ip) == TH_OK && max_diff(th_f64_base(ip), th_f64_base(r2)) < 1e-15);
    CHECK(th_f64_solve_out(rhsv, sqc, rhsv) == TH_OK && max_diff(th_f64_base(rhsv), th_f64_base(s2)) < 1e-15);

    /* empty: a batch of none, 0 x 0 matrices (det 1, slogdet (1, 0)) */
    th_f64_tensor *e = th_f64_zeros(3, SZ(0, 3, 3)), *ei = th_f64_inv(e), *ed = th_f64_det(e);
    CHECK(ei && th_f64_numel(ei) == 0 && ed && th_f64_ndim(ed) == 1 && th_f64_numel(ed) == 0);
    th_f64_tensor *z = th_f64_zeros(3, SZ(2, 0, 0)), *zd = th_f64_det(z), *zs = NULL, *zl = NULL;
    CHECK(zd && th_f64_numel(zd) == 2 && th_f64_get(zd, SZ(1)) == 1.0);
    CHECK(th_f64_slogdet(z, &zs, &zl) == TH_OK && th_f64_get(zs, SZ(0)) == 1.0 && th_f64_get(zl, SZ(0)) == 0.0);
    th_f64_tensor *z20 = th_f64_zeros(2, SZ(2, 0)), *zc = th_f64_cholesky(z), *zz = th_f64_solve(z, z20);
    CHECK(zc && th_f64_numel(zc) == 0 && zz && th_f64_numel(zz) == 0);
    th_f64_release(zz);
    th_f64_release(z20);
    th_f64_tensor *fs[] = {A, b, x, bc, xc, xcs, v, xv, m, xm, mb, A4, B2, x42, big, sq, sqt, sqc, r1, r2, outbig,
                           outv, outt, sym, ch1, d1, d0, rhs, rhsv, s1, s2, ip, e, ei, ed, z, zd, zs, zl, zc};
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
    th_tensor_release(axm);
}

/* ---- errors ---- */

static void test_errors(void)
{
    /* a batch of 3 whose matrix 1 is singular (its second column is twice its first) */
    double vals[27];
    for (int i = 0; i < 27; i++) vals[i] = (i % 4 == 0) ? 3.0 : 0.5 * (i % 3);
    vals[9 + 1] = 2 * vals[9 + 0];
    vals[9 + 4] = 2 * vals[9 + 3];
    vals[9 + 7] = 2 * vals[9 + 6];
    th_f64_tensor *A = (th_f64_tensor *)make(TH_F64, 3, SZ(3, 3, 3), vals, NULL);
    th_f64_tensor *B = th_f64_ones(2, SZ(3, 3));
    CHECK_NULL(th_f64_solve(A, B), TH_ERR_LINALG, "th_f64_solve", "singular at batch index 1: pivot");
    CHECK_NULL(th_f64_inv(A), TH_ERR_LINALG, "th_f64_inv", "singular at batch index 1");
    th_f64_tensor *out = th_f64_zeros(3, SZ(3, 3, 3));
    CHECK_FAILS(th_f64_inv_out(out, A), TH_ERR_LINALG, "th_f64_inv_out", "batch index 1");
    th_f64_tensor *outv = th_f64_zeros(2, SZ(3, 3)); /* B (3, 3) is A's shape without its last dim: vectors */
    CHECK_FAILS(th_f64_solve_out(outv, A, B), TH_ERR_LINALG, "th_f64_solve_out", "batch index 1");
    th_f64_release(outv);
    /* singular det is 0, not an error */
    th_f64_tensor *d = th_f64_det(A);
    CHECK(d && th_f64_get(d, SZ(1)) == 0.0 && th_f64_get(d, SZ(0)) != 0.0);
    th_f64_release(d);
    /* one matrix: no batch index; the pivot named (a zero second column: pivot 1) */
    const double one[] = {1, 0, 0, 0};
    th_f64_tensor *S = (th_f64_tensor *)make(TH_F64, 2, SZ(2, 2), one, NULL);
    CHECK_NULL(th_f64_inv(S), TH_ERR_LINALG, "th_f64_inv", "A is singular: pivot 1 of its LU factorisation (U[1, 1]) is 0");
    /* not positive-definite at batch index 2, leading minor of order 2 */
    th_f64_tensor *P = th_f64_zeros(3, SZ(3, 2, 2));
    const double p0[] = {4, 1, 1, 3}, p2[] = {1, 2, 2, 1}; /* the second: minor of order 2 is -3 */
    for (int i = 0; i < 4; i++) {
        th_f64_set(P, SZ(0, i / 2, i % 2), p0[i]);
        th_f64_set(P, SZ(1, i / 2, i % 2), p0[i]);
        th_f64_set(P, SZ(2, i / 2, i % 2), p2[i]);
    }
    CHECK_NULL(th_f64_cholesky(P), TH_ERR_LINALG, "th_f64_cholesky",
               "not positive-definite at batch index 2: its leading minor of order 2 is not (pivot 1)");
    th_c128_tensor *Pc = (th_c128_tensor *)make(TH_C128, 2, SZ(2, 2), p2, NULL);
    CHECK_NULL(th_c128_cholesky(Pc), TH_ERR_LINALG, "th_c128_cholesky", "leading minor of order 2");
    th_f32_tensor *Pf = (th_f32_tensor *)make(TH_F32, 2, SZ(2, 2), (const double[]){-1, 0, 0, 1}, NULL);
    CHECK_NULL(th_f32_cholesky(Pf), TH_ERR_LINALG, "th_f32_cholesky", "leading minor of order 1");
    /* NaN in the lower triangle: an error, not a NaN factor (OpenBLAS's potrf can let it through) */
    th_f64_tensor *N = (th_f64_tensor *)make(TH_F64, 2, SZ(2, 2), (const double[]){4, 0, NAN, 4}, NULL);
    CHECK_NULL(th_f64_cholesky(N), TH_ERR_LINALG, "th_f64_cholesky", "not positive-definite");
    /* inf and NaN in solve and inv */
    th_f64_tensor *Ninf = (th_f64_tensor *)make(TH_F64, 2, SZ(2, 2), (const double[]){INFINITY, 0, 0, 1}, NULL);
    th_f64_tensor *v2 = th_f64_ones(1, SZ(2));
    CHECK_NULL(th_f64_solve(Ninf, v2), TH_ERR_LINALG, "th_f64_solve", "inf or NaN");
    CHECK_NULL(th_f64_inv(N), TH_ERR_LINALG, "th_f64_inv", "inf or NaN");
    th_c64_tensor *Z = (th_c64_tensor *)make(TH_C64, 2, SZ(2, 2), (const double[]){0, 0, 0, 0}, NULL);
    CHECK_NULL(th_c64_inv(Z), TH_ERR_LINALG, "th_c64_inv", "pivot 0");
    th_c64_release(Z);

    /* shapes */
    th_f64_tensor *R = th_f64_ones(2, SZ(2, 3)), *V = th_f64_ones(1, SZ(3));
    CHECK_NULL(th_f64_inv(R), TH_ERR_SHAPE, "th_f64_inv", "must be a square matrix or a batch of them");
    CHECK_NULL(th_f64_det(V), TH_ERR_SHAPE, "th_f64_det", "it has shape (3)");
    CHECK_NULL(th_f64_cholesky(R), TH_ERR_SHAPE, "th_f64_cholesky", "square");
    CHECK_NULL(th_f64_solve(R, V), TH_ERR_SHAPE, "th_f64_solve", "square");
    CHECK_NULL(th_f64_solve(S, V), TH_ERR_SHAPE, "th_f64_solve", "B must be (*, 2) or (*, 2, k)");
    th_f64_tensor *s0 = th_f64_zeros(0, NULL);
    CHECK_NULL(th_f64_solve(S, s0), TH_ERR_SHAPE, "th_f64_solve", "B must be");
    th_f64_tensor *A3 = th_f64_ones(3, SZ(3, 2, 2)), *B4 = th_f64_ones(3, SZ(4, 2, 1));
    CHECK_NULL(th_f64_solve(A3, B4), TH_ERR_SHAPE, "th_f64_solve", "do not broadcast (3 vs 4)");
    th_f64_tensor *o22 = th_f64_zeros(2, SZ(2, 2)), *o3 = th_f64_zeros(1, SZ(3));
    CHECK_FAILS(th_f64_inv_out(o3, S), TH_ERR_SHAPE, "th_f64_inv_out", "out has shape (3); the result has shape (2, 2)");
    CHECK_FAILS(th_f64_det_out(o22, S), TH_ERR_SHAPE, "th_f64_det_out", "the result has shape ()");
    CHECK_FAILS(th_f64_solve_out(o22, S, v2), TH_ERR_SHAPE, "th_f64_solve_out", "the result has shape (2)");

    /* dtypes: inputs and outs */
    th_f32_tensor *f = th_f32_ones(2, SZ(2, 2));
    th_c128_tensor *c = th_c128_ones(0, NULL);
    th_f64_tensor *l0 = th_f64_zeros(0, NULL), *c2 = (th_f64_tensor *)th_c128_ones(2, SZ(2, 2));
    CHECK_NULL(th_f64_inv((th_f64_tensor *)f), TH_ERR_DTYPE, "th_f64_inv", "A is f32, not f64");
    CHECK_NULL(th_f64_solve(S, (th_f64_tensor *)f), TH_ERR_DTYPE, "th_f64_solve", "B is f32, not f64");
    CHECK_FAILS(th_f64_inv_out((th_f64_tensor *)f, S), TH_ERR_DTYPE, "th_f64_inv_out", "out is f32, not f64");
    CHECK_FAILS(th_f64_solve_out(c2, S, v2), TH_ERR_DTYPE, "th_f64_solve_out", "out is c128, not f64");
    CHECK_FAILS(th_f64_cholesky_out((th_f64_tensor *)f, S), TH_ERR_DTYPE, "th_f64_cholesky_out", "out is f32");
    CHECK_FAILS(th_f64_det_out((th_f64_tensor *)c, S), TH_ERR_DTYPE, "th_f64_det_out", "out is c128");
    th_c128_tensor *Sc = (th_c128_tensor *)make(TH_C128, 2, SZ(2, 2), (const double[]){2, 0, 0, 3}, NULL);
    /* c128's logabsdet is f64: a c128 one is refused */
    CHECK_FAILS(th_c128_slogdet_out(c, (th_f64_tensor *)c, Sc), TH_ERR_DTYPE, "th_c128_slogdet_out",
                "logabsdet is c128, not f64");
    CHECK_FAILS(th_c128_slogdet_out((th_c128_tensor *)l0, l0, Sc), TH_ERR_DTYPE, "th_c128_slogdet_out",
                "sign is f64, not c128");
    CHECK(th_c128_slogdet_out(c, l0, Sc) == TH_OK && fabs(th_f64_get(l0, NULL) - log(6.0)) < 1e-15);
    th_c128_tensor *sg = (th_c128_tensor *)S; /* poisoned: must come back NULL */
    th_f64_tensor *la = S;
    CHECK_FAILS(th_c128_slogdet((th_c128_tensor *)S, &sg, &la), TH_ERR_DTYPE, "th_c128_slogdet", "A is f64");
    CHECK(sg == NULL && la == NULL);

    /* NULLs */
    CHECK_NULL(th_f64_inv(NULL), TH_ERR_INVALID, "th_f64_inv", "NULL A");
    CHECK_NULL(th_f64_solve(S, NULL), TH_ERR_INVALID, "th_f64_solve", "NULL B");
    CHECK_FAILS(th_f64_inv_out(NULL, S), TH_ERR_INVALID, "th_f64_inv_out", "NULL out");
    CHECK_FAILS(th_f64_solve_out(NULL, S, v2), TH_ERR_INVALID, "th_f64_solve_out", "NULL out");
    CHECK_FAILS(th_f64_det_out(NULL, S), TH_ERR_INVALID, "th_f64_det_out", "NULL out");
    CHECK_FAILS(th_f64_cholesky_out(NULL, S), TH_ERR_INVALID, "th_f64_cholesky_out", "NULL out");
    CHECK_FAILS(th_f64_slogdet_out(NULL, l0, S), TH_ERR_INVALID, "th_f64_slogdet_out", "NULL sign");
    CHECK_FAILS(th_f64_slogdet_out(l0, NULL, S), TH_ERR_INVALID, "th_f64_slogdet_out", "NULL logabsdet");
    CHECK_FAILS(th_f64_slogdet(NULL, NULL, NULL), TH_ERR_INVALID, "th_f64_slogdet", "NULL A");
    /* slogdet may be asked for one part */
    th_f64_tensor *only = NULL;
    CHECK(th_f64_slogdet(S, NULL, &only) == TH_OK && only && isinf(th_f64_get(only, NULL)));
    th_f64_release(only);

    th_f64_tensor *fs[] = {A, B, out, S, P, N, Ninf, v2, R, V, s0, A3, B4, o22, o3, l0};
    th_c128_release((th_c128_tensor *)c2);
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
    th_c128_release(Pc);
    th_c128_release(c);
    th_c128_release(Sc);
    th_f32_release(Pf);
    th_f32_release(f);
}


/* ---- qr, eigh, svd, svdvals: reconstruction and orthonormality with LAPACK, refusals without ---- */

static th_tensor *diag_embed_c128(const th_tensor *v, int64_t rows, int64_t cols)
{
    /* v (*, k) real -> (*, rows, cols) c128 with v on the diagonal */
    th_c128_tensor *c = as_c128(v);
    int nd = th_c128_ndim(c);
    int64_t k = th_c128_size(c, nd - 1), batch = th_c128_numel(c) / (k ? k : 1), sizes[8];
    for (int d = 0; d < nd - 1; d++) sizes[d] = th_c128_size(c, d);
    sizes[nd - 1] = rows;
    sizes[nd] = cols;
    th_c128_tensor *m = th_c128_zeros(nd + 1, sizes);
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < k; i++) th_c128_data(m)[b * rows * cols + i * cols + i] = th_c128_data(c)[b * k + i];
    th_c128_release(c);
    return th_c128_base(m);
}

static void test_decompositions(void)
{
    const int64_t shapes[3][3] = {{2, 5, 3}, {2, 3, 5}, {2, 4, 4}};
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        for (int sh = 0; sh < 3; sh++) {
            th_tensor *A = random_matrix(dt, 3, shapes[sh], 0.0), *Q = NULL, *R = NULL, *U = NULL, *S = NULL,
                      *Vh = NULL, *W = NULL, *V = NULL;
            int64_t m = shapes[sh][1], n = shapes[sh][2], kk = m < n ? m : n;
            int rq = CALL_INT(dt, qr, (void *)A, (void *)&Q, (void *)&R);
            int rs = CALL_INT(dt, svd, (void *)A, (void *)&U, (void *)&S, (void *)&Vh);
            th_tensor *sv = CALL(dt, svdvals, (void *)A);
            if (!th_linalg_lapack()) {
                CHECK(rq == TH_ERR_UNSUPPORTED && Q == NULL && R == NULL);
                CHECK(rs == TH_ERR_UNSUPPORTED && U == NULL && S == NULL && Vh == NULL && sv == NULL);
                CHECK(strstr(th_last_error(), "svdvals: needs LAPACK") && strstr(th_last_error(), "-Dlapack=enabled"));
                th_tensor_release(A);
                continue;
            }
            CHECK(rq == TH_OK && rs == TH_OK && sv);
            /* A = Q R, Q^H Q = I, R upper triangular */
            th_tensor *QR = Q && R ? product(Q, R) : NULL, *QH = Q ? adjoint(Q) : NULL, *QHQ = QH ? product(QH, Q) : NULL;
            th_c128_tensor *Ik = th_c128_eye(kk, kk);
            CHECK(max_diff(QR, A) < 20 * tol(dt));
            th_c128_tensor *Ikb = th_c128_expand(Ik, 3, SZ(2, kk, kk));
            CHECK(max_diff(QHQ, th_c128_base(Ikb)) < 20 * tol(dt));
            th_c128_tensor *r = R ? as_c128(R) : NULL;
            for (int64_t i = 0; r && i < th_c128_numel(r); i++)
                if ((i / n) % kk > i % n) CHECK(th_c128_data(r)[i] == 0);
            /* A = U diag(S) Vh, S descending, equal to svdvals */
            th_tensor *D = S ? diag_embed_c128(S, kk, kk) : NULL, *UD = D ? product(U, D) : NULL,
                      *UDV = UD ? product(UD, Vh) : NULL;
            CHECK(max_diff(UDV, A) < 20 * tol(dt));
            CHECK(max_diff(sv, S) < 20 * tol(dt));
            CHECK(S && th_tensor_dtype(S) == (is_complex(dt) ? (dt == TH_C64 ? TH_F32 : TH_F64) : dt));
            th_c128_tensor *s = S ? as_c128(S) : NULL;
            for (int64_t i = 0; s && i + 1 < th_c128_numel(s); i++)
                if ((i + 1) % kk) CHECK(creal(th_c128_data(s)[i]) >= creal(th_c128_data(s)[i + 1]));
            /* eigh of A^H A (Hermitian): A^H A V = V diag(W), W ascending = S^2 reversed */
            th_tensor *AH = adjoint(A), *G = product(AH, A), *Gd = make(dt, 3, SZ(2, n, n), (double[50]){0}, NULL);
            CHECK(th_tensor_copy(Gd, G) == TH_OK);
            CHECK(CALL_INT(dt, eigh, (void *)Gd, (void *)&W, (void *)&V) == TH_OK);
            th_tensor *DW = W ? diag_embed_c128(W, n, n) : NULL, *GV = V ? product(Gd, V) : NULL,
                      *VW = DW ? product(V, DW) : NULL;
            CHECK(max_diff(GV, VW) < 50 * tol(dt));
            th_c128_tensor *w = W ? as_c128(W) : NULL;
            for (int64_t b = 0; w && b < 2; b++)
                for (int64_t i = 0; i < kk; i++) {
                    double want = pow(creal(th_c128_data(s)[b * kk + i]), 2);
                    CHECK(fabs(creal(th_c128_data(w)[b * n + n - 1 - i]) - want) < 50 * tol(dt) * (1 + want));
                }
            /* values alone */
            th_tensor *W2 = NULL;
            CHECK(CALL_INT(dt, eigh, (void *)Gd, (void *)&W2, NULL) == TH_OK && max_diff(W, W2) < 50 * tol(dt));
            th_tensor *ts[] = {A, Q, R, U, S, Vh, sv, QR, QH, QHQ, D, UD, UDV, AH, G, Gd, W, V, DW, GV, VW, W2};
            for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) th_tensor_release(ts[i]);
            th_c128_tensor *cs[] = {Ik, Ikb, r, s, w};
            for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) th_c128_release(cs[i]);
        }
    }
    /* closed forms: eigh of [[2, 1], [1, 2]] is (1, 3); svdvals of diag(3, -4) is (4, 3); qr of [[3], [4]] */
    th_f64_tensor *E = (th_f64_tensor *)make(TH_F64, 2, SZ(2, 2), (const double[]){2, 1, 1, 2}, NULL), *ev = NULL;
    th_f64_tensor *Dg = (th_f64_tensor *)make(TH_F64, 2, SZ(2, 2), (const double[]){3, 0, 0, -4}, NULL);
    th_f64_tensor *C = (th_f64_tensor *)make(TH_F64, 2, SZ(2, 1), (const double[]){3, 4}, NULL), *q = NULL, *r = NULL;
    if (th_linalg_lapack()) {
        CHECK(th_f64_eigh(E, &ev, NULL) == TH_OK && fabs(th_f64_get(ev, SZ(0)) - 1) < 1e-15 &&
              fabs(th_f64_get(ev, SZ(1)) - 3) < 1e-15);
        th_f64_tensor *sv = th_f64_svdvals(Dg);
        CHECK(sv && th_f64_get(sv, SZ(0)) == 4.0 && th_f64_get(sv, SZ(1)) == 3.0);
        th_f64_release(sv);
        CHECK(th_f64_qr(C, &q, &r) == TH_OK && th_f64_size(q, 1) == 1 && th_f64_numel(r) == 1 &&
              fabs(fabs(th_f64_get(r, SZ(0, 0))) - 5) < 1e-15);
        /* outs: wrong dtypes and shapes */
        th_f64_tensor *o2 = th_f64_zeros(1, SZ(2)), *o3 = th_f64_zeros(1, SZ(3)), *m22 = th_f64_zeros(2, SZ(2, 2));
        th_c128_tensor *c2 = th_c128_zeros(1, SZ(2)), *cm = th_c128_zeros(2, SZ(2, 2)), *CE = (th_c128_tensor *)make(TH_C128, 2, SZ(2, 2), (const double[]){2, 1, 1, 2}, NULL);
        CHECK(th_f64_eigh_out(o2, m22, E) == TH_OK && fabs(th_f64_get(o2, SZ(1)) - 3) < 1e-15);
        CHECK(th_f64_eigh_out(o2, NULL, E) == TH_OK);
        CHECK_FAILS(th_f64_eigh_out(o3, NULL, E), TH_ERR_SHAPE, "th_f64_eigh_out", "the result has shape (2)");
        CHECK_FAILS(th_c128_eigh_out((th_f64_tensor *)c2, cm, CE), TH_ERR_DTYPE, "th_c128_eigh_out",
                    "eigenvalues is c128, not f64");
        CHECK_FAILS(th_f64_svdvals_out(o3, Dg), TH_ERR_SHAPE, "th_f64_svdvals_out", "the result has shape (2)");
        CHECK_FAILS(th_c128_svdvals_out((th_f64_tensor *)c2, CE), TH_ERR_DTYPE, "th_c128_svdvals_out", "out is c128");
        CHECK(th_c128_svdvals_out(o2, CE) == TH_OK && fabs(th_f64_get(o2, SZ(0)) - 3) < 1e-14);
        CHECK_FAILS(th_f64_svd_out(m22, o3, m22, Dg), TH_ERR_SHAPE, "th_f64_svd_out", "out has shape (3)");
        CHECK(th_f64_svd_out(m22, o2, E, Dg) == TH_OK && th_f64_get(o2, SZ(0)) == 4.0);
        CHECK_FAILS(th_f64_svd_out(NULL, o2, m22, Dg), TH_ERR_INVALID, "th_f64_svd_out", "NULL U");
        CHECK_FAILS(th_f64_qr_out(m22, NULL, Dg), TH_ERR_INVALID, "th_f64_qr_out", "NULL R");
        CHECK_FAILS(th_f64_qr_out(m22, o3, Dg), TH_ERR_SHAPE, "th_f64_qr_out", "out has shape (3)");
        CHECK_FAILS(th_f64_qr_out((th_f64_tensor *)cm, m22, Dg), TH_ERR_DTYPE, "th_f64_qr_out", "Q is c128, not f64");
        /* NaN: refused by LAPACKE's scan, named */
        th_f64_tensor *N = (th_f64_tensor *)make(TH_F64, 3, SZ(2, 2, 2), (const double[]){1, 0, 0, 1, NAN, 0, 0, 1}, NULL);
        th_f64_tensor *nv = NULL;
        CHECK_FAILS(th_f64_eigh(N, &nv, NULL), TH_ERR_LINALG, "th_f64_eigh", "A holds NaN at batch index 1");
        CHECK(nv == NULL);
        CHECK_NULL(th_f64_svdvals(N), TH_ERR_LINALG, "th_f64_svdvals", "A holds NaN at batch index 1");
        th_f64_release(N);
        /* empty */
        th_f64_tensor *e = th_f64_zeros(3, SZ(0, 3, 2)), *eq = NULL, *er = NULL, *es = th_f64_svdvals(e);
        CHECK(th_f64_qr(e, &eq, &er) == TH_OK && th_f64_numel(eq) == 0 && th_f64_size(er, 1) == 2);
        CHECK(es && th_f64_numel(es) == 0 && th_f64_size(es, 1) == 2);
        th_f64_tensor *fs[] = {o2, o3, m22, e, eq, er, es, ev, q, r};
        ev = q = r = NULL;
        for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
        th_c128_release(c2);
        th_c128_release(cm);
        th_c128_release(CE);
    } else {
        CHECK_FAILS(th_f64_eigh(E, &ev, NULL), TH_ERR_UNSUPPORTED, "th_f64_eigh", "needs LAPACK");
        CHECK_NULL(th_f64_svdvals(Dg), TH_ERR_UNSUPPORTED, "th_f64_svdvals", "TH_USE_LAPACK");
        CHECK_FAILS(th_f64_qr(C, &q, &r), TH_ERR_UNSUPPORTED, "th_f64_qr", "needs LAPACK");
        CHECK(ev == NULL && q == NULL && r == NULL);
    }
    /* shapes and dtypes, both builds */
    th_f64_tensor *v = th_f64_ones(1, SZ(3));
    CHECK_NULL(th_f64_svdvals(v), TH_ERR_SHAPE, "th_f64_svdvals", "at least 2 dims");
    CHECK_FAILS(th_f64_qr(v, &q, &r), TH_ERR_SHAPE, "th_f64_qr", "it has shape (3)");
    CHECK_FAILS(th_f64_eigh(C, &ev, NULL), TH_ERR_SHAPE, "th_f64_eigh", "square");
    CHECK_FAILS(th_f64_eigh(NULL, &ev, NULL), TH_ERR_INVALID, "th_f64_eigh", "NULL A");
    th_f32_tensor *f = th_f32_ones(2, SZ(2, 2));
    CHECK_FAILS(th_f64_svd((th_f64_tensor *)f, NULL, &ev, NULL), TH_ERR_DTYPE, "th_f64_svd", "A is f32, not f64");
    CHECK(ev == NULL);
    th_f32_release(f);
    th_f64_release(v);
    th_f64_release(E);
    th_f64_release(Dg);
    th_f64_release(C);
    th_f64_release(ev);
    th_f64_release(q);
    th_f64_release(r);
}

/* ---- eig, eigvals: closed forms and every error ---- */

static void test_eig(void)
{
    /* a rotation by 90 degrees: +i then -i (conjugate pair, positive imaginary part first); its vectors
     * (1, -i) / sqrt(2) and (1, i) / sqrt(2) with the largest component real */
    th_f64_tensor *R = (th_f64_tensor *)make(TH_F64, 2, SZ(2, 2), (const double[]){0, -1, 1, 0}, NULL);
    th_f32_tensor *T = (th_f32_tensor *)make(TH_F32, 2, SZ(3, 3), (const double[]){2, 1, 5, 0, -3, 7, 0, 0, 0.5}, NULL);
    th_c128_tensor *w = NULL, *V = NULL;
    th_c64_tensor *wt = NULL;
    if (th_linalg_lapack()) {
        CHECK(th_f64_eig(R, &w, &V) == TH_OK && th_c128_numel(w) == 2 && th_c128_size(V, 1) == 2);
        if (w && V) {
            double complex w0 = th_c128_get(w, SZ(0)), w1 = th_c128_get(w, SZ(1));
            CHECK(fabs(creal(w0)) < 1e-15 && fabs(cimag(w0) - 1) < 1e-15 && cimag(w1) == -cimag(w0) && creal(w1) == creal(w0));
            double complex v00 = th_c128_get(V, SZ(0, 0)), v10 = th_c128_get(V, SZ(1, 0)), v01 = th_c128_get(V, SZ(0, 1));
            /* A v = w v for the first column, and the second is its conjugate */
            CHECK(cabs(-v10 - w0 * v00) < 1e-15 && cabs(v00 - w0 * v10) < 1e-15 && v01 == conj(v00));
            CHECK(fabs(cabs(v00) * cabs(v00) + cabs(v10) * cabs(v10) - 1) < 1e-15);
        }
        /* triangular: the values are the diagonal, in LAPACK's order (here the diagonal's); c64 from f32 */
        wt = th_f32_eigvals(T);
        CHECK(wt && th_c64_numel(wt) == 3);
        for (int i = 0; wt && i < 3; i++) {
            float complex z = th_c64_get(wt, SZ(i));
            CHECK(cimag(z) == 0 && (creal(z) == 2 || creal(z) == -3 || creal(z) == 0.5f));
        }
        /* outs: the right shape and dtype, values alone, and the errors */
        th_c128_tensor *o2 = th_c128_zeros(1, SZ(2)), *o3 = th_c128_zeros(1, SZ(3)), *m22 = th_c128_zeros(2, SZ(2, 2));
        th_f64_tensor *f2 = th_f64_zeros(1, SZ(2));
        CHECK(th_f64_eig_out(o2, m22, R) == TH_OK && fabs(cimag(th_c128_get(o2, SZ(0))) - 1) < 1e-15);
        CHECK(th_f64_eig_out(o2, NULL, R) == TH_OK && th_f64_eigvals_out(o2, R) == TH_OK);
        CHECK_FAILS(th_f64_eig_out(o3, NULL, R), TH_ERR_SHAPE, "th_f64_eig_out", "the result has shape (2)");
        CHECK_FAILS(th_f64_eig_out(NULL, m22, R), TH_ERR_INVALID, "th_f64_eig_out", "NULL eigenvalues");
        CHECK_FAILS(th_f64_eigvals_out(NULL, R), TH_ERR_INVALID, "th_f64_eigvals_out", "NULL out");
        CHECK_FAILS(th_f64_eigvals_out((th_c128_tensor *)f2, R), TH_ERR_DTYPE, "th_f64_eigvals_out", "out is f64, not c128");
        CHECK_FAILS(th_f64_eig_out(o2, (th_c128_tensor *)f2, R), TH_ERR_DTYPE, "th_f64_eig_out",
                    "eigenvectors is f64, not c128");
        /* NaN: refused by LAPACKE's scan, named with the batch index; the results stay NULL */
        th_f64_tensor *N = (th_f64_tensor *)make(TH_F64, 3, SZ(2, 2, 2), (const double[]){1, 0, 0, 1, NAN, 0, 0, 1}, NULL);
        th_c128_tensor *nw = NULL, *nv = NULL;
        CHECK_FAILS(th_f64_eig(N, &nw, &nv), TH_ERR_LINALG, "th_f64_eig", "A holds NaN at batch index 1");
        CHECK(nw == NULL && nv == NULL);
        CHECK_NULL(th_f64_eigvals(N), TH_ERR_LINALG, "th_f64_eigvals", "A holds NaN at batch index 1");
        /* empty: a batch of 0 x 0 matrices */
        th_f64_tensor *e = th_f64_zeros(3, SZ(4, 0, 0));
        th_c128_tensor *ew = NULL, *ev = NULL;
        CHECK(th_f64_eig(e, &ew, &ev) == TH_OK && ew && th_c128_ndim(ew) == 2 && th_c128_size(ew, 0) == 4 &&
              th_c128_numel(ew) == 0 && ev && th_c128_ndim(ev) == 3);
        th_c128_release(ew), th_c128_release(ev), th_f64_release(e), th_f64_release(N), th_f64_release(f2);
        th_c128_release(o2), th_c128_release(o3), th_c128_release(m22);
    } else {
        CHECK_FAILS(th_f64_eig(R, &w, &V), TH_ERR_UNSUPPORTED, "th_f64_eig", "needs LAPACK");
        CHECK(w == NULL && V == NULL);
        CHECK_NULL(th_f32_eigvals(T), TH_ERR_UNSUPPORTED, "th_f32_eigvals", "TH_USE_LAPACK");
    }
    th_c128_release(w), th_c128_release(V); /* each failing call below sets them to NULL first */
    /* shapes and dtypes, both builds */
    th_f64_tensor *rect = th_f64_ones(2, SZ(2, 3));
    CHECK_FAILS(th_f64_eig(rect, &w, NULL), TH_ERR_SHAPE, "th_f64_eig", "square");
    CHECK_FAILS(th_f64_eig(NULL, &w, NULL), TH_ERR_INVALID, "th_f64_eig", "NULL A");
    CHECK_FAILS(th_f64_eig((th_f64_tensor *)T, &w, &V), TH_ERR_DTYPE, "th_f64_eig", "A is f32, not f64");
    CHECK(w == NULL && V == NULL);
    th_f64_release(rect), th_f64_release(R), th_f32_release(T);
    th_c128_release(w), th_c128_release(V), th_c64_release(wt);
}

/* ---- svd_full: unitary U and Vh, the identity for an empty side, and its errors ---- */

static void test_svd_full(void)
{
    th_f64_tensor *C = (th_f64_tensor *)make(TH_F64, 2, SZ(2, 1), (const double[]){3, 4}, NULL);
    th_f64_tensor *U = NULL, *S = NULL, *Vh = NULL;
    if (th_linalg_lapack()) {
        /* [[3], [4]]: S = (5), U 2 x 2 with first column +-(0.6, 0.8) and the orthogonal one, Vh 1 x 1 of +-1 */
        CHECK(th_f64_svd_full(C, &U, &S, &Vh) == TH_OK && th_f64_size(U, 0) == 2 && th_f64_size(U, 1) == 2 &&
              th_f64_numel(Vh) == 1 && fabs(th_f64_get(S, SZ(0)) - 5) < 1e-14);
        if (U && Vh) {
            double u00 = th_f64_get(U, SZ(0, 0)), u10 = th_f64_get(U, SZ(1, 0)), u01 = th_f64_get(U, SZ(0, 1)),
                   u11 = th_f64_get(U, SZ(1, 1)), v = th_f64_get(Vh, SZ(0, 0));
            CHECK(fabs(5 * u00 * v - 3) < 1e-14 && fabs(5 * u10 * v - 4) < 1e-14); /* U S Vh = A */
            CHECK(fabs(u00 * u01 + u10 * u11) < 1e-15 && fabs(u01 * u01 + u11 * u11 - 1) < 1e-15);
        }
        /* an empty side: (3, 0) has no values; U is I (3 x 3), Vh is 0 x 0 */
        th_f64_tensor *E = th_f64_zeros(2, SZ(3, 0)), *eu = NULL, *es = NULL, *ev = NULL;
        CHECK(th_f64_svd_full(E, &eu, &es, &ev) == TH_OK && th_f64_numel(es) == 0 && th_f64_size(eu, 0) == 3 &&
              th_f64_size(eu, 1) == 3 && th_f64_numel(ev) == 0);
        for (int i = 0; eu && i < 3; i++)
            for (int j = 0; j < 3; j++) CHECK(th_f64_get(eu, SZ(i, j)) == (i == j));
        /* outs: full shapes wanted, reduced ones refused */
        th_f64_tensor *u2 = th_f64_zeros(2, SZ(2, 2)), *u21 = th_f64_zeros(2, SZ(2, 1)), *s1 = th_f64_zeros(1, SZ(1));
        th_f64_tensor *v1 = th_f64_zeros(2, SZ(1, 1));
        CHECK(th_f64_svd_full_out(u2, s1, v1, C) == TH_OK && fabs(th_f64_get(s1, SZ(0)) - 5) < 1e-14);
        CHECK_FAILS(th_f64_svd_full_out(u21, s1, v1, C), TH_ERR_SHAPE, "th_f64_svd_full_out", "the result has shape (2, 2)");
        CHECK_FAILS(th_f64_svd_full_out(u2, NULL, v1, C), TH_ERR_INVALID, "th_f64_svd_full_out", "NULL S");
        th_f64_tensor *fs[] = {E, eu, es, ev, u2, u21, s1, v1};
        for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
    } else {
        CHECK_FAILS(th_f64_svd_full(C, &U, &S, &Vh), TH_ERR_UNSUPPORTED, "th_f64_svd_full", "needs LAPACK");
        CHECK(U == NULL && S == NULL && Vh == NULL);
    }
    th_f64_release(U), th_f64_release(S), th_f64_release(Vh);
    th_f32_tensor *f = th_f32_ones(2, SZ(2, 2));
    CHECK_FAILS(th_f64_svd_full((th_f64_tensor *)f, &U, &S, &Vh), TH_ERR_DTYPE, "th_f64_svd_full", "A is f32, not f64");
    th_f64_tensor *v = th_f64_ones(1, SZ(3));
    CHECK_FAILS(th_f64_svd_full(v, &U, &S, &Vh), TH_ERR_SHAPE, "th_f64_svd_full", "at least 2 dims");
    CHECK(U == NULL && S == NULL && Vh == NULL);
    th_f32_release(f), th_f64_release(v), th_f64_release(C);
}

int main(void)
{
    test_begin();
    printf("LAPACK: %s\n", th_linalg_lapack() ? "yes (LAPACKE)" : "no (the built-in LU / Cholesky)");
    test_closed_forms();
    test_reconstruction();
    test_shapes();
    test_errors();
    test_decompositions();
    test_eig();
    test_svd_full();
    return test_end("lapack");
}
