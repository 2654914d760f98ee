/// Text that reaches the terminal: names and bytes from files and from the
/// command line are shown, never obeyed.
public enum TerminalText {
    /// `text` on one line with control characters (ESC, CR, LF, DEL, C1) and
    /// bidirectional overrides shown as `\u{1B}`-style escapes.
    public static func oneLine(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || (0x7F...0x9F).contains(v) || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) {
                out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
