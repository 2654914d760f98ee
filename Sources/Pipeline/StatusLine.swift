import Foundation
import Output

/// A status or progress line on stderr: rewritten in place on a terminal,
/// one line per update otherwise (logs, pipes), or nothing when quiet.
public final class StatusLine {
    public enum Style {
        /// In place on a terminal, else a line per update.
        case status
        /// In place on a terminal, else nothing: progress is noise in a log.
        case progress
        case quiet
    }

    private let inPlace = isatty(STDERR_FILENO) != 0
    private let style: Style
    private var shown = false

    public init(style: Style = .status) {
        self.style = style
    }

    public func show(_ text: String) {
        let text = TerminalText.oneLine(text)
        switch (style, inPlace) {
        case (.quiet, _), (.progress, false): return
        case (_, true): write("\r\u{1B}[K" + text)
        case (.status, false): write("kamera: " + text + "\n")
        }
        shown = true
    }

    /// Clears an in-place line, so that what follows starts on a clean line.
    public func clear() {
        if inPlace && shown { write("\r\u{1B}[K") }
        shown = false
    }

    /// Ends the line and prints `text` (the run's summary) on its own; nothing when quiet.
    public func finish(_ text: String) {
        if inPlace && shown { write(style == .progress ? "\r\u{1B}[K" : "\n") }
        shown = false
        guard style != .quiet else { return }
        write("kamera: \(TerminalText.oneLine(text))\n")
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
