/// JPEG stills of a run: one file (replaced atomically at each write) or a
/// numbered sequence, each with its EXIF block.
public final class JPEGOutput {
    public let pattern: OutputPattern
    private let encoder: JPEGEncoder
    public private(set) var written = 0
    /// The number in the name of frame 0.
    public var firstNumber = 0
    /// Hears each path once its image is written.
    public var onWrite: ((String) -> Void)?

    public init(_ pattern: OutputPattern, frames: Int = 1, settings: JPEGSettings = JPEGSettings()) throws {
        self.pattern = pattern
        encoder = try JPEGEncoder(settings: settings)
        try pattern.check(frames: frames)
    }

    public func write(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, index: Int, metadata: StillMetadata?) throws {
        let bytes = try encoder.encode(pixels, width: width, height: height, metadata: metadata)
        let path = pattern.path(for: firstNumber + index)
        let file = try OutputFile(path: path, example: "frame.jpg")
        try file.write(bytes)
        try file.commit()
        written += 1
        onWrite?(path)
    }

    /// What has been written, for a message after a failure.
    public var writtenSummary: String {
        let count = written == 1 ? "1 frame was" : "\(written) frames were"
        return "\(count) written before it, each file complete"
    }
}
