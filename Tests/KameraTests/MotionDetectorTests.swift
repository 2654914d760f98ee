@testable import Analysis
import Render
import XCTest

/// The motion detector on a scene made here: a textured background with
/// noise in every frame; a bright square crossing it (frames 15 to 35); a
/// brightness step over the whole picture (from frame 50); a light switched
/// on (the picture 1.6 times as bright, its brightest part clipped, from frame 65). Checked against
/// `MotionReference` (the same definition written plainly) and for what a
/// user expects: motion where the square moves, none from the noise, the
/// step or the light, none under a mask.
final class MotionDetectorTests: XCTestCase {
    static let (width, height) = (320, 240)

    /// Where the square is in frame `index`, if anywhere.
    static func square(at index: Int) -> PixelBox? {
        (15...35).contains(index) ? PixelBox(x: 20 + (index - 15) * 12, y: 110, width: 40, height: 40) : nil
    }

    /// Frame `index` of the scene, its noise `noise` codes either way at most.
    static func frame(_ index: Int, noise: Int = 8) -> [UInt8] {
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 | 1
        func random() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        var luma = [UInt8](repeating: 0, count: width * height)
        let square = Self.square(at: index)
        for y in 0..<height {
            for x in 0..<width {
                // A gradient with a fixed texture: 40 to 150.
                var value = 40 + x * 60 / width + y * 30 / height + ((x / 8 + y / 8) % 3) * 10
                if let square, x >= square.x && x < square.x + square.width && y >= square.y && y < square.y + square.height { value = 220 }
                if index >= 50 { value += 25 }
                if index >= 65 { value = value * 16 / 10 }
                value += random() % (2 * noise + 1) - noise
                luma[y * width + x] = UInt8(max(0, min(255, value)))
            }
        }
        return luma
    }

    static func run(_ settings: MotionDetector.Settings = .init(), frames: Range<Int> = 0..<80, noise: Int = 8) -> [MotionMeasure] {
        let detector = MotionDetector(settings)
        return frames.map { index in
            frame(index, noise: noise).withUnsafeBufferPointer { detector.measure(LumaImage(width: width, height: height, pixels: $0, range: .full)) }
        }
    }

    func testEachFrameEqualsTheReference() {
        let reference = MotionReference()
        let measures = Self.run()
        for (index, measure) in measures.enumerated() {
            XCTAssertEqual(measure, reference.measure(Self.frame(index), width: Self.width, height: Self.height), "frame \(index)")
        }
        XCTAssertEqual(reference.grid.columns, 160)
        XCTAssertEqual(reference.grid.factor, 2)
    }

    func testTheCrossingSquareIsMotionAndNothingElseIs() {
        let measures = Self.run()
        for (index, measure) in measures.enumerated() {
            if let square = Self.square(at: index) {
                XCTAssertTrue(measure.motion, "frame \(index): the square moves: \(measure.json)")
                let box = try? XCTUnwrap(measure.box)
                // The box is the square's, to a cell of the grid (2 pixels) either way.
                XCTAssertLessThanOrEqual(abs((box?.x ?? -99) - square.x), 2, "frame \(index): \(measure.json)")
                XCTAssertLessThanOrEqual(abs((box?.y ?? -99) - square.y), 2, "frame \(index): \(measure.json)")
                XCTAssertLessThanOrEqual(abs((box?.width ?? -99) - square.width), 4, "frame \(index): \(measure.json)")
                XCTAssertLessThanOrEqual(abs((box?.height ?? -99) - square.height), 4, "frame \(index): \(measure.json)")
                XCTAssertEqual(measure.region, 400.0 * 100 / 19_200, accuracy: 0.3, "20x20 of the 160x120 cells")
            } else {
                XCTAssertFalse(measure.motion, "frame \(index): nothing moves: \(measure.json)")
            }
        }
        XCTAssertEqual(Double(measures[50].offset), 25, accuracy: 1, "the step, the median difference: \(measures[50].json)")
        XCTAssertTrue(measures[50].light && measures[65].light, "the step and the light switched on: \(measures[50].json), \(measures[65].json)")
        XCTAssertEqual(measures.filter(\.light).count, 2, "light each time once, then the reference is the new picture")
    }

    func testNoiseRaisesTheLevelAndMakesNoMotion() {
        let quiet = Self.run(frames: 0..<14, noise: 2), loud = Self.run(frames: 0..<14, noise: 40)
        XCTAssertFalse(quiet.contains(where: \.motion) || loud.contains(where: \.motion), loud.map(\.json).joined(separator: "\n"))
        XCTAssertLessThanOrEqual(quiet.last?.level ?? 99, MotionDetector.Settings().minimumLevel + 2, "quiet: near the floor")
        // Noise of ±40 (a deviation of 23), averaged over 2x2 pixels, then against a reference of such frames.
        XCTAssertGreaterThan(loud.last?.level ?? 0, 20, loud.last?.json ?? "")
        XCTAssertGreaterThan(loud.last?.noise ?? 0, 3 * (quiet.last?.noise ?? 99))
    }

    func testAMaskOverThePathHidesTheSquare() {
        var settings = MotionDetector.Settings()
        settings.maskWidth = 32
        // 32x24: the rows 10 to 15 (pixels 100 to 159) ignored.
        settings.mask = (0..<32 * 24).map { (10...15).contains($0 / 32) }
        let measures = Self.run(settings, frames: 0..<40)
        XCTAssertFalse(measures.contains(where: \.motion), measures.map(\.json).joined(separator: "\n"))
        let reference = MotionReference(settings)
        for (index, measure) in measures.enumerated() {
            XCTAssertEqual(measure, reference.measure(Self.frame(index), width: Self.width, height: Self.height), "frame \(index)")
        }
    }

    func testTheThresholdAndTheMaximum() {
        let bigger = Self.run(MotionDetector.Settings(threshold: 3), frames: 0..<20)
        XCTAssertFalse(bigger.contains(where: \.motion), "2.1% of the picture is under 3%")
        let capped = Self.run(MotionDetector.Settings(threshold: 1, maximum: 2), frames: 0..<20)
        XCTAssertFalse(capped.contains(where: \.motion), "2.1% of the picture is over 2%")
        XCTAssertTrue(Self.run(MotionDetector.Settings(threshold: 1, maximum: 3), frames: 0..<20)[16].motion)
    }
}
