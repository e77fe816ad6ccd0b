#!/usr/bin/env bash
# Builds bench/nn_layers_bench.c with ordinary flags (-O2, no -march=native) and runs it next to PyTorch
# (bench/nn_layers_torch.py under /usr/bin/python3): group_norm, batch_norm, swiglu, geglu, rope, cross_entropy
# and adaptive_avg_pool2d, f32, one thread. Environment: CC (default gcc), BENCH_BUILD_DIR.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-${TMPDIR:-/tmp}/th-bench-nn-layers}
CC=${CC:-gcc}
mkdir -p "$build"
"$CC" -std=c11 -O2 -Wall -Wextra -Wpedantic -I"$root" "$here/nn_layers_bench.c" -lm -o "$build/nn_layers_bench"
"$build/nn_layers_bench"
if [ -x /usr/bin/python3 ]; then /usr/bin/python3 "$here/nn_layers_torch.py"; fi
