/* The second translation unit of test_mode_static: its own private copy of the library. */
#define TH_STATIC
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_I32
#include "tensor.h"

int mode_static_b(void);

int mode_static_b(void)
{
    int64_t sizes[1] = {5};
    th_i32_tensor *t = th_i32_full(1, sizes, 2);
    int sum = 0;
    for (int64_t i = 0; i < 5; i++) sum += th_i32_get(t, &i);
    th_i32_release(t);
    return sum;
}
