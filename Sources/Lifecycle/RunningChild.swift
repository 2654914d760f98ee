import Glibc

/// A child process started by `ChildProcess.start()` that runs beside this
/// one. Its owner stops and reaps it; one still running when its owner lets
/// go of it, or when this process exits, is killed and reaped then, so that
/// no child outlives Kamera and its time counts as Kamera's (time(1), a
/// parent's rusage).
public final class RunningChild {
    public let pid: pid_t
    private let state = Lock()
    private var status: Int32?

    init(pid: pid_t) {
        self.pid = pid
        RunningChildren.track(self)
    }

    deinit { _ = stop() }

    /// Kills it (SIGKILL) unless it has been reaped, and reaps it; its wait
    /// status (as `waitpid` gives it). Once reaped, the same status again.
    @discardableResult
    public func stop() -> Int32 {
        state.withLock {
            if let status { return status }
            kill(pid, SIGKILL)
            var found: Int32 = 0
            while waitpid(pid, &found, 0) < 0 && errno == EINTR {}
            status = found
            RunningChildren.forget(self)
            return found
        }
    }

    /// Why it ended, from a wait status: "signal 6 (Aborted)" or "status 3"; nil when SIGKILL ended it.
    public static func describe(_ status: Int32) -> String? {
        let signal = status & 0x7f
        if signal == SIGKILL { return nil }
        if signal != 0 { return "signal \(signal) (\(String(cString: strsignal(signal))))" }
        return "status \((status >> 8) & 0xff)"
    }
}

/// The children running beside this process, by pid, killed and reaped at
/// its exit (by pid, so that a child's owner going away meanwhile is safe).
enum RunningChildren {
    private static let lock = Lock()
    nonisolated(unsafe) private static var live: Set<pid_t> = []
    nonisolated(unsafe) private static var registered = false

    static func track(_ child: RunningChild) {
        lock.withLock {
            live.insert(child.pid)
            if !registered {
                registered = true
                atexit { RunningChildren.stopAll() }
            }
        }
    }

    static func forget(_ child: RunningChild) {
        lock.withLock { _ = live.remove(child.pid) }
    }

    private static func stopAll() {
        let pids = lock.withLock { live }
        for pid in pids {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        }
    }
}
