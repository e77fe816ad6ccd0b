#!/usr/bin/env python3
"""Writes test_cuda_ew_device.c: every elementwise op of ops/pointwise.h, for every dtype but complex, on CUDA
tensors against the same op on the CPU.

    gen_ew_device.py SOURCE_ROOT OUTPUT

The ops and their dtypes come from docs/names.txt (the checked list of every public name), so a new op is
tested on the device as soon as it exists on the host. Each op runs on a strided (transposed) a and a
broadcast b, in its plain form, its _scalar form and its _inplace form where it has them; the device's result
must equal the CPU's byte for byte, except for the ops that call a transcendental function (the device's libm
is not the host's), which must agree within a few units in the last place (docs/cuda.md states the bound).
"""
import sys

KINDS = {
    'bool': ['bool'],
    'integer': ['u8', 'i8', 'i16', 'i32', 'i64'],
    'floating': ['f16', 'bf16', 'f32', 'f64'],
    'complex': [],  # complex elementwise ops stay on the host so far
}
KINDS['real'] = KINDS['bool'] + KINDS['integer'] + KINDS['floating']
KINDS['all'] = KINDS['real']
FORMS = ('_scalar_inplace', '_scalar_out', '_scalar', '_inplace', '_out')
# Ops whose results are correctly rounded IEEE operations or exact on both sides: compared bit for bit.
EXACT = {'neg', 'square', 'abs', 'sign', 'relu', 'reciprocal', 'sqrt', 'rsqrt', 'floor', 'ceil', 'round', 'trunc',
         'frac', 'isnan', 'isinf', 'isfinite', 'logical_not', 'bitwise_not', 'add', 'sub', 'mul', 'div',
         'floor_divide', 'remainder', 'fmod', 'maximum', 'minimum', 'lt', 'le', 'gt', 'ge', 'eq', 'ne',
         'bitwise_and', 'bitwise_or', 'bitwise_xor', 'shift_left', 'shift_right', 'logical_and', 'logical_or',
         'logical_xor', 'where', 'add_alpha', 'addcmul', 'clamp', 'addcdiv', 'lerp', 'leaky_relu', 'hardswish',
         'hardsigmoid'}
# The values of ops/activation.h's ops that take them, after the tensor (softplus's threshold 3 puts some of the
# inputs on each side of it).
PARAMS = {'leaky_relu': ', 0.2', 'elu': ', 1.5', 'softplus': ', 2.0, 3.0'}


# ops/ternary.h's ops: how each is called, on the CPU (host tensors a, b, c) and the device (da, db, dc);
# VALUE is a value of the dtype.
TERNARY = {
    'where': 'th_%(dt)s_where(cond, %(a)s, %(b)s)',
    'add_alpha': 'th_%(dt)s_add_alpha(%(a)s, %(b)s, VALUE)',
    'addcmul': 'th_%(dt)s_addcmul(%(a)s, %(b)s, %(c)s, VALUE)',
    'clamp': 'th_%(dt)s_clamp(%(a)s, LO, VALUE)',
    'addcdiv': 'th_%(dt)s_addcdiv(%(a)s, %(b)s, %(c)s, VALUE)',
    'lerp': 'th_%(dt)s_lerp(%(a)s, %(b)s, VALUE)',
}


def ops_of(root):
    ops = {}
    for line in open(root + '/docs/names.txt'):
        parts = line.split()
        if len(parts) != 3 or not parts[0].startswith('th_<sfx>_') or \
                not parts[2].startswith(('ops/pointwise.h:', 'ops/ternary.h:', 'ops/activation.h:')):
            continue
        name = parts[0][len('th_<sfx>_'):]
        form = ''
        for f in FORMS:
            if name.endswith(f):
                name, form = name[:-len(f)], f
                break
        for kind in parts[1].split('+'):
            for dt in KINDS[kind]:
                ops.setdefault((name, dt), set()).add(form)
    return ops


def line_cases(op, dt, binary, exact, res, rb):
    """The op on contiguous lines (the device's vector kernel, its tail included) and on lines that start one
    element in (off its vectors' alignment: the one-element kernel), against the CPU."""
    out = ['    th_%s_tensor *lx = (th_%s_tensor *)make_line(TH_%s, 1), *ly = (th_%s_tensor *)make_line(TH_%s, 2);'
           % (dt, dt, dt.upper(), dt, dt.upper()),
           '    th_bool_tensor *lc = (th_bool_tensor *)make_line(TH_BOOL, 3);',
           '    th_%s_tensor *dlx = th_%s_to_cuda(lx, 0), *dly = th_%s_to_cuda(ly, 0);' % (dt, dt, dt),
           '    th_bool_tensor *dlc = th_bool_to_cuda(lc, 0);',
           '    th_%s_tensor *ox = th_%s_narrow(lx, 0, 1, 35), *oy = th_%s_narrow(ly, 0, 1, 35);' % (dt, dt, dt),
           '    th_bool_tensor *oc = th_bool_narrow(lc, 0, 1, 35);',
           '    th_%s_tensor *dox = dlx ? th_%s_narrow(dlx, 0, 1, 35) : NULL, *doy = dly ? th_%s_narrow(dly, 0, 1, 35) : NULL;'
           % (dt, dt, dt),
           '    th_bool_tensor *doc = dlc ? th_bool_narrow(dlc, 0, 1, 35) : NULL;']
    cases = [('contiguous', 'lx', 'ly', 'lc', 'dlx', 'dly', 'dlc'), ('one element in', 'ox', 'oy', 'oc', 'dox', 'doy', 'doc')]
    for label, hx, hy, hc, gx, gy, gc in cases:
        if op in TERNARY:
            host = TERNARY[op] % {'dt': dt, 'a': hx, 'b': hy, 'c': hy}
            dev = TERNARY[op] % {'dt': dt, 'a': gx, 'b': gy, 'c': gy}
            host = host.replace('VALUE', 'scalar_%s()' % dt).replace('LO', 'low_%s()' % dt).replace('cond', hc)
            dev = dev.replace('VALUE', 'scalar_%s()' % dt).replace('LO', 'low_%s()' % dt).replace('cond', gc)
            calls = [(host, '%s && %s && %s ? %s : NULL' % (gx, gy, gc, dev), '')]
        elif binary:
            calls = [('th_%s_%s(%s, %s)' % (dt, op, hx, hy), '%s && %s ? th_%s_%s(%s, %s) : NULL' % (gx, gy, dt, op, gx, gy), ''),
                     ('th_%s_%s_scalar(%s, scalar_%s())' % (dt, op, hx, dt),
                      '%s ? th_%s_%s_scalar(%s, scalar_%s()) : NULL' % (gx, dt, op, gx, dt), '_scalar')]
        else:
            v = PARAMS.get(op, '')
            calls = [('th_%s_%s(%s%s)' % (dt, op, hx, v), '%s ? th_%s_%s(%s%s) : NULL' % (gx, dt, op, gx, v), '')]
        for host, dev, form in calls:
            out.append('    {')
            out.append('        %s *w = %s, *g = %s;' % (res, host, dev))
            out.append('        compare("th_%s_%s%s (%s)", %s(w), %s(g), %s);' % (dt, op, form, label, rb, rb, exact))
            out.append('        th_release(w);')
            out.append('        th_release(g);')
            out.append('    }')
    for t in ('doc', 'doy', 'dox', 'oc', 'oy', 'ox', 'dlc', 'dly', 'dlx', 'lc', 'ly', 'lx'):
        out.append('    th_release(%s);' % t)
    return out


def main():
    root, output = sys.argv[1], sys.argv[2]
    ops = ops_of(root)
    out = ['/* Generated by tests/cuda/gen_ew_device.py from docs/names.txt: edit those, not this. */',
           '#include "ew_device_check.h"', '']
    calls = []
    for (op, dt), forms in sorted(ops.items()):
        fn = 'check_%s_%s' % (dt, op)
        exact = 'true' if op in EXACT else 'false'
        binary = '_scalar' in forms
        res = ('th_%s_tensor' % dt) if '_inplace' in forms else 'th_bool_tensor'
        rb = 'th_%s_base' % dt if '_inplace' in forms else 'th_bool_base'
        out.append('static void %s(void)' % fn)
        out.append('{')
        out.append('    th_%s_tensor *a = (th_%s_tensor *)make_input(TH_%s, %d), *b = (th_%s_tensor *)make_input(TH_%s, 2);'
                   % (dt, dt, dt.upper(), 1 if binary else 0, dt, dt.upper()))
        out.append('    th_%s_tensor *at = th_%s_transpose(a, 0, 1);' % (dt, dt))
        out.append('    th_%s_tensor *da = th_%s_to_cuda(a, 0), *db = th_%s_to_cuda(b, 0);' % (dt, dt, dt))
        out.append('    th_%s_tensor *dat = da ? th_%s_transpose(da, 0, 1) : NULL;' % (dt, dt))
        if op in TERNARY:
            res, rb = 'th_%s_tensor' % dt, 'th_%s_base' % dt
            host = TERNARY[op] % {'dt': dt, 'a': 'at', 'b': 'b', 'c': 'b'}
            dev = TERNARY[op] % {'dt': dt, 'a': 'dat', 'b': 'db', 'c': 'db'}
            host = host.replace('VALUE', 'scalar_%s()' % dt).replace('LO', 'low_%s()' % dt).replace('cond', 'hcond')
            dev = dev.replace('VALUE', 'scalar_%s()' % dt).replace('LO', 'low_%s()' % dt).replace('cond', 'dcond')
            out.append('    th_bool_tensor *hcond = (th_bool_tensor *)make_input(TH_BOOL, 3);')
            out.append('    th_bool_tensor *dcond = th_bool_to_cuda(hcond, 0);')
            out.append('    %s *want = %s, *got = dat && db && dcond ? %s : NULL;' % (res, host, dev))
            out.append('    compare("th_%s_%s", %s(want), %s(got), %s);' % (dt, op, rb, rb, exact))
            out.append('    th_release(dcond);')
            out.append('    th_release(hcond);')
            forms = forms - {'_inplace'}
            binary = False
        elif binary:
            out.append('    %s *want = th_%s_%s(at, b), *got = dat && db ? th_%s_%s(dat, db) : NULL;' % (res, dt, op, dt, op))
            out.append('    compare("th_%s_%s", %s(want), %s(got), %s);' % (dt, op, rb, rb, exact))
            out.append('    %s *ws = th_%s_%s_scalar(at, scalar_%s()), *gs = dat ? th_%s_%s_scalar(dat, scalar_%s()) : NULL;'
                       % (res, dt, op, dt, dt, op, dt))
            out.append('    compare("th_%s_%s_scalar", %s(ws), %s(gs), %s);' % (dt, op, rb, rb, exact))
            out.append('    th_release(ws);')
            out.append('    th_release(gs);')
        else:
            v = PARAMS.get(op, '')
            out.append('    %s *want = th_%s_%s(at%s), *got = dat ? th_%s_%s(dat%s) : NULL;' % (res, dt, op, v, dt, op, v))
            out.append('    compare("th_%s_%s", %s(want), %s(got), %s);' % (dt, op, rb, rb, exact))
        if '_inplace' in forms:
            args = ', b' if binary else PARAMS.get(op, '')
            dargs = ', db' if binary else PARAMS.get(op, '')
            out.append('    th_%s_tensor *hc = th_%s_clone(at), *dc = dat ? th_%s_cuda_empty_like(dat) : NULL;' % (dt, dt, dt))
            out.append('    if (dc && th_cuda_copy(th_%s_base(dc), th_%s_base(dat)) != TH_OK) fail_call("th_cuda_copy");' % (dt, dt))
            out.append('    int hs = th_%s_%s_inplace(hc%s), ds = dc ? th_%s_%s_inplace(dc%s) : -1;' % (dt, op, args, dt, op, dargs))
            out.append('    if (hs != TH_OK || ds != TH_OK) fail_call("th_%s_%s_inplace");' % (dt, op))
            out.append('    else compare("th_%s_%s_inplace", th_%s_base(hc), th_%s_base(dc), %s);' % (dt, op, dt, dt, exact))
            out.append('    th_release(hc);')
            out.append('    th_release(dc);')
        out.append('    th_release(want);')
        out.append('    th_release(got);')
        out += line_cases(op, dt, binary, exact, res, rb)
        for t in ('dat', 'db', 'da', 'at', 'b', 'a'):
            out.append('    th_release(%s);' % t)
        out.append('}')
        out.append('')
        calls.append(fn)
    out.append('static void (*const ew_checks[])(void) = {')
    out += ['    %s,' % c for c in calls]
    out.append('};')
    out.append('static const int nchecks = %d;' % len(calls))
    out.append('')
    out.append('#include "ew_device_main.h"')
    open(output, 'w').write('\n'.join(l for l in out if l != '') + '\n')


if __name__ == '__main__':
    sys.exit(main())
