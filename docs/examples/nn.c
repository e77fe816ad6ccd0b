/* Neural-network ops with tensor.h: softmax and log_softmax over a dim, layer_norm and rms_norm over trailing
 * dims, group_norm and batch_norm over channels, the gated units glu and swiglu, embedding lookup and rotary
 * position embedding, cross_entropy, the activations silu, softplus and leaky_relu, into new tensors and into
 * outs (the input itself included), and errors.
 * Build: cc -std=c11 -I. docs/examples/nn.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_BF16
#define TH_WANT_I64
#include <math.h>
#include "tensor.h"

int main(void)
{
    /* attention-like scores: 2 rows of 4, one masked with -inf */
    float v[8] = {1, 2, 3, 4, 0, -INFINITY, 0, 0};
    th_f32_tensor *x = th_f32_empty(2, (int64_t[]){2, 4});
    for (int i = 0; i < 8; i++) th_f32_data(x)[i] = v[i];

    /* softmax along the last dim: rows sum to 1, the masked element is exactly 0 */
    th_f32_tensor *p = th_f32_softmax(x, -1);
    th_f32_print(stdout, p);
    /* log_softmax never overflows: exp(1000) would */
    th_f32_tensor *big = th_f32_full(1, (int64_t[]){3}, 1000.0f);
    th_f32_tensor *lp = th_f32_log_softmax(big, 0); /* each -log(3) */

    /* layer_norm over the last dim with a weight and a bias (either may be NULL) */
    th_f32_tensor *w = th_f32_full(1, (int64_t[]){4}, 2.0f), *b = th_f32_full(1, (int64_t[]){4}, 0.5f);
    th_f32_tensor *ln = th_f32_layer_norm(x, 1, (int64_t[]){4}, w, b, 1e-5);

    /* rms_norm in place, on a transposed view: any strides, out may be the input */
    th_f32_tensor *y = th_f32_ones(2, (int64_t[]){4, 2});
    th_f32_tensor *yt = th_f32_transpose(y, 0, 1);
    int st = th_f32_rms_norm_out(yt, yt, 1, (int64_t[]){4}, NULL, 0.0);

    /* group_norm of (N=1, C=4, 2) in 2 groups of 2 channels, and batch_norm with running statistics */
    th_f32_tensor *img = th_f32_empty(3, (int64_t[]){1, 4, 2});
    for (int i = 0; i < 8; i++) th_f32_data(img)[i] = (float)i;
    th_f32_tensor *gn = th_f32_group_norm(img, 2, NULL, NULL, 0.0); /* each group [0 1 2 3] -> +-1.34, +-0.45 */
    th_f32_tensor *mean = th_f32_full(1, (int64_t[]){4}, 1.0f), *var = th_f32_full(1, (int64_t[]){4}, 4.0f);
    th_f32_tensor *bn = th_f32_batch_norm(img, mean, var, NULL, NULL, 0.0); /* (x - 1) / 2 */

    /* the gated units halve a dim: swiglu(x) = silu(first half) * second half, as a LLaMA MLP's gate */
    th_f32_tensor *sw = th_f32_swiglu(x, -1); /* (2, 4) -> (2, 2) */
    th_f32_tensor *gl = th_f32_glu(x, -1);    /* first half * sigmoid(second half), torch's glu */

    /* embedding: token ids (i64, any shape) pick rows of a (vocab, dim) table: ids (2) -> (2, 4) */
    th_f32_tensor *table = th_f32_empty(2, (int64_t[]){3, 4});
    for (int i = 0; i < 12; i++) th_f32_data(table)[i] = (float)i;
    th_i64_tensor *ids = th_i64_empty(1, (int64_t[]){2});
    th_i64_data(ids)[0] = 2, th_i64_data(ids)[1] = 0;
    th_f32_tensor *emb = th_f32_embedding(table, ids); /* rows 2 and 0 */

    /* rope: positions 0 and 1 of a head of dim 4 (two pairs), angles pos * 10000^(-i/2), GPT-NeoX's layout */
    th_f32_tensor *cosines = th_f32_empty(2, (int64_t[]){2, 2}), *sines = th_f32_empty(2, (int64_t[]){2, 2});
    for (int pos = 0; pos < 2; pos++)
        for (int i = 0; i < 2; i++) {
            double angle = pos * pow(10000.0, -i / 2.0);
            th_f32_data(cosines)[pos * 2 + i] = (float)cos(angle);
            th_f32_data(sines)[pos * 2 + i] = (float)sin(angle);
        }
    int rs = th_f32_rope_out(emb, emb, cosines, sines, TH_ROPE_HALVES); /* in place: position 0 is unchanged */

    /* cross_entropy of the scores x (2 rows of 4 classes) against classes 3 and 0, the mean of the two; the
     * second row's target is ignored here (PyTorch's ignore_index -100 is the same option) */
    th_i64_tensor *classes = th_i64_empty(1, (int64_t[]){2});
    th_i64_data(classes)[0] = 3, th_i64_data(classes)[1] = -100;
    th_f32_tensor *loss = th_f32_cross_entropy(x, classes, NULL, &(th_loss_opts){.use_ignore_index = true, .ignore_index = -100});

    /* elementwise activations, every floating dtype, new / _out / _inplace: silu, gelu_tanh, hardswish, and
     * with values leaky_relu(x, negative_slope), elu(x, alpha), softplus(x, beta, threshold) */
    th_f32_tensor *act = th_f32_silu(x); /* x * sigmoid(x); the masked -inf gives NaN, as torch's silu */
    th_f32_tensor *soft = th_f32_softplus(x, 1.0, 20.0);
    int ls = th_f32_leaky_relu_inplace(soft, 0.01); /* in place (softplus is positive: unchanged) */

    /* bf16 computes in float and rounds once */
    th_bf16_tensor *h = th_bf16_ones(1, (int64_t[]){4});
    th_bf16_tensor *hs = th_bf16_softmax(h, 0); /* each 0.25 */

    int ok = p && lp && ln && hs && st == TH_OK && th_f32_get(p, (int64_t[]){1, 1}) == 0.0f &&
             fabsf(th_f32_get(p, (int64_t[]){1, 0}) - 1.0f / 3) < 1e-7f &&
             fabsf(th_f32_get(lp, (int64_t[]){0}) + logf(3.0f)) < 1e-6f &&
             fabsf(th_f32_get(ln, (int64_t[]){0, 3}) - (0.5f + 2 * 1.3416355f)) < 1e-5f &&
             th_f32_get(y, (int64_t[]){2, 1}) == 1.0f && th_bfloat16_to_float(th_bf16_get(hs, (int64_t[]){2})) == 0.25f &&
             gn && fabsf(th_f32_get(gn, (int64_t[]){0, 3, 1}) - 3.0f / sqrtf(5.0f)) < 1e-6f && bn &&
             th_f32_get(bn, (int64_t[]){0, 2, 1}) == 2.0f && sw && th_f32_size(sw, 1) == 2 &&
             fabsf(th_f32_get(sw, (int64_t[]){0, 1}) - 2.0f / (1.0f + expf(-2.0f)) * 4.0f) < 1e-5f && gl &&
             fabsf(th_f32_get(gl, (int64_t[]){0, 0}) - 1.0f / (1.0f + expf(-3.0f))) < 1e-6f && emb && rs == TH_OK &&
             th_f32_get(emb, (int64_t[]){0, 3}) == 11.0f &&
             fabsf(th_f32_get(emb, (int64_t[]){1, 0}) - (0.0f * cosf(1.0f) - 2.0f * sinf(1.0f))) < 1e-6f && loss &&
             fabsf(th_f32_data(loss)[0] + logf(th_f32_get(p, (int64_t[]){0, 3}))) < 1e-6f && /* -log softmax */
             act && isnan(th_f32_get(act, (int64_t[]){1, 1})) &&
             fabsf(th_f32_get(act, (int64_t[]){0, 0}) - 1.0f / (1.0f + expf(-1.0f))) < 1e-7f && soft && ls == TH_OK &&
             fabsf(th_f32_get(soft, (int64_t[]){0, 3}) - log1pf(expf(4.0f))) < 1e-6f;

    /* softplus divides by beta: 0 is refused, naming the function and the value */
    th_f32_tensor *refused = th_f32_softplus(x, 0.0, 20.0);
    printf("%s\n", th_last_error());
    ok = ok && refused == NULL && th_last_status() == TH_ERR_INVALID;

    /* an error names the function and the value */
    th_f32_tensor *bad = th_f32_layer_norm(x, 1, (int64_t[]){3}, NULL, NULL, 1e-5);
    printf("%s\n", th_last_error());
    ok = ok && bad == NULL && th_last_status() == TH_ERR_SHAPE;

    th_f32_release(soft);
    th_f32_release(act);
    th_f32_release(loss);
    th_i64_release(classes);
    th_f32_release(sines);
    th_f32_release(cosines);
    th_f32_release(emb);
    th_i64_release(ids);
    th_f32_release(table);
    th_f32_release(gl);
    th_f32_release(sw);
    th_f32_release(bn);
    th_f32_release(var);
    th_f32_release(mean);
    th_f32_release(gn);
    th_f32_release(img);
    th_bf16_release(hs);
    th_bf16_release(h);
    th_f32_release(yt);
    th_f32_release(y);
    th_f32_release(ln);
    th_f32_release(w);
    th_f32_release(b);
    th_f32_release(lp);
    th_f32_release(big);
    th_f32_release(p);
    th_f32_release(x);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
