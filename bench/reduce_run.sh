#!/usr/bin/env bash
# Builds bench/bench_reduce.c with the user's ordinary flags (-O2, no -march=native, OpenMP on) and runs it:
# sums of a 4096x4096 float32 tensor (all, dim 0, dim 1) next to plain C read-only sum loops over the same
# data, on 1 and 2 threads. Prints "key best median ms" per row (best over all rounds) and each sum's
# ratio to both C loops.
#
# Environment: CC (default gcc), BENCH_BUILD_DIR (default $TMPDIR/th-bench-reduce), BENCH_QUICK=1 (5 repetitions),
# BENCH_ROUNDS (default 3: the program runs that many times; each row keeps its best), BENCH_CPU (pin to
# these CPUs with taskset, e.g. 0-1).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-${TMPDIR:-/tmp}/th-bench-reduce}
CC=${CC:-gcc}
rounds=${BENCH_ROUNDS:-3}
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
: >"$out"
# Several rounds, one after another: on a shared machine a round that hits a busy moment hurts every row
# of that round alike, and the best of all rounds is kept per row.
for round in $(seq "$rounds"); do
    echo "# round $round" >&2
    "${pin[@]}" "$build/bench_reduce" | tee -a "$out" >&2
done

awk '/^[a-z]/ { if (!($1 in best) || $2 < best[$1]) { best[$1] = $2; med[$1] = $3 } }
     END {
       n = split("c_loop_plain c_loop_acc8 th_sum_all th_sum_dim0 th_sum_dim1", names, " ")
       for (t = 1; t <= 2; t++)
         for (i = 1; i <= n; i++) {
           k = names[i] "_t" t
           if (k in best) printf "%s %.3f %.3f ms\n", k, best[k], med[k]
         }
       for (t = 1; t <= 2; t++)
         for (i = 3; i <= n; i++) {
           k = names[i] "_t" t
           if ((k in best) && ("c_loop_acc8_t" t in best))
             printf "ratio %s: %.2fx the 8-accumulator loop, %.2fx the plain loop\n", k,
                    best[k] / best["c_loop_acc8_t" t], best[k] / best["c_loop_plain_t" t]
         }
     }' "$out"
