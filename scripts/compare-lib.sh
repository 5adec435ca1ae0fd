# shellcheck shell=bash
# shellcheck disable=SC2154,SC2034  # set by the caller / read by the caller
# Shared by the benchmark scripts (sourced, not run): one `tamarin compare` and what it
# said. The caller sets TAMARIN (the binary), LIMIT (seconds), have_timeout (true when
# timeout(1) exists) and errf (a file for standard error).
#
# run_compare ENGINE SOLVER LEFT RIGHT [OPTION...] runs
#   $TAMARIN compare --format json --engine ENGINE --timeout LIMIT [--solver SOLVER] OPTION... LEFT RIGHT
# (no --solver for `z3`, the in-process default) and sets:
#   r_verdict  the report's verdict (empty when there is none)
#   r_rc       the exit status
#   r_wall     the wall-clock seconds, two decimals
#   r_problem  empty when the exit status agrees with the verdict (0 equivalent,
#              1 disequivalent, 3 or 0 possibly-equivalent), else what went wrong
run_compare() {
    local engine=$1 solver=$2 l=$3 r=$4 start end out
    shift 4
    local cmd=("$TAMARIN" compare --format json --engine "$engine" --timeout "$LIMIT")
    [[ $solver != z3 ]] && cmd+=(--solver "$solver")
    cmd+=("$@" "$l" "$r")
    # A guard in case the tool does not stop at its own time limit.
    $have_timeout && cmd=(timeout -k 10 $((2 * LIMIT + 60)) "${cmd[@]}")
    start=$(date +%s.%N)
    r_rc=0
    out=$("${cmd[@]}" 2>"$errf") || r_rc=$?
    end=$(date +%s.%N)
    r_wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
    r_verdict=$(printf '%s' "$out" | grep -o '"verdict": *"[^"]*"' | head -n 1 | cut -d'"' -f4 || true)
    r_problem=
    case "$r_rc:$r_verdict" in
        0:equivalent | 1:disequivalent | 3:possibly-equivalent | 0:possibly-equivalent) ;;
        2:*) r_problem="exit 2: $(head -n 1 "$errf")" ;;
        124:* | 137:*) r_problem="killed after $r_wall s (exit $r_rc)" ;;
        *:) r_problem="exit $r_rc, no verdict: $(head -n 1 "$errf")" ;;
        *) r_problem="verdict $r_verdict with exit $r_rc" ;;
    esac
}
