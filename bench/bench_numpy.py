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

    # The elementwise math rows: the same operands as bench_th.c's. NumPy runs them on one thread whatever
    # BENCH_NTHREADS says.
    idx = np.arange(VEC_N, dtype=np.int64)
    vec_b = (idx % 7).astype(np.float32)
    xin = ((idx % 1000) - 500).astype(np.float32) / np.float32(125)
    del idx
    vec_out = np.zeros(VEC_N, np.float32)
    bcol = np.arange(SQUARE, dtype=np.float32).reshape(SQUARE, 1)
    brow = ((np.arange(SQUARE) % 100) / 4).astype(np.float32).reshape(1, SQUARE)
    bout = np.zeros((SQUARE, SQUARE), np.float32)
    tiny_a = np.array([1, 2, 3, 4], np.float32)
    tiny_b = np.array([10, 20, 30, 40], np.float32)

    # Checking them takes seconds, which the runs of other row groups skip.
    if any(wanted(k) for k in ("tiny_add", "add_new", "add_out", "add_bcast", "exp_out", "tanh_out")):
        added = vec + vec_b
        assert added.dtype == np.float32 and added[-1] == (VEC_N - 1) % 1000 + (VEC_N - 1) % 7
        assert np.array_equal(added, (vec.astype(np.float64) + vec_b).astype(np.float32))
        del added
        np.add(vec, vec_b, out=vec_out)
        assert vec_out[-1] == (VEC_N - 1) % 1000 + (VEC_N - 1) % 7
        np.add(bcol, brow, out=bout)
        assert bout[4095, 99] == 4095 + 24.75 and bout[7, 3] == 7.75
        x64 = xin.astype(np.float64)
        np.exp(xin, out=vec_out)
        assert np.all(np.abs(vec_out - np.exp(x64)) <= 1e-6 * np.exp(x64))
        np.tanh(xin, out=vec_out)
        assert np.all(np.abs(vec_out - np.tanh(x64)) <= 1e-6 * np.abs(np.tanh(x64)))
        del x64
        tiny = tiny_a + tiny_b
        assert tiny.dtype == np.float32 and tiny[0] == 11 and tiny[3] == 44

    # Sums of element i = i % 2 (exact in float in any order: see bench_limits.c) and matrix products into a
    # preallocated out, as cblas_sgemm writes its C (NumPy calls its BLAS: OPENBLAS_NUM_THREADS threads).
    sum_in = None
    if any(wanted(k) for k in ("sum_all", "sum_dim0", "sum_dim1")):
        sum_in = (np.arange(SQUARE * SQUARE, dtype=np.int64) % 2).astype(np.float32).reshape(SQUARE, SQUARE)
        assert sum_in.sum() == 8388608
        assert np.array_equal(sum_in.sum(axis=0), (np.arange(SQUARE) % 2) * 4096.0)
        assert np.all(sum_in.sum(axis=1) == 2048)
    mm = {}
    for n in (1024, 2048):
        if not wanted(f"matmul_{n}"):
            continue
        idx = np.arange(n * n, dtype=np.int64)
        a = (((idx * 7919) % 1000).astype(np.float32) / np.float32(1000) - np.float32(0.5)).reshape(n, n)
        b = (((idx * 104729) % 1000).astype(np.float32) / np.float32(1000) - np.float32(0.5)).reshape(n, n)
        c = np.zeros((n, n), np.float32)
        np.matmul(a, b, out=c)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        assert np.all(np.abs(c - a64 @ b64) <= 1e-4 * (np.abs(a64) @ np.abs(b64)) + 1e-6)
        mm[n] = (a, b, c)

    env = {"np": np, "a": small_t, "shape23": (2, 3), "shape64": (6, 4), "f32": np.float32,
           "ta": tiny_a, "tb": tiny_b}
    small("loop_overhead", "pass", env)
    small("create", "np.empty(shape23, f32)", env)
    small("view_transpose", "a.T", env)
    small("view_narrow", "a[1:3]", env)
    small("view_select", "a[1]", env)
    small("view_view", "a.reshape(shape64)", env)
    small("dlpack_roundtrip", "np.from_dlpack(a)", env)
    small("tiny_add", "ta + tb", env)

    big("contiguous_t", lambda: np.ascontiguousarray(square.T))
    big("clone", lambda: square.copy())
    big("convert_f64", lambda: vec.astype(np.float64))
    big("ones", lambda: np.ones(VEC_N, np.float32))
    big("add_new", lambda: vec + vec_b)
    big("add_out", lambda: np.add(vec, vec_b, out=vec_out))
    big("add_bcast", lambda: np.add(bcol, brow, out=bout))
    big("exp_out", lambda: np.exp(xin, out=vec_out))
    big("tanh_out", lambda: np.tanh(xin, out=vec_out))
    big("sum_all", lambda: sum_in.sum())
    big("sum_dim0", lambda: sum_in.sum(axis=0))
    big("sum_dim1", lambda: sum_in.sum(axis=1))
    for n, (a, b, c) in mm.items():
        big(f"matmul_{n}", lambda a=a, b=b, c=c: np.matmul(a, b, out=c))


if __name__ == "__main__":
    main()
