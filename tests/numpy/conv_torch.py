#!/usr/bin/env python3
"""PyTorch's conv1d, conv2d, conv3d, max_pool2d, avg_pool2d, pad, conv_transpose1d, conv_transpose2d, unfold
(the library's im2col), fold (col2im) and conv_transpose3d in float64, the peer of ops/conv.h (tests/numpy/conv_torch.c).

    conv_torch.py write DIR   draws random cases (ops x dtypes x shapes x stride, padding, dilation, groups,
                              depthwise, bias on and off, batched and not) and for each writes DIR/<case>_x.npy
                              (the input, already rounded to the case's dtype, as float64), _w.npy and _b.npy
                              where the case has them, _ref.npy: torch's result in float64 from those rounded
                              values, and for the convolutions _mag.npy: the same convolution of |x|, |w| and |b|
                              (the scale the products' rounding errors are measured against), and for max_pool2d
                              _idx.npy: torch's indices; for fold, _mag.npy is the fold of |x|. DIR/cases.txt lists
                              "case op dtype groups has_b layout s0 s1 s2 p0 p1 p2 d0 d1 d2 k0 k1", and for
                              the transposed convolutions, unfold and fold five more: "op0 op1 os0 os1 op2"
                              (output_padding; fold's output size).

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

OPS = ['conv1d', 'conv2d', 'conv3d', 'max_pool2d', 'avg_pool2d', 'pad', 'conv_transpose1d', 'conv_transpose2d',
       'unfold', 'fold', 'conv_transpose3d']
MODES = ['constant', 'reflect', 'replicate', 'circular']
DTYPES = {'f32': torch.float32, 'f64': torch.float64, 'f16': torch.float16, 'bf16': torch.bfloat16}
CASES_PER = {'conv1d': 25, 'conv2d': 40, 'conv3d': 12, 'max_pool2d': 25, 'avg_pool2d': 25, 'pad': 32,
             'conv_transpose1d': 30, 'conv_transpose2d': 40, 'unfold': 25, 'fold': 25,
             'conv_transpose3d': 20}


def rounded(a, dtype):
    """a (float64 numpy) rounded to dtype, as float64 torch."""
    return torch.from_numpy(np.ascontiguousarray(a)).to(DTYPES[dtype]).to(torch.float64)


def conv_case(rng, op, k):
    nsp = int(op[4])
    groups = int(rng.integers(1, 4))
    depthwise = k % 6 == 5
    cg = 1 if depthwise else int(rng.integers(1, 9 if nsp < 3 else 4))
    c = cg * groups
    o = groups * (1 if depthwise else int(rng.integers(1, 6)))
    ks = [int(rng.integers(1, 4 if nsp < 3 else 3)) for _ in range(nsp)]
    st = [int(rng.integers(1, 4)) for _ in range(nsp)]
    di = [int(rng.integers(1, 3)) for _ in range(nsp)]
    pa = [int(rng.integers(0, 3)) for _ in range(nsp)]
    top = {1: 40, 2: 14, 3: 7}[nsp]
    ins = [int(rng.integers(max(1, di[i] * (ks[i] - 1) + 1 - 2 * pa[i]), top + 1)) for i in range(nsp)]
    batched = k % 4 != 1
    shape = ([int(rng.integers(1, 4))] if batched else []) + [c] + ins
    return groups, c, o, cg, ks, st, di, pa, shape, batched


def write_pad(d, rng, name, dt, k, lines):
    """A pad case: mode k % 4; torch 1.13's non-constant modes take (N, C, spatial) inputs padded over every
    spatial dim; constant takes any shape and negative pads (crops). Its line: "case pad dtype mode npad value
    layout pads..."."""
    mode = MODES[k % 4]
    while True:
        if mode == 'constant':
            ndim = int(rng.integers(1, 5))
            shape = [int(rng.integers(1, 7)) for _ in range(ndim)]
            npad = 2 * int(rng.integers(1, ndim + 1))
            pads = [int(rng.integers(-2, 4)) for _ in range(npad)]
        else:
            nsp = int(rng.integers(1, 4))
            shape = [int(rng.integers(1, 3)), int(rng.integers(1, 3))] + [int(rng.integers(2, 7)) for _ in range(nsp)]
            npad = 2 * nsp
            pads = [int(rng.integers(-1 if mode == 'circular' else 0, 4)) for _ in range(npad)]
        x = rounded(rng.standard_normal(shape), dt)
        value = float(rng.standard_normal()) if k % 8 < 4 else 0.0
        try:
            ref = F.pad(x, pads, mode=mode, value=value) if mode == 'constant' else F.pad(x, pads, mode=mode)
        except (RuntimeError, IndexError, NotImplementedError, ValueError):
            continue  # a pad this mode cannot take (wider than the dim): draw again
        if mode == 'constant':
            ref = F.pad(x, pads, mode=mode, value=float(rounded(np.array(value), dt)))
        break
    np.save(os.path.join(d, name + '_x.npy'), x.numpy())
    np.save(os.path.join(d, name + '_ref.npy'), ref.numpy())
    lines.append(' '.join(str(v) for v in [name, 'pad', dt, k % 4, npad, repr(value), k % 4] + pads))


def write_transposed(d, rng, name, op, dt, k, lines):
    """A conv_transpose1d/2d/3d case (groups, depthwise, output_padding below the stride or the dilation, padding
    that crops, bias on and off, batched and not) or an unfold / fold case (kernel, stride, padding, dilation;
    fold sums the overlaps), with the line described above."""
    pad3 = lambda v, z: list(v) + [z] * (3 - len(v))
    groups, has_b, opad, osz = 0, 0, [0, 0, 0], [0, 0]
    batched = k % 4 != 1
    if op.startswith('conv_transpose'):
        nsp = int(op[-2])
        groups = int(rng.integers(1, 4))
        depthwise = k % 6 == 5
        cg = 1 if depthwise else int(rng.integers(1, 7 if nsp < 3 else 4))
        og = 1 if depthwise else int(rng.integers(1, 5 if nsp < 3 else 3))
        ks = [int(rng.integers(1, 5 if nsp < 3 else 4)) for _ in range(nsp)]
        st = [int(rng.integers(1, 4)) for _ in range(nsp)]
        di = [int(rng.integers(1, 3)) for _ in range(nsp)]
        ins = [int(rng.integers(1, {1: 20, 2: 9, 3: 5}[nsp])) for _ in range(nsp)]
        opad = [int(rng.integers(0, max(st[i], di[i]))) for i in range(nsp)]
        pa = []
        for i in range(nsp):  # padding that leaves at least one output element
            full = (ins[i] - 1) * st[i] + di[i] * (ks[i] - 1) + opad[i] + 1
            pa.append(int(rng.integers(0, min(3, (full - 1) // 2) + 1)))
        x = rounded(rng.standard_normal(([int(rng.integers(1, 4))] if batched else []) + [cg * groups] + ins), dt)
        w = rounded(rng.standard_normal([cg * groups, og] + ks), dt)
        has_b = int(k % 3 != 0)
        b = rounded(rng.standard_normal([og * groups]), dt) if has_b else None
        fn = getattr(F, op)
        xb = x if batched else x.unsqueeze(0)
        kw = dict(stride=st, padding=pa, output_padding=opad, groups=groups, dilation=di)
        ref = fn(xb, w, b, **kw)
        mag = fn(xb.abs(), w.abs(), b.abs() if b is not None else None, **kw)
        np.save(os.path.join(d, name + '_w.npy'), w.numpy())
        if b is not None:
            np.save(os.path.join(d, name + '_b.npy'), b.numpy())
        kk = [0, 0]
        opad = opad + [0] * (3 - nsp)
    else:
        ks = [int(rng.integers(1, 4)) for _ in range(2)]
        st = [int(rng.integers(1, 4)) for _ in range(2)]
        di = [int(rng.integers(1, 3)) for _ in range(2)]
        pa = [int(rng.integers(0, 3)) for _ in range(2)]
        ins = [int(rng.integers(max(1, di[i] * (ks[i] - 1) + 1 - 2 * pa[i]), 12)) for i in range(2)]
        c = int(rng.integers(1, 4))
        n = int(rng.integers(1, 3))
        kw = dict(kernel_size=ks, dilation=di, padding=pa, stride=st)
        if op == 'unfold':
            x = rounded(rng.standard_normal([n, c] + ins), dt)
            ref = F.unfold(x, **kw)
            mag = None
        else:
            blocks = [(ins[i] + 2 * pa[i] - di[i] * (ks[i] - 1) - 1) // st[i] + 1 for i in range(2)]
            x = rounded(rng.standard_normal([n, c * ks[0] * ks[1], blocks[0] * blocks[1]]), dt)
            ref = F.fold(x, ins, **kw)
            mag = F.fold(x.abs(), ins, **kw)
            osz = ins
        if not batched:
            x = x[0]
        kk = ks
    if not batched:
        ref = ref[0]
        mag = mag[0] if mag is not None else None
    np.save(os.path.join(d, name + '_x.npy'), x.numpy())
    np.save(os.path.join(d, name + '_ref.npy'), ref.numpy())
    if mag is not None:
        np.save(os.path.join(d, name + '_mag.npy'), mag.numpy())
    lines.append(' '.join(str(v) for v in [name, op, dt, groups, has_b, k % 4] + pad3(st, 0) + pad3(pa, 0) +
                          pad3([v if v != 1 or k % 2 else 0 for v in di], 0) + kk + opad[:2] + osz + opad[2:]))


def write(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(16)
    lines = []
    case = 0
    for op in OPS:
        for dt in DTYPES:
            for k in range(CASES_PER[op]):
                name = 'c%d' % case
                has_b = 0
                if op == 'pad':
                    write_pad(d, rng, name, dt, k, lines)
                    case += 1
                    continue
                if op in OPS[6:]:
                    write_transposed(d, rng, name, op, dt, k, lines)
                    case += 1
                    continue
                if op.startswith('conv'):
                    groups, c, o, cg, ks, st, di, pa, shape, batched = conv_case(rng, op, k)
                    x = rounded(rng.standard_normal(shape), dt)
                    w = rounded(rng.standard_normal([o, cg] + ks), dt)
                    has_b = int(k % 3 != 0)
                    b = rounded(rng.standard_normal([o]), dt) if has_b else None
                    fn = getattr(F, op)
                    xb = x if batched else x.unsqueeze(0)
                    ref = fn(xb, w, b, stride=st, padding=pa, dilation=di, groups=groups)
                    mag = fn(xb.abs(), w.abs(), b.abs() if b is not None else None, stride=st, padding=pa,
                             dilation=di, groups=groups)
                    if not batched:
                        ref, mag = ref[0], mag[0]
                    np.save(os.path.join(d, name + '_w.npy'), w.numpy())
                    if b is not None:
                        np.save(os.path.join(d, name + '_b.npy'), b.numpy())
                    np.save(os.path.join(d, name + '_mag.npy'), mag.numpy())
                    kk = [0, 0]
                else:
                    groups = 0
                    batched = k % 4 != 1
                    ks = [int(rng.integers(1, 5)) for _ in range(2)]
                    st = [int(rng.integers(1, 4)) if k % 3 else 0 for _ in range(2)]
                    di = [int(rng.integers(1, 3)) if op == 'max_pool2d' else 1 for _ in range(2)]
                    pa = [int(rng.integers(0, ks[i] // 2 + 1)) for i in range(2)]
                    ins = [int(rng.integers(di[i] * (ks[i] - 1) + 1, 20)) for i in range(2)]
                    shape = ([int(rng.integers(1, 3))] if batched else []) + [int(rng.integers(1, 5))] + ins
                    x = rounded(rng.standard_normal(shape) * 3, dt)
                    sts = [s if s else ks[i] for i, s in enumerate(st)]
                    if op == 'max_pool2d':
                        ref, idx = F.max_pool2d(x, ks, sts, pa, di, return_indices=True)
                        np.save(os.path.join(d, name + '_idx.npy'), idx.numpy())
                    else:
                        ref = F.avg_pool2d(x, ks, sts, pa)
                    kk = ks
                np.save(os.path.join(d, name + '_x.npy'), x.numpy())
                np.save(os.path.join(d, name + '_ref.npy'), ref.numpy())
                pad3 = lambda v, z: list(v) + [z] * (3 - len(v))
                lines.append(' '.join(str(v) for v in [name, op, dt, groups, has_b, k % 4] + pad3(st, 0) +
                                      pad3(pa, 0) + pad3([v if v != 1 or k % 2 else 0 for v in di], 0) + kk))
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
