#!/usr/bin/env bash
# Transposed and permuted copies against the machine's limit (bench/transpose_bench.c; bench/README.md,
# "Transposed copies"). tensor.h is built as run.sh builds it (-O2, no -march: the library picks its SIMD
# level at run time); the limit, bench/transpose_limit.c, with -O3 -march=native, and objdump must show it
# uses the widest vectors this CPU has (ymm or zmm registers), else the script stops.
# Environment: BENCH_BUILD_DIR (default bench/build), CC (default gcc), BENCH_ROUNDS (default 7, best of),
# BENCH_THREADS (default "1 2").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build}
CC=${CC:-gcc}
mkdir -p "$build"
cflags=(-std=c11 -O2 -Wall -Wextra -Wpedantic -fopenmp -I"$root")
if [ ! -e "$build/th_impl.o" ] || [ -n "$(find "$root/core" "$root/ops" "$root/tensor.h" -newer "$build/th_impl.o" -print -quit)" ]; then
    echo "building tensor.h's implementation TU" >&2
    "$CC" "${cflags[@]}" -c "$here/th_impl.c" -o "$build/th_impl.o"
fi
"$CC" -std=c11 -O3 -march=native -fopenmp -Wall -Wextra -Wpedantic -c "$here/transpose_limit.c" -o "$build/transpose_limit.o"
if objdump -d "$build/transpose_limit.o" | grep -q '%zmm'; then
    simd=zmm
elif objdump -d "$build/transpose_limit.o" | grep -q '%ymm'; then
    simd=ymm
else
    echo "transpose_limit.o uses neither ymm nor zmm registers: not the limit" >&2
    exit 1
fi
"$CC" "${cflags[@]}" "$here/transpose_bench.c" "$build/th_impl.o" "$build/transpose_limit.o" -lm -o "$build/transpose_bench"
echo "limit built with -O3 -march=native (its vectors: $simd); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$build/transpose_bench" "${BENCH_ROUNDS:-7}" "${BENCH_THREADS:-1 2}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
