/* ops/product_op.h: one matrix product, stamped per dtype and per product by linalg.h, as binary_op.h is by
 * pointwise.h: every product gets the same front doors from this one text.
 *
 * linalg.h defines before each inclusion:
 *   TH_OP          the product's name: mm gives th_f32_mm and th_f32_mm_out
 *   TH_MM_KIND     its shape rule in linalg_erased.h: TH__MM_DOT, _MV, _MM, _BMM, _MATMUL or _OUTER
 *   TH_MM_BIAS     (optional) a fused form beta*bias + alpha*product (addmm, for mm's kind): the added
 *                  tensor's name in the docs and errors ("C"); it gets an _inplace form (into bias) too
 *
 * The forms (a and b as the product takes them; errors as linalg.h says at its top):
 *   th_<sfx>_<op>(a, b)                                  a new tensor
 *   th_<sfx>_<op>_out(out, a, b)                         into out
 * or, fused:
 *   th_<sfx>_<op>(bias, a, b, beta, alpha)               a new tensor
 *   th_<sfx>_<op>_out(out, bias, a, b, beta, alpha)      into out
 *   th_<sfx>_<op>_inplace(bias, a, b, beta, alpha)       into bias
 * The definitions use linalg.h's TH_PRIVATE(mm_run) and mm_new. */
#ifndef TH_NAME
#error "ops/product_op.h is stamped per dtype through tensor_generic.h; include tensor.h instead"
#endif
#ifndef TH_OP
#error "ops/product_op.h: define TH_OP (the product's name) before including it"
#endif
#ifndef TH_MM_KIND
#error "ops/product_op.h: define TH_MM_KIND (TH__MM_MM, ...) before including it"
#endif

#ifndef TH__DEFINING

#ifndef TH_MM_BIAS
TH_API TH_NAME(tensor) *TH__OP_NAME()(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b);
TH_API int TH__OP_NAME(_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b);
#else
TH_API TH_NAME(tensor) *TH__OP_NAME()(const TH_NAME(tensor) *bias, const TH_NAME(tensor) *a,
                                      const TH_NAME(tensor) *b, real beta, real alpha);
TH_API int TH__OP_NAME(_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *bias, const TH_NAME(tensor) *a,
                             const TH_NAME(tensor) *b, real beta, real alpha);
TH_API int TH__OP_NAME(_inplace)(TH_NAME(tensor) *bias, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b,
                                 real beta, real alpha);
#endif

#else /* definitions */

#ifndef TH_MM_BIAS
TH_API TH_NAME(tensor) *TH__OP_NAME()(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b)
{
    const real one = TH_PRIVATE(from_i64)(1);
    return TH_PRIVATE(mm_new)(TH__OP_FN(), TH_MM_KIND, NULL, false, a, b, one, one);
}

TH_API int TH__OP_NAME(_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b)
{
    const real one = TH_PRIVATE(from_i64)(1);
    return TH_PRIVATE(mm_run)(TH__OP_FN(_out), TH_MM_KIND, true, out, NULL, false, a, b, one, one, NULL);
}

#else
TH_API TH_NAME(tensor) *TH__OP_NAME()(const TH_NAME(tensor) *bias, const TH_NAME(tensor) *a,
                                      const TH_NAME(tensor) *b, real beta, real alpha)
{
    return TH_PRIVATE(mm_new)(TH__OP_FN(), TH_MM_KIND, bias, true, a, b, beta, alpha);
}

TH_API int TH__OP_NAME(_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *bias, const TH_NAME(tensor) *a,
                             const TH_NAME(tensor) *b, real beta, real alpha)
{
    return TH_PRIVATE(mm_run)(TH__OP_FN(_out), TH_MM_KIND, true, out, bias, true, a, b, beta, alpha, NULL);
}

TH_API int TH__OP_NAME(_inplace)(TH_NAME(tensor) *bias, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b,
                                 real beta, real alpha)
{
    if (!bias) return th__fail(TH_ERR_INVALID, TH__OP_FN(_inplace), "NULL %s", TH_MM_BIAS);
    return TH_PRIVATE(mm_run)(TH__OP_FN(_inplace), TH_MM_KIND, true, bias, bias, true, a, b, beta, alpha, NULL);
}
#endif

#endif /* definitions */

#undef TH_OP
#undef TH_MM_KIND
#undef TH_MM_BIAS
