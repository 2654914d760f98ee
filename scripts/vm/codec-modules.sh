#!/usr/bin/env bash
# Builds what the V4L2 decoder tests load into run-in-vm's VM, once per
# kernel, and prints the folder it is cached in:
#   v4l2-mem2mem.ko, vicodec.ko  Debian's kernel builds neither (CONFIG_V4L2_MEM2MEM_DEV
#                                and CONFIG_VIDEO_VICODEC are unset); vicodec is the
#                                kernel's own virtual codec, a stateful FWHT decoder;
#   v4l2loopback.ko              v4l2loopback with FWHT added to its formats, so a
#                                loopback camera can stream what vicodec decodes;
#   loopback-feed                writes one compressed frame to it, over and over.
# Installs the kernel headers and sources it builds from when they are missing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The kernel run-in-vm boots: the newest with an image and vivid.
kver=${RUN_IN_VM_KVER:-}
if [ -z "$kver" ]; then
    for v in $(ls /lib/modules 2>/dev/null | sort -V); do
        [ -e "/boot/vmlinuz-$v" ] && modinfo -k "$v" -F filename vivid >/dev/null 2>&1 && kver=$v
    done
fi
[ -n "$kver" ] || { echo "codec-modules: no kernel with vivid under /lib/modules; run shared/vm/run-in-vm once first" >&2; exit 1; }
majmin=$(echo "$kver" | cut -d. -f1,2)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/kamera-codec-modules/$kver
# What the modules are built from: this script, the feeder, and the versions of the sources and headers.
versions() { dpkg-query -W -f='${Package} ${Version}\n' "linux-headers-$kver" "linux-source-$majmin" v4l2loopback-dkms 2>/dev/null || true; }
stamp() { { cat "$here/codec-modules.sh" "$here/loopback-feed.c"; versions; } | sha1sum | cut -c1-12; }
if [ "$(cat "$cache/stamp" 2>/dev/null)" = "$(stamp)" ]; then echo "$cache"; exit 0; fi

sudo=""
# -n: a sudo that would ask for a password fails instead of waiting for one.
[ "$(id -u)" -eq 0 ] || sudo="sudo -n"
missing=()
for p in "linux-headers-$kver" "linux-source-$majmin" gcc make xz-utils; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "codec-modules: installing ${missing[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
        || { $sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
fi
loopback=$(printf '%s\n' /usr/src/v4l2loopback-[0-9]*/v4l2loopback.c | sort -V | tail -1)
if [ ! -r "$loopback" ]; then
    # Only its source is needed; its postinst builds for every installed kernel and may fail on one.
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends v4l2loopback-dkms >/dev/null 2>&1 || true
    loopback=$(printf '%s\n' /usr/src/v4l2loopback-[0-9]*/v4l2loopback.c | sort -V | tail -1)
fi
[ -r "$loopback" ] || { echo "codec-modules: no v4l2loopback source under /usr/src (install v4l2loopback-dkms)" >&2; exit 1; }

build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
echo "codec-modules: building v4l2-mem2mem, vicodec and v4l2loopback with FWHT for $kver (once; cached in $cache)" >&2
tar -xJf "/usr/src/linux-source-$majmin.tar.xz" -C "$build" \
    "linux-source-$majmin/drivers/media/v4l2-core/v4l2-mem2mem.c" --wildcards "linux-source-$majmin/drivers/media/test-drivers/vicodec/*"
mkdir "$build/codec" "$build/loopback"
cp "$build/linux-source-$majmin/drivers/media/v4l2-core/v4l2-mem2mem.c" "$build"/linux-source-"$majmin"/drivers/media/test-drivers/vicodec/*.[ch] "$build/codec/"
printf 'obj-m += v4l2-mem2mem.o vicodec.o\nvicodec-objs := vicodec-core.o codec-fwht.o codec-v4l2-fwht.o\n' > "$build/codec/Makefile"
cp -r "$(dirname "$loopback")"/. "$build/loopback/"
# Its format table (a list of initialisers, included into an array) gets FWHT at its end.
formats="$build/loopback/v4l2loopback_formats.h"
if ! grep -q V4L2_PIX_FMT_FWHT "$formats"; then
    grep -q 'FORMAT_FLAGS_COMPRESSED' "$formats" || { echo "codec-modules: $formats is not the format table this script knows" >&2; exit 1; }
    printf '\t{\n\t\t.name = "FWHT",\n\t\t.fourcc = V4L2_PIX_FMT_FWHT,\n\t\t.depth = 32,\n\t\t.flags = FORMAT_FLAGS_COMPRESSED,\n\t},\n' >> "$formats"
fi
{
    make -s -C "/lib/modules/$kver/build" M="$build/codec" modules
    make -s -C "/lib/modules/$kver/build" M="$build/loopback" modules
    gcc -O2 -Wall -o "$build/loopback-feed" "$here/loopback-feed.c"
} > "$build/log" 2>&1 || { tail -30 "$build/log" >&2; echo "codec-modules: the build failed" >&2; exit 1; }
# Put in place whole: a run beside this one sees the old folder or the new one, never half of one.
mkdir -p "$build/out" "$(dirname "$cache")"
cp "$build/codec/v4l2-mem2mem.ko" "$build/codec/vicodec.ko" "$build/loopback/v4l2loopback.ko" "$build/loopback-feed" "$build/out/"
stamp > "$build/out/stamp"
rm -rf "$cache.old"
[ -e "$cache" ] && mv "$cache" "$cache.old"
mv "$build/out" "$cache"
rm -rf "$cache.old"
echo "$cache"
