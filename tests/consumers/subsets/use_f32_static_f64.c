/* f32 from the program's implementation TU (impl_f32.c), f64 from static_f64.c's private copy. */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include "tensor.h"

double f64_private_sum(void);

int main(void)
{
    th_f32_tensor *a = th_f32_full(1, (int64_t[]){2}, 1.5f);
    int ok = a && th_f32_get(a, (int64_t[]){1}) == 1.5f && f64_private_sum() == 1.0;
    th_f32_release(a);
    printf("f32 from the implementation TU, f64 from a TH_STATIC TU: %s\n", ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}
