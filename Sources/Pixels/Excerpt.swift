/// A value from a file or the command line as an error message quotes it:
/// at most `limit` characters, so a damaged file cannot flood the terminal.
public func excerpt<S: StringProtocol>(_ text: S, limit: Int = 40) -> String {
    text.count <= limit ? String(text) : String(text.prefix(limit)) + "…"
}
