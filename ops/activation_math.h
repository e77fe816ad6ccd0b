/* ops/activation_math.h: the activation functions' mathematics, once, in double: the elementwise activations
 * of ops/activation.h (every floating dtype, rounded once from the double), the gated units of ops/nn_erased.h
 * (swiglu, geglu), and a device's kernels (the same text under nvcc, host and device). Not stamped: nothing here
 * depends on a dtype. Each function is the one torch.nn.functional defines, with its branches and special
 * values (softplus's threshold, NaN from silu(-inf)), arranged for accuracy where torch's arrangement cancels
 * (elu's e^x - 1 near 0 is expm1 here, gelu's 1 + tanh below): tests/numpy/act_torch.py checks torch's float64
 * results against the exact functions, and these against the same exact values. */
#ifndef TH_OPS_ACTIVATION_MATH_H
#define TH_OPS_ACTIVATION_MATH_H

#include <math.h>
#include <stdbool.h>

#if defined(__CUDACC__)
#define TH__ACT static inline __host__ __device__
#else
#define TH__ACT static inline
#endif

/* x * sigmoid(t) = x / (1 + e^-t), or below t = 0 x e^t / (1 + e^t): e^-t overflows from t = -709.78 while
 * the result is still a double down to about t = -745 (torch's x / (1 + e^-x) gives -0 there). */
TH__ACT double th__act_x_sigmoid(double x, double t)
{
    if (t < 0) {
        const double e = exp(t);
        return x * e / (1.0 + e);
    }
    return x / (1.0 + exp(-t));
}

/* x * sigmoid(x): -inf gives NaN (-inf * 0), as torch's silu does. */
TH__ACT double th__act_silu(double x) { return th__act_x_sigmoid(x, x); }

/* log(1 + e^(beta x)) / beta, and x itself where beta x > threshold (torch's softplus; the defaults are beta 1,
 * threshold 20). log1p keeps the tail of large negative x, where 1 + e^(beta x) would round to 1. */
TH__ACT double th__act_softplus(double x, double beta, double threshold)
{
    return x * beta > threshold ? x : log1p(exp(x * beta)) / beta;
}

/* x * tanh(log(1 + e^x)), as torch's mish (no threshold: above 20 both give x to double precision). */
TH__ACT double th__act_mish(double x) { return x * tanh(log1p(exp(x))); }

/* x above 0, else alpha * (e^x - 1) (expm1: no cancellation near 0). */
TH__ACT double th__act_elu(double x, double alpha) { return x > 0 ? x : alpha * expm1(x); }

/* scale * elu(x, alpha) with the constants of Klambauer et al. (2017), as torch's selu. */
TH__ACT double th__act_selu(double x)
{
    const double alpha = 1.6732632423543772848170429916717, scale = 1.0507009873554804934193349852946;
    return scale * th__act_elu(x, alpha);
}

/* x above 0, else x * negative_slope (NaN stays NaN). */
TH__ACT double th__act_leaky_relu(double x, double negative_slope) { return x > 0 ? x : x * negative_slope; }

/* min(max(x + 3, 0), 6) / 6: torch's order of operations. NaN gives NaN (fmin/fmax would drop it). */
TH__ACT double th__act_relu6_of_shift(double x)
{
    double t = x + 3.0;
    if (t != t) return t;
    return t < 0 ? 0.0 : t > 6.0 ? 6.0 : t;
}
TH__ACT double th__act_hardsigmoid(double x) { return th__act_relu6_of_shift(x) / 6.0; }
TH__ACT double th__act_hardswish(double x) { return x * th__act_relu6_of_shift(x) / 6.0; }

/* GELU's tanh approximation, 0.5 x (1 + tanh(k)), k = sqrt(2 / pi) (x + 0.044715 x^3), as x sigmoid(2k), the
 * same function without the cancellation of 1 + tanh(k) for negative x: torch's arrangement loses all of its
 * digits below x = -7 (its float64 result is -0 where the value is -4e-16 and below), this one keeps them down
 * to the underflow. What is left is the rounding of k, which the tail magnifies |2k| times (docs/nn.md). */
TH__ACT double th__act_gelu_tanh(double x)
{
    const double k = 0.79788456080286535588 * (x + 0.044715 * x * x * x); /* sqrt(2 / pi) */
    return th__act_x_sigmoid(x, 2.0 * k);
}

#undef TH__ACT
#endif
