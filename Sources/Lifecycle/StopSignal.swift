import Glibc
import Synchronization

/// SIGINT (Ctrl-C), SIGTERM and the other terminating signals (`stopSignals`) as a request to stop, kept in a flag that the
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
    // Lock-free atomics: the handler may run on any thread, and the frame
    // loop reads the flag on the render thread.
    private static let signal = Atomic<Int32>(0)
    private static let hasTerminal = Atomic<Bool>(false)
    private static let hasRestorer = Atomic<Bool>(false)
    nonisolated(unsafe) private static var restorer: (@convention(c) () -> Void)?
    // Written before `hasTerminal` is set (release), read after it is seen (acquire).
    nonisolated(unsafe) private static let terminal: UnsafeMutablePointer<termios> = {
        let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        pointer.initialize(to: termios())
        return pointer
    }()

    /// The signals that ask Kamera to stop: Ctrl-C, SIGTERM, a closed terminal
    /// or `systemctl reload` (SIGHUP), Ctrl-\\ (SIGQUIT, which would otherwise
    /// print a crash report), and the rest whose default is to end the process.
    public static let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF]

    /// Installs the handlers. Call it first thing, before any work starts;
    /// `alreadyReceived`: a stop signal caught before (`CEarlyStop`), or 0.
    public static func install(alreadyReceived: Int32 = 0) {
        _ = signal.load(ordering: .relaxed)
        _ = hasTerminal.load(ordering: .relaxed)
        _ = terminal
        _ = hasRestorer.load(ordering: .relaxed)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { signal in StopSignal.handle(signal) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for number in stopSignals { sigaction(number, &action, nil) }
        if alreadyReceived != 0 { _ = signal.compareExchange(expected: 0, desired: alreadyReceived, ordering: .sequentiallyConsistent) }
        Glibc.signal(SIGPIPE, SIG_IGN)
        // A file over the size limit is a write error with a message, not a silent end.
        Glibc.signal(SIGXFSZ, SIG_IGN)
    }

    private static func handle(_ number: Int32) {
        let (first, _) = signal.compareExchange(expected: 0, desired: number, ordering: .sequentiallyConsistent)
        guard !first else { return }
        if hasTerminal.load(ordering: .acquiring) { tcsetattr(STDIN_FILENO, TCSANOW, terminal) }
        if hasRestorer.load(ordering: .acquiring) { restorer?() }
        disableCoreDumps()
        Glibc.signal(number, SIG_DFL)
        raise(number)
    }

    /// The signal that asked to stop, or 0.
    public static var received: Int32 { signal.load(ordering: .sequentiallyConsistent) }

    /// True once SIGINT or SIGTERM came.
    public static var isRequested: Bool { received != 0 }

    /// Terminal attributes to put back if a second signal ends the process at
    /// once; nil when the terminal is already restored.
    public static func restoreOnForcedExit(_ attributes: termios?) {
        hasTerminal.store(false, ordering: .releasing)
        if let attributes {
            terminal.pointee = attributes
            hasTerminal.store(true, ordering: .releasing)
        }
    }

    /// A function that puts a device back (the console under KMS) if a second
    /// signal ends the process at once; it must be safe in a signal handler.
    /// nil once the device is restored.
    public static func restoreOnForcedExit(calling function: (@convention(c) () -> Void)?) {
        hasRestorer.store(false, ordering: .releasing)
        if let function {
            restorer = function
            hasRestorer.store(true, ordering: .releasing)
        }
    }

    /// No core file when a signal's default action would write one (SIGQUIT's
    /// does): a stop asked for is not a crash. Safe in a signal handler.
    public static func disableCoreDumps() {
        var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
    }

    /// Puts the terminal and the device back, as a second signal would, for a
    /// process about to end without unwinding (`GPUWatchdog`).
    public static func restoreForExit() {
        if hasTerminal.load(ordering: .acquiring) { tcsetattr(STDIN_FILENO, TCSANOW, terminal) }
        if hasRestorer.load(ordering: .acquiring) { restorer?() }
    }

    /// Ends the process by the signal that asked it to stop, once everything is
    /// cleaned up and every thread joined: the parent sees the signal (a shell
    /// prints status 128 + n). Flushes standard output first.
    public static func endProcessBySignal() -> Never {
        let number = received == 0 ? SIGTERM : received
        fflush(nil)
        disableCoreDumps()
        Glibc.signal(number, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        sigprocmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        _exit(128 + number)
    }
}
