#!/usr/bin/env bash
# Builds bench_lapack (gcc -O2, -DTH_USE_LAPACK, -llapacke, only f64 stamped) and runs it with 1 and then 2
# threads beside NumPy's np.linalg.solve of the same sizes (Debian's /usr/bin/python3, the same OpenBLAS).
#   BENCH_BUILD_DIR  where to build (default bench/build); BENCH_THREADS  the thread counts (default "1 2")
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build}
CC=${CC:-gcc}
mkdir -p "$build"
cflags=(-std=c11 -O2 -I"$root" -DTH_USE_LAPACK $(pkg-config --cflags lapacke))
libs=$(pkg-config --libs lapacke)
echo "# building: $CC ${cflags[*]} bench_lapack.c $libs -lm"
"$CC" "${cflags[@]}" "$here/bench_lapack.c" $libs -lm -o "$build/bench_lapack"
for t in ${BENCH_THREADS:-1 2}; do
    echo "# threads: $t"
    OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t "$build/bench_lapack" "$@"
    OPENBLAS_NUM_THREADS=$t /usr/bin/python3 - "${1:-1024}" <<'PY'
import sys, time
import numpy as np
n = int(sys.argv[1])
rng = np.random.default_rng(1)
a = rng.random((n, n)) - 0.5 + n / 4.0 * np.eye(n)
for nrhs in (1, n):
    b = np.ones(n) if nrhs == 1 else np.ones((n, n))
    np.linalg.solve(a, b)
    ts = []
    for _ in range(7):
        t0 = time.perf_counter(); np.linalg.solve(a, b); ts.append(time.perf_counter() - t0)
    print('numpy %s np.linalg.solve %d x %d, %d rhs: %.2f ms' % (np.__version__, n, n, nrhs, 1e3 * sorted(ts)[3]))
PY
done
