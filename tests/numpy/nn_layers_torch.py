#!/usr/bin/env python3
"""PyTorch's group_norm, batch_norm (inference), glu, the gated units swiglu and geglu, embedding, rotary
position embedding (both layouts), nll_loss, cross_entropy and adaptive average and max pooling in float64, the peer of ops/nn.h's layers (tests/numpy/nn_layers_torch.c).

    nn_layers_torch.py write DIR   draws random cases (ops x dtypes x shapes x groups/dims x weight/bias) and
                                   for each writes DIR/<case>_x.npy (the input, already rounded to the case's
                                   dtype, as float64), _m.npy and _v.npy (batch_norm's running statistics), _w.npy
                                   and _b.npy where the case has them, and _ref.npy: torch's result computed in
                                   float64 from those rounded values; for the gated units _s.npy, the scale of
                                   each result's rounding: |a| for glu, |a * b| for the others. DIR/cases.txt lists
                                   "case op dtype g has_w has_b eps layout" (g: num_groups, or the dim halved).

group_norm's and batch_norm's references are their defining formulas in float64 torch ops, checked against
F.group_norm and F.batch_norm(training=False) (whose kernels fold the scale into one multiply-add). glu is
F.glu; swiglu is F.silu(a) * b and geglu F.gelu(a) * b (approximate 'none' and 'tanh'), a and b the halves
from torch.chunk: torch 1.13 has neither as one function. torch's float64 gelu is x * 0.5 * (1 + erf(x / sqrt(2)))
(and the tanh form 1 + tanh(...)), which cancels for negative x: its absolute error is about an ulp of |a * b|,
which is the scale the C side measures f64 errors at. Exits 77 when torch cannot be imported (a skip).
"""
import os
import sys

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError:
    print("SKIP: torch cannot be imported by %s" % sys.executable)
    sys.exit(77)

OPS = ['group_norm', 'batch_norm', 'glu', 'swiglu', 'geglu', 'geglu_tanh', 'embedding', 'rope_halves',
       'rope_interleaved', 'nll_loss', 'cross_entropy', 'adaptive_avg_pool2d', 'adaptive_max_pool2d']
DTYPES = {'f32': torch.float32, 'f64': torch.float64, 'f16': torch.float16, 'bf16': torch.bfloat16}
CASES_PER = 30  # per op and dtype


def rounded(a, dtype):
    """a (float64 numpy) rounded to dtype, as float64 torch."""
    return torch.from_numpy(np.asarray(a, dtype=np.float64)).to(DTYPES[dtype]).to(torch.float64)


def save(d, name, parts):
    for part, t in parts.items():
        if t is not None:
            np.save(os.path.join(d, name + '_' + part + '.npy'), t.contiguous().numpy())


def embedding_case(d, rng, name, dt, k):
    """F.embedding: weight (num, dim), int64 indices of 0 to 3 dims; _x is the weight, _i the indices."""
    num, dim = int(rng.integers(1, 50)), int(rng.integers(1, 70))
    ishape = [int(rng.integers(1, 6)) for _ in range(k % 4)]
    weight = rounded(rng.standard_normal((num, dim)) * 3, dt)
    idx = torch.from_numpy(rng.integers(0, num, ishape).astype(np.int64))
    ref = F.embedding(idx, weight)
    save(d, name, {'x': weight, 'i': idx, 'ref': ref})
    return '%s embedding %s 0 0 0 0 %d' % (name, dt, k % 4)


def rope_case(d, rng, name, dt, k, interleaved):
    """Rotary embedding composed from torch ops: x (B, H, L, D) with tables (L, h), (B, L, H, D) with (L, 1, h),
    or (L, D) with (L, h); 2h = D, or less (partial rotary: the rest passes through). _m and _v are the cosines
    and sines, _s the scale of each result's rounding (|a cos| + |b sin|, or |x| where it passes through)."""
    length, dim = int(rng.integers(1, 20)), 2 * int(rng.integers(1, 40))
    h = dim // 2 if k % 3 else int(rng.integers(1, dim // 2 + 1))
    form = k % 3
    if form == 0:
        shape, tshape = [int(rng.integers(1, 3)), int(rng.integers(1, 4)), length, dim], [length, h]
    elif form == 1:
        shape, tshape = [int(rng.integers(1, 3)), length, int(rng.integers(1, 4)), dim], [length, 1, h]
    else:
        shape, tshape = [length, dim], [length, h]
    x = rounded(rng.standard_normal(shape) * [1.0, 5.0][k % 2], dt)
    theta = [10000.0, 500000.0][k % 2]
    pos = torch.arange(length, dtype=torch.float64) + float(rng.integers(0, 2000))
    inv = theta ** (-torch.arange(h, dtype=torch.float64) * 2 / (2 * h))
    ang = torch.outer(pos, inv).reshape(tshape)
    c, sn = rounded(torch.cos(ang).numpy(), dt), rounded(torch.sin(ang).numpy(), dt)
    rot, rest = x[..., :2 * h], x[..., 2 * h:]
    if interleaved:  # GPT-J: pairs (2i, 2i + 1), as LLaMA's complex form: (a + ib)(cos + i sin)
        z = torch.view_as_complex(rot.reshape(*rot.shape[:-1], h, 2).contiguous())
        y = torch.view_as_real(z * torch.complex(c, sn)).flatten(-2)
        a, b = rot[..., 0::2], rot[..., 1::2]
        sc = torch.stack([a.abs() * c.abs() + b.abs() * sn.abs(), b.abs() * c.abs() + a.abs() * sn.abs()], -1).flatten(-2)
    else:  # GPT-NeoX, Hugging Face's rotate_half
        a, b = rot[..., :h], rot[..., h:]
        cc, ss = torch.cat([c, c], -1), torch.cat([sn, sn], -1)
        y = rot * cc + torch.cat([-b, a], -1) * ss
        sc = torch.cat([a.abs() * c.abs() + b.abs() * sn.abs(), b.abs() * c.abs() + a.abs() * sn.abs()], -1)
    ref = torch.cat([y, rest], -1)
    scale = torch.cat([sc, rest.abs()], -1)
    save(d, name, {'x': x, 'm': c, 'v': sn, 'ref': ref, 's': scale})
    return '%s %s %s 0 0 0 0 %d' % (name, 'rope_interleaved' if interleaved else 'rope_halves', dt, k % 4)


def loss_case(d, rng, name, dt, k, op):
    """F.nll_loss (of log_softmax values rounded to the dtype) or F.cross_entropy (of logits), input (N, C, *) or
    (C), int64 targets, class weights on and off, reductions mean/sum/none, an ignore_index on and off (some
    targets equal to it), label smoothing for cross_entropy. The line's fields: g the reduction (0 mean, 1 sum,
    2 none), has_w, has_b whether ignore_index is on (it is then -100 or 1), eps the label smoothing; _i holds
    the targets, _m the ignore_index (a 0-d float64)."""
    c = int(rng.integers(1, 12)) if k % 5 else int(rng.integers(100, 400))
    form = k % 4
    if form == 0:
        shape = [c]
    elif form == 1:
        shape = [int(rng.integers(1, 40)), c]
    else:
        shape = [int(rng.integers(1, 5)), c] + [int(rng.integers(1, 6)) for _ in range(form - 1)]
    tshape = [] if form == 0 else [shape[0]] + shape[2:]
    logits = torch.from_numpy(rng.standard_normal(shape) * [1.0, 4.0, 20.0][k % 3])
    x = rounded(logits.numpy(), dt)
    cdim = 1 if len(shape) > 1 else 0
    if op == 'nll_loss':
        x = rounded(torch.log_softmax(x, cdim).numpy(), dt)
    target = torch.from_numpy(rng.integers(0, c, tshape).astype(np.int64))
    reduction = int(k % 3)
    has_w = k % 2 == 1
    use_ignore = k % 4 in (1, 2)
    ignore_index = -100 if k % 8 < 4 else min(1, c - 1)
    if use_ignore and target.numel() > 0:
        mask = torch.from_numpy(rng.random(tshape) < 0.25)
        target = torch.where(mask, torch.full_like(target, ignore_index), target)
    w = rounded(rng.random(c) * 2 + 0.1, dt) if has_w else None
    smoothing = [0.0, 0.1, 0.35][k % 3] if op == 'cross_entropy' and k % 5 != 3 else 0.0
    kw = dict(weight=w, reduction=['mean', 'sum', 'none'][reduction], ignore_index=ignore_index if use_ignore else -100)
    if op == 'nll_loss':
        ref = F.nll_loss(x, target, **kw)
    else:
        ref = F.cross_entropy(x, target, label_smoothing=smoothing, **kw)
    save(d, name, {'x': x, 'i': target, 'w': w, 'ref': ref, 'm': torch.tensor(float(ignore_index), dtype=torch.float64)})
    return '%s %s %s %d %d %d %.17g %d' % (name, op, dt, reduction, int(has_w), int(use_ignore), smoothing, k % 4)


def apool_case(d, rng, name, dt, k, op):
    """F.adaptive_avg_pool2d / F.adaptive_max_pool2d(return_indices=True) of (N, C, H, W) or (C, H, W), output
    sizes smaller, equal and larger than the input's (overlapping windows); g is oh * 1000 + ow, _j the indices."""
    shape = [int(rng.integers(1, 4)) for _ in range(2 - k % 2)] + [int(rng.integers(1, 25)), int(rng.integers(1, 25))]
    oh, ow = int(rng.integers(1, 2 * shape[-2] + 2)), int(rng.integers(1, 2 * shape[-1] + 2))
    if k % 5 == 0:
        oh, ow = 1, 1
    x = rounded(rng.standard_normal(shape) * [1.0, 10.0][k % 2], dt)
    if op == 'adaptive_max_pool2d':
        ref, idx = F.adaptive_max_pool2d(x, (oh, ow), return_indices=True)
    else:
        ref, idx = F.adaptive_avg_pool2d(x, (oh, ow)), None
    save(d, name, {'x': x, 'ref': ref, 'j': idx})
    return '%s %s %s %d 0 0 0 %d' % (name, op, dt, oh * 1000 + ow, k % 4)


def write(d):
    os.makedirs(d, exist_ok=True)
    rng = np.random.default_rng(1616)
    lines = []
    case = 0
    for op in OPS:
        for dt in DTYPES:
            for k in range(CASES_PER):
                if op == 'embedding':
                    lines.append(embedding_case(d, rng, 'c%d' % case, dt, k))
                    case += 1
                    continue
                if op.startswith('adaptive'):
                    lines.append(apool_case(d, rng, 'c%d' % case, dt, k, op))
                    case += 1
                    continue
                if op in ('nll_loss', 'cross_entropy'):
                    lines.append(loss_case(d, rng, 'c%d' % case, dt, k, op))
                    case += 1
                    continue
                if op.startswith('rope'):
                    lines.append(rope_case(d, rng, 'c%d' % case, dt, k, op == 'rope_interleaved'))
                    case += 1
                    continue
                norm = op in ('group_norm', 'batch_norm')
                ndim = int(rng.integers(2 if norm else 1, 6))
                shape = [int(rng.integers(1, 7)) for _ in range(ndim)]
                if norm and k % 3 == 0:
                    shape[1] = [4, 6, 8, 12, 16][k % 5]
                if k % 5 == 1:
                    shape[-1] = int(rng.integers(50, 400))
                scale = [1.0, 3.0, 10.0][k % 3]
                x = rng.standard_normal(shape) * scale + rng.standard_normal()
                g = 0
                if not norm:
                    g = int(rng.integers(-ndim, ndim))
                    shape[g] = 2 * int(rng.integers(1, 5))
                    x = rng.standard_normal(shape) * [1.0, 2.0, 4.0][k % 3]
                xt = rounded(x, dt)
                c = shape[1] if norm else 0
                if op == 'group_norm':
                    divisors = [q for q in range(1, c + 1) if c % q == 0]
                    g = divisors[int(rng.integers(0, len(divisors)))]
                eps = [1e-5, 1e-3, 0.1][k % 3]
                has_w = norm and k % 4 != 3
                has_b = norm and k % 5 != 2
                w = rounded(rng.standard_normal(c) * 1.5, dt) if has_w else None
                b = rounded(rng.standard_normal(c), dt) if has_b else None
                m = v = scale = None
                if op == 'group_norm':
                    n = shape[0]
                    xg = xt.reshape(n, g, -1)
                    mean = xg.mean(-1, keepdim=True)
                    var = (xg - mean).pow(2).mean(-1, keepdim=True)
                    ref = ((xg - mean) / torch.sqrt(var + eps)).reshape(shape)
                    bshape = [1, c] + [1] * (ndim - 2)
                    if w is not None:
                        ref = ref * w.reshape(bshape)
                    if b is not None:
                        ref = ref + b.reshape(bshape)
                    if n * c // g * xg.shape[-1] // (c // g) > 1:  # F.group_norm refuses one value per group
                        lib = F.group_norm(xt, g, w, b, eps)
                        assert torch.allclose(ref, lib, rtol=1e-12, atol=1e-11), (case, (ref - lib).abs().max())
                elif op == 'batch_norm':
                    m = rounded(rng.standard_normal(c), dt)
                    v = rounded(rng.random(c) * 3 + 0.05, dt)
                    bshape = [1, c] + [1] * (ndim - 2)
                    ref = (xt - m.reshape(bshape)) / torch.sqrt(v.reshape(bshape) + eps)
                    if w is not None:
                        ref = ref * w.reshape(bshape)
                    if b is not None:
                        ref = ref + b.reshape(bshape)
                    lib = F.batch_norm(xt, m, v, w, b, training=False, eps=eps)
                    assert torch.allclose(ref, lib, rtol=1e-12, atol=1e-11), (case, (ref - lib).abs().max())
                elif op == 'glu':
                    ref = F.glu(xt, g)
                    scale = torch.chunk(xt, 2, dim=g)[0].abs()
                else:
                    a, bb = torch.chunk(xt, 2, dim=g)
                    scale = (a * bb).abs()
                    if op == 'swiglu':
                        ref = F.silu(a) * bb
                    elif op == 'geglu':
                        ref = F.gelu(a) * bb
                    else:
                        ref = F.gelu(a, approximate='tanh') * bb
                name = 'c%d' % case
                np.save(os.path.join(d, name + '_x.npy'), xt.numpy())
                np.save(os.path.join(d, name + '_ref.npy'), ref.contiguous().numpy())
                for part, t in (('m', m), ('v', v), ('w', w), ('b', b), ('s', scale)):
                    if t is not None:
                        np.save(os.path.join(d, name + '_' + part + '.npy'), t.numpy())
                lines.append('%s %s %s %d %d %d %.17g %d' % (name, op, dt, g, int(has_w), int(has_b), eps, k % 4))
                case += 1
    with open(os.path.join(d, 'cases.txt'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    if len(sys.argv) != 3 or sys.argv[1] != 'write':
        print(__doc__)
        return 2
    write(sys.argv[2])
    return 0


if __name__ == '__main__':
    sys.exit(main())
