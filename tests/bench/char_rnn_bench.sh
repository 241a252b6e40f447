#!/usr/bin/env bash
# scripts/bench's char-RNN section: one training step of tests/bench/char_rnn.tfg
# (batch 32, 64 steps through dynamic_rnn, 2 LSTM layers of 256) in tfg,
# TensorFlow (LSTMBlockCell and LSTMCell) and PyTorch (nn.LSTM), same threads.
# Usage: tests/bench/char_rnn_bench.sh BUILD_DIR THREADS STEPS [PEERS...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
dir=$1 threads=$2 steps=$3
shift 3
echo "== char-RNN training step, ${threads} threads (best of 3 runs; lower is better; targets: <= 1.0x TensorFlow, <= 1.2x PyTorch)"
tfg_ms=$("$dir/tfg" --threads "$threads" --quiet tests/bench/char_rnn.tfg "$steps" | awk '{print $NF}')
printf 'tfg                    %8.2f ms/step\n' "$tfg_ms"
compare() {
  awk -v n="$1" -v p="$2" -v t="$tfg_ms" 'BEGIN { printf "%-22s %8.2f ms/step   tfg/peer = %.2f\n", n, p, t / p }'
}
for peer in "$@"; do
  if [[ $peer == tf ]]; then
    for kind in block lstm; do
      ms=$(python3 tests/bench/char_rnn_tf.py "$steps" "$threads" 256 "$kind" 2>/dev/null | awk '{print $NF}')
      compare "tensorflow ($([[ $kind == block ]] && echo LSTMBlockCell || echo LSTMCell))" "$ms"
    done
  elif [[ $peer == torch ]]; then
    compare "pytorch (nn.LSTM)" "$(python3 tests/bench/char_rnn_torch.py "$steps" "$threads" 256 | awk '{print $NF}')"
  fi
done
