import Lifecycle

/// The time a shader sees. Exports are frame-exact: frame N is at N / fps
/// seconds, whatever the wall clock does, so output is reproducible. Live
/// runs follow the clock, and can pause, step a frame and reset.
public final class ShaderClock {
    public enum Mode: Equatable {
        /// Frame `start + index` at `(start + index) / fps` seconds.
        case exact(start: Int)
        /// One still at this time, every frame (`--time T`).
        case still(Double)
        /// The monotonic clock from the first frame.
        case live
    }

    public let mode: Mode
    public let fps: Double
    public private(set) var paused = false
    private var liveTime = 0.0, liveFrame = 0, lastTick: Double?

    public init(mode: Mode, fps: Double) {
        self.mode = mode
        self.fps = fps
    }

    /// Frame number, time and time since the previous frame for output frame `index`.
    public func tick(index: Int) -> (frame: Int, time: Double, delta: Double) {
        switch mode {
        case .exact(let start):
            let frame = start + index
            return (frame, Double(frame) / fps, 1 / fps)
        case .still(let time):
            return (Int(min(time * fps, 1e15).rounded(.down)), time, 1 / fps)
        case .live:
            let now = MonotonicClock.seconds
            let delta = paused ? 0 : now - (lastTick ?? now)
            lastTick = now
            liveTime += delta
            defer { if !paused { liveFrame += 1 } }
            return (liveFrame, liveTime, delta)
        }
    }

    /// Pauses or resumes time (live runs).
    public func togglePause() { paused.toggle() }

    /// Moves one frame (1 / fps seconds) forward or back, and pauses.
    public func step(_ frames: Int) {
        paused = true
        liveFrame = max(0, liveFrame + frames)
        liveTime = max(0, liveTime + Double(frames) / fps)
    }

    /// Back to time 0, frame 0.
    public func reset() {
        liveTime = 0
        liveFrame = 0
    }
}
