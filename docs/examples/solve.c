/* Dense linear algebra with tensor.h: a least-squares line fit through the normal equations (solve and
 * cholesky), an inverse, a determinant, and a singular matrix refused with its batch index and pivot.
 * Build: cc -std=c11 -I. docs/examples/solve.c -lm  (add -DTH_USE_LAPACK ... -llapacke to use LAPACK) */
#define TH_IMPLEMENTATION
/* Only the dtype used here is stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F64
#include "tensor.h"

#include <math.h>

int main(void)
{
    /* Points on y = 1 + 2x with a little noise: fit c0 + c1 x. X has a column of ones and a column of x. */
    const double xs[6] = {0, 1, 2, 3, 4, 5}, noise[6] = {0.01, -0.02, 0.01, 0.0, -0.01, 0.01};
    th_f64_tensor *X = th_f64_empty(2, (int64_t[]){6, 2}), *y = th_f64_empty(1, (int64_t[]){6});
    for (int i = 0; i < 6; i++) {
        th_f64_data(X)[2 * i] = 1.0;
        th_f64_data(X)[2 * i + 1] = xs[i];
        th_f64_data(y)[i] = 1.0 + 2.0 * xs[i] + noise[i];
    }
    /* The normal equations (X^T X) c = X^T y. X^T is a view; solve takes any strides. */
    th_f64_tensor *Xt = th_f64_transpose(X, 0, 1);
    th_f64_tensor *G = th_f64_matmul(Xt, X), *r = th_f64_matmul(Xt, y);
    th_f64_tensor *c = th_f64_solve(G, r); /* r is a vector, so c is one: (2) */
    printf("fit: y = %.4f + %.4f x\n", th_f64_get(c, (int64_t[]){0}), th_f64_get(c, (int64_t[]){1}));
    int bad = fabs(th_f64_get(c, (int64_t[]){0}) - 1.0) > 0.05 || fabs(th_f64_get(c, (int64_t[]){1}) - 2.0) > 0.05;

    /* G is symmetric positive-definite: G = L L^T, L lower triangular */
    th_f64_tensor *L = th_f64_cholesky(G);
    th_f64_print(stdout, L);
    /* det(G) = det(L)^2; inv(G) @ G = I */
    th_f64_tensor *dG = th_f64_det(G), *dL = th_f64_det(L), *Gi = th_f64_inv(G), *I = th_f64_matmul(Gi, G);
    printf("det(G) = %.6g, det(L)^2 = %.6g\n", th_f64_get(dG, NULL), pow(th_f64_get(dL, NULL), 2));
    bad |= fabs(th_f64_get(dG, NULL) - pow(th_f64_get(dL, NULL), 2)) > 1e-9 * th_f64_get(dG, NULL);
    bad |= fabs(th_f64_get(I, (int64_t[]){0, 0}) - 1.0) > 1e-12 || fabs(th_f64_get(I, (int64_t[]){0, 1})) > 1e-12;

    /* A batch of two 2x2 matrices, the second singular: refused, naming it and the pivot. Its det is 0. */
    th_f64_tensor *B = th_f64_empty(3, (int64_t[]){2, 2, 2});
    const double v[8] = {2, 1, 1, 3, /* singular: */ 1, 2, 2, 4};
    for (int i = 0; i < 8; i++) th_f64_data(B)[i] = v[i];
    th_f64_tensor *Bi = th_f64_inv(B);
    printf("inv of the batch: %s (%s)\n", Bi ? "done" : th_status_name(th_last_status()), th_last_error());
    bad |= Bi != NULL || th_last_status() != TH_ERR_LINALG;
    th_f64_tensor *dB = th_f64_det(B);
    printf("det of the batch: %g %g\n", th_f64_get(dB, (int64_t[]){0}), th_f64_get(dB, (int64_t[]){1}));

    th_f64_tensor *all[] = {X, y, Xt, G, r, c, L, dG, dL, Gi, I, B, dB};
    for (int i = 0; i < 13; i++) th_f64_release(all[i]);
    return bad;
}
