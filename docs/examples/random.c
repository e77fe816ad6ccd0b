/* Random numbers, creation and sorting: draw reproducibly, save and replay a generator, sort with indices.
 * Build and run: cc -std=c11 -I. docs/examples/random.c -lm -o random && ./random */
#include <string.h>

#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_F64
#define TH_WANT_I64
#include "tensor.h"

int main(void)
{
    /* A generator of its own: the same seed gives the same numbers, on any number of threads. */
    th_generator *gen = th_generator_new(2024);
    if (!gen) return 1;
    th_f32_tensor *noise = th_f32_normal(2, (int64_t[]){2, 3}, 0.0, 1.0, gen);
    if (!noise) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    th_print(stdout, noise);

    /* Save the state, draw, restore, draw again: the same dice rolls twice. */
    th_generator_state saved = th_generator_get_state(gen);
    th_i64_tensor *dice1 = th_i64_randint(1, (int64_t[]){8}, 1, 7, gen);
    th_generator_set_state(gen, saved);
    th_i64_tensor *dice2 = th_i64_randint(1, (int64_t[]){8}, 1, 7, gen);
    int same = memcmp(th_i64_data(dice1), th_i64_data(dice2), 8 * sizeof(int64_t)) == 0;
    printf("dice, twice from one state (%s):\n", same ? "equal" : "DIFFERENT");
    th_print(stdout, dice1);

    /* NULL means the process-wide default generator; th_manual_seed makes it reproducible. */
    th_manual_seed(7);
    th_i64_tensor *perm = th_i64_randperm(6, NULL);
    printf("a permutation of 0..5:\n");
    th_print(stdout, perm);

    /* Sampling categories by weight, without replacement. */
    th_f64_tensor *weights = th_f64_arange(1, 5, 1); /* 1, 2, 3, 4 */
    th_i64_tensor *picks = th_f64_multinomial(weights, 2, false, gen);
    printf("two distinct categories, weighted 1:2:3:4:\n");
    th_print(stdout, picks);

    /* Sort each row of the noise, keeping where each value came from; the two largest per row. */
    th_i64_tensor *order = NULL, *where = NULL;
    th_f32_tensor *sorted = th_f32_sort(noise, -1, false, &order);
    th_f32_tensor *top = th_f32_topk(noise, 2, -1, true, true, &where);
    printf("rows sorted, and the positions they came from:\n");
    th_print(stdout, sorted);
    th_print(stdout, order);
    printf("the two largest of each row:\n");
    th_print(stdout, top);

    /* Creation helpers: a lower-triangular mask of ones, and distinct dice values with their counts. */
    th_f32_tensor *mask = th_f32_ones(2, (int64_t[]){3, 3});
    th_f32_tril_inplace(mask, 0);
    th_print(stdout, mask);
    th_i64_tensor *counts = NULL;
    th_i64_tensor *faces = th_i64_unique(dice1, true, NULL, &counts);
    printf("faces rolled and how often:\n");
    th_print(stdout, faces);
    th_print(stdout, counts);

    int ok = same && sorted && top && faces && counts && picks && perm;
    th_release(noise), th_release(dice1), th_release(dice2), th_release(perm), th_release(weights);
    th_release(picks), th_release(order), th_release(where), th_release(sorted), th_release(top);
    th_release(mask), th_release(counts), th_release(faces);
    th_generator_free(gen);
    return ok ? 0 : 1;
}
