/* bench_common.h: timing and reporting shared by the C benchmarks (bench_th.c, bench_limits.c).
 *
 * Every benchmark prints one line per measurement, "key best median unit"; run.sh collects those lines
 * from every peer (C, libtorch, NumPy) and lines them up in one table. The best of N repetitions is the
 * headline number because on a shared machine noise only ever adds time; the median is printed next to
 * it so that a reader can see how noisy the run was.
 *
 * The including file defines _POSIX_C_SOURCE (for clock_gettime) before its first include. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { BENCH_MAX_REPS = 64 };

/* A small op runs in batches of at least 2 ms: long enough for the clock's resolution and the batch loop's
 * own cost to vanish, short enough that on a busy machine many batches run without being preempted, and
 * the best of them shows the op's own cost. */
#define BENCH_MIN_BATCH_NS 2e6
#define BENCH_WARMUP_NS 50e6
enum { BENCH_SMALL_REPS = 31, BENCH_BIG_REPS = 11 };

/* Stores the compiler must assume happen: a benchmark that allocates, fills and frees memory and never
 * looks at it would otherwise be deleted whole (gcc drops stores to memory that is freed next). The empty
 * asm claims to read p and all memory. */
static inline void bench_escape(void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

static inline double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* BENCH_QUICK=1 trades precision for a run that finishes in a few seconds (for checking the harness). */
static inline int bench_reps(int full)
{
    const char *quick = getenv("BENCH_QUICK");
    int reps = quick && strcmp(quick, "1") == 0 ? 5 : full;
    return reps < BENCH_MAX_REPS ? reps : BENCH_MAX_REPS;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline void bench_report(const char *key, double *samples, int n, const char *unit)
{
    qsort(samples, (size_t)n, sizeof *samples, bench_cmp_double);
    double median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    printf("%s %.3f %.3f %s\n", key, samples[0], median, unit);
    fflush(stdout);
}

/* A small op's benchmark runs it iters times in a loop of its own: the call through the pointer is paid
 * once per batch, not once per op. */
typedef void (*bench_batch)(int64_t iters);

/* The warm-up brings caches, branch predictors and the allocator's free lists to their steady state. */
static inline void bench_small(const char *key, bench_batch batch)
{
    int64_t iters = 100;
    for (;;) {
        double t0 = bench_now_ns();
        batch(iters);
        if (bench_now_ns() - t0 >= BENCH_MIN_BATCH_NS) break;
        iters *= 2;
    }
    for (double t0 = bench_now_ns(); bench_now_ns() - t0 < BENCH_WARMUP_NS;) batch(iters);
    double samples[BENCH_MAX_REPS];
    int reps = bench_reps(BENCH_SMALL_REPS);
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ns();
        batch(iters);
        samples[r] = (bench_now_ns() - t0) / (double)iters;
    }
    bench_report(key, samples, reps, "ns");
}

/* One run of a large op: allocate what the op says is new, compute, release. */
typedef void (*bench_op)(void);

static inline void bench_big(const char *key, bench_op op)
{
    op(); /* warm-up: first-touch faults of lazily built state, code paging in */
    op();
    double samples[BENCH_MAX_REPS];
    int reps = bench_reps(BENCH_BIG_REPS);
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ns();
        op();
        samples[r] = (bench_now_ns() - t0) / 1e6;
    }
    bench_report(key, samples, reps, "ms");
}

/* One benchmark of a program: exactly one of small and big is set. */
typedef struct bench_entry {
    const char *key;
    bench_batch small;
    bench_op big;
} bench_entry;

/* Runs the entries named on the command line, or all of them: "bench_th create" under perf record
 * profiles one row alone. Returns 1 if a name matched nothing. */
static inline int bench_main(const bench_entry *entries, int n, int argc, char **argv)
{
    int status = 0;
    for (int a = 1; a < argc; a++) {
        int found = 0;
        for (int i = 0; i < n; i++) found |= strcmp(argv[a], entries[i].key) == 0;
        if (!found) {
            fprintf(stderr, "%s: no benchmark named %s\n", argv[0], argv[a]);
            status = 1;
        }
    }
    for (int i = 0; i < n; i++) {
        int wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], entries[i].key) == 0;
        if (!wanted) continue;
        if (entries[i].small)
            bench_small(entries[i].key, entries[i].small);
        else
            bench_big(entries[i].key, entries[i].big);
    }
    return status;
}

/* A benchmark that would measure the wrong thing (an op that failed and returned NULL at once) stops the
 * run instead. */
#define BENCH_CHECK(cond)                                                                   \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

#endif /* BENCH_COMMON_H */
