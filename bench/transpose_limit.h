/* bench/transpose_limit.h: the limit kernels of bench/transpose_limit.c. */
#include <stdint.h>
#define LIMIT_DECL(name, T) void name(T *restrict dst, const T *restrict src, int64_t batch, int64_t rows, int64_t cols, int threads);
LIMIT_DECL(limit_transpose2_t16, uint16_t)
LIMIT_DECL(limit_transpose4_t16, float)
LIMIT_DECL(limit_transpose8_t16, double)
LIMIT_DECL(limit_transpose2_t32, uint16_t)
LIMIT_DECL(limit_transpose4_t32, float)
LIMIT_DECL(limit_transpose8_t32, double)
#undef LIMIT_DECL
void limit_transpose2_regs(uint16_t *restrict dst, const uint16_t *restrict src, int64_t batch, int64_t rows, int64_t cols, int threads);
void limit_transpose4_regs(float *restrict dst, const float *restrict src, int64_t batch, int64_t rows, int64_t cols, int threads);
void limit_transpose8_regs(double *restrict dst, const double *restrict src, int64_t batch, int64_t rows, int64_t cols, int threads);
void limit_transpose2_regs128(uint16_t *restrict dst, const uint16_t *restrict src, int64_t batch, int64_t rows, int64_t cols, int threads);
void limit_transpose4_regs128(float *restrict dst, const float *restrict src, int64_t batch, int64_t rows, int64_t cols, int threads);
void limit_transpose8_regs128(double *restrict dst, const double *restrict src, int64_t batch, int64_t rows, int64_t cols, int threads);
