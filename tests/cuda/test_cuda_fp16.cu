// tests/cuda/test_cuda_fp16.cu: CUDA's own float16 and bfloat16 conversions (cuda_fp16.h, cuda_bf16.h, their
// host side) against the library's, bit for bit: every one of the 65,536 halves and bfloat16s widened to
// float, and a million floats (every exponent, random fractions, the rounding ties, infinities) narrowed.
// NaNs need only stay NaN: CUDA and the CPU choose different payloads. Host code only: runs without a GPU.
#include "tensor.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstring>

static int failures;
static long checks;

static unsigned short bits_of(__half h)
{
    __half_raw r = h;
    return r.x;
}

static unsigned short bits_of(__nv_bfloat16 h)
{
    __nv_bfloat16_raw r = h;
    return r.x;
}

static void expect_float(float want, float got, const char *what, unsigned v)
{
    checks++;
    if (std::memcmp(&want, &got, 4) == 0 || (std::isnan(want) && std::isnan(got))) return;
    if (failures++ < 5) std::printf("FAIL %s 0x%x: library %a, CUDA %a\n", what, v, (double)want, (double)got);
}

static void expect_bits(unsigned short want, unsigned short got, bool nan, const char *what, float f)
{
    checks++;
    if (want == got || nan) return;
    if (failures++ < 5) std::printf("FAIL %s %a: library 0x%04x, CUDA 0x%04x\n", what, (double)f, want, got);
}

int main()
{
    for (unsigned h = 0; h < 65536; h++) {
        __half_raw hr;
        hr.x = (unsigned short)h;
        __nv_bfloat16_raw br;
        br.x = (unsigned short)h;
        th_float16 x;
        x.bits = (uint16_t)h;
        th_bfloat16 y;
        y.bits = (uint16_t)h;
        expect_float(th_float16_to_float(x), __half2float(__half(hr)), "half->float", h);
        expect_float(th_bfloat16_to_float(y), __bfloat162float(__nv_bfloat16(br)), "bfloat16->float", h);
    }
    unsigned long long s = 0x853c49e6748fea9bULL;
    for (int i = 0; i < 1000000; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned u = (unsigned)(s >> 32);
        if (i % 4 == 1) u = (u & 0xffffe000u) | 0x1000u; // a half's rounding tie
        if (i % 4 == 2) u = (u & 0xffff0000u) | 0x8000u; // a bfloat16's rounding tie
        float f;
        std::memcpy(&f, &u, 4);
        bool nan = std::isnan(f);
        expect_bits(th_float16_from_float(f).bits, bits_of(__float2half_rn(f)), nan, "float->half", f);
        expect_bits(th_bfloat16_from_float(f).bits, bits_of(__float2bfloat16_rn(f)), nan, "float->bfloat16", f);
    }
    std::printf("test_cuda_fp16: %ld checks against cuda_fp16.h and cuda_bf16.h, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
