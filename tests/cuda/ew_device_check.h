/* tests/cuda/ew_device_check.h: what the generated test_cuda_ew_device.c (gen_ew_device.py) needs: inputs of
 * any dtype, the scalar of each dtype, and the comparison of a device result with the CPU's. */
#include "tensor.h"
#include "th_cuda.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;

static void fail_call(const char *what)
{
    failures++;
    printf("FAIL %s: %s\n", what, th_last_error());
}

/* which 0: a of a unary op, 1: a of a binary op (both 4 x 3, used transposed); 2: b (4), broadcast against
 * a's rows; 3: a condition (3 x 4). Values of every sign and fractions for a; b is positive and whole from 1
 * to 4 with a fraction for floats, so an integer divisor or exponent is never refused on the CPU. */
/* A tensor of the given shape holding the values of `which` (1 and 0: signed fractions; 2: positive, no zero;
 * 3: ones and zeros) in the dtype. */
static th_tensor *make_values(th_dtype dtype, int which, int ndim, const int64_t *sizes)
{
    th_f64_tensor *src = th_f64_empty(ndim, sizes);
    const int64_t n = th_f64_numel(src);
    double *v = th_f64_data(src);
    for (int64_t i = 0; i < n; i++)
        v[i] = which == 3   ? (double)(i % 3 == 0)
               : which == 2 ? (double)(i % 4 + 1) + (i % 2 ? 0.25 : 0.0)
                            : (double)(i * 7 % 25 - 12) * 0.37;
    th_tensor *out = NULL;
    switch (dtype) {
#define TH__EWC_MAKE(sfx, ENUM, ...)                                                                              \
    case TH_##ENUM: out = th_##sfx##_base(th_##sfx##_empty(th_f64_ndim(src), th_f64_sizes(src))); break;
        TH_FOREACH_DTYPE(TH__EWC_MAKE)
#undef TH__EWC_MAKE
    default: break;
    }
    if (!out || th_tensor_copy(out, th_f64_base(src)) != TH_OK) fail_call("make_values");
    th_f64_release(src);
    return out;
}

/* The inputs of the strided cases: 4 x 3 (which 0 and 1, transposed by the test), 4 (2: broadcast along the
 * rows), 3 x 4 (3: where's condition). */
static th_tensor *make_input(th_dtype dtype, int which)
{
    if (which == 2) return make_values(dtype, which, 1, (const int64_t[]){4});
    return make_values(dtype, which, 2, which == 3 ? (const int64_t[]){3, 4} : (const int64_t[]){4, 3});
}

/* The inputs of the contiguous cases: 37 elements in a line, a count that no vector width of the device's
 * contiguous kernel (2, 4, 8 or 16 elements) divides, so its last elements take the kernel's tail path. */
static th_tensor *make_line(th_dtype dtype, int which)
{
    return make_values(dtype, which, 1, (const int64_t[]){37});
}

static bool scalar_bool(void) { return true; }
static uint8_t scalar_u8(void) { return 3; }
static int8_t scalar_i8(void) { return 3; }
static int16_t scalar_i16(void) { return 3; }
static int32_t scalar_i32(void) { return 3; }
static int64_t scalar_i64(void) { return 3; }
static th_float16 scalar_f16(void) { return th_float16_from_float(2.5f); }
static th_bfloat16 scalar_bf16(void) { return th_bfloat16_from_float(2.5f); }
static float scalar_f32(void) { return 2.5f; }
static double scalar_f64(void) { return 2.5; }

/* clamp's lower bound, below scalar_<sfx>() */
static uint8_t low_u8(void) { return 1; }
static int8_t low_i8(void) { return -1; }
static int16_t low_i16(void) { return -1; }
static int32_t low_i32(void) { return -1; }
static int64_t low_i64(void) { return -1; }
static th_float16 low_f16(void) { return th_float16_from_float(-1.5f); }
static th_bfloat16 low_bf16(void) { return th_bfloat16_from_float(-1.5f); }
static float low_f32(void) { return -1.5f; }
static double low_f64(void) { return -1.5; }

/* Units in the last place a transcendental result may differ by: the device's libm (CUDA's math functions,
 * documented bounds of 1-2 ulp for float and double) against glibc's (under 1 ulp), rounded again to 16 bits
 * for f16 and bf16. */
static double tolerance(th_dtype dtype)
{
    switch (dtype) {
    case TH_F16: return 2 * 0.0009765625;   /* 2 ulp of 1.0 in binary16 */
    case TH_BF16: return 2 * 0.0078125;     /* in bfloat16 */
    case TH_F32: return 4 * 1.1920929e-7;   /* 4 ulp */
    case TH_F64: return 4 * 2.220446e-16;
    default: return 0;
    }
}

/* want (CPU) and got (device) hold the same elements: bit for bit (as doubles: every real dtype's values
 * are exact in double here), or within the tolerance where exact is false; NaN matches NaN. */
static void compare(const char *name, const th_tensor *want, const th_tensor *got, bool exact)
{
    checks++;
    if (!want || !got) {
        fail_call(name);
        return;
    }
    th_tensor *back = th_tensor_to_cpu(got);
    th_f64_tensor *w = th_f64_empty(th_tensor_ndim(want), th_tensor_sizes(want));
    th_f64_tensor *g = back ? th_f64_empty(th_tensor_ndim(back), th_tensor_sizes(back)) : NULL;
    if (!back || !g || th_tensor_dtype(back) != th_tensor_dtype(want) || th_tensor_copy(th_f64_base(w), want) ||
        th_tensor_copy(th_f64_base(g), back) || th_f64_numel(w) != th_f64_numel(g)) {
        fail_call(name);
    } else {
        const double tol = exact ? 0 : tolerance(th_tensor_dtype(want));
        for (int64_t i = 0; i < th_f64_numel(w); i++) {
            double x = th_f64_data(w)[i], y = th_f64_data(g)[i];
            bool same = (isnan(x) && isnan(y)) || (exact ? memcmp(&x, &y, sizeof x) == 0
                                                         : (x == y || fabs(x - y) <= tol * fmax(1.0, fabs(x))));
            if (!same) {
                failures++;
                printf("FAIL %s: element %lld is %.17g on the CPU and %.17g on the device\n", name, (long long)i, x, y);
                break;
            }
        }
    }
    th_f64_release(g);
    th_f64_release(w);
    th_tensor_release(back);
}
