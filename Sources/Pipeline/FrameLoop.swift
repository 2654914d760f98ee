import Analysis
import Capture
import Foundation
import GPU
import Lifecycle
import Messages
import Output
import Pixels
import Render
import Synchronization

/// The one frame loop of every command: source → zoom → render → sinks,
/// with pacing for files and the test pattern, the stop flag (SIGINT,
/// SIGTERM), keys, and statistics. Runs on the render thread.
public final class FrameLoop {
    /// Why the loop ended.
    public enum Ending: Equatable, Sendable {
        /// `stopped`: `stop()` was called (`--once` read its code).
        case frameCount, duration, quit, stopSignal, inputEnded, stopped
    }

    public let session: SourceSession
    public let zoom: ZoomController
    public var sinks: [FrameSink]
    /// Also gets every input frame, raw (`--save-input`).
    public var recorder: RawFrameWriter?
    /// Analysers beside the loop: each frame is offered before it is rendered.
    public var analysis: FrameAnalysis?
    /// The frame is drawn through the faces the analysis found (`@faces` filters).
    public var followsFaces = false
    /// The sources after the first and their layout (`--layout`).
    public var composition: Composition?
    /// Keeps a live camera's run going through its loss (`--persistent`).
    public var noSignal: NoSignal?
    /// Where the objects the analysis found go for the overlay to draw.
    public var shown: ShownObjects?
    /// Frames from files and the test pattern come at their rate instead of
    /// as fast as they render (the live preview). Cameras pace themselves.
    public var paced = false
    /// Draws each frame's last pass straight onto a display sink's screen
    /// (false: the picture is drawn offscreen and the display shows it).
    public var drawsOnScreen = true
    /// Frames dropped before the first one rendered (a camera settling);
    /// nil: one second's worth at the camera's rate, none for other sources.
    public var warmup: Int? = 0
    /// Polled between frames for a key press, which `controls` act on.
    public var keys: (() -> UInt8?)?
    public var controls: KeyControls?
    /// Polled between frames for what a client of the server asked (`ServeSink.takeRequest`).
    public var remote: (() -> ControlRequest?)?
    /// Hears the statistics every `statusInterval` seconds.
    public var onStatus: ((LoopStatistics) -> Void)?
    public var statusInterval = 1.0
    /// Hears each rendered frame after the sinks took it.
    public var onFrame: ((RenderedFrame) -> Void)?
    public private(set) var statistics = LoopStatistics()
    /// Called when the run ends other than by a signal; what it throws is the
    /// run's error (`--once` that read no code).
    public var check: (() throws -> Void)?
    private let stopRequested = Atomic<Bool>(false)
    private let faceSmoother = FaceSmoother()

    private var started = 0.0, startCPU = 0.0
    private var lastStatus = 0.0, lastStatusCPU = 0.0, framesAtStatus = 0
    /// The no-signal picture last drawn (`NoSignal.pictureVersion`).
    private var noSignalDrawn = -1

    public init(session: SourceSession, sinks: [FrameSink] = [], zoom: ZoomController? = nil) {
        self.session = session
        self.sinks = sinks
        self.zoom = zoom ?? ZoomController(source: session.source)
    }

    public var renderer: FrameRenderer { session.renderer }

    /// Runs until `frames` frames, `duration` seconds, a quit key, a stop
    /// signal or the end of the input; then finishes the sinks. Throws when
    /// the input holds no frame at all.
    @discardableResult
    public func run(frames limit: Int? = nil, duration: Double? = nil) throws -> Ending {
        started = MonotonicClock.seconds
        startCPU = MonotonicClock.processCPUSeconds
        (lastStatus, lastStatusCPU) = (started, startCPU)
        // The analysis thread is joined on every way out.
        defer { analysis?.stop() }
        let ending = try loop(limit: limit, duration: duration)
        // Stopped by a signal: the frames not yet analysed are dropped (the one in hand
        // stops at once), so that a stop never waits on an analyser.
        if ending == .stopSignal { analysis?.stop() } else { try analysis?.finish() }
        updateStatistics(now: MonotonicClock.seconds, cpu: MonotonicClock.processCPUSeconds)
        for sink in sinks { try sink.finish() }
        try recorder?.finish()
        if ending != .stopSignal { try check?() }
        return ending
    }

    /// Ends the run after the frame in hand; from any thread.
    public func stop() {
        stopRequested.store(true, ordering: .releasing)
    }

    private func loop(limit: Int?, duration: Double?) throws -> Ending {
        try settle()
        // A display sink takes each frame's last pass on its own surface, when it is the only output.
        let screen = drawsOnScreen ? sinks.lazy.compactMap(\.screen).first : nil
        while true {
            if StopSignal.isRequested { return .stopSignal }
            if stopRequested.load(ordering: .acquiring) { return .stopped }
            if let limit, statistics.frames >= limit { return .frameCount }
            var now = MonotonicClock.seconds
            if let duration, now - started >= duration { return .duration }
            if let key = keys?(), let controls, controls.handle(key) == .quit { return .quit }
            if let request = remote?() { controls?.apply(request) }
            if paced && session.configuration.camera == nil {
                // Files and the test pattern come at once: pace them to their rate,
                // in short sleeps so keys and signals are answered meanwhile.
                let due = started + Double(statistics.frames) / renderer.settings.rate
                if due > now {
                    usleep(useconds_t(min(due - now, 0.05) * 1_000_000))
                    continue
                }
                if now - due > 1 / renderer.settings.rate { statistics.lateFrames += 1 }
            }
            try zoom.apply(to: renderer)
            let next: Frame?
            if let noSignal {
                switch try noSignal.next(session: session, main: renderer, now: now) {
                case .frame(let frame):
                    next = frame
                case .wait(let seconds):
                    if seconds > 0 { usleep(useconds_t(min(seconds, 0.05) * 1_000_000)) }
                    continue
                case .picture(let frame):
                    try sendNoSignal(frame, drawnBy: noSignal.renderer!, screen: screen, limit: limit)
                    continue
                }
            } else {
                next = try session.nextFrame()
            }
            guard let frame = next else {
                // A camera's wait ends with no frame when a stop signal came.
                if StopSignal.isRequested { return .stopSignal }
                if statistics.frames == 0 { throw PipelineError("\(session.source?.summary ?? "the input"): holds no frames") }
                return .inputEnded
            }
            try recorder?.append(frame)
            let index = statistics.frames
            if let analysis {
                try analysis.offer(frame, index: index, geometry: outputGeometry(of: frame, screen: screen))
                if followsFaces || shown != nil { show(analysis, index: index) }
            }
            let rendered: RenderedFrame
            if let composition {
                let first = try renderer.draw(frame, index: index)
                rendered = RenderedFrame(index: index, input: frame, picture: try composition.compose(primary: first, index: index),
                                         pixels: composition.compositor, isLast: limit == index + 1)
            } else {
                let picture = try renderer.draw(frame, index: index, onto: screen)
                rendered = RenderedFrame(index: index, input: frame, picture: picture, pixels: renderer, isLast: limit == index + 1,
                                         cameraJPEG: renderer.pictureIsInput ? frame.jpeg : nil)
            }
            for sink in sinks { try sink.consume(rendered) }
            statistics.frames += 1
            onFrame?(rendered)
            now = MonotonicClock.seconds
            if now - lastStatus >= statusInterval {
                updateStatistics(now: now, cpu: MonotonicClock.processCPUSeconds)
                onStatus?(statistics)
            }
        }
    }

    /// Sends the no-signal picture to every output, as a frame of the run.
    private func sendNoSignal(_ frame: Frame, drawnBy drawer: FrameRenderer, screen: RenderTarget?, limit: Int?) throws {
        let index = statistics.frames
        // The same picture again until it changes: drawn once (llvmpipe took most of the CPU drawing it
        // at the camera's rate); a screen is drawn on each frame.
        let version = noSignal?.pictureVersion ?? -1
        let picture: RenderedPicture
        if screen == nil, version == noSignalDrawn, let last = drawer.lastPicture {
            picture = last
        } else {
            picture = try drawer.draw(frame, index: index, onto: screen)
            noSignalDrawn = version
        }
        let rendered = RenderedFrame(index: index, input: frame, picture: picture, pixels: drawer, isLast: limit == index + 1, cameraJPEG: nil)
        for sink in sinks { try sink.consume(rendered) }
        statistics.frames += 1
        if noSignal?.isShowing == true { statistics.noSignalFrames += 1 }
        onFrame?(rendered)
        let now = MonotonicClock.seconds
        if now - lastStatus >= statusInterval {
            updateStatistics(now: now, cpu: MonotonicClock.processCPUSeconds)
            onStatus?(statistics)
        }
    }

    /// Drops the warm-up frames: `warmup` of them, or with nil, a camera's
    /// frames of its first second (by the driver's timestamps, at most 120).
    private func settle() throws {
        guard warmup != 0, warmup != nil || session.source?.camera != nil else { return }
        var first: UInt64?
        var taken = 0
        while warmup.map({ taken < $0 }) ?? (taken < 120) {
            if StopSignal.isRequested { return }
            guard let frame = try session.nextFrame() else {
                if StopSignal.isRequested { return }
                throw PipelineError("\(session.source?.summary ?? "the input") ended during the warm-up frames; use a smaller \(Setting.warmup)")
            }
            taken += 1
            let start = first ?? frame.timestamp
            first = start
            if warmup == nil && frame.timestamp &- start >= 1_000_000_000 { return }
        }
    }

    /// Where `frame`'s pixels land on the output (nil for the cube), for the analysers.
    /// Hands the renderer what the analysis found for frame `index`: offline
    /// runs wait for that frame's own record, so that every run draws the
    /// same; live runs take the newest there is, without waiting.
    private func show(_ analysis: FrameAnalysis, index: Int) {
        let found = analysis.record(for: index)?.result(DetectedObjects.self)
        if followsFaces { renderer.faces = faceSmoother.update(found?.objects ?? []) }
        shown?.objects = found?.objects ?? []
    }

    private func outputGeometry(of frame: Frame, screen: RenderTarget?) -> OutputGeometry? {
        guard case .preview(let layout) = renderer.settings.mode else { return nil }
        let crop = renderer.uploader.cropRectangle(for: frame)
        let size = screen.map { ($0.width, $0.height) } ?? renderer.outputSize(for: frame)
        return OutputGeometry(crop: PixelBox(x: crop.x, y: crop.y, width: crop.width, height: crop.height),
                              outputWidth: size.0, outputHeight: size.1, layout: layout)
    }

    private func updateStatistics(now: Double, cpu: Double) {
        let interval = now - lastStatus
        if interval > 0 {
            statistics.recentFPS = Double(statistics.frames - framesAtStatus) / interval
            statistics.cpuPercent = (cpu - lastStatusCPU) / interval * 100
        }
        statistics.elapsed = now - started
        statistics.cpuMillisecondsPerFrame = statistics.frames > 0 ? (cpu - startCPU) * 1000 / Double(statistics.frames) : 0
        statistics.upload = renderer.uploader.lastPath.rawValue
        statistics.capture = session.source?.captureStatistics
        (lastStatus, lastStatusCPU, framesAtStatus) = (now, cpu, statistics.frames)
    }

    /// The live status line: fps, source, zoom, filters, upload, drops, CPU.
    public var statusText: String {
        let s = statistics
        var parts = [String(format: "%.1f fps", s.recentFPS), renderer.settings.mode == .cube ? "cube" : "preview",
                     session.source?.summary ?? "no source",
                     String(format: "zoom %.2fx %@", zoom.currentFactor, zoom.usesHardware ? "camera" : "digital"),
                     "filter \(renderer.settings.filters.summary)", "upload \(s.upload)"]
        if noSignal?.isShowing == true { parts.insert("NO SIGNAL", at: 2) }
        if s.noSignalFrames > 0 { parts.append("no-signal frames \(s.noSignalFrames)") }
        if let capture = s.capture {
            parts.append(capture.statusText)
        } else if paced {
            parts.append("late \(s.lateFrames)")
        }
        parts += sinks.compactMap(\.statusText)
        if let analysis {
            let a = analysis.statistics
            parts.append("analysed \(a.analysed), skipped \(a.skippedBusy + a.skippedRate)")
        }
        parts.append(String(format: "CPU %.0f%%", s.cpuPercent))
        return parts.joined(separator: " | ")
    }
}
