import ArgumentParser
import Foundation
import Pipeline

/// Set by SIGINT/SIGTERM; the render loop stops after the frame in hand.
nonisolated(unsafe) var interrupted: sig_atomic_t = 0

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
        """)

    @Option(name: .shortAndLong, help: "Output PNG; use %d (or %03d) for a numbered sequence when --frames > 1.")
    var output = "kamera.png"

    @Option(help: "Also write every rendered input frame, raw and tightly packed, to this file (replay it with --input).")
    var saveInput: String?

    @Option(help: "Number of frames to render.")
    var frames = 1

    @Flag(help: "List the filters and exit.")
    var listFilters = false

    @OptionGroup var pipeline: PipelineOptions

    @OptionGroup var gpuOptions: GPUOptions

    func run() throws {
        if listFilters {
            print(FilterPresets.listing)
            return
        }
        try reportingErrors {
            let logger = gpuOptions.makeLogger()
            let job = try makeJob()
            let platform = try gpuOptions.platform(), version = try gpuOptions.version()
            signal(SIGINT) { _ in interrupted = 1 }
            signal(SIGTERM) { _ in interrupted = 1 }
            let thread = RenderThread()
            let count = try thread.sync { () -> Int in
                let context = try GPUContext(platform: platform, version: version, logger: logger)
                let renderer = try FrameRenderer(context: context, settings: job.settings)
                let source = try job.source.makeSource(for: renderer) { logger.info("\($0)") }
                logger.info("source: \(source.summary); filters: \(job.settings.filters.summary); render passes per frame: \(renderer.passesPerFrame)")
                let zoomer = ZoomController(source: source)
                if let zoom = pipeline.zoom {
                    zoomer.setSlider(zoom)
                    try zoomer.apply(to: renderer)
                    logger.info("zoom \(String(format: "%.2f", zoomer.currentFactor))x (\(zoomer.usesHardware ? "camera zoom_absolute" : "digital"))")
                }
                let saved = try job.saveInput.map { try RawFrameWriter(path: $0) }
                var rendered = 0
                while rendered < frames && interrupted == 0 {
                    guard let frame = try source.nextFrame() else { break }
                    try saved?.append(frame)
                    let pixels = try renderer.render(frame, index: rendered)
                    if rendered == 0, let queue = source as? CaptureQueue {
                        logger.info("upload: \(renderer.cache.lastPath) (camera buffers: \(queue.camera.memory))\(renderer.cache.lastPath == "copy" ? renderer.cache.copyReason.map { "; \($0)" } ?? "" : "")")
                    }
                    let size = renderer.outputSize(for: frame)
                    let path = job.output.path(for: rendered)
                    try PNGWriter.write(pixels, width: size.width, height: size.height, to: path)
                    logger.info("wrote \(path) (\(size.width)x\(size.height))")
                    rendered += 1
                }
                try saved?.finish()
                if let queue = source as? CaptureQueue {
                    let camera = queue.camera
                    let rate = camera.measuredRate.map { String(format: "%.2f", $0) } ?? "unknown"
                    logger.info("captured \(camera.framesCaptured) frames, \(queue.lateDrops) dropped late, \(camera.driverDrops) dropped by the driver, capture rate \(rate) fps, upload \(renderer.cache.lastPath)")
                }
                return rendered
            }
            if interrupted != 0 {
                throw UsageError("interrupted after \(count) frame(s); every PNG written is complete")
            }
            if count < frames {
                FileHandle.standardError.write(Data("kamera: the input ended after \(count) of \(frames) frames\n".utf8))
            }
        }
    }

    struct Job {
        var source: SourceOptions
        var settings: RenderSettings
        var output: OutputPattern
        var saveInput: String?
    }

    func makeJob() throws -> Job {
        let (source, settings) = try pipeline.makePipeline()
        guard frames >= 1 else { throw UsageError("--frames \(frames) must be at least 1") }
        let pattern = try OutputPattern(output)
        if frames > 1 && !pattern.isSequence {
            throw UsageError("-o \(output) names one file but --frames is \(frames); put %d in the name, e.g. frames/out-%03d.png")
        }
        try PNGWriter.checkFolder(of: pattern.path(for: 0))
        return Job(source: source, settings: settings, output: pattern, saveInput: saveInput)
    }
}
