/* tests/check.h: the few checks every test file uses.
 *
 * CHECK(cond) counts and reports a failure without stopping, so one run shows every broken case.
 * test_begin() routes this thread's allocations through a counting allocator; test_end() fails the test
 * if any block is still live (a leak) and returns the exit status. */
#ifndef TH_TESTS_CHECK_H
#define TH_TESTS_CHECK_H

#include <stdio.h>
#include <string.h>

#include "tensor.h"

static int check_count, check_failures;
static th_counting_allocator *check_counter;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        check_count++;                                                                     \
        if (!(cond)) {                                                                     \
            check_failures++;                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);       \
        }                                                                                  \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                                 \
    do {                                                                                   \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                    \
        check_count++;                                                                     \
        if (check_a_ != check_b_) {                                                        \
            check_failures++;                                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld != %lld)\n", __FILE__,    \
                    __LINE__, #a, #b, check_a_, check_b_);                                 \
        }                                                                                  \
    } while (0)

/* expr failed with status, and the thread's message names fn and contains detail. */
#define CHECK_ERROR(expr_ok, status, fn, detail)                                           \
    do {                                                                                   \
        th_clear_error();                                                                  \
        int check_ok_ = (expr_ok);                                                         \
        check_count++;                                                                     \
        if (!check_ok_ || th_last_status() != (status) ||                                  \
            strncmp(th_last_error(), fn ": ", strlen(fn ": ")) != 0 ||                     \
            !strstr(th_last_error(), detail)) {                                            \
            check_failures++;                                                              \
            fprintf(stderr, "%s:%d: CHECK_ERROR failed: %s -> %s \"%s\" (wanted %s, %s ... %s)\n", \
                    __FILE__, __LINE__, #expr_ok, th_status_name(th_last_status()),       \
                    th_last_error(), #status, fn, detail);                                 \
        }                                                                                  \
    } while (0)

/* A call returning a pointer failed (NULL) with status; message names fn and contains detail. */
#define CHECK_NULL(call, status, fn, detail) CHECK_ERROR((call) == NULL, status, fn, detail)
/* A call returning int failed with status. */
#define CHECK_FAILS(call, status, fn, detail) CHECK_ERROR((call) == (status), status, fn, detail)

/* Sets the thread count and says whether it took effect, so a comparison across counts is run only when
 * it compares something. With OpenMP in this build a count that did not take effect fails a check: else
 * every such comparison would pass comparing one thread with itself. Without OpenMP there is only one
 * thread: a note says the comparison is skipped. */
#define test_set_threads(n) test_set_threads_at((n), __FILE__, __LINE__)

static inline bool test_set_threads_at(int n, const char *file, int line)
{
    th_set_num_threads(n);
    int got = th_get_num_threads();
#ifdef _OPENMP
    check_count++;
    if (got != n) {
        check_failures++;
        fprintf(stderr, "%s:%d: CHECK failed: th_set_num_threads(%d) left th_get_num_threads() at %d\n", file,
                line, n, got);
    }
#else
    static const char *noted_file; /* a loop calling from one place notes it once */
    static int noted_line;
    if (got != n && (file != noted_file || line != noted_line)) {
        printf("%s:%d: note: built without OpenMP: 1 thread, not %d, so nothing is compared across thread "
               "counts here\n", file, line, n);
        noted_file = file;
        noted_line = line;
    }
#endif
    return got == n;
}

static inline void test_begin(void)
{
    check_counter = th_counting_allocator_new(NULL, NULL);
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
}

static inline int test_end(const char *name)
{
    th_alloc_stats s = th_counting_allocator_stats(check_counter);
    check_count++;
    if (s.live_blocks != 0 || s.live_bytes != 0) {
        check_failures++;
        fprintf(stderr, "%s: LEAK: %lld blocks, %lld bytes still live\n", name, (long long)s.live_blocks,
                (long long)s.live_bytes);
    }
    th_set_default_allocator(NULL, NULL);
    th_counting_allocator_free(check_counter);
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

#endif
