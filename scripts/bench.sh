#!/usr/bin/env bash
# The benchmark's set-up and run: installs the peers it measures beside Kamera
# (ffmpeg, GStreamer's GL elements and Xvfb for them, kmscube for the display
# section), builds in release mode and runs `kamera bench` with the arguments given.
#   scripts/bench.sh                          # everything
#   scripts/bench.sh --end-to-end-only        # raw file → sepia/cube → PNGs, beside ffmpeg and GStreamer
#   scripts/bench.sh --end-to-end-only --json > e2e.json
#   scripts/bench.sh --filters-only           # blur, sharpen, convolve, pixellate beside ffmpeg's filters
#   scripts/bench.sh --detection-only         # faces and codes beside GStreamer's facedetect, zxing and zbar; the preview with detection
#   scripts/bench.sh --formats-only --end-to-end-frames 20 --end-to-end-runs 3   # the repacked formats (UYVY, NV21, YU12, Y16, ...) beside ffmpeg and GStreamer
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh" --bench
swift build --package-path "$root" -c release >&2
# scikit-image's LFW subset, for the face models' count: from Debian's python3-skimage, unpacked, not installed.
face_set="$root/.build/face-set/lfw_subset.npy"
if [ ! -s "$face_set" ]; then
  unpack="$(mktemp -d)"
  if (cd "$unpack" && apt-get download python3-skimage >/dev/null 2>&1 \
      && dpkg-deb --fsys-tarfile python3-skimage_*.deb | tar -x -O --wildcards '*/skimage/data/lfw_subset.npy' > lfw_subset.npy); then
    mkdir -p "$(dirname "$face_set")" && mv "$unpack/lfw_subset.npy" "$face_set"
  else
    echo "bench.sh: could not take lfw_subset.npy from python3-skimage; the face models' count is left out" >&2
  fi
  rm -rf "$unpack"
fi
exec "$root/.build/release/kamera" bench --detection-media "$root/Tests/Media" --face-set "$face_set" "$@"
