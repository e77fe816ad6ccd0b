#!/usr/bin/env python3
"""PyTorch 1.13's 1d and 3d pooling in float64, the peer of ops/conv.h's max_pool1d/3d, avg_pool1d/3d,
adaptive_avg_pool1d/3d and adaptive_max_pool1d/3d (tests/numpy/pool_torch.c), and the pooling options
(th_pool_opts' ceil_mode, count_exclude_pad, divisor_override) of max_pool1d/2d/3d and avg_pool1d/2d/3d.

    pool_torch.py write DIR   draws random cases (op x dtype x shape x kernel, stride (0: the default, the
                              kernel), padding up to half the kernel, dilation for max, output sizes for the
                              adaptive ops, batched and not, NaNs in some max inputs) and for each writes
                              DIR/<case>_x.npy (the input, already rounded to the case's dtype, as float64),
                              _ref.npy (torch's result in float64 from those values) and, for the max ops,
                              _idx.npy (torch's indices; -1 where an adaptive window holds several NaNs). DIR/cases.txt lists
                              "case op dtype layout k0 k1 k2 s0 s1 s2 p0 p1 p2 d0 d1 d2 ceil excl div" (the
                              adaptive ops' k is their output size; the last three th_pool_opts' ceil_mode,
                              count_exclude_pad and divisor_override, which the first cases leave 0 and the
                              option cases draw).

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

OPS = ['max_pool1d', 'max_pool3d', 'avg_pool1d', 'avg_pool3d', 'adaptive_avg_pool1d', 'adaptive_avg_pool3d',
       'adaptive_max_pool1d', 'adaptive_max_pool3d']
DTYPES = {'f32': torch.float32, 'f64': torch.float64, 'f16': torch.float16, 'bf16': torch.bfloat16}
CASES_PER = 14
OPT_OPS = ['max_pool1d', 'max_pool2d', 'max_pool3d', 'avg_pool1d', 'avg_pool2d', 'avg_pool3d']
OPT_CASES_PER = 16


def rounded(a, dtype):
    """a (float64 numpy) rounded to dtype, as float64 torch."""
    return torch.from_numpy(np.ascontiguousarray(a)).to(DTYPES[dtype]).to(torch.float64)


def several_nans(x, out_sizes, idx):
    """idx (torch's adaptive max indices for x) with -1 at each output whose window holds more than one NaN:
    torch 1.13 takes the window's last NaN there, the library (as its adaptive_max_pool2d) the first, so the
    C side checks only that the library's index is a NaN of the window's plane."""
    nsp = len(out_sizes)
    ins = x.shape[-nsp:]
    planes = x.reshape((-1,) + ins)
    flat = idx.reshape((-1,) + tuple(out_sizes))
    for p in range(planes.shape[0]):
        for cell in np.ndindex(*out_sizes):
            win = tuple(slice(c * n // m, -((-(c + 1) * n) // m)) for c, n, m in zip(cell, ins, out_sizes))
            if np.isnan(planes[p][win]).sum() > 1:
                flat[(p,) + cell] = -1
    return flat.reshape(idx.shape)


def write_options(d, rng, lines, case):
    """The option cases: ceil_mode on in half, and for the average count_include_pad off in half (crossed with
    ceil_mode) and a divisor_override in a quarter; strides that leave part windows, padding up to half the
    kernel, dilation for max; batched and not."""
    for op in OPT_OPS:
        nsp = int(op[-2])
        is_max = 'max' in op
        for dt in DTYPES:
            for k in range(OPT_CASES_PER):
                name = 'o%04d' % case
                batched = k % 4 != 1
                ceil = k % 2
                excl = 0 if is_max else (k // 2) % 2
                div = 0 if is_max or k % 8 not in (3, 4) else int(rng.integers(1, 12))
                top = {1: 24, 2: 12, 3: 7}[nsp]
                ks = [int(rng.integers(1, 5 if nsp < 3 else 4)) for _ in range(nsp)]
                st = [int(rng.integers(1, 4)) if k % 8 < 6 else 0 for _ in range(nsp)]
                di = [int(rng.integers(1, 3)) if is_max else 1 for _ in range(nsp)]
                pa = [int(rng.integers(0, ks[i] // 2 + 1)) for i in range(nsp)]
                # at least the (dilated) kernel: torch's avg_pool3d refuses an input smaller than the kernel
                ins = [int(rng.integers(di[i] * (ks[i] - 1) + 1, top + 1)) for i in range(nsp)]
                shape = ([int(rng.integers(1, 3))] if batched else []) + [int(rng.integers(1, 4))] + ins
                x = rounded(rng.standard_normal(shape) * 3, dt)
                xb = x if batched else x.unsqueeze(0)
                sts = [s if s else ks[i] for i, s in enumerate(st)]
                idx = None
                if is_max:
                    ref, idx = getattr(F, op)(xb, ks, sts, pa, di, ceil_mode=bool(ceil), return_indices=True)
                else:
                    ref = getattr(F, op if nsp > 1 else 'avg_pool1d')(
                        xb, ks, sts, pa, ceil_mode=bool(ceil), count_include_pad=not excl,
                        **({'divisor_override': div} if div and nsp > 1 else {}))
                    if div and nsp == 1:  # F.avg_pool1d takes no divisor_override: the 2d form over (L, 1)
                        ref = F.avg_pool2d(xb.unsqueeze(-1), ks + [1], sts + [1], pa + [0], ceil_mode=bool(ceil),
                                           count_include_pad=not excl, divisor_override=div).squeeze(-1)
                if not batched:
                    ref = ref[0]
                    idx = idx[0] if idx is not None else None
                np.save(os.path.join(d, name + '_x.npy'), x.numpy())
                np.save(os.path.join(d, name + '_ref.npy'), ref.numpy())
                if idx is not None:
                    np.save(os.path.join(d, name + '_idx.npy'), idx.numpy())
                pad3 = lambda v, z: list(v) + [z] * (3 - len(v))
                lines.append(' '.join(str(v) for v in [name, op, dt, k % 4] + pad3(ks, 0) + pad3(st, 0) +
                                      pad3(pa, 0) + pad3(di, 0) + [ceil, excl, div]))
                case += 1
    return case


def write(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(16)
    lines = []
    case = 0
    for op in OPS:
        nsp = int(op[-2])
        adaptive = op.startswith('adaptive')
        is_max = 'max' in op
        for dt in DTYPES:
            for k in range(CASES_PER):
                name = 'c%04d' % case
                batched = k % 4 != 1
                top = 24 if nsp == 1 else 7
                st, pa, di = [0] * nsp, [0] * nsp, [1] * nsp
                if adaptive:
                    ins = [int(rng.integers(1, top + 1)) for _ in range(nsp)]
                    ks = [int(rng.integers(1, top + 3)) for _ in range(nsp)]   # output sizes, some above the input
                else:
                    ks = [int(rng.integers(1, 5 if nsp == 1 else 4)) for _ in range(nsp)]
                    st = [int(rng.integers(1, 4)) if k % 3 else 0 for _ in range(nsp)]
                    di = [int(rng.integers(1, 3)) if is_max else 1 for _ in range(nsp)]
                    pa = [int(rng.integers(0, ks[i] // 2 + 1)) for i in range(nsp)]
                    ins = [int(rng.integers(di[i] * (ks[i] - 1) + 1, top + 1)) for i in range(nsp)]
                shape = ([int(rng.integers(1, 3))] if batched else []) + [int(rng.integers(1, 4))] + ins
                a = rng.standard_normal(shape) * 3
                if is_max and k % 5 == 4:
                    a[rng.random(shape) < 0.1] = np.nan
                x = rounded(a, dt)
                xb = x if batched else x.unsqueeze(0)
                idx = None
                if adaptive and is_max:
                    ref, idx = getattr(F, op)(xb, ks, return_indices=True)
                elif adaptive:
                    ref = getattr(F, op)(xb, ks)
                else:
                    sts = [s if s else ks[i] for i, s in enumerate(st)]
                    if is_max:
                        ref, idx = getattr(F, op)(xb, ks, sts, pa, di, return_indices=True)
                    else:
                        ref = getattr(F, op)(xb, ks, sts, pa)
                if not batched:
                    ref = ref[0]
                    idx = idx[0] if idx is not None else None
                if adaptive and is_max:
                    idx = several_nans(x.numpy(), ks, idx.numpy().copy())
                np.save(os.path.join(d, name + '_x.npy'), x.numpy())
                np.save(os.path.join(d, name + '_ref.npy'), ref.numpy())
                if idx is not None:
                    np.save(os.path.join(d, name + '_idx.npy'), np.asarray(idx))
                pad3 = lambda v, z: list(v) + [z] * (3 - len(v))
                lines.append(' '.join(str(v) for v in [name, op, dt, k % 4] + pad3(ks, 0) + pad3(st, 0) +
                                      pad3(pa, 0) + pad3([v if v != 1 or k % 2 else 0 for v in di], 0) +
                                      [0, 0, 0]))
                case += 1
    case = write_options(d, rng, lines, case)
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
