import Render
import Foundation

/// Writes rendered frames as PNG: every frame (a file or a numbered
/// sequence, or a stream of images), or the latest frame every `interval`
/// seconds (the live preview's picture).
public final class PNGSink: FrameSink, SinkKind {
    public static let forms = OutputForms(name: "png", extensions: ["png"], stream: .png,
                                          help: "NAME.png, a sequence NAME-%03d.png")

    public static func make(_ request: OutputRequest, run: SinkRun) throws -> FrameSink {
        guard let pattern = request.pattern else { throw OutputError("\(request.name): not a file name") }
        let every = run.settings.every
        if every != nil && pattern.isSequence {
            throw OutputError("\(pattern.pattern): a live run keeps one PNG up to date; give a name without %d")
        }
        // A live run's picture is encoded on a thread of its own, so that the frame loop keeps the camera's pace.
        let threads = every != nil ? 1 : run.frames > 1 ? ProcessInfo.processInfo.activeProcessorCount : 0
        let output = try PNGOutput(pattern, frames: run.frames, compression: run.settings.pngCompression, encoderThreads: threads)
        if every == nil && run.frames > 1 && !pattern.isSequence && !output.isStream {
            throw OutputError("\(pattern.pattern) names one file but \(run.frames) frames are rendered; put %d in the name, e.g. frames/out-%03d.png")
        }
        output.firstNumber = run.firstNumber
        return PNGSink(output, every: every)
    }

    public let output: PNGOutput
    private var interval: UpdateInterval
    /// The latest frame not written (its interval not yet due).
    private var unwritten: LatestPicture?

    public init(_ output: PNGOutput, every interval: Double? = nil) {
        self.output = output
        self.interval = UpdateInterval(interval)
    }

    public func start(_ run: SinkStart) throws {
        output.metadata = run.stills
        output.onWrite = run.onWrite
    }

    public func consume(_ frame: RenderedFrame) throws {
        try output.writeEncoded()
        // The last frame of a counted run is written whatever the interval: the last one shown is the last one kept.
        guard interval.isDue() || frame.isLast else {
            unwritten = frame.latest
            return
        }
        unwritten = nil
        try output.write(try frame.pixels(), width: frame.width, height: frame.height, index: frame.index)
    }

    public func flush() throws { try output.writePending() }
    public func finish() throws {
        // However the run ended (its duration, q, a stop signal), the last frame shown is the last one kept.
        if let last = unwritten {
            unwritten = nil
            try output.write(try last.pixels(), width: last.width, height: last.height, index: last.index)
        }
        try output.finish()
    }
    public func saveWritten() { try? output.writePending() }
    public var written: Int? { output.written }
    public var writtenSummary: String? { output.writtenSummary }
}
