/* Stamping your own generic code with tensor.h's generators (docs/generic.md explains each step).
 * Build: cc -std=c11 -I. -Idocs/examples docs/examples/user_generic.c -lm */
#define TH_IMPLEMENTATION
#include "tensor.h"

/* Every floating dtype: my_f16_mean, my_bf16_mean, my_f32_mean, my_f64_mean. */
#define TH_GENERIC_FILE "generic/mean.h"
#include "generate/floating.h"

/* Every dtype: my_bool_count_nonzero ... my_c128_count_nonzero. */
#define TH_GENERIC_FILE "generic/count_nonzero.h"
#include "generate/all.h"

/* One dtype: my_i64_clamp_inplace. */
#define TH_GENERIC_FILE "generic/clamp.h"
#include "generate/i64.h"

int main(void)
{
    int64_t sizes[2] = {2, 3};
    th_f32_tensor *a = th_f32_zeros(2, sizes);
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++) th_f32_set(a, (int64_t[]){i, j}, (float)(i * 3 + j));
    th_f16_tensor *h = th_f16_convert(th_f32_base(a));
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);

    printf("mean f32 %.2f, f16 %.2f, transposed %.2f\n", my_f32_mean(a), my_f16_mean(h), my_f32_mean(t));
    printf("nonzero: %lld of %lld\n", (long long)my_f32_count_nonzero(a), (long long)th_f32_numel(a));

    th_i64_tensor *k = th_i64_convert(th_f32_base(a));
    my_i64_clamp_inplace(k, 1, 4);
    th_i64_print(stdout, k);

    int ok = my_f32_mean(a) == 2.5 && my_f16_mean(h) == 2.5 && my_f32_mean(t) == 2.5 &&
             my_f32_count_nonzero(a) == 5 && th_i64_get(k, (int64_t[]){0, 0}) == 1 &&
             th_i64_get(k, (int64_t[]){1, 2}) == 4;
    th_i64_release(k);
    th_f32_release(t);
    th_f16_release(h);
    th_f32_release(a);
    if (!ok) fprintf(stderr, "user_generic: wrong result\n");
    return ok ? 0 : 1;
}
