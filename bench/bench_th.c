/* bench_th.c: tensor.h's side of the benchmark. Links against th_impl.c, the one implementation TU, as a
 * real program would: every library call here is an ordinary call into another translation unit. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"
#include "tensor.h"

enum { SQUARE = 4096 };
#define VEC_N ((int64_t)16 << 20)

static th_f32_tensor *small_t; /* 4x6: the base of every view */
static th_f32_tensor *square;  /* SQUARE x SQUARE, element [i][j] = i * SQUARE + j */
static th_f32_tensor *vec;     /* VEC_N elements, element i = i % 1000 */

/* ---- small ops ---- */

static void batch_create(int64_t iters)
{
    static const int64_t sizes[2] = {2, 3};
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *t = th_f32_empty(2, sizes);
        bench_escape(t);
        th_f32_release(t);
    }
}

static void batch_transpose(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *v = th_f32_transpose(small_t, 0, 1);
        bench_escape(v);
        th_f32_release(v);
    }
}

static void batch_narrow(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *v = th_f32_narrow(small_t, 0, 1, 2);
        bench_escape(v);
        th_f32_release(v);
    }
}

static void batch_select(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *v = th_f32_select(small_t, 0, 1);
        bench_escape(v);
        th_f32_release(v);
    }
}

static void batch_view(int64_t iters)
{
    static const int64_t sizes[2] = {6, 4};
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *v = th_f32_view(small_t, 2, sizes);
        bench_escape(v);
        th_f32_release(v);
    }
}

/* Export to DLPack and import back: no copy, one managed tensor and one wrapping storage per trip. */
static void batch_dlpack(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        th_tensor *back = th_tensor_from_dlpack(th_f32_to_dlpack(small_t));
        bench_escape(back);
        th_tensor_release(back);
    }
}

/* ---- large ops: each makes a new tensor and releases it, so every run faults in fresh memory ---- */

static void op_contiguous_t(void)
{
    th_f32_tensor *t = th_f32_transpose(square, 0, 1);
    th_f32_tensor *c = th_f32_contiguous(t);
    bench_escape(c);
    th_f32_release(c);
    th_f32_release(t);
}

static void op_clone(void)
{
    th_f32_tensor *c = th_f32_clone(square);
    bench_escape(c);
    th_f32_release(c);
}

static void op_convert(void)
{
    th_f64_tensor *d = th_f64_convert(th_f32_base(vec));
    bench_escape(d);
    th_f64_release(d);
}

static void op_ones(void)
{
    static const int64_t n = VEC_N;
    th_f32_tensor *o = th_f32_ones(1, &n);
    bench_escape(o);
    th_f32_release(o);
}

/* ---- setup and a check that every op computes what it claims to ---- */

static void setup(void)
{
    small_t = th_f32_empty(2, (const int64_t[]){4, 6});
    square = th_f32_empty(2, (const int64_t[]){SQUARE, SQUARE});
    vec = th_f32_empty(1, (const int64_t[]){VEC_N});
    BENCH_CHECK(small_t && square && vec);
    float *s = th_f32_data(small_t);
    for (int i = 0; i < 24; i++) s[i] = (float)i;
    float *q = th_f32_data(square);
    for (int64_t i = 0; i < (int64_t)SQUARE * SQUARE; i++) q[i] = (float)i; /* exact: 4096^2 = 2^24 */
    float *v = th_f32_data(vec);
    for (int64_t i = 0; i < VEC_N; i++) v[i] = (float)(i % 1000);
}

static void verify(void)
{
    th_f32_tensor *v = th_f32_transpose(small_t, 0, 1);
    BENCH_CHECK(v && th_f32_size(v, 0) == 6 && th_f32_get(v, (const int64_t[]){5, 3}) == 23.0f);
    th_f32_release(v);
    v = th_f32_narrow(small_t, 0, 1, 2);
    BENCH_CHECK(v && th_f32_size(v, 0) == 2 && th_f32_get(v, (const int64_t[]){0, 0}) == 6.0f);
    th_f32_release(v);
    v = th_f32_select(small_t, 0, 1);
    BENCH_CHECK(v && th_f32_ndim(v) == 1 && th_f32_get(v, (const int64_t[]){2}) == 8.0f);
    th_f32_release(v);
    v = th_f32_view(small_t, 2, (const int64_t[]){6, 4});
    BENCH_CHECK(v && th_f32_get(v, (const int64_t[]){1, 0}) == 4.0f);
    th_f32_release(v);

    th_f32_tensor *t = th_f32_transpose(square, 0, 1);
    th_f32_tensor *c = th_f32_contiguous(t);
    BENCH_CHECK(c && c != t && th_f32_is_contiguous(c));
    const float *cd = th_f32_data(c);
    for (int64_t i = 0; i < SQUARE; i += 37)
        for (int64_t j = 0; j < SQUARE; j += 41) BENCH_CHECK(cd[i * SQUARE + j] == (float)(j * SQUARE + i));
    th_f32_release(c);
    th_f32_release(t);

    th_f64_tensor *d = th_f64_convert(th_f32_base(vec));
    BENCH_CHECK(d && th_f64_numel(d) == VEC_N && th_f64_data(d)[VEC_N - 1] == (double)((VEC_N - 1) % 1000));
    th_f64_release(d);

    th_f32_tensor *o = th_f32_ones(1, (const int64_t[]){VEC_N});
    BENCH_CHECK(o && th_f32_data(o)[0] == 1.0f && th_f32_data(o)[VEC_N - 1] == 1.0f);
    th_f32_release(o);
}

static const bench_entry entries[] = {
    {"create", batch_create, NULL},
    {"view_transpose", batch_transpose, NULL},
    {"view_narrow", batch_narrow, NULL},
    {"view_select", batch_select, NULL},
    {"view_view", batch_view, NULL},
    {"dlpack_roundtrip", batch_dlpack, NULL},
    {"contiguous_t", NULL, op_contiguous_t},
    {"clone", NULL, op_clone},
    {"convert_f64", NULL, op_convert},
    {"ones", NULL, op_ones},
};

int main(int argc, char **argv)
{
    setup();
    verify();
    int status = bench_main(entries, (int)(sizeof entries / sizeof entries[0]), argc, argv);
    th_f32_release(vec);
    th_f32_release(square);
    th_f32_release(small_t);
    return status;
}
