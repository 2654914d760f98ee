import Analysis
import Render
import XCTest

/// The boxes `@faces` filters draw through, frame after frame: grown at once
/// over a face that moved out of its box, shrunk by 0.3 of the way a frame,
/// held 15 frames after the last detection, then gone.
final class FaceSmootherTests: XCTestCase {
    func face(_ x: Int, _ y: Int, _ w: Int, _ h: Int, track: Int) -> DetectedObject {
        var object = DetectedObject(type: "face", bounds: PixelBox(x: x, y: y, width: w, height: h))
        object.track = track
        return object
    }

    func testBoxesCoverAtOnceShrinkSlowlyAndOutlastAMissedDetection() {
        let smoother = FaceSmoother(follow: 0.3, hold: 15)
        XCTAssertEqual(smoother.update([face(100, 100, 50, 50, track: 1)]), [PixelBox(x: 100, y: 100, width: 50, height: 50)])
        // Moved right by 20: the right edge follows at once, the left one by 0.3 of the way (106).
        XCTAssertEqual(smoother.update([face(120, 100, 50, 50, track: 1)]), [PixelBox(x: 106, y: 100, width: 64, height: 50)])
        var box = PixelBox(x: 0, y: 0, width: 0, height: 0)
        for _ in 0..<30 { box = smoother.update([face(120, 100, 50, 50, track: 1)])[0] }
        XCTAssertEqual(box, PixelBox(x: 119, y: 100, width: 51, height: 50), "settled on the face, within a pixel")
        // Missed for 15 frames: still there; the 16th: gone.
        for i in 0..<15 { XCTAssertEqual(smoother.update([]).count, 1, "missed frame \(i + 1) keeps the box") }
        XCTAssertEqual(smoother.update([]), [])
        // Codes are no faces; an untracked face is drawn as found.
        var code = DetectedObject(type: "qr", value: "x", bounds: PixelBox(x: 1, y: 1, width: 9, height: 9))
        code.track = 7
        XCTAssertEqual(smoother.update([code, face(5, 6, 7, 8, track: 0)]), [PixelBox(x: 5, y: 6, width: 7, height: 8)])
    }

    func testTwoFacesKeepTheirOwnBoxes() {
        let smoother = FaceSmoother()
        _ = smoother.update([face(0, 0, 10, 10, track: 1), face(100, 0, 10, 10, track: 2)])
        let boxes = smoother.update([face(100, 0, 10, 10, track: 2), face(0, 0, 12, 12, track: 1)])
        XCTAssertEqual(boxes, [PixelBox(x: 0, y: 0, width: 12, height: 12), PixelBox(x: 100, y: 0, width: 10, height: 10)])
    }
}
