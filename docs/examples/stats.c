/* Statistics: medians, quantiles, the k-th smallest, and reductions that skip missing values (NaN).
 * Build and run: cc -std=c11 -I. docs/examples/stats.c -lm -o stats && ./stats */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F64
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

/* Exits with a message unless got is want (both NaN counts as equal). */
static void expect(const char *what, double got, double want)
{
    printf("%-34s %g\n", what, got);
    if (!(got == want || (isnan(got) && isnan(want)))) {
        fprintf(stderr, "%s: got %g, expected %g\n", what, got, want);
        exit(1);
    }
}

int main(void)
{
    /* Response times in ms of 3 servers (rows) over 5 probes (columns); NaN: a probe that got no answer. */
    const double ms[15] = {12, 15, 11, 90, 14, /**/ 20, NAN, 22, 21, 19, /**/ NAN, NAN, NAN, NAN, NAN};
    th_f64_tensor *t = need(th_f64_empty(2, (int64_t[]){3, 5}));
    for (int i = 0; i < 15; i++) th_f64_data(t)[i] = ms[i];

    /* The median per server ignoring the missing probes, and which probe it was (torch.nanmedian). The
     * server with no answers at all gets NaN. */
    th_i64_tensor *probe = NULL;
    th_f64_tensor *med = need(th_f64_nanmedian_dim(t, 1, false, &probe));
    expect("server 0 median (ms)", th_f64_get(med, (int64_t[]){0}), 14);
    expect("server 0 median is probe", (double)th_i64_get(probe, (int64_t[]){0}), 4);
    expect("server 1 median (even count: lower)", th_f64_get(med, (int64_t[]){1}), 20);
    expect("server 2 median (no answers)", th_f64_get(med, (int64_t[]){2}), NAN);

    /* The 90th percentile of server 0 under NumPy's five methods (numpy.quantile). */
    th_f64_tensor *row0 = need(th_f64_select(t, 0, 0));
    const char *names[5] = {"linear", "lower", "higher", "nearest", "midpoint"};
    const double p90[5] = {60.0, 15, 90, 90, 52.5}; /* sorted 11 12 14 15 90; index 0.9 * 4 = 3.6 */
    for (int m = 0; m < 5; m++) {
        th_f64_tensor *q = need(th_f64_quantile_all(row0, 0.9, (th_quantile_method)m));
        char what[64];
        snprintf(what, sizeof what, "server 0 p90, %s", names[m]);
        double got = th_f64_get(q, NULL);
        expect(what, fabs(got - p90[m]) < 1e-12 ? p90[m] : got, p90[m]);
        th_f64_release(q);
    }

    /* The second fastest probe of each server, over the transpose's dim 0 (any strides will do). */
    th_f64_tensor *tt = need(th_f64_transpose(t, 0, 1));
    th_f64_tensor *second = need(th_f64_kthvalue(tt, 2, 0, false, NULL));
    expect("server 0 second fastest", th_f64_get(second, (int64_t[]){0}), 12);
    expect("server 1 second fastest", th_f64_get(second, (int64_t[]){1}), 20);

    /* Totals that skip the missing probes: the mean of what answered, and the worst answer overall. */
    th_f64_tensor *mean = need(th_f64_nanmean_dim(t, 1, true));
    expect("server 1 mean of answers", th_f64_get(mean, (int64_t[]){1, 0}), 20.5);
    th_f64_tensor *worst = need(th_f64_nanmax_all(t));
    expect("slowest answer", th_f64_get(worst, NULL), 90);

    /* A bad argument is an error naming the function and the value, never a crash. */
    if (th_f64_quantile_all(t, 1.5, TH_QUANTILE_LINEAR) != NULL) return 1;
    printf("error: %s\n", th_last_error());

    th_f64_release(worst);
    th_f64_release(mean);
    th_f64_release(second);
    th_f64_release(tt);
    th_f64_release(row0);
    th_f64_release(med);
    th_i64_release(probe);
    th_f64_release(t);
    return 0;
}
