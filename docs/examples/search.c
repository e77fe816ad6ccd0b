/* Search and bins with tensor.h: searchsorted (both sides), bucketize, histc, histogram, bincount,
 * isin, isclose and allclose on small data whose answers are written out here, and an unsorted sequence refused
 * with a message that names the row and the pair.
 * Build: cc -std=c11 -I. docs/examples/search.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast. */
#define TH_SELECT_DTYPES
#define TH_WANT_F64
#define TH_WANT_I64
#define TH_WANT_BOOL
#include "tensor.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static th_f64_tensor *vec(int64_t n, const double *v)
{
    th_f64_tensor *t = th_f64_empty(1, &n);
    memcpy(th_f64_data(t), v, (size_t)n * sizeof *v);
    return t;
}

static int failures;
#define EXPECT(cond)                                                                                           \
    do {                                                                                                       \
        if (!(cond)) {                                                                                         \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);                                \
            failures++;                                                                                        \
        }                                                                                                      \
    } while (0)

int main(void)
{
    /* searchsorted: where each value would go in a sorted sequence */
    th_f64_tensor *sorted = vec(5, (const double[]){1, 3, 3, 5, 7});
    th_f64_tensor *values = vec(4, (const double[]){3, 4, 0, 9});
    th_i64_tensor *left = th_f64_searchsorted(sorted, values, NULL);
    th_i64_tensor *right = th_f64_searchsorted(sorted, values, &(th_search_opts){.right = true});
    const int64_t *l = th_i64_data(left), *r = th_i64_data(right);
    printf("searchsorted left:  %lld %lld %lld %lld\n", (long long)l[0], (long long)l[1], (long long)l[2],
           (long long)l[3]);
    printf("searchsorted right: %lld %lld %lld %lld\n", (long long)r[0], (long long)r[1], (long long)r[2],
           (long long)r[3]);
    EXPECT(l[0] == 1 && l[1] == 3 && l[2] == 0 && l[3] == 5);
    EXPECT(r[0] == 3 && r[1] == 3 && r[2] == 0 && r[3] == 5);

    /* bucketize: the bucket of each value among boundaries; the same search, boundaries second */
    th_i64_tensor *buckets = th_f64_bucketize(values, sorted, false);
    EXPECT(th_i64_data(buckets)[1] == 3);

    /* histc: 4 bins over [0, 8]; the NaN is not counted (with min = max = 0, the data's range, it would be refused:
     * a range with a NaN is not finite) */
    th_f64_tensor *data = vec(7, (const double[]){0, 1, 2, 2, 5, 8, NAN});
    th_f64_tensor *hc = th_f64_histc(data, 4, 0, 8);
    const double *h = th_f64_data(hc);
    printf("histc: %g %g %g %g\n", h[0], h[1], h[2], h[3]);
    EXPECT(h[0] == 2 && h[1] == 2 && h[2] == 1 && h[3] == 1);

    /* histogram: counts and edges as numpy.histogram(data, 4, range=(0, 8)) gives them */
    th_f64_tensor *hist = NULL, *edges = NULL;
    if (th_f64_histogram(data, 4, (const double[]){0, 8}, NULL, &hist, &edges) != TH_OK) {
        fprintf(stderr, "histogram: %s\n", th_last_error());
        return 1;
    }
    printf("histogram: edges %g %g %g %g %g\n", th_f64_data(edges)[0], th_f64_data(edges)[1],
           th_f64_data(edges)[2], th_f64_data(edges)[3], th_f64_data(edges)[4]);
    EXPECT(th_f64_data(hist)[0] == 2 && th_f64_data(edges)[4] == 8);

    /* bincount: how often each of 0..3 occurs */
    int64_t n = 5;
    th_i64_tensor *labels = th_i64_empty(1, &n);
    memcpy(th_i64_data(labels), (const int64_t[]){3, 0, 3, 1, 3}, sizeof(int64_t[5]));
    th_i64_tensor *counts = th_i64_bincount(labels, 0);
    printf("bincount: %lld %lld %lld %lld\n", (long long)th_i64_data(counts)[0], (long long)th_i64_data(counts)[1],
           (long long)th_i64_data(counts)[2], (long long)th_i64_data(counts)[3]);
    EXPECT(th_i64_numel(counts) == 4 && th_i64_data(counts)[3] == 3);

    /* isin, isclose, allclose */
    th_bool_tensor *in = th_f64_isin(values, sorted, false);
    EXPECT(th_bool_data(in)[0] && !th_bool_data(in)[1]);
    th_f64_tensor *near = vec(4, (const double[]){3 + 1e-9, 4, 0, 9.1});
    th_bool_tensor *close = th_f64_isclose(values, near, 1e-5, 1e-8, false);
    bool all = true;
    th_f64_allclose(values, near, 1e-5, 1e-8, false, &all);
    printf("isclose: %d %d %d %d, allclose: %d\n", th_bool_data(close)[0], th_bool_data(close)[1],
           th_bool_data(close)[2], th_bool_data(close)[3], all);
    EXPECT(th_bool_data(close)[0] && !th_bool_data(close)[3] && !all);

    /* an unsorted sequence is refused, naming the row and the pair */
    th_f64_tensor *unsorted = vec(3, (const double[]){1, 5, 2});
    th_i64_tensor *bad = th_f64_searchsorted(unsorted, values, NULL);
    printf("refused: %s\n", th_last_error());
    EXPECT(bad == NULL && strstr(th_last_error(), "row 0 has 5 at 1 before 2"));

    th_f64_release(unsorted);
    th_bool_release(close);
    th_f64_release(near);
    th_bool_release(in);
    th_i64_release(counts);
    th_i64_release(labels);
    th_f64_release(hist);
    th_f64_release(edges);
    th_f64_release(hc);
    th_f64_release(data);
    th_i64_release(buckets);
    th_i64_release(right);
    th_i64_release(left);
    th_f64_release(values);
    th_f64_release(sorted);
    return failures ? 1 : 0;
}
