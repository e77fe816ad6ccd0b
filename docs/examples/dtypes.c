/* Mixing dtypes (docs/core.md, "Type promotion" and "Views"): the dtype an op on operands of different dtypes
 * computes in, by PyTorch's rules, then the conversion that brings each operand there; and a complex tensor's
 * real and imaginary parts as views.
 * Build and run: cc -std=c11 -I. docs/examples/dtypes.c -lm -o dtypes && ./dtypes */
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_I32
#define TH_WANT_F32
#define TH_WANT_F64
#define TH_WANT_C64
#include "tensor.h"

#include <stdio.h>

int main(void)
{
    printf("u8 + i8 -> %s, f16 + bf16 -> %s, c64 + f64 -> %s\n", th_dtype_name(th_promote_types(TH_U8, TH_I8)),
           th_dtype_name(th_promote_types(TH_F16, TH_BF16)), th_dtype_name(th_promote_types(TH_C64, TH_F64)));

    /* counts (i32, with dims) scaled by a 0-d f64: a 0-d tensor of a higher kind decides the kind */
    th_i32_tensor *counts = th_i32_arange(0, 4, 1);
    th_f64_tensor *scale = th_f64_full(0, NULL, 0.5);
    const th_tensor *operands[2] = {th_i32_base(counts), th_f64_base(scale)};
    th_dtype dt = th_result_type(2, operands);
    printf("i32[4] * f64[] -> %s\n", th_dtype_name(dt));

    /* bring both to that dtype, then call the typed op */
    th_f64_tensor *a = th_f64_convert(th_i32_base(counts)); /* the typed handle of dt */
    th_f64_tensor *scaled = a ? th_f64_mul(a, scale) : NULL;
    if (!scaled) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    th_f64_print(stdout, scaled);
    int ok = dt == TH_F64 && th_f64_data(scaled)[3] == 1.5;

    /* a complex tensor's parts are f32 views over its storage: writing the imaginary part writes z */
    int64_t n = 3;
    th_c64_tensor *z = th_c64_zeros(1, &n);
    th_f32_tensor *re = z ? th_c64_real(z) : NULL, *im = z ? th_c64_imag(z) : NULL;
    if (!re || !im) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    th_f32_fill(re, 1.0f);
    th_f32_copy(im, re); /* z = 1 + 1i everywhere */
    th_c64_print(stdout, z);
    ok = ok && th_f32_strides(im)[0] == 2;
    /* conj negates the imaginary parts; angle is atan2(im, re) as f32: pi/4 for 1 + 1i, -pi/4 for 1 - 1i */
    th_c64_tensor *zc = th_c64_conj(z);
    th_f32_tensor *ang = zc ? th_c64_angle(zc) : NULL;
    if (!ang) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    th_f32_print(stdout, ang);
    ok = ok && th_f32_data(ang)[0] == -0.785398185f;
    /* and back: magnitude 2 at those angles gives 2 cos + 2i sin, broadcast over one magnitude */
    th_f32_tensor *two = th_f32_full(0, NULL, 2.0f);
    th_c64_tensor *zp = two ? th_c64_polar(two, ang) : NULL;
    if (!zp) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    th_c64_print(stdout, zp);
    ok = ok && __builtin_cimagf(th_c64_data(zp)[2]) == 2.0f * sinf(-0.785398185f);
    th_c64_release(zp);
    th_f32_release(two);
    th_f32_release(ang);
    th_c64_release(zc);
    th_f32_release(im);
    th_f32_release(re);
    th_c64_release(z);
    th_f64_release(scaled);
    th_f64_release(a);
    th_f64_release(scale);
    th_i32_release(counts);
    return ok ? 0 : 1;
}
