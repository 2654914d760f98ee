#!/usr/bin/env bash
# Builds the libFuzzer targets in Tests/Fuzz (with AddressSanitizer) and runs
# each: first every input of its committed corpus in Tests/Fuzz/Corpus once
# (the seeds and every input that once found a bug), then fuzzing from them for
# SECONDS (default 30). New inputs go to a scratch folder, not the committed
# corpus. Any crash, leak of a signal, hang or out-of-memory fails the run; the
# input that did it is kept under .build-fuzz/artifacts/. CI (scripts/test.sh)
# fuzzes 10 s a target; fuzz for longer here while working on a parser.
#   scripts/fuzz.sh            # every target, 30 s each
#   scripts/fuzz.sh 300 FuzzY4M
#   scripts/fuzz.sh --build    # only build them
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_only=0
[ "${1:-}" = --build ] && { build_only=1; shift; }
seconds="${1:-30}"; shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(FuzzY4M FuzzRawInput FuzzPNG FuzzFilters FuzzOutputPattern FuzzControlValue FuzzShaderSource FuzzCodes FuzzConsoleFont)
"$root/scripts/install-deps.sh"
scratch="$root/.build-fuzz"
# SwiftPM keeps the build plan of a path dependency: drop it so new files in Kamera are seen.
rm -f "$scratch/debug.yaml" "$scratch/debug/description.json"
swift build --package-path "$root/Tests/Fuzz" --scratch-path "$scratch" -c debug \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld >&2
bin="$(swift build --package-path "$root/Tests/Fuzz" --scratch-path "$scratch" -c debug --show-bin-path)"
[ "$build_only" = 1 ] && exit 0
summary="${KAMERA_TEST_REPORT:+$KAMERA_TEST_REPORT/fuzz-summary.txt}"
[ -n "$summary" ] && echo "== Fuzzing (scripts/fuzz.sh: the committed corpus replayed, then ${seconds} s a target) ==" > "$summary"
mkdir -p "$scratch/artifacts"
failed=()
for target in "${targets[@]}"; do
    work="$(mktemp -d)"
    corpus="$root/Tests/Fuzz/Corpus/$target"
    # Each committed input once (libFuzzer given files, not a folder, runs each and stops).
    mapfile -t files < <(find "$corpus" -type f | sort)
    if ! SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin/$target" "${files[@]}" -timeout=10 -rss_limit_mb=3072 \
            -artifact_prefix="$scratch/artifacts/$target-" > "$scratch/$target-replay.log" 2>&1; then
        failed+=("$target")
        tail -n 40 "$scratch/$target-replay.log" >&2
        rm -rf "$work"
        continue
    fi
    inputs=$(grep -c '^Executed ' "$scratch/$target-replay.log" || true)
    echo "fuzz: $target: ran its ${#files[@]} committed inputs ($inputs executed), then ${seconds}s of fuzzing" >&2
    [ "$inputs" = "${#files[@]}" ] || { failed+=("$target"); echo "fuzz: $target: $inputs of ${#files[@]} committed inputs ran" >&2; }
    # detect_leaks=0: Mesa and Foundation keep allocations until exit; leaks are not what this looks for.
    # SWIFT_BACKTRACE off: libFuzzer and ASan report crashes; Swift's backtracer would run under ASan too.
    if ! SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$bin/$target" "$work" "$root/Tests/Fuzz/Corpus/$target" \
            -max_total_time="$seconds" -timeout=10 -rss_limit_mb=3072 -max_len=65536 \
            -artifact_prefix="$scratch/artifacts/$target-" -print_final_stats=1 > "$scratch/$target.log" 2>&1; then
        failed+=("$target")
        tail -n 40 "$scratch/$target.log" >&2
    fi
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$scratch/$target.log" | sed "s/^/fuzz: $target /" >&2 || true
    if [ -n "$summary" ]; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$target.log")
        rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$scratch/$target.log")
        printf '%-18s %3d committed inputs replayed, %8s runs in %d s, peak %s MB\n' "$target" "$inputs" "${runs:-?}" "$seconds" "${rss:-?}" >> "$summary"
    fi
    rm -rf "$work"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: FAILED: ${failed[*]} (inputs in $scratch/artifacts)" >&2
    exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${seconds}s each, no crash" >&2
