#!/usr/bin/env python3
"""The .npy files of NumPy against th_tensor_load_npy / th_tensor_save_npy (tests/numpy/npy_files.c).

    npy_files.py write DIR   NumPy writes DIR/<case>.npy for every dtype the library shares with NumPy, in C and
                             Fortran order, both byte orders, format versions 1.0, 2.0 and 3.0, 0-d, empty and
                             16-d; beside each, DIR/<case>.bin holds the same values as raw little-endian C-order
                             bytes, and DIR/cases.txt lists "case dtype expect_mapped ndim sizes...".
    npy_files.py check DIR   loads every file the C side wrote, DIR/out/<case>.npy, and compares it with what
                             DIR/out/cases.txt says it holds: "<case> <source case> <how>", how being same, T
                             (transposed: NumPy sees Fortran order) or step (every other element of dim 0).

Exits 77 when NumPy cannot be imported (a skip, as meson counts it).
"""
import os
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: NumPy cannot be imported by %s" % sys.executable)
    sys.exit(77)

DTYPES = {  # the library's name: NumPy's type
    'bool': 'b1', 'u8': 'u1', 'i8': 'i1', 'i16': 'i2', 'i32': 'i4', 'i64': 'i8',
    'f16': 'f2', 'f32': 'f4', 'f64': 'f8', 'c64': 'c8', 'c128': 'c16',
}


def values(name, shape, seed):
    """Deterministic values of dtype name, with the hard floats (inf, nan, -0, subnormals) among them."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    t = np.dtype(DTYPES[name])
    if t.kind == 'b':
        a = rng.integers(0, 2, n).astype(bool)
    elif t.kind in 'iu':
        info = np.iinfo(t)
        a = rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
    else:
        a = rng.standard_normal(n) * 1e3
        special = [np.inf, -np.inf, np.nan, -0.0, 5e-324, 1e-40]
        a[:min(n, len(special))] = special[:n]
        if t.kind == 'c':
            a = a + 1j * (rng.standard_normal(n) * 7)
        a = a.astype(t)
    return a.reshape(shape)


def cases():
    """(case name, array as written, version, expect the load to be zero-copy)."""
    out = []
    for name in DTYPES:
        for order in 'CF':
            for bo in '<>':
                t = np.dtype(DTYPES[name])
                if t.itemsize == 1 and bo == '>':
                    continue
                a = values(name, (3, 4, 5), sum(map(ord, name + order + bo)))
                a = np.asarray(a, dtype=t.newbyteorder(bo) if t.itemsize > 1 else t, order=order)
                native = bo == ('<' if sys.byteorder == 'little' else '>') or t.itemsize == 1
                out.append(('%s_%s_%s' % (name, order, 'le' if bo == '<' else 'be'), a, None, native))
        out.append(('%s_0d' % name, values(name, (), 7), None, True))
        out.append(('%s_empty' % name, values(name, (0, 3), 8), None, False))
    for v in (1, 2, 3):
        out.append(('f32_v%d' % v, values('f32', (2, 3), 9), (v, 0), True))
    sixteen = (1, 2, 1, 2, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 1, 3)
    out.append(('f64_16d', values('f64', sixteen, 10), None, True))
    out.append(('i32_16d_F', np.asfortranarray(values('i32', sixteen, 11)), None, True))
    return out


def canonical(a):
    """The values as the C side keeps them: little-endian, C order."""
    return np.ascontiguousarray(a.astype(a.dtype.newbyteorder('<')))


def write(d):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'cases.txt'), 'w') as index:
        for name, a, version, mapped in cases():
            path = os.path.join(d, name + '.npy')
            if version is None:
                np.save(path, a)
            else:
                with open(path, 'wb') as f:
                    np.lib.format.write_array(f, a, version=version)
            canonical(a).tofile(os.path.join(d, name + '.bin'))
            lib = next(k for k, v in DTYPES.items() if np.dtype(v).kind == a.dtype.kind and
                       np.dtype(v).itemsize == a.dtype.itemsize)
            index.write('%s %s %d %d %s\n' % (name, lib, int(mapped), a.ndim, ' '.join(map(str, a.shape))))
    return 0


def check(d):
    sources = {name: a for name, a, _, _ in cases()}
    failures = checked = 0
    with open(os.path.join(d, 'out', 'cases.txt')) as index:
        for line in index:
            case, source, how = line.split()
            want = sources[source]
            if how == 'T':
                want = want.T
            elif how == 'step':
                want = want[::2]
            got = np.load(os.path.join(d, 'out', case + '.npy'))
            checked += 1
            good = (got.dtype == want.dtype.newbyteorder('=') and got.shape == want.shape and
                    np.array_equal(got, want, equal_nan=want.dtype.kind in 'fc') and
                    got.flags.f_contiguous == want.flags.f_contiguous)  # the order np.save would choose
            if not good:
                failures += 1
                print('FAIL: %s (%s of %s): %s %s, wanted %s %s' % (case, how, source, got.dtype, got.shape,
                                                                     want.dtype, want.shape))
    print('npy_files.py: NumPy %s loaded %d files written by th_tensor_save_npy, %d failures' %
          (np.__version__, checked, failures))
    return 1 if failures or not checked else 0


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('write', 'check'):
        print(__doc__)
        sys.exit(2)
    sys.exit(write(sys.argv[2]) if sys.argv[1] == 'write' else check(sys.argv[2]))
