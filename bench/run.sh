#!/usr/bin/env bash
# Builds the benchmarks and runs tensor.h, libtorch, NumPy and plain C side by side, then prints one table.
# Every row runs on one thread, except the elementwise math rows, which run once per BENCH_THREADS count. See bench/README.md. A peer that is missing or fails shows as n/a; the script exits 0
# unless tensor.h's own benchmark cannot be built or run.
#
# Environment:
#   BENCH_BUILD_DIR      where to build (default bench/build)
#   BENCH_ROUNDS         how many times to run every peer, interleaved (default 3); per row the best of
#                        all rounds is shown, so one noisy moment on a shared machine hurts no single peer
#   BENCH_QUICK=1        5 repetitions instead of 31 or 11, one round, no libtorch compile timing: checks the
#                        harness in seconds, numbers are rough
#   BENCH_CPU            pin every peer to this CPU with taskset (default: no pinning)
#   BENCH_TORCH_COMPILE  0 skips timing the libtorch include (about 20 s of compiling)
#   BENCH_THREADS        thread counts the elementwise math rows run at (default "1 2"); the other rows
#                        always run on one thread. NumPy is single-threaded: its 1-thread figure is shown
#                        for every count
#   CC, CXX              default gcc and g++
#   BENCH_PYTHON         default /usr/bin/python3, the interpreter Debian's python3-numpy belongs to
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build}
CC=${CC:-gcc}
CXX=${CXX:-g++}
PY=${BENCH_PYTHON:-/usr/bin/python3}
quick=${BENCH_QUICK:-0}
rounds=${BENCH_ROUNDS:-3}
[ "$quick" = 1 ] && rounds=1
torch_compile=${BENCH_TORCH_COMPILE:-1}
[ "$quick" = 1 ] && torch_compile=0
torch_inc=/usr/include/torch/csrc/api/include
threads=${BENCH_THREADS:-1 2}
read -r -a thread_counts <<<"$threads"
for t in "${thread_counts[@]}"; do
    case $t in '' | *[!0-9]* | 0) echo "BENCH_THREADS: '$threads' is not a list of thread counts" >&2; exit 1 ;; esac
done

# One thread unless a row group says otherwise: each program also sets its library's thread count from
# BENCH_NTHREADS (th_set_num_threads, torch::set_num_threads, the C limits' OpenMP loops), which run.sh
# sets with OMP_NUM_THREADS per row group.
export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 BENCH_NTHREADS=1

mkdir -p "$build" || exit 1
results=$build/results.txt
: >"$results"
: >"$build/failures.log"

pin=()
if [ -n "${BENCH_CPU:-}" ] && command -v taskset >/dev/null; then pin=(taskset -c "$BENCH_CPU"); fi

say() { printf '%s\n' "$*" >&2; }

# ---- build ----

cflags=(-std=c11 -O2 -Wall -Wextra -Wpedantic -I"$root")
# OpenMP lets tensor.h (and the C limits) use the threads the math rows ask for; without it they run on one.
omp=()
if printf 'int main(void) { return 0; }\n' | "$CC" -fopenmp -x c - -o "$build/omp_probe" >/dev/null 2>&1; then
    omp=(-fopenmp)
else
    say "$CC has no -fopenmp: the math rows of every thread count run on one thread in tensor.h and C"
fi
rm -f "$build/omp_probe"
[ ${#omp[@]} -eq 0 ] && cflags+=(-Wno-unknown-pragmas)
# CBLAS (OpenBLAS): tensor.h's matrix products call it when th_impl.c is built with TH_USE_CBLAS, as Meson's
# default build does where it finds OpenBLAS; the matmul limit is cblas_sgemm called directly. Without it
# tensor.h's matmul runs its built-in kernel and the limit is n/a.
blas_cflags=() blas_libs=()
if pkg-config --exists openblas 2>/dev/null; then
    read -r -a blas_cflags <<<"$(pkg-config --cflags openblas)"
    read -r -a blas_libs <<<"$(pkg-config --libs openblas)"
else
    blas_libs=(-lopenblas)
fi
have_blas=0
if printf '#include <cblas.h>\nint main(void) { float a = 1, b = 1, c = 0; cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1); return c != 1; }\n' |
    "$CC" -std=c11 "${blas_cflags[@]}" -x c - "${blas_libs[@]}" -o "$build/blas_probe" >/dev/null 2>&1 &&
    "$build/blas_probe"; then
    have_blas=1
    th_blas=(-DTH_USE_CBLAS "${blas_cflags[@]}")
else
    say "no CBLAS (OpenBLAS: libopenblas-dev): tensor.h's matmul runs its built-in kernel; cblas_sgemm is n/a"
    blas_cflags=() blas_libs=() th_blas=()
fi
rm -f "$build/blas_probe"
say "building the C benchmarks ($CC ${cflags[*]} ${omp[*]} ${th_blas[*]})"
"$CC" "${cflags[@]}" "${omp[@]}" "${th_blas[@]}" -c "$here/th_impl.c" -o "$build/th_impl.o" &&
    "$CC" "${cflags[@]}" "${omp[@]}" "$here/bench_th.c" "$build/th_impl.o" "${blas_libs[@]}" -lm \
        -o "$build/bench_th" || {
    say "error: tensor.h's benchmark does not build"
    exit 1
}

# The libmvec C loop (limit of exp and tanh): its own TU with the "fast" flags, so that gcc calls glibc's
# 8-wide AVX2 expf and tanhf. objdump confirms the calls; without them the rows are n/a. bench_limits leaves
# them out at run time on a CPU without AVX2 and FMA.
vecmath=none
vm_flags=(-std=c11 -O3 -ffast-math -mavx2 -mfma)
if "$CC" "${vm_flags[@]}" "${omp[@]}" -c "$here/limits_vecmath.c" -o "$build/limits_vecmath.o" 2>"$build/vecmath_build.log"; then
    if ! command -v objdump >/dev/null; then
        vecmath=unverified
        say "no objdump: cannot check that the libmvec loop calls _ZGVdN8v_expf and _ZGVdN8v_tanhf"
    elif calls=$(objdump -dr "$build/limits_vecmath.o") && grep -q '_ZGVdN8v_expf' <<<"$calls" &&
        grep -q '_ZGVdN8v_tanhf' <<<"$calls"; then
        vecmath=libmvec
    else
        say "limits_vecmath.o does not call libmvec's _ZGVdN8v_expf and _ZGVdN8v_tanhf: the libmvec rows are n/a"
    fi
else
    say "limits_vecmath.c does not build with ${vm_flags[*]} (see $build/vecmath_build.log): the libmvec rows are n/a"
fi
have_limits=1
limits_blas=("${blas_cflags[@]}")
[ "$have_blas" = 1 ] || limits_blas=(-DBENCH_NO_CBLAS)
if [ "$vecmath" != none ]; then
    "$CC" "${cflags[@]}" "${omp[@]}" "${limits_blas[@]}" "$here/bench_limits.c" "$build/limits_vecmath.o" -lmvec \
        "${blas_libs[@]}" -lm -o "$build/bench_limits" || vecmath=none
fi
if [ "$vecmath" = none ]; then
    "$CC" "${cflags[@]}" "${omp[@]}" "${limits_blas[@]}" -DBENCH_NO_VECMATH "$here/bench_limits.c" \
        "${blas_libs[@]}" -lm -o "$build/bench_limits" || have_limits=0
fi

# libtorch takes a minute to compile against: rebuild only when the source is newer than the binary.
have_torch=0
if [ -d "$torch_inc" ] && command -v "$CXX" >/dev/null; then
    if [ "$build/bench_torch" -nt "$here/bench_torch.cpp" ]; then
        have_torch=1
    else
        say "building the libtorch benchmark (about a minute)"
        if "$CXX" -std=c++17 -O2 -Wall -Wextra -isystem "$torch_inc" "$here/bench_torch.cpp" \
            -o "$build/bench_torch" -ltorch -ltorch_cpu -lc10 >"$build/torch_build.log" 2>&1; then
            have_torch=1
        else
            say "libtorch benchmark did not build (see $build/torch_build.log): libtorch is n/a"
        fi
    fi
else
    say "no libtorch headers at $torch_inc or no $CXX: libtorch is n/a"
fi

have_numpy=0
if "$PY" -c 'import numpy' 2>/dev/null; then have_numpy=1; else say "no numpy for $PY: NumPy is n/a"; fi

# ---- compile time ----

# Prints the best wall time in ms of n runs of the command, or fails if it fails.
best_ms() {
    local n=$1 best="" t0 t1 us
    shift
    for ((i = 0; i < n; i++)); do
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1 || return 1
        t1=$(date +%s%N)
        us=$(((t1 - t0) / 1000))
        if [ -z "$best" ] || [ "$us" -lt "$best" ]; then best=$us; fi
    done
    awk -v us="$best" 'BEGIN { printf "%.3f", us / 1000 }'
}

say "timing compiles"
tu_obj=$build/compile_tu.o
# "peer key source runs": the floor is what plain C pays, the other two are tensor.h's. The small TUs take
# tens of ms, where one busy moment doubles a time, so they get more runs.
for spec in "c compile_floor compile_floor.c 7" "th compile_decl compile_decl.c 7" "th compile_impl th_impl.c 3"; do
    read -r peer key src runs <<<"$spec"
    [ "$quick" = 1 ] && runs=1
    ms=$(best_ms "$runs" "$CC" -std=c11 -O2 -I"$root" -c "$here/$src" -o "$tu_obj") &&
        echo "1 $peer $key $ms $ms ms" >>"$results"
done
if [ "$have_torch" = 1 ] && [ "$torch_compile" = 1 ]; then
    ms=$(best_ms 1 "$CXX" -std=c++17 -O2 -isystem "$torch_inc" -c "$here/compile_torch.cpp" -o "$tu_obj") &&
        echo "1 torch compile_decl $ms $ms ms" >>"$results"
fi
rm -f "$tu_obj"

# ---- run every peer, interleaved, BENCH_ROUNDS times ----

# Appends "round peer key best median unit" lines, the keys prefixed with prefix ("t2." for the 2-thread
# math rows, "" for the 1-thread rows); a peer that fails leaves its rows empty (n/a).
run_peer() {
    local round=$1 peer=$2 nthreads=$3 prefix=$4
    shift 4
    local out
    if out=$(OMP_NUM_THREADS=$nthreads OPENBLAS_NUM_THREADS=$nthreads MKL_NUM_THREADS=$nthreads \
        BENCH_NTHREADS=$nthreads "${pin[@]}" "$@" 2>"$build/$peer.err"); then
        printf '%s\n' "$out" | awk -v r="$round" -v p="$peer" -v x="$prefix" 'NF == 4 { print r, p, x $0 }' >>"$results"
    else
        # Kept apart: the next run of the peer overwrites $peer.err.
        local rc=$?
        { echo "== round $round, $nthreads thread(s), exit status $rc: $*"; cat "$build/$peer.err"; } >>"$build/failures.log"
        say "$peer failed with status $rc (see $build/failures.log)"
    fi
}

# Rows run a group at a time, every peer in turn, so the peers of one row are measured within seconds of
# each other: on a shared machine the load changes from one minute to the next. "library keys|C keys".
groups=(
    "create view_transpose view_narrow view_select view_view dlpack_roundtrip tiny_add|malloc_free_1 malloc_free_2 tiny_add"
    "contiguous_t|transpose_malloc transpose_huge transpose_warm"
    "clone|memcpy_malloc memcpy_huge memcpy_warm"
    "convert_f64|convert_malloc convert_huge convert_warm"
    "ones|ones_malloc ones_huge ones_warm"
)
# The math rows run once per BENCH_THREADS count, their keys prefixed "t<count>.". A third field "blas"
# says NumPy has threads there too (its BLAS: OPENBLAS_NUM_THREADS), so it runs at every count.
math_groups=(
    "add_new add_out|add_malloc add_huge add_warm"
    "add_bcast|bcast_warm"
    "exp_out|exp_vm exp_libm"
    "tanh_out|tanh_vm tanh_libm"
    "sum_all sum_dim0 sum_dim1|sum_acc8 sum_plain"
    "matmul_1024 matmul_2048|sgemm_1024 sgemm_2048|blas"
)
peers=(th)
[ "$have_limits" = 1 ] && peers+=(c)
[ "$have_torch" = 1 ] && peers+=(torch)
[ "$have_numpy" = 1 ] && peers+=(numpy)

# run_group ROUND GROUP THREADS PREFIX: one group of rows through every peer in turn.
run_group() {
    local round=$1 group=$2 nthreads=$3 prefix=$4
    local keys c_keys flag i peer
    IFS='|' read -r keys c_keys flag <<<"$group"
    # Each round starts with another peer, so none is always first after a change of group.
    for ((i = 0; i < ${#peers[@]}; i++)); do
        peer=${peers[(i + round - 1) % ${#peers[@]}]}
        case $peer in
        th) run_peer "$round" th "$nthreads" "$prefix" "$build/bench_th" $keys ;;
        c) run_peer "$round" c "$nthreads" "$prefix" "$build/bench_limits" $c_keys ;;
        torch) run_peer "$round" torch "$nthreads" "$prefix" "$build/bench_torch" $keys ;;
        numpy)
            # NumPy has one thread whatever it is told (but for BLAS): it runs the math rows once, as "t1.".
            if [ "$flag" = blas ]; then
                run_peer "$round" numpy "$nthreads" "$prefix" "$PY" "$here/bench_numpy.py" $keys
                continue
            fi
            if [ -n "$prefix" ]; then
                [ "$nthreads" = "${thread_counts[0]}" ] || continue
                run_peer "$round" numpy 1 t1. "$PY" "$here/bench_numpy.py" $keys
                continue
            fi
            # Only NumPy has this row: a separate list, so the other peers of later rounds never get it.
            local numpy_keys=$keys
            [ "$group" = "${groups[0]}" ] && numpy_keys="loop_overhead $keys"
            run_peer "$round" numpy 1 "" "$PY" "$here/bench_numpy.py" $numpy_keys
            ;;
        esac
    done
}

for ((round = 1; round <= rounds; round++)); do
    say "round $round of $rounds"
    for group in "${groups[@]}"; do run_group "$round" "$group" 1 ""; done
    for t in "${thread_counts[@]}"; do
        say "  math rows, $t thread(s)"
        for group in "${math_groups[@]}"; do run_group "$round" "$group" "$t" "t$t."; done
    done
done

# ---- the table ----

# Per peer and key: the best over rounds, and the median of the rounds' medians.
declare -A best median
while read -r peer key b m; do
    best[$peer:$key]=$b
    median[$peer:$key]=$m
done < <(awk '
    { k = $2 " " $3; if (!(k in b) || $4 + 0 < b[k]) b[k] = $4 + 0; n[k]++; m[k, n[k]] = $5 + 0 }
    END {
        for (k in b) {
            c = n[k]
            for (i = 1; i <= c; i++) v[i] = m[k, i]
            for (i = 2; i <= c; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            med = c % 2 ? v[(c + 1) / 2] : (v[c / 2] + v[c / 2 + 1]) / 2
            printf "%s %.3f %.3f\n", k, b[k], med
        }
    }' "$results")

# The smaller of two values, either of which may be missing.
min_of() { awk -v a="${1:-}" -v b="${2:-}" 'BEGIN { if (a == "") print b; else if (b == "" || a + 0 < b + 0) print a; else print b }'; }

# The limit of a large op is the faster of plain malloc and huge pages (see README.md).
best[c:transpose]=$(min_of "${best[c:transpose_malloc]:-}" "${best[c:transpose_huge]:-}")
best[c:memcpy]=$(min_of "${best[c:memcpy_malloc]:-}" "${best[c:memcpy_huge]:-}")
best[c:convert]=$(min_of "${best[c:convert_malloc]:-}" "${best[c:convert_huge]:-}")
best[c:ones]=$(min_of "${best[c:ones_malloc]:-}" "${best[c:ones_huge]:-}")
for t in "${thread_counts[@]}"; do
    best[c:t$t.add]=$(min_of "${best[c:t$t.add_malloc]:-}" "${best[c:t$t.add_huge]:-}")
done

cell() { local v=${best[$1]:-}; if [ -n "$v" ]; then awk -v v="$v" 'BEGIN { printf(v < 100 ? "%.1f" : "%.0f", v) }'; else echo n/a; fi; }

# row LABEL TH_KEY TORCH_KEY NUMPY_KEY LIMIT_KEY TARGET
#   TARGET is abs:N (tensor.h at most N), peer:MAX:NAME:KEY (tensor.h / KEY at most MAX),
#   frac:MIN:NAME:KEY (tensor.h's speed at least MIN of KEY's for the same work: KEY / tensor.h >= MIN),
#   ratio:KEY (tensor.h / KEY shown, no target) or none. KEY is peer:key.
fmt='| %-42s | %9s | %9s | %9s | %13s | %-18s | %-11s |\n'
row() {
    local label=$1 th=$2 torch=$3 numpy=$4 limit=$5 target=$6
    local ours=${best[th:$th]:-} ratio="-" met="no target"
    case $target in
    abs:*)
        local goal=${target#abs:}
        if [ -n "$ours" ]; then
            ratio=$(awk -v a="$ours" -v g="$goal" 'BEGIN { printf "%.2fx of %g ns", a / g, g }')
            met=$(awk -v a="$ours" -v g="$goal" 'BEGIN { print(a <= g ? "yes" : "NO") }')
        fi
        ;;
    peer:*)
        local spec=${target#peer:}
        local max=${spec%%:*} rest=${spec#*:}
        local name=${rest%%:*} key=${rest#*:}
        local ref=${best[$key]:-}
        if [ -n "$ours" ] && [ -n "$ref" ]; then
            ratio=$(awk -v a="$ours" -v r="$ref" -v n="$name" 'BEGIN { printf "%.2fx %s", a / r, n }')
            met=$(awk -v a="$ours" -v r="$ref" -v m="$max" 'BEGIN { print(a / r <= m ? "yes" : "NO") " (<=" m ")" }')
        else
            met="n/a"
        fi
        ;;
    frac:*)
        local spec=${target#frac:}
        local min=${spec%%:*} rest=${spec#*:}
        local name=${rest%%:*} key=${rest#*:}
        local ref=${best[$key]:-}
        if [ -n "$ours" ] && [ -n "$ref" ]; then
            ratio=$(awk -v a="$ours" -v r="$ref" -v n="$name" 'BEGIN { printf "%.0f%% of %s", 100 * r / a, n }')
            met=$(awk -v a="$ours" -v r="$ref" -v m="$min" 'BEGIN { print(r / a >= m ? "yes" : "NO") " (>=" 100 * m "%)" }')
        else
            met="n/a"
        fi
        ;;
    ratio:*)
        local ref=${best[${target#ratio:}]:-}
        if [ -n "$ours" ] && [ -n "$ref" ]; then
            ratio=$(awk -v a="$ours" -v r="$ref" 'BEGIN { printf "%.2fx limit", a / r }')
        fi
        ;;
    esac
    printf "$fmt" "$label" "$(cell "th:$th")" "$(cell "torch:$torch")" "$(cell "numpy:$numpy")" \
        "$(cell "c:$limit")" "$ratio" "$met"
    local k b m
    for k in "th:$th" "torch:$torch" "numpy:$numpy" "c:$limit" "c:${limit}_malloc" "c:${limit}_huge"; do
        b=${best[$k]:-} m=${median[$k]:-}
        if [ -n "$b" ] && [ -n "$m" ] && awk -v b="$b" -v m="$m" 'BEGIN { exit !(m > 1.25 * b) }'; then
            noisy+=("${label% (*} (${k%%:*})")
            return
        fi
    done
}
noisy=()

rule() { printf '|%s|%s|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..44})" "$(printf -- '-%.0s' {1..11})" \
    "$(printf -- '-%.0s' {1..11})" "$(printf -- '-%.0s' {1..11})" "$(printf -- '-%.0s' {1..15})" \
    "$(printf -- '-%.0s' {1..20})" "$(printf -- '-%.0s' {1..13})"; }

echo
echo "tensor.h benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')  commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "cpu: $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo) x $(getconf _NPROCESSORS_ONLN)   load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$("$CC" --version | head -1); flags -std=c11 -O2; THP $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo '?')"
echo "peers: libtorch $([ "$have_torch" = 1 ] && echo yes || echo n/a), NumPy $([ "$have_numpy" = 1 ] && "$PY" -c 'import numpy; print(numpy.__version__)' || echo n/a); 1 thread, math rows at ${thread_counts[*]} (OpenMP $([ ${#omp[@]} -gt 0 ] && echo yes || echo no)); best of $rounds round(s) x $([ "$quick" = 1 ] && echo "5 reps" || echo "31 (small) or 11 (large) reps")"
echo
printf "$fmt" "operation" "tensor.h" "libtorch" "NumPy" "machine limit" "ratio vs target" "target met?"
rule
row "create+release 2x3 f32 (ns)" create create create malloc_free_2 abs:100
row "view: transpose (ns)" view_transpose view_transpose view_transpose malloc_free_1 abs:40
row "view: narrow (ns)" view_narrow view_narrow view_narrow malloc_free_1 abs:40
row "view: select (ns)" view_select view_select view_select malloc_free_1 abs:40
row "view: view/reshape (ns)" view_view view_view view_view malloc_free_1 abs:40
row "DLPack export+import round trip (ns)" dlpack_roundtrip dlpack_roundtrip dlpack_roundtrip - none
row "contiguous(transpose 4096^2 f32) (ms)" contiguous_t contiguous_t contiguous_t transpose peer:1.2:tiled:c:transpose
row "clone 4096^2 f32 vs memcpy 64 MiB (ms)" clone clone clone memcpy ratio:c:memcpy
row "f32->f64 16M, new tensor (ms)" convert_f64 convert_f64 convert_f64 convert peer:1.0:NumPy:numpy:convert_f64
row "ones 16M f32, alloc+fill+free (ms)" ones ones ones ones peer:1.0:NumPy:numpy:ones
row "tiny add 4 f32, new tensor+release (ns)" tiny_add tiny_add tiny_add tiny_add abs:100
for t in "${thread_counts[@]}"; do
    p=t$t. tl="$t thread$([ "$t" = 1 ] || echo s)"
    row "add 16M f32, new tensor, $tl (ms)" ${p}add_new ${p}add_new t1.add_new ${p}add peer:1.0:NumPy:numpy:t1.add_new
    row "add 16M f32 into out, $tl (ms)" ${p}add_out ${p}add_out t1.add_out ${p}add_warm "frac:0.9:C bw:c:${p}add_warm"
    row "add (4096,1)+(1,4096) out, $tl (ms)" ${p}add_bcast ${p}add_bcast t1.add_bcast ${p}bcast_warm \
        "peer:1.3:C loop:c:${p}bcast_warm"
    row "exp 16M f32 into out, $tl (ms)" ${p}exp_out ${p}exp_out t1.exp_out ${p}exp_vm peer:1.3:libmvec:c:${p}exp_vm
    row "tanh 16M f32 into out, $tl (ms)" ${p}tanh_out ${p}tanh_out t1.tanh_out ${p}tanh_vm \
        peer:1.3:libmvec:c:${p}tanh_vm
    row "sum all 4096^2 f32, $tl (ms)" ${p}sum_all ${p}sum_all t1.sum_all ${p}sum_acc8 "peer:1.3:C sum:c:${p}sum_acc8"
    row "sum dim 0 4096^2 f32, $tl (ms)" ${p}sum_dim0 ${p}sum_dim0 t1.sum_dim0 ${p}sum_acc8 "peer:1.3:C sum:c:${p}sum_acc8"
    row "sum dim 1 4096^2 f32, $tl (ms)" ${p}sum_dim1 ${p}sum_dim1 t1.sum_dim1 ${p}sum_acc8 "peer:1.3:C sum:c:${p}sum_acc8"
    row "matmul 1024^3 f32 into out, $tl (ms)" ${p}matmul_1024 ${p}matmul_1024 ${p}matmul_1024 ${p}sgemm_1024 \
        frac:0.95:sgemm:c:${p}sgemm_1024
    row "matmul 2048^3 f32 into out, $tl (ms)" ${p}matmul_2048 ${p}matmul_2048 ${p}matmul_2048 ${p}sgemm_2048 \
        frac:0.95:sgemm:c:${p}sgemm_2048
done
row "compile: declarations-only TU (ms)" compile_decl compile_decl - compile_floor none
row "compile: implementation TU (ms)" compile_impl - - compile_floor none

if [ ${#noisy[@]} -gt 0 ]; then
    echo
    printf 'noisy rows (a median > 1.25x its best: the machine was busy; compare with care): %s\n' "$(IFS=';'; echo "${noisy[*]}" | sed 's/;/; /g')"
fi
echo
echo "machine limit: create = 2 malloc+free pairs, views = 1 pair (288 B header); large ops = plain C into"
echo "fresh memory, the faster of malloc and 2 MiB-aligned madvise(MADV_HUGEPAGE); compile = empty TU."
echo "libtorch compile = #include <torch/torch.h> with g++ -std=c++17 -O2 -c, one run."
echo "math rows: tiny add = 2 malloc+free pairs and 4 adds; add new = C loop into fresh memory as above; add into"
echo "out and broadcast add = C loops into a warm buffer; exp and tanh = the libmvec C loop (limits_vecmath.c,"
echo "-O3 -ffast-math -mavx2 -mfma: $(case $vecmath in libmvec) echo "calls _ZGVdN8v_expf/_ZGVdN8v_tanhf, checked with objdump" ;; unverified) echo "libmvec calls not checked: no objdump" ;; *) echo "n/a" ;; esac)). NumPy is single-threaded:"
echo "its 1-thread figure is in every thread count's rows (but matmul, where its BLAS has the threads)."
echo "sums = new result, limit the read-only C loop with 8 float accumulators (vectorised by -O2); matmul = into a"
echo "preallocated out; tensor.h through CBLAS ($([ "$have_blas" = 1 ] && echo "OpenBLAS, TH_USE_CBLAS" || echo "n/a: built-in kernel")), limit cblas_sgemm called directly."
gflops() { local v=${best[$2]:-}; if [ -n "$v" ]; then awk -v n="$1" -v v="$v" 'BEGIN { printf "%.1f", 2 * n * n * n / (v * 1e6) }'; else echo n/a; fi; }
gbs() { local v=${best[$1]:-}; if [ -n "$v" ]; then awk -v v="$v" 'BEGIN { printf "%.1f", 3 * 4 * 16777216 / (v * 1e6) }'; else echo n/a; fi; }
for t in "${thread_counts[@]}"; do
    p=t$t. tl="$t thread$([ "$t" = 1 ] || echo s)"
    echo "add into out, $tl, STREAM-style bandwidth (3 x 4 B x 16M / best time, GB/s): tensor.h $(gbs th:${p}add_out)," \
        "libtorch $(gbs torch:${p}add_out), NumPy $(gbs numpy:t1.add_out) (1 thread), C loop $(gbs c:${p}add_warm)"
    echo "plain -O2 libm C loop (scalar expf/tanhf, a reference), $tl: exp $(cell c:${p}exp_libm) ms, tanh $(cell c:${p}tanh_libm) ms"
    echo "one-accumulator C sum loop (a reference), $tl: $(cell c:${p}sum_plain) ms"
    echo "matmul GFLOP/s (2 n^3 / best time), $tl: 1024: tensor.h $(gflops 1024 th:${p}matmul_1024), libtorch" \
        "$(gflops 1024 torch:${p}matmul_1024), NumPy $(gflops 1024 numpy:${p}matmul_1024), sgemm $(gflops 1024 c:${p}sgemm_1024);" \
        "2048: tensor.h $(gflops 2048 th:${p}matmul_2048), libtorch $(gflops 2048 torch:${p}matmul_2048)," \
        "NumPy $(gflops 2048 numpy:${p}matmul_2048), sgemm $(gflops 2048 c:${p}sgemm_2048)"
done
echo
echo "all measurements (best / median of round medians):"
for peer in th torch numpy c; do
    keys=$(awk -v p="$peer" '$2 == p { print $3 }' "$results" | awk '!seen[$0]++')
    for key in $keys; do
        unit=$(awk -v p="$peer" -v k="$key" '$2 == p && $3 == k { print $6; exit }' "$results")
        printf '  %-6s %-18s %10s %10s %s\n' "$peer" "$key" "${best[$peer:$key]}" "${median[$peer:$key]}" "$unit"
    done
done
exit 0
