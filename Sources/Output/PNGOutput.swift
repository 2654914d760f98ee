/// The PNG images of a run: one file (replaced atomically at each write), a
/// numbered sequence, or a stream of images one after another on standard
/// output, a FIFO or a device, which stays open for the whole run.
public final class PNGOutput {
    public let pattern: OutputPattern
    private let encoder = PNGEncoder()
    private var stream: OutputFile?
    /// Images written so far.
    public private(set) var written = 0

    /// Checks what can be checked for `frames` images before any is rendered.
    public init(_ pattern: OutputPattern, frames: Int = 1) throws {
        self.pattern = pattern
        try pattern.check(frames: frames)
    }

    /// True when images go one after another to one open stream.
    public var isStream: Bool {
        guard !pattern.isSequence else { return false }
        if pattern.pattern == "-" { return true }
        if case .inPlace = try? OutputFile.kind(of: pattern.pattern) { return true }
        return false
    }

    /// Writes frame `index`; returns the path written.
    @discardableResult
    public func write(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, index: Int) throws -> String {
        let bytes = try encoder.encode(pixels, width: width, height: height)
        let path = pattern.path(for: index)
        if let stream {
            try stream.write(bytes)
        } else {
            let file = try OutputFile(path: path)
            try file.write(bytes)
            if file.isStream && !pattern.isSequence {
                stream = file
            } else {
                try file.commit()
            }
        }
        written += 1
        return path
    }

    /// What has been written, for a message after a failure: how many
    /// images, and which files or where.
    public var writtenSummary: String {
        let count = written == 1 ? "1 frame was" : "\(written) frames were"
        if isStream { return "\(count) written to \(pattern.pattern) before it, \(written == 1 ? "whole" : "each whole")" }
        let first = pattern.path(for: 0), last = pattern.path(for: max(0, written - 1))
        return written == 1 ? "\(count) written before it (\(first)), complete"
            : "\(count) written before it (\(first) to \(last)), each complete"
    }

    /// Closes a stream; files are complete as soon as each is written.
    public func finish() throws {
        try stream?.commit()
        stream = nil
    }
}
