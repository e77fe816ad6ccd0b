/* bench_reduce.c: sums of a 4096x4096 float32 tensor (over all, over dim 0, over dim 1) against plain C
 * read-only sum loops of the same data, compiled in this program with the same flags, on 1 and 2 threads.
 *
 * The two C loops are the yardsticks of the issue: the straightforward one (one float accumulator: one
 * add per element, each waiting for the last) and one with 8 independent float accumulators (which -O2
 * may turn into vector adds, since no reassociation is needed). tensor.h accumulates float32 in double,
 * pairwise, so it is also far more accurate than either.
 *
 * Prints "key best median ms" lines (bench_common.h), keys suffixed _t1 / _t2 by thread count
 * (BENCH_THREADS=1 or 2 runs only that count); bench/reduce_run.sh builds and runs it. */
#define _POSIX_C_SOURCE 199309L
#include "bench_common.h"
#include "tensor.h"

enum { N = 4096 };

static th_f32_tensor *data;
static volatile double sink;

static void c_plain(void)
{
    const float *x = th_f32_data(data);
    float s = 0;
    for (int64_t i = 0; i < (int64_t)N * N; i++) s += x[i];
    sink = s;
}

static void c_acc8(void)
{
    const float *x = th_f32_data(data);
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t i = 0; i < (int64_t)N * N; i += 8)
        for (int k = 0; k < 8; k++) acc[k] += x[i + k];
    sink = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

static void th_all(void)
{
    th_f32_tensor *s = th_f32_sum_all(data);
    BENCH_CHECK(s != NULL);
    sink = th_f32_data(s)[0];
    th_f32_release(s);
}

static void th_dim(int dim)
{
    th_f32_tensor *s = th_f32_sum_dim(data, dim, false);
    BENCH_CHECK(s != NULL);
    sink = th_f32_data(s)[0];
    th_f32_release(s);
}

static void th_dim0(void) { th_dim(0); }
static void th_dim1(void) { th_dim(1); }

int main(int argc, char **argv)
{
    data = th_f32_empty(2, (const int64_t[]){N, N});
    BENCH_CHECK(data != NULL);
    float *x = th_f32_data(data);
    uint32_t state = 12345;
    for (int64_t i = 0; i < (int64_t)N * N; i++) {
        state = state * 1664525u + 1013904223u;
        x[i] = (float)(state >> 8) / 16777216.0f;
    }
    static const struct {
        const char *key;
        bench_op op;
    } entries[] = {
        {"c_loop_plain", c_plain}, {"c_loop_acc8", c_acc8}, {"th_sum_all", th_all},
        {"th_sum_dim0", th_dim0},  {"th_sum_dim1", th_dim1},
    };
    enum { NOPS = sizeof entries / sizeof entries[0] };
    const int reps = bench_reps(21);
    int status = 0;
    const char *only = getenv("BENCH_THREADS");
    for (int threads = 1; threads <= 2; threads++) {
        if (only && atoi(only) != threads) continue;
        th_set_num_threads(threads);
        /* Interleaved: repetition r of every op runs before repetition r + 1 of any, so a busy moment on a
         * shared machine falls on all of them alike rather than on whichever op ran then. */
        static double samples[NOPS][BENCH_MAX_REPS];
        for (int i = 0; i < NOPS; i++) { /* warm-up */
            entries[i].op();
            entries[i].op();
        }
        for (int r = 0; r < reps; r++)
            for (int i = 0; i < NOPS; i++) {
                double t0 = bench_now_ns();
                entries[i].op();
                samples[i][r] = (bench_now_ns() - t0) / 1e6;
            }
        for (int i = 0; i < NOPS; i++) {
            char key[64];
            snprintf(key, sizeof key, "%s_t%d", entries[i].key, threads);
            bench_report(key, samples[i], reps, "ms");
        }
    }
    (void)argc;
    (void)argv;
    th_f32_release(data);
    return status;
}
