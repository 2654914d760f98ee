/// Writes rendered frames as PNG: every frame (a file or a numbered
/// sequence, or a stream of images), or the latest frame every `interval`
/// seconds (the live preview's picture).
public final class PNGSink: FrameSink {
    public let output: PNGOutput
    private var interval: UpdateInterval

    public init(_ output: PNGOutput, every interval: Double? = nil) {
        self.output = output
        self.interval = UpdateInterval(interval)
    }

    public func consume(_ frame: RenderedFrame) throws {
        try output.writeEncoded()
        guard interval.isDue() else { return }
        try output.write(try frame.pixels(), width: frame.width, height: frame.height, index: frame.index)
    }

    public func finish() throws {
        try output.finish()
    }
}
