#!/usr/bin/env bash
# Builds the tests with a sanitizer and runs those that need no VM (unit,
# real-GL and command-line tests; the kamera binary they run is built with the
# same sanitizer, so its render and exit paths are checked too). Any report
# fails the run. Left out unless KAMERA_SANITIZE_ALL=1: ExamplesTests and
# BenchTests (under ThreadSanitizer they took 9.5 of its 24 minutes, and the
# code they run is threaded the same way as in the tests that stay), and the
# tests whose work is on one thread: BadInputTests and NewUserTests (hundreds
# of runs that stop at a bad argument or file), RepackTests and the Bayer
# formulas (BayerTests' runs on several threads stay: frames split between
# them, a frame size that changes, white balance statistics per thread). CI's
# whole run must end within 90 minutes, and this pass is its second longest part.
#   scripts/sanitize.sh thread      # ThreadSanitizer (CI runs this one)
#   scripts/sanitize.sh address     # AddressSanitizer
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kind="${1:-thread}"
case "$kind" in thread|address) ;; *) echo "sanitize: use thread or address" >&2; exit 2 ;; esac
"$root/scripts/install-deps.sh"
cd "$root"
scratch=".build-$kind"
swift build --build-tests --sanitize="$kind" --scratch-path "$scratch" >&2
# Reports abort the process; suppressions name the uninstrumented system libraries (Mesa) only.
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/scripts/tsan.supp"
export ASAN_OPTIONS="halt_on_error=1 detect_leaks=0"
skips=(--skip VMTests)
[ "${KAMERA_SANITIZE_ALL:-0}" = 1 ] || for tests in ExamplesTests BenchTests BadInputTests NewUserTests RepackTests \
        'BayerTests/test(EveryFormatAndSetting|TheDemosaicShader|MIPIPacked|SmoothPictures|GrayWorld|RawBayerFiles|ColorDifference|BadBayer)'; do
    skips+=(--skip "$tests")
done
# The tests run the kamera built beside them, with the sanitizer (not a release build named by scripts/test.sh).
unset KAMERA_BINARY
swift test --skip-build --disable-swift-testing --sanitize="$kind" --scratch-path "$scratch" "${skips[@]}"
