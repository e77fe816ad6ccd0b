#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs what is missing (Debian, as root), then builds and tests
# with gcc and clang (-Werror), again under AddressSanitizer + UndefinedBehaviorSanitizer, and once under
# valgrind. Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=${TH_TEST_BUILD_DIR:-$root/build-tests}

need=()
for tool in meson:meson ninja:ninja-build gcc:gcc g++:g++ clang:clang valgrind:valgrind pkg-config:pkg-config \
            python3:python3; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || need+=("${tool#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
    echo "installing: ${need[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null && apt-get install -y -q "${need[@]}" >/dev/null || {
        echo "could not install ${need[*]}"; echo "0 passed, 1 failed"; exit 1; }
fi

passed=0
failed=0
count_results() { # counts meson's results for one build directory
    local log=$1/meson-logs/testlog.json
    [ -f "$log" ] || return
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
CC=gcc CXX=g++ run gcc -Dwerror=true
CC=clang CXX=clang++ run clang -Dwerror=true
CC=gcc CXX=g++ run asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false -- \
    --no-suite consumers --no-suite names
CC=gcc CXX=g++ run valgrind -Dwerror=true -Dbuildtype=debug -- --no-suite consumers --no-suite names \
    --timeout-multiplier 20 \
    --wrap 'valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
