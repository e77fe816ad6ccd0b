/* tests/cuda/test_cuda_fill.c: cuda/fill_elems.h, the elements the device's fill kernel computes (the samplers,
 * arange, linspace, eye), run on the host against the CPU library, bit for bit, for every dtype. Runs without a
 * GPU: the kernel compiles this very text for the device.
 *
 * Draws go through the core's real dispatch: a fake device (malloc'd memory the core may not touch) whose
 * companion's random member does what cuda/fill.c does with the call (th__cuda_fill_random_args, then
 * th__cuda_fill_element for each element, a non-contiguous out through a contiguous buffer). So the sampler's
 * name, the generator state, uniform's top and randint's range that reach the kernel are the core's own. The
 * same typed call (th_f32_uniform(ndim, sizes, ...)) runs once with the host's allocator and once with the fake
 * device's as the default: both must give the same bytes and advance the generator alike. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#include "../../cuda/fill_elems.h"
#include "fill_cases.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

enum { FAKE = 20 };

static void *fake_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return malloc(n ? n : 1);
}
static void fake_free(void *ctx, void *p, size_t n)
{
    (void)ctx;
    (void)n;
    free(p);
}
static const th_allocator fake_device = {"fake", fake_alloc, NULL, fake_free, {FAKE, 0}};

static int draws; /* calls of the fake companion */

/* A host tensor over t's bytes. */
static th_tensor *host_view(const th_tensor *t)
{
    th_storage *st = th_tensor_storage(t);
    th_storage *h = th_storage_from_blob(th_storage_raw_data(st), th_storage_nbytes(st), (th_device){TH_DEVICE_CPU, 0},
                                         NULL, NULL);
    th_tensor *v = th_tensor_new_with_storage(th_tensor_dtype(t), h, th_tensor_offset(t), th_tensor_ndim(t),
                                              th_tensor_sizes(t), th_tensor_strides(t));
    th_storage_release(h);
    return v;
}

/* Element i (row-major) of a contiguous buffer of args->dtype, for n elements. */
static void fill_buffer(const th__cuda_fill_args *args, unsigned char *dst, int64_t n)
{
    const int64_t es = (int64_t)th_dtype_info((th_dtype)args->dtype)->size;
    for (int64_t i = 0; i < n; i++) th__cuda_fill_element(args, i, dst + i * es);
}

/* cuda/fill.c's th__cuda_random, with the kernel run on the host. */
static int fake_random(void *ctx, const char *fn, th_tensor *out, const th_device_random *call)
{
    (void)ctx;
    draws++;
    th__cuda_fill_args args;
    if (!th__cuda_fill_random_args(call, &args)) return th_set_error(TH_ERR_UNSUPPORTED, fn, "no %s", call->op);
    th_tensor *h = host_view(out);
    int status = TH_OK;
    if (th_tensor_is_contiguous(h)) {
        fill_buffer(&args, (unsigned char *)th_tensor_data(h), th_tensor_numel(h));
    } else {
        const size_t nbytes = (size_t)th_tensor_numel(h) * th_dtype_info(th_tensor_dtype(h))->size;
        unsigned char *buf = (unsigned char *)malloc(nbytes ? nbytes : 1);
        fill_buffer(&args, buf, th_tensor_numel(h));
        th_storage *st = th_storage_from_blob(buf, nbytes, (th_device){TH_DEVICE_CPU, 0}, NULL, NULL);
        th_tensor *dense = th_tensor_new_with_storage(th_tensor_dtype(h), st, 0, th_tensor_ndim(h), th_tensor_sizes(h),
                                                      NULL);
        status = dense ? th_tensor_copy(h, dense) : th_last_status();
        th_tensor_release(dense);
        th_storage_release(st);
        free(buf);
    }
    th_tensor_release(h);
    return status;
}

static const th_device_ops fake_ops = {.name = "fake", .random = fake_random};

/* ---- the samplers -------------------------------------------------------------------------------------------- */

/* Draws of n elements (a 2-d shape) from the same state on the host and on the fake device: the same bytes,
 * the same generator state after. */
static void check_draw(const char *label, const sampler_case *c, const int64_t *sizes, uint64_t seed, uint64_t offset)
{
    th_generator *gh = th_generator_new(seed), *gd = th_generator_new(seed);
    th_generator_set_state(gh, (th_generator_state){seed, offset});
    th_generator_set_state(gd, (th_generator_state){seed, offset});
    th_tensor *host = c->fn(2, sizes, c->a, c->b, gh);
    void *saved_ctx;
    const th_allocator *saved = th_default_allocator(&saved_ctx);
    th_set_default_allocator(&fake_device, NULL);
    const int before = draws;
    th_tensor *dev = c->fn(2, sizes, c->a, c->b, gd);
    th_set_default_allocator(saved, saved_ctx);
    bool ok = host && dev && draws == before + 1 &&
              th_storage_device(th_tensor_storage(dev)).type == FAKE &&
              (th_tensor_numel(host) == 0 ||
               memcmp(th_tensor_data(host), th_tensor_data(dev),
                      (size_t)th_tensor_numel(host) * th_dtype_info(th_tensor_dtype(host))->size) == 0) &&
              th_generator_get_state(gh).offset == th_generator_get_state(gd).offset;
    if (!ok) printf("%s %s(%g, %g) from offset %llu: the fake device's draw differs from the host's\n", label, c->name,
                    c->a, c->b, (unsigned long long)offset);
    CHECK(ok);
    th_tensor_release(dev);
    th_tensor_release(host);
    th_generator_free(gd);
    th_generator_free(gh);
}

static void test_samplers(void)
{
    /* The offsets: 0, one where the counter carries from its first 32-bit word into its second inside the draw,
     * and one where it wraps past 2^64. */
    const uint64_t offsets[3] = {0, UINT64_C(0xfffff800), UINT64_C(0xfffffffffffff800)};
    for (size_t d = 0; d < sizeof sampler_cases / sizeof sampler_cases[0]; d++)
        for (int k = 0; k < 16 && sampler_cases[d].c[k].name; k++)
            for (int o = 0; o < 3; o++)
                check_draw(sampler_cases[d].sfx, &sampler_cases[d].c[k], SZ(64, 65), 0x243f6a8885a308d3u, offsets[o]);
}

/* A transposed out on the fake device gets the host's values for a view of its shape. */
static void test_strided(void)
{
    th_generator *gh = th_generator_new(5), *gd = th_generator_new(5);
    th_f16_tensor *host = th_f16_empty(2, SZ(40, 30)), *host_t = th_f16_transpose(host, 0, 1);
    void *saved_ctx;
    const th_allocator *saved = th_default_allocator(&saved_ctx);
    th_set_default_allocator(&fake_device, NULL);
    th_f16_tensor *dev = th_f16_empty(2, SZ(40, 30));
    th_set_default_allocator(saved, saved_ctx);
    th_f16_tensor *dev_t = th_f16_transpose(dev, 0, 1);
    CHECK_INT_EQ(th_f16_normal_inplace(host_t, 1.0, 2.0, gh), TH_OK);
    CHECK_INT_EQ(th_f16_normal_inplace(dev_t, 1.0, 2.0, gd), TH_OK);
    CHECK(memcmp(th_f16_data(host), th_f16_data(dev), 1200 * sizeof(th_float16)) == 0);
    /* and not simply the values in memory order: the first row of the view is the first column in memory */
    th_generator *g = th_generator_new(5);
    th_f16_tensor *plain = th_f16_normal(2, SZ(30, 40), 1.0, 2.0, g);
    th_generator_free(g);
    CHECK(memcmp(th_f16_data(host), th_f16_data(plain), 1200 * sizeof(th_float16)) != 0);
    th_f16_tensor *plain_c = th_f16_contiguous(host_t);
    CHECK(plain_c && memcmp(th_f16_data(plain_c), th_f16_data(plain), 1200 * sizeof(th_float16)) == 0);
    th_f16_release(plain_c);
    th_f16_release(plain);
    th_f16_release(dev_t);
    th_f16_release(dev);
    th_f16_release(host_t);
    th_f16_release(host);
    th_generator_free(gd);
    th_generator_free(gh);
}

/* ---- creation ------------------------------------------------------------------------------------------------ */

static void check_bytes(const char *what, const th_tensor *cpu, const th__cuda_fill_args *args, int64_t n)
{
    const size_t es = th_dtype_info((th_dtype)args->dtype)->size;
    unsigned char *buf = (unsigned char *)malloc((size_t)(n > 0 ? n : 1) * es);
    fill_buffer(args, buf, n);
    bool ok = cpu && th_tensor_numel(cpu) == n && (n == 0 || memcmp(th_tensor_data(cpu), buf, (size_t)n * es) == 0);
    if (!ok) printf("%s on %s: the device's elements differ from the CPU's\n", what, th_dtype_name((th_dtype)args->dtype));
    CHECK(ok);
    free(buf);
}

static void test_creation(void)
{
    const struct {
        th_dtype dt;
        arange_f_fn arange;
        linspace_fn linspace;
    } floating[] = {{TH_F16, f16_arange, f16_linspace}, {TH_BF16, bf16_arange, bf16_linspace},
                    {TH_F32, f32_arange, f32_linspace}, {TH_F64, f64_arange, f64_linspace}};
    /* Steps that are not exact in binary, so that i * step rounds; descending; bounds far apart. */
    const double aranges[][3] = {{0, 10, 1}, {1, 0, -0.1}, {-3.3, 7.9, 0.7}, {1e6, 1e6 + 1, 1.0 / 3}, {0.1, 1e5, 0.37},
                                 {5, 5, 1}, {-1e300, 1e300, 1e299}};
    const struct {
        double start, end;
        int64_t steps;
    } spaces[] = {{0, 1, 5}, {0, 1, 0}, {2, 2, 1}, {-1, 1, 7}, {0.1, 0.7, 1001}, {1e-3, -12345.678, 4097}, {3, -3, 2}};
    for (size_t d = 0; d < 4; d++) {
        for (size_t k = 0; k < sizeof aranges / sizeof aranges[0]; k++) {
            th_tensor *t = floating[d].arange(aranges[k][0], aranges[k][1], aranges[k][2]);
            int64_t n = -1;
            CHECK(th__arange_count_f64(aranges[k][0], aranges[k][1], aranges[k][2], &n) && n == th_tensor_numel(t));
            th__cuda_fill_args args = th__cuda_fill_arange_f64_args(floating[d].dt, aranges[k][0], aranges[k][2]);
            check_bytes("arange", t, &args, n);
            th_tensor_release(t);
        }
        for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++) {
            th_tensor *t = floating[d].linspace(spaces[k].start, spaces[k].end, spaces[k].steps);
            th__cuda_fill_args args =
                th__cuda_fill_linspace_args(floating[d].dt, spaces[k].start, spaces[k].end, spaces[k].steps);
            check_bytes("linspace", t, &args, spaces[k].steps);
            th_tensor_release(t);
        }
    }
    const struct {
        th_dtype dt;
        arange_i_fn arange;
        int64_t lo, hi;
    } integer[] = {{TH_U8, u8_arange, 0, 255}, {TH_I8, i8_arange, -128, 127}, {TH_I16, i16_arange, -32768, 32767},
                   {TH_I32, i32_arange, INT32_MIN, INT32_MAX}, {TH_I64, i64_arange, INT64_MIN, INT64_MAX}};
    for (size_t d = 0; d < 5; d++) {
        /* up, down, a step that does not divide the span, and the dtype's ends (the last value exactly max) */
        const int64_t lo = integer[d].lo, hi = integer[d].hi;
        const int64_t cases[][3] = {{0, 10, 3}, {lo, hi, (int64_t)(((uint64_t)hi - (uint64_t)lo) / 7)},
                                    {hi, lo, -(int64_t)(((uint64_t)hi - (uint64_t)lo) / 5) - 1}, {5, 5, 1}, {lo, lo + 100, 1}};
        for (size_t k = 0; k < 5; k++) {
            th_tensor *t = integer[d].arange(cases[k][0], cases[k][1], cases[k][2]);
            int64_t n = -1;
            CHECK(t && th__arange_count_i64(cases[k][0], cases[k][1], cases[k][2], &n) && n == th_tensor_numel(t));
            th__cuda_fill_args args = th__cuda_fill_arange_i64_args(integer[d].dt, cases[k][0], cases[k][2]);
            check_bytes("arange", t, &args, n);
            th_tensor_release(t);
        }
    }
    const struct {
        th_dtype dt;
        eye_fn eye;
    } eyes[] = {{TH_BOOL, bool_eye}, {TH_U8, u8_eye},   {TH_I8, i8_eye},   {TH_I16, i16_eye}, {TH_I32, i32_eye},
                {TH_I64, i64_eye},   {TH_F16, f16_eye}, {TH_BF16, bf16_eye}, {TH_F32, f32_eye}, {TH_F64, f64_eye},
                {TH_C64, c64_eye},   {TH_C128, c128_eye}};
    const int64_t shapes[][2] = {{4, 4}, {3, 7}, {9, 2}, {0, 5}, {5, 0}, {1, 1}};
    for (size_t d = 0; d < sizeof eyes / sizeof eyes[0]; d++)
        for (size_t k = 0; k < 6; k++) {
            th_tensor *t = eyes[d].eye(shapes[k][0], shapes[k][1]);
            th__cuda_fill_args args = th__cuda_fill_eye_args(eyes[d].dt, shapes[k][1]);
            check_bytes("eye", t, &args, shapes[k][0] * shapes[k][1]);
            th_tensor_release(t);
        }
}

int main(void)
{
    test_begin();
    CHECK_INT_EQ(th_register_device_ops(FAKE, &fake_ops), TH_OK);
    test_samplers();
    test_strided();
    test_creation();
    CHECK_INT_EQ(th_register_device_ops(FAKE, NULL), TH_OK);
    return test_end("test_cuda_fill");
}
