@testable import kamera_bench
import XCTest

/// The display bench's figures: medians of the rounds, and each ratio to
/// kmscube taken within a round, so that a machine slowing down between
/// rounds moves both sides of a ratio alike.
final class DisplayBenchRatioTests: XCTestCase {
    func testMedianOfOddAndEvenCounts() {
        XCTAssertEqual([3, 1, 2].median, 2)
        XCTAssertEqual([4, 1, 3, 2].median, 2.5)
        XCTAssertEqual([7].median, 7)
        XCTAssertNil([Double]().median)
    }

    func testRatiosArePairedRoundByRound() {
        // The machine runs twice as slowly in the second round: paired, the ratio
        // stays 0.5 each round; medians of each side alone would give 0.5 only by luck.
        let ratio = DisplayBenchmark.pairedRatio([30, 15, 28], [60, 30, 50])
        XCTAssertEqual(ratio.median, 0.5, accuracy: 1e-12)
        XCTAssertEqual(ratio.low, 0.5, accuracy: 1e-12)
        XCTAssertEqual(ratio.high, 0.56, accuracy: 1e-12)
        XCTAssertEqual(DisplayBenchmark.ratioText(ratio), "0.50x [0.50, 0.56]")
    }

    func testOneRoundShowsNoRangeAndMissingRoundsAreLeftOut() {
        XCTAssertEqual(DisplayBenchmark.ratioText(DisplayBenchmark.pairedRatio([20], [40])), "0.50x")
        let ratio = DisplayBenchmark.pairedRatio([20, 30, 40], [40, 60])
        XCTAssertEqual(ratio.low, 0.5, accuracy: 1e-12)
        XCTAssertEqual(ratio.high, 0.5, accuracy: 1e-12)
        XCTAssertTrue(DisplayBenchmark.pairedRatio([], []).median.isNaN)
    }
}
