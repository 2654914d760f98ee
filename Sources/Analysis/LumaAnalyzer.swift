import Output
import Pixels

/// What a lab rig or a kiosk logs to catch a covered, overexposed or
/// defocused camera: the mean luma, a 16-bin histogram, the share of clipped
/// pixels at each end, and a focus measure (the variance of the Laplacian).
public struct LumaStatistics: AnalysisResult, Equatable {
    /// Mean luma, in the frame's codes (0...255).
    public var mean: Double
    /// Fractions of the pixels in 16 bins of 16 codes each (0-15, 16-31, ... 240-255).
    public var histogram: [Double]
    /// Percent of pixels at or below black: code 16 in limited range, 0 in full.
    public var clippedLow: Double
    /// Percent of pixels at or above white: code 235 in limited range, 255 in full.
    public var clippedHigh: Double
    /// Variance of the 4-neighbour Laplacian (4p minus the pixels above, below,
    /// left and right) over the pixels that have all four: low when defocused.
    public var focus: Double

    public init(mean: Double, histogram: [Double], clippedLow: Double, clippedHigh: Double, focus: Double) {
        (self.mean, self.histogram, self.clippedLow, self.clippedHigh, self.focus) = (mean, histogram, clippedLow, clippedHigh, focus)
    }

    public var json: String {
        let bins = histogram.map { JSONNumber.format($0, decimals: 5) }.joined(separator: ", ")
        return "{\"mean\": \(JSONNumber.format(mean, decimals: 3)), \"histogram\": [\(bins)], \"clipped_low\": \(JSONNumber.format(clippedLow, decimals: 3)), "
            + "\"clipped_high\": \(JSONNumber.format(clippedHigh, decimals: 3)), \"focus\": \(JSONNumber.format(focus, decimals: 2))}"
    }
}

/// Computes `LumaStatistics`: a 256-code histogram (made once) gives the
/// mean, bins and clipping; a second pass sums the Laplacian and its square.
public final class LumaAnalyzer: FrameAnalyzer {
    public let name = "luma"
    private var counts = [Int](repeating: 0, count: 256)

    public init() {}

    public static let kind = AnalyzerKind(name: "luma", summary: "mean luma, a 16-bin histogram, clipped pixels at each end, focus (variance of the Laplacian)") { _ in
        AnalyzerRequest(name: "luma") { LumaAnalyzer() }
    }

    public func analyze(_ image: LumaImage) -> any AnalysisResult {
        statistics(image)
    }

    public func statistics(_ image: LumaImage) -> LumaStatistics {
        let (w, h) = (image.width, image.height)
        let p = image.pixels.baseAddress!
        counts.withUnsafeMutableBufferPointer { counts in
            for i in 0..<256 { counts[i] = 0 }
            for i in 0..<w * h { counts[Int(p[i])] &+= 1 }
        }
        let total = Double(w * h)
        var sum = 0, bins = [Double](repeating: 0, count: 16)
        for code in 0..<256 {
            sum += code * counts[code]
            bins[code >> 4] += Double(counts[code])
        }
        let (black, white) = image.range == .limited ? (16, 235) : (0, 255)
        let low = counts[0...black].reduce(0, +), high = counts[white...].reduce(0, +)
        var laplacian = 0, squares = 0, n = 0
        if w >= 3 && h >= 3 {
            for y in 1..<(h - 1) {
                let row = p + y * w
                for x in 1..<(w - 1) {
                    let l = 4 &* Int(row[x]) &- Int(row[x &- 1]) &- Int(row[x &+ 1]) &- Int(row[x &- w]) &- Int(row[x &+ w])
                    laplacian &+= l
                    squares &+= l &* l
                }
            }
            n = (w - 2) * (h - 2)
        }
        let mean = n > 0 ? Double(laplacian) / Double(n) : 0
        return LumaStatistics(mean: Double(sum) / total, histogram: bins.map { $0 / total }, clippedLow: Double(low) / total * 100,
                              clippedHigh: Double(high) / total * 100, focus: n > 0 ? Double(squares) / Double(n) - mean * mean : 0)
    }
}
