/* A tour of tensor.h: create, view, compute, print.
 * Build and run: cc -std=c11 -I. docs/examples/tour.c -lm -o tour && ./tour */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_F64
#include "tensor.h"

int main(void)
{
    /* Create: a 3x4 float32 tensor holding 0..11. */
    int64_t sizes[2] = {3, 4};
    th_f32_tensor *a = th_f32_empty(2, sizes);
    if (!a) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    float *p = th_f32_data(a);
    for (int i = 0; i < 12; i++) p[i] = (float)i;
    th_print(stdout, a);

    /* View: the transpose and a column share a's memory; nothing is copied. */
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    th_f32_tensor *col = th_f32_select(a, 1, 2);
    th_f32_set(t, (int64_t[]){2, 0}, 100.0f); /* writes a[0][2] */
    printf("column 2 after writing through the transpose:\n");
    th_print(stdout, col);

    /* Compute: broadcast a row into every row, convert to float64, reshape. */
    th_f32_tensor *row = th_f32_select(a, 0, 0);          /* shape (4) */
    th_f32_tensor *copy = th_f32_zeros(2, sizes);
    th_f32_copy(copy, row);                               /* (4) broadcasts to (3, 4) */
    th_f64_tensor *d = th_f64_convert(th_f32_base(t));    /* any dtype to any dtype */
    th_f64_tensor *flat = th_f64_reshape(d, 1, (int64_t[]){-1});
    printf("broadcast row:\n");
    th_print(stdout, copy);
    printf("transpose as float64, flattened (a copy, since the transpose is not contiguous):\n");
    th_print(stdout, flat);

    /* Errors are values, with a message that names the function and the bad input. */
    if (!th_f32_narrow(a, 1, 3, 4)) printf("error: %s\n", th_last_error());

    int ok = th_f64_get(flat, (int64_t[]){6}) == 100.0 && th_f32_get(copy, (int64_t[]){2, 2}) == 100.0f;
    th_release(flat);
    th_release(d);
    th_release(copy);
    th_release(row);
    th_release(col);
    th_release(t);
    th_release(a);
    return ok ? 0 : 1;
}
