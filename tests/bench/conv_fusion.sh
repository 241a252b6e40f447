#!/usr/bin/env bash
# Convolution fusion on and off (TFG_FUSE_CONV, interp/runtime/fuse_conv.h)
# in one run: the CNN's conv2d -> bias_add -> relu layers alone
# (build/conv_fusion_bench, fused and unfused alternating in one process),
# then the CNN training step of tests/bench/train_step.tfg and the
# ResNet-20 step of tests/bench/resnet_step.tfg, each configuration run
# ROUNDS times alternating (each run is itself the best of 3 repetitions),
# the best kept; prints both and fused/unfused (lower is better). ResNet-20
# has no bias before its ReLUs (conv -> batch_norm -> relu), so nothing
# fuses there: its ratio shows the pass costs nothing where it does not apply.
# Called by scripts/bench.
# Usage: tests/bench/conv_fusion.sh BUILD_DIR THREADS CNN_STEPS RESNET_STEPS [ROUNDS]
set -euo pipefail
dir=$1 threads=$2 cnn_steps=$3 resnet_steps=$4 rounds=${5:-3}

best() {  # best ms/step of `rounds` runs of: fuse_flag script args...
  local flag=$1 b=""
  shift
  for _ in $(seq "$rounds"); do
    ms=$(TFG_FUSE_CONV=$flag "$dir/tfg" --threads "$threads" --quiet "$@" | awk '{print $NF}')
    b=$(awk -v a="$ms" -v b="$b" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  echo "$b"
}

compare() {  # name script args...
  local name=$1 on off
  shift
  # Alternate so drift on a shared machine hits both alike.
  on=$(best 1 "$@"); off=$(best 0 "$@")
  on=$(awk -v a="$on" -v b="$(best 1 "$@")" 'BEGIN { print a < b ? a : b }')
  off=$(awk -v a="$off" -v b="$(best 0 "$@")" 'BEGIN { print a < b ? a : b }')
  awk -v n="$name" -v on="$on" -v off="$off" \
    'BEGIN { printf "%-9s fused %8.2f ms/step   unfused %8.2f ms/step   fused/unfused = %.3f\n", n, on, off, on / off }'
}

"$dir/conv_fusion_bench" "$threads"
compare cnn tests/bench/train_step.tfg cnn "$cnn_steps" 64
compare resnet20 tests/bench/resnet_step.tfg "$resnet_steps" 64
