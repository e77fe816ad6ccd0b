#!/usr/bin/env bash
# Builds bench/conv_bench.c (-O2, CBLAS from OpenBLAS, one thread) and runs it next to PyTorch
# (bench/conv_torch.py under /usr/bin/python3, torch.set_num_threads(1)): conv2d of (8, 64, 56, 56) with a
# 64x64x3x3 kernel, padding 1; conv_transpose2d of (8, 64, 32, 32) with a 64x32x4x4 kernel, stride 2, padding 1.
# Prints "key best_ms median_ms GFLOP/s".
# Environment: CC (default gcc), BENCH_BUILD_DIR (default $TMPDIR/th-bench-conv).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-${TMPDIR:-/tmp}/th-bench-conv}
CC=${CC:-gcc}
mkdir -p "$build"
"$CC" -std=c11 -O2 -Wall -Wextra -Wpedantic -DTH_USE_CBLAS -I"$root" "$here/conv_bench.c" -lopenblas -lm -o "$build/conv_bench"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
"$build/conv_bench"
if [ -x /usr/bin/python3 ]; then /usr/bin/python3 "$here/conv_torch.py"; fi
