/// Two RGBA images compared channel by channel: how many pixels differ by
/// more than the tolerance, and the worst pixel.
public struct ImageComparison: Equatable, Sendable {
    public let width: Int
    public let height: Int
    public let tolerance: Int
    /// Pixels with a channel (R, G, B or A) more than `tolerance` away.
    public private(set) var differing = 0
    /// The largest channel difference, and where (x, y from the top-left).
    public private(set) var worst = 0
    public private(set) var worstX = 0
    public private(set) var worstY = 0
    public private(set) var expectedPixel: SIMD4<UInt8> = .zero
    public private(set) var actualPixel: SIMD4<UInt8> = .zero

    /// Compares `actual` with `expected`, both `width` x `height` RGBA, top row first.
    public init(expected: UnsafeRawBufferPointer, actual: UnsafeRawBufferPointer, width: Int, height: Int, tolerance: Int) {
        precondition(expected.count >= width * height * 4 && actual.count >= width * height * 4)
        self.width = width
        self.height = height
        self.tolerance = tolerance
        for i in 0..<(width * height) {
            var largest = 0
            for c in 0..<4 {
                largest = max(largest, abs(Int(expected[i * 4 + c]) - Int(actual[i * 4 + c])))
            }
            if largest > tolerance { differing += 1 }
            if largest > worst {
                worst = largest
                (worstX, worstY) = (i % width, i / width)
                expectedPixel = SIMD4(expected[i * 4], expected[i * 4 + 1], expected[i * 4 + 2], expected[i * 4 + 3])
                actualPixel = SIMD4(actual[i * 4], actual[i * 4 + 1], actual[i * 4 + 2], actual[i * 4 + 3])
            }
        }
    }

    public var matches: Bool { differing == 0 }

    /// One line: "12 of 518400 pixels differ by more than 2; worst at (10, 20): expected (..), got (..), by 40".
    public var summary: String {
        func text(_ p: SIMD4<UInt8>) -> String { "(\(p.x), \(p.y), \(p.z), \(p.w))" }
        if matches { return "all \(width * height) pixels within \(tolerance)" + (worst > 0 ? " (largest difference \(worst))" : "") }
        return "\(differing) of \(width * height) pixels differ by more than \(tolerance); worst at (\(worstX), \(worstY)): expected \(text(expectedPixel)), got \(text(actualPixel)), off by \(worst)"
    }

    /// A picture of the differences: pixels within the tolerance as a dim
    /// gray copy of `actual`, the others red, brighter the larger the difference.
    public static func diffImage(expected: UnsafeRawBufferPointer, actual: UnsafeRawBufferPointer, width: Int, height: Int, tolerance: Int) -> [UInt8] {
        var out = [UInt8](repeating: 255, count: width * height * 4)
        for i in 0..<(width * height) {
            var largest = 0
            for c in 0..<4 { largest = max(largest, abs(Int(expected[i * 4 + c]) - Int(actual[i * 4 + c]))) }
            if largest > tolerance {
                out[i * 4] = UInt8(min(255, 128 + largest))
                out[i * 4 + 1] = 0
                out[i * 4 + 2] = 0
            } else {
                let gray = (Int(actual[i * 4]) * 77 + Int(actual[i * 4 + 1]) * 150 + Int(actual[i * 4 + 2]) * 29) >> 10
                for c in 0..<3 { out[i * 4 + c] = UInt8(gray) }
            }
        }
        return out
    }
}
