import Foundation

/// An output path, either one file or a numbered sequence with a printf-style
/// `%d` (`frames/cube-%03d.png`).
public struct OutputPattern: Equatable, Sendable {
    public let pattern: String
    private let prefix: String
    private let suffix: String
    private let width: Int?

    public init(_ pattern: String) throws {
        self.pattern = pattern
        let scanner = pattern.ranges(of: try! Regex("%0?[0-9]*d"))
        guard scanner.count <= 1 else {
            throw OutputError("\(pattern): only one %d may appear in the output name")
        }
        if let range = scanner.first {
            prefix = String(pattern[..<range.lowerBound])
            suffix = String(pattern[range.upperBound...])
            let spec = pattern[range].dropFirst().dropLast()
            width = spec.isEmpty ? 0 : Int(spec)
        } else {
            prefix = pattern
            suffix = ""
            width = nil
        }
        if (prefix + suffix).contains("%") && !(prefix + suffix).contains("%%") {
            throw OutputError("\(pattern): the only placeholder allowed is %d (or %03d and the like)")
        }
    }

    /// True when the pattern numbers its files.
    public var isSequence: Bool { width != nil }

    /// The path of frame `index`.
    public func path(for index: Int) -> String {
        guard let width else { return pattern }
        var number = String(index)
        if number.count < width { number = String(repeating: "0", count: width - number.count) + number }
        return prefix + number + suffix
    }
}
