/* ops/products.h: einsum, tensordot, inner, vdot, trace, kron, cross and multi_dot for every dtype but bool.
 * Stamped per dtype through tensor_generic.h; each function is a thin front door to its one dtype-independent
 * definition in ops/products_erased.h, which does its arithmetic through this dtype's matmul, mul and sub. */
#if !defined(TH_REAL_IS_BOOL)

#ifndef TH__DEFINING

/* Every function here reads its operands at any strides (transposed, stepped, broadcast views) and writes a new
 * contiguous result (NULL on error) or, in the _out forms, into out, which must have exactly the result's shape and
 * dtype and may overlap the operands (0 or a negative status). Integer dtypes wrap as their matmul and mul do.
 * Errors: a NULL operand (TH_ERR_INVALID), another dtype (TH_ERR_DTYPE, naming the operand), device memory
 * (TH_ERR_DEVICE), shapes that do not fit (TH_ERR_SHAPE, naming the sizes), a dim out of range (TH_ERR_RANGE). */

/* Einstein summation over n operands (numpy.einsum, torch.einsum). equation holds one term of subscripts per
 * operand, separated by ',', and optionally "->" and the output's subscripts; subscripts are the letters a-z and
 * A-Z (one per dim; a letter repeated in a term takes that operand's diagonal) and at most one "..." per term
 * standing for the dims the letters do not name (aligned at the right across operands and broadcast). Without
 * "->" the output is the "..." dims followed by the letters that appear once, upper case first, each alphabetical.
 * A letter's size must agree across the operands, or be 1 there (broadcast). Letters not in the output are summed.
 * With 3 or more operands the pairs are contracted greedily, the cheapest (fewest multiply-adds) first; each pairwise
 * contraction is one batched matmul over permuted views of the operands, copied only where a group of dims cannot
 * be merged. The wrong number of terms, a character that is not a subscript, an output letter twice or in no
 * operand, and sizes that disagree are refused naming the term, letter or size. */
TH_API TH_NAME(tensor) *TH_NAME(einsum)(const char *equation, int n, const TH_NAME(tensor) *const *operands);
TH_API int TH_NAME(einsum_out)(TH_NAME(tensor) *out, const char *equation, int n,
                               const TH_NAME(tensor) *const *operands);
/* The last ndims dims of a contracted with the first ndims of b (numpy.tensordot(a, b, ndims)); the result has a's
 * other dims then b's. */
TH_API TH_NAME(tensor) *TH_NAME(tensordot)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, int64_t ndims);
TH_API int TH_NAME(tensordot_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b,
                                  int64_t ndims);
/* a's dims dims_a[0..n) contracted with b's dims_b[0..n) (negative dims count from the end), as
 * numpy.tensordot(a, b, (dims_a, dims_b)). */
TH_API TH_NAME(tensor) *TH_NAME(tensordot_axes)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, int n,
                                                const int *dims_a, const int *dims_b);
TH_API int TH_NAME(tensordot_axes_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b,
                                       int n, const int *dims_a, const int *dims_b);
/* The sum of a matrix's main diagonal (torch.trace; a rectangular one's leading square), 0-d, summed in the dtype
 * (numpy.trace(a, dtype=a.dtype)). */
TH_API TH_NAME(tensor) *TH_NAME(trace)(const TH_NAME(tensor) *a);
TH_API int TH_NAME(trace_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a);
/* The cross product of 3-vectors along dim (torch.linalg.cross: dim of the broadcast shape of a and b, -1 the
 * last; both must have size 3 there). */
TH_API TH_NAME(tensor) *TH_NAME(cross)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, int dim);
TH_API int TH_NAME(cross_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, int dim);
/* The product of n >= 2 matrices (numpy.linalg.multi_dot, torch.linalg.multi_dot); the first may be a vector (a
 * row) and the last one (a column), whose dims the result then drops. Multiplied in the order of fewest
 * multiply-adds (dynamic programming over the chain). */
TH_API TH_NAME(tensor) *TH_NAME(multi_dot)(int n, const TH_NAME(tensor) *const *tensors);
TH_API int TH_NAME(multi_dot_out)(TH_NAME(tensor) *out, int n, const TH_NAME(tensor) *const *tensors);

#else /* definitions */

static int TH_PRIVATE(pr_matmul)(th_tensor *out, const th_tensor *a, const th_tensor *b)
{
    return TH_NAME(matmul_out)(TH__T(out), (const TH_NAME(tensor) *)a, (const TH_NAME(tensor) *)b);
}
static int TH_PRIVATE(pr_mul)(th_tensor *out, const th_tensor *a, const th_tensor *b)
{
    return TH_NAME(mul_out)(TH__T(out), (const TH_NAME(tensor) *)a, (const TH_NAME(tensor) *)b);
}
static int TH_PRIVATE(pr_sub)(th_tensor *out, const th_tensor *a, const th_tensor *b)
{
    return TH_NAME(sub_out)(TH__T(out), (const TH_NAME(tensor) *)a, (const TH_NAME(tensor) *)b);
}
static int TH_PRIVATE(pr_fill_one)(th_tensor *t) { return TH_NAME(fill)(TH__T(t), TH_PRIVATE(from_i64)(1)); }
static const th__prod_ops TH_PRIVATE(pr_ops) = {TH_DT_ENUM, TH_PRIVATE(pr_matmul), TH_PRIVATE(pr_mul),
                                                 TH_PRIVATE(pr_sub), TH_PRIVATE(pr_fill_one)};

/* An array's element k of the wrong dtype: refused naming it ("tensor 1"), as cat does. */
static bool TH_PRIVATE(pr_wrong_array)(const char *fn, int n, const TH_NAME(tensor) *const *ts)
{
    for (int k = 0; ts && k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "tensor %d", k);
        if (th__dtype_mismatch(fn, name, TH__B(ts[k]), TH_DT_ENUM)) return true;
    }
    return false;
}

TH_API TH_NAME(tensor) *TH_NAME(einsum)(const char *equation, int n, const TH_NAME(tensor) *const *operands)
{
    if (TH_PRIVATE(pr_wrong_array)(__func__, n, operands)) return NULL;
    return TH__T(th__einsum(TH__FN(einsum), &TH_PRIVATE(pr_ops), NULL, equation, n,
                            operands, TH_PRIVATE(tensor_at)));
}

TH_API int TH_NAME(einsum_out)(TH_NAME(tensor) *out, const char *equation, int n,
                               const TH_NAME(tensor) *const *operands)
{
    if (TH__WRONG_DTYPE(out) || TH_PRIVATE(pr_wrong_array)(__func__, n, operands)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(einsum_out), "NULL out");
    return th__out_status(th__einsum(TH__FN(einsum_out), &TH_PRIVATE(pr_ops), TH__B(out), equation, n,
                                     operands, TH_PRIVATE(tensor_at)));
}

TH_API TH_NAME(tensor) *TH_NAME(tensordot)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, int64_t ndims)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return NULL;
    return TH__T(th__tensordot_n(TH__FN(tensordot), &TH_PRIVATE(pr_ops), NULL, TH__B(a), TH__B(b), ndims));
}

TH_API int TH_NAME(tensordot_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b,
                                  int64_t ndims)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(tensordot_out), "NULL out");
    return th__out_status(
        th__tensordot_n(TH__FN(tensordot_out), &TH_PRIVATE(pr_ops), TH__B(out), TH__B(a), TH__B(b), ndims));
}

TH_API TH_NAME(tensor) *TH_NAME(tensordot_axes)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, int n,
                                                const int *dims_a, const int *dims_b)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return NULL;
    return TH__T(
        th__tensordot(TH__FN(tensordot_axes), &TH_PRIVATE(pr_ops), NULL, TH__B(a), TH__B(b), n, dims_a, dims_b));
}

TH_API int TH_NAME(tensordot_axes_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b,
                                       int n, const int *dims_a, const int *dims_b)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(tensordot_axes_out), "NULL out");
    return th__out_status(th__tensordot(TH__FN(tensordot_axes_out), &TH_PRIVATE(pr_ops), TH__B(out), TH__B(a),
                                        TH__B(b), n, dims_a, dims_b));
}

TH_API TH_NAME(tensor) *TH_NAME(trace)(const TH_NAME(tensor) *a)
{
    if (TH__WRONG_DTYPE(a)) return NULL;
    return TH__T(th__trace(TH__FN(trace), &TH_PRIVATE(pr_ops), NULL, TH__B(a)));
}

TH_API int TH_NAME(trace_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(a)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(trace_out), "NULL out");
    return th__out_status(th__trace(TH__FN(trace_out), &TH_PRIVATE(pr_ops), TH__B(out), TH__B(a)));
}

TH_API TH_NAME(tensor) *TH_NAME(cross)(const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, int dim)
{
    if (TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return NULL;
    return TH__T(th__cross(TH__FN(cross), &TH_PRIVATE(pr_ops), NULL, TH__B(a), TH__B(b), dim));
}

TH_API int TH_NAME(cross_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b, int dim)
{
    if (TH__WRONG_DTYPE(out) || TH__WRONG_DTYPE(a) || TH__WRONG_DTYPE(b)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(cross_out), "NULL out");
    return th__out_status(th__cross(TH__FN(cross_out), &TH_PRIVATE(pr_ops), TH__B(out), TH__B(a), TH__B(b), dim));
}

TH_API TH_NAME(tensor) *TH_NAME(multi_dot)(int n, const TH_NAME(tensor) *const *tensors)
{
    if (TH_PRIVATE(pr_wrong_array)(__func__, n, tensors)) return NULL;
    return TH__T(th__multi_dot(TH__FN(multi_dot), &TH_PRIVATE(pr_ops), NULL, n, tensors, TH_PRIVATE(tensor_at)));
}

TH_API int TH_NAME(multi_dot_out)(TH_NAME(tensor) *out, int n, const TH_NAME(tensor) *const *tensors)
{
    if (TH__WRONG_DTYPE(out) || TH_PRIVATE(pr_wrong_array)(__func__, n, tensors)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, TH__FN(multi_dot_out), "NULL out");
    return th__out_status(
        th__multi_dot(TH__FN(multi_dot_out), &TH_PRIVATE(pr_ops), TH__B(out), n, tensors, TH_PRIVATE(tensor_at)));
}

#endif /* definitions */

/* ---- the products of two tensors and nothing else: each stamps product_pair_op.h's front doors ---- */

/* numpy.inner: the last dims of a and b contracted (shape a.shape[:-1] + b.shape[:-1]); a 0-d operand multiplies. */
#define TH_OP inner
#include "product_pair_op.h"
/* conj(a) . b of two vectors of one size (numpy.vdot, torch.vdot; no conjugation for real dtypes), 0-d. */
#define TH_OP vdot
#include "product_pair_op.h"
/* The Kronecker product (numpy.kron, torch.kron): the dims aligned at the right (the shorter operand's leading
 * sizes taken as 1), result size a_d * b_d, element [i * b_d + j] = a[i] * b[j] per dim; at most TH_MAX_DIMS / 2
 * dims. */
#define TH_OP kron
#include "product_pair_op.h"

#endif /* !TH_REAL_IS_BOOL */
