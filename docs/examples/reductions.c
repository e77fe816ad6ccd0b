/* Reductions: totals, statistics and indices over a whole tensor or one dim.
 * Build and run: cc -std=c11 -I. docs/examples/reductions.c -lm -o reductions && ./reductions */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_BOOL
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

int main(void)
{
    /* Scores of 3 students (rows) in 4 tests (columns). */
    th_f32_tensor *scores = need(th_f32_empty(2, (int64_t[]){3, 4}));
    const float values[12] = {70, 85, 90, 60, 95, 80, 75, 100, 50, 65, 70, 80};
    for (int i = 0; i < 12; i++) th_f32_data(scores)[i] = values[i];

    /* Over everything: a 0-d tensor. */
    th_f32_tensor *total = need(th_f32_sum_all(scores));
    printf("total %.0f\n", (double)th_f32_data(total)[0]);

    /* Per student (reduce dim 1, the tests), keeping the dim so the result is a column (3, 1). */
    th_f32_tensor *mean = need(th_f32_mean_dim(scores, -1, true));
    th_f32_tensor *spread = need(th_f32_std_dim(scores, -1, 1, true)); /* correction 1: unbiased */
    printf("mean per student:\n");
    th_print(stdout, mean);
    printf("standard deviation per student:\n");
    th_print(stdout, spread);

    /* Per test (reduce dim 0): the best score and who got it. */
    th_i64_tensor *who = NULL;
    th_f32_tensor *best = need(th_f32_max_dim(scores, 0, false, &who));
    printf("best per test:\n");
    th_print(stdout, best);
    printf("by student:\n");
    th_print(stdout, who);

    /* Did everyone pass (>= 60) every test? Compare by hand into a bool tensor, then all. */
    th_bool_tensor *passed = need(th_bool_empty(2, (int64_t[]){3, 4}));
    for (int i = 0; i < 12; i++) th_bool_data(passed)[i] = values[i] >= 60;
    th_bool_tensor *all_passed = need(th_bool_all_dim(passed, 1, false));
    printf("passed everything:\n");
    th_print(stdout, all_passed);

    /* Running totals along each student's tests, and the length of each score vector. */
    th_f32_tensor *running = need(th_f32_cumsum(scores, 1));
    th_f32_tensor *length = need(th_f32_norm_dim(scores, 2, 1, false));
    printf("running totals:\n");
    th_print(stdout, running);
    printf("2-norm per student:\n");
    th_print(stdout, length);

    /* _all_out writes into a 0-d tensor you own, here a slot of a results array; the _Generic name th_max_all
     * picks th_f32_max_all from the argument's type. */
    th_f32_tensor *results = need(th_f32_zeros(1, (int64_t[]){2}));
    th_f32_tensor *slot = need(th_f32_select(results, 0, 1));
    th_f32_tensor *top = need(th_max_all(scores));
    if (th_f32_mean_all_out(slot, scores) != 0) need(NULL);
    printf("mean of all %.2f, top score %.0f\n", (double)th_f32_data(results)[1], (double)th_f32_data(top)[0]);

    /* Errors are values, not crashes: the max over a dim of size 0 has no answer. */
    th_f32_tensor *empty = need(th_f32_empty(2, (int64_t[]){2, 0}));
    if (!th_f32_max_dim(empty, 1, false, NULL)) printf("as expected: %s\n", th_last_error());

    int status = fabsf(th_f32_data(total)[0] - 920.0f) < 1e-3f && th_i64_data(who)[3] == 1 &&
                         fabsf(th_f32_data(results)[1] - 920.0f / 12) < 1e-3f && th_f32_data(top)[0] == 100.0f
                     ? 0
                     : 1;
    th_f32_release(top);
    th_f32_release(slot);
    th_f32_release(results);
    th_f32_release(empty);
    th_f32_release(length);
    th_f32_release(running);
    th_bool_release(all_passed);
    th_bool_release(passed);
    th_f32_release(best);
    th_i64_release(who);
    th_f32_release(spread);
    th_f32_release(mean);
    th_f32_release(total);
    th_f32_release(scores);
    return status;
}
