#!/usr/bin/env python3
"""PyTorch's side of bench/nn_bench.c: softmax, layer_norm and clone of an (8192, 4096) float32 tensor over the last
dim, 1 and 2 threads; prints "key threads best_ms median_ms". Run with /usr/bin/python3 (torch 1.13)."""
import time

import torch
import torch.nn.functional as F

x = torch.rand(8192, 4096) * 8 - 4
w = 1 + torch.arange(4096, dtype=torch.float32) / 4096
b = torch.arange(4096, dtype=torch.float32) / 8192
out = torch.empty_like(x)
cases = {
    'copy_out': lambda: out.copy_(x),
    'clone': lambda: x.clone(),
    'softmax': lambda: torch.softmax(x, -1),
    'log_softmax': lambda: torch.log_softmax(x, -1),
    'layer_norm': lambda: F.layer_norm(x, (4096,), w, b, 1e-5),
}
for threads in (1, 2):
    torch.set_num_threads(threads)
    for name, fn in cases.items():
        fn()
        t = []
        for _ in range(11):
            t0 = time.perf_counter()
            fn()
            t.append((time.perf_counter() - t0) * 1e3)
        t.sort()
        print('torch_%s %d %.2f %.2f' % (name, threads, t[0], t[5]), flush=True)
