#!/usr/bin/env bash
# Shared tensors between processes: tensor.h's shm companion against PyTorch's torch.multiprocessing, in one
# run, one table. See bench/shm_bench.c and bench/shm_torch.py for what each row times.
#
# Environment:
#   BENCH_BUILD_DIR   where to build (default bench/build)
#   SHM_SECONDS       seconds per round-trip row (default 2)
#   SHM_BIG           bytes of the "1 GiB" rows (default 1073741824; the machine needs about 3x that free)
#   BENCH_PYTHON      default /usr/bin/python3 (Debian's python3-torch); PyTorch rows are n/a without torch
#   CC                default gcc
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build}
CC=${CC:-gcc}
PY=${BENCH_PYTHON:-/usr/bin/python3}
seconds=${SHM_SECONDS:-2}
big=${SHM_BIG:-1073741824}
mkdir -p "$build" || exit 1

# th-shm-manager next to shm_bench, where the name strategy's first registration looks for it.
printf '#define TH_IMPLEMENTATION\n#include "tensor.h"\n' >"$build/shm_th_impl.c"
if ! $CC -std=c11 -O2 "$root/shm/manager.c" -o "$build/th-shm-manager" 2>"$build/shm_bench.err" ||
   ! $CC -std=c11 -D_GNU_SOURCE -DTH_SHM_MANAGER_WITH_TH_SET_ERROR -O2 -I"$root" -I"$root/shm" "$here/shm_bench.c" \
        "$root/shm/segment.c" "$root/shm/share.c" "$root/shm/handle.c" \
        "$root/shm/manager_client.c" "$build/shm_th_impl.c" -o "$build/shm_bench" -lm -lrt -pthread -ldl \
        2>>"$build/shm_bench.err"; then
    echo "shm_bench did not build:"; cat "$build/shm_bench.err"; exit 1
fi

th=$("$build/shm_bench" "$seconds" "$big") || { echo "shm_bench failed"; exit 1; }
torch=$(OMP_NUM_THREADS=1 "$PY" "$here/shm_torch.py" "$seconds" "$big" 2>"$build/shm_torch.err") || torch=""

value() { printf '%s\n' "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
row() { # key label unit
    local a b
    a=$(value "$th" "$1"); b=$(value "$torch" "$1")
    printf '%-38s %14s %14s  %s\n' "$2" "${a:-n/a}" "${b:-n/a}" "$3"
}
printf '%-38s %14s %14s\n' "" "tensor.h shm" "PyTorch 1.13"
for s in fd name; do
    row "handoff_${s}_1MiB" "hand-off, $s, 1 MiB" "us (median)"
    row "handoff_${s}_1GiB" "hand-off, $s, 1 GiB" "us (median)"
done
for s in fd name; do
    row "share_${s}_1MiB" "share_memory, $s, 1 MiB (once)" "us"
    row "share_${s}_1GiB" "share_memory, $s, 1 GiB (once)" "us"
done
for s in fd name; do row "roundtrip_${s}" "round trips, $s, 16 floats" "per second"; done
echo "(PyTorch: torch.multiprocessing Queue; fd = file_descriptor, name = file_system strategy)"
