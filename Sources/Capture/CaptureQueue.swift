import Foundation
import Lifecycle
import Pixels

/// Captures on a thread of its own and hands frames over through a bounded
/// queue, as `AVCaptureVideoDataOutput` with `alwaysDiscardsLateVideoFrames`:
/// when the consumer falls behind, the oldest waiting frame goes back to the
/// driver (counted in `captureStatistics.lateDrops`) instead of piling up. A frame the consumer
/// took stays valid until it asks for the next one.
public final class CaptureQueue: FrameSource {
    public var camera: LiveCamera? { state.camera }
    private var device: CameraSource { state.camera }
    private let state: State
    private let thread: JoinableThread

    /// At most `depth` frames wait for the consumer.
    public init(camera: CameraSource, depth: Int = 1) {
        let state = State(camera: camera, depth: max(1, depth))
        self.state = state
        thread = JoinableThread(name: "kamera.capture") { state.run() }
    }

    deinit { stop() }

    /// Stops the capture thread (and waits until it has exited) and the
    /// camera, releasing the device; frames already taken stay readable.
    public func stop() {
        state.stop()
        thread.join()
        state.camera.stop()
    }

    public var summary: String { device.summary }

    public var captureStatistics: CaptureStatistics? { state.withLock { state.statistics } }

    /// The oldest waiting frame; blocks until one comes (nil when a stop
    /// signal came first). Errors of the capture thread (an unplugged camera)
    /// are thrown here.
    public func nextFrame() throws -> Frame? { try state.next(waiting: nil) }

    /// The oldest waiting frame, or nil when none came within `milliseconds`
    /// (0: only one already waiting) or a stop signal came; errors as `nextFrame`.
    public func nextFrame(waiting milliseconds: Int) throws -> Frame? { try state.next(waiting: milliseconds) }

    private final class State: @unchecked Sendable {
        let camera: CameraSource
        let depth: Int
        private let condition = ConditionLock()
        private var waiting: [(frame: Frame, ticket: Int)] = []
        private var held: Int?
        private var failure: Error?
        private var stopping = false
        var lateDrops = 0
        /// The camera's counts, copied under the lock by the capture thread, which alone updates them.
        var statistics = CaptureStatistics()

        init(camera: CameraSource, depth: Int) {
            self.camera = camera
            self.depth = depth
            waiting.reserveCapacity(depth + 1)
        }

        func withLock<T>(_ body: () -> T) -> T {
            condition.withLock(body)
        }

        func run() {
            while !withLock({ stopping }) {
                do {
                    let dequeued = try camera.dequeue(timeout: 100)
                    // A stop signal makes `dequeue` return at once: the run is ending, nothing more to take.
                    if dequeued == nil && StopSignal.isRequested { break }
                    condition.withLock {
                        if let (frame, ticket) = dequeued {
                            if waiting.count == depth {
                                let late = waiting.removeFirst()
                                try? camera.requeue(late.ticket)
                                lateDrops += 1
                            }
                            waiting.append((frame, ticket))
                            condition.broadcast()
                        }
                        statistics = camera.statistics
                        statistics.lateDrops += lateDrops
                    }
                } catch {
                    withLock { failure = error; condition.broadcast() }
                    break
                }
            }
        }

        /// Asks `run` to return; the owner joins the thread.
        func stop() {
            withLock { stopping = true }
        }

        /// `milliseconds`: nil waits the camera's timeout and throws after it.
        func next(waiting milliseconds: Int?) throws -> Frame? {
            try condition.withLock {
                if let ticket = held {
                    held = nil
                    try camera.requeue(ticket)
                }
                let deadline = MonotonicClock.seconds + Double(milliseconds ?? Int(camera.timeoutMilliseconds)) / 1000
                let undecodedBefore = statistics.undecoded
                while waiting.isEmpty && failure == nil {
                    // In slices, so that a stop signal (delivered to any thread) ends the wait.
                    if StopSignal.isRequested { return nil }
                    let left = deadline - MonotonicClock.seconds
                    if left <= 0 {
                        guard milliseconds == nil else { return nil }
                        throw camera.noFrame(undecoded: statistics.undecoded - undecodedBefore)
                    }
                    condition.wait(seconds: min(left, 0.1))
                }
                if waiting.isEmpty, let failure { throw failure }
                let next = waiting.removeFirst()
                held = next.ticket
                return next.frame
            }
        }
    }
}
