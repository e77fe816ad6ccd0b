#!/usr/bin/env bash
# all_reduce over MPI: th_f32_all_reduce against MPI_Allreduce on the same buffer, a strided all_reduce against the
# contiguous one (bench/dist_bench.c), and torch.distributed's gloo backend on the same sizes and ranks
# (bench/dist_torch.py), in one table per number of ranks.
#
# The C bench alternates its three columns round after round within a run; the C bench and the torch one then
# alternate run after run (DIST_REPEATS times each), and each cell is the median over the runs (the ratios: the
# median of each run's own ratio). Rank 0 of each run prints; bench/build/dist_*.txt keep the raw runs.
#
# Environment:
#   BENCH_BUILD_DIR   where to build (default bench/build)
#   DIST_RANKS        ranks, space-separated runs (default "2")
#   DIST_SECONDS      seconds per size, column and run (default 0.5)
#   DIST_MAX_MIB      the largest size in MiB (default 256; sizes double from 1 KiB)
#   DIST_REPEATS      runs of each of the two benches (default 3)
#   TH_DIST_TIMEOUT   seconds before one run is cut (default 3600)
#   DIST_TORCH        the python that has torch with gloo (default /usr/bin/python3; "none" leaves gloo out)
#   MPICC, MPIRUN     default mpicc, mpirun
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-$here/build}
py=${DIST_TORCH:-/usr/bin/python3}
mkdir -p "$build" || exit 1
if ! ${MPICC:-mpicc} -std=c11 -O2 -I"$root" -I"$root/dist" "$here/dist_bench.c" "$root/dist/collectives.c" \
        "$here/th_impl.c" -o "$build/dist_bench" -lm 2>"$build/dist_bench.err"; then
    echo "dist_bench did not build:"; cat "$build/dist_bench.err"; exit 1
fi
if [ "$py" != none ] && ! "$py" -c 'import torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null; then
    echo "dist_run.sh: $py has no torch with gloo: the gloo column is left out"; py=none
fi
export MPIRUN=${MPIRUN:-mpirun}
# mpirun.sh cuts a run at TH_DIST_TIMEOUT (300 s for the tests): a whole bench run on a loaded machine takes
# longer (4 ranks at 128 MiB did not end within 300 s on the shared 2-core VM).
export TH_DIST_TIMEOUT=${TH_DIST_TIMEOUT:-3600}
port=$((29500 + $$ % 400))
for n in ${DIST_RANKS:-2}; do
    rm -f "$build"/dist_th_"$n"_*.txt "$build"/dist_gloo_"$n"_*.txt
    for rep in $(seq 1 "${DIST_REPEATS:-3}"); do
        "$root/tests/dist/mpirun.sh" "$n" "$build/dist_bench" >"$build/dist_th_${n}_$rep.txt" || exit 1
        if [ "$py" != none ]; then
            port=$((port + 1))
            DIST_TORCH_PORT=$port "$root/tests/dist/mpirun.sh" "$n" "$py" "$here/dist_torch.py" \
                >"$build/dist_gloo_${n}_$rep.txt" || exit 1
        fi
    done
    python3 - "$n" "$build" <<'PY'
import glob, statistics, sys
n, build = int(sys.argv[1]), sys.argv[2]
def rows(pattern, width):
    runs = []
    for path in sorted(glob.glob(pattern)):
        runs.append({int(l.split()[0]): [float(x) for x in l.split()[1:]]
                     for l in open(path) if l.split() and l.split()[0].isdigit() and len(l.split()) == width})
    return runs
th = rows("%s/dist_th_%d_*.txt" % (build, n), 8)
gloo = rows("%s/dist_gloo_%d_*.txt" % (build, n), 2)
med = lambda xs: statistics.median(xs) if xs else float("nan")
print("all_reduce sum, float32, in place, %d ranks: median over %d runs of each run's median us per call "
      "(gloo: %d runs)" % (n, len(th), len(gloo)))
print("%10s %10s %10s %7s %10s %7s %8s %8s %10s %8s" % ("bytes", "MPI us", "th us", "th/MPI", "strided", "str/th",
      "algbw", "busbw", "gloo us", "gloo/th"))
for b in sorted(th[0]) if th else []:
    col = lambda i: med([r[b][i] for r in th if b in r])
    mpi, t, s = col(0), col(1), col(3)
    algbw = b / (t * 1e-6) / 1e9
    g = med([r[b][0] for r in gloo if b in r])
    print("%10d %10.1f %10.1f %7.3f %10.1f %7.3f %8.2f %8.2f %10.1f %8.2f" % (b, mpi, t, col(2), s, col(4), algbw,
          algbw * 2 * (n - 1) / n, g, g / t))
PY
done
