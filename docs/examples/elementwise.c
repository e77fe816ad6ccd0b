/* docs/examples/elementwise.c: the elementwise ops of docs/math.md, run by the test suite.
 *
 * Standardises the columns of a small table (x - mean) / scale with broadcasting, clips outliers with
 * where, and shows the three forms (new, _out, _inplace), the integer division rules and the _Generic names. */
#define TH_IMPLEMENTATION
/* Only the dtypes this program uses are stamped: the implementation compiles several times faster. */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I32
#define TH_WANT_BOOL
#include "tensor.h"

#include <math.h>
#include <stdio.h>

int main(void)
{
    int status = 1;
    const float table[3][4] = {{1, 10, 100, -3}, {2, 20, 300, 0}, {3, 30, 200, 3}};
    th_f32_tensor *x = th_f32_empty(2, (const int64_t[]){3, 4});
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) th_f32_set(x, (const int64_t[]){i, j}, table[i][j]);

    /* A (4,) row of per-column means and scales broadcasts against the (3, 4) table. */
    const float mean[4] = {2, 20, 200, 0}, scale[4] = {1, 10, 100, 3};
    th_f32_tensor *m = th_f32_from_blob((float *)mean, 1, (const int64_t[]){4}, NULL, NULL, NULL);
    th_f32_tensor *s = th_f32_from_blob((float *)scale, 1, (const int64_t[]){4}, NULL, NULL, NULL);
    th_f32_tensor *z = th_f32_sub(x, m);       /* a new (3, 4) tensor */
    if (!z || th_f32_div_inplace(z, s) != 0) { /* z /= s, in place */
        fprintf(stderr, "standardise: %s\n", th_last_error());
        goto done;
    }

    /* Clip |z| > 0.9 to 0.9 * sign(z): comparisons give bool tensors, where picks per element. */
    th_f32_tensor *mag = th_f32_abs(z);
    th_bool_tensor *outlier = th_f32_gt_scalar(mag, 0.9f);
    th_f32_tensor *sign = th_f32_sign(z);
    th_f32_tensor *clipped = th_f32_mul_scalar(sign, 0.9f);
    th_f32_tensor *result = th_f32_where(outlier, clipped, z);
    th_f32_print(stdout, result);

    /* _out writes into storage you own: here a transposed view, any strides work. */
    th_f32_tensor *buf = th_f32_empty(2, (const int64_t[]){4, 3});
    th_f32_tensor *buf_t = th_f32_transpose(buf, 0, 1); /* shape (3, 4) */
    if (th_f32_exp_out(buf_t, result) != 0) {
        fprintf(stderr, "exp_out: %s\n", th_last_error());
        goto cleanup;
    }
    printf("exp(result)[2][3] = %.4f (expected %.4f)\n", th_f32_get(buf_t, (const int64_t[]){2, 3}),
           expf(th_f32_get(result, (const int64_t[]){2, 3})));

    /* Integers: div truncates like C, floor_divide floors like Python; a zero divisor is an error. */
    th_i32_tensor *a = th_i32_full(1, (const int64_t[]){1}, -7);
    th_i32_tensor *q = th_i32_div_scalar(a, 2), *f = th_i32_floor_divide_scalar(a, 2);
    printf("-7 div 2 = %d, -7 floor_divide 2 = %d\n", th_i32_data(q)[0], th_i32_data(f)[0]);
    if (th_i32_div_scalar(a, 0) == NULL) printf("error, as documented: %s\n", th_last_error());
    /* The _Generic names pick the dtype from the first tensor: th_mul here is th_f32_mul. Undoing the
     * standardisation, z * scale + mean, gives the table back. */
    th_f32_tensor *back = th_mul(z, s);
    if (!back || th_add_inplace(back, m) != 0) {
        fprintf(stderr, "undo: %s\n", th_last_error());
        th_f32_release(back);
        goto cleanup_ints;
    }
    th_bool_tensor *same = th_eq(back, x);
    th_bool_tensor *all_same = th_all_all(same);
    printf("z * scale + mean == x everywhere: %s\n", th_bool_data(all_same)[0] ? "yes" : "no");
    status = (th_f32_get(result, (const int64_t[]){1, 2}) == 0.9f && th_i32_data(q)[0] == -3 &&
              th_i32_data(f)[0] == -4 && th_bool_data(all_same)[0])
                 ? 0
                 : 1;
    th_bool_release(all_same);
    th_bool_release(same);
    th_f32_release(back);
cleanup_ints:
    th_i32_release(a);
    th_i32_release(q);
    th_i32_release(f);
cleanup:
    th_f32_release(buf);
    th_f32_release(buf_t);
    th_f32_release(result);
    th_f32_release(clipped);
    th_f32_release(sign);
    th_bool_release(outlier);
    th_f32_release(mag);
done:
    th_f32_release(z);
    th_f32_release(m);
    th_f32_release(s);
    th_f32_release(x);
    return status;
}
