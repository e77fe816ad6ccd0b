/* Selects f32 and f64 (TH_SELECT_DTYPES) and calls both. Linked with impl_f32.c alone, the link fails naming
 * the fix: th_f64__not_stamped_by_the_TH_IMPLEMENTATION_TU__define_TH_WANT_F64_there. */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_F64
#include "tensor.h"

int main(void)
{
    th_f32_tensor *a = th_f32_full(1, (int64_t[]){2}, 1.5f);
    th_f64_tensor *b = a ? th_f64_convert(th_f32_base(a)) : NULL;
    int ok = b && th_f64_get(b, (int64_t[]){1}) == 1.5;
    th_f64_release(b);
    th_f32_release(a);
    printf("selected f32 and f64 from one implementation TU: %s\n", ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}
