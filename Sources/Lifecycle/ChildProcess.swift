import Messages
import CProcess
import Glibc

/// A program run to its end from this process: the shader compile sandbox's
/// child, the bench's peers. Standard input is bytes given up front (then
/// closed) or an empty pipe kept open; standard output and error are kept
/// together or dropped. The wait is in steps a stop ends: a stop asked of
/// this process (Ctrl-C, SIGTERM) is passed on to the child, or ends it at
/// once, and `run` then throws `StopRequested`; past `timeLimit` the child is
/// killed. What it cost is measured the same way for every program: wall
/// time, and the CPU time of the process and all its threads (wait4).
public struct ChildProcess {
    public struct Result {
        /// The exit status, or 128 + the signal that ended it.
        public var status: Int32
        /// The signal that ended it, if one did.
        public var signal: Int32?
        public var seconds: Double
        public var cpuSeconds: Double
        /// Standard output and error together (empty when dropped).
        public var output: String
        /// True when it ran past `timeLimit` and was killed.
        public var timedOut: Bool
    }

    public enum Input {
        /// An empty pipe, open until the child ends (kmscube stops once stdin is readable).
        case open
        /// These bytes, then the end of input.
        case bytes([UInt8])
    }

    /// What a stop asked of this process does to the child.
    public enum OnStop {
        /// The same signal is sent to it, and it is waited for.
        case forward
        /// It is killed at once (SIGKILL).
        case kill
    }

    public var executable: String
    public var arguments: [String]
    /// Extra environment (e.g. LD_PRELOAD) on top of this process's.
    public var environment: [String: String]
    public var input: Input
    /// False: the child's output goes to /dev/null.
    public var keepsOutput: Bool
    /// Seconds it may run before it is killed; nil for no limit.
    public var timeLimit: Double?
    public var onStop: OnStop

    public init(executable: String, arguments: [String], environment: [String: String] = [:], input: Input = .open,
                keepsOutput: Bool = true, timeLimit: Double? = nil, onStop: OnStop = .forward) {
        (self.executable, self.arguments, self.environment, self.input) = (executable, arguments, environment, input)
        (self.keepsOutput, self.timeLimit, self.onStop) = (keepsOutput, timeLimit, onStop)
    }

    /// The child's descriptors beyond its standard three, each a copy of one
    /// of this process's (child descriptor: this process's).
    public var descriptors: [Int32: Int32] = [:]
    /// The child's `argv[0]`, when not the executable's path.
    public var name: String?
    /// A process group of its own, so that Ctrl-C at the terminal reaches this process alone.
    public var ownProcessGroup = false

    /// Starts it to run beside this process, with /dev/null for its standard
    /// streams, default signal handling, no signal blocked and no descriptor
    /// of this process's but `descriptors`. It is not waited for: the caller
    /// stops and reaps it (`RunningChild`).
    public func start() throws -> RunningChild {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_RDWR, 0)
        }
        // A descriptor moved onto itself would keep close-on-exec: copies above them all first.
        let highest = descriptors.keys.max() ?? STDERR_FILENO
        var copies: [Int32] = []
        defer { copies.forEach { close($0) } }
        for (child, own) in descriptors.sorted(by: { $0.key < $1.key }) {
            let copy = kamera_dup_above(own, highest + 1)
            guard copy >= 0 else { throw ChildProcessError("\(executable): cannot hand it descriptor \(own): \(String(cString: strerror(errno)))") }
            copies.append(copy)
            posix_spawn_file_actions_adddup2(&actions, copy, child)
        }
        _ = kamera_spawn_closefrom(&actions, highest + 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var every = sigset_t(), none = sigset_t()
        sigfillset(&every)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &every)
        posix_spawnattr_setsigmask(&attributes, &none)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK)
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        let pid = try withUnsafePointer(to: &attributes) { try spawn(&actions, $0) }
        return RunningChild(pid: pid)
    }

    /// The environment it gets: this process's, with `environment` over it.
    private var mergedEnvironment: [String] {
        var merged: [String: String] = [:]
        var cursor = Glibc.environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") { merged[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
            cursor += 1
        }
        merged.merge(environment) { $1 }
        return merged.map { "\($0.key)=\($0.value)" }
    }

    private func spawn(_ actions: inout posix_spawn_file_actions_t, _ attributes: UnsafePointer<posix_spawnattr_t>?) throws -> pid_t {
        let argv = ([name ?? executable] + arguments).map { strdup($0) } + [nil]
        let envp = mergedEnvironment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, attributes, argv, envp)
        guard spawned == 0 else { throw ChildProcessError("\(executable): cannot start: \(String(cString: strerror(spawned)))") }
        return pid
    }

    /// Runs it to its end. Throws `StopRequested` when a stop was asked
    /// before it started or while it ran, and `ChildProcessError` when it could not start.
    public func run() throws -> Result {
        if StopSignal.isRequested { throw StopRequested() }
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
        guard pipe(&inPipe) == 0 else { throw ChildProcessError("\(executable): pipe: \(String(cString: strerror(errno)))") }
        guard pipe(&outPipe) == 0 else {
            inPipe.forEach { close($0) }
            throw ChildProcessError("\(executable): pipe: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], STDIN_FILENO)
        if keepsOutput {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO)
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDERR_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        }
        for fd in inPipe + outPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        let start = MonotonicClock.seconds
        let pid: pid_t
        do {
            pid = try spawn(&actions, nil)
        } catch {
            (inPipe + outPipe).forEach { close($0) }
            throw error
        }
        close(inPipe[0])
        close(outPipe[1])
        var pending: ArraySlice<UInt8> = []
        var writer: Int32 = inPipe[1]
        if case .bytes(let bytes) = input {
            pending = bytes[...]
            _ = fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK)
            if pending.isEmpty { close(writer); writer = -1 }
        }
        var output: [UInt8] = []
        var reader: Int32 = outPipe[0]
        var chunk = [UInt8](repeating: 0, count: 65536)
        var stopSeen = false, timedOut = false
        var status: Int32 = 0
        var usage = rusage()
        var reaped = false
        let exitWatch = kamera_pidfd_open(pid)
        defer { if exitWatch >= 0 { close(exitWatch) } }
        while true {
            if StopSignal.isRequested && !stopSeen {
                stopSeen = true
                kill(pid, onStop == .kill ? SIGKILL : StopSignal.received)
            }
            if let timeLimit, !timedOut, MonotonicClock.seconds - start > timeLimit {
                timedOut = true
                kill(pid, SIGKILL)
            }
            // Once its output has ended (or is dropped), whether it has exited.
            if reader < 0 {
                let waited = wait4(pid, &status, WNOHANG, &usage)
                if waited == pid { reaped = true }
                if reaped || (waited < 0 && errno != EINTR) { break }
            }
            // A tenth of a second at most between looks at the stop flag and the clock.
            var watched: [pollfd] = []
            if reader >= 0 { watched.append(pollfd(fd: reader, events: Int16(POLLIN), revents: 0)) }
            if writer >= 0 && !pending.isEmpty { watched.append(pollfd(fd: writer, events: Int16(POLLOUT), revents: 0)) }
            // Once the output has ended, its exit itself is watched (a pidfd), so that the wall
            // time measured ends when it does; where the kernel has no pidfd, 1 ms steps.
            if reader < 0 && exitWatch >= 0 { watched.append(pollfd(fd: exitWatch, events: Int16(POLLIN), revents: 0)) }
            if watched.isEmpty {
                usleep(1_000)
                continue
            }
            let ready = poll(&watched, nfds_t(watched.count), 100)
            if ready < 0 && errno != EINTR { break }
            guard ready > 0 else { continue }
            for entry in watched where entry.revents != 0 && entry.fd != exitWatch {
                if entry.fd == reader {
                    let count = read(reader, &chunk, chunk.count)
                    if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                    if count > 0 {
                        if keepsOutput { output += chunk[..<count] }
                    } else {
                        close(reader)
                        reader = -1
                    }
                } else if entry.fd == writer {
                    let count = pending.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
                    if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                    // A child that stopped reading early gives EPIPE; what it did is in its status.
                    if count > 0 { pending = pending.dropFirst(count) }
                    if count <= 0 || pending.isEmpty {
                        close(writer)
                        writer = -1
                    }
                }
            }
        }
        if reader >= 0 { close(reader) }
        if writer >= 0 { close(writer) }
        if !reaped {
            while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        }
        let seconds = MonotonicClock.seconds - start
        if stopSeen || StopSignal.isRequested { throw StopRequested() }
        func time(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
        let signalled = (status & 0x7f) != 0
        return Result(status: signalled ? 128 + (status & 0x7f) : (status >> 8) & 0xff, signal: signalled ? status & 0x7f : nil,
                      seconds: seconds, cpuSeconds: time(usage.ru_utime) + time(usage.ru_stime),
                      output: String(decoding: output, as: UTF8.self), timedOut: timedOut)
    }
}

/// A child process that could not be started, with why.
public struct ChildProcessError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}

/// Work given up because a stop was asked (Ctrl-C, SIGTERM): not an error
/// to report; the process then ends by the signal.
public struct StopRequested: Error, CustomStringConvertible {
    public init() {}
    public var description: String { "stopped" }
}
