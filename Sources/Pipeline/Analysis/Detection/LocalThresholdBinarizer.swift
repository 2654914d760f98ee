/// Makes a frame's luma black and white once, for every matrix-code read of
/// the frame (the whole frame, the DataMatrix bands, the Aztec windows), so
/// that zxing-cpp does not binarize the same pixels again for each of them.
///
/// Each 8x8 block gets a level: its mean where its pixels span more than 24
/// steps, else half its darkest value (a flat block is taken for background,
/// so it comes out white), raised to its upper and left neighbours' level where
/// its darkest pixel lies below that (a flat block inside a large dark module
/// stays black). A pixel is black where it is at or below the mean level of the
/// 5x5 blocks around its own (fewer at the picture's edges). Output: 0 for
/// black, 255 for white. Its buffers are kept from frame to frame.
public final class LocalThresholdBinarizer {
    static let block = 8
    /// Blocks of less spread than this are flat.
    static let flatSpread = 24
    /// Blocks on each side of a pixel's block that its threshold averages.
    static let reach = 2

    public init() {}

    /// Blocks across and down that the arrays below are made for.
    private var shape = (columns: 0, rows: 0)
    private var levels: [Int32] = []
    private var thresholds: [UInt8] = []
    /// The levels summed over the rectangle from the first block to each block.
    private var sums: [Int32] = []
    private var blockSum: [Int32] = [], blockMin: [UInt8] = [], blockMax: [UInt8] = []

    /// Writes the black-and-white picture of `image` (`width` x `height`, rows
    /// tight) to `output`, which holds as many bytes.
    public func binarize(_ image: LumaImage, into output: UnsafeMutablePointer<UInt8>) {
        let (w, h, b) = (image.width, image.height, Self.block)
        guard w > 0, h > 0 else { return }
        let columns = (w + b - 1) / b, rows = (h + b - 1) / b
        if shape != (columns, rows) {
            shape = (columns, rows)
            levels = Array(repeating: 0, count: columns * rows)
            thresholds = Array(repeating: 0, count: columns * rows)
            sums = Array(repeating: 0, count: (columns + 1) * (rows + 1))
            blockSum = Array(repeating: 0, count: columns)
            blockMin = Array(repeating: 0, count: columns)
            blockMax = Array(repeating: 0, count: columns)
        }
        let pixels = image.pixels.baseAddress!
        levels.withUnsafeMutableBufferPointer { levels in
            blockSum.withUnsafeMutableBufferPointer { sum in
                blockMin.withUnsafeMutableBufferPointer { low in
                    blockMax.withUnsafeMutableBufferPointer { high in
                        for by in 0..<rows {
                            Self.measure(pixels, width: w, rows: (by * b)..<min(h, by * b + b), sum: sum, low: low, high: high)
                            let tall = min(h, by * b + b) - by * b
                            for bx in 0..<columns {
                                let count = Int32(tall * (min(w, bx * b + b) - bx * b))
                                var level: Int32
                                if Int(high[bx]) - Int(low[bx]) > Self.flatSpread {
                                    level = sum[bx] / count
                                } else {
                                    level = Int32(low[bx]) / 2
                                    if by > 0 && bx > 0 {
                                        let around = (levels[(by - 1) * columns + bx] + 2 * levels[by * columns + bx - 1]
                                                      + levels[(by - 1) * columns + bx - 1]) / 4
                                        if Int32(low[bx]) < around { level = around }
                                    }
                                }
                                levels[by * columns + bx] = level
                            }
                        }
                    }
                }
            }
        }
        levels.withUnsafeBufferPointer { levels in
            sums.withUnsafeMutableBufferPointer { sums in
                thresholds.withUnsafeMutableBufferPointer { thresholds in
                    let stride = columns + 1
                    for by in 0..<rows {
                        var across: Int32 = 0
                        for bx in 0..<columns {
                            across += levels[by * columns + bx]
                            sums[(by + 1) * stride + bx + 1] = sums[by * stride + bx + 1] + across
                        }
                    }
                    let r = Self.reach
                    for by in 0..<rows {
                        let top = max(0, by - r), bottom = min(rows, by + r + 1)
                        for bx in 0..<columns {
                            let left = max(0, bx - r), right = min(columns, bx + r + 1)
                            let total = sums[bottom * stride + right] - sums[top * stride + right]
                                - sums[bottom * stride + left] + sums[top * stride + left]
                            thresholds[by * columns + bx] = UInt8(clamping: total / Int32((bottom - top) * (right - left)))
                        }
                    }
                }
            }
        }
        thresholds.withUnsafeBufferPointer { thresholds in
            let whole = w / b
            for y in 0..<h {
                let row = pixels + y * w, out = output + y * w, limits = thresholds.baseAddress! + (y / b) * columns
                for bx in 0..<whole {
                    let t = limits[bx], x0 = bx * b
                    for x in x0..<(x0 + b) { out[x] = row[x] > t ? 255 : 0 }
                }
                if whole < columns {
                    let t = limits[whole]
                    for x in (whole * b)..<w { out[x] = row[x] > t ? 255 : 0 }
                }
            }
        }
    }

    /// Each block's sum, darkest and lightest pixel over `rows`, into the arrays.
    private static func measure(_ pixels: UnsafePointer<UInt8>, width w: Int, rows: Range<Int>, sum: UnsafeMutableBufferPointer<Int32>,
                                low: UnsafeMutableBufferPointer<UInt8>, high: UnsafeMutableBufferPointer<UInt8>) {
        let b = block, columns = sum.count
        for bx in 0..<columns { (sum[bx], low[bx], high[bx]) = (0, 255, 0) }
        let whole = w / b
        for y in rows {
            let row = pixels + y * w
            func add(_ bx: Int, _ xs: Range<Int>) {
                var s: Int32 = 0, lo: UInt8 = 255, hi: UInt8 = 0
                for x in xs {
                    let v = row[x]
                    s &+= Int32(v)
                    lo = min(lo, v)
                    hi = max(hi, v)
                }
                sum[bx] &+= s
                low[bx] = min(low[bx], lo)
                high[bx] = max(high[bx], hi)
            }
            for bx in 0..<whole { add(bx, (bx * b)..<(bx * b + b)) }
            if whole < columns { add(whole, (whole * b)..<w) }
        }
    }
}
