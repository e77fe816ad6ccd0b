#!/usr/bin/env python3
"""safetensors files of the reference package (PyPI's `safetensors`) against th_safetensors_* (safetensors_files.c).

    safetensors_files.py write DIR   the package writes DIR/<file>.safetensors (its numpy front end for every
                                     dtype NumPy has, its torch front end for bf16), and for every tensor
                                     DIR/<file>.<n>.bin (raw little-endian C-order bytes); DIR/cases.txt lists
                                     "T file n name dtype ndim sizes..." and "M file hexkey hexvalue" lines.
    safetensors_files.py check DIR   loads what the C side wrote, DIR/out/<file>.safetensors (the same tensors
                                     and metadata) and DIR/out/<file>_T.safetensors (every 2-d tensor transposed:
                                     a non-contiguous view written in C order), compares values, dtypes, shapes and
                                     metadata, and compares the bytes with the package's own save of the same
                                     arrays where the package is deterministic (metadata of at most one key: it
                                     keeps metadata in a hash map).

The package is imported from the environment or from $TH_SAFETENSORS_SITE, where `pip install --target` puts it
when it is missing. Exits 77 (a skip, as meson counts it) only when it can be neither imported nor installed.
"""
import os
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: NumPy cannot be imported by %s" % sys.executable)
    sys.exit(77)


def import_safetensors():
    site = os.environ.get('TH_SAFETENSORS_SITE')
    if site:
        sys.path.insert(0, site)
    try:
        import safetensors.numpy  # noqa: F401
        return True
    except ImportError:
        pass
    if not site:
        return False
    rc = subprocess.call([sys.executable, '-m', 'pip', 'install', '-q', '--disable-pip-version-check',
                          '--target', site, 'safetensors'], stdout=sys.stderr)
    if rc != 0:
        return False
    import importlib
    importlib.invalidate_caches()
    try:
        import safetensors.numpy  # noqa: F401,F811
        return True
    except ImportError:
        return False


if not import_safetensors():
    print("SKIP: the safetensors package cannot be imported or installed by %s" % sys.executable)
    sys.exit(77)

import safetensors  # noqa: E402
import safetensors.numpy as stn  # noqa: E402

try:
    import torch
    import safetensors.torch as stt
except ImportError:
    torch = None

NP = {'bool': 'b1', 'u8': 'u1', 'i8': 'i1', 'i16': 'i2', 'i32': 'i4', 'i64': 'i8',
      'f16': 'f2', 'f32': 'f4', 'f64': 'f8', 'c64': 'c8'}
SIXTEEN = (1, 2, 1, 2, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 1, 3)


def values(name, shape, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape)) if shape else 1
    t = np.dtype(NP[name])
    if t.kind == 'b':
        a = rng.integers(0, 2, n).astype(bool)
    elif t.kind in 'iu':
        info = np.iinfo(t)
        a = rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
    else:
        a = rng.standard_normal(n) * 1e3
        special = [np.inf, -np.inf, np.nan, -0.0, 1e-40]
        a[:min(n, len(special))] = special[:n]
        if t.kind == 'c':
            a = a + 1j * (rng.standard_normal(n) * 7)
        a = a.astype(t)
    return a.reshape(shape)


def files():
    """{file: (front end, {name: array}, metadata)}; arrays are NumPy's, bf16 ones torch's."""
    out = {}
    arrays = {}
    for k, name in enumerate(NP):
        arrays[name + '.w'] = values(name, (3, 4), k)
        arrays[name + '.scalar'] = values(name, (), k + 20)
        arrays[name + '.empty'] = values(name, (2, 0, 3), k + 40)
    arrays['sixteen'] = values('f64', SIXTEEN, 99)
    out['np_all'] = ('numpy', arrays, {'format': 'np'})
    out['np_nometa'] = ('numpy', {'x': values('f32', (5,), 1), 'y': values('u8', (7,), 2)}, None)
    out['np_meta'] = ('numpy', {'w': values('i16', (2, 3), 3)},
                      {'format': 'np', 'note': 'quote " backslash \\ newline \n tab \t', 'na\u00efve': '\u2603 \U0001f600',
                       'empty': ''})
    if torch is not None:
        g = torch.Generator().manual_seed(5)
        bf = {'bf.w': (torch.randn(4, 6, generator=g) * 100).to(torch.bfloat16),
              'bf.scalar': torch.tensor(1.5, dtype=torch.bfloat16),
              'bf.empty': torch.zeros((0, 2), dtype=torch.bfloat16),
              'f16': torch.randn(3, generator=g).to(torch.float16),
              'i64': torch.arange(5, dtype=torch.int64)}
        bf['bf.w'][0, :3] = torch.tensor([float('inf'), float('-inf'), -0.0])
        out['pt_bf16'] = ('torch', bf, {'format': 'pt'})
    return out


def raw(a):
    if torch is not None and isinstance(a, torch.Tensor):
        if a.dtype == torch.bfloat16:
            return a.contiguous().view(torch.int16).numpy().astype('<i2').tobytes()
        return a.contiguous().numpy().tobytes()
    return np.ascontiguousarray(a.astype(a.dtype.newbyteorder('<'))).tobytes()


def libname(a):
    if torch is not None and isinstance(a, torch.Tensor):
        return {torch.bfloat16: 'bf16', torch.float16: 'f16', torch.int64: 'i64'}[a.dtype]
    return next(k for k, v in NP.items() if np.dtype(v) == a.dtype)


def save(front, path, arrays, meta):
    (stt if front == 'torch' else stn).save_file(arrays, path, metadata=meta)


def write(d):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'cases.txt'), 'w') as index:
        for f, (front, arrays, meta) in files().items():
            save(front, os.path.join(d, f + '.safetensors'), arrays, meta)
            for n, (name, a) in enumerate(sorted(arrays.items())):
                with open(os.path.join(d, '%s.%d.bin' % (f, n)), 'wb') as out:
                    out.write(raw(a))
                index.write('T %s %d %s %s %d %s\n' % (f, n, name, libname(a), len(a.shape),
                                                      ' '.join(str(int(s)) for s in a.shape)))
            for k, v in (meta or {}).items():
                index.write('M %s %s %s\n' % (f, k.encode().hex() or '-', v.encode().hex() or '-'))
    print('safetensors_files.py: safetensors %s wrote %d files%s' %
          (safetensors.__version__, len(files()), '' if torch is not None else ' (no torch: no bf16 file)'))
    return 0


def same(got, want):
    if torch is not None and isinstance(want, torch.Tensor):
        return got.dtype == want.dtype and tuple(got.shape) == tuple(want.shape) and raw(got) == raw(want)
    return (got.dtype == want.dtype and got.shape == want.shape and
            np.array_equal(got, want, equal_nan=want.dtype.kind in 'fc'))


def check(d):
    failures = checked = identical = 0
    for f, (front, arrays, meta) in files().items():
        for suffix in ('', '_T'):
            path = os.path.join(d, 'out', f + suffix + '.safetensors')
            want = {k: (v.T if suffix and len(v.shape) == 2 else v) for k, v in arrays.items()}
            got = (stt if front == 'torch' else stn).load_file(path)
            with safetensors.safe_open(path, framework='numpy' if front == 'numpy' else 'pt') as sf:
                got_meta = sf.metadata()
            checked += 1
            bad = [k for k in want if k not in got or not same(got[k], want[k])]
            if set(got) != set(want) or bad or got_meta != meta:
                failures += 1
                print('FAIL: %s: tensors %s differ, names %s / %s, metadata %r / %r' %
                      (path, bad, sorted(got), sorted(want), got_meta, meta))
            if meta is None or len(meta) <= 1:
                ref = os.path.join(d, 'ref_' + f + suffix + '.safetensors')
                save(front, ref, {k: (v.contiguous() if hasattr(v, 'contiguous') else v.copy(order='C'))
                                  for k, v in want.items()}, meta)
                with open(ref, 'rb') as a, open(path, 'rb') as b:
                    if a.read() != b.read():
                        failures += 1
                        print('FAIL: %s is not byte-identical to the package\'s save of the same arrays (%s)' %
                              (path, ref))
                    else:
                        identical += 1
    print('safetensors_files.py: safetensors %s (NumPy %s%s) loaded %d files written by th_safetensors_save, '
          '%d byte-identical to its own, %d failures' %
          (safetensors.__version__, np.__version__, ', torch ' + torch.__version__ if torch is not None else '',
           checked, identical, failures))
    return 1 if failures or not checked else 0


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('write', 'check'):
        print(__doc__)
        sys.exit(2)
    sys.exit(write(sys.argv[2]) if sys.argv[1] == 'write' else check(sys.argv[2]))
