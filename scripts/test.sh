#!/usr/bin/env bash
# The whole test suite, in timed stages: installs what Kamera needs, builds,
# runs every test (real Mesa EGL/GLES rendering, llvmpipe without a GPU; the
# camera and display tests in a few VM boots; kamera run as a process in its
# release build), the threaded test classes under ThreadSanitizer, and the
# libFuzzer targets. At the end, pass or fail, it prints where the time went
# (scripts/test-report.sh): each stage, each VM boot and step, the 20 slowest
# test cases and the count of test cases each stage ran; the logs, XCTest's
# xUnit files and the tables stay in .build/test-report/.
#
# What each build is for, each made once:
#   debug, .build            the test binary: library code tested in process
#   release, .build/static   kamera as the Debian package ships it, which the
#                            tests run as a process (in the VM too: a debug
#                            build takes twice as long under emulation), with
#                            kamera-bench beside it, which `kamera bench` runs
#                            (BenchTests, DisplayVMTests)
#   thread, .build-thread    ThreadSanitizer: the tests and kamera built with
#                            it, for the classes that exercise threads
#   fuzz, .build-fuzz        libFuzzer with AddressSanitizer: each target
#                            replays its committed corpus, then fuzzes briefly
#
#   scripts/test.sh            # everything: what CI runs (.ci/run)
#   scripts/test.sh --quick    # the loop while working: the debug and release builds
#                              # and the tests that need no VM; no sanitizer, no fuzzing
#   KAMERA_FUZZ_SECONDS=5 (default) sets the fuzzing time per target after the
#   replay; scripts/fuzz.sh 300 fuzzes for longer.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
quick=0
case "${1:-}" in
    "") ;;
    --quick) quick=1 ;;
    *) echo "test.sh: unknown option $1; use --quick, or nothing for the whole suite" >&2; exit 2 ;;
esac
cd "$root"
report="$root/.build/test-report"
rm -rf "$report"
mkdir -p "$report"
export KAMERA_TEST_REPORT="$report"
beside_pid=
trap '[ -z "$beside_pid" ] || kill -TERM -- "-$beside_pid" 2>/dev/null; echo "$SECONDS" > "$report/wall-seconds"; "$root/scripts/test-report.sh" "$report"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# stage NAME COMMAND...: runs COMMAND, its output to the terminal and to
# NAME.log, and records its seconds and exit status; a failure ends the run.
stage() {
    local name=$1 start=$SECONDS status=0
    shift
    echo "== $name: $*" >&2
    "$@" 2>&1 | tee "$report/$name.log" || status=$?
    printf '%s\t%d\t%d\n' "$name" $((SECONDS - start)) "$status" >> "$report/stages.tsv"
    return "$status"
}

# beside NAME COMMAND...: runs COMMAND as a stage in the background, in a
# process group of its own (ended with the script), its output to NAME.log
# only; `joined NAME` waits for it, prints that output and gives its status.
beside() {
    local name=$1
    shift
    echo "== $name, beside what follows (its output comes when it ends): $*" >&2
    setsid bash -c 'start=$SECONDS status=0; "${@:3}" > "$1/$2.log" 2>&1 || status=$?
        printf "%s\t%d\t%d\n" "$2" $((SECONDS - start)) "$status" > "$1/$2.stage"; exit "$status"' _ "$report" "$name" "$@" &
    beside_pid=$!
}

joined() {
    local name=$1 status=0
    wait "$beside_pid" || status=$?
    beside_pid=
    echo "== $name ended (exit $status), its output:" >&2
    cat "$report/$name.log" >&2
    cat "$report/$name.stage" >> "$report/stages.tsv" 2>/dev/null || printf '%s\t0\t%d\n' "$name" "$status" >> "$report/stages.tsv"
    return "$status"
}

stage install "$root/scripts/install-deps.sh" --tests
stage build-debug swift build --build-tests
# The tests run the release build of kamera (see above); the library code
# they call in process is the debug build.
stage build-release "$root/scripts/build-static.sh" kamera-bench
export KAMERA_BINARY="$(tail -n 1 "$report/build-release.log")/kamera"
[ -x "$KAMERA_BINARY" ] || { echo "test.sh: no release kamera at $KAMERA_BINARY" >&2; exit 1; }
[ "$quick" = 1 ] && { stage tests swift test --skip-build --ignore-lock --disable-swift-testing --skip VMTests --xunit-output "$report/tests.xml"; exit; }
# Every build first, as each build keeps both cores busy; then the VM's tests
# (its boots one after another) beside the host's runs, one after another:
# the tests, the threaded classes under ThreadSanitizer and the fuzzing. The
# emulated VM keeps about 1.3 of the 2 cores busy and a host run about 0.7;
# side by side each VM step took 5-10% longer, and the VM's boots are the
# longest stage, so the host's runs cost the wall clock only that. (Two VM
# boots side by side did not pay: each of their steps took 1.5 to 2 times as
# long, the run 2,633 s against 2,651 s. Builds beside the VM, even at the
# lowest priority, slowed its longest step from 181 s to 317 s, more than the
# builds' 143 s.)
stage build-thread "$root/scripts/sanitize.sh" thread --build
stage build-fuzz "$root/scripts/fuzz.sh" --build
beside vm swift test --skip-build --ignore-lock --disable-swift-testing --filter VMTests --xunit-output "$report/vm.xml"
tests=0 thread=0 fuzz=0 vm=0
stage tests swift test --skip-build --ignore-lock --disable-swift-testing --skip VMTests --xunit-output "$report/tests.xml" || tests=$?
# The threaded classes run the ThreadSanitizer build of kamera, not the release one.
stage thread env -u KAMERA_BINARY "$root/scripts/sanitize.sh" thread --test --xunit-output "$report/thread.xml" || thread=$?
stage fuzz "$root/scripts/fuzz.sh" "${KAMERA_FUZZ_SECONDS:-5}" || fuzz=$?
joined vm || vm=$?
[ "$tests" = 0 ] && [ "$thread" = 0 ] && [ "$fuzz" = 0 ] && [ "$vm" = 0 ]
