#!/usr/bin/env bash
# Grades one example class with a given tamarin binary and prints, per submission, its
# verdict and seconds, then the class's total (the wall time of the whole grade run,
# and the sum of the comparisons' seconds).
#
#   scripts/bench-class.sh [BINARY] CLASS_DIR [extra grade options…]
#   scripts/bench-class.sh target/release/tamarin examples/classes/amax
#   scripts/bench-class.sh examples/classes/print --jobs 1
#
# CLASS_DIR holds task.toml and submissions/; BINARY defaults to
# target/release/tamarin. A fresh store in a temporary folder is used, so nothing
# comes from an earlier run. Needs python3 (for the JSON report), not jq.
set -euo pipefail

bin=target/release/tamarin
if [ $# -ge 1 ] && [ -f "$1" ] && [ -x "$1" ]; then
    bin=$1
    shift
fi
if [ $# -lt 1 ]; then
    echo "usage: $0 [BINARY] CLASS_DIR [grade options…]" >&2
    exit 2
fi
class=${1%/}
shift
if [ ! -f "$class/task.toml" ] || [ ! -d "$class/submissions" ]; then
    echo "$0: $class has no task.toml and submissions/" >&2
    exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$(date +%s.%N)
status=0
"$bin" grade --task "$class/task.toml" "$class/submissions" --format json \
    --store "$tmp/store.sqlite" "$@" >"$tmp/report.json" || status=$?
end=$(date +%s.%N)
# 0, 1 and 3 are verdicts (all equivalent, some differ, some undecided); else trouble.
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ] && [ "$status" -ne 3 ]; then
    echo "$0: grade exited with status $status" >&2
    cat "$tmp/report.json" >&2
    exit "$status"
fi

python3 - "$tmp/report.json" "$start" "$end" "$class" "$bin" <<'PY'
import json, os, sys
report_path, start, end, klass, binary = sys.argv[1:]
with open(report_path) as f:
    report = json.load(f)
subs = report["submissions"]
width = max([len(os.path.basename(s["path"])) for s in subs] + [10])
print(f"class {klass} graded by {binary}")
print(f"{'submission':<{width}}  {'verdict':<19}  {'seconds':>8}")
total = 0.0
for s in sorted(subs, key=lambda s: s["path"]):
    total += s["seconds"]
    print(f"{os.path.basename(s['path']):<{width}}  {s['verdict']:<19}  {s['seconds']:8.2f}")
counts = report["summary"]["counts"]
print(
    "total: {} submissions, {} equivalent, {} disequivalent, {} possibly-equivalent, "
    "{} do not assemble; {:.2f} s of comparisons, {:.2f} s wall".format(
        len(subs),
        counts["equivalent"],
        counts["disequivalent"],
        counts["possibly-equivalent"],
        counts["does-not-assemble"],
        total,
        float(end) - float(start),
    )
)
PY
