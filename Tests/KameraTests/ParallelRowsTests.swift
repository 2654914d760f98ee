import Capture
import Filters
import Lifecycle
import Pixels
import XCTest

/// Splitting rows between threads: every row done exactly once, whatever the
/// count and thread count; a split conversion equals one on a single thread.
final class ParallelRowsTests: XCTestCase {
    final class Marks: RowWork {
        let lock = Lock()
        var hits: [Int]
        init(_ count: Int) { hits = Array(repeating: 0, count: count) }
        func work(rows: Range<Int>) {
            lock.withLock { for r in rows { hits[r] += 1 } }
        }
    }

    func testEveryRowOnceForAnyCountAndThreads() {
        for threads in [1, 2, 3, 5] {
            let split = ParallelRows(threads: threads, name: "test.rows")
            for count in [0, 1, 2, 3, 4, 7, 100, 1081] {
                for _ in 0..<3 {
                    let marks = Marks(count)
                    split.run(count: count, marks)
                    XCTAssertEqual(marks.hits, Array(repeating: 1, count: count), "\(count) rows on \(threads) threads")
                }
            }
        }
    }

    func testSplitConversionEqualsOneThread() throws {
        let sepia = try XCTUnwrap(ColorMatrix.sepia.rgbTransform)
        for format in [PixelFormat.yuyv, .nv12] {
            let pattern = TestPattern(width: 1280, height: 720, format: format)
            let frame = pattern.frame(at: 5)
            for (halved, transform) in [(false, nil), (false, sepia), (true, nil), (true, sepia)] {
                let one = YUVToRGBA(threads: 1), three = YUVToRGBA(threads: 3)
                for converter in [one, three] {
                    converter.convert(frame, x: 81, y: 3, width: 1101, height: 715, transform: transform, order: .bgra, halved: halved)
                }
                XCTAssertGreaterThanOrEqual(three.outputWidth * three.outputHeight, YUVToRGBA.splitPixels, "large enough to be split")
                XCTAssertEqual(Array(one.pixels), Array(three.pixels), "\(format) halved \(halved) sepia \(transform != nil)")
            }
        }
    }
}
