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

    @Option(name: .shortAndLong, help: "PNG that shows the latest frame, rewritten every --png-every seconds.")
    var output: String?

    @Option(help: "Seconds between PNG updates.")
    var pngEvery = 1.0

    @Option(help: "Stop after this many seconds (default: run until q or Ctrl-C).")
    var duration: Double?

    @Option(help: "Seconds between status lines.")
    var statusEvery = 1.0

    @OptionGroup var pipeline: PipelineOptions

    @OptionGroup var gpuOptions: GPUOptions

    func run() throws {
        try reportingErrors {
            let logger = gpuOptions.makeLogger()
            let (sourceOptions, settings) = try pipeline.makePipeline()
            if let output {
                let pattern = try OutputPattern(output)
                guard !pattern.isSequence else { throw UsageError("-o \(output): preview keeps one PNG up to date; give a name without %d") }
                try PNGWriter.checkFolder(of: output)
            }
            guard pngEvery > 0, statusEvery > 0 else { throw UsageError("--png-every and --status-every must be above 0 seconds") }
            if let duration, duration <= 0 { throw UsageError("--duration \(duration) must be above 0 seconds") }
            let platform = try gpuOptions.platform(), version = try gpuOptions.version()
            signal(SIGINT) { _ in interrupted = 1 }
            signal(SIGTERM) { _ in interrupted = 1 }
            let keys = KeyReader()
            defer { keys.restore() }
            let status = StatusLine()
            let summary = try RenderThread().sync { () -> String in
                let context = try GPUContext(platform: platform, version: version, logger: logger)
                let renderer = try FrameRenderer(context: context, settings: settings)
                let session = try CameraSession(renderer: renderer, configuration: sourceOptions) { logger.info("\($0)") }
                let preview = LivePreview(session: session, zoom: pipeline.zoom, output: output, pngEvery: pngEvery,
                                          status: status, statusEvery: statusEvery)
                try preview.run(until: duration, keys: keys, logger: logger)
                return preview.summary
            }
            status.finish(summary)
        }
    }
}
