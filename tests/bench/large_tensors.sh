#!/usr/bin/env bash
# Large tensors at memory speed: Gelem/s (higher is better) of an 8-op
# elementwise chain on N f32 (fed and fetched), one add of two N vectors,
# and the sum of the chain, side by side in one run: tfg, tfg without its
# block cache and buffer forwarding (TFG_HOST_ALLOCATOR=malloc
# TFG_FORWARD_INPUTS=0: how tfg ran before them), both again with every op
# unfused (-unfused), NumPy, TensorFlow, TensorFlow with XLA, and a C loop
# compiled here as the roofline. Each
# figure is the best of REPS runs; ratios are to the C loop of this run.
# Usage: tests/bench/large_tensors.sh [N [REPS]]   (default: 16M elements, 10 runs)
# TFG_BUILD_DIR picks the build (default: build).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
n=${1:-16777216}
reps=${2:-10}
dir=${TFG_BUILD_DIR:-build}
threads=$(nproc)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cc -O3 -march=native -fopenmp -o "$work/large_tensors" tests/bench/large_tensors.c
{
  "$work/large_tensors" "$n" "$reps" "$threads" | sed 's/^/c-loop /'
  for mode in "" unfused; do
    # shellcheck disable=SC2086
    "$dir/tfg" --threads "$threads" --quiet tests/bench/large_tensors.tfg "$n" "$reps" $mode |
      sed "s/^/tfg${mode:+-$mode} /"
    # shellcheck disable=SC2086
    TFG_HOST_ALLOCATOR=malloc TFG_FORWARD_INPUTS=0 "$dir/tfg" --threads "$threads" --quiet \
      tests/bench/large_tensors.tfg "$n" "$reps" $mode | sed "s/^/tfg${mode:+-$mode}-malloc-nofwd /"
  done
  python3 tests/bench/large_tensors.py "$n" "$reps" "$threads" 2>/dev/null
} >"$work/results"

echo "== large tensors: $n f32, $threads threads, best of $reps (Gelem/s, higher is better; % of the C loop)"
awk '
  { rate[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
  END {
    printf "%-26s %16s %16s %16s\n", "system", "chain (8 ops)", "add", "sum(chain)"
    for (i = 1; i <= k; ++i) {
      s = order[i]; line = sprintf("%-26s", s)
      split("chain add sum", jobs, " ")
      for (j = 1; j <= 3; ++j) {
        r = rate[s, jobs[j]]; c = rate["c-loop", jobs[j]]
        line = line sprintf(" %8.3f (%4.0f%%)", r, c > 0 ? 100 * r / c : 0)
      }
      print line
    }
  }' "$work/results"
