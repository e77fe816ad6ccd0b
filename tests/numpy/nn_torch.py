#!/usr/bin/env python3
"""PyTorch's softmax, log_softmax, layer_norm and RMSNorm in float64, the peer of ops/nn.h (tests/numpy/nn_torch.c).

    nn_torch.py write DIR   draws random cases (ops x dtypes x shapes x dims x weight/bias x special values) and
                            for each writes DIR/<case>_x.npy (the input, already rounded to the case's dtype, as
                            float64), _w.npy and _b.npy where the case has them, and _ref.npy: torch's result
                            computed in float64 from those rounded values. DIR/cases.txt lists
                            "case op dtype dim nn has_w has_b eps layout".

layer_norm's reference is its defining formula in float64 torch ops, checked against F.layer_norm (whose
float64 kernel rounds x * rstd first). torch 1.13 has no rms_norm: its reference is x / sqrt(mean(x^2) + eps) * w written in torch ops (as PyTorch
2.4's torch.nn.functional.rms_norm defines it). Exits 77 when torch cannot be imported (a skip).
"""
import os
import sys

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError:
    print("SKIP: torch cannot be imported by %s" % sys.executable)
    sys.exit(77)

OPS = ['softmax', 'log_softmax', 'layer_norm', 'rms_norm']
DTYPES = {'f32': torch.float32, 'f64': torch.float64, 'f16': torch.float16, 'bf16': torch.bfloat16}
CASES_PER = 40  # per op and dtype


def rounded(a, dtype):
    """a (float64 numpy) rounded to dtype, as float64 torch."""
    return torch.from_numpy(a).to(DTYPES[dtype]).to(torch.float64)


def write(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(16)
    lines = []
    case = 0
    for op in OPS:
        for dt in DTYPES:
            for k in range(CASES_PER):
                ndim = int(rng.integers(1, 5))
                shape = [int(rng.integers(1, 8)) for _ in range(ndim)]
                if k % 5 == 0:
                    shape[-1] = int(rng.integers(100, 3000))
                if k % 7 == 3:
                    shape[int(rng.integers(0, ndim))] = 1
                scale = [1.0, 4.0, 30.0][k % 3]
                x = rng.standard_normal(shape) * scale + rng.standard_normal()
                if op in ('softmax', 'log_softmax') and k % 4 == 1:
                    mask = rng.random(shape) < 0.2  # -inf elements (never a whole row unless it happens)
                    x[mask] = -np.inf
                xt = rounded(x, dt)
                dim = int(rng.integers(-ndim, ndim))
                nn = int(rng.integers(1, ndim + 1))
                ns = shape[ndim - nn:]
                eps = [1e-5, 1e-6, 0.1][k % 3]
                has_w = op in ('layer_norm', 'rms_norm') and k % 3 != 2
                has_b = op == 'layer_norm' and k % 4 != 3
                w = rounded(rng.standard_normal(ns), dt) if has_w else None
                b = rounded(rng.standard_normal(ns), dt) if has_b else None
                if op == 'softmax':
                    ref = torch.softmax(xt, dim)
                elif op == 'log_softmax':
                    ref = torch.log_softmax(xt, dim)
                elif op == 'layer_norm':
                    # The defining formula in float64 torch ops: F.layer_norm's float64 kernel computes
                    # x * rstd - mean * rstd, which loses x * rstd's last bits where rstd is large (a row of one
                    # element: rstd = 1/sqrt(eps)); it must agree with the formula to that precision.
                    dims = tuple(range(ndim - nn, ndim))
                    mean = xt.mean(dims, keepdim=True)
                    var = (xt - mean).pow(2).mean(dims, keepdim=True)
                    ref = (xt - mean) / torch.sqrt(var + eps)
                    if w is not None:
                        ref = ref * w
                    if b is not None:
                        ref = ref + b
                    lib = F.layer_norm(xt, ns, w, b, eps)
                    slack = 1e-12 * (1 + xt.abs().amax() / (eps ** 0.5))
                    assert torch.allclose(ref, lib, rtol=1e-12, atol=float(slack)), (case, (ref - lib).abs().max())
                else:
                    dims = tuple(range(ndim - nn, ndim))
                    ref = xt * torch.rsqrt(xt.pow(2).mean(dims, keepdim=True) + eps)
                    if w is not None:
                        ref = ref * w
                name = 'c%d' % case
                np.save(os.path.join(d, name + '_x.npy'), xt.numpy())
                np.save(os.path.join(d, name + '_ref.npy'), ref.numpy())
                if w is not None:
                    np.save(os.path.join(d, name + '_w.npy'), w.numpy())
                if b is not None:
                    np.save(os.path.join(d, name + '_b.npy'), b.numpy())
                lines.append('%s %s %s %d %d %d %d %.17g %d' % (name, op, dt, dim, nn, int(has_w), int(has_b),
                                                               eps, k % 4))
                case += 1
    with open(os.path.join(d, 'cases.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    if len(sys.argv) != 3 or sys.argv[1] != 'write':
        print(__doc__)
        return 2
    write(sys.argv[2])
    return 0


if __name__ == '__main__':
    sys.exit(main())
