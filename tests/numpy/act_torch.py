#!/usr/bin/env python3
"""The exact values of the activations of ops/activation.h, and PyTorch's float64 results checked against them:
the peer of tests/numpy/act_torch.c.

    act_torch.py write DIR   for each op (with its values) and dtype writes DIR/<case>_x.npy, the inputs already
                             rounded to the dtype (as float64), and DIR/<case>_ref.npy: each input's exact result
                             (mpmath, 50 digits) rounded to double, or torch's own result where the input or the
                             result is not finite (NaN, infinities, signed zeros: the definitions' edges, which the
                             library follows). DIR/cases.txt lists "case op dtype value0 value1".

The exact functions are torch.nn.functional's definitions (silu, mish, selu, hardswish, hardsigmoid, gelu with
approximate='tanh', leaky_relu, elu, softplus with beta and threshold); before writing anything, torch's float64
results must agree with them within a bound that allows torch's own arrangement its cancellations (elu's
exp(x) - 1 near 0, gelu's 1 + tanh in the negative tail): that shows the definitions here are torch's.
Exits 77 when torch or mpmath cannot be imported (a skip).
"""
import os
import sys

try:
    import mpmath
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    print("SKIP: %s cannot be imported by %s" % (e.name, sys.executable))
    sys.exit(77)

mpmath.mp.dps = 50
SELU_ALPHA = mpmath.mpf('1.6732632423543772848170429916717')
SELU_SCALE = mpmath.mpf('1.0507009873554804934193349852946')
SQRT_2_OVER_PI = mpmath.sqrt(2 / mpmath.pi)


def exact(op, x, p):
    """The op's exact value at the double x (an mpf), p its values as doubles."""
    x = mpmath.mpf(x)
    if op == 'silu':
        return x / (1 + mpmath.exp(-x))
    if op == 'mish':
        return x * mpmath.tanh(mpmath.log1p(mpmath.exp(x)))
    if op == 'selu':
        return SELU_SCALE * (x if x > 0 else SELU_ALPHA * mpmath.expm1(x))
    if op in ('hardswish', 'hardsigmoid'):
        t = min(max(x + 3, 0), 6) / 6
        return x * t if op == 'hardswish' else t
    if op == 'gelu_tanh':
        # x / 2 (1 + tanh(k)), as x / (1 + e^(-2k)): at 50 digits 1 + tanh(k) is 0 from k = -58 on
        k = SQRT_2_OVER_PI * (x + mpmath.mpf('0.044715') * x ** 3)
        return x / (1 + mpmath.exp(-2 * k))
    if op == 'leaky_relu':
        return x if x > 0 else x * mpmath.mpf(p[0])
    if op == 'elu':
        return x if x > 0 else mpmath.mpf(p[0]) * mpmath.expm1(x)
    if op == 'softplus':
        beta, threshold = p
        # the branch as torch takes it: on the rounded product
        if float(x) * beta > threshold:
            return x
        return mpmath.log1p(mpmath.exp(x * mpmath.mpf(beta))) / mpmath.mpf(beta)
    raise ValueError(op)


def torch_of(op, x, p):
    if op == 'gelu_tanh':
        return F.gelu(x, approximate='tanh')
    if op == 'leaky_relu':
        return F.leaky_relu(x, p[0])
    if op == 'elu':
        return F.elu(x, p[0])
    if op == 'softplus':
        return F.softplus(x, p[0], p[1])
    return getattr(F, op)(x)


# op, values: two of each op that takes values (softplus's beta 2 is exact in binary, so beta x is exact too;
# its threshold 3 puts inputs on both sides)
CASES = [('silu', ()), ('mish', ()), ('selu', ()), ('hardswish', ()), ('hardsigmoid', ()), ('gelu_tanh', ()),
         ('leaky_relu', (0.01,)), ('leaky_relu', (0.2,)), ('elu', (1.0,)), ('elu', (0.5,)),
         ('softplus', (1.0, 20.0)), ('softplus', (2.0, 3.0))]
DTYPES = {'f64': torch.float64, 'f32': torch.float32, 'f16': torch.float16, 'bf16': torch.bfloat16}
SPECIAL = [-np.inf, -1000.0, -750.0, -740.0, -720.0, -710.0, -100.0, -22.0, -21.0, -20.9, -20.8, -50.0, -30.0, -20.5, -10.0, -9.0, -7.5, -5.0, -3.0, -2.5, -1.0,
           -0.5, -1e-3, -1e-8, -1e-30, -0.0, 0.0, 1e-30, 1e-8, 1e-3, 0.5, 1.0, 1.5, 2.5, 3.0, 5.0, 9.5, 10.0,
           19.99, 20.0, 20.01, 30.0, 100.0, 1000.0, np.inf, np.nan]


def main():
    if len(sys.argv) != 3 or sys.argv[1] != 'write':
        print(__doc__)
        return 2
    d = sys.argv[2]
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(20261128)
    lines, worst = [], {}
    for dt, tdt in DTYPES.items():
        raw = np.concatenate([SPECIAL, rng.standard_normal(400) * 4, rng.uniform(-40, 40, 200),
                              -np.exp(rng.uniform(-20, 6, 100)), np.exp(rng.uniform(-20, 6, 100))])
        x = torch.from_numpy(raw).to(tdt).to(torch.float64)  # the inputs the dtype can hold
        for k, (op, p) in enumerate(CASES):
            name = '%s_%d_%s' % (op, k, dt)
            got = torch_of(op, x, p)
            ref = np.empty(len(x))
            for i, (xv, tv) in enumerate(zip(x.tolist(), got.tolist())):
                if not np.isfinite(xv) or not np.isfinite(tv):
                    ref[i] = tv
                    continue
                e = exact(op, xv, p)
                ref[i] = float(e)
                if ref[i] == 0:
                    ref[i] = tv if tv == 0 else ref[i]  # a zero's sign: torch's (mpmath's zero has none)
                # torch's arrangement, in double: a few ulps of the result, plus what its cancellations lose:
                # an ulp of the terms that cancel (x for gelu's 1 + tanh, alpha for elu's exp(x) - 1)
                scale = abs(xv) + abs(p[0] if op == 'elu' else 1.0 if op == 'selu' else 0.0) * 2
                err = abs(tv - ref[i])
                allowed = 8 * np.spacing(abs(ref[i])) + 2.3e-16 * scale
                if op == 'gelu_tanh' and xv < -7:
                    allowed = abs(ref[i]) + 2.3e-16 * scale  # torch gives -0 here: nothing is left
                if not err <= allowed:
                    print('act_torch.py: torch\'s %s%s(%r) = %r, the exact value %s: the definitions disagree'
                          % (op, p, xv, tv, mpmath.nstr(e, 20)))
                    return 1
                worst[op] = max(worst.get(op, 0.0), err / np.spacing(abs(ref[i])) if ref[i] else 0.0)
            np.save(os.path.join(d, name + '_x.npy'), x.numpy())
            np.save(os.path.join(d, name + '_ref.npy'), ref)
            lines.append('%s %s %s %r %r' % (name, op, dt, p[0] if p else 0.0, p[1] if len(p) > 1 else 0.0))
    with open(os.path.join(d, 'cases.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('act_torch.py: %d cases; torch float64 against the exact values, worst in ulps: %s'
          % (len(lines), ', '.join('%s %.3g' % kv for kv in sorted(worst.items()))))
    return 0


if __name__ == '__main__':
    sys.exit(main())
