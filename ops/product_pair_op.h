/* ops/product_pair_op.h: one product of two tensors of this dtype with no other argument (inner, vdot, kron),
 * stamped per dtype and per product by products.h, as product_op.h is by linalg.h: the front doors are written
 * once here, the arithmetic once in products_erased.h (th__<op>).
 *
 * products.h defines before each inclusion:
 *   TH_OP          the product's name: inner gives th_f32_inner and th_f32_inner_out, defined through th__inner
 *
 * The forms (errors as products.h says at its top):
 *   th_<sfx>_<op>(a, b)              a new tensor, NULL on error
 *   th_<sfx>_<op>_out(out, a, b)     into out; 0 or a negative status
 * The definitions use products.h's TH_PRIVATE(pr_ops). */
#ifndef TH_NAME
#error "ops/product_pair_op.h is stamped per dtype through tensor_generic.h; include tensor.h instead"
#endif
#ifndef TH_OP
#error "ops/product_pair_op.h: define TH_OP (the product's name) before including it"
#endif

#ifndef TH__DEFINING

TH_API TH_NAME(tensor) *TH__OP_NAME()(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b);
TH_API int TH__OP_NAME(_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b);

#else /* definitions */

TH_API TH_NAME(tensor) *TH__OP_NAME()(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return NULL;
    return TH__T(TH__OP_PASTE(th__, TH_OP)(TH__OP_FN(), &TH_PRIVATE(pr_ops), NULL, TH__B(a), TH__B(b)));
}

TH_API int TH__OP_NAME(_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__OP_FN(_out), "NULL out");
    return th__out_status(
        TH__OP_PASTE(th__, TH_OP)(TH__OP_FN(_out), &TH_PRIVATE(pr_ops), TH__B(out), TH__B(a), TH__B(b)));
}

#endif /* definitions */

#undef TH_OP
