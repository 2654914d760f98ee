import Capture
import Foundation

/// What the frame loop has done so far.
public struct LoopStatistics: Sendable {
    /// Frames rendered and handed to the sinks.
    public var frames = 0
    /// Seconds since the loop started.
    public var elapsed = 0.0
    /// Frames per second since the last status.
    public var recentFPS = 0.0
    /// Process CPU time per wall second since the last status, in percent
    /// (all threads: 200 % is two cores busy).
    public var cpuPercent = 0.0
    /// Process CPU milliseconds per frame over the whole run.
    public var cpuMillisecondsPerFrame = 0.0
    /// What the camera captured and dropped, at the last status; nil for
    /// sources that are not live.
    public var capture: CaptureStatistics?
    /// Frames of a paced input (a file, the test pattern) taken more than one
    /// frame interval after they were due: a camera at that rate would have
    /// dropped them.
    public var lateFrames = 0
    /// Frames of the no-signal picture sent while the camera was lost (`--persistent`).
    public var noSignalFrames = 0
    /// How the last frame reached the GPU: "copy" or "dmabuf".
    public var upload = "copy"

    public var averageFPS: Double { elapsed > 0 ? Double(frames) / elapsed : 0 }

    /// "frame 12 of 100, 30.1 fps, 3 s left"
    public func progress(of total: Int?) -> String {
        let rate = recentFPS > 0 ? recentFPS : averageFPS
        let fps = String(format: "%.1f fps", rate)
        guard let total else { return "frame \(frames), \(fps)" }
        let left = rate > 0 ? String(format: ", %.0f s left", Double(total - frames) / rate) : ""
        return "frame \(frames) of \(total), \(fps)\(left)"
    }

    /// "rendered 100 frames in 3.2 s (31.0 fps)"
    public func summary(verb: String) -> String {
        String(format: "%@ %d %@ in %.1f s (%.1f fps)", verb, frames, frames == 1 ? "frame" : "frames", elapsed, averageFPS)
    }
}
