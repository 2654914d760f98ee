import Foundation
import Logging
import Pipeline

/// The live loop of `kamera preview`: takes each frame as it comes, renders
/// it, answers keys, keeps a PNG and a status line up to date. Runs on the
/// render thread.
final class LivePreview {
    let session: CameraSession
    private let zoomer: ZoomController
    private let output: PNGOutput?
    private let pngEvery: Double
    private let status: StatusLine
    private let statusEvery: Double
    private var frames = 0
    private var filterIndex = -1
    private var started = 0.0

    init(session: CameraSession, zoom: Double?, output: PNGOutput?, pngEvery: Double, status: StatusLine, statusEvery: Double) {
        self.session = session
        zoomer = ZoomController(source: session.source)
        if let zoom { zoomer.setSlider(zoom) }
        self.output = output
        self.pngEvery = pngEvery
        self.status = status
        self.statusEvery = statusEvery
    }

    func run(until duration: Double?, keys: KeyReader, logger: Logger) throws {
        let renderer = session.renderer
        started = ZoomController.monotonicSeconds()
        var nextPNG = started, nextStatus = started + statusEvery, framesAtStatus = 0
        logger.info("source: \(session.source?.summary ?? "none"); filters: \(renderer.settings.filters.summary)")
        let paced = session.configuration.camera == nil
        while !StopSignal.isRequested {
            var now = ZoomController.monotonicSeconds()
            if let duration, now - started >= duration { break }
            if let key = keys.next(), try !handle(key, logger: logger) { break }
            if paced {
                // Files and the test pattern come at once: pace them to their rate,
                // in short sleeps so keys and signals are answered meanwhile.
                let due = started + Double(frames) / renderer.settings.rate
                if due > now {
                    usleep(useconds_t(min(due - now, 0.05) * 1_000_000))
                    continue
                }
            }
            try zoomer.apply(to: renderer)
            guard let frame = try session.nextFrame() else { break }
            let pixels = try renderer.render(frame, index: frames)
            frames += 1
            now = ZoomController.monotonicSeconds()
            if let output, now >= nextPNG {
                let size = renderer.outputSize(for: frame)
                try output.write(pixels, width: size.width, height: size.height, index: frames - 1)
                nextPNG = now + pngEvery
            }
            if now >= nextStatus {
                status.show(line(fps: Double(frames - framesAtStatus) / (now - nextStatus + statusEvery)))
                framesAtStatus = frames
                nextStatus = now + statusEvery
            }
        }
    }

    /// Acts on a key; false to quit.
    private func handle(_ key: UInt8, logger: Logger) throws -> Bool {
        switch key {
        case UInt8(ascii: "q"), 27: return false
        case UInt8(ascii: "+"), UInt8(ascii: "="):
            zoomer.rampZoom(to: zoomer.ramp.range.maxFactor, rate: 1)
        case UInt8(ascii: "-"), UInt8(ascii: "_"):
            zoomer.rampZoom(to: 1, rate: 1)
        case UInt8(ascii: " "):
            zoomer.cancelZoomRamp()
        case UInt8(ascii: "n"):
            do {
                let path = try session.nextCamera()
                zoomer.attach(to: session.source)
                status.show("camera: \(session.source?.summary ?? path)")
            } catch {
                status.show("cannot switch camera: \(error)")
            }
        case UInt8(ascii: "f"):
            let presets = FilterPresets.presets
            filterIndex = (filterIndex + 1) % presets.count
            var settings = session.renderer.settings
            settings.filters = try FilterChain(parsing: [presets[filterIndex].name])
            try session.renderer.update(settings)
            status.show("filter: \(presets[filterIndex].name)")
        default: break
        }
        return true
    }

    private func line(fps: Double) -> String {
        var parts = [String(format: "%.1f fps", fps), session.source?.summary ?? "no source",
                     String(format: "zoom %.2fx %@", zoomer.currentFactor, zoomer.usesHardware ? "camera" : "digital"),
                     "filter \(session.renderer.settings.filters.summary)", "upload \(session.renderer.cache.lastPath)"]
        if let queue = session.source as? CaptureQueue {
            parts.append("late \(queue.lateDrops), driver \(queue.camera.driverDrops)")
        }
        return parts.joined(separator: " | ")
    }

    var summary: String {
        let seconds = ZoomController.monotonicSeconds() - started
        return String(format: "previewed %d frames in %.1f s (%.1f fps)", frames, seconds, seconds > 0 ? Double(frames) / seconds : 0)
    }
}
