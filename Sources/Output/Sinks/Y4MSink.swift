import Render
/// Writes every rendered frame to a `Y4MOutput`: a file, a numbered
/// sequence, or a stream for an encoder (`-o - --stream y4m`).
public final class Y4MSink: FrameSink, SinkKind {
    public static let forms = OutputForms(name: "y4m", extensions: ["y4m"], stream: .y4m, help: "NAME.y4m")

    public static func make(_ request: OutputRequest, run: SinkRun) throws -> FrameSink {
        guard let pattern = request.pattern else { throw OutputError("\(request.name): not a file name") }
        let output = try Y4MOutput(pattern, frames: run.frames, rate: run.rate, colorSpace: run.colorSpace, chroma: run.settings.y4mChroma)
        output.firstNumber = run.firstNumber
        return Y4MSink(output)
    }

    public let output: Y4MOutput

    public init(_ output: Y4MOutput) { self.output = output }

    public func start(_ run: SinkStart) throws {
        output.rate = run.rate
        output.onWrite = run.onWrite
    }

    public func consume(_ frame: RenderedFrame) throws {
        try output.write(try frame.pixels(), width: frame.width, height: frame.height, index: frame.index)
    }

    public func finish() throws { try output.finish() }
    public func saveWritten() { try? output.finish() }
    public var written: Int? { output.written }
    public var writtenSummary: String? { output.writtenSummary }
}
