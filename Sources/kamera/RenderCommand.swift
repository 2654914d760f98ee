import Capture
import CommandLineSupport
import ArgumentParser
import Filters
import Foundation
import GPU
import Lifecycle
import Output
import Pipeline

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render frames of the preview or the cube to PNG, headless.",
        discussion: """
        With no --input it renders the built-in test pattern, so it works on any machine.
        Examples:
          kamera render -o out.png
          kamera render --filter sepia --filter contrast=1.3 --intensity 0.8 --size 720x720 -o out.png
          kamera render --cube --frames 60 -o cube-%03d.png
          kamera render --input \(ExamplesFolder.path)/Media/photo.jpg --filter instant -o photo.png
          kamera render --input \(ExamplesFolder.path)/Media/clip.y4m --crop none --fit cover --size 640x360 --frames 12 -o clip-%02d.png
          kamera render --input \(ExamplesFolder.path)/Media/raw.yuv --format yuyv --input-size 320x180 -o raw.png
          kamera render --input \(ExamplesFolder.path)/Media/photo.bggr10 --format bggr10 --input-size 320x180 --black-level 64 -o from-bayer.png
          kamera render --frames 30 -o - | ffmpeg -v error -y -f png_pipe -i - out.mp4
          kamera render --frames 30 -o - --stream y4m | ffmpeg -v error -y -i - out.mp4
          kamera render --frames 30 -o clip.y4m -o f-%02d.png
          kamera render --filter sepia --frames 60 -o clip.mp4
          kamera render --frames 60 --codec ffv1 -o lossless.mkv
          kamera render --filter sepia -o photo.jpg --quality 95
          kamera render --camera /dev/video0 --input-size 1280x720 --frames 30 -o cam-%02d.png
          kamera render --input \(ExamplesFolder.path)/Media/ticket.png --detect codes --once
          kamera render --input \(ExamplesFolder.path)/Media/ticket.png --detect codes --metadata codes.jsonl
        """)

    @Option(name: .shortAndLong, parsing: .unconditionalSingleValue,
            help: "Output, repeatable: NAME.png, NAME-%03d.png (numbered, with --frames), NAME.jpg, NAME.y4m, a video NAME.mp4|.mov|.mkv|.webm (--codec), kms (the console's display), /dev/videoN (a v4l2loopback virtual camera) or - (standard output, with --stream); a FIFO or another device takes the frames one after another. Default kamera.png (none with --expect or --detect alone).", completion: Completions.anyFile)
    var output: [String] = []

    @Option(parsing: .unconditional, help: "Also write every rendered input frame, raw and tightly packed, to this file (replay it with --input).", completion: Completions.anyFile)
    var saveInput: String?

    @Option(parsing: .unconditional, help: "Number of frames to render.", transform: ArgumentValue.frameCount())
    var frames = 1

    @Option(parsing: .unconditional, help: "Golden PNG (or %d sequence) each frame must match: exit 1 with the differing pixels and a diff image beside the output otherwise.", completion: Completions.png)
    var expect: String?

    @Option(parsing: .unconditional, help: "Largest difference allowed per channel with --expect, 0-255.", transform: ArgumentValue.integer("a whole number from 0 to 255"))
    var tolerance = 0

    @Flag(help: "List the filters and exit.")
    var listFilters = false

    @OptionGroup var pipeline: PipelineOptions

    @OptionGroup var outputOptions: OutputOptions

    @OptionGroup var display: DisplayOptions

    @OptionGroup var gpuOptions: GPUOptions
    @OptionGroup var configOption: ConfigOption

    func run() throws {
        if listFilters {
            print(FilterRegistry.listing)
            return
        }
        try Self.execute(try RunBuilder(try describe()), frames: frames, gpuOptions: gpuOptions, tolerance: tolerance)
    }

    /// Renders `frames` frames of the run, with a progress line; what `render` and `snap` do.
    static func execute(_ builder: RunBuilder, frames: Int, gpuOptions: GPUOptions, tolerance: Int = 0) throws {
        let logger = gpuOptions.makeLogger()
        let thread = RenderThread()
        defer { thread.shutdown() }
        let progress = StatusLine(style: gpuOptions.quiet ? .quiet : .progress)
        let count = try thread.sync { () -> Int in
            let run = try builder.build(logger: logger)
            let (renderer, source, loop) = (run.renderer, try run.session.runningSource(), run.loop)
            if let inventory = source.inventory, frames > inventory.frames, let damage = inventory.damage {
                throw UsageError("\(source.summary): \(damage); the \(inventory.frames) frame(s) before it are whole: use --frames \(inventory.frames) or fewer")
            }
            loop.statusInterval = 0.5
            loop.onStatus = { progress.show($0.progress(of: frames)) }
            loop.onFrame = { frame in
                guard frame.index == 0 else { return }
                logger.info("render passes in the first frame: \(renderer.lastPassCount)")
                if let camera = source.camera {
                    logger.info("upload: \(renderer.uploader.lastPath) (camera buffers: \(camera.memory))\(renderer.uploader.lastPath == .copy ? renderer.uploader.copyReason.map { "; \($0)" } ?? "" : "")")
                }
            }
            do {
                try loop.run(frames: frames)
            } catch {
                progress.clear()
                // Frames rendered before the failure are still written, whole.
                builder.saveAfterFailure()
                throw PartialRunError(error: error, builder: builder)
            }
            progress.clear()
            if let capture = source.captureStatistics {
                let rate = capture.measuredRate.map { String(format: "%.2f fps", $0) } ?? "unknown"
                logger.info("\(capture), capture rate \(rate), upload \(renderer.uploader.lastPath)")
            }
            if let analysis = loop.analysis {
                let a = analysis.statistics
                logger.info("analysed \(a.analysed) frames, skipped \(a.skippedBusy) while the analysers were busy and \(a.skippedRate) for the rate")
            }
            if let summary = loop.recorder?.summary, let path = loop.recorder?.path, !OutputFile.isStandardOutput(path) { logger.notice("\(summary)") }
            return loop.statistics.frames
        }
        if StopSignal.isRequested {
            FileHandle.standardError.write(Data("kamera: interrupted after \(count) of \(frames) frame(s); every file written is complete\n".utf8))
        } else if count < frames && !builder.endedByOnce {
            FileHandle.standardError.write(Data("kamera: the input ended after \(count) of \(frames) frames\n".utf8))
        } else if let expectation = builder.expectation, !gpuOptions.quiet {
            FileHandle.standardError.write(Data("kamera: checked \(expectation.checked) frame(s) against \(expectation.golden.pattern): all within \(tolerance)\n".utf8))
        }
    }

    /// The run the options describe.
    func describe() throws -> RunDescription {
        guard frames >= 1 else { throw UsageError("--frames \(frames) must be at least 1") }
        // As `shader --expect`: a check alone writes nothing, nor does detection alone.
        let outputs = output.isEmpty ? (expect == nil && outputOptions.detect.isEmpty ? ["kamera.png"] : []) : output
        var description = try describeRun(pipeline, outputs: outputs, outputOptions, display, gpuOptions)
        description.frames = frames
        description.saveInput = saveInput
        guard (0...255).contains(tolerance) else { throw UsageError("--tolerance \(tolerance) is out of range; use 0 to 255") }
        if tolerance != 0 && expect == nil { throw UsageError("--tolerance is for --expect; add --expect golden.png") }
        if let expect {
            let golden = try OutputPattern(expect)
            if frames > 1 && !golden.isSequence {
                throw UsageError("--expect \(expect) names one file but --frames is \(frames); put %d in the name, e.g. golden-%03d.png")
            }
            description.expectation = .init(golden: golden, tolerance: tolerance)
        }
        return description
    }
}

/// An error after some frames were written: says how many, and that they are whole.
struct PartialRunError: Error, CustomStringConvertible {
    var error: Error
    var written: Int
    var summary: String

    init(error: Error, builder: RunBuilder) {
        self.error = (error as? PartialRunError)?.error ?? error
        written = builder.written
        summary = builder.writtenSummary ?? ""
    }

    var description: String { written == 0 ? "\(error)" : "\(error); \(summary)" }
}
