#!/usr/bin/env bash
# tests/consumers/run.sh SOURCE_ROOT
#
# Proves the three ways a project consumes tensor.h, each with a small consumer program (common/
# consumer_checks.h does the work: a tensor, views, copies and conversions, printing, value checks):
#
#   meson-subproject   the library copied to subprojects/tensor of a Meson project, found with
#                      dependency('tensor', fallback: ...) and with subproject() + meson.override_dependency;
#                      the library's own tests and docs examples must not be configured there.
#   pkg-config         the library installed with `meson install` into a temporary prefix, then a consumer
#                      built with plain cc and the flags of tensor.pc, and one built by Meson through
#                      dependency('tensor') found by pkg-config.
#   vendored           only tensor.h, tensor_generic.h and generate/ copied into vendor/, built with plain
#                      cc -Ivendor, and once with no -I at all, including "vendor/tensor.h" by relative path.
#
# Everything happens in a fresh temporary folder (removed on exit; set CONSUMERS_KEEP=1 to keep it);
# nothing is written into SOURCE_ROOT. Uses $CC (default cc). Prints "consumer <way>: ok" per way, or the
# failure and its log; exits 1 if any way failed.
# shellcheck disable=SC2317 # the way_* functions are called through run_way
set -euo pipefail

if [[ $# -ne 1 || ! -f $1/tensor.h ]]; then
    echo "usage: $0 SOURCE_ROOT   (the folder holding tensor.h and meson.build)" >&2
    exit 2
fi
src=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
read -r -a cc_cmd <<< "${CC:-cc}"
strict=(-std=c11 -Wall -Wextra -Wpedantic -Werror)

work=$(mktemp -d "${TMPDIR:-/tmp}/tensor-consumers.XXXXXX")
if [[ ${CONSUMERS_KEEP:-0} == 1 ]]; then
    trap 'echo "consumers: kept $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi
# Run from inside the temporary folder so that no tool can drop anything into the caller's folder.
cd "$work"
# The consumers must see only what this script gives them.
unset PKG_CONFIG_PATH PKG_CONFIG_LIBDIR CPATH C_INCLUDE_PATH || true

# ---- helpers ------------------------------------------------------------------------------------

# copy_library DEST what: the library's files into DEST.
#   what=headers: only tensor.h, tensor_generic.h and generate/ (what a vendoring project copies)
#   what=project: the Meson project as a checkout or a wrap would bring it (headers, meson.build,
#                 meson_options.txt, and tests/ and docs/ so that building them by mistake would show)
copy_library() {
    local dest=$1 what=$2 f
    local -a paths=(tensor.h tensor_generic.h generate)
    if [[ $what == project ]]; then
        paths+=(meson.build meson_options.txt tests docs shm LICENSE)
    fi
    mkdir -p "$dest"
    if git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1 &&
        [[ $(cd "$(git -C "$src" rev-parse --show-toplevel)" && pwd) == "$src" ]]; then
        # The files git knows about (committed or not yet), never build folders or other strays.
        while IFS= read -r -d '' f; do
            [[ -f $src/$f ]] || continue # deleted in the work tree
            mkdir -p "$dest/$(dirname "$f")"
            cp "$src/$f" "$dest/$f"
        done < <(git -C "$src" ls-files -z --cached --others --exclude-standard -- "${paths[@]}" \
            ':(exclude)tests/consumers')
    else
        for f in "${paths[@]}"; do
            if [[ -e $src/$f ]]; then cp -R "$src/$f" "$dest/$f"; fi
        done
        rm -rf "$dest/tests/consumers"
    fi
    if [[ $what == headers ]]; then
        find "$dest/generate" -type f ! -name '*.h' -delete
    fi
    local need=(tensor.h tensor_generic.h generate/all.h generate/stamp.h)
    [[ $what == project ]] && need+=(meson.build meson_options.txt)
    for f in "${need[@]}"; do
        if [[ ! -f $dest/$f ]]; then
            echo "copy_library: $f missing from the copy of $src" >&2
            return 1
        fi
    done
}

# new_consumer DEST PROJECT: a consumer project folder from tests/consumers/PROJECT plus the shared checks.
new_consumer() {
    mkdir -p "$1"
    cp "$here/$2"/* "$1"/
    cp "$here/common/consumer_checks.h" "$1"/
}

# run_consumer EXE: runs it; the consumer prints its tensors and exits non-zero on a wrong value.
run_consumer() {
    "$1"
}

# meson_consumer_build PROJECT_DIR BUILD_DIR MESON_SETUP_ARGS...: configure, build, run the consumer
# (through `meson test`, and once directly so its output lands in the log).
meson_consumer_build() {
    local proj=$1 build=$2
    shift 2
    meson setup "$build" "$proj" --wrap-mode=nodownload "$@"
    meson compile -C "$build"
    run_consumer "$build/consumer"
    meson test -C "$build" --print-errorlogs
}

# introspected_tests BUILD_DIR: the names of the tests a Meson build dir registered, one a line.
introspected_tests() {
    meson introspect --tests "$1" |
        python3 -c 'import json, sys; print("\n".join(t["name"] for t in json.load(sys.stdin)))'
}

# introspected_subproject_targets BUILD_DIR: targets that belong to any subproject, one a line.
introspected_subproject_targets() {
    meson introspect --targets "$1" |
        python3 -c 'import json, sys
for t in json.load(sys.stdin):
    if t.get("subproject"):
        print(t["subproject"] + ": " + t["name"])'
}

# check_no_library_tests BUILD_DIR: the library's tests and docs examples were not configured.
check_no_library_tests() {
    local build=$1 tests targets
    tests=$(introspected_tests "$build")
    if [[ $tests != consumer ]]; then
        printf 'expected only the consumer'"'"'s test, the build registered:\n%s\n' "$tests" >&2
        return 1
    fi
    targets=$(introspected_subproject_targets "$build")
    if [[ -n $targets ]]; then
        printf 'the tensor subproject built targets (its tests?):\n%s\n' "$targets" >&2
        return 1
    fi
    if grep -Eq 'subprojects/tensor/(tests|docs)/' "$build/build.ninja"; then
        echo "build.ninja builds files from subprojects/tensor/tests or docs" >&2
        return 1
    fi
    echo "the library's tests and docs examples are not configured: ok"
}

# ---- the ways ------------------------------------------------------------------------------------

way_meson_fallback() {
    local proj=$work/meson-fallback
    new_consumer "$proj" meson_consumer
    copy_library "$proj/subprojects/tensor" project
    # Force the subproject even where a tensor.pc is installed system-wide.
    meson_consumer_build "$proj" "$proj/build" -Dhow=fallback --force-fallback-for=tensor
    check_no_library_tests "$proj/build"
}

way_meson_override() {
    local proj=$work/meson-override
    new_consumer "$proj" meson_consumer
    copy_library "$proj/subprojects/tensor" project
    meson_consumer_build "$proj" "$proj/build" -Dhow=subproject
    check_no_library_tests "$proj/build"
}

prefix=$work/prefix
pc_dir_file=$work/pc_dir

way_install() {
    local lib=$work/install/src build=$work/install/build
    copy_library "$lib" project
    # The header-only library alone: the shm/ companion (a static library and th-shm-manager) is off here.
    meson setup "$build" "$lib" --prefix="$prefix" -Dtests=disabled -Dshm=disabled
    meson install -C "$build"

    # tensor.pc lies wherever meson puts libdir (lib/, lib64/, lib/<triplet>/); there must be one.
    local pcs
    pcs=$(find "$prefix" -name tensor.pc -path '*/pkgconfig/*')
    if [[ $(printf '%s\n' "$pcs" | grep -c .) -ne 1 ]]; then
        printf 'expected one tensor.pc under %s, found:\n%s\n' "$prefix" "$pcs" >&2
        return 1
    fi
    dirname "$pcs" > "$pc_dir_file"
    echo "tensor.pc: ${pcs#"$prefix"/}"
    cat "$pcs"

    # Every header is installed (meson.build lists generate/ by hand), and nothing else is.
    local want got
    want=$( (cd "$lib" && printf '%s\n' tensor.h tensor_generic.h generate/*.h generate/ops/*.h) | sort)
    got=$(cd "$prefix/include/tensor" && find . -type f | sed 's|^\./||' | sort)
    if [[ $want != "$got" ]]; then
        echo "installed headers differ from the library's (< source, > installed):" >&2
        diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") >&2 || true
        return 1
    fi
    local others
    others=$(cd "$prefix" && find . -type f ! -path './include/tensor/*' ! -path '*/pkgconfig/tensor.pc')
    if [[ -n $others ]]; then
        printf 'the install put more than the headers and tensor.pc into the prefix:\n%s\n' "$others" >&2
        return 1
    fi
    echo "installed: $(printf '%s\n' "$got" | wc -l) headers and tensor.pc, nothing else"
}

pc() {
    PKG_CONFIG_PATH=$(cat "$pc_dir_file") PKG_CONFIG_LIBDIR='' pkg-config "$@"
}

way_pkgconfig_cc() {
    [[ -s $pc_dir_file ]] || { echo "skipped: the install failed" >&2; return 1; }
    local proj=$work/pkgconfig-cc version flags
    new_consumer "$proj" pkgconfig_cc
    version=$(pc --modversion tensor)
    read -r -a flags <<< "$(pc --cflags --libs tensor)"
    echo "pkg-config --modversion tensor: $version"
    echo "pkg-config --cflags --libs tensor: ${flags[*]}"
    (cd "$proj" && set -x &&
        "${cc_cmd[@]}" "${strict[@]}" -DCONSUMER_PC_VERSION="\"$version\"" main.c "${flags[@]}" -o consumer)
    run_consumer "$proj/consumer"
}

way_pkgconfig_meson() {
    [[ -s $pc_dir_file ]] || { echo "skipped: the install failed" >&2; return 1; }
    local proj=$work/pkgconfig-meson
    new_consumer "$proj" meson_consumer # no subprojects/: pkg-config is the only way to find tensor
    PKG_CONFIG_LIBDIR='' meson_consumer_build "$proj" "$proj/build" -Dhow=pkgconfig \
        --pkg-config-path="$(cat "$pc_dir_file")"
}

way_vendored_include_path() {
    local proj=$work/vendored
    new_consumer "$proj" vendored
    copy_library "$proj/vendor" headers
    (cd "$proj" && set -x &&
        "${cc_cmd[@]}" "${strict[@]}" -O2 -Ivendor main.c impl.c -lm -o consumer)
    run_consumer "$proj/consumer"
}

way_vendored_relative() {
    local proj=$work/vendored-rel/app elsewhere=$work/vendored-rel/elsewhere
    new_consumer "$proj" vendored_relpath
    copy_library "$proj/vendor" headers
    # Compiled from another folder with no -I: only the include path relative to main.c can work.
    mkdir -p "$elsewhere"
    (cd "$elsewhere" && set -x &&
        "${cc_cmd[@]}" "${strict[@]}" ../app/main.c -lm -o consumer)
    run_consumer "$elsewhere/consumer"
}

# ---- run them ------------------------------------------------------------------------------------

failed=0
run_way() {
    local name=$1 fn=$2 log=$work/log.$2 rc t0 t1
    t0=$(date +%s%N)
    set +e
    (set -e; "$fn") > "$log" 2>&1
    rc=$?
    set -e
    t1=$(date +%s%N)
    if [[ $rc -eq 0 ]]; then
        printf 'consumer %s: ok (%d.%ds)\n' "$name" $(((t1 - t0) / 1000000000)) $(((t1 - t0) / 100000000 % 10))
    else
        failed=1
        echo "consumer $name: FAILED (exit $rc); log:"
        sed 's/^/    /' "$log"
    fi
}

"${cc_cmd[@]}" --version 2>/dev/null | head -n 1 | sed 's/^/compiler: /' || true
run_way "meson-subproject (dependency fallback)" way_meson_fallback
run_way "meson-subproject (subproject + override_dependency)" way_meson_override
run_way "pkg-config (meson install)" way_install
run_way "pkg-config (cc)" way_pkgconfig_cc
run_way "pkg-config (meson dependency)" way_pkgconfig_meson
run_way "vendored (-Ivendor)" way_vendored_include_path
run_way "vendored (relative include, no -I)" way_vendored_relative
exit $failed
