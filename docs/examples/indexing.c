/* Shape and indexing ops (docs/indexing.md): joining, splitting, selecting by index and by mask.
 * Build: cc -std=c11 -I. docs/examples/indexing.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_BOOL
#define TH_WANT_F32
#define TH_WANT_I64
#include "tensor.h"

int main(void)
{
    /* x = [[0, 1, 2], [3, 4, 5]] */
    th_f32_tensor *x = th_f32_empty(2, (int64_t[]){2, 3});
    for (int i = 0; i < 6; i++) th_f32_data(x)[i] = (float)i;

    /* Join two copies side by side, then cut the result back into pieces of 3 columns (views, no copy). */
    const th_f32_tensor *pair[2] = {x, x};
    th_f32_tensor *wide = th_f32_cat(2, pair, -1); /* (2, 6) */
    int64_t count = 0;
    th_f32_tensor **pieces = th_f32_split(wide, 3, 1, &count);

    /* Rows by index (negative indices count from the end) and elements by flat index. */
    th_i64_tensor *rows = th_i64_empty(1, (int64_t[]){3});
    th_i64_data(rows)[0] = -1, th_i64_data(rows)[1] = 0, th_i64_data(rows)[2] = 1;
    th_f32_tensor *picked = th_f32_index_select(x, 0, rows); /* rows 1, 0, 1 */
    th_f32_tensor *flat = th_f32_take(x, rows);              /* x.flatten()[[5, 0, 1]] */

    /* Where x > 2, by a mask: fill those elements, list them, and find their coordinates. */
    th_bool_tensor *mask = th_bool_empty(2, (int64_t[]){2, 3});
    for (int i = 0; i < 6; i++) th_bool_data(mask)[i] = th_f32_data(x)[i] > 2;
    th_f32_tensor *filled = th_f32_masked_fill(x, mask, -1.0f);
    th_f32_tensor *big = th_f32_masked_select(x, mask);
    th_i64_tensor *where = th_f32_nonzero(filled); /* every element but the 0 at [0, 0] */

    th_f32_print(stdout, wide);
    th_f32_print(stdout, picked);
    th_f32_print(stdout, filled);
    th_i64_print(stdout, where);

    int ok = wide && count == 2 && th_f32_get(pieces[1], (int64_t[]){1, 2}) == 5.0f &&
             th_f32_storage(pieces[1]) == th_f32_storage(wide) &&
             th_f32_get(picked, (int64_t[]){0, 0}) == 3.0f && th_f32_get(flat, (int64_t[]){0}) == 5.0f &&
             th_f32_get(filled, (int64_t[]){1, 0}) == -1.0f && th_f32_numel(big) == 3 &&
             th_i64_size(where, 0) == 5 && th_i64_get(where, (int64_t[]){0, 1}) == 1;

    th_i64_release(where);
    th_f32_release(big);
    th_f32_release(filled);
    th_bool_release(mask);
    th_f32_release(flat);
    th_f32_release(picked);
    th_i64_release(rows);
    th_f32_release_all(pieces, count); /* every view, and the array */
    th_f32_release(wide);
    th_f32_release(x);
    if (!ok) fprintf(stderr, "indexing: wrong result\n");
    return ok ? 0 : 1;
}
