import CDRM
import Glibc
import Lifecycle

/// Waits for the flip event of the last requested page flip: the frame is on
/// screen and the buffer shown before it is free again.
public final class PageFlipWaiter {
    private let fd: Int32
    private var context = drmEventContext()
    /// Set by the event handler through the user-data pointer.
    private let completed = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
    public private(set) var pending = false
    /// Flips completed so far.
    public private(set) var flips = 0

    public init(fd: Int32) {
        self.fd = fd
        completed.initialize(to: false)
        context.version = 2
        context.page_flip_handler = { _, _, _, _, data in
            data?.assumingMemoryBound(to: Bool.self).pointee = true
        }
    }

    deinit { completed.deallocate() }

    /// The user-data pointer to pass with a flip request.
    public var userData: UnsafeMutableRawPointer { UnsafeMutableRawPointer(completed) }

    /// Call after a flip was requested.
    public func flipRequested() {
        completed.pointee = false
        pending = true
    }

    /// Returns once the pending flip has completed (at once when none is
    /// pending). A flip that takes over `timeout` seconds is an error.
    public func wait(timeout: Double = 2) throws {
        guard pending else { return }
        let deadline = MonotonicClock.seconds + timeout
        while !completed.pointee {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let left = deadline - MonotonicClock.seconds
            guard left > 0 else { throw DRMError("the display did not complete a page flip in \(Int(timeout)) s") }
            let ready = poll(&poller, 1, Int32(min(left, 0.1) * 1000))
            if ready < 0 && errno != EINTR { throw DRMError("waiting for a page flip: \(DRMError.reason(errno))") }
            if ready > 0 { drmHandleEvent(fd, &context) }
        }
        pending = false
        flips += 1
    }
}
