/* ops/philox.h: the generator's arithmetic and the elementwise samplers' transforms, written once in plain C
 * for the host and a device. tensor.h's implementation includes it (ops/random_erased.h), and so does the CUDA
 * companion's kernel file (cuda/fill_elems.h): both compute element i of a draw with this text, so a seed gives
 * the same numbers wherever the tensor lives. Needs <stdint.h>, <stdbool.h> and <math.h> only.
 *
 * Element i of a draw depends only on (key, base + i): a block of Philox4x32-10 (Salmon, Moraes, Dror and
 * Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011) under the 64-bit key (the seed) with the 64-bit
 * counter base + i, and for rejection sampling the retry number in the counter's third word. */
#ifndef TH_OPS_PHILOX_H
#define TH_OPS_PHILOX_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* unused: a translation unit that draws with one sampler leaves the others unused. */
#if defined(__CUDACC__)
#define TH__RAND_FN static inline __host__ __device__ __attribute__((unused))
#elif defined(__GNUC__)
#define TH__RAND_FN static inline __attribute__((unused))
#else
#define TH__RAND_FN static inline
#endif

/* Where a draw's blocks come from: the key (the seed's low and high words) and the first counter. */
typedef struct th__philox_stream {
    uint32_t key[2];
    uint64_t base;
} th__philox_stream;

TH__RAND_FN th__philox_stream th__philox_stream_of(uint64_t seed, uint64_t base)
{
    th__philox_stream s;
    s.key[0] = (uint32_t)seed;
    s.key[1] = (uint32_t)(seed >> 32);
    s.base = base;
    return s;
}

TH__RAND_FN void th__mulhilo32(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
    uint64_t p = (uint64_t)a * b;
    *hi = (uint32_t)(p >> 32);
    *lo = (uint32_t)p;
}

/* Inline, so a sampler's loop over elements keeps the rounds in registers (and the compiler may vectorise). */
TH__RAND_FN void th__philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4])
{
    uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        if (round > 0) { /* the key schedule: Weyl steps of the golden ratio and sqrt(3) - 1 */
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        uint32_t hi0, lo0, hi1, lo1;
        th__mulhilo32(0xD2511F53u, c0, &hi0, &lo0);
        th__mulhilo32(0xCD9E8D57u, c2, &hi1, &lo1);
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* Block i of a draw as two 64-bit words. retry numbers the extra blocks one element may need (rejection
 * sampling); it goes in the counter's third word, so element i's numbers still depend only on (key, i). */
TH__RAND_FN void th__philox_words(const th__philox_stream *s, uint64_t i, uint32_t retry, uint64_t w[2])
{
    uint64_t c = s->base + i;
    uint32_t ctr[4] = {(uint32_t)c, (uint32_t)(c >> 32), retry, 0};
    uint32_t out[4];
    th__philox4x32_10(ctr, s->key, out);
    w[0] = (uint64_t)out[0] | (uint64_t)out[1] << 32;
    w[1] = (uint64_t)out[2] | (uint64_t)out[3] << 32;
}

/* The top 53 bits as a double in [0, 1). */
TH__RAND_FN double th__unit_open1(uint64_t w) { return (double)(w >> 11) * 0x1p-53; }
/* The same in (0, 1], for logarithms. */
TH__RAND_FN double th__unit_open0(uint64_t w) { return (double)((w >> 11) + 1) * 0x1p-53; }

/* The draws each element makes from its block, in double. Only basic operations, each rounded once (a device
 * must not contract them: cuda/ builds its kernels with --fmad=false), except where a libm function is named. */
TH__RAND_FN double th__rand_uniform(const th__philox_stream *s, uint64_t i, double lo, double hi)
{
    uint64_t w[2];
    th__philox_words(s, i, 0, w);
    double u = th__unit_open1(w[0]);
    double x = lo * (1.0 - u) + hi * u; /* not lo + (hi - lo) * u: hi - lo may overflow */
    return x < lo ? lo : x;              /* two roundings can land one ulp below lo */
}

/* Box-Muller: two uniforms of one block give one standard normal (the cosine branch). log and cos are the
 * machine's libm: the one place a device's numbers can differ from the host's (docs/cuda.md says by how much). */
TH__RAND_FN double th__rand_normal(const th__philox_stream *s, uint64_t i, double mean, double std)
{
    uint64_t w[2];
    th__philox_words(s, i, 0, w);
    double r = sqrt(-2.0 * log(th__unit_open0(w[0])));
    return mean + std * r * cos(6.283185307179586476925286766559 * th__unit_open1(w[1]));
}

TH__RAND_FN double th__rand_exponential(const th__philox_stream *s, uint64_t i, double lambda)
{
    uint64_t w[2];
    th__philox_words(s, i, 0, w);
    return -log(th__unit_open0(w[0])) / lambda;
}

TH__RAND_FN bool th__rand_bernoulli(const th__philox_stream *s, uint64_t i, double p)
{
    uint64_t w[2];
    th__philox_words(s, i, 0, w);
    return th__unit_open1(w[0]) < p;
}

/* The high and low 64 bits of a * b. */
TH__RAND_FN void th__mul64(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    *lo = (mid << 32) | (uint32_t)p00;
}

/* A uniform integer in [0, range) (range 0 means 2^64), without bias: Lemire's multiply-and-reject. A
 * rejected word is replaced by the next word of the element's block, then by further blocks (retry 1, 2,
 * ...); each rejection has probability below range / 2^64. The threshold 2^64 mod range is below range, so
 * a low half of at least range is accepted without it: the 64-bit remainder (dear on a GPU) is computed only
 * for the rare low halves below range, with the same results. */
TH__RAND_FN uint64_t th__rand_below(const th__philox_stream *s, uint64_t i, uint64_t range)
{
    uint64_t w[2];
    th__philox_words(s, i, 0, w);
    if (range == 0) return w[0];
    uint64_t threshold = 0;
    bool have_threshold = false;
    for (uint32_t retry = 0;; retry++) {
        if (retry > 0) th__philox_words(s, i, retry, w);
        for (int k = 0; k < 2; k++) {
            uint64_t hi, lo;
            th__mul64(w[k], range, &hi, &lo);
            if (lo >= range) return hi;
            if (!have_threshold) {
                threshold = (0u - range) % range;
                have_threshold = true;
            }
            if (lo >= threshold) return hi;
        }
    }
}

#endif /* TH_OPS_PHILOX_H */
