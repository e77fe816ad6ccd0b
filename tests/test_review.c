/* Regressions found in review: each case once crashed, overflowed, leaked or gave a wrong answer. */
#define real double /* a user's own macro named real must survive the include */
#include "check.h"
#if !defined(real)
#error "including tensor.h lost the user's real macro"
#endif

#include <pthread.h>
#include <threads.h>

static void test_overflowing_geometry(void)
{
    static unsigned char buf[64];
    /* lo and hi each fit int64, their difference does not */
    CHECK_NULL(th_u8_from_blob(buf + 8, 2, (int64_t[]){2, 2}, (int64_t[]){INT64_C(1) << 62, -(INT64_C(1) << 62)},
                               NULL, NULL),
               TH_ERR_OVERFLOW, "th_u8_from_blob", "overflows int64");
    CHECK_NULL(th_u8_from_blob(buf + 8, 1, (int64_t[]){2}, (int64_t[]){INT64_MIN}, NULL, NULL), TH_ERR_OVERFLOW,
               "th_u8_from_blob", "overflow");
    /* unfold: the stride times the step, and the element count of the result */
    th_f32_tensor *z = th_f32_zeros(2, (int64_t[]){5, 2});
    /* stride 2 times step INT64_MAX overflows, but there is one window, whose stride is never used (with two
     * or more windows the product is bounded by the tensor's own extent, which was checked) */
    th_f32_tensor *one = th_f32_unfold(z, 0, 1, INT64_MAX);
    CHECK(one && th_f32_size(one, 0) == 1 && th_f32_size(one, 2) == 1);
    th_f32_release(one);
    th_f32_tensor *e1 = th_f32_zeros(1, (int64_t[]){1});
    th_f32_tensor *wide = th_f32_expand(e1, 1, (int64_t[]){INT64_C(1) << 40});
    CHECK_NULL(th_f32_unfold(wide, 0, INT64_C(1) << 39, 1), TH_ERR_OVERFLOW, "th_f32_unfold", "overflows int64");
    th_f32_release(wide);
    th_f32_release(e1);
    th_f32_release(z);
    /* unsqueeze next to a huge stride */
    th_u8_tensor *far = th_u8_from_blob(buf, 1, (int64_t[]){1}, (int64_t[]){INT64_C(1) << 62}, NULL, NULL);
    th_u8_tensor *u = th_u8_unsqueeze(far, 0);
    CHECK(u && th_u8_size(u, 0) == 1);
    th_u8_release(u);
    th_u8_release(far);
    /* as_strided past int64: a clean message */
    th_f32_tensor *t = th_f32_zeros(1, (int64_t[]){4});
    CHECK_NULL(th_f32_as_strided(t, 1, (int64_t[]){2}, (int64_t[]){2}, INT64_MAX - 1), TH_ERR_RANGE,
               "th_f32_as_strided", "beyond int64");
    th_f32_release(t);
}

static void test_print_size_one_huge_stride(void)
{
    /* A size-1 dim's stride may be anything (DLPack keeps what the producer says); printing never uses it. */
    static double buf[2] = {1.5, 2.5};
    th_f64_tensor *t = th_f64_from_blob(buf, 2, (int64_t[]){1, 2}, (int64_t[]){INT64_MAX / 2, 1}, NULL, NULL);
    CHECK(t != NULL);
    FILE *f = tmpfile();
    CHECK_INT_EQ(th_f64_print(f, t), TH_OK);
    char text[64] = {0};
    rewind(f);
    CHECK(fread(text, 1, sizeof text - 1, f) > 0 && strstr(text, "[[1.5000, 2.5000]]") != NULL);
    fclose(f);
    th_f64_release(t);
}

static void test_bool_bytes(void)
{
    /* A storage is untyped: a bool view of bytes other than 0 and 1 reads them as true. */
    th_storage *s = th_u8_storage_new(4);
    th_u8_storage_fill(s, 2);
    th_bool_tensor *b = th_bool_new_with_storage(s, 0, 1, (int64_t[]){4}, NULL);
    CHECK(th_bool_get(b, (int64_t[]){0}) == true);
    th_i32_tensor *i = th_i32_convert(th_bool_base(b));
    CHECK_INT_EQ(th_i32_get(i, (int64_t[]){3}), 1);
    th_i32_release(i);
    th_bool_release(b);
    th_storage_release(s);
}

static void test_contiguity_of_empty(void)
{
    th_f32_tensor *e = th_f32_empty(2, (int64_t[]){0, 3});
    th_f32_tensor *a = th_f32_as_strided(e, 2, (int64_t[]){0, 3}, (int64_t[]){1, 2}, 0);
    th_f32_tensor *b = th_f32_as_strided(e, 2, (int64_t[]){3, 0}, (int64_t[]){5, 7}, 0);
    CHECK(th_f32_is_contiguous(a) && th_f32_is_contiguous(b));
    th_f32_release(b);
    th_f32_release(a);
    th_f32_release(e);
}

static void test_export_of_shrunk_storage(void)
{
    th_f32_tensor *t = th_f32_zeros(1, (int64_t[]){100});
    CHECK_INT_EQ(th_storage_resize(th_f32_storage(t), 16), TH_OK);
    CHECK_NULL(th_f32_to_dlpack(t), TH_ERR_RANGE, "th_tensor_to_dlpack", "its storage now holds 4");
    CHECK_NULL(th_f32_to_dlpack_versioned(t), TH_ERR_RANGE, "th_tensor_to_dlpack_versioned", "now holds 4");
    th_f32_release(t);
}

/* A thread-exit destructor that releases a tensor after the library's own header cache was drained. */
static tss_t late_key;
static void release_late(void *t) { th_f32_release((th_f32_tensor *)t); }
static void *worker(void *arg)
{
    (void)arg;
    th_f32_tensor *t = th_f32_zeros(1, (int64_t[]){3});
    th_f32_tensor *v = th_f32_narrow(t, 0, 1, 1);
    th_f32_release(t);
    tss_set(late_key, v);
    for (int i = 0; i < 100; i++) th_f32_release(th_f32_transpose(v, 0, 0)); /* fills the header cache */
    return NULL;
}

static void test_thread_exit(void)
{
    /* valgrind (CI runs this test under it) reports a header lost if the late release is cached again */
    th_set_default_allocator(NULL, NULL);
    CHECK(tss_create(&late_key, release_late) == thrd_success);
    for (int i = 0; i < 4; i++) {
        /* pthread_create, not thrd_create: ThreadSanitizer (clang 14) does not intercept the latter and
         * crashes in the thread. The tss destructors run the same either way. */
        pthread_t th;
        CHECK(pthread_create(&th, NULL, worker, NULL) == 0);
        pthread_join(th, NULL);
    }
    tss_delete(late_key);
    th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
}

static int hook_calls;
static void count_hook(th_status status, const char *message, void *ctx)
{
    (void)message;
    (void)ctx;
    if (status == TH_ERR_IO) hook_calls++;
}

static void test_set_error(void)
{
    /* Companions record their errors the library's way. */
    static const th_error_hook hook = {count_hook, NULL};
    const th_error_hook *old = th_set_error_hook(&hook);
    th_clear_error();
    CHECK_INT_EQ(th_set_error(TH_ERR_IO, "my_companion_fn", "disk %d is gone", 3), TH_ERR_IO);
    CHECK(strcmp(th_last_error(), "my_companion_fn: disk 3 is gone") == 0);
    CHECK_INT_EQ(th_last_status(), TH_ERR_IO);
    CHECK_INT_EQ(hook_calls, 1);
    th_set_error_hook(old);
    th_clear_error();
}

int main(void)
{
    test_begin();
    test_overflowing_geometry();
    test_bool_bytes();
    test_print_size_one_huge_stride();
    test_contiguity_of_empty();
    test_export_of_shrunk_storage();
    test_thread_exit();
    test_set_error();
    return test_end("review");
}
