#!/usr/bin/env python3
"""NumPy's quantile (its five methods), nansum, nanmean, nanmax, nanmin and PyTorch's median, nanmedian and
kthvalue (values and indices) in float64, the peers of ops/stats.h (tests/numpy/stats_peer.c).

    stats_peer.py write DIR   draws random cases (ops x dtypes x shapes of 0 to 3 dims x dim or all x keepdim x
                              input layout, with NaNs and ties in some) and for each writes DIR/<case>_x.npy (the
                              input, already rounded to the case's dtype, as float64) and _ref.npy: the peer's
                              result in float64 from those rounded values; for the ops with indices _idx.npy
                              (torch's, int64) and _eq.npy: how many elements of the row equal the chosen value
                              (NaN equal to NaN), since torch does not promise which of equal elements it names.
                              DIR/cases.txt lists "case op dtype dim keepdim layout q method k" (dim 99: all).

median and nanmedian are torch's (the lower of the two middles); their values are also checked here against
NumPy's quantile and nanquantile with method 'lower', which are the same numbers.
Exits 77 when numpy or torch cannot be imported (a skip).
"""
import os
import sys
import warnings

try:
    import numpy as np
    import torch
except ImportError:
    print("SKIP: numpy or torch cannot be imported by %s" % sys.executable)
    sys.exit(77)

OPS = ['median', 'nanmedian', 'quantile', 'kthvalue', 'nansum', 'nanmean', 'nanmax', 'nanmin']
METHODS = ['linear', 'lower', 'higher', 'nearest', 'midpoint']
DTYPES = {'f32': torch.float32, 'f64': torch.float64, 'f16': torch.float16, 'bf16': torch.bfloat16}
CASES_PER_OP = 70


def rounded(a, dtype):
    """a (float64 numpy) rounded to dtype, as float64 numpy."""
    return torch.from_numpy(np.ascontiguousarray(a)).to(DTYPES[dtype]).to(torch.float64).numpy()


def draw_input(rng, op, k):
    """A shape and values: ties (a few small integers) in some, NaNs in some, an empty dim now and then where the
    op has an answer for no elements."""
    ndim = int(rng.integers(0, 4))
    shape = [int(rng.integers(1, 8)) for _ in range(ndim)]
    if ndim > 0 and k % 9 == 4 and op in ('nansum', 'nanmean'):
        shape[int(rng.integers(0, ndim))] = 0
    if k % 3 == 0:
        x = rng.integers(-3, 4, size=shape).astype(np.float64)
    else:
        x = rng.standard_normal(shape) * 10.0 ** float(rng.integers(-2, 3))
    x = np.array(x, dtype=np.float64)
    if k % 4 != 0 and x.size > 0:
        x[rng.random(shape) < (0.6 if k % 8 == 1 else 0.2)] = np.nan
    return x


def reference(op, x, dim, keepdim, q, method, kth):
    """The peer's result (float64), and for the order statistics its indices; None when the peer refuses."""
    t = torch.from_numpy(x)
    axis = None if dim == 99 else dim
    if op in ('median', 'nanmedian'):
        f = torch.median if op == 'median' else torch.nanmedian
        if dim == 99:
            v = f(t).numpy()
            idx = None
        else:
            r = f(t, dim, keepdim)
            v, idx = r.values.numpy(), r.indices.numpy()
        npf = np.quantile if op == 'median' else np.nanquantile
        if x.size > 0:
            check = npf(x, 0.5, axis=axis, keepdims=keepdim and dim != 99, method='lower')
            assert np.array_equal(check, v, equal_nan=True), (op, x, dim)
        return v, idx
    if op == 'kthvalue':
        r = torch.kthvalue(t, kth, dim, keepdim)
        return r.values.numpy(), r.indices.numpy()
    if op == 'quantile':
        return np.asarray(np.quantile(x, q, axis=axis, keepdims=keepdim and dim != 99, method=METHODS[method])), None
    f = {'nansum': np.nansum, 'nanmean': np.nanmean, 'nanmax': np.nanmax, 'nanmin': np.nanmin}[op]
    return np.asarray(f(x, axis=axis, keepdims=keepdim and dim != 99)), None


def equal_count(x, dim, keepdim, v):
    """For each result element: how many elements of its row equal it (NaN equal to NaN)."""
    xs = np.moveaxis(x, dim, -1) if x.ndim > 0 else x.reshape(1)
    vv = np.asarray(v)
    if keepdim and x.ndim > 0:
        vv = np.squeeze(vv, axis=dim)
    vv = vv[..., None]
    same = (xs == vv) | (np.isnan(xs) & np.isnan(vv))
    cnt = same.sum(axis=-1).astype(np.int64)
    if keepdim and x.ndim > 0:
        cnt = np.expand_dims(cnt, dim)
    return cnt


def write(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(15)
    lines = []
    warnings.simplefilter('ignore')
    for op in OPS:
        for k in range(CASES_PER_OP):
            dt = list(DTYPES)[k % 4]
            while True:
                x = rounded(draw_input(rng, op, k), dt)
                order_dim = op in ('median', 'nanmedian', 'kthvalue')
                use_all = x.ndim > 0 and k % 5 == 2 and op != 'kthvalue'
                nd = max(x.ndim, 1)
                dim = 99 if use_all else int(rng.integers(-nd, nd))
                n = x.size if dim == 99 else (x.shape[dim] if x.ndim > 0 else 1)
                if n == 0 and (order_dim or op in ('quantile', 'nanmax', 'nanmin')):
                    continue
                break
            keepdim = bool(rng.integers(0, 2))
            layout = int(rng.integers(0, 4))
            q = float(rng.choice([0.0, 1.0, 0.5, 0.25, rng.random()])) if op == 'quantile' else 0.0
            method = k % 5 if op == 'quantile' else 0
            kth = int(rng.integers(1, n + 1)) if op == 'kthvalue' else 0
            ref, idx = reference(op, x, dim, keepdim, q, method, kth)
            name = 'c%03d_%s' % (len(lines), op)
            np.save(os.path.join(d, name + '_x.npy'), x)
            np.save(os.path.join(d, name + '_ref.npy'), np.asarray(ref, dtype=np.float64))
            if idx is not None:
                np.save(os.path.join(d, name + '_idx.npy'), np.asarray(idx, dtype=np.int64))
                np.save(os.path.join(d, name + '_eq.npy'), equal_count(x, dim, keepdim, ref))
            lines.append('%s %s %s %d %d %d %.17g %d %d' % (name, op, dt, dim, int(keepdim), layout, q, method, kth))
    with open(os.path.join(d, 'cases.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] != 'write':
        sys.exit('usage: stats_peer.py write DIR')
    sys.exit(write(sys.argv[2]))
