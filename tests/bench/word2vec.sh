#!/usr/bin/env bash
# word2vec examples/s (skip-gram pairs per second) in tfg
# (examples/word2vec.tfg, mode "bench") and TensorFlow
# (tests/bench/word2vec_tf.py): the same corpus, batch 128, window 2, 64
# noise words, 128 dimensions, two "div" shards, SGD; same threads. Best of
# `runs` runs each, alternated so both see the same machine load.
#   tests/bench/word2vec.sh TFG_BINARY THREADS STEPS RUNS [with_tf]
set -euo pipefail
tfg=$1 threads=$2 steps=$3 runs=$4 with_tf=${5:-1}
best_tfg=0 best_tf=0
max() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a ? b : a) }'; }
for _ in $(seq "$runs"); do
  r=$("$tfg" --threads "$threads" --quiet examples/word2vec.tfg "$steps" bench | awk '/examples\/s/ {print $NF}')
  best_tfg=$(max "$best_tfg" "$r")
  if [[ $with_tf -eq 1 ]]; then
    r=$(python3 tests/bench/word2vec_tf.py "$steps" "$threads" 2>/dev/null | awk '/examples\/s/ {print $NF}')
    best_tf=$(max "$best_tf" "$r")
  fi
done
printf 'tfg         %9.0f examples/s\n' "$best_tfg"
if [[ $with_tf -eq 1 ]]; then
  awk -v p="$best_tf" -v t="$best_tfg" \
    'BEGIN { printf "tensorflow  %9.0f examples/s   tfg/tensorflow = %.2fx (target: at least 1.0x)\n", p, t / p }'
fi
