#!/usr/bin/env bash
# The ResNet-20 training step (tests/bench/resnet_step*) in tfg and in each
# peer named, on the same threads, in one run; prints each figure with
# tfg's ratio to it (lower is better). Called by scripts/bench.
# Usage: tests/bench/resnet_step.sh BUILD_DIR THREADS STEPS BATCH [tf] [torch]
set -euo pipefail
dir=$1 threads=$2 steps=$3 batch=$4
shift 4
tfg_ms=$("$dir/tfg" --threads "$threads" --quiet tests/bench/resnet_step.tfg "$steps" "$batch" | awk '{print $NF}')
printf 'resnet20 tfg         %8.2f ms/step\n' "$tfg_ms"
for peer in "$@"; do
  name=$([[ $peer == tf ]] && echo tensorflow || echo pytorch)
  peer_ms=$(python3 "tests/bench/resnet_step_$peer.py" "$steps" "$batch" "$threads" 2>/dev/null | awk '{print $NF}')
  awk -v n="$name" -v p="$peer_ms" -v t="$tfg_ms" \
    'BEGIN { printf "resnet20 %-11s %8.2f ms/step   tfg/%s = %.2f\n", n, p, n, t / p }'
done
