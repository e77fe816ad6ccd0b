#!/usr/bin/env python3
"""The .npz archives of NumPy against th_npz_open / th_npz_get / th_npz_save (tests/numpy/npz_files.c).

    npz_files.py write DIR   NumPy writes DIR/savez.npz (np.savez), DIR/compressed.npz (np.savez_compressed),
                             both holding every dtype the library shares with NumPy in C and Fortran order and
                             both byte orders, 0-d, empty and 16-d arrays, and DIR/many.npz (np.savez of 65536
                             arrays: Python writes ZIP64 end records). Beside them, DIR/<archive>.<member>.bin holds
                             each member's values as raw little-endian C-order bytes, and DIR/cases.txt lists
                             "archive member dtype compressed expect_mapped ndim sizes...".
    npz_files.py check DIR   reads every archive the C side wrote, DIR/out/<name>.npz, listed in DIR/out/cases.txt
                             as "<name> <source archive> <how>" (how: stored, deflated or zip64): zipfile's testzip()
                             finds no bad member, the compression is what was asked for, a stored member's data
                             starts at a multiple of 64 bytes, and np.load gives the source archive's arrays (and
                             each <member>_T the transposed array, which NumPy sees in Fortran order); of many.npz's
                             65536 members, every 256th and the last (np.load takes a millisecond each).

Exits 77 when NumPy cannot be imported (a skip, as meson counts it).
"""
import os
import struct
import sys
import zipfile

try:
    import numpy as np
except ImportError:
    print("SKIP: NumPy cannot be imported by %s" % sys.executable)
    sys.exit(77)

DTYPES = {  # the library's name: NumPy's type
    'bool': 'b1', 'u8': 'u1', 'i8': 'i1', 'i16': 'i2', 'i32': 'i4', 'i64': 'i8',
    'f16': 'f2', 'f32': 'f4', 'f64': 'f8', 'c64': 'c8', 'c128': 'c16',
}
# The ZIP64 archive's member count: 65536 (past the 16-bit count, so Python writes ZIP64 end records); under
# valgrind tests/run.sh asks for fewer (TH_NPZ_MANY), and zipfile's threshold is lowered to match, so the archive
# still has ZIP64 end records: the whole count costs 10 minutes of CPU there.
MANY = int(os.environ.get('TH_NPZ_MANY', '65536'))


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


def arrays():
    """The members of savez.npz and compressed.npz, by name."""
    out = {}
    for k, name in enumerate(DTYPES):
        t = np.dtype(DTYPES[name])
        for order in 'CF':
            for bo in '<>':
                if t.itemsize == 1 and bo == '>':
                    continue
                a = values(name, (3, 4, 5), 100 * k + ord(order) + ord(bo))
                a = np.asarray(a, dtype=t.newbyteorder(bo) if t.itemsize > 1 else t, order=order)
                out['%s_%s_%s' % (name, order, 'le' if bo == '<' else 'be')] = a
        out['%s_0d' % name] = values(name, (), 7 + k)
        out['%s_empty' % name] = values(name, (0, 3), 8 + k)
    sixteen = (1, 2, 1, 2, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 1, 3)
    out['f64_16d'] = values('f64', sixteen, 10)
    out['i32_16d_F'] = np.asfortranarray(values('i32', sixteen, 11))
    return out


def many():
    return {'m%05d' % i: np.int64(i * 7 - 3) for i in range(MANY)}


def canonical(a):
    """The values as the C side keeps them: little-endian, C order."""
    return np.ascontiguousarray(a.astype(a.dtype.newbyteorder('<')))


def data_offset(path, info):
    """Where a member's bytes begin: after its local header, whose extra field may differ from the central one."""
    with open(path, 'rb') as f:
        f.seek(info.header_offset)
        head = f.read(30)
        nlen, xlen = struct.unpack('<HH', head[26:30])
        return info.header_offset + 30 + nlen + xlen


def write(d):
    os.makedirs(d, exist_ok=True)
    arrs = arrays()
    np.savez(os.path.join(d, 'savez.npz'), **arrs)
    np.savez_compressed(os.path.join(d, 'compressed.npz'), **arrs)
    if MANY < zipfile.ZIP_FILECOUNT_LIMIT:
        zipfile.ZIP_FILECOUNT_LIMIT = MANY - 1  # read when the end records are written: ZIP64 above it
    np.savez(os.path.join(d, 'many.npz'), **many())
    with open(os.path.join(d, 'cases.txt'), 'w') as index:
        for archive in ('savez', 'compressed'):
            path = os.path.join(d, archive + '.npz')
            with zipfile.ZipFile(path) as zf:
                for info in zf.infolist():
                    name = info.filename[:-4]
                    a = arrs[name]
                    canonical(a).tofile(os.path.join(d, '%s.%s.bin' % (archive, name)))
                    lib = next(k for k, v in DTYPES.items() if np.dtype(v).kind == a.dtype.kind and
                               np.dtype(v).itemsize == a.dtype.itemsize)
                    stored = info.compress_type == zipfile.ZIP_STORED
                    # Zero-copy where the data is native, aligned for its type in the file, and not empty.
                    with zf.open(info) as m:
                        major = m.read(8)[6]
                        hlen = (struct.unpack('<H', m.read(2))[0] if major == 1 else
                                struct.unpack('<I', m.read(4))[0])
                    start = data_offset(path, info) + (10 if major == 1 else 12) + hlen
                    native = a.dtype.byteorder in '=|' or a.dtype.byteorder == ('<' if sys.byteorder == 'little'
                                                                                  else '>')
                    mapped = stored and native and a.size > 0 and start % a.dtype.itemsize == 0
                    index.write('%s %s %s %d %d %d %s\n' % (archive, name, lib, int(not stored), int(mapped), a.ndim,
                                                            ' '.join(map(str, a.shape))))
    return 0


def check(d):
    sources = {'savez': arrays(), 'compressed': arrays(), 'many': many()}
    failures = checked = 0
    with open(os.path.join(d, 'out', 'cases.txt')) as index:
        for line in index:
            name, source, how = line.split()
            path = os.path.join(d, 'out', name + '.npz')
            want_all = sources[source]
            with zipfile.ZipFile(path) as zf:
                bad = zf.testzip()
                if bad is not None:
                    failures += 1
                    print('FAIL: %s: zipfile testzip() finds %s bad' % (name, bad))
                for info in zf.infolist():
                    wanted = zipfile.ZIP_DEFLATED if how == 'deflated' else zipfile.ZIP_STORED
                    if info.compress_type != wanted:
                        failures += 1
                        print('FAIL: %s: %s has compress_type %d' % (name, info.filename, info.compress_type))
                    if wanted == zipfile.ZIP_STORED and data_offset(path, info) % 64 != 0:
                        failures += 1
                        print('FAIL: %s: %s starts at %d' % (name, info.filename, data_offset(path, info)))
            with np.load(path) as got:
                names = set(got.files)
                expect = set(want_all) | {k + '_T' for k, v in want_all.items() if np.ndim(v) >= 2}
                if names != expect:
                    failures += 1
                    print('FAIL: %s: members %d, wanted %d' % (name, len(names), len(expect)))
                keys = sorted(names & expect)
                if source == 'many':  # np.load takes a millisecond a member: every 256th, the last, and the count
                    keys = keys[::256] + keys[-1:]
                for key in keys:
                    want = np.asarray(want_all[key[:-2]]).T if key.endswith('_T') else np.asarray(want_all[key])
                    a = got[key]
                    checked += 1
                    good = (a.dtype == want.dtype.newbyteorder('=') and a.shape == want.shape and
                            np.array_equal(a, want, equal_nan=want.dtype.kind in 'fc'))
                    if not good:
                        failures += 1
                        print('FAIL: %s: %s: %s %s, wanted %s %s' % (name, key, a.dtype, a.shape, want.dtype,
                                                                    want.shape))
    print('npz_files.py: NumPy %s loaded %d members of archives written by th_npz_save, %d failures' %
          (np.__version__, checked, failures))
    return 1 if failures or not checked else 0


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('write', 'check'):
        print(__doc__)
        sys.exit(2)
    sys.exit(write(sys.argv[2]) if sys.argv[1] == 'write' else check(sys.argv[2]))
