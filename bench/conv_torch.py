#!/usr/bin/env python3
"""torch.nn.functional.conv2d of (8, 64, 56, 56) float32 with a 64x64x3x3 kernel, padding 1, one thread, into a
preallocated out where torch allows it (it does not for conv2d: the new form), best and median of 11 (the peer
of bench/conv_bench.c); and conv_transpose2d of a decoder layer: (8, 64, 32, 32) to (8, 32, 64, 64) with a
64x32x4x4 kernel, stride 2, padding 1."""
import time
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
x = torch.rand(8, 64, 56, 56)
w = torch.rand(64, 64, 3, 3)
flop = 2.0 * 8 * 64 * 56 * 56 * 64 * 9
ts = []
for _ in range(11):
    t0 = time.perf_counter()
    F.conv2d(x, w, None, padding=1)
    ts.append((time.perf_counter() - t0) * 1e3)
ts.sort()
print('%-22s %9.2f %9.2f %7.1f' % ('torch %s conv2d' % torch.__version__, ts[0], ts[5], flop / ts[0] / 1e6))

xt = torch.rand(8, 64, 32, 32)
wt = torch.rand(64, 32, 4, 4)
flop_t = 2.0 * 8 * 64 * 32 * 32 * 32 * 16
ts = []
for _ in range(11):
    t0 = time.perf_counter()
    F.conv_transpose2d(xt, wt, None, stride=2, padding=1)
    ts.append((time.perf_counter() - t0) * 1e3)
ts.sort()
print('%-22s %9.2f %9.2f %7.1f' % ('torch conv_transpose2d', ts[0], ts[5], flop_t / ts[0] / 1e6))
