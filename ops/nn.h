/* ops/nn.h: neural-network ops: softmax, log_softmax, layer_norm, rms_norm, group_norm, batch_norm, glu,
 * swiglu, geglu, embedding, rope, nll_loss, cross_entropy. Stamped per dtype through
 * tensor_generic.h for the floating dtypes (f16 and bf16 compute in float); the front doors only check the
 * dtypes, the work is done once for every dtype in ops/nn_erased.h. docs/nn.md. */
#if defined(TH_REAL_IS_FLOATING)
#ifndef TH__DEFINING

/* Every function here: x of any strides and any number of dims; the new forms return a new contiguous tensor
 * (NULL on error), the _out forms write into out, which must have x's shape and dtype (any strides, x itself
 * included), and return 0 or a negative status. Each row is computed alone, so the result is the same bits
 * for any thread count. Errors: NULL x or out (TH_ERR_INVALID), a tensor of another dtype (TH_ERR_DTYPE),
 * device memory (TH_ERR_DEVICE), an out of the wrong shape (TH_ERR_SHAPE), read-only (TH_ERR_READ_ONLY) or
 * whose elements overlap (TH_ERR_INVALID), out of memory (TH_ERR_NOMEM). */

/* exp(x - max) / sum(exp(x - max)) along dim (negative counts from the end; a 0-d x takes 0 and -1), as
 * torch.softmax. Exact zeros for -inf elements; a row holding NaN or +inf, or only -inf, is NaN throughout
 * (as PyTorch). Errors: dim out of range (TH_ERR_RANGE). */
TH_API TH_NAME(tensor) *TH_NAME(softmax)(const TH_NAME(tensor) *x, int dim);
TH_API int TH_NAME(softmax_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim);
/* x - max - log(sum(exp(x - max))) along dim, as torch.log_softmax: no overflow, -inf elements stay -inf,
 * NaN rows as softmax. */
TH_API TH_NAME(tensor) *TH_NAME(log_softmax)(const TH_NAME(tensor) *x, int dim);
TH_API int TH_NAME(log_softmax_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim);

/* torch.nn.functional.layer_norm: over the last normalized_ndim dims of x, whose sizes must be sizes[0..],
 * (x - mean) / sqrt(var + eps) * weight + bias with the biased variance; weight and bias have the normalized
 * shape and may each be NULL (1 and 0). Errors: normalized_ndim < 1 or NULL sizes (TH_ERR_INVALID), more
 * dims than x has, sizes that are not x's trailing sizes, weight or bias of another shape (TH_ERR_SHAPE),
 * eps negative, NaN or infinite (TH_ERR_INVALID). */
TH_API TH_NAME(tensor) *TH_NAME(layer_norm)(const TH_NAME(tensor) *x, int normalized_ndim, const int64_t *sizes,
                                            const TH_NAME(tensor) *weight, const TH_NAME(tensor) *bias, double eps);
TH_API int TH_NAME(layer_norm_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int normalized_ndim,
                                   const int64_t *sizes, const TH_NAME(tensor) *weight, const TH_NAME(tensor) *bias,
                                   double eps);
/* RMSNorm (torch.nn.functional.rms_norm of PyTorch 2.4): x / sqrt(mean(x^2) + eps) * weight over the last
 * normalized_ndim dims; weight may be NULL. Errors as layer_norm. */
TH_API TH_NAME(tensor) *TH_NAME(rms_norm)(const TH_NAME(tensor) *x, int normalized_ndim, const int64_t *sizes,
                                          const TH_NAME(tensor) *weight, double eps);
TH_API int TH_NAME(rms_norm_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int normalized_ndim,
                                 const int64_t *sizes, const TH_NAME(tensor) *weight, double eps);

/* torch.nn.functional.group_norm: x (N, C, *) with C split into num_groups groups of C / num_groups
 * consecutive channels; each (n, group) is normalised over its channels and the trailing dims, (x - mean) /
 * sqrt(var + eps) with the biased variance, then channel c scaled by weight[c] and shifted by bias[c]
 * (each NULL or of shape (C): 1 and 0). Errors: x with fewer than 2 dims, num_groups not dividing C, a weight
 * or bias not (C) (TH_ERR_SHAPE); num_groups < 1, eps negative, NaN or infinite (TH_ERR_INVALID). */
TH_API TH_NAME(tensor) *TH_NAME(group_norm)(const TH_NAME(tensor) *x, int64_t num_groups,
                                            const TH_NAME(tensor) *weight, const TH_NAME(tensor) *bias, double eps);
TH_API int TH_NAME(group_norm_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int64_t num_groups,
                                   const TH_NAME(tensor) *weight, const TH_NAME(tensor) *bias, double eps);
/* torch.nn.functional.batch_norm(training=False): x (N, C, *), channel c is (x - running_mean[c]) /
 * sqrt(running_var[c] + eps) * weight[c] + bias[c]; the running statistics are required (C), weight and bias
 * NULL or (C). A running_var below -eps gives NaN, as PyTorch. Errors: NULL running_mean or running_var,
 * eps negative, NaN or infinite (TH_ERR_INVALID), x with fewer than 2 dims, a parameter not (C)
 * (TH_ERR_SHAPE). */
TH_API TH_NAME(tensor) *TH_NAME(batch_norm)(const TH_NAME(tensor) *x, const TH_NAME(tensor) *running_mean,
                                            const TH_NAME(tensor) *running_var, const TH_NAME(tensor) *weight,
                                            const TH_NAME(tensor) *bias, double eps);
TH_API int TH_NAME(batch_norm_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, const TH_NAME(tensor) *running_mean,
                                   const TH_NAME(tensor) *running_var, const TH_NAME(tensor) *weight,
                                   const TH_NAME(tensor) *bias, double eps);

/* The gated linear units: x split along dim (negative counts from the end) into its first half a and second
 * half b; the result has x's shape with that dim halved. glu: a * sigmoid(b), as torch.nn.functional.glu;
 * swiglu: silu(a) * b = a * sigmoid(a) * b; geglu: gelu(a) * b, the exact GELU a * Phi(a), or with approximate
 * true GELU's tanh form 0.5 a (1 + tanh(sqrt(2 / pi) (a + 0.044715 a^3))) (torch's approximate='tanh').
 * Errors: dim out of range (TH_ERR_RANGE), a 0-d x or an odd size along dim (TH_ERR_SHAPE). */
TH_API TH_NAME(tensor) *TH_NAME(glu)(const TH_NAME(tensor) *x, int dim);
TH_API int TH_NAME(glu_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim);
TH_API TH_NAME(tensor) *TH_NAME(swiglu)(const TH_NAME(tensor) *x, int dim);
TH_API int TH_NAME(swiglu_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim);
TH_API TH_NAME(tensor) *TH_NAME(geglu)(const TH_NAME(tensor) *x, int dim, bool approximate);
TH_API int TH_NAME(geglu_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim, bool approximate);

/* torch.nn.functional.embedding (forward): the rows of weight (num_embeddings, dim) picked by indices, an i64
 * tensor of any shape (and strides); the result is indices.shape + (dim). Every index is checked before
 * anything is written. Errors: NULL weight or indices (TH_ERR_INVALID), indices not i64 (TH_ERR_DTYPE), weight
 * not 2-d, indices with TH_MAX_DIMS dims (TH_ERR_SHAPE), an index < 0 or >= num_embeddings (TH_ERR_RANGE). */
TH_API TH_NAME(tensor) *TH_NAME(embedding)(const TH_NAME(tensor) *weight, const th_i64_tensor *indices);
TH_API int TH_NAME(embedding_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *weight, const th_i64_tensor *indices);

/* Rotary position embedding: x (..., d) with its first 2h features rotated pairwise by the angles whose
 * cosines and sines are given, (..., h) each, 2h <= d, their leading dims broadcast against x's (from the
 * right: x (B, H, L, d) takes (L, h); x (B, L, H, d) takes (L, 1, h)); features from 2h on are copied.
 * TH_ROPE_HALVES pairs feature i with i + h (GPT-NeoX), TH_ROPE_INTERLEAVED feature 2i with 2i + 1 (GPT-J):
 * y[i] = x[i] cos - x[j] sin, y[j] = x[j] cos + x[i] sin. Errors: NULL x, cosines or sines, a layout outside
 * the enum (TH_ERR_INVALID), a 0-d x, cosines and sines of different shapes, 2h > d, leading dims that do not
 * broadcast (TH_ERR_SHAPE). */
TH_API TH_NAME(tensor) *TH_NAME(rope)(const TH_NAME(tensor) *x, const TH_NAME(tensor) *cosines,
                                      const TH_NAME(tensor) *sines, th_rope_layout layout);
TH_API int TH_NAME(rope_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, const TH_NAME(tensor) *cosines,
                             const TH_NAME(tensor) *sines, th_rope_layout layout);

/* torch.nn.functional.nll_loss with class-index targets: input holds log-probabilities, (N, C, *) or (C);
 * target (i64) is (N, *) or 0-d; the loss of each target t is -weight[t] * input[n, t, ...] (weight NULL: 1;
 * else (C)); opts (NULL: defaults) chooses the reduction (the result is 0-d for mean and sum, the target's shape
 * for none) and an ignore_index. Computed in double, the sum in a fixed order. A mean over targets that are
 * all ignored is NaN (0 / 0), as PyTorch. Errors: NULL input or target, a reduction outside the enum, a
 * label_smoothing other than 0 (TH_ERR_INVALID); a 0-d input, a target of another shape, a weight not (C)
 * (TH_ERR_SHAPE); a target < 0 or >= C that is not the ignore_index (TH_ERR_RANGE); a target not i64
 * (TH_ERR_DTYPE). */
TH_API TH_NAME(tensor) *TH_NAME(nll_loss)(const TH_NAME(tensor) *input, const th_i64_tensor *target,
                                          const TH_NAME(tensor) *weight, const th_loss_opts *opts);
TH_API int TH_NAME(nll_loss_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const th_i64_tensor *target,
                                 const TH_NAME(tensor) *weight, const th_loss_opts *opts);
/* torch.nn.functional.cross_entropy with class-index targets: nll_loss of log_softmax(input) over the class dim
 * (1, or 0 for an unbatched (C) input), with label smoothing e in [0, 1]: each loss is (1 - e) * nll + e / C *
 * sum over classes k of -weight[k] * log_softmax[k], and a mean divides both by the counted targets' weights,
 * as PyTorch 1.13. Errors as nll_loss, and a label_smoothing outside [0, 1] (TH_ERR_INVALID). */
TH_API TH_NAME(tensor) *TH_NAME(cross_entropy)(const TH_NAME(tensor) *input, const th_i64_tensor *target,
                                               const TH_NAME(tensor) *weight, const th_loss_opts *opts);
TH_API int TH_NAME(cross_entropy_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const th_i64_tensor *target,
                                      const TH_NAME(tensor) *weight, const th_loss_opts *opts);

#else /* definitions */

TH_API TH_NAME(tensor) *TH_NAME(softmax)(const TH_NAME(tensor) *x, int dim)
{
    if (TH__WRONG_DTYPE(x)) return NULL;
    return TH__T(th__nn_run(TH__FN(softmax), TH__NN_SOFTMAX, NULL, TH__B(x), dim, 0, NULL, NULL, NULL, 0.0));
}

TH_API int TH_NAME(softmax_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(softmax_out), "NULL out");
    return th__out_status(
        th__nn_run(TH__FN(softmax_out), TH__NN_SOFTMAX, TH__B(out), TH__B(x), dim, 0, NULL, NULL, NULL, 0.0));
}

TH_API TH_NAME(tensor) *TH_NAME(log_softmax)(const TH_NAME(tensor) *x, int dim)
{
    if (TH__WRONG_DTYPE(x)) return NULL;
    return TH__T(th__nn_run(TH__FN(log_softmax), TH__NN_LOG_SOFTMAX, NULL, TH__B(x), dim, 0, NULL, NULL, NULL, 0.0));
}

TH_API int TH_NAME(log_softmax_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(log_softmax_out), "NULL out");
    return th__out_status(th__nn_run(TH__FN(log_softmax_out), TH__NN_LOG_SOFTMAX, TH__B(out), TH__B(x), dim, 0, NULL,
                                    NULL, NULL, 0.0));
}

TH_API TH_NAME(tensor) *TH_NAME(layer_norm)(const TH_NAME(tensor) *x, int normalized_ndim, const int64_t *sizes,
                                            const TH_NAME(tensor) *weight, const TH_NAME(tensor) *bias, double eps)
{
    if (TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(weight) || TH__WRONG_DTYPE(bias)) return NULL;
    return TH__T(th__nn_run(TH__FN(layer_norm), TH__NN_LAYER_NORM, NULL, TH__B(x), 0, normalized_ndim, sizes,
                            TH__B(weight), TH__B(bias), eps));
}

TH_API int TH_NAME(layer_norm_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int normalized_ndim,
                                   const int64_t *sizes, const TH_NAME(tensor) *weight, const TH_NAME(tensor) *bias,
                                   double eps)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(weight) || TH__WRONG_DTYPE(bias))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(layer_norm_out), "NULL out");
    return th__out_status(th__nn_run(TH__FN(layer_norm_out), TH__NN_LAYER_NORM, TH__B(out), TH__B(x), 0,
                                    normalized_ndim, sizes, TH__B(weight), TH__B(bias), eps));
}

TH_API TH_NAME(tensor) *TH_NAME(rms_norm)(const TH_NAME(tensor) *x, int normalized_ndim, const int64_t *sizes,
                                          const TH_NAME(tensor) *weight, double eps)
{
    if (TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(weight)) return NULL;
    return TH__T(th__nn_run(TH__FN(rms_norm), TH__NN_RMS_NORM, NULL, TH__B(x), 0, normalized_ndim, sizes,
                            TH__B(weight), NULL, eps));
}

TH_API int TH_NAME(rms_norm_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int normalized_ndim,
                                 const int64_t *sizes, const TH_NAME(tensor) *weight, double eps)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(weight)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(rms_norm_out), "NULL out");
    return th__out_status(th__nn_run(TH__FN(rms_norm_out), TH__NN_RMS_NORM, TH__B(out), TH__B(x), 0, normalized_ndim,
                                    sizes, TH__B(weight), NULL, eps));
}

TH_API TH_NAME(tensor) *TH_NAME(group_norm)(const TH_NAME(tensor) *x, int64_t num_groups,
                                            const TH_NAME(tensor) *weight, const TH_NAME(tensor) *bias, double eps)
{
    if (TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(weight) || TH__WRONG_DTYPE(bias)) return NULL;
    return TH__T(th__cn_run(TH__FN(group_norm), true, NULL, TH__B(x), num_groups, NULL, NULL, TH__B(weight),
                            TH__B(bias), eps));
}

TH_API int TH_NAME(group_norm_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int64_t num_groups,
                                   const TH_NAME(tensor) *weight, const TH_NAME(tensor) *bias, double eps)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(weight) || TH__WRONG_DTYPE(bias))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(group_norm_out), "NULL out");
    return th__out_status(th__cn_run(TH__FN(group_norm_out), true, TH__B(out), TH__B(x), num_groups, NULL, NULL,
                                    TH__B(weight), TH__B(bias), eps));
}

TH_API TH_NAME(tensor) *TH_NAME(batch_norm)(const TH_NAME(tensor) *x, const TH_NAME(tensor) *running_mean,
                                            const TH_NAME(tensor) *running_var, const TH_NAME(tensor) *weight,
                                            const TH_NAME(tensor) *bias, double eps)
{
    if (TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(running_mean) || TH__WRONG_DTYPE(running_var) ||
        TH__WRONG_DTYPE(weight) || TH__WRONG_DTYPE(bias))
        return NULL;
    return TH__T(th__cn_run(TH__FN(batch_norm), false, NULL, TH__B(x), 0, TH__B(running_mean), TH__B(running_var),
                            TH__B(weight), TH__B(bias), eps));
}

TH_API int TH_NAME(batch_norm_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, const TH_NAME(tensor) *running_mean,
                                   const TH_NAME(tensor) *running_var, const TH_NAME(tensor) *weight,
                                   const TH_NAME(tensor) *bias, double eps)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(running_mean) ||
        TH__WRONG_DTYPE(running_var) || TH__WRONG_DTYPE(weight) || TH__WRONG_DTYPE(bias))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(batch_norm_out), "NULL out");
    return th__out_status(th__cn_run(TH__FN(batch_norm_out), false, TH__B(out), TH__B(x), 0, TH__B(running_mean),
                                    TH__B(running_var), TH__B(weight), TH__B(bias), eps));
}

TH_API TH_NAME(tensor) *TH_NAME(glu)(const TH_NAME(tensor) *x, int dim)
{
    if (TH__WRONG_DTYPE(x)) return NULL;
    return TH__T(th__gate_run(TH__FN(glu), TH__GATE_GLU, NULL, TH__B(x), dim));
}

TH_API int TH_NAME(glu_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(glu_out), "NULL out");
    return th__out_status(th__gate_run(TH__FN(glu_out), TH__GATE_GLU, TH__B(out), TH__B(x), dim));
}

TH_API TH_NAME(tensor) *TH_NAME(swiglu)(const TH_NAME(tensor) *x, int dim)
{
    if (TH__WRONG_DTYPE(x)) return NULL;
    return TH__T(th__gate_run(TH__FN(swiglu), TH__GATE_SWIGLU, NULL, TH__B(x), dim));
}

TH_API int TH_NAME(swiglu_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(swiglu_out), "NULL out");
    return th__out_status(th__gate_run(TH__FN(swiglu_out), TH__GATE_SWIGLU, TH__B(out), TH__B(x), dim));
}

TH_API TH_NAME(tensor) *TH_NAME(geglu)(const TH_NAME(tensor) *x, int dim, bool approximate)
{
    if (TH__WRONG_DTYPE(x)) return NULL;
    return TH__T(th__gate_run(TH__FN(geglu), approximate ? TH__GATE_GEGLU_TANH : TH__GATE_GEGLU, NULL, TH__B(x), dim));
}

TH_API int TH_NAME(geglu_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, int dim, bool approximate)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(geglu_out), "NULL out");
    return th__out_status(th__gate_run(TH__FN(geglu_out), approximate ? TH__GATE_GEGLU_TANH : TH__GATE_GEGLU,
                                      TH__B(out), TH__B(x), dim));
}

TH_API TH_NAME(tensor) *TH_NAME(embedding)(const TH_NAME(tensor) *weight, const th_i64_tensor *indices)
{
    if (TH__WRONG_DTYPE(weight) || th__dtype_mismatch(__func__, "indices", TH__B(indices), TH_I64)) return NULL;
    return TH__T(th__embedding_run(TH__FN(embedding), NULL, TH__B(weight), TH__B(indices)));
}

TH_API int TH_NAME(embedding_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *weight, const th_i64_tensor *indices)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(weight) || th__dtype_mismatch(__func__, "indices", TH__B(indices), TH_I64))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(embedding_out), "NULL out");
    return th__out_status(th__embedding_run(TH__FN(embedding_out), TH__B(out), TH__B(weight), TH__B(indices)));
}

TH_API TH_NAME(tensor) *TH_NAME(rope)(const TH_NAME(tensor) *x, const TH_NAME(tensor) *cosines,
                                      const TH_NAME(tensor) *sines, th_rope_layout layout)
{
    if (TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(cosines) || TH__WRONG_DTYPE(sines)) return NULL;
    return TH__T(th__rope_run(TH__FN(rope), NULL, TH__B(x), TH__B(cosines), TH__B(sines), (int)layout));
}

TH_API int TH_NAME(rope_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *x, const TH_NAME(tensor) *cosines,
                             const TH_NAME(tensor) *sines, th_rope_layout layout)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(x) || TH__WRONG_DTYPE(cosines) || TH__WRONG_DTYPE(sines))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(rope_out), "NULL out");
    return th__out_status(th__rope_run(TH__FN(rope_out), TH__B(out), TH__B(x), TH__B(cosines), TH__B(sines), (int)layout));
}

TH_API TH_NAME(tensor) *TH_NAME(nll_loss)(const TH_NAME(tensor) *input, const th_i64_tensor *target,
                                          const TH_NAME(tensor) *weight, const th_loss_opts *opts)
{
    if (TH__WRONG_DTYPE(input) || th__dtype_mismatch(__func__, "target", TH__B(target), TH_I64) ||
        TH__WRONG_DTYPE(weight))
        return NULL;
    return TH__T(th__loss_run(TH__FN(nll_loss), false, NULL, TH__B(input), TH__B(target), TH__B(weight), opts));
}

TH_API int TH_NAME(nll_loss_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const th_i64_tensor *target,
                                 const TH_NAME(tensor) *weight, const th_loss_opts *opts)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(input) ||
        th__dtype_mismatch(__func__, "target", TH__B(target), TH_I64) || TH__WRONG_DTYPE(weight))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(nll_loss_out), "NULL out");
    return th__out_status(
        th__loss_run(TH__FN(nll_loss_out), false, TH__B(out), TH__B(input), TH__B(target), TH__B(weight), opts));
}

TH_API TH_NAME(tensor) *TH_NAME(cross_entropy)(const TH_NAME(tensor) *input, const th_i64_tensor *target,
                                               const TH_NAME(tensor) *weight, const th_loss_opts *opts)
{
    if (TH__WRONG_DTYPE(input) || th__dtype_mismatch(__func__, "target", TH__B(target), TH_I64) ||
        TH__WRONG_DTYPE(weight))
        return NULL;
    return TH__T(th__loss_run(TH__FN(cross_entropy), true, NULL, TH__B(input), TH__B(target), TH__B(weight), opts));
}

TH_API int TH_NAME(cross_entropy_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *input, const th_i64_tensor *target,
                                      const TH_NAME(tensor) *weight, const th_loss_opts *opts)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(input) ||
        th__dtype_mismatch(__func__, "target", TH__B(target), TH_I64) || TH__WRONG_DTYPE(weight))
        return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(cross_entropy_out), "NULL out");
    return th__out_status(
        th__loss_run(TH__FN(cross_entropy_out), true, TH__B(out), TH__B(input), TH__B(target), TH__B(weight), opts));
}

#endif /* definitions */
#endif /* TH_REAL_IS_FLOATING */
