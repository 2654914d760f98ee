#!/usr/bin/env bash
# Writes Kamera's man page (roff, section 1) on stdout, made from the binary's
# own --help screens, so it says exactly what the help says.
#   scripts/make-manual.sh .build/release/kamera > kamera.1
set -euo pipefail
kamera="${1:?usage: make-manual.sh KAMERA_BINARY}"
version="$("$kamera" --version)"
# Every command the program lists under SUBCOMMANDS in its --help (hidden ones are not listed).
mapfile -t commands < <(COLUMNS=1000 "$kamera" --help | awk '/^SUBCOMMANDS:$/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ ${#commands[@]} -gt 0 ] || { echo "make-manual.sh: $kamera --help lists no commands" >&2; exit 1; }

# An awk function that roff-escapes a line: backslashes, minus signs, and a leading dot or quote.
esc='function esc(t) { gsub(/\\/, "\\e", t); gsub(/-/, "\\-", t); if (t ~ /^[.'\'']/) t = "\\&" t; return t }'

# One command's help as roff: OVERVIEW as text, USAGE, options as tagged
# paragraphs, example blocks kept as they are.
section() {
    COLUMNS=1000 "$kamera" "$1" --help | awk "$esc"'
        function flush() { if (para != "") { print ".PP"; print para; para = "" } }
        function option(label, text) { print ".TP"; print "\\fB" esc(label) "\\fR"; if (text != "") print esc(text) }
        /^OVERVIEW: / { sub(/^OVERVIEW: /, ""); print ".PP"; print esc($0); next }
        /^USAGE: / { flush(); sub(/^USAGE: /, ""); print ".PP"; print "\\fBUsage:\\fR " esc($0); next }
        /^(OPTIONS|ARGUMENTS|SUBCOMMANDS):$/ { flush(); mode = "options"; print ".PP"; print "\\fB" substr($0, 1, 1) tolower(substr($0, 2, length($0) - 2)) ":\\fR"; next }
        /^Examples:$/ { flush(); mode = "examples"; print ".PP"; print "Examples:"; print ".RS"; print ".nf"; next }
        mode == "examples" && /^  / { sub(/^  /, ""); print esc($0); next }
        mode == "examples" { print ".fi"; print ".RE"; mode = "" }
        # An option: its label, then its text from column 27 (on the same line when the label fits).
        mode == "options" && /^  [^ ]/ {
            if (match($0, /^  [^ ].*[^ ]   +/) && RLENGTH <= 26) { option(substr($0, 3, RLENGTH - 2), substr($0, RLENGTH + 1)) }
            else if (length($0) > 26 && substr($0, 26, 1) == " ") { label = substr($0, 3, 23); sub(/ +$/, "", label); option(label, substr($0, 27)) }
            else { option(substr($0, 3), "") }
            next
        }
        mode == "options" && /^ +[^ ]/ { sub(/^ +/, ""); print esc($0); next }
        /^$/ { flush(); next }
        { para = (para == "" ? esc($0) : para "\n" esc($0)) }
        END { flush(); if (mode == "examples") { print ".fi"; print ".RE" } }
    '
}

cat <<ROFF
.TH KAMERA 1 "" "kamera $version" "User Commands"
.SH NAME
kamera \\- camera preview renderer: V4L2 frames through OpenGL ES filters to PNG, JPEG, Y4M, MP4/MKV/WebM recordings or the console display
.SH SYNOPSIS
.B kamera
[\\fIcommand\\fR] [\\fIoptions\\fR]
.SH DESCRIPTION
ROFF
COLUMNS=1000 "$kamera" --help | awk "$esc"' /^OVERVIEW: / { sub(/^OVERVIEW: /, ""); print esc($0); exit }'
cat <<ROFF
.PP
The default command is \\fBrender\\fR. Every command takes \\fB\\-\\-help\\fR and \\fB\\-\\-version\\fR.
ROFF
echo ".SH COMMANDS"
for command in "${commands[@]}"; do
    echo ".SS \"kamera $command\""
    section "$command"
done
cat <<'ROFF'
.SH SHELL COMPLETION
\fBkamera \-\-generate\-completion\-script bash|zsh|fish\fR prints a completion script;
the installed package puts them where bash, zsh and fish look.
.SH EXIT STATUS
0 when the job is done; 1 on any error, with one line on standard error naming the problem
and what would work; a run stopped by a signal ends by that signal (130 for Ctrl\-C, 143 for SIGTERM).
.SH FILES
.TP
\fI/usr/share/doc/kamera/examples\fR
Example shaders and inputs (under the install prefix).
.TP
\fIlib/systemd/system/kamera\-kiosk.service\fR
A kiosk unit under the install prefix, installed disabled.
.SH SEE ALSO
\fBffmpeg\fR(1), \fBv4l2\-ctl\fR(1), \fBkmscube\fR(1)
ROFF
