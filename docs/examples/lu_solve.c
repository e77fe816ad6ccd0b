/* Factor once, solve many times with tensor.h: a least-squares fit through the Cholesky factor of the normal
 * equations (cholesky, then two triangular solves, and cholesky_solve in one call), lu_factor / lu_solve for a
 * square system with several right-hand sides, lstsq and pinv (LAPACK only: refused without it), a condition
 * number and a norm, a matrix's powers and exponential, and a singular
 * triangular matrix refused with its batch index.
 * Build: cc -std=c11 -I. docs/examples/lu_solve.c -lm  (add -DTH_USE_LAPACK ... -llapacke to use LAPACK) */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped (f64; i32 and i64 for the pivots and the rank), which keeps this build fast. */
#define TH_SELECT_DTYPES
#define TH_WANT_F64
#define TH_WANT_I32
#define TH_WANT_I64
#include "tensor.h"

#include <math.h>

int main(void)
{
    /* Fit y = c0 + c1 x + c2 x^2 to 8 points of y = 1 - 2x + 0.5x^2 (plus a little noise). */
    const double noise[8] = {0.01, -0.01, 0.02, 0.0, -0.02, 0.01, 0.0, -0.01};
    th_f64_tensor *X = th_f64_empty(2, (int64_t[]){8, 3}), *y = th_f64_empty(2, (int64_t[]){8, 1});
    for (int i = 0; i < 8; i++) {
        double x = 0.5 * i;
        th_f64_data(X)[3 * i] = 1.0;
        th_f64_data(X)[3 * i + 1] = x;
        th_f64_data(X)[3 * i + 2] = x * x;
        th_f64_data(y)[i] = 1.0 - 2.0 * x + 0.5 * x * x + noise[i];
    }
    /* G = X^T X = L L^T; G c = X^T y is L (L^T c) = X^T y: a lower then an upper triangular solve. L^T is a view. */
    th_f64_tensor *Xt = th_f64_transpose(X, 0, 1), *G = th_f64_matmul(Xt, X), *r = th_f64_matmul(Xt, y);
    th_f64_tensor *L = th_f64_cholesky(G), *Lt = th_f64_transpose(L, 0, 1);
    th_f64_tensor *w = th_f64_solve_triangular(L, r, false, true, false); /* lower, A on the left, own diagonal */
    th_f64_tensor *c = th_f64_solve_triangular(Lt, w, true, true, false);  /* upper */
    th_f64_tensor *c2 = th_f64_cholesky_solve(r, L, false);               /* the same two solves in one call */
    printf("fit: y = %.3f %+.3f x %+.3f x^2\n", th_f64_get(c, (int64_t[]){0, 0}), th_f64_get(c, (int64_t[]){1, 0}),
           th_f64_get(c, (int64_t[]){2, 0}));
    int bad = fabs(th_f64_get(c, (int64_t[]){0, 0}) - 1.0) > 0.05 || fabs(th_f64_get(c, (int64_t[]){1, 0}) + 2.0) > 0.05 ||
              fabs(th_f64_get(c, (int64_t[]){2, 0}) - 0.5) > 0.05;
    for (int i = 0; i < 3; i++)
        bad |= fabs(th_f64_get(c, (int64_t[]){i, 0}) - th_f64_get(c2, (int64_t[]){i, 0})) > 1e-9;

    /* The same fit in one call: lstsq (LAPACK's gelsd) gives c, the residual |X c - y|^2, X's rank and its singular
     * values; pinv(X) y is the same c. Without LAPACK both refuse, naming the build option. */
    th_f64_tensor *c3 = NULL, *res = NULL, *S = NULL, *Xp = th_f64_pinv(X, -1);
    th_i64_tensor *rank = NULL;
    if (th_f64_lstsq(X, y, -1, &c3, &res, &rank, &S) == TH_OK && Xp) {
        th_f64_tensor *c4 = th_f64_matmul(Xp, y);
        printf("lstsq: c = (%.3f, %.3f, %.3f), residual %.2e, rank %lld, singular values %.3g .. %.3g\n",
               th_f64_get(c3, (int64_t[]){0, 0}), th_f64_get(c3, (int64_t[]){1, 0}), th_f64_get(c3, (int64_t[]){2, 0}),
               th_f64_get(res, (int64_t[]){0}), (long long)th_i64_data(rank)[0], th_f64_get(S, (int64_t[]){0}),
               th_f64_get(S, (int64_t[]){2}));
        for (int i = 0; i < 3; i++) {
            bad |= fabs(th_f64_get(c3, (int64_t[]){i, 0}) - th_f64_get(c, (int64_t[]){i, 0})) > 1e-9;
            bad |= fabs(th_f64_get(c4, (int64_t[]){i, 0}) - th_f64_get(c, (int64_t[]){i, 0})) > 1e-9;
        }
        bad |= th_i64_data(rank)[0] != 3;
        th_f64_release(c4);
    } else {
        printf("lstsq: %s\n", th_last_error()); /* ... needs LAPACK, ... (Meson: -Dlapack=enabled) */
        bad |= th_linalg_lapack() || th_last_status() != TH_ERR_UNSUPPORTED;
    }

    /* How much the normal equations amplify errors: cond(G) = |G| |G^-1| in the inf-norm (both builds), and G's
     * Frobenius norm. The 2-norm's cond(G) is cond(X)^2, which is why lstsq does not form G. */
    th_f64_tensor *kG = th_f64_cond(G, TH_NORM_INF), *fG = th_f64_matrix_norm(G, TH_NORM_FRO);
    printf("cond_inf(G) = %.4g, |G|_F = %.4g\n", th_f64_get(kG, NULL), th_f64_get(fG, NULL));
    bad |= !(th_f64_get(kG, NULL) > 1.0) || !(th_f64_get(fG, NULL) > 0.0);

    /* Powers: the rotation by 90 degrees has R^4 = I and R^-1 = R^3 (through inv). */
    th_f64_tensor *Rot = th_f64_zeros(2, (int64_t[]){2, 2});
    th_f64_set(Rot, (int64_t[]){0, 1}, -1.0);
    th_f64_set(Rot, (int64_t[]){1, 0}, 1.0);
    th_f64_tensor *R4 = th_f64_matrix_power(Rot, 4), *Rm1 = th_f64_matrix_power(Rot, -1), *R3 = th_f64_matrix_power(Rot, 3);
    printf("R^4[0, 0] = %g, R^-1[0, 1] = %g = R^3[0, 1] = %g\n", th_f64_get(R4, (int64_t[]){0, 0}),
           th_f64_get(Rm1, (int64_t[]){0, 1}), th_f64_get(R3, (int64_t[]){0, 1}));
    bad |= th_f64_get(R4, (int64_t[]){0, 0}) != 1.0 || th_f64_get(Rm1, (int64_t[]){0, 1}) != th_f64_get(R3, (int64_t[]){0, 1});

    /* The exponential: exp(w Rot) is the rotation by w (here 2) (cos w, -sin w; sin w, cos w), by scaling and squaring. */
    th_f64_tensor *wRot = th_f64_zeros(2, (int64_t[]){2, 2});
    th_f64_set(wRot, (int64_t[]){0, 1}, -2.0);
    th_f64_set(wRot, (int64_t[]){1, 0}, 2.0);
    th_f64_tensor *E = th_f64_matrix_exp(wRot);
    printf("exp(2 Rot) = [[%.6f, %.6f], [%.6f, %.6f]] (cos 2 = %.6f, sin 2 = %.6f)\n", th_f64_get(E, (int64_t[]){0, 0}),
           th_f64_get(E, (int64_t[]){0, 1}), th_f64_get(E, (int64_t[]){1, 0}), th_f64_get(E, (int64_t[]){1, 1}), cos(2.0),
           sin(2.0));
    bad |= fabs(th_f64_get(E, (int64_t[]){0, 0}) - cos(2.0)) > 1e-14 || fabs(th_f64_get(E, (int64_t[]){1, 0}) - sin(2.0)) > 1e-14;

    /* A square system factored once (P A = L U), then solved for two right-hand sides. */
    const double a[9] = {0, 2, 1, 4, 1, 0, 2, 3, 5}, b[6] = {3, 1, 5, 4, 10, 9};
    th_f64_tensor *A = th_f64_empty(2, (int64_t[]){3, 3}), *B = th_f64_empty(2, (int64_t[]){3, 2});
    for (int i = 0; i < 9; i++) th_f64_data(A)[i] = a[i];
    for (int i = 0; i < 6; i++) th_f64_data(B)[i] = b[i];
    th_f64_tensor *LU = NULL;
    th_i32_tensor *pivots = NULL;
    bad |= th_f64_lu_factor(A, &LU, &pivots) != TH_OK;
    printf("pivots (1-based, as LAPACK's and torch.linalg.lu_factor's): %d %d %d\n", th_i32_data(pivots)[0],
           th_i32_data(pivots)[1], th_i32_data(pivots)[2]);
    th_f64_tensor *Xs = th_f64_lu_solve(LU, pivots, B), *AX = th_f64_matmul(A, Xs);
    th_f64_print(stdout, Xs);
    for (int i = 0; i < 6; i++) bad |= fabs(th_f64_data(AX)[i] - b[i]) > 1e-12;

    /* A batch of two triangular matrices, the second with a zero on its diagonal: refused, naming it. */
    th_f64_tensor *T = th_f64_zeros(3, (int64_t[]){2, 2, 2}), *rhs = th_f64_ones(3, (int64_t[]){2, 2, 1});
    const double t[8] = {1, 0, 2, 3, /* singular: */ 1, 0, 2, 0};
    for (int i = 0; i < 8; i++) th_f64_data(T)[i] = t[i];
    th_f64_tensor *bad_x = th_f64_solve_triangular(T, rhs, false, true, false);
    printf("solve_triangular of the batch: %s (%s)\n", bad_x ? "done" : th_status_name(th_last_status()),
           th_last_error());
    bad |= bad_x != NULL || th_last_status() != TH_ERR_LINALG;

    th_f64_tensor *all[] = {X, y, Xt, G, r, L, Lt, w, c, c2, A, B, LU, Xs, AX, T, rhs};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) th_f64_release(all[i]);
    th_i32_release(pivots);
    th_f64_tensor *more[] = {c3, res, S, Xp, kG, fG, Rot, R4, Rm1, R3, wRot, E};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++) th_f64_release(more[i]);
    th_i64_release(rank);
    return bad;
}
