"""PyTorch's side of bench/cuda_run.sh: the same rows as cuda_bench.c, timed the same way, printed as
"key value" lines (ns for allocations, GB/s for copies). Exits 1, saying why on stderr, without PyTorch
with CUDA.

Usage: cuda_torch.py TRANSFER_MIB SIDE
"""
import sys
import time


def median(v):
    return sorted(v)[len(v) // 2]


def main():
    mib, side = int(sys.argv[1]), int(sys.argv[2])
    try:
        import torch
    except ImportError as e:
        print(f"PyTorch does not import: {e}", file=sys.stderr)
        return 1
    if not torch.cuda.is_available():
        print(f"PyTorch {torch.__version__} has no usable CUDA", file=sys.stderr)
        return 1
    torch.cuda.init()
    # Allocation + free from the cache, 200 other blocks live, as cuda_bench: median of 31 batches.
    live = [torch.cuda.caching_allocator_alloc(4096) for _ in range(200)]
    sizes = {"512B": 512, "4KiB": 4096, "64KiB": 65536, "1MiB": 1 << 20, "16MiB": 16 << 20, "256MiB": 256 << 20}
    pairs = 2000
    for name, n in sizes.items():
        torch.cuda.caching_allocator_delete(torch.cuda.caching_allocator_alloc(n))
        batches = []
        for _ in range(31):
            t0 = time.perf_counter_ns()
            for _ in range(pairs):
                torch.cuda.caching_allocator_delete(torch.cuda.caching_allocator_alloc(n))
            batches.append((time.perf_counter_ns() - t0) / pairs)
        print(f"torch_alloc_{name} {median(batches):.1f}")
    for p in live:
        torch.cuda.caching_allocator_delete(p)

    # Host <-> device: best of 7 after a warm-up, GB/s (1e9 bytes), as cuda_bench.
    n = (mib << 20) // 4
    dev = torch.empty(n, dtype=torch.float32, device="cuda")
    pinned = torch.ones(n, dtype=torch.float32).pin_memory()
    pageable = torch.ones(n, dtype=torch.float32)

    def gbps(fn):
        fn()
        torch.cuda.synchronize()
        best = float("inf")
        for _ in range(7):
            t0 = time.perf_counter_ns()
            fn()
            torch.cuda.synchronize()
            best = min(best, time.perf_counter_ns() - t0)
        return n * 4 / best

    print(f"torch_h2d_pinned {gbps(lambda: dev.copy_(pinned)):.2f}")
    print(f"torch_d2h_pinned {gbps(lambda: pinned.copy_(dev)):.2f}")
    print(f"torch_h2d_pageable {gbps(lambda: dev.copy_(pageable)):.2f}")
    print(f"torch_d2h_pageable {gbps(lambda: pageable.copy_(dev)):.2f}")
    del dev, pinned, pageable

    # The transposed view into a contiguous tensor, timed by events; bytes read plus written.
    a = torch.full((side, side), 2.0, device="cuda")
    out = torch.empty((side, side), device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for r in range(8):
        start.record()
        out.copy_(a.t())
        end.record()
        end.synchronize()
        if r:
            times.append(start.elapsed_time(end))
    print(f"torch_transpose {2 * side * side * 4 / (min(times) * 1e6):.1f}")
    del a, out

    def event_ms(fn, reps):
        fn()
        best = float("inf")
        for _ in range(7):
            start.record()
            for _ in range(reps):
                fn()
            end.record()
            end.synchronize()
            best = min(best, start.elapsed_time(end) / reps)
        return best

    # cuda_bench's ops rows: add into out (3 bytes moved per element byte), a 4-element add on the host's
    # clock, sgemm 4096^3.
    n = (min(mib, 256) << 20) // 4
    a, b, out = torch.ones(n, device="cuda"), torch.full((n,), 2.0, device="cuda"), torch.empty(n, device="cuda")
    print(f"torch_add {3 * n * 4 / (event_ms(lambda: torch.add(a, b, out=out), 10) * 1e6):.1f}")
    a, b, out = torch.ones(4, device="cuda"), torch.full((4,), 2.0, device="cuda"), torch.empty(4, device="cuda")
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(7):
        t0 = time.perf_counter_ns()
        for _ in range(2000):
            torch.add(a, b, out=out)
        torch.cuda.synchronize()
        best = min(best, (time.perf_counter_ns() - t0) / 1e3 / 2000)
    print(f"torch_tiny_add {best:.2f}")
    # Sums of a 16384^2 f32 matrix: bytes read per second.
    m = torch.full((16384, 16384), 0.5, device="cuda")
    for key, fn in (("torch_sum_all", lambda: torch.sum(m)), ("torch_sum_dim0", lambda: torch.sum(m, 0)),
                    ("torch_sum_dim1", lambda: torch.sum(m, 1))):
        print(f"{key} {m.numel() * 4 / (event_ms(fn, 5) * 1e6):.1f}")
    del m
    torch.backends.cuda.matmul.allow_tf32 = False  # as th_cuda's default
    a, b = torch.full((4096, 4096), 0.5, device="cuda"), torch.full((4096, 4096), 0.25, device="cuda")
    out = torch.empty((4096, 4096), device="cuda")
    print(f"torch_sgemm {2 * 4096 ** 3 / (event_ms(lambda: torch.mm(a, b, out=out), 5) * 1e9):.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
