#!/usr/bin/env bash
# The benchmark's set-up and run: installs the peers it measures beside Kamera
# (ffmpeg, GStreamer's GL elements and Xvfb for them, kmscube for the display
# section), builds in release mode and runs `kamera bench` with the arguments given.
#   scripts/bench.sh                          # everything
#   scripts/bench.sh --end-to-end-only        # raw file → sepia/cube → PNGs, beside ffmpeg and GStreamer
#   scripts/bench.sh --end-to-end-only --json > e2e.json
#   scripts/bench.sh --filters-only           # blur, sharpen, convolve, pixellate beside ffmpeg's filters
#   scripts/bench.sh --detection-only         # faces and codes beside GStreamer's facedetect, zxing and zbar; the preview with detection
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh" --bench
swift build --package-path "$root" -c release >&2
exec "$root/.build/release/kamera" bench --detection-media "$root/Tests/Media" "$@"
