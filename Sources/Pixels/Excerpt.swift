/// A value from a file or the command line as an error message quotes it:
/// at most `limit` characters, so a damaged file cannot flood the terminal.
public func excerpt<S: StringProtocol>(_ text: S, limit: Int = 40) -> String {
    text.count <= limit ? String(text) : String(text.prefix(limit)) + "…"
}

/// The extension of a file name as typed (`clip.Y4M` → `Y4M`), "" for none:
/// what follows the last dot of the last path component, a leading dot (a
/// hidden file) not counting. Plain string work: Foundation's `pathExtension`
/// traps on some byte sequences a user can type.
public func fileExtension(_ path: String) -> String {
    let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
    guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
    return String(name[name.index(after: dot)...])
}
