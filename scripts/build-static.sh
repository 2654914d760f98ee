#!/usr/bin/env bash
# Builds kamera and its zxing-cpp helper in release mode with Swift's standard
# library linked in, under .build/static, and prints the folder they are in.
# The Debian package ships these (scripts/package-deb.sh) and the tests run
# them (scripts/test.sh). Needs what scripts/install-deps.sh installs.
#   scripts/build-static.sh                 # → /path/to/.build/static/release
#   scripts/build-static.sh kamera-bench    # and other products beside them
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for product in kamera kamera-zxing-helper "$@"; do
    swift build -c release --static-swift-stdlib --package-path "$root" --scratch-path "$root/.build/static" --product "$product" >&2
done
echo "$root/.build/static/release"
