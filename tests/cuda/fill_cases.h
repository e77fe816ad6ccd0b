/* tests/cuda/fill_cases.h: what the fill tests share (test_cuda_fill.c on the host, test_cuda_fill_device.c on a
 * GPU): each sampler's and creation op's typed functions behind one signature per kind, for every dtype, and
 * the sampler cases. Needs check.h (tensor.h) before it. */
#ifndef TH_TESTS_CUDA_FILL_CASES_H
#define TH_TESTS_CUDA_FILL_CASES_H

/* Each sampler's new-tensor form as one signature (two doubles; randint's bounds as doubles, exact here). */
typedef th_tensor *(*draw_fn)(int ndim, const int64_t *sizes, double a, double b, th_generator *gen);

#define DRAW2(sfx, name)                                                                                      \
    static th_tensor *sfx##_##name(int ndim, const int64_t *sizes, double a, double b, th_generator *gen)     \
    {                                                                                                         \
        return th_##sfx##_base(th_##sfx##_##name(ndim, sizes, a, b, gen));                                    \
    }
#define DRAW1(sfx, name)                                                                                      \
    static th_tensor *sfx##_##name(int ndim, const int64_t *sizes, double a, double b, th_generator *gen)     \
    {                                                                                                         \
        (void)b;                                                                                              \
        return th_##sfx##_base(th_##sfx##_##name(ndim, sizes, a, gen));                                       \
    }
#define DRAWI(sfx)                                                                                            \
    static th_tensor *sfx##_randint(int ndim, const int64_t *sizes, double a, double b, th_generator *gen)    \
    {                                                                                                         \
        return th_##sfx##_base(th_##sfx##_randint(ndim, sizes, (int64_t)a, b < 0x1p63 ? (int64_t)b : INT64_MAX, gen)); \
    }
#define FLOATING(sfx) DRAW2(sfx, uniform) DRAW2(sfx, normal) DRAW1(sfx, exponential) DRAW1(sfx, bernoulli) DRAWI(sfx)
#define INTEGER(sfx) DRAW1(sfx, bernoulli) DRAWI(sfx)
FLOATING(f16)
FLOATING(bf16)
FLOATING(f32)
FLOATING(f64)
INTEGER(u8)
INTEGER(i8)
INTEGER(i16)
INTEGER(i32)
INTEGER(i64)
DRAW1(bool, bernoulli)

typedef struct sampler_case {
    const char *name;
    draw_fn fn;
    double a, b;
} sampler_case;

/* Parameters that reach the transforms' edges: a uniform whose values round up to hi in f16 and bf16 (top
 * replaces them), negative and wide bounds, std 0, p 0 and 1, randint ranges that reject often (just over half of
 * 2^64) and the whole int64 range (range 0). */
static const struct {
    const char *sfx;
    th_dtype dt;
    sampler_case c[16];
} sampler_cases[] = {
#define FLOAT_CASES(sfx, DT)                                                                                        \
    {#sfx, DT,                                                                                                    \
     {{"uniform", sfx##_uniform, 0.0, 1.0},                                                                       \
      {"uniform", sfx##_uniform, -3.5, 1e4},                                                                      \
      {"uniform", sfx##_uniform, 1.0, 1.0009765625},                                                              \
      {"uniform", sfx##_uniform, -1e300, 1e300},                                                                  \
      {"normal", sfx##_normal, 0.0, 1.0},                                                                         \
      {"normal", sfx##_normal, -2.0, 0.0},                                                                        \
      {"normal", sfx##_normal, 100.0, 3.0},                                                                       \
      {"exponential", sfx##_exponential, 1.0, 0},                                                                 \
      {"exponential", sfx##_exponential, 1e-3, 0},                                                                \
      {"bernoulli", sfx##_bernoulli, 0.25, 0},                                                                    \
      {"bernoulli", sfx##_bernoulli, 1.0, 0},                                                                     \
      {"randint", sfx##_randint, -7, 9},                                                                          \
      {"randint", sfx##_randint, -4611686018427387904.0, 4611686018427387904.0 + 4096.0},                         \
      {"randint", sfx##_randint, -9223372036854775808.0, 9223372036854775807.0}}}
    FLOAT_CASES(f16, TH_F16), FLOAT_CASES(bf16, TH_BF16), FLOAT_CASES(f32, TH_F32), FLOAT_CASES(f64, TH_F64),
    {"u8", TH_U8, {{"bernoulli", u8_bernoulli, 0.5, 0}, {"randint", u8_randint, 0, 256}, {"randint", u8_randint, 3, 5}}},
    {"i8", TH_I8, {{"bernoulli", i8_bernoulli, 0.0, 0}, {"randint", i8_randint, -128, 128}, {"randint", i8_randint, -3, 100}}},
    {"i16", TH_I16, {{"bernoulli", i16_bernoulli, 0.9, 0}, {"randint", i16_randint, -32768, 32768}}},
    {"i32", TH_I32, {{"bernoulli", i32_bernoulli, 0.5, 0}, {"randint", i32_randint, -2147483648.0, 2147483648.0},
             {"randint", i32_randint, 0, 3}}},
    {"i64", TH_I64, {{"bernoulli", i64_bernoulli, 0.5, 0}, {"randint", i64_randint, -4611686018427387904.0, 4611686018427387904.0 + 4096.0},
             {"randint", i64_randint, 5, 6}}},
    {"bool", TH_BOOL, {{"bernoulli", bool_bernoulli, 0.5, 0}, {"bernoulli", bool_bernoulli, 1.0, 0}}},
#undef FLOAT_CASES
};

typedef th_tensor *(*arange_f_fn)(double, double, double);
typedef th_tensor *(*linspace_fn)(double, double, int64_t);
typedef th_tensor *(*arange_i_fn)(int64_t, int64_t, int64_t);
typedef th_tensor *(*eye_fn)(int64_t, int64_t);

#define CREATE_F(sfx)                                                                                          \
    static th_tensor *sfx##_arange(double a, double b, double c) { return th_##sfx##_base(th_##sfx##_arange(a, b, c)); } \
    static th_tensor *sfx##_linspace(double a, double b, int64_t n)                                          \
    {                                                                                                         \
        return th_##sfx##_base(th_##sfx##_linspace(a, b, n));                                                 \
    }
#define CREATE_I(sfx)                                                                                          \
    static th_tensor *sfx##_arange(int64_t a, int64_t b, int64_t c) { return th_##sfx##_base(th_##sfx##_arange(a, b, c)); }
#define EYE(sfx) static th_tensor *sfx##_eye(int64_t n, int64_t m) { return th_##sfx##_base(th_##sfx##_eye(n, m)); }
CREATE_F(f16)
CREATE_F(bf16)
CREATE_F(f32)
CREATE_F(f64)
CREATE_I(u8)
CREATE_I(i8)
CREATE_I(i16)
CREATE_I(i32)
CREATE_I(i64)
EYE(bool)
EYE(u8)
EYE(i8)
EYE(i16)
EYE(i32)
EYE(i64)
EYE(f16)
EYE(bf16)
EYE(f32)
EYE(f64)
EYE(c64)
EYE(c128)

#endif
