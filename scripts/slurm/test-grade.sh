#!/usr/bin/env bash
# Integration test of sharded grading on a real single-node Slurm cluster
# (scripts/slurm/cluster.sh):
#   1. the example class graded on this machine (the baseline), then with
#      `tamarin grade --slurm 3`: the merged report must give every submission the
#      baseline's verdict and the same groups, and the merge the baseline's exit status;
#   2. a class slow enough to kill mid-run, graded with --slurm 3: shard 2 is requeued
#      (`scontrol requeue`) once its store holds results; it must run again, find those
#      results in its store, and the merged verdicts must equal a grade on this machine.
# It prints the figures: shards, wall time of array and merge, each task's time.
#
# Usage: scripts/slurm/test-grade.sh   (as root; builds nothing: it needs
#        target/release/tamarin, from `cargo build --release -p tamarin-cli`)
# Environment:
#   TAMARIN                 the binary (default target/release/tamarin)
#   TAMARIN_SLURM_REQUIRED  1: no cluster to be had is a failure (exit 1), not a skip
#   TAMARIN_SLURM_TIMEOUT   seconds to wait for each sharded run (default 600)
#   TAMARIN_SLURM_COPIES    copies of each slow submission in the second class (default 120)
#   TAMARIN_SLURM_KILL_AT   results in shard 2's store when it is requeued (default 5)
#   TAMARIN_SLURM_KEEP      1: keep the work folder even when every check passes
# Exit status: 0 when every check passes or when Slurm cannot be had here ("skipped: ..."),
# 1 on any mismatch or failure, 2 when the binary is missing.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
cluster=$root/scripts/slurm/cluster.sh
tamarin=${TAMARIN:-target/release/tamarin}
[[ $tamarin == /* ]] || tamarin=$root/$tamarin
[[ -x $tamarin ]] || {
    echo "missing $tamarin: build it with cargo build --release -p tamarin-cli" >&2
    exit 2
}
wait_limit=${TAMARIN_SLURM_TIMEOUT:-600}
copies=${TAMARIN_SLURM_COPIES:-120}
kill_at=${TAMARIN_SLURM_KILL_AT:-5}
shards=3
task=examples/grading/task.toml
class=examples/grading/submissions

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
now() { date +%s.%N; }
results() { if [[ $1 == 1 ]]; then echo "1 result"; else echo "$1 results"; fi; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# 1. The cluster. One that this script did not start is left running at the end.
ours=1
if "$cluster" status >/dev/null 2>&1; then ours=0; fi
set +e
start_out=$("$cluster" start 2>&1)
rc=$?
set -e
echo "$start_out"
if [[ $rc == 77 ]]; then
    reason=$(grep -E '; skipping$' <<<"$start_out" | tail -n 1 | sed -e 's/^slurm: //' -e 's/; skipping$//' || true)
    if [[ ${TAMARIN_SLURM_REQUIRED:-0} == 1 ]]; then
        echo "FAIL: no Slurm cluster here: ${reason:-see above}" >&2
        exit 1
    fi
    echo "skipped: ${reason:-Slurm cannot run here}"
    exit 0
elif [[ $rc != 0 ]]; then
    echo "FAIL: the cluster did not start" >&2
    exit 1
fi
eval "$("$cluster" env)"

work=$(mktemp -d "${TMPDIR:-/tmp}/tamarin-slurm-test.XXXXXX")
cleanup() {
    local rc=$?
    if [[ $ours == 1 ]]; then "$cluster" stop >/dev/null 2>&1 || true; fi
    if [[ $rc == 0 && ${TAMARIN_SLURM_KEEP:-0} != 1 ]]; then
        rm -rf "$work"
    else
        echo "work folder kept: $work" >&2
    fi
}
trap cleanup EXIT
echo "work folder: $work"

# Paths in reports are as given on the command line (relative to the repository) or
# absolute; those inside the repository are compared relative to it.
compare_reports() { # BASELINE REPORT MODE(verdicts|groups)
    python3 - "$root" "$@" <<'PY'
import json, os, sys
root, base_file, report_file, mode = sys.argv[1:5]

def rel(p):
    p = os.path.normpath(p)
    return os.path.relpath(p, root) if p.startswith(root + os.sep) else p

def load(f):
    with open(f) as h:
        d = json.load(h)
    verdicts, groups = {}, {}
    for s in d["submissions"]:
        p = rel(s["path"])
        verdicts[p] = s["verdict"]
        if s.get("group") is not None:
            groups.setdefault(s["group"], set()).add(p)
    return d, verdicts, {frozenset(g) for g in groups.values()}

_, bv, bg = load(base_file)
report, rv, rg = load(report_file)
bad = []
for p in sorted(set(bv) - set(rv)):
    bad.append(f"{p}: missing from the merged report")
for p in sorted(set(rv) - set(bv)):
    bad.append(f"{p}: in the merged report, not in the baseline")
for p in sorted(set(bv) & set(rv)):
    if bv[p] != rv[p]:
        bad.append(f"{p}: {rv[p]}, baseline {bv[p]}")
if mode == "groups" and bg != rg:
    show = lambda gs: "; ".join(sorted(" ".join(sorted(g)) for g in gs))
    bad.append(f"groups differ:\n  merged:   {show(rg)}\n  baseline: {show(bg)}")
shards = report.get("shards")
if not isinstance(shards, dict):
    bad.append("no shards object in the merged report")
else:
    if shards.get("missing") or shards.get("incomplete"):
        bad.append(f"shards missing or incomplete: {json.dumps(shards)}")
    if shards.get("total") is not None and len(shards.get("present", [])) != shards["total"]:
        bad.append(f"not every shard present: {json.dumps(shards)}")
for b in bad:
    print("  " + b)
print(f"  {len(rv)} submissions, {len(rg)} groups compared ({mode}): "
      + ("same as the baseline" if not bad else f"{len(bad)} differences"))
sys.exit(1 if bad else 0)
PY
}

# Each task's runs from the logs: `shard K of N, restart R`, `started EPOCH` and
# `finished EPOCH status S` lines.
task_times() { # DIR
    python3 - "$1" <<'PY'
import glob, os, re, sys
d = sys.argv[1]
for f in sorted(glob.glob(os.path.join(d, "logs", "*"))):
    runs, cur = [], None
    for line in open(f, errors="replace"):
        m = re.search(r"shard (\d+) of (\d+), restart (\d+)", line)
        if m:
            cur = {"what": f"shard {m[1]}/{m[2]} restart {m[3]}"}
            runs.append(cur)
            continue
        m = re.search(r"\bstarted (\d+(?:\.\d+)?)\b", line)
        if m:
            if cur is None or "start" in cur:
                cur = {"what": "merge" if "merge started" in line else "run"}
                runs.append(cur)
            cur["start"] = float(m[1])
            continue
        m = re.search(r"\bfinished (\d+(?:\.\d+)?) status (\d+)", line)
        if m and cur is not None:
            cur["end"], cur["status"] = float(m[1]), m[2]
            cur = None
    for r in runs:
        if "start" in r and "end" in r:
            t = f"{r['end'] - r['start']:.0f} s, status {r['status']}"
        elif "start" in r:
            t = "did not finish (killed)"
        else:
            t = "no start time"
        print(f"  {os.path.basename(f):<24} {r['what']:<26} {t}")
PY
}

diagnose() { # DIR ARRAY MERGE
    local d=$1 f
    echo "--- squeue" >&2
    squeue >&2 || true
    echo "--- scontrol show job $2 $3" >&2
    scontrol show job "$2" >&2 2>&1 || true
    scontrol show job "$3" >&2 2>&1 || true
    for f in "$d"/logs/*; do
        [[ -f $f ]] || continue
        echo "--- tail of $f" >&2
        tail -n 20 "$f" >&2
    done
}

# Runs `tamarin grade --slurm` into DIR and sets array_id and merge_id.
submit() { # DIR GRADE-ARGS...
    local d=$1 out line rc=0
    shift
    out=$("$tamarin" grade --slurm "$shards" --slurm-dir "$d" \
        --sbatch-arg=--comment=tamarin-test "$@") || rc=$?
    if [[ $rc != 0 ]]; then
        echo "$out"
        echo "FAIL: tamarin grade --slurm did not submit (exit $rc)" >&2
        exit 1
    fi
    while IFS= read -r line; do echo "  $line"; done <<<"$out"
    array_id=$(sed -n 's/^array job: *\([0-9]*\).*/\1/p' <<<"$out")
    merge_id=$(sed -n 's/^merge job: *\([0-9]*\).*/\1/p' <<<"$out")
    [[ -n $array_id && -n $merge_id ]] || {
        fail "no 'array job: ID' and 'merge job: ID' lines in grade --slurm's output"
        exit 1
    }
    [[ -f $d/grade.sbatch && -f $d/merge.sbatch ]] || fail "grade.sbatch or merge.sbatch missing in $d"
}

# Waits for DIR/merge.done and prints the merge's exit status.
wait_merge() { # DIR ARRAY MERGE
    local d=$1 deadline=$((SECONDS + wait_limit)) gone=
    while ((SECONDS < deadline)); do
        if [[ -f $d/merge.done ]] && grep -qE '^[0-9]+$' "$d/merge.done"; then
            cat "$d/merge.done"
            return 0
        fi
        if [[ -z $(squeue -h -j "$3" -o %T 2>/dev/null) ]]; then
            # The merge job has ended: merge.done should follow at once.
            gone=${gone:-$SECONDS}
            if ((SECONDS - gone > 10)); then
                echo "FAIL: the merge job $3 ended without writing $d/merge.done" >&2
                diagnose "$@"
                exit 1
            fi
        fi
        sleep 1
    done
    echo "FAIL: no $d/merge.done after $wait_limit s" >&2
    diagnose "$@"
    exit 1
}

check_outputs() { # DIR
    local f
    for f in report.json report.txt html/index.html; do
        [[ -s $1/$f ]] || fail "the merge wrote no $1/$f"
    done
}

# 2. The baseline: the example class on this machine.
echo
echo "== the example class on this machine"
args=(--task "$task" "$class" --format json)
set +e
"$tamarin" grade "${args[@]}" --store "$work/baseline.sqlite" >"$work/baseline.json"
base_rc=$?
set -e
case $base_rc in 0 | 1 | 3) ;; *)
    echo "FAIL: the baseline grade exited $base_rc" >&2
    exit 1
    ;;
esac
echo "  exit status $base_rc"

# 3. The same class on the cluster.
echo
echo "== the example class with --slurm $shards"
w1=$work/example
t0=$(now)
submit "$w1" "${args[@]}"
merge_rc=$(wait_merge "$w1" "$array_id" "$merge_id") || exit 1
wall1=$(since "$t0")
echo "  merge exit status $merge_rc after $wall1 s"
[[ $merge_rc == "$base_rc" ]] || fail "the merge exited $merge_rc, the baseline $base_rc"
check_outputs "$w1"
if [[ -s $w1/report.json ]]; then
    compare_reports "$work/baseline.json" "$w1/report.json" groups || fail "the example class's merged report differs from the baseline"
fi

# 4. A slow class, and shard 2 requeued mid-run. The store keys results on a file's
# content, so each copy carries its own comment line: the same file twice would be
# graded once. bug_overflow and correct_swapped take the longest of the example class.
echo
echo "== a slow class with --slurm $shards, shard 2 requeued mid-run"
slow=$work/slow-class
mkdir -p "$slow"
for i in $(seq 1 "$copies"); do
    for name in bug_overflow correct_swapped; do
        { cat "$class/$name.asm"; echo "; copy $i"; } >"$slow/${name}_$i.asm"
    done
done
for f in "$class"/*.asm; do
    for i in 1 2; do
        { cat "$f"; echo "; extra copy $i"; } >"$slow/$(basename "$f" .asm)_extra$i.asm"
    done
done
slow_args=(--task "$task" "$slow" --format json --jobs 1)
t0=$(now)
set +e
"$tamarin" grade "${slow_args[@]}" --store "$work/slow-baseline.sqlite" >"$work/slow-baseline.json"
slow_rc=$?
set -e
slow_base_wall=$(since "$t0")
echo "  $(find "$slow" -name '*.asm' | wc -l) submissions; on this machine: exit status $slow_rc, $slow_base_wall s"

w2=$work/slow
t0=$(now)
submit "$w2" "${slow_args[@]}"
store2=$w2/stores/shard-2.sqlite
rows() {
    [[ -f $store2 ]] || {
        echo 0
        return
    }
    sqlite3 -cmd '.timeout 2000' "$store2" \
        "SELECT count(*) FROM results WHERE role = 'submission'" 2>/dev/null ||
        sqlite3 -cmd '.timeout 2000' "$store2" 'SELECT count(*) FROM results' 2>/dev/null ||
        echo 0
}
task2=${array_id}_2
requeued=0
deadline=$((SECONDS + wait_limit))
while ((SECONDS < deadline)); do
    state=$(squeue -h -j "$task2" -o %T 2>/dev/null | head -n 1 || true)
    if [[ $state == RUNNING ]]; then
        n=$(rows)
        if ((n >= kill_at)); then
            scontrol requeue "$task2"
            requeued=1
            echo "  requeued $task2 with $(results "$n") in its store"
            break
        fi
    elif [[ -z $state || $state == COMPLETING || $state == COMPLETED || $state == FAILED ]]; then
        break
    fi
    sleep 0.2
done
if [[ $requeued == 0 ]]; then
    fail "shard 2 ended before it could be requeued (state: ${state:-gone}); try a larger TAMARIN_SLURM_COPIES"
    diagnose "$w2" "$array_id" "$merge_id"
    exit 1
fi
# A requeued job waits in PENDING (reason BeginTime) for the credential lifetime
# (AuthInfo cred_expire, 120 s by default) plus a second; once it is PENDING, a new
# start time lets it start at the next scheduling pass.
deadline=$((SECONDS + 60))
while ((SECONDS < deadline)); do
    state=$(squeue -h -j "$task2" -o %T 2>/dev/null | head -n 1 || true)
    [[ $state == PENDING ]] && break
    sleep 0.2
done
if [[ $state == PENDING ]]; then
    begin=$(squeue -h -j "$task2" -o %S | head -n 1)
    held=$(($(date -d "$begin" +%s) - $(date +%s)))
    echo "  $task2 pending ($(squeue -h -j "$task2" -o %r | head -n 1)) until $begin, ${held} s from now; starting it now"
    scontrol update jobid="$task2" starttime=now
else
    fail "$task2 did not go back to PENDING after the requeue (state: ${state:-gone})"
fi
merge_rc=$(wait_merge "$w2" "$array_id" "$merge_id") || exit 1
wall2=$(since "$t0")
echo "  merge exit status $merge_rc after $wall2 s"
[[ $merge_rc == "$slow_rc" ]] || fail "the merge exited $merge_rc, the grade on this machine $slow_rc"
check_outputs "$w2"

log2=$(grep -l -E 'shard 2 of [0-9]+, restart' "$w2"/logs/* 2>/dev/null | head -n 1 || true)
if [[ -z $log2 ]]; then
    fail "no log of shard 2 in $w2/logs"
else
    starts=$(grep -cE 'shard 2 of [0-9]+, restart [0-9]+' "$log2" || true)
    last=$(grep -E 'shard 2 of [0-9]+, restart [0-9]+' "$log2" | tail -n 1 | sed -E 's/.*restart ([0-9]+).*/\1/')
    echo "  $log2: shard 2 started $starts times, restart count at last start $last"
    ((starts >= 2)) || fail "shard 2's log shows $starts start(s), not 2 (is the log appended to, --open-mode=append?)"
    ((last >= 1)) || fail "shard 2's last start has SLURM_RESTART_COUNT $last, not 1"
    # What the second run says it found in its store: `(N from the store)` in text,
    # "from_store": N in the JSON summary.
    after=$(awk '/shard 2 of [0-9]+, restart [1-9]/ { keep = 1; text = "" } keep { text = text $0 "\n" } END { printf "%s", text }' "$log2")
    found=$(grep -oE '\(([0-9]+) from the store\)|"from_store": *[0-9]+' <<<"$after" | grep -oE '[0-9]+' | head -n 1 || true)
    if [[ -z $found ]]; then
        fail "shard 2's second run does not say how many results came from its store"
    elif ((found < 1)); then
        fail "shard 2's second run found nothing in its store"
    elif ((found < n)); then
        fail "shard 2's second run took $(results "$found") from its store, which held $n before the requeue"
    else
        echo "  shard 2's second run took $(results "$found") from its store"
    fi
fi
if [[ -s $w2/report.json ]]; then
    compare_reports "$work/slow-baseline.json" "$w2/report.json" verdicts || fail "the slow class's merged verdicts differ from the grade on this machine"
fi

# 5. The figures.
echo
echo "== figures"
echo "  shards: $shards"
echo "  example class: array and merge $wall1 s"
echo "  slow class: on this machine $slow_base_wall s (--jobs 1); array and merge $wall2 s, with shard 2 requeued"
echo "  tasks of the example class:"
task_times "$w1"
echo "  tasks of the slow class:"
task_times "$w2"

echo
if ((failures > 0)); then
    echo "FAILED: $failures check(s)"
    exit 1
fi
echo "passed"
