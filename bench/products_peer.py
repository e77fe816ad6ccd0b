#!/usr/bin/env python3
"""The NumPy and torch side of bench_products.c: the same einsums, timed the same way (best and median of the
repetitions, ms), with np.matmul / torch.matmul for reference. Run by products_run.sh with the thread count it sets
(OPENBLAS_NUM_THREADS, OMP_NUM_THREADS, torch.set_num_threads). Needs Debian's /usr/bin/python3 (NumPy; torch
optional)."""
import os
import sys
import time

import numpy as np


def report(key, fn, reps):
    fn()
    ms = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ms.append((time.perf_counter() - t0) * 1e3)
    ms.sort()
    print('%s %.3f %.3f ms' % (key, ms[0], ms[len(ms) // 2]))
    sys.stdout.flush()


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((64, 256, 256), dtype=np.float32)
    b = rng.standard_normal((64, 256, 256), dtype=np.float32)
    x, y, z = (rng.standard_normal((1024, 1024), dtype=np.float32) for _ in range(3))
    q = rng.standard_normal((8, 8, 256, 64), dtype=np.float32)
    k = rng.standard_normal((8, 8, 256, 64), dtype=np.float32)
    report('bmm_np_matmul_64x256', lambda: np.matmul(a, b), 21)
    report('bmm_np_einsum_optimize_64x256', lambda: np.einsum('bij,bjk->bik', a, b, optimize=True), 21)
    report('chain_np_einsum_optimize_1024', lambda: np.einsum('ij,jk,kl->il', x, y, z, optimize=True), 11)
    report('chain_np_multi_dot_1024', lambda: np.linalg.multi_dot([x, y, z]), 11)
    report('attn_np_einsum_optimize_8x8x256x64', lambda: np.einsum('bhqd,bhkd->bhqk', q, k, optimize=True), 21)
    try:
        import torch
    except ImportError:
        print('# torch: not importable by %s' % sys.executable)
        return 0
    torch.set_num_threads(int(os.environ.get('OMP_NUM_THREADS', '1')))
    ta, tb, tx, ty, tz = (torch.from_numpy(v) for v in (a, b, x, y, z))
    tq, tk = torch.from_numpy(q), torch.from_numpy(k)
    with torch.no_grad():
        report('bmm_torch_matmul_64x256', lambda: torch.matmul(ta, tb), 21)
        report('bmm_torch_einsum_64x256', lambda: torch.einsum('bij,bjk->bik', ta, tb), 21)
        report('chain_torch_einsum_1024', lambda: torch.einsum('ij,jk,kl->il', tx, ty, tz), 11)
        report('attn_torch_einsum_8x8x256x64', lambda: torch.einsum('bhqd,bhkd->bhqk', tq, tk), 21)
    print('# torch %s, %d threads' % (torch.__version__, torch.get_num_threads()))
    return 0


if __name__ == '__main__':
    sys.exit(main())
