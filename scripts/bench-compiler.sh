#!/usr/bin/env bash
# Compiler output: each course program compiled two ways (the harness's naive and
# register-allocating code generators, linked with examples/runtime/print.asm),
# compared with and without shared-procedure calls. Prints one line per pair:
#   program  verdict-with  seconds-with  verdict-without  seconds-without
# Usage: scripts/bench-compiler.sh [TIMEOUT_SECONDS]   (default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
timeout_s="${1:-20}"
cargo build --release -q -p tamarin-cli -p tamarin-harness
dump="$(mktemp -d)"
trap 'rm -rf "$dump"' EXIT
# --dump writes every pair; the comparisons themselves are quick with a short limit.
target/release/compiler-pairs --course --compare-timeout 1 --jobs 1 --dump "$dump" >/dev/null
printf '%-16s %-22s %8s %-22s %8s\n' program with seconds without seconds
for dir in "$dump"/*-regalloc; do
  name="$(basename "$dir" | sed -e 's/^[0-9]*-//' -e 's/-regalloc$//')"
  extra=()
  if grep -q '"frontend": "array"' "$dir/meta.json"; then
    extra=(--frontend array --max-len 4)
  fi
  row=("$name")
  for flag in "" --no-shared-calls; do
    start=$(date +%s.%N)
    verdict=$(target/release/tamarin compare ${flag:+"$flag"} --link examples/runtime/print.asm \
      "$dir/left.asm" "$dir/right.asm" --observe 'output,$3' --fuel 20000 \
      --timeout "$timeout_s" "${extra[@]}" 2>/dev/null | head -1 | cut -d: -f1 || true)
    end=$(date +%s.%N)
    row+=("$verdict" "$(echo "$end - $start" | bc)")
  done
  printf '%-16s %-22s %8.2f %-22s %8.2f\n' "${row[@]}"
done
