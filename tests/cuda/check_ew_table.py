#!/usr/bin/env python3
"""Checks the device's elementwise kernels against the host's elementwise ops.

    check_ew_table.py TABLE_PROGRAM SOURCE_ROOT

Every elementwise op of ops/pointwise.h, ops/ternary.h and ops/activation.h (read from docs/names.txt, the list of every public name and the
dtypes it exists for) must have a device kernel for each of its dtypes but complex, with the host's arity and
result dtype (bool for the ops without in-place forms, as comparisons and classifications are), and the device
must have no kernel the host lacks. Needs no GPU: the program prints the table its static initialisation built.
"""
import subprocess
import sys

KINDS = {
    'bool': ['bool'],
    'integer': ['u8', 'i8', 'i16', 'i32', 'i64'],
    'floating': ['f16', 'bf16', 'f32', 'f64'],
    'complex': ['c64', 'c128'],
}
KINDS['real'] = KINDS['bool'] + KINDS['integer'] + KINDS['floating']
KINDS['all'] = KINDS['real'] + KINDS['complex']
FORMS = ('_scalar_inplace', '_scalar_out', '_scalar', '_inplace', '_out')
# ops/ternary.h's ops and their tensor inputs (their other arguments are values)
TERNARY_NIN = {'where': 3, 'add_alpha': 2, 'addcmul': 3, 'clamp': 1, 'addcdiv': 3, 'lerp': 2}
DEVICE_KINDS = set(KINDS['real'])  # complex elementwise ops stay on the host so far


def dtypes_of(column):
    out = []
    for kind in column.split('+'):
        out += KINDS[kind]
    return out


def host_ops(root):
    """{(op, dtype): set of forms} for the elementwise ops of ops/pointwise.h, ops/ternary.h and ops/activation.h."""
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
        for dt in dtypes_of(parts[1]):
            ops.setdefault((name, dt), set()).add(form)
    return ops


def main():
    program, root = sys.argv[1], sys.argv[2]
    run = subprocess.run([program], capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stdout + run.stderr)
        return 1
    device = {}
    for line in run.stdout.splitlines():
        op, dt, out_dt, nin = line.split()
        device[(op, dt)] = (out_dt, int(nin))
    problems = []
    want = 0
    for (op, dt), forms in sorted(host_ops(root).items()):
        if dt not in DEVICE_KINDS:
            if (op, dt) in device:
                problems.append('%s on %s: a device kernel for a complex dtype the host list says is host-only' % (op, dt))
            continue
        want += 1
        nin = TERNARY_NIN.get(op, 2 if '_scalar' in forms else 1)
        out_dt = dt if '_inplace' in forms or op == 'where' else 'bool'
        got = device.get((op, dt))
        if got is None:
            problems.append('%s on %s: no device kernel' % (op, dt))
        elif got != (out_dt, nin):
            problems.append('%s on %s: device has result %s and %d inputs, host %s and %d' % (op, dt, got[0], got[1],
                                                                                            out_dt, nin))
    extra = set(device) - set(host_ops(root))
    for op, dt in sorted(extra):
        problems.append('%s on %s: a device kernel the host does not have' % (op, dt))
    for p in problems:
        print('FAIL: ' + p)
    print('ew table: %d device kernels, %d host op/dtype pairs checked, %d problems' % (len(device), want, len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
