@testable import Analysis
import Render
import XCTest

/// The tracker alone, frame time by frame time: how long an object may be
/// away and keep its number. The detection tests check the same on clips.
final class ObjectTrackerTests: XCTestCase {
    let code = DetectedObject(type: "qr", value: "TRACK", bounds: PixelBox(x: 100, y: 60, width: 40, height: 40))

    /// The track numbers given at each time; `present` says whether the code is in that frame.
    func tracks(_ frames: [(time: Double, present: Bool)]) -> [Int?] {
        let tracker = ObjectTracker()
        return frames.map { frame in
            var objects = frame.present ? [code] : []
            tracker.assign(&objects, at: frame.time)
            return objects.first?.track
        }
    }

    func testAwayForMoreThanASecondIsANewTrack() {
        // 10 frames a second; away from 1.0 to 2.5 s.
        let frames = (0..<40).map { (time: Double($0) / 10, present: $0 < 10 || $0 >= 25) }
        let numbers = tracks(frames)
        XCTAssertEqual(Set(numbers[0..<10].compactMap { $0 }), [1])
        XCTAssertEqual(Set(numbers[25...].compactMap { $0 }), [2], "a second and a half away: a new track")
    }

    func testAwayForHalfASecondKeepsItsTrack() {
        let frames = (0..<40).map { (time: Double($0) / 10, present: $0 < 10 || $0 >= 15) }
        XCTAssertEqual(Set(tracks(frames).compactMap { $0 }), [1])
    }

    /// No frames for 4.5 s (a stalled camera), then three frames without the
    /// code over a third of a second (it is away for half a second), then the
    /// code again: one track, as the live camera test saw it on a loaded machine.
    func testAStallBeforeABriefAbsenceKeepsTheTrack() {
        let frames: [(time: Double, present: Bool)] = [(22.86, true), (27.35, false), (27.59, false), (27.69, false), (28.19, true), (28.29, true)]
        XCTAssertEqual(tracks(frames), [1, nil, nil, nil, 1, 1])
    }

    /// A slow analyser (a frame every 0.4 s) that misses it three times over
    /// 0.8 s keeps it; five misses over 1.6 s end it.
    func testASlowAnalyserCountsOnlyTheTimeItSawTheObjectAway() {
        let kept: [(time: Double, present: Bool)] = [(0, true), (0.4, false), (0.8, false), (1.2, false), (1.6, true)]
        XCTAssertEqual(tracks(kept), [1, nil, nil, nil, 1])
        let ended: [(time: Double, present: Bool)] = [(0, true), (0.4, false), (0.8, false), (1.2, false), (1.6, false), (2.0, false), (2.4, true)]
        XCTAssertEqual(tracks(ended), [1, nil, nil, nil, nil, nil, 2])
    }
}
