/* bench_vecmath.c: the vectorised math kernels (core/vecmath.h) against a plain libm loop and
 * glibc's libmvec, one thread.
 *
 * The file is two translation units (vecmath_run.sh builds both):
 *   with BENCH_LIBMVEC_LOOPS: only loops like out[i] = expf(in[i]), compiled with -O3 -ffast-math -mavx2
 *     -mfma, so gcc calls libmvec's 8-wide _ZGVdN8v_expf (4-wide _ZGVdN4v_exp for double);
 *   without it: everything else at -O2 and no -march, as a user would build tensor.h: tensor.h's kernels at
 *     each SIMD level this CPU has, the same loops compiled without -ffast-math (scalar libm calls), and
 *     what choosing the level costs on short rows.
 * Two sizes: 16M elements into a preallocated output (memory traffic included: what the targets
 * measure), and 4096 elements 4096 times (in cache: the arithmetic alone). The variants of one op take turns
 * inside each repetition, so all of them see the same machine load; the best of the repetitions is the
 * headline ("key best median unit" lines, like bench_common.h's). */
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

void bench_libmvec_sigmoid(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = 1.0f / (1.0f + expf(-in[i]));
}

void bench_libmvec_log(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = logf(in[i]);
}

void bench_libmvec_expm1(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = expm1f(in[i]);
}

void bench_libmvec_erf(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = erff(in[i]);
}

void bench_libmvec_exp64(double *out, const double *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = exp(in[i]);
}

void bench_libmvec_tanh64(double *out, const double *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = tanh(in[i]);
}

#else
#define _POSIX_C_SOURCE 200809L
#include <math.h>

/* The kernels are static, implementation-only functions: this program compiles its own private copy. */
#define TH_STATIC
#include "tensor.h"

#include "bench_common.h"

typedef void (*loop_f32)(float *, const float *, int64_t);
typedef void (*loop_f64)(double *, const double *, int64_t);

void bench_libmvec_exp(float *out, const float *in, int64_t n);
void bench_libmvec_tanh(float *out, const float *in, int64_t n);
void bench_libmvec_sigmoid(float *out, const float *in, int64_t n);
void bench_libmvec_log(float *out, const float *in, int64_t n);
void bench_libmvec_expm1(float *out, const float *in, int64_t n);
void bench_libmvec_erf(float *out, const float *in, int64_t n);
void bench_libmvec_exp64(double *out, const double *in, int64_t n);
void bench_libmvec_tanh64(double *out, const double *in, int64_t n);

static void libm_exp(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = expf(in[i]);
}

static void libm_tanh(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = tanhf(in[i]);
}

static void libm_sigmoid(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = 1.0f / (1.0f + expf(-in[i]));
}

static void libm_log(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = logf(in[i]);
}

static void libm_expm1(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = expm1f(in[i]);
}

static void libm_erf(float *out, const float *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = erff(in[i]);
}

static void libm_exp64(double *out, const double *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = exp(in[i]);
}

static void libm_tanh64(double *out, const double *in, int64_t n)
{
    for (int64_t i = 0; i < n; i++) out[i] = tanh(in[i]);
}

/* One op: its kernel id, its two peers, and where its inputs lie. */
typedef struct bench_op_desc {
    const char *name;
    int op;       /* TH__VEC_EXP, ... */
    bool f64;
    loop_f32 libm, libmvec;
    loop_f64 libm64, libmvec64;
    float lo, hi; /* inputs uniform in [lo, hi) */
} bench_op_desc;

static const bench_op_desc ops[] = {
    {"exp", TH__VEC_EXP, false, libm_exp, bench_libmvec_exp, NULL, NULL, -10.0f, 10.0f},
    {"tanh", TH__VEC_TANH, false, libm_tanh, bench_libmvec_tanh, NULL, NULL, -10.0f, 10.0f},
    {"sigmoid", TH__VEC_SIGMOID, false, libm_sigmoid, bench_libmvec_sigmoid, NULL, NULL, -10.0f, 10.0f},
    {"log", TH__VEC_LOG, false, libm_log, bench_libmvec_log, NULL, NULL, 0.0f, 100.0f},
    {"expm1", TH__VEC_EXPM1, false, libm_expm1, bench_libmvec_expm1, NULL, NULL, -10.0f, 10.0f},
    {"erf", TH__VEC_ERF, false, libm_erf, bench_libmvec_erf, NULL, NULL, -5.0f, 5.0f},
    {"exp64", TH__VEC_EXP, true, NULL, NULL, libm_exp64, bench_libmvec_exp64, -10.0f, 10.0f},
    {"tanh64", TH__VEC_TANH, true, NULL, NULL, libm_tanh64, bench_libmvec_tanh64, -10.0f, 10.0f},
};

enum { BIG = 16 << 20, SMALL = 4096, VARIANTS = 5 }; /* baseline, avx2, avx512, libm, libmvec */

/* Variant v of op on rows of n elements, repeat times over the same buffers. v < 3 is tensor.h's kernel at
 * level v. */
static void run(const bench_op_desc *d, int v, void *out, const void *in, int64_t n, int64_t repeat)
{
    for (int64_t r = 0; r < repeat; r++) {
        if (d->f64) {
            if (v < 3) th__vec_f64_at(v, d->op, out, in, n);
            else (v == 3 ? d->libm64 : d->libmvec64)(out, in, n);
        } else {
            if (v < 3) th__vec_f32_at(v, d->op, out, in, n);
            else (v == 3 ? d->libm : d->libmvec)(out, in, n);
        }
        bench_escape(out);
    }
}

static const char *variant_name(int v)
{
    return v < 3 ? th__simd_name(v) : v == 3 ? "libm-O2" : "libmvec";
}

/* Each repetition times every variant once, in turn; prints each variant's best and median. */
static void race(const bench_op_desc *d, const char *size, void *out, const void *in, int64_t n, int64_t repeat)
{
    double samples[VARIANTS][BENCH_MAX_REPS];
    int reps = bench_reps(BENCH_BIG_REPS);
    int best = th__simd_best();
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        for (int v = 0; v < VARIANTS; v++) {
            if (v < 3 && v > best) continue;
            double t0 = bench_now_ns();
            run(d, v, out, in, n, repeat);
            if (r >= 0) samples[v][r] = (bench_now_ns() - t0) / 1e6;
        }
    }
    for (int v = 0; v < VARIANTS; v++) {
        if (v < 3 && v > best) continue;
        char key[64];
        snprintf(key, sizeof key, "%s_%s_%s", d->name, size, variant_name(v));
        bench_report(key, samples[v], reps, "ms");
    }
}

/* Rows of 8 elements through the dispatching entry (an atomic load and a switch per row) and through the
 * chosen level's function directly: what resolving the level once costs on short rows. */
static void race_dispatch(float *out, const float *in)
{
    enum { ROW = 8, ROWS = (1 << 20) / ROW };
    double samples[2][BENCH_MAX_REPS];
    int reps = bench_reps(BENCH_BIG_REPS);
    int level = th__simd_level();
    for (int r = -1; r < reps; r++) {
        double t0 = bench_now_ns();
        for (int64_t i = 0; i < ROWS; i++) th__vec_exp_f32(out + i * ROW, in + i * ROW, ROW);
        bench_escape(out);
        double t1 = bench_now_ns();
        for (int64_t i = 0; i < ROWS; i++) th__vec_f32_at(level, TH__VEC_EXP, out + i * ROW, in + i * ROW, ROW);
        bench_escape(out);
        double t2 = bench_now_ns();
        if (r >= 0) {
            samples[0][r] = (t1 - t0) / ROWS;
            samples[1][r] = (t2 - t1) / ROWS;
        }
    }
    bench_report("exp_rows8_dispatched", samples[0], reps, "ns/row");
    bench_report("exp_rows8_level_direct", samples[1], reps, "ns/row");
}

/* Inputs spread uniformly over [lo, hi) in no order (a fixed LCG). */
static void fill(const bench_op_desc *d, void *in, int64_t n)
{
    uint32_t state = 12345u;
    for (int64_t i = 0; i < n; i++) {
        state = state * 1664525u + 1013904223u;
        double unit = (double)(state >> 8) / 16777216.0;
        double x = d->lo + unit * (d->hi - d->lo);
        if (d->f64)
            ((double *)in)[i] = x;
        else
            ((float *)in)[i] = (float)x;
    }
}

int main(int argc, char **argv)
{
    double *in = malloc(sizeof(double) * BIG), *out = malloc(sizeof(double) * BIG);
    BENCH_CHECK(in && out);
    memset(out, 0, sizeof(double) * BIG); /* fault the output in before timing */
    printf("# one thread; levels: baseline..%s; chosen: %s\n", th__simd_name(th__simd_best()),
           th__simd_name(th__simd_level()));
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        bool wanted = argc < 2;
        for (int a = 1; a < argc; a++) wanted |= strcmp(argv[a], ops[i].name) == 0;
        if (!wanted) continue;
        fill(&ops[i], in, BIG);
        race(&ops[i], "16M", out, in, BIG, 1);
        race(&ops[i], "4Kx4K", out, in, SMALL, 4096);
    }
    if (argc < 2) race_dispatch((float *)out, (const float *)in);
    free(in);
    free(out);
    return 0;
}
#endif
