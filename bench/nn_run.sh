#!/usr/bin/env bash
# Builds bench/nn_bench.c with the user's ordinary flags (-O2, no -march=native, OpenMP on) and runs it next to
# PyTorch (bench/nn_torch.py under /usr/bin/python3): softmax, log_softmax and layer_norm over the last dim of
# an (8192, 4096) float32 tensor and a copy of it, 1 and 2 threads. Prints "key threads best_ms median_ms".
# Environment: CC (default gcc), BENCH_BUILD_DIR (default $TMPDIR/th-bench-nn).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-${TMPDIR:-/tmp}/th-bench-nn}
CC=${CC:-gcc}
mkdir -p "$build"
"$CC" -std=c11 -O2 -fopenmp -Wall -Wextra -Wpedantic -I"$root" "$here/nn_bench.c" -lm -o "$build/nn_bench"
"$build/nn_bench"
if [ -x /usr/bin/python3 ]; then /usr/bin/python3 "$here/nn_torch.py"; fi
