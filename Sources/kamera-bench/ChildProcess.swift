import ArgumentParser
import Foundation
import Glibc
import Lifecycle

/// A whole process run to its end, with what it cost: wall time and the CPU
/// time of the process and every thread it had (getrusage through wait4), so
/// peers are measured the same way whatever they report of themselves.
struct ChildProcess {
    struct Result {
        var status: Int32
        var seconds: Double
        var cpuSeconds: Double
        var output: String
    }

    var executable: String
    var arguments: [String]
    /// Extra environment (e.g. LD_PRELOAD) on top of this process's.
    var environment: [String: String] = [:]

    /// Runs it with standard input a pipe that stays open and empty (kmscube
    /// stops once stdin is readable) and stdout and stderr captured together.
    /// A stop asked of the bench (Ctrl-C, SIGTERM) is passed on to the child,
    /// and the bench ends once it has.
    func run() throws -> Result {
        try BenchStop.check()
        var input: [Int32] = [-1, -1], output: [Int32] = [-1, -1]
        guard pipe(&input) == 0, pipe(&output) == 0 else { throw BenchError("pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, output[1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, output[1], STDERR_FILENO)
        for fd in input + output { posix_spawn_file_actions_addclose(&actions, fd) }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let start = MonotonicClock.seconds
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(input[0])
        close(output[1])
        defer { close(input[1]) }
        guard spawned == 0 else {
            close(output[0])
            throw BenchError("\(executable): cannot start: \(String(cString: strerror(spawned)))")
        }
        var text = Data(), chunk = [UInt8](repeating: 0, count: 65536), forwarded = false
        var readable = pollfd(fd: output[0], events: Int16(POLLIN), revents: 0)
        while true {
            if StopSignal.isRequested && !forwarded {
                kill(pid, StopSignal.received)
                forwarded = true
            }
            // A tenth of a second at most between looks at the stop flag.
            let ready = poll(&readable, 1, 100)
            if ready < 0 && errno != EINTR { break }
            guard ready > 0 else { continue }
            let count = read(output[0], &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            text.append(contentsOf: chunk[..<count])
        }
        close(output[0])
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        try BenchStop.check()
        let seconds = MonotonicClock.seconds - start
        func time(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Result(status: exit, seconds: seconds, cpuSeconds: time(usage.ru_utime) + time(usage.ru_stime),
                      output: String(decoding: text, as: UTF8.self))
    }
}

/// A stop asked by a signal ends the bench between measurements: `check`
/// throws a silent exit, and `runWithOneLineErrors` then ends the process
/// by that signal.
enum BenchStop {
    static func check() throws {
        if StopSignal.isRequested { throw ExitCode.failure }
    }
}

/// A benchmark that could not be measured, with why.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
