#!/usr/bin/env bash
# Grading benchmark: times `tamarin grade` on three generated classes (500 submissions
# in all) and prints a markdown table (BENCHMARKS.md, "Generated classes").
#
# Builds nothing: it needs target/release/tamarin and target/release/grade-class, from
#   cargo build --release -p tamarin-cli -p tamarin-harness
#
# Usage: scripts/bench-grade.sh [WORKDIR]   (default: a fresh temporary folder)
# Environment: JOBS (default 2), TIMEOUT (seconds per submission, default 10),
#              SEED (default 1), TAMARIN (the binary to time, default
#              target/release/tamarin: another build's, to compare two in one session).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tamarin=${TAMARIN:-$root/target/release/tamarin}
gen=$root/target/release/grade-class
for b in "$tamarin" "$gen"; do
    [[ -x $b ]] || { echo "missing $b: build it first" >&2; exit 2; }
done
work=${1:-$(mktemp -d)}
jobs=${JOBS:-2}
timeout=${TIMEOUT:-10}
seed=${SEED:-1}
mkdir -p "$work"

# shape count extra-options
classes=(
    "twoints 200"
    "loop 150"
    "array 150 --frontend array --max-len 4"
)

now() { date +%s.%N; }

rows=()
for c in "${classes[@]}"; do
    read -r shape count extra <<<"$c"
    dir=$work/$shape
    rm -rf "$dir"
    "$gen" --shape "$shape" --count "$count" --seed "$seed" --out "$dir"
    store=$dir/store.sqlite
    # shellcheck disable=SC2086 # $extra is a list of options
    grade() {
        "$tamarin" grade "$dir/reference.asm" "$dir/submissions" --jobs "$jobs" \
            --timeout "$timeout" --format json --store "$store" $extra >"$1" || true
    }
    t0=$(now); grade "$dir/first.json"; t1=$(now)
    # One resubmission: a changed file (a comment appended changes its bytes, so its
    # key) is graded again; the others come from the store.
    echo "; resubmitted" >>"$dir/submissions/s000.asm"
    t2=$(now); grade "$dir/rerun.json"; t3=$(now)
    row=$(python3 - "$dir/first.json" "$dir/rerun.json" "$t0" "$t1" "$t2" "$t3" "$jobs" <<'EOF'
import json, statistics, sys
first, rerun = (json.load(open(p)) for p in sys.argv[1:3])
t0, t1, t2, t3 = map(float, sys.argv[3:7])
jobs = int(sys.argv[7])
subs = first["submissions"]
secs = [s["seconds"] for s in subs]
counts = first["summary"]["counts"]
wall = t1 - t0
# grade reports no grouping time: estimate it as what the wall clock has beyond the
# per-submission comparisons spread over the jobs (it includes start-up and the store).
grouping = max(0.0, wall - sum(secs) / jobs)
regraded = sum(1 for s in rerun["submissions"] if not s.get("from_store"))
print(f'| {len(subs)} | {wall:.1f} | {statistics.median(secs):.4f} | {max(secs):.3f} '
      f'| {counts["equivalent"]} / {counts["disequivalent"]} / '
      f'{counts["possibly-equivalent"]} / {counts["does-not-assemble"]} '
      f'| {first["summary"]["groups"]} | {t3 - t2:.1f} ({regraded} graded) '
      f'| ~{grouping:.1f} |')
EOF
)
    rows+=("| $shape $row")
done

echo "| class | submissions | wall s | median s | max s | equiv / diseq / possibly / no-asm | groups | re-run, one file changed, s | grouping s (est.) |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
printf '%s\n' "${rows[@]}"
echo
echo "(classes and JSON reports in $work; grouping s = wall − Σ per-submission s / $jobs, an estimate)"
