/* bench_vecmath.c: the vectorised math kernels (generate/ops/vecmath_erased.h) against a plain libm loop and
 * glibc's libmvec, on 16M float32 into a preallocated output, one thread.
 *
 * The file is two translation units (vecmath_run.sh builds both):
 *   with BENCH_LIBMVEC_LOOPS: only the loops out[i] = expf(in[i]) and tanhf, compiled with
 *     -O3 -ffast-math -mavx2 -mfma, so gcc calls libmvec's 8-wide _ZGVdN8v_expf / _ZGVdN8v_tanhf;
 *   without it: everything else at -O2 and no -march, as a user would build tensor.h: tensor.h's kernels at
 *     each SIMD level this CPU has, the same loops compiled without -ffast-math (scalar libm calls), and
 *     what choosing the level costs on short rows.
 * The variants of one op take turns inside each repetition, so all of them see the same machine load; the
 * best of the repetitions is the headline ("key best median unit" lines, like bench_common.h's). */
#ifdef BENCH_LIBMVEC_LOOPS
#include <math.h>
#include <stdint.h>

void bench_libmvec_exp(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = expf(in[i]);
}

void bench_libmvec_tanh(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = tanhf(in[i]);
}

#else
#define _POSIX_C_SOURCE 200809L
#include <math.h>

/* The kernels are static, implementation-only functions: this program compiles its own private copy. */
#define TH_STATIC
#include "tensor.h"

#include "bench_common.h"

void bench_libmvec_exp(float *out, const float *in, int64_t n);
void bench_libmvec_tanh(float *out, const float *in, int64_t n);

static void libm_exp(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = expf(in[i]);
}

static void libm_tanh(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = tanhf(in[i]);
}

enum { N = 16 << 20, MAX_VARIANTS = 8 };

typedef struct variant {
    char key[64];
    void (*loop)(float *, const float *, int64_t);        /* a plain loop, or */
    void (*kernel)(int, float *, const float *, int64_t); /* a tensor.h kernel at level */
    int level;
} variant;

/* Each repetition times every variant once, in turn; prints each variant's best and median. */
static void race(const variant *v, int nv, float *out, const float *in)
{
    double samples[MAX_VARIANTS][BENCH_MAX_REPS];
    int reps = bench_reps(BENCH_BIG_REPS);
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        for (int i = 0; i < nv; i++) {
            double t0 = bench_now_ns();
            if (v[i].loop)
                v[i].loop(out, in, N);
            else
                v[i].kernel(v[i].level, out, in, N);
            bench_escape(out);
            if (r >= 0) samples[i][r] = (bench_now_ns() - t0) / 1e6;
        }
    }
    for (int i = 0; i < nv; i++) bench_report(v[i].key, samples[i], reps, "ms");
}

static void race_op(const char *op, void (*kernel)(int, float *, const float *, int64_t),
                    void (*libm)(float *, const float *, int64_t), void (*libmvec)(float *, const float *, int64_t),
                    float *out, const float *in)
{
    variant v[MAX_VARIANTS];
    int nv = 0;
    for (int level = 0; level <= th__simd_best(); level++) {
        v[nv] = (variant){.kernel = kernel, .level = level};
        snprintf(v[nv].key, sizeof v[nv].key, "%s_th_%s", op, th__simd_name(level));
        nv++;
    }
    v[nv] = (variant){.loop = libm};
    snprintf(v[nv++].key, sizeof v[0].key, "%s_libm_O2", op);
    v[nv] = (variant){.loop = libmvec};
    snprintf(v[nv++].key, sizeof v[0].key, "%s_libmvec", op);
    race(v, nv, out, in);
}

/* Rows of 8 elements through the dispatching entry (an atomic load and a switch per row) and through the
 * chosen level's function directly: what resolving the level once saves or costs on short rows. */
static void race_dispatch(float *out, const float *in)
{
    enum { ROW = 8 };
    double samples[2][BENCH_MAX_REPS];
    int reps = bench_reps(BENCH_BIG_REPS);
    int level = th__simd_level();
    for (int r = -1; r < reps; r++) {
        double t0 = bench_now_ns();
        for (int64_t i = 0; i + ROW <= (1 << 20); i += ROW) th__vec_exp_f32(out + i, in + i, ROW);
        bench_escape(out);
        double t1 = bench_now_ns();
        for (int64_t i = 0; i + ROW <= (1 << 20); i += ROW) th__vec_exp_f32_at(level, out + i, in + i, ROW);
        bench_escape(out);
        double t2 = bench_now_ns();
        if (r >= 0) {
            samples[0][r] = (t1 - t0) / ((1 << 20) / ROW);
            samples[1][r] = (t2 - t1) / ((1 << 20) / ROW);
        }
    }
    bench_report("exp_rows8_dispatched", samples[0], reps, "ns/row");
    bench_report("exp_rows8_level_direct", samples[1], reps, "ns/row");
}

int main(void)
{
    float *in = malloc(sizeof(float) * N), *out = malloc(sizeof(float) * N);
    BENCH_CHECK(in && out);
    printf("# 16M float32, one thread; levels: baseline..%s; chosen: %s\n", th__simd_name(th__simd_best()),
           th__simd_name(th__simd_level()));
    /* Inputs spread over the range where exp and tanh do real work, in no order (a fixed LCG). */
    uint32_t state = 12345u;
    for (int64_t i = 0; i < N; i++) {
        state = state * 1664525u + 1013904223u;
        in[i] = ((float)(state >> 8) / 16777216.0f - 0.5f) * 20.0f; /* [-10, 10) */
    }
    memset(out, 0, sizeof(float) * N);
    race_op("exp", th__vec_exp_f32_at, libm_exp, bench_libmvec_exp, out, in);
    race_op("tanh", th__vec_tanh_f32_at, libm_tanh, bench_libmvec_tanh, out, in);
    race_dispatch(out, in);
    free(in);
    free(out);
    return 0;
}
#endif
