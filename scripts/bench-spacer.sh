#!/usr/bin/env bash
# Z3's Spacer on the loop pairs of examples/horn: each pair's lockstep (or two-to-one)
# product as Horn clauses over 32-bit words, the invariant left unknown. `sat` means
# an invariant was found (equivalent for every input), `unsat` a counterexample.
# Usage: scripts/bench-spacer.sh [LIMIT_SECONDS] [Z3 OPTION...]
# (Z3: $Z3, else the wheel's .z3/bin/z3, else z3 on the PATH)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
limit=${1:-60}
shift || true
z3=${Z3:-$root/.z3/bin/z3}
[ -x "$z3" ] || z3=z3
# The wheel's binary finds its library beside the Python package.
export LD_LIBRARY_PATH="$root/.z3/z3/lib:${LD_LIBRARY_PATH:-}"
echo "| pair | expected | Spacer | seconds |"
echo "|---|---|---|---|"
for f in "$root"/examples/horn/*.smt2; do
    name=$(basename "$f" .smt2)
    expected=sat
    case $name in needle | off-by-one) expected=unsat ;; esac
    start=$(date +%s.%N)
    answer=$(timeout $((limit + 5)) "$z3" -T:"$limit" "$@" "$f" 2>&1 | head -1 || true)
    end=$(date +%s.%N)
    [ -n "$answer" ] || answer="no answer"
    printf '| %s | %s | %s | %.1f |\n' "$name" "$expected" "$answer" "$(echo "$end - $start" | bc)"
done
