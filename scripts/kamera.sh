#!/usr/bin/env bash
# The main job: installs what Kamera needs, builds it in release mode and runs
# `kamera` with the given arguments (default: render the test pattern to kamera.png).
#   scripts/kamera.sh                      # → kamera.png
#   scripts/kamera.sh render --cube -o cube.png
#   scripts/kamera.sh bench                # builds kamera-bench too
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
swift build -c release --package-path "$root" --product kamera >&2
# The small program zxing-cpp runs in for --detect codes (without it Kamera starts itself instead, more slowly).
swift build -c release --package-path "$root" --product kamera-zxing-helper >&2
# `kamera bench` runs its own executable, built beside kamera only when asked for.
[ "${1:-}" = bench ] && swift build -c release --package-path "$root" --product kamera-bench >&2
[ $# -eq 0 ] && set -- render -o kamera.png
exec "$root/.build/release/kamera" "$@"
