#!/usr/bin/env bash
# The vectorised math kernels against a plain libm loop and glibc's libmvec (bench/bench_vecmath.c says what
# each row times), then the ratios to libmvec. x86-64 with glibc >= 2.22 (libmvec) and gcc.
#
# Environment:
#   BENCH_BUILD_DIR   where to build (default bench/build)
#   BENCH_QUICK=1     5 repetitions instead of 11
#   BENCH_CPU         pin to this CPU with taskset
#   CC                default gcc (the libmvec loops need gcc: it is the compiler that emits libmvec calls)
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build}
CC=${CC:-gcc}
mkdir -p "$build" || exit 1

if ! $CC -std=c11 -O3 -ffast-math -mavx2 -mfma -DBENCH_LIBMVEC_LOOPS -c "$here/bench_vecmath.c" \
        -o "$build/vecmath_libmvec.o" 2>"$build/bench_vecmath.err" ||
   ! $CC -std=c11 -O2 -I"$root" -DTH_NO_DLPACK "$here/bench_vecmath.c" "$build/vecmath_libmvec.o" \
        -o "$build/bench_vecmath" -lmvec -lm 2>>"$build/bench_vecmath.err"; then
    echo "bench_vecmath did not build:"; cat "$build/bench_vecmath.err"; exit 1
fi
# The comparison means something only if the loops really call libmvec's 8-wide functions.
for f in _ZGVdN8v_expf _ZGVdN8v_tanhf; do
    if ! nm "$build/vecmath_libmvec.o" | grep -q " U $f\$"; then
        echo "warning: the libmvec loop does not call $f: its row is a plain loop"
    fi
done

pin=()
if [ -n "${BENCH_CPU:-}" ]; then pin=(taskset -c "$BENCH_CPU"); fi
out=$(OMP_NUM_THREADS=1 "${pin[@]}" "$build/bench_vecmath") || { echo "bench_vecmath failed"; exit 1; }
printf '%s\n' "$out"

echo
echo "# best time / libmvec's best time (the target: at most 1.3)"
printf '%s\n' "$out" | awk '
    /^#/ { next }
    { best[$1] = $2; split($1, p, "_"); if ($1 ~ /_libmvec$/) ref[p[1]] = $2; order[++n] = $1 }
    END { for (i = 1; i <= n; i++) { k = order[i]; split(k, p, "_");
              if (p[1] in ref) printf "%-28s %6.2f\n", k, best[k] / ref[p[1]] } }'
