#!/usr/bin/env bash
# all_reduce over MPI: th_f32_all_reduce against MPI_Allreduce on the same buffer (bench/dist_bench.c).
#
# Environment:
#   BENCH_BUILD_DIR   where to build (default bench/build)
#   DIST_RANKS        ranks, space-separated runs (default "2")
#   DIST_SECONDS      seconds per size and run (default 0.5)
#   MPICC, MPIRUN     default mpicc, mpirun
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build}
mkdir -p "$build" || exit 1
if ! ${MPICC:-mpicc} -std=c11 -O2 -I"$root" -I"$root/dist" "$here/dist_bench.c" "$root/dist/collectives.c" \
        "$here/th_impl.c" -o "$build/dist_bench" -lm 2>"$build/dist_bench.err"; then
    echo "dist_bench did not build:"; cat "$build/dist_bench.err"; exit 1
fi
for n in ${DIST_RANKS:-2}; do
    MPIRUN=${MPIRUN:-mpirun} "$root/tests/dist/mpirun.sh" "$n" "$build/dist_bench" || exit 1
done
