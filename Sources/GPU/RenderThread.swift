import CEGL
import Foundation
import Lifecycle

/// A thread that owns a GPU context: EGL contexts are bound to one thread, so
/// all GL work is handed to this thread, and Swift concurrency tasks (which hop
/// threads) never call GL themselves. The thread is joined when the object
/// goes away (or at `shutdown()`), so no GL teardown outlives it.
public final class RenderThread: @unchecked Sendable {
    private let queue = JobQueue()
    private let thread: JoinableThread

    public init(name: String = "kamera.render") {
        let queue = self.queue
        // A large stack, reserved not committed: Mesa's GLSL compiler recurses
        // per term of an expression, and a long user shader crashed at 8 MiB.
        thread = JoinableThread(name: name, stackSize: 512 << 20) {
            queue.run()
            // Let go of EGL's per-thread state here, not in its exit-time destructors.
            eglReleaseThread()
        }
    }

    deinit { shutdown() }

    /// Runs the jobs already queued, then stops the thread and waits until it
    /// has exited. Later calls return at once.
    public func shutdown() {
        queue.stop()
        thread.join()
    }

    /// Runs `body` on the render thread and waits for its result. Throws
    /// when the thread has been shut down.
    public func sync<T>(_ body: @escaping () throws -> T) throws -> T {
        let done = ConditionLock()
        var result: Result<T, Error>?
        let queued = queue.enqueue {
            let outcome = Result { try body() }
            done.withLock {
                result = outcome
                done.broadcast()
            }
        }
        guard queued else { throw GPUError("the render thread has been shut down") }
        // While waiting, watch the GPU work in hand: a stop never waits on a stuck frame.
        while true {
            let outcome: Result<T, Error>? = done.withLock {
                if result == nil { done.wait(seconds: 0.1) }
                return result
            }
            if let outcome { return try outcome.get() }
            GPUWatchdog.check()
        }
    }
}

private final class JobQueue: @unchecked Sendable {
    private let condition = ConditionLock()
    private var jobs: [() -> Void] = []
    private var stopping = false

    /// Queues `job`; false once the queue is stopping.
    func enqueue(_ job: @escaping () -> Void) -> Bool {
        condition.withLock {
            guard !stopping else { return false }
            jobs.append(job)
            condition.signal()
            return true
        }
    }

    func stop() {
        condition.withLock {
            stopping = true
            condition.signal()
        }
    }

    func run() {
        while true {
            let job: (() -> Void)? = condition.withLock {
                while jobs.isEmpty && !stopping { condition.wait() }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }
            guard let job else { return }
            job()
        }
    }
}
