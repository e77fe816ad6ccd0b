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
