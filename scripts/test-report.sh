#!/usr/bin/env bash
# Prints where a test run's time went, from what scripts/test.sh kept in
# REPORT (default .build/test-report): each stage with its seconds and
# result, each VM boot and its steps, the 20 slowest test cases, and the
# test cases each stage ran. Writes cases.tsv there too (stage, class,
# test cases), to compare one run's counts with another's.
#   scripts/test-report.sh [REPORT]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
report="${1:-$root/.build/test-report}"
[ -d "$report" ] || { echo "test-report: no report in $report (scripts/test.sh writes one)" >&2; exit 1; }

echo
echo "== Where the time went (scripts/test.sh, $report) =="
if [ -f "$report/stages.tsv" ]; then
    awk -F'\t' '{ printf "%-28s %7d s  %s\n", $1, $2, ($3 == 0 ? "ok" : "FAILED (exit " $3 ")"); total += $2 }
        END { printf "%-28s %7d s  (%d min %d s; stages side by side count each)\n", "stages summed", total, total / 60, total % 60 }' "$report/stages.tsv"
    [ -f "$report/wall-seconds" ] && awk '{ printf "%-28s %7d s  (%d min %d s), scripts/test.sh from start to end\n", "wall clock", $1, $1 / 60, $1 % 60 }' "$report/wall-seconds"
fi

if [ -s "$report/vm-steps.tsv" ]; then
    echo
    echo "== VM boots and their steps (seconds, exit status) =="
    awk -F'\t' '$2 == "(boot)" { printf "boot %-22s %7.1f s\n", $1, $4; next }
        { printf "  %-26s %7.1f s  %s\n", $1 "/" $2, $4, ($3 == 0 ? "ok" : "FAILED (exit " $3 ")") }' "$report/vm-steps.tsv"
fi

# "Test Case 'Class.test' passed (1.234 seconds)." → seconds, stage, name, result
cases() {
    for log in "$report"/*.log; do
        [ -f "$log" ] || continue
        local stage; stage="$(basename "$log" .log)"
        sed -nE "s/^Test Case '([^']*)' (passed|failed|skipped) \(([0-9.]+) seconds\).*/\3\t$stage\t\1\t\2/p" "$log"
    done | awk -F'\t' '{ last[$2 "\t" $3] = $0 } END { for (k in last) print last[k] }'
}
# (A test's line can appear twice: a failure's message may quote the log of a test run in the VM; the last is its own.)
all="$(cases)"
if [ -n "$all" ]; then
    echo
    echo "== The 20 slowest test cases =="
    printf '%s\n' "$all" | sort -t$'\t' -k1,1 -g -r | head -20 | awk -F'\t' '{ printf "%8.1f s  %-8s %s%s\n", $1, $2, $3, ($4 == "passed" ? "" : "  (" $4 ")") }'
    printf '%s\n' "$all" | awk -F'\t' '{ split($3, p, "."); n[$2 "\t" p[1]]++ } END { for (k in n) print k "\t" n[k] }' | sort > "$report/cases.tsv"
    echo
    echo "== Test cases run, by stage (by class: $report/cases.tsv) =="
    printf '%s\n' "$all" | awk -F'\t' '{ n[$2]++; if ($4 == "failed") f[$2]++; if ($4 == "skipped") s[$2]++ }
        END { for (k in n) printf "%-8s %4d test cases, %d failed, %d skipped\n", k, n[k], f[k], s[k] }' | sort
fi
for log in "$report"/fuzz-*.txt; do
    [ -f "$log" ] && { echo; cat "$log"; }
done
exit 0
