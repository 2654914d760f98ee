import Capture
import CommandLineSupport
import ArgumentParser
import Foundation
import GPU
import Output
import Pipeline
import Pixels

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Live preview: every frame as it comes, full screen on the console's display (-o kms) or offscreen, with keys and a status line.",
        discussion: """
        Keys: + zoom in and - zoom out (ramps, the factor doubles per second), space stops a ramp,
        n next camera, f next filter preset, [ and ] intensity, c cube or preview, s saves the frame
        as kamera-snapshot-NNNN.jpg (--snapshot-format png: .png; never overwriting, with metadata), r starts and
        stops a recording, kamera-recording-NNNN.mp4 (the --codec, --crf settings; never overwriting), q quits (Ctrl-C too).
        With -o kms the frames are shown full screen on the kernel console's display (DRM/KMS, no X11 or
        Wayland), vsync'd; the console comes back on exit. With -o FILE the latest frame is written there,
        replaced atomically, every --png-every seconds.
        Examples:
          kamera preview -o kms --camera /dev/video0 --filter sepia
          kamera preview -o kms --card /dev/dri/card0 --connector HDMI-A-1 --mode 1920x1080@60 --cube
          kamera preview --camera auto -o live.png
          kamera preview --filter sepia --duration 3 -o live.png
          kamera preview --cube --frames 30 -o spin.y4m
          kamera preview --filter sepia --duration 3 -o live.mp4
          kamera preview -o kms -o clip.mp4 --camera /dev/video0 --audio default
          kamera preview --filter sepia --serve 8080 --duration 3
          kamera preview --camera /dev/video0 -o rtmp://127.0.0.1/live/cam
          kamera preview --camera /dev/video0 --filter sepia -o /dev/video10 --fallback-image Examples/Media/photo.png
        """)

    @Option(name: .shortAndLong, parsing: .unconditionalSingleValue,
            help: "Output, repeatable: kms (full screen on the console's display); a PNG or JPEG that shows the latest frame, replaced every --png-every seconds; a video NAME.mp4|.mov|.mkv|.webm or NAME.y4m (every frame); a live stream rtmp://HOST/APP/KEY, srt://HOST:PORT or rtsp://HOST:PORT/PATH; http://HOST:PORT (as --serve); /dev/videoN (a virtual camera other programs read: a v4l2loopback device, --v4l2-format); - (standard output, with --stream), a FIFO or a device.", completion: Completions.anyFile)
    var output: [String] = []

    @Option(parsing: .unconditional, help: "Stop after this many frames (default: run until q or Ctrl-C).",
            transform: ArgumentValue.frameCount())
    var frames: Int?

    @Option(parsing: .unconditional, help: "Seconds between PNG updates.", transform: ArgumentValue.real("a number of seconds above 0"))
    var pngEvery = 1.0

    @Option(parsing: .unconditional, help: "Stop after this many seconds (default: run until q or Ctrl-C).",
            transform: ArgumentValue.seconds())
    var duration: Double?

    @Option(parsing: .unconditional, help: "Seconds between status lines (default 1, or 2 with -o kms).", transform: ArgumentValue.real("a number of seconds above 0"))
    var statusEvery: Double?

    @Option(parsing: .unconditional, help: "What the s key saves: jpg (with EXIF, --quality) or png.", completion: .list(["jpg", "png"]))
    var snapshotFormat = "jpg"

    @Flag(inversion: .prefixedNo,
          help: "Keep the run going when the camera is lost (unplugged, its driver unbound, or no frame for a second): every output gets a no-signal picture at the run's rate (the last picture dimmed, or --fallback-image) while the camera is opened again each second, and the picture comes back with it. On by default when an output is a virtual camera (-o /dev/videoN).")
    var persistent: Bool?

    @Option(parsing: .unconditional, help: "A PNG or JPEG still shown instead of the dimmed last picture while the camera is lost, filling the frame (with --camera; implies --persistent).", completion: .file(extensions: ["png", "jpg", "jpeg"]))
    var fallbackImage: String?

    @OptionGroup var pipeline: PipelineOptions

    @OptionGroup var outputOptions: OutputOptions

    @OptionGroup var display: DisplayOptions

    @OptionGroup var gpuOptions: GPUOptions
    @OptionGroup var configOption: ConfigOption

    func run() throws {
        let logger = gpuOptions.makeLogger()
        var description = try describeRun(pipeline, outputs: output, outputOptions, display, gpuOptions)
        guard pngEvery > 0 else { throw UsageError("--png-every \(pngEvery) must be above 0 seconds") }
        let statusEvery = self.statusEvery ?? (description.showsOnDisplay ? 2 : 1)
        guard statusEvery > 0 else { throw UsageError("--status-every \(statusEvery) must be above 0 seconds") }
        if let duration, duration <= 0 { throw UsageError("--duration \(duration) must be above 0 seconds") }
        if let frames, frames < 1 { throw UsageError("--frames \(frames) must be at least 1") }
        description.output.every = pngEvery
        description.persistent = persistent
        description.fallbackImage = fallbackImage
        description.paced = true
        guard let snapshotFormat = SnapshotWriter.Format(rawValue: snapshotFormat) else {
            throw UsageError("--snapshot-format \(excerpt(self.snapshotFormat)) is not valid; use jpg or png")
        }
        let builder = try RunBuilder(description)
        let keys = KeyReader()
        defer { keys.restore() }
        let status = StatusLine(style: gpuOptions.quiet ? .quiet : .status)
        let thread = RenderThread()
        defer { thread.shutdown() }
        let summary = try thread.sync { () -> String in
            let run = try builder.build(logger: logger)
            // Said once the run is sure to start, so that an error is the only line when it is not.
            if description.outputs.isEmpty {
                logger.notice("no -o: the frames are rendered offscreen and shown nowhere; add -o kms for the console's display, -o live.png for a picture kept current, or -o clip.y4m")
            }
            let (loop, session, renderer) = (run.loop, run.session, run.renderer)
            loop.keys = keys.next
            let controls = LiveControls(session: session, zoom: loop.zoom, filters: pipeline.filter, intensity: pipeline.intensity,
                                        snapshots: SnapshotWriter(format: snapshotFormat, jpeg: description.output.jpeg),
                                        recordings: run.recordings, software: description.software,
                                        strip: description.output.strip)
            controls.onMessage = status.show
            loop.controls = controls
            if let server = builder.sinks.lazy.compactMap({ $0 as? ServeSink }).first {
                loop.remote = server.takeRequest
                controls.onRecording = server.recordingChanged
            }
            loop.statusInterval = statusEvery
            loop.onStatus = { _ in status.show(loop.statusText) }
            do {
                try loop.run(frames: frames, duration: duration)
            } catch {
                // What was recorded before the failure is finished (trailer, index) and said.
                builder.saveAfterFailure()
                throw PartialRunError(error: error, builder: builder)
            }
            var summary = loop.statistics.summary(verb: "previewed")
            if let analysis = loop.analysis {
                let a = analysis.statistics
                summary += "; analysed \(a.analysed), skipped \(a.skippedBusy) while busy and \(a.skippedRate) for the rate"
            }
            if let screen = run.display { summary += " on \(screen.summary); \(screen.flips) page flips completed" }
            if let noSignal = loop.noSignal, noSignal.losses + noSignal.repeats > 0 {
                summary += "; the camera was lost \(noSignal.losses) \(noSignal.losses == 1 ? "time" : "times"), \(loop.statistics.noSignalFrames) no-signal frames sent"
                    + ", \(noSignal.repeats) repeated while it was late"
            }
            if let capture = session.source?.captureStatistics {
                summary += "; camera \(capture)"
            } else {
                let late = loop.statistics.lateFrames
                summary += String(format: "; %d %@ late (over 1/%g s behind the input's pace)", late, late == 1 ? "frame" : "frames", renderer.settings.rate)
            }
            return summary
        }
        status.finish(summary)
    }
}
