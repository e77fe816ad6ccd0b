/* tests/test_copy.c: copies, conversions between all dtypes, contiguous and clone, fill, printing.
 *
 * th_f32_copy with any strides (transposed, narrowed, reversed, expanded src broadcast to dst, 0-d, size 0);
 * src overlapping dst in one storage (the result must be that of copying from a snapshot); the tiled
 * transpose path for several element sizes, and its batched form (3-d and 4-d permutations, NCHW <-> NHWC,
 * reversed dims, 1 and 2 threads); contiguous / clone; th_tensor_copy and th_<sfx>_convert between
 * every pair of the 12 dtypes against an independent reference of the documented semantics; fill on strided
 * and expanded tensors; th_tensor_print's text. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})
#define IDX(...) ((const int64_t[]){__VA_ARGS__})

/* ---- dtype-generic helpers, driven by the dtype list ------------------------------------ */

static size_t dt_size(th_dtype dt) { return th_dtype_info(dt)->size; }
static th_dtype_kind dt_kind(th_dtype dt) { return th_dtype_info(dt)->kind; }

static th_tensor *dt_empty(th_dtype dt, int ndim, const int64_t *sizes)
{
    switch (dt) {
#define X(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_empty(ndim, sizes));
        TH_FOREACH_DTYPE(X)
#undef X
    default: return NULL;
    }
}

static th_tensor *dt_convert(th_dtype dt, const th_tensor *src)
{
    switch (dt) {
#define X(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_convert(src));
        TH_FOREACH_DTYPE(X)
#undef X
    default: return NULL;
    }
}

static th_tensor *dt_as_strided(th_tensor *t, int ndim, const int64_t *sizes, const int64_t *strides, int64_t off)
{
    switch (th_tensor_dtype(t)) {
#define X(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_as_strided(th_##sfx##_from_base(t), ndim, sizes, strides, off));
        TH_FOREACH_DTYPE(X)
#undef X
    default: return NULL;
    }
}

static th_tensor *dt_transpose(th_tensor *t, int d0, int d1)
{
    switch (th_tensor_dtype(t)) {
#define X(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_transpose(th_##sfx##_from_base(t), d0, d1));
        TH_FOREACH_DTYPE(X)
#undef X
    default: return NULL;
    }
}

static th_tensor *dt_narrow(th_tensor *t, int dim, int64_t start, int64_t length)
{
    switch (th_tensor_dtype(t)) {
#define X(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_narrow(th_##sfx##_from_base(t), dim, start, length));
        TH_FOREACH_DTYPE(X)
#undef X
    default: return NULL;
    }
}

/* The typed copy of the tensors' dtype (th_u8_copy, th_f32_copy, ...). */
static int dt_copy(th_tensor *dst, const th_tensor *src)
{
    switch (th_tensor_dtype(dst)) {
#define X(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_copy(th_##sfx##_from_base(dst), th_##sfx##_from_base((th_tensor *)src));
        TH_FOREACH_DTYPE(X)
#undef X
    default: return -100;
    }
}

/* The address of element idx of t (any strides). */
static char *elem_ptr(const th_tensor *t, const int64_t *idx)
{
    char *p = (char *)th_tensor_data(t);
    for (int d = 0; d < th_tensor_ndim(t); d++)
        p += idx[d] * th_tensor_strides(t)[d] * (int64_t)dt_size(th_tensor_dtype(t));
    return p;
}

/* ---- the reference: formats, rounding, the documented conversions ------------------------- */

/* A 16-bit float format: mant fraction bits, exp exponent bits. */
typedef struct fmt {
    int mant, exp;
} fmt;
static const fmt F16 = {10, 5}, BF16 = {7, 8};

static uint32_t fmt_inf(fmt f) { return ((1u << f.exp) - 1u) << f.mant; }

static double fmt_value(fmt f, uint32_t bits) /* non-negative patterns up to the infinity one */
{
    uint32_t m = bits & ((1u << f.mant) - 1u), e = bits >> f.mant;
    int bias = (1 << (f.exp - 1)) - 1;
    if (e == 0) return ldexp((double)m, 1 - bias - f.mant);
    return ldexp((double)((1u << f.mant) | m), (int)e - bias - f.mant);
}

static double fmt_decode(fmt f, uint16_t bits)
{
    uint32_t mag = bits & 0x7fffu;
    double v = mag > fmt_inf(f) ? NAN : mag == fmt_inf(f) ? INFINITY : fmt_value(f, mag);
    return (bits & 0x8000u) ? -v : v;
}

/* Round to nearest, ties to the even pattern, by finding the two neighbours and comparing with their
 * midpoint (exact in double). */
static uint16_t fmt_round(fmt f, double x)
{
    const uint32_t inf = fmt_inf(f);
    if (isnan(x)) return (uint16_t)(inf | (1u << (f.mant - 1)));
    const uint16_t sign = signbit(x) ? 0x8000u : 0u;
    const double a = fabs(x);
    if (a >= fmt_value(f, inf)) return (uint16_t)(sign | inf);
    uint32_t lo = 0, hi = inf - 1u;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1u) / 2u;
        if (fmt_value(f, mid) <= a)
            lo = mid;
        else
            hi = mid - 1u;
    }
    const double mid = (fmt_value(f, lo) + fmt_value(f, lo + 1u)) / 2.0;
    uint32_t r = a < mid ? lo : a > mid ? lo + 1u : (lo & 1u) ? lo + 1u : lo;
    return (uint16_t)(sign | r);
}

/* An int64 rounded once (to nearest, ties to even) to p significant bits; beyond max_finite, infinity. */
static double round_i64(int64_t v, int p, double max_finite)
{
    uint64_t u = v < 0 ? 0u - (uint64_t)v : (uint64_t)v;
    int msb = -1;
    for (uint64_t w = u; w; w >>= 1) msb++;
    double mag;
    if (msb >= p) {
        int shift = msb - p + 1;
        uint64_t kept = u >> shift, rem = u & ((UINT64_C(1) << shift) - 1u), half = UINT64_C(1) << (shift - 1);
        if (rem > half || (rem == half && (kept & 1u))) kept++;
        mag = ldexp((double)kept, shift);
    } else {
        mag = (double)u; /* exact: fewer than p <= 53 bits */
    }
    if (mag > max_finite) mag = INFINITY;
    return v < 0 ? -mag : mag;
}

/* One element's value, whatever its dtype: ints (and bool) exactly in i, floats in re, complex in re, im. */
typedef struct value {
    int64_t i;
    double re, im;
} value;

static bool kind_is_int(th_dtype_kind k) { return k == TH_KIND_BOOL || k == TH_KIND_UINT || k == TH_KIND_INT; }

static value load_value(th_dtype dt, const char *p)
{
    value v = {0, 0.0, 0.0};
    switch (dt) {
    case TH_BOOL: { bool b; memcpy(&b, p, 1); v.i = b; break; }
    case TH_U8: { uint8_t x; memcpy(&x, p, sizeof x); v.i = x; break; }
    case TH_I8: { int8_t x; memcpy(&x, p, sizeof x); v.i = x; break; }
    case TH_I16: { int16_t x; memcpy(&x, p, sizeof x); v.i = x; break; }
    case TH_I32: { int32_t x; memcpy(&x, p, sizeof x); v.i = x; break; }
    case TH_I64: { int64_t x; memcpy(&x, p, sizeof x); v.i = x; break; }
    case TH_F16: { uint16_t b; memcpy(&b, p, 2); v.re = fmt_decode(F16, b); break; }
    case TH_BF16: { uint16_t b; memcpy(&b, p, 2); v.re = fmt_decode(BF16, b); break; }
    case TH_F32: { float x; memcpy(&x, p, sizeof x); v.re = x; break; }
    case TH_F64: { double x; memcpy(&x, p, sizeof x); v.re = x; break; }
    case TH_C64: { float x[2]; memcpy(x, p, sizeof x); v.re = x[0]; v.im = x[1]; break; }
    case TH_C128: { double x[2]; memcpy(x, p, sizeof x); v.re = x[0]; v.im = x[1]; break; }
    default: break;
    }
    return v;
}

/* Stores an input (i for integer dtypes, re / im otherwise; in range for the dtype) into an element. */
static void store_value(th_dtype dt, char *p, value v)
{
    switch (dt) {
    case TH_BOOL: { bool b = v.i != 0; memcpy(p, &b, 1); break; }
    case TH_U8: { uint8_t x = (uint8_t)v.i; memcpy(p, &x, sizeof x); break; }
    case TH_I8: { int8_t x = (int8_t)v.i; memcpy(p, &x, sizeof x); break; }
    case TH_I16: { int16_t x = (int16_t)v.i; memcpy(p, &x, sizeof x); break; }
    case TH_I32: { int32_t x = (int32_t)v.i; memcpy(p, &x, sizeof x); break; }
    case TH_I64: memcpy(p, &v.i, 8); break;
    case TH_F16: { uint16_t b = fmt_round(F16, v.re); memcpy(p, &b, 2); break; }
    case TH_BF16: { uint16_t b = fmt_round(BF16, v.re); memcpy(p, &b, 2); break; }
    case TH_F32: { float x = (float)v.re; memcpy(p, &x, sizeof x); break; }
    case TH_F64: memcpy(p, &v.re, 8); break;
    case TH_C64: { float x[2] = {(float)v.re, (float)v.im}; memcpy(p, x, sizeof x); break; }
    case TH_C128: { double x[2] = {v.re, v.im}; memcpy(p, x, sizeof x); break; }
    default: break;
    }
}

static void int_range(th_dtype dt, int64_t *lo, int64_t *hi)
{
    switch (dt) {
    case TH_BOOL: *lo = 0; *hi = 1; break;
    case TH_U8: *lo = 0; *hi = UINT8_MAX; break;
    case TH_I8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case TH_I16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case TH_I32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    default: *lo = INT64_MIN; *hi = INT64_MAX; break;
    }
}

/* A double rounded to a floating dtype (the real part's format for complex dtypes). */
static double round_to(th_dtype dt, double x)
{
    switch (dt) {
    case TH_F16: return fmt_decode(F16, fmt_round(F16, x));
    case TH_BF16: return fmt_decode(BF16, fmt_round(BF16, x));
    case TH_F32:
    case TH_C64: return (double)(float)x;
    default: return x;
    }
}

/* An int64 rounded once to a floating dtype. */
static double round_int_to(th_dtype dt, int64_t v)
{
    switch (dt) {
    case TH_F16: return round_i64(v, 11, 65504.0);
    case TH_BF16: return round_i64(v, 8, 0x1.fep127);
    case TH_F32:
    case TH_C64: return round_i64(v, 24, FLT_MAX);
    default: return round_i64(v, 53, DBL_MAX);
    }
}

/* The documented conversion of one src value to dtype dst. */
static value expected(th_dtype dst, th_dtype src, value v)
{
    const th_dtype_kind sk = dt_kind(src), dk = dt_kind(dst);
    value r = {0, 0.0, 0.0};
    if (dk == TH_KIND_BOOL) { /* nonzero, NaN included, is true */
        r.i = kind_is_int(sk) ? v.i != 0 : (v.re != 0.0 || v.im != 0.0);
    } else if (kind_is_int(dk)) {
        int64_t lo, hi;
        int_range(dst, &lo, &hi);
        if (kind_is_int(sk)) { /* wraps modulo 2^bits */
            int bits = (int)dt_size(dst) * 8;
            if (bits == 64) {
                r.i = v.i;
            } else {
                uint64_t u = (uint64_t)v.i & ((UINT64_C(1) << bits) - 1u);
                r.i = (int64_t)u;
                if (lo < 0 && r.i > hi) r.i -= (int64_t)1 << bits;
            }
        } else { /* truncates toward zero, saturates, NaN gives 0; complex keeps the real part */
            double t = trunc(v.re);
            r.i = isnan(v.re) ? 0 : t <= (double)lo ? lo : t >= (double)hi ? hi : (int64_t)t;
        }
    } else { /* floating or complex: rounds to nearest even once */
        r.re = kind_is_int(sk) ? round_int_to(dst, v.i) : round_to(dst, v.re);
        if (dk == TH_KIND_COMPLEX) r.im = sk == TH_KIND_COMPLEX ? round_to(dst, v.im) : 0.0;
    }
    return r;
}

static bool same_real(double a, double b) { return (isnan(a) && isnan(b)) || (a == b && !signbit(a) == !signbit(b)); }

static bool same_value(th_dtype dt, value a, value b)
{
    if (kind_is_int(dt_kind(dt))) return a.i == b.i;
    return same_real(a.re, b.re) && same_real(a.im, b.im);
}

static void describe(th_dtype dt, value v, char *buf, size_t cap)
{
    if (kind_is_int(dt_kind(dt)))
        snprintf(buf, cap, "%lld", (long long)v.i);
    else if (dt_kind(dt) == TH_KIND_COMPLEX)
        snprintf(buf, cap, "(%.17g, %.17g)", v.re, v.im);
    else
        snprintf(buf, cap, "%.17g", v.re);
}

/* ---- inputs ----------------------------------------------------------------------------- */

static const int64_t int_inputs[] = {
    0, 1, -1, 2, 7, 100, 127, 128, -128, -129, 200, 255, 256, 257, 259, 263, -256, 300, -300, 383, 1000,
    2049, 2051, 32767, -32768, 32768, 40000, 65504, 65505, 65519, 65520, 65535, -65536, 70000, 16777217,
    16777219, -16777217, 123456789, INT32_MAX, INT32_MIN, INT64_C(2147483648), INT64_C(4294967301),
    (INT64_C(1) << 53) + 1, -(INT64_C(1) << 53) - 3, (INT64_C(1) << 60) + (INT64_C(1) << 36) + 1,
    -((INT64_C(1) << 60) + (INT64_C(1) << 36) + 1), (INT64_C(1) << 62) + 1, INT64_C(123456789012345678),
    INT64_MAX, INT64_MIN, INT64_MIN + 1,
};

static const double float_inputs[] = {
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.9999, 1.5, -1.5, 2.5, -2.7, 3.75, 100.25, 127.9, 128.0, 128.5, -128.5,
    -129.0, -129.5, 200.0, 255.5, 256.0, -256.7, 300.7, -300.7, 1000.5, 32767.5, 32768.0, -32768.9, -32769.0,
    40000.0, -40000.0, 65504.0, 65519.0, 65520.0, 70000.5, 1000000.5, 2147483647.5, 2147483648.0,
    -2147483648.9, -2147483649.0, 3e9, -3e9, 4294967296.0, 1e10, -1e10, 9.2e18, 0x1p63, -0x1p63, 0x1.fffffffffffffp62, 9.3e18, -9.3e18, 1e19, -1e19,
    1e30, 3.0e38, -3.0e38, 3.4e38, 1e300, -1e300, 0.1, 1.0 / 3.0, 1e-3, 1e-5, 6e-8, 1e-8, 1e-40, 1e-310,
    16777217.0, 1.0000001, 1.00048828125, 1.00390625, 1.0 + 0x1p-11 + 0x1p-40, NAN, -NAN, INFINITY, -INFINITY,
};

static const double complex_inputs[][2] = {
    {0.0, 0.0}, {-0.0, -0.0}, {0.0, 1.0}, {0.0, -2.5}, {1.0, 0.0}, {1.5, -2.5}, {-2.7, 1e10}, {300.7, 0.1},
    {-129.5, 3.0}, {65520.0, -65520.0}, {1e19, 1.0}, {NAN, 0.0}, {0.0, NAN}, {INFINITY, -INFINITY},
    {-INFINITY, 2.0}, {1e-8, 1e-40}, {1.0 / 3.0, -1.0 / 3.0}, {1e300, -1e300}, {16777217.0, 1.00048828125},
};

enum { MAX_INPUTS = 128 };
_Static_assert(sizeof float_inputs / sizeof float_inputs[0] + sizeof complex_inputs / sizeof complex_inputs[0] <=
                   MAX_INPUTS,
               "MAX_INPUTS is too small");

/* The inputs for a src dtype: the integers it can hold, the floats, or the complex values and the floats
 * with an imaginary part. */
static int inputs_for(th_dtype dt, value *out)
{
    int n = 0;
    th_dtype_kind k = dt_kind(dt);
    if (kind_is_int(k)) {
        int64_t lo, hi;
        int_range(dt, &lo, &hi);
        for (size_t i = 0; i < sizeof int_inputs / sizeof int_inputs[0]; i++)
            if (int_inputs[i] >= lo && int_inputs[i] <= hi) out[n++] = (value){int_inputs[i], 0.0, 0.0};
    } else {
        for (size_t i = 0; i < sizeof float_inputs / sizeof float_inputs[0]; i++)
            out[n++] = (value){0, float_inputs[i], k == TH_KIND_COMPLEX ? 0.25 : 0.0};
        if (k == TH_KIND_COMPLEX)
            for (size_t i = 0; i < sizeof complex_inputs / sizeof complex_inputs[0]; i++)
                out[n++] = (value){0, complex_inputs[i][0], complex_inputs[i][1]};
    }
    return n;
}

/* ---- conversions between every pair of dtypes ------------------------------------------- */

typedef struct pair_tally {
    th_dtype src, dst;
    const char *how;
    long n;
} pair_tally;

static void check_elem(pair_tally *t, const char *src_p, const char *dst_p)
{
    value sv = load_value(t->src, src_p), got = load_value(t->dst, dst_p), want = expected(t->dst, t->src, sv);
    if (same_value(t->dst, got, want)) return;
    if (t->n++ < 4) {
        char a[96], b[96], c[96];
        describe(t->src, sv, a, sizeof a);
        describe(t->dst, got, b, sizeof b);
        describe(t->dst, want, c, sizeof c);
        fprintf(stderr, "  %s -> %s (%s): %s gave %s, wanted %s\n", th_dtype_name(t->src), th_dtype_name(t->dst),
                t->how, a, b, c);
    }
}

enum { PAIR_N = 300 }; /* more than one 256-element block of the conversion loop */

static long failed_pairs;

static void test_pair(th_dtype sdt, th_dtype ddt)
{
    value in[MAX_INPUTS];
    const int nin = inputs_for(sdt, in);
    const int64_t n = PAIR_N;
    const size_t ses = dt_size(sdt), des = dt_size(ddt);
    long before = check_failures;

    th_tensor *src = dt_empty(sdt, 1, SZ(n));
    for (int64_t k = 0; k < n; k++) store_value(sdt, (char *)th_tensor_data(src) + k * (int64_t)ses, in[k % nin]);

    /* 1: contiguous to contiguous */
    pair_tally t1 = {sdt, ddt, "th_tensor_copy", 0};
    th_tensor *dst = dt_empty(ddt, 1, SZ(n));
    CHECK_INT_EQ(th_tensor_copy(dst, src), TH_OK);
    for (int64_t k = 0; k < n; k++)
        check_elem(&t1, (char *)th_tensor_data(src) + k * (int64_t)ses, (char *)th_tensor_data(dst) + k * (int64_t)des);
    CHECK_INT_EQ(t1.n, 0);

    /* 2: a reversed src into every other element of dst, which leaves the others alone */
    pair_tally t2 = {sdt, ddt, "strided th_tensor_copy", 0};
    th_tensor *big = dt_empty(ddt, 1, SZ(2 * n));
    memset(th_tensor_data(big), 0x5a, (size_t)(2 * n) * des);
    th_tensor *odd = dt_as_strided(big, 1, SZ(n), SZ(2), 1);
    th_tensor *rev = dt_as_strided(src, 1, SZ(n), SZ(-1), n - 1);
    CHECK_INT_EQ(th_tensor_copy(odd, rev), TH_OK);
    long untouched = 0;
    for (int64_t k = 0; k < n; k++) {
        check_elem(&t2, (char *)th_tensor_data(src) + (n - 1 - k) * (int64_t)ses,
                   (char *)th_tensor_data(big) + (2 * k + 1) * (int64_t)des);
        const unsigned char *even = (const unsigned char *)th_tensor_data(big) + 2 * k * (int64_t)des;
        for (size_t b = 0; b < des; b++) untouched += even[b] == 0x5a;
    }
    CHECK_INT_EQ(t2.n, 0);
    CHECK_INT_EQ(untouched, n * (int64_t)des);

    /* 3: broadcast along a new leading dim */
    pair_tally t3 = {sdt, ddt, "broadcast th_tensor_copy", 0};
    th_tensor *two = dt_empty(ddt, 2, SZ(2, n));
    CHECK_INT_EQ(th_tensor_copy(two, src), TH_OK);
    for (int64_t r = 0; r < 2; r++)
        for (int64_t k = 0; k < n; k++)
            check_elem(&t3, (char *)th_tensor_data(src) + k * (int64_t)ses, elem_ptr(two, IDX(r, k)));
    CHECK_INT_EQ(t3.n, 0);

    /* 4: th_<dst>_convert */
    pair_tally t4 = {sdt, ddt, "convert", 0};
    th_tensor *conv = dt_convert(ddt, rev);
    CHECK(conv != NULL);
    if (conv) {
        CHECK_INT_EQ(th_tensor_dtype(conv), ddt);
        CHECK_INT_EQ(th_tensor_ndim(conv), 1);
        CHECK_INT_EQ(th_tensor_numel(conv), n);
        CHECK(th_tensor_is_contiguous(conv));
        CHECK(th_tensor_storage(conv) != th_tensor_storage(src));
        for (int64_t k = 0; k < n; k++)
            check_elem(&t4, (char *)th_tensor_data(src) + (n - 1 - k) * (int64_t)ses,
                       (char *)th_tensor_data(conv) + k * (int64_t)des);
    }
    CHECK_INT_EQ(t4.n, 0);

    if (check_failures != before) failed_pairs++;
    th_tensor_release(conv);
    th_tensor_release(two);
    th_tensor_release(rev);
    th_tensor_release(odd);
    th_tensor_release(big);
    th_tensor_release(dst);
    th_tensor_release(src);
}

static void test_all_pairs(void)
{
    int pairs = 0;
    for (int s = 0; s < TH_NUM_DTYPES; s++)
        for (int d = 0; d < TH_NUM_DTYPES; d++) {
            test_pair((th_dtype)s, (th_dtype)d);
            pairs++;
        }
    CHECK_INT_EQ(pairs, 144);
    CHECK_INT_EQ(failed_pairs, 0);
}

/* The documented rules on a few spelled-out values. */
static void test_conversion_rules(void)
{
    /* to bool: nonzero, NaN included, is true */
    th_f32_tensor *f = th_f32_empty(1, SZ(6));
    const float fv[6] = {0.0f, -0.0f, 0.5f, NAN, -INFINITY, 1e-45f};
    memcpy(th_f32_data(f), fv, sizeof fv);
    th_bool_tensor *b = th_bool_convert(th_f32_base(f));
    const bool bw[6] = {false, false, true, true, true, true};
    for (int i = 0; i < 6; i++) CHECK(th_bool_data(b)[i] == bw[i]);
    th_release(b);

    /* float to int: truncates toward zero, saturates, NaN gives 0 */
    const float gv[6] = {2.7f, -2.7f, 3e9f, -3e9f, NAN, INFINITY};
    memcpy(th_f32_data(f), gv, sizeof gv);
    th_i32_tensor *i = th_i32_convert(th_f32_base(f));
    const int32_t iw[6] = {2, -2, INT32_MAX, INT32_MIN, 0, INT32_MAX};
    for (int k = 0; k < 6; k++) CHECK_INT_EQ(th_i32_data(i)[k], iw[k]);
    th_i64_tensor *l = th_i64_convert(th_f32_base(f));
    const int64_t lw[6] = {2, -2, 3000000000, -3000000000, 0, INT64_MAX};
    for (int k = 0; k < 6; k++) CHECK_INT_EQ(th_i64_data(l)[k], lw[k]);
    th_u8_tensor *u = th_u8_convert(th_f32_base(f));
    const uint8_t uw[6] = {2, 0, 255, 0, 0, 255};
    for (int k = 0; k < 6; k++) CHECK_INT_EQ(th_u8_data(u)[k], uw[k]);
    th_release(u);
    th_release(l);
    th_release(f);

    /* int to a narrower int wraps modulo 2^bits */
    th_i32_tensor *w = th_i32_empty(1, SZ(4));
    const int32_t wv[4] = {200, -129, 256, 383};
    memcpy(th_i32_data(w), wv, sizeof wv);
    th_i8_tensor *n8 = th_i8_convert(th_i32_base(w));
    const int8_t nw[4] = {-56, 127, 0, 127};
    for (int k = 0; k < 4; k++) CHECK_INT_EQ(th_i8_data(n8)[k], nw[k]);
    th_u8_tensor *u8 = th_u8_convert(th_i32_base(w));
    const uint8_t u8w[4] = {200, 127, 0, 127};
    for (int k = 0; k < 4; k++) CHECK_INT_EQ(th_u8_data(u8)[k], u8w[k]);
    th_release(u8);
    th_release(n8);
    th_release(i);
    th_release(w);

    /* complex to real keeps the real part */
    th_c128_tensor *c = th_c128_empty(1, SZ(3));
    th_complex128 cv[3];
    const double parts[3][2] = {{1.5, 2.0}, {-2.7, 9.0}, {0.0, 1.0}};
    memcpy(cv, parts, sizeof parts);
    memcpy(th_c128_data(c), cv, sizeof cv);
    th_f64_tensor *cr = th_f64_convert(th_c128_base(c));
    CHECK(th_f64_data(cr)[0] == 1.5 && th_f64_data(cr)[1] == -2.7 && th_f64_data(cr)[2] == 0.0);
    th_i32_tensor *ci = th_i32_convert(th_c128_base(c));
    CHECK_INT_EQ(th_i32_data(ci)[1], -2);
    th_bool_tensor *cb = th_bool_convert(th_c128_base(c));
    CHECK(th_bool_data(cb)[2] == true); /* 0 + 1j is nonzero */
    th_release(cb);
    th_release(ci);
    th_release(cr);
    th_release(c);

    /* int64 to float32 rounds once: 2^60 + 2^36 + 1 is just above the midpoint 2^60 + 2^36 between
     * 2^60 and 2^60 + 2^37; through double it would land on the midpoint and round to even, 2^60 */
    const int64_t big = (INT64_C(1) << 60) + (INT64_C(1) << 36) + 1;
    th_i64_tensor *bi = th_i64_full(1, SZ(2), big);
    th_i64_data(bi)[1] = -big;
    const float want32 = 0x1p60f + 0x1p37f;
    th_f32_tensor *bf = th_f32_convert(th_i64_base(bi));
    CHECK(th_f32_data(bf)[0] == want32);
    CHECK(th_f32_data(bf)[1] == -want32);
    th_f32_tensor *bf2 = th_f32_zeros(1, SZ(2));
    CHECK_INT_EQ(th_tensor_copy(th_f32_base(bf2), th_i64_base(bi)), TH_OK);
    CHECK(th_f32_data(bf2)[0] == want32);
    /* the same for the other floating dtypes whose precision is below double's */
    th_c64_tensor *bc = th_c64_convert(th_i64_base(bi));
    float bcp[2];
    memcpy(bcp, &th_c64_data(bc)[0], sizeof bcp);
    CHECK(bcp[0] == want32 && bcp[1] == 0.0f);
    /* float16 and bfloat16: 2^15 + 2^4 + 1 is just above a float16 midpoint; 2^60 + 2^52 + 1 a bfloat16 one */
    th_i64_data(bi)[0] = 32768 + 16 + 1;
    th_i64_data(bi)[1] = (INT64_C(1) << 60) + (INT64_C(1) << 52) + 1;
    th_f16_tensor *bh = th_f16_convert(th_i64_base(bi));
    CHECK(th_float16_to_float(th_f16_data(bh)[0]) == 32768.0f + 32.0f);
    th_bf16_tensor *bb = th_bf16_convert(th_i64_base(bi));
    CHECK(th_bfloat16_to_float(th_bf16_data(bb)[1]) == 0x1p60f + 0x1p53f);
    th_release(bb);
    th_release(bh);
    th_release(bc);
    th_release(bf2);
    th_release(bf);
    th_release(bi);
}

/* float32 -> float64 -> float32 is exact for every float; float64 -> float32 is C's cast. */
static void test_f32_f64_round_trip(void)
{
    enum { N = 100003 };
    th_f32_tensor *a = th_f32_empty(1, SZ(N));
    uint64_t s = 0x243f6a8885a308d3u;
    for (int64_t k = 0; k < N; k++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        uint32_t u = (uint32_t)(s >> 32);
        if (k < 8) {
            static const uint32_t special[8] = {0x00000001u, 0x80000000u, 0x7f7fffffu, 0x7f800000u,
                                                0xff800000u, 0x007fffffu, 0x00800000u, 0x3f800001u};
            u = special[k];
        }
        memcpy(&th_f32_data(a)[k], &u, 4);
    }
    th_f64_tensor *d = th_f64_convert(th_f32_base(a));
    th_f32_tensor *back = th_f32_convert(th_f64_base(d));
    long bad = 0, bad64 = 0;
    for (int64_t k = 0; k < N; k++) {
        float x = th_f32_data(a)[k], y = th_f32_data(back)[k];
        double z = th_f64_data(d)[k];
        if (isnan(x) ? !isnan(y) : memcmp(&x, &y, 4) != 0) bad++;
        if (isnan(x) ? !isnan(z) : (z != (double)x || !signbit(z) != !signbit(x))) bad64++;
    }
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(bad64, 0);
    /* doubles to float: correctly rounded, like the cast */
    for (int64_t k = 0; k < N; k++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        double x = ldexp(1.0 + (double)(s >> 11) * 0x1p-53, (int)((s >> 3) % 300) - 150);
        th_f64_data(d)[k] = (s & 1) ? -x : x;
    }
    th_f32_tensor *r = th_f32_convert(th_f64_base(d));
    long badr = 0;
    for (int64_t k = 0; k < N; k++) {
        float want = (float)th_f64_data(d)[k];
        if (memcmp(&want, &th_f32_data(r)[k], 4) != 0) badr++;
    }
    CHECK_INT_EQ(badr, 0);
    th_release(r);
    th_release(back);
    th_release(d);
    th_release(a);
}

/* ---- th_f32_copy with any strides ------------------------------------------------------- */

static th_f32_tensor *arange(int ndim, const int64_t *sizes)
{
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    for (int64_t i = 0; i < th_f32_numel(t); i++) th_f32_data(t)[i] = (float)i;
    return t;
}

static void test_copy_strided(void)
{
    th_f32_tensor *a = arange(2, SZ(4, 3));
    /* a transposed src into a contiguous dst */
    th_f32_tensor *t = th_f32_transpose(a, 0, 1); /* 3x4 */
    th_f32_tensor *d = th_f32_zeros(2, SZ(3, 4));
    CHECK_INT_EQ(th_f32_copy(d, t), TH_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) CHECK(th_f32_get(d, IDX(i, j)) == (float)(3 * j + i));
    /* a contiguous src into a transposed dst */
    th_f32_tensor *d2 = th_f32_zeros(2, SZ(4, 3));
    th_f32_tensor *d2t = th_f32_transpose(d2, 0, 1);
    CHECK_INT_EQ(th_f32_copy(d2t, d), TH_OK);
    CHECK(memcmp(th_f32_data(d2), th_f32_data(a), 12 * sizeof(float)) == 0);
    /* narrowed into narrowed */
    th_f32_tensor *big = th_f32_zeros(2, SZ(5, 6));
    th_f32_tensor *win = th_f32_narrow(big, 1, 2, 3);
    th_f32_tensor *win2 = th_f32_narrow(win, 0, 1, 4);
    CHECK_INT_EQ(th_f32_copy(win2, a), TH_OK);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 6; j++) {
            bool inside = i >= 1 && j >= 2 && j < 5;
            CHECK(th_f32_get(big, IDX(i, j)) == (inside ? (float)(3 * (i - 1) + (j - 2)) : 0.0f));
        }
    /* negative strides */
    th_f32_tensor *r = th_f32_as_strided(a, 2, SZ(4, 3), SZ(-3, -1), 11); /* a reversed in both dims */
    th_f32_tensor *d3 = th_f32_empty(2, SZ(4, 3));
    CHECK_INT_EQ(th_f32_copy(d3, r), TH_OK);
    for (int k = 0; k < 12; k++) CHECK(th_f32_data(d3)[k] == (float)(11 - k));
    /* broadcasting: a row, a column, a 0-d value, an expanded view */
    th_f32_tensor *row = th_f32_select(a, 0, 2); /* 6, 7, 8 */
    th_f32_tensor *d4 = th_f32_zeros(2, SZ(2, 3));
    CHECK_INT_EQ(th_f32_copy(d4, row), TH_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) CHECK(th_f32_get(d4, IDX(i, j)) == (float)(6 + j));
    th_f32_tensor *col = th_f32_narrow(t, 1, 1, 1); /* 3x1: 3, 4, 5 */
    th_f32_tensor *d5 = th_f32_zeros(3, SZ(2, 3, 5));
    CHECK_INT_EQ(th_f32_copy(d5, col), TH_OK);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++) CHECK(th_f32_get(d5, IDX(k, i, j)) == (float)(3 + i));
    th_f32_tensor *z = th_f32_full(0, NULL, 4.5f);
    CHECK_INT_EQ(th_f32_copy(d4, z), TH_OK);
    for (int k = 0; k < 6; k++) CHECK(th_f32_data(d4)[k] == 4.5f);
    th_f32_tensor *ex = th_f32_expand(col, 2, SZ(3, 4));
    CHECK_INT_EQ(th_f32_copy(d, ex), TH_OK);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) CHECK(th_f32_get(d, IDX(i, j)) == (float)(3 + i));
    /* 0-d to 0-d */
    th_f32_tensor *z2 = th_f32_zeros(0, NULL);
    CHECK_INT_EQ(th_f32_copy(z2, z), TH_OK);
    CHECK(th_f32_get(z2, NULL) == 4.5f);
    /* size 0 */
    th_f32_tensor *e = th_f32_empty(2, SZ(0, 3));
    CHECK_INT_EQ(th_f32_copy(e, row), TH_OK);
    th_f32_tensor *e0 = th_f32_empty(1, SZ(0));
    th_f32_tensor *e1 = th_f32_empty(1, SZ(0));
    CHECK_INT_EQ(th_f32_copy(e0, e1), TH_OK);
    CHECK_FAILS(th_f32_copy(row, e0), TH_ERR_SHAPE, "th_f32_copy", "does not broadcast");
    /* a 3-d permutation with odd sizes, against th_f32_get */
    th_f32_tensor *c3 = arange(3, SZ(7, 11, 13));
    th_f32_tensor *p3 = th_f32_permute(c3, (const int[]){2, 0, 1}); /* 13x7x11 */
    th_f32_tensor *q3 = th_f32_empty(3, SZ(13, 7, 11));
    CHECK_INT_EQ(th_f32_copy(q3, p3), TH_OK);
    long bad = 0;
    for (int i = 0; i < 13; i++)
        for (int j = 0; j < 7; j++)
            for (int k = 0; k < 11; k++)
                bad += th_f32_get(q3, IDX(i, j, k)) != th_f32_get(c3, IDX(j, k, i));
    CHECK_INT_EQ(bad, 0);
    /* and back into a permuted dst */
    th_f32_tensor *c3b = th_f32_zeros(3, SZ(7, 11, 13));
    th_f32_tensor *p3b = th_f32_permute(c3b, (const int[]){2, 0, 1});
    CHECK_INT_EQ(th_f32_copy(p3b, q3), TH_OK);
    CHECK(memcmp(th_f32_data(c3b), th_f32_data(c3), 7 * 11 * 13 * sizeof(float)) == 0);
    /* copying a tensor onto itself, or onto a view with the same layout, changes nothing */
    th_f32_tensor *same = th_f32_view(c3, 1, SZ(-1));
    th_f32_tensor *same2 = th_f32_view(c3, 1, SZ(-1));
    CHECK_INT_EQ(th_f32_copy(c3, c3), TH_OK);
    CHECK_INT_EQ(th_f32_copy(same, same2), TH_OK);
    for (int k = 0; k < 7 * 11 * 13; k++) bad += th_f32_data(c3)[k] != (float)k;
    CHECK_INT_EQ(bad, 0);

    th_release(same2);
    th_release(same);
    th_release(p3b);
    th_release(c3b);
    th_release(q3);
    th_release(p3);
    th_release(c3);
    th_release(e1);
    th_release(e0);
    th_release(e);
    th_release(z2);
    th_release(ex);
    th_release(z);
    th_release(d5);
    th_release(col);
    th_release(d4);
    th_release(row);
    th_release(d3);
    th_release(r);
    th_release(win2);
    th_release(win);
    th_release(big);
    th_release(d2t);
    th_release(d2);
    th_release(d);
    th_release(t);
    th_release(a);
}

/* ---- overlapping src and dst ------------------------------------------------------------ */

/* dst and src are views of one storage: the result must be that of copying from a snapshot of src. */
static void check_overlap_copy(th_f32_tensor *base, th_f32_tensor *dst, th_f32_tensor *src, const char *what)
{
    th_f32_tensor *snap = th_f32_clone(src);
    th_f32_tensor *want = th_f32_clone(base);
    /* the expected result: want's region of dst (same offset and strides), filled from the snapshot */
    th_f32_tensor *want_dst = th_f32_as_strided(want, th_f32_ndim(dst), th_f32_sizes(dst), th_f32_strides(dst),
                                                th_f32_offset(dst) - th_f32_offset(base));
    CHECK_INT_EQ(th_f32_copy(want_dst, snap), TH_OK);
    CHECK_INT_EQ(th_f32_copy(dst, src), TH_OK);
    int64_t n = th_f32_numel(base), bad = 0;
    for (int64_t k = 0; k < n; k++) bad += th_f32_data(base)[k] != th_f32_data(want)[k];
    if (bad) fprintf(stderr, "  overlapping copy '%s': %lld elements differ from a copy of a snapshot\n", what, (long long)bad);
    CHECK_INT_EQ(bad, 0);
    th_release(want_dst);
    th_release(want);
    th_release(snap);
}

static void reset(th_f32_tensor *t)
{
    for (int64_t i = 0; i < th_f32_numel(t); i++) th_f32_data(t)[i] = (float)i;
}

static void test_copy_overlap(void)
{
    th_f32_tensor *a = arange(1, SZ(10));
    /* shifted right by one: a naive forward loop would smear a[0] over everything */
    th_f32_tensor *hi = th_f32_narrow(a, 0, 1, 8), *lo = th_f32_narrow(a, 0, 0, 8);
    check_overlap_copy(a, hi, lo, "shift right");
    const float right[10] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 9};
    CHECK(memcmp(th_f32_data(a), right, sizeof right) == 0);
    reset(a);
    check_overlap_copy(a, lo, hi, "shift left");
    const float left[10] = {1, 2, 3, 4, 5, 6, 7, 8, 8, 9};
    CHECK(memcmp(th_f32_data(a), left, sizeof left) == 0);
    reset(a);
    /* reversed onto itself */
    th_f32_tensor *rev = th_f32_as_strided(a, 1, SZ(10), SZ(-1), 9);
    check_overlap_copy(a, a, rev, "reverse");
    for (int k = 0; k < 10; k++) CHECK(th_f32_data(a)[k] == (float)(9 - k));
    reset(a);
    /* interleaved: the odd elements into the even ones (byte ranges overlap, elements do not) */
    th_f32_tensor *even = th_f32_as_strided(a, 1, SZ(5), SZ(2), 0), *odd = th_f32_as_strided(a, 1, SZ(5), SZ(2), 1);
    check_overlap_copy(a, even, odd, "interleaved");
    reset(a);
    /* shifted by more than one, wider than a block */
    th_f32_tensor *w = arange(1, SZ(1000));
    th_f32_tensor *w1 = th_f32_narrow(w, 0, 3, 997), *w0 = th_f32_narrow(w, 0, 0, 997);
    check_overlap_copy(w, w1, w0, "shift right by 3");
    reset(w);
    check_overlap_copy(w, w0, w1, "shift left by 3");

    /* a row broadcast over the matrix it belongs to */
    th_f32_tensor *m = arange(2, SZ(4, 4));
    th_f32_tensor *r2 = th_f32_select(m, 0, 2);
    check_overlap_copy(m, m, r2, "broadcast own row");
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) CHECK(th_f32_get(m, IDX(i, j)) == (float)(8 + j));
    reset(m);
    /* a column broadcast over the rows */
    th_f32_tensor *c1 = th_f32_narrow(m, 1, 1, 1);
    check_overlap_copy(m, m, c1, "broadcast own column");
    reset(m);

    /* in-place transposes, small and large enough for the tiled path */
    const int64_t ns[4] = {4, 37, 40, 64};
    for (int k = 0; k < 4; k++) {
        th_f32_tensor *sq = arange(2, SZ(ns[k], ns[k]));
        th_f32_tensor *sqt = th_f32_transpose(sq, 0, 1);
        check_overlap_copy(sq, sq, sqt, "in-place transpose");
        long bad = 0;
        for (int64_t i = 0; i < ns[k]; i++)
            for (int64_t j = 0; j < ns[k]; j++) bad += th_f32_get(sq, IDX(i, j)) != (float)(j * ns[k] + i);
        CHECK_INT_EQ(bad, 0);
        th_release(sqt);
        th_release(sq);
    }
    /* an overlapping copy between views of a strided 2-d block */
    th_f32_tensor *g = arange(2, SZ(40, 50));
    th_f32_tensor *ga0 = th_f32_narrow(g, 0, 0, 35), *gb0 = th_f32_narrow(g, 0, 3, 35);
    th_f32_tensor *ga = th_f32_narrow(ga0, 1, 0, 45), *gb = th_f32_narrow(gb0, 1, 2, 45);
    check_overlap_copy(g, gb, ga, "2-d block shift");
    reset(g);
    check_overlap_copy(g, ga, gb, "2-d block shift back");
    reset(g);
    /* the same through a transpose: dst = a shifted block, src = the transpose of another */
    th_f32_tensor *sq0 = th_f32_narrow(g, 1, 0, 40);
    th_f32_tensor *sqa = th_f32_narrow(sq0, 0, 0, 38), *sqa2 = th_f32_narrow(sqa, 1, 0, 38);
    th_f32_tensor *sqb = th_f32_narrow(sq0, 0, 2, 38), *sqb2 = th_f32_narrow(sqb, 1, 1, 38);
    th_f32_tensor *sqbt = th_f32_transpose(sqb2, 0, 1);
    check_overlap_copy(g, sqa2, sqbt, "2-d transposed block shift");
    th_release(sqbt);
    th_release(sqb2);
    th_release(sqb);
    th_release(sqa2);
    th_release(sqa);
    th_release(sq0);
    th_release(gb);
    th_release(ga);
    th_release(gb0);
    th_release(ga0);
    th_release(g);

    th_release(c1);
    th_release(r2);
    th_release(m);
    th_release(w0);
    th_release(w1);
    th_release(w);
    th_release(odd);
    th_release(even);
    th_release(rev);
    th_release(lo);
    th_release(hi);
    th_release(a);
}

/* ---- the tiled transpose path ----------------------------------------------------------- */

static long tiled_case(th_dtype dt, int64_t rows, int64_t cols, int mode)
{
    const size_t es = dt_size(dt);
    th_tensor *store = NULL, *src = NULL, *dst = NULL, *dst_store = NULL;
    /* mode 0: src is the transpose of a contiguous cols x rows tensor, dst contiguous rows x cols
     * mode 1: src contiguous rows x cols, dst the transpose of a contiguous cols x rows tensor
     * mode 2: like 0, but src's rows are narrowed out of wider ones (row stride != size) */
    int64_t width = mode == 2 ? rows + 5 : rows;
    store = dt_empty(dt, 2, mode == 1 ? SZ(rows, cols) : SZ(cols, width));
    unsigned char *p = (unsigned char *)th_tensor_data(store);
    int64_t nbytes = th_tensor_numel(store) * (int64_t)es;
    for (int64_t b = 0; b < nbytes; b++) p[b] = (unsigned char)((b * 131 + b / 251) & 0xff);
    if (mode == 1) {
        src = th_tensor_retain(store);
        dst_store = dt_empty(dt, 2, SZ(cols, rows));
        dst = dt_transpose(dst_store, 0, 1);
    } else {
        th_tensor *narrowed = mode == 2 ? dt_narrow(store, 1, 2, rows) : th_tensor_retain(store);
        src = dt_transpose(narrowed, 0, 1);
        th_tensor_release(narrowed);
        dst_store = dt_empty(dt, 2, SZ(rows, cols));
        dst = th_tensor_retain(dst_store);
    }
    long bad = 0;
    if (dt_copy(dst, src) != TH_OK) bad++;
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++) bad += memcmp(elem_ptr(dst, IDX(i, j)), elem_ptr(src, IDX(i, j)), es) != 0;
    th_tensor_release(dst);
    th_tensor_release(dst_store);
    th_tensor_release(src);
    th_tensor_release(store);
    return bad;
}

static void test_tiled(void)
{
    const th_dtype dts[6] = {TH_U8, TH_I16, TH_F32, TH_I32, TH_F64, TH_C128};
    /* the last two are large enough to split across threads (th__threads_for) */
    const int64_t shapes[][2] = {{32, 32}, {33, 47}, {64, 64}, {100, 37}, {31, 200}, {257, 65}, {1, 40}, {16, 16},
                                 {300, 261}, {1027, 96}};
    for (int d = 0; d < 6; d++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            for (int mode = 0; mode < 3; mode++) {
                long bad = tiled_case(dts[d], shapes[s][0], shapes[s][1], mode);
                if (bad)
                    fprintf(stderr, "  tiled copy %s %lldx%lld mode %d: %ld elements wrong\n", th_dtype_name(dts[d]),
                            (long long)shapes[s][0], (long long)shapes[s][1], mode, bad);
                CHECK_INT_EQ(bad, 0);
            }
}

/* ---- batched transposes: permutations of 3-d and 4-d tensors ---------------------------- */

/* A contiguous tensor of `shape` seen through perm (view dim k is dim perm[k]), dims in flip reversed
 * (negative strides). mode 0: that view copied into a contiguous dst; mode 1: a contiguous src copied into the
 * same view of a contiguous dst. Every element checked against the address the strides give it. */
static long perm_case(th_dtype dt, int nd, const int64_t *shape, const int *perm, unsigned flip, int mode)
{
    const size_t es = dt_size(dt);
    int64_t cstr[8], vs[8], vst[8], off = 0;
    for (int d = nd - 1, s = 1; d >= 0; d--) {
        cstr[d] = s;
        s *= (int)shape[d];
    }
    for (int k = 0; k < nd; k++) {
        vs[k] = shape[perm[k]];
        vst[k] = (flip >> k & 1u) ? -cstr[perm[k]] : cstr[perm[k]];
        if (flip >> k & 1u) off += (vs[k] - 1) * cstr[perm[k]];
    }
    th_tensor *store = dt_empty(dt, nd, shape);
    th_tensor *view = dt_as_strided(store, nd, vs, vst, off);
    th_tensor *plain = dt_empty(dt, nd, vs);
    if (!store || !view || !plain) {
        th_tensor_release(plain);
        th_tensor_release(view);
        th_tensor_release(store);
        return 1;
    }
    unsigned char *filled = (unsigned char *)th_tensor_data(mode == 0 ? store : plain);
    unsigned char *cleared = (unsigned char *)th_tensor_data(mode == 0 ? plain : store);
    int64_t nbytes = th_tensor_numel(store) * (int64_t)es;
    for (int64_t b = 0; b < nbytes; b++) {
        filled[b] = (unsigned char)((b * 131 + b / 251 + 7) & 0xff);
        cleared[b] = 0;
    }
    long bad = mode == 0 ? dt_copy(plain, view) != TH_OK : dt_copy(view, plain) != TH_OK;
    int64_t idx[8] = {0};
    for (int64_t e = 0; e < th_tensor_numel(store); e++) {
        bad += memcmp(elem_ptr(plain, idx), elem_ptr(view, idx), es) != 0;
        for (int k = nd - 1; k >= 0 && ++idx[k] == vs[k]; k--) idx[k] = 0;
    }
    th_tensor_release(plain);
    th_tensor_release(view);
    th_tensor_release(store);
    return bad;
}

static void test_tiled_batched(void)
{
    const th_dtype dts[] = {TH_U8, TH_I16, TH_F16, TH_BF16, TH_F32, TH_I32, TH_F64, TH_C128};
    static const struct {
        int nd;
        int64_t shape[4];
        int perm[4];
    } cases[] = {
        {4, {2, 24, 9, 11}, {0, 2, 3, 1}},  /* NCHW -> NHWC: per n a (24, 99) transpose */
        {4, {2, 9, 11, 24}, {0, 3, 1, 2}},  /* NHWC -> NCHW */
        {4, {3, 8, 1, 33}, {0, 2, 3, 1}},   /* H = 1 dropped */
        {4, {1, 40, 7, 5}, {0, 2, 3, 1}},   /* N = 1: one 2-d transpose */
        {4, {2, 3, 6, 70}, {0, 2, 3, 1}},   /* C = 3: rows too short for the tiles */
        {3, {5, 37, 41}, {0, 2, 1}},        /* a batch of 37x41 transposes */
        {3, {5, 37, 41}, {2, 0, 1}},        /* dims 0 and 1 merge: one (185, 41) transpose */
        {3, {4, 33, 65}, {2, 1, 0}},        /* the batch dim innermost in src */
        {3, {3, 1, 50}, {0, 2, 1}},         /* 1-row matrices */
        {4, {2, 3, 34, 17}, {1, 0, 3, 2}},  /* two batch dims */
        {4, {3, 40, 33, 35}, {0, 2, 3, 1}}, /* large enough to split across 2 threads */
        {4, {3, 33, 35, 40}, {0, 3, 1, 2}},
    };
    const unsigned flips[] = {0u, 1u, 6u, 15u};
    const int prev = th_get_num_threads();
    for (int threads = 1; threads <= 2; threads++) {
        th_set_num_threads(threads);
        for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++)
            for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
                for (size_t f = 0; f < sizeof flips / sizeof flips[0]; f++)
                    for (int mode = 0; mode < 2; mode++) {
                        if (f > 1 && (c >= 10 || dt_size(dts[d]) == 2)) continue; /* keeps it short */
                        unsigned flip = flips[f] & ((1u << cases[c].nd) - 1u);
                        long bad = perm_case(dts[d], cases[c].nd, cases[c].shape, cases[c].perm, flip, mode);
                        if (bad)
                            fprintf(stderr, "  batched copy %s case %zu flip %u mode %d threads %d: %ld wrong\n",
                                    th_dtype_name(dts[d]), c, flip, mode, threads, bad);
                        CHECK_INT_EQ(bad, 0);
                    }
    }
    th_set_num_threads(prev);
}

/* ---- contiguous and clone --------------------------------------------------------------- */

static void test_contiguous_clone(void)
{
    th_f32_tensor *a = arange(2, SZ(3, 4));
    int64_t allocs = th_counting_allocator_stats(check_counter).total_allocs;
    /* already contiguous: the same object, retained */
    th_f32_tensor *c = th_f32_contiguous(a);
    CHECK(c == a);
    CHECK_INT_EQ(th_storage_refcount(th_f32_storage(a)), 1);
    th_release(c); /* drops the reference contiguous added */
    CHECK_INT_EQ(th_f32_numel(a), 12);
    CHECK_INT_EQ(th_counting_allocator_stats(check_counter).total_allocs, allocs);
    /* rows narrowed out of a contiguous tensor are contiguous too, at an offset */
    th_f32_tensor *rows = th_f32_narrow(a, 0, 1, 2);
    th_f32_tensor *rc = th_f32_contiguous(rows);
    CHECK(rc == rows);
    th_release(rc);
    /* a 0-d tensor and a size-0 one are contiguous whatever their strides */
    th_f32_tensor *z = th_f32_full(0, NULL, 1.0f);
    th_f32_tensor *zc = th_f32_contiguous(z);
    CHECK(zc == z);
    th_release(zc);
    th_f32_tensor *e = th_f32_empty(2, SZ(0, 3));
    th_f32_tensor *et = th_f32_transpose(e, 0, 1);
    th_f32_tensor *etc = th_f32_contiguous(et);
    CHECK(etc == et);
    th_release(etc);
    /* a unit dim with any stride is still contiguous */
    th_f32_tensor *u = th_f32_as_strided(a, 2, SZ(1, 4), SZ(99, 1), 4);
    th_f32_tensor *uc = th_f32_contiguous(u);
    CHECK(uc == u);
    th_release(uc);

    /* not contiguous: a new contiguous copy */
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    allocs = th_counting_allocator_stats(check_counter).total_allocs;
    th_f32_tensor *tc = th_f32_contiguous(t);
    CHECK(tc != t);
    CHECK(th_f32_is_contiguous(tc));
    CHECK(th_f32_storage(tc) != th_f32_storage(a));
    CHECK_INT_EQ(th_storage_refcount(th_f32_storage(tc)), 1);
    CHECK_INT_EQ(th_counting_allocator_stats(check_counter).total_allocs, allocs + 1);
    CHECK_INT_EQ(th_f32_ndim(tc), 2);
    CHECK_INT_EQ(th_f32_size(tc, 0), 4);
    CHECK_INT_EQ(th_f32_stride(tc, 0), 3);
    CHECK_INT_EQ(th_f32_offset(tc), 0);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) CHECK(th_f32_data(tc)[i * 3 + j] == (float)(4 * j + i));
    /* an expanded tensor is materialised */
    th_f32_tensor *col = th_f32_narrow(a, 1, 3, 1);
    th_f32_tensor *ex = th_f32_expand(col, 3, SZ(2, 3, 5));
    th_f32_tensor *exc = th_f32_contiguous(ex);
    CHECK(th_f32_is_contiguous(exc));
    CHECK_INT_EQ(th_storage_nbytes(th_f32_storage(exc)), 30 * (int64_t)sizeof(float));
    CHECK(th_f32_get(exc, IDX(1, 2, 4)) == 11.0f);
    CHECK_INT_EQ(th_f32_stride(exc, 0), 15);

    /* clone: always a new tensor with its own storage */
    th_f32_tensor *k = th_f32_clone(a);
    CHECK(k != a && th_f32_storage(k) != th_f32_storage(a));
    CHECK(th_f32_is_contiguous(k));
    CHECK(memcmp(th_f32_data(k), th_f32_data(a), 12 * sizeof(float)) == 0);
    th_f32_data(k)[0] = -1.0f;
    CHECK(th_f32_data(a)[0] == 0.0f);
    th_f32_tensor *kt = th_f32_clone(t);
    CHECK(memcmp(th_f32_data(kt), th_f32_data(tc), 12 * sizeof(float)) == 0);
    CHECK_INT_EQ(th_f32_stride(kt, 0), 3);
    th_f32_tensor *kz = th_f32_clone(z);
    CHECK_INT_EQ(th_f32_ndim(kz), 0);
    CHECK(th_f32_get(kz, NULL) == 1.0f);
    CHECK(th_f32_storage(kz) != th_f32_storage(z));
    th_f32_tensor *ke = th_f32_clone(et);
    CHECK_INT_EQ(th_f32_numel(ke), 0);
    CHECK_INT_EQ(th_f32_size(ke, 0), 3);
    CHECK_INT_EQ(th_f32_size(ke, 1), 0);
    th_f32_tensor *kx = th_f32_clone(ex);
    CHECK_INT_EQ(th_f32_stride(kx, 1), 5);
    CHECK(th_f32_get(kx, IDX(0, 1, 0)) == 7.0f);
    /* the _Generic front end on another dtype */
    th_i16_tensor *s = th_i16_full(2, SZ(2, 3), 7);
    th_i16_tensor *st = th_transpose(s, 0, 1);
    th_i16_tensor *sc = th_contiguous(st);
    th_i16_tensor *sk = th_clone(s);
    th_i16_tensor *ss = th_contiguous(s);
    CHECK(sc != st && ss == s && sk != s);
    CHECK_INT_EQ(th_get(sc, IDX(2, 1)), 7);
    th_release(ss);
    th_release(sk);
    th_release(sc);
    th_release(st);
    th_release(s);

    th_release(kx);
    th_release(ke);
    th_release(kz);
    th_release(kt);
    th_release(k);
    th_release(exc);
    th_release(ex);
    th_release(col);
    th_release(tc);
    th_release(t);
    th_release(u);
    th_release(et);
    th_release(e);
    th_release(z);
    th_release(rows);
    th_release(a);
}

/* ---- fill ------------------------------------------------------------------------------- */

static void test_fill(void)
{
    th_f32_tensor *a = arange(2, SZ(4, 5));
    /* transposed: every element */
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    CHECK_INT_EQ(th_f32_fill(t, 2.0f), TH_OK);
    for (int k = 0; k < 20; k++) CHECK(th_f32_data(a)[k] == 2.0f);
    /* narrowed: only the window */
    th_f32_tensor *w0 = th_f32_narrow(a, 1, 1, 3);
    th_f32_tensor *w = th_f32_narrow(w0, 0, 2, 2);
    CHECK_INT_EQ(th_fill(w, -1.0f), TH_OK);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            CHECK(th_f32_get(a, IDX(i, j)) == ((i >= 2 && j >= 1 && j < 4) ? -1.0f : 2.0f));
    /* expanded (stride 0): the shared elements get the value */
    th_f32_tensor *col = th_f32_narrow(a, 1, 0, 1);
    th_f32_tensor *ex = th_f32_expand(col, 3, SZ(3, 4, 7));
    CHECK_INT_EQ(th_f32_fill(ex, 9.0f), TH_OK);
    for (int i = 0; i < 4; i++) CHECK(th_f32_get(a, IDX(i, 0)) == 9.0f);
    CHECK(th_f32_get(a, IDX(0, 1)) == 2.0f);
    /* negative strides */
    th_f32_tensor *r = th_f32_as_strided(a, 1, SZ(5), SZ(-2), 10); /* 10, 8, 6, 4, 2 */
    CHECK_INT_EQ(th_f32_fill(r, 5.0f), TH_OK);
    for (int k = 0; k < 20; k++) {
        bool in = k <= 10 && k % 2 == 0 && k >= 2;
        if (in) CHECK(th_f32_data(a)[k] == 5.0f);
    }
    CHECK(th_f32_data(a)[0] == 9.0f);
    /* 0-d and size 0 */
    th_f32_tensor *z = th_f32_zeros(0, NULL);
    CHECK_INT_EQ(th_f32_fill(z, 3.0f), TH_OK);
    CHECK(th_f32_get(z, NULL) == 3.0f);
    th_f32_tensor *e = th_f32_empty(2, SZ(3, 0));
    CHECK_INT_EQ(th_f32_fill(e, 3.0f), TH_OK);
    /* a permuted 3-d tensor, large enough for every path */
    th_f32_tensor *b = th_f32_zeros(3, SZ(9, 17, 33));
    th_f32_tensor *bp = th_f32_permute(b, (const int[]){1, 2, 0});
    th_f32_tensor *bpn = th_f32_narrow(bp, 1, 1, 31);
    CHECK_INT_EQ(th_f32_fill(bpn, 1.0f), TH_OK);
    long bad = 0;
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 17; j++)
            for (int k = 0; k < 33; k++)
                bad += th_f32_get(b, IDX(i, j, k)) != ((k >= 1 && k < 32) ? 1.0f : 0.0f);
    CHECK_INT_EQ(bad, 0);
    /* other dtypes */
    th_i16_tensor *s = th_i16_zeros(2, SZ(3, 3));
    th_i16_tensor *sd = th_as_strided(s, 1, SZ(3), SZ(4), 0); /* the diagonal */
    CHECK_INT_EQ(th_fill(sd, 7), TH_OK);
    for (int i = 0; i < 9; i++) CHECK_INT_EQ(th_i16_data(s)[i], i % 4 == 0 ? 7 : 0);
    th_bool_tensor *q = th_bool_zeros(2, SZ(2, 3));
    th_bool_tensor *qt = th_transpose(q, 0, 1);
    CHECK_INT_EQ(th_fill(qt, true), TH_OK);
    for (int i = 0; i < 6; i++) CHECK(th_bool_data(q)[i] == true);
    th_f16_tensor *h = th_f16_zeros(1, SZ(5));
    th_f16_tensor *hs = th_f16_as_strided(h, 1, SZ(2), SZ(3), 1);
    CHECK_INT_EQ(th_f16_fill(hs, th_float16_from_float(1.5f)), TH_OK);
    CHECK_INT_EQ(th_f16_data(h)[1].bits, 0x3e00);
    CHECK_INT_EQ(th_f16_data(h)[4].bits, 0x3e00);
    CHECK_INT_EQ(th_f16_data(h)[2].bits, 0);
    th_c128_tensor *c = th_c128_zeros(2, SZ(2, 2));
    th_c128_tensor *ct = th_transpose(c, 0, 1);
    th_complex128 cv;
    const double parts[2] = {1.0, -2.0};
    memcpy(&cv, parts, sizeof cv);
    CHECK_INT_EQ(th_fill(ct, cv), TH_OK);
    for (int i = 0; i < 4; i++) CHECK(memcmp(&th_c128_data(c)[i], parts, sizeof parts) == 0);
    /* storage fill */
    th_storage *sto = th_f64_storage_new(5);
    CHECK_INT_EQ(th_f64_storage_fill(sto, 0.25), TH_OK);
    for (int i = 0; i < 5; i++) CHECK(th_f64_storage_data(sto)[i] == 0.25);
    th_storage_release(sto);

    th_release(ct);
    th_release(c);
    th_release(hs);
    th_release(h);
    th_release(qt);
    th_release(q);
    th_release(sd);
    th_release(s);
    th_release(bpn);
    th_release(bp);
    th_release(b);
    th_release(e);
    th_release(z);
    th_release(r);
    th_release(ex);
    th_release(col);
    th_release(w);
    th_release(w0);
    th_release(t);
    th_release(a);
}

/* ---- blobs that are not aligned to their element type -------------------------------------- */

/* Wrapped memory may be unaligned: every path must load and store without assuming alignment (a
 * -fsanitize=alignment build checks this). Values are read back with memcpy. */
static double raw_f64(const th_storage *s, int64_t i)
{
    double v;
    memcpy(&v, (const char *)th_storage_raw_data(s) + i * 8, 8);
    return v;
}

static void test_unaligned(void)
{
    enum { N = 40 };
    static unsigned char raw[N * N * 16 + 64];
    memset(raw, 0, sizeof raw);
    th_storage *s = th_storage_from_blob(raw + 1, N * N * 8, (th_device){TH_DEVICE_CPU, 0}, NULL, NULL);
    th_f64_tensor *d = th_f64_new_with_storage(s, 0, 2, SZ(N, N), NULL);
    CHECK(d != NULL);
    /* fill, set and get */
    CHECK_INT_EQ(th_f64_fill(d, 1.5), TH_OK);
    long bad = 0;
    for (int64_t k = 0; k < N * N; k++) bad += raw_f64(s, k) != 1.5;
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(th_f64_set(d, IDX(3, 4), -2.0), TH_OK);
    CHECK(th_f64_get(d, IDX(3, 4)) == -2.0);
    CHECK(raw_f64(s, 3 * N + 4) == -2.0);
    CHECK_INT_EQ(th_f64_storage_fill(s, 0.5), TH_OK);
    CHECK(raw_f64(s, N * N - 1) == 0.5);
    /* a transposed copy (the tiled path) into unaligned memory, and out of it */
    th_f64_tensor *src = th_f64_empty(2, SZ(N, N));
    for (int64_t k = 0; k < N * N; k++) th_f64_data(src)[k] = (double)k;
    th_f64_tensor *srct = th_f64_transpose(src, 0, 1);
    CHECK_INT_EQ(th_f64_copy(d, srct), TH_OK);
    bad = 0;
    for (int64_t i = 0; i < N; i++)
        for (int64_t j = 0; j < N; j++) bad += raw_f64(s, i * N + j) != (double)(j * N + i);
    CHECK_INT_EQ(bad, 0);
    th_f64_tensor *dt = th_f64_transpose(d, 0, 1);
    th_f64_tensor *back = th_f64_clone(dt);
    CHECK(memcmp(th_f64_data(back), th_f64_data(src), N * N * sizeof(double)) == 0);
    /* conversions with an unaligned dst (f64 is a wide type: its direct path must check alignment) and src */
    th_i32_tensor *iv = th_i32_empty(2, SZ(N, N));
    for (int64_t k = 0; k < N * N; k++) th_i32_data(iv)[k] = (int32_t)(k - 7);
    CHECK_INT_EQ(th_tensor_copy(th_f64_base(d), th_i32_base(iv)), TH_OK);
    bad = 0;
    for (int64_t k = 0; k < N * N; k++) bad += raw_f64(s, k) != (double)(k - 7);
    CHECK_INT_EQ(bad, 0);
    th_f32_tensor *fv = th_f32_convert(th_f64_base(d));
    th_i64_tensor *lv = th_i64_convert(th_f64_base(d));
    CHECK(th_f32_data(fv)[N * N - 1] == (float)(N * N - 8));
    CHECK_INT_EQ(th_i64_data(lv)[5], -2);
    /* complex, unaligned by 8 */
    th_storage *cs = th_storage_from_blob(raw + 8, N * 16, (th_device){TH_DEVICE_CPU, 0}, NULL, NULL);
    th_c128_tensor *cz = th_c128_new_with_storage(cs, 0, 1, SZ(N), NULL);
    th_i32_tensor *iv0 = th_i32_select(iv, 0, 0); /* -7, -6, ... */
    th_c64_tensor *c64 = th_c64_convert(th_i32_base(iv0));
    th_release(iv0);
    CHECK_INT_EQ(th_tensor_copy(th_c128_base(cz), th_c64_base(c64)), TH_OK);
    double part[2];
    memcpy(part, (const char *)th_storage_raw_data(cs) + 9 * 16, sizeof part);
    CHECK(part[0] == 2.0 && part[1] == 0.0);
    th_c128_tensor *cc = th_c128_clone(cz);
    memcpy(part, &th_c128_data(cc)[9], sizeof part);
    CHECK(part[0] == 2.0 && part[1] == 0.0);
    /* printing reads through the same loads */
    th_f64_tensor *row0 = th_f64_select(d, 0, 0);
    th_f64_tensor *row = th_f64_narrow(row0, 0, 0, 3);
    FILE *f = tmpfile();
    if (f) {
        CHECK_INT_EQ(th_f64_print(f, row), TH_OK);
        fclose(f);
    }
    th_release(row);
    th_release(row0);
    th_release(cc);
    th_release(c64);
    th_release(cz);
    th_storage_release(cs);
    th_release(lv);
    th_release(fv);
    th_release(iv);
    th_release(back);
    th_release(dt);
    th_release(srct);
    th_release(src);
    th_release(d);
    th_storage_release(s);
}

/* ---- printing --------------------------------------------------------------------------- */

/* What th_tensor_print writes for t (NUL-terminated in a static buffer; "" and a failed check on error). */
static const char *printed(const th_tensor *t)
{
    static char buf[1 << 16];
    buf[0] = '\0';
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return buf;
    int status = th_tensor_print(f, t);
    CHECK_INT_EQ(status, TH_OK);
    long n = ftell(f);
    rewind(f);
    if (n < 0 || (size_t)n >= sizeof buf) n = 0;
    size_t got = fread(buf, 1, (size_t)n, f);
    buf[got] = '\0';
    fclose(f);
    return buf;
}

static bool printed_is(const th_tensor *t, const char *want)
{
    const char *got = printed(t);
    if (strcmp(got, want) == 0) return true;
    fprintf(stderr, "  printed:\n%s  wanted:\n%s", got, want);
    return false;
}

static void test_print(void)
{
    th_f32_tensor *a = th_f32_empty(2, SZ(2, 2));
    const float av[4] = {1, 2, 3, 4};
    memcpy(th_f32_data(a), av, sizeof av);
    CHECK(printed_is(th_f32_base(a), "tensor([[1., 2.],\n        [3., 4.]], dtype=f32)\n"));
    /* a transposed view prints in its own order */
    th_f32_tensor *at = th_f32_transpose(a, 0, 1);
    CHECK(printed_is(th_f32_base(at), "tensor([[1., 3.],\n        [2., 4.]], dtype=f32)\n"));
    /* the typed and _Generic printers write the same */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        CHECK_INT_EQ(th_f32_print(f, a), TH_OK);
        CHECK_INT_EQ(th_print(f, a), TH_OK);
        long n = ftell(f);
        CHECK_INT_EQ(n, 2 * (long)strlen("tensor([[1., 2.],\n        [3., 4.]], dtype=f32)\n"));
        fclose(f);
    }

    /* non-integral values: four decimals, right-aligned to the widest */
    th_f32_tensor *b = th_f32_empty(1, SZ(3));
    const float bv[3] = {1.5f, -2.0f, 0.25f};
    memcpy(th_f32_data(b), bv, sizeof bv);
    CHECK(printed_is(th_f32_base(b), "tensor([ 1.5000, -2.0000,  0.2500], dtype=f32)\n"));
    /* 0-d */
    th_f64_tensor *z = th_f64_full(0, NULL, 3.5);
    CHECK(printed_is(th_f64_base(z), "tensor(3.5000, dtype=f64)\n"));
    th_i32_tensor *zi = th_i32_full(0, NULL, -7);
    CHECK(printed_is(th_i32_base(zi), "tensor(-7, dtype=i32)\n"));
    /* bool */
    th_bool_tensor *q = th_bool_zeros(1, SZ(3));
    th_bool_data(q)[0] = true;
    th_bool_data(q)[2] = true;
    CHECK(printed_is(th_bool_base(q), "tensor([ True, False,  True], dtype=bool)\n"));
    th_bool_tensor *q0 = th_bool_full(0, NULL, false);
    CHECK(printed_is(th_bool_base(q0), "tensor(False, dtype=bool)\n"));
    /* integers */
    th_i32_tensor *i = th_i32_empty(1, SZ(3));
    const int32_t iv[3] = {1, -20, 300};
    memcpy(th_i32_data(i), iv, sizeof iv);
    CHECK(printed_is(th_i32_base(i), "tensor([  1, -20, 300], dtype=i32)\n"));
    th_u8_tensor *u = th_u8_full(1, SZ(1), 255);
    CHECK(printed_is(th_u8_base(u), "tensor([255], dtype=u8)\n"));
    /* three dims: a blank line between the matrices */
    th_i64_tensor *c3 = th_i64_empty(3, SZ(2, 2, 2));
    for (int k = 0; k < 8; k++) th_i64_data(c3)[k] = k;
    CHECK(printed_is(th_i64_base(c3),
                     "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]], dtype=i64)\n"));
    /* empty tensors */
    th_f32_tensor *e1 = th_f32_empty(1, SZ(0));
    CHECK(printed_is(th_f32_base(e1), "tensor([], size=(0,), dtype=f32)\n"));
    th_i64_tensor *e2 = th_i64_empty(2, SZ(2, 0));
    CHECK(printed_is(th_i64_base(e2), "tensor([], size=(2, 0), dtype=i64)\n"));
    /* scientific notation for large or tiny magnitudes */
    th_f64_tensor *sci = th_f64_empty(1, SZ(2));
    th_f64_data(sci)[0] = 1e10;
    th_f64_data(sci)[1] = 1.0;
    CHECK(printed_is(th_f64_base(sci), "tensor([1.0000e+10, 1.0000e+00], dtype=f64)\n"));
    th_f64_data(sci)[0] = 1e-5;
    th_f64_data(sci)[1] = -2.0;
    CHECK(printed_is(th_f64_base(sci), "tensor([ 1.0000e-05, -2.0000e+00], dtype=f64)\n"));
    /* non-finite values */
    th_f32_tensor *nf = th_f32_empty(1, SZ(3));
    const float nv[3] = {NAN, -INFINITY, 1.0f};
    memcpy(th_f32_data(nf), nv, sizeof nv);
    CHECK(printed_is(th_f32_base(nf), "tensor([ nan, -inf,   1.], dtype=f32)\n"));
    /* complex */
    th_c64_tensor *cx = th_c64_empty(1, SZ(2));
    const float cv[4] = {1.0f, 2.0f, -0.5f, -1.0f};
    memcpy(th_c64_data(cx), cv, sizeof cv);
    CHECK(printed_is(th_c64_base(cx), "tensor([ 1.0000+2.0000j, -0.5000-1.0000j], dtype=c64)\n"));
    /* float16 and bfloat16 print their values */
    th_f16_tensor *h = th_f16_empty(1, SZ(2));
    th_f16_data(h)[0] = th_float16_from_float(0.5f);
    th_f16_data(h)[1] = th_float16_from_float(2.0f);
    CHECK(printed_is(th_f16_base(h), "tensor([0.5000, 2.0000], dtype=f16)\n"));
    th_bf16_tensor *bh = th_bf16_full(1, SZ(2), th_bfloat16_from_float(-3.0f));
    CHECK(printed_is(th_bf16_base(bh), "tensor([-3., -3.], dtype=bf16)\n"));

    /* more than 1000 elements: summarised with "..." */
    th_f32_tensor *big = arange(1, SZ(2000));
    const char *s = printed(th_f32_base(big));
    CHECK(strstr(s, "...") != NULL);
    CHECK(strcmp(s, "tensor([   0.,    1.,    2., ..., 1997., 1998., 1999.], dtype=f32)\n") == 0);
    th_f32_tensor *thousand = arange(1, SZ(1000)); /* exactly 1000: printed in full */
    s = printed(th_f32_base(thousand));
    CHECK(strstr(s, "...") == NULL);
    CHECK(strstr(s, " 500.,") != NULL);
    th_f32_tensor *m = arange(2, SZ(100, 100));
    s = printed(th_f32_base(m));
    CHECK(strstr(s, "...") != NULL);
    CHECK(strlen(s) < 1000);
    CHECK(strstr(s, "[   0.,    1.,    2., ...,   97.,   98.,   99.],\n") != NULL);
    CHECK(strstr(s, "[9900., 9901., 9902., ..., 9997., 9998., 9999.]]") != NULL);
    CHECK(strstr(s, ",\n        ...,\n        [9700.,") != NULL);
    CHECK(strstr(s, " 5050.") == NULL); /* the middle is left out */
    th_bool_tensor *bb = th_bool_zeros(1, SZ(1001));
    th_bool_data(bb)[0] = true;
    s = printed(th_bool_base(bb));
    CHECK(strstr(s, "...") != NULL && strstr(s, "True") != NULL && strstr(s, "dtype=bool") != NULL);
    /* an expanded tensor of more than 1000 elements */
    th_f32_tensor *one = th_f32_full(0, NULL, 1.0f);
    th_f32_tensor *ex = th_f32_expand(one, 2, SZ(50, 50));
    s = printed(th_f32_base(ex));
    CHECK(strstr(s, "...") != NULL);
    CHECK(strstr(s, "[1., 1., 1., ..., 1., 1., 1.]") != NULL);

    th_release(ex);
    th_release(one);
    th_release(bb);
    th_release(m);
    th_release(thousand);
    th_release(big);
    th_release(bh);
    th_release(h);
    th_release(cx);
    th_release(nf);
    th_release(sci);
    th_release(e2);
    th_release(e1);
    th_release(c3);
    th_release(u);
    th_release(i);
    th_release(q0);
    th_release(q);
    th_release(zi);
    th_release(z);
    th_release(b);
    th_release(at);
    th_release(a);
}

int main(void)
{
    test_begin();
    test_copy_strided();
    test_copy_overlap();
    test_tiled();
    test_tiled_batched();
    test_contiguous_clone();
    test_fill();
    test_conversion_rules();
    test_f32_f64_round_trip();
    test_unaligned();
    test_all_pairs();
    test_print();
    return test_end("copy");
}
