import Analysis
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

    deinit { freeColumnBuffers() }

    private func freeColumnBuffers() {
        columnSum.deallocate()
        columnLow.deallocate()
        columnHigh.deallocate()
        pixelThresholds.deallocate()
    }

    /// Blocks across and down that the arrays below are made for.
    private var shape = (columns: 0, rows: 0)
    private var levels: [Int32] = []
    private var thresholds: [UInt8] = []
    /// The levels summed over the rectangle from the first block to each block.
    private var sums: [Int32] = []
    /// Pixels across that the buffers below are made for.
    private var width = 0
    /// Each column's sum, darkest and lightest pixel over one row of blocks:
    /// filled a row at a time, so the compiler works on many columns at once.
    private var columnSum = UnsafeMutablePointer<UInt16>.allocate(capacity: 0)
    private var columnLow = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
    private var columnHigh = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)
    /// Each pixel's threshold along a row of blocks.
    private var pixelThresholds = UnsafeMutablePointer<UInt8>.allocate(capacity: 0)

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
        }
        if width != w {
            width = w
            freeColumnBuffers()
            columnSum = .allocate(capacity: w)
            columnLow = .allocate(capacity: w)
            columnHigh = .allocate(capacity: w)
            pixelThresholds = .allocate(capacity: w)
        }
        let pixels = image.pixels.baseAddress!
        levels.withUnsafeMutableBufferPointer { levels in
            for by in 0..<rows {
                let y0 = by * b, y1 = min(h, y0 + b)
                measureColumns(pixels, width: w, rows: y0..<y1)
                for bx in 0..<columns {
                    let x0 = bx * b, x1 = min(w, x0 + b)
                    var sum: Int32 = 0, low: UInt8 = 255, high: UInt8 = 0
                    for x in x0..<x1 {
                        sum &+= Int32(columnSum[x])
                        low = min(low, columnLow[x])
                        high = max(high, columnHigh[x])
                    }
                    var level: Int32
                    if Int(high) - Int(low) > Self.flatSpread {
                        level = sum / Int32((y1 - y0) * (x1 - x0))
                    } else {
                        level = Int32(low) / 2
                        if by > 0 && bx > 0 {
                            let around = (levels[(by - 1) * columns + bx] + 2 * levels[by * columns + bx - 1]
                                          + levels[(by - 1) * columns + bx - 1]) / 4
                            if Int32(low) < around { level = around }
                        }
                    }
                    levels[by * columns + bx] = level
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
            let limit = pixelThresholds
            for by in 0..<rows {
                for x in 0..<w { limit[x] = thresholds[by * columns + x / b] }
                for y in (by * b)..<min(h, by * b + b) {
                    let row = pixels + y * w, out = output + y * w
                    for x in 0..<w { out[x] = row[x] > limit[x] ? 255 : 0 }
                }
            }
        }
    }

    /// Each column's sum, darkest and lightest pixel over `rows`, into the column buffers.
    private func measureColumns(_ pixels: UnsafePointer<UInt8>, width w: Int, rows: Range<Int>) {
        let (sum, low, high) = (columnSum, columnLow, columnHigh)
        let first = pixels + rows.lowerBound * w
        for x in 0..<w {
            sum[x] = UInt16(first[x])
            low[x] = first[x]
            high[x] = first[x]
        }
        for y in rows.dropFirst() {
            let row = pixels + y * w
            for x in 0..<w {
                let v = row[x]
                sum[x] &+= UInt16(v)
                low[x] = min(low[x], v)
                high[x] = max(high[x], v)
            }
        }
    }
}
