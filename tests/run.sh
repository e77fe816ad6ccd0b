#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what is missing (Debian, as root), then builds and tests
# with gcc and clang (-Werror), again under AddressSanitizer + UndefinedBehaviorSanitizer, and once under
# valgrind. Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${TH_TEST_BUILD_DIR:-$root/build-tests}

need=()
# OpenBLAS is looked for by its pkg-config file: the netlib cblas.h of libblas-dev, which some images carry,
# would otherwise hide its absence and leave the CBLAS path untested.
for tool in meson:meson ninja:ninja-build gcc:gcc g++:g++ clang:clang valgrind:valgrind pkg-config:pkg-config \
            python3:python3 /usr/include/dlpack/dlpack.h:libdlpack-dev \
            /usr/lib/x86_64-linux-gnu/pkgconfig/openblas.pc:libopenblas-dev /usr/lib/llvm-14/lib/libomp.so:libomp-dev \
            /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev; do
    what=${tool%%:*}
    if [ "${what:0:1}" = / ]; then [ -e "$what" ]; else command -v "$what" >/dev/null 2>&1; fi ||
        need+=("${tool#*:}")
done
# The DLPack interop tests need Debian's python3 with its headers, NumPy 1.24 and PyTorch 1.13.
[ -f /usr/include/python3.11/Python.h ] || need+=(python3-dev)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
/usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || need+=(python3-torch)
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null && apt-get install -y -q "${need[@]}" >/dev/null || {
        echo "could not install ${need[*]}"; echo "0 passed, 1 failed"; exit 1; }
fi

python3 -m pip --version >/dev/null 2>&1 || {
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-pip >/dev/null 2>&1 || true; }

passed=0
failed=0
count_results() { # counts meson's results for one build directory
    # meson names the log after the wrapper (testlog-valgrind.json under --wrap valgrind): take whichever
    # this directory's one run wrote, so a wrapped run's failures count too.
    local log
    log=$(ls -t "$1"/meson-logs/testlog*.json 2>/dev/null | head -n 1)
    [ -n "$log" ] && [ -f "$log" ] || { echo "$1: no test log"; failed=$((failed + 1)); return; }
    local p f
    p=$(python3 -c 'import json,sys; r=[json.loads(l)["result"] for l in open(sys.argv[1])]; print(sum(x in ("OK","EXPECTEDFAIL","SKIP") for x in r))' "$log")
    f=$(python3 -c 'import json,sys; r=[json.loads(l)["result"] for l in open(sys.argv[1])]; print(sum(x not in ("OK","EXPECTEDFAIL","SKIP") for x in r))' "$log")
    passed=$((passed + p))
    failed=$((failed + f))
}

# run NAME SETUP-ARGS... -- TEST-ARGS...: one configuration, counted even when the build itself fails.
run() {
    local name=$1; shift
    local setup=() test_args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do setup+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    test_args=("$@")
    local dir=$out/$name
    echo "=== $name"
    rm -rf "$dir"
    if ! meson setup "$dir" "${setup[@]}" >"$out/$name.setup.log" 2>&1 ||
       ! ninja -C "$dir" >"$out/$name.build.log" 2>&1; then
        echo "$name: the build failed"
        tail -n 40 "$out/$name.setup.log" "$out/$name.build.log" 2>/dev/null
        failed=$((failed + 1))
        return
    fi
    meson test -C "$dir" --print-errorlogs "${test_args[@]}" 2>&1 | tail -n 60
    count_results "$dir"
}

mkdir -p "$out"
# NumPy >= 2.1 and JAX from PyPI in a venv, for a second run of the interop tests.
venv_args=()
if venv=$(bash tests/python/setup_venv.sh "$out/venv" 2>"$out/venv.log" | tail -n 1) && [ -x "$venv" ]; then
    venv_args=("-Dinterop_venv=$venv")
else
    echo "venv: could not set up NumPy 2 and JAX (see $out/venv.log)"
    failed=$((failed + 1))
fi
CC=gcc CXX=g++ run gcc -Dwerror=true "${venv_args[@]}"
CC=clang CXX=clang++ run clang -Dwerror=true
# DLPack against a 1.x header as well as Debian's 0.6: apache-tvm-ffi's wheel ships dlpack.h 1.3.
dl1=$out/dlpack1-header
if [ ! -f "$dl1/include/dlpack/dlpack.h" ]; then
    rm -rf "$dl1" && mkdir -p "$dl1" &&
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$dl1" apache-tvm-ffi >/dev/null 2>&1 &&
    (cd "$dl1" && python3 -m zipfile -e apache_tvm_ffi-*.whl wheel >/dev/null &&
     mkdir -p include && cp -r wheel/tvm_ffi/include/dlpack include/)
fi
if [ -f "$dl1/include/dlpack/dlpack.h" ]; then
    CC=gcc CXX=g++ run dlpack1 -Dwerror=true -Ddlpack=enabled "-Ddlpack_include=$dl1/include" -- \
        --suite core --suite modes
else
    echo "dlpack1: could not fetch a DLPack 1.x header (apache-tvm-ffi from PyPI)"
    failed=$((failed + 1))
fi
CC=gcc CXX=g++ run asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false -- \
    --no-suite consumers --no-suite names
CC=gcc CXX=g++ run valgrind -Dwerror=true -Dbuildtype=debug -- --no-suite consumers --no-suite names \
    --timeout-multiplier 20 \
    --wrap 'valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect'

# Fuzzers (libFuzzer, clang): a short run of each; any crash, leak or abort fails it.
for target in tests/fuzz/fuzz_*.c; do
    name=$(basename "$target" .c)
    echo "=== $name"
    corpus=$out/$name-corpus
    mkdir -p "$corpus"
    if clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. \
            "$target" -o "$out/$name" -lm >"$out/$name.build.log" 2>&1 &&
       "$out/$name" -max_total_time="${TH_FUZZ_SECONDS:-30}" -timeout=10 -artifact_prefix="$out/$name-" "$corpus" >"$out/$name.log" 2>&1; then
        echo "$name: ok ($(grep -c . <(ls "$corpus")) corpus entries)"
        passed=$((passed + 1))
    else
        echo "$name: FAILED"
        tail -n 30 "$out/$name.build.log" "$out/$name.log"
        failed=$((failed + 1))
    fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
