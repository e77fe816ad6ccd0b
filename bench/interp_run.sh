#!/usr/bin/env bash
# Builds bench/interp_bench.c (-O2, one thread) and runs it next to PyTorch 1.13 (bench/interp_torch.py under
# /usr/bin/python3, torch.set_num_threads(1)): interpolate of (8, 64, 128, 128) f32 to 256x256, bilinear and
# nearest. Prints "key best_ms median_ms".
# Environment: CC (default gcc), BENCH_BUILD_DIR (default $TMPDIR/th-bench-interp).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-${TMPDIR:-/tmp}/th-bench-interp}
CC=${CC:-gcc}
mkdir -p "$build"
"$CC" -std=c11 -O2 -Wall -Wextra -Wpedantic -I"$root" "$here/interp_bench.c" -lm -o "$build/interp_bench"
export OMP_NUM_THREADS=1
"$build/interp_bench"
if [ -x /usr/bin/python3 ]; then /usr/bin/python3 "$here/interp_torch.py"; fi
