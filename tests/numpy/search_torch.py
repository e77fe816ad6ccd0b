#!/usr/bin/env python3
"""PyTorch's searchsorted, bucketize, histc, bincount, isin and isclose, and NumPy's histogram, isclose and
allclose (their defaults), the peer of ops/search.h (tests/numpy/search_torch.c).

    search_torch.py write DIR   draws random cases (shapes, ties from a small grid of values, NaNs and
                                infinities, both sides, N-d rows, empty operands) and for each writes
                                DIR/<case>_a.npy and _b.npy (the operands, in the case's dtype), _c.npy for a
                                third one (weights), _ref.npy (the peer's result) and _ref2.npy (histogram's
                                edges). DIR/cases.txt lists "case op dtype layout p1 p2 p3 p4": layout 1 asks the
                                C side for a transposed (Fortran-order) copy of the operands; p1..p4 are the op's
                                numbers (side, bins, min, max, minlength, invert, rtol, atol, equal_nan, whether
                                there is a range or weights).
Two references are torch's with a NaN rule of its own replaced (both differ inside torch 1.13 itself): histc
ignores NaNs (torch counts them in bin 0); isin finds NaN nowhere (torch's sorting path for larger inputs finds
it among NaNs, its elementwise path does not), and with NaN among test_elements the reference is numpy.isin.

Exits 77 when torch cannot be imported (a skip).
"""
import os
import sys

try:
    import numpy as np
    import torch
except ImportError:
    print("SKIP: torch cannot be imported by %s" % sys.executable)
    sys.exit(77)

NP = {'f32': np.float32, 'f64': np.float64, 'i32': np.int32, 'i64': np.int64, 'u8': np.uint8, 'i16': np.int16}


def save(d, name, a):
    np.save(os.path.join(d, name + '.npy'), np.ascontiguousarray(a))


def grid(rng, shape, dt, nan=False):
    """Values from a small grid (so ties happen), with NaNs and infinities for the float dtypes."""
    if dt in ('f32', 'f64'):
        a = np.array(rng.integers(-6, 7, size=shape), dtype=np.float64).reshape(shape)
        a *= 0.5
        if nan and a.size:
            m = np.array(rng.random(shape))
            a[m < 0.08] = np.nan
            a[(m >= 0.08) & (m < 0.12)] = np.inf
            a[(m >= 0.12) & (m < 0.14)] = -np.inf
        return a.astype(NP[dt])
    lo = 0 if dt == 'u8' else -8
    return np.array(rng.integers(lo, 9, size=shape)).astype(NP[dt])


def shape(rng, nd, top=6):
    return [int(rng.integers(0 if rng.random() < 0.1 else 1, top + 1)) for _ in range(nd)]


def main():
    if len(sys.argv) != 3 or sys.argv[1] != 'write':
        print(__doc__)
        return 2
    d = sys.argv[2]
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(15)
    lines = []
    k = 0

    def case(op, dt, layout, params, a, b=None, c=None, ref=None, ref2=None):
        nonlocal k
        name = 'c%03d' % k
        k += 1
        save(d, name + '_a', a)
        if b is not None:
            save(d, name + '_b', b)
        if c is not None:
            save(d, name + '_c', c)
        save(d, name + '_ref', ref)
        if ref2 is not None:
            save(d, name + '_ref2', ref2)
        p = list(params) + [0] * (4 - len(params))
        lines.append('%s %s %s %d %s' % (name, op, dt, layout, ' '.join(repr(float(x)) for x in p)))

    for i in range(48):  # searchsorted: 1-d or N-d sorted rows
        dt = ['f32', 'f64', 'i32', 'i64'][i % 4]
        nd = int(rng.integers(1, 4))
        lead = shape(rng, nd - 1, 4)
        m = int(rng.integers(0, 9))
        s = torch.sort(torch.from_numpy(grid(rng, lead + [m], dt, nan=i % 3 == 0)), dim=-1).values.numpy()
        vshape = lead + [int(rng.integers(0, 7))] if nd > 1 else shape(rng, int(rng.integers(0, 3)))
        v = grid(rng, vshape, dt, nan=True)
        right = i % 2
        ref = torch.searchsorted(torch.from_numpy(s), torch.from_numpy(v), right=bool(right)).numpy()
        case('searchsorted', dt, i // 4 % 2, [right], s, v, ref=ref)
    for i in range(24):  # bucketize
        dt = ['f32', 'f64', 'i64', 'i16'][i % 4]
        bnd = torch.sort(torch.from_numpy(grid(rng, [int(rng.integers(0, 9))], dt, nan=i % 3 == 0))).values.numpy()
        v = grid(rng, shape(rng, int(rng.integers(0, 4))), dt, nan=True)
        right = i // 2 % 2
        ref = torch.bucketize(torch.from_numpy(v), torch.from_numpy(bnd), right=bool(right)).numpy()
        case('bucketize', dt, i // 4 % 2, [right], v, bnd, ref=ref)
    for i in range(24):  # histc
        dt = ['f32', 'f64'][i % 2]
        x = (rng.standard_normal(shape(rng, int(rng.integers(1, 4)))) * 3).astype(NP[dt])
        if i % 4 == 1 and x.size:
            x.flat[0] = np.nan  # ignored: only with a given range (the data's would be NaN)
        bins = int(rng.integers(1, 12))
        lo, hi = (0.0, 0.0) if i % 4 in (0, 2) else (float(rng.integers(-5, 0)), float(rng.integers(0, 5)))
        if i % 8 == 6 and x.size:
            x[...] = 1.5  # one value: the range widened by 1
        # torch 1.13 counts a NaN in bin 0 (its conversion of NaN to an index); the library ignores NaNs, as
        # numpy.histogram does and as torch does values outside the range: the reference is torch's without them.
        ref = torch.histc(torch.from_numpy(x[~np.isnan(x)]), bins=bins, min=lo, max=hi).numpy()
        case('histc', dt, i // 2 % 2, [bins, lo, hi], x, ref=ref)
    for i in range(24):  # numpy.histogram: float64 data, a bin count, range or not, weights or not
        x = rng.standard_normal(shape(rng, int(rng.integers(1, 4)))) * 2
        if i % 6 == 5:
            x = np.round(x * 2) / 2  # values on edges
        bins = int(rng.integers(1, 12))
        has_range = i % 2
        rg = (float(rng.integers(-3, 0)) + 0.25, float(rng.integers(0, 3)) + 0.5) if has_range else None
        if has_range and x.size and i % 4 == 1:
            x.flat[0] = np.nan
        w = rng.standard_normal(x.shape) if i % 3 == 0 else None
        h, e = np.histogram(x, bins=bins, range=rg, weights=w)
        case('histogram', 'f64', i // 2 % 2, [bins, has_range, rg[0] if rg else 0, rg[1] if rg else 0], x,
             c=w, ref=h.astype(np.float64), ref2=e)
    for i in range(16):  # bincount
        dt = ['i64', 'i32', 'u8', 'i16'][i % 4]
        n = int(rng.integers(0, 30))
        x = rng.integers(0, 12, size=[n]).astype(NP[dt])
        minlength = int(rng.integers(0, 16)) if i % 3 else 0
        w = rng.standard_normal([n]) if i % 2 else None
        ref = torch.bincount(torch.from_numpy(x.astype(np.int64)), weights=None if w is None else torch.from_numpy(w),
                             minlength=minlength).numpy()
        case('bincount', dt, 0, [minlength, int(w is not None)], x, c=w, ref=ref)
    for i in range(16):  # isin
        dt = ['f32', 'f64', 'i32', 'i64'][i % 4]
        e = grid(rng, shape(rng, int(rng.integers(0, 4))), dt, nan=True)
        t = grid(rng, shape(rng, int(rng.integers(0, 3))), dt, nan=True)
        invert = i // 4 % 2
        ref = torch.isin(torch.from_numpy(e), torch.from_numpy(t), invert=bool(invert)).numpy()
        # NaN is in nothing (numpy.isin, and torch's elementwise path for small inputs); torch's sorting path for
        # larger ones finds a NaN among NaNs, and with a NaN among test_elements misplaces numbers too (2 found in
        # [3, -3, -1.5, nan, inf]): there NumPy is the reference.
        if dt in ('f32', 'f64') and np.isnan(t).any():
            ref = np.isin(e, t, invert=bool(invert))
        elif dt in ('f32', 'f64'):
            ref[np.isnan(e)] = bool(invert)
        case('isin', dt, i // 2 % 2, [invert], e, t, ref=ref)
    for i in range(24):  # torch.isclose: broadcast shapes, random tolerances, NaN and infinities
        dt = ['f32', 'f64'][i % 2]
        sh = shape(rng, int(rng.integers(1, 4)))
        sb = [1 if rng.random() < 0.3 else s for s in sh][int(rng.integers(0, len(sh) + 1)):]
        b = grid(rng, sb, dt, nan=True).astype(np.float64)
        a = (np.broadcast_to(b, sh) * (1 + rng.standard_normal(sh) * 10.0 ** rng.integers(-9, -1))
             + rng.standard_normal(sh) * 10.0 ** rng.integers(-10, -2))
        with np.errstate(invalid='ignore'):
            a[rng.random(sh) < 0.1] = np.nan
        a, b = a.astype(NP[dt]), b.astype(NP[dt])
        rtol, atol = float(10.0 ** rng.integers(-8, -1)), float(10.0 ** rng.integers(-9, -1))
        eqn = i // 2 % 2
        ref = torch.isclose(torch.from_numpy(a), torch.from_numpy(b), rtol=rtol, atol=atol, equal_nan=bool(eqn)).numpy()
        case('isclose', dt, i // 4 % 2, [rtol, atol, eqn], a, b, ref=ref)
    for i in range(12):  # numpy.isclose and numpy.allclose with their defaults (rtol 1e-5, atol 1e-8), float64
        sh = shape(rng, int(rng.integers(1, 3)))
        a = rng.standard_normal(sh)
        b = a * (1 + rng.standard_normal(sh) * 10.0 ** rng.integers(-8, -3)) + rng.standard_normal(sh) * 1e-9
        if i % 3 == 0 and a.size:
            a.flat[0], b.flat[0] = np.nan, np.nan
        eqn = i % 2
        case('np_isclose', 'f64', i // 2 % 2, [1e-5, 1e-8, eqn], a, b, ref=np.isclose(a, b, equal_nan=bool(eqn)))
        case('np_allclose', 'f64', 0, [1e-5, 1e-8, eqn], a, b,
             ref=np.array(np.allclose(a, b, equal_nan=bool(eqn))))
    with open(os.path.join(d, 'cases.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
