import Foundation
import MallocInterposerSwift

/// Counts malloc calls (in every thread, GL driver included) around a measured
/// loop, through ordo-one's malloc interposer, which kamera-bench links (its
/// malloc comes before libc's for every library in the process).
enum AllocationCounter {
    nonisolated(unsafe) private static var probe: UnsafeMutableRawPointer?

    /// True when the interposer is loaded and counting works.
    static let isActive: Bool = {
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        probe = UnsafeMutableRawPointer.allocate(byteCount: 1000, alignment: 16)  // escapes, so it is not optimized away
        MallocInterposerSwift.unhook()
        probe?.deallocate()
        return MallocInterposerSwift.getStatistics().mallocCount > 0
    }()

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
