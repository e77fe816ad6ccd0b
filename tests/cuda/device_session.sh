#!/usr/bin/env bash
# What a session with a borrowed GPU runs there, in one call, from this checkout with a release build of the
# cuda suite carried along (the machine is lent for minutes: build here, run there). Built here with
#   meson setup build-gpu -Dbuildtype=release -Dcuda=enabled -Dnvcc_arch=9.0   (the lent cards are Hopper)
#   ninja -C build-gpu <the targets of suite cuda>   (tests/run.sh's tested_targets lists them)
#   mkdir build-gpu/dlpack-include && cp -r /usr/include/dlpack build-gpu/dlpack-include/   (for cuda_dlpack)
# and run there as   bash tests/cuda/device_session.sh build-gpu "$OUT"
# It runs the cuda suite (tests/cuda/run_carried.py: no rebuild, paths mapped), compute-sanitizer's memcheck
# over the kernel tests with the caching allocator off (every tensor its own cudaMalloc, so an overrun is
# outside an allocation), and the benchmark against PyTorch. Each step is capped so the whole fits one call;
# what it writes under OUT comes back (a few files: the per-test logs as one archive). SAN_TESTS names the
# sanitizer's programs (racecheck:NAME for racecheck), SAN_SECONDS caps each.
set -u
build=${1:-build-gpu}
out=${2:-/tmp/device-out}
mkdir -p "$out/logs"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
export RUN_CARRIED_MAX_TIMEOUT=${RUN_CARRIED_MAX_TIMEOUT:-120}
echo "== cuda suite"
python3 tests/cuda/run_carried.py "$build" cuda "$out/logs" -cuda_sanitizer -cuda_bench -cuda_dlpack 2>&1 | tee "$out/tests.txt"
tar czf "$out/logs.tgz" -C "$out" logs
# cuda_dlpack: Meson built thcudl for the configuring machine's Debian python (3.11); the lent machine's PyTorch
# with CUDA runs on its own python, so the extension is compiled here for that one, against the carried
# shared libraries.
echo "== dlpack with this machine's python"
py=$(command -v python3)
inc=$("$py" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
suffix=$("$py" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
if [ -n "$inc" ] && [ -f "$inc/Python.h" ] && command -v cc >/dev/null; then
    mod=$(mktemp -d)
    # DLPack's header: the lent machine has none; the build directory carries Debian's (see the top).
    if cc -std=c11 -O2 -fPIC -shared -I. -Icuda -I"$build" -I"$build/cuda" -I/usr/local/cuda/include -isystem "$inc" \
          -isystem "$build/dlpack-include" \
          tests/cuda/thcudl.c -o "$mod/thcudl$suffix" -L"$build/lib" -L"$build/cuda" -ltensor -lth_cuda \
          -Wl,-rpath,"$PWD/$build/lib:$PWD/$build/cuda" >"$out/logs/thcudl_build.log" 2>&1; then
        PYTHONPATH=$mod timeout 180 "$py" tests/cuda/test_cuda_dlpack.py 2>&1 | tail -n 40 | tee "$out/dlpack.txt"
    else
        echo "thcudl did not build for $py:"; tail -n 20 "$out/logs/thcudl_build.log"
    fi
else
    echo "no Python.h for $py ($inc) or no cc: cuda_dlpack not run"
fi
echo "== bench"
python3 bench/cuda_torch.py "${CUDA_MIB:-1024}" "${CUDA_SIDE:-8192}" >"$out/torch.txt" 2>"$out/logs/torch.err" ||
    { tail -n 3 "$out/logs/torch.err"; : >"$out/torch.txt"; }
timeout 240 "$build/tests/cuda/cuda_bench" --peer "$out/torch.txt" "${CUDA_MIB:-1024}" "${CUDA_SIDE:-8192}" 2>&1 |
    tee "$out/bench.txt"
echo "== compute-sanitizer"
san=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)
for t in ${SAN_TESTS:-test_cuda_ew_device test_cuda_reduce_device test_cuda_indexing_device test_cuda_fill_device \
         racecheck:test_cuda_reduce_device}; do
    [ -n "$san" ] || { echo "no compute-sanitizer"; break; }
    tool=memcheck
    case $t in racecheck:*) tool=racecheck; t=${t#*:} ;; esac
    args=(--tool "$tool" --error-exitcode 9)
    [ $tool = memcheck ] && args+=(--leak-check full)
    TH_CUDA_NO_CACHING=1 timeout "${SAN_SECONDS:-60}" "$san" "${args[@]}" "$build/tests/cuda/$t" \
        >"$out/logs/${tool}_$t.log" 2>&1
    rc=$?
    echo "$t $tool rc=$rc ($([ $rc = 0 ] && echo clean || ([ $rc = 124 ] && echo 'cut at the time cap') || echo 'see log'))"
    grep -m 5 -E "ERROR SUMMARY|Invalid|leak|hazard" "$out/logs/${tool}_$t.log"
done 2>&1 | tee "$out/memcheck.txt"
tar czf "$out/logs.tgz" -C "$out" logs && rm -rf "$out/logs"
