#!/usr/bin/env bash
# The CUDA companion against the CUDA runtime's own calls and PyTorch, in one run, one table (bench/cuda_bench.c
# says what each row times; the targets are issue 12's). Builds th_cuda and cuda_bench with Meson in release
# (a debug build compiles the kernels with -G, and the figures would be the debugger's). Exits 0 without a GPU,
# saying why.
#
# Environment:
#   BENCH_BUILD_DIR   where to build (default bench/build-cuda)
#   CUDA_MIB          MiB of the host <-> device rows (default 1024; the machine needs about 3x that in RAM)
#   CUDA_SIDE         side of the transposed f32 matrix (default 8192: 256 MiB on the device, twice)
#   BENCH_PYTHON      default /usr/bin/python3; the PyTorch column is n/a without torch with CUDA
#   NVCC_ARCH         the architectures to compile for (Meson option nvcc_arch; default its own)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build-cuda}
PY=${BENCH_PYTHON:-/usr/bin/python3}
mib=${CUDA_MIB:-1024}
side=${CUDA_SIDE:-8192}

setup=(-Dbuildtype=release -Dcuda=enabled -Dtests=enabled)
[ -n "${NVCC_ARCH:-}" ] && setup+=("-Dnvcc_arch=$NVCC_ARCH")
if [ ! -f "$build/build.ninja" ]; then
    mkdir -p "$build" || exit 1
    meson setup "$build" "$root" "${setup[@]}" >"$build/setup.log" 2>&1 ||
        { echo "meson setup failed:"; tail -n 30 "$build/setup.log"; exit 1; }
fi
ninja -C "$build" tests/cuda/cuda_bench >"$build/cuda_bench.build.log" 2>&1 ||
    { echo "cuda_bench did not build:"; tail -n 40 "$build/cuda_bench.build.log"; exit 1; }

# PyTorch first, into a file of "key value" lines that cuda_bench prints in its PyTorch column.
peer=$build/cuda_torch.txt
: >"$peer"
if ! "$PY" "$here/cuda_torch.py" "$mib" "$side" >"$peer" 2>"$build/cuda_torch.err"; then
    echo "(PyTorch: $(tail -n 1 "$build/cuda_torch.err"))"
    : >"$peer"
fi
"$build/tests/cuda/cuda_bench" --peer "$peer" "$mib" "$side"
