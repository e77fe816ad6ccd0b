#!/usr/bin/env bash
# tests/consumers/run.sh SOURCE_ROOT
#
# Proves every way a project consumes tensor.h, each with a small consumer program (common/consumer_checks.h
# does the work: a tensor, views, copies and conversions, printing, value checks; common/shm_checks.h adds a
# tensor moved into shared memory where the way takes the shm/ companion too). Two forms of the library:
# header-only (the consumer compiles one TH_IMPLEMENTATION TU: tensor-headers, tensor::headers) and compiled
# (libtensor holds it: tensor, tensor::tensor).
#
#   meson-subproject   the library copied to subprojects/tensor of a Meson project: tensor-headers with
#                      dependency(..., fallback: 'tensor') and with subproject() + meson.override_dependency
#                      (the library's own tests and docs examples must not be configured, nor libtensor
#                      compiled); tensor and tensor-shm with -Dtensor:shm=enabled (libtensor compiled there,
#                      static).
#   installed          `meson install` into a temporary prefix (the .pc files, the CMake package, libtensor,
#                      th_shm and every header, nothing else), then consumers built with plain cc and
#                      pkg-config (tensor-headers; tensor shared, tensor static, tensor-shm), with Meson
#                      through dependency() found by pkg-config, and with CMake through find_package(tensor)
#                      (tensor::tensor + tensor::shm, tensor::tensor_static, tensor::headers); and the example
#                      of README.md, built as the README says and again against the installed libtensor.
#   vendored           only tensor.h, tensor_generic.h, core/, ops/ and generate/ copied into vendor/, built with plain
#                      cc -Ivendor, and once with no -I at all, including "vendor/tensor.h" by relative path.
#   dtype subsets      TUs that stamp different dtype subsets linked into one program (subsets/): what fails
#                      and with which message, and the rules that work (docs/install.md).
#
# Everything happens in a fresh temporary folder (removed on exit; set CONSUMERS_KEEP=1 to keep it);
# nothing is written into SOURCE_ROOT. CONSUMERS_WAYS=REGEX runs only the way_* functions it matches (the
# installed ways need way_install). Uses $CC (default cc). Prints "consumer <way>: ok" per way, or the
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
#   what=headers: only tensor.h, tensor_generic.h, core/, ops/ and generate/ (what a vendoring project copies)
#   what=project: the Meson project as a checkout or a wrap would bring it (headers, meson.build,
#                 meson_options.txt, lib/, shm/, cuda/, dist/, and tests/ and docs/ so that building them by mistake
#                 would show)
copy_library() {
    local dest=$1 what=$2 f
    local -a paths=(tensor.h tensor_generic.h core ops generate)
    if [[ $what == project ]]; then
        paths+=(meson.build meson_options.txt lib tests docs shm cuda dist LICENSE)
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
    local need=(tensor.h tensor_generic.h core/config.h ops/reduce.h generate/all.h generate/stamp.h)
    [[ $what == project ]] && need+=(meson.build meson_options.txt lib/meson.build lib/tensor.c)
    for f in "${need[@]}"; do
        if [[ ! -f $dest/$f ]]; then
            echo "copy_library: $f missing from the copy of $src" >&2
            return 1
        fi
    done
}

# new_consumer DEST [PROJECT]: a consumer project folder: common/ (the checks and consumer_main.c) plus the
# files of tests/consumers/PROJECT.
new_consumer() {
    mkdir -p "$1"
    cp "$here/common"/* "$1"/
    if [[ $# -gt 1 ]]; then cp "$here/$2"/* "$1"/; fi
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

# introspected_subproject_targets BUILD_DIR: the targets of any subproject that are built by default, one a
# line (libtensor is not: a subproject compiles it only for a target that uses dependency('tensor')).
introspected_subproject_targets() {
    meson introspect --targets "$1" |
        python3 -c 'import json, sys
for t in json.load(sys.stdin):
    if t.get("subproject") and t.get("build_by_default"):
        print(t["subproject"] + ": " + t["name"])'
}

# check_no_library_tests BUILD_DIR: the library's tests and docs examples were not configured.
check_no_library_tests() {
    local build=$1 tests
    tests=$(introspected_tests "$build")
    if [[ $tests != consumer ]]; then
        printf 'expected only the consumer'"'"'s test, the build registered:\n%s\n' "$tests" >&2
        return 1
    fi
    if grep -Eq 'subprojects/tensor/(tests|docs)/' "$build/build.ninja"; then
        echo "build.ninja builds files from subprojects/tensor/tests or docs" >&2
        return 1
    fi
    echo "the library's tests and docs examples are not configured: ok"
}

# check_header_only_build BUILD_DIR: a consumer of tensor-headers made the subproject build nothing: no
# target of its own by default, and libtensor (the 30-60 s TU of every dtype) not compiled.
check_header_only_build() {
    local build=$1 targets
    targets=$(introspected_subproject_targets "$build")
    if [[ -n $targets ]]; then
        printf 'the tensor subproject builds targets by default:\n%s\n' "$targets" >&2
        return 1
    fi
    if [[ -n $(find "$build/subprojects" -type f \( -name 'libtensor*' -o -name 'tensor.c.o' \) -print -quit) ]]; then
        echo "the tensor subproject compiled libtensor for a consumer of tensor-headers" >&2
        return 1
    fi
    echo "the subproject built nothing (libtensor not compiled): ok"
}

# needed_libs EXE: the shared libraries EXE names (DT_NEEDED), one a line.
needed_libs() {
    readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

# check_links_libtensor EXE shared|static: EXE needs libtensor.so at run time, or has it linked in.
check_links_libtensor() {
    local needed
    needed=$(needed_libs "$1")
    if [[ $2 == shared ]] && ! grep -q '^libtensor\.so' <<< "$needed"; then
        printf '%s does not need libtensor.so; it needs:\n%s\n' "$1" "$needed" >&2
        return 1
    fi
    if [[ $2 == static ]] && grep -q '^libtensor\.so' <<< "$needed"; then
        echo "$1 needs libtensor.so: it was meant to link libtensor.a" >&2
        return 1
    fi
    echo "$(basename "$1"): links libtensor ($2): ok"
}

# ---- the ways ------------------------------------------------------------------------------------

way_meson_fallback() {
    local proj=$work/meson-fallback
    new_consumer "$proj" meson_consumer
    copy_library "$proj/subprojects/tensor" project
    # Force the subproject even where a tensor.pc is installed system-wide.
    meson_consumer_build "$proj" "$proj/build" -Dhow=fallback -Dform=headers --force-fallback-for=tensor
    check_no_library_tests "$proj/build"
    check_header_only_build "$proj/build"
}

way_meson_override() {
    local proj=$work/meson-override
    new_consumer "$proj" meson_consumer
    copy_library "$proj/subprojects/tensor" project
    meson_consumer_build "$proj" "$proj/build" -Dhow=subproject -Dform=headers
    check_no_library_tests "$proj/build"
    check_header_only_build "$proj/build"
}

way_meson_compiled() {
    local proj=$work/meson-compiled
    new_consumer "$proj" meson_consumer
    rm "$proj/impl.c" # libtensor is the implementation: a TU of our own would define everything twice
    copy_library "$proj/subprojects/tensor" project
    # shm is off in a subproject unless asked for, with the option docs/install.md gives.
    meson_consumer_build "$proj" "$proj/build" -Dhow=fallback -Dform=compiled -Dshm=true \
        -Dtensor:shm=enabled --force-fallback-for=tensor
    check_no_library_tests "$proj/build"
    check_links_libtensor "$proj/build/consumer" static
}

prefix=$work/prefix
pc_dir_file=$work/pc_dir

way_install() {
    local lib=$work/install/src build=$work/install/build
    copy_library "$lib" project
    # Everything a package would ship: shm/ where it can be built (auto), no tests (-Dtests=disabled, as the
    # README's install command says).
    # -Dbuildtype=debug (-O0) halves the time libtensor takes to compile; nothing here depends on its speed. One
    # GPU architecture (-Dnvcc_arch=9.0) rather than four: what is installed is the same files, and the CUDA
    # kernels for four took most of this way's 12 minutes beside other tests.
    meson setup "$build" "$lib" --prefix="$prefix" -Dtests=disabled -Dbuildtype=debug -Dnvcc_arch=9.0
    meson install -C "$build"

    # The .pc files lie wherever meson puts libdir (lib/, lib64/, lib/<triplet>/); there must be one tensor.pc.
    local pcs pcdir libdir shm
    pcs=$(find "$prefix" -name tensor.pc -path '*/pkgconfig/*')
    if [[ $(printf '%s\n' "$pcs" | grep -c .) -ne 1 ]]; then
        printf 'expected one tensor.pc under %s, found:\n%s\n' "$prefix" "$pcs" >&2
        return 1
    fi
    pcdir=$(dirname "$pcs")
    echo "$pcdir" > "$pc_dir_file"
    libdir=${pcdir#"$prefix"/}
    libdir=${libdir%/pkgconfig}
    shm=$(pc --variable=shm tensor)
    # The CUDA companion is built where nvcc and the CUDA runtime are found (no GPU needed).
    local cuda=no dist
    [[ -f $pcdir/tensor-cuda.pc ]] && cuda=yes
    dist=$(pc --variable=mpi tensor) # dist/ is built where MPI is found
    for f in "$pcdir"/*.pc; do
        echo "---- ${f#"$prefix"/}"
        cat "$f"
    done

    # Every header is installed (meson.build lists generate/ by hand; core/ and ops/ go whole).
    local want got
    want=$( (cd "$lib" && printf '%s\n' tensor.h tensor_generic.h core/*.h ops/*.h generate/*.h
        if [[ $shm == yes ]]; then printf '%s\n' th_shm.h shm/share_generic.h; fi
        if [[ $cuda == yes ]]; then printf '%s\n' th_cuda.h cuda/tensor_generic.h; fi
        if [[ $dist == yes ]]; then printf '%s\n' th_dist.h dist/dist_generic.h; fi) | sort)
    got=$(cd "$prefix/include/tensor" && find . -type f | sed 's|^\./||' | sort)
    if [[ $want != "$got" ]]; then
        echo "installed headers differ from the library's (< source, > installed):" >&2
        diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") >&2 || true
        return 1
    fi
    # And besides them exactly the package: libtensor (the .so's links included), the .pc files, the CMake
    # package, and with shm/ its library, .pc file and manager.
    want=$(
        printf "$libdir/%s\n" libtensor.a libtensor.so libtensor.so.0.1 libtensor.so.0.1.0 \
            pkgconfig/tensor.pc pkgconfig/tensor-headers.pc cmake/tensor/tensorConfig.cmake \
            cmake/tensor/tensorConfigVersion.cmake
        if [[ $shm == yes ]]; then
            printf "$libdir/%s\n" libth_shm.a pkgconfig/tensor-shm.pc
            echo bin/th-shm-manager
        fi
        if [[ $cuda == yes ]]; then
            printf "$libdir/%s\n" libth_cuda.a libth_cuda.so libth_cuda.so.0.1 libth_cuda.so.0.1.0 \
                pkgconfig/tensor-cuda.pc pkgconfig/tensor-cuda-shared.pc
        fi
        if [[ $dist == yes ]]; then
            printf "$libdir/%s\n" libth_dist.a pkgconfig/tensor-dist.pc
        fi
    )
    got=$(cd "$prefix" && find . ! -type d ! -path './include/tensor/*' | sed 's|^\./||')
    if [[ $(sort <<< "$want") != $(sort <<< "$got") ]]; then
        echo "the install put other files than the package's into the prefix (< expected, > installed):" >&2
        diff <(sort <<< "$want") <(sort <<< "$got") >&2 || true
        return 1
    fi
    echo "installed: $(grep -c . <<< "$(cd "$prefix/include/tensor" && find . -type f)") headers and" \
        "$(grep -c . <<< "$got") other files (shm: $shm, cuda: $cuda, dist: $dist), nothing else"
}

# pkg-config as a user of the install sees it: its .pc files first, then the system's (where openblas.pc,
# which the BLAS-using .pc files require, lies).
pc() {
    PKG_CONFIG_PATH=$(cat "$pc_dir_file") pkg-config "$@"
}

need_install() {
    [[ -s $pc_dir_file ]] || { echo "skipped: the install failed" >&2; return 1; }
}

way_pkgconfig_headers_cc() {
    need_install
    local proj=$work/pkgconfig-headers-cc version flags
    new_consumer "$proj" pkgconfig_cc
    version=$(pc --modversion tensor-headers)
    flags=$(pc --cflags --libs tensor-headers)
    read -r -a flags <<< "$flags"
    echo "pkg-config --modversion tensor-headers: $version"
    echo "pkg-config --cflags --libs tensor-headers: ${flags[*]}"
    (cd "$proj" && set -x &&
        "${cc_cmd[@]}" "${strict[@]}" -DCONSUMER_PC_VERSION="\"$version\"" main.c "${flags[@]}" -o consumer)
    run_consumer "$proj/consumer"
}

way_pkgconfig_compiled_cc() {
    need_install
    local proj=$work/pkgconfig-compiled-cc flags libdir pkgs=(tensor) defs=()
    new_consumer "$proj"
    if [[ $(pc --variable=shm tensor) == yes ]]; then
        pkgs=(tensor-shm tensor) # th_shm calls into libtensor: it comes first
        defs=(-DCONSUMER_SHM)
    fi
    flags=$(pc --cflags --libs "${pkgs[@]}")
    read -r -a flags <<< "$flags"
    libdir=$(pc --variable=libdir tensor)
    echo "pkg-config --cflags --libs ${pkgs[*]}: ${flags[*]}"
    # The prefix is no system one: the program finds libtensor.so through its rpath.
    (cd "$proj" && set -x &&
        "${cc_cmd[@]}" "${strict[@]}" "${defs[@]}" -DCONSUMER_WAY='"pkg-config + cc, libtensor.so"' \
            consumer_main.c "${flags[@]}" -Wl,-rpath,"$libdir" -o consumer)
    check_links_libtensor "$proj/consumer" shared
    run_consumer "$proj/consumer"
}

way_pkgconfig_static_cc() {
    need_install
    local proj=$work/pkgconfig-static-cc flags
    new_consumer "$proj"
    # --static adds Libs.private and Requires.private (OpenMP, BLAS, libm): what libtensor.a needs. -l:libtensor.a
    # picks the archive where the linker would take the .so.
    flags=$(pc --cflags --libs --static tensor | sed 's/-ltensor\b/-l:libtensor.a/') # as docs/install.md
    read -r -a flags <<< "$flags"
    echo "pkg-config --cflags --libs --static tensor, libtensor.a: ${flags[*]}"
    (cd "$proj" && set -x &&
        "${cc_cmd[@]}" "${strict[@]}" -DCONSUMER_WAY='"pkg-config + cc, libtensor.a"' \
            consumer_main.c "${flags[@]}" -o consumer)
    check_links_libtensor "$proj/consumer" static
    run_consumer "$proj/consumer"
}

way_pkgconfig_meson() {
    need_install
    local proj=$work/pkgconfig-meson
    new_consumer "$proj" meson_consumer # no subprojects/: pkg-config is the only way to find tensor
    meson_consumer_build "$proj" "$proj/build" -Dhow=pkgconfig -Dform=headers \
        --pkg-config-path="$(cat "$pc_dir_file")"
}

way_pkgconfig_meson_compiled() {
    need_install
    local proj=$work/pkgconfig-meson-compiled shm=false
    new_consumer "$proj" meson_consumer
    rm "$proj/impl.c"
    [[ $(pc --variable=shm tensor) == yes ]] && shm=true
    meson_consumer_build "$proj" "$proj/build" -Dhow=pkgconfig -Dform=compiled \
        -Dshm="$shm" --pkg-config-path="$(cat "$pc_dir_file")"
    check_links_libtensor "$proj/build/consumer" shared
}

way_cmake() {
    need_install
    local proj=$work/cmake build=$work/cmake/build
    new_consumer "$proj" cmake_consumer
    # CMake finds the package under <prefix>/<libdir>/cmake/tensor, multiarch libdir included. Its BLAS
    # comes from the same pkg-config files the build used (the system's).
    cmake -S "$proj" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="${cc_cmd[0]}"
    cmake --build "$build" --verbose
    for exe in consumer_shared consumer_static consumer_headers; do
        run_consumer "$build/$exe"
    done
    check_links_libtensor "$build/consumer_shared" shared
    check_links_libtensor "$build/consumer_static" static
    (cd "$build" && ctest --output-on-failure)
    # The version file: 0.x satisfies requests of its own minor version only.
    local vproj=$work/cmake-version version
    version=$(pc --modversion tensor)
    mkdir -p "$vproj"
    # shellcheck disable=SC2016 # ${WANT} is CMake's
    printf '%s\n' 'cmake_minimum_required(VERSION 3.14)' 'project(tensor_version_check LANGUAGES C)' \
        'find_package(tensor ${WANT} REQUIRED)' > "$vproj/CMakeLists.txt"
    cmake -S "$vproj" -B "$vproj/ok" -DCMAKE_PREFIX_PATH="$prefix" -DWANT="${version%.*}" > /dev/null
    echo "find_package(tensor ${version%.*}) finds $version: ok"
    expect_failure "$vproj/0.99.log" "requested version \"0\.99\"|version: $version" \
        "find_package(tensor 0.99) against $version" \
        cmake -S "$vproj" -B "$vproj/0.99" -DCMAKE_PREFIX_PATH="$prefix" -DWANT=0.99
}

# readme_example DEST: the C example of README.md's "## Example" section, as a file.
readme_example() {
    # shellcheck disable=SC2016 # sed addresses, not shell expansions
    sed -n '/^## Example/,/^## /p' "$src/README.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' > "$1"
    grep -q 'int main' "$1" || { echo "no C example under '## Example' in README.md" >&2; return 1; }
}

# check_readme_output EXE: the example runs and prints what README.md says.
check_readme_output() {
    "$1" > "$1.out" 2>&1
    cat "$1.out"
    grep -q 'dtype=f64' "$1.out" && grep -q 'th_f32_narrow: start 3 + length 4 exceeds size 4 of dim 1' "$1.out"
}

way_readme_example() {
    local proj=$work/readme
    mkdir -p "$proj"
    readme_example "$proj/example.c"
    copy_library "$proj/vendor" headers
    # Header-only, built the way the README says.
    (cd "$proj" && set -x && "${cc_cmd[@]}" "${strict[@]}" -I vendor example.c -lm -o example)
    check_readme_output "$proj/example"
    # Compiled: the same file without its four defines, linked with the installed libtensor.
    if need_install; then
        local flags
        sed '/^#define TH_/d' "$proj/example.c" > "$proj/example_lib.c"
        flags=$(pc --cflags --libs tensor)
        read -r -a flags <<< "$flags"
        (cd "$proj" && set -x &&
            "${cc_cmd[@]}" "${strict[@]}" example_lib.c "${flags[@]}" -Wl,-rpath,"$(pc --variable=libdir tensor)" \
                -o example_lib)
        check_links_libtensor "$proj/example_lib" shared
        check_readme_output "$proj/example_lib"
    fi
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

# expect_failure LOG PATTERN WHAT CMD...: CMD must fail, and its output (kept in LOG) match PATTERN.
expect_failure() {
    local log=$1 pattern=$2 what=$3
    shift 3
    if "$@" > "$log" 2>&1; then
        echo "$what: expected to fail, but it succeeded" >&2
        return 1
    fi
    if ! grep -Eq "$pattern" "$log"; then
        echo "$what: failed, but without /$pattern/:" >&2
        cat "$log" >&2
        return 1
    fi
    echo "$what: fails as documented:"
    # grep stops itself after two lines: a `| head` could close the pipe under it (SIGPIPE, fatal with pipefail).
    grep -m 2 -E "$pattern" "$log" | sed 's/^/    /'
}

way_dtype_subsets() {
    local proj=$work/subsets f
    new_consumer "$proj" subsets
    copy_library "$proj/vendor" headers
    cd "$proj"
    for f in impl_f32 impl_f64 impl_f32_f64 static_f64 use_f32_f64 use_select_f32_f64 use_f32_static_f64; do
        (set -x && "${cc_cmd[@]}" "${strict[@]}" -Ivendor -c "$f.c" -o "$f.o")
    done
    # An f64 call with no f64 stamped anywhere: a plain undefined reference, naming the function.
    expect_failure link-f32.log "undefined (reference to|symbol).*th_f64_" \
        "f32-only implementation TU + a TU calling f64" \
        "${cc_cmd[@]}" use_f32_f64.o impl_f32.o -lm -o fails
    # A TU that selects its dtypes: the missing one's marker names the dtype and the fix.
    expect_failure link-select.log \
        "th_f64__not_stamped_by_the_TH_IMPLEMENTATION_TU__define_TH_WANT_F64_there" \
        "f32-only implementation TU + a TU selecting f32 and f64" \
        "${cc_cmd[@]}" use_select_f32_f64.o impl_f32.o -lm -o fails
    (set -x && "${cc_cmd[@]}" use_select_f32_f64.o impl_f32_f64.o -lm -o selected)
    run_consumer ./selected
    # Two implementation TUs: their dtype-independent functions are defined twice.
    expect_failure link-two.log "multiple definition of .?th_|duplicate symbol.*th_" \
        "implementation TUs for f32 and for f64 in one program" \
        "${cc_cmd[@]}" use_f32_f64.o impl_f32.o impl_f64.o -lm -o fails
    # A TU that selects dtypes sees only theirs: calling another one does not compile.
    expect_failure compile-selected.log "th_f64_zeros" \
        "a TU selecting f32 that calls th_f64_zeros" \
        "${cc_cmd[@]}" "${strict[@]}" -Ivendor -c use_f32_calls_f64.c -o fails.o
    # The rules that work: one implementation TU stamping the union, or a TH_STATIC private copy.
    (set -x && "${cc_cmd[@]}" use_f32_f64.o impl_f32_f64.o -lm -o union)
    run_consumer ./union
    (set -x && "${cc_cmd[@]}" use_f32_static_f64.o impl_f32.o static_f64.o -lm -o private_copy)
    run_consumer ./private_copy
}

# ---- run them ------------------------------------------------------------------------------------

failed=0
run_way() {
    local name=$1 fn=$2 log=$work/log.$2 rc t0 t1
    if [[ -n ${CONSUMERS_WAYS:-} && ! $fn =~ ${CONSUMERS_WAYS} ]]; then
        return 0
    fi
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
run_way "meson-subproject (tensor-headers, dependency fallback)" way_meson_fallback
run_way "meson-subproject (tensor-headers, subproject + override_dependency)" way_meson_override
run_way "meson-subproject (tensor + tensor-shm, -Dtensor:shm=enabled)" way_meson_compiled
run_way "installed (meson install)" way_install
run_way "installed, pkg-config + cc (tensor-headers)" way_pkgconfig_headers_cc
run_way "installed, pkg-config + cc (tensor, libtensor.so, tensor-shm)" way_pkgconfig_compiled_cc
run_way "installed, pkg-config + cc (tensor --static, libtensor.a)" way_pkgconfig_static_cc
run_way "installed, pkg-config + meson (tensor-headers)" way_pkgconfig_meson
run_way "installed, pkg-config + meson (tensor, tensor-shm)" way_pkgconfig_meson_compiled
run_way "installed, cmake find_package (tensor::tensor, tensor::tensor_static, tensor::headers, tensor::shm)" way_cmake
run_way "README example (header-only, and with the installed libtensor)" way_readme_example
run_way "vendored (-Ivendor)" way_vendored_include_path
run_way "vendored (relative include, no -I)" way_vendored_relative
run_way "dtype subsets across TUs" way_dtype_subsets
exit $failed
