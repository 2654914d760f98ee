import ArgumentParser
import Foundation
import Pipeline

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Live preview, offscreen: renders every frame as it comes, with keys and a status line.",
        discussion: """
        Keys: + zoom in and - zoom out (ramps, the factor doubles per second), space stops a ramp,
        n next camera, f next filter preset, q quits (Ctrl-C too).
        With -o the latest frame is written there, replaced atomically, every --png-every seconds.
        Examples:
          kamera preview --camera auto -o live.png
          kamera preview --camera /dev/video0 --filter sepia --duration 10
          kamera preview --cube --duration 5
        """)

    @Option(name: .shortAndLong, parsing: .unconditional,
            help: "PNG that shows the latest frame, replaced every --png-every seconds; - (standard output), a FIFO or a device take one image after another.")
    var output: String?

    @Option(parsing: .unconditional, help: "Seconds between PNG updates.", transform: ArgumentValue.real("a number of seconds above 0"))
    var pngEvery = 1.0

    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: run until q or Ctrl-C).",
            transform: ArgumentValue.real("a number of seconds above 0"))
    var duration: Double?

    @Option(parsing: .unconditional, help: "Seconds between status lines.", transform: ArgumentValue.real("a number of seconds above 0"))
    var statusEvery = 1.0

    @OptionGroup var pipeline: PipelineOptions

    @OptionGroup var gpuOptions: GPUOptions

    func run() throws {
        let logger = gpuOptions.makeLogger()
        let (sourceOptions, settings) = try pipeline.makePipeline()
        let png = try output.map { output -> PNGOutput in
            let pattern = try OutputPattern(output)
            guard !pattern.isSequence else { throw UsageError("-o \(output): preview keeps one PNG up to date; give a name without %d") }
            return try PNGOutput(pattern)
        }
        guard pngEvery > 0 else { throw UsageError("--png-every \(pngEvery) must be above 0 seconds") }
        guard statusEvery > 0 else { throw UsageError("--status-every \(statusEvery) must be above 0 seconds") }
        if let duration, duration <= 0 { throw UsageError("--duration \(duration) must be above 0 seconds") }
        let zoom = try pipeline.zoomSlider()
        let platform = try gpuOptions.platform(), version = try gpuOptions.version()
        let keys = KeyReader()
        defer { keys.restore() }
        let status = StatusLine()
        let thread = RenderThread()
        defer { thread.shutdown() }
        let summary = try thread.sync { () -> String in
            let context = try GPUContext(platform: platform, version: version, logger: logger)
            let renderer = try FrameRenderer(context: context, settings: settings)
            let session = try CameraSession(renderer: renderer, configuration: sourceOptions) { logger.info("\($0)") }
            let preview = LivePreview(session: session, zoom: zoom, output: png, pngEvery: pngEvery,
                                      status: status, statusEvery: statusEvery)
            try preview.run(until: duration, keys: keys, logger: logger)
            try png?.finish()
            return preview.summary
        }
        status.finish(summary)
    }
}
