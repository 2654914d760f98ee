import Glibc
import Messages
import Synchronization

/// Keeps a stop from waiting on the GPU. The render thread marks the GPU work
/// in hand (a frame, a shader compile); the thread waiting on it (`check()`,
/// called by `RenderThread.sync` every 100 ms) ends the process when that work
/// outlasts a stop by `grace` seconds, or any frame by `frameTimeout`: a
/// shader with an endless loop cannot be interrupted inside the driver. The
/// terminal and the console are put back first, one line says what was
/// running, and the process ends by the signal (after a stop) or with status 1
/// (a frame timeout). Marking is two atomic stores: nothing is allocated.
public enum GPUWatchdog {
    public enum Work: Int32, Sendable {
        case idle = 0, frame, compile
    }

    /// What was in hand before `begin`, for `end` to restore (a compile inside a frame).
    public struct Token: Sendable {
        fileprivate let state: Int64
        fileprivate let frame: Int64
    }

    /// The work in hand and when it began, in one word (`since << 2 | kind`) so
    /// that `check` never pairs one work's kind with another's start time: the
    /// time restored by `end` is a stale one, which read beside a live kind
    /// would end the process at once.
    private static let state = Atomic<Int64>(0)
    private static let frame = Atomic<Int64>(0)
    private static let timeoutNanoseconds = Atomic<Int64>(60_000_000_000)
    private static let stopSeenAt = Atomic<Int64>(0)

    /// Seconds GPU work may go on after a stop before the process ends without it.
    public static let grace = 2.0

    /// The longest a frame or compile may take (`--frame-timeout`); default 60 s,
    /// which no normal frame reaches even on a software renderer.
    public static var frameTimeout: Double {
        get { Double(timeoutNanoseconds.load(ordering: .relaxed)) / 1e9 }
        set { timeoutNanoseconds.store(Int64(min(newValue, 1e9) * 1e9), ordering: .relaxed) }
    }

    /// Marks the start of GPU work; pass the token to `end`.
    @inline(__always)
    public static func begin(_ work: Work, frame number: Int = 0) -> Token {
        let token = Token(state: state.load(ordering: .relaxed), frame: frame.load(ordering: .relaxed))
        frame.store(Int64(number), ordering: .relaxed)
        state.store(MonotonicClock.nanoseconds << 2 | Int64(work.rawValue), ordering: .releasing)
        return token
    }

    @inline(__always)
    public static func end(_ token: Token) {
        frame.store(token.frame, ordering: .relaxed)
        state.store(token.state, ordering: .releasing)
    }

    /// Called by a thread waiting on the GPU's thread: ends the process when
    /// the work in hand outlasts a stop by `grace` or any frame by `frameTimeout`.
    public static func check() {
        let inHand = state.load(ordering: .acquiring)
        let work = Work(rawValue: Int32(inHand & 3)) ?? .idle
        let t = MonotonicClock.nanoseconds
        if StopSignal.isRequested {
            if stopSeenAt.load(ordering: .relaxed) == 0 { stopSeenAt.store(t, ordering: .relaxed) }
        }
        guard work != .idle else { return }
        let started = inHand >> 2
        let stoppedAt = stopSeenAt.load(ordering: .relaxed)
        if stoppedAt != 0, t - max(started, stoppedAt) >= Int64(grace * 1e9) {
            fire(work, seconds: grace, afterStop: true)
        }
        if t - started >= timeoutNanoseconds.load(ordering: .relaxed) {
            fire(work, seconds: frameTimeout, afterStop: false)
        }
    }

    private static func fire(_ work: Work, seconds: Double, afterStop: Bool) -> Never {
        StopSignal.restoreForExit()
        let time = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        let what: String
        switch work {
        case .compile: what = "the shader compiler did not finish in \(time) s: a shader too large or too deeply nested to compile?"
        default: what = "the GPU did not finish frame \(frame.load(ordering: .relaxed)) in \(time) s: a shader with an endless loop or too much work per pixel?"
        }
        let line = afterStop
            ? "kamera: \(what) Ended by the signal without waiting for it\n"
            : "kamera: error: \(what) (\(Setting.frameTimeout) \(time)); ended without it\n"
        line.withCString { _ = write(STDERR_FILENO, $0, strlen($0)) }
        if afterStop { StopSignal.endProcessBySignal() }
        fflush(nil)
        _exit(1)
    }
}
