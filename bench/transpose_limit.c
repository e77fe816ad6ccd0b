/* bench/transpose_limit.c: the limit of transposed copies, built by transpose_run.sh with -O3 -march=native
 * (the best SIMD level this CPU has; transpose_run.sh checks the object with objdump): the textbook cache-
 * blocked transpose, tiles of TILE x TILE with the inner loop along dst, written as plain C loops that the
 * compiler vectorises, for 2-, 4- and 8-byte elements, split over tile rows across OpenMP threads. A batch of
 * such transposes is the NCHW <-> NHWC permutation. */
#include <stddef.h>
#include <stdint.h>

#include "transpose_limit.h"

/* dst (cols x rows, row stride rows) = transpose of src (rows x cols, row stride cols), batch times. */
#define LIMIT_TRANSPOSE(name, T, TILE)                                                                        \
    void name(T *restrict dst, const T *restrict src, int64_t batch, int64_t rows, int64_t cols, int threads) \
    {                                                                                                         \
        const int64_t tr = (cols + TILE - 1) / TILE, work = batch * tr;                                       \
        _Pragma("omp parallel for num_threads(threads) schedule(static)")                                   \
        for (int64_t w = 0; w < work; w++) {                                                                  \
            const int64_t b = w / tr, c0 = w % tr * TILE, ce = c0 + TILE < cols ? c0 + TILE : cols;           \
            T *restrict d = dst + b * rows * cols;                                                            \
            const T *restrict s = src + b * rows * cols;                                                      \
            for (int64_t r0 = 0; r0 < rows; r0 += TILE) {                                                     \
                const int64_t re = r0 + TILE < rows ? r0 + TILE : rows;                                       \
                for (int64_t c = c0; c < ce; c++)                                                             \
                    for (int64_t r = r0; r < re; r++) d[c * rows + r] = s[r * cols + c];                      \
            }                                                                                                 \
        }                                                                                                     \
    }

LIMIT_TRANSPOSE(limit_transpose2_t16, uint16_t, 16)
LIMIT_TRANSPOSE(limit_transpose4_t16, float, 16)
LIMIT_TRANSPOSE(limit_transpose8_t16, double, 16)
LIMIT_TRANSPOSE(limit_transpose2_t32, uint16_t, 32)
LIMIT_TRANSPOSE(limit_transpose4_t32, float, 32)
LIMIT_TRANSPOSE(limit_transpose8_t32, double, 32)

/* The same tiles with each 8x8 (4-byte), 4x4 (8-byte) or 8x8 (2-byte) block transposed in registers, written
 * with the AVX2 and SSE2 intrinsics (a different register sequence from tensor.h's: the textbook shuffles),
 * in 32x32 and in 128x128 tiles; sizes that are multiples of 8 only, which every workload of
 * transpose_bench.c has. */
#include <immintrin.h>

static void block4(float *d, int64_t ld, const float *s, int64_t ls)
{
    __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + ls), r2 = _mm256_loadu_ps(s + 2 * ls),
           r3 = _mm256_loadu_ps(s + 3 * ls), r4 = _mm256_loadu_ps(s + 4 * ls), r5 = _mm256_loadu_ps(s + 5 * ls),
           r6 = _mm256_loadu_ps(s + 6 * ls), r7 = _mm256_loadu_ps(s + 7 * ls);
    __m256 a0 = _mm256_permute2f128_ps(r0, r4, 0x20), a4 = _mm256_permute2f128_ps(r0, r4, 0x31);
    __m256 a1 = _mm256_permute2f128_ps(r1, r5, 0x20), a5 = _mm256_permute2f128_ps(r1, r5, 0x31);
    __m256 a2 = _mm256_permute2f128_ps(r2, r6, 0x20), a6 = _mm256_permute2f128_ps(r2, r6, 0x31);
    __m256 a3 = _mm256_permute2f128_ps(r3, r7, 0x20), a7 = _mm256_permute2f128_ps(r3, r7, 0x31);
    __m256 b0 = _mm256_unpacklo_ps(a0, a1), b1 = _mm256_unpackhi_ps(a0, a1);
    __m256 b2 = _mm256_unpacklo_ps(a2, a3), b3 = _mm256_unpackhi_ps(a2, a3);
    __m256 b4 = _mm256_unpacklo_ps(a4, a5), b5 = _mm256_unpackhi_ps(a4, a5);
    __m256 b6 = _mm256_unpacklo_ps(a6, a7), b7 = _mm256_unpackhi_ps(a6, a7);
    _mm256_storeu_ps(d, _mm256_shuffle_ps(b0, b2, 0x44));
    _mm256_storeu_ps(d + ld, _mm256_shuffle_ps(b0, b2, 0xee));
    _mm256_storeu_ps(d + 2 * ld, _mm256_shuffle_ps(b1, b3, 0x44));
    _mm256_storeu_ps(d + 3 * ld, _mm256_shuffle_ps(b1, b3, 0xee));
    _mm256_storeu_ps(d + 4 * ld, _mm256_shuffle_ps(b4, b6, 0x44));
    _mm256_storeu_ps(d + 5 * ld, _mm256_shuffle_ps(b4, b6, 0xee));
    _mm256_storeu_ps(d + 6 * ld, _mm256_shuffle_ps(b5, b7, 0x44));
    _mm256_storeu_ps(d + 7 * ld, _mm256_shuffle_ps(b5, b7, 0xee));
}

static void block8(double *d, int64_t ld, const double *s, int64_t ls)
{
    __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + ls), r2 = _mm256_loadu_pd(s + 2 * ls),
            r3 = _mm256_loadu_pd(s + 3 * ls);
    __m256d a0 = _mm256_permute2f128_pd(r0, r2, 0x20), a2 = _mm256_permute2f128_pd(r0, r2, 0x31);
    __m256d a1 = _mm256_permute2f128_pd(r1, r3, 0x20), a3 = _mm256_permute2f128_pd(r1, r3, 0x31);
    _mm256_storeu_pd(d, _mm256_unpacklo_pd(a0, a1));
    _mm256_storeu_pd(d + ld, _mm256_unpackhi_pd(a0, a1));
    _mm256_storeu_pd(d + 2 * ld, _mm256_unpacklo_pd(a2, a3));
    _mm256_storeu_pd(d + 3 * ld, _mm256_unpackhi_pd(a2, a3));
}

static void block2(uint16_t *d, int64_t ld, const uint16_t *s, int64_t ls)
{
    __m128i r[8];
    for (int k = 0; k < 8; k++) r[k] = _mm_loadu_si128((const __m128i *)(s + k * ls));
    __m128i a0 = _mm_unpacklo_epi16(r[0], r[1]), a1 = _mm_unpackhi_epi16(r[0], r[1]);
    __m128i a2 = _mm_unpacklo_epi16(r[2], r[3]), a3 = _mm_unpackhi_epi16(r[2], r[3]);
    __m128i a4 = _mm_unpacklo_epi16(r[4], r[5]), a5 = _mm_unpackhi_epi16(r[4], r[5]);
    __m128i a6 = _mm_unpacklo_epi16(r[6], r[7]), a7 = _mm_unpackhi_epi16(r[6], r[7]);
    __m128i b0 = _mm_unpacklo_epi32(a0, a2), b1 = _mm_unpackhi_epi32(a0, a2);
    __m128i b2 = _mm_unpacklo_epi32(a1, a3), b3 = _mm_unpackhi_epi32(a1, a3);
    __m128i b4 = _mm_unpacklo_epi32(a4, a6), b5 = _mm_unpackhi_epi32(a4, a6);
    __m128i b6 = _mm_unpacklo_epi32(a5, a7), b7 = _mm_unpackhi_epi32(a5, a7);
    _mm_storeu_si128((__m128i *)d, _mm_unpacklo_epi64(b0, b4));
    _mm_storeu_si128((__m128i *)(d + ld), _mm_unpackhi_epi64(b0, b4));
    _mm_storeu_si128((__m128i *)(d + 2 * ld), _mm_unpacklo_epi64(b1, b5));
    _mm_storeu_si128((__m128i *)(d + 3 * ld), _mm_unpackhi_epi64(b1, b5));
    _mm_storeu_si128((__m128i *)(d + 4 * ld), _mm_unpacklo_epi64(b2, b6));
    _mm_storeu_si128((__m128i *)(d + 5 * ld), _mm_unpackhi_epi64(b2, b6));
    _mm_storeu_si128((__m128i *)(d + 6 * ld), _mm_unpacklo_epi64(b3, b7));
    _mm_storeu_si128((__m128i *)(d + 7 * ld), _mm_unpackhi_epi64(b3, b7));
}

#define LIMIT_BLOCKED(name, T, B, block, TILE)                                                               \
    void name(T *restrict dst, const T *restrict src, int64_t batch, int64_t rows, int64_t cols, int threads) \
    {                                                                                                         \
        const int64_t tr = (cols + TILE - 1) / TILE, work = batch * tr;                                       \
        _Pragma("omp parallel for num_threads(threads) schedule(static)")                                   \
        for (int64_t w = 0; w < work; w++) {                                                                  \
            const int64_t b = w / tr, c0 = w % tr * TILE, ce = c0 + TILE < cols ? c0 + TILE : cols;           \
            T *d = dst + b * rows * cols;                                                                     \
            const T *s = src + b * rows * cols;                                                               \
            for (int64_t r0 = 0; r0 < rows; r0 += TILE) {                                                     \
                const int64_t re = r0 + TILE < rows ? r0 + TILE : rows;                                       \
                for (int64_t c = c0; c < ce; c += B)                                                          \
                    for (int64_t r = r0; r < re; r += B) block(d + c * rows + r, rows, s + r * cols + c, cols); \
            }                                                                                                 \
        }                                                                                                     \
    }

LIMIT_BLOCKED(limit_transpose2_regs, uint16_t, 8, block2, 32)
LIMIT_BLOCKED(limit_transpose4_regs, float, 8, block4, 32)
LIMIT_BLOCKED(limit_transpose8_regs, double, 4, block8, 32)
LIMIT_BLOCKED(limit_transpose2_regs128, uint16_t, 8, block2, 128)
LIMIT_BLOCKED(limit_transpose4_regs128, float, 8, block4, 128)
LIMIT_BLOCKED(limit_transpose8_regs128, double, 4, block8, 128)
