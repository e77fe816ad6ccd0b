/* tests/cuda/test_cuda_convert.c: cuda/convert.h, the element conversions the device copies run, against
 * th_tensor_copy (the CPU's) over all 144 dtype pairs: edge values of every kind and random bit patterns.
 * Results must be the same bits, except that a NaN need only be a NaN of the same sign. Runs without a GPU:
 * the device compiles the very same functions. */
#include "tensor.h"
#include "../../cuda/convert.h"

#include <math.h>
#include <stdlib.h>

static int failures, checks;

enum { N_EDGE = 40, N_RANDOM = 4000, N = N_EDGE + N_RANDOM };

/* Values that sit on the rules' edges: rounding ties, saturation bounds, wrap-around, subnormals, NaN. */
static const double edges[N_EDGE] = {
    0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 127.5, 128.0, 255.0, 256.0, -129.0, 32767.5, 65504.0, 65520.0,
    65519.99, 6.1035156e-05, 5.96e-08, 2.98e-08, 1e-40, 3.3895314e38, 3.4e38, 1e300, -1e300, 2147483647.5,
    -2147483648.5, 9.2233720368547758e18, -9.2233720368547758e18, 1.8e19, 4294967296.0, 0.1, -0.1, 1.0 / 3.0,
    16777217.0, 9007199254740993.0, INFINITY, -INFINITY, NAN, -NAN};

static const int64_t int_edges[] = {0, 1, -1, 127, 128, 255, 256, -128, -129, 32767, 32768, -32769, 65535,
                                    2147483647, -2147483648LL, 4294967295LL, 16777217, 16777219,
                                    9007199254740993LL, INT64_MAX, INT64_MIN, (1LL << 62) + 1, -(1LL << 54) - 3};

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static bool is_float_kind(th_dtype dt) { return th__cv_is_floating(dt) || th__cv_is_complex(dt); }

/* The NaN-ness and sign of the part at p (floating dtypes), or -1 when p holds no NaN. */
static int nan_sign(const unsigned char *p, th_dtype dt)
{
    double v = th__cv_load_f64(p, dt);
    if (v == v) return -1;
    return signbit(v) ? 1 : 0;
}

static bool same(const unsigned char *a, const unsigned char *b, th_dtype dt)
{
    size_t es = th_dtype_info(dt)->size;
    if (memcmp(a, b, es) == 0) return true;
    if (!is_float_kind(dt)) return false;
    size_t parts = th__cv_is_complex(dt) ? 2 : 1, ps = es / parts;
    th_dtype part = dt == TH_C64 ? TH_F32 : dt == TH_C128 ? TH_F64 : dt;
    for (size_t k = 0; k < parts; k++) {
        int na = nan_sign(a + k * ps, part), nb = nan_sign(b + k * ps, part);
        if (na != nb) return false;
        if (na < 0 && memcmp(a + k * ps, b + k * ps, ps) != 0) return false;
    }
    return true;
}

/* N source elements of dtype src: the edges (through the CPU's own conversion), then random bits. */
static th_tensor *make_source(th_dtype src)
{
    int64_t n = N;
    th_tensor *t = th_f64_base(th_f64_zeros(1, &n));
    th_tensor *out = NULL;
    if (src == TH_F64) out = th_tensor_retain(t);
    else {
        /* th_<sfx>_empty through the dtype-erased door: a tensor of dtype src, n elements */
        th_f64_tensor *f = th_f64_from_base(t);
        double *d = th_f64_data(f);
        for (int i = 0; i < N_EDGE; i++) d[i] = edges[i];
        switch (src) {
        case TH_BOOL: out = th_bool_base(th_bool_convert(t)); break;
        case TH_U8: out = th_u8_base(th_u8_convert(t)); break;
        case TH_I8: out = th_i8_base(th_i8_convert(t)); break;
        case TH_I16: out = th_i16_base(th_i16_convert(t)); break;
        case TH_I32: out = th_i32_base(th_i32_convert(t)); break;
        case TH_I64: out = th_i64_base(th_i64_convert(t)); break;
        case TH_F16: out = th_f16_base(th_f16_convert(t)); break;
        case TH_BF16: out = th_bf16_base(th_bf16_convert(t)); break;
        case TH_F32: out = th_f32_base(th_f32_convert(t)); break;
        case TH_C64: out = th_c64_base(th_c64_convert(t)); break;
        case TH_C128: out = th_c128_base(th_c128_convert(t)); break;
        default: break;
        }
    }
    unsigned char *p = (unsigned char *)th_tensor_data(out);
    size_t es = th_dtype_info(src)->size;
    if (src == TH_F64)
        for (int i = 0; i < N_EDGE; i++) memcpy(p + (size_t)i * es, &edges[i], 8);
    /* Integer dtypes: their own edges written raw (the f64 path saturated them). */
    if (!is_float_kind(src) && src != TH_BOOL) {
        for (size_t i = 0; i < sizeof int_edges / sizeof *int_edges; i++) {
            uint64_t v = (uint64_t)int_edges[i];
            memcpy(p + i * es, &v, es); /* little-endian: the low bytes, i.e. the value wrapped */
        }
    }
    for (int i = N_EDGE; i < N; i++) {
        uint64_t r[2] = {next(), next()};
        if (src == TH_BOOL) r[0] &= 1u; /* a bool byte is 0 or 1 */
        memcpy(p + (size_t)i * es, r, es);
    }
    th_tensor_release(t);
    return out;
}

static th_tensor *make_empty(th_dtype dt)
{
    int64_t n = N;
    switch (dt) {
    case TH_BOOL: return th_bool_base(th_bool_empty(1, &n));
    case TH_U8: return th_u8_base(th_u8_empty(1, &n));
    case TH_I8: return th_i8_base(th_i8_empty(1, &n));
    case TH_I16: return th_i16_base(th_i16_empty(1, &n));
    case TH_I32: return th_i32_base(th_i32_empty(1, &n));
    case TH_I64: return th_i64_base(th_i64_empty(1, &n));
    case TH_F16: return th_f16_base(th_f16_empty(1, &n));
    case TH_BF16: return th_bf16_base(th_bf16_empty(1, &n));
    case TH_F32: return th_f32_base(th_f32_empty(1, &n));
    case TH_F64: return th_f64_base(th_f64_empty(1, &n));
    case TH_C64: return th_c64_base(th_c64_empty(1, &n));
    default: return th_c128_base(th_c128_empty(1, &n));
    }
}

int main(void)
{
    for (int s = 0; s < TH_NUM_DTYPES; s++) {
        th_tensor *src = make_source((th_dtype)s);
        const unsigned char *sp = (const unsigned char *)th_tensor_data(src);
        size_t ses = th_dtype_info((th_dtype)s)->size;
        for (int d = 0; d < TH_NUM_DTYPES; d++) {
            th_tensor *cpu = make_empty((th_dtype)d);
            if (th_tensor_copy(cpu, src) != TH_OK) {
                printf("FAIL %s -> %s: th_tensor_copy: %s\n", th_dtype_name((th_dtype)s), th_dtype_name((th_dtype)d),
                       th_last_error());
                failures++;
                th_tensor_release(cpu);
                continue;
            }
            const unsigned char *cp = (const unsigned char *)th_tensor_data(cpu);
            size_t des = th_dtype_info((th_dtype)d)->size;
            int shown = 0;
            for (int i = 0; i < N; i++) {
                unsigned char mine[16] = {0};
                th__cv_convert(mine, d, sp + (size_t)i * ses, s);
                checks++;
                if (!same(mine, cp + (size_t)i * des, (th_dtype)d)) {
                    failures++;
                    if (shown++ < 3) {
                        printf("FAIL %s -> %s, element %d: source bytes", th_dtype_name((th_dtype)s),
                               th_dtype_name((th_dtype)d), i);
                        for (size_t k = 0; k < ses; k++) printf(" %02x", sp[(size_t)i * ses + k]);
                        printf("; cpu");
                        for (size_t k = 0; k < des; k++) printf(" %02x", cp[(size_t)i * des + k]);
                        printf("; convert.h");
                        for (size_t k = 0; k < des; k++) printf(" %02x", mine[k]);
                        printf("\n");
                    }
                }
            }
            th_tensor_release(cpu);
        }
        th_tensor_release(src);
    }
    /* Every float16 and bfloat16 bit pattern up to float: the widening both sides do before anything else. */
    for (uint32_t h = 0; h < 65536; h++) {
        th_float16 x = {(uint16_t)h};
        th_bfloat16 y = {(uint16_t)h};
        float a = th_float16_to_float(x), b = th__cv_half_to_float((uint16_t)h);
        float c = th_bfloat16_to_float(y), e = th__cv_bf16_to_float((uint16_t)h);
        checks += 2;
        if (!(memcmp(&a, &b, 4) == 0 || (a != a && b != b))) failures++;
        if (!(memcmp(&c, &e, 4) == 0 || (c != c && e != e))) failures++;
    }
    printf("test_cuda_convert: %d checks (144 dtype pairs), %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
