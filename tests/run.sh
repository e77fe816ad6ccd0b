#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what is missing (Debian, as root), then builds and tests
# with gcc and clang (-Werror), again under AddressSanitizer + UndefinedBehaviorSanitizer and under
# ThreadSanitizer, and once under valgrind. Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${TH_TEST_BUILD_DIR:-$root/build-tests}

need=()
# OpenBLAS is looked for by its pkg-config file: the netlib cblas.h of libblas-dev, which some images carry,
# would otherwise hide its absence and leave the CBLAS path untested.
for tool in meson:meson ninja:ninja-build gcc:gcc g++:g++ clang:clang valgrind:valgrind pkg-config:pkg-config \
            python3:python3 ctags:universal-ctags /usr/include/dlpack/dlpack.h:libdlpack-dev \
            /usr/lib/x86_64-linux-gnu/pkgconfig/openblas.pc:libopenblas-dev /usr/lib/x86_64-linux-gnu/pkgconfig/zlib.pc:zlib1g-dev /usr/lib/llvm-14/lib/libomp.so:libomp-dev \
            /usr/include/lapacke.h:liblapacke-dev \
            /usr/lib/llvm-14/lib/libarcher.so:libomp-14-dev /usr/bin/mpicc:libopenmpi-dev /usr/bin/mpirun:openmpi-bin \
            /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a:libclang-rt-14-dev; do
    what=${tool%%:*}
    if [ "${what:0:1}" = / ]; then [ -e "$what" ]; else command -v "$what" >/dev/null 2>&1; fi ||
        need+=("${tool#*:}")
done
# The DLPack interop tests need Debian's python3 with its headers, NumPy 1.24 and PyTorch 1.13.
[ -f /usr/include/python3.11/Python.h ] || need+=(python3-dev)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
/usr/bin/python3 -c 'import scipy.linalg' >/dev/null 2>&1 || need+=(python3-scipy) # numpy_lapack's solvers' peer
/usr/bin/python3 -c 'import torch' >/dev/null 2>&1 || need+=(python3-torch)
/usr/bin/python3 -c 'import mpmath' >/dev/null 2>&1 || need+=(python3-mpmath) # act_torch's exact values
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

# tested_targets DIR TEST-ARGS...: the ninja targets that the tests TEST-ARGS select need, one a line, from the
# introspection files `meson setup` wrote into DIR. As `meson test` selects: the tests of the suites named by
# --suite (every test where none is named), less those of a suite named by --no-suite.
tested_targets() {
    python3 -c '
import json, os, sys
build, args = sys.argv[1], sys.argv[2:]
suites = {args[i + 1] for i, a in enumerate(args[:-1]) if a == "--suite"}
left_out = {args[i + 1] for i, a in enumerate(args[:-1]) if a == "--no-suite"}
def named(test, names):
    return any(s in names or s.split(":")[-1] in names for s in test["suite"])
info = os.path.join(build, "meson-info")
with open(os.path.join(info, "intro-targets.json")) as f:
    files = {t["id"]: t["filename"] for t in json.load(f)}
with open(os.path.join(info, "intro-tests.json")) as f:
    tests = json.load(f)
wanted = set()
for t in tests:
    if (not suites or named(t, suites)) and not named(t, left_out):
        for dep in t["depends"]:
            wanted.update(os.path.relpath(p, build) for p in files[dep])
print("\n".join(sorted(wanted)))
' "$@"
}

# run NAME SETUP-ARGS... -- TEST-ARGS...: one configuration, counted even when the build itself fails.
# With only_tested=1 in its environment it builds only what the tests it selects need (--suite, --no-suite),
# not the docs examples and interop modules as well: for a configuration whose every compile is slow.
run() {
    local name=$1; shift
    local setup=() test_args=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do setup+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    test_args=("$@")
    local dir=$out/$name
    local began=$SECONDS
    echo "=== $name"
    rm -rf "$dir"
    local ok=1 listed="" targets=()
    meson setup "$dir" "${setup[@]}" >"$out/$name.setup.log" 2>&1 || ok=0
    if [ $ok = 1 ] && [ -n "${only_tested:-}" ]; then
        listed=$(tested_targets "$dir" "${test_args[@]}" 2>>"$out/$name.setup.log") || ok=0
        [ -n "$listed" ] && mapfile -t targets <<<"$listed"
    fi
    [ $ok = 1 ] && ninja -C "$dir" "${targets[@]}" >"$out/$name.build.log" 2>&1 || ok=0
    if [ $ok = 0 ]; then
        echo "$name: the build failed"
        tail -n 40 "$out/$name.setup.log" "$out/$name.build.log" 2>/dev/null
        failed=$((failed + 1))
        release "$name"
        return
    fi
    meson test -C "$dir" --print-errorlogs "${test_args[@]}" 2>&1 | tail -n 60
    count_results "$dir"
    # Where CI's time goes, configuration by configuration (the build and the tests together).
    echo "$name: $((SECONDS - began)) s"
    release "$name"
}

# release NAME: deletes a finished configuration's build directory, keeping its meson logs beside it
# (NAME.meson-logs). A stop's CI run failed with "No space left on device" in its second configuration: the
# nine directories together came to about 14 GB (1.2 GB of one configuration's is the tests' executables,
# 80% of them debug information), more than that machine had free. One at a time, the run needs the largest.
# TH_TEST_KEEP_BUILDS=1 keeps them, to rerun a test by hand.
release() {
    local dir=$out/$1
    [ -d "$dir" ] || return 0
    echo "$1: $(du -sh "$dir" 2>/dev/null | cut -f1) built; $(df -h --output=avail "$out" | tail -n 1 | tr -d ' ') free"
    [ -n "${TH_TEST_KEEP_BUILDS:-}" ] && return 0
    rm -rf "$out/$1.meson-logs"
    [ -d "$dir/meson-logs" ] && mv "$dir/meson-logs" "$out/$1.meson-logs"
    rm -rf "$dir"
}

mkdir -p "$out"
echo "disk: $(df -h --output=avail "$out" | tail -n 1 | tr -d ' ') free at the start"
# NumPy >= 2.1 and JAX from PyPI in a venv, for a second run of the interop tests.
venv_args=()
if venv=$(bash tests/python/setup_venv.sh "$out/venv" 2>"$out/venv.log" | tail -n 1) && [ -x "$venv" ]; then
    venv_args=("-Dinterop_venv=$venv")
else
    echo "venv: could not set up NumPy 2 and JAX (see $out/venv.log)"
    failed=$((failed + 1))
fi
CC=gcc CXX=g++ run gcc -Dwerror=true "${venv_args[@]}"
# The consumer tests (installs, subprojects, CMake; several minutes) run once, in the gcc configuration.
# The CUDA kernels for one architecture here: nvcc compiles them with its own host compiler (gcc) whatever CC
# says, so the gcc configuration's four architectures already build these objects; for all four again, the
# kernels were 20 of this configuration's 23 minutes in a fresh-clone run (ew_kernels.cu alone 1195 s).
CC=clang CXX=clang++ run clang -Dwerror=true -Dnvcc_arch=9.0 -- --no-suite consumers
# DLPack against a 1.x header as well as Debian's 0.6: apache-tvm-ffi's wheel ships dlpack.h 1.3. Only what the
# core and modes suites need is built (the DLPack tests among them); the rest was 800 CPU seconds of compiles
# that no test of this configuration ran.
dl1=$out/dlpack1-header
if [ ! -f "$dl1/include/dlpack/dlpack.h" ]; then
    rm -rf "$dl1" && mkdir -p "$dl1" &&
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$dl1" apache-tvm-ffi >/dev/null 2>&1 &&
    (cd "$dl1" && python3 -m zipfile -e apache_tvm_ffi-*.whl wheel >/dev/null &&
     mkdir -p include && cp -r wheel/tvm_ffi/include/dlpack include/)
fi
if [ -f "$dl1/include/dlpack/dlpack.h" ]; then
    CC=gcc CXX=g++ only_tested=1 run dlpack1 -Dwerror=true -Dcuda=disabled -Ddlpack=enabled "-Ddlpack_include=$dl1/include" -- \
        --suite core --suite modes
else
    echo "dlpack1: could not fetch a DLPack 1.x header (apache-tvm-ffi from PyPI)"
    failed=$((failed + 1))
fi
# Without LAPACK (-Dlapack=disabled): solve, inv, det, slogdet and cholesky on the built-in LU / Cholesky, against
# NumPy too (suite lapack: numpy_lapack and the docs example); only what those suites need is built.
CC=gcc CXX=g++ only_tested=1 run nolapack -Dwerror=true -Dcuda=disabled -Dlapack=disabled -- --suite core \
    --suite lapack
# Every suite but the docs examples: each example stamps the whole implementation into its one file, as a
# user's program does, and under ASan+UBSan each such compile takes 1-3 CPU minutes (the 23 examples were 1,600
# of this configuration's 2,900 CPU seconds of building, in a fresh-clone run). The library code the examples
# call is the code the suites here test; the examples themselves run under valgrind below (invalid accesses,
# leaks: it found the safetensors example's) and in the gcc and clang configurations.
CC=gcc CXX=g++ only_tested=1 run asan -Dwerror=true -Dcuda=disabled -Db_sanitize=address,undefined -Db_lundef=false -- \
    --no-suite consumers --no-suite names --no-suite docs
# The sanitizer and valgrind configurations build no CUDA companion (-Dcuda=disabled): nvcc's objects are not
# instrumented, and the companion's plain-C logic (suite cuda: conversions, index math, allocator policy, IPC)
# is built and checked there anyway.
# ThreadSanitizer (clang) over the core, modes, shm and cuda suites: test_threads' eight threads sharing tensors,
# and every OpenMP loop the other tests run. OpenMP stays on: libomp is not built with TSan, whose report
# on every OpenMP loop would then be a race with the runtime's own (unseen) barriers, but clang 14's libomp
# loads Archer (libarcher.so, libomp-14-dev), which tells TSan where each parallel region, barrier and
# task orders memory; TSan's ignore_noninstrumented_modules drops what it would report inside libomp
# itself. Checked when chosen: a racy `omp parallel for` is still reported, a clean one is not, and
# without Archer (OMP_TOOL=disabled) test_threads gets a dozen false reports. Named explicitly rather than
# left to libomp's search for it. Only what the three suites need is built (not the docs examples): each
# TU that stamps the implementation costs most of a minute of CPU under TSan. Measured: 5m45s on 2 cores
# shared with four other builds, 3m20s of CPU (the tests 30 s of it); so about 2-3 minutes on 2 free cores.
CC=clang CXX=clang++ TSAN_OPTIONS=ignore_noninstrumented_modules=1 \
OMP_TOOL_LIBRARIES=/usr/lib/llvm-14/lib/libarcher.so only_tested=1 \
    run tsan -Dwerror=true -Dcuda=disabled -Db_sanitize=thread -Db_lundef=false -- --suite core --suite modes \
    --suite shm --suite cuda
# TH_NPZ_MANY: npz_files' ZIP64 archive with 300 members instead of 65,536 (10 CPU minutes under valgrind;
# tests/numpy/npz_files.py keeps its ZIP64 end records).
CC=gcc CXX=g++ TH_NPZ_MANY=300 run valgrind -Dwerror=true -Dcuda=disabled -Dbuildtype=debug -- --no-suite consumers --no-suite names \
    --no-suite dist --no-suite model --timeout-multiplier 20 \
    --wrap "valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect"
# The dist suite (MPI) apart: --wrap would put valgrind around tests/dist/mpirun.sh, the shell, and check no rank;
# each rank runs under valgrind instead (TH_DIST_RANK_WRAP), with tests/dist/openmpi.supp for what Open MPI and
# PMIx leak themselves (entries anchored on their entry points, none on th_ code).
CC=gcc CXX=g++ only_tested=1 TH_DIST_TIMEOUT=1500 \
TH_DIST_RANK_WRAP="valgrind --quiet --error-exitcode=99 --num-callers=50 --leak-check=full \
--errors-for-leak-kinds=definite,indirect --suppressions=$root/tests/dist/openmpi.supp" \
    run valgrind-dist -Dwerror=true -Dcuda=disabled -Dbuildtype=debug -- --suite dist --timeout-multiplier 5

# Fuzzers (libFuzzer, clang): a short run of each; any crash, leak or abort fails it. Two at a time: each is one
# process (its compile too), and one after another they were 9.5 minutes of a fresh-clone run.
fuzz() { # fuzz NAME SOURCE: builds and runs one fuzzer; its verdict line goes to $out/NAME.verdict
    local name=$1 target=$2 corpus=$out/$1-corpus
    mkdir -p "$corpus"
    # Seeds (real files, for the file format parsers) start the corpus where a target has them.
    [ -d "tests/fuzz/seeds/$name" ] && cp -n tests/fuzz/seeds/"$name"/* "$corpus"/
    if clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. \
            "$target" -o "$out/$name" -lm >"$out/$name.build.log" 2>&1 &&
       "$out/$name" -max_total_time="${TH_FUZZ_SECONDS:-30}" -timeout=10 -artifact_prefix="$out/$name-" "$corpus" >"$out/$name.log" 2>&1; then
        echo "$name: ok ($(grep -c . <(ls "$corpus")) corpus entries)" >"$out/$name.verdict"
    else
        echo "$name: FAILED" >"$out/$name.verdict"
    fi
}
echo "=== fuzzers"
began=$SECONDS
fuzzers=()
for target in tests/fuzz/fuzz_*.c; do
    name=$(basename "$target" .c)
    fuzzers+=("$name")
    rm -f "$out/$name.verdict"
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
    fuzz "$name" "$target" &
done
wait
for name in "${fuzzers[@]}"; do
    if grep -q ': ok' "$out/$name.verdict" 2>/dev/null; then
        cat "$out/$name.verdict"
        passed=$((passed + 1))
    else
        echo "$name: FAILED"
        tail -n 30 "$out/$name.build.log" "$out/$name.log"
        failed=$((failed + 1))
    fi
done
echo "fuzzers: $((SECONDS - began)) s"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
