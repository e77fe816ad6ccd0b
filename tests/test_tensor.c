/* Tensors: creation for every dtype, wrapping memory, access, elements, refcounts across threads. */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>

/* Every stamped dtype: empty, zeros, ones, full, get, set, numel, contiguity, clone. */
#define DTYPE_ROUND_TRIP(sfx, ENUM, elem, acc, kind, code, bits)                                   \
    TH__IF_##sfx({                                                                                 \
        int64_t sizes[3] = {2, 3, 4};                                                              \
        th_##sfx##_tensor *z = th_##sfx##_zeros(3, sizes);                                         \
        th_##sfx##_tensor *o = th_##sfx##_ones(3, sizes);                                          \
        th_##sfx##_tensor *e = th_##sfx##_empty(3, sizes);                                         \
        CHECK(z && o && e);                                                                        \
        CHECK_INT_EQ(th_##sfx##_numel(z), 24);                                                     \
        CHECK_INT_EQ(th_tensor_dtype(th_##sfx##_base(z)), TH_##ENUM);                              \
        CHECK(th_##sfx##_is_contiguous(z));                                                        \
        CHECK_INT_EQ(th_##sfx##_stride(z, 0), 12);                                                 \
        CHECK_INT_EQ(th_##sfx##_stride(z, -1), 1);                                                 \
        CHECK_INT_EQ(th_##sfx##_copy(e, o), TH_OK);                                                \
        elem one = th_##sfx##_get(o, (int64_t[]){1, 2, 3});                                        \
        elem zero = th_##sfx##_get(z, (int64_t[]){-1, -1, -1});                                    \
        CHECK(memcmp(&one, &zero, sizeof one) != 0);                                               \
        CHECK_INT_EQ(th_##sfx##_set(z, (int64_t[]){1, 2, 3}, one), TH_OK);                         \
        elem back = th_##sfx##_get(z, (int64_t[]){1, 2, 3});                                       \
        CHECK(memcmp(&one, &back, sizeof one) == 0);                                               \
        elem from_e = th_##sfx##_get(e, (int64_t[]){0, 1, 2});                                     \
        CHECK(memcmp(&one, &from_e, sizeof one) == 0);                                             \
        th_##sfx##_tensor *f = th_##sfx##_full(3, sizes, one);                                     \
        th_##sfx##_tensor *c = th_##sfx##_clone(f);                                                \
        CHECK(th_##sfx##_data(c) != th_##sfx##_data(f));                                           \
        CHECK(memcmp(th_##sfx##_data(c), th_##sfx##_data(o), 24 * sizeof(elem)) == 0);             \
        th_##sfx##_release(c);                                                                     \
        th_##sfx##_release(f);                                                                     \
        th_##sfx##_release(z);                                                                     \
        th_##sfx##_release(o);                                                                     \
        th_##sfx##_release(e);                                                                     \
    })

static void test_every_dtype(void) { TH_FOREACH_DTYPE(DTYPE_ROUND_TRIP) }

static void test_properties(void)
{
    int64_t sizes[2] = {3, 5};
    th_i64_tensor *t = th_i64_zeros(2, sizes);
    CHECK_INT_EQ(th_i64_ndim(t), 2);
    CHECK_INT_EQ(th_i64_size(t, 0), 3);
    CHECK_INT_EQ(th_i64_size(t, -1), 5);
    CHECK_INT_EQ(th_i64_sizes(t)[1], 5);
    CHECK_INT_EQ(th_i64_strides(t)[0], 5);
    CHECK_INT_EQ(th_i64_offset(t), 0);
    CHECK(th_i64_data(t) == th_i64_storage_data(th_i64_storage(t)));
    CHECK(th_i64_from_base(th_i64_base(t)) == t);
    CHECK_NULL(th_f32_from_base(th_i64_base(t)), TH_ERR_DTYPE, "th_f32_from_base", "dtype is i64");
    CHECK(th_i64_retain(t) == t);
    CHECK_INT_EQ(th_tensor_numel(th_i64_base(t)), 15);
    th_i64_release(t);
    /* _Generic front end */
    CHECK_INT_EQ(th_numel(t), 15);
    CHECK_INT_EQ(th_ndim(t), 2);
    CHECK_INT_EQ(th_size(t, 1), 5);
    CHECK_INT_EQ(th_stride(t, 1), 1);
    CHECK_INT_EQ(th_fill(t, 9), TH_OK);
    CHECK_INT_EQ(th_get(t, ((int64_t[]){2, 4})), 9);
    CHECK_INT_EQ(th_set(t, ((int64_t[]){2, 4}), -3), TH_OK);
    CHECK_INT_EQ(th_i64_data(t)[14], -3);
    th_release(t);

    /* 0-d tensors hold one element and take a NULL index. */
    th_f64_tensor *s = th_f64_full(0, NULL, 2.5);
    CHECK_INT_EQ(th_f64_numel(s), 1);
    CHECK_INT_EQ(th_f64_ndim(s), 0);
    CHECK(th_f64_get(s, NULL) == 2.5);
    CHECK(th_f64_is_contiguous(s));
    th_f64_release(s);

    /* size-0 tensors hold nothing but keep their shape. */
    int64_t empty_sizes[3] = {4, 0, 2};
    th_f32_tensor *e = th_f32_ones(3, empty_sizes);
    CHECK_INT_EQ(th_f32_numel(e), 0);
    CHECK_INT_EQ(th_f32_size(e, 2), 2);
    CHECK(th_f32_is_contiguous(e));
    CHECK_INT_EQ(th_f32_fill(e, 1.0f), TH_OK);
    th_f32_release(e);
}

static int blob_frees;
static void blob_deleter(void *data, void *ctx)
{
    blob_frees++;
    CHECK(ctx == &blob_frees);
    free(data);
}

static void test_from_blob(void)
{
    float *buf = malloc(12 * sizeof *buf);
    for (int i = 0; i < 12; i++) buf[i] = (float)i;
    int64_t sizes[2] = {3, 4};
    blob_frees = 0;
    th_f32_tensor *t = th_f32_from_blob(buf, 2, sizes, NULL, blob_deleter, &blob_frees);
    CHECK(th_f32_data(t) == buf);
    CHECK(th_f32_get(t, (int64_t[]){2, 1}) == 9.0f);
    buf[9] = 100.0f; /* no copy: writes to the blob show */
    CHECK(th_f32_get(t, (int64_t[]){2, 1}) == 100.0f);
    th_f32_tensor *v = th_f32_narrow(t, 1, 1, 2);
    th_f32_release(t);
    CHECK_INT_EQ(blob_frees, 0);
    th_f32_release(v);
    CHECK_INT_EQ(blob_frees, 1);

    /* Strides in elements, including a column-major layout and a negative stride (a flipped array). */
    double d[6] = {0, 1, 2, 3, 4, 5};
    int64_t colmajor[2] = {1, 3};
    int64_t s23[2] = {2, 3};
    th_f64_tensor *cm = th_f64_from_blob(d, 2, s23, (int64_t[]){1, 2}, NULL, NULL);
    CHECK(th_f64_get(cm, (int64_t[]){1, 2}) == 5.0);
    CHECK(!th_f64_is_contiguous(cm));
    th_f64_release(cm);
    (void)colmajor;
    int64_t n = 6;
    th_f64_tensor *flipped = th_f64_from_blob(d + 5, 1, &n, (int64_t[]){-1}, NULL, NULL);
    CHECK(th_f64_data(flipped) == d + 5);
    CHECK(th_f64_get(flipped, (int64_t[]){0}) == 5.0);
    CHECK(th_f64_get(flipped, (int64_t[]){5}) == 0.0);
    th_f64_tensor *fc = th_f64_contiguous(flipped);
    CHECK(th_f64_data(fc)[1] == 4.0);
    th_f64_release(fc);
    th_f64_release(flipped);
    /* Strides that reach below address 0 are refused, not wrapped around. */
    CHECK_NULL(th_f64_from_blob(d, 1, &n, (int64_t[]){-((int64_t)1 << 50)}, NULL, NULL), TH_ERR_OVERFLOW,
               "th_f64_from_blob", "outside the address space");
    /* A zero-size blob may be NULL. */
    int64_t zero = 0;
    th_f64_tensor *none = th_f64_from_blob(NULL, 1, &zero, NULL, NULL, NULL);
    CHECK(none != NULL);
    th_f64_release(none);
}

static void test_new_with_storage(void)
{
    th_storage *s = th_i16_storage_new(20);
    int16_t *p = th_i16_storage_data(s);
    for (int i = 0; i < 20; i++) p[i] = (int16_t)i;
    int64_t sizes[2] = {2, 3};
    th_i16_tensor *t = th_i16_new_with_storage(s, 5, 2, sizes, (int64_t[]){6, 2});
    CHECK_INT_EQ(th_i16_get(t, (int64_t[]){1, 2}), 5 + 6 + 4);
    CHECK(th_i16_storage(t) == s);
    CHECK_INT_EQ(th_storage_refcount(s), 2);
    CHECK_NULL(th_i16_new_with_storage(s, 5, 2, sizes, (int64_t[]){12, 2}), TH_ERR_RANGE,
               "th_i16_new_with_storage", "outside the storage's 20 elements");
    CHECK_NULL(th_i16_new_with_storage(s, -1, 2, sizes, NULL), TH_ERR_RANGE, "th_i16_new_with_storage",
               "negative storage offset -1");
    th_i16_release(t);
    /* The dtype-erased door: the same checks, the dtype as a value. */
    th_tensor *e = th_tensor_new_with_storage(TH_I16, s, 5, 2, sizes, (int64_t[]){6, 2});
    CHECK(e != NULL && th_tensor_dtype(e) == TH_I16 && th_tensor_storage(e) == s);
    CHECK_INT_EQ(th_i16_get(th_i16_from_base(e), (int64_t[]){1, 2}), 5 + 6 + 4);
    th_tensor_release(e);
    CHECK_NULL(th_tensor_new_with_storage((th_dtype)99, s, 0, 1, sizes, NULL), TH_ERR_DTYPE,
               "th_tensor_new_with_storage", "dtype 99");
    CHECK_NULL(th_tensor_new_with_storage(TH_I16, s, 5, 2, sizes, (int64_t[]){12, 2}), TH_ERR_RANGE,
               "th_tensor_new_with_storage", "outside the storage's 20 elements");
    CHECK_NULL(th_tensor_new_with_storage(TH_F32, NULL, 0, 1, sizes, NULL), TH_ERR_INVALID,
               "th_tensor_new_with_storage", "NULL");
    th_storage_release(s);
}

static void *retain_release_many(void *arg)
{
    th_f32_tensor *t = arg;
    for (int i = 0; i < 100000; i++) {
        th_f32_retain(t);
        th_f32_tensor *v = th_f32_transpose(t, 0, 1);
        th_f32_release(v);
        th_f32_release(t);
    }
    return NULL;
}

static void test_threads(void)
{
    /* Refcounts are atomic: four threads retaining and releasing one tensor and its storage. */
    th_set_default_allocator(NULL, NULL);
    int64_t sizes[2] = {4, 4};
    th_f32_tensor *t = th_f32_zeros(2, sizes);
    pthread_t threads[4];
    for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, retain_release_many, t);
    for (int i = 0; i < 4; i++) pthread_join(threads[i], NULL);
    CHECK_INT_EQ(th_storage_refcount(th_f32_storage(t)), 1);
    th_f32_release(t);
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
}

int main(void)
{
    test_begin();
    test_every_dtype();
    test_properties();
    test_from_blob();
    test_new_with_storage();
    test_threads();
    return test_end("tensor");
}
