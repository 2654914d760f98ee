import ArgumentParser
import CommandLineSupport
import Output
import Pipeline
import Pixels

/// How `-o` outputs are written: the format of a stream, Y4M's chroma, PNG's compression.
struct OutputOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "What - (standard output), a FIFO or a device takes: png (images one after another) or y4m (YUV4MPEG2, for encoders: -o - --stream y4m | ffmpeg -i - out.mp4).")
    var stream = "png"

    @Option(parsing: .unconditional, help: "Chroma of Y4M output: 420 (half width and height, what encoders take) or 444.")
    var y4mChroma = "420"

    @Option(parsing: .unconditional, help: "PNG encoding: fast (no row filter, deflate level 1), default (no row filter, level 4) or small (the smaller of every row filter at level 9 and none at level 12); see the README for sizes and times.")
    var pngCompression = "default"

    /// The `--png-compression` choice.
    func compression() throws -> PNGCompression {
        guard let value = PNGCompression(rawValue: pngCompression) else {
            throw UsageError("--png-compression \(excerpt(pngCompression)) is not valid; use fast, default or small")
        }
        return value
    }

    func chroma() throws -> RGBAToYUV.Chroma {
        guard let value = RGBAToYUV.Chroma(rawValue: y4mChroma) else { throw UsageError("--y4m-chroma \(excerpt(y4mChroma)) is not valid; use 420 or 444") }
        return value
    }

    @Option(name: .customLong("analyze"), parsing: .unconditionalSingleValue,
            help: "Analyse each frame beside the loop, repeatable or comma-separated: \(AnalyzerRegistry.kinds.map { "\($0.name) (\($0.summary))" }.joined(separator: "; ")).")
    var analyzers: [String] = []

    @Option(parsing: .unconditional, help: "Analyse at most this many frames a second (default: as many as the analysers keep up with on live runs, every frame on files).",
            transform: ArgumentValue.real("a number of frames a second above 0"))
    var analyzeRate: Double?

    @Option(parsing: .unconditional, help: "Where the analysers' results go, one JSON line per analysed frame: a file, or - (the default: standard output).")
    var metadata: String?

    /// Each `-o`, told by its form.
    func requests(_ outputs: [String]) throws -> [OutputRequest] {
        guard let format = OutputRequest.StreamFormat(rawValue: stream) else {
            throw UsageError("--stream \(excerpt(stream)) is not valid; use png or y4m")
        }
        let requests = try outputs.map { text in
            do {
                return try OutputRequest(parsing: text, stream: format)
            } catch {
                throw UsageError("-o \(error)")
            }
        }
        if requests.filter({ $0 == .display }).count > 1 { throw UsageError("-o kms is given twice; there is one display") }
        return requests
    }
}
