#!/usr/bin/env bash
# Runs every row of examples/proofs/pairs.txt (the table of examples/proofs/EXPECTED.md)
# through `tamarin compare --format json` and prints a markdown table: row, engine,
# expected verdict, verdict, wall seconds, and a result:
#   OK     the verdict is the expected one
#   open   possibly-equivalent for a correct pair (not proved, not wrong)
#   WRONG  a mutant that is not disequivalent, or a verdict that contradicts the
#          expectation (a mutant proved equivalent, a correct pair found disequivalent:
#          these are also reported on standard error)
#   ERROR  tamarin failed (exit status 2), was killed, or printed no verdict
#
# Usage: scripts/bench-proofs.sh              run the table
#        scripts/bench-proofs.sh --expected   print EXPECTED.md, generated from pairs.txt
# Environment:
#   TAMARIN  the binary (default target/release/tamarin, relative to the repository root)
#   ENGINES  engines to try, separated by spaces or commas (default auto)
#   LIMIT    the --timeout of each comparison, in seconds (default 60)
#   ONLY     an extended regular expression: run only the rows whose id matches
# Exit status: 0 when every result is OK or open, 1 when some result is WRONG, 2 when
# some comparison ended in an error (or on bad usage).
set -euo pipefail

caller_dir=$PWD
cd "$(dirname "$0")/.."
dir=examples/proofs
pairs=$dir/pairs.txt

TAMARIN=${TAMARIN:-target/release/tamarin}
# A relative path given by the caller is relative to where the script was started.
if [[ $TAMARIN != /* && -e $caller_dir/$TAMARIN ]]; then
    TAMARIN=$caller_dir/$TAMARIN
fi
ENGINES=${ENGINES:-auto}
ENGINES=${ENGINES//,/ }
LIMIT=${LIMIT:-60}
ONLY=${ONLY:-}

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

# Reads pairs.txt into the arrays ids, exps, lefts, rights, optss, descs.
ids=() exps=() lefts=() rights=() optss=() descs=()
while IFS= read -r line || [[ -n $line ]]; do
    [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
    IFS='|' read -r id exp left right opts desc <<<"$line"
    id=$(trim "$id") exp=$(trim "$exp") left=$(trim "$left") right=$(trim "$right")
    opts=$(trim "$opts") desc=$(trim "$desc")
    case $exp in
        equivalent | disequivalent) ;;
        *) echo "bench-proofs: $pairs: row '$id': expected verdict '$exp' is neither equivalent nor disequivalent" >&2; exit 2 ;;
    esac
    for f in "$left" "$right"; do
        [[ -f $dir/$f ]] || { echo "bench-proofs: $pairs: row '$id': no file $dir/$f" >&2; exit 2; }
    done
    ids+=("$id") exps+=("$exp") lefts+=("$left") rights+=("$right") optss+=("$opts") descs+=("$desc")
done <"$pairs"

command_line() { # index -> the command line as written in EXPECTED.md
    local i=$1 c="tamarin compare"
    [[ -n ${optss[i]} ]] && c+=" ${optss[i]}"
    printf '%s %s/%s %s/%s' "$c" "$dir" "${lefts[i]}" "$dir" "${rights[i]}"
}

if [[ ${1:-} == --expected ]]; then
    cat <<'EOF'
# Equivalence proofs through loops, arrays and hard arithmetic

Each family computes one function in two ways (the left and right programs of an
`equivalent` row); the `-mutant` file of a family is its right program with exactly one
instruction changed, so that it computes something different on some inputs that run
within the fuel (a `disequivalent` row). The programs follow ../../docs/cs241-mips.md:
inputs in `$1` (and `$2`), or an array at `$1` of length `$2` with `--frontend array`;
result in `$3`, or the bytes written to standard output with `--observe output`.
The default fuel of 10000 steps is assumed everywhere; every correct program ends
within it on its whole domain, except where a row says the fuel is the bound (there,
runs that go out of fuel are never a difference, by the rules of a comparison).

`equivalent` is the expected verdict of every correct pair, whether or not a given
version of the tool proves it: `possibly-equivalent` there is an open problem, not a
wrong answer. A mutant found anything but `disequivalent` is a miss, and a mutant found
`equivalent` is an unsound answer.

This file is generated from pairs.txt by `scripts/bench-proofs.sh --expected`; the same
script runs every row (`TAMARIN=path ENGINES="auto bmc" LIMIT=60 scripts/bench-proofs.sh`,
which adds `--format json --engine E --timeout LIMIT` to each command line).
Command lines are run from the repository root.

| row | command | expected | description |
| --- | --- | --- | --- |
EOF
    for i in "${!ids[@]}"; do
        printf '| %s | `%s` | %s | %s |\n' "${ids[i]}" "$(command_line "$i")" "${exps[i]}" "${descs[i]}"
    done
    exit 0
fi
[[ $# -eq 0 ]] || { echo "usage: [TAMARIN=path] [ENGINES=\"auto bmc\"] [LIMIT=60] [ONLY=regex] $0 [--expected]" >&2; exit 2; }

[[ -x $TAMARIN ]] || { echo "bench-proofs: no executable tamarin at '$TAMARIN' (set TAMARIN)" >&2; exit 2; }
[[ $LIMIT =~ ^[0-9]+$ ]] || { echo "bench-proofs: LIMIT must be a whole number of seconds" >&2; exit 2; }
have_timeout=false
command -v timeout >/dev/null && have_timeout=true
errf=$(mktemp)
# shellcheck source=scripts/compare-lib.sh
source scripts/compare-lib.sh
trap 'rm -f "$errf"' EXIT

n_ok=0 n_open=0 n_wrong=0 n_error=0
loud=()
echo "| row | engine | expected | verdict | wall s | result |"
echo "| --- | --- | --- | --- | --- | --- |"
for i in "${!ids[@]}"; do
    id=${ids[i]} exp=${exps[i]}
    [[ -n $ONLY && ! $id =~ $ONLY ]] && continue
    read -r -a opts <<<"${optss[i]}"
    for engine in $ENGINES; do
        run_compare "$engine" z3 "$dir/${lefts[i]}" "$dir/${rights[i]}" "${opts[@]}"
        rc=$r_rc wall=$r_wall verdict=$r_verdict problem=$r_problem
        if [[ -n $problem ]]; then
            result=ERROR
            n_error=$((n_error + 1))
            echo "bench-proofs: ERROR in row $id ($engine): $problem" >&2
            verdict="error (exit $rc)"
        elif [[ $verdict == "$exp" ]]; then
            result=OK
            n_ok=$((n_ok + 1))
        elif [[ $exp == equivalent && $verdict == possibly-equivalent ]]; then
            result=open
            n_open=$((n_open + 1))
        else
            n_wrong=$((n_wrong + 1))
            if [[ $exp == disequivalent && $verdict == equivalent ]]; then
                result="**WRONG: MUTANT PROVED EQUIVALENT**"
                loud+=("row $id ($engine): a mutant was proved equivalent, an unsound verdict")
            elif [[ $exp == equivalent && $verdict == disequivalent ]]; then
                result="**WRONG: CORRECT PAIR FOUND DISEQUIVALENT**"
                loud+=("row $id ($engine): a correct pair was found disequivalent, a spurious counterexample")
            else
                result="WRONG (mutant missed)"
            fi
        fi
        printf '| %s | %s | %s | %s | %s | %s |\n' "$id" "$engine" "$exp" "$verdict" "$wall" "$result"
    done
done
echo
echo "OK $n_ok, open $n_open, WRONG $n_wrong, ERROR $n_error (limit ${LIMIT} s per comparison)"
for l in ${loud[@]+"${loud[@]}"}; do
    echo "!!! UNSOUND: $l"
    echo "bench-proofs: !!! UNSOUND: $l" >&2
done
if ((n_error > 0)); then exit 2; fi
if ((n_wrong > 0)); then exit 1; fi
exit 0
