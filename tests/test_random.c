/* tests/test_random.c: the generator and the samplers.
 *
 * Philox4x32-10 against the published known answers; values recomputed from th_philox4x32_10 by hand;
 * determinism, state save and restore, offsets, thread-count and stride independence; moments and
 * chi-square statistics with fixed seeds (deterministic, so never flaky); bounds; every error path. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* Memory the library must not touch: host memory labelled as a CUDA device. */
static void *fake_device_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n);
}
static void fake_device_free(void *ctx, void *p, size_t n)
{
    (void)ctx, (void)n;
    free(p);
}
static const th_allocator fake_device = {"fake-device", fake_device_alloc, NULL, fake_device_free, {TH_DEVICE_CUDA, 0}};

static th_f64_tensor *device_tensor(double *mem, int64_t rows, int64_t cols)
{
    th_storage *s = th_storage_from_blob(mem, rows * cols * (int64_t)sizeof(double), (th_device){TH_DEVICE_CUDA, 0},
                                         NULL, NULL);
    th_f64_tensor *t = th_f64_new_with_storage(s, 0, 2, SZ(rows, cols), NULL);
    th_storage_release(s);
    return t;
}

/* ---- helpers ---------------------------------------------------------------------------- */

static double mean_of(const double *x, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += x[i];
    return s / (double)n;
}

static double var_of(const double *x, int64_t n)
{
    double m = mean_of(x, n), s = 0;
    for (int64_t i = 0; i < n; i++) s += (x[i] - m) * (x[i] - m);
    return s / (double)(n - 1);
}

/* Pearson's statistic of counts against equal expectation over k bins. */
static double chi_square_uniform(const int64_t *counts, int k, int64_t n)
{
    double expect = (double)n / k, s = 0;
    for (int b = 0; b < k; b++) s += ((double)counts[b] - expect) * ((double)counts[b] - expect) / expect;
    return s;
}

static bool same_f64(const th_f64_tensor *a, const th_f64_tensor *b)
{
    return a && b && th_f64_numel(a) == th_f64_numel(b) &&
           memcmp(th_f64_data(a), th_f64_data(b), (size_t)th_f64_numel(a) * sizeof(double)) == 0;
}

/* ---- Philox ----------------------------------------------------------------------------- */

static void test_philox_known_answers(void)
{
    /* Random123's kat_vectors, the three "philox4x32 10" lines: counter, key, result. */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d, 0x41c83b0e, 0xa20bc7c6,
         0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09, 0x94fdcceb, 0x5001e420,
         0x24126ea1},
    };
    for (int v = 0; v < 3; v++) {
        uint32_t out[4];
        th_philox4x32_10(kat[v], kat[v] + 4, out);
        for (int w = 0; w < 4; w++) CHECK_INT_EQ(out[w], kat[v][6 + w]);
    }
}

/* Element i of uniform(0, 1) in f64 is the top 53 bits of block offset + i's first 64-bit word. */
static double expected_unit(uint64_t seed, uint64_t counter)
{
    uint32_t ctr[4] = {(uint32_t)counter, (uint32_t)(counter >> 32), 0, 0}, key[2] = {(uint32_t)seed,
                                                                                       (uint32_t)(seed >> 32)};
    uint32_t out[4];
    th_philox4x32_10(ctr, key, out);
    uint64_t w = (uint64_t)out[0] | (uint64_t)out[1] << 32;
    return (double)(w >> 11) / 9007199254740992.0;
}

static void test_values_from_philox(void)
{
    const uint64_t seed = UINT64_C(0x0123456789abcdef);
    th_generator *g = th_generator_new(seed);
    th_generator_state s = {seed, UINT64_C(0xfffffffffffffffe)}; /* the counter carries into its high word */
    th_generator_set_state(g, s);
    th_f64_tensor *u = th_f64_uniform(1, SZ(5), 0.0, 1.0, g);
    CHECK(u != NULL);
    bool ok = true;
    for (int64_t i = 0; u && i < 5; i++) ok &= th_f64_data(u)[i] == expected_unit(seed, s.offset + (uint64_t)i);
    CHECK(ok);
    CHECK(th_generator_get_state(g).offset == UINT64_C(3)); /* wrapped: 2^64 - 2 + 5 */
    th_f64_release(u);
    th_generator_free(g);
}

/* ---- the generator ---------------------------------------------------------------------- */

static void test_generator_state(void)
{
    th_generator *g = th_generator_new(42);
    CHECK(g != NULL);
    CHECK(th_generator_seed(g) == 42);
    CHECK(th_generator_get_state(g).offset == 0);
    th_f64_tensor *a = th_f64_normal(2, SZ(3, 4), 0, 1, g);
    CHECK(th_generator_get_state(g).offset == 12); /* one block per element */
    th_generator_state saved = th_generator_get_state(g);
    th_f64_tensor *b = th_f64_normal(2, SZ(3, 4), 0, 1, g);
    th_generator_set_state(g, saved);
    th_f64_tensor *c = th_f64_normal(2, SZ(3, 4), 0, 1, g);
    CHECK(same_f64(b, c));
    CHECK(!same_f64(a, b));
    th_generator_set_seed(g, 42); /* reseeding starts over */
    CHECK(th_generator_get_state(g).offset == 0);
    th_f64_tensor *d = th_f64_normal(2, SZ(3, 4), 0, 1, g);
    CHECK(same_f64(a, d));
    /* A draw is a window of one stream: 5 then 7 elements equal 12 at once. */
    th_generator_set_seed(g, 7);
    th_f64_tensor *whole = th_f64_uniform(1, SZ(12), -1, 1, g);
    th_generator_set_seed(g, 7);
    th_f64_tensor *p1 = th_f64_uniform(1, SZ(5), -1, 1, g), *p2 = th_f64_uniform(1, SZ(7), -1, 1, g);
    CHECK(memcmp(th_f64_data(whole), th_f64_data(p1), 5 * sizeof(double)) == 0);
    CHECK(memcmp(th_f64_data(whole) + 5, th_f64_data(p2), 7 * sizeof(double)) == 0);
    /* Another seed, other numbers. */
    th_generator *h = th_generator_new(8);
    th_f64_tensor *other = th_f64_uniform(1, SZ(12), -1, 1, h);
    CHECK(!same_f64(whole, other));
    /* The default generator: th_manual_seed makes NULL reproducible. */
    th_manual_seed(123);
    CHECK(th_generator_seed(NULL) == 123 && th_generator_get_state(th_default_generator()).offset == 0);
    th_f64_tensor *n1 = th_f64_exponential(1, SZ(6), 2.0, NULL);
    CHECK(th_generator_get_state(NULL).offset == 6);
    th_manual_seed(123);
    th_f64_tensor *n2 = th_f64_exponential(1, SZ(6), 2.0, NULL);
    CHECK(same_f64(n1, n2));
    th_generator_free(NULL);
    th_generator_free(th_default_generator()); /* a no-op: the default generator is static */
    CHECK(th_generator_seed(th_default_generator()) == 123);
    th_f64_release(a), th_f64_release(b), th_f64_release(c), th_f64_release(d);
    th_f64_release(whole), th_f64_release(p1), th_f64_release(p2), th_f64_release(other);
    th_f64_release(n1), th_f64_release(n2);
    th_generator_free(g);
    th_generator_free(h);
}

/* ---- threads and strides ---------------------------------------------------------------- */

static void test_thread_count_independence(void)
{
    const int64_t n = 300000; /* well past the size at which a draw splits across threads */
    th_f64_tensor *r[2] = {NULL, NULL}, *ex[2] = {NULL, NULL};
    th_i32_tensor *k[2] = {NULL, NULL}, *perm[2] = {NULL, NULL};
    th_f32_tensor *z[2] = {NULL, NULL}, *ext_store[2] = {NULL, NULL};
    th_bool_tensor *bo[2] = {NULL, NULL};
    th_generator_state after[2];
    int runs = 0;
    const int saved = th_get_num_threads();
    for (int run = 0; run < 2; run++) {
        if (!test_set_threads(run + 1)) break;
        runs = run + 1;
        th_generator *g = th_generator_new(99);
        r[run] = th_f64_uniform(1, &n, -3, 5, g);
        k[run] = th_i32_randint(2, SZ(n / 100, 100), -1000, 1000, g);
        z[run] = th_f32_normal(1, &n, 1, 2, g);
        bo[run] = th_bool_bernoulli(1, &n, 0.3, g);
        ex[run] = th_f64_exponential(1, &n, 0.5, g);
        /* in place into a transposed view: drawn into a temporary, split there, then copied */
        ext_store[run] = th_f32_zeros(2, SZ(n / 500, 500));
        th_f32_tensor *ext = th_f32_transpose(ext_store[run], 0, 1);
        CHECK_INT_EQ(th_f32_exponential_inplace(ext, 4.0, g), TH_OK);
        th_f32_release(ext);
        /* sequential, but it must take the same blocks of the stream whatever the count */
        perm[run] = th_i32_randperm(n, g);
        after[run] = th_generator_get_state(g);
        th_generator_free(g);
    }
    th_set_num_threads(saved);
    if (runs == 2) {
        CHECK(same_f64(r[0], r[1]));
        CHECK(memcmp(th_i32_data(k[0]), th_i32_data(k[1]), (size_t)n * 4) == 0);
        CHECK(memcmp(th_f32_data(z[0]), th_f32_data(z[1]), (size_t)n * 4) == 0);
        CHECK(memcmp(th_bool_data(bo[0]), th_bool_data(bo[1]), (size_t)n) == 0);
        CHECK(same_f64(ex[0], ex[1]));
        CHECK(memcmp(th_f32_data(ext_store[0]), th_f32_data(ext_store[1]), (size_t)n * 4) == 0);
        CHECK(perm[0] && perm[1] && memcmp(th_i32_data(perm[0]), th_i32_data(perm[1]), (size_t)n * 4) == 0);
        CHECK(after[0].seed == after[1].seed && after[0].offset == after[1].offset);
    }
    /* the draws are what they claim, whatever the count: positive exponentials, a permutation */
    bool ok = runs > 0 && ex[0] && perm[0];
    for (int64_t i = 0; ok && i < n; i++) ok &= th_f64_data(ex[0])[i] > 0 && th_f32_data(ext_store[0])[i] > 0;
    CHECK(ok);
    if (ok) {
        unsigned char *seen = calloc((size_t)n, 1);
        for (int64_t i = 0; ok && i < n; i++) {
            int32_t v = th_i32_data(perm[0])[i];
            ok = v >= 0 && v < n && !seen[v];
            if (ok) seen[v] = 1;
        }
        free(seen);
        CHECK(ok);
    }
    for (int run = 0; run < runs; run++) {
        th_f64_release(r[run]);
        th_i32_release(k[run]);
        th_f32_release(z[run]);
        th_bool_release(bo[run]);
        th_f64_release(ex[run]);
        th_f32_release(ext_store[run]);
        th_i32_release(perm[run]);
    }
}

static void test_inplace_any_strides(void)
{
    /* A transposed view is filled in its own row-major order: the same values as a contiguous tensor. */
    th_generator *g = th_generator_new(5);
    th_f32_tensor *base = th_f32_zeros(2, SZ(4, 3));
    th_f32_tensor *t = th_f32_transpose(base, 0, 1); /* (3, 4), strides (1, 3) */
    CHECK(th_f32_uniform_inplace(t, 0, 1, g) == TH_OK);
    th_generator_set_seed(g, 5);
    th_f32_tensor *want = th_f32_uniform(2, SZ(3, 4), 0, 1, g);
    bool ok = true;
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 4; j++) ok &= th_f32_get(t, SZ(i, j)) == th_f32_get(want, SZ(i, j));
    CHECK(ok);
    CHECK(th_generator_get_state(g).offset == 12);
    /* A narrowed, strided view of doubles: only its elements change. */
    th_f64_tensor *row = th_f64_zeros(1, SZ(10));
    th_f64_tensor *every_other = th_f64_as_strided(row, 1, SZ(5), SZ(2), 0);
    CHECK(th_f64_normal_inplace(every_other, 10, 1, g) == TH_OK);
    ok = true;
    for (int i = 0; i < 10; i++) ok &= (i % 2 == 0) ? th_f64_data(row)[i] > 3 : th_f64_data(row)[i] == 0;
    CHECK(ok);
    /* 0-d and size-0 tensors. */
    th_f64_tensor *scalar = th_f64_zeros(0, NULL);
    CHECK(th_f64_exponential_inplace(scalar, 1, g) == TH_OK && th_f64_data(scalar)[0] > 0);
    th_f64_tensor *none = th_f64_uniform(2, SZ(0, 3), 0, 1, g);
    CHECK(none && th_f64_numel(none) == 0);
    th_f32_release(base), th_f32_release(t), th_f32_release(want);
    th_f64_release(row), th_f64_release(every_other), th_f64_release(scalar), th_f64_release(none);
    th_generator_free(g);
}

/* ---- distributions ---------------------------------------------------------------------- */

static void test_moments(void)
{
    const int64_t n = 200000;
    th_generator *g = th_generator_new(2024);
    /* Each bound is several standard errors wide; with a fixed seed the outcome never changes. */
    th_f64_tensor *u = th_f64_uniform(1, &n, 2, 6, g);
    double m = mean_of(th_f64_data(u), n), v = var_of(th_f64_data(u), n);
    CHECK(fabs(m - 4.0) < 5 * sqrt(16.0 / 12 / n));
    CHECK(fabs(v - 16.0 / 12) < 0.02);
    th_f64_tensor *z = th_f64_normal(1, &n, -1, 3, g);
    m = mean_of(th_f64_data(z), n), v = var_of(th_f64_data(z), n);
    CHECK(fabs(m + 1.0) < 5 * 3 / sqrt((double)n));
    CHECK(fabs(v - 9.0) < 9.0 * 5 * sqrt(2.0 / n));
    double k3 = 0, k4 = 0; /* normal: skewness 0, kurtosis 3 */
    for (int64_t i = 0; i < n; i++) {
        double d = (th_f64_data(z)[i] - m) / 3;
        k3 += d * d * d;
        k4 += d * d * d * d;
    }
    CHECK(fabs(k3 / n) < 0.05);
    CHECK(fabs(k4 / n - 3.0) < 0.1);
    th_f64_tensor *e = th_f64_exponential(1, &n, 4, g);
    m = mean_of(th_f64_data(e), n), v = var_of(th_f64_data(e), n);
    CHECK(fabs(m - 0.25) < 5 * 0.25 / sqrt((double)n));
    CHECK(fabs(v - 0.0625) < 0.003);
    bool positive = true;
    for (int64_t i = 0; i < n; i++) positive &= th_f64_data(e)[i] >= 0;
    CHECK(positive);
    th_f64_tensor *b = th_f64_bernoulli(1, &n, 0.2, g);
    m = mean_of(th_f64_data(b), n);
    CHECK(fabs(m - 0.2) < 5 * sqrt(0.16 / n));
    bool zero_one = true;
    for (int64_t i = 0; i < n; i++) zero_one &= th_f64_data(b)[i] == 0 || th_f64_data(b)[i] == 1;
    CHECK(zero_one);
    /* bf16 and f16 normals computed in double, rounded once. */
    th_bf16_tensor *hb = th_bf16_normal(1, &n, 0, 1, g);
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += th_bfloat16_to_float(th_bf16_data(hb)[i]);
    CHECK(fabs(s / n) < 0.02);
    th_f64_release(u), th_f64_release(z), th_f64_release(e), th_f64_release(b), th_bf16_release(hb);
    th_generator_free(g);
}

static void test_chi_square(void)
{
    const int64_t n = 160000;
    th_generator *g = th_generator_new(77);
    /* uniform in 16 bins: the 0.999 quantile of chi-square with 15 degrees of freedom is 37.70 */
    th_f64_tensor *u = th_f64_uniform(1, &n, 0, 1, g);
    int64_t counts[16] = {0};
    for (int64_t i = 0; i < n; i++) counts[(int)(th_f64_data(u)[i] * 16)]++;
    double chi = chi_square_uniform(counts, 16, n);
    CHECK(chi < 37.70);
    CHECK(chi > 3.48); /* the 0.001 quantile: too even is suspicious too */
    /* randint over 10 values: 0.999 quantile with 9 degrees of freedom is 27.88 */
    th_i16_tensor *r = th_i16_randint(1, &n, -5, 5, g);
    int64_t rc[10] = {0};
    bool in_range = true;
    for (int64_t i = 0; i < n; i++) {
        int16_t x = th_i16_data(r)[i];
        in_range &= x >= -5 && x < 5;
        if (x >= -5 && x < 5) rc[x + 5]++;
    }
    CHECK(in_range);
    chi = chi_square_uniform(rc, 10, n);
    CHECK(chi < 27.88 && chi > 1.15);
    /* A range that is not a power of two and close to 2^32: the rejection step matters. Check parity and
     * the top half. */
    th_i64_tensor *big = th_i64_randint(1, &n, 0, INT64_C(3000000000), g);
    int64_t odd = 0, top = 0;
    for (int64_t i = 0; i < n; i++) {
        odd += th_i64_data(big)[i] & 1;
        top += th_i64_data(big)[i] >= INT64_C(1500000000);
    }
    CHECK(fabs((double)odd / n - 0.5) < 5 * 0.5 / sqrt((double)n));
    CHECK(fabs((double)top / n - 0.5) < 5 * 0.5 / sqrt((double)n));
    th_f64_release(u), th_i16_release(r), th_i64_release(big);
    th_generator_free(g);
}

static void test_bounds(void)
{
    th_generator *g = th_generator_new(3);
    const int64_t n = 50000;
    /* (1, 1 + 1e-7): every double draw rounds to 1 or to the float above, which is past hi: all become 1. */
    th_f32_tensor *f = th_f32_uniform(1, &n, 1.0, 1.0000001, g);
    bool ok = true;
    for (int64_t i = 0; i < n; i++) ok &= th_f32_data(f)[i] == 1.0f;
    CHECK(ok);
    /* f16 on [0, 1): never 1, even though many draws round up to it. */
    th_f16_tensor *h = th_f16_uniform(1, &n, 0, 1, g);
    ok = true;
    bool near_top = false;
    for (int64_t i = 0; i < n; i++) {
        float x = th_float16_to_float(th_f16_data(h)[i]);
        ok &= x >= 0 && x < 1;
        near_top |= x == 0.99951171875f; /* the largest float16 below 1 */
    }
    CHECK(ok && near_top);
    /* f16 on [-1, 0): the largest value below 0 is the negative least subnormal. */
    th_f16_tensor *hn = th_f16_uniform(1, &n, -1, 0, g);
    ok = true;
    for (int64_t i = 0; i < n; i++) ok &= th_float16_to_float(th_f16_data(hn)[i]) < 0;
    CHECK(ok);
    /* randint covers the whole range of i8 and u8, both ends included. */
    th_i8_tensor *i8 = th_i8_randint(1, &n, -128, 128, g);
    int8_t lo = 0, hi = 0;
    for (int64_t i = 0; i < n; i++) {
        if (th_i8_data(i8)[i] < lo) lo = th_i8_data(i8)[i];
        if (th_i8_data(i8)[i] > hi) hi = th_i8_data(i8)[i];
    }
    CHECK_INT_EQ(lo, -128);
    CHECK_INT_EQ(hi, 127);
    th_u8_tensor *u8 = th_u8_randint(1, &n, 250, 256, g);
    ok = true;
    for (int64_t i = 0; i < n; i++) ok &= th_u8_data(u8)[i] >= 250;
    CHECK(ok);
    /* The widest int64 range: hi - lo is 2^64 - 1. */
    th_i64_tensor *w = th_i64_randint(1, SZ(1000), INT64_MIN, INT64_MAX, g);
    int64_t negative = 0;
    for (int i = 0; i < 1000; i++) negative += th_i64_data(w)[i] < 0;
    CHECK(negative > 400 && negative < 600);
    /* randint into floating dtypes: integers. */
    th_f32_tensor *fi = th_f32_randint(1, SZ(1000), -3, 4, g);
    ok = true;
    for (int i = 0; i < 1000; i++) {
        float x = th_f32_data(fi)[i];
        ok &= x == floorf(x) && x >= -3 && x <= 3;
    }
    CHECK(ok);
    /* bernoulli with p 0 and 1, for bool and u8 and f16. */
    th_bool_tensor *b0 = th_bool_bernoulli(1, SZ(1000), 0.0, g);
    th_u8_tensor *b1 = th_u8_bernoulli(1, SZ(1000), 1.0, g);
    th_f16_tensor *bh = th_f16_zeros(1, SZ(1000));
    CHECK(th_f16_bernoulli_inplace(bh, 1.0, g) == TH_OK);
    ok = true;
    for (int i = 0; i < 1000; i++)
        ok &= !th_bool_data(b0)[i] && th_u8_data(b1)[i] == 1 && th_float16_to_float(th_f16_data(bh)[i]) == 1.0f;
    CHECK(ok);
    /* normal with std 0 is its mean. */
    th_f64_tensor *c = th_f64_normal(1, SZ(10), 2.5, 0, g);
    ok = true;
    for (int i = 0; i < 10; i++) ok &= th_f64_data(c)[i] == 2.5;
    CHECK(ok);
    th_f32_release(f), th_f16_release(h), th_f16_release(hn), th_i8_release(i8), th_u8_release(u8);
    th_i64_release(w), th_f32_release(fi), th_bool_release(b0), th_u8_release(b1), th_f16_release(bh);
    th_f64_release(c);
    th_generator_free(g);
}

/* ---- randperm and multinomial ----------------------------------------------------------- */

static bool is_permutation_i64(const int64_t *p, int64_t n)
{
    unsigned char seen[1000] = {0};
    for (int64_t i = 0; i < n; i++) {
        if (p[i] < 0 || p[i] >= n || seen[p[i]]) return false;
        seen[p[i]] = 1;
    }
    return true;
}

static void test_randperm(void)
{
    th_generator *g = th_generator_new(11);
    th_i64_tensor *p = th_i64_randperm(1000, g);
    CHECK(p && is_permutation_i64(th_i64_data(p), 1000));
    CHECK(th_generator_get_state(g).offset == 999);
    th_i8_tensor *q = th_i8_randperm(128, g); /* 0..127 fits i8 */
    bool ok = q != NULL;
    int64_t as64[128];
    for (int i = 0; ok && i < 128; i++) as64[i] = th_i8_data(q)[i];
    CHECK(ok && is_permutation_i64(as64, 128));
    th_i64_tensor *zero = th_i64_randperm(0, g), *one = th_i64_randperm(1, g);
    CHECK(zero && th_i64_numel(zero) == 0);
    CHECK(one && th_i64_numel(one) == 1 && th_i64_data(one)[0] == 0);
    /* Each of the 6 orders of 3 elements equally often: 0.999 quantile with 5 degrees of freedom is 20.52. */
    int64_t orders[6] = {0};
    const int64_t trials = 30000;
    for (int64_t t = 0; t < trials; t++) {
        th_u8_tensor *r = th_u8_randperm(3, g);
        const uint8_t *d = th_u8_data(r);
        orders[d[0] * 2 + (d[1] > d[2])]++;
        th_u8_release(r);
    }
    CHECK(chi_square_uniform(orders, 6, trials) < 20.52);
    CHECK_NULL(th_i64_randperm(-1, g), TH_ERR_INVALID, "th_i64_randperm", "n -1 is negative");
    CHECK_NULL(th_i8_randperm(129, g), TH_ERR_RANGE, "th_i8_randperm", "do not fit the dtype (max 127)");
    th_i64_release(p), th_i8_release(q), th_i64_release(zero), th_i64_release(one);
    th_generator_free(g);
}

static void test_multinomial(void)
{
    th_generator *g = th_generator_new(13);
    /* With replacement, frequencies follow the weights (unnormalised); 0.999 quantile, 3 dof: 16.27. */
    th_f64_tensor *w = th_f64_from_blob((double[]){1, 0, 2, 3, 4}, 1, SZ(5), NULL, NULL, NULL);
    const int64_t n = 100000;
    th_i64_tensor *s = th_f64_multinomial(w, n, true, g);
    CHECK(s && th_i64_ndim(s) == 1 && th_i64_numel(s) == n);
    int64_t counts[5] = {0};
    bool ok = true;
    for (int64_t i = 0; s && i < n; i++) {
        int64_t c = th_i64_data(s)[i];
        ok &= c >= 0 && c < 5;
        if (c >= 0 && c < 5) counts[c]++;
    }
    CHECK(ok);
    CHECK_INT_EQ(counts[1], 0);
    double chi = 0, weight[5] = {1, 0, 2, 3, 4};
    for (int c = 0; c < 5; c++) {
        if (weight[c] == 0) continue;
        double expect = n * weight[c] / 10;
        chi += (counts[c] - expect) * (counts[c] - expect) / expect;
    }
    CHECK(chi < 16.27);
    CHECK(th_generator_get_state(g).offset == (uint64_t)n);
    /* Without replacement: distinct, never the zero category; all four nonzero ones when asked for 4. */
    th_i64_tensor *all = th_f64_multinomial(w, 4, false, g);
    bool seen[5] = {false};
    ok = all != NULL;
    for (int i = 0; ok && i < 4; i++) {
        int64_t c = th_i64_data(all)[i];
        ok &= c >= 0 && c < 5 && c != 1 && !seen[c];
        if (ok) seen[c] = true;
    }
    CHECK(ok);
    CHECK(th_generator_get_state(g).offset == (uint64_t)n + 5); /* one block per category */
    /* The first draw without replacement follows the weights too, and the second is never the first: check
     * P(first = 4) = 0.4 and P(second = 4 | first = 3) = 4 / 7. */
    int64_t first4 = 0, first3 = 0, then4 = 0;
    const int64_t trials = 20000;
    for (int64_t t = 0; t < trials; t++) {
        th_i64_tensor *two = th_f64_multinomial(w, 2, false, g);
        int64_t a = th_i64_data(two)[0], b = th_i64_data(two)[1];
        first4 += a == 4;
        if (a == 3) {
            first3++;
            then4 += b == 4;
        }
        th_i64_release(two);
    }
    CHECK(fabs((double)first4 / trials - 0.4) < 5 * sqrt(0.24 / trials));
    CHECK(fabs((double)then4 / first3 - 4.0 / 7) < 5 * sqrt(0.25 / first3));
    /* 2-d: one distribution per row, from a transposed f32 tensor. */
    th_f32_tensor *pt = th_f32_from_blob((float[]){1, 0, 0, 5, 1, 0}, 2, SZ(3, 2), NULL, NULL, NULL);
    th_f32_tensor *p2 = th_f32_transpose(pt, 0, 1); /* rows [1, 0, 1] and [0, 5, 0] */
    th_i64_tensor *s2 = th_f32_multinomial(p2, 6, true, g);
    CHECK(s2 && th_i64_ndim(s2) == 2 && th_i64_sizes(s2)[0] == 2 && th_i64_sizes(s2)[1] == 6);
    ok = s2 != NULL;
    for (int j = 0; ok && j < 6; j++) {
        int64_t a = th_i64_get(s2, SZ(0, j)), b = th_i64_get(s2, SZ(1, j));
        ok &= (a == 0 || a == 2) && b == 1;
    }
    CHECK(ok);
    /* Thread counts do not matter (many rows). */
    th_f64_tensor *many = th_f64_ones(2, SZ(4000, 50));
    th_i64_tensor *m[2] = {NULL, NULL};
    const int saved = th_get_num_threads();
    th_set_num_threads(1);
    th_generator_set_seed(g, 1);
    m[0] = th_f64_multinomial(many, 20, false, g);
    if (test_set_threads(2)) {
        th_generator_set_seed(g, 1);
        m[1] = th_f64_multinomial(many, 20, false, g);
        CHECK(m[0] && m[1] && memcmp(th_i64_data(m[0]), th_i64_data(m[1]), 4000 * 20 * 8) == 0);
    }
    th_set_num_threads(saved);
    /* Errors; the generator does not move on a refused call. */
    th_generator_state before = th_generator_get_state(g);
    CHECK_NULL(th_f64_multinomial(NULL, 1, true, g), TH_ERR_INVALID, "th_f64_multinomial", "NULL probs");
    CHECK_NULL(th_f64_multinomial(w, -1, true, g), TH_ERR_INVALID, "th_f64_multinomial", "num_samples -1");
    CHECK_NULL(th_f64_multinomial(w, 5, false, g), TH_ERR_RANGE, "th_f64_multinomial",
               "more than the 4 categories of nonzero probability");
    th_f64_tensor *bad = th_f64_from_blob((double[]){1, -0.5}, 1, SZ(2), NULL, NULL, NULL);
    CHECK_NULL(th_f64_multinomial(bad, 1, true, g), TH_ERR_INVALID, "th_f64_multinomial", "probability -0.5");
    th_f64_tensor *zeros = th_f64_zeros(2, SZ(2, 3));
    CHECK_NULL(th_f64_multinomial(zeros, 1, true, g), TH_ERR_INVALID, "th_f64_multinomial", "row 0 sum to 0");
    th_f64_tensor *cube = th_f64_ones(3, SZ(1, 1, 2)), *empty = th_f64_ones(1, SZ(0));
    CHECK_NULL(th_f64_multinomial(cube, 1, true, g), TH_ERR_SHAPE, "th_f64_multinomial", "shape (1, 1, 2)");
    CHECK_NULL(th_f64_multinomial(empty, 1, true, g), TH_ERR_SHAPE, "th_f64_multinomial", "at least one category");
    CHECK(memcmp(&before, &(th_generator_state){th_generator_get_state(g).seed, th_generator_get_state(g).offset},
                 sizeof before) == 0);
    th_f64_release(w), th_i64_release(s), th_i64_release(all), th_f32_release(pt), th_f32_release(p2);
    th_i64_release(s2), th_f64_release(many), th_i64_release(m[0]), th_i64_release(m[1]);
    th_f64_release(bad), th_f64_release(zeros), th_f64_release(cube), th_f64_release(empty);
    th_generator_free(g);
}

/* ---- errors ----------------------------------------------------------------------------- */

static void test_errors(void)
{
    th_generator *g = th_generator_new(1);
    th_generator_state before = th_generator_get_state(g);
    CHECK_NULL(th_f32_uniform(1, SZ(3), 1, 1, g), TH_ERR_INVALID, "th_f32_uniform",
               "[1, 1) must be finite with lo < hi");
    CHECK_NULL(th_f64_uniform(1, SZ(3), 0, INFINITY, g), TH_ERR_INVALID, "th_f64_uniform", "lo < hi");
    CHECK_NULL(th_f64_uniform(1, SZ(3), NAN, 1, g), TH_ERR_INVALID, "th_f64_uniform", "lo < hi");
    CHECK_NULL(th_f64_normal(1, SZ(3), 0, -1, g), TH_ERR_INVALID, "th_f64_normal", "std -1");
    CHECK_NULL(th_f16_normal(1, SZ(3), NAN, 1, g), TH_ERR_INVALID, "th_f16_normal", "must be finite");
    CHECK_NULL(th_f64_exponential(1, SZ(3), 0, g), TH_ERR_INVALID, "th_f64_exponential", "lambda 0 must be");
    CHECK_NULL(th_bool_bernoulli(1, SZ(3), 1.5, g), TH_ERR_INVALID, "th_bool_bernoulli", "probability 1.5 is outside");
    CHECK_NULL(th_i32_bernoulli(1, SZ(3), NAN, g), TH_ERR_INVALID, "th_i32_bernoulli", "outside [0, 1]");
    CHECK_NULL(th_i32_randint(1, SZ(3), 5, 5, g), TH_ERR_INVALID, "th_i32_randint", "[5, 5) are empty");
    CHECK_NULL(th_u8_randint(1, SZ(3), -1, 10, g), TH_ERR_RANGE, "th_u8_randint",
               "do not fit the dtype's range [0, 255]");
    CHECK_NULL(th_i16_randint(1, SZ(3), 0, 40000, g), TH_ERR_RANGE, "th_i16_randint", "[-32768, 32767]");
    CHECK_NULL(th_f64_uniform(1, SZ(-2), 0, 1, g), TH_ERR_INVALID, "th_f64_uniform", "negative size -2");
    th_f64_tensor *t = th_f64_zeros(1, SZ(4));
    CHECK_FAILS(th_f64_uniform_inplace(NULL, 0, 1, g), TH_ERR_INVALID, "th_f64_uniform_inplace", "NULL tensor");
    CHECK_FAILS(th_f64_uniform_inplace(t, 2, 1, g), TH_ERR_INVALID, "th_f64_uniform_inplace", "lo < hi");
    CHECK_FAILS(th_f64_normal_inplace(t, 0, -2, g), TH_ERR_INVALID, "th_f64_normal_inplace", "std -2");
    CHECK_FAILS(th_f64_exponential_inplace(t, -1, g), TH_ERR_INVALID, "th_f64_exponential_inplace", "lambda -1");
    CHECK_FAILS(th_f64_bernoulli_inplace(t, -0.1, g), TH_ERR_INVALID, "th_f64_bernoulli_inplace", "probability -0.1");
    CHECK_FAILS(th_f64_randint_inplace(t, 3, 2, g), TH_ERR_INVALID, "th_f64_randint_inplace", "[3, 2) are empty");
    /* An expanded tensor has several elements at one address. */
    th_f64_tensor *one = th_f64_zeros(1, SZ(1)), *wide = th_f64_expand(one, 1, SZ(5));
    CHECK_FAILS(th_f64_uniform_inplace(wide, 0, 1, g), TH_ERR_INVALID, "th_f64_uniform_inplace", "share an address");
    /* Read-only memory. */
    th_f64_tensor *ro = th_f64_zeros(1, SZ(3));
    th_storage_make_read_only(th_f64_storage(ro));
    CHECK_FAILS(th_f64_normal_inplace(ro, 0, 1, g), TH_ERR_READ_ONLY, "th_f64_normal_inplace", "read-only");
    CHECK(th_f64_data(ro)[0] == 0);
    /* None of the refused calls moved the generator. */
    th_generator_state after = th_generator_get_state(g);
    CHECK(after.seed == before.seed && after.offset == before.offset);
    /* Out of memory: the first allocation fails; nothing leaks (test_end checks). */
    th_counting_allocator_fail_after(check_counter, 1);
    CHECK_NULL(th_f64_uniform(1, SZ(8), 0, 1, g), TH_ERR_NOMEM, "th_f64_uniform", "");
    CHECK_NULL(th_i64_randperm(3, g), TH_ERR_NOMEM, "th_i64_randperm", "");
    th_counting_allocator_fail_after(check_counter, 0);
    th_f64_release(t), th_f64_release(one), th_f64_release(wide), th_f64_release(ro);
    th_generator_free(g);
}

static void test_device(void)
{
    double mem[6] = {1, 1, 1, 1, 1, 1};
    th_f64_tensor *d = device_tensor(mem, 2, 3);
    CHECK_FAILS(th_f64_uniform_inplace(d, 0, 1, NULL), TH_ERR_DEVICE, "th_f64_uniform_inplace", "device type 2");
    CHECK_NULL(th_f64_multinomial(d, 1, true, NULL), TH_ERR_DEVICE, "th_f64_multinomial", "device type 2");
    th_set_default_allocator(&fake_device, NULL);
    CHECK_NULL(th_f64_normal(1, SZ(3), 0, 1, NULL), TH_ERR_DEVICE, "th_f64_normal", "device type 2");
    CHECK_NULL(th_i32_randperm(3, NULL), TH_ERR_DEVICE, "th_i32_randperm", "device type 2");
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
    th_f64_release(d);
}

int main(void)
{
    test_begin();
    test_philox_known_answers();
    test_values_from_philox();
    test_generator_state();
    test_thread_count_independence();
    test_inplace_any_strides();
    test_moments();
    test_chi_square();
    test_bounds();
    test_randperm();
    test_multinomial();
    test_errors();
    test_device();
    return test_end("test_random");
}
