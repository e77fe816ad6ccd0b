/* tests/cuda/test_cuda_fill_device.c: random numbers and creation ops on CUDA tensors, linked against th_cuda.
 *
 * Without a GPU: the refusals that come before any CUDA call (the CPU's parameter checks in th_<sfx>_cuda_arange,
 * _linspace, _eye), and that a draw into a tensor that only claims to be CUDA memory fails cleanly naming why no
 * device is usable, giving its blocks back to the generator; then exit 77 (skip).
 *
 * With a GPU: every sampler x dtype x parameter case against the CPU's draw from the same generator state (the
 * same typed call with the CUDA allocator as the default, and through th_<sfx>_cuda_<sampler>): uniform,
 * bernoulli and randint bit for bit; normal and exponential within the bound docs/cuda.md states (8 ulp of a
 * double around the value's scale, plus one unit of the dtype's last place for the narrower floats: they round
 * the device's double, which may sit on the other side of a rounding boundary), with how many were bit-identical
 * printed. Strided outs (transposed, stepped views of a larger tensor whose other elements must stay as they
 * were), a draw of 2^20 elements, a mixed sequence of host and device draws from one generator against one host
 * draw, and every dtype's arange, linspace and eye against the CPU's bit for bit. */
#include "../check.h"
#include "fill_cases.h"
#include "th_cuda.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

static void free_blob(void *data, void *ctx)
{
    (void)ctx;
    free(data);
}

/* A tensor that claims to live on CUDA device 0: host memory the library must never touch. */
static th_tensor *fake_cuda(th_dtype dt, int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    int64_t bytes = n * (int64_t)th_dtype_info(dt)->size;
    void *mem = calloc(1, (size_t)(bytes ? bytes : 1));
    th_storage *s = th_storage_from_blob(mem, bytes, (th_device){TH_DEVICE_CUDA, 0}, free_blob, NULL);
    th_tensor *t = s ? th_tensor_new_with_storage(dt, s, 0, ndim, sizes, NULL) : NULL;
    th_storage_release(s);
    return t;
}

static void test_host_refusals(void)
{
    CHECK_INT_EQ(th_cuda_init(), 0);
    CHECK_NULL(th_f32_cuda_arange(0, 0.0, 1.0, 0.0), TH_ERR_INVALID, "th_f32_cuda_arange", "step 0");
    CHECK_NULL(th_f64_cuda_arange(0, 0.0, INFINITY, 1.0), TH_ERR_INVALID, "th_f64_cuda_arange", "must be finite");
    CHECK_NULL(th_f32_cuda_arange(0, -1e300, 1e300, 1e-300), TH_ERR_OVERFLOW, "th_f32_cuda_arange", "more than 2^62");
    CHECK_NULL(th_i8_cuda_arange(0, 0, 200, 1), TH_ERR_RANGE, "th_i8_cuda_arange", "the values 0..199");
    CHECK_NULL(th_u8_cuda_arange(0, 0, 10, 0), TH_ERR_INVALID, "th_u8_cuda_arange", "step is 0");
    CHECK_NULL(th_i64_cuda_arange(0, INT64_MIN, INT64_MAX, 1), TH_ERR_OVERFLOW, "th_i64_cuda_arange", "2^63 - 1");
    CHECK_NULL(th_f16_cuda_linspace(0, 0.0, 1.0, -1), TH_ERR_INVALID, "th_f16_cuda_linspace", "steps -1");
    CHECK_NULL(th_bf16_cuda_linspace(0, NAN, 1.0, 3), TH_ERR_INVALID, "th_bf16_cuda_linspace", "must be finite");
    CHECK_NULL(th_f32_cuda_eye(0, -1, 3), TH_ERR_INVALID, "th_f32_cuda_eye", "negative");
    if (th_cuda_device_count() > 0) return;
    /* no device: the checks pass, the device is refused, by the function called */
    CHECK_NULL(th_f32_cuda_arange(0, 0.0, 1.0, 0.5), TH_ERR_DEVICE, "th_f32_cuda_arange", "");
    CHECK_NULL(th_c64_cuda_eye(0, 2, 2), TH_ERR_DEVICE, "th_c64_cuda_eye", "");
    CHECK_NULL(th_f32_cuda_uniform(0, 1, (const int64_t[]){4}, 0.0, 1.0, NULL), TH_ERR_DEVICE, "th_f32_cuda_empty", "");
    /* a draw reaches the companion, which refuses before touching the memory; the blocks go back */
    th_generator *g = th_generator_new(1);
    th_tensor *t = fake_cuda(TH_F32, 2, (const int64_t[]){3, 4});
    CHECK_FAILS(th_f32_uniform_inplace(th_f32_from_base(t), 0.0, 1.0, g), TH_ERR_DEVICE, "th_f32_uniform_inplace", "");
    CHECK(th_generator_get_state(g).offset == 0);
    CHECK_FAILS(th_f32_uniform_inplace(th_f32_from_base(t), 2.0, 1.0, g), TH_ERR_INVALID, "th_f32_uniform_inplace",
                "[2, 1)");
    th_tensor_release(t);
    th_generator_free(g);
}

/* ---- on a device ------------------------------------------------------------------------------------------- */

static const th_allocator *cuda_alloc;
static void *cuda_ctx;

/* The typed call with the CUDA allocator as the default: its result is a CUDA tensor the device drew. */
static th_tensor *on_device(const sampler_case *c, int ndim, const int64_t *sizes, th_generator *gen)
{
    void *saved_ctx;
    const th_allocator *saved = th_default_allocator(&saved_ctx);
    th_set_default_allocator(cuda_alloc, cuda_ctx);
    th_tensor *t = c->fn(ndim, sizes, c->a, c->b, gen);
    th_set_default_allocator(saved, saved_ctx);
    return t;
}

/* How far a device's draw may be from the CPU's: exact, except where the transform calls libm (normal,
 * exponential). scale: the size of the terms the value was summed from. */
static double allowed(const char *sampler, th_dtype dt, double cpu, double scale)
{
    if (strcmp(sampler, "normal") != 0 && strcmp(sampler, "exponential") != 0) return 0;
    double last_place = dt == TH_F16 ? 0x1p-10 : dt == TH_BF16 ? 0x1p-7 : dt == TH_F32 ? 0x1p-23 : 0;
    double least = dt == TH_F16 ? 0x1p-24 : dt == TH_BF16 ? 0x1p-133 : dt == TH_F32 ? 0x1p-149 : 0;
    return 8 * DBL_EPSILON * scale + last_place * fabs(cpu) + least;
}

static long long identical, compared;

/* As doubles: a contiguous f64 copy of t (any dtype, on the host). */
static th_f64_tensor *as_f64(const th_tensor *t)
{
    th_f64_tensor *r = th_f64_empty(th_tensor_ndim(t), th_tensor_sizes(t));
    if (r && th_tensor_copy(th_f64_base(r), t)) {
        th_f64_release(r);
        return NULL;
    }
    return r;
}

/* dev (a CUDA tensor) against cpu (contiguous, of dtype dt): the same bytes, or for normal and exponential the
 * same values within allowed(). */
static bool same_draw(const char *label, const sampler_case *c, th_dtype dt, const th_tensor *cpu, const th_tensor *dev)
{
    th_tensor *back = th_tensor_to_cpu(dev);
    th_f64_tensor *x = cpu ? as_f64(cpu) : NULL, *y = back ? as_f64(back) : NULL;
    bool ok = x && y && th_tensor_numel(back) == th_tensor_numel(cpu);
    const size_t es = th_dtype_info(dt)->size;
    for (int64_t i = 0; ok && i < th_tensor_numel(cpu); i++) {
        compared++;
        if (memcmp((const char *)th_tensor_data(cpu) + i * (int64_t)es, (const char *)th_tensor_data(back) + i * (int64_t)es,
                   es) == 0) {
            identical++;
            continue;
        }
        double a = th_f64_data(x)[i], b = th_f64_data(y)[i];
        double scale = strcmp(c->name, "normal") == 0 ? fabs(c->a) + fabs(a - c->a) : fabs(a);
        ok = fabs(a - b) <= allowed(c->name, dt, a, scale);
        if (!ok)
            printf("%s %s(%g, %g) element %lld: CPU %.17g, device %.17g\n", label, c->name, c->a, c->b, (long long)i, a, b);
    }
    th_f64_release(y);
    th_f64_release(x);
    th_tensor_release(back);
    return ok;
}

static void test_samplers(void)
{
    for (size_t d = 0; d < sizeof sampler_cases / sizeof sampler_cases[0]; d++)
        for (int k = 0; k < 16 && sampler_cases[d].c[k].name; k++) {
            const sampler_case *c = &sampler_cases[d].c[k];
            const uint64_t offsets[3] = {0, UINT64_C(0xfffff800), UINT64_C(0xfffffffffffff800)};
            for (int o = 0; o < 3; o++) {
                const int64_t sizes[2] = {64, 65};
                th_generator *gh = th_generator_new(0x243f6a8885a308d3u), *gd = th_generator_new(0x243f6a8885a308d3u);
                th_generator_set_state(gh, (th_generator_state){0x243f6a8885a308d3u, offsets[o]});
                th_generator_set_state(gd, (th_generator_state){0x243f6a8885a308d3u, offsets[o]});
                th_tensor *cpu = c->fn(2, sizes, c->a, c->b, gh);
                th_tensor *dev = on_device(c, 2, sizes, gd);
                CHECK(dev && th_storage_device(th_tensor_storage(dev)).type == TH_DEVICE_CUDA);
                CHECK(same_draw(sampler_cases[d].sfx, c, sampler_cases[d].dt, cpu, dev));
                CHECK(th_generator_get_state(gh).offset == th_generator_get_state(gd).offset);
                th_tensor_release(dev);
                th_tensor_release(cpu);
                th_generator_free(gd);
                th_generator_free(gh);
            }
        }
    printf("samplers: %lld of %lld elements bit-identical to the CPU's (the rest: normal and exponential, within "
           "the bound)\n", identical, compared);
}

/* The samplers' th_<sfx>_cuda_<sampler> forms, a large draw, strided outs and a mixed sequence. */
static void test_forms(void)
{
    th_generator *g = th_generator_new(11), *h = th_generator_new(11);
    /* the constructors */
    th_f32_tensor *a = th_f32_cuda_uniform(0, 2, (const int64_t[]){1024, 1024}, -2.0, 3.0, g);
    th_f32_tensor *b = th_f32_uniform(2, (const int64_t[]){1024, 1024}, -2.0, 3.0, h);
    sampler_case uc = {"uniform", f32_uniform, -2.0, 3.0};
    CHECK(a && same_draw("f32 constructor", &uc, TH_F32, th_f32_base(b), th_f32_base(a)));
    th_i16_tensor *ri = th_i16_cuda_randint(0, 1, (const int64_t[]){5000}, -300, 301, g);
    th_i16_tensor *rh = th_i16_randint(1, (const int64_t[]){5000}, -300, 301, h);
    sampler_case rc = {"randint", i16_randint, -300, 301};
    CHECK(ri && same_draw("i16 constructor", &rc, TH_I16, th_i16_base(rh), th_i16_base(ri)));
    th_bool_tensor *bi = th_bool_cuda_bernoulli(0, 1, (const int64_t[]){999}, 0.125, g);
    th_bool_tensor *bh = th_bool_bernoulli(1, (const int64_t[]){999}, 0.125, h);
    sampler_case bc = {"bernoulli", bool_bernoulli, 0.125, 0};
    CHECK(bi && same_draw("bool constructor", &bc, TH_BOOL, th_bool_base(bh), th_bool_base(bi)));
    th_f64_tensor *ni = th_f64_cuda_normal(0, 1, (const int64_t[]){777}, 1.0, 2.0, g);
    th_f64_tensor *nh = th_f64_normal(1, (const int64_t[]){777}, 1.0, 2.0, h);
    sampler_case nc = {"normal", f64_normal, 1.0, 2.0};
    CHECK(ni && same_draw("f64 constructor", &nc, TH_F64, th_f64_base(nh), th_f64_base(ni)));
    th_bf16_tensor *ei = th_bf16_cuda_exponential(0, 1, (const int64_t[]){777}, 0.5, g);
    th_bf16_tensor *eh = th_bf16_exponential(1, (const int64_t[]){777}, 0.5, h);
    sampler_case ec = {"exponential", bf16_exponential, 0.5, 0};
    CHECK(ei && same_draw("bf16 constructor", &ec, TH_BF16, th_bf16_base(eh), th_bf16_base(ei)));
    CHECK(th_generator_get_state(g).offset == th_generator_get_state(h).offset);

    /* strided outs: the transposed view and every other column of a (40, 60) tensor; the elements outside the
     * stepped view keep the value 7 */
    th_f32_tensor *dbase = th_f32_cuda_full(0, 2, (const int64_t[]){40, 60}, 7.0f);
    th_f32_tensor *hbase = th_f32_full(2, (const int64_t[]){40, 60}, 7.0f);
    th_f32_tensor *dt = th_f32_transpose(dbase, 0, 1), *ht = th_f32_transpose(hbase, 0, 1);
    CHECK_INT_EQ(th_f32_uniform_inplace(dt, 0.0, 1.0, g), TH_OK);
    CHECK_INT_EQ(th_f32_uniform_inplace(ht, 0.0, 1.0, h), TH_OK);
    CHECK(same_draw("transposed", &uc, TH_F32, th_f32_base(hbase), th_f32_base(dbase)));
    CHECK_INT_EQ(th_f32_fill(hbase, 7.0f), TH_OK);
    CHECK_INT_EQ(th_f32_cuda_fill(dbase, 7.0f), TH_OK);
    const int64_t every_other[2] = {60, 2};
    th_f32_tensor *ds = th_f32_from_base(th_tensor_new_with_storage(TH_F32, th_f32_storage(dbase), 1, 2,
                                                                    (const int64_t[]){40, 30}, every_other));
    th_f32_tensor *hs = th_f32_from_base(th_tensor_new_with_storage(TH_F32, th_f32_storage(hbase), 1, 2,
                                                                    (const int64_t[]){40, 30}, every_other));
    CHECK_INT_EQ(th_f32_randint_inplace(ds, -1000, 1000, g), TH_OK);
    CHECK_INT_EQ(th_f32_randint_inplace(hs, -1000, 1000, h), TH_OK);
    CHECK(same_draw("stepped", &rc, TH_F32, th_f32_base(hbase), th_f32_base(dbase)));
    CHECK(th_generator_get_state(g).offset == th_generator_get_state(h).offset);

    /* one generator, host and device draws in turn (2^20 elements on the device among them), equal one host draw */
    th_generator_set_state(g, (th_generator_state){99, 5});
    th_generator_set_state(h, (th_generator_state){99, 5});
    const int64_t big = INT64_C(1) << 20;
    th_f32_tensor *p1 = th_f32_uniform(1, (const int64_t[]){5}, 0.0, 1.0, g);
    th_f32_tensor *p2 = th_f32_cuda_uniform(0, 1, &big, 0.0, 1.0, g);
    th_f32_tensor *p3 = th_f32_uniform(1, (const int64_t[]){3}, 0.0, 1.0, g);
    th_f32_tensor *p4 = th_f32_cuda_uniform(0, 1, (const int64_t[]){7}, 0.0, 1.0, g);
    const int64_t total = 5 + big + 3 + 7;
    th_f32_tensor *all = th_f32_uniform(1, &total, 0.0, 1.0, h);
    th_f32_tensor *b2 = th_f32_to_cpu(p2), *b4 = th_f32_to_cpu(p4);
    bool ok = p1 && b2 && p3 && b4 && all;
    ok = ok && memcmp(th_f32_data(all), th_f32_data(p1), 5 * sizeof(float)) == 0;
    ok = ok && memcmp(th_f32_data(all) + 5, th_f32_data(b2), (size_t)big * sizeof(float)) == 0;
    ok = ok && memcmp(th_f32_data(all) + 5 + big, th_f32_data(p3), 3 * sizeof(float)) == 0;
    ok = ok && memcmp(th_f32_data(all) + 8 + big, th_f32_data(b4), 7 * sizeof(float)) == 0;
    CHECK(ok);
    CHECK(th_generator_get_state(g).offset == 5 + (uint64_t)total && th_generator_get_state(h).offset == 5 + (uint64_t)total);
    th_f32_release(b4);
    th_f32_release(b2);
    th_f32_release(all);
    th_f32_release(p4);
    th_f32_release(p3);
    th_f32_release(p2);
    th_f32_release(p1);
    th_f32_release(hs);
    th_f32_release(ds);
    th_f32_release(ht);
    th_f32_release(dt);
    th_f32_release(hbase);
    th_f32_release(dbase);
    th_bf16_release(eh);
    th_bf16_release(ei);
    th_f64_release(nh);
    th_f64_release(ni);
    th_bool_release(bh);
    th_bool_release(bi);
    th_i16_release(rh);
    th_i16_release(ri);
    th_f32_release(b);
    th_f32_release(a);
    th_generator_free(h);
    th_generator_free(g);
}

/* ---- creation ---------------------------------------------------------------------------------------------- */

#define CUDA_CREATE_F(sfx)                                                                                       \
    static th_tensor *cuda_##sfx##_arange(double a, double b, double c)                                         \
    {                                                                                                            \
        return th_##sfx##_base(th_##sfx##_cuda_arange(0, a, b, c));                                             \
    }                                                                                                            \
    static th_tensor *cuda_##sfx##_linspace(double a, double b, int64_t n)                                      \
    {                                                                                                            \
        return th_##sfx##_base(th_##sfx##_cuda_linspace(0, a, b, n));                                          \
    }
#define CUDA_CREATE_I(sfx)                                                                                       \
    static th_tensor *cuda_##sfx##_arange(int64_t a, int64_t b, int64_t c)                                      \
    {                                                                                                            \
        return th_##sfx##_base(th_##sfx##_cuda_arange(0, a, b, c));                                             \
    }
#define CUDA_EYE(sfx)                                                                                            \
    static th_tensor *cuda_##sfx##_eye(int64_t n, int64_t m) { return th_##sfx##_base(th_##sfx##_cuda_eye(0, n, m)); }
CUDA_CREATE_F(f16)
CUDA_CREATE_F(bf16)
CUDA_CREATE_F(f32)
CUDA_CREATE_F(f64)
CUDA_CREATE_I(u8)
CUDA_CREATE_I(i8)
CUDA_CREATE_I(i16)
CUDA_CREATE_I(i32)
CUDA_CREATE_I(i64)
CUDA_EYE(bool)
CUDA_EYE(u8)
CUDA_EYE(i8)
CUDA_EYE(i16)
CUDA_EYE(i32)
CUDA_EYE(i64)
CUDA_EYE(f16)
CUDA_EYE(bf16)
CUDA_EYE(f32)
CUDA_EYE(f64)
CUDA_EYE(c64)
CUDA_EYE(c128)

/* The same bytes and shape, the device's tensor on the device. Takes both references. */
static bool same_tensor(const char *what, th_tensor *cpu, th_tensor *dev)
{
    th_tensor *back = dev ? th_tensor_to_cpu(dev) : NULL;
    bool ok = cpu && back && th_storage_device(th_tensor_storage(dev)).type == TH_DEVICE_CUDA &&
              th_tensor_ndim(cpu) == th_tensor_ndim(back) && th_tensor_numel(cpu) == th_tensor_numel(back) &&
              memcmp(th_tensor_sizes(cpu), th_tensor_sizes(back), (size_t)th_tensor_ndim(cpu) * sizeof(int64_t)) == 0 &&
              memcmp(th_tensor_data(cpu), th_tensor_data(back),
                     (size_t)th_tensor_numel(cpu) * th_dtype_info(th_tensor_dtype(cpu))->size) == 0;
    if (!ok) printf("%s on %s: the device's tensor differs from the CPU's\n", what,
                    cpu ? th_dtype_name(th_tensor_dtype(cpu)) : "?");
    th_tensor_release(back);
    th_tensor_release(dev);
    th_tensor_release(cpu);
    return ok;
}

static void test_creation(void)
{
    const struct {
        arange_f_fn arange, cuda_arange;
        linspace_fn linspace, cuda_linspace;
    } floating[] = {{f16_arange, cuda_f16_arange, f16_linspace, cuda_f16_linspace},
                    {bf16_arange, cuda_bf16_arange, bf16_linspace, cuda_bf16_linspace},
                    {f32_arange, cuda_f32_arange, f32_linspace, cuda_f32_linspace},
                    {f64_arange, cuda_f64_arange, f64_linspace, cuda_f64_linspace}};
    const double aranges[][3] = {{0, 10, 1}, {1, 0, -0.1}, {-3.3, 7.9, 0.7}, {1e6, 1e6 + 1, 1.0 / 3}, {0.1, 1e5, 0.37},
                                 {5, 5, 1}, {-1e300, 1e300, 1e299}};
    const struct {
        double start, end;
        int64_t steps;
    } spaces[] = {{0, 1, 5}, {0, 1, 0}, {2, 2, 1}, {-1, 1, 7}, {0.1, 0.7, 1001}, {1e-3, -12345.678, 4097}, {3, -3, 2}};
    for (size_t d = 0; d < 4; d++) {
        for (size_t k = 0; k < sizeof aranges / sizeof aranges[0]; k++)
            CHECK(same_tensor("arange", floating[d].arange(aranges[k][0], aranges[k][1], aranges[k][2]),
                              floating[d].cuda_arange(aranges[k][0], aranges[k][1], aranges[k][2])));
        for (size_t k = 0; k < sizeof spaces / sizeof spaces[0]; k++)
            CHECK(same_tensor("linspace", floating[d].linspace(spaces[k].start, spaces[k].end, spaces[k].steps),
                              floating[d].cuda_linspace(spaces[k].start, spaces[k].end, spaces[k].steps)));
    }
    const struct {
        arange_i_fn arange, cuda_arange;
        int64_t lo, hi;
    } integer[] = {{u8_arange, cuda_u8_arange, 0, 255}, {i8_arange, cuda_i8_arange, -128, 127},
                   {i16_arange, cuda_i16_arange, -32768, 32767}, {i32_arange, cuda_i32_arange, INT32_MIN, INT32_MAX},
                   {i64_arange, cuda_i64_arange, INT64_MIN, INT64_MAX}};
    for (size_t d = 0; d < 5; d++) {
        const int64_t lo = integer[d].lo, hi = integer[d].hi;
        const int64_t cases[][3] = {{0, 10, 3}, {lo, hi, (int64_t)(((uint64_t)hi - (uint64_t)lo) / 7)},
                                    {hi, lo, -(int64_t)(((uint64_t)hi - (uint64_t)lo) / 5) - 1}, {5, 5, 1},
                                    {lo, lo + 100, 1}};
        for (size_t k = 0; k < 5; k++)
            CHECK(same_tensor("arange", integer[d].arange(cases[k][0], cases[k][1], cases[k][2]),
                              integer[d].cuda_arange(cases[k][0], cases[k][1], cases[k][2])));
    }
    const struct {
        eye_fn eye, cuda_eye;
    } eyes[] = {{bool_eye, cuda_bool_eye}, {u8_eye, cuda_u8_eye},     {i8_eye, cuda_i8_eye},   {i16_eye, cuda_i16_eye},
                {i32_eye, cuda_i32_eye},   {i64_eye, cuda_i64_eye},   {f16_eye, cuda_f16_eye}, {bf16_eye, cuda_bf16_eye},
                {f32_eye, cuda_f32_eye},   {f64_eye, cuda_f64_eye},   {c64_eye, cuda_c64_eye}, {c128_eye, cuda_c128_eye}};
    const int64_t shapes[][2] = {{4, 4}, {3, 7}, {9, 2}, {0, 5}, {5, 0}, {1, 1}, {300, 301}};
    for (size_t d = 0; d < sizeof eyes / sizeof eyes[0]; d++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            CHECK(same_tensor("eye", eyes[d].eye(shapes[k][0], shapes[k][1]),
                              eyes[d].cuda_eye(shapes[k][0], shapes[k][1])));
}

int main(void)
{
    test_begin();
    test_host_refusals();
    if (th_cuda_device_count() == 0) {
        printf("no usable CUDA device (%s): the device draws and creations are skipped\n", th_cuda_unavailable_reason());
        int rc = test_end("cuda_fill_device");
        return rc ? rc : 77;
    }
    cuda_alloc = th_cuda_allocator(0, &cuda_ctx);
    CHECK(cuda_alloc != NULL);
    test_samplers();
    test_forms();
    test_creation();
    CHECK_INT_EQ(th_cuda_stream_synchronize(th_cuda_current_stream(0)), 0);
    return test_end("cuda_fill_device");
}
