#!/usr/bin/env bash
# The corpus of examples/mips32/corpus (integer functions of one to four arguments):
# each function at -O0 against -O2 (equivalent by construction), and the -O2 build
# against its changed twin at -O0 (different on some input), one line per pair:
#   function  kind  verdict  seconds  reasons
# Usage: scripts/bench-mips32-corpus.sh [TIMEOUT_SECONDS]   (default 10)
# Environment: TAMARIN, the binary (default: the release build, built first).
set -euo pipefail
cd "$(dirname "$0")/.."
timeout_s="${1:-10}"
if [[ -z "${TAMARIN:-}" ]]; then
  cargo build --release -q -p tamarin-cli
  TAMARIN=target/release/tamarin
fi
dir=examples/mips32/corpus
functions=$(sed -n 's/^int \([a-z_0-9]*\)(.*/\1/p' "$dir/functions.c")
printf '%-10s %-9s %-20s %8s %s\n' function kind verdict seconds reasons
for f in $functions; do
  for kind in same changed; do
    if [[ $kind == same ]]; then
      left=$dir/functions-O0.o
    else
      left=$dir/changed-O0.o
    fi
    json=$("$TAMARIN" compare "$left" "$dir/functions-O2.o" --function "$f" \
      --timeout "$timeout_s" --format json || true)
    verdict=$(sed -e 's/.*"verdict":"\([a-z-]*\)".*/\1/' <<<"$json")
    millis=$(sed -e 's/.*"millis":\([0-9]*\).*/\1/' <<<"$json")
    reasons=$(grep -o '"kind":"[a-z-]*"' <<<"$json" | sed 's/"kind":"\(.*\)"/\1/' | paste -sd, - || true)
    printf '%-10s %-9s %-20s %8.2f %s\n' "$f" "$kind" "$verdict" \
      "$(echo "$millis / 1000" | bc -l)" "${reasons:--}"
  done
done
