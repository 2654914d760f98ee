#!/usr/bin/env bash
# The whole test suite: installs what Kamera needs, builds in debug mode and
# runs every test (real Mesa EGL/GLES rendering, llvmpipe without a GPU; the
# camera and display tests in the VM; kamera run as a process in its release
# build), then the tests that need no VM under ThreadSanitizer (kamera built
# with it too), then each libFuzzer target for a bounded time.
#   KAMERA_FUZZ_SECONDS=30 (default) sets the time per fuzz target.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh" --tests
cd "$root"
swift build --build-tests
# The tests run the release build of kamera that the Debian package ships (a
# debug build takes about twice as long per run in the emulated VM); the
# library code they call in process is the debug build.
release="$("$root/scripts/build-static.sh" kamera-bench)"
KAMERA_BINARY="$release/kamera" swift test --skip-build --disable-swift-testing
"$root/scripts/sanitize.sh" thread
"$root/scripts/fuzz.sh" "${KAMERA_FUZZ_SECONDS:-30}"
