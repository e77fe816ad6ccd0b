/* ops/activation.h: the elementwise activations of neural networks, for the floating dtypes: silu, mish, selu,
 * hardswish, hardsigmoid, gelu_tanh (GELU's tanh approximation; gelu itself is exact, in pointwise.h), and with
 * values: leaky_relu(x, negative_slope), elu(x, alpha), softplus(x, beta, threshold). Stamped per dtype through
 * pointwise.h, whose compute type and templates these use (each op through unary_op.h: the new-result, _out and
 * _inplace forms, the same broadcasting, out and aliasing rules as every elementwise op, and a device kernel).
 *
 * Every element is computed in double by ops/activation_math.h (the same functions swiglu and geglu use) and
 * rounded once to the dtype: an f32, f16 or bf16 result is the double result correctly rounded but in the rare
 * double-rounding case, an f64 result within a few ulps of the exact one (docs/nn.md gives the bounds). */

#if defined(TH_REAL_IS_FLOATING)
#ifdef TH__ELEMS
#include "activation_math.h"

TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(silu_elem)(TH_PRIVATE(ct) x) { return (TH_PRIVATE(ct))th__act_silu((double)x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(mish_elem)(TH_PRIVATE(ct) x) { return (TH_PRIVATE(ct))th__act_mish((double)x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(selu_elem)(TH_PRIVATE(ct) x) { return (TH_PRIVATE(ct))th__act_selu((double)x); }
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(hardswish_elem)(TH_PRIVATE(ct) x)
{
    return (TH_PRIVATE(ct))th__act_hardswish((double)x);
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(hardsigmoid_elem)(TH_PRIVATE(ct) x)
{
    return (TH_PRIVATE(ct))th__act_hardsigmoid((double)x);
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(gelu_tanh_elem)(TH_PRIVATE(ct) x)
{
    return (TH_PRIVATE(ct))th__act_gelu_tanh((double)x);
}
/* p: the values as the front doors took them, in double whatever the dtype (0.01 stays 0.01, not its float). */
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(leaky_relu_elem)(TH_PRIVATE(ct) x, const double *p)
{
    return (TH_PRIVATE(ct))th__act_leaky_relu((double)x, p[0]);
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(elu_elem)(TH_PRIVATE(ct) x, const double *p)
{
    return (TH_PRIVATE(ct))th__act_elu((double)x, p[0]);
}
TH__ELEM TH_PRIVATE(ct) TH_PRIVATE(softplus_elem)(TH_PRIVATE(ct) x, const double *p)
{
    return (TH_PRIVATE(ct))th__act_softplus((double)x, p[0], p[1]);
}
#endif

#if defined(TH__DEFINING)
/* The values each op refuses: a NaN or infinite slope or alpha would make every negative element NaN or
 * infinite; softplus divides by beta (0 refused) and compares with threshold (NaN refused). */
static int TH_PRIVATE(finite_value)(const char *fn, const char *name, double v)
{
    return isfinite(v) ? 0 : th__fail(TH_ERR_INVALID, fn, "%s is %g; it must be finite", name, v);
}
static int TH_PRIVATE(leaky_relu_check)(const char *fn, const double *p)
{
    return TH_PRIVATE(finite_value)(fn, "negative_slope", p[0]);
}
static int TH_PRIVATE(elu_check)(const char *fn, const double *p) { return TH_PRIVATE(finite_value)(fn, "alpha", p[0]); }
static int TH_PRIVATE(softplus_check)(const char *fn, const double *p)
{
    if (TH_PRIVATE(finite_value)(fn, "beta", p[0])) return th_last_status();
    if (p[0] == 0) return th__fail(TH_ERR_INVALID, fn, "beta is 0; softplus divides by it");
    if (p[1] != p[1]) return th__fail(TH_ERR_INVALID, fn, "threshold is NaN");
    return 0;
}
#endif

#if defined(TH__DEFINING) && defined(TH_REAL_IS_F32)
/* silu and gelu_tanh over contiguous f32 rows (and strided ones a block at a time): th__act_x_sigmoid's double
 * arithmetic, operation for operation, with core/vecmath.h's vectorised double exp (1 ulp, as libm's) for a
 * block instead of a libm call per element: the same float results (but where the two exps' last bits differ
 * across a rounding boundary of the float: rare, and both are then within 0.5 ulp and a hair), many times
 * faster (bench/nn_layers_run.sh). */
static TH__HOT void TH_PRIVATE(x_sigmoid_rows)(float *out, const float *in, int64_t n, bool gelu)
{
    double x[256], t[256], e[256];
    for (int64_t i = 0; i < n; i += 256) {
        const int64_t m = n - i < 256 ? n - i : 256;
        for (int64_t k = 0; k < m; k++) {
            const double v = in[i + k];
            x[k] = v;
            t[k] = gelu ? 2.0 * (0.79788456080286535588 * (v + 0.044715 * v * v * v)) : v;
            e[k] = -fabs(t[k]);
        }
        th__vec_exp_f64(e, e, m);
        for (int64_t k = 0; k < m; k++) out[i + k] = (float)((t[k] < 0 ? x[k] * e[k] : x[k]) / (1.0 + e[k]));
    }
}
static void TH_PRIVATE(silu_rows)(float *out, const float *in, int64_t n) { TH_PRIVATE(x_sigmoid_rows)(out, in, n, false); }
static void TH_PRIVATE(gelu_tanh_rows)(float *out, const float *in, int64_t n)
{
    TH_PRIVATE(x_sigmoid_rows)(out, in, n, true);
}
#endif

#define TH_OP silu
#define TH_OP_ROW_F32 TH_PRIVATE(silu_rows)
#include "unary_op.h"
#define TH_OP mish
#include "unary_op.h"
#define TH_OP selu
#include "unary_op.h"
#define TH_OP hardswish
#include "unary_op.h"
#define TH_OP hardsigmoid
#include "unary_op.h"
#define TH_OP gelu_tanh
#define TH_OP_ROW_F32 TH_PRIVATE(gelu_tanh_rows)
#include "unary_op.h"
#define TH_OP leaky_relu
#define TH_OP_NPARAMS 1
#define TH_OP_PARAMS double negative_slope
#define TH_OP_PARAM_VALUES negative_slope
#include "unary_op.h"
#define TH_OP elu
#define TH_OP_NPARAMS 1
#define TH_OP_PARAMS double alpha
#define TH_OP_PARAM_VALUES alpha
#include "unary_op.h"
#define TH_OP softplus
#define TH_OP_NPARAMS 2
#define TH_OP_PARAMS double beta, double threshold
#define TH_OP_PARAM_VALUES beta, threshold
#include "unary_op.h"
#endif
