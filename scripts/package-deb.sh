#!/usr/bin/env bash
# Builds kamera_VERSION_ARCH.deb with dpkg-deb: the binary (Swift's standard
# library linked in), man page, completions, examples and the kiosk unit
# (disabled), as scripts/install.sh lays them out under /usr. Depends is
# computed by dpkg-shlibdeps from the libraries the binary links, plus Mesa's
# EGL and llvmpipe drivers, which libEGL loads at run time; ffmpeg and kmscube
# are recommended (the docs pipe video to ffmpeg; kmscube is the display peer).
# Then lintian checks the package when it is installed (--lintian installs it).
#   scripts/package-deb.sh [OUTDIR] [--lintian]     # default OUTDIR: .build/deb; KAMERA_MAINTAINER="Name <mail>" names the maintainer
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/.build/deb"
lint=""
for a in "$@"; do case "$a" in --lintian) lint=1 ;; *) out="$a" ;; esac; done

"$root/scripts/install-deps.sh" --package
binary="$("$root/scripts/build-static.sh")/kamera"
version="$("$binary" --version)"
maintainer="${KAMERA_MAINTAINER:-Kamera maintainers <kamera@example.org>}"
arch="$(dpkg --print-architecture)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
stage="$work/kamera_${version}_${arch}"

DESTDIR="$stage" KAMERA_SKIP_BUILD=1 "$root/scripts/install.sh" /usr
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/usr/bin/kamera" "$stage/usr/lib/kamera/kamera-zxing-helper"
doc="$stage/usr/share/doc/kamera"
mkdir -p "$doc"
cat > "$doc/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: kamera
Comment: Built from the Kamera repository with scripts/package-deb.sh.

Files: *
Copyright: 2026 the Kamera authors
License: Kamera
 No licence has been chosen for Kamera yet; until one is, all rights are
 reserved by its authors. The example inputs under examples/ are made by the
 project itself (scripts/make-examples.sh), from its own test pattern.
COPYRIGHT
printf 'kamera (%s) unstable; urgency=low\n\n  * Built from the repository at %s.\n\n -- %s  %s\n' \
    "$version" "$version" "$maintainer" "$(date -R)" | gzip -9n > "$doc/changelog.gz"

# Depends: what dpkg-shlibdeps finds for the linked libraries.
mkdir -p "$work/shlibs/debian"
printf 'Source: kamera\n\nPackage: kamera\nArchitecture: any\n' > "$work/shlibs/debian/control"
depends="$(cd "$work/shlibs" && dpkg-shlibdeps -O -e "$stage/usr/bin/kamera" -e "$stage/usr/lib/kamera/kamera-zxing-helper" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
[ -n "$depends" ] || { echo "package-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
depends="$depends, libegl-mesa0, libgl1-mesa-dri"

mkdir -p "$stage/DEBIAN"
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum > DEBIAN/md5sums)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: kamera
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Recommends: ffmpeg, kmscube
Section: video
Priority: optional
Description: camera preview renderer for the Linux console and PNG
 Frames from a V4L2 camera, a built-in test pattern or a file go through
 OpenGL ES (Mesa's llvmpipe without a GPU) with colour-matrix and spatial
 filters and user shaders, to PNG, Y4M or full screen on the kernel
 console's display (DRM/KMS), with no X11 or Wayland. It is also a
 shader development harness for Shadertoy and glslViewer shaders.
CONTROL
mkdir -p "$out"
deb="$out/kamera_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
if [ -n "$lint" ]; then
    "$root/scripts/install-deps.sh" --lintian
    lintian --no-tag-display-limit "$deb" >&2 || { echo "package-deb: lintian found errors" >&2; exit 1; }
fi
