#!/usr/bin/env bash
# Builds the tests with a sanitizer and runs them; the kamera binary they run
# is built with the same sanitizer, so its render, stop and exit paths are
# checked too. Any report fails the run.
#
# ThreadSanitizer runs the tests that exercise more than one thread, as
# scripts/threaded-tests.sh finds them in the sources (its rule: threads,
# queues and the Kamera types that start them named in the test's code,
# signals, running kamera processes); AddressSanitizer runs every test that
# needs no VM. KAMERA_SANITIZE_ALL=1 runs every such test under either.
#   scripts/sanitize.sh thread           # build, then run (CI runs this one, in two stages)
#   scripts/sanitize.sh thread --build   # only build
#   scripts/sanitize.sh thread --test [SWIFT-TEST-OPTIONS...]   # only run (after --build)
#   scripts/sanitize.sh address          # AddressSanitizer
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kind="${1:-thread}"
case "$kind" in thread|address) ;; *) echo "sanitize: use thread or address" >&2; exit 2 ;; esac
shift || true
build=1 test=1
case "${1:-}" in
    --build) test=0; shift ;;
    --test) build=0; shift ;;
esac
cd "$root"
scratch=".build-$kind"
if [ "$build" = 1 ]; then
    "$root/scripts/install-deps.sh"
    # Optimized, as kamera ships: under ThreadSanitizer a debug build made the threaded tests take
    # 423 s against 202 s (the CPU conversions and encoders of each kamera run they start), for
    # 148 s more building; -enable-testing keeps the tests' @testable imports.
    swift build -c release -Xswiftc -enable-testing --build-tests --sanitize="$kind" --scratch-path "$scratch" >&2
fi
[ "$test" = 1 ] || exit 0
# Reports abort the process; suppressions name the uninstrumented system libraries (Mesa) only.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/scripts/tsan.supp"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=0"
selection=(--skip VMTests)
if [ "$kind" = thread ] && [ "${KAMERA_SANITIZE_ALL:-0}" != 1 ]; then
    selection=()
    while IFS= read -r test; do
        case "$test" in
            */*) selection+=(--filter "^KameraTests\\.${test%%/*}/${test#*/}\$") ;;
            *) selection+=(--filter "^KameraTests\\.$test/") ;;
        esac
    done < <("$root/scripts/threaded-tests.sh" "$root")
    [ ${#selection[@]} -gt 0 ] || { echo "sanitize: scripts/threaded-tests.sh found no threaded test" >&2; exit 1; }
    echo "sanitize: $(( ${#selection[@]} / 2 )) threaded test classes and methods (scripts/threaded-tests.sh)" >&2
fi
# The tests run the kamera built beside them, with the sanitizer (not a release build named by scripts/test.sh).
unset KAMERA_BINARY
swift test -c release --skip-build --disable-swift-testing --sanitize="$kind" --scratch-path "$scratch" "${selection[@]}" "$@"
