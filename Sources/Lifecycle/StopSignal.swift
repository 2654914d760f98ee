import Glibc

/// SIGINT (Ctrl-C) and SIGTERM as a request to stop, kept in a flag that the
/// frame loop reads between frames, so the frame in hand is finished and
/// nothing is left half-written. A second signal ends the process at once,
/// after putting the terminal back (for a run stuck in a blocking call, such
/// as opening a FIFO nobody reads). SIGPIPE is ignored: a closed pipe comes
/// back as a write error with a message instead of killing the process.
///
/// The rule for exit statuses: a run that was asked to stop cleans up, then
/// ends by that same signal (`endProcessBySignal()`), so a shell sees 130 or
/// 143 and systemd sees a clean stop.
public enum StopSignal {
    private struct State {
        var signal: sig_atomic_t = 0
        var hasTerminal: sig_atomic_t = 0
        var terminal = termios()
    }

    // A pointer, not a Swift variable: the handler must not go through the
    // runtime's exclusivity checks or lazy initialization.
    nonisolated(unsafe) private static let state: UnsafeMutablePointer<State> = {
        let pointer = UnsafeMutablePointer<State>.allocate(capacity: 1)
        pointer.initialize(to: State())
        return pointer
    }()

    /// Installs the handlers. Call it first thing, before any work starts.
    public static func install() {
        _ = state
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in StopSignal.handle(signal) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        Glibc.signal(SIGPIPE, SIG_IGN)
    }

    private static func handle(_ signal: Int32) {
        if state.pointee.signal != 0 {
            if state.pointee.hasTerminal != 0 { tcsetattr(STDIN_FILENO, TCSANOW, &state.pointee.terminal) }
            Glibc.signal(signal, SIG_DFL)
            raise(signal)
            return
        }
        state.pointee.signal = signal
    }

    /// The signal that asked to stop, or 0.
    public static var received: Int32 { state.pointee.signal }

    /// True once SIGINT or SIGTERM came.
    public static var isRequested: Bool { state.pointee.signal != 0 }

    /// Terminal attributes to put back if a second signal ends the process at
    /// once; nil when the terminal is already restored.
    public static func restoreOnForcedExit(_ terminal: termios?) {
        state.pointee.hasTerminal = 0
        if let terminal {
            state.pointee.terminal = terminal
            state.pointee.hasTerminal = 1
        }
    }

    /// Ends the process by the signal that asked it to stop, once everything is
    /// cleaned up and every thread joined: the parent sees the signal (a shell
    /// prints status 128 + n). Flushes standard output first.
    public static func endProcessBySignal() -> Never {
        let signal = received == 0 ? SIGTERM : received
        fflush(nil)
        Glibc.signal(signal, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        sigprocmask(SIG_UNBLOCK, &set, nil)
        raise(signal)
        _exit(128 + signal)
    }
}
