"""PyTorch 1.13 timings next to bench/nn_layers_bench.c: the same shapes, one thread, best of 7 (bench/nn_layers_run.sh)."""
import time, torch, torch.nn.functional as F
torch.set_num_threads(1)
def T(name, f):
    best = 1e9
    for _ in range(7):
        t0 = time.perf_counter(); f(); best = min(best, time.perf_counter() - t0)
    print("%-28s %8.2f ms" % (name, best * 1e3))
x = torch.rand(8, 64, 56, 56) * 2 - 1; y = torch.empty_like(x); w = torch.ones(64)
T("torch group_norm g32", lambda: F.group_norm(x, 32, w, w, 1e-5))
T("torch batch_norm eval", lambda: F.batch_norm(x, w, w, w, w, training=False, eps=1e-5))
T("torch copy", lambda: y.copy_(x))
h = torch.rand(2048, 2 * 5632) * 4 - 2
def swiglu():
    a, b = h.chunk(2, -1); return F.silu(a) * b
def geglu():
    a, b = h.chunk(2, -1); return F.gelu(a) * b
T("torch silu(a)*b", swiglu); T("torch gelu(a)*b", geglu)
q = torch.rand(1, 32, 2048, 128); c = torch.full((2048, 64), 0.6); s = torch.full((2048, 64), 0.8)
def rope():
    cc = torch.cat([c, c], -1); ss = torch.cat([s, s], -1); a, b = q[..., :64], q[..., 64:]
    return q * cc + torch.cat([-b, a], -1) * ss
T("torch rope (rotate_half)", rope)
lg = torch.rand(2048, 32000) * 10; tg = torch.randint(0, 32000, (2048,))
T("torch cross_entropy", lambda: F.cross_entropy(lg, tg))
T("torch adaptive_avg_pool2d", lambda: F.adaptive_avg_pool2d(x, (7, 7)))
T("torch silu out=", lambda: torch._C._nn.silu(x, out=y))
T("torch gelu tanh out=", lambda: torch._C._nn.gelu(x, approximate='tanh', out=y))
T("torch hardswish out=", lambda: torch._C._nn.hardswish(x, out=y))
T("torch softplus out=", lambda: torch._C._nn.softplus(x, 1.0, 20.0, out=y))
T("torch leaky_relu out=", lambda: torch._C._nn.leaky_relu(x, 0.01, out=y))
