/* TH_SELECT_DTYPES: only float32 and int64 are stamped; the rest of the library still knows every dtype. */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I64
#define TH_IMPLEMENTATION
#include "check.h"

#if !defined(TH_HAS_F32) || !defined(TH_HAS_I64)
#error "the selected dtypes must be stamped"
#endif
#if defined(TH_HAS_F64) || defined(TH_HAS_BOOL) || defined(TH_HAS_C64)
#error "dtypes that were not selected must not be stamped"
#endif

int main(void)
{
    test_begin();
    int64_t sizes[2] = {2, 2};
    th_f32_tensor *f = th_f32_full(2, sizes, 1.75f);
    th_i64_tensor *i = th_i64_convert(th_f32_base(f));
    CHECK_INT_EQ(th_i64_get(i, (int64_t[]){1, 1}), 1);
    CHECK_INT_EQ(th_numel(i), 4); /* the _Generic front end covers the selected dtypes */
    CHECK(th_dtype_info(TH_F32)->stamped);
    CHECK(!th_dtype_info(TH_F64)->stamped);
    CHECK_INT_EQ(th_dtype_info(TH_F64)->size, 8);
    /* A tensor of a dtype that was not stamped can still arrive as memory (say through DLPack): copies
     * refuse it clearly. */
    double buf[4] = {0, 0, 0, 0};
    th_storage *s = th_storage_from_blob(buf, sizeof buf, (th_device){TH_DEVICE_CPU, 0}, NULL, NULL);
    th_f32_tensor *as_f32 = th_f32_new_with_storage(s, 0, 2, sizes, NULL);
    CHECK(as_f32 != NULL);
    th_f32_release(as_f32);
    th_storage_release(s);
    th_f32_release(f);
    th_i64_release(i);
    return test_end("mode_select");
}
