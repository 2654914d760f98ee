/// A command line that does not parse: ArgumentParser's message on one line,
/// with where to read the options.
public struct CommandLineError: Error, CustomStringConvertible {
    public var message: String
    public var help: String

    public init(_ message: String, help: String) {
        self.message = message
        self.help = help
    }

    public var description: String {
        let text = message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("Usage:") && !$0.hasPrefix("See '") }
            .map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }.joined(separator: "; ")
        return "\(text.isEmpty ? "the command line is not valid" : text); see '\(help)'"
    }
}
