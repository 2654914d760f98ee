#!/usr/bin/env bash
# Makes the example inputs under Examples/Media, all from Kamera's own test
# pattern (so they are the project's own work, under its licence), with kamera,
# ffmpeg and qrencode. Run it from a clone after building; the files are committed, so
# users never need to.
#   scripts/make-examples.sh [KAMERA]   (default .build/debug/kamera)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kamera="${1:-$root/.build/debug/kamera}"
media="$root/Examples/Media"
mkdir -p "$media"
cd "$media"
"$kamera" render --crop none --size 320x180 -o photo.png
# photo.jpg: the same picture stored a quarter turn counter-clockwise, with EXIF
# orientation 6 ("turn it clockwise to view"): Kamera reads it upright.
ffmpeg -v error -y -i photo.png -vf transpose=2 -q:v 2 -f mjpeg stored.jpg
{
  head -c 2 stored.jpg
  # APP1, 34 bytes: "Exif\0\0", big-endian TIFF header, one IFD entry: 0x0112 SHORT 1 = 6.
  printf '\xff\xe1\x00\x22Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00\x06\x00\x00\x00\x00\x00\x00'
  tail -c +3 stored.jpg
} > photo.jpg
rm stored.jpg
"$kamera" render --crop none --size 192x108 --frames 12 -o clip.y4m
"$kamera" render --format yuyv --input-size 320x180 --frames 2 --save-input raw.yuv -o "$(mktemp -d)/ignored-%d.png"
ffmpeg -v error -y -f lavfi -i "color=gray:s=64x64,noise=alls=100:allf=t,format=rgb24" -frames:v 1 noise.png
# ticket.png: a QR code (Debian's qrencode) on a white 320x240 card, for --detect codes.
qrencode -o qr.png -s 4 -m 2 "KAMERA-TICKET-0042"
ffmpeg -v error -y -f lavfi -i color=white:s=320x240 -i qr.png -filter_complex "overlay=140:60,format=rgb24" -frames:v 1 ticket.png
rm qr.png
ls -l "$media"
# photo.bggr10: photo.png as a raw sensor would see it: linear light, a warm cast
# (red 0.6, blue 0.75 of green), 10-bit BGGR mosaic with a black level of 64.
ffmpeg -v error -y -i photo.png -f rawvideo -pix_fmt rgb24 photo.rgb
python3 - <<'PY'
import numpy as np
rgb = np.fromfile("photo.rgb", np.uint8).reshape(180, 320, 3) / 255
linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4) * [0.6, 1, 0.75]
mosaic = np.empty((180, 320))
mosaic[0::2, 0::2] = linear[0::2, 0::2, 2]
mosaic[0::2, 1::2] = linear[0::2, 1::2, 1]
mosaic[1::2, 0::2] = linear[1::2, 0::2, 1]
mosaic[1::2, 1::2] = linear[1::2, 1::2, 0]
np.round(64 + mosaic * (1023 - 64)).astype("<u2").tofile("photo.bggr10")
PY
rm photo.rgb
