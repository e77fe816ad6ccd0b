#!/usr/bin/env python3
"""GGUF files of the reference package (PyPI's `gguf`, llama.cpp's gguf-py) against th_gguf_* (gguf_files.c).

    gguf_files.py write DIR   the package's GGUFWriter writes DIR/<file>.gguf: metadata of every value type,
                              typed arrays, arrays of strings, nested arrays; a tensor of every plain type
                              (F32, F16, BF16, F64, I8..I64); Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 made by
                              gguf.quants.quantize; a Q4_K tensor of raw blocks; a big-endian file and files of
                              other alignments. For each tensor DIR/<file>.<n>.bin holds the bytes the reader
                              must give (th_gguf_get: the values little-endian in C order; th_gguf_get_raw: the
                              file's blocks) and, for the dequantisable ones, DIR/<file>.<n>.f32 what
                              gguf.quants.dequantize gives. DIR/cases.txt lists "T file n name type ndim
                              sizes..." and "M file key desc" lines (desc: the canonical text of a value that
                              gguf_files.c also writes from what it read).

The package is imported from the environment or from $TH_GGUF_SITE, where `pip install --no-deps --target` puts it
when it is missing (its only dependency the reader and the quantisers need is NumPy, which is this python's).
Exits 77 (a skip, as meson counts it) only when it can be neither imported nor installed.
"""
import os
import struct
import subprocess
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: NumPy cannot be imported by %s" % sys.executable)
    sys.exit(77)


def import_gguf():
    site = os.environ.get('TH_GGUF_SITE')
    if site:
        sys.path.insert(0, site)
    try:
        import gguf  # noqa: F401
        return True
    except ImportError:
        pass
    if not site:
        return False
    rc = subprocess.call([sys.executable, '-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--no-deps',
                          '--target', site, 'gguf'], stdout=sys.stderr)
    if rc != 0:
        return False
    import importlib
    importlib.invalidate_caches()
    try:
        import gguf  # noqa: F401,F811
        return True
    except ImportError:
        return False


if not import_gguf():
    print("SKIP: the gguf package cannot be imported or installed by %s" % sys.executable)
    sys.exit(77)

import gguf  # noqa: E402
import gguf.quants  # noqa: E402

V = gguf.GGUFValueType
Q = gguf.GGMLQuantizationType
SCALAR = {V.UINT8: ('u8', '<B'), V.INT8: ('i8', '<b'), V.UINT16: ('u16', '<H'), V.INT16: ('i16', '<h'),
          V.UINT32: ('u32', '<I'), V.INT32: ('i32', '<i'), V.UINT64: ('u64', '<Q'), V.INT64: ('i64', '<q'),
          V.FLOAT32: ('f32', '<f'), V.FLOAT64: ('f64', '<d'), V.BOOL: ('bool', '<?')}


def infer(v):
    return gguf.GGUFValueType.get_type(v)


def desc(v, vtype, sub=None):
    """The canonical text of a value: numbers as their type and decimal integer (floats: their bits in hex),
    strings as hex, arrays as arr:TYPE:COUNT{item,item}."""
    if vtype == V.STRING:
        return 'str:' + v.encode('utf-8').hex()
    if vtype == V.ARRAY:
        it = sub if sub is not None else infer(v[0])
        return 'arr:%s:%d{%s}' % (it.name, len(v), ','.join(desc(x, it) for x in v))
    name, fmt = SCALAR[vtype]
    if vtype == V.FLOAT32:
        return 'f32:%08x' % struct.unpack('<I', struct.pack('<f', v))[0]
    if vtype == V.FLOAT64:
        return 'f64:%016x' % struct.unpack('<Q', struct.pack('<d', v))[0]
    return '%s:%d' % (name, int(v))


METADATA = [
    ('m.u8', 200, V.UINT8, None), ('m.i8', -128, V.INT8, None), ('m.u16', 65535, V.UINT16, None),
    ('m.i16', -32768, V.INT16, None), ('m.u32', 4000000000, V.UINT32, None), ('m.i32', -2147483648, V.INT32, None),
    ('m.f32', 3.1415927410125732, V.FLOAT32, None), ('m.u64', 2 ** 64 - 1, V.UINT64, None),
    ('m.i64', -2 ** 63, V.INT64, None), ('m.f64', -1e-300, V.FLOAT64, None), ('m.true', True, V.BOOL, None),
    ('m.false', False, V.BOOL, None), ('m.str', 'na\u00efve \u2603 \U0001f600 "q" \\ \n', V.STRING, None),
    ('m.empty_str', '', V.STRING, None),
    ('a.u8', [0, 1, 255], V.ARRAY, V.UINT8), ('a.i8', [-1, 127], V.ARRAY, V.INT8),
    ('a.u16', [7, 65535], V.ARRAY, V.UINT16), ('a.i16', [-300, 300], V.ARRAY, V.INT16),
    ('a.u32', [1, 2 ** 32 - 1], V.ARRAY, V.UINT32), ('a.i32', [1, -2, 3], V.ARRAY, None),
    ('a.u64', [2 ** 63], V.ARRAY, V.UINT64), ('a.i64', [-5, 2 ** 40], V.ARRAY, V.INT64),
    ('a.f32', [0.5, -2.25, 1e-30], V.ARRAY, None), ('a.f64', [1e300, -0.0], V.ARRAY, V.FLOAT64),
    ('a.bool', [True, False, True], V.ARRAY, None), ('a.str', ['tok', '', '\u00e9\u00e8'], V.ARRAY, None),
    ('a.nested', [[1, 2], [3], [[4, 5], [6]]], V.ARRAY, None), ('a.nested_str', [['a'], ['b', 'c']], V.ARRAY, None),
]

PLAIN = {'f32': np.float32, 'f16': np.float16, 'f64': np.float64, 'i8': np.int8, 'i16': np.int16, 'i32': np.int32,
         'i64': np.int64}
QUANT = [Q.Q4_0, Q.Q4_1, Q.Q5_0, Q.Q5_1, Q.Q8_0]


def plain_values(name, shape, seed):
    rng = np.random.default_rng(seed)
    t = np.dtype(PLAIN[name])
    if t.kind == 'i':
        info = np.iinfo(t)
        return rng.integers(info.min, info.max, shape, dtype=t, endpoint=True)
    a = (rng.standard_normal(shape) * 100).astype(t)
    if a.size >= 3:
        a.flat[:3] = [np.inf, -np.inf, -0.0]
    return a


def tensors(quantised):
    """[(name, array as written, raw_dtype or None, type name, logical shape, bytes to read, f32 to read)]."""
    out = []
    shapes = [(2, 3), (5,), (2, 3, 4), (1, 1, 7)]
    for k, name in enumerate(PLAIN):
        a = plain_values(name, shapes[k % len(shapes)], k)
        out.append(('p.' + name, a, None, name.upper(), a.shape, a.astype(a.dtype.newbyteorder('<')).tobytes(),
                    a.astype(np.float32).tobytes() if a.dtype.kind == 'f' else None))
    bits = (np.random.default_rng(9).standard_normal((3, 4)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    out.append(('p.bf16', bits, Q.BF16, 'BF16', bits.shape, bits.astype('<u2').tobytes(),
                (bits.astype(np.uint32) << 16).view(np.float32).tobytes()))
    if quantised:
        rng = np.random.default_rng(3)
        for k, q in enumerate(QUANT):
            x = (rng.standard_normal((4, 64)) * (k + 1)).astype(np.float32)
            x[0, :32] = 0.0  # an all-zero block: d = 0
            blocks = gguf.quants.quantize(x, q)
            deq = gguf.quants.dequantize(blocks, q).astype(np.float32)
            out.append(('q.' + q.name, blocks, q, q.name, x.shape, blocks.tobytes(), deq.tobytes()))
        k4 = np.random.default_rng(4).integers(0, 256, (2, 144), dtype=np.uint8)
        out.append(('q.Q4_K', k4, Q.Q4_K, 'Q4_K', (2, 256), k4.tobytes(), None))
    return out


def files():
    """{file: (endianness, alignment or None, quantised?)}"""
    return {'le': (gguf.GGUFEndian.LITTLE, None, True), 'be': (gguf.GGUFEndian.BIG, None, False),
            'align1': (gguf.GGUFEndian.LITTLE, 1, True), 'align64': (gguf.GGUFEndian.LITTLE, 64, True)}


def write(d):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'cases.txt'), 'w') as index:
        for f, (endian, align, quantised) in files().items():
            w = gguf.GGUFWriter(os.path.join(d, f + '.gguf'), 'test', endianess=endian)
            keys = [('general.architecture', 'test', V.STRING, None)]
            if align is not None:
                w.add_custom_alignment(align)
                keys.append(('general.alignment', align, V.UINT32, None))
            for key, v, vtype, sub in METADATA:
                w.add_key_value(key, v, vtype, sub_type=sub)
                keys.append((key, v, vtype, sub))
            ts = tensors(quantised)
            if align == 1:  # a 3-byte tensor first: the others start at odd offsets
                odd = np.arange(3, dtype=np.int8)
                ts.insert(0, ('p.odd', odd, None, 'I8', (3,), odd.tobytes(), None))
            for name, a, raw, _, _, _, _ in ts:
                w.add_tensor(name, a, raw_dtype=raw)
            w.write_header_to_file()
            w.write_kv_data_to_file()
            w.write_tensors_to_file()
            w.close()
            for key, v, vtype, sub in keys:
                index.write('M %s %s %s\n' % (f, key, desc(v, vtype, sub)))
            for n, (name, a, raw, tname, shape, want, f32) in enumerate(ts):
                with open(os.path.join(d, '%s.%d.bin' % (f, n)), 'wb') as out:
                    out.write(want)
                if f32 is not None:
                    with open(os.path.join(d, '%s.%d.f32' % (f, n)), 'wb') as out:
                        out.write(f32)
                index.write('T %s %d %s %s %d %s\n' % (f, n, name, tname, len(shape), ' '.join(str(s) for s in shape)))
    try:
        import importlib.metadata
        version = importlib.metadata.version('gguf')
    except Exception:
        version = '?'
    print('gguf_files.py: gguf %s wrote %d files' % (version, len(files())))
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] != 'write':
        print('usage: gguf_files.py write DIR', file=sys.stderr)
        sys.exit(2)
    sys.exit(write(sys.argv[2]))
