#!/usr/bin/env bash
# Runs the fuzz targets one after another, each for SECONDS (default 1800), niced,
# with logs in fuzz/logs/<target>.log. Usage: fuzz/run-campaign.sh [target...]
set -uo pipefail
cd "$(dirname "$0")"
secs=${SECONDS_PER_TARGET:-1800}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(assemble load_and_run compare)
mkdir -p logs
for t in "${targets[@]}"; do
    case $t in
        compare) per_input=60 ;;
        *) per_input=10 ;;
    esac
    mkdir -p "corpus/$t"
    echo "== $t: $(date -u +%FT%TZ), ${secs}s" >"logs/$t.log"
    RUSTC_BOOTSTRAP=1 timeout $((secs + 100)) nice -n 10 \
        cargo fuzz run "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=4096 -timeout="$per_input" \
        -print_final_stats=1 >>"logs/$t.log" 2>&1
    echo "== $t: exit $? at $(date -u +%FT%TZ)" >>"logs/$t.log"
done
