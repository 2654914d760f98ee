#!/usr/bin/env bash
# The whole test suite: installs what Kamera needs, builds in debug mode and
# runs every test (real Mesa EGL/GLES rendering, llvmpipe without a GPU).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
cd "$root"
swift build --build-tests
swift test --skip-build --disable-swift-testing
