#!/usr/bin/env python3
"""solve, inv, det, slogdet, cholesky, qr, eigh, svd, svd_full and svdvals of tensor.h against numpy.linalg, and
solve_triangular, cholesky_solve, lu_factor and lu_solve against scipy.linalg (tests/numpy/numpy_lapack.c).

    numpy_lapack.py write DIR   writes the inputs of every case, DIR/<case>_in<k>.npy, DIR/cases.txt ("case op
                                inputs", for the C side) and DIR/meta.json (what check needs to know)
    numpy_lapack.py check DIR   compares DIR/out/<case>_<k>.npy with numpy.linalg's result, or DIR/out/<case>.err
                                with NumPy's LinAlgError on the same input

The reference is computed in float64 / complex128 from the very values the library got (f32 and c64 inputs are
widened first), so the bound is the library's error alone: max |x - ref| <= C * n * cond(A) * eps(dtype) *
max |ref| (C = 10; for slogdet's log |det| an absolute bound C * n * cond(A) * eps). The worst ratio of error to
n * cond * eps is printed per op. Inputs: random and ill-conditioned (cond 1e6 in double, 1e3 in single),
batched, broadcast, and stored in Fortran order (the C side then holds a transposed-strides view). Singular and
not positive-definite inputs (one matrix of a batch) must be refused with TH_ERR_LINALG naming the batch index,
where NumPy raises LinAlgError. qr, eigh, svd and svdvals (refused, naming the option, without LAPACK) are
checked by reconstruction (Q R = A, A V = V diag(w), U diag(S) Vh = A), orthonormality and their values, each within
C * n * eps of the matrix's scale, and their vectors against NumPy's up to a sign or phase per column, within
C * n * eps over the relative gap of the values (qr: times cond(A)).

solve_triangular (every triangle, side and unit diagonal, garbage in the triangle not read), cholesky_solve (L and
U) and lu_solve (from SciPy's factors) are held to the same C * n * cond * eps bound against SciPy's solution of
each matrix of the batch (cond of the matrix the solve inverts); lu_factor by P L U = A within C * n * eps *
max(|L| |U|), pivots 1-based and in range, and, where its pivots are SciPy's, its LU against SciPy's. A zero on
a triangular diagonal and a singular lu_factor input must be refused (TH_ERR_LINALG at the batch index) where SciPy
raises LinAlgError or warns of the exactly zero pivot.

eig and eigvals (general A; complex results) are checked by reconstruction, |A V - V diag(w)| <= C * n * eps * |A|
(2-norms, each column of V of unit norm), and their values against numpy.linalg.eig's, each within
C * n * eps * |A| * kappa (kappa: the value's condition number 1 / |y^H x| from scipy.linalg.eig's left and right
vectors); a NaN in A is refused (TH_ERR_LINALG), as eigvals is without LAPACK (TH_ERR_UNSUPPORTED).

matrix_exp is held to |X - ref|_1 / |ref|_1 <= C * n * eps * max(1, |A|_1) against scipy.linalg.expm (float64 /
complex128) per matrix; torch.linalg.matrix_exp's error in f32 / c64 is printed beside it, where torch imports.

Exits 77 when NumPy cannot be imported (a skip, as meson counts it).
"""
import json
import os
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: NumPy cannot be imported by %s" % sys.executable)
    sys.exit(77)

DTYPES = {'f32': np.float32, 'f64': np.float64, 'c64': np.complex64, 'c128': np.complex128}
WIDE = {'f32': np.float64, 'f64': np.float64, 'c64': np.complex128, 'c128': np.complex128}
C = 10.0


def rand(rng, shape, dt):
    a = rng.standard_normal(shape)
    if dt in ('c64', 'c128'):
        a = a + 1j * rng.standard_normal(shape)
    return a


def with_cond(rng, batch, n, dt, cond):
    """Matrices U diag(s) V^H with singular values from 1 down to 1/cond."""
    out = np.empty(batch + (n, n), dtype=WIDE[dt])
    for idx in np.ndindex(*batch):
        u, _ = np.linalg.qr(rand(rng, (n, n), dt))
        v, _ = np.linalg.qr(rand(rng, (n, n), dt))
        s = np.logspace(0, -np.log10(cond), n) if n > 1 else np.ones(1)
        out[idx] = (u * s) @ v.conj().T
    return out


def hpd(rng, batch, n, dt, cond):
    """Hermitian positive-definite matrices V diag(s) V^H of condition cond."""
    out = np.empty(batch + (n, n), dtype=WIDE[dt])
    for idx in np.ndindex(*batch):
        v, _ = np.linalg.qr(rand(rng, (n, n), dt))
        s = np.logspace(0, -np.log10(cond), n) if n > 1 else np.ones(1)
        out[idx] = (v * s) @ v.conj().T
    return out


def write(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(15)
    meta = {}
    lines = []

    def add(name, op, dt, inputs, fortran=False, error=None, flags=None):
        for k, x in enumerate(inputs):
            x = np.asarray(x)
            x = x if x.dtype == np.int32 else x.astype(DTYPES[dt])  # lu_solve's pivots stay int32
            if fortran:
                x = np.asfortranarray(x)
            np.save(os.path.join(d, '%s_in%d.npy' % (name, k)), x)
        meta[name] = {'op': op, 'dtype': dt, 'inputs': len(inputs), 'error': error, 'flags': flags}
        lines.append('%s %s %d%s\n' % (name, op, len(inputs), '' if flags is None else ' %d' % flags))

    for dt in DTYPES:
        single = dt in ('f32', 'c64')
        for cond_name, cond in (('good', 10.0), ('ill', 1e3 if single else 1e6)):
            for n in (1, 3, 8, 33):
                for batch in ((), (4,), (2, 3)):
                    for fortran in (False, True):
                        tag = '%s_%s_n%d_b%s_%s' % (dt, cond_name, n, 'x'.join(map(str, batch)) or '0',
                                                    'F' if fortran else 'C')
                        a = with_cond(rng, batch, n, dt, cond)
                        add('inv_' + tag, 'inv', dt, [a], fortran)
                        add('det_' + tag, 'det', dt, [a], fortran)
                        add('slogdet_' + tag, 'slogdet', dt, [a], fortran)
                        add('cholesky_' + tag, 'cholesky', dt, [hpd(rng, batch, n, dt, cond)], fortran)
                        add('solvev_' + tag, 'solve', dt, [a, rand(rng, batch + (n,), dt)], fortran)
                        add('solvem_' + tag, 'solve', dt, [a, rand(rng, batch + (n, 2), dt)], fortran)
                        add('eigh_' + tag, 'eigh', dt, [hpd(rng, batch, n, dt, cond) - 0.5 * np.eye(n)], fortran)
                        for shape_name, (rows, cols) in (('sq', (n, n)), ('tall', (n + 2, n)), ('wide', (n, n + 3))):
                            w = rand(rng, batch + (rows, cols), dt)
                            add('qr_%s_%s' % (shape_name, tag), 'qr', dt, [w], fortran)
                            add('svd_%s_%s' % (shape_name, tag), 'svd', dt, [w], fortran)
                            if cond_name == 'good' and n <= 8:
                                add('svdfull_%s_%s' % (shape_name, tag), 'svd_full', dt, [w], fortran)
                            add('svdvals_%s_%s' % (shape_name, tag), 'svdvals', dt, [w], fortran)
        # broadcast: A (2, 1, n, n) with B (3, n, k); one vector for a whole batch
        a = with_cond(rng, (2, 1), 5, dt, 10.0)
        add('solve_bcast_' + dt, 'solve', dt, [a, rand(rng, (3, 5, 4), dt)])
        add('solve_onevec_' + dt, 'solve', dt, [a, rand(rng, (5,), dt)])
        # singular: matrix 2 of a batch of 4 has a zero row (its zero pivot is exact, in A's LU and in A^T's)
        a = rng.integers(-4, 5, (4, 4, 4)).astype(np.float64) + 8 * np.eye(4)
        a[2, 3] = 0
        add('solve_singular_' + dt, 'solve', dt, [a, np.ones((4, 4))], error=2)
        add('inv_singular_' + dt, 'inv', dt, [a], error=2)
        add('det_singular_' + dt, 'det', dt, [a])
        add('slogdet_singular_' + dt, 'slogdet', dt, [a])
        # not positive-definite: matrix 1 of a batch of 3 is indefinite
        p = hpd(rng, (3,), 4, dt, 10.0)
        p[1] -= 2 * np.eye(4)
        add('cholesky_indefinite_' + dt, 'cholesky', dt, [p], error=1)

    for dt in DTYPES:
        write_solvers(add, dt)
        write_least_squares(add, dt)
        write_norms(add, dt)
        write_powers(add, dt)
        write_exps(add, dt)
        write_eigs(add, dt)

    with open(os.path.join(d, 'cases.txt'), 'w') as f:
        f.writelines(lines)
    with open(os.path.join(d, 'meta.json'), 'w') as f:
        json.dump(meta, f)
    return 0


def reference(op, ins):
    if op == 'solve':
        a, b = ins
        vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
        if vector:
            b = b[..., None]
        x = np.linalg.solve(np.broadcast_to(a, np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + a.shape[-2:]),
                            np.broadcast_to(b, np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:]))
        return [x[..., 0] if vector else x]
    if op == 'inv':
        return [np.linalg.inv(ins[0])]
    if op == 'det':
        return [np.linalg.det(ins[0])]
    if op == 'slogdet':
        s, l = np.linalg.slogdet(ins[0])
        return [s, l]
    if op == 'cholesky':
        return [np.linalg.cholesky(ins[0])]
    if op == 'qr':
        q, r = np.linalg.qr(ins[0])
        return [q, r]
    if op == 'eigh':
        w, v = np.linalg.eigh(ins[0])
        return [w, v]
    if op == 'svd':
        u, s, vh = np.linalg.svd(ins[0], full_matrices=False)
        return [u, s, vh]
    if op == 'svd_full':
        u, s, vh = np.linalg.svd(ins[0], full_matrices=True)
        return [u, s, vh]
    if op == 'svdvals':
        return [np.linalg.svd(ins[0], compute_uv=False)]
    raise ValueError(op)


LAPACK_ONLY = ('qr', 'eigh', 'svd', 'svd_full', 'svdvals')


def adj(x):
    return np.conj(np.swapaxes(x, -1, -2))


def check_factors(name, op, a, got, refs, eps):
    """qr, eigh, svd: reconstruction, orthonormality and the values, and the vectors against NumPy's up to a
    sign (a phase): |<ours_j, numpy_j>| = 1 per column. Returns the error ratios (error / (n * eps * scale))."""
    n = max(a.shape[-2:])
    norm = float(np.max(np.abs(a), initial=0.0)) * n or 1.0
    unit = n * eps
    ratios = {}
    if op == 'qr':
        q, r = got
        ratios['reconstruction'] = np.max(np.abs(q @ r - a), initial=0.0) / norm / unit
        k = q.shape[-1]
        ratios['orthonormal'] = np.max(np.abs(adj(q) @ q - np.eye(k)), initial=0.0) / unit
        ratios['triangular'] = 0.0 if np.all(np.tril(r, -1) == 0) else np.inf
        # columns against NumPy's (a random A has full rank: its Q is unique up to phases); cond-sensitive
        qc = np.abs(np.sum(np.conj(q) * refs[0], axis=-2))
        cond = float(np.max(np.linalg.cond(a.reshape((-1,) + a.shape[-2:]))))
        ratios['vs numpy'] = np.max(np.abs(qc - 1), initial=0.0) / unit / cond
    elif op == 'eigh':
        w, v = got
        wr, vr = refs
        scale = float(np.max(np.abs(wr), initial=0.0)) or 1.0
        ratios['values'] = np.max(np.abs(w - wr), initial=0.0) / scale / unit
        ratios['reconstruction'] = np.max(np.abs(a @ v - v * w[..., None, :]), initial=0.0) / scale / unit
        ratios['orthonormal'] = np.max(np.abs(adj(v) @ v - np.eye(v.shape[-1])), initial=0.0) / unit
        gaps = np.diff(wr, axis=-1)
        if gaps.size and np.min(gaps) > 0:
            vc = np.abs(np.sum(np.conj(v) * vr, axis=-2))
            ratios['vs numpy'] = np.max(np.abs(vc - 1), initial=0.0) / unit * np.min(gaps) / scale
    elif op in ('svd', 'svd_full'):
        u, s, vh = got
        ur, sr, vhr = refs
        scale = float(np.max(sr, initial=0.0)) or 1.0
        ratios['values'] = np.max(np.abs(s - sr), initial=0.0) / scale / unit
        k = s.shape[-1]
        # full: U and Vh unitary (m x m, n x n); the columns and rows past k are a completion, not unique
        ratios['orthonormal'] = max(np.max(np.abs(adj(u) @ u - np.eye(u.shape[-1])), initial=0.0),
                                    np.max(np.abs(vh @ adj(vh) - np.eye(vh.shape[-2])), initial=0.0)) / unit
        u, vh, ur, vhr = u[..., :k], vh[..., :k, :], ur[..., :k], vhr[..., :k, :]
        ratios['reconstruction'] = np.max(np.abs((u * s[..., None, :]) @ vh - a), initial=0.0) / scale / unit
        gaps = -np.diff(sr, axis=-1)
        if gaps.size == 0 or np.min(gaps) > 0:
            uc = np.abs(np.sum(np.conj(u) * ur, axis=-2))
            vc = np.abs(np.sum(np.conj(vh) * vhr, axis=-1))
            g = np.min(gaps) if gaps.size else scale
            ratios['vs numpy'] = max(np.max(np.abs(uc - 1), initial=0.0), np.max(np.abs(vc - 1), initial=0.0)) \
                / unit * g / scale
    elif op == 'svdvals':
        scale = float(np.max(refs[0], initial=0.0)) or 1.0
        ratios['values'] = np.max(np.abs(got[0] - refs[0]), initial=0.0) / scale / unit
    return ratios


def check(d):
    with open(os.path.join(d, 'meta.json')) as f:
        meta = json.load(f)
    failures = 0
    worst = {}
    with open(os.path.join(d, 'out', 'lapack.txt')) as f:
        have_lapack = f.read().strip() == 'yes'
    for name, m in sorted(meta.items()):
        op, dt = m['op'], m['dtype']
        if op in SOLVERS:
            failures += check_solver(d, name, m, worst)
            continue
        if op in LEAST_SQUARES:
            failures += check_least_squares(d, name, m, worst)
            continue
        if op in NORMS:
            failures += check_norm(d, name, m, worst)
            continue
        if op == 'matrix_power':
            failures += check_power(d, name, m, worst)
            continue
        if op == 'matrix_exp':
            failures += check_exp(d, name, m, worst)
            continue
        if op in ('eig', 'eigvals'):
            failures += check_eig(d, name, m, worst, have_lapack)
            continue
        ins = [np.load(os.path.join(d, '%s_in%d.npy' % (name, k))).astype(WIDE[dt]) for k in range(m['inputs'])]
        a = ins[0]
        err_path = os.path.join(d, 'out', name + '.err')
        if op in LAPACK_ONLY and not have_lapack:
            text = open(err_path).read() if os.path.exists(err_path) else ''
            if not text.startswith('TH_ERR_UNSUPPORTED th_%s_%s: needs LAPACK' % (dt, op)) or \
                    '-Dlapack=enabled' not in text:
                print('%s: without LAPACK the library said %r (wanted TH_ERR_UNSUPPORTED naming the option)' %
                      (name, text.strip()))
                failures += 1
            continue
        if op in LAPACK_ONLY:
            if os.path.exists(err_path):
                print('%s: the library refused: %s' % (name, open(err_path).read().strip()))
                failures += 1
                continue
            refs = reference(op, ins)
            got = []
            for k in range(len(refs)):
                path = os.path.join(d, 'out', '%s_%d.npy' % (name, k))
                got.append(np.load(path) if os.path.exists(path) else None)
            real = np.dtype(DTYPES[dt]).type(0).real.dtype
            kinds = {'qr': [DTYPES[dt]] * 2, 'eigh': [real, DTYPES[dt]], 'svd': [DTYPES[dt], real, DTYPES[dt]],
                     'svd_full': [DTYPES[dt], real, DTYPES[dt]],
                     'svdvals': [real]}[op]
            if any(g is None or g.shape != np.shape(r) or g.dtype != np.dtype(t)
                   for g, r, t in zip(got, refs, kinds)):
                print('%s: results %s; NumPy: %s' % (name, [(g.dtype, g.shape) if g is not None else None
                                                            for g in got], [np.shape(r) for r in refs]))
                failures += 1
                continue
            got = [g.astype(WIDE[dt]) if np.iscomplexobj(g) or not np.iscomplexobj(np.zeros(1, WIDE[dt]))
                   else g.astype(np.float64) for g in got]
            ratios = check_factors(name, op, a, got, refs, np.finfo(DTYPES[dt]).eps)
            for what, ratio in ratios.items():
                key = '%s %s' % (op, what)
                worst[key] = max(worst.get(key, 0.0), float(ratio))
                if not ratio <= C:
                    print('%s: %s error is %.3g x n * eps (bound %g)' % (name, what, ratio, C))
                    failures += 1
            continue
        if m['error'] is not None:
            try:
                reference(op, ins)
                numpy_refused = False
            except np.linalg.LinAlgError:
                numpy_refused = True
            text = open(err_path).read() if os.path.exists(err_path) else ''
            want = 'at batch index %d' % m['error']
            if not numpy_refused or not text.startswith('TH_ERR_LINALG th_%s_%s: ' % (dt, op)) or want not in text:
                print('%s: NumPy refused: %s; the library said: %r (wanted TH_ERR_LINALG ... %s)' %
                      (name, numpy_refused, text.strip(), want))
                failures += 1
            continue
        if os.path.exists(err_path):
            print('%s: the library refused: %s' % (name, open(err_path).read().strip()))
            failures += 1
            continue
        refs = reference(op, ins)
        if op == 'det':  # the reference as the dtype holds it (a 33 x 33 det of 1e-50 is 0 in f32)
            refs = [np.asarray(refs[0]).astype(DTYPES[dt]).astype(WIDE[dt])]
        n = a.shape[-1]
        eps = np.finfo(DTYPES[dt]).eps
        cond = 1.0
        if n > 0:
            c = np.linalg.cond(a.reshape((-1, n, n)))
            cond = float(np.max(c)) if np.all(np.isfinite(c)) else 1.0  # singular: det is exact (0)
        unit = n * cond * eps
        for k, ref in enumerate(refs):
            path = os.path.join(d, 'out', '%s_%d.npy' % (name, k))
            if not os.path.exists(path):
                print('%s: no result %d' % (name, k))
                failures += 1
                continue
            got = np.load(path)
            ref = np.asarray(ref)
            if got.shape != ref.shape or got.dtype != (DTYPES[dt] if not (op == 'slogdet' and k == 1)
                                                      else np.dtype(DTYPES[dt]).type(0).real.dtype):
                print('%s: result %d is %s %s; NumPy: %s (%s)' % (name, k, got.dtype, got.shape, ref.shape, dt))
                failures += 1
                continue
            got = got.astype(WIDE[dt])
            if op == 'slogdet' and k == 1:
                ok = np.array_equal(np.isinf(got), np.isinf(ref)) and np.all(np.where(np.isinf(ref), got == ref, True))
                fin = np.isfinite(ref)
                err = float(np.max(np.abs(got[fin] - ref[fin]), initial=0.0))
                scale = 1.0
            else:
                err = float(np.max(np.abs(got - ref), initial=0.0))
                scale = float(np.max(np.abs(ref), initial=0.0)) or 1.0
                ok = True
            ratio = err / scale / unit if unit > 0 else 0.0
            worst[op] = max(worst.get(op, 0.0), ratio)
            if not ok or not err <= C * unit * scale:
                print('%s: result %d differs from NumPy by %.3g (bound %.3g = %g * n %d * cond %.3g * eps %.3g * %.3g)'
                      % (name, k, err, C * unit * scale, C, n, cond, eps, scale))
                failures += 1
    print('numpy_lapack: %d cases against numpy.linalg %s, %d failed' % (len(meta), np.__version__, failures))
    for op in sorted(worst):
        print('  %-22s worst error / (n * [cond] * eps * scale) = %.3g (bound %g)' % (op, worst[op], C))
    return 1 if failures else 0


# ---- solve_triangular, cholesky_solve, lu_factor, lu_solve against SciPy (scipy.linalg's solve_triangular,
# cho_solve, lu_factor, lu_solve on each matrix of a batch, in float64 / complex128) ----

SOLVERS = ('solve_triangular', 'cholesky_solve', 'lu_factor', 'lu_solve')
UPPER, LEFT, UNIT = 1, 2, 4


def tri_with_cond(rng, batch, n, dt, cond, upper, unit):
    """Triangular matrices (garbage in the other triangle, which the op must not read) whose diagonal runs from
    1 down to 1/cond (1 when unit), off-diagonal entries small enough that the condition number stays near cond."""
    out = rand(rng, batch + (n, n), dt)
    d = np.logspace(0, -np.log10(cond), n) if n > 1 else np.ones(1)
    for idx in np.ndindex(*batch):
        t = out[idx] * (0.3 / max(n, 1))
        np.fill_diagonal(t, 1.0 if unit else d * np.sign(rng.standard_normal(n)))
        keep = np.triu(np.ones((n, n), bool)) if upper else np.tril(np.ones((n, n), bool))
        out[idx] = np.where(keep, t, 100.0 * rand(rng, (n, n), dt))
    return out


def write_solvers(add, dt):
    import scipy.linalg
    rng = np.random.default_rng(1515)  # its own stream: the cases above keep their values
    single = dt in ('f32', 'c64')
    for cond_name, cond in (('good', 10.0), ('ill', 1e3 if single else 1e6)):
        for n in (1, 3, 8, 33):
            for batch in ((), (4,), (2, 3)):
                for fortran in (False, True):
                    tag = '%s_%s_n%d_b%s_%s' % (dt, cond_name, n, 'x'.join(map(str, batch)) or '0',
                                                'F' if fortran else 'C')
                    for flags in range(8):
                        upper, left, unit = flags & UPPER, flags & LEFT, flags & UNIT
                        if unit and (n != 8 or batch != (4,)):
                            continue  # unit diagonals: one shape is enough
                        a = tri_with_cond(rng, batch, n, dt, cond, upper, unit)
                        b = rand(rng, batch + ((n, 3) if left else (3, n)), dt)
                        add('trs%d_%s' % (flags, tag), 'solve_triangular', dt, [a, b], fortran, flags=flags)
                    h = hpd(rng, batch, n, dt, cond)
                    l = np.linalg.cholesky(h)
                    b = rand(rng, batch + (n, 2), dt)
                    add('chosolve_L_' + tag, 'cholesky_solve', dt, [b, l], fortran, flags=0)
                    add('chosolve_U_' + tag, 'cholesky_solve', dt, [b, adj(l)], fortran, flags=UPPER)
                    a = with_cond(rng, batch, n, dt, cond)
                    add('lufactor_' + tag, 'lu_factor', dt, [a], fortran)
                    # lu_solve from SciPy's factors (rounded to the dtype), pivots 1-based int32
                    lu = np.empty_like(a)
                    piv = np.empty(batch + (n,), np.int32)
                    for idx in np.ndindex(*batch):
                        f, p = scipy.linalg.lu_factor(a[idx])
                        lu[idx], piv[idx] = f, p + 1
                    add('lusolve_' + tag, 'lu_solve', dt, [lu, piv, rand(rng, batch + (n, 2), dt)], fortran)
    # broadcast batch dims: A (2, 1, n, n) with B (3, n, k)
    a = tri_with_cond(rng, (2, 1), 5, dt, 10.0, False, False)
    add('trs_bcast_' + dt, 'solve_triangular', dt, [a, rand(rng, (3, 5, 4), dt)], flags=LEFT)
    l = np.linalg.cholesky(hpd(rng, (2, 1), 5, dt, 10.0))
    add('chosolve_bcast_' + dt, 'cholesky_solve', dt, [rand(rng, (3, 5, 4), dt), l], flags=0)
    # singular: matrix 2 of a batch of 4 has a zero on its diagonal (SciPy's solve_triangular raises
    # LinAlgError, lu_factor warns that the diagonal element is exactly zero)
    a = tri_with_cond(rng, (4,), 4, dt, 10.0, True, False)
    a[2, 1, 1] = 0
    add('trs_singular_' + dt, 'solve_triangular', dt, [a, np.ones((4, 4, 2))], error=2, flags=UPPER | LEFT)
    s = rng.integers(-4, 5, (4, 4, 4)).astype(np.float64) + 8 * np.eye(4)
    s[2, 3] = 0
    add('lufactor_singular_' + dt, 'lu_factor', dt, [s], error=2)


def scipy_solver(op, ins, flags):
    """SciPy's result on each matrix of the (broadcast) batch, in float64 / complex128."""
    import scipy.linalg
    if op == 'lu_factor':
        a = ins[0]
        lu, piv = np.empty_like(a), np.empty(a.shape[:-1], np.int32)
        for idx in np.ndindex(*a.shape[:-2]):
            f, p = scipy.linalg.lu_factor(a[idx], check_finite=False)
            lu[idx], piv[idx] = f, p + 1
        return [lu, piv]
    if op == 'solve_triangular':
        a, b = ins
        upper, left, unit = flags & UPPER, flags & LEFT, flags & UNIT
    elif op == 'cholesky_solve':
        b, a = ins
    else:
        a, piv, b = ins
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(b, batch + b.shape[-2:])
    x = np.empty(b.shape, np.result_type(a, b))
    for idx in np.ndindex(*batch):
        if op == 'solve_triangular':
            if left:
                x[idx] = scipy.linalg.solve_triangular(a[idx], b[idx], lower=not upper, unit_diagonal=bool(unit))
            else:  # X A = B: A^T X^T = B^T
                x[idx] = scipy.linalg.solve_triangular(a[idx], b[idx].T, trans='T', lower=not upper,
                                                       unit_diagonal=bool(unit)).T
        elif op == 'cholesky_solve':
            x[idx] = scipy.linalg.cho_solve((a[idx], not (flags & UPPER)), b[idx])
        else:
            x[idx] = scipy.linalg.lu_solve((a[idx], np.broadcast_to(piv, batch + piv.shape[-1:])[idx] - 1), b[idx])
    return [x]


def solver_matrix(op, ins, flags):
    """The matrix each solve inverts (what its error bound's condition number is of)."""
    if op == 'solve_triangular':
        a = ins[0]
        t = np.triu(a) if flags & UPPER else np.tril(a)
        if flags & UNIT:
            t = t - t * np.eye(a.shape[-1]) + np.eye(a.shape[-1])
        return t
    if op == 'cholesky_solve':
        f = ins[1]
        return adj(f) @ f if flags & UPPER else f @ adj(f)
    if op == 'lu_solve':
        lu, piv = ins[0], ins[1]
        n = lu.shape[-1]
        pa = np.tril(lu, -1) + np.eye(n)
        return pa @ np.triu(lu)  # P^T A: of A's condition number
    return ins[0]


def check_solver(d, name, m, worst):
    """One case of SOLVERS; returns the number of failures."""
    import warnings
    op, dt, flags = m['op'], m['dtype'], m.get('flags') or 0
    ins = []
    for k in range(m['inputs']):
        x = np.load(os.path.join(d, '%s_in%d.npy' % (name, k)))
        ins.append(x if x.dtype == np.int32 else x.astype(WIDE[dt]))
    err_path = os.path.join(d, 'out', name + '.err')
    text = open(err_path).read().strip() if os.path.exists(err_path) else ''
    if m['error'] is not None:
        with warnings.catch_warnings():
            warnings.simplefilter('error')  # lu_factor's LinAlgWarning: a zero pivot
            try:
                scipy_solver(op, ins, flags)
                refused = False
            except (np.linalg.LinAlgError, Warning):
                refused = True
        want = 'at batch index %d' % m['error']
        if not refused or not text.startswith('TH_ERR_LINALG th_%s_%s: ' % (dt, op)) or want not in text:
            print('%s: SciPy refused: %s; the library said: %r (wanted TH_ERR_LINALG ... %s)' % (name, refused, text,
                                                                                                    want))
            return 1
        return 0
    if text:
        print('%s: the library refused: %s' % (name, text))
        return 1
    refs = scipy_solver(op, ins, flags)
    got = []
    for k in range(len(refs)):
        path = os.path.join(d, 'out', '%s_%d.npy' % (name, k))
        got.append(np.load(path) if os.path.exists(path) else None)
    kinds = [DTYPES[dt], np.int32] if op == 'lu_factor' else [DTYPES[dt]]
    if any(g is None or g.shape != r.shape or g.dtype != np.dtype(t) for g, r, t in zip(got, refs, kinds)):
        print('%s: results %s; SciPy: %s' % (name, [(g.dtype, g.shape) if g is not None else None for g in got],
                                              [r.shape for r in refs]))
        return 1
    eps = np.finfo(DTYPES[dt]).eps
    mat = solver_matrix(op, ins, flags)
    n = mat.shape[-1]
    cond = float(np.max(np.linalg.cond(mat.reshape((-1, n, n))), initial=1.0)) if n else 1.0
    failures = 0
    if op == 'lu_factor':
        lu, piv = got[0].astype(WIDE[dt]), got[1]
        # P L U = A within C * n * eps * max(|L| |U|), the pivots 1-based and in range
        a = ins[0]
        in_range = np.all((piv >= np.arange(1, n + 1)) & (piv <= n))
        if not in_range:
            print('%s: pivots out of range: %s' % (name, piv.ravel()[:16]))
            return 1
        L = np.tril(lu, -1) + np.eye(n)
        U = np.triu(lu)
        rebuilt = L @ U
        for idx in np.ndindex(*a.shape[:-2]):
            for i in range(n - 1, -1, -1):
                q = piv[idx][i] - 1
                rebuilt[idx][[i, q]] = rebuilt[idx][[q, i]]
        growth = float(np.max(np.abs(L) @ np.abs(U), initial=0.0)) or 1.0
        ratio = np.max(np.abs(rebuilt - a), initial=0.0) / growth / (n * eps)
        same = np.array_equal(piv, refs[1])
        worst['lu_factor reconstruction'] = max(worst.get('lu_factor reconstruction', 0.0), float(ratio))
        if not ratio <= C:
            print('%s: P L U - A is %.3g x n * eps * |L||U| (bound %g)' % (name, ratio, C))
            failures += 1
        if same:  # the same pivots (a near tie may pick another row in single precision): the same factors
            scale = float(np.max(np.abs(refs[0]), initial=0.0)) or 1.0
            r2 = np.max(np.abs(lu - refs[0]), initial=0.0) / scale / (n * cond * eps)
            worst['lu_factor vs scipy'] = max(worst.get('lu_factor vs scipy', 0.0), float(r2))
            if not r2 <= C:
                print('%s: LU differs from SciPy\'s by %.3g x n * cond * eps (bound %g)' % (name, r2, C))
                failures += 1
        elif dt in ('f64', 'c128'):
            print('%s: pivots %s; SciPy\'s %s' % (name, piv.ravel()[:8], refs[1].ravel()[:8]))
            failures += 1
        return failures
    x, ref = got[0].astype(WIDE[dt]), refs[0]
    scale = float(np.max(np.abs(ref), initial=0.0)) or 1.0
    ratio = float(np.max(np.abs(x - ref), initial=0.0)) / scale / (n * cond * eps) if n else 0.0
    worst[op] = max(worst.get(op, 0.0), ratio)
    if not ratio <= C:
        print('%s: differs from SciPy by %.3g x n %d * cond %.3g * eps * max|ref| (bound %g)' % (name, ratio, n, cond,
                                                                                                C))
        failures += 1
    return failures


# ---- lstsq, pinv, matrix_rank against numpy.linalg (LAPACK only: refused, naming the option, without it). The
# C side passes rcond / rtol = 10^-flags (flags 0: the default, eps of the dtype * max(m, n)) ----

LEAST_SQUARES = ('lstsq', 'pinv', 'matrix_rank')


def write_least_squares(add, dt):
    rng = np.random.default_rng(1516)
    single = dt in ('f32', 'c64')
    for cond_name, cond in (('good', 10.0), ('ill', 1e2 if single else 1e4)):
        for m, n in ((1, 1), (5, 3), (3, 5), (8, 8), (33, 20), (20, 33)):
            for batch in ((), (4,), (2, 3)):
                for fortran in (False, True):
                    tag = '%s_%s_%dx%d_b%s_%s' % (dt, cond_name, m, n, 'x'.join(map(str, batch)) or '0',
                                                  'F' if fortran else 'C')
                    k = min(m, n)
                    a = np.empty(batch + (m, n), WIDE[dt])
                    for idx in np.ndindex(*batch):
                        u, _ = np.linalg.qr(rand(rng, (m, k), dt))
                        v, _ = np.linalg.qr(rand(rng, (n, k), dt))
                        s = np.logspace(0, -np.log10(cond), k) if k > 1 else np.ones(1)
                        a[idx] = (u * s) @ adj(v)
                    add('lstsq_' + tag, 'lstsq', dt, [a, rand(rng, batch + (m, 2), dt)], fortran, flags=0)
                    add('pinv_' + tag, 'pinv', dt, [a], fortran, flags=0)
                    add('rank_' + tag, 'matrix_rank', dt, [a], fortran, flags=0)
        # rank-deficient: a product through rank r, with an rtol far from the values (10^-3 single, 10^-8 double)
        for m, n, r in ((6, 4, 2), (4, 6, 3), (9, 9, 5)):
            for batch in ((), (3,)):
                tag = '%s_%s_%dx%d_r%d_b%s' % (dt, cond_name, m, n, r, 'x'.join(map(str, batch)) or '0')
                a = rand(rng, batch + (m, r), dt) @ rand(rng, batch + (r, n), dt)
                flags = 3 if single else 8
                add('lstsq_def_' + tag, 'lstsq', dt, [a, rand(rng, batch + (m, 3), dt)], flags=flags)
                add('pinv_def_' + tag, 'pinv', dt, [a], flags=flags)
                add('rank_def_' + tag, 'matrix_rank', dt, [a], flags=flags)


def check_least_squares(d, name, m, worst):
    op, dt, flags = m['op'], m['dtype'], m.get('flags') or 0
    ins = [np.load(os.path.join(d, '%s_in%d.npy' % (name, k))).astype(WIDE[dt]) for k in range(m['inputs'])]
    err_path = os.path.join(d, 'out', name + '.err')
    text = open(err_path).read().strip() if os.path.exists(err_path) else ''
    with open(os.path.join(d, 'out', 'lapack.txt')) as f:
        have_lapack = f.read().strip() == 'yes'
    if not have_lapack:
        if not text.startswith('TH_ERR_UNSUPPORTED th_%s_%s: needs LAPACK' % (dt, op)) or '-Dlapack=enabled' not in text:
            print('%s: without LAPACK the library said %r (wanted TH_ERR_UNSUPPORTED naming the option)' % (name, text))
            return 1
        return 0
    if text:
        print('%s: the library refused: %s' % (name, text))
        return 1
    a = ins[0]
    rows, cols = a.shape[-2:]
    eps = np.finfo(DTYPES[dt]).eps
    rtol = 10.0 ** -flags if flags else eps * max(rows, cols)
    real = np.dtype(DTYPES[dt]).type(0).real.dtype
    nres = {'lstsq': 4, 'pinv': 1, 'matrix_rank': 1}[op]
    got = []
    for k in range(nres):
        path = os.path.join(d, 'out', '%s_%d.npy' % (name, k))
        got.append(np.load(path) if os.path.exists(path) else None)
    sv = np.linalg.svd(a, compute_uv=False)
    smax = sv[..., :1] if sv.shape[-1] else np.zeros(a.shape[:-2] + (1,))
    rank_ref = np.sum(sv > rtol * smax, axis=-1)
    cond = float(np.max(sv[..., 0] / np.where(rank_ref > 0, np.take_along_axis(sv, np.maximum(rank_ref, 1)[..., None] - 1, -1)[..., 0], 1.0), initial=1.0))
    unit = max(rows, cols) * cond * cond * eps
    failures = 0
    if op == 'matrix_rank':
        ref = np.linalg.matrix_rank(a, tol=rtol * smax[..., 0])  # each matrix its own tolerance
        g = got[0]
        if g is None or g.dtype != np.int64 or g.shape != np.shape(ref) or not np.array_equal(g, ref):
            print('%s: rank %s; NumPy: %s' % (name, g, ref))
            return 1
        worst['matrix_rank (exact)'] = 0.0
        return 0
    if op == 'pinv':
        ref = np.linalg.pinv(a, rcond=rtol)
        g = got[0]
        if g is None or g.shape != ref.shape or g.dtype != np.dtype(DTYPES[dt]):
            print('%s: pinv %s; NumPy: %s' % (name, None if g is None else (g.dtype, g.shape), ref.shape))
            return 1
        scale = float(np.max(np.abs(ref), initial=0.0)) or 1.0
        ratio = float(np.max(np.abs(g.astype(WIDE[dt]) - ref), initial=0.0)) / scale / unit
        worst['pinv'] = max(worst.get('pinv', 0.0), ratio)
        if not ratio <= C:
            print('%s: pinv differs from NumPy by %.3g x max(m, n) * cond^2 * eps * max|ref| (bound %g)' % (name, ratio, C))
            failures += 1
        return failures
    b = ins[1]
    x_ref = np.empty(a.shape[:-2] + (cols, b.shape[-1]), WIDE[dt])
    for idx in np.ndindex(*a.shape[:-2]):
        x_ref[idx] = np.linalg.lstsq(a[idx], b[idx], rcond=rtol)[0]
    want = [(DTYPES[dt], x_ref.shape), (real, a.shape[:-2] + ((b.shape[-1],) if rows > cols else (0,))),
            (np.int64, a.shape[:-2]), (real, a.shape[:-2] + (min(rows, cols),))]
    if any(g is None or g.dtype != np.dtype(t) or g.shape != sh for g, (t, sh) in zip(got, want)):
        print('%s: results %s; wanted %s' % (name, [None if g is None else (g.dtype, g.shape) for g in got], want))
        return 1
    x, res, rank, s = got
    scale = float(np.max(np.abs(x_ref), initial=0.0)) or 1.0
    ratio = float(np.max(np.abs(x.astype(WIDE[dt]) - x_ref), initial=0.0)) / scale / unit
    worst['lstsq solution'] = max(worst.get('lstsq solution', 0.0), ratio)
    if not ratio <= C:
        print('%s: X differs from NumPy by %.3g x max(m, n) * cond^2 * eps * max|ref| (bound %g)' % (name, ratio, C))
        failures += 1
    if not np.array_equal(rank, rank_ref):
        print('%s: rank %s; NumPy\'s singular values give %s' % (name, rank, rank_ref))
        failures += 1
    sratio = float(np.max(np.abs(s - sv), initial=0.0)) / (float(np.max(sv, initial=0.0)) or 1.0) / (max(rows, cols) * eps)
    worst['lstsq values'] = max(worst.get('lstsq values', 0.0), sratio)
    if not sratio <= C:
        print('%s: S differs from NumPy\'s by %.3g x max(m, n) * eps * max S' % (name, sratio))
        failures += 1
    if rows > cols:  # the residuals: |A X_ref - B|^2 per column (NumPy gives them for full rank only)
        r_ref = np.sum(np.abs(a @ x_ref - b) ** 2, axis=-2)
        bscale = float(np.max(np.sum(np.abs(b) ** 2, axis=-2), initial=0.0)) or 1.0
        rratio = float(np.max(np.abs(res - r_ref), initial=0.0)) / bscale / unit
        worst['lstsq residuals'] = max(worst.get('lstsq residuals', 0.0), rratio)
        if not rratio <= C:
            print('%s: residuals differ by %.3g x max(m, n) * cond^2 * eps * max|B|^2' % (name, rratio))
            failures += 1
    return failures


# ---- matrix_norm and cond against numpy.linalg.norm (a matrix ord over the last two axes) and numpy.linalg.cond;
# flags is the th_norm_ord: TH_NORM_FRO, NUC, 1, -1, 2, -2, INF, NEG_INF ----

NORMS = ('matrix_norm', 'cond')
ORDS = ['fro', 'nuc', 1, -1, 2, -2, np.inf, -np.inf]
SVD_ORDS = (1, 4, 5)  # nuc, 2, -2: LAPACK only


def write_norms(add, dt):
    rng = np.random.default_rng(1517)
    single = dt in ('f32', 'c64')
    for o in range(8):
        for m, n in ((1, 1), (4, 4), (5, 3), (3, 7), (33, 33)):
            for batch in ((), (2, 3)):
                for fortran in (False, True):
                    tag = '%s_o%d_%dx%d_b%s_%s' % (dt, o, m, n, 'x'.join(map(str, batch)) or '0', 'F' if fortran else 'C')
                    add('norm_' + tag, 'matrix_norm', dt, [100.0 * rand(rng, batch + (m, n), dt)], fortran, flags=o)
        for cond_name, cond in (('good', 10.0), ('ill', 1e3 if single else 1e6)):
            for n in (1, 4, 33):
                for batch in ((), (4,)):
                    tag = '%s_o%d_%s_n%d_b%s' % (dt, o, cond_name, n, 'x'.join(map(str, batch)) or '0')
                    add('cond_' + tag, 'cond', dt, [with_cond(rng, batch, n, dt, cond)], flags=o)
        if o in (4, 5):  # 2, -2 take any m x n
            add('cond_%s_o%d_wide' % (dt, o), 'cond', dt, [rand(rng, (3, 4, 6), dt)], flags=o)
        elif o != 1:  # singular: an exactly zero pivot gives inf, as NumPy (whose nuc then fails: its SVD of NaN)
            a = rng.integers(-4, 5, (3, 4, 4)).astype(np.float64) + 8 * np.eye(4)
            a[1, 2] = 0
            add('cond_%s_o%d_singular' % (dt, o), 'cond', dt, [a], flags=o)


def check_norm(d, name, m, worst):
    op, dt, o = m['op'], m['dtype'], m.get('flags') or 0
    a = np.load(os.path.join(d, '%s_in0.npy' % name)).astype(WIDE[dt])
    err_path = os.path.join(d, 'out', name + '.err')
    text = open(err_path).read().strip() if os.path.exists(err_path) else ''
    with open(os.path.join(d, 'out', 'lapack.txt')) as f:
        have_lapack = f.read().strip() == 'yes'
    if o in SVD_ORDS and not have_lapack:
        if not text.startswith('TH_ERR_UNSUPPORTED th_%s_%s: needs LAPACK' % (dt, op)) or '-Dlapack=enabled' not in text:
            print('%s: without LAPACK the library said %r (wanted TH_ERR_UNSUPPORTED naming the option)' % (name, text))
            return 1
        return 0
    if text:
        print('%s: the library refused: %s' % (name, text))
        return 1
    path = os.path.join(d, 'out', '%s_0.npy' % name)
    got = np.load(path) if os.path.exists(path) else None
    real = np.dtype(DTYPES[dt]).type(0).real.dtype
    if op == 'matrix_norm':
        ref = np.linalg.norm(a, ORDS[o], axis=(-2, -1))
    else:
        ref = np.linalg.cond(a, ORDS[o])
    ref = np.asarray(ref)
    if got is None or got.dtype != real or got.shape != ref.shape:
        print('%s: result %s; NumPy: %s' % (name, None if got is None else (got.dtype, got.shape), ref.shape))
        return 1
    eps = np.finfo(DTYPES[dt]).eps
    size = max(a.shape[-2:])
    if op == 'matrix_norm':
        unit = size * eps
    else:
        c2 = np.linalg.cond(a.reshape((-1,) + a.shape[-2:]))
        unit = size * float(np.max(np.where(np.isfinite(c2), c2, 1.0), initial=1.0)) * eps
    got = got.astype(np.float64)
    inf = np.isinf(ref)
    if not np.array_equal(inf, np.isinf(got)):
        print('%s: inf where NumPy has %s: %s' % (name, ref.ravel()[:6], got.ravel()[:6]))
        return 1
    fin = ~inf
    den = np.abs(ref)
    if op == 'matrix_norm' and o == 5:  # the smallest singular value is accurate to eps times the largest
        den = np.asarray(np.linalg.norm(a, 2, axis=(-2, -1)))
    rel = np.abs(got[fin] - ref[fin]) / np.where(den[fin] != 0, den[fin], 1.0)
    ratio = float(np.max(rel, initial=0.0)) / unit
    key = '%s %s' % (op, ORDS[o])
    worst[key] = max(worst.get(key, 0.0), ratio)
    if not ratio <= C:
        print('%s: differs from NumPy by %.3g x %s (bound %g)' % (name, ratio,
                                                                'max(m, n) * eps' if op == 'matrix_norm' else 'n * cond * eps', C))
        return 1
    return 0


# ---- matrix_power against numpy.linalg.matrix_power; flags is the power ----

def write_powers(add, dt):
    rng = np.random.default_rng(1518)
    for n in (1, 4, 9):
        for batch in ((), (2, 3)):
            for fortran in (False, True):
                for p in (0, 1, 2, 5, 12, -1, -3):
                    tag = '%s_n%d_b%s_%s_p%d' % (dt, n, 'x'.join(map(str, batch)) or '0', 'F' if fortran else 'C', p)
                    a = with_cond(rng, batch, n, dt, 4.0)  # |A| = 1, cond 4: A^p stays in range
                    add('power_' + tag.replace('-', 'm'), 'matrix_power', dt, [a], fortran, flags=p)
    a = rng.integers(-4, 5, (3, 4, 4)).astype(np.float64) + 8 * np.eye(4)
    a[1, 2] = 0
    add('power_singular_' + dt, 'matrix_power', dt, [a], error=1, flags=-2)


def check_power(d, name, m, worst):
    dt, p = m['dtype'], m.get('flags') or 0
    a = np.load(os.path.join(d, '%s_in0.npy' % name)).astype(WIDE[dt])
    err_path = os.path.join(d, 'out', name + '.err')
    text = open(err_path).read().strip() if os.path.exists(err_path) else ''
    if m['error'] is not None:
        try:
            np.linalg.matrix_power(a, p)
            refused = False
        except np.linalg.LinAlgError:
            refused = True
        want = 'at batch index %d' % m['error']
        if not refused or not text.startswith('TH_ERR_LINALG th_%s_matrix_power: ' % dt) or want not in text:
            print('%s: NumPy refused: %s; the library said %r (wanted TH_ERR_LINALG ... %s)' % (name, refused, text, want))
            return 1
        return 0
    if text:
        print('%s: the library refused: %s' % (name, text))
        return 1
    ref = np.linalg.matrix_power(a, p)
    path = os.path.join(d, 'out', '%s_0.npy' % name)
    got = np.load(path) if os.path.exists(path) else None
    if got is None or got.shape != ref.shape or got.dtype != np.dtype(DTYPES[dt]):
        print('%s: result %s; NumPy: %s' % (name, None if got is None else (got.dtype, got.shape), ref.shape))
        return 1
    n = a.shape[-1]
    eps = np.finfo(DTYPES[dt]).eps
    # each of the about 2 log2 |p| products adds n eps relative to |A|^k; A^-1 adds cond(A) = 4
    steps = max(1, 2 * int(abs(p)).bit_length())
    unit = steps * n * eps * (4.0 if p < 0 else 1.0) * max(1, abs(p))
    scale = float(np.max(np.abs(ref), initial=0.0)) or 1.0
    ratio = float(np.max(np.abs(got.astype(WIDE[dt]) - ref), initial=0.0)) / scale / unit
    worst['matrix_power'] = max(worst.get('matrix_power', 0.0), ratio)
    if not ratio <= C:
        print('%s: differs from NumPy by %.3g x |p| * 2 log2 |p| * n * eps * max|ref| (bound %g)' % (name, ratio, C))
        return 1
    return 0


# ---- matrix_exp against scipy.linalg.expm (float64 / complex128, from the very values the library got) and, where
# torch imports, torch.linalg.matrix_exp in f32 / c64 for comparison. The error is the relative 1-norm
# |X - ref|_1 / |ref|_1, bounded by C * n * eps * max(1, |A|_1) (exp's condition number is at least |A|_1, about it
# for a normal A). ----

def write_exps(add, dt):
    rng = np.random.default_rng(1519)
    single = dt in ('f32', 'c64')
    for n in (1, 3, 8):
        for batch in ((), (2, 3)):
            for fortran in (False, True):
                # 1-norms from 0.01 to 100 (40 in single precision, whose exp(100) overflows): every Pade degree,
                # and s > 0 for the largest
                for scale in (0.01, 0.2, 0.8, 2.0, 5.0, 40.0 if single else 100.0):
                    a = rand(rng, batch + (n, n), dt)
                    a *= scale / np.max(np.sum(np.abs(a), axis=-2), axis=-1)[..., None, None]
                    tag = '%s_n%d_b%s_%s_s%g' % (dt, n, 'x'.join(map(str, batch)) or '0', 'F' if fortran else 'C', scale)
                    add('exp_rand_' + tag.replace('.', 'p'), 'matrix_exp', dt, [a], fortran)
    for n in (2, 6):
        nil = np.triu(rand(rng, (3, n, n), dt), 1)  # nilpotent: exp is a finite sum
        add('exp_nilpotent_%s_n%d' % (dt, n), 'matrix_exp', dt, [nil])
        d = rand(rng, (3, n), dt) * 3  # diagonal: exp of each entry
        add('exp_diag_%s_n%d' % (dt, n), 'matrix_exp', dt, [d[..., None] * np.eye(n)])
    w = np.array([0.5, 3.0, 30.0])  # rotation generators: exp gives cos / sin
    g = np.zeros((3, 2, 2))
    g[:, 0, 1], g[:, 1, 0] = -w, w
    add('exp_rotation_' + dt, 'matrix_exp', dt, [g])
    big = rand(rng, (2, 5, 5), dt) * (8.0 if single else 20.0)  # |A|_1 ~ 40-100: s > 0, result in range
    add('exp_large_' + dt, 'matrix_exp', dt, [big])


def check_exp(d, name, m, worst):
    import scipy.linalg
    dt = m['dtype']
    a = np.load(os.path.join(d, '%s_in0.npy' % name)).astype(WIDE[dt])
    err_path = os.path.join(d, 'out', name + '.err')
    if os.path.exists(err_path):
        print('%s: the library refused: %s' % (name, open(err_path).read().strip()))
        return 1
    path = os.path.join(d, 'out', '%s_0.npy' % name)
    got = np.load(path) if os.path.exists(path) else None
    if got is None or got.shape != a.shape or got.dtype != np.dtype(DTYPES[dt]):
        print('%s: result %s; input %s' % (name, None if got is None else (got.dtype, got.shape), a.shape))
        return 1
    n = a.shape[-1]
    eps = np.finfo(DTYPES[dt]).eps
    failures = 0
    torch_ref = None
    if dt in ('f32', 'c64'):
        try:
            import torch
            torch_ref = torch.linalg.matrix_exp(torch.from_numpy(np.ascontiguousarray(a.astype(DTYPES[dt])))).numpy()
        except ImportError:
            torch_ref = None
    for idx in np.ndindex(*a.shape[:-2]):
        ref = scipy.linalg.expm(a[idx])
        norm1 = lambda x: float(np.max(np.sum(np.abs(x), axis=0), initial=0.0))
        unit = n * eps * max(1.0, norm1(a[idx]))
        ratio = norm1(got[idx].astype(WIDE[dt]) - ref) / norm1(ref) / unit
        worst['matrix_exp'] = max(worst.get('matrix_exp', 0.0), ratio)
        if torch_ref is not None:
            tr = norm1(torch_ref[idx].astype(WIDE[dt]) - ref) / norm1(ref) / unit
            worst['matrix_exp (torch)'] = max(worst.get('matrix_exp (torch)', 0.0), tr)
        if not ratio <= C:
            print('%s%s: differs from scipy.linalg.expm by %.3g x n * eps * max(1, |A|_1) in the relative 1-norm '
                  '(bound %g)' % (name, list(idx), ratio, C))
            failures += 1
    return failures


# ---- eig and eigvals: reconstruction and the values against numpy.linalg.eig ----

def write_eigs(add, dt):
    rng = np.random.default_rng(1521)
    for n in (1, 2, 5, 12):
        for batch in ((), (2, 3)):
            for fortran in (False, True):
                tag = '%s_n%d_b%s_%s' % (dt, n, 'x'.join(map(str, batch)) or '0', 'F' if fortran else 'C')
                add('eig_rand_' + tag, 'eig', dt, [rand(rng, batch + (n, n), dt)], fortran)
                add('eigvals_rand_' + tag, 'eigvals', dt, [rand(rng, batch + (n, n), dt)], fortran)
    # rotations: the values +-i w exactly, a real A's conjugate pair; upper triangular: the values are the diagonal
    w = np.array([0.5, 3.0, 30.0])
    g = np.zeros((3, 2, 2))
    g[:, 0, 1], g[:, 1, 0] = -w, w
    add('eig_rotation_' + dt, 'eig', dt, [g])
    add('eig_triangular_' + dt, 'eig', dt, [np.triu(rand(rng, (2, 6, 6), dt)) + 4 * np.diag(np.arange(6.0))])
    add('eig_empty_' + dt, 'eig', dt, [np.zeros((3, 0, 0))])
    a = rand(rng, (3, 4, 4), dt)
    a[1, 2, 2] = np.nan
    add('eig_nan_' + dt, 'eig', dt, [a], error=1)


def check_eig(d, name, m, worst, have_lapack):
    import scipy.linalg
    dt, op = m['dtype'], m['op']
    a = np.load(os.path.join(d, '%s_in0.npy' % name)).astype(WIDE[dt])
    err_path = os.path.join(d, 'out', name + '.err')
    text = open(err_path).read().strip() if os.path.exists(err_path) else None
    if not have_lapack:
        if text is None or not text.startswith('TH_ERR_UNSUPPORTED th_%s_%s: needs LAPACK' % (dt, op)):
            print('%s: without LAPACK the library said %r (wanted TH_ERR_UNSUPPORTED)' % (name, text))
            return 1
        return 0
    if m['error'] is not None:
        want = 'TH_ERR_LINALG th_%s_%s: A holds NaN at batch index %d' % (dt, op, m['error'])
        if text is None or not text.startswith(want):
            print('%s: the library said %r (wanted %r...)' % (name, text, want))
            return 1
        return 0
    if text is not None:
        print('%s: the library refused: %s' % (name, text))
        return 1
    cdt = np.complex64 if dt in ('f32', 'c64') else np.complex128
    got = []
    for k in range(2 if op == 'eig' else 1):
        path = os.path.join(d, 'out', '%s_%d.npy' % (name, k))
        got.append(np.load(path) if os.path.exists(path) else None)
    shapes = [a.shape[:-1], a.shape][:len(got)]
    if any(g is None or g.shape != s or g.dtype != cdt for g, s in zip(got, shapes)):
        print('%s: results %s; wanted %s of %s' % (name, [None if g is None else (g.dtype, g.shape) for g in got],
                                                   shapes, np.dtype(cdt)))
        return 1
    n = a.shape[-1]
    if n == 0:
        return 0  # the shapes are all there is to check
    eps = np.finfo(DTYPES[dt]).eps
    failures = 0
    for idx in np.ndindex(*a.shape[:-2]):
        A = a[idx]
        norm = max(np.linalg.norm(A, 2), np.finfo(np.float64).tiny)
        vals = got[0][idx].astype(np.complex128)
        ref, left, right = scipy.linalg.eig(A, left=True, right=True)
        kappa = 1.0 / np.maximum(np.abs(np.sum(left.conj() * right, axis=0)), 1e-300)
        numpy_vals = np.linalg.eigvals(A)
        if not np.allclose(np.sort_complex(numpy_vals), np.sort_complex(ref), rtol=1e-8, atol=1e-8 * norm):
            print('%s%s: numpy.linalg.eig and scipy.linalg.eig disagree' % (name, list(idx)))
        used = np.zeros(n, dtype=bool)
        for v in vals:  # each value against the nearest of NumPy's not yet matched
            dist = np.where(used, np.inf, np.abs(numpy_vals - v))
            j = int(np.argmin(dist))
            used[j] = True
            k = int(np.argmin(np.abs(ref - numpy_vals[j])))
            ratio = dist[j] / (n * eps * norm * kappa[k])
            worst[op + ' values'] = max(worst.get(op + ' values', 0.0), ratio)
            if not ratio <= C:
                print('%s%s: value %s is %.3g x n * eps * |A| * kappa from NumPy\'s %s (bound %g)'
                      % (name, list(idx), v, ratio, numpy_vals[j], C))
                failures += 1
        if op == 'eig':
            V = got[1][idx].astype(np.complex128)
            res = np.linalg.norm(A @ V - V * vals[None, :], 2) / (n * eps * norm)
            unit = np.max(np.abs(np.linalg.norm(V, axis=0) - 1.0), initial=0.0) / (n * eps)
            worst['eig reconstruction'] = max(worst.get('eig reconstruction', 0.0), res)
            worst['eig unit vectors'] = max(worst.get('eig unit vectors', 0.0), unit)
            if not (res <= C and unit <= C):
                print('%s%s: |A V - V diag(w)| is %.3g x n * eps * |A|, the columns\' norms %.3g x n * eps from 1 '
                      '(bound %g)' % (name, list(idx), res, unit, C))
                failures += 1
    return failures


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('write', 'check'):
        print(__doc__)
        sys.exit(2)
    sys.exit(write(sys.argv[2]) if sys.argv[1] == 'write' else check(sys.argv[2]))
