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
          kamera render --cube --frames 60 -o frames/cube-%03d.png
          kamera render --input clip.y4m --crop none --fit cover --size 640x360 -o clip.png
          kamera render --input raw.yuv --format yuyv --input-size 1280x720 -o raw.png
          kamera render --frames 30 -o - | ffmpeg -f png_pipe -i - out.mp4
        """)

    @Option(name: .shortAndLong, parsing: .unconditional,
            help: "Output PNG; %d (or %03d) numbers a sequence when --frames > 1; - (standard output), a FIFO or a device take the images one after another.")
    var output = "kamera.png"

    @Option(parsing: .unconditional, help: "Also write every rendered input frame, raw and tightly packed, to this file (replay it with --input).")
    var saveInput: String?

    @Option(parsing: .unconditional, help: "Number of frames to render.", transform: ArgumentValue.integer("a whole number of frames, 1 or more"))
    var frames = 1

    @Option(parsing: .unconditional, help: "Golden PNG (or %d sequence) each frame must match: exit 1 with the differing pixels and a diff image beside the output otherwise.")
    var expect: String?

    @Option(parsing: .unconditional, help: "Largest difference allowed per channel with --expect, 0-255.", transform: ArgumentValue.integer("a whole number from 0 to 255"))
    var tolerance = 0

    @Flag(help: "List the filters and exit.")
    var listFilters = false

    @OptionGroup var pipeline: PipelineOptions

    @OptionGroup var gpuOptions: GPUOptions

    func run() throws {
        if listFilters {
            print(FilterRegistry.listing)
            return
        }
        let logger = gpuOptions.makeLogger()
        let job = try makeJob()
        let platform = try gpuOptions.platform(), version = try gpuOptions.version()
        let thread = RenderThread()
        defer { thread.shutdown() }
        let progress = StatusLine(style: gpuOptions.quiet ? .quiet : .progress)
        let count = try thread.sync { () -> Int in
            let context = try GPUContext(platform: platform, version: version, logger: logger)
            let renderer = try FrameRenderer(context: context, settings: job.settings)
            let session = try CameraSession(renderer: renderer, configuration: job.source) { logger.info("\($0)") }
            let source = try session.runningSource()
            logger.info("source: \(source.summary); filters: \(job.settings.filters.summary)")
            if let inventory = source.inventory, frames > inventory.frames, let damage = inventory.damage {
                throw UsageError("\(source.summary): \(damage); the \(inventory.frames) frame(s) before it are whole: use --frames \(inventory.frames) or fewer")
            }
            let png = PNGSink(job.output)
            job.output.onWrite = { logger.info("wrote \($0)") }
            job.expectation?.onResult = { logger.info("\($0)") }
            let loop = FrameLoop(session: session, sinks: [png] + (job.expectation.map { [$0] } ?? []))
            if let zoom = try pipeline.zoomSlider() {
                loop.zoom.setSlider(zoom)
                try loop.zoom.apply(to: renderer)
                logger.info("zoom \(String(format: "%.2f", loop.zoom.currentFactor))x (\(loop.zoom.usesHardware ? "camera zoom_absolute" : "digital"))")
            }
            loop.recorder = try job.saveInput.map { try RawFrameWriter(path: $0) }
            loop.statusInterval = 0.5
            loop.onStatus = { progress.show($0.progress(of: frames)) }
            loop.onFrame = { frame in
                if frame.index == 0 { logger.info("render passes in the first frame: \(renderer.lastPassCount)") }
                if frame.index == 0, let queue = source as? CaptureQueue {
                    logger.info("upload: \(renderer.cache.lastPath) (camera buffers: \(queue.camera.memory))\(renderer.cache.lastPath == "copy" ? renderer.cache.copyReason.map { "; \($0)" } ?? "" : "")")
                }
            }
            do {
                try loop.run(frames: frames)
            } catch {
                progress.clear()
                // Frames rendered before the failure are still written, whole.
                try? job.output.writePending()
                throw PartialRunError(error: error, output: job.output)
            }
            progress.clear()
            if let queue = source as? CaptureQueue {
                let camera = queue.camera
                let rate = camera.measuredRate.map { String(format: "%.2f", $0) } ?? "unknown"
                logger.info("captured \(camera.framesCaptured) frames, \(queue.lateDrops) dropped late, \(camera.driverDrops) dropped by the driver, capture rate \(rate) fps, upload \(renderer.cache.lastPath)")
            }
            return job.output.written
        }
        if StopSignal.isRequested {
            FileHandle.standardError.write(Data("kamera: interrupted after \(count) of \(frames) frame(s); every PNG written is complete\n".utf8))
        } else if count < frames {
            FileHandle.standardError.write(Data("kamera: the input ended after \(count) of \(frames) frames\n".utf8))
        }
    }

    struct Job {
        var source: SourceOptions
        var settings: RenderSettings
        var output: PNGOutput
        var saveInput: String?
        var expectation: ExpectationSink?
    }

    func makeJob() throws -> Job {
        let (source, settings) = try pipeline.makePipeline()
        guard frames >= 1 else { throw UsageError("--frames \(frames) must be at least 1") }
        let pattern = try OutputPattern(output)
        // A sequence encodes on a thread per core while later frames render.
        let png = try PNGOutput(pattern, frames: frames, compression: pipeline.compression(),
                                encoderThreads: frames > 1 ? ProcessInfo.processInfo.activeProcessorCount : 0)
        if frames > 1 && !pattern.isSequence && !png.isStream {
            throw UsageError("-o \(output) names one file but --frames is \(frames); put %d in the name, e.g. frames/out-%03d.png")
        }
        if let saveInput {
            if saveInput == "-" && output == "-" { throw UsageError("-o - and --save-input - cannot both use standard output") }
            try OutputFile.check(saveInput)
            if OutputFile.sameFile(saveInput, pattern.path(for: 0)) || (frames > 1 && OutputFile.sameFile(saveInput, pattern.path(for: frames - 1))) {
                throw UsageError("--save-input \(saveInput) is also where -o writes; give it another name")
            }
        }
        guard (0...255).contains(tolerance) else { throw UsageError("--tolerance \(tolerance) is out of range; use 0 to 255") }
        if tolerance != 0 && expect == nil { throw UsageError("--tolerance is for --expect; add --expect golden.png") }
        let expectation = try expect.map { golden -> ExpectationSink in
            let goldenPattern = try OutputPattern(golden)
            if frames > 1 && !goldenPattern.isSequence {
                throw UsageError("--expect \(golden) names one file but --frames is \(frames); put %d in the name, e.g. golden-%03d.png")
            }
            try ShaderCommand.refuseOverwriting(golden: goldenPattern, with: pattern, numbers: 0..<frames)
            return ExpectationSink(golden: goldenPattern, tolerance: tolerance, diffs: try OutputPattern(ShaderCommand.diffName(for: output)))
        }
        return Job(source: source, settings: settings, output: png, saveInput: saveInput, expectation: expectation)
    }
}

/// An error after some frames were written: says how many, and that they are whole.
struct PartialRunError: Error, CustomStringConvertible {
    var error: Error
    var written: Int
    var summary: String

    init(error: Error, output: PNGOutput) {
        self.error = (error as? PartialRunError)?.error ?? error
        written = output.written
        summary = output.writtenSummary
    }

    var description: String { written == 0 ? "\(error)" : "\(error); \(summary)" }
}
