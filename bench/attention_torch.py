#!/usr/bin/env python3
"""PyTorch's side of bench/attention_bench.c: attention on (batch 8, heads 8, L = S = 512, E = 64) float32, plain and
causal, 1 and 2 threads, by the explicit formula softmax(q @ k^T * scale + mask) @ v (torch 1.13 has no
F.scaled_dot_product_attention; PyTorch 2.x's is not installed here); prints "key threads best_ms median_ms".
Run with /usr/bin/python3."""
import math
import time

import torch

torch.manual_seed(7)
q, k, v = (torch.rand(8, 8, 512, 64) * 2 - 1 for _ in range(3))
causal_mask = torch.ones(512, 512, dtype=torch.bool).tril()
scale = 1 / math.sqrt(64)


def formula(causal):
    s = (q * scale) @ k.transpose(-2, -1)
    if causal:
        s = s.masked_fill(~causal_mask, float('-inf'))
    return torch.softmax(s, dim=-1) @ v


for threads in (1, 2):
    torch.set_num_threads(threads)
    for causal in (False, True):
        formula(causal)
        t = []
        for _ in range(7):
            t0 = time.perf_counter()
            formula(causal)
            t.append((time.perf_counter() - t0) * 1e3)
        t.sort()
        print('torch_formula%s %d %.2f %.2f' % ('_causal' if causal else '', threads, t[0], t[3]), flush=True)
