/* Creation and sorting (docs/creation.md): ranges, identity and diagonal matrices, triangles, sort, topk, unique.
 * Build and run: cc -std=c11 -I. docs/examples/creation.c -lm -o creation && ./creation */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I64
#include "tensor.h"

#include <math.h>
#include <stdlib.h>

/* Prints the message and exits when a call failed. */
static void *need(void *p)
{
    if (!p) {
        fprintf(stderr, "%s\n", th_last_error());
        exit(1);
    }
    return p;
}

static int failures = 0;

/* A wrong value is reported but does not stop the program, so that everything is still released. */
static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "creation: wrong result: %s\n", what);
        failures++;
    }
}

/* Every result here is new and contiguous, so its data can be compared as a flat array. NaN matches NaN. */
static bool f32_is(const th_f32_tensor *t, int64_t n, const float *want)
{
    if (th_f32_numel(t) != n) return false;
    for (int64_t i = 0; i < n; i++) {
        float v = th_f32_data(t)[i];
        if (!(v == want[i] || (isnan(v) && isnan(want[i])))) return false;
    }
    return true;
}

static bool i64_is(const th_i64_tensor *t, int64_t n, const int64_t *want)
{
    if (th_i64_numel(t) != n) return false;
    for (int64_t i = 0; i < n; i++)
        if (th_i64_data(t)[i] != want[i]) return false;
    return true;
}

int main(void)
{
    /* Ranges. arange stops before end, for a negative step too; integer dtypes take int64 arguments. */
    th_i64_tensor *steps = need(th_i64_arange(0, 10, 3));          /* 0 3 6 9 */
    th_f32_tensor *down = need(th_f32_arange(1.0, 0.0, -0.25));    /* 1 0.75 0.5 0.25 */
    th_f32_tensor *even = need(th_f32_linspace(0.0, 1.0, 5));      /* both ends included */
    th_f32_tensor *decades = need(th_f32_logspace(0.0, 3.0, 4, 10)); /* 10^0 .. 10^3 */
    printf("arange(0, 10, 3):\n");
    th_print(stdout, steps);
    printf("linspace(0, 1, 5):\n");
    th_print(stdout, even);
    printf("logspace(0, 3, 4, 10):\n");
    th_print(stdout, decades);
    check(i64_is(steps, 4, (int64_t[]){0, 3, 6, 9}), "i64 arange");
    check(f32_is(down, 4, (float[]){1, 0.75f, 0.5f, 0.25f}), "f32 arange with a negative step");
    check(f32_is(even, 5, (float[]){0, 0.25f, 0.5f, 0.75f, 1}), "linspace");
    check(f32_is(decades, 4, (float[]){1, 10, 100, 1000}), "logspace");

    /* Errors are values: a zero step would never reach end. */
    if (!th_f32_arange(0.0, 1.0, 0.0)) printf("as expected: %s\n", th_last_error());
    check(th_last_status() == TH_ERR_INVALID, "arange with step 0 is TH_ERR_INVALID");

    /* eye need not be square. Its transpose is a view with swapped strides, yet full_like still gives a
     * contiguous tensor of the view's shape. */
    th_f32_tensor *id = need(th_f32_eye(2, 3));
    th_f32_tensor *id_t = need(th_f32_transpose(id, 0, 1)); /* (3, 2), not contiguous */
    th_f32_tensor *sevens = need(th_f32_full_like(id_t, 7.0f));
    th_f32_tensor *nothing = need(th_f32_zeros_like(id));
    th_f32_tensor *units = need(th_f32_ones_like(id_t));
    printf("eye(2, 3):\n");
    th_print(stdout, id);
    check(f32_is(id, 6, (float[]){1, 0, 0, 0, 1, 0}), "eye");
    check(th_f32_size(sevens, 0) == 3 && th_f32_size(sevens, 1) == 2 && th_f32_is_contiguous(sevens) &&
              f32_is(sevens, 6, (float[]){7, 7, 7, 7, 7, 7}),
          "full_like of a transposed view");
    check(f32_is(nothing, 6, (float[]){0, 0, 0, 0, 0, 0}), "zeros_like");
    check(th_f32_size(units, 0) == 3 && f32_is(units, 6, (float[]){1, 1, 1, 1, 1, 1}), "ones_like");

    /* diag goes both ways: a vector onto diagonal k of a new square matrix, and diagonal k back out. */
    th_f32_tensor *v = need(th_f32_linspace(1.0, 3.0, 3)); /* 1 2 3 */
    th_f32_tensor *shifted = need(th_f32_diag(v, 1));       /* (4, 4), v just above the main diagonal */
    th_f32_tensor *back = need(th_f32_diag(shifted, 1));
    th_f32_tensor *missed = need(th_f32_diag(shifted, 5));  /* beyond the matrix: empty, not an error */
    printf("diag([1, 2, 3], 1):\n");
    th_print(stdout, shifted);
    check(th_f32_get(shifted, (int64_t[]){2, 3}) == 3.0f && th_f32_get(shifted, (int64_t[]){3, 3}) == 0.0f,
          "diag of a vector");
    check(f32_is(back, 3, (float[]){1, 2, 3}), "diag of a matrix");
    check(th_f32_numel(missed) == 0, "diag outside the matrix");

    /* Triangles: k counts diagonals up from the main one (column - row). */
    th_f32_tensor *all = need(th_f32_full(2, (int64_t[]){3, 3}, 5.0f));
    th_f32_tensor *lower = need(th_f32_tril(all, 0));
    if (th_f32_triu_inplace(all, 1)) need(NULL); /* strictly above the diagonal */
    printf("tril(full 5, 0):\n");
    th_print(stdout, lower);
    printf("triu(full 5, 1), in place:\n");
    th_print(stdout, all);
    check(f32_is(lower, 9, (float[]){5, 0, 0, 5, 5, 0, 5, 5, 5}), "tril");
    check(f32_is(all, 9, (float[]){0, 5, 5, 0, 0, 5, 0, 0, 0}), "triu_inplace");

    /* Sorting along the last dim. NaN counts as the largest value; the two 1s keep their order (stable). */
    th_f32_tensor *t = need(th_f32_empty(2, (int64_t[]){2, 4}));
    const float values[8] = {3, 1, 2, 1, 0.5f, NAN, -1, 4};
    for (int i = 0; i < 8; i++) th_f32_data(t)[i] = values[i];
    th_i64_tensor *idx = NULL;
    th_f32_tensor *s = need(th_f32_sort(t, -1, false, &idx)); /* values and where each came from */
    printf("sort, ascending:\n");
    th_print(stdout, s);
    printf("from positions:\n");
    th_print(stdout, idx);
    check(f32_is(s, 8, (float[]){1, 1, 2, 3, -1, 0.5f, 4, NAN}), "sort values");
    check(i64_is(idx, 8, (int64_t[]){1, 3, 2, 0, 2, 0, 3, 1}), "sort indices");

    th_i64_tensor *top_idx = NULL;
    th_f32_tensor *top = need(th_f32_topk(t, 2, -1, true, true, &top_idx)); /* the 2 largest of each row */
    printf("topk(2):\n");
    th_print(stdout, top);
    check(f32_is(top, 4, (float[]){3, 2, NAN, 4}), "topk values");
    check(i64_is(top_idx, 4, (int64_t[]){0, 2, 1, 3}), "topk indices");

    /* The _out forms write into tensors you own; sorting a copy into itself sorts it in place. */
    th_f32_tensor *own = need(th_f32_clone(t));
    if (th_f32_sort_out(own, NULL, own, -1, true) != 0) need(NULL);
    check(f32_is(own, 8, (float[]){3, 2, 1, 1, NAN, 4, 0.5f, -1}), "sort_out in place, descending");

    /* unique looks at all of t. inverse maps each element of t to its value in the result. */
    th_i64_tensor *inv = NULL, *counts = NULL;
    th_f32_tensor *u = need(th_f32_unique(t, true, &inv, &counts)); /* distinct values of all of t */
    th_f32_tensor *seen = need(th_f32_unique(t, false, NULL, NULL)); /* in order of first occurrence */
    printf("unique, sorted:\n");
    th_print(stdout, u);
    printf("counts:\n");
    th_print(stdout, counts);
    check(f32_is(u, 7, (float[]){-1, 0.5f, 1, 2, 3, 4, NAN}), "unique values");
    check(i64_is(counts, 7, (int64_t[]){1, 1, 2, 1, 1, 1, 1}), "unique counts");
    check(i64_is(inv, 8, (int64_t[]){4, 2, 3, 2, 1, 6, 0, 5}), "unique inverse");
    check(f32_is(seen, 7, (float[]){3, 1, 2, 0.5f, NAN, -1, 4}), "unique in order of first occurrence");

    th_f32_release(seen);
    th_f32_release(u);
    th_i64_release(counts);
    th_i64_release(inv);
    th_f32_release(own);
    th_f32_release(top);
    th_i64_release(top_idx);
    th_f32_release(s);
    th_i64_release(idx);
    th_f32_release(t);
    th_f32_release(lower);
    th_f32_release(all);
    th_f32_release(missed);
    th_f32_release(back);
    th_f32_release(shifted);
    th_f32_release(v);
    th_f32_release(units);
    th_f32_release(nothing);
    th_f32_release(sevens);
    th_f32_release(id_t);
    th_f32_release(id);
    th_f32_release(decades);
    th_f32_release(even);
    th_f32_release(down);
    th_i64_release(steps);
    return failures ? 1 : 0;
}
