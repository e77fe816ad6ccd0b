/* Products with tensor.h: einsum (a batched matmul, a trace, a bilinear form over three operands, a diagonal),
 * tensordot, kron, cross, trace, vdot and multi_dot, each checked against the plain products it stands for, and
 * an equation whose sizes disagree refused with a message that names the label.
 * Build: cc -std=c11 -I. docs/examples/products.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast. */
#define TH_SELECT_DTYPES
#define TH_WANT_F64
#define TH_WANT_C128
#include "tensor.h"

#include <complex.h>
#include <math.h>

/* A contiguous f64 tensor holding (k % 5) - 2 + k / 10 for its k-th element. */
static th_f64_tensor *values(int ndim, const int64_t *sizes)
{
    th_f64_tensor *t = th_f64_empty(ndim, sizes);
    for (int64_t k = 0; k < th_f64_numel(t); k++) th_f64_data(t)[k] = (double)(k % 5) - 2.0 + (double)k / 10.0;
    return t;
}

/* The largest |x - y| over two tensors of one shape (contiguous or not). */
static double max_diff(const th_f64_tensor *x, const th_f64_tensor *y)
{
    th_f64_tensor *d = th_f64_sub(x, y), *a = th_f64_abs(d), *m = th_f64_max_all(a);
    double r = th_f64_data(m)[0];
    th_f64_release(d);
    th_f64_release(a);
    th_f64_release(m);
    return r;
}

int main(void)
{
    int bad = 0;
    /* A batch of matrix products: "bij,bjk->bik" is one batched matmul, no copies. */
    th_f64_tensor *A = values(3, (int64_t[]){4, 3, 5}), *B = values(3, (int64_t[]){4, 5, 2});
    const th_f64_tensor *ab[2] = {A, B};
    th_f64_tensor *E = th_f64_einsum("bij,bjk->bik", 2, ab), *M = th_f64_matmul(A, B);
    printf("einsum bij,bjk->bik: shape (%lld, %lld, %lld), max |einsum - matmul| = %g\n", (long long)th_f64_size(E, 0),
           (long long)th_f64_size(E, 1), (long long)th_f64_size(E, 2), max_diff(E, M));
    bad |= max_diff(E, M) > 1e-12;

    /* A square matrix's trace three ways: einsum "ii", th_f64_trace, and the sum of einsum's diagonal "ii->i". */
    th_f64_tensor *S = values(2, (int64_t[]){4, 4});
    const th_f64_tensor *s1[1] = {S};
    th_f64_tensor *t1 = th_f64_einsum("ii", 1, s1), *t2 = th_f64_trace(S), *dg = th_f64_einsum("ii->i", 1, s1);
    th_f64_tensor *t3 = th_f64_sum_all(dg);
    printf("trace: einsum %g, trace %g, sum of the diagonal %g\n", th_f64_data(t1)[0], th_f64_data(t2)[0],
           th_f64_data(t3)[0]);
    bad |= th_f64_data(t1)[0] != th_f64_data(t2)[0] || th_f64_data(t2)[0] != th_f64_data(t3)[0];

    /* A bilinear form x^T S y over three operands, against matmul. */
    th_f64_tensor *x = values(1, (int64_t[]){4}), *y = th_f64_full(1, (int64_t[]){4}, 0.5);
    const th_f64_tensor *xsy[3] = {x, S, y};
    th_f64_tensor *q = th_f64_einsum("i,ij,j->", 3, xsy), *Sy = th_f64_matmul(S, y), *q2 = th_f64_dot(x, Sy);
    printf("x^T S y: einsum %g, dot(x, S y) %g\n", th_f64_data(q)[0], th_f64_data(q2)[0]);
    bad |= fabs(th_f64_data(q)[0] - th_f64_data(q2)[0]) > 1e-12;

    /* tensordot: A's last two dims against the first two of a (3, 5, 6) tensor. */
    th_f64_tensor *C = values(3, (int64_t[]){3, 5, 6}), *T = th_f64_tensordot(A, C, 2);
    printf("tensordot(A (4, 3, 5), C (3, 5, 6), 2): shape (%lld, %lld)\n", (long long)th_f64_size(T, 0),
           (long long)th_f64_size(T, 1));
    bad |= th_f64_ndim(T) != 2 || th_f64_size(T, 0) != 4 || th_f64_size(T, 1) != 6;

    /* kron(I2, K) is K twice on the diagonal; cross(e0, e1) = e2. */
    th_f64_tensor *I2 = th_f64_eye(2, 2), *K = values(2, (int64_t[]){2, 2}), *IK = th_f64_kron(I2, K);
    bad |= th_f64_get(IK, (int64_t[]){3, 3}) != th_f64_get(K, (int64_t[]){1, 1}) || th_f64_get(IK, (int64_t[]){0, 3}) != 0;
    th_f64_tensor *e0 = th_f64_zeros(1, (int64_t[]){3}), *e1 = th_f64_zeros(1, (int64_t[]){3});
    th_f64_data(e0)[0] = 1;
    th_f64_data(e1)[1] = 1;
    th_f64_tensor *e2 = th_f64_cross(e0, e1, -1);
    printf("kron(I2, K) is %lldx%lld; cross(e0, e1) = (%g, %g, %g)\n", (long long)th_f64_size(IK, 0),
           (long long)th_f64_size(IK, 1), th_f64_data(e2)[0], th_f64_data(e2)[1], th_f64_data(e2)[2]);
    bad |= th_f64_data(e2)[2] != 1 || th_f64_data(e2)[0] != 0 || th_f64_data(e2)[1] != 0;

    /* vdot conjugates its first operand: vdot(i, i) = conj(i) i = 1. */
    th_c128_tensor *u = th_c128_full(1, (int64_t[]){1}, I), *uu = th_c128_vdot(u, u);
    printf("vdot(i, i) = %g%+gi\n", creal(th_c128_data(uu)[0]), cimag(th_c128_data(uu)[0]));
    bad |= th_c128_data(uu)[0] != 1;

    /* multi_dot picks the cheap order: (P Q) R costs 10*100*5 + 10*5*50 = 7500 multiply-adds, P (Q R) 75000. */
    th_f64_tensor *P = values(2, (int64_t[]){10, 100}), *Q = values(2, (int64_t[]){100, 5});
    th_f64_tensor *R = values(2, (int64_t[]){5, 50});
    const th_f64_tensor *pqr[3] = {P, Q, R};
    th_f64_tensor *D = th_f64_multi_dot(3, pqr), *PQ = th_f64_matmul(P, Q), *PQR = th_f64_matmul(PQ, R);
    printf("multi_dot of 10x100, 100x5, 5x50: max |multi_dot - (P Q) R| = %g\n", max_diff(D, PQR));
    bad |= max_diff(D, PQR) > 1e-9;

    /* Sizes that disagree are refused, naming the label and the operands. */
    const th_f64_tensor *wrong[2] = {A, A};
    th_f64_tensor *none = th_f64_einsum("bij,bjk->bik", 2, wrong);
    printf("refused: %s\n", th_last_error());
    bad |= none != NULL || th_last_status() != TH_ERR_SHAPE;

    th_f64_tensor *all[] = {A, B, E, M, S, t1, t2, dg, t3, x, y, q, Sy, q2, C, T, I2, K, IK, e0, e1, e2, P, Q, R, D, PQ, PQR};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) th_f64_release(all[i]);
    th_c128_release(u);
    th_c128_release(uu);
    printf("%s\n", bad ? "FAILED" : "ok");
    return bad;
}
