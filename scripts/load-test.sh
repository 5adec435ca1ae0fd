#!/usr/bin/env bash
# Load test: a grade must not depend on how busy the machine is. Its verdicts are
# decided by counts (solver work, runs, fuel), the wall clock being only a safety net,
# so the same class graded on an idle machine, beside busy loops and on one core must
# give the same report once the times are taken out.
#
#   scripts/load-test.sh [TAMARIN]        (default: target/release/tamarin)
#
# Each class (task.toml and submissions/) is graded three ways with `-j 1`, each time
# into a fresh store and with `--format json`:
#   idle      nothing else started by this script;
#   busy      beside two busy loops (`while :; do :; done`), ended on exit;
#   taskset   pinned to one core with `taskset -c 0` (skipped, saying so, without
#             taskset or where core 0 cannot be used).
# The reports, without their times (`seconds`, `grading_seconds`, `grouping_seconds`,
# every `*seconds`, `*_ms` and `millis` field) and `from_store`, must be the same: any
# difference in verdicts, groups, witnesses or reasons fails the test (exit 1) and is
# printed. A reason cut by the wall clock, or grouping cut by it, fails it too: such a
# report is not decided by counts, so agreeing would be luck. Then one class is graded
# with the default `-j` (one comparison per core) beside the busy loops, and its
# verdicts and groups (not the whole report: the work Z3 counts may vary slightly
# between threads) are compared with the idle run's.
#
# Environment: LOAD_TEST_CLASSES, the classes, separated by `;`, each a folder and
# grade options for all its runs (default: the example classes amax and fib,
# examples/grading, and examples/classes/print with `--solver-work 8000000`, where
# every correct submission ends undecided when its work budget is spent, the boundary
# that must not move with the load; its task's own budget of 30,000,000 takes three
# times as long: LOAD_TEST_CLASSES=examples/classes/print runs it);
# LOAD_TEST_JOBS_CLASS, the class graded with the default -j (default
# examples/classes/amax).
# Needs python3 or jq (LOAD_TEST_JSON=jq uses jq where both are). About a minute and
# a half with a release build on a 2-core machine.
set -Eeuo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-target/release/tamarin}
case $bin in
/*) ;;
*) bin=$PWD/$bin ;;
esac
if [ ! -x "$bin" ]; then
    echo "$0: no tamarin binary at $bin (cargo build --release -p tamarin-cli)" >&2
    exit 2
fi
# Paths in the reports are as given, so every run grades from the repository root.
cd "$root"

IFS=';' read -r -a entries <<<"${LOAD_TEST_CLASSES:-examples/classes/amax; examples/classes/fib; examples/grading; examples/classes/print --solver-work 8000000}"
jobs_class=${LOAD_TEST_JOBS_CLASS:-examples/classes/amax}
classes=()
for e in "${entries[@]}"; do
    read -r c _ <<<"$e"
    [ -n "$c" ] && classes+=("$c")
done
for c in "${classes[@]}" "$jobs_class"; do
    if [ ! -f "$c/task.toml" ] || [ ! -d "$c/submissions" ]; then
        echo "$0: $c has no task.toml and submissions/" >&2
        exit 2
    fi
done

if [ "${LOAD_TEST_JSON:-}" != jq ] && command -v python3 >/dev/null 2>&1; then
    json=python3
elif command -v jq >/dev/null 2>&1; then
    json=jq
else
    echo "$0: needs python3 or jq" >&2
    exit 2
fi

tmp=$(mktemp -d)
busy=()
stop_busy() {
    local pid
    for pid in ${busy[@]+"${busy[@]}"}; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    busy=()
}
trap 'stop_busy; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
trap 'echo "$0: a command failed at line $LINENO" >&2' ERR
start_busy() {
    local i
    for i in 1 2; do
        sh -c 'while :; do :; done' &
        busy+=("$!")
    done
}

# The report without its times, keys sorted, one field a line (for diff).
normalize() {
    if [ "$json" = python3 ]; then
        python3 - "$1" <<'PY'
import json, sys
def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items()
                if not (k.endswith("seconds") or k.endswith("_ms") or k in ("millis", "from_store"))}
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o
with open(sys.argv[1]) as f:
    print(json.dumps(strip(json.load(f)), indent=1, sort_keys=True))
PY
    else
        jq -S 'walk(if type == "object" then with_entries(select(.key | test("(seconds|_ms)$|^(millis|from_store)$") | not)) else . end)' "$1"
    fi
}

# Verdicts and groups only: each submission's verdict, and each group as its members.
verdicts_and_groups() {
    if [ "$json" = python3 ]; then
        python3 - "$1" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    r = json.load(f)
for s in sorted(r["submissions"], key=lambda s: s["path"]):
    print("verdict", s["path"], s["verdict"])
for g in sorted(sorted(m["path"] for m in g["members"]) for g in r["groups"]):
    print("group", " ".join(g))
PY
    else
        jq -r '(.submissions | sort_by(.path)[] | "verdict \(.path) \(.verdict)"),
               ([.groups[] | [.members[].path] | sort] | sort[] | "group " + join(" "))' "$1"
    fi
}

# What in a report was cut by the wall clock, one line each (nothing when decided by counts).
clock_cuts() {
    if [ "$json" = python3 ]; then
        python3 - "$1" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    r = json.load(f)
if r["summary"].get("grouping_cut_by_wall_clock"):
    print("grouping was cut by the wall clock")
if r["summary"].get("task", {}).get("deterministic") is False:
    print("the grade was not deterministic (summary.task.deterministic is false)")
for s in r["submissions"]:
    for reason in s.get("reasons", []):
        if reason.get("cut_by_wall_clock"):
            print(f"{s['path']}: {reason['kind']}: {reason['message']}")
PY
    else
        jq -r '(if .summary.grouping_cut_by_wall_clock then "grouping was cut by the wall clock" else empty end),
               (if .summary.task.deterministic == false then "the grade was not deterministic (summary.task.deterministic is false)" else empty end),
               (.submissions[] | .path as $p | (.reasons // [])[] | select(.cut_by_wall_clock) | "\($p): \(.kind): \(.message)")' "$1"
    fi
}

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# grade NAME CLASS [PREFIX…] -- [OPTIONS…]: grades CLASS into $tmp/NAME.json and sets
# $secs to the wall time; the PREFIX (e.g. taskset -c 0) runs the binary.
secs=
grade() {
    local name=$1 class=$2
    shift 2
    local prefix=()
    while [ "$1" != -- ]; do
        prefix+=("$1")
        shift
    done
    shift
    local status=0 t0 t1
    rm -f "$tmp/$name.sqlite"
    t0=$(now)
    ${prefix[@]+"${prefix[@]}"} "$bin" grade --task "$class/task.toml" "$class/submissions" \
        --format json --store "$tmp/$name.sqlite" "$@" \
        >"$tmp/$name.json" 2>"$tmp/$name.err" || status=$?
    t1=$(now)
    secs=$(elapsed "$t0" "$t1")
    # 0, 1 and 3 are verdicts (all equivalent, some differ, some undecided); else trouble.
    if [ "$status" -ne 0 ] && [ "$status" -ne 1 ] && [ "$status" -ne 3 ]; then
        echo "FAIL: grading $class ($name) exited with status $status" >&2
        cat "$tmp/$name.err" >&2
        exit 1
    fi
    echo "$status" >"$tmp/$name.status"
}

pinned=1
if ! command -v taskset >/dev/null 2>&1; then
    echo "taskset not found: the one-core runs are skipped"
    pinned=0
elif ! taskset -c 0 true 2>/dev/null; then
    echo "taskset -c 0 cannot run here (core 0 not allowed): the one-core runs are skipped"
    pinned=0
fi

failed=0
table=()
# compare_runs CLASS KEY RUN OTHER: the normalized reports of the class's two runs
# ($tmp/KEY.RUN.json) and their exit statuses must agree.
compare_runs() {
    local class=$1 a=$2.$3 b=$2.$4
    normalize "$tmp/$a.json" >"$tmp/$a.norm"
    normalize "$tmp/$b.json" >"$tmp/$b.norm"
    if ! diff -u --label "$class ($3)" --label "$class ($4)" "$tmp/$a.norm" "$tmp/$b.norm"; then
        echo "FAIL: $class graded $3 and $4 gives different reports (above)"
        failed=1
    fi
    if [ "$(cat "$tmp/$a.status")" != "$(cat "$tmp/$b.status")" ]; then
        echo "FAIL: $class exits with status $(cat "$tmp/$a.status") ($3) but $(cat "$tmp/$b.status") ($4)"
        failed=1
    fi
}
check_clock() {
    local class=$1 key=$2 run=$3 cuts
    cuts=$(clock_cuts "$tmp/$key.$run.json")
    if [ -n "$cuts" ]; then
        echo "FAIL: $class ($run) was cut by the wall clock, not decided by counts:"
        echo "$cuts" | sed 's/^/  /'
        failed=1
    fi
}

declare -A class_opts
for e in "${entries[@]}"; do
    read -r class rest <<<"$e"
    [ -n "$class" ] || continue
    class_opts[$class]=$rest
    read -r -a opts <<<"$rest"
    opts+=(-j 1)
    key=$(echo "$class" | tr '/' '_')
    runs=(idle busy)
    grade "$key.idle" "$class" -- "${opts[@]}"
    t_idle=$secs
    start_busy
    grade "$key.busy" "$class" -- "${opts[@]}"
    stop_busy
    t_busy=$secs
    t_pinned=skipped
    if [ "$pinned" = 1 ]; then
        grade "$key.taskset" "$class" taskset -c 0 -- "${opts[@]}"
        t_pinned=$secs
        runs+=(taskset)
    fi
    for r in "${runs[@]}"; do
        check_clock "$class" "$key" "$r"
    done
    compare_runs "$class" "$key" idle busy
    if [ "$pinned" = 1 ]; then
        compare_runs "$class" "$key" idle taskset
    fi
    pinned_text=skipped
    [ "$t_pinned" = skipped ] || pinned_text="$t_pinned s"
    echo "$class ${opts[*]}: idle ${t_idle} s, busy ${t_busy} s, taskset ${pinned_text}"
    table+=("$class ${t_idle} ${t_busy} ${t_pinned}")
done

# The default -j beside the busy loops: verdicts and groups as on the idle machine.
key=$(echo "$jobs_class" | tr '/' '_')
read -r -a opts <<<"${class_opts[$jobs_class]:-}"
if [ ! -f "$tmp/$key.idle.json" ]; then
    grade "$key.idle" "$jobs_class" -- ${opts[@]+"${opts[@]}"} -j 1
fi
start_busy
grade "$key.busy-default-j" "$jobs_class" -- ${opts[@]+"${opts[@]}"}
stop_busy
t_jobs=$secs
check_clock "$jobs_class" "$key" busy-default-j
verdicts_and_groups "$tmp/$key.idle.json" >"$tmp/$key.idle.vg"
verdicts_and_groups "$tmp/$key.busy-default-j.json" >"$tmp/$key.busy-default-j.vg"
if ! diff -u --label "$jobs_class (idle, -j 1)" --label "$jobs_class (busy, default -j)" \
    "$tmp/$key.idle.vg" "$tmp/$key.busy-default-j.vg"; then
    echo "FAIL: $jobs_class graded with the default -j beside busy loops gives other verdicts or groups (above)"
    failed=1
fi
echo "$jobs_class: busy ${t_jobs} s (default -j, $(nproc 2>/dev/null || echo '?') cores)"

echo
echo "wall seconds per class (-j 1):"
printf '  %-24s %8s %8s %8s\n' class idle busy taskset
for row in "${table[@]}"; do
    read -r c a b p <<<"$row"
    printf '  %-24s %8s %8s %8s\n' "$c" "$a" "$b" "$p"
done
if [ "$failed" != 0 ]; then
    echo "load test FAILED: a grade depends on the load"
    exit 1
fi
if [ "$pinned" = 1 ]; then
    echo "load test passed: the same reports idle, beside busy loops and on one core"
else
    echo "load test passed: the same reports idle and beside busy loops (one core: skipped)"
fi
