#!/usr/bin/env python3
"""The peer of tests/numpy/cnn_torch.c: a small convolutional network written in PyTorch (torch.nn layers), its
weights saved by NumPy's np.savez from the module's state_dict, and the library running the same network from
that file. Layers: Conv2d(3, 8, 3, padding=1) -> BatchNorm2d(8) (eval: running statistics, random but fixed) ->
ReLU -> MaxPool2d(2) -> Conv2d(8, 16, 3, stride=2, padding=1, groups=2) -> SiLU -> AdaptiveAvgPool2d(1) ->
Flatten -> Linear(16, 10) -> LogSoftmax(dim=1).

    cnn_torch.py write DIR   writes DIR/cnn.npz (the state_dict, float32, torch's names), DIR/x.npy (4, 3, 32, 32)
                             float32 and DIR/ref.npy: the network's output (4, 10), computed by torch in float64
                             from the same float32 weights and input.

Exits 77 when torch cannot be imported (a skip).
"""
import os
import sys

try:
    import numpy as np
    import torch
    from torch import nn
except ImportError:
    print("SKIP: NumPy or torch cannot be imported by %s" % sys.executable)
    sys.exit(77)


def network():
    torch.manual_seed(1612)
    net = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2), nn.SiLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(16, 10), nn.LogSoftmax(dim=1))
    bn = net[1]
    with torch.no_grad():  # statistics as if trained: not the identity
        bn.running_mean.uniform_(-0.5, 0.5)
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.2, 0.2)
    return net.eval()


def main():
    if len(sys.argv) != 3 or sys.argv[1] != 'write':
        print(__doc__)
        return 2
    d = sys.argv[2]
    os.makedirs(d, exist_ok=True)
    net = network()
    state = {k: v.numpy().astype(np.float32) for k, v in net.state_dict().items() if v.dtype == torch.float32}
    np.savez(os.path.join(d, 'cnn.npz'), **state)
    x = torch.randn(4, 3, 32, 32, generator=torch.Generator().manual_seed(5))
    np.save(os.path.join(d, 'x.npy'), x.numpy())
    with torch.no_grad():
        ref = net.double()(x.double())
    np.save(os.path.join(d, 'ref.npy'), ref.numpy())
    print("weights: %s" % ', '.join('%s%s' % (k, tuple(v.shape)) for k, v in state.items()))
    return 0


if __name__ == '__main__':
    sys.exit(main())
