/* tests/test_errors.c: every error path gives the right status and a message naming the function.
 *
 * Bad sizes and dims, overflowing element counts, out-of-range views and indices, NULL arguments everywhere,
 * allocator failure (nothing leaks), resizing wrapped memory, device memory the host cannot touch,
 * addressing outside a storage, blob deleters (once on success, never on failure), the error hook and
 * th_clear_error. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})
#define IDX(...) ((const int64_t[]){__VA_ARGS__})

static th_f32_tensor *arange(int ndim, const int64_t *sizes)
{
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    for (int64_t i = 0; i < th_f32_numel(t); i++) th_f32_data(t)[i] = (float)i;
    return t;
}

/* ---- a deleter that counts ------------------------------------------------------------ */

typedef struct deleter_log {
    int calls;
    void *last_data;
} deleter_log;

static void count_deleter(void *data, void *ctx)
{
    deleter_log *log = (deleter_log *)ctx;
    log->calls++;
    log->last_data = data;
}

/* ---- sizes, dims and element counts ------------------------------------------------------ */

static void test_bad_sizes(void)
{
    deleter_log dl = {0, NULL};
    float blob[16] = {0};
    th_storage *s = th_f32_storage_new(16);

    /* negative sizes */
    CHECK_NULL(th_f32_empty(2, SZ(3, -1)), TH_ERR_INVALID, "th_f32_empty", "negative size -1 in dim 1");
    CHECK_NULL(th_f32_zeros(1, SZ(-5)), TH_ERR_INVALID, "th_f32_zeros", "negative size -5 in dim 0");
    CHECK_NULL(th_f32_ones(1, SZ(-1)), TH_ERR_INVALID, "th_f32_ones", "negative size");
    CHECK_NULL(th_i64_full(1, SZ(-1), 3), TH_ERR_INVALID, "th_i64_full", "negative size");
    CHECK_NULL(th_f32_from_blob(blob, 1, SZ(-2), NULL, count_deleter, &dl), TH_ERR_INVALID, "th_f32_from_blob",
               "negative size");
    CHECK_NULL(th_f32_new_with_storage(s, 0, 1, SZ(-1), NULL), TH_ERR_INVALID, "th_f32_new_with_storage",
               "negative size");
    CHECK_NULL(th_storage_new(-1, NULL, NULL), TH_ERR_INVALID, "th_storage_new", "negative size -1");
    CHECK_NULL(th_f32_storage_new(-3), TH_ERR_INVALID, "th_f32_storage_new", "negative size -3");
    CHECK_NULL(th_f32_storage_new_with_allocator(-3, NULL, NULL), TH_ERR_INVALID,
               "th_f32_storage_new_with_allocator", "negative");
    CHECK_NULL(th_f32_storage_from_blob(blob, -1, count_deleter, &dl), TH_ERR_INVALID, "th_f32_storage_from_blob",
               "-1");
    CHECK_NULL(th_storage_from_blob(blob, -4, (th_device){TH_DEVICE_CPU, 0}, count_deleter, &dl), TH_ERR_INVALID,
               "th_storage_from_blob", "negative size");

    /* element counts that overflow int64 */
    CHECK_NULL(th_f32_empty(2, SZ(INT64_MAX / 2, 3)), TH_ERR_OVERFLOW, "th_f32_empty", "overflows int64");
    CHECK_NULL(th_f32_zeros(3, SZ(0, INT64_MAX, 2)), TH_ERR_OVERFLOW, "th_f32_zeros", "overflows int64");
    CHECK_NULL(th_u8_empty(4, SZ(1 << 20, 1 << 20, 1 << 20, 1 << 20)), TH_ERR_OVERFLOW, "th_u8_empty", "overflow");
    /* an element count that fits, but a byte count that does not */
    CHECK_NULL(th_f32_empty(1, SZ(INT64_MAX / 2)), TH_ERR_OVERFLOW, "th_f32_empty", "overflow");
    CHECK_NULL(th_f32_storage_new(INT64_MAX / 2), TH_ERR_OVERFLOW, "th_f32_storage_new", "overflow");
    CHECK_NULL(th_c128_storage_from_blob(NULL, INT64_MAX / 8, count_deleter, &dl), TH_ERR_OVERFLOW,
               "th_c128_storage_from_blob", "");
    CHECK_NULL(th_f32_from_blob(blob, 2, SZ(INT64_MAX / 2, 3), NULL, count_deleter, &dl), TH_ERR_OVERFLOW,
               "th_f32_from_blob", "overflows int64");
    /* strides whose span overflows */
    CHECK_NULL(th_f32_from_blob(blob, 1, SZ(3), SZ(INT64_MAX), count_deleter, &dl), TH_ERR_OVERFLOW,
               "th_f32_from_blob", "overflows");
    CHECK_NULL(th_f32_from_blob(blob, 2, SZ(2, 2), SZ(INT64_MAX / 2 + 1, INT64_MAX / 2 + 1), count_deleter, &dl),
               TH_ERR_OVERFLOW, "th_f32_from_blob", "");
    CHECK_NULL(th_f32_new_with_storage(s, 0, 1, SZ(3), SZ(INT64_MAX)), TH_ERR_OVERFLOW, "th_f32_new_with_storage",
               "overflows");

    /* ndim outside 0..TH_MAX_DIMS */
    int64_t many[TH_MAX_DIMS + 1];
    for (int d = 0; d <= TH_MAX_DIMS; d++) many[d] = 1;
    CHECK_NULL(th_f32_empty(TH_MAX_DIMS + 1, many), TH_ERR_RANGE, "th_f32_empty", "ndim 17 is outside 0..16");
    CHECK_NULL(th_f32_empty(-1, many), TH_ERR_RANGE, "th_f32_empty", "ndim -1 is outside 0..16");
    CHECK_NULL(th_f32_zeros(INT_MAX, many), TH_ERR_RANGE, "th_f32_zeros", "outside");
    CHECK_NULL(th_f32_from_blob(blob, TH_MAX_DIMS + 1, many, NULL, count_deleter, &dl), TH_ERR_RANGE,
               "th_f32_from_blob", "ndim 17");
    CHECK_NULL(th_f32_new_with_storage(s, 0, -1, many, NULL), TH_ERR_RANGE, "th_f32_new_with_storage", "ndim -1");
    th_f32_tensor *ok = th_f32_empty(TH_MAX_DIMS, many);
    CHECK(ok != NULL);
    CHECK_NULL(th_f32_view(ok, TH_MAX_DIMS + 1, many), TH_ERR_RANGE, "th_f32_view", "ndim 17");
    CHECK_NULL(th_f32_view(ok, -1, many), TH_ERR_RANGE, "th_f32_view", "ndim -1");
    CHECK_NULL(th_f32_reshape(ok, TH_MAX_DIMS + 1, many), TH_ERR_RANGE, "th_f32_reshape", "ndim 17");
    CHECK_NULL(th_f32_expand(ok, TH_MAX_DIMS + 1, many), TH_ERR_RANGE, "th_f32_expand", "");
    CHECK_NULL(th_f32_as_strided(ok, TH_MAX_DIMS + 1, many, many, 0), TH_ERR_RANGE, "th_f32_as_strided", "ndim 17");
    CHECK_NULL(th_f32_unsqueeze(ok, 0), TH_ERR_RANGE, "th_f32_unsqueeze", "TH_MAX_DIMS");
    CHECK_NULL(th_f32_unfold(ok, 0, 1, 1), TH_ERR_RANGE, "th_f32_unfold", "");
    th_f32_release(ok);

    /* NULL sizes for a non-zero ndim */
    CHECK_NULL(th_f32_empty(2, NULL), TH_ERR_INVALID, "th_f32_empty", "NULL sizes for ndim 2");
    CHECK_NULL(th_f32_from_blob(blob, 1, NULL, NULL, count_deleter, &dl), TH_ERR_INVALID, "th_f32_from_blob",
               "NULL sizes");
    /* 0-d needs no sizes */
    th_f32_tensor *z = th_f32_empty(0, NULL);
    CHECK(z != NULL);
    CHECK_INT_EQ(th_f32_numel(z), 1);
    th_f32_release(z);

    CHECK_INT_EQ(dl.calls, 0); /* no failed from_blob ran the deleter */
    th_storage_release(s);
}

/* ---- views and dims ------------------------------------------------------------------- */

static void test_bad_views(void)
{
    th_f32_tensor *a = arange(2, SZ(4, 10));
    /* view: element count mismatch, two -1, a stride layout that needs a copy */
    CHECK_NULL(th_f32_view(a, 2, SZ(3, 10)), TH_ERR_SHAPE, "th_f32_view", "30 elements cannot hold the tensor's 40");
    CHECK_NULL(th_f32_view(a, 3, SZ(-1, 2, -1)), TH_ERR_INVALID, "th_f32_view", "more than one -1 in the sizes (dims 0 and 2)");
    CHECK_NULL(th_f32_view(a, 2, SZ(-1, 3)), TH_ERR_SHAPE, "th_f32_view", "cannot infer the size of dim 0");
    CHECK_NULL(th_f32_view(a, 2, SZ(INT64_MAX / 2, 3)), TH_ERR_OVERFLOW, "th_f32_view", "overflows");
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    CHECK_NULL(th_f32_view(t, 1, SZ(40)), TH_ERR_SHAPE, "th_f32_view", "without a copy");
    CHECK_NULL(th_f32_view(a, 2, NULL), TH_ERR_INVALID, "th_f32_view", "NULL sizes");
    CHECK_NULL(th_f32_reshape(a, 2, SZ(3, 3)), TH_ERR_SHAPE, "th_f32_reshape", "cannot hold");
    CHECK_NULL(th_f32_flatten(t, 0, 1), TH_ERR_SHAPE, "th_f32_flatten", "without a copy");

    /* narrow and select out of range */
    CHECK_NULL(th_f32_narrow(a, 1, 7, 4), TH_ERR_RANGE, "th_f32_narrow", "start 7 + length 4 exceeds size 10 of dim 1");
    CHECK_NULL(th_f32_narrow(a, 0, 5, 0), TH_ERR_RANGE, "th_f32_narrow", "start 5 is out of range for size 4 of dim 0");
    CHECK_NULL(th_f32_narrow(a, -1, -11, 2), TH_ERR_RANGE, "th_f32_narrow", "start -11");
    CHECK_NULL(th_f32_narrow(a, 1, 0, -1), TH_ERR_RANGE, "th_f32_narrow", "length -1");
    CHECK_NULL(th_f32_narrow(a, 1, 2, INT64_MAX), TH_ERR_RANGE, "th_f32_narrow", "exceeds size 10");
    CHECK_NULL(th_f32_narrow(a, 2, 0, 1), TH_ERR_RANGE, "th_f32_narrow", "dim 2 is out of range for a tensor of 2 dims");
    CHECK_NULL(th_f32_narrow(a, -3, 0, 1), TH_ERR_RANGE, "th_f32_narrow", "dim -3");
    CHECK_NULL(th_f32_select(a, 0, 4), TH_ERR_RANGE, "th_f32_select", "index 4 is out of range for size 4 of dim 0");
    CHECK_NULL(th_f32_select(a, 1, -11), TH_ERR_RANGE, "th_f32_select", "index -11 is out of range for size 10 of dim 1");
    CHECK_NULL(th_f32_select(a, 2, 0), TH_ERR_RANGE, "th_f32_select", "dim 2");
    th_f32_tensor *z = th_f32_full(0, NULL, 1.0f);
    CHECK_NULL(th_f32_select(z, 0, 0), TH_ERR_RANGE, "th_f32_select", "0-d");
    CHECK_NULL(th_f32_narrow(z, 0, 0, 1), TH_ERR_RANGE, "th_f32_narrow", "0-d");

    /* transpose and permute */
    CHECK_NULL(th_f32_transpose(a, 0, 2), TH_ERR_RANGE, "th_f32_transpose", "dim 2 is out of range for a tensor of 2 dims");
    CHECK_NULL(th_f32_transpose(a, -3, 0), TH_ERR_RANGE, "th_f32_transpose", "dim -3");
    CHECK_NULL(th_f32_transpose(a, INT_MIN, 0), TH_ERR_RANGE, "th_f32_transpose", "out of range");
    const int rep[2] = {1, 1}, rep2[2] = {1, -1}, far[2] = {0, 2}, neg[2] = {0, -3};
    CHECK_NULL(th_f32_permute(a, rep), TH_ERR_INVALID, "th_f32_permute", "dim 1 appears twice");
    CHECK_NULL(th_f32_permute(a, rep2), TH_ERR_INVALID, "th_f32_permute", "appears twice");
    CHECK_NULL(th_f32_permute(a, far), TH_ERR_RANGE, "th_f32_permute", "dim 2 is out of range");
    CHECK_NULL(th_f32_permute(a, neg), TH_ERR_RANGE, "th_f32_permute", "dim -3");
    CHECK_NULL(th_f32_permute(a, NULL), TH_ERR_INVALID, "th_f32_permute", "NULL dims");

    /* expand */
    th_f32_tensor *col = th_f32_narrow(a, 1, 0, 1); /* 4x1 */
    CHECK_NULL(th_f32_expand(col, 2, SZ(5, 3)), TH_ERR_SHAPE, "th_f32_expand", "cannot expand dim 0 of size 4 to 5");
    CHECK_NULL(th_f32_expand(a, 2, SZ(4, 20)), TH_ERR_SHAPE, "th_f32_expand", "cannot expand dim 1 of size 10 to 20");
    CHECK_NULL(th_f32_expand(col, 1, SZ(4)), TH_ERR_RANGE, "th_f32_expand", "cannot expand 2 dims to 1");
    CHECK_NULL(th_f32_expand(col, 2, NULL), TH_ERR_INVALID, "th_f32_expand", "NULL sizes");
    CHECK_NULL(th_f32_expand(col, 3, SZ(-1, 4, 3)), TH_ERR_INVALID, "th_f32_expand", "new leading dim 0");
    CHECK_NULL(th_f32_expand(z, 2, SZ(INT64_MAX / 2, 3)), TH_ERR_OVERFLOW, "th_f32_expand", "overflows");

    /* squeeze_dim, unsqueeze, unfold, flatten */
    CHECK_NULL(th_f32_squeeze_dim(a, 2), TH_ERR_RANGE, "th_f32_squeeze_dim", "dim 2");
    CHECK_NULL(th_f32_squeeze_dim(a, INT_MIN), TH_ERR_RANGE, "th_f32_squeeze_dim", "out of range");
    CHECK_NULL(th_f32_unsqueeze(a, 3), TH_ERR_RANGE, "th_f32_unsqueeze", "dim 3 is out of range -3..2");
    CHECK_NULL(th_f32_unsqueeze(a, -4), TH_ERR_RANGE, "th_f32_unsqueeze", "dim -4");
    CHECK_NULL(th_f32_unfold(a, 1, 11, 1), TH_ERR_RANGE, "th_f32_unfold", "window size 11 exceeds size 10 of dim 1");
    CHECK_NULL(th_f32_unfold(a, 1, -1, 1), TH_ERR_RANGE, "th_f32_unfold", "window size -1");
    CHECK_NULL(th_f32_unfold(a, 1, 2, 0), TH_ERR_INVALID, "th_f32_unfold", "step 0 must be positive");
    CHECK_NULL(th_f32_unfold(a, 1, 2, -1), TH_ERR_INVALID, "th_f32_unfold", "step -1");
    CHECK_NULL(th_f32_unfold(a, 2, 2, 1), TH_ERR_RANGE, "th_f32_unfold", "dim 2");
    CHECK_NULL(th_f32_unfold(z, 0, 1, 1), TH_ERR_RANGE, "th_f32_unfold", "the tensor has 0");
    CHECK_NULL(th_f32_flatten(a, 1, 0), TH_ERR_RANGE, "th_f32_flatten", "start_dim 1 comes after end_dim 0");
    CHECK_NULL(th_f32_flatten(a, 0, 2), TH_ERR_RANGE, "th_f32_flatten", "dim 2");
    CHECK_NULL(th_f32_flatten(z, 0, 1), TH_ERR_RANGE, "th_f32_flatten", "dim 1");

    /* size and stride of a dim out of range */
    th_clear_error();
    CHECK_INT_EQ(th_f32_size(a, 2), -1);
    CHECK_INT_EQ(th_last_status(), TH_ERR_RANGE);
    CHECK(strncmp(th_last_error(), "th_f32_size: ", 13) == 0);
    th_clear_error();
    CHECK_INT_EQ(th_f32_stride(a, -3), 0);
    CHECK_INT_EQ(th_last_status(), TH_ERR_RANGE);
    CHECK(strncmp(th_last_error(), "th_f32_stride: ", 15) == 0);
    th_clear_error();
    CHECK_INT_EQ(th_f32_size(z, 0), -1);
    CHECK_INT_EQ(th_last_status(), TH_ERR_RANGE);
    CHECK(strstr(th_last_error(), "0-d") != NULL);
    th_clear_error();
    CHECK_INT_EQ(th_f32_size(a, -1), 10);
    CHECK_INT_EQ(th_f32_stride(a, -2), 10);
    CHECK_INT_EQ(th_last_status(), TH_OK);

    /* from_base of another dtype */
    CHECK_NULL(th_i32_from_base(th_f32_base(a)), TH_ERR_DTYPE, "th_i32_from_base", "dtype is f32");
    CHECK(th_f32_from_base(th_f32_base(a)) == a);

    th_f32_release(col);
    th_f32_release(z);
    th_f32_release(t);
    th_f32_release(a);
}

/* ---- NULL arguments everywhere ---------------------------------------------------------- */

static void test_null_arguments(void)
{
    th_f32_tensor *a = arange(2, SZ(2, 3));
    const int64_t two[2] = {2, 3};
    float x = 1.0f;

    /* references: no-ops */
    CHECK(th_f32_retain(NULL) == NULL);
    th_f32_release(NULL);
    CHECK(th_tensor_retain(NULL) == NULL);
    th_tensor_release(NULL);
    CHECK(th_storage_retain(NULL) == NULL);
    th_storage_release(NULL);
    CHECK(th_f32_base(NULL) == NULL);
    CHECK_NULL(th_f32_from_base(NULL), TH_ERR_INVALID, "th_f32_from_base", "NULL tensor");

    /* properties: the documented values */
    CHECK_INT_EQ(th_f32_ndim(NULL), 0);
    CHECK_INT_EQ(th_f32_numel(NULL), 0);
    CHECK(th_f32_sizes(NULL) == NULL);
    CHECK(th_f32_strides(NULL) == NULL);
    CHECK(th_f32_data(NULL) == NULL);
    CHECK(th_f32_storage(NULL) == NULL);
    CHECK_INT_EQ(th_f32_offset(NULL), 0);
    CHECK(!th_f32_is_contiguous(NULL));
    CHECK_ERROR(th_f32_size(NULL, 0) == -1, TH_ERR_INVALID, "th_f32_size", "NULL tensor");
    CHECK_ERROR(th_f32_stride(NULL, 0) == 0, TH_ERR_INVALID, "th_f32_stride", "NULL tensor");
    CHECK_INT_EQ((int)th_tensor_dtype(NULL), -1); /* (th_dtype)-1: the enum's type may be unsigned */
    CHECK(th_tensor_dtype(NULL) == (th_dtype)-1);
    CHECK_INT_EQ(th_tensor_ndim(NULL), 0);
    CHECK(th_tensor_sizes(NULL) == NULL);
    CHECK(th_tensor_strides(NULL) == NULL);
    CHECK_INT_EQ(th_tensor_numel(NULL), 0);
    CHECK(th_tensor_data(NULL) == NULL);
    CHECK(th_tensor_storage(NULL) == NULL);
    CHECK_INT_EQ(th_tensor_offset(NULL), 0);
    CHECK(!th_tensor_is_contiguous(NULL));

    /* elements */
    CHECK_ERROR(th_f32_get(NULL, IDX(0, 0)) == 0.0f, TH_ERR_INVALID, "th_f32_get", "NULL tensor");
    CHECK_FAILS(th_f32_set(NULL, IDX(0, 0), x), TH_ERR_INVALID, "th_f32_set", "NULL tensor");
    CHECK_ERROR(th_f32_get(a, NULL) == 0.0f, TH_ERR_INVALID, "th_f32_get", "NULL index for a 2-d tensor");
    CHECK_FAILS(th_f32_set(a, NULL, x), TH_ERR_INVALID, "th_f32_set", "NULL index");
    CHECK_FAILS(th_f32_fill(NULL, x), TH_ERR_INVALID, "th_f32_fill", "NULL tensor");
    CHECK_FAILS(th_f32_copy(NULL, a), TH_ERR_INVALID, "th_f32_copy", "NULL dst");
    CHECK_FAILS(th_f32_copy(a, NULL), TH_ERR_INVALID, "th_f32_copy", "NULL src");
    CHECK_FAILS(th_f32_copy(NULL, NULL), TH_ERR_INVALID, "th_f32_copy", "NULL dst");
    CHECK_FAILS(th_tensor_copy(NULL, th_f32_base(a)), TH_ERR_INVALID, "th_tensor_copy", "NULL dst");
    CHECK_FAILS(th_tensor_copy(th_f32_base(a), NULL), TH_ERR_INVALID, "th_tensor_copy", "NULL src");
    CHECK_NULL(th_f32_contiguous(NULL), TH_ERR_INVALID, "th_f32_contiguous", "NULL tensor");
    CHECK_NULL(th_f32_clone(NULL), TH_ERR_INVALID, "th_f32_clone", "NULL tensor");
    CHECK_NULL(th_f64_convert(NULL), TH_ERR_INVALID, "th_f64_convert", "NULL tensor");
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        CHECK_FAILS(th_f32_print(f, NULL), TH_ERR_INVALID, "th_f32_print", "NULL tensor");
        CHECK_FAILS(th_tensor_print(f, NULL), TH_ERR_INVALID, "th_tensor_print", "NULL tensor");
        CHECK_INT_EQ(ftell(f), 0); /* nothing written */
        fclose(f);
    }
    CHECK_FAILS(th_f32_print(NULL, a), TH_ERR_INVALID, "th_f32_print", "NULL stream");
    CHECK_FAILS(th_tensor_print(NULL, th_f32_base(a)), TH_ERR_INVALID, "th_tensor_print", "NULL stream");

    /* views */
    const int perm[2] = {1, 0};
    CHECK_NULL(th_f32_view(NULL, 2, two), TH_ERR_INVALID, "th_f32_view", "NULL tensor");
    CHECK_NULL(th_f32_reshape(NULL, 2, two), TH_ERR_INVALID, "th_f32_reshape", "NULL tensor");
    CHECK_NULL(th_f32_transpose(NULL, 0, 1), TH_ERR_INVALID, "th_f32_transpose", "NULL tensor");
    CHECK_NULL(th_f32_permute(NULL, perm), TH_ERR_INVALID, "th_f32_permute", "NULL tensor");
    CHECK_NULL(th_f32_narrow(NULL, 0, 0, 1), TH_ERR_INVALID, "th_f32_narrow", "NULL tensor");
    CHECK_NULL(th_f32_select(NULL, 0, 0), TH_ERR_INVALID, "th_f32_select", "NULL tensor");
    CHECK_NULL(th_f32_unfold(NULL, 0, 1, 1), TH_ERR_INVALID, "th_f32_unfold", "NULL tensor");
    CHECK_NULL(th_f32_squeeze(NULL), TH_ERR_INVALID, "th_f32_squeeze", "NULL tensor");
    CHECK_NULL(th_f32_squeeze_dim(NULL, 0), TH_ERR_INVALID, "th_f32_squeeze_dim", "NULL tensor");
    CHECK_NULL(th_f32_unsqueeze(NULL, 0), TH_ERR_INVALID, "th_f32_unsqueeze", "NULL tensor");
    CHECK_NULL(th_f32_expand(NULL, 2, two), TH_ERR_INVALID, "th_f32_expand", "NULL tensor");
    CHECK_NULL(th_f32_as_strided(NULL, 2, two, two, 0), TH_ERR_INVALID, "th_f32_as_strided", "NULL tensor");
    CHECK_NULL(th_f32_as_strided(a, 2, two, NULL, 0), TH_ERR_INVALID, "th_f32_as_strided", "NULL strides");
    CHECK_NULL(th_f32_as_strided(a, 2, NULL, two, 0), TH_ERR_INVALID, "th_f32_as_strided", "NULL sizes");
    CHECK_NULL(th_f32_flatten(NULL, 0, -1), TH_ERR_INVALID, "th_f32_flatten", "NULL tensor");
    /* other dtypes name themselves */
    CHECK_NULL(th_bool_transpose(NULL, 0, 1), TH_ERR_INVALID, "th_bool_transpose", "NULL tensor");
    CHECK_NULL(th_c128_clone(NULL), TH_ERR_INVALID, "th_c128_clone", "NULL tensor");
    CHECK_FAILS(th_bf16_fill(NULL, th_bfloat16_from_float(1.0f)), TH_ERR_INVALID, "th_bf16_fill", "NULL tensor");

    /* storages */
    CHECK(th_f32_storage_data(NULL) == NULL);
    CHECK_INT_EQ(th_f32_storage_size(NULL), 0);
    CHECK_FAILS(th_f32_storage_fill(NULL, x), TH_ERR_INVALID, "th_f32_storage_fill", "NULL storage");
    CHECK_INT_EQ(th_storage_nbytes(NULL), 0);
    CHECK_INT_EQ(th_storage_device(NULL).type, 0);
    CHECK_INT_EQ(th_storage_device(NULL).index, 0);
    CHECK(th_storage_raw_data(NULL) == NULL);
    CHECK_INT_EQ(th_storage_refcount(NULL), 0);
    CHECK(!th_storage_is_resizable(NULL));
    CHECK_FAILS(th_storage_resize(NULL, 8), TH_ERR_INVALID, "th_storage_resize", "NULL storage");
    CHECK_NULL(th_f32_new_with_storage(NULL, 0, 2, two, NULL), TH_ERR_INVALID, "th_f32_new_with_storage",
               "NULL storage");
    /* counting allocators */
    th_counting_allocator_free(NULL);
    CHECK(th_counting_allocator_get(NULL) == NULL);
    th_alloc_stats st = th_counting_allocator_stats(NULL);
    CHECK(st.live_blocks == 0 && st.live_bytes == 0 && st.peak_bytes == 0 && st.total_allocs == 0 &&
          st.failed_allocs == 0);
    th_counting_allocator_fail_after(NULL, 1);

    /* an allocator without functions */
    const th_allocator broken = {"broken", NULL, NULL, NULL, {TH_DEVICE_CPU, 0}};
    CHECK_NULL(th_storage_new(16, &broken, NULL), TH_ERR_INVALID, "th_storage_new", "allocator 'broken' has no alloc or free");

    th_f32_release(a);
}

/* ---- get and set out of range ---------------------------------------------------------- */

static void test_get_set(void)
{
    th_f32_tensor *a = arange(2, SZ(2, 3));
    CHECK_ERROR(th_f32_get(a, IDX(2, 0)) == 0.0f, TH_ERR_RANGE, "th_f32_get", "index 2 is out of range for dim 0 of size 2");
    CHECK_ERROR(th_f32_get(a, IDX(0, 3)) == 0.0f, TH_ERR_RANGE, "th_f32_get", "index 3 is out of range for dim 1 of size 3");
    CHECK_ERROR(th_f32_get(a, IDX(0, -4)) == 0.0f, TH_ERR_RANGE, "th_f32_get", "index -4 is out of range for dim 1");
    CHECK_ERROR(th_f32_get(a, IDX(-3, 0)) == 0.0f, TH_ERR_RANGE, "th_f32_get", "index -3");
    CHECK_ERROR(th_f32_get(a, IDX(INT64_MIN, 0)) == 0.0f, TH_ERR_RANGE, "th_f32_get", "out of range");
    CHECK_ERROR(th_f32_get(a, IDX(0, INT64_MAX)) == 0.0f, TH_ERR_RANGE, "th_f32_get", "out of range");
    CHECK_FAILS(th_f32_set(a, IDX(0, 3), 1.0f), TH_ERR_RANGE, "th_f32_set", "index 3 is out of range for dim 1 of size 3");
    CHECK_FAILS(th_f32_set(a, IDX(-3, 0), 1.0f), TH_ERR_RANGE, "th_f32_set", "index -3");
    /* nothing was written */
    for (int k = 0; k < 6; k++) CHECK(th_f32_data(a)[k] == (float)k);
    /* negative indices in range count from the end */
    th_clear_error();
    CHECK(th_f32_get(a, IDX(-1, -1)) == 5.0f);
    CHECK(th_f32_get(a, IDX(-2, -3)) == 0.0f);
    CHECK_INT_EQ(th_f32_set(a, IDX(-1, -2), 40.0f), TH_OK);
    CHECK(th_f32_data(a)[4] == 40.0f);
    CHECK_INT_EQ(th_last_status(), TH_OK);
    /* an empty tensor has no elements to get */
    th_i64_tensor *e = th_i64_empty(1, SZ(0));
    CHECK_ERROR(th_i64_get(e, IDX(0)) == 0, TH_ERR_RANGE, "th_i64_get", "index 0 is out of range for dim 0 of size 0");
    /* on error the returned zero is the dtype's zero */
    th_c64_tensor *c = th_c64_ones(1, SZ(1));
    th_clear_error();
    th_complex64 cz = th_c64_get(c, IDX(1));
    float parts[2];
    memcpy(parts, &cz, sizeof parts);
    CHECK(parts[0] == 0.0f && parts[1] == 0.0f);
    CHECK_INT_EQ(th_last_status(), TH_ERR_RANGE);
    th_f16_tensor *h = th_f16_ones(1, SZ(1));
    CHECK_ERROR(th_f16_get(h, IDX(5)).bits == 0, TH_ERR_RANGE, "th_f16_get", "index 5");
    th_release(h);
    th_release(c);
    th_release(e);
    th_release(a);
}

/* ---- copy shape errors ---------------------------------------------------------------- */

static void test_copy_errors(void)
{
    th_f32_tensor *a = th_f32_zeros(2, SZ(2, 3));
    th_f32_tensor *b = th_f32_ones(1, SZ(2));
    th_f32_tensor *c = th_f32_ones(2, SZ(3, 3));
    th_f32_tensor *d = th_f32_ones(3, SZ(1, 2, 3));
    CHECK_FAILS(th_f32_copy(a, b), TH_ERR_SHAPE, "th_f32_copy", "shape (2) does not broadcast to (2, 3)");
    CHECK_FAILS(th_f32_copy(a, c), TH_ERR_SHAPE, "th_f32_copy", "shape (3, 3) does not broadcast to (2, 3)");
    CHECK_FAILS(th_f32_copy(a, d), TH_ERR_SHAPE, "th_f32_copy", "shape (1, 2, 3) does not broadcast to (2, 3)");
    CHECK_FAILS(th_tensor_copy(th_f32_base(a), th_f32_base(b)), TH_ERR_SHAPE, "th_tensor_copy", "does not broadcast");
    th_i32_tensor *ib = th_i32_ones(1, SZ(4));
    CHECK_FAILS(th_tensor_copy(th_f32_base(a), th_i32_base(ib)), TH_ERR_SHAPE, "th_tensor_copy", "shape (4)");
    /* a dst whose elements overlap */
    th_f32_tensor *col = th_f32_zeros(2, SZ(2, 1));
    th_f32_tensor *ex = th_f32_expand(col, 2, SZ(2, 3));
    CHECK_FAILS(th_f32_copy(ex, a), TH_ERR_INVALID, "th_f32_copy", "dst dim 1 has stride 0");
    CHECK_FAILS(th_tensor_copy(th_f32_base(ex), th_i32_base(ib)), TH_ERR_INVALID, "th_tensor_copy", "stride 0");
    th_f32_tensor *ex1 = th_f32_expand(col, 3, SZ(1, 2, 1)); /* a stride-0 dim of size 1 is fine */
    th_f32_tensor *b0 = th_f32_select(b, 0, 0);
    CHECK_INT_EQ(th_f32_copy(ex1, b0), TH_OK);
    th_release(b0);
    /* the typed copy between dtypes */
    CHECK_FAILS(th_f32_copy(a, (const th_f32_tensor *)ib), TH_ERR_DTYPE, "th_f32_copy",
                "src is i32, not f32: use th_tensor_copy to convert");
    /* nothing was written by the failed copies (the one that succeeded wrote col through ex1) */
    for (int k = 0; k < 6; k++) CHECK(th_f32_data(a)[k] == 0.0f);
    CHECK(th_f32_data(col)[0] == 1.0f && th_f32_data(col)[1] == 1.0f);
    th_release(ex1);
    th_release(ex);
    th_release(col);
    th_release(ib);
    th_release(d);
    th_release(c);
    th_release(b);
    th_release(a);
}

/* ---- allocator failure ---------------------------------------------------------------- */

static void test_out_of_memory(void)
{
    th_counting_allocator *c = th_counting_allocator_new(NULL, NULL);
    th_set_default_allocator(th_counting_allocator_get(c), c);
    void *ctx = NULL;
    CHECK(th_default_allocator(&ctx) == th_counting_allocator_get(c) && ctx == c);

    th_f32_tensor *a = arange(2, SZ(8, 8));
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    th_storage *s = th_f32_storage_new(4);
    for (int k = 0; k < 4; k++) th_f32_storage_data(s)[k] = (float)k;
    void *s_data = th_storage_raw_data(s);
    th_alloc_stats before = th_counting_allocator_stats(c);
    CHECK_INT_EQ(before.live_blocks, 2);

    th_counting_allocator_fail_after(c, 1); /* the next allocation and every one after fail */
    CHECK_NULL(th_f32_empty(2, SZ(3, 4)), TH_ERR_NOMEM, "th_f32_empty", "could not allocate 48 bytes");
    CHECK_NULL(th_f32_zeros(1, SZ(5)), TH_ERR_NOMEM, "th_f32_zeros", "could not allocate");
    CHECK_NULL(th_f32_ones(1, SZ(5)), TH_ERR_NOMEM, "th_f32_ones", "could not allocate");
    CHECK_NULL(th_f32_full(1, SZ(5), 2.0f), TH_ERR_NOMEM, "th_f32_full", "could not allocate");
    CHECK_NULL(th_f32_clone(a), TH_ERR_NOMEM, "th_f32_clone", "could not allocate");
    CHECK_NULL(th_f32_contiguous(t), TH_ERR_NOMEM, "th_f32_contiguous", "could not allocate");
    CHECK_NULL(th_f64_convert(th_f32_base(a)), TH_ERR_NOMEM, "th_f64_convert", "could not allocate");
    CHECK_NULL(th_f32_reshape(t, 1, SZ(64)), TH_ERR_NOMEM, "th_f32_reshape", "could not allocate");
    CHECK_NULL(th_f32_storage_new(4), TH_ERR_NOMEM, "th_f32_storage_new", "could not allocate");
    CHECK_NULL(th_storage_new(64, NULL, NULL), TH_ERR_NOMEM, "th_storage_new", "allocator 'counting'");
    CHECK_NULL(th_storage_new(64, th_counting_allocator_get(c), c), TH_ERR_NOMEM, "th_storage_new", "could not allocate");
    /* an overlapping copy needs a snapshot, which cannot be had */
    th_f32_tensor *hi = th_f32_narrow(a, 1, 1, 7), *lo = th_f32_narrow(a, 1, 0, 7);
    CHECK_FAILS(th_f32_copy(hi, lo), TH_ERR_NOMEM, "th_f32_copy", "could not allocate");
    /* a resize fails and leaves the storage as it was */
    CHECK_FAILS(th_storage_resize(s, 64), TH_ERR_NOMEM, "th_storage_resize", "could not allocate");
    CHECK_INT_EQ(th_storage_nbytes(s), 16);
    CHECK(th_storage_raw_data(s) == s_data);
    for (int k = 0; k < 4; k++) CHECK(th_f32_storage_data(s)[k] == (float)k);
    /* what needs no memory still works: views, contiguous of a contiguous tensor, empty tensors */
    th_f32_tensor *v = th_f32_view(a, 1, SZ(64));
    CHECK(v != NULL);
    th_f32_tensor *ac = th_f32_contiguous(a);
    CHECK(ac == a);
    th_f32_tensor *e = th_f32_empty(2, SZ(0, 4));
    CHECK(e != NULL);
    th_f32_tensor *ec = th_f32_clone(e);
    CHECK(ec != NULL);
    CHECK_INT_EQ(th_f32_copy(a, a), TH_OK);
    th_alloc_stats during = th_counting_allocator_stats(c);
    CHECK_INT_EQ(during.live_blocks, before.live_blocks);
    CHECK_INT_EQ(during.live_bytes, before.live_bytes);
    CHECK_INT_EQ(during.failed_allocs, 13);

    /* from the second allocation on: the first of two succeeds, and is given back */
    th_counting_allocator_fail_after(c, 2);
    th_f32_tensor *one = th_f32_zeros(1, SZ(3));
    CHECK(one != NULL);
    CHECK_NULL(th_f32_zeros(1, SZ(3)), TH_ERR_NOMEM, "th_f32_zeros", "");
    th_f32_release(one);
    /* n <= 0: never fails again */
    th_counting_allocator_fail_after(c, 0);
    th_f32_tensor *k = th_f32_clone(t);
    CHECK(k != NULL);
    CHECK_INT_EQ(th_storage_resize(s, 64), TH_OK);
    for (int j = 0; j < 4; j++) CHECK(th_f32_storage_data(s)[j] == (float)j);
    th_f32_release(k);

    th_f32_release(ec);
    th_f32_release(e);
    th_f32_release(ac);
    th_f32_release(v);
    th_f32_release(lo);
    th_f32_release(hi);
    th_storage_release(s);
    th_f32_release(t);
    th_f32_release(a);
    th_alloc_stats after = th_counting_allocator_stats(c);
    CHECK_INT_EQ(after.live_blocks, 0);
    CHECK_INT_EQ(after.live_bytes, 0);
    CHECK(after.peak_bytes >= 64 * (int64_t)sizeof(float));
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
    th_counting_allocator_free(c);
}

/* An allocator that records why it failed, as cuda/'s caching allocator does on out-of-memory. */
static void *reasoned_alloc(void *ctx, size_t n)
{
    (void)ctx;
    th_set_error(TH_ERR_NOMEM, "reasoned_alloc", "device 0 full: %zu bytes asked, 12 free", n);
    return NULL;
}
static void *reasoned_realloc(void *ctx, void *p, size_t old_n, size_t n)
{
    (void)p;
    (void)old_n;
    return reasoned_alloc(ctx, n);
}
static void reasoned_free(void *ctx, void *p, size_t n)
{
    (void)ctx;
    (void)n;
    free(p);
}

/* The allocator's own reason reaches the user, after the function's and the allocator's names. */
static void test_allocator_reason(void)
{
    static const th_allocator reasoned = {"reasoned", reasoned_alloc, NULL, reasoned_free, {TH_DEVICE_CPU, 0}};
    static const th_allocator reasoned_re = {"reasoned_re", reasoned_alloc, reasoned_realloc, reasoned_free,
                                             {TH_DEVICE_CPU, 0}};
    CHECK_NULL(th_storage_new(64, &reasoned, NULL), TH_ERR_NOMEM, "th_storage_new",
               "allocator 'reasoned' could not allocate 64 bytes: reasoned_alloc: device 0 full: 64 bytes asked");
    th_storage *s = th_storage_new(0, &reasoned_re, NULL);
    CHECK(s != NULL);
    CHECK_FAILS(th_storage_resize(s, 32), TH_ERR_NOMEM, "th_storage_resize",
                "allocator 'reasoned_re' could not allocate 32 bytes: reasoned_alloc: device 0 full: 32 bytes");
    th_storage_release(s);
    /* an allocator that records nothing: the message stops after the size, with no stale reason appended */
    th_counting_allocator *c = th_counting_allocator_new(NULL, NULL);
    th_counting_allocator_fail_after(c, 1);
    th_set_error(TH_ERR_RANGE, "earlier", "an unrelated earlier error");
    CHECK(th_storage_new(16, th_counting_allocator_get(c), c) == NULL);
    CHECK(strstr(th_last_error(), "could not allocate 16 bytes") && !strstr(th_last_error(), "earlier"));
    th_counting_allocator_free(c);
}

/* ---- resizing -------------------------------------------------------------------------- */

static void test_resize(void)
{
    th_storage *s = th_f32_storage_new(4);
    CHECK(th_storage_is_resizable(s));
    for (int k = 0; k < 4; k++) th_f32_storage_data(s)[k] = (float)(k + 1);
    CHECK_INT_EQ(th_storage_resize(s, 8 * sizeof(float)), TH_OK); /* grows, keeping the data */
    CHECK_INT_EQ(th_storage_nbytes(s), 32);
    CHECK_INT_EQ(th_f32_storage_size(s), 8);
    for (int k = 0; k < 4; k++) CHECK(th_f32_storage_data(s)[k] == (float)(k + 1));
    CHECK_INT_EQ(th_storage_resize(s, 8 * sizeof(float)), TH_OK); /* the same size */
    CHECK(th_f32_storage_data(s)[3] == 4.0f);
    CHECK_INT_EQ(th_storage_resize(s, 2 * sizeof(float)), TH_OK); /* shrinks, keeping the head */
    CHECK_INT_EQ(th_storage_nbytes(s), 8);
    CHECK(th_f32_storage_data(s)[0] == 1.0f && th_f32_storage_data(s)[1] == 2.0f);
    CHECK_INT_EQ(th_storage_resize(s, 0), TH_OK);
    CHECK_INT_EQ(th_storage_nbytes(s), 0);
    CHECK(th_f32_storage_data(s) == NULL);
    CHECK_INT_EQ(th_storage_resize(s, 12), TH_OK);
    CHECK_INT_EQ(th_f32_storage_size(s), 3);
    CHECK_FAILS(th_storage_resize(s, -1), TH_ERR_INVALID, "th_storage_resize", "negative size -1");
    CHECK_INT_EQ(th_storage_nbytes(s), 12);
    th_storage_release(s);

    /* wrapped memory cannot be resized */
    float blob[4] = {1, 2, 3, 4};
    deleter_log dl = {0, NULL};
    th_storage *b = th_storage_from_blob(blob, sizeof blob, (th_device){TH_DEVICE_CPU, 0}, count_deleter, &dl);
    CHECK(!th_storage_is_resizable(b));
    CHECK_FAILS(th_storage_resize(b, 32), TH_ERR_UNSUPPORTED, "th_storage_resize", "cannot resize");
    CHECK_FAILS(th_storage_resize(b, 0), TH_ERR_UNSUPPORTED, "th_storage_resize", "");
    CHECK_INT_EQ(th_storage_nbytes(b), 16);
    CHECK(th_storage_raw_data(b) == blob);
    th_storage *fb = th_f32_storage_from_blob(blob, 4, NULL, NULL);
    CHECK_FAILS(th_storage_resize(fb, 8), TH_ERR_UNSUPPORTED, "th_storage_resize", "");
    th_f32_tensor *tb = th_f32_from_blob(blob, 1, SZ(4), NULL, NULL, NULL);
    CHECK_FAILS(th_storage_resize(th_f32_storage(tb), 8), TH_ERR_UNSUPPORTED, "th_storage_resize", "");
    th_f32_release(tb);
    th_storage_release(fb);
    th_storage_release(b);
    CHECK_INT_EQ(dl.calls, 1);
}

/* ---- device memory -------------------------------------------------------------------- */

static void test_device(void)
{
    CHECK(th_device_is_host((th_device){TH_DEVICE_CPU, 0}));
    CHECK(!th_device_is_host((th_device){TH_DEVICE_CUDA, 0}));
    CHECK(th_device_is_host((th_device){TH_DEVICE_CUDA_HOST, 0}));
    CHECK(th_device_is_host((th_device){TH_DEVICE_CUDA_MANAGED, 1}));
    CHECK(!th_device_is_host((th_device){0, 0}));

    /* host memory labelled as CUDA device memory: the library must not touch it */
    float mem[8];
    for (int k = 0; k < 8; k++) mem[k] = -1.0f;
    th_storage *ds = th_storage_from_blob(mem, sizeof mem, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    CHECK_INT_EQ(th_storage_device(ds).type, TH_DEVICE_CUDA);
    th_f32_tensor *d = th_f32_new_with_storage(ds, 0, 2, SZ(2, 4), NULL);
    th_storage_release(ds);
    CHECK(d != NULL);
    th_f32_tensor *h = th_f32_zeros(2, SZ(2, 4));
    CHECK_FAILS(th_f32_fill(d, 1.0f), TH_ERR_DEVICE, "th_f32_fill", "device type 2");
    CHECK_ERROR(th_f32_get(d, IDX(0, 0)) == 0.0f, TH_ERR_DEVICE, "th_f32_get", "device type 2");
    CHECK_FAILS(th_f32_set(d, IDX(0, 0), 1.0f), TH_ERR_DEVICE, "th_f32_set", "device type 2");
    CHECK_FAILS(th_f32_copy(d, h), TH_ERR_DEVICE, "th_f32_copy", "device type 2");
    CHECK_FAILS(th_f32_copy(h, d), TH_ERR_DEVICE, "th_f32_copy", "device type 2");
    CHECK_FAILS(th_tensor_copy(th_f32_base(h), th_f32_base(d)), TH_ERR_DEVICE, "th_tensor_copy", "device");
    th_i32_tensor *hi = th_i32_zeros(2, SZ(2, 4));
    CHECK_FAILS(th_tensor_copy(th_f32_base(d), th_i32_base(hi)), TH_ERR_DEVICE, "th_tensor_copy", "device");
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        CHECK_FAILS(th_f32_print(f, d), TH_ERR_DEVICE, "th_f32_print", "device type 2");
        CHECK_FAILS(th_tensor_print(f, th_f32_base(d)), TH_ERR_DEVICE, "th_tensor_print", "device");
        CHECK_INT_EQ(ftell(f), 0);
        fclose(f);
    }
    CHECK_NULL(th_f32_clone(d), TH_ERR_DEVICE, "th_f32_clone", "device");
    CHECK_NULL(th_f64_convert(th_f32_base(d)), TH_ERR_DEVICE, "th_f64_convert", "device");
    CHECK_FAILS(th_f32_storage_fill(th_f32_storage(d), 1.0f), TH_ERR_DEVICE, "th_f32_storage_fill", "device type 2");
    /* views only do arithmetic on the layout: allowed, and still untouchable */
    th_f32_tensor *dt = th_f32_transpose(d, 0, 1);
    CHECK(dt != NULL);
    CHECK_NULL(th_f32_contiguous(dt), TH_ERR_DEVICE, "th_f32_contiguous", "device");
    CHECK_NULL(th_f32_reshape(dt, 1, SZ(8)), TH_ERR_DEVICE, "th_f32_reshape", "device");
    CHECK_FAILS(th_f32_fill(dt, 2.0f), TH_ERR_DEVICE, "th_f32_fill", "device");
    CHECK_FAILS(th_storage_resize(th_f32_storage(d), 64), TH_ERR_UNSUPPORTED, "th_storage_resize", "");
    for (int k = 0; k < 8; k++) CHECK(mem[k] == -1.0f);
    th_f32_release(dt);
    th_i32_release(hi);

    /* pinned host memory is host memory */
    th_storage *ps = th_storage_from_blob(mem, sizeof mem, (th_device){TH_DEVICE_CUDA_HOST, 0}, NULL, NULL);
    th_f32_tensor *p = th_f32_new_with_storage(ps, 0, 1, SZ(8), NULL);
    th_storage_release(ps);
    CHECK_INT_EQ(th_f32_fill(p, 3.0f), TH_OK);
    CHECK(mem[7] == 3.0f);
    th_f32_release(p);
    th_f32_release(h);
    th_f32_release(d);
}

/* A default allocator whose memory is device memory. (It hands out host memory filled with 0x5a, so a test
 * can see whether the library wrote to it, which it must not.) */
static void *fake_device_alloc(void *ctx, size_t nbytes)
{
    (void)ctx;
    void *p = malloc(nbytes);
    if (p) memset(p, 0x5a, nbytes);
    return p;
}

static void fake_device_free(void *ctx, void *ptr, size_t nbytes)
{
    (void)ctx;
    (void)nbytes;
    free(ptr);
}

static bool untouched(const void *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (((const unsigned char *)p)[i] != 0x5a) return false;
    return true;
}

/* zeros / ones / full on a device allocator: the host cannot fill the memory, so they must fail with
 * TH_ERR_DEVICE (and give the memory back) rather than write to it. */
static void check_filled_on_device(th_f32_tensor *t, const char *fn)
{
    CHECK(t == NULL);
    CHECK_INT_EQ(th_last_status(), TH_ERR_DEVICE);
    CHECK(strncmp(th_last_error(), fn, strlen(fn)) == 0);
    if (t) {
        CHECK(untouched(th_storage_raw_data(th_f32_storage(t)), 16));
        th_f32_release(t);
    }
}

static void test_device_allocator(void)
{
    const th_allocator fake = {"fakecuda", fake_device_alloc, NULL, fake_device_free, {TH_DEVICE_CUDA, 0}};
    th_counting_allocator *c = th_counting_allocator_new(&fake, NULL);
    th_set_default_allocator(th_counting_allocator_get(c), c);

    /* empty touches nothing: allowed */
    th_f32_tensor *e = th_f32_empty(1, SZ(4));
    CHECK(e != NULL);
    CHECK_INT_EQ(th_storage_device(th_f32_storage(e)).type, TH_DEVICE_CUDA);
    CHECK_FAILS(th_f32_fill(e, 1.0f), TH_ERR_DEVICE, "th_f32_fill", "device type 2");
    CHECK(untouched(th_storage_raw_data(th_f32_storage(e)), 16));

    th_clear_error();
    check_filled_on_device(th_f32_zeros(1, SZ(4)), "th_f32_zeros: ");
    th_clear_error();
    check_filled_on_device(th_f32_ones(1, SZ(4)), "th_f32_ones: ");
    th_clear_error();
    check_filled_on_device(th_f32_full(1, SZ(4), 2.0f), "th_f32_full: ");

    /* a storage of device memory cannot be grown by a host copy (no realloc) */
    th_storage *s = th_f32_storage_new(4);
    CHECK_FAILS(th_storage_resize(s, 32), TH_ERR_DEVICE, "th_storage_resize", "host cannot copy device memory");
    CHECK_INT_EQ(th_storage_nbytes(s), 16);
    CHECK_INT_EQ(th_storage_resize(s, 0), TH_OK); /* nothing to copy */
    CHECK_INT_EQ(th_storage_resize(s, 8), TH_OK);
    CHECK_FAILS(th_f32_storage_fill(s, 1.0f), TH_ERR_DEVICE, "th_f32_storage_fill", "device");
    th_storage_release(s);

    /* _like allocates on the source's device, from its own allocator, whatever this thread's default is; the
     * filled forms refuse (the host cannot fill device memory) rather than hand back a CPU tensor. */
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
    th_f32_tensor *like = th_f32_empty_like(e);
    CHECK(like != NULL);
    CHECK_INT_EQ(th_storage_device(th_f32_storage(like)).type, TH_DEVICE_CUDA);
    CHECK_INT_EQ(th_counting_allocator_stats(c).live_blocks, 2);
    th_f32_release(like);
    th_clear_error();
    check_filled_on_device(th_f32_zeros_like(e), "th_f32_zeros_like: ");
    th_clear_error();
    check_filled_on_device(th_f32_ones_like(e), "th_f32_ones_like: ");
    th_clear_error();
    check_filled_on_device(th_f32_full_like(e, 3.0f), "th_f32_full_like: ");
    /* Device memory wrapped from outside has no allocator to ask. */
    float mem[4];
    th_storage *ws = th_storage_from_blob(mem, sizeof mem, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    th_f32_tensor *w = th_f32_new_with_storage(ws, 0, 1, SZ(4), NULL);
    th_storage_release(ws); /* the tensor holds its own reference */
    CHECK(w != NULL);
    CHECK_NULL(th_f32_empty_like(w), TH_ERR_DEVICE, "th_f32_empty_like", "wrapped from outside");
    th_f32_release(w);

    th_f32_release(e);
    CHECK_INT_EQ(th_counting_allocator_stats(c).live_blocks, 0);
    th_counting_allocator_free(c);
}

/* Run last: against the current library these hit undefined behaviour, which a -fsanitize=undefined
 * build with -fno-sanitize-recover stops at.
 * 1. A view or reshape of an empty tensor to a shape whose non-zero sizes overflow int64 must be refused
 *    like th_f32_empty refuses that shape (TH_ERR_OVERFLOW).
 * 2. An empty tensor placed past the end of its storage: refused (TH_ERR_RANGE), or if accepted, its data
 *    pointer must still be computable. */
static void test_overflow_edges(void)
{
    th_f32_tensor *e = th_f32_empty(1, SZ(0));
    CHECK_NULL(th_f32_empty(3, SZ(0, INT64_MAX / 2, 3)), TH_ERR_OVERFLOW, "th_f32_empty", "overflows int64");
    th_f32_tensor *v = NULL;
    CHECK_NULL(v = th_f32_view(e, 3, SZ(0, INT64_MAX / 2, 3)), TH_ERR_OVERFLOW, "th_f32_view", "overflow");
    th_f32_release(v);
    v = NULL;
    CHECK_NULL(v = th_f32_reshape(e, 3, SZ(0, INT64_MAX / 2, 3)), TH_ERR_OVERFLOW, "th_f32_reshape", "overflow");
    th_f32_release(v);

    th_f32_tensor *a = th_f32_zeros(1, SZ(4));
    th_clear_error();
    th_f32_tensor *far = th_f32_as_strided(a, 1, SZ(0), SZ(1), INT64_MAX);
    if (far) {
        (void)th_f32_data(far);
        th_f32_release(far);
    } else {
        CHECK_INT_EQ(th_last_status(), TH_ERR_RANGE);
    }
    th_clear_error();
    far = th_f32_new_with_storage(th_f32_storage(a), INT64_MAX / 2, 1, SZ(0), NULL);
    if (far) {
        (void)th_f32_data(far);
        th_f32_release(far);
    } else {
        CHECK_INT_EQ(th_last_status(), TH_ERR_RANGE);
    }
    th_f32_release(a);
    th_f32_release(e);
}

/* ---- addressing outside a storage ------------------------------------------------------ */

static void test_outside_storage(void)
{
    th_storage *s = th_f32_storage_new(10);
    th_f32_tensor *ok = th_f32_new_with_storage(s, 2, 2, SZ(2, 4), NULL);
    CHECK(ok != NULL);
    CHECK_INT_EQ(th_f32_offset(ok), 2);
    CHECK(th_f32_data(ok) == th_f32_storage_data(s) + 2);
    CHECK_INT_EQ(th_storage_refcount(s), 2);
    CHECK_NULL(th_f32_new_with_storage(s, 0, 1, SZ(11), NULL), TH_ERR_RANGE, "th_f32_new_with_storage",
               "addresses elements 0..10, outside the storage's 10 elements");
    CHECK_NULL(th_f32_new_with_storage(s, 8, 1, SZ(3), NULL), TH_ERR_RANGE, "th_f32_new_with_storage", "outside");
    CHECK_NULL(th_f32_new_with_storage(s, -1, 1, SZ(1), NULL), TH_ERR_RANGE, "th_f32_new_with_storage",
               "negative storage offset -1");
    CHECK_NULL(th_f32_new_with_storage(s, 1, 1, SZ(3), SZ(-1)), TH_ERR_RANGE, "th_f32_new_with_storage", "outside");
    CHECK_NULL(th_f32_new_with_storage(s, 0, 2, SZ(2, 2), SZ(10, 1)), TH_ERR_RANGE, "th_f32_new_with_storage", "outside");
    CHECK_NULL(th_f64_new_with_storage(s, 0, 1, SZ(6), NULL), TH_ERR_RANGE, "th_f64_new_with_storage",
               "outside the storage's 5 elements");
    CHECK_NULL(th_f32_as_strided(ok, 1, SZ(11), SZ(1), 0), TH_ERR_RANGE, "th_f32_as_strided", "outside");
    CHECK_NULL(th_f32_as_strided(ok, 2, SZ(3, 3), SZ(4, 1), 0), TH_ERR_RANGE, "th_f32_as_strided", "outside");
    CHECK_NULL(th_f32_as_strided(ok, 1, SZ(2), SZ(-1), 0), TH_ERR_RANGE, "th_f32_as_strided", "outside");
    CHECK_NULL(th_f32_as_strided(ok, 1, SZ(1), SZ(1), 10), TH_ERR_RANGE, "th_f32_as_strided", "outside");
    CHECK_NULL(th_f32_as_strided(ok, 1, SZ(1), SZ(1), -5), TH_ERR_RANGE, "th_f32_as_strided", "negative storage offset");
    CHECK_NULL(th_f32_as_strided(ok, 1, SZ(2), SZ(INT64_MAX), 0), TH_ERR_RANGE, "th_f32_as_strided", "outside");
    CHECK_NULL(th_f32_as_strided(ok, 1, SZ(3), SZ(INT64_MAX), 0), TH_ERR_OVERFLOW, "th_f32_as_strided", "overflows");
    /* right at the edges is fine */
    th_f32_tensor *edge = th_f32_as_strided(ok, 2, SZ(2, 5), SZ(5, 1), 0);
    CHECK(edge != NULL);
    th_f32_tensor *back = th_f32_as_strided(ok, 1, SZ(10), SZ(-1), 9);
    CHECK(back != NULL);
    th_f32_tensor *none = th_f32_new_with_storage(s, 10, 1, SZ(0), NULL);
    CHECK(none != NULL);
    /* a storage whose size is not a whole number of elements */
    th_storage *odd = th_storage_new(10, NULL, NULL);
    th_f32_tensor *o2 = th_f32_new_with_storage(odd, 0, 1, SZ(2), NULL);
    CHECK(o2 != NULL);
    CHECK_NULL(th_f32_new_with_storage(odd, 0, 1, SZ(3), NULL), TH_ERR_RANGE, "th_f32_new_with_storage", "2 elements");
    CHECK_INT_EQ(th_f32_storage_size(odd), 2);
    th_f32_release(o2);
    th_storage_release(odd);
    /* an empty storage holds only empty tensors */
    th_storage *empty = th_storage_new(0, NULL, NULL);
    CHECK(empty != NULL);
    CHECK(th_storage_raw_data(empty) == NULL);
    CHECK_NULL(th_f32_new_with_storage(empty, 0, 0, NULL, NULL), TH_ERR_RANGE, "th_f32_new_with_storage", "0 elements");
    th_f32_tensor *ez = th_f32_new_with_storage(empty, 0, 1, SZ(0), NULL);
    CHECK(ez != NULL);
    CHECK(th_f32_data(ez) == NULL);
    CHECK_INT_EQ(th_f32_storage_fill(empty, 1.0f), TH_OK);
    th_f32_release(ez);
    th_storage_release(empty);

    th_f32_release(none);
    th_f32_release(back);
    th_f32_release(edge);
    th_f32_release(ok);
    CHECK_INT_EQ(th_storage_refcount(s), 1);
    th_storage_release(s);
}

/* ---- blob deleters ---------------------------------------------------------------------- */

static void test_deleters(void)
{
    float blob[12];
    for (int k = 0; k < 12; k++) blob[k] = (float)k;
    deleter_log dl = {0, NULL};

    /* runs once, after the last view lets go */
    th_f32_tensor *b = th_f32_from_blob(blob, 2, SZ(3, 4), NULL, count_deleter, &dl);
    CHECK(b != NULL);
    CHECK(th_f32_data(b) == blob);
    CHECK(!th_storage_is_resizable(th_f32_storage(b)));
    th_f32_tensor *v = th_f32_transpose(b, 0, 1);
    th_f32_tensor *n = th_f32_narrow(v, 0, 1, 2);
    th_f32_release(b);
    th_f32_release(v);
    CHECK_INT_EQ(dl.calls, 0);
    CHECK(th_f32_get(n, IDX(1, 2)) == 10.0f);
    th_f32_release(n);
    CHECK_INT_EQ(dl.calls, 1);
    CHECK(dl.last_data == blob);

    /* a storage retained on its own keeps the blob alive too */
    dl = (deleter_log){0, NULL};
    th_f32_tensor *b2 = th_f32_from_blob(blob, 1, SZ(12), NULL, count_deleter, &dl);
    th_storage *s2 = th_storage_retain(th_f32_storage(b2));
    th_f32_release(b2);
    CHECK_INT_EQ(dl.calls, 0);
    th_storage_release(s2);
    CHECK_INT_EQ(dl.calls, 1);

    /* negative strides: the deleter still gets the pointer it was handed */
    dl = (deleter_log){0, NULL};
    th_f32_tensor *r = th_f32_from_blob(blob + 3, 1, SZ(4), SZ(-1), count_deleter, &dl);
    CHECK(r != NULL);
    CHECK(th_f32_get(r, IDX(0)) == 3.0f && th_f32_get(r, IDX(3)) == 0.0f);
    CHECK(th_f32_data(r) == blob + 3);
    th_f32_release(r);
    CHECK_INT_EQ(dl.calls, 1);
    CHECK(dl.last_data == blob + 3);

    /* storage-level blobs */
    dl = (deleter_log){0, NULL};
    th_storage *s3 = th_f32_storage_from_blob(blob, 12, count_deleter, &dl);
    th_f32_tensor *t3 = th_f32_new_with_storage(s3, 4, 1, SZ(8), NULL);
    th_storage_release(s3);
    CHECK_INT_EQ(dl.calls, 0);
    CHECK(th_f32_get(t3, IDX(0)) == 4.0f);
    th_f32_release(t3);
    CHECK_INT_EQ(dl.calls, 1);
    CHECK(dl.last_data == blob);
    dl = (deleter_log){0, NULL};
    th_storage *s4 = th_storage_from_blob(blob, sizeof blob, (th_device){TH_DEVICE_CPU, 0}, count_deleter, &dl);
    th_storage_release(s4);
    CHECK_INT_EQ(dl.calls, 1);
    /* NULL data is fine for no elements; the deleter still runs once */
    dl = (deleter_log){0, NULL};
    th_f32_tensor *e = th_f32_from_blob(NULL, 1, SZ(0), NULL, count_deleter, &dl);
    CHECK(e != NULL);
    th_f32_release(e);
    CHECK_INT_EQ(dl.calls, 1);
    CHECK(dl.last_data == NULL);

    /* on failure the caller keeps the blob: the deleter never runs */
    dl = (deleter_log){0, NULL};
    CHECK_NULL(th_f32_from_blob(NULL, 1, SZ(3), NULL, count_deleter, &dl), TH_ERR_INVALID, "th_f32_from_blob",
               "NULL data for 3 elements");
    CHECK_NULL(th_f32_from_blob(blob, 1, SZ(-1), NULL, count_deleter, &dl), TH_ERR_INVALID, "th_f32_from_blob", "");
    CHECK_NULL(th_f32_from_blob(blob, 1, SZ(3), SZ(INT64_MAX), count_deleter, &dl), TH_ERR_OVERFLOW,
               "th_f32_from_blob", "");
    CHECK_NULL(th_f32_from_blob(blob, -1, SZ(3), NULL, count_deleter, &dl), TH_ERR_RANGE, "th_f32_from_blob", "");
    CHECK_NULL(th_storage_from_blob(NULL, 16, (th_device){TH_DEVICE_CPU, 0}, count_deleter, &dl), TH_ERR_INVALID,
               "th_storage_from_blob", "NULL data for 16 bytes");
    CHECK_NULL(th_f32_storage_from_blob(NULL, 4, count_deleter, &dl), TH_ERR_INVALID, "th_f32_storage_from_blob",
               "NULL data");
    CHECK_NULL(th_i64_storage_from_blob(NULL, -2, count_deleter, &dl), TH_ERR_INVALID, "th_i64_storage_from_blob", "");
    CHECK_INT_EQ(dl.calls, 0);
    /* the blob is untouched */
    for (int k = 0; k < 12; k++) CHECK(blob[k] == (float)k);
}

/* ---- the error hook, th_clear_error, status names ---------------------------------------- */

typedef struct hook_log {
    int calls;
    th_status last;
    char message[512];
} hook_log;

static void on_error(th_status status, const char *message, void *ctx)
{
    hook_log *log = (hook_log *)ctx;
    log->calls++;
    log->last = status;
    snprintf(log->message, sizeof log->message, "%s", message);
}

static void test_hook_and_clear(void)
{
    th_f32_tensor *a = arange(1, SZ(10));
    hook_log log = {0, TH_OK, ""};
    const th_error_hook hook = {on_error, &log};
    CHECK(th_set_error_hook(&hook) == NULL);
    CHECK(th_f32_narrow(a, 0, 5, 6) == NULL);
    CHECK_INT_EQ(log.calls, 1);
    CHECK_INT_EQ(log.last, TH_ERR_RANGE);
    CHECK(strcmp(log.message, "th_f32_narrow: start 5 + length 6 exceeds size 10 of dim 0") == 0);
    CHECK(strcmp(log.message, th_last_error()) == 0);
    CHECK_INT_EQ(th_f32_set(a, IDX(10), 1.0f), TH_ERR_RANGE);
    CHECK_INT_EQ(log.calls, 2);
    CHECK(strncmp(log.message, "th_f32_set: ", 12) == 0);
    CHECK(th_f32_empty(1, SZ(-1)) == NULL);
    CHECK_INT_EQ(log.calls, 3);
    CHECK_INT_EQ(log.last, TH_ERR_INVALID);
    /* success does not call it */
    th_f32_tensor *v = th_f32_narrow(a, 0, 5, 5);
    CHECK(v != NULL);
    CHECK_INT_EQ(log.calls, 3);
    /* a hook without a function is allowed */
    const th_error_hook empty = {NULL, NULL};
    CHECK(th_set_error_hook(&empty) == &hook);
    CHECK(th_f32_narrow(a, 0, 5, 6) == NULL);
    CHECK_INT_EQ(log.calls, 3);
    /* removing it */
    CHECK(th_set_error_hook(NULL) == &empty);
    CHECK(th_f32_narrow(a, 0, 5, 6) == NULL);
    CHECK_INT_EQ(log.calls, 3);
    CHECK(th_set_error_hook(NULL) == NULL);

    /* the last error stays until cleared, through successful calls */
    CHECK(th_f32_select(a, 0, 10) == NULL);
    CHECK_INT_EQ(th_last_status(), TH_ERR_RANGE);
    th_f32_tensor *w = th_f32_narrow(a, 0, 0, 2);
    CHECK(w != NULL);
    CHECK_INT_EQ(th_last_status(), TH_ERR_RANGE);
    CHECK(strncmp(th_last_error(), "th_f32_select: ", 15) == 0);
    th_clear_error();
    CHECK_INT_EQ(th_last_status(), TH_OK);
    CHECK(strcmp(th_last_error(), "") == 0);
    /* a newer error replaces an older one */
    CHECK(th_f32_select(a, 0, 10) == NULL);
    CHECK(th_f32_transpose(a, 0, 5) == NULL);
    CHECK(strncmp(th_last_error(), "th_f32_transpose: ", 18) == 0);
    th_clear_error();

    /* status names */
    CHECK(strcmp(th_status_name(TH_OK), "TH_OK") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_INVALID), "TH_ERR_INVALID") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_NOMEM), "TH_ERR_NOMEM") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_RANGE), "TH_ERR_RANGE") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_SHAPE), "TH_ERR_SHAPE") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_DTYPE), "TH_ERR_DTYPE") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_DEVICE), "TH_ERR_DEVICE") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_OVERFLOW), "TH_ERR_OVERFLOW") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_UNSUPPORTED), "TH_ERR_UNSUPPORTED") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_READ_ONLY), "TH_ERR_READ_ONLY") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_IO), "TH_ERR_IO") == 0);
    CHECK(strcmp(th_status_name(TH_ERR_LINALG), "TH_ERR_LINALG") == 0);
    CHECK(strcmp(th_status_name((th_status)5), "TH_ERR_?") == 0);
    CHECK(strcmp(th_status_name((th_status)-99), "TH_ERR_?") == 0);

#if defined(__linux__)
    /* a stream that cannot be written */
    FILE *ro = fopen("/dev/null", "r");
    if (ro) {
        CHECK_FAILS(th_f32_print(ro, a), TH_ERR_IO, "th_f32_print", "writing to the stream failed");
        fclose(ro);
    }
#endif

    th_f32_release(w);
    th_f32_release(v);
    th_f32_release(a);
}

int main(void)
{
    test_begin();
    test_bad_sizes();
    test_bad_views();
    test_null_arguments();
    test_get_set();
    test_copy_errors();
    test_out_of_memory();
    test_allocator_reason();
    test_resize();
    test_device();
    test_outside_storage();
    test_deleters();
    test_hook_and_clear();
    test_device_allocator();
    test_overflow_edges();
    return test_end("errors");
}
