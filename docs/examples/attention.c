/* Scaled dot-product attention with tensor.h: heads of a batch attending with the causal mask, a key-padding
 * mask that broadcasts over the heads and queries, a float (additive) mask, a fully masked row (NaN, as
 * PyTorch), and an error.
 * Build: cc -std=c11 -I. docs/examples/attention.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_BOOL
#include <math.h>

#include "tensor.h"

int main(void)
{
    /* batch 1, 2 heads, 3 positions, 2 features; every query and key the same, so the scores are equal and
     * the attention is a plain average of the values it may see */
    th_f32_tensor *q = th_f32_ones(4, (int64_t[]){1, 2, 3, 2}), *k = th_f32_ones(4, (int64_t[]){1, 2, 3, 2});
    th_f32_tensor *v = th_f32_empty(4, (int64_t[]){1, 2, 3, 2});
    for (int i = 0; i < 12; i++) th_f32_data(v)[i] = (float)(i / 2 % 3); /* value j is (j, j) in both heads */

    /* causal: query i sees keys 0..i, so row i is the mean of 0..i: 0, 0.5, 1 */
    th_sdpa_opts causal = {.is_causal = true}; /* scale 0: the default, 1 / sqrt(2) */
    th_f32_tensor *y = th_f32_scaled_dot_product_attention(q, k, v, NULL, &causal);
    th_f32_print(stdout, y);
    int ok = y && th_f32_size(y, 2) == 3 && th_f32_size(y, 3) == 2 &&
             th_f32_get(y, (int64_t[]){0, 1, 0, 0}) == 0.0f && th_f32_get(y, (int64_t[]){0, 1, 1, 0}) == 0.5f &&
             fabsf(th_f32_get(y, (int64_t[]){0, 0, 2, 1}) - 1.0f) < 1e-6f;

    /* a key-padding mask (batch, 1, 1, S), true where the key takes part: the last key is padding, so every
     * query averages keys 0 and 1: 0.5 */
    th_bool_tensor *pad = th_bool_ones(4, (int64_t[]){1, 1, 1, 3});
    th_bool_set(pad, (int64_t[]){0, 0, 0, 2}, false);
    th_f32_tensor *yp = th_f32_scaled_dot_product_attention(q, k, v, (th_tensor *)pad, NULL);
    ok = ok && yp && fabsf(th_f32_get(yp, (int64_t[]){0, 1, 2, 0}) - 0.5f) < 1e-6f;

    /* a float mask is added to the scores: -inf shuts a key out, log(2) doubles a key's weight; the mask (S)
     * broadcasts to every query: weights 2/3 and 1/3 on keys 1 and 2: 2/3 + 2/3 = 4/3 */
    th_f32_tensor *add = th_f32_zeros(1, (int64_t[]){3});
    th_f32_set(add, (int64_t[]){0}, -INFINITY);
    th_f32_set(add, (int64_t[]){1}, logf(2.0f));
    th_f32_tensor *ya = th_f32_scaled_dot_product_attention(q, k, v, (th_tensor *)add, NULL);
    ok = ok && ya && fabsf(th_f32_get(ya, (int64_t[]){0, 0, 1, 1}) - 4.0f / 3.0f) < 1e-6f;

    /* a query whose every key is masked gets NaN, as PyTorch's formula (softmax of a row of -inf) */
    th_bool_tensor *none = th_bool_ones(2, (int64_t[]){3, 3});
    for (int j = 0; j < 3; j++) th_bool_set(none, (int64_t[]){0, j}, false);
    th_f32_tensor *yn = th_f32_scaled_dot_product_attention(q, k, v, (th_tensor *)none, NULL);
    ok = ok && yn && isnan(th_f32_get(yn, (int64_t[]){0, 0, 0, 0})) && th_f32_get(yn, (int64_t[]){0, 0, 1, 0}) == 1.0f;

    /* an error names the function and the values: k with 3 features against q's 2 */
    th_f32_tensor *k3 = th_f32_ones(4, (int64_t[]){1, 2, 3, 3});
    th_f32_tensor *e = th_f32_scaled_dot_product_attention(q, k3, v, NULL, NULL);
    printf("%s\n", th_last_error());
    ok = ok && !e && th_last_status() == TH_ERR_SHAPE;

    th_release(q), th_release(k), th_release(v), th_release(y), th_release(pad), th_release(yp);
    th_release(add), th_release(ya), th_release(none), th_release(yn), th_release(k3);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
