#!/usr/bin/env python3
"""PyTorch 1.13's torch.nn.functional.interpolate, the peer of ops/resize.h (tests/numpy/interp_torch.c).

    interp_torch.py write DIR   draws cases: every mode (nearest, nearest-exact, linear, bilinear, bicubic,
                                trilinear) x align_corners (the modes that take it) x up- and downsampling x
                                an output size or scale factors (recompute_scale_factor off and on) x dtypes,
                                and for each writes DIR/<case>_x.npy (the input, already rounded to the case's
                                dtype, as float64), _ref.npy (torch's result in float64 from those rounded
                                values) and, for f32 cases, _ref32.npy (torch's own float32 result).
                                DIR/cases.txt lists "case mode dtype align recompute layout size0 size1 size2
                                scale0 scale1 scale2" (size 0: scale given; scale 0: size given).

Exits 77 when torch cannot be imported (a skip).
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

MODES = ['nearest', 'linear', 'bilinear', 'bicubic', 'trilinear', 'nearest-exact']  # th_interp_mode's order
DTYPES = {'f32': torch.float32, 'f64': torch.float64, 'f16': torch.float16, 'bf16': torch.bfloat16}
SCALES = [0.5, 0.6, 0.75, 1.1, 1.7, 2.0, 2.5, 3.0]


def rounded(a, dtype):
    """a (float64 numpy) rounded to dtype, as float64 torch."""
    return torch.from_numpy(np.ascontiguousarray(a)).to(DTYPES[dtype]).to(torch.float64)


def write(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(1616)
    lines = []
    case = 0
    for mi, mode in enumerate(MODES):
        nearest = mode.startswith('nearest')
        for align in ([False] if nearest else [False, True]):
            for k in range(12):
                nsp = {'linear': 1, 'bilinear': 2, 'bicubic': 2, 'trilinear': 3}.get(mode, 1 + k % 3)
                top = {1: 24, 2: 12, 3: 6}[nsp]
                ins = [int(rng.integers(1, top + 1)) for _ in range(nsp)]
                by_scale = k % 3 != 0
                recompute = by_scale and k % 3 == 2
                up = k % 2 == 0
                if by_scale:
                    sc = [float(rng.choice([s for s in SCALES if (s >= 1) == up])) for _ in range(nsp)]
                    sc = [max(s, 1.0 / ins[i] + 0.01) for i, s in enumerate(sc)]  # at least one output
                    sc = [float(np.float64(s)) for s in sc]
                    size = None
                else:
                    size = [int(rng.integers(ins[i], 2 * top + 1)) if up else int(rng.integers(1, ins[i] + 1))
                            for i in range(nsp)]
                    sc = None
                shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + ins
                for dt in DTYPES:
                    name = 'c%04d' % case
                    x = rounded(rng.standard_normal(shape) * 2, dt)
                    kw = {} if nearest else {'align_corners': align}
                    if by_scale:
                        kw['recompute_scale_factor'] = recompute
                        ref = F.interpolate(x, scale_factor=sc, mode=mode, **kw)
                    else:
                        ref = F.interpolate(x, size=size, mode=mode, **kw)
                    np.save(os.path.join(d, name + '_x.npy'), x.numpy())
                    np.save(os.path.join(d, name + '_ref.npy'), ref.numpy())
                    if dt == 'f32':
                        if by_scale:
                            r32 = F.interpolate(x.float(), scale_factor=sc, mode=mode, **kw)
                        else:
                            r32 = F.interpolate(x.float(), size=size, mode=mode, **kw)
                        np.save(os.path.join(d, name + '_ref32.npy'), r32.double().numpy())
                    sizes = (size or []) + [0] * (3 - len(size or []))
                    scales = (sc or []) + [0.0] * (3 - len(sc or []))
                    layout = case % 5
                    lines.append(' '.join([name, str(mi), dt, str(int(align)), str(int(recompute)), str(layout)] +
                                          [str(v) for v in sizes] + [repr(v) for v in scales]))
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
