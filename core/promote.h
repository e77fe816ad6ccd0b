/* core/promote.h: type promotion, the dtype an op on operands of different dtypes computes in, by PyTorch's
 * rules (docs/core.md, "Type promotion").
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/promote.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* The smallest dtype both a and b convert to without leaving their kind's range: bool < integers < floating <
 * complex; within integers the wider, u8 with a signed type the next signed type that holds both (u8 + i8 is
 * i16); f16 with bf16 is f32; a complex with a floating type keeps the wider part (c64 + f64 is c128). Symmetric,
 * and a dtype with itself is itself. TH_DTYPE_INVALID, with TH_ERR_INVALID recorded, for a value that is no
 * th_dtype. Equal to torch.promote_types for all 144 pairs (tests/test_promote.c checks the table against
 * PyTorch). */
TH_API th_dtype th_promote_types(th_dtype a, th_dtype b);

/* The dtype an op on these n tensors returns, as torch.result_type: tensors with dims promote among
 * themselves; 0-d tensors count only where they are of a higher kind (an f64 0-d tensor makes an i32 tensor's
 * result floating, but an f64 0-d tensor with an f32 tensor gives f32, and a c128 0-d tensor with an f32
 * tensor gives c64). TH_DTYPE_INVALID, with TH_ERR_INVALID recorded, for n < 1 or a NULL tensor. */
TH_API th_dtype th_result_type(int n, const th_tensor *const *tensors);

#else /* TH__DEFINING */

/* The real dtype of a complex one's parts; f32 stands for "no floating part" of the integers and bool. */
static th_dtype th__part_of(th_dtype d)
{
    return d == TH_C128 ? TH_F64 : d == TH_C64 ? TH_F32 : d;
}

static th_dtype th__promote(th_dtype a, th_dtype b)
{
    if (a == b) return a;
    th_dtype_kind ka = th__dtype_traits[a].kind, kb = th__dtype_traits[b].kind;
    if (ka == TH_KIND_BOOL) return b;
    if (kb == TH_KIND_BOOL) return a;
    if (ka == TH_KIND_COMPLEX || kb == TH_KIND_COMPLEX) {
        /* The parts promote as reals; an integer brings no part of its own. */
        th_dtype pa = ka == TH_KIND_COMPLEX || ka == TH_KIND_FLOAT ? th__part_of(a) : TH_F32;
        th_dtype pb = kb == TH_KIND_COMPLEX || kb == TH_KIND_FLOAT ? th__part_of(b) : TH_F32;
        return th__promote(pa, pb) == TH_F64 ? TH_C128 : TH_C64;
    }
    if (ka == TH_KIND_FLOAT && kb == TH_KIND_FLOAT) {
        if ((a == TH_F16 && b == TH_BF16) || (a == TH_BF16 && b == TH_F16)) return TH_F32;
        return th__dtype_traits[a].size > th__dtype_traits[b].size ? a : b;
    }
    if (ka == TH_KIND_FLOAT) return a;
    if (kb == TH_KIND_FLOAT) return b;
    /* Two integers. u8 with a signed type: the signed type when it is wider, else i16. */
    if (ka == TH_KIND_UINT || kb == TH_KIND_UINT) {
        th_dtype s = ka == TH_KIND_UINT ? b : a;
        return th__dtype_traits[s].size > 1 ? s : TH_I16;
    }
    return th__dtype_traits[a].size > th__dtype_traits[b].size ? a : b;
}

TH_API th_dtype th_promote_types(th_dtype a, th_dtype b)
{
    if (!th__dtype_valid(a) || !th__dtype_valid(b)) {
        th__fail(TH_ERR_INVALID, "th_promote_types", "dtype %d is no th_dtype", (int)(th__dtype_valid(a) ? b : a));
        return TH_DTYPE_INVALID;
    }
    return th__promote(a, b);
}

/* PyTorch's combination of the dims' result (higher) with the 0-d tensors' (lower): the 0-d result counts
 * only when it is of a higher kind, and a complex 0-d result keeps a floating dims' result's precision. */
static th_dtype th__combine_categories(th_dtype higher, th_dtype lower)
{
    if (higher == TH_DTYPE_INVALID) return lower;
    if (lower == TH_DTYPE_INVALID) return higher;
    th_dtype_kind kh = th__dtype_traits[higher].kind, kl = th__dtype_traits[lower].kind;
    if (kh == TH_KIND_COMPLEX) return higher;
    if (kl == TH_KIND_COMPLEX) return kh == TH_KIND_FLOAT ? th__promote(higher, TH_C64) : lower;
    if (kh == TH_KIND_FLOAT) return higher;
    if (kh == TH_KIND_BOOL || kl == TH_KIND_FLOAT) return th__promote(higher, lower);
    return higher;
}

TH_API th_dtype th_result_type(int n, const th_tensor *const *tensors)
{
    const char *fn = "th_result_type";
    if (n < 1 || !tensors) {
        th__fail(TH_ERR_INVALID, fn, n < 1 ? "n is %d; at least one tensor is needed" : "NULL tensors (n %d)", n);
        return TH_DTYPE_INVALID;
    }
    th_dtype dims = TH_DTYPE_INVALID, zero = TH_DTYPE_INVALID;
    for (int i = 0; i < n; i++) {
        const th_tensor *t = tensors[i];
        if (!t) {
            th__fail(TH_ERR_INVALID, fn, "tensor %d is NULL", i);
            return TH_DTYPE_INVALID;
        }
        th_dtype *slot = t->ndim > 0 ? &dims : &zero;
        *slot = *slot == TH_DTYPE_INVALID ? t->dtype : th__promote(*slot, t->dtype);
    }
    return th__combine_categories(dims, zero);
}

#endif /* TH__DEFINING */
