#!/bin/sh
# tests/dist/mpirun.sh N PROGRAM [ARGS...]: PROGRAM on N ranks of this machine, as the dist suite runs it.
#   MPIRUN            the launcher (meson passes the mpirun it found)
#   TH_DIST_RANK_WRAP a command each rank runs under (valgrind ...), empty for none
#   TH_DIST_TIMEOUT   seconds before a hung run is killed (default 300)
# Open MPI: as root it wants --allow-run-as-root; N may exceed the cores (--oversubscribe, and the environment
# variable for its helper processes); only the self and vader (shared memory) transports, so that no network
# is probed; vader's single-copy mechanism (CMA) is off, since it needs ptrace rights some containers lack
# (either can be set from the environment instead). A hang is cut by timeout (TH_DIST_TIMEOUT): meson's own
# time-out kills only this script, not the ranks.
set -eu
n=$1
shift
launcher=${MPIRUN:-mpirun}
opts=
if "$launcher" --version 2>/dev/null | grep -q "Open MPI"; then
    export OMPI_MCA_rmaps_base_oversubscribe=1
    export OMPI_MCA_btl_vader_single_copy_mechanism="${OMPI_MCA_btl_vader_single_copy_mechanism:-none}"
    export OMPI_MCA_btl="${OMPI_MCA_btl:-self,vader}"
    opts=--oversubscribe
    [ "$(id -u)" = 0 ] && opts="$opts --allow-run-as-root"
fi
# shellcheck disable=SC2086 # opts and the wrapper are command lines, split on purpose
exec timeout -k 10 "${TH_DIST_TIMEOUT:-300}" "$launcher" $opts -n "$n" ${TH_DIST_RANK_WRAP:-} "$@"
