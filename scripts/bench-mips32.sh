#!/usr/bin/env bash
# MIPS32 functions: the pairs of examples/mips32 (gcc -O0 and -O2 builds of each
# function, and two algorithms for one job) compared, one line per pair:
#   left  right  verdict  seconds  paths
# Usage: scripts/bench-mips32.sh [TIMEOUT_SECONDS]   (default 60)
set -euo pipefail
cd "$(dirname "$0")/.."
timeout_s="${1:-60}"
cargo build --release -q -p tamarin-cli
ex=examples/mips32
pairs=(
  "popcount-O0.o popcount_loop popcount-O2.o popcount_loop 1"
  "popcount-O0.o popcount_swar popcount-O2.o popcount_swar 1"
  "popcount-O0.o popcount_loop popcount-O2.o popcount_swar 1"
  "popcount-O2.o popcount_loop popcount-O2.o popcount_buggy 1"
  "divmod-O0.o divmod divmod-O2.o divmod 2"
  "divmod-O0.o divmod_unguarded divmod-O2.o divmod_unguarded 2"
  "divmod-O2.o divmod divmod-O0.o divmod_unguarded 2"
  "grade-O0.o letter grade-O2.o letter 2"
)
printf '%-32s %-32s %-20s %8s %s\n' left right verdict seconds paths
for p in "${pairs[@]}"; do
  read -r lf lname rf rname args <<<"$p"
  json=$(target/release/tamarin compare "$ex/$lf" "$ex/$rf" --function "$lname" \
    --right-function "$rname" --args "$args" --timeout "$timeout_s" --format json || true)
  verdict=$(sed -e 's/.*"verdict":"\([a-z-]*\)".*/\1/' <<<"$json")
  millis=$(sed -e 's/.*"millis":\([0-9]*\).*/\1/' <<<"$json")
  paths=$(sed -e 's/.*"paths":\[\([0-9]*\),\([0-9]*\)\].*/\1+\2/' <<<"$json")
  printf '%-32s %-32s %-20s %8.2f %s\n' "$lf:$lname" "$rf:$rname" "$verdict" \
    "$(echo "$millis / 1000" | bc -l)" "$paths"
done
