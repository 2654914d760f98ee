import Foundation
import Lifecycle
import XCTest

/// The watchdog reads the work in hand while the render thread marks it: a
/// read that pairs a live frame with the stale start time that `end` puts
/// back would end this test process at once ("did not finish frame 0 in 60 s").
final class WatchdogTests: XCTestCase {
    func testChecksDuringBackToBackFramesNeverSeeAStaleStart() {
        let done = DispatchSemaphore(value: 0)
        Thread {
            let deadline = MonotonicClock.seconds + 1.5
            var frame = 0
            while MonotonicClock.seconds < deadline {
                let outer = GPUWatchdog.begin(.frame, frame: frame)
                let inner = GPUWatchdog.begin(.compile)
                GPUWatchdog.end(inner)
                GPUWatchdog.end(outer)
                frame += 1
            }
            done.signal()
        }.start()
        var checks = 0
        while done.wait(timeout: .now()) == .timedOut {
            GPUWatchdog.check()
            checks += 1
        }
        XCTAssertGreaterThan(checks, 1000, "the checks ran while frames were marked")
    }
}
