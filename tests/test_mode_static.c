/* TH_STATIC: this file and test_mode_static_b.c each stamp a private, all-static copy of the library.
 * The program links (no duplicate symbols) and both copies work. */
#define TH_STATIC
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include "check.h"

int mode_static_b(void);

int main(void)
{
    test_begin();
    int64_t sizes[1] = {4};
    th_f32_tensor *t = th_f32_full(1, sizes, 3.0f);
    CHECK(th_f32_get(t, (int64_t[]){3}) == 3.0f);
    th_f32_release(t);
    CHECK_INT_EQ(mode_static_b(), 10);
    return test_end("mode_static");
}
