import Foundation

/// Help screens keep each example on one line, whatever the terminal's width:
/// the help is wrapped to the terminal as usual, then its `Examples:` block is
/// taken from the same help rendered without wrapping, so a copied example runs.
public enum HelpExamples {
    /// `narrow` (wrapped) with its examples block replaced by `wide`'s (unwrapped).
    public static func keepingExamplesWhole(narrow: String, wide: String) -> String {
        guard let examples = block(in: wide.split(separator: "\n", omittingEmptySubsequences: false)) else { return narrow }
        var lines = narrow.split(separator: "\n", omittingEmptySubsequences: false)
        guard let wrapped = range(in: lines) else { return narrow }
        lines.replaceSubrange(wrapped, with: examples)
        return lines.joined(separator: "\n")
    }

    /// The lines from `Examples:` up to the next blank line.
    private static func range(in lines: [Substring]) -> Range<Int>? {
        guard let start = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "Examples:" }) else { return nil }
        let end = lines[start...].firstIndex(where: { $0.allSatisfy(\.isWhitespace) }) ?? lines.endIndex
        return start..<end
    }

    private static func block(in lines: [Substring]) -> ArraySlice<Substring>? {
        range(in: lines).map { lines[$0] }
    }
}
