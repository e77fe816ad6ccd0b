#!/usr/bin/env python3
"""einsum, tensordot, inner, vdot, trace, kron, cross and multi_dot of tensor.h (ops/products.h) against NumPy
(np.einsum with optimize=True, np.tensordot, np.inner, np.vdot, np.trace, np.kron, np.cross, np.linalg.multi_dot)
and torch.einsum where torch can be imported (tests/numpy/products_numpy.c).

    products_numpy.py write DIR   writes the inputs of every case, DIR/<case>_in<k>.npy, and DIR/cases.txt, one
                                  line a case: "case op dtype nin layouts arg" (layouts: one letter per input, c as
                                  written, f Fortran order (a transposed view there), s stepped (every other element
                                  of a larger buffer); arg: the equation, ndims, "axes_a;axes_b", or dim)
    products_numpy.py check DIR   compares DIR/out/<case>_0.npy (the new result), _1.npy (the _out form, into an
                                  out of reversed layout) and _2.npy (through the built-in matmul kernel, not BLAS)
                                  with the reference

The reference is computed in float64 / complex128 (int64 for the integer dtypes, then wrapped to the dtype as the
library's arithmetic wraps) from the very values the library got. Integer results must be equal. Floating results
must satisfy |x - ref| <= 2 * (L + n) * eps(dtype) * ref_abs + tiny, the forward error bound of a sum of L products
of n factors (L: the terms summed into one output element, n: the operands), where ref_abs is the same contraction
of the operands' absolute values; the worst ratio |x - ref| / (L * eps * ref_abs) is printed per op. einsum's
reference is NumPy's with optimize=True; where torch imports, torch.einsum's result must pass the same bound
against it (a check of the reference). Exits 77 when NumPy cannot be imported (a skip, as meson counts it).
"""
import json
import os
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: NumPy cannot be imported by %s" % sys.executable)
    sys.exit(77)

DT = {'f32': np.float32, 'f64': np.float64, 'c64': np.complex64, 'c128': np.complex128, 'i32': np.int32,
      'i64': np.int64}
WIDE = {'f32': np.float64, 'f64': np.float64, 'c64': np.complex128, 'c128': np.complex128, 'i32': np.int64,
        'i64': np.int64}
FLOATS = ['f32', 'f64', 'c64', 'c128']

# (equation, shapes by label) with each operand's subscripts; sizes drawn per case from the label's range
EINSUM = [
    'ij,jk->ik', 'ij,jk', 'ik,kj', 'bij,bjk->bik', 'ii->i', 'ii', 'ij->ji', 'ij->', 'i,i', 'i,j->ij', 'i->',
    '...ij,...jk->...ik', '...ij,...jk', 'ijk,jil->kl', 'abc,cd,de->abe', 'ij,jk,kl,lm->im', 'i,i,i->i',
    'bn,anm,bm->ba', 'iij->j', 'ij,ij->ij', 'ba,ab->', 'Ab,bA->', 'ijk->kji', 'ij,kl->ijkl', 'bhqd,bhkd->bhqk',
    'bij,bjk,bkl->bil', 'ii,jj->ij', 'ij,j->i', 'a...,...->a...', 'i...,i...->...', 'xyz,zy->x', 'abcd,dcba->',
    'ab,bc,cd,de,ef->af', 'ij,ji->i', 'ijj->ij', 'bi,bj->bij', 'aAbB,BbAa->aA',
]


def rand(rng, shape, dt):
    if dt in ('i32', 'i64'):
        return rng.integers(-3, 4, size=shape).astype(WIDE[dt])
    a = rng.standard_normal(shape)
    if dt in ('c64', 'c128'):
        a = a + 1j * rng.standard_normal(shape)
    return a


def labels_of(term, ell_dims):
    """The term's labels, its '...' spelled as ell_dims labels '0', '1', ... (right-aligned)."""
    if '...' not in term:
        return list(term)
    left, right = term.split('...')
    return list(left) + ['%d' % k for k in range(ell_dims)] + list(right)


def einsum_shapes(rng, eq, allow_zero):
    lhs = eq.split('->')[0].split(',')
    size = {}
    letters = sorted(set(c for c in eq if c.isalpha()))
    for c in letters:
        size[c] = int(rng.integers(0 if allow_zero else 1, 6))
    shapes = []
    ell = int(rng.integers(0, 3))
    ell_sizes = [int(rng.integers(1, 4)) for _ in range(ell)]
    for term in lhs:
        if '...' in term:
            nd = int(rng.integers(0, ell + 1))  # fewer ellipsis dims: broadcast from the left
            es = [1 if rng.random() < 0.3 else s for s in ell_sizes[ell - nd:]]
        else:
            es = []
        left, _, right = term.partition('...') if '...' in term else (term, '', '')
        shape = [size[c] for c in left] + es + [size[c] for c in right]
        # a letter of size 1 in one operand broadcasts (NumPy allows it)
        if rng.random() < 0.15 and shape:
            k = int(rng.integers(0, len(shape)))
            labs = list(left) + ['.'] * len(es) + list(right)
            if labs[k] != '.' and term.count(labs[k]) == 1 and size[labs[k]] > 0:
                shape[k] = 1
        shapes.append(tuple(shape))
    return shapes


def write(d):
    rng = np.random.default_rng(20261128)
    os.makedirs(d, exist_ok=True)
    cases, meta = [], {}

    def add(op, dt, ins, arg, extra=None):
        name = 'c%04d' % len(cases)
        layouts = ''
        for k, x in enumerate(ins):
            x = x.astype(DT[dt]) if dt not in ('i32', 'i64') else x.astype(DT[dt])
            lay = 'c'
            r = rng.random()
            if x.ndim >= 2 and r < 0.3:
                lay = 'f'
                x = np.asfortranarray(x)
            elif x.size > 0 and r < 0.55:
                lay = 's'
            np.save(os.path.join(d, '%s_in%d.npy' % (name, k)), x)
            layouts += lay
        cases.append('%s %s %s %d %s %s' % (name, op, dt, len(ins), layouts, arg))
        meta[name] = {'op': op, 'dt': dt, 'arg': arg, 'extra': extra}

    for rep in range(4):
        for eq in EINSUM:
            for dt in (FLOATS + ['i32', 'i64']) if rep < 2 else [FLOATS[rep % 4], 'f64']:
                shapes = einsum_shapes(rng, eq, allow_zero=rep == 3)
                add('einsum', dt, [rand(rng, s, dt) for s in shapes], eq.replace(' ', ''))
    for i in range(40):  # tensordot: by count and by axes lists
        dt = (FLOATS + ['i32', 'i64'])[i % 6]
        na, nb, nc = int(rng.integers(0, 3)), int(rng.integers(0, 3)), int(rng.integers(0, 3))
        common = [int(rng.integers(1, 5)) for _ in range(nc)]
        a = rand(rng, tuple(int(rng.integers(1, 5)) for _ in range(na)) + tuple(common), dt)
        b = rand(rng, tuple(common) + tuple(int(rng.integers(1, 5)) for _ in range(nb)), dt)
        if i % 2 == 0:
            add('tensordot', dt, [a, b], str(nc))
        else:  # the contracted dims permuted and negative
            pa = list(range(a.ndim))
            rng.shuffle(pa)
            a = np.transpose(a, pa)
            axes_a = [pa.index(na + k) for k in range(nc)]
            axes_b = list(range(nc))
            order = rng.permutation(nc)
            axes_a = [axes_a[k] - (a.ndim if rng.random() < 0.5 else 0) for k in order]
            axes_b = [axes_b[k] for k in order]
            add('tensordot_axes', dt, [np.ascontiguousarray(a), b],
                ','.join(map(str, axes_a)) + ';' + ','.join(map(str, axes_b)) if nc else ';')
    for i in range(24):  # inner, vdot, trace, kron
        dt = (FLOATS + ['i32', 'i64'])[i % 6]
        k = int(rng.integers(1, 6))
        a = rand(rng, tuple(int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))) + (k,), dt)
        b = rand(rng, tuple(int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))) + (k,), dt)
        add('inner', dt, [a, b], '-')
        add('vdot', dt, [rand(rng, (k,), dt), rand(rng, (k,), dt)], '-')
        add('trace', dt, [rand(rng, (int(rng.integers(0, 6)), int(rng.integers(0, 6))), dt)], '-')
        sa = tuple(int(rng.integers(1, 4)) for _ in range(int(rng.integers(1, 4))))
        sb = tuple(int(rng.integers(1, 4)) for _ in range(int(rng.integers(1, 4))))
        add('kron', dt, [rand(rng, sa, dt), rand(rng, sb, dt)], '-')
    for i in range(24):  # cross along a random dim, with broadcasting
        dt = (FLOATS + ['i32', 'i64'])[i % 6]
        nd = int(rng.integers(1, 4))
        dim = int(rng.integers(0, nd))
        shape = [int(rng.integers(1, 4)) for _ in range(nd)]
        shape[dim] = 3
        sb = list(shape)
        for q in range(nd):
            if q != dim and rng.random() < 0.3:
                sb[q] = 1
        add('cross', dt, [rand(rng, tuple(shape), dt), rand(rng, tuple(sb), dt)],
            str(dim - nd if rng.random() < 0.5 else dim))
    for i in range(30):  # multi_dot chains of 2..6, vectors at the ends
        dt = (FLOATS + ['i32', 'i64'])[i % 6]
        n = int(rng.integers(2, 7))
        p = [int(rng.integers(1, 40)) for _ in range(n + 1)]
        mats = [rand(rng, (p[j], p[j + 1]), dt) for j in range(n)]
        if rng.random() < 0.4:
            mats[0] = mats[0][0]
        if rng.random() < 0.4:
            mats[-1] = mats[-1][:, 0]
        add('multi_dot', dt, mats, '-')
    with open(os.path.join(d, 'cases.txt'), 'w') as f:
        f.write('\n'.join(cases) + '\n')
    with open(os.path.join(d, 'meta.json'), 'w') as f:
        json.dump(meta, f)
    print('products_numpy.py: wrote %d cases' % len(cases))
    return 0


def reference(op, arg, xs):
    """The result and the bound's ingredients (ref_abs, L) from the operands (already widened)."""
    ab = [np.abs(x) for x in xs]
    if op == 'einsum':
        ref = np.einsum(arg, *xs, optimize=True)
        rabs = np.einsum(arg, *ab, optimize=True)
        lhs, _, out = arg.partition('->')
        summed = set(c for c in lhs if c.isalpha()) - set(out if '->' in arg else
                                                           [c for c in lhs if c.isalpha() and lhs.count(c) == 1])
        sizes = {}
        for term, x in zip(lhs.split(','), xs):
            labs = labels_of(term, x.ndim - len(term.replace('...', '')))
            for c, s in zip(labs, x.shape):
                sizes[c] = max(sizes.get(c, 1), s)
        L = int(np.prod([sizes[c] for c in summed])) if summed else 1
        return ref, rabs, L
    if op == 'tensordot':
        n = int(arg)
        L = int(np.prod(xs[1].shape[:n])) if n else 1
        return np.tensordot(xs[0], xs[1], n), np.tensordot(ab[0], ab[1], n), L
    if op == 'tensordot_axes':
        sa, sb = arg.split(';')
        aa = [int(v) for v in sa.split(',')] if sa else []
        bb = [int(v) for v in sb.split(',')] if sb else []
        L = int(np.prod([xs[1].shape[k] for k in bb])) if bb else 1
        return np.tensordot(xs[0], xs[1], (aa, bb)), np.tensordot(ab[0], ab[1], (aa, bb)), L
    if op == 'inner':
        return np.inner(xs[0], xs[1]), np.inner(ab[0], ab[1]), xs[0].shape[-1]
    if op == 'vdot':
        return np.vdot(xs[0], xs[1]), np.vdot(ab[0], ab[1]), xs[0].shape[0]
    if op == 'trace':
        return np.trace(xs[0]), np.trace(ab[0]), min(xs[0].shape)
    if op == 'kron':
        return np.kron(xs[0], xs[1]), np.kron(ab[0], ab[1]), 1
    if op == 'cross':
        dim = int(arg)
        a, b = np.broadcast_arrays(xs[0], xs[1])
        ref = np.cross(a, b, axis=dim)
        aa, bb = np.moveaxis(np.abs(a), dim, -1), np.moveaxis(np.abs(b), dim, -1)
        rabs = np.stack([aa[..., 1] * bb[..., 2] + aa[..., 2] * bb[..., 1], aa[..., 2] * bb[..., 0] +
                         aa[..., 0] * bb[..., 2], aa[..., 0] * bb[..., 1] + aa[..., 1] * bb[..., 0]], -1)
        return ref, np.moveaxis(rabs, -1, dim), 2
    if op == 'multi_dot':
        L = int(sum(x.shape[0] for x in xs[1:]))  # every inner size, summed along the chain
        return np.linalg.multi_dot(xs), np.linalg.multi_dot(ab), L
    raise ValueError(op)


def check(d):
    with open(os.path.join(d, 'meta.json')) as f:
        meta = json.load(f)
    try:
        import torch
    except ImportError:
        torch = None
    failures, worst, torch_checked, torch_refused = 0, {}, 0, set()
    for name in sorted(meta):
        m = meta[name]
        op, dt, arg = m['op'], m['dt'], m['arg']
        xs = []
        k = 0
        while os.path.exists(os.path.join(d, '%s_in%d.npy' % (name, k))):
            xs.append(np.load(os.path.join(d, '%s_in%d.npy' % (name, k))).astype(WIDE[dt]))
            k += 1
        ref, rabs, L = reference(op, arg, xs)
        ref, rabs = np.asarray(ref), np.asarray(rabs)
        if dt in ('i32', 'i64'):
            ref = ref.astype(DT[dt])  # wraps as the library's arithmetic does
        if torch is not None and op == 'einsum' and dt in ('f64', 'c128') and ref.size:
            try:
                # x.copy, not np.ascontiguousarray, which makes a 0-d array 1-d
                tr = torch.einsum(arg, *[torch.from_numpy(x.copy(order="C")) for x in xs]).numpy()
            except RuntimeError:  # torch refuses some of NumPy's broadcasts
                torch_refused.add(arg)
                tr = None
            if tr is not None:
                bound = 2 * (L + len(xs)) * np.finfo(np.float64).eps * rabs + 1e-300
                if tr.shape != ref.shape or np.any(np.abs(tr - ref) > bound):
                    print('%s: torch.einsum("%s") disagrees with np.einsum' % (name, arg))
                    failures += 1
                torch_checked += 1
        for form in (0, 1, 2):
            path = os.path.join(d, 'out', '%s_%d.npy' % (name, form))
            errp = os.path.join(d, 'out', '%s.err' % name)
            if os.path.exists(errp):
                with open(errp) as f:
                    print('%s: %s %s refused: %s' % (name, op, arg, f.read().strip()))
                failures += 1
                break
            if not os.path.exists(path):
                print('%s: no result %s' % (name, path))
                failures += 1
                continue
            got = np.load(path)
            if got.shape != ref.shape or got.dtype != DT[dt]:
                print('%s (%s %s %s, form %d): shape %s %s, NumPy %s %s' % (name, op, dt, arg, form, got.shape,
                                                                          got.dtype, ref.shape, DT[dt]))
                failures += 1
                continue
            if dt in ('i32', 'i64'):
                if not np.array_equal(got, ref):
                    print('%s (%s %s %s, form %d): integer result differs' % (name, op, dt, arg, form))
                    failures += 1
                continue
            eps = float(np.finfo(DT[dt]).eps)
            err = np.abs(got.astype(WIDE[dt]) - ref)
            bound = 2 * (L + len(xs)) * eps * rabs + 1e-30
            if np.any(err > bound) or np.any(np.isnan(got)):
                i = np.unravel_index(np.argmax(err - bound), err.shape) if err.size else ()
                print('%s (%s %s "%s", form %d): error %.3g > bound %.3g at %s' % (name, op, dt, arg, form,
                                                                                 err[i], bound[i], i))
                failures += 1
            if err.size:
                ratio = float(np.max(err / (max(L, 1) * eps * rabs + 1e-300)))
                key = op + ' ' + dt
                worst[key] = max(worst.get(key, 0.0), ratio)
    print('products_numpy.py: %d cases against NumPy%s; %d failures' %
          (len(meta), ' (and %d einsum cases of torch %s against NumPy)' % (torch_checked, torch.__version__)
           if torch is not None else '', failures))
    if torch_refused:
        print('torch.einsum refused (where NumPy broadcasts a letter of size 1): %s' % ' '.join(sorted(torch_refused)))
    print('worst |x - ref| / (L * eps * sum|terms|) per op and dtype (bound: 2 (L + n) / L):')
    for key in sorted(worst):
        print('  %-22s %.3f' % (key, worst[key]))
    return 1 if failures else 0


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('write', 'check'):
        print('usage: products_numpy.py write|check DIR')
        sys.exit(2)
    sys.exit(write(sys.argv[2]) if sys.argv[1] == 'write' else check(sys.argv[2]))
