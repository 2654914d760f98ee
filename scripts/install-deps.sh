#!/usr/bin/env bash
# Installs the Debian packages Kamera builds and renders with; does nothing
# when they are already there. Runs apt-get as root, or through sudo.
#   scripts/install-deps.sh           # building and running
#   scripts/install-deps.sh --tests   # also what the tests use (ffmpeg's kmsgrab reads the VM's screen, ffprobe checks recordings; exiftool reads EXIF, aplay/arecord play into the VM's loopback sound card; dpkg-dev, lintian and man-db check the package; zint and qrencode make the codes the detector reads)
#   scripts/install-deps.sh --package # dpkg-shlibdeps, for scripts/package-deb.sh
#   scripts/install-deps.sh --lintian # lintian, for scripts/package-deb.sh --lintian
#   scripts/install-deps.sh --bench   # also the peers `kamera bench` measures (ffmpeg, GStreamer GL under Xvfb, kmscube)
set -euo pipefail

packages=(
    pkg-config
    libegl-dev libgles2-mesa-dev libgbm-dev libdrm-dev libv4l-dev libpng-dev libturbojpeg0-dev libdeflate-dev   # headers (module maps)
    libavcodec-dev libavformat-dev libavutil-dev libswscale-dev libexif-dev libasound2-dev   # recording (FFmpeg's libraries), EXIF, sound (ALSA)
    libzxing-dev g++                                                             # codes (--detect codes: zxing-cpp, through a C++ shim)
    libopencv-objdetect-dev opencv-data                                          # faces (--detect faces: OpenCV's cascade classifier and its cascades)
    console-setup-linux                                                          # the console fonts overlay labels are drawn in
    libegl-mesa0 libgl1-mesa-dri                                                 # Mesa EGL + llvmpipe
    systemd                                                                      # systemd-analyze (the kiosk unit test)
)
[ "${1:-}" = --tests ] && packages+=(ffmpeg dpkg-dev lintian man-db libimage-exiftool-perl alsa-utils zint qrencode \
    curl chromium nginx libnginx-mod-rtmp ustreamer gstreamer1.0-tools gstreamer1.0-plugins-good \
    v4l2loopback-dkms)   # the server's real clients, a media server the tests start themselves, the stream bench's peer,
                         # GStreamer's v4l2src reading the virtual camera;
                         # v4l2loopback's source for the VM: run-in-vm installs it when missing, which on a fresh machine
                         # once failed on apt's lock held by another apt-get and lost the loopback VM tests
[ "${1:-}" = --package ] && packages+=(dpkg-dev)
[ "${1:-}" = --lintian ] && packages+=(lintian)
[ "${1:-}" = --bench ] && packages+=(ffmpeg gstreamer1.0-tools gstreamer1.0-gl gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gstreamer1.0-plugins-bad gstreamer1.0-opencv qrencode xvfb kmscube ustreamer)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}" >&2
# Packages with services (nginx) are installed without starting them: the tests start their own, on ports of their own.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod +x "$policy" && made_policy=1
fi
trap '[ "$made_policy" = 1 ] && $sudo rm -f "$policy"' EXIT
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
