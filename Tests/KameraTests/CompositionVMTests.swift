import Foundation
import XCTest

/// Two vivid cameras composed in the VM (`n_devs=2`: /dev/video0 and
/// /dev/video1 show the same bars), the second inverted by the filter after
/// it. The VM must boot; if it cannot, the test fails.
final class CompositionVMTests: XCTestCase {
    static let script = """
    "$KAMERA" render -v --camera /dev/video0 --camera /dev/video1 --filter invert --layout side --frames 3 -o two-%d.png 2> two.log
    echo $? > two.rc
    """

    static let steps = [VMStep("two-cameras", owner: "\(CompositionVMTests.self)", script: script, vivid: VMStep.twoCameras)]

    /// The last of three pictures: each camera's square side by side, the
    /// right one the left inverted, within 3 of 255 per channel for all but
    /// 1% of the pixels below vivid's text (its clock differs between the two).
    func testTwoViVidCamerasSideBySide() throws {
        let run = VMBoot.loopback.run("two-cameras")
        let log = (try? run.text("two.log")) ?? ""
        XCTAssertEqual(try run.text("two.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", log)
        XCTAssertTrue(log.contains("/dev/video0") && log.contains("/dev/video1"), log)
        let picture = try run.image("two-2.png")
        let half = picture.height
        XCTAssertEqual(picture.width, 2 * half, log)
        var off = 0, compared = 0
        for y in half / 2..<half {
            for x in 0..<half {
                let (left, right) = (picture.pixel(x, y), picture.pixel(x + half, y))
                compared += 1
                if (0..<3).contains(where: { abs(left[$0] + right[$0] - 255) > 3 }) { off += 1 }
            }
        }
        XCTAssertLessThanOrEqual(off, compared / 100, "pixels where the right is not the left inverted: \(off) of \(compared)")
        var colors = Set<Int>()
        for x in stride(from: 0, to: half, by: 8) {
            let p = picture.pixel(x, half * 3 / 4)
            colors.insert(p[0] / 32 * 64 + p[1] / 32 * 8 + p[2] / 32)
        }
        XCTAssertGreaterThanOrEqual(colors.count, 5, "vivid's bars on the left")
    }
}
