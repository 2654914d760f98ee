import Lifecycle

/// Hands frames from the render thread to one worker thread, newest first:
/// the render thread copies a frame in and goes on (a frame the worker has
/// not taken yet is replaced, and counted); the worker takes the newest and
/// works on its own copy. Two buffers, made once for the largest frame, so
/// a steady stream allocates nothing.
final class LatestFrameSlot<Facts>: @unchecked Sendable {
    private let lock = ConditionLock()
    private var staging = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var working = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var waiting: Facts?
    private var closed = false
    private var replacedCount = 0

    init() {}

    deinit {
        staging.deallocate()
        working.deallocate()
    }

    /// Frames replaced before the worker took them.
    var replaced: Int { lock.withLock { replacedCount } }

    /// From the render thread: copies `pixels` for the worker.
    func offer(_ pixels: UnsafeRawBufferPointer, _ facts: Facts) {
        lock.withLock {
            if staging.count < pixels.count {
                staging.deallocate()
                staging = .allocate(byteCount: pixels.count, alignment: 64)
            }
            UnsafeMutableRawBufferPointer(rebasing: staging[0..<pixels.count]).copyMemory(from: pixels)
            if waiting != nil { replacedCount += 1 }
            waiting = facts
            lock.signal()
        }
    }

    /// From the worker: waits for the newest frame; its bytes stay valid until
    /// the next call. Nil once the slot is closed.
    func take() -> (pixels: UnsafeRawBufferPointer, facts: Facts)? {
        lock.withLock {
            while waiting == nil && !closed { lock.wait() }
            guard !closed, let facts = waiting else { return nil }
            waiting = nil
            swap(&staging, &working)
            return (UnsafeRawBufferPointer(working), facts)
        }
    }

    /// Ends the worker's waits: `take` returns nil from now on.
    func close() {
        lock.withLock {
            closed = true
            lock.broadcast()
        }
    }
}
