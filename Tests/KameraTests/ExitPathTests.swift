import Capture
import Filters
import Foundation
import GPU
import Lifecycle
import Render
import XCTest

/// The exit path: a thread that owns GL or capture state is gone, its
/// thread-specific data destroyed (the GL driver's among them), before its
/// owner lets go of it. A process that exits while such teardown still runs
/// on another thread frees the driver's state twice ("double free or
/// corruption", about 1 run in 150 when this was not so).
///
/// The probe's flag is a plain variable written by a thread-specific data
/// destructor on the exiting thread: under ThreadSanitizer
/// (scripts/sanitize.sh thread) a thread that was not joined is a reported
/// data race on it, and without a sanitizer the flag is not yet set.
final class ExitPathTests: XCTestCase {
    /// Set from a thread-specific data destructor, when the thread exits.
    final class TeardownProbe {
        var finished = false

        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key) { pointer in
                guard let pointer else { return }
                Unmanaged<TeardownProbe>.fromOpaque(pointer).takeRetainedValue().finished = true
            }
            return key
        }()

        /// Arms the probe on the calling thread.
        func attachToCurrentThread() {
            pthread_setspecific(Self.key, Unmanaged.passRetained(self).toOpaque())
        }
    }

    func testRenderThreadTeardownEndsBeforeItsOwnerLetsGo() throws {
        for round in 0..<20 {
            let probe = TeardownProbe()
            do {
                let thread = RenderThread(name: "kamera.exit-test")
                try thread.sync {
                    let context = try GPUContext(platform: .auto)
                    let renderer = try FrameRenderer(context: context, settings: RenderSettings(filters: FilterChain([ColorMatrixFilter(name: "sepia", matrix: .sepia)])))
                    try renderer.render(TestPattern(width: 32, height: 16, format: .yuyv).frame(at: 0), index: 0)
                    probe.attachToCurrentThread()
                }
            }
            XCTAssertTrue(probe.finished, "round \(round): the render thread was still tearing down after its owner let go")
        }
    }

    func testShutdownJoinsAndLaterCallsReturn() throws {
        let probe = TeardownProbe()
        let thread = RenderThread(name: "kamera.exit-test")
        try thread.sync { probe.attachToCurrentThread() }
        thread.shutdown()
        XCTAssertTrue(probe.finished)
        thread.shutdown()
    }

    func testJoinableThreadJoinsItsTeardown() {
        for _ in 0..<20 {
            let probe = TeardownProbe()
            JoinableThread(name: "kamera.exit-test") { probe.attachToCurrentThread() }.join()
            XCTAssertTrue(probe.finished)
        }
    }

    /// A thread that joins itself (its last owner let go on it) detaches instead of deadlocking.
    func testJoiningItselfDetaches() {
        let ready = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var thread: JoinableThread?
        thread = JoinableThread(name: "kamera.exit-test") {
            ready.wait()
            thread?.join()
            done.signal()
        }
        ready.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
    }
}
