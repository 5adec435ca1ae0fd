#!/usr/bin/env bash
# Measures how the time of a proof grows with a loop bound or an array length, per engine
# and per solver, and prints one markdown table per family (for BENCHMARKS.md).
#
# Each family is a correct pair (expected `equivalent`) and a mutant whose right program
# differs by one instruction (expected `disequivalent`), made at several sizes:
#   sum     sum of 1..n by a loop vs n(n+1)/2, for n in 1..=N (0 outside); the programs
#           are examples/proofs/sum1000-*.asm with the bound 1000 replaced by N, for N in
#           10 30 100 300 1000 3000. The mutant's range check tests n + 1 > N: it differs
#           at n = N (a loop of about 3N steps) and at n = 2^31-1. The loop takes 3 steps
#           a trip plus 9, so n = 3000 ends after 9009 steps, within the fuel of 10000
#           steps passed to every row (checked with `tamarin run` before the benchmark).
#   triple  3n by a countdown loop of n trips vs mult, for n in 0..=N (0 outside); the
#           programs are examples/proofs/triple-*.asm with the bound 100 replaced by N,
#           for N in 10 30 100 300 1000 (at most 4N + 11 steps), fuel 10000. The mutant's
#           range check is n < N: it differs only at n = N.
#   asum, amax, aneg  the array pairs of examples/proofs as they are, with
#           `--frontend array --max-len L` for L in 2 4 8 16.
# The generated programs are checked with `tamarin run` (the correct pair agrees at the
# bound and just past it, the mutant differs at the bound) and kept in a temporary
# directory that is removed at exit (KEEP=1 keeps it and prints where it is).
#
# Every (family, size, engine, solver) runs
#   tamarin compare --format json --engine E --timeout LIMIT [--solver S] OPTIONS LEFT RIGHT
# on the correct pair and on the mutant. A cell of a table gives the verdict of the correct
# pair and the wall seconds, then the mutant's result and wall seconds:
#   equivalent 0.12        the correct pair was proved equivalent
#   open 30.0              possibly-equivalent (not proved within the limits, not wrong)
#   mutant ok 0.02         the mutant was found disequivalent
#   MUTANT MISSED 30.0     the mutant came out possibly-equivalent
#   **MUTANT PROVED EQUIVALENT**, **CORRECT PAIR DISEQUIVALENT**  unsound verdicts (also
#                          reported on standard error and at the end)
#   ERROR (exit N)         tamarin failed (exit status 2), was killed, printed no verdict,
#                          or its exit status contradicts its verdict
#
# Usage: scripts/bench-growth.sh
# Environment:
#   TAMARIN   the binary (default target/release/tamarin, relative to the repository root)
#   ENGINES   engines to try, separated by spaces or commas (default "concolic bmc auto")
#   SOLVERS   solvers to try (default z3, in process): z3, cvc5, yices, or a command line
#             that reads SMT-LIB 2 on standard input; separated by spaces, or by commas
#             when one of them is a command line with arguments ("z3,bitwuzla --smt2").
#             Any other than z3 is passed as `--solver S`; one whose program is not
#             installed (cvc5, yices-smt2, or the first word of the command line) is
#             skipped with a note.
#   LIMIT     the --timeout of each comparison, in seconds (default 30)
#   FAMILIES  families to run, separated by spaces or commas (default all:
#             "sum triple asum amax aneg")
#   ONLY      an extended regular expression: run only the sizes (N or L) that match,
#             e.g. ONLY='^(10|30|2|4)$'
#   KEEP      1 to keep the generated programs
# With the defaults, 138 comparisons of at most LIMIT seconds each (about 70 minutes at
# worst; much less when the proofs are quick).
# Exit status: 0 when no verdict is unsound and nothing failed (open pairs and missed
# mutants are results, not failures), 1 when a mutant was proved equivalent or a correct
# pair found disequivalent (even if some comparison also failed), 2 when some comparison
# ended in an error (or on bad usage, or when a generated program is wrong).
set -euo pipefail

caller_dir=$PWD
cd "$(dirname "$0")/.."
proofs=examples/proofs
all_families="sum triple asum amax aneg"

TAMARIN=${TAMARIN:-target/release/tamarin}
# A relative path given by the caller is relative to where the script was started.
if [[ $TAMARIN != /* && -e $caller_dir/$TAMARIN ]]; then
    TAMARIN=$caller_dir/$TAMARIN
fi
ENGINES=${ENGINES:-concolic bmc auto}
ENGINES=${ENGINES//,/ }
SOLVERS=${SOLVERS:-z3}
LIMIT=${LIMIT:-30}
FAMILIES=${FAMILIES:-$all_families}
FAMILIES=${FAMILIES//,/ }
ONLY=${ONLY:-}
KEEP=${KEEP:-}
# The fuel of the sum and triple rows (tamarin's default, written out so that the
# tables say what they measured).
FUEL=10000

sum_sizes="10 30 100 300 1000 3000"
triple_sizes="10 30 100 300 1000"
array_sizes="2 4 8 16"

die() {
    echo "bench-growth: $*" >&2
    exit 2
}

trim() {
    local s=$1
    s=${s#"${s%%[![:space:]]*}"}
    s=${s%"${s##*[![:space:]]}"}
    printf '%s' "$s"
}

[[ $# -eq 0 ]] || die "usage: [TAMARIN=path] [ENGINES=\"concolic bmc auto\"] [SOLVERS=\"z3 cvc5 yices\"] [LIMIT=30] [FAMILIES=\"$all_families\"] [ONLY=regex] [KEEP=1] $0"
[[ -x $TAMARIN ]] || die "no executable tamarin at '$TAMARIN' (set TAMARIN)"
[[ $LIMIT =~ ^[0-9]+$ ]] || die "LIMIT must be a whole number of seconds"
for f in $FAMILIES; do
    [[ " $all_families " == *" $f "* ]] || die "unknown family '$f' in FAMILIES (known: $all_families)"
done
[[ -n ${ENGINES// /} ]] || die "ENGINES is empty"

# The solvers, and the ones that can be used.
solvers=()
if [[ $SOLVERS == *,* ]]; then
    IFS=',' read -r -a raw_solvers <<<"$SOLVERS"
    for s in "${raw_solvers[@]}"; do
        s=$(trim "$s")
        [[ -n $s ]] && solvers+=("$s")
    done
else
    read -r -a solvers <<<"$SOLVERS"
fi
((${#solvers[@]} > 0)) || die "SOLVERS is empty"
usable_solvers=()
notes=()
for s in "${solvers[@]}"; do
    case $s in
        z3) prog= ;;
        cvc5) prog=cvc5 ;;
        yices) prog=yices-smt2 ;;
        *) read -r prog _ <<<"$s" ;;
    esac
    if [[ -n $prog ]] && ! command -v "$prog" >/dev/null 2>&1; then
        notes+=("solver '$s' skipped: the program '$prog' is not installed")
        echo "bench-growth: solver '$s' skipped: the program '$prog' is not installed" >&2
        continue
    fi
    usable_solvers+=("$s")
done
((${#usable_solvers[@]} > 0)) || die "none of the solvers in SOLVERS ('$SOLVERS') is installed"

# The columns: every engine with every solver.
col_engines=() col_solvers=()
for e in $ENGINES; do
    for s in "${usable_solvers[@]}"; do
        col_engines+=("$e") col_solvers+=("$s")
    done
done

have_timeout=false
command -v timeout >/dev/null && have_timeout=true
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-growth.XXXXXX")
errf=$work/stderr
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
    if [[ $KEEP == 1 ]]; then
        echo "bench-growth: the generated programs are kept in $work" >&2
    else
        rm -rf -- "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# instantiate SRC DST SIZE SED-SCRIPT: DST is SRC with the bound replaced by SIZE
# (by the sed script), after a comment that says so.
instantiate() {
    local src=$1 dst=$2 size=$3 script=$4
    {
        printf '; Generated by scripts/bench-growth.sh from %s with the bound %s.\n' "$src" "$size"
        sed -e "$script" "$src"
    } >"$dst"
}

# run_reg3 PROG R1 -> "STATUS $3" of `tamarin run` on $1 = R1 within the fuel.
run_reg3() {
    local out status r3
    out=$("$TAMARIN" run --format json --fuel "$FUEL" "--r1=$2" "$1" 2>"$errf") ||
        die "tamarin run $1 --r1 $2 failed: $(head -n 1 "$errf")"
    status=$(printf '%s' "$out" | grep -o '"status": *"[^"]*"' | head -n 1 | cut -d'"' -f4 || true)
    # shellcheck disable=SC2016 # the register $3, not an expansion
    r3=$(printf '%s' "$out" | grep -o '"\$3": *-\{0,1\}[0-9]*' | head -n 1 | sed 's/.*: *//' || true)
    printf '%s %s' "$status" "$r3"
}

# expect_run PROG R1 VALUE: the program ends within the fuel with $3 = VALUE.
expect_run() {
    local got
    got=$(run_reg3 "$1" "$2")
    [[ $got == "done $3" ]] ||
        die "generated program $1 is wrong: on \$1 = $2 it gave '$got', expected 'done $3' (within $FUEL steps)"
}

# setup FAMILY SIZE: sets left, right, mutant and opts (an array) for that row,
# generating the programs when the family has a bound.
setup() {
    local fam=$1 n=$2
    case $fam in
        sum)
            local b="$work/sum-$n"
            instantiate "$proofs/sum1000-loop.asm" "$b-loop.asm" "$n" "s/\\b1000\\b/$n/g"
            instantiate "$proofs/sum1000-closed.asm" "$b-closed.asm" "$n" "s/\\b1000\\b/$n/g"
            instantiate "$proofs/sum1000-closed-mutant.asm" "$b-closed-mutant.asm" "$n" \
                "s/\\b1000\\b/$n/g; s/sum1000-/sum-$n-/g"
            left=$b-loop.asm right=$b-closed.asm mutant=$b-closed-mutant.asm
            opts=(--fuel "$FUEL")
            local s=$((n * (n + 1) / 2))
            expect_run "$left" "$n" "$s"
            expect_run "$right" "$n" "$s"
            expect_run "$mutant" "$n" 0
            expect_run "$left" 1 1
            expect_run "$right" 1 1
            expect_run "$mutant" 1 1
            for p in "$left" "$right" "$mutant"; do
                expect_run "$p" $((n + 1)) 0
                expect_run "$p" 0 0
            done
            ;;
        triple)
            local b="$work/triple-$n" script
            # 101 (the bound plus one) and 300 (3 times the bound) appear in comments.
            script="s/\\b101\\b/$((n + 1))/g; s/\\b300\\b/$((3 * n))/g; s/\\b100\\b/$n/g"
            instantiate "$proofs/triple-loop.asm" "$b-loop.asm" "$n" "$script"
            instantiate "$proofs/triple-mult.asm" "$b-mult.asm" "$n" "$script"
            instantiate "$proofs/triple-mult-mutant.asm" "$b-mult-mutant.asm" "$n" \
                "$script; s/triple-mult\\.asm/triple-$n-mult.asm/g"
            left=$b-loop.asm right=$b-mult.asm mutant=$b-mult-mutant.asm
            opts=(--fuel "$FUEL")
            expect_run "$left" "$n" $((3 * n))
            expect_run "$right" "$n" $((3 * n))
            expect_run "$mutant" "$n" 0
            expect_run "$left" $((n - 1)) $((3 * (n - 1)))
            expect_run "$mutant" $((n - 1)) $((3 * (n - 1)))
            for p in "$left" "$right" "$mutant"; do
                expect_run "$p" $((n + 1)) 0
                expect_run "$p" 0 0
                expect_run "$p" -1 0
            done
            ;;
        asum) left=$proofs/asum-fwd.asm right=$proofs/asum-bwd.asm mutant=$proofs/asum-bwd-mutant.asm ;;
        amax) left=$proofs/amax-fwd.asm right=$proofs/amax-bwd.asm mutant=$proofs/amax-bwd-mutant.asm ;;
        aneg) left=$proofs/aneg-slt.asm right=$proofs/aneg-sltu.asm mutant=$proofs/aneg-sltu-mutant.asm ;;
    esac
    case $fam in
        asum | amax | aneg) opts=(--frontend array --max-len "$n") ;;
    esac
}

# shellcheck source=scripts/compare-lib.sh
source scripts/compare-lib.sh

n_proved=0 n_open=0 n_pair_unsound=0
n_caught=0 n_missed=0 n_mutant_unsound=0
n_error=0 n_runs=0
loud=()

# Prints the description and the header of a family's table.
table_head() {
    local fam=$1 i what opt_text
    case $fam in
        sum)
            what="sum of 1..n by a loop vs n(n+1)/2, n in 1..=N; mutant: the range check tests n + 1 > N (differs at n = N and n = 2^31-1)"
            opt_text="--fuel $FUEL sum-N-loop.asm sum-N-closed.asm (mutant: sum-N-closed-mutant.asm), from $proofs/sum1000-*.asm"
            ;;
        triple)
            what="3n by a countdown loop of n trips vs mult, n in 0..=N; mutant: the range check is n < N (differs only at n = N)"
            opt_text="--fuel $FUEL triple-N-loop.asm triple-N-mult.asm (mutant: triple-N-mult-mutant.asm), from $proofs/triple-*.asm"
            ;;
        *)
            setup "$fam" 0
            case $fam in
                asum) what="array sum, forward by index vs backward by pointer; mutant: loads p + 4" ;;
                amax) what="signed array maximum, forward vs backward; mutant: compares unsigned" ;;
                aneg) what="count of negative elements, slt vs sltu against 0x7FFFFFFF; mutant: threshold 0x80000000" ;;
            esac
            opt_text="--frontend array --max-len L $left $right (mutant: $mutant)"
            ;;
    esac
    echo "### $fam"
    echo
    echo "$what."
    echo "Each cell: \`tamarin compare --format json --engine E --timeout $LIMIT [--solver S] $opt_text\`;"
    echo "verdict of the correct pair and wall seconds, then the mutant's."
    echo
    local size_col=N
    [[ $fam == sum || $fam == triple ]] || size_col=L
    printf '| %s |' "$size_col"
    for i in "${!col_engines[@]}"; do
        printf ' %s/%s |' "${col_engines[i]}" "${col_solvers[i]}"
    done
    printf '\n| ---: |'
    for i in "${!col_engines[@]}"; do
        printf ' --- |'
    done
    printf '\n'
}

# Runs one size of a family and prints its row.
table_row() {
    local fam=$1 n=$2 i engine solver pair_cell mutant_cell where
    setup "$fam" "$n"
    printf '| %s |' "$n"
    for i in "${!col_engines[@]}"; do
        engine=${col_engines[i]} solver=${col_solvers[i]}
        where="$fam $n ($engine/$solver)"
        [[ -t 2 ]] && echo "bench-growth: $where ..." >&2

        run_compare "$engine" "$solver" "$left" "$right" "${opts[@]}"
        n_runs=$((n_runs + 1))
        if [[ -n $r_problem ]]; then
            pair_cell="ERROR (exit $r_rc)"
            n_error=$((n_error + 1))
            echo "bench-growth: ERROR in $where, correct pair: $r_problem" >&2
        else
            case $r_verdict in
                equivalent) pair_cell="equivalent $r_wall" n_proved=$((n_proved + 1)) ;;
                possibly-equivalent) pair_cell="open $r_wall" n_open=$((n_open + 1)) ;;
                *)
                    pair_cell="**CORRECT PAIR DISEQUIVALENT** $r_wall"
                    n_pair_unsound=$((n_pair_unsound + 1))
                    loud+=("$where: the correct pair was found disequivalent, a spurious counterexample")
                    echo "bench-growth: !!! UNSOUND: $where: the correct pair was found disequivalent" >&2
                    ;;
            esac
        fi

        run_compare "$engine" "$solver" "$left" "$mutant" "${opts[@]}"
        n_runs=$((n_runs + 1))
        if [[ -n $r_problem ]]; then
            mutant_cell="mutant ERROR (exit $r_rc)"
            n_error=$((n_error + 1))
            echo "bench-growth: ERROR in $where, mutant: $r_problem" >&2
        else
            case $r_verdict in
                disequivalent) mutant_cell="mutant ok $r_wall" n_caught=$((n_caught + 1)) ;;
                possibly-equivalent) mutant_cell="MUTANT MISSED $r_wall" n_missed=$((n_missed + 1)) ;;
                *)
                    mutant_cell="**MUTANT PROVED EQUIVALENT** $r_wall"
                    n_mutant_unsound=$((n_mutant_unsound + 1))
                    loud+=("$where: the mutant was proved equivalent, an unsound verdict")
                    echo "bench-growth: !!! UNSOUND: $where: the mutant was proved equivalent" >&2
                    ;;
            esac
        fi
        printf ' %s; %s |' "$pair_cell" "$mutant_cell"
    done
    printf '\n'
}

# selected_sizes FAMILY: sets selected to the sizes of the family that ONLY lets through.
selected_sizes() {
    local sizes n
    case $1 in
        sum) sizes=$sum_sizes ;;
        triple) sizes=$triple_sizes ;;
        *) sizes=$array_sizes ;;
    esac
    selected=()
    for n in $sizes; do
        [[ -n $ONLY && ! $n =~ $ONLY ]] && continue
        selected+=("$n")
    done
}

# Generates and checks every program first, so that a wrong one stops the script
# before any time is spent.
for fam in $FAMILIES; do
    selected_sizes "$fam"
    for n in ${selected[@]+"${selected[@]}"}; do
        setup "$fam" "$n"
    done
done

# The command line, so that the tables can be reproduced.
cmdline="TAMARIN=$TAMARIN ENGINES=\"$ENGINES\" SOLVERS=\"$SOLVERS\" LIMIT=$LIMIT FAMILIES=\"$FAMILIES\""
[[ -n $ONLY ]] && cmdline+=" ONLY='$ONLY'"
cmdline+=" scripts/bench-growth.sh"
version=$("$TAMARIN" --version 2>/dev/null | head -n 1 || true)
echo "## Proof time against loop bound and array length"
echo
echo "- Command: \`$cmdline\`"
echo "- Date: $(date '+%Y-%m-%d %H:%M:%S %z')"
echo "- Binary: ${version:-unknown version} ($TAMARIN)"
cpu=$(grep -m 1 '^model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- || true)
cpu=$(trim "$cpu")
echo "- Machine: ${cpu:+$cpu, }$(nproc 2>/dev/null || echo '?') CPUs, $(uname -sm)"
for note in ${notes[@]+"${notes[@]}"}; do
    echo "- Note: $note"
done
echo

t_start=$(date +%s)
for fam in $FAMILIES; do
    selected_sizes "$fam"
    ((${#selected[@]} > 0)) || continue
    table_head "$fam"
    for n in "${selected[@]}"; do
        table_row "$fam" "$n"
    done
    echo
done
t_end=$(date +%s)

echo "Summary: $n_runs comparisons in $((t_end - t_start)) s (limit $LIMIT s each);" \
    "correct pairs: $n_proved equivalent, $n_open open, $n_pair_unsound disequivalent (unsound);" \
    "mutants: $n_caught found, $n_missed missed, $n_mutant_unsound proved equivalent (unsound);" \
    "$n_error errors"
for l in ${loud[@]+"${loud[@]}"}; do
    echo "!!! UNSOUND: $l"
    echo "bench-growth: !!! UNSOUND: $l" >&2
done
if ((n_pair_unsound + n_mutant_unsound > 0)); then exit 1; fi
if ((n_error > 0)); then exit 2; fi
exit 0
