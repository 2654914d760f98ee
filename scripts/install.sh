#!/usr/bin/env bash
# Installs Kamera like a Linux tool: the release binary (and the small program
# zxing-cpp runs in, in PREFIX/lib/kamera), the man page, shell
# completions (bash, zsh, fish), the examples and the kiosk unit (installed,
# not enabled). Builds first, with the Swift standard library linked in, so
# the binary needs only Debian's libraries.
#   scripts/install.sh [PREFIX]          # default /usr/local; run as root (or through sudo) for system folders
#   DESTDIR=stage scripts/install.sh /usr   # into a staging folder (scripts/package-deb.sh does this)
#   KAMERA_SKIP_BUILD=1                  # use the binary already built in .build/static
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${1:-/usr/local}"
dest="${DESTDIR:-}"
if [ -z "${KAMERA_SKIP_BUILD:-}" ]; then
    "$root/scripts/install-deps.sh"
    "$root/scripts/build-static.sh" > /dev/null
fi
binary="$root/.build/static/release/kamera"
helper="$root/.build/static/release/kamera-zxing-helper"
for file in "$binary" "$helper"; do
    [ -x "$file" ] || { echo "install: $file is missing; run scripts/install.sh without KAMERA_SKIP_BUILD" >&2; exit 1; }
done

sudo=""
if [ -z "$dest" ] && [ "$(id -u)" -ne 0 ] && ! [ -w "$(dirname "$prefix")" ]; then sudo="sudo"; fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# The man page and completions come from the binary's own help, so they always match it.
"$root/scripts/make-manual.sh" "$binary" > "$work/kamera.1"
gzip -9n "$work/kamera.1"
for shell in bash zsh fish; do "$binary" --generate-completion-script "$shell" > "$work/completion.$shell"; done
# Completions are sourced, not run: no #! line (Debian policy).
sed -i "1{/^#!/d}" "$work/completion.bash"
sed "s|/usr/local/bin/kamera|$prefix/bin/kamera|g" "$root/Examples/kiosk/kamera-kiosk.service" > "$work/kamera-kiosk.service"

$sudo install -Dm755 "$binary" "$dest$prefix/bin/kamera"
# Where kamera looks for it: ../lib/kamera from its own folder.
$sudo install -Dm755 "$helper" "$dest$prefix/lib/kamera/kamera-zxing-helper"
$sudo install -Dm644 "$work/kamera.1.gz" "$dest$prefix/share/man/man1/kamera.1.gz"
$sudo install -Dm644 "$work/completion.bash" "$dest$prefix/share/bash-completion/completions/kamera"
$sudo install -Dm644 "$work/completion.zsh" "$dest$prefix/share/zsh/vendor-completions/_kamera"
$sudo install -Dm644 "$work/completion.fish" "$dest$prefix/share/fish/vendor_completions.d/kamera.fish"
$sudo install -Dm644 "$work/kamera-kiosk.service" "$dest$prefix/lib/systemd/system/kamera-kiosk.service"
examples="$dest$prefix/share/doc/kamera/examples"
for file in "$root"/Examples/README.md "$root"/Examples/Shaders/* "$root"/Examples/Media/*; do
    $sudo install -Dm644 "$file" "$examples/${file#"$root"/Examples/}"
done
echo "installed kamera $("$binary" --version) under $dest$prefix (the kiosk unit is not enabled: systemctl enable --now kamera-kiosk)" >&2
