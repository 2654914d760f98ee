import Render
import Foundation

/// Writes metadata records as JSON lines (`--metadata out.jsonl`, or `-`):
/// a file appears under its name, whole, when the run ends; standard output
/// gets each line as it comes. Called from the analysis thread.
public final class MetadataWriter {
    public let path: String
    private let file: OutputFile
    public private(set) var lines = 0

    public init(path: String) throws {
        self.path = path
        file = try OutputFile(path: path, example: "out.jsonl")
    }

    public func write(_ record: MetadataRecord) throws {
        var line = record.json + "\n"
        do {
            try line.withUTF8 { try file.write(UnsafeRawBufferPointer($0)) }
        } catch {
            // A file keeps whole lines only (`OutputFile.write`): say how many.
            let records = lines == 1 ? "1 record" : "\(lines) records"
            throw OutputError(file.isStream ? "\(error); \(records) were sent before it, each line whole"
                                            : "\(error); \(path) holds the \(records) written before it, each line whole")
        }
        lines += 1
    }

    /// Puts the file in place (closes a stream).
    public func finish() throws {
        try file.commit()
    }
}

/// Puts the metadata file in place when the run ends; the records themselves
/// come from the analysis thread.
public final class MetadataSink: FrameSink {
    public let writer: MetadataWriter

    public init(_ writer: MetadataWriter) { self.writer = writer }

    public func consume(_ frame: RenderedFrame) throws {}

    public func finish() throws { try writer.finish() }
    public func saveWritten() { try? writer.finish() }
}
