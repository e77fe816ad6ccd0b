/* consumer_checks.h: what every consumer program of tests/consumers/run.sh does with the library.
 *
 * Include it after tensor.h. consumer_checks(way) makes a tensor, views it (transpose, narrow), writes
 * through a view, copies and converts between dtypes, prints, checks every value it can and that nothing
 * leaked, and returns 0, or 1 after printing what was wrong. */
#ifndef CONSUMER_CHECKS_H
#define CONSUMER_CHECKS_H

#include <stdio.h>
#include <string.h>

static int consumer__failures;

#define CONSUMER_CHECK(cond)                                                                         \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
                    th_last_error());                                                                \
            consumer__failures++;                                                                    \
        }                                                                                            \
    } while (0)

/* Reads all of f (rewound) into buf, NUL-terminated. */
static void consumer__slurp(FILE *f, char *buf, size_t cap)
{
    size_t n;
    rewind(f);
    n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
}

static int consumer_checks(const char *way)
{
    th_counting_allocator *counter = th_counting_allocator_new(NULL, NULL);
    CONSUMER_CHECK(counter != NULL);
    if (!counter)
        return 1;
    th_set_default_allocator(th_counting_allocator_get(counter), counter);

    {
        int64_t sizes[2] = {2, 3};
        th_f32_tensor *a = th_f32_empty(2, sizes);
        CONSUMER_CHECK(a != NULL);
        CONSUMER_CHECK(th_f32_ndim(a) == 2 && th_f32_size(a, 0) == 2 && th_f32_size(a, 1) == 3);
        CONSUMER_CHECK(th_numel(a) == 6); /* the _Generic front end */
        CONSUMER_CHECK(th_f32_is_contiguous(a));
        /* a = [[0, 1, 2], [3, 4, 5]] + 0.75 */
        for (int64_t i = 0; i < 2; i++)
            for (int64_t j = 0; j < 3; j++)
                CONSUMER_CHECK(th_f32_set(a, (int64_t[]){i, j}, (float)(i * 3 + j) + 0.75f) == TH_OK);
        CONSUMER_CHECK(th_f32_data(a)[5] == 5.75f);

        /* A transposed view shares a's storage. */
        th_f32_tensor *t = th_f32_transpose(a, 0, 1);
        CONSUMER_CHECK(t != NULL);
        CONSUMER_CHECK(th_f32_size(t, 0) == 3 && th_f32_size(t, 1) == 2);
        CONSUMER_CHECK(th_f32_stride(t, 0) == 1 && th_f32_stride(t, 1) == 3);
        CONSUMER_CHECK(!th_f32_is_contiguous(t));
        CONSUMER_CHECK(th_f32_storage(t) == th_f32_storage(a));
        CONSUMER_CHECK(th_f32_get(t, (int64_t[]){2, 1}) == 5.75f);
        CONSUMER_CHECK(th_f32_set(t, (int64_t[]){0, 1}, -2.5f) == TH_OK); /* writes a[1][0] */
        CONSUMER_CHECK(th_f32_get(a, (int64_t[]){1, 0}) == -2.5f);

        /* A narrowed view: columns 1..2 of a. */
        th_f32_tensor *n = th_f32_narrow(a, 1, 1, 2);
        CONSUMER_CHECK(n != NULL);
        CONSUMER_CHECK(th_f32_size(n, 0) == 2 && th_f32_size(n, 1) == 2 && th_f32_offset(n) == 1);
        CONSUMER_CHECK(th_f32_get(n, (int64_t[]){1, 1}) == 5.75f);

        /* A contiguous copy of the transposed view no longer shares storage. */
        th_f32_tensor *c = th_f32_contiguous(t);
        CONSUMER_CHECK(c != NULL && th_f32_is_contiguous(c));
        CONSUMER_CHECK(th_f32_storage(c) != th_f32_storage(a));
        {
            const float want[6] = {0.75f, -2.5f, 1.75f, 4.75f, 2.75f, 5.75f};
            for (int k = 0; k < 6; k++)
                CONSUMER_CHECK(c && th_f32_data(c)[k] == want[k]);
        }

        /* Converting copies: f32 view -> i32 (truncates toward zero) and -> f64 (exact). */
        th_i32_tensor *ci = th_i32_convert(th_f32_base(t));
        CONSUMER_CHECK(ci != NULL);
        {
            const int32_t want[6] = {0, -2, 1, 4, 2, 5};
            for (int k = 0; k < 6; k++)
                CONSUMER_CHECK(ci && th_i32_data(ci)[k] == want[k]);
        }
        th_f64_tensor *cd = th_f64_zeros(2, (int64_t[]){3, 2});
        CONSUMER_CHECK(cd != NULL);
        CONSUMER_CHECK(th_tensor_copy(th_f64_base(cd), th_f32_base(t)) == TH_OK);
        CONSUMER_CHECK(th_f64_get(cd, (int64_t[]){1, 1}) == 4.75);
        CONSUMER_CHECK(th_f64_get(cd, (int64_t[]){0, 1}) == -2.5);

        /* Same-dtype copy into a strided destination: n = 9 broadcast from a one-element tensor. */
        th_f32_tensor *nine = th_f32_full(1, (int64_t[]){1}, 9.0f);
        CONSUMER_CHECK(nine != NULL);
        CONSUMER_CHECK(th_f32_copy(n, nine) == TH_OK);
        CONSUMER_CHECK(th_f32_get(a, (int64_t[]){0, 0}) == 0.75f);
        CONSUMER_CHECK(th_f32_get(a, (int64_t[]){0, 2}) == 9.0f);
        CONSUMER_CHECK(th_f32_get(a, (int64_t[]){1, 1}) == 9.0f);

        /* Printing, to stdout for the log and to a file to check. */
        printf("consumer (%s):\n", way);
        CONSUMER_CHECK(th_i32_print(stdout, ci) == TH_OK);
        printf("\n");
        {
            FILE *f = tmpfile();
            char buf[512];
            CONSUMER_CHECK(f != NULL);
            if (f) {
                CONSUMER_CHECK(th_print(f, ci) == TH_OK);
                consumer__slurp(f, buf, sizeof buf);
                fclose(f);
                CONSUMER_CHECK(strncmp(buf, "tensor(", 7) == 0);
                CONSUMER_CHECK(strstr(buf, "-2") != NULL);
                CONSUMER_CHECK(strstr(buf, "dtype=i32") != NULL);
            }
        }

        /* An error is reported, not fatal. */
        th_clear_error();
        CONSUMER_CHECK(th_f32_narrow(a, 1, 2, 5) == NULL);
        CONSUMER_CHECK(th_last_status() == TH_ERR_RANGE || th_last_status() == TH_ERR_SHAPE);
        CONSUMER_CHECK(th_last_error()[0] != '\0');
        th_clear_error();

        th_release(nine);
        th_f64_release(cd);
        th_i32_release(ci);
        th_f32_release(c);
        th_f32_release(n);
        th_f32_release(t);
        th_f32_release(a);
    }

    {
        th_alloc_stats st = th_counting_allocator_stats(counter);
        CONSUMER_CHECK(st.total_allocs > 0);
        CONSUMER_CHECK(st.live_blocks == 0 && st.live_bytes == 0);
    }
    th_set_default_allocator(NULL, NULL);
    th_counting_allocator_free(counter);

    if (consumer__failures) {
        fprintf(stderr, "consumer (%s): %d check(s) failed\n", way, consumer__failures);
        return 1;
    }
    printf("consumer (%s): all checks passed\n", way);
    return 0;
}

#endif /* CONSUMER_CHECKS_H */
