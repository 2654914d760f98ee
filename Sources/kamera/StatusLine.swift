import Foundation

/// A status line on stderr: rewritten in place on a terminal, one line per
/// update otherwise (logs, pipes).
final class StatusLine {
    private let inPlace = isatty(STDERR_FILENO) != 0
    private var shown = false

    func show(_ text: String) {
        let text = TerminalText.oneLine(text)
        let line = inPlace ? "\r\u{1B}[K" + text : "kamera: " + text + "\n"
        FileHandle.standardError.write(Data(line.utf8))
        shown = true
    }

    /// Ends the line and prints `text` on its own.
    func finish(_ text: String) {
        if inPlace && shown { FileHandle.standardError.write(Data("\n".utf8)) }
        FileHandle.standardError.write(Data("kamera: \(TerminalText.oneLine(text))\n".utf8))
    }
}
