#!/usr/bin/env bash
# Whole-process timings of `tamarin compare` on every paper pair (release build),
# with hyperfine. Usage: scripts/bench-process.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }
cargo build --release -q -p tamarin-cli
t=target/release/tamarin
e=examples/paper
cmds=()
while read -r l r opts; do
    cmds+=("$t compare $e/$l $e/$r $opts")
done <<'ROWS'
fig1-left.asm fig1-right.asm
fig1-left.asm fig1-literal-right.asm
fig1-left.asm fig2-right.asm --fuel 10
fig1-left.asm fig2-right.asm
fig5-left.asm fig5-right.asm
fig8-left.asm fig8-right.asm
fig8-left.asm fig8-left.asm
fig12-left.asm fig1-left.asm
ROWS
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# compare exits 1 on a difference: -i keeps hyperfine going.
hyperfine -N -i --warmup 3 --runs 30 --export-markdown "$out" "${cmds[@]}" >/dev/null 2>&1
cat "$out"
