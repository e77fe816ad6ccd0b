#!/usr/bin/env bash
# Builds bench_products (gcc -O2, OpenMP, -lopenblas) and runs it, then the same einsums in NumPy and torch
# (products_peer.py, Debian's /usr/bin/python3), with 1 and then 2 threads, one after the other on this machine.
#
# Environment:
#   BENCH_BUILD_DIR  where to build (default bench/build)
#   BENCH_THREADS    the thread counts to run (default "1 2")
#   CC               default gcc
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build}
CC=${CC:-gcc}
mkdir -p "$build"

blas_cflags=$(pkg-config --cflags openblas 2>/dev/null || true)
blas_libs=$(pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
cflags=(-std=c11 -O2 -fopenmp -I"$root" -DTH_USE_CBLAS $blas_cflags)

echo "# building: $CC ${cflags[*]} ... $blas_libs -lm"
"$CC" "${cflags[@]}" -c "$here/th_impl.c" -o "$build/th_impl_blas.o"
"$CC" "${cflags[@]}" "$here/bench_products.c" "$build/th_impl_blas.o" $blas_libs -lm -o "$build/bench_products"

for t in ${BENCH_THREADS:-1 2}; do
    echo "# threads: $t (OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t)"
    OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t "$build/bench_products"
    OPENBLAS_NUM_THREADS=$t OMP_NUM_THREADS=$t /usr/bin/python3 "$here/products_peer.py"
done
