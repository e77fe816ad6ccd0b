#!/usr/bin/env bash
# Builds bench/bench_reduce.c with the user's ordinary flags (-O2, no -march=native, OpenMP on) and runs it:
# sums of a 4096x4096 float32 tensor (all, dim 0, dim 1) next to plain C read-only sum loops over the same
# data, on 1 and 2 threads. Lines are "key best median ms"; the last lines give each sum's ratio to both
# C loops.
#
# Environment: CC (default gcc), BENCH_BUILD_DIR (default $TMPDIR/th-bench-reduce), BENCH_QUICK=1 (5 repetitions),
# BENCH_CPU (pin to these CPUs with taskset, e.g. 0-1).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-${TMPDIR:-/tmp}/th-bench-reduce}
CC=${CC:-gcc}
mkdir -p "$build"

dlpack=()
printf '#include <dlpack/dlpack.h>\n' | "$CC" -std=c11 -E -x c - >/dev/null 2>&1 || dlpack=(-DTH_NO_DLPACK)
cflags=(-std=c11 -O2 -fopenmp -Wall -Wextra -Wpedantic "${dlpack[@]}" -I"$root")
echo "# $CC ${cflags[*]}" >&2
"$CC" "${cflags[@]}" -c "$here/th_impl.c" -o "$build/reduce_th_impl.o"
"$CC" "${cflags[@]}" "$here/bench_reduce.c" "$build/reduce_th_impl.o" -lm -o "$build/bench_reduce"

pin=()
if [ -n "${BENCH_CPU:-}" ] && command -v taskset >/dev/null; then pin=(taskset -c "$BENCH_CPU"); fi
out=$build/reduce_results.txt
"${pin[@]}" "$build/bench_reduce" | tee "$out"

awk '/^c_loop_plain_t/ { plain[substr($1, length($1))] = $2 }
     /^c_loop_acc8_t/  { acc8[substr($1, length($1))] = $2 }
     /^th_sum/         { t = substr($1, length($1)); key[++n] = $1; best[n] = $2; thr[n] = t }
     END { for (i = 1; i <= n; i++)
             printf "ratio %s: %.2fx the 8-accumulator loop, %.2fx the plain loop\n", key[i],
                    best[i] / acc8[thr[i]], best[i] / plain[thr[i]] }' "$out"
