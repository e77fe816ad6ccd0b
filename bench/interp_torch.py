#!/usr/bin/env python3
"""torch.nn.functional.interpolate of (8, 64, 128, 128) float32 to (8, 64, 256, 256), bilinear (align_corners
False) and nearest, one thread, into a preallocated out (torch._C._nn.upsample_*2d's out=), best and median of
11: the peer of bench/interp_bench.c. Prints "key best_ms median_ms"."""
import time
import torch

torch.set_num_threads(1)
x = torch.rand(8, 64, 128, 128)
y = torch.empty(8, 64, 256, 256)
runs = [('bilinear 2x', lambda: torch._C._nn.upsample_bilinear2d(x, (256, 256), False, out=y)),
        ('nearest 2x', lambda: torch._C._nn.upsample_nearest2d(x, (256, 256), out=y))]
for key, f in runs:
    f()
    ts = []
    for _ in range(11):
        t0 = time.perf_counter()
        f()
        ts.append((time.perf_counter() - t0) * 1e3)
    ts.sort()
    print('%-22s %9.2f %9.2f' % ('torch %s' % key, ts[0], ts[5]))
