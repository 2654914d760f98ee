import Pixels
/// An output path: one file, a numbered sequence with a printf-style `%d`
/// or `%0Nd` (`frames/cube-%03d.png`; `%%` is a literal `%`), or `-` for
/// standard output.
public struct OutputPattern: Equatable, Sendable {
    public let pattern: String
    private let prefix: String
    private let suffix: String
    /// Digits the number is padded to with zeros; nil for one file.
    private let width: Int?

    /// The widest `%0Nd`: an Int has at most 19 digits.
    public static let maxWidth = 19

    public init(_ pattern: String) throws {
        guard !pattern.isEmpty else {
            throw OutputError("the output name is empty; give a file name such as out.png, a sequence such as out-%03d.png, or - for standard output")
        }
        self.pattern = pattern
        var prefix = "", suffix = ""
        var width: Int?
        var characters = pattern[...]
        while let c = characters.popFirst() {
            guard c == "%" else {
                if width == nil { prefix.append(c) } else { suffix.append(c) }
                continue
            }
            if characters.first == "%" {
                characters.removeFirst()
                if width == nil { prefix.append("%") } else { suffix.append("%") }
                continue
            }
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            characters = characters.dropFirst(digits.count)
            guard characters.popFirst() == "d", digits.isEmpty || digits.first == "0" else {
                throw OutputError("\(pattern): the only placeholder is %d or %0Nd (e.g. %03d); write %% for a literal %")
            }
            guard width == nil else {
                throw OutputError("\(pattern): only one %d may appear in the output name")
            }
            let n = digits.count > 3 ? Int.max : Int(digits) ?? 0
            guard n <= Self.maxWidth else {
                throw OutputError("\(pattern): %\(digits)d pads to more digits than a frame number has; use at most %0\(Self.maxWidth)d")
            }
            width = n
        }
        self.prefix = prefix
        self.suffix = suffix
        self.width = width
    }

    /// True when the pattern numbers its files.
    public var isSequence: Bool { width != nil }

    /// The path of frame `index`.
    public func path(for index: Int) -> String {
        guard let width else { return prefix }
        var number = String(index)
        if number.count < width { number = String(repeating: "0", count: width - number.count) + number }
        return prefix + number + suffix
    }

    /// Checks, before the first frame, what can be checked for `frames`
    /// frames: every folder the pattern names (a pattern may put frames in
    /// folders of their own) and the length of the longest file name.
    public func check(frames: Int) throws {
        // A name of the kind written, should the path be a folder.
        let kind = fileExtension(path(for: 0)), example = "frame." + (kind.isEmpty ? "png" : kind)
        try OutputFile.check(path(for: 0), example: example)
        guard isSequence, frames > 1 else { return }
        guard suffix.contains("/") else {
            try OutputFile.check(path(for: frames - 1), example: example)  // the longest name
            return
        }
        let limit = 1_000_000
        guard frames <= limit else {
            throw OutputError("\(pattern): a pattern that puts each frame in a folder of its own takes at most \(limit) frames")
        }
        for index in 1..<frames { try OutputFile.check(path(for: index), example: example) }
    }
}
