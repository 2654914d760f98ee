import Output
import Foundation
import Logging

/// Log lines on stderr as `kamera: MESSAGE`, one line each, with control
/// characters from paths and files shown as escapes (see `TerminalText`).
public struct OneLineLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]

    public init() {}

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let level = event.level
        let prefix = level >= .warning ? "kamera: \(level): " : level == .notice ? "kamera: note: " : "kamera: "
        FileHandle.standardError.write(Data((prefix + TerminalText.oneLine(event.message.description) + "\n").utf8))
    }
}
