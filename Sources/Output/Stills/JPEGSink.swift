/// Writes rendered frames as JPEG stills: every frame, or the latest every
/// `interval` seconds (the live preview's picture), each with the run's metadata.
public final class JPEGSink: FrameSink {
    public let output: JPEGOutput
    private var interval: UpdateInterval
    private let metadata: (RenderedFrame) -> StillMetadata?

    public init(_ output: JPEGOutput, every interval: Double? = nil, metadata: @escaping (RenderedFrame) -> StillMetadata? = { _ in nil }) {
        self.output = output
        self.interval = UpdateInterval(interval)
        self.metadata = metadata
    }

    public func consume(_ frame: RenderedFrame) throws {
        guard interval.isDue() else { return }
        try output.write(try frame.pixels(), width: frame.width, height: frame.height, index: frame.index, metadata: metadata(frame))
    }
}
