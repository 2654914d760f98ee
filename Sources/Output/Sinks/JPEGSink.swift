import Render
/// Writes rendered frames as JPEG stills: every frame, or the latest every
/// `interval` seconds (the live preview's picture), each with the run's metadata.
public final class JPEGSink: FrameSink, SinkKind {
    public static let forms = OutputForms(name: "jpeg", extensions: ["jpg", "jpeg"], help: "NAME.jpg")

    public static func make(_ request: OutputRequest, run: SinkRun) throws -> FrameSink {
        guard let pattern = request.pattern else { throw OutputError("\(request.name): not a file name") }
        let every = run.settings.every
        if every != nil && pattern.isSequence {
            throw OutputError("\(pattern.pattern): a live run keeps one JPEG up to date; give a name without %d")
        }
        let output = try JPEGOutput(pattern, frames: run.frames, settings: run.settings.jpeg)
        if every == nil && run.frames > 1 && !pattern.isSequence {
            throw OutputError("\(pattern.pattern) names one file but \(run.frames) frames are rendered; put %d in the name, e.g. shot-%02d.jpg")
        }
        output.firstNumber = run.firstNumber
        return JPEGSink(output, every: every)
    }

    public let output: JPEGOutput
    private var interval: UpdateInterval
    /// The latest frame not written (its interval not yet due).
    private var unwritten: LatestPicture?
    private var metadata: () -> StillMetadata = { StillMetadata() }

    public init(_ output: JPEGOutput, every interval: Double? = nil) {
        self.output = output
        self.interval = UpdateInterval(interval)
    }

    public func start(_ run: SinkStart) throws {
        metadata = run.stills
        output.onWrite = run.onWrite
    }

    public func consume(_ frame: RenderedFrame) throws {
        // The last frame of a counted run is written whatever the interval: the last one shown is the last one kept.
        guard interval.isDue() || frame.isLast else {
            unwritten = frame.latest
            return
        }
        unwritten = nil
        try output.write(try frame.pixels(), width: frame.width, height: frame.height, index: frame.index, metadata: metadata())
    }

    public func finish() throws {
        // However the run ended (its duration, q, a stop signal), the last frame shown is the last one kept.
        guard let last = unwritten else { return }
        unwritten = nil
        try output.write(try last.pixels(), width: last.width, height: last.height, index: last.index, metadata: metadata())
    }

    public var written: Int? { output.written }
    public var writtenSummary: String? { output.writtenSummary }
}
