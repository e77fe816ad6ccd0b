/* Matrix products with tensor.h: matmul's broadcasting, addmm, a transposed operand, integers.
 * Build: cc -std=c11 -I. docs/examples/linalg.c -lm  (add -DTH_USE_CBLAS ... -lopenblas to use CBLAS) */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I8
#include "tensor.h"

int main(void)
{
    /* A: 2x3 holding 0..5; B: 3x2 holding 1..6 */
    th_f32_tensor *A = th_f32_empty(2, (int64_t[]){2, 3}), *B = th_f32_empty(2, (int64_t[]){3, 2});
    for (int i = 0; i < 6; i++) {
        th_f32_data(A)[i] = (float)i;
        th_f32_data(B)[i] = (float)(i + 1);
    }

    /* C = A @ B: [[13, 16], [40, 52]] */
    th_f32_tensor *C = th_f32_matmul(A, B);
    th_f32_print(stdout, C);

    /* 0.5*C + 2*(A @ B), in place: C's memory is reused */
    th_f32_addmm_inplace(C, A, B, 0.5f, 2.0f);

    /* A transposed is a view (no copy); its product with A is 3x3 and symmetric */
    th_f32_tensor *At = th_f32_transpose(A, 0, 1);
    th_f32_tensor *G = th_f32_mm(At, A);

    /* a batch of 4 matrices times one vector: the vector broadcasts, the result is 4x2 */
    th_f32_tensor *batch = th_f32_expand(A, 3, (int64_t[]){4, 2, 3});
    th_f32_tensor *x = th_f32_ones(1, (int64_t[]){3});
    th_f32_tensor *bx = th_f32_matmul(batch, x);

    /* integers wrap modulo 2^bits, like C's unsigned arithmetic: 16 * 16 in int8 is 0 */
    th_i8_tensor *v = th_i8_full(1, (int64_t[]){1}, 16);
    th_i8_tensor *d = th_i8_dot(v, v);

    int ok = C && G && bx && d && th_f32_get(C, (int64_t[]){1, 1}) == 52.0f * 2.5f &&
             th_f32_get(G, (int64_t[]){0, 2}) == th_f32_get(G, (int64_t[]){2, 0}) &&
             th_f32_get(bx, (int64_t[]){3, 1}) == 12.0f && th_i8_get(d, NULL) == 0;

    /* an error: inner sizes that differ name both shapes */
    th_f32_tensor *bad = th_f32_mm(A, A);
    printf("%s\n", th_last_error());
    ok = ok && bad == NULL && th_last_status() == TH_ERR_SHAPE;

    th_i8_release(d);
    th_i8_release(v);
    th_f32_release(bx);
    th_f32_release(x);
    th_f32_release(batch);
    th_f32_release(G);
    th_f32_release(At);
    th_f32_release(C);
    th_f32_release(B);
    th_f32_release(A);
    printf("CBLAS: %s\n", th_linalg_blas() ? "yes" : "no");
    if (!ok) fprintf(stderr, "linalg example: wrong result\n");
    return ok ? 0 : 1;
}
