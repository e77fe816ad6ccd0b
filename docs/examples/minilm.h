/* docs/examples/minilm.h: a BERT sentence encoder (all-MiniLM-L6-v2: 6 layers, 384 features, 12 heads) run by
 * tensor.h from the model's own model.safetensors, as docs/nn.md walks through it. Token ids come in, one unit
 * vector of 384 per sentence goes out: the mean of the last layer over each sentence's real tokens, normalised,
 * as sentence-transformers computes it. minilm.c is the command-line program around it; the test
 * tests/numpy/minilm_torch.c runs it against the same weights run by PyTorch.
 *
 * Include after tensor.h (with TH_IMPLEMENTATION defined in one file of the program, f32, bool and i64
 * stamped). Every function returns NULL (or an error status) with th_last_error() saying why. */
#ifndef MINILM_H
#define MINILM_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tensor.h"

enum { MINILM_LAYERS = 6, MINILM_HIDDEN = 384, MINILM_HEADS = 12, MINILM_FFN = 1536, MINILM_POSITIONS = 512 };

/* The weights: views of the mapped file (no copy: f32 data at aligned offsets), alive until minilm_close. */
typedef struct minilm_layer {
    th_f32_tensor *q_w, *q_b, *k_w, *k_b, *v_w, *v_b; /* self-attention projections, weights (out, in) */
    th_f32_tensor *o_w, *o_b, *ln1_w, *ln1_b;         /* attention output, then its layer norm */
    th_f32_tensor *ffn_w, *ffn_b, *out_w, *out_b;     /* feed-forward 384 -> 1536 -> 384 */
    th_f32_tensor *ln2_w, *ln2_b;
} minilm_layer;

typedef struct minilm {
    th_safetensors *file;
    th_f32_tensor *word, *position, *token_type, *ln_w, *ln_b;
    minilm_layer layer[MINILM_LAYERS];
} minilm;

/* One named f32 tensor of the file with the expected sizes, or NULL with an error that names it. */
static th_f32_tensor *minilm_weight(th_safetensors *f, const char *name, int ndim, int64_t s0, int64_t s1)
{
    th_f32_tensor *t = th_f32_from_base(th_safetensors_get(f, name)); /* from_base: NULL for another dtype */
    if (t && (th_f32_ndim(t) != ndim || th_f32_size(t, 0) != s0 || (ndim == 2 && th_f32_size(t, 1) != s1))) {
        fprintf(stderr, "minilm: %s has the wrong shape\n", name);
        th_release(t);
        return NULL;
    }
    return t;
}

static void minilm_close(minilm *m)
{
    if (!m) return;
    th_release(m->word), th_release(m->position), th_release(m->token_type), th_release(m->ln_w);
    th_release(m->ln_b);
    for (int i = 0; i < MINILM_LAYERS; i++) {
        th_f32_tensor **w = &m->layer[i].q_w; /* the struct is 16 tensor pointers in a row */
        for (int j = 0; j < 16; j++) th_release(w[j]);
    }
    th_safetensors_close(m->file);
    free(m);
}

static minilm *minilm_open(const char *path)
{
    minilm *m = (minilm *)calloc(1, sizeof *m);
    if (!m || !(m->file = th_safetensors_open(path))) {
        free(m);
        return NULL;
    }
    const int H = MINILM_HIDDEN;
    th_safetensors *f = m->file;
    int ok = (m->word = minilm_weight(f, "embeddings.word_embeddings.weight", 2, 30522, H)) &&
             (m->position = minilm_weight(f, "embeddings.position_embeddings.weight", 2, MINILM_POSITIONS, H)) &&
             (m->token_type = minilm_weight(f, "embeddings.token_type_embeddings.weight", 2, 2, H)) &&
             (m->ln_w = minilm_weight(f, "embeddings.LayerNorm.weight", 1, H, 0)) &&
             (m->ln_b = minilm_weight(f, "embeddings.LayerNorm.bias", 1, H, 0));
    /* each layer's 16 tensors, in the struct's order: name suffix, rows, columns (0: a vector) */
    static const struct { const char *name; int64_t rows, cols; } parts[16] = {
        {"attention.self.query.weight", MINILM_HIDDEN, MINILM_HIDDEN}, {"attention.self.query.bias", MINILM_HIDDEN, 0},
        {"attention.self.key.weight", MINILM_HIDDEN, MINILM_HIDDEN},   {"attention.self.key.bias", MINILM_HIDDEN, 0},
        {"attention.self.value.weight", MINILM_HIDDEN, MINILM_HIDDEN}, {"attention.self.value.bias", MINILM_HIDDEN, 0},
        {"attention.output.dense.weight", MINILM_HIDDEN, MINILM_HIDDEN}, {"attention.output.dense.bias", MINILM_HIDDEN, 0},
        {"attention.output.LayerNorm.weight", MINILM_HIDDEN, 0},       {"attention.output.LayerNorm.bias", MINILM_HIDDEN, 0},
        {"intermediate.dense.weight", MINILM_FFN, MINILM_HIDDEN},      {"intermediate.dense.bias", MINILM_FFN, 0},
        {"output.dense.weight", MINILM_HIDDEN, MINILM_FFN},            {"output.dense.bias", MINILM_HIDDEN, 0},
        {"output.LayerNorm.weight", MINILM_HIDDEN, 0},                 {"output.LayerNorm.bias", MINILM_HIDDEN, 0},
    };
    for (int i = 0; ok && i < MINILM_LAYERS; i++) {
        th_f32_tensor **w = &m->layer[i].q_w;
        for (int j = 0; ok && j < 16; j++) {
            char name[96];
            snprintf(name, sizeof name, "encoder.layer.%d.%s", i, parts[j].name);
            ok = (w[j] = minilm_weight(f, name, parts[j].cols ? 2 : 1, parts[j].rows, parts[j].cols)) != NULL;
        }
    }
    if (!ok) {
        minilm_close(m);
        return NULL;
    }
    return m;
}

/* x (n, in) @ w^T + b: a linear layer on rows, w as stored, (out, in); the transpose is a view, which the
 * matrix product takes as a transposed operand without a copy. */
static th_f32_tensor *minilm_linear(th_f32_tensor *x, th_f32_tensor *w, th_f32_tensor *b)
{
    th_f32_tensor *wt = th_f32_transpose(w, 0, 1);
    th_f32_tensor *y = wt ? th_f32_addmm(b, x, wt, 1.0f, 1.0f) : NULL;
    th_release(wt);
    return y;
}

/* Takes x (consumed) + r, layer-normalised: the residual step after attention and after the feed-forward. */
static th_f32_tensor *minilm_add_norm(th_f32_tensor *x, th_f32_tensor *r, th_f32_tensor *w, th_f32_tensor *b)
{
    th_f32_tensor *y = NULL;
    if (x && th_f32_add_inplace(x, r) == TH_OK)
        y = th_f32_layer_norm(x, 1, (int64_t[]){MINILM_HIDDEN}, w, b, 1e-12);
    th_release(x);
    return y;
}

/* One encoder layer on x (B*L, 384) (consumed); keys (B, 1, 1, L) bool, true for real tokens. */
static th_f32_tensor *minilm_layer_run(const minilm_layer *ly, th_f32_tensor *x, th_bool_tensor *keys,
                                       int64_t B, int64_t L)
{
    const int64_t heads[4] = {B, L, MINILM_HEADS, MINILM_HIDDEN / MINILM_HEADS};
    const int to_heads[4] = {0, 2, 1, 3}; /* (B, L, heads, 32) -> (B, heads, L, 32), a view */
    th_f32_tensor *proj[3] = {minilm_linear(x, ly->q_w, ly->q_b), minilm_linear(x, ly->k_w, ly->k_b),
                              minilm_linear(x, ly->v_w, ly->v_b)};
    th_f32_tensor *split[3] = {NULL, NULL, NULL}, *hd[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        split[i] = proj[i] ? th_f32_view(proj[i], 4, heads) : NULL;
        hd[i] = split[i] ? th_f32_permute(split[i], to_heads) : NULL;
    }
    /* attention with the padding keys masked out; the default scale 1/sqrt(32) */
    th_f32_tensor *ctx = hd[0] && hd[1] && hd[2] ? th_f32_scaled_dot_product_attention(hd[0], hd[1], hd[2],
                                                                                       (th_tensor *)keys, NULL)
                                                 : NULL;
    for (int i = 0; i < 3; i++) th_release(proj[i]), th_release(split[i]), th_release(hd[i]);
    /* back to (B, L, heads, 32) and one row of 384 per token */
    th_f32_tensor *back = ctx ? th_f32_permute(ctx, to_heads) : NULL;
    th_f32_tensor *rows = back ? th_f32_reshape(back, 2, (int64_t[]){B * L, MINILM_HIDDEN}) : NULL;
    th_release(ctx), th_release(back);
    th_f32_tensor *att = rows ? minilm_linear(rows, ly->o_w, ly->o_b) : NULL;
    th_release(rows);
    th_f32_tensor *h = att ? minilm_add_norm(att, x, ly->ln1_w, ly->ln1_b) : NULL;
    th_release(x);
    if (!h) return NULL;
    th_f32_tensor *mid = minilm_linear(h, ly->ffn_w, ly->ffn_b);
    if (mid && th_f32_gelu_inplace(mid) != TH_OK) th_release(mid), mid = NULL; /* BERT's gelu: the erf form */
    th_f32_tensor *out = mid ? minilm_linear(mid, ly->out_w, ly->out_b) : NULL;
    th_release(mid);
    th_f32_tensor *y = out ? minilm_add_norm(out, h, ly->ln2_w, ly->ln2_b) : NULL;
    th_release(h);
    return y;
}

/* The sentence embeddings (B, 384) of a batch of token ids (B, L) whose mask (B, L) is 1 on real tokens and 0
 * on padding (the tokenizer's attention_mask); both i64. */
static th_f32_tensor *minilm_encode(const minilm *m, const th_i64_tensor *ids, const th_i64_tensor *mask)
{
    if (!ids || !mask || th_i64_ndim(ids) != 2 || th_i64_ndim(mask) != 2 || th_i64_size(ids, 0) != th_i64_size(mask, 0) ||
        th_i64_size(ids, 1) != th_i64_size(mask, 1) || th_i64_size(ids, 1) > MINILM_POSITIONS) {
        fprintf(stderr, "minilm_encode: ids and mask must both be (B, L) with L <= %d\n", MINILM_POSITIONS);
        return NULL;
    }
    const int64_t B = th_i64_size(ids, 0), L = th_i64_size(ids, 1), H = MINILM_HIDDEN;
    /* embeddings: word + position + token type 0, then a layer norm */
    th_f32_tensor *words = th_f32_embedding(m->word, ids);
    th_f32_tensor *pos = th_f32_narrow(m->position, 0, 0, L);
    th_f32_tensor *type0 = th_f32_select(m->token_type, 0, 0);
    th_f32_tensor *x = NULL;
    if (words && pos && type0 && th_f32_add_inplace(words, pos) == TH_OK && th_f32_add_inplace(words, type0) == TH_OK)
        x = th_f32_layer_norm(words, 1, &H, m->ln_w, m->ln_b, 1e-12);
    th_release(words), th_release(pos), th_release(type0);
    th_f32_tensor *rows = x ? th_f32_reshape(x, 2, (int64_t[]){B * L, H}) : NULL;
    th_release(x);

    /* the key mask, broadcast over heads and queries */
    th_bool_tensor *keys_bl = th_bool_convert((const th_tensor *)mask);
    th_bool_tensor *keys = keys_bl ? th_bool_reshape(keys_bl, 4, (int64_t[]){B, 1, 1, L}) : NULL;
    th_release(keys_bl);
    for (int i = 0; rows && keys && i < MINILM_LAYERS; i++) rows = minilm_layer_run(&m->layer[i], rows, keys, B, L);
    th_release(keys);
    if (!rows) return NULL;

    /* mean over the real tokens, then unit length (sentence-transformers' Pooling and Normalize) */
    th_f32_tensor *hidden = th_f32_view(rows, 3, (int64_t[]){B, L, H});
    th_f32_tensor *w = th_f32_convert((const th_tensor *)mask);
    th_f32_tensor *w3 = w ? th_f32_unsqueeze(w, 2) : NULL;
    th_f32_tensor *masked = hidden && w3 ? th_f32_mul(hidden, w3) : NULL;
    th_f32_tensor *sum = masked ? th_f32_sum_dim(masked, 1, false) : NULL;
    th_f32_tensor *count = w ? th_f32_sum_dim(w, 1, true) : NULL;
    th_f32_tensor *mean = NULL, *len = NULL, *emb = NULL;
    if (sum && count && th_f32_clamp_inplace(count, 1e-9f, INFINITY) == TH_OK) mean = th_f32_div(sum, count);
    if (mean && (len = th_f32_norm_dim(mean, 2.0, 1, true)) && th_f32_clamp_inplace(len, 1e-12f, INFINITY) == TH_OK)
        emb = th_f32_div(mean, len);
    th_release(rows), th_release(hidden), th_release(w), th_release(w3), th_release(masked), th_release(sum);
    th_release(count), th_release(mean), th_release(len);
    return emb;
}

#endif
