import CommandLineSupport
import ArgumentParser
import Foundation
import MallocInterposerSwift

/// Counts malloc calls (in every thread, GL driver included) around a measured
/// loop, through ordo-one's malloc interposer, which must be preloaded.
enum AllocationCounter {
    static let library = "libMallocInterposerSwift.so"
    nonisolated(unsafe) private static var probe: UnsafeMutableRawPointer?

    /// True when the interposer is preloaded and counting works.
    static let isActive: Bool = {
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        probe = UnsafeMutableRawPointer.allocate(byteCount: 1000, alignment: 16)  // escapes, so it is not optimized away
        MallocInterposerSwift.unhook()
        probe?.deallocate()
        return MallocInterposerSwift.getStatistics().mallocCount > 0
    }()

    /// Re-runs this process with the interposer preloaded when it is beside the
    /// binary and not loaded yet; returns true when the child ran.
    static func reexecWithInterposerIfNeeded() throws -> Bool {
        guard !isActive, ProcessInfo.processInfo.environment["KAMERA_BENCH_CHILD"] == nil else { return false }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidates = [Bundle.main.executableURL?.deletingLastPathComponent(), binary.deletingLastPathComponent()]
            .compactMap { $0?.appendingPathComponent(library).path }
        guard let preload = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }),
              let executable = Bundle.main.executableURL else { return false }
        let process = Process()
        process.executableURL = executable
        process.arguments = Array(CommandLine.arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = preload
        environment["KAMERA_BENCH_CHILD"] = "1"
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        // The child has said what went wrong; end with its status, saying nothing more.
        if process.terminationStatus != 0 { throw ExitCode(process.terminationStatus) }
        return true
    }

    static func start() {
        guard isActive else { return }
        MallocInterposerSwift.reset()
        MallocInterposerSwift.hook()
    }

    struct Counts {
        var allocations: Int
        var frees: Int
        /// Bytes allocated minus bytes freed.
        var netBytes: Int
    }

    /// Allocations and frees since `start`, or nil when counting is off.
    static func stop() -> Counts? {
        guard isActive else { return nil }
        MallocInterposerSwift.unhook()
        let s = MallocInterposerSwift.getStatistics()
        return Counts(allocations: s.mallocCount, frees: s.freeCount, netBytes: s.mallocBytesCount - s.freeBytesCount)
    }
}
