/* tests/test_lapack_solve.c: solve_triangular, cholesky_solve, lu_factor and lu_solve (ops/lapack.h) for f32, f64,
 * c64 and c128, through LAPACKE or (a build without TH_USE_LAPACK) the built-in substitution: closed forms,
 * reconstruction (op(T) X = B and X op(T) = B for every triangle / side / unit diagonal with garbage in the triangle
 * not read, L L^H X = B, P L U = A and A X = B from the packed factors), batches, broadcast batch dims, transposed
 * and strided inputs and outs, outs overlapping an input, empty batches and 0 x 0 matrices, and every error path:
 * singular factors at a batch index, inf / NaN, pivots out of range, wrong shapes, wrong dtypes of inputs and outs,
 * NULLs; then matrix_power and matrix_exp (closed forms: I, diagonal, rotation, nilpotent; exp(A) exp(-A) = I;
 * NaN / inf matrices; overflow; errors). The reference products are computed in c128 with th_c128_matmul. NumPy's
 * and SciPy's numbers are in
 * tests/numpy/numpy_lapack. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static const th_dtype dtypes[4] = {TH_F32, TH_F64, TH_C64, TH_C128};

static uint32_t seed = 1515;
static double urand(void)
{
    seed = seed * 1664525u + 1013904223u;
    return (double)(seed >> 8) / (double)(1u << 24) * 2.0 - 1.0;
}

static bool is_complex(th_dtype dt) { return dt == TH_C64 || dt == TH_C128; }
static double tol(th_dtype dt) { return dt == TH_F32 || dt == TH_C64 ? 2e-4 : 1e-11; }

/* A c128 copy of t. */
static th_c128_tensor *as_c128(const th_tensor *t)
{
    th_c128_tensor *c = th_c128_empty(th_tensor_ndim(t), th_tensor_sizes(t));
    CHECK(th_tensor_copy(th_c128_base(c), t) == TH_OK);
    return c;
}

/* A tensor of dtype dt with the values of the c128 tensor c (imaginary parts dropped for real dtypes). */
static th_tensor *to_dtype(th_dtype dt, const th_c128_tensor *c)
{
    th_tensor *r = NULL;
    int nd = th_c128_ndim(c);
    const int64_t *sizes = th_tensor_sizes(th_c128_base(c));
    switch (dt) {
    case TH_F32: r = th_f32_base(th_f32_empty(nd, sizes)); break;
    case TH_F64: r = th_f64_base(th_f64_empty(nd, sizes)); break;
    case TH_C64: r = th_c64_base(th_c64_empty(nd, sizes)); break;
    default: r = th_c128_base(th_c128_empty(nd, sizes)); break;
    }
    if (is_complex(dt)) {
        CHECK(th_tensor_copy(r, th_c128_base(c)) == TH_OK);
    } else {
        th_c128_tensor *re = th_c128_clone(c);
        for (int64_t i = 0; i < th_c128_numel(re); i++) th_c128_data(re)[i] = creal(th_c128_data(re)[i]);
        CHECK(th_tensor_copy(r, th_c128_base(re)) == TH_OK);
        th_c128_release(re);
    }
    return r;
}

/* Random values in [-1, 1] (imaginary parts too for complex dtypes) plus shift on the diagonal of each trailing
 * matrix, held in dtype dt. */
static th_tensor *random_matrix(th_dtype dt, int ndim, const int64_t *sizes, double shift)
{
    th_c128_tensor *c = th_c128_empty(ndim, sizes);
    int64_t r = ndim >= 2 ? sizes[ndim - 2] : 1, cols = sizes[ndim - 1];
    for (int64_t i = 0; i < th_c128_numel(c); i++) {
        double re = urand(), im = urand();
        if (ndim >= 2 && (i / cols) % r == i % cols) re += shift;
        th_c128_data(c)[i] = re + im * I;
    }
    th_tensor *t = to_dtype(dt, c);
    th_c128_release(c);
    return t;
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

/* x @ y in c128. */
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

/* The triangle of x (a batch of n x n) that an op reads, in c128: the other one zeroed, a unit diagonal when unit. */
static th_tensor *triangle(const th_tensor *x, bool upper, bool unit)
{
    th_c128_tensor *c = as_c128(x), *t = th_c128_clone(c);
    int nd = th_c128_ndim(t);
    int64_t n = th_c128_size(t, nd - 1);
    for (int64_t i = 0; i < th_c128_numel(t); i++) {
        int64_t r = i / n % n, col = i % n;
        if (upper ? r > col : r < col) th_c128_data(t)[i] = 0;
        if (unit && r == col) th_c128_data(t)[i] = 1;
    }
    th_c128_release(c);
    return th_c128_base(t);
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

static th_tensor *solve_tri(th_dtype dt, const th_tensor *a, const th_tensor *b, bool upper, bool left, bool unit)
{
    return CALL(dt, solve_triangular, (void *)a, (void *)b, upper, left, unit);
}
static th_tensor *chol_solve(th_dtype dt, const th_tensor *b, const th_tensor *l, bool upper)
{
    return CALL(dt, cholesky_solve, (void *)b, (void *)l, upper);
}
static int lu_factor(th_dtype dt, const th_tensor *a, th_tensor **lu, th_i32_tensor **piv)
{
    return CALL_INT(dt, lu_factor, (void *)a, (void *)lu, piv);
}
static th_tensor *lu_solve(th_dtype dt, const th_tensor *lu, const th_i32_tensor *piv, const th_tensor *b)
{
    return CALL(dt, lu_solve, (void *)lu, piv, (void *)b);
}

/* P L U from lu_factor's packed LU and pivots (a batch of n x n), in c128: L U with the row swaps undone in
 * reverse order. */
static th_tensor *lu_rebuild(const th_tensor *lu, const th_i32_tensor *piv)
{
    th_tensor *L = triangle(lu, false, true), *U = triangle(lu, true, false), *LU = product(L, U);
    th_c128_tensor *p = (th_c128_tensor *)LU;
    int nd = th_c128_ndim(p);
    int64_t n = th_c128_size(p, nd - 1), batch = th_c128_numel(p) / (n * n > 0 ? n * n : 1);
    for (int64_t b = 0; n > 0 && b < batch; b++) {
        th_complex128 *m = th_c128_data(p) + b * n * n;
        for (int64_t i = n - 1; i >= 0; i--) {
            int64_t q = th_i32_data(piv)[b * n + i] - 1;
            for (int64_t j = 0; q != i && j < n; j++) {
                th_complex128 t = m[i * n + j];
                m[i * n + j] = m[q * n + j];
                m[q * n + j] = t;
            }
        }
    }
    th_tensor_release(L);
    th_tensor_release(U);
    return LU;
}

/* ---- closed forms ---- */

static void test_closed_forms(void)
{
    /* L = [[2, 0], [1, 4]] (the upper 7 is not read): L x = [2, 9] gives x = [1, 2]; L^T-solve from the right:
     * x L = [4, 8] gives x = [1, 2]; unit diagonal: [[1, 0], [1, 1]] x = [2, 9] gives [2, 7] */
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        th_c128_tensor *cl = th_c128_empty(2, SZ(2, 2)), *cb = th_c128_empty(2, SZ(2, 1)), *cr = th_c128_empty(2, SZ(1, 2));
        const double lv[] = {2, 7, 1, 4};
        for (int i = 0; i < 4; i++) th_c128_data(cl)[i] = lv[i];
        th_c128_data(cb)[0] = 2;
        th_c128_data(cb)[1] = 9;
        th_c128_data(cr)[0] = 4;
        th_c128_data(cr)[1] = 8;
        th_tensor *L = to_dtype(dt, cl), *B = to_dtype(dt, cb), *Br = to_dtype(dt, cr);
        th_tensor *X = solve_tri(dt, L, B, false, true, false), *Xr = solve_tri(dt, L, Br, false, false, false);
        th_tensor *Xu = solve_tri(dt, L, B, false, true, true);
        th_c128_tensor *x = X ? as_c128(X) : NULL, *xr = Xr ? as_c128(Xr) : NULL, *xu = Xu ? as_c128(Xu) : NULL;
        CHECK(x && th_c128_ndim(x) == 2 && th_c128_size(x, 1) == 1);
        CHECK(x && cabs(th_c128_data(x)[0] - 1) < tol(dt) && cabs(th_c128_data(x)[1] - 2) < tol(dt));
        CHECK(xr && th_c128_size(xr, 0) == 1 && cabs(th_c128_data(xr)[0] - 1) < tol(dt) &&
              cabs(th_c128_data(xr)[1] - 2) < tol(dt));
        CHECK(xu && cabs(th_c128_data(xu)[0] - 2) < tol(dt) && cabs(th_c128_data(xu)[1] - 7) < tol(dt));
        /* [[4, 2], [2, 5]] = L L^T, L = [[2, 0], [1, 2]]: A x = [8.4, 9] gives x = [1.5, 1.2] */
        const double pv[] = {2, 0, 1, 2};
        for (int i = 0; i < 4; i++) th_c128_data(cl)[i] = pv[i];
        th_c128_data(cb)[0] = 8.4;
        th_c128_data(cb)[1] = 9;
        th_tensor *Lc = to_dtype(dt, cl), *Bc = to_dtype(dt, cb), *Xc = chol_solve(dt, Bc, Lc, false);
        th_c128_tensor *xc = Xc ? as_c128(Xc) : NULL;
        CHECK(xc && cabs(th_c128_data(xc)[0] - 1.5) < tol(dt) && cabs(th_c128_data(xc)[1] - 1.2) < tol(dt));
        /* [[0, 1], [2, 3]]: the rows swap (pivots [2, 2]), LU = [[2, 3], [0, 1]] */
        const double av[] = {0, 1, 2, 3};
        for (int i = 0; i < 4; i++) th_c128_data(cl)[i] = av[i];
        th_tensor *A = to_dtype(dt, cl), *LU = NULL;
        th_i32_tensor *piv = NULL;
        CHECK(lu_factor(dt, A, &LU, &piv) == TH_OK && LU && piv);
        CHECK(piv && th_i32_ndim(piv) == 1 && th_i32_data(piv)[0] == 2 && th_i32_data(piv)[1] == 2);
        th_c128_tensor *lu = LU ? as_c128(LU) : NULL;
        CHECK(lu && th_c128_data(lu)[0] == 2 && th_c128_data(lu)[1] == 3 && th_c128_data(lu)[2] == 0 &&
              th_c128_data(lu)[3] == 1);
        th_tensor *tensors[] = {L, B, Br, X, Xr, Xu, Lc, Bc, Xc, A, LU};
        for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) th_tensor_release(tensors[i]);
        th_c128_tensor *cs[] = {cl, cb, cr, x, xr, xu, xc, lu};
        for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) th_c128_release(cs[i]);
        th_i32_release(piv);
    }
}

/* ---- reconstruction over random batches, every dtype ---- */

static void test_reconstruction(void)
{
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        /* solve_triangular: A (2, 3, 5, 5) full of values (the unread triangle is garbage), B (2, 3, 5, 4) or
         * (2, 3, 4, 5) */
        th_tensor *A = random_matrix(dt, 4, SZ(2, 3, 5, 5), 4.0);
        th_tensor *Bl = random_matrix(dt, 4, SZ(2, 3, 5, 4), 0.0), *Br = random_matrix(dt, 4, SZ(2, 3, 4, 5), 0.0);
        for (int mode = 0; mode < 8; mode++) {
            bool upper = mode & 1, left = mode & 2, unit = mode & 4;
            th_tensor *B = left ? Bl : Br, *X = solve_tri(dt, A, B, upper, left, unit);
            th_tensor *T = triangle(A, upper, unit), *P = X ? (left ? product(T, X) : product(X, T)) : NULL;
            CHECK(max_diff(P, B) < 10 * tol(dt));
            if (!(max_diff(P, B) < 10 * tol(dt)))
                fprintf(stderr, "solve_triangular %s upper %d left %d unit %d: %g (%s)\n", th_dtype_name(dt), upper,
                        left, unit, max_diff(P, B), X ? "" : th_last_error());
            th_tensor_release(X);
            th_tensor_release(T);
            th_tensor_release(P);
        }
        /* cholesky_solve: P = M M^H + 6 I = L L^H = U^H U */
        th_tensor *M = random_matrix(dt, 3, SZ(3, 6, 6), 0.0), *MH = adjoint(M), *MMH = product(M, MH);
        th_c128_tensor *I6 = th_c128_eye(6, 6), *I6s = th_c128_mul_scalar(I6, 6.0);
        th_c128_tensor *shifted = th_c128_add(I6s, (th_c128_tensor *)MMH);
        th_tensor *Pd = to_dtype(dt, shifted);
        th_tensor *L = CALL(dt, cholesky, (void *)Pd), *LH = L ? adjoint(L) : NULL, *U = LH ? to_dtype(dt, (th_c128_tensor *)LH) : NULL;
        th_tensor *B = random_matrix(dt, 3, SZ(3, 6, 2), 0.0);
        th_tensor *X = L ? chol_solve(dt, B, L, false) : NULL, *PX = X ? product(Pd, X) : NULL;
        CHECK(max_diff(PX, B) < 50 * tol(dt));
        th_tensor *Xu = U ? chol_solve(dt, B, U, true) : NULL, *PXu = Xu ? product(Pd, Xu) : NULL;
        CHECK(max_diff(PXu, B) < 50 * tol(dt));
        /* lu_factor: P L U = A, pivots in range; lu_solve: A X = B */
        th_tensor *LU = NULL;
        th_i32_tensor *piv = NULL;
        CHECK(lu_factor(dt, A, &LU, &piv) == TH_OK);
        CHECK(piv && th_i32_ndim(piv) == 3 && th_i32_size(piv, 2) == 5);
        for (int64_t i = 0; piv && i < th_i32_numel(piv); i++)
            CHECK(th_i32_data(piv)[i] >= 1 + i % 5 && th_i32_data(piv)[i] <= 5);
        th_tensor *PLU = LU ? lu_rebuild(LU, piv) : NULL;
        CHECK(max_diff(PLU, A) < 10 * tol(dt));
        th_tensor *Xl = LU ? lu_solve(dt, LU, piv, Bl) : NULL, *AX = Xl ? product(A, Xl) : NULL;
        CHECK(max_diff(AX, Bl) < 10 * tol(dt));
        th_tensor *Xs = CALL(dt, solve, (void *)A, (void *)Bl);
        CHECK(max_diff(Xl, Xs) < 10 * tol(dt));
        th_tensor *tensors[] = {A, Bl, Br, M, MH, MMH, Pd, L, LH, U, B, X, PX, Xu, PXu, LU, PLU, Xl, AX, Xs};
        for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) th_tensor_release(tensors[i]);
        th_c128_tensor *cs[] = {I6, I6s, shifted};
        for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) th_c128_release(cs[i]);
        th_i32_release(piv);
    }
}

/* ---- shapes: broadcasting, layouts, outs, empty ---- */

static void test_shapes(void)
{
    /* A (2, 1, 3, 3) and B (4, 3, 2): batch (2, 4) */
    th_f64_tensor *A = (th_f64_tensor *)random_matrix(TH_F64, 4, SZ(2, 1, 3, 3), 3.0);
    th_f64_tensor *B = (th_f64_tensor *)random_matrix(TH_F64, 3, SZ(4, 3, 2), 0.0);
    th_f64_tensor *X = th_f64_solve_triangular(A, B, true, true, false);
    CHECK(X && th_f64_ndim(X) == 4 && th_f64_size(X, 0) == 2 && th_f64_size(X, 1) == 4 && th_f64_size(X, 3) == 2);
    th_f64_tensor *Ae = th_f64_expand(A, 4, SZ(2, 4, 3, 3)), *Be = th_f64_expand(B, 4, SZ(2, 4, 3, 2));
    th_tensor *T = triangle(th_f64_base(Ae), true, false), *TX = X ? product(T, th_f64_base(X)) : NULL;
    CHECK(max_diff(TX, th_f64_base(Be)) < 1e-12);
    /* lu_solve broadcasts LU's batch (2, 1) with B's (4): X (2, 4, 3, 2) */
    th_f64_tensor *LU = NULL, *Xl = NULL;
    th_i32_tensor *piv = NULL;
    CHECK(th_f64_lu_factor(A, &LU, &piv) == TH_OK && th_i32_ndim(piv) == 3 && th_i32_size(piv, 1) == 1);
    Xl = th_f64_lu_solve(LU, piv, B);
    th_f64_tensor *Xs = th_f64_solve(Ae, Be);
    CHECK(Xl && max_diff(th_f64_base(Xl), th_f64_base(Xs)) < 1e-12);
    /* cholesky_solve broadcasts too: one L (3, 3) for B (4, 3, 2) */
    th_f64_tensor *G = th_f64_eye(3, 3), *Xg = th_f64_cholesky_solve(B, G, false);
    CHECK(Xg && max_diff(th_f64_base(Xg), th_f64_base(B)) == 0);

    /* transposed and strided inputs give what their contiguous copies give; outs of any strides */
    th_f64_tensor *big = (th_f64_tensor *)random_matrix(TH_F64, 2, SZ(6, 8), 0.0);
    th_f64_tensor *sq = th_f64_narrow(big, 1, 1, 6), *sqt = th_f64_transpose(sq, 0, 1);
    for (int64_t i = 0; i < 6; i++) th_f64_set(sqt, SZ(i, i), th_f64_get(sqt, SZ(i, i)) + 5.0);
    th_f64_tensor *sqc = th_f64_contiguous(sqt);
    th_f64_tensor *rhs = (th_f64_tensor *)random_matrix(TH_F64, 2, SZ(6, 12), 0.0), *rhsv = th_f64_narrow(rhs, 1, 0, 6);
    th_f64_tensor *rt = th_f64_transpose(rhsv, 0, 1), *rtc = th_f64_contiguous(rt), *rhsc = th_f64_contiguous(rhsv);
    for (int mode = 0; mode < 4; mode++) {
        bool upper = mode & 1, left = mode & 2;
        th_f64_tensor *r1 = th_f64_solve_triangular(sqt, left ? rhsv : rt, upper, left, false);
        th_f64_tensor *r2 = th_f64_solve_triangular(sqc, left ? rhsc : rtc, upper, left, false);
        CHECK(r1 && r2 && max_diff(th_f64_base(r1), th_f64_base(r2)) < 1e-13);
        th_f64_tensor *outbig = th_f64_zeros(2, SZ(6, 12)), *outv = th_f64_narrow(outbig, 1, 0, 6);
        th_f64_tensor *outt = th_f64_transpose(outv, 0, 1);
        CHECK(th_f64_solve_triangular_out(outt, sqt, left ? rhsv : rt, upper, left, false) == TH_OK &&
              max_diff(th_f64_base(outt), th_f64_base(r2)) < 1e-13);
        th_f64_tensor *fs[] = {r1, r2, outbig, outv, outt};
        for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
    }
    th_f64_tensor *sqct = th_f64_transpose(sqc, 0, 1), *sym = th_f64_matmul(sqc, sqct), *ch = th_f64_cholesky(sym);
    th_f64_tensor *cht = th_f64_transpose(ch, 0, 1), *chtc = th_f64_contiguous(cht);
    th_f64_tensor *c1 = th_f64_cholesky_solve(rhsv, ch, false), *c2 = th_f64_cholesky_solve(rhsv, cht, true);
    th_f64_tensor *c3 = th_f64_cholesky_solve(rhsv, chtc, true);
    CHECK(c1 && c2 && c3 && max_diff(th_f64_base(c1), th_f64_base(c2)) < 1e-12 &&
          max_diff(th_f64_base(c2), th_f64_base(c3)) == 0);
    th_f64_tensor *lu1 = NULL, *lu2 = NULL;
    th_i32_tensor *p1 = NULL, *p2 = th_i32_zeros(1, SZ(6));
    CHECK(th_f64_lu_factor(sqt, &lu1, &p1) == TH_OK);
    th_f64_tensor *lubig = th_f64_zeros(2, SZ(6, 12)), *luv = th_f64_narrow(lubig, 1, 3, 6);
    CHECK(th_f64_lu_factor_out(luv, p2, sqc) == TH_OK && max_diff(th_f64_base(luv), th_f64_base(lu1)) == 0);
    CHECK(max_diff(th_i32_base(p1), th_i32_base(p2)) == 0);
    lu2 = th_f64_transpose(luv, 0, 1); /* LU of any strides: its transposed view's contiguous copy */
    th_f64_tensor *lu2t = th_f64_transpose(lu2, 0, 1);
    th_f64_tensor *s1 = th_f64_lu_solve(lu1, p1, rhsv), *s2 = th_f64_lu_solve(lu2t, p2, rhsc);
    th_f64_tensor *s3 = th_f64_solve(sqt, rhsv);
    CHECK(s1 && s2 && max_diff(th_f64_base(s1), th_f64_base(s2)) == 0 && max_diff(th_f64_base(s1), th_f64_base(s3)) < 1e-12);
    /* outs overlapping an input: B solved in place */
    th_f64_tensor *ip = th_f64_clone(rhsv);
    CHECK(th_f64_lu_solve_out(ip, lu1, p1, ip) == TH_OK && max_diff(th_f64_base(ip), th_f64_base(s1)) < 1e-15);
    th_f64_tensor *ip2 = th_f64_clone(rhsv);
    CHECK(th_f64_cholesky_solve_out(ip2, ip2, ch, false) == TH_OK && max_diff(th_f64_base(ip2), th_f64_base(c1)) < 1e-15);
    th_f64_tensor *ip3 = th_f64_clone(rhsv), *t3 = th_f64_solve_triangular(sqc, rhsv, false, true, true);
    CHECK(th_f64_solve_triangular_out(ip3, sqc, ip3, false, true, true) == TH_OK &&
          max_diff(th_f64_base(ip3), th_f64_base(t3)) < 1e-15);
    /* an lu_factor out that is its own input: factored in place */
    th_f64_tensor *ip4 = th_f64_clone(sqc);
    CHECK(th_f64_lu_factor_out(ip4, p2, ip4) == TH_OK && max_diff(th_f64_base(ip4), th_f64_base(lu1)) == 0);

    /* empty: a batch of none, 0 x 0 matrices, no right-hand sides */
    th_f64_tensor *e = th_f64_zeros(3, SZ(0, 3, 3)), *eb = th_f64_zeros(3, SZ(0, 3, 2));
    th_f64_tensor *et = th_f64_solve_triangular(e, eb, false, true, false), *elu = NULL;
    th_i32_tensor *ep = NULL;
    CHECK(et && th_f64_numel(et) == 0 && th_f64_ndim(et) == 3);
    CHECK(th_f64_lu_factor(e, &elu, &ep) == TH_OK && th_f64_numel(elu) == 0 && th_i32_ndim(ep) == 2 &&
          th_i32_size(ep, 1) == 3);
    th_f64_tensor *els = th_f64_lu_solve(elu, ep, eb), *ecs = th_f64_cholesky_solve(eb, e, false);
    CHECK(els && th_f64_numel(els) == 0 && ecs && th_f64_numel(ecs) == 0);
    th_f64_tensor *z = th_f64_zeros(2, SZ(0, 0)), *z0 = th_f64_zeros(2, SZ(0, 4)), *zt = th_f64_solve_triangular(z, z0, true, true, false);
    CHECK(zt && th_f64_size(zt, 1) == 4 && th_f64_numel(zt) == 0);
    th_f64_tensor *k0 = th_f64_zeros(2, SZ(3, 0));
    th_f64_tensor *A33 = th_f64_narrow(sqc, 0, 0, 3), *A3 = th_f64_narrow(A33, 1, 0, 3);
    th_f64_tensor *k0t = th_f64_solve_triangular(A3, k0, false, true, false);
    CHECK(k0t && th_f64_size(k0t, 0) == 3 && th_f64_size(k0t, 1) == 0);

    th_f64_tensor *fs[] = {A, B, X, Ae, Be, LU, Xl, Xs, G, Xg, big, sq, sqt, sqc, rhs, rhsv, rt, rtc, rhsc, sqct, sym, ch,
                           cht, chtc, c1, c2, c3, lu1, lubig, luv, lu2, lu2t, s1, s2, s3, ip, ip2, ip3, t3, ip4, e,
                           eb, et, elu, els, ecs, z, z0, zt, k0, A33, A3, k0t};
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
    th_tensor_release(T);
    th_tensor_release(TX);
    th_i32_release(piv);
    th_i32_release(p1);
    th_i32_release(p2);
    th_i32_release(ep);
}

/* ---- errors ---- */

static void test_errors(void)
{
    /* a batch of 3 triangular matrices, the second with a zero at its diagonal element 2 */
    th_f64_tensor *A = th_f64_zeros(3, SZ(3, 3, 3));
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j <= i; j++) th_f64_set(A, SZ(b, i, j), i == j ? 2.0 : 0.5);
    th_f64_set(A, SZ(1, 2, 2), 0.0);
    th_f64_tensor *B = th_f64_ones(3, SZ(3, 3, 2));
    CHECK_NULL(th_f64_solve_triangular(A, B, false, true, false), TH_ERR_LINALG, "th_f64_solve_triangular",
               "A is singular at batch index 1: its diagonal element 2 (A[2, 2]) is 0");
    /* a unit diagonal is not read: no error */
    th_f64_tensor *X = th_f64_solve_triangular(A, B, false, true, true);
    CHECK(X != NULL);
    th_f64_release(X);
    /* upper: the zero lower triangle is... the upper one read, its off-diagonal zeros fine, the diagonal zero */
    CHECK_NULL(th_f64_solve_triangular(A, B, true, true, false), TH_ERR_LINALG, "th_f64_solve_triangular",
               "batch index 1");
    th_f64_tensor *out = th_f64_zeros(3, SZ(3, 3, 2));
    CHECK_FAILS(th_f64_solve_triangular_out(out, A, B, false, true, false), TH_ERR_LINALG,
                "th_f64_solve_triangular_out", "batch index 1");
    CHECK_NULL(th_f64_cholesky_solve(B, A, false), TH_ERR_LINALG, "th_f64_cholesky_solve",
               "L is singular at batch index 1: its diagonal element 2 (L[2, 2]) is 0");
    /* inf / NaN in the triangle read (the other one may hold anything) */
    th_f64_set(A, SZ(1, 2, 2), 2.0);
    th_f64_set(A, SZ(2, 2, 0), NAN);
    th_f64_set(A, SZ(0, 0, 2), INFINITY); /* in the upper triangle: not read by a lower solve */
    CHECK_NULL(th_f64_solve_triangular(A, B, false, true, false), TH_ERR_LINALG, "th_f64_solve_triangular",
               "A holds inf or NaN at batch index 2: A[2, 0] is nan");
    CHECK_NULL(th_f64_solve_triangular(A, B, true, false, false), TH_ERR_SHAPE, "th_f64_solve_triangular",
               "B must be (*, k, n)");
    th_f64_tensor *Bt = th_f64_ones(3, SZ(3, 2, 3));
    CHECK_NULL(th_f64_solve_triangular(A, Bt, true, false, false), TH_ERR_LINALG, "th_f64_solve_triangular",
               "A holds inf or NaN at batch index 0: A[0, 2] is inf");
    CHECK_NULL(th_f64_cholesky_solve(B, A, false), TH_ERR_LINALG, "th_f64_cholesky_solve", "L holds inf or NaN at batch index 2");
    /* lu_factor: singular at a batch index, the pivot named; inf / NaN */
    th_f64_tensor *S = th_f64_ones(3, SZ(2, 2, 2));
    th_f64_set(S, SZ(0, 1, 1), 3.0);
    th_f64_tensor *lu = NULL;
    th_i32_tensor *piv = NULL;
    CHECK_FAILS(th_f64_lu_factor(S, &lu, &piv), TH_ERR_LINALG, "th_f64_lu_factor",
                "A is singular at batch index 1: pivot 1 of its LU factorisation (U[1, 1]) is 0");
    CHECK(lu == NULL && piv == NULL);
    th_f64_tensor *luo = th_f64_zeros(3, SZ(2, 2, 2));
    th_i32_tensor *po = th_i32_zeros(2, SZ(2, 2));
    CHECK_FAILS(th_f64_lu_factor_out(luo, po, S), TH_ERR_LINALG, "th_f64_lu_factor_out", "batch index 1");
    th_f64_tensor *N = th_f64_ones(2, SZ(2, 2));
    th_f64_set(N, SZ(0, 0), NAN);
    CHECK_FAILS(th_f64_lu_factor(N, &lu, &piv), TH_ERR_LINALG, "th_f64_lu_factor", "inf or NaN");
    /* lu_solve: pivots out of 1..n, a zero on U's diagonal, NaN in the factors */
    th_f64_set(S, SZ(1, 1, 1), 3.0);
    CHECK(th_f64_lu_factor(S, &lu, &piv) == TH_OK);
    th_f64_tensor *b2 = th_f64_ones(3, SZ(2, 2, 1));
    th_i32_set(piv, SZ(1, 0), 3);
    CHECK_NULL(th_f64_lu_solve(lu, piv, b2), TH_ERR_INVALID, "th_f64_lu_solve",
               "pivots[0] is 3 at batch index 1: a pivot must be in 1..2");
    th_i32_set(piv, SZ(1, 0), 0);
    CHECK_NULL(th_f64_lu_solve(lu, piv, b2), TH_ERR_INVALID, "th_f64_lu_solve", "pivots[0] is 0");
    th_i32_set(piv, SZ(1, 0), 1);
    th_f64_tensor *luz = th_f64_clone(lu);
    th_f64_set(luz, SZ(0, 1, 1), 0.0);
    CHECK_NULL(th_f64_lu_solve(luz, piv, b2), TH_ERR_LINALG, "th_f64_lu_solve",
               "LU is singular at batch index 0: its diagonal element 1 (LU[1, 1]) is 0");
    th_f64_set(luz, SZ(0, 1, 0), NAN);
    CHECK_NULL(th_f64_lu_solve(luz, piv, b2), TH_ERR_LINALG, "th_f64_lu_solve", "LU holds inf or NaN at batch index 0: LU[1, 0]");
    th_f64_tensor *o21 = th_f64_zeros(3, SZ(2, 2, 1));
    CHECK(th_f64_lu_solve_out(o21, lu, piv, b2) == TH_OK);

    /* shapes */
    th_f64_tensor *R = th_f64_ones(2, SZ(2, 3)), *V = th_f64_ones(1, SZ(2)), *M32 = th_f64_ones(2, SZ(3, 2));
    th_f64_tensor *I2 = th_f64_eye(2, 2);
    th_i32_tensor *p3 = th_i32_ones(2, SZ(2, 3)), *p1 = th_i32_ones(1, SZ(2));
    CHECK_NULL(th_f64_solve_triangular(R, M32, false, true, false), TH_ERR_SHAPE, "th_f64_solve_triangular",
               "A must be a square matrix or a batch of them");
    CHECK_NULL(th_f64_solve_triangular(I2, V, false, true, false), TH_ERR_SHAPE, "th_f64_solve_triangular",
               "A has shape (2, 2) and B (2): B must be (*, n, k)");
    CHECK_NULL(th_f64_solve_triangular(I2, M32, false, true, false), TH_ERR_SHAPE, "th_f64_solve_triangular",
               "A has shape (2, 2) and B (3, 2)");
    CHECK_NULL(th_f64_cholesky_solve(M32, I2, false), TH_ERR_SHAPE, "th_f64_cholesky_solve", "L has shape (2, 2) and B (3, 2)");
    CHECK_NULL(th_f64_cholesky_solve(M32, R, false), TH_ERR_SHAPE, "th_f64_cholesky_solve", "L must be a square matrix");
    th_f64_tensor *rlu = I2;
    th_i32_tensor *rpiv = p1;
    CHECK_FAILS(th_f64_lu_factor(R, &rlu, &rpiv), TH_ERR_SHAPE, "th_f64_lu_factor", "A must be a square matrix");
    CHECK(rlu == NULL && rpiv == NULL);
    th_f64_tensor *A3 = th_f64_ones(3, SZ(3, 2, 2)), *B4 = th_f64_ones(3, SZ(4, 2, 1));
    CHECK_NULL(th_f64_solve_triangular(A3, B4, false, true, false), TH_ERR_SHAPE, "th_f64_solve_triangular",
               "do not broadcast (3 vs 4)");
    th_f64_release(lu);
    th_i32_release(piv);
    CHECK(th_f64_lu_factor(S, &lu, &piv) == TH_OK);
    CHECK_NULL(th_f64_lu_solve(lu, p3, b2), TH_ERR_SHAPE, "th_f64_lu_solve",
               "LU has shape (2, 2, 2) and pivots (2, 3): pivots must be LU's shape without its last dim");
    CHECK_NULL(th_f64_lu_solve(lu, p1, b2), TH_ERR_SHAPE, "th_f64_lu_solve", "pivots (2)");
    CHECK_NULL(th_f64_lu_solve(lu, piv, B4), TH_ERR_SHAPE, "th_f64_lu_solve", "do not broadcast (2 vs 4)");
    CHECK_NULL(th_f64_lu_solve(lu, piv, V), TH_ERR_SHAPE, "th_f64_lu_solve", "B must be");
    th_f64_tensor *o3 = th_f64_zeros(1, SZ(3));
    CHECK_FAILS(th_f64_solve_triangular_out(o3, I2, I2, false, true, false), TH_ERR_SHAPE,
                "th_f64_solve_triangular_out", "the result has shape (2, 2)");
    CHECK_FAILS(th_f64_cholesky_solve_out(o3, I2, I2, false), TH_ERR_SHAPE, "th_f64_cholesky_solve_out",
                "the result has shape (2, 2)");
    CHECK_FAILS(th_f64_lu_solve_out(o3, lu, piv, b2), TH_ERR_SHAPE, "th_f64_lu_solve_out", "the result has shape (2, 2, 1)");
    CHECK_FAILS(th_f64_lu_factor_out(o3, po, S), TH_ERR_SHAPE, "th_f64_lu_factor_out", "the result has shape (2, 2, 2)");
    CHECK_FAILS(th_f64_lu_factor_out(luo, p3, S), TH_ERR_SHAPE, "th_f64_lu_factor_out", "the result has shape (2, 2)");

    /* dtypes: inputs and outs, pivots of another dtype than i32 */
    th_f32_tensor *f = th_f32_ones(2, SZ(2, 2));
    th_i64_tensor *p64 = th_i64_ones(2, SZ(2, 2));
    CHECK_NULL(th_f64_solve_triangular((th_f64_tensor *)f, I2, false, true, false), TH_ERR_DTYPE,
               "th_f64_solve_triangular", "A is f32, not f64");
    CHECK_NULL(th_f64_solve_triangular(I2, (th_f64_tensor *)f, false, true, false), TH_ERR_DTYPE,
               "th_f64_solve_triangular", "B is f32, not f64");
    CHECK_FAILS(th_f64_solve_triangular_out((th_f64_tensor *)f, I2, I2, false, true, false), TH_ERR_DTYPE,
                "th_f64_solve_triangular_out", "out is f32, not f64");
    CHECK_NULL(th_f64_cholesky_solve(I2, (th_f64_tensor *)f, false), TH_ERR_DTYPE, "th_f64_cholesky_solve",
               "L is f32, not f64");
    CHECK_NULL(th_f64_lu_solve(lu, (th_i32_tensor *)p64, b2), TH_ERR_DTYPE, "th_f64_lu_solve", "pivots is i64, not i32");
    CHECK_FAILS(th_f64_lu_factor_out(luo, (th_i32_tensor *)p64, S), TH_ERR_DTYPE, "th_f64_lu_factor_out",
                "pivots is i64, not i32");
    th_f64_tensor *poison = I2;
    th_i32_tensor *ppoison = p1;
    CHECK_FAILS(th_f64_lu_factor((th_f64_tensor *)f, &poison, &ppoison), TH_ERR_DTYPE, "th_f64_lu_factor", "A is f32");
    CHECK(poison == NULL && ppoison == NULL);

    /* NULLs */
    CHECK_NULL(th_f64_solve_triangular(NULL, I2, false, true, false), TH_ERR_INVALID, "th_f64_solve_triangular", "NULL A");
    CHECK_NULL(th_f64_solve_triangular(I2, NULL, false, true, false), TH_ERR_INVALID, "th_f64_solve_triangular", "NULL B");
    CHECK_FAILS(th_f64_solve_triangular_out(NULL, I2, I2, false, true, false), TH_ERR_INVALID,
                "th_f64_solve_triangular_out", "NULL out");
    CHECK_NULL(th_f64_cholesky_solve(I2, NULL, false), TH_ERR_INVALID, "th_f64_cholesky_solve", "NULL L");
    CHECK_FAILS(th_f64_cholesky_solve_out(NULL, I2, I2, false), TH_ERR_INVALID, "th_f64_cholesky_solve_out", "NULL out");
    th_f64_tensor *none = I2;
    CHECK_FAILS(th_f64_lu_factor(NULL, &none, NULL), TH_ERR_INVALID, "th_f64_lu_factor", "NULL A");
    CHECK_FAILS(th_f64_lu_factor_out(NULL, po, S), TH_ERR_INVALID, "th_f64_lu_factor_out", "NULL LU");
    CHECK_FAILS(th_f64_lu_factor_out(luo, NULL, S), TH_ERR_INVALID, "th_f64_lu_factor_out", "NULL pivots");
    CHECK_NULL(th_f64_lu_solve(lu, NULL, b2), TH_ERR_INVALID, "th_f64_lu_solve", "NULL pivots");
    CHECK_FAILS(th_f64_lu_solve_out(NULL, lu, piv, b2), TH_ERR_INVALID, "th_f64_lu_solve_out", "NULL out");
    /* lu_factor may be asked for one part */
    th_i32_tensor *only = NULL;
    CHECK(th_f64_lu_factor(S, NULL, &only) == TH_OK && only && th_i32_numel(only) == 4);
    th_i32_release(only);

    th_f64_tensor *fs[] = {A, B, out, Bt, S, luo, N, b2, luz, o21, R, V, M32, I2, A3, B4, o3, lu};
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
    th_i32_release(piv);
    th_i32_release(po);
    th_i32_release(p3);
    th_i32_release(p1);
    th_i64_release(p64);
    th_f32_release(f);
}

/* ---- lstsq, pinv, matrix_rank: LAPACK only (refused, naming the option, without it) ---- */

static th_tensor *lstsq_x(th_dtype dt, const th_tensor *a, const th_tensor *b, double rcond, th_tensor **res,
                          th_i64_tensor **rank, th_tensor **s)
{
    th_tensor *x = NULL;
    int rc = CALL_INT(dt, lstsq, (void *)a, (void *)b, rcond, (void *)&x, (void *)res, rank, (void *)s);
    CHECK(rc == TH_OK || !x);
    return x;
}

/* A (rows x cols) of rank r: a random (rows x r) times a random (r x cols). */
static th_tensor *low_rank(th_dtype dt, int64_t batch, int64_t rows, int64_t cols, int64_t r)
{
    th_tensor *u = random_matrix(dt, 3, SZ(batch, rows, r), 0.0), *v = random_matrix(dt, 3, SZ(batch, r, cols), 0.0);
    th_c128_tensor *p = (th_c128_tensor *)product(u, v);
    th_tensor *a = to_dtype(dt, p);
    th_tensor_release(u);
    th_tensor_release(v);
    th_c128_release(p);
    return a;
}

static void test_least_squares(void)
{
    if (!th_linalg_lapack()) {
        th_f64_tensor *A = th_f64_eye(3, 2), *B = th_f64_ones(2, SZ(3, 1)), *X = A, *R = A, *S = A;
        th_i64_tensor *rk = (th_i64_tensor *)B;
        CHECK_FAILS(th_f64_lstsq(A, B, -1, &X, &R, &rk, &S), TH_ERR_UNSUPPORTED, "th_f64_lstsq",
                    "needs LAPACK, and this build has none");
        CHECK(X == NULL && R == NULL && rk == NULL && S == NULL);
        th_c64_tensor *c = th_c64_eye(2, 2);
        th_f32_tensor *f = th_f32_eye(2, 2);
        CHECK_NULL(th_c64_pinv(c, -1), TH_ERR_UNSUPPORTED, "th_c64_pinv", "-Dlapack=enabled");
        CHECK_NULL(th_f32_matrix_rank(f, -1), TH_ERR_UNSUPPORTED, "th_f32_matrix_rank", "TH_USE_LAPACK");
        th_c64_release(c);
        th_f32_release(f);
        th_f64_release(A);
        th_f64_release(B);
        return;
    }
    /* closed form: A = [[1, 0], [0, 1], [1, 1]], b = [1, 2, 4]: x = [4/3, 7/3], A x - b = [1, 1, -1] / 3 */
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        th_c128_tensor *ca = th_c128_zeros(2, SZ(3, 2)), *cb = th_c128_empty(2, SZ(3, 1));
        const double av[] = {1, 0, 0, 1, 1, 1}, bv[] = {1, 2, 4};
        for (int i = 0; i < 6; i++) th_c128_data(ca)[i] = av[i];
        for (int i = 0; i < 3; i++) th_c128_data(cb)[i] = bv[i];
        th_tensor *A = to_dtype(dt, ca), *B = to_dtype(dt, cb), *res = NULL, *S = NULL;
        th_i64_tensor *rank = NULL;
        th_tensor *X = lstsq_x(dt, A, B, -1, &res, &rank, &S);
        th_c128_tensor *x = X ? as_c128(X) : NULL, *r = res ? as_c128(res) : NULL, *sv = S ? as_c128(S) : NULL;
        CHECK(x && th_c128_size(x, 0) == 2 && cabs(th_c128_data(x)[0] - 4.0 / 3) < tol(dt) &&
              cabs(th_c128_data(x)[1] - 7.0 / 3) < tol(dt));
        CHECK(r && th_c128_numel(r) == 1 && fabs(creal(th_c128_data(r)[0]) - 1.0 / 3) < tol(dt));
        CHECK(rank && th_i64_ndim(rank) == 0 && th_i64_data(rank)[0] == 2);
        /* singular values of A: sqrt 3 and 1 */
        CHECK(sv && th_c128_numel(sv) == 2 && fabs(creal(th_c128_data(sv)[0]) - sqrt(3.0)) < tol(dt) &&
              fabs(creal(th_c128_data(sv)[1]) - 1) < tol(dt));
        CHECK(res && th_tensor_dtype(res) == (dt == TH_C64 ? TH_F32 : dt == TH_C128 ? TH_F64 : dt));
        /* pinv of A: (A^T A)^-1 A^T = [[2, -1, 1], [-1, 2, 1]] / 3 */
        th_tensor *P = CALL(dt, pinv, (void *)A, -1.0);
        th_c128_tensor *p = P ? as_c128(P) : NULL;
        const double pv[] = {2, -1, 1, -1, 2, 1};
        for (int i = 0; p && i < 6; i++) CHECK(cabs(th_c128_data(p)[i] - pv[i] / 3) < tol(dt));
        CHECK(p && th_c128_size(p, 0) == 2 && th_c128_size(p, 1) == 3);
        th_tensor *tensors[] = {A, B, res, S, X, P};
        for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) th_tensor_release(tensors[i]);
        th_c128_tensor *cs[] = {ca, cb, x, r, sv, p};
        for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) th_c128_release(cs[i]);
        th_i64_release(rank);
    }
    /* random batches: tall (normal equations hold: A^H (A X - B) = 0), wide (A X = B, X = pinv(A) B), rank-deficient
     * (the minimum-norm solution pinv(A) B; residuals from A X - B); Penrose's four conditions for pinv */
    const int64_t shapes[3][3] = {{6, 4, 4}, {3, 5, 3}, {7, 5, 3}}; /* rows, cols, rank */
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        for (int sh = 0; sh < 3; sh++) {
            int64_t m = shapes[sh][0], n = shapes[sh][1], r = shapes[sh][2];
            th_tensor *A = low_rank(dt, 2, m, n, r), *B = random_matrix(dt, 3, SZ(2, m, 2), 0.0);
            th_tensor *res = NULL, *S = NULL;
            th_i64_tensor *rank = NULL;
            th_tensor *X = lstsq_x(dt, A, B, 1e-4, &res, &rank, &S);
            th_tensor *P = CALL(dt, pinv, (void *)A, 1e-4);
            th_i64_tensor *mr = (th_i64_tensor *)CALL(dt, matrix_rank, (void *)A, 1e-4);
            CHECK(X && P && mr && rank && res && S);
            if (!X || !P || !mr) {
                fprintf(stderr, "%s: %s\n", th_dtype_name(dt), th_last_error());
                continue;
            }
            CHECK(th_i64_data(rank)[0] == r && th_i64_data(rank)[1] == r);
            CHECK(th_i64_ndim(mr) == 1 && th_i64_data(mr)[0] == r && th_i64_data(mr)[1] == r);
            CHECK(th_tensor_sizes(res)[1] == (m > n ? 2 : 0));
            th_tensor *AX = product(A, X), *AH = adjoint(A);
            th_c128_tensor *Bc = as_c128(B), *R = th_c128_sub((th_c128_tensor *)AX, Bc);
            th_tensor *G = product(AH, th_c128_base(R));
            th_c128_tensor *z = th_c128_zeros(3, SZ(2, n, 2));
            CHECK(max_diff(G, th_c128_base(z)) < 50 * tol(dt)); /* A^H (A X - B) = 0 */
            /* the residuals are the squared column norms of A X - B */
            for (int64_t b = 0; m > n && b < 2; b++)
                for (int64_t c = 0; c < 2; c++) {
                    double sum = 0;
                    for (int64_t i = 0; i < m; i++) sum += pow(cabs(th_c128_data(R)[b * m * 2 + i * 2 + c]), 2);
                    th_c128_tensor *rc = as_c128(res);
                    CHECK(fabs(creal(th_c128_data(rc)[b * 2 + c]) - sum) < 50 * tol(dt) * (1 + sum));
                    th_c128_release(rc);
                }
            /* X = pinv(A) B: the minimum-norm solution */
            th_tensor *PB = product(P, B);
            CHECK(max_diff(PB, X) < 50 * tol(dt));
            /* Penrose: A P A = A, P A P = P, (A P)^H = A P, (P A)^H = P A */
            th_tensor *AP = product(A, P), *PA = product(P, A), *APA = product(AP, A), *PAP = product(PA, P);
            th_tensor *APH = adjoint(AP), *PAH = adjoint(PA);
            CHECK(max_diff(APA, A) < 50 * tol(dt) && max_diff(PAP, P) < 50 * tol(dt));
            CHECK(max_diff(APH, AP) < 50 * tol(dt) && max_diff(PAH, PA) < 50 * tol(dt));
            /* S: the singular values, the first r of svdvals */
            th_tensor *sv = CALL(dt, svdvals, (void *)A);
            CHECK(max_diff(sv, S) < 50 * tol(dt));
            th_tensor *tensors[] = {A, B, res, S, X, P, AX, AH, G, PB, AP, PA, APA, PAP, APH, PAH, sv};
            for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) th_tensor_release(tensors[i]);
            th_c128_release(R);
            th_c128_release(Bc);
            th_c128_release(z);
            th_i64_release(rank);
            th_i64_release(mr);
        }
    }
    /* matrix_rank: the identity, zeros, a large rtol, an empty batch, 0 x n */
    th_f64_tensor *I3 = th_f64_eye(3, 3), *Z = th_f64_zeros(3, SZ(2, 2, 3)), *E = th_f64_zeros(3, SZ(0, 2, 2));
    th_f64_tensor *D = th_f64_zeros(2, SZ(3, 3)), *W = th_f64_zeros(2, SZ(0, 3));
    th_f64_set(D, SZ(0, 0), 1.0);
    th_f64_set(D, SZ(1, 1), 0.5);
    th_f64_set(D, SZ(2, 2), 0.01);
    th_i64_tensor *r1 = th_f64_matrix_rank(I3, -1), *r2 = th_f64_matrix_rank(Z, -1), *r3 = th_f64_matrix_rank(D, 0.1);
    th_i64_tensor *r4 = th_f64_matrix_rank(D, 0.5), *r5 = th_f64_matrix_rank(E, -1), *r6 = th_f64_matrix_rank(W, -1);
    CHECK(r1 && th_i64_ndim(r1) == 0 && th_i64_data(r1)[0] == 3);
    CHECK(r2 && th_i64_numel(r2) == 2 && th_i64_data(r2)[0] == 0 && th_i64_data(r2)[1] == 0);
    CHECK(r3 && th_i64_data(r3)[0] == 2 && r4 && th_i64_data(r4)[0] == 1); /* 0.5 is not above 0.5 * 1 */
    CHECK(r5 && th_i64_numel(r5) == 0 && r6 && th_i64_data(r6)[0] == 0);
    th_i64_tensor *ro = th_i64_zeros(0, NULL);
    CHECK(th_f64_matrix_rank_out(ro, D, 0.1) == TH_OK && th_i64_data(ro)[0] == 2);
    /* lstsq of 0 x n and m x 0, no right-hand sides, pinv of an empty matrix, broadcast batch dims */
    th_f64_tensor *b0 = th_f64_zeros(2, SZ(0, 2)), *x0 = NULL, *res0 = NULL, *s0 = NULL, *Wt = th_f64_transpose(W, 0, 1);
    th_i64_tensor *rk0 = NULL;
    CHECK(th_f64_lstsq(W, b0, -1, &x0, &res0, &rk0, &s0) == TH_OK && th_f64_size(x0, 0) == 3 &&
          th_f64_get(x0, SZ(2, 1)) == 0.0 && th_f64_numel(res0) == 0 && th_i64_data(rk0)[0] == 0 && th_f64_numel(s0) == 0);
    th_f64_tensor *b3 = th_f64_ones(2, SZ(3, 2)), *x1 = NULL, *res1 = NULL;
    CHECK(th_f64_lstsq(Wt, b3, -1, &x1, &res1, NULL, NULL) == TH_OK && th_f64_numel(x1) == 0 &&
          th_f64_numel(res1) == 2 && th_f64_get(res1, SZ(1)) == 3.0);
    th_f64_tensor *nb = th_f64_zeros(2, SZ(3, 0)), *xn = NULL, *sn = NULL;
    CHECK(th_f64_lstsq(D, nb, -1, &xn, NULL, NULL, &sn) == TH_OK && th_f64_size(xn, 1) == 0 &&
          th_f64_get(sn, SZ(2)) == 0.01);
    th_f64_tensor *pe = th_f64_pinv(W, -1);
    CHECK(pe && th_f64_size(pe, 0) == 3 && th_f64_size(pe, 1) == 0);
    th_f64_tensor *Ab = (th_f64_tensor *)random_matrix(TH_F64, 4, SZ(2, 1, 5, 3), 0.0);
    th_f64_tensor *Bb = (th_f64_tensor *)random_matrix(TH_F64, 3, SZ(4, 5, 2), 0.0), *xb = NULL;
    CHECK(th_f64_lstsq(Ab, Bb, -1, &xb, NULL, NULL, NULL) == TH_OK && th_f64_ndim(xb) == 4 && th_f64_size(xb, 1) == 4);
    th_f64_tensor *A10 = th_f64_narrow(Ab, 0, 1, 1), *A1 = th_f64_squeeze_dim(A10, 0), *A1s = th_f64_squeeze_dim(A1, 0);
    th_f64_tensor *B2 = th_f64_narrow(Bb, 0, 2, 1), *B2s = th_f64_squeeze_dim(B2, 0), *x12 = NULL;
    CHECK(th_f64_lstsq(A1s, B2s, -1, &x12, NULL, NULL, NULL) == TH_OK);
    th_f64_tensor *xb12a = th_f64_select(xb, 0, 1), *xb12 = th_f64_select(xb12a, 0, 2);
    CHECK(max_diff(th_f64_base(xb12), th_f64_base(x12)) < 1e-13);
    /* outs: strided X, residuals, rank, S; NULL parts */
    th_f64_tensor *Xbig = th_f64_zeros(2, SZ(3, 4)), *Xo = th_f64_narrow(Xbig, 1, 1, 2), *Ro = th_f64_zeros(1, SZ(2));
    th_f64_tensor *So = th_f64_zeros(1, SZ(3)), *Dt = th_f64_ones(2, SZ(3, 2));
    th_i64_tensor *Ko = th_i64_zeros(0, NULL);
    th_f64_tensor *T4 = (th_f64_tensor *)random_matrix(TH_F64, 2, SZ(5, 3), 0.0), *B52 = th_f64_ones(2, SZ(5, 2));
    th_f64_tensor *xr = NULL, *rr = NULL;
    CHECK(th_f64_lstsq(T4, B52, -1, &xr, &rr, NULL, NULL) == TH_OK);
    CHECK(th_f64_lstsq_out(Xo, Ro, Ko, So, T4, B52, -1) == TH_OK && max_diff(th_f64_base(Xo), th_f64_base(xr)) < 1e-15 &&
          max_diff(th_f64_base(Ro), th_f64_base(rr)) < 1e-15 && th_i64_data(Ko)[0] == 3);
    CHECK(th_f64_lstsq_out(Xo, NULL, NULL, NULL, T4, B52, -1) == TH_OK);
    th_f64_tensor *Po = th_f64_zeros(2, SZ(3, 5)), *Pt = th_f64_transpose(Po, 0, 1), *Pt2 = th_f64_transpose(Pt, 0, 1);
    th_f64_tensor *Pn = th_f64_pinv(T4, -1);
    CHECK(th_f64_pinv_out(Pt2, T4, -1) == TH_OK && max_diff(th_f64_base(Pt2), th_f64_base(Pn)) == 0);

    /* errors */
    th_f64_tensor *N = th_f64_ones(3, SZ(2, 3, 2)), *Bn = th_f64_ones(3, SZ(2, 3, 1)), *xx = NULL;
    th_f64_set(N, SZ(1, 0, 1), NAN);
    CHECK_FAILS(th_f64_lstsq(N, Bn, -1, &xx, NULL, NULL, NULL), TH_ERR_LINALG, "th_f64_lstsq",
                "A holds inf or NaN at batch index 1: A[0, 1] is nan");
    th_f64_set(N, SZ(1, 0, 1), 1.0);
    th_f64_set(Bn, SZ(0, 2, 0), NAN);
    CHECK_FAILS(th_f64_lstsq(N, Bn, -1, &xx, NULL, NULL, NULL), TH_ERR_LINALG, "th_f64_lstsq",
                "B holds inf or NaN at batch index 0: B[2, 0] is nan");
    th_f64_set(N, SZ(0, 0, 0), INFINITY);
    CHECK_NULL(th_f64_pinv(N, -1), TH_ERR_LINALG, "th_f64_pinv", "A holds inf or NaN at batch index 0: A[0, 0] is inf");
    CHECK_NULL(th_f64_matrix_rank(N, -1), TH_ERR_LINALG, "th_f64_matrix_rank",
               "A holds inf or NaN at batch index 0: A[0, 0] is inf");
    CHECK_FAILS(th_f64_lstsq(T4, Dt, -1, &xx, NULL, NULL, NULL), TH_ERR_SHAPE, "th_f64_lstsq",
                "A has shape (5, 3) and B (3, 2): B must be (*, n, k) with n A's size");
    th_f64_tensor *v5 = th_f64_ones(1, SZ(5));
    CHECK_FAILS(th_f64_lstsq(T4, v5, -1, &xx, NULL, NULL, NULL), TH_ERR_SHAPE, "th_f64_lstsq", "B (5)");
    CHECK_FAILS(th_f64_lstsq(v5, v5, -1, &xx, NULL, NULL, NULL), TH_ERR_SHAPE, "th_f64_lstsq", "at least 2 dims");
    CHECK_FAILS(th_f64_lstsq(T4, B52, NAN, &xx, NULL, NULL, NULL), TH_ERR_INVALID, "th_f64_lstsq", "rcond is NaN");
    CHECK_NULL(th_f64_pinv(T4, NAN), TH_ERR_INVALID, "th_f64_pinv", "rtol is NaN");
    CHECK_NULL(th_f64_matrix_rank(T4, NAN), TH_ERR_INVALID, "th_f64_matrix_rank", "rtol is NaN");
    CHECK_NULL(th_f64_pinv(v5, -1), TH_ERR_SHAPE, "th_f64_pinv", "it has shape (5)");
    CHECK_FAILS(th_f64_lstsq_out(Xo, So, NULL, NULL, T4, B52, -1), TH_ERR_SHAPE, "th_f64_lstsq_out",
                "out has shape (3); the result has shape (2)");
    CHECK_FAILS(th_f64_lstsq_out(Xo, NULL, NULL, Ro, T4, B52, -1), TH_ERR_SHAPE, "th_f64_lstsq_out", "the result has shape (3)");
    CHECK_FAILS(th_f64_lstsq_out(Xo, NULL, (th_i64_tensor *)Ro, NULL, T4, B52, -1), TH_ERR_DTYPE, "th_f64_lstsq_out",
                "rank is f64, not i64");
    CHECK_FAILS(th_f64_lstsq_out(NULL, NULL, NULL, NULL, T4, B52, -1), TH_ERR_INVALID, "th_f64_lstsq_out", "NULL X");
    CHECK_FAILS(th_f64_matrix_rank_out((th_i64_tensor *)Ro, T4, -1), TH_ERR_DTYPE, "th_f64_matrix_rank_out", "out is f64, not i64");
    CHECK_FAILS(th_f64_matrix_rank_out(NULL, T4, -1), TH_ERR_INVALID, "th_f64_matrix_rank_out", "NULL out");
    CHECK_FAILS(th_f64_pinv_out(Xbig, T4, -1), TH_ERR_SHAPE, "th_f64_pinv_out",
                "out has shape (3, 4); the result has shape (3, 5)");
    CHECK_FAILS(th_f64_pinv_out(NULL, T4, -1), TH_ERR_INVALID, "th_f64_pinv_out", "NULL out");
    th_c128_tensor *cz = th_c128_zeros(2, SZ(2, 2));
    th_f64_tensor *fo = NULL;
    CHECK(th_c128_lstsq(cz, cz, -1, NULL, &fo, NULL, NULL) == TH_OK && fo && th_f64_numel(fo) == 0);
    th_f64_release(fo);
    CHECK_FAILS(th_c128_lstsq_out(cz, (th_f64_tensor *)cz, NULL, NULL, cz, cz, -1), TH_ERR_DTYPE, "th_c128_lstsq_out",
                "residuals is c128, not f64");

    th_f64_tensor *fs[] = {I3, Z, E, D, W, b0, x0, res0, s0, Wt, b3, x1, res1, nb, xn, sn, pe, Ab, Bb, xb, A10, A1, A1s,
                           B2, B2s, x12, xb12a, xb12, Xbig, Xo, Ro, So, Dt, T4, B52, xr, rr, Po, Pt, Pt2, Pn, N, Bn, v5};
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
    th_i64_tensor *is[] = {r1, r2, r3, r4, r5, r6, ro, rk0, Ko};
    for (size_t i = 0; i < sizeof is / sizeof *is; i++) th_i64_release(is[i]);
    th_c128_release(cz);
}

/* ---- matrix_norm and cond ---- */

static th_tensor *norm_of(th_dtype dt, const th_tensor *a, th_norm_ord ord) { return CALL(dt, matrix_norm, (void *)a, ord); }
static th_tensor *cond_of(th_dtype dt, const th_tensor *a, th_norm_ord ord) { return CALL(dt, cond, (void *)a, ord); }

static bool needs_svd(th_norm_ord ord) { return ord == TH_NORM_NUC || ord == TH_NORM_2 || ord == TH_NORM_NEG_2; }

static void test_norms(void)
{
    /* A = [[1, -2], [3, 4]] (times the unit 0.6 + 0.8i for complex dtypes: the same norms); singular values
     * sqrt(15 +- sqrt 125); A^-1 = [[4, 2], [-3, 1]] / 10 */
    const double s1 = sqrt(15 + sqrt(125.0)), s2 = sqrt(15 - sqrt(125.0));
    const double norms[8] = {sqrt(30.0), s1 + s2, 6, 4, s1, s2, 7, 3};
    const double conds[8] = {3, 5, 4.2, 1.2, s1 / s2, s2 / s1, 4.2, 1.2};
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        th_c128_tensor *ca = th_c128_empty(2, SZ(2, 2));
        const double av[] = {1, -2, 3, 4};
        for (int i = 0; i < 4; i++) th_c128_data(ca)[i] = av[i] * (is_complex(dt) ? 0.6 + 0.8 * I : 1.0);
        th_tensor *A = to_dtype(dt, ca);
        for (int o = 0; o < 8; o++) {
            th_norm_ord ord = (th_norm_ord)o;
            th_tensor *N = norm_of(dt, A, ord), *Cn = cond_of(dt, A, ord);
            if (!th_linalg_lapack() && needs_svd(ord)) {
                CHECK(N == NULL && th_last_status() == TH_ERR_UNSUPPORTED);
                CHECK(Cn == NULL && th_last_status() == TH_ERR_UNSUPPORTED);
                continue;
            }
            CHECK(N && th_tensor_ndim(N) == 0 && th_tensor_dtype(N) == (dt == TH_C64 ? TH_F32 : dt == TH_C128 ? TH_F64 : dt));
            th_c128_tensor *n = N ? as_c128(N) : NULL, *c = Cn ? as_c128(Cn) : NULL;
            CHECK(n && fabs(creal(th_c128_data(n)[0]) - norms[o]) < 10 * tol(dt));
            CHECK(c && fabs(creal(th_c128_data(c)[0]) - conds[o]) < 10 * tol(dt));
            if (!c || !(fabs(creal(th_c128_data(c)[0]) - conds[o]) < 10 * tol(dt)))
                fprintf(stderr, "cond %s ord %d: %s\n", th_dtype_name(dt), o, c ? "" : th_last_error());
            th_tensor_release(N);
            th_tensor_release(Cn);
            th_c128_release(n);
            th_c128_release(c);
        }
        th_tensor_release(A);
        th_c128_release(ca);
    }
    /* random batches: every ord against the definitions (sums here, svdvals for 2, -2, nuc), cond = |A| |A^-1| */
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        th_tensor *A = random_matrix(dt, 4, SZ(2, 3, 4, 5), 0.0), *Q = random_matrix(dt, 3, SZ(3, 4, 4), 3.0);
        th_c128_tensor *a = as_c128(A);
        th_tensor *sv = th_linalg_lapack() ? CALL(dt, svdvals, (void *)A) : NULL;
        th_c128_tensor *s = sv ? as_c128(sv) : NULL;
        th_tensor *Qi = CALL(dt, inv, (void *)Q);
        for (int o = 0; o < 8; o++) {
            th_norm_ord ord = (th_norm_ord)o;
            th_tensor *N = norm_of(dt, A, ord);
            if (!th_linalg_lapack() && needs_svd(ord)) {
                CHECK(N == NULL);
                continue;
            }
            th_c128_tensor *n = N ? as_c128(N) : NULL;
            CHECK(n && th_c128_ndim(n) == 2 && th_c128_size(n, 1) == 3);
            for (int64_t b = 0; n && b < 6; b++) {
                const th_complex128 *m = th_c128_data(a) + b * 20;
                double want = 0, sums[5] = {0}, rows[4] = {0};
                for (int i = 0; i < 20; i++) {
                    want += pow(cabs(m[i]), 2);
                    sums[i % 5] += cabs(m[i]);
                    rows[i / 5] += cabs(m[i]);
                }
                if (ord == TH_NORM_FRO) want = sqrt(want);
                if (ord == TH_NORM_1 || ord == TH_NORM_NEG_1 || ord == TH_NORM_INF || ord == TH_NORM_NEG_INF) {
                    bool col = ord == TH_NORM_1 || ord == TH_NORM_NEG_1, hi = ord == TH_NORM_1 || ord == TH_NORM_INF;
                    const double *v = col ? sums : rows;
                    want = v[0];
                    for (int i = 1; i < (col ? 5 : 4); i++) want = hi ? fmax(want, v[i]) : fmin(want, v[i]);
                }
                if (needs_svd(ord)) {
                    const th_complex128 *sb = th_c128_data(s) + b * 4;
                    want = ord == TH_NORM_2 ? creal(sb[0]) : ord == TH_NORM_NEG_2 ? creal(sb[3])
                                                                 : creal(sb[0] + sb[1] + sb[2] + sb[3]);
                }
                CHECK(fabs(creal(th_c128_data(n)[b]) - want) < 20 * tol(dt) * (1 + want));
            }
            /* cond (square) = |Q| |Q^-1|, batched */
            th_tensor *C = cond_of(dt, Q, ord), *NQ = norm_of(dt, Q, ord), *NI = norm_of(dt, Qi, ord);
            th_c128_tensor *c = C ? as_c128(C) : NULL, *nq = as_c128(NQ), *ni = as_c128(NI);
            for (int64_t b = 0; c && b < 3; b++) {
                double want = creal(th_c128_data(nq)[b]) * creal(th_c128_data(ni)[b]);
                CHECK(fabs(creal(th_c128_data(c)[b]) - want) < 50 * tol(dt) * want);
            }
            CHECK(c && th_c128_numel(c) == 3);
            th_tensor_release(N);
            th_tensor_release(C);
            th_tensor_release(NQ);
            th_tensor_release(NI);
            th_c128_release(n);
            th_c128_release(c);
            th_c128_release(nq);
            th_c128_release(ni);
        }
        th_tensor_release(A);
        th_tensor_release(Q);
        th_tensor_release(Qi);
        th_tensor_release(sv);
        th_c128_release(a);
        th_c128_release(s);
    }
    /* singular: cond is inf; NaN propagates through the entry norms; strided inputs and outs */
    th_f64_tensor *S = th_f64_ones(2, SZ(2, 2)), *N = th_f64_ones(2, SZ(2, 2));
    th_f64_set(N, SZ(1, 0), NAN);
    for (int o = 0; o < 8; o++) {
        th_norm_ord ord = (th_norm_ord)o;
        if (!th_linalg_lapack() && needs_svd(ord)) continue;
        th_f64_tensor *c = th_f64_cond(S, ord); /* 2, -2: the rounded singular value may not be exactly 0 */
        double cv = c ? th_f64_get(c, NULL) : NAN;
        CHECK(ord == TH_NORM_2 ? cv > 1e15 : ord == TH_NORM_NEG_2 ? cv < 1e-15 : isinf(cv) && cv > 0);
        th_f64_release(c);
        th_f64_tensor *nn = th_f64_matrix_norm(N, ord);
        if (needs_svd(ord)) CHECK(nn == NULL && th_last_status() == TH_ERR_LINALG && strstr(th_last_error(), "NaN"));
        else CHECK(nn && isnan(th_f64_get(nn, NULL)));
        th_f64_release(nn);
    }
    th_f64_tensor *big = (th_f64_tensor *)random_matrix(TH_F64, 2, SZ(5, 8), 2.0), *v = th_f64_narrow(big, 1, 2, 5);
    th_f64_tensor *vt = th_f64_transpose(v, 0, 1), *vc = th_f64_contiguous(vt), *o0 = th_f64_zeros(0, NULL);
    th_f64_tensor *n1 = th_f64_matrix_norm(vt, TH_NORM_1), *n2 = th_f64_matrix_norm(vc, TH_NORM_1);
    th_f64_tensor *c1 = th_f64_cond(vt, TH_NORM_INF), *c2 = th_f64_cond(vc, TH_NORM_INF);
    CHECK(n1 && n2 && th_f64_get(n1, NULL) == th_f64_get(n2, NULL) && c1 && c2 &&
          fabs(th_f64_get(c1, NULL) - th_f64_get(c2, NULL)) < 1e-12 * th_f64_get(c2, NULL));
    CHECK(th_f64_cond_out(o0, vt, TH_NORM_INF) == TH_OK && th_f64_get(o0, NULL) == th_f64_get(c1, NULL));
    CHECK(th_f64_matrix_norm_out(o0, vt, TH_NORM_1) == TH_OK && th_f64_get(o0, NULL) == th_f64_get(n1, NULL));
    /* fro of huge values: no overflow on the way */
    th_f64_tensor *H = th_f64_full(2, SZ(2, 2), 1e300), *hn = th_f64_matrix_norm(H, TH_NORM_FRO);
    CHECK(hn && fabs(th_f64_get(hn, NULL) - 2e300) < 1e286);
    /* empty: fro of 0 x n is 0; a batch of none; an empty set is refused */
    th_f64_tensor *Z = th_f64_zeros(2, SZ(0, 3)), *ZB = th_f64_zeros(3, SZ(0, 2, 2));
    th_f64_tensor *zf = th_f64_matrix_norm(Z, TH_NORM_FRO), *z1 = th_f64_matrix_norm(Z, TH_NORM_1);
    th_f64_tensor *zb = th_f64_matrix_norm(ZB, TH_NORM_INF), *zc = th_f64_cond(ZB, TH_NORM_1);
    CHECK(zf && th_f64_get(zf, NULL) == 0 && z1 && th_f64_get(z1, NULL) == 0 && zb && th_f64_numel(zb) == 0 && zc &&
          th_f64_numel(zc) == 0);
    CHECK_NULL(th_f64_matrix_norm(Z, TH_NORM_INF), TH_ERR_SHAPE, "th_f64_matrix_norm",
               "the inf-norm of an empty matrix is not defined (A has shape (0, 3))");
    th_f64_tensor *Z0 = th_f64_zeros(2, SZ(0, 0));
    CHECK_NULL(th_f64_cond(Z0, TH_NORM_FRO), TH_ERR_SHAPE, "th_f64_cond", "the condition number of an empty matrix");
    /* errors */
    CHECK_NULL(th_f64_matrix_norm(S, (th_norm_ord)42), TH_ERR_INVALID, "th_f64_matrix_norm", "ord is 42: not a th_norm_ord");
    CHECK_NULL(th_f64_cond(S, (th_norm_ord)-1), TH_ERR_INVALID, "th_f64_cond", "ord is -1");
    th_f64_tensor *R = th_f64_ones(2, SZ(2, 3)), *V = th_f64_ones(1, SZ(3));
    CHECK_NULL(th_f64_cond(R, TH_NORM_1), TH_ERR_SHAPE, "th_f64_cond", "A must be a square matrix");
    CHECK_NULL(th_f64_matrix_norm(V, TH_NORM_FRO), TH_ERR_SHAPE, "th_f64_matrix_norm", "at least 2 dims");
    if (th_linalg_lapack()) {
        th_f64_tensor *cr = th_f64_cond(R, TH_NORM_2); /* rank 1: its second singular value rounds to about 1e-16 */
        CHECK(cr && th_f64_get(cr, NULL) > 1e15);
        th_f64_release(cr);
    } else {
        CHECK_NULL(th_f64_cond(R, TH_NORM_2), TH_ERR_UNSUPPORTED, "th_f64_cond", "needs LAPACK");
        CHECK_NULL(th_f64_matrix_norm(R, TH_NORM_NUC), TH_ERR_UNSUPPORTED, "th_f64_matrix_norm", "-Dlapack=enabled");
    }
    th_f64_tensor *o1 = th_f64_zeros(1, SZ(1));
    CHECK_FAILS(th_f64_matrix_norm_out(o1, S, TH_NORM_FRO), TH_ERR_SHAPE, "th_f64_matrix_norm_out", "the result has shape ()");
    CHECK_FAILS(th_f64_cond_out(NULL, S, TH_NORM_FRO), TH_ERR_INVALID, "th_f64_cond_out", "NULL out");
    CHECK_FAILS(th_f64_matrix_norm_out(NULL, S, TH_NORM_FRO), TH_ERR_INVALID, "th_f64_matrix_norm_out", "NULL out");
    th_c128_tensor *cz = th_c128_zeros(0, NULL), *cs = th_c128_eye(2, 2);
    CHECK_FAILS(th_c128_cond_out((th_f64_tensor *)cz, cs, TH_NORM_FRO), TH_ERR_DTYPE, "th_c128_cond_out",
                "out is c128, not f64");
    CHECK_NULL(th_f64_matrix_norm((th_f64_tensor *)cs, TH_NORM_FRO), TH_ERR_DTYPE, "th_f64_matrix_norm", "A is c128");
    th_f64_tensor *fs[] = {S, N, big, v, vt, vc, o0, n1, n2, c1, c2, H, hn, Z, ZB, zf, z1, zb, zc, Z0, R, V, o1};
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
    th_c128_release(cz);
    th_c128_release(cs);
}

/* ---- matrix_power ---- */

static void test_matrix_power(void)
{
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        th_tensor *A = random_matrix(dt, 4, SZ(2, 3, 4, 4), 2.0);
        th_tensor *P0 = CALL(dt, matrix_power, (void *)A, 0), *P1 = CALL(dt, matrix_power, (void *)A, 1);
        th_tensor *P5 = CALL(dt, matrix_power, (void *)A, 5), *Pm2 = CALL(dt, matrix_power, (void *)A, -2);
        th_c128_tensor *I4 = th_c128_eye(4, 4), *Ib = th_c128_expand(I4, 4, SZ(2, 3, 4, 4));
        CHECK(max_diff(P0, th_c128_base(Ib)) == 0);
        CHECK(max_diff(P1, A) == 0);
        th_tensor *A2 = product(A, A), *A4 = product(A2, A2), *A5 = product(A4, A);
        double scale = 1;
        th_c128_tensor *a5 = as_c128(A5);
        for (int64_t i = 0; i < th_c128_numel(a5); i++) scale = fmax(scale, cabs(th_c128_data(a5)[i]));
        CHECK(max_diff(P5, A5) < 20 * tol(dt) * scale);
        /* A^-2 A^2 = I */
        th_tensor *Q = Pm2 ? product(Pm2, A2) : NULL;
        CHECK(max_diff(Q, th_c128_base(Ib)) < 50 * tol(dt));
        th_tensor *tensors[] = {A, P0, P1, P5, Pm2, A2, A4, A5, Q};
        for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) th_tensor_release(tensors[i]);
        th_c128_release(I4);
        th_c128_release(Ib);
        th_c128_release(a5);
    }
    /* closed form: the rotation by 90 degrees R has R^4 = I, R^-1 = R^3, R^(2^62 + 1) = R */
    th_f64_tensor *R = th_f64_zeros(2, SZ(2, 2));
    th_f64_set(R, SZ(0, 1), -1.0);
    th_f64_set(R, SZ(1, 0), 1.0);
    th_f64_tensor *R4 = th_f64_matrix_power(R, 4), *Rm1 = th_f64_matrix_power(R, -1), *R3 = th_f64_matrix_power(R, 3);
    th_f64_tensor *Rb = th_f64_matrix_power(R, ((int64_t)1 << 62) + 1), *Rmin = th_f64_matrix_power(R, INT64_MIN);
    th_f64_tensor *I2 = th_f64_eye(2, 2);
    CHECK(R4 && max_diff(th_f64_base(R4), th_f64_base(I2)) == 0);
    CHECK(Rm1 && R3 && max_diff(th_f64_base(Rm1), th_f64_base(R3)) == 0);
    CHECK(Rb && max_diff(th_f64_base(Rb), th_f64_base(R)) == 0);
    CHECK(Rmin && max_diff(th_f64_base(Rmin), th_f64_base(I2)) == 0); /* 2^63 is a multiple of 4 */
    /* strided input and out; out overlapping A; an empty batch; 0 x 0 */
    th_f64_tensor *Rt = th_f64_transpose(R, 0, 1), *o = th_f64_zeros(2, SZ(2, 4)), *ov = th_f64_narrow(o, 1, 1, 2);
    CHECK(th_f64_matrix_power_out(ov, Rt, 3) == TH_OK && max_diff(th_f64_base(ov), th_f64_base(R)) == 0);
    th_f64_tensor *ip = th_f64_clone(R);
    CHECK(th_f64_matrix_power_out(ip, ip, 2) == TH_OK && th_f64_get(ip, SZ(0, 0)) == -1.0);
    th_f64_tensor *E = th_f64_zeros(3, SZ(0, 3, 3)), *Z = th_f64_zeros(2, SZ(0, 0));
    th_f64_tensor *e = th_f64_matrix_power(E, -3), *z = th_f64_matrix_power(Z, 0);
    CHECK(e && th_f64_numel(e) == 0 && z && th_f64_numel(z) == 0);
    /* a singular matrix: A^0 is I, a negative power is refused at its batch index */
    th_f64_tensor *S = th_f64_ones(3, SZ(2, 2, 2));
    th_f64_set(S, SZ(0, 1, 1), 2.0);
    th_f64_tensor *s0 = th_f64_matrix_power(S, 0), *s2 = th_f64_matrix_power(S, 2);
    CHECK(s0 && th_f64_get(s0, SZ(1, 0, 0)) == 1.0 && s2 && th_f64_get(s2, SZ(1, 0, 0)) == 2.0);
    CHECK_NULL(th_f64_matrix_power(S, -1), TH_ERR_LINALG, "th_f64_matrix_power", "A is singular at batch index 1");
    /* errors */
    th_f64_tensor *N = th_f64_ones(2, SZ(2, 3)), *o3 = th_f64_zeros(1, SZ(3));
    CHECK_NULL(th_f64_matrix_power(N, 2), TH_ERR_SHAPE, "th_f64_matrix_power", "A must be a square matrix");
    CHECK_FAILS(th_f64_matrix_power_out(o3, R, 2), TH_ERR_SHAPE, "th_f64_matrix_power_out", "the result has shape (2, 2)");
    CHECK_FAILS(th_f64_matrix_power_out(NULL, R, 2), TH_ERR_INVALID, "th_f64_matrix_power_out", "NULL out");
    CHECK_NULL(th_f64_matrix_power(NULL, 2), TH_ERR_INVALID, "th_f64_matrix_power", "NULL A");
    th_f32_tensor *f = th_f32_eye(2, 2);
    CHECK_NULL(th_f64_matrix_power((th_f64_tensor *)f, 2), TH_ERR_DTYPE, "th_f64_matrix_power", "A is f32, not f64");
    CHECK_FAILS(th_f64_matrix_power_out((th_f64_tensor *)f, R, 2), TH_ERR_DTYPE, "th_f64_matrix_power_out", "out is f32");
    th_f32_release(f);
    th_f64_tensor *fs[] = {R, R4, Rm1, R3, Rb, Rmin, I2, Rt, o, ov, ip, E, Z, e, z, S, s0, s2, N, o3};
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
}

/* ---- matrix_exp ---- */

/* A c128 matrix (n x n) of one dtype dt from row-major values (imaginary parts dropped for real dtypes). */
static th_tensor *matrix_of(th_dtype dt, int64_t n, const double complex *v)
{
    th_c128_tensor *c = th_c128_empty(2, SZ(n, n));
    for (int64_t i = 0; i < n * n; i++) th_c128_data(c)[i] = v[i];
    th_tensor *t = to_dtype(dt, c);
    th_c128_release(c);
    return t;
}

/* The largest |x| over the elements of t (at least 1). */
static double max_abs(const th_tensor *t)
{
    th_c128_tensor *c = as_c128(t);
    double m = 1;
    for (int64_t i = 0; i < th_c128_numel(c); i++) m = fmax(m, cabs(th_c128_data(c)[i]));
    th_c128_release(c);
    return m;
}

static void test_matrix_exp(void)
{
    for (int k = 0; k < 4; k++) {
        th_dtype dt = dtypes[k];
        double t = tol(dt);
        /* closed forms: a zero matrix gives I exactly; diag(d) gives diag(exp d), with d = 9 past every theta (s > 0);
         * the rotation generator [[0, -w], [w, 0]] gives the rotation by w; a nilpotent N gives I + N + N^2 / 2 */
        th_tensor *Z = matrix_of(dt, 3, (const double complex[]){0, 0, 0, 0, 0, 0, 0, 0, 0});
        th_tensor *EZ = CALL(dt, matrix_exp, (void *)Z);
        th_c128_tensor *I3 = th_c128_eye(3, 3);
        CHECK(max_diff(EZ, th_c128_base(I3)) == 0);
        th_tensor *D = matrix_of(dt, 3, (const double complex[]){9, 0, 0, 0, -2.5, 0, 0, 0, 0.25 + 1.5 * I});
        th_tensor *ED = CALL(dt, matrix_exp, (void *)D);
        th_tensor *WD = matrix_of(dt, 3, (const double complex[]){exp(9), 0, 0, 0, exp(-2.5), 0, 0, 0,
                                                                   cexp(is_complex(dt) ? 0.25 + 1.5 * I : 0.25)});
        CHECK(max_diff(ED, WD) < 10 * t * exp(9));
        double w = 2.5;
        th_tensor *G = matrix_of(dt, 2, (const double complex[]){0, -w, w, 0});
        th_tensor *EG = CALL(dt, matrix_exp, (void *)G);
        th_tensor *WG = matrix_of(dt, 2, (const double complex[]){cos(w), -sin(w), sin(w), cos(w)});
        CHECK(max_diff(EG, WG) < 10 * t);
        th_tensor *N = matrix_of(dt, 3, (const double complex[]){0, 3, -2, 0, 0, 4 + I, 0, 0, 0});
        th_tensor *EN = CALL(dt, matrix_exp, (void *)N);
        th_tensor *WN = matrix_of(dt, 3, (const double complex[]){1, 3, -2 + 0.5 * 3 * (4 + (is_complex(dt) ? I : 0)),
                                                                   0, 1, 4 + (is_complex(dt) ? I : 0), 0, 0, 1});
        CHECK(max_diff(EN, WN) < 10 * t * 8);
        /* exp(A) exp(-A) = I for a batch of random matrices whose norms reach every Pade degree and s > 0 */
        th_tensor *A = random_matrix(dt, 3, SZ(6, 4, 4), 0.0);
        th_c128_tensor *ac = as_c128(A);
        const double scales[6] = {0.002, 0.05, 0.2, 0.5, 1.2, 6.0};
        for (int64_t i = 0; i < th_c128_numel(ac); i++) th_c128_data(ac)[i] *= scales[i / 16];
        th_tensor *As = to_dtype(dt, ac);
        th_c128_tensor *nac = th_c128_clone(ac);
        for (int64_t i = 0; i < th_c128_numel(nac); i++) th_c128_data(nac)[i] = -th_c128_data(nac)[i];
        th_tensor *Ns = to_dtype(dt, nac);
        th_tensor *EA = CALL(dt, matrix_exp, (void *)As), *EM = CALL(dt, matrix_exp, (void *)Ns);
        th_tensor *PP = EA && EM ? product(EA, EM) : NULL;
        th_c128_tensor *I4 = th_c128_eye(4, 4), *Ib = th_c128_expand(I4, 3, SZ(6, 4, 4));
        CHECK(max_diff(PP, th_c128_base(Ib)) < 50 * t * max_abs(EA) * max_abs(EM));
        /* the same batch transposed in A and out: exp(A^T) = exp(A)^T */
        int dims = 3;
        th_tensor *At = CALL(dt, transpose, (void *)As, 1, 2), *EAt = CALL(dt, matrix_exp, (void *)At);
        th_tensor *O = random_matrix(dt, dims, SZ(6, 4, 4), 0.0), *Ot = CALL(dt, transpose, (void *)O, 1, 2);
        CHECK(CALL_INT(dt, matrix_exp_out, (void *)Ot, (void *)At) == TH_OK);
        th_tensor *EAtt = EAt ? CALL(dt, transpose, (void *)EAt, 1, 2) : NULL;
        CHECK(max_diff(EAtt, EA) < 10 * t * max_abs(EA));
        CHECK(max_diff(O, EA) < 10 * t * max_abs(EA));
        /* n = 1: exp of each entry; n = 0 and an empty batch */
        th_tensor *S = random_matrix(dt, 3, SZ(3, 1, 1), 0.0), *ES = CALL(dt, matrix_exp, (void *)S);
        th_c128_tensor *sc = as_c128(S);
        for (int64_t i = 0; i < 3; i++) th_c128_data(sc)[i] = cexp(th_c128_data(sc)[i]);
        th_tensor *WS = to_dtype(dt, sc);
        CHECK(max_diff(ES, WS) < t);
        th_tensor *E0 = random_matrix(dt, 3, SZ(2, 0, 0), 0.0), *EE0 = CALL(dt, matrix_exp, (void *)E0);
        CHECK(EE0 && th_tensor_numel(EE0) == 0 && th_tensor_ndim(EE0) == 3 && th_tensor_sizes(EE0)[0] == 2);
        th_tensor *tensors[] = {Z, EZ, D, ED, WD, G, EG, WG, N, EN, WN, A, As, Ns, EA, EM, PP, At, EAt, O, Ot, EAtt,
                                S, ES, WS, E0, EE0};
        for (size_t i = 0; i < sizeof tensors / sizeof *tensors; i++) th_tensor_release(tensors[i]);
        th_c128_tensor *cs[] = {I3, ac, nac, I4, Ib, sc};
        for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) th_c128_release(cs[i]);
    }
    /* inf or NaN in one matrix of a batch: that matrix is all NaN, the others are right; no error */
    th_f64_tensor *B = th_f64_zeros(3, SZ(3, 2, 2));
    th_f64_set(B, SZ(1, 0, 1), NAN);
    th_f64_set(B, SZ(2, 1, 1), INFINITY);
    th_f64_tensor *EB = th_f64_matrix_exp(B);
    CHECK(EB && th_f64_get(EB, SZ(0, 0, 0)) == 1.0 && th_f64_get(EB, SZ(0, 0, 1)) == 0.0);
    for (int64_t i = 1; i < 3; i++)
        for (int64_t r = 0; r < 2; r++)
            for (int64_t c = 0; c < 2; c++) CHECK(EB && isnan(th_f64_get(EB, SZ(i, r, c))));
    /* a huge norm: s is bounded by the norm's exponent, the result overflows to inf (as scipy.linalg.expm) */
    th_f64_tensor *H = th_f64_full(2, SZ(2, 2), 400.0), *EH = th_f64_matrix_exp(H);
    th_f64_tensor *Hm = th_f64_full(2, SZ(2, 2), 1e300), *EHm = th_f64_matrix_exp(Hm);
    CHECK(EH && isinf(th_f64_get(EH, SZ(0, 0))) && isinf(th_f64_get(EH, SZ(1, 0))));
    CHECK(EHm && isinf(th_f64_get(EHm, SZ(0, 1))));
    /* exp(H / 1000), in range: (I + (e^0.8 - 1) / 2 ones) */
    th_f64_tensor *Hs = th_f64_full(2, SZ(2, 2), 0.4), *EHs = th_f64_matrix_exp(Hs);
    CHECK(EHs && fabs(th_f64_get(EHs, SZ(0, 0)) - (1 + (exp(0.8) - 1) / 2)) < 1e-14);
    /* out overlapping A */
    th_f64_tensor *ip = th_f64_clone(Hs);
    CHECK(th_f64_matrix_exp_out(ip, ip) == TH_OK && EHs && th_f64_get(ip, SZ(0, 1)) == th_f64_get(EHs, SZ(0, 1)));
    /* errors: rank < 2, not square, wrong dtypes, out of the wrong shape, NULLs */
    th_f64_tensor *v = th_f64_ones(1, SZ(3)), *R = th_f64_ones(2, SZ(2, 3)), *o3 = th_f64_zeros(2, SZ(3, 3));
    CHECK_NULL(th_f64_matrix_exp(v), TH_ERR_SHAPE, "th_f64_matrix_exp", "it has shape (3)");
    CHECK_NULL(th_f64_matrix_exp(R), TH_ERR_SHAPE, "th_f64_matrix_exp", "A must be a square matrix");
    CHECK_FAILS(th_f64_matrix_exp_out(o3, Hs), TH_ERR_SHAPE, "th_f64_matrix_exp_out", "the result has shape (2, 2)");
    CHECK_FAILS(th_f64_matrix_exp_out(NULL, Hs), TH_ERR_INVALID, "th_f64_matrix_exp_out", "NULL out");
    CHECK_NULL(th_f64_matrix_exp(NULL), TH_ERR_INVALID, "th_f64_matrix_exp", "NULL A");
    th_f32_tensor *f = th_f32_eye(2, 2);
    th_c64_tensor *c = th_c64_zeros(2, SZ(2, 2));
    CHECK_NULL(th_f64_matrix_exp((th_f64_tensor *)f), TH_ERR_DTYPE, "th_f64_matrix_exp", "A is f32, not f64");
    CHECK_FAILS(th_f64_matrix_exp_out((th_f64_tensor *)f, Hs), TH_ERR_DTYPE, "th_f64_matrix_exp_out", "out is f32");
    CHECK_FAILS(th_c64_matrix_exp_out(c, (th_c64_tensor *)f), TH_ERR_DTYPE, "th_c64_matrix_exp_out", "A is f32");
    th_f32_release(f);
    th_c64_release(c);
    th_f64_tensor *fs[] = {B, EB, H, EH, Hm, EHm, Hs, EHs, ip, v, R, o3};
    for (size_t i = 0; i < sizeof fs / sizeof *fs; i++) th_f64_release(fs[i]);
}

int main(void)
{
    test_begin();
    printf("LAPACK: %s\n", th_linalg_lapack() ? "yes (LAPACKE)" : "no (the built-in substitution)");
    test_closed_forms();
    test_reconstruction();
    test_shapes();
    test_errors();
    test_least_squares();
    test_norms();
    test_matrix_power();
    test_matrix_exp();
    return test_end("lapack_solve");
}
