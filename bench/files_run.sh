#!/usr/bin/env bash
# Files (issue 14's speed rows): opening a safetensors file of 100 tensors and getting one, at 1 MiB and at 1 GiB,
# against the safetensors package's safe_open + get_tensor and np.load(mmap_mode='r'); saving 1 GiB against write(2)
# of the same bytes, np.save and safetensors.numpy.save_file. One run, one table; see bench/files_bench.c and
# bench/files_peer.py for what each row times.
#
# Environment:
#   BENCH_BUILD_DIR   where to build and write the files (default bench/build; needs about 4 GiB free)
#   FILES_BIG         bytes of the "1 GiB" rows (default 1073741824)
#   BENCH_PYTHON      default /usr/bin/python3; its safetensors package (or one pip-installed with --target into
#                     BENCH_BUILD_DIR/pysite) gives the safetensors rows, n/a without it
#   CC                default gcc
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build}
CC=${CC:-gcc}
PY=${BENCH_PYTHON:-/usr/bin/python3}
big=${FILES_BIG:-1073741824}
mkdir -p "$build/files" || exit 1
$CC -std=c11 -O2 -I"$root" "$here/files_bench.c" -o "$build/files_bench" -lm 2>"$build/files_bench.err" ||
    { echo "files_bench did not build:"; cat "$build/files_bench.err"; exit 1; }
"$PY" -c 'import safetensors' 2>/dev/null || [ -d "$build/pysite/safetensors" ] ||
    "$PY" -m pip install -q --no-deps --target "$build/pysite" safetensors >/dev/null 2>&1
th=$("$build/files_bench" "$build/files" "$big") || { echo "files_bench failed"; exit 1; }
peer=$(PYTHONPATH="$build/pysite" "$PY" "$here/files_peer.py" "$build/files" "$big" 2>"$build/files_peer.err") || peer=""
rm -f "$build/files/small.safetensors" "$build/files/big.safetensors"

value() { printf '%s\n' "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "n/a"; else printf "%.2fx", a / b }'; }
printf '%-44s %12s %12s %12s\n' "" "tensor.h" "safetensors" "NumPy"
for s in small big; do
    label=$([ $s = small ] && echo "1 MiB" || echo "$((big >> 20)) MiB")
    a=$(value "$th" "open_get_$s"); b=$(value "$peer" "safe_open_$s"); c=$(value "$peer" "np_load_mmap_$s")
    printf '%-44s %12s %12s %12s\n' "open + get 1 of 100 tensors, $label (us)" "${a:-n/a}" "${b:-n/a}" "${c:-n/a}"
done
a=$(value "$th" save_big); w=$(value "$th" write_big); b=$(value "$peer" save_file_big); c=$(value "$peer" np_save_big)
printf '%-44s %12s %12s %12s\n' "save $((big >> 20)) MiB (ms)" "${a:-n/a}" "${b:-n/a}" "${c:-n/a}"
printf '%-44s %12s\n' "write(2) of the same bytes (ms)" "${w:-n/a}"
echo
a_small=$(value "$th" open_get_small); a_big=$(value "$th" open_get_big)
echo "open + get, 1 GiB over 1 MiB: $(ratio "$a_big" "$a_small") (target: constant)"
echo "open + get 1 GiB vs safe_open: $(ratio "$(value "$peer" safe_open_big)" "$a_big") faster; vs np.load mmap: $(ratio "$(value "$peer" np_load_mmap_big)" "$a_big") faster"
echo "save vs write(2): $(ratio "$a" "$w") (target <= 1.2x); vs np.save: $(ratio "$c" "$a") faster; vs save_file: $(ratio "$b" "$a") faster"
