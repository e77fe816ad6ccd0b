#!/usr/bin/env bash
# setup_venv.sh DIR: a virtual environment at DIR, made from /usr/bin/python3, with NumPy >= 2.1, JAX (CPU) and safetensors
# for the DLPack interop tests (meson setup -Dinterop_venv=DIR/bin/python). Installs python3-venv and
# python3-dev with apt-get when they are missing (needs root). Running it again changes nothing that is
# already there. Prints the venv's python as the last line of stdout; everything else goes to stderr.
set -euo pipefail
if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: $0 DIR" >&2
    exit 2
fi
dir=$1
base=/usr/bin/python3
[ -x "$base" ] || { echo "$0: $base is missing" >&2; exit 1; }

apt_install() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "$0: $* missing; install it (apt-get install $*) or run this as root" >&2
        exit 1
    fi
    echo "installing: $*" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >&2
    apt-get install -y -q --no-install-recommends "$@" >&2
}

need=()
# Debian's python3 has the venv module without ensurepip's wheels; python3-venv brings them.
"$base" -c 'import ensurepip, venv; ensurepip.version()' >/dev/null 2>&1 || need+=(python3-venv)
include=$("$base" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
[ -f "$include/Python.h" ] || need+=(python3-dev)
[ ${#need[@]} -eq 0 ] || apt_install "${need[@]}"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
py=$dir/bin/python
if [ ! -x "$py" ] || ! "$py" -m pip --version >/dev/null 2>&1; then
    "$base" -m venv --clear "$dir" >&2 || {
        # A Debian python3-venv older than the interpreter (python3.11-venv) can still miss: install and retry.
        apt_install python3-venv "python3.$("$base" -c 'import sys; print(sys.version_info[1])')-venv"
        "$base" -m venv --clear "$dir" >&2
    }
fi

# Install only when something is missing or too old, so that a second run needs no network.
if ! "$py" - <<'PY' >/dev/null 2>&1
import sys
import numpy, jax, jax.dlpack, safetensors.numpy  # noqa: F401
major, minor = (int(x) for x in numpy.__version__.split(".")[:2])
sys.exit(0 if (major, minor) >= (2, 1) else 1)
PY
then
    "$py" -m pip install -q --disable-pip-version-check 'numpy>=2.1' 'jax[cpu]' safetensors >&2
fi
echo "$py"
