"""NumPy's side of the tensor.h benchmark.

Prints "key best median unit" lines with the same keys and method as bench_th.c. Small ops are timed with
timeit, so each includes the interpreter's cost of running the statement: that is what a NumPy user pays
per view. The "loop_overhead" line measures an empty statement, to show how much of that is the loop.
Run it with /usr/bin/python3, the interpreter Debian's python3-numpy is installed for.
"""
import os
import statistics
import sys
import time
import timeit

try:
    import numpy as np
except ImportError:
    sys.exit("bench_numpy: numpy is not installed for " + sys.executable)

SQUARE = 4096
VEC_N = 16 << 20
# The same batching as bench_common.h's, for the same reasons.
MIN_BATCH_NS = 2e6
WARMUP_NS = 50e6
QUICK = os.environ.get("BENCH_QUICK") == "1"
SMALL_REPS = 5 if QUICK else 31
BIG_REPS = 5 if QUICK else 11


# The rows named on the command line, or all of them (run.sh runs one group of rows at a time).
WANTED = set(sys.argv[1:])


def wanted(key):
    return not WANTED or key in WANTED


def report(key, samples, unit):
    print(f"{key} {min(samples):.3f} {statistics.median(samples):.3f} {unit}", flush=True)


def small(key, stmt, env):
    if not wanted(key):
        return
    timer = timeit.Timer(stmt, globals=env)
    iters = 100
    while timer.timeit(iters) * 1e9 < MIN_BATCH_NS:
        iters *= 2
    warm_until = time.perf_counter_ns() + WARMUP_NS
    while time.perf_counter_ns() < warm_until:
        timer.timeit(iters)
    report(key, [timer.timeit(iters) * 1e9 / iters for _ in range(SMALL_REPS)], "ns")


def big(key, op):
    if not wanted(key):
        return
    op()
    op()
    samples = []
    for _ in range(BIG_REPS):
        t0 = time.perf_counter_ns()
        op()  # the result is dropped here, inside the timing: its memory is freed as th's is
        samples.append((time.perf_counter_ns() - t0) / 1e6)
    report(key, samples, "ms")


def main():
    small_t = np.arange(24, dtype=np.float32).reshape(4, 6)
    square = np.arange(SQUARE * SQUARE, dtype=np.float32).reshape(SQUARE, SQUARE)
    vec = np.arange(VEC_N, dtype=np.float32) % 1000

    assert small_t.T[5, 3] == 23 and small_t[1:3][0, 0] == 6 and small_t[1][2] == 8
    assert small_t.reshape(6, 4)[1, 0] == 4 and np.shares_memory(small_t.reshape(6, 4), small_t)
    transposed = np.ascontiguousarray(square.T)
    assert transposed.flags.c_contiguous and transposed[7, 3] == 3 * SQUARE + 7
    del transposed
    assert vec.astype(np.float64)[-1] == (VEC_N - 1) % 1000

    env = {"np": np, "a": small_t, "shape23": (2, 3), "shape64": (6, 4), "f32": np.float32}
    small("loop_overhead", "pass", env)
    small("create", "np.empty(shape23, f32)", env)
    small("view_transpose", "a.T", env)
    small("view_narrow", "a[1:3]", env)
    small("view_select", "a[1]", env)
    small("view_view", "a.reshape(shape64)", env)
    small("dlpack_roundtrip", "np.from_dlpack(a)", env)

    big("contiguous_t", lambda: np.ascontiguousarray(square.T))
    big("clone", lambda: square.copy())
    big("convert_f64", lambda: vec.astype(np.float64))
    big("ones", lambda: np.ones(VEC_N, np.float32))


if __name__ == "__main__":
    main()
