#!/usr/bin/env bash
# import_graph_def of a ~100 MB frozen GraphDef (tests/bench/graph_def_gen.tfg):
# seconds and peak RSS over the file's size, against TensorFlow's
# tf.compat.v1.import_graph_def of the same file in the same run (best of 3).
# Target: under 2 s and at most 2x the file's size in memory.
#   tests/bench/graph_def_import.sh [TFG]      (default build/tfg)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
tfg=${1:-build/tfg}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$tfg" tests/bench/graph_def_gen.tfg "$tmp/g.pb" >/dev/null
size=$(stat -c %s "$tmp/g.pb")
# The interpreter alone (start-up, stdlib), to subtract from peak RSS.
echo 'print(1)' >"$tmp/empty.tfg"
best() {  # best of 3: "seconds peak_kib"
  local best_s="" best_kb=""
  for _ in 1 2 3; do
    out=$( { /usr/bin/time -f "rss %M" "$@" ; } 2>&1 )
    s=$(echo "$out" | awk '/import_graph_def_seconds/ {print $2}')
    kb=$(echo "$out" | awk '/^rss/ {print $2}')
    if [[ -z $best_s ]] || awk -v a="$s" -v b="$best_s" 'BEGIN{exit !(a<b)}'; then best_s=$s; fi
    if [[ -z $best_kb || $kb -lt $best_kb ]]; then best_kb=$kb; fi
  done
  echo "$best_s $best_kb"
}
read -r tfg_s tfg_kb < <(best "$tfg" tests/bench/graph_def_import.tfg "$tmp/g.pb")
base_kb=$( { /usr/bin/time -f "%M" "$tfg" "$tmp/empty.tfg" >/dev/null; } 2>&1 | tail -1)
printf 'file: %.1f MB\n' "$(echo "$size / 1000000" | bc -l)"
printf 'tfg import_graph_def: %.3f s; peak RSS above the bare interpreter: %.2fx the file\n' "$tfg_s" \
  "$(echo "($tfg_kb - $base_kb) * 1024 / $size" | bc -l)"
if python3 -c 'import tensorflow' 2>/dev/null; then
  read -r tf_s tf_kb < <(best python3 tests/bench/graph_def_import_tf.py "$tmp/g.pb")
  printf 'TensorFlow import_graph_def: %.3f s (tfg/TensorFlow: %.2fx)\n' "$tf_s" "$(echo "$tfg_s / $tf_s" | bc -l)"
else
  echo "TensorFlow import_graph_def: skipped (no tensorflow)"
fi
