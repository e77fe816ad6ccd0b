#!/usr/bin/env bash
# Builds bench/attention_bench.c with the user's ordinary flags (-O2, no -march=native, OpenMP on, CBLAS from
# OpenBLAS) and runs it next to PyTorch (bench/attention_torch.py under /usr/bin/python3: torch 1.13's explicit
# formula): attention on (8, 8, 512, 64) f32, plain and causal, 1 and 2 threads. Prints "key threads best_ms
# median_ms". The library's threads are OpenMP's, one per (batch item, query block); its per-block products go to
# OpenBLAS with OPENBLAS_NUM_THREADS=1 (unset, Debian's pthreads OpenBLAS splits each 64 x 128 block product over
# its own threads, twice as slow here); torch runs with its defaults, its set_num_threads giving its count.
# Environment: CC (default gcc), BENCH_BUILD_DIR (default $TMPDIR/th-bench-attention).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-${TMPDIR:-/tmp}/th-bench-attention}
CC=${CC:-gcc}
mkdir -p "$build"
"$CC" -std=c11 -O2 -fopenmp -Wall -Wextra -Wpedantic -DTH_USE_CBLAS -I"$root" "$here/attention_bench.c" -lopenblas -lm \
  -o "$build/attention_bench"
OPENBLAS_NUM_THREADS=1 "$build/attention_bench"
if [ -x /usr/bin/python3 ]; then /usr/bin/python3 "$here/attention_torch.py"; fi
