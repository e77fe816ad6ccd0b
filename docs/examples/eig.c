/* Eigenvalues of general matrices with tensor.h: a rotation (its eigenvalues +-i: complex results from a real
 * matrix) and a Markov chain's stationary distribution (the eigenvector of eigenvalue 1 of its transition
 * matrix, transposed). Without LAPACK eig refuses, naming the build option.
 * Build: cc -std=c11 -I. -DTH_USE_LAPACK docs/examples/eig.c -llapacke -lm */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F64
#define TH_WANT_C128
#include <complex.h>
#include <math.h>

#include "tensor.h"

int main(void)
{
    /* a quarter turn: no real eigenvector, so its eigenvalues are the conjugate pair +i, -i */
    th_f64_tensor *R = th_f64_empty(2, (int64_t[]){2, 2});
    const double r[4] = {0, -1, 1, 0};
    for (int i = 0; i < 4; i++) th_f64_data(R)[i] = r[i];
    th_c128_tensor *w = th_f64_eigvals(R);
    if (!w) { /* a build without LAPACK */
        printf("%s\n", th_last_error());
        th_f64_release(R);
        return th_last_status() == TH_ERR_UNSUPPORTED ? 0 : 1;
    }
    th_c128_print(stdout, w);
    double complex w0 = th_c128_get(w, (int64_t[]){0});
    int bad = fabs(cimag(w0) - 1) > 1e-15 || fabs(creal(w0)) > 1e-15;

    /* weather as a Markov chain: P[i][j] is the chance of going from state i to state j tomorrow. The
     * long-run share of each state is the left eigenvector of P for eigenvalue 1: eig of P^T (a view) */
    th_f64_tensor *P = th_f64_empty(2, (int64_t[]){3, 3});
    const double p[9] = {0.8, 0.15, 0.05, /* sunny */ 0.3, 0.5, 0.2, /* cloudy */ 0.2, 0.4, 0.4 /* rainy */};
    for (int i = 0; i < 9; i++) th_f64_data(P)[i] = p[i];
    th_f64_tensor *Pt = th_f64_transpose(P, 0, 1);
    th_c128_tensor *lambda = NULL, *V = NULL;
    bad |= th_f64_eig(Pt, &lambda, &V) != TH_OK;
    int one = 0; /* the eigenvalue closest to 1 */
    for (int j = 1; !bad && j < 3; j++)
        if (cabs(th_c128_get(lambda, (int64_t[]){j}) - 1) < cabs(th_c128_get(lambda, (int64_t[]){one}) - 1)) one = j;
    double share[3], total = 0;
    for (int i = 0; !bad && i < 3; i++) total += share[i] = creal(th_c128_get(V, (int64_t[]){i, one}));
    for (int i = 0; !bad && i < 3; i++) share[i] /= total; /* the vector has unit length: scale it to sum 1 */
    if (!bad) printf("long run: sunny %.4f, cloudy %.4f, rainy %.4f\n", share[0], share[1], share[2]);
    /* stationary: share @ P = share */
    for (int j = 0; !bad && j < 3; j++) {
        double next = 0;
        for (int i = 0; i < 3; i++) next += share[i] * p[i * 3 + j];
        bad |= fabs(next - share[j]) > 1e-12;
    }
    th_f64_release(R), th_f64_release(P), th_f64_release(Pt);
    th_c128_release(w), th_c128_release(lambda), th_c128_release(V);
    return bad;
}
