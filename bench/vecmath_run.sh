#!/usr/bin/env bash
# The vectorised math kernels against a plain libm loop and glibc's libmvec (bench/bench_vecmath.c says what
# each row times), then the ratios to libmvec. x86-64 with glibc >= 2.22 (libmvec) and gcc.
#
# Environment:
#   BENCH_BUILD_DIR   where to build (default bench/build)
#   BENCH_QUICK=1     5 repetitions instead of 11
# Arguments: op names (exp tanh sigmoid log expm1 erf exp64 tanh64) to run only those.
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
# The comparison means something only if the loops really call libmvec's vector functions.
for f in expf tanhf logf expm1f erff; do
    if ! nm "$build/vecmath_libmvec.o" | grep -q " U _ZGVdN8v_$f\$"; then
        echo "warning: the libmvec loop of $f does not call _ZGVdN8v_$f: its row is a plain loop"
    fi
done

pin=()
if [ -n "${BENCH_CPU:-}" ]; then pin=(taskset -c "$BENCH_CPU"); fi
out=$(OMP_NUM_THREADS=1 "${pin[@]}" "$build/bench_vecmath" "$@") || { echo "bench_vecmath failed"; exit 1; }
printf '%s\n' "$out"

echo
echo "# best time / libmvec's best time, same op and size (the issue's target for exp and tanh, 16M: <= 1.3)"
printf '%s\n' "$out" | awk '
    /^#/ || NF < 4 { next }
    { row = $1; sub(/_[^_]*$/, "", row); best[$1] = $2; key[++n] = $1; group[$1] = row
      if ($1 ~ /_libmvec$/) ref[row] = $2 }
    END { for (i = 1; i <= n; i++) { k = key[i]
              if (group[k] in ref) printf "%-28s %6.2f\n", k, best[k] / ref[group[k]] } }'
