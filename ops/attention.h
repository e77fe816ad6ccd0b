/* ops/attention.h: scaled_dot_product_attention. Stamped per dtype through tensor_generic.h for the floating
 * dtypes (f16 and bf16 compute in float); the front doors only check the dtypes, the work is done once for
 * every dtype in ops/attention_erased.h. docs/nn.md. */
#if defined(TH_REAL_IS_FLOATING)
#ifndef TH__DEFINING

/* torch.nn.functional.scaled_dot_product_attention (PyTorch 2.x, without dropout): softmax(q @ k^T * scale +
 * mask) @ v over the last two dims of q (..., L, E), k (..., S, E) and v (..., S, Ev), whose batch dims (and the
 * mask's beyond its last two) broadcast; the result is (batch..., L, Ev), a new contiguous tensor (NULL on
 * error), or written into out (this dtype, the result's shape, any strides; 0 or a negative status).
 * mask: NULL, a bool tensor (true: the key takes part) or one of this dtype (added to the scores),
 * broadcastable to (batch..., L, S). opts: NULL or a th_sdpa_opts (zero: the default): scale 0 is 1 / sqrt(E),
 * any other finite value is used as it is (negative too); is_causal masks key j of query i where j > i (the
 * upper-left tril(ones(L, S)), as PyTorch). Computed in blocks: memory O(block) per thread beyond contiguous
 * copies of the inputs that are not already so, never the L x S scores. A row whose scores are all masked
 * gives NaN (as PyTorch's formula); S == 0 gives zeros and L == 0 an empty result (as PyTorch); E == 0 gives
 * every score 0. Errors: NULL q, k or v, a mask together with is_causal, a NaN or infinite scale
 * (TH_ERR_INVALID); a tensor of another dtype, a mask neither bool nor this dtype (TH_ERR_DTYPE); q, k or v of
 * fewer than 2 dims, k's last size not E, v's size -2 not S, batch dims or a mask that do not broadcast
 * (TH_ERR_SHAPE); device memory (TH_ERR_DEVICE); an out of the wrong shape (TH_ERR_SHAPE), read-only
 * (TH_ERR_READ_ONLY) or whose elements overlap (TH_ERR_INVALID); out of memory (TH_ERR_NOMEM). */
TH_API TH_NAME(tensor) *TH_NAME(scaled_dot_product_attention)(const TH_NAME(tensor) *q, const TH_NAME(tensor) *k,
                                                              const TH_NAME(tensor) *v, const th_tensor *mask,
                                                              const th_sdpa_opts *opts);
TH_API int TH_NAME(scaled_dot_product_attention_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *q,
                                                     const TH_NAME(tensor) *k, const TH_NAME(tensor) *v,
                                                     const th_tensor *mask, const th_sdpa_opts *opts);

#else /* definitions */

TH_API TH_NAME(tensor) *TH_NAME(scaled_dot_product_attention)(const TH_NAME(tensor) *q, const TH_NAME(tensor) *k,
                                                              const TH_NAME(tensor) *v, const th_tensor *mask,
                                                              const th_sdpa_opts *opts)
{
    if (TH__WRONG_DTYPE(q) || TH__WRONG_DTYPE(k) || TH__WRONG_DTYPE(v)) return NULL;
    return TH__T(th__sdpa_run(TH__FN(scaled_dot_product_attention), NULL, TH__B(q), TH__B(k), TH__B(v), mask, opts));
}

TH_API int TH_NAME(scaled_dot_product_attention_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *q,
                                                     const TH_NAME(tensor) *k, const TH_NAME(tensor) *v,
                                                     const th_tensor *mask, const th_sdpa_opts *opts)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(q) || TH__WRONG_DTYPE(k) || TH__WRONG_DTYPE(v)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(scaled_dot_product_attention_out), "NULL out");
    return th__out_status(th__sdpa_run(TH__FN(scaled_dot_product_attention_out), TH__B(out), TH__B(q), TH__B(k),
                                       TH__B(v), mask, opts));
}

#endif /* TH__DEFINING */
#endif /* TH_REAL_IS_FLOATING */
