/* Declarations of f32 only (TH_SELECT_DTYPES narrows what this TU sees), yet it calls an f64 function: a
 * compile-time error (implicit declaration of th_f64_zeros), whatever the implementation TU stamps. */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include "tensor.h"

int main(void)
{
    th_f32_tensor *a = th_f32_zeros(1, (int64_t[]){2});
    void *b = th_f64_zeros(1, (int64_t[]){2});
    th_f32_release(a);
    return b == NULL;
}
