#!/usr/bin/env python3
"""Writes the generator headers from the one dtype list, generate/dtypes.h.

    python3 generate/update.py          rewrite generate/<sfx>.h, the family headers, select.h and meson.build
    python3 generate/update.py --check  exit 1 (listing the files) when any of them is stale

Adding a dtype is one line in TH_FOREACH_DTYPE, then this script; tests/check_names.py runs --check.
The headers stay plain C that a reader can open: the preprocessor cannot loop over #include, so each dtype
gets its own small generator file, written here rather than by hand.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = [  # name, description, kinds (or other families)
    ('integer', 'the integer dtypes', ['TH_KIND_UINT', 'TH_KIND_INT']),
    ('floating', 'the floating dtypes', ['TH_KIND_FLOAT']),
    ('complex', 'the complex dtypes', ['TH_KIND_COMPLEX']),
]


def read_dtypes():
    text = open(os.path.join(HERE, 'dtypes.h')).read()
    rows = re.findall(r'^\s*X\((\w+),\s*(\w+),\s*([\w ]+?),\s*([\w ]+?),\s*(\w+),\s*(\d+),\s*(\d+)\)', text, re.M)
    return [dict(sfx=r[0], enum=r[1], elem=r[2], kind=r[4], bits=int(r[6])) for r in rows]


def kind_macros(d):
    kind = d['kind']
    if kind == 'TH_KIND_BOOL':
        return ['BOOL']
    if kind == 'TH_KIND_UINT':
        return [d['enum'], 'INTEGER', 'UNSIGNED']
    if kind == 'TH_KIND_INT':
        return [d['enum'], 'INTEGER']
    if kind == 'TH_KIND_FLOAT':
        # float16 and bfloat16 are 16-bit structs computed in float
        return [d['enum'], 'FLOATING'] + (['REDUCED'] if d['bits'] < 32 else [])
    return [d['enum'], 'COMPLEX']


def dtype_header(d):
    lines = ['/* generate/%s.h: stamps TH_GENERIC_FILE for %s (when selected; see generate/select.h).' % (d['sfx'], d['sfx']),
             ' * Written by generate/update.py from generate/dtypes.h: edit those, not this. */',
             '#include "select.h"',
             '#ifdef TH_HAS_%s' % d['enum'],
             '#define TH_DT_PASTE(a, b) a##%s##b /* pastes without expanding the suffix (bool is a macro) */' % d['sfx'],
             '#define TH_DT_ENUM TH_%s' % d['enum']]
    lines += ['#define TH_REAL_IS_%s 1' % m for m in kind_macros(d)]
    lines += ['#include "stamp.h"', '#endif', '#ifndef TH__GENERATING_MANY', '#undef TH_GENERIC_FILE', '#endif']
    return '\n'.join(lines) + '\n'


def family_header(name, description, members):
    owner = 'TH__GENERATING_MANY_OWNER_' + name.upper()
    lines = ['/* generate/%s.h: stamps TH_GENERIC_FILE for %s (%s).' % (name, description, ' '.join(members)),
             ' * Written by generate/update.py from generate/dtypes.h: edit those, not this. */',
             '#ifndef TH__GENERATING_MANY', '#define TH__GENERATING_MANY', '#define ' + owner, '#endif']
    lines += ['#include "%s.h"' % m for m in members]
    lines += ['#ifdef ' + owner, '#undef ' + owner, '#undef TH__GENERATING_MANY', '#undef TH_GENERIC_FILE', '#endif']
    return '\n'.join(lines) + '\n'


def select_header(dtypes):
    lines = ['/* generate/select.h: which dtypes this translation unit stamps.',
             ' * Written by generate/update.py from generate/dtypes.h: edit those, not this.',
             ' *',
             ' * By default every dtype. To stamp a subset, define TH_SELECT_DTYPES and one TH_WANT_<ENUM> per dtype',
             ' * before including tensor.h:',
             ' *',
             ' *     #define TH_SELECT_DTYPES',
             ' *     #define TH_WANT_F32',
             ' *     #define TH_WANT_I64',
             ' *     #include "tensor.h"',
             ' *',
             ' * For each selected dtype this defines TH_HAS_<ENUM> to 1 (testable with #if) and TH__IF_<sfx>(...)',
             ' * to its arguments (so the X-macro tables can skip dtypes that were not stamped). */',
             '#ifndef TH_GENERATE_SELECT_H', '#define TH_GENERATE_SELECT_H', '']
    wants = ' && '.join('!defined(TH_WANT_%s)' % d['enum'] for d in dtypes)
    lines += ['#if defined(TH_SELECT_DTYPES) && %s' % wants,
              '#error "TH_SELECT_DTYPES is defined but no TH_WANT_<DTYPE> is: define e.g. TH_WANT_F32 before including tensor.h"',
              '#endif', '']
    for d in dtypes:
        lines += ['#if !defined(TH_SELECT_DTYPES) || defined(TH_WANT_%s)' % d['enum'],
                  '#define TH_HAS_%s 1' % d['enum'],
                  '#define TH__IF_%s(...) __VA_ARGS__' % d['sfx'],
                  '#else',
                  '#define TH__IF_%s(...)' % d['sfx'],
                  '#endif', '']
    lines += ['#endif']
    return '\n'.join(lines) + '\n'


def wanted_files():
    dtypes = read_dtypes()
    files = {'select.h': select_header(dtypes)}
    for d in dtypes:
        files[d['sfx'] + '.h'] = dtype_header(d)
    for name, description, kinds in FAMILIES:
        files[name + '.h'] = family_header(name, description, [d['sfx'] for d in dtypes if d['kind'] in kinds])
    bools = [d['sfx'] for d in dtypes if d['kind'] == 'TH_KIND_BOOL']
    files['real.h'] = family_header('real', 'every dtype but complex: the ones with an order', bools + ['integer', 'floating'])
    files['all.h'] = family_header('all', 'every dtype', bools + ['integer', 'floating', 'complex'])
    headers = sorted(set(files) | {'dtypes.h', 'stamp.h'})
    ops = sorted(f for f in os.listdir(os.path.join(HERE, 'ops')) if f.endswith('.h'))
    files['meson.build'] = ('# Written by generate/update.py from generate/dtypes.h and the files in ops/: every\n'
                            '# header here, to install.\n'
                            'tensor_generators = files(\n' +
                            ''.join("  '%s',\n" % h for h in headers) + ')\n' +
                            'tensor_op_headers = files(\n' +
                            ''.join("  'ops/%s',\n" % h for h in ops) + ')\n')
    return files


def main():
    check = '--check' in sys.argv[1:]
    stale = []
    for name, text in wanted_files().items():
        path = os.path.join(HERE, name)
        have = open(path).read() if os.path.exists(path) else None
        if have != text:
            stale.append(name)
            if not check:
                open(path, 'w').write(text)
    if check and stale:
        print('stale generator headers (run python3 generate/update.py): ' + ', '.join(sorted(stale)))
        return 1
    if not check:
        print('rewrote: ' + (', '.join(sorted(stale)) or 'nothing'))
    return 0


if __name__ == '__main__':
    sys.exit(main())
