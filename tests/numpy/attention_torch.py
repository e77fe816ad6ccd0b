#!/usr/bin/env python3
"""The peer of th_<sfx>_scaled_dot_product_attention (ops/attention.h; tests/numpy/attention_torch.c): torch 1.13
has no F.scaled_dot_product_attention (PyTorch 2.0 added it), so the reference is the formula PyTorch 2.x
documents for it, computed by torch in float64: softmax(q @ k^T * scale + mask) @ v, a bool mask turned into
-inf where false, is_causal as the mask tril(ones(L, S)).

    attention_torch.py write DIR   draws random cases (dtypes x batch shapes that broadcast x L, S, E, Ev x no
                                   mask, bool or float masks of broadcast shapes (some with -inf, some rows
                                   fully masked) x causal x scale) and for each writes DIR/<case>_q.npy, _k.npy,
                                   _v.npy (already rounded to the case's dtype, as float64), _m.npy (bool, or
                                   float64 rounded) where it has a mask, and _ref.npy: the formula in float64.
                                   DIR/cases.txt lists "case dtype mask causal scale layout" (mask: 0 none,
                                   1 bool, 2 float; scale 0: the default).

Exits 77 when torch cannot be imported (a skip).
"""
import math
import os
import sys

try:
    import numpy as np
    import torch
except ImportError:
    print("SKIP: torch cannot be imported by %s" % sys.executable)
    sys.exit(77)

DTYPES = {'f32': torch.float32, 'f64': torch.float64, 'f16': torch.float16, 'bf16': torch.bfloat16}


def rounded(a, dtype):
    """a (float64 numpy) rounded to dtype, as float64 torch."""
    return torch.from_numpy(np.ascontiguousarray(a)).to(DTYPES[dtype]).to(torch.float64)


def formula(q, k, v, mask, causal, scale):
    """PyTorch 2.x's documented formula for scaled_dot_product_attention, in float64."""
    L, S = q.shape[-2], k.shape[-2]
    s = (q * scale) @ k.transpose(-2, -1)
    if mask is not None and mask.dtype == torch.bool:
        s = s.masked_fill(~mask, float('-inf'))
    elif mask is not None:
        s = s + mask
    if causal:
        s = s.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float('-inf'))
    return torch.softmax(s, dim=-1) @ v


def main():
    if len(sys.argv) != 3 or sys.argv[1] != 'write':
        print(__doc__)
        return 2
    d = sys.argv[2]
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(2016)
    lines = []
    n = 0
    for dt in DTYPES:
        for k in range(30):
            # batch shapes of q, k, v: equal, or with size-1 dims and missing dims that broadcast
            nb = int(rng.integers(0, 3))
            full = [int(rng.integers(1, 4)) for _ in range(nb)]

            def batch_of():
                b = [s if rng.random() < 0.7 else 1 for s in full]
                return b[int(rng.integers(0, len(b) + 1)):] if rng.random() < 0.3 else b
            big = k % 10 == 9
            L = int(rng.integers(1, 12)) if not big else int(rng.integers(100, 200))
            S = int(rng.integers(1, 12)) if not big else int(rng.integers(130, 300))
            E = int(rng.integers(1, 9))
            Ev = int(rng.integers(1, 9))
            qa = rng.uniform(-2, 2, batch_of() + [L, E])
            ka = rng.uniform(-2, 2, batch_of() + [S, E])
            va = rng.uniform(-2, 2, batch_of() + [S, Ev])
            mask_kind = int(rng.integers(0, 3))
            causal = mask_kind == 0 and rng.random() < 0.5
            scale = 0.0 if rng.random() < 0.6 else float(rng.uniform(-1.5, 1.5))
            q, kk, v = rounded(qa, dt), rounded(ka, dt), rounded(va, dt)
            mask = None
            if mask_kind:
                mshape = [L, S]
                if rng.random() < 0.3:
                    mshape = [1, S]
                if rng.random() < 0.5 and nb:
                    mshape = [s if rng.random() < 0.5 else 1 for s in full] + mshape
                if mask_kind == 1:
                    mask = torch.from_numpy(rng.random(mshape) > 0.3)
                    if k % 3 == 0:
                        mask[..., 0, :] = False  # fully masked rows
                else:
                    ma = rng.uniform(-1, 1, mshape)
                    ma[rng.random(mshape) < 0.2] = -np.inf
                    if k % 3 == 0:
                        ma[..., 0, :] = -np.inf
                    mask = rounded(ma, dt)
            sc = scale if scale != 0 else 1 / math.sqrt(E)
            ref = formula(q, kk, v, mask, causal, sc)
            name = 'c%d' % n
            np.save(os.path.join(d, name + '_q.npy'), q.numpy())
            np.save(os.path.join(d, name + '_k.npy'), kk.numpy())
            np.save(os.path.join(d, name + '_v.npy'), v.numpy())
            if mask is not None:
                np.save(os.path.join(d, name + '_m.npy'), mask.numpy())
            np.save(os.path.join(d, name + '_ref.npy'), ref.numpy())
            lines.append('%s %s %d %d %.17g %d' % (name, dt, mask_kind, int(causal), scale, k % 3))
            n += 1
    with open(os.path.join(d, 'cases.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
