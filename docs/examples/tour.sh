#!/usr/bin/env bash
# Builds and runs the tour (docs/examples/tour.c), installing a C compiler first if there is none.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v cc >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q && apt-get install -y -q gcc libc6-dev
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc -std=c11 -O2 -Wall -Wextra -I. docs/examples/tour.c -lm -o "$out/tour"
"$out/tour"
