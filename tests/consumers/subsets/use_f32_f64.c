/* Declarations of every dtype (no TH_SELECT_DTYPES); calls f32 and f64 functions. run.sh links it with
 * different implementation TUs: impl_f32.c alone (f64 undefined), impl_f32.c and impl_f64.c (everything
 * dtype-independent defined twice), impl_f32_f64.c (the rule: links and runs). */
#include "tensor.h"

int main(void)
{
    th_f32_tensor *a = th_f32_full(1, (int64_t[]){2}, 1.5f);
    th_f64_tensor *b = a ? th_f64_convert(th_f32_base(a)) : NULL;
    int ok = b && th_f64_get(b, (int64_t[]){1}) == 1.5;
    th_f64_release(b);
    th_f32_release(a);
    printf("f32 and f64 from one implementation TU: %s\n", ok ? "ok" : "wrong");
    return ok ? 0 : 1;
}
