/* DLPack in C: export, import, round trips, lifetimes, and every bad input (deleter run exactly once). */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>

/* A producer of managed tensors that counts its deleter calls. */
typedef struct producer {
    DLManagedTensor legacy;
    struct DLManagedTensorVersioned versioned;
    int64_t shape[TH_MAX_DIMS + 2];
    int64_t strides[TH_MAX_DIMS + 2];
    int deleted;
} producer;

static void producer_delete_legacy(DLManagedTensor *self) { ((producer *)self->manager_ctx)->deleted++; }
static void producer_delete_versioned(struct DLManagedTensorVersioned *self)
{
    ((producer *)self->manager_ctx)->deleted++;
}

static DLTensor good_tensor(producer *p, void *data, int ndim)
{
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.device.device_type = kDLCPU;
    t.ndim = ndim;
    t.dtype.code = kDLFloat;
    t.dtype.bits = 32;
    t.dtype.lanes = 1;
    t.shape = p->shape;
    t.strides = p->strides;
    return t;
}

static DLManagedTensor *make_legacy(producer *p, DLTensor t)
{
    memset(&p->legacy, 0, sizeof p->legacy);
    p->legacy.dl_tensor = t;
    p->legacy.manager_ctx = p;
    p->legacy.deleter = producer_delete_legacy;
    return &p->legacy;
}

static struct DLManagedTensorVersioned *make_versioned(producer *p, DLTensor t, uint32_t major, uint64_t flags)
{
    memset(&p->versioned, 0, sizeof p->versioned);
    p->versioned.version.major = major;
    p->versioned.version.minor = 0;
    p->versioned.dl_tensor = t;
    p->versioned.flags = flags;
    p->versioned.manager_ctx = p;
    p->versioned.deleter = producer_delete_versioned;
    return &p->versioned;
}

static float grid[4][6];

static void fill_grid(void)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++) grid[i][j] = (float)(i * 10 + j);
}

static void test_import(void)
{
    fill_grid();
    producer p = {0};
    p.shape[0] = 4;
    p.shape[1] = 6;
    p.strides[0] = 6;
    p.strides[1] = 1;
    th_tensor *t = th_tensor_from_dlpack(make_legacy(&p, good_tensor(&p, grid, 2)));
    CHECK(t != NULL);
    CHECK_INT_EQ(th_tensor_dtype(t), TH_F32);
    th_f32_tensor *f = th_f32_from_base(t);
    CHECK(th_f32_data(f) == &grid[0][0]); /* no copy */
    th_f32_set(f, (int64_t[]){3, 5}, -1.0f);
    CHECK(grid[3][5] == -1.0f); /* writes reach the producer's memory */
    th_f32_tensor *v = th_f32_transpose(f, 0, 1);
    th_f32_release(f);
    CHECK_INT_EQ(p.deleted, 0);
    th_f32_release(v);
    CHECK_INT_EQ(p.deleted, 1); /* exactly once, when the last view goes */

    /* byte_offset, NULL strides (compact), a typed import. */
    fill_grid();
    producer q = {0};
    q.shape[0] = 2;
    q.shape[1] = 3;
    DLTensor d = good_tensor(&q, grid, 2);
    d.strides = NULL;
    d.byte_offset = 6 * sizeof(float); /* starts at grid[1][0] */
    th_f32_tensor *g = th_f32_from_dlpack(make_legacy(&q, d));
    CHECK(g && th_f32_get(g, (int64_t[]){1, 2}) == 15.0f); /* compact (2, 3) from grid[1][0] */
    CHECK(th_f32_is_contiguous(g));
    th_f32_release(g);
    CHECK_INT_EQ(q.deleted, 1);

    /* Column-major, stride 0, negative strides and size-1 dims with odd strides. */
    producer r = {0};
    r.shape[0] = 6;
    r.shape[1] = 4;
    r.shape[2] = 3;
    r.shape[3] = 1;
    r.strides[0] = 1;
    r.strides[1] = 6;
    r.strides[2] = 0;
    r.strides[3] = 12345;
    th_f32_tensor *cm = th_f32_from_dlpack_versioned(make_versioned(&r, good_tensor(&r, grid, 4), 1, 0));
    CHECK(cm && th_f32_get(cm, (int64_t[]){5, 3, 2, 0}) == 35.0f);
    th_f32_release(cm);
    CHECK_INT_EQ(r.deleted, 1);
    producer n = {0};
    n.shape[0] = 6;
    n.strides[0] = -1;
    th_f32_tensor *flip = th_f32_from_dlpack(make_legacy(&n, good_tensor(&n, &grid[2][5], 1)));
    CHECK(flip && th_f32_get(flip, (int64_t[]){0}) == 25.0f && th_f32_get(flip, (int64_t[]){5}) == 20.0f);
    th_f32_release(flip);
    CHECK_INT_EQ(n.deleted, 1);

    /* 0-d (shape may be NULL) and zero-size (data may be NULL). */
    producer z = {0};
    DLTensor scalar = good_tensor(&z, &grid[1][1], 0);
    scalar.shape = NULL;
    scalar.strides = NULL;
    th_f32_tensor *s = th_f32_from_dlpack(make_legacy(&z, scalar));
    CHECK(s && th_f32_ndim(s) == 0 && th_f32_get(s, NULL) == 11.0f);
    th_f32_release(s);
    CHECK_INT_EQ(z.deleted, 1);
    producer e = {0};
    e.shape[0] = 3;
    e.shape[1] = 0;
    th_f32_tensor *empty = th_f32_from_dlpack(make_legacy(&e, good_tensor(&e, NULL, 2)));
    CHECK(empty && th_f32_numel(empty) == 0 && th_f32_size(empty, 0) == 3);
    th_f32_release(empty);
    CHECK_INT_EQ(e.deleted, 1);

    /* READ_ONLY imports refuse writes; pinned and managed CUDA memory import as host memory. */
    producer ro = {0};
    ro.shape[0] = 6;
    ro.strides[0] = 1;
    DLTensor pinned = good_tensor(&ro, grid, 1);
    pinned.device.device_type = kDLCUDAHost;
    th_f32_tensor *rt = th_f32_from_dlpack_versioned(make_versioned(&ro, pinned, 1, DLPACK_FLAG_BITMASK_READ_ONLY));
    CHECK(rt && th_storage_is_read_only(th_f32_storage(rt)));
    CHECK(th_storage_device(th_f32_storage(rt)).type == TH_DEVICE_CUDA_HOST);
    CHECK_FAILS(th_f32_fill(rt, 0.0f), TH_ERR_READ_ONLY, "th_f32_fill", "read-only");
    CHECK(th_f32_get(rt, (int64_t[]){1}) == 1.0f);
    th_f32_release(rt);
    CHECK_INT_EQ(ro.deleted, 1);
}

typedef struct bad_case {
    const char *what;
    th_status status;
    const char *detail;
} bad_case;

static void expect_bad(producer *p, DLTensor t, const bad_case *c, bool versioned, uint32_t major)
{
    p->deleted = 0;
    th_clear_error();
    th_tensor *got = versioned ? th_tensor_from_dlpack_versioned(make_versioned(p, t, major, 0))
                               : th_tensor_from_dlpack(make_legacy(p, t));
    const char *fn = versioned ? "th_tensor_from_dlpack_versioned" : "th_tensor_from_dlpack";
    check_count++;
    if (got || th_last_status() != c->status || strncmp(th_last_error(), fn, strlen(fn)) != 0 ||
        !strstr(th_last_error(), c->detail) || p->deleted != 1) {
        check_failures++;
        fprintf(stderr, "bad input '%s': got %p, %s \"%s\", deleter ran %d times\n", c->what, (void *)got,
                th_status_name(th_last_status()), th_last_error(), p->deleted);
    }
    th_tensor_release(got);
}

static void test_bad_input(void)
{
    producer p = {0};
    p.shape[0] = 4;
    p.shape[1] = 6;
    p.strides[0] = 6;
    p.strides[1] = 1;
    for (int versioned = 0; versioned < 2; versioned++) {
        DLTensor t = good_tensor(&p, grid, 2);
        t.data = NULL;
        expect_bad(&p, t, &(bad_case){"NULL data", TH_ERR_INVALID, "NULL data for 24 elements"}, versioned, 1);
        t = good_tensor(&p, grid, -1);
        expect_bad(&p, t, &(bad_case){"negative ndim", TH_ERR_RANGE, "ndim -1"}, versioned, 1);
        t = good_tensor(&p, grid, TH_MAX_DIMS + 1);
        expect_bad(&p, t, &(bad_case){"ndim too big", TH_ERR_RANGE, "outside 0..16"}, versioned, 1);
        t = good_tensor(&p, grid, 2);
        t.shape = NULL;
        expect_bad(&p, t, &(bad_case){"NULL shape", TH_ERR_INVALID, "NULL shape for ndim 2"}, versioned, 1);
        p.shape[1] = -6;
        t = good_tensor(&p, grid, 2);
        expect_bad(&p, t, &(bad_case){"negative size", TH_ERR_INVALID, "negative size -6"}, versioned, 1);
        p.shape[1] = 6;
        p.strides[0] = INT64_MAX / 2;
        t = good_tensor(&p, grid, 2);
        expect_bad(&p, t, &(bad_case){"stride overflow", TH_ERR_OVERFLOW, "overflows"}, versioned, 1);
        p.strides[0] = 6;
        p.strides[0] = -((int64_t)1 << 50);
        t = good_tensor(&p, grid, 2);
        expect_bad(&p, t, &(bad_case){"below address 0", TH_ERR_OVERFLOW, "outside the address space"}, versioned, 1);
        p.strides[0] = 6;
        t = good_tensor(&p, grid, 2);
        t.byte_offset = UINT64_MAX - 8;
        expect_bad(&p, t, &(bad_case){"byte_offset wraps", TH_ERR_OVERFLOW, "past the end of the address space"},
                   versioned, 1);
        t = good_tensor(&p, grid, 2);
        t.dtype.lanes = 4;
        expect_bad(&p, t, &(bad_case){"lanes", TH_ERR_DTYPE, "4 lanes"}, versioned, 1);
        t = good_tensor(&p, grid, 2);
        t.dtype.code = 42;
        expect_bad(&p, t, &(bad_case){"unknown code", TH_ERR_DTYPE, "type code 42"}, versioned, 1);
        t = good_tensor(&p, grid, 2);
        t.dtype.bits = 24;
        expect_bad(&p, t, &(bad_case){"unknown bits", TH_ERR_DTYPE, "with 24 bits"}, versioned, 1);
        t = good_tensor(&p, grid, 2);
        t.device.device_type = kDLCUDA;
        expect_bad(&p, t, &(bad_case){"CUDA device memory", TH_ERR_DEVICE, "CUDA device memory"}, versioned, 1);
        t = good_tensor(&p, grid, 2);
        t.device.device_type = kDLVulkan;
        expect_bad(&p, t, &(bad_case){"Vulkan", TH_ERR_DEVICE, "device type 7"}, versioned, 1);
    }
    expect_bad(&p, good_tensor(&p, grid, 2), &(bad_case){"major 2", TH_ERR_UNSUPPORTED, "major version 2"}, true, 2);
    expect_bad(&p, good_tensor(&p, grid, 2), &(bad_case){"major 0", TH_ERR_UNSUPPORTED, "major version 0"}, true, 0);

    /* A typed import of another dtype: error, deleter run once. */
    p.deleted = 0;
    CHECK_NULL(th_i32_from_dlpack(make_legacy(&p, good_tensor(&p, grid, 2))), TH_ERR_DTYPE, "th_i32_from_dlpack",
               "holds f32, not i32");
    CHECK_INT_EQ(p.deleted, 1);
    p.deleted = 0;
    CHECK_NULL(th_f64_from_dlpack_versioned(make_versioned(&p, good_tensor(&p, grid, 2), 1, 0)), TH_ERR_DTYPE,
               "th_f64_from_dlpack_versioned", "not f64");
    CHECK_INT_EQ(p.deleted, 1);
    CHECK_NULL(th_tensor_from_dlpack(NULL), TH_ERR_INVALID, "th_tensor_from_dlpack", "NULL managed tensor");
    CHECK_NULL(th_tensor_from_dlpack_versioned(NULL), TH_ERR_INVALID, "th_tensor_from_dlpack_versioned", "NULL");
    CHECK_NULL(th_tensor_to_dlpack(NULL), TH_ERR_INVALID, "th_tensor_to_dlpack", "NULL tensor");
    /* A managed tensor with no deleter is allowed (nothing to call). */
    DLManagedTensor bare;
    memset(&bare, 0, sizeof bare);
    bare.dl_tensor = good_tensor(&p, grid, 2);
    th_tensor *b = th_tensor_from_dlpack(&bare);
    CHECK(b != NULL);
    th_tensor_release(b);
}

/* Every dtype exports and imports itself, with the DLPack code and width the spec gives it. */
#define ROUND_TRIP(sfx, ENUM, elem, acc, kind, dl_code, dl_bits)                                            \
    {                                                                                                  \
        int64_t sizes[2] = {3, 5};                                                                     \
        th_##sfx##_tensor *a = th_##sfx##_ones(2, sizes);                                              \
        th_##sfx##_tensor *v = th_##sfx##_narrow(a, 1, 1, 3);                                          \
        DLManagedTensor *m = th_##sfx##_to_dlpack(v);                                                  \
        CHECK(m->dl_tensor.dtype.code == dl_code && m->dl_tensor.dtype.bits == dl_bits);                  \
        CHECK(m->dl_tensor.data == th_##sfx##_data(v) && m->dl_tensor.byte_offset == 0);               \
        CHECK(m->dl_tensor.strides[0] == 5 && m->dl_tensor.strides[1] == 1);                           \
        th_##sfx##_tensor *back = th_##sfx##_from_dlpack(m);                                           \
        CHECK(back && th_##sfx##_data(back) == th_##sfx##_data(v) && th_##sfx##_size(back, 1) == 3);   \
        th_##sfx##_release(v);                                                                         \
        th_##sfx##_release(a);                                                                         \
        CHECK_INT_EQ(th_storage_refcount(th_##sfx##_storage(back)), 1);                                \
        th_##sfx##_release(back);                                                                      \
    }

static void test_export(void)
{
    TH_FOREACH_DTYPE(ROUND_TRIP)

    int64_t sizes[3] = {2, 3, 4};
    th_f64_tensor *a = th_f64_zeros(3, sizes);
    th_f64_tensor *sel = th_f64_select(a, 2, 1); /* offset 1, strides (12, 4) */
    struct DLManagedTensorVersioned *m = th_f64_to_dlpack_versioned(sel);
    CHECK(m->version.major == 1 && m->flags == 0);
    CHECK(m->dl_tensor.data == (void *)(th_f64_data(a) + 1)); /* offset folded into data */
    CHECK(m->dl_tensor.ndim == 2 && m->dl_tensor.shape[1] == 3 && m->dl_tensor.strides[1] == 4);
    th_f64_release(sel);
    th_f64_release(a);
    m->deleter(m); /* the export alone kept the storage alive */

    /* A 0-d and a zero-size export; read-only storage exports READ_ONLY. */
    th_i8_tensor *s = th_i8_full(0, NULL, 7);
    DLManagedTensor *ms = th_i8_to_dlpack(s);
    CHECK(ms->dl_tensor.ndim == 0 && *(int8_t *)ms->dl_tensor.data == 7);
    ms->deleter(ms);
    int64_t zero[2] = {0, 3};
    th_i8_tensor *z = th_i8_empty(2, zero);
    DLManagedTensor *mz = th_i8_to_dlpack(z);
    CHECK(mz->dl_tensor.data != NULL); /* PyTorch 1.13 skips the deleter of NULL data */
    mz->deleter(mz);
    struct DLManagedTensorVersioned *vz = th_i8_to_dlpack_versioned(z);
    CHECK(vz->dl_tensor.data == NULL); /* DLPack 1.0: zero-size data should be NULL */
    vz->deleter(vz);
    th_storage_make_read_only(th_i8_storage(s));
    struct DLManagedTensorVersioned *vr = th_i8_to_dlpack_versioned(s);
    CHECK(vr->flags == DLPACK_FLAG_BITMASK_READ_ONLY);
    th_i8_tensor *back = th_i8_from_dlpack_versioned(vr);
    CHECK(th_storage_is_read_only(th_i8_storage(back)));
    th_i8_release(back);
    th_i8_release(z);
    th_i8_release(s);

    th_dtype dt;
    CHECK_INT_EQ(th_dtype_from_dlpack((DLDataType){4, 16, 1}, &dt), TH_OK);
    CHECK_INT_EQ(dt, TH_BF16);
    CHECK_INT_EQ(th_dtype_from_dlpack((DLDataType){6, 8, 1}, &dt), TH_OK);
    CHECK_INT_EQ(dt, TH_BOOL);
    CHECK_FAILS(th_dtype_from_dlpack((DLDataType){2, 8, 1}, &dt), TH_ERR_DTYPE, "th_dtype_from_dlpack", "code 2");
}

static void *delete_elsewhere(void *arg)
{
    DLManagedTensor *m = arg;
    m->deleter(m);
    return NULL;
}

static void test_deleter_threads(void)
{
    /* The deleter may run on any thread. */
    int64_t n = 1000;
    th_f32_tensor *a = th_f32_ones(1, &n);
    DLManagedTensor *m[4];
    for (int i = 0; i < 4; i++) m[i] = th_f32_to_dlpack(a);
    th_f32_release(a);
    pthread_t th[4];
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, delete_elsewhere, m[i]);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
}

/* A companion's check for device memory (cuda/ registers one for CUDA): the fake accepts memory inside its one
 * "device buffer" on device 1 and refuses the rest. */
static float device_buffer[64];
static int device_checks;

static int fake_device_check(const char *fn, th_device device, const void *data, int64_t nbytes)
{
    device_checks++;
    const char *lo = (const char *)device_buffer, *p = (const char *)data;
    if (device.index != 1) return th_set_error(TH_ERR_DEVICE, fn, "fake: device %d is not mine", (int)device.index);
    if (p < lo || p + nbytes > lo + sizeof device_buffer)
        return th_set_error(TH_ERR_DEVICE, fn, "fake: not memory of device %d", (int)device.index);
    return TH_OK;
}

static void test_device_check(void)
{
    producer p;
    p.shape[0] = 8;
    p.strides[0] = 1;
    DLTensor t = good_tensor(&p, device_buffer, 1);
    t.device.device_type = kDLCUDA;
    t.device.device_id = 1;
    /* Host types need no check, and types outside the table are refused. */
    CHECK_INT_EQ(th_register_device_memory_check(TH_DEVICE_CPU, fake_device_check), TH_ERR_INVALID);
    CHECK_INT_EQ(th_register_device_memory_check(TH_DEVICE_CUDA_HOST, fake_device_check), TH_ERR_INVALID);
    CHECK_INT_EQ(th_register_device_memory_check(64, fake_device_check), TH_ERR_INVALID);
    CHECK_INT_EQ(th_register_device_memory_check(-1, fake_device_check), TH_ERR_INVALID);
    /* Registered: CUDA memory the check accepts imports as a tensor on that device, never touched. */
    CHECK_INT_EQ(th_register_device_memory_check(TH_DEVICE_CUDA, fake_device_check), TH_OK);
    p.deleted = 0;
    th_tensor *x = th_tensor_from_dlpack(make_legacy(&p, t));
    CHECK(x != NULL);
    CHECK_INT_EQ(device_checks, 1);
    if (x) {
        th_device d = th_storage_device(th_tensor_storage(x));
        CHECK_INT_EQ(d.type, TH_DEVICE_CUDA);
        CHECK_INT_EQ(d.index, 1);
        CHECK(th_tensor_data(x) == (void *)device_buffer);
        /* Host ops still refuse it without touching it. */
        th_f32_tensor *y = th_f32_from_base(x);
        CHECK(th_f32_sum_all(y) == NULL && th_last_status() == TH_ERR_DEVICE);
        th_tensor_release(x);
    }
    CHECK_INT_EQ(p.deleted, 1);
    /* Refused by the check: NULL, the check's message, the producer's deleter run once. */
    t.device.device_id = 0;
    p.deleted = 0;
    CHECK(th_tensor_from_dlpack(make_legacy(&p, t)) == NULL);
    CHECK(strstr(th_last_error(), "fake: device 0 is not mine") != NULL);
    CHECK_INT_EQ(p.deleted, 1);
    t.device.device_id = 1;
    t.data = grid;
    p.deleted = 0;
    CHECK(th_tensor_from_dlpack_versioned(make_versioned(&p, t, 1, 0)) == NULL);
    CHECK(strstr(th_last_error(), "fake: not memory of device 1") != NULL);
    CHECK_INT_EQ(p.deleted, 1);
    /* Unregistered: refused again, naming the missing companion. */
    CHECK_INT_EQ(th_register_device_memory_check(TH_DEVICE_CUDA, NULL), TH_OK);
    t.data = device_buffer;
    p.deleted = 0;
    CHECK(th_tensor_from_dlpack(make_legacy(&p, t)) == NULL);
    CHECK_INT_EQ(th_last_status(), TH_ERR_DEVICE);
    CHECK(strstr(th_last_error(), "companion") != NULL);
    CHECK_INT_EQ(p.deleted, 1);
}

int main(void)
{
    test_begin();
    printf("built against a DLPack %d.x header\n", TH_DLPACK_HEADER_MAJOR);
    test_import();
    test_bad_input();
    test_export();
    test_deleter_threads();
    test_device_check();
    return test_end("dlpack");
}
