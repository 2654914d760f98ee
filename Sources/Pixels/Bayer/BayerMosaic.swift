/// The layout of a raw Bayer frame: which corner of each 2x2 block holds the
/// red sample (blue is diagonal to it, green on the other two), and how many
/// bits a sample has (8 in a byte; 10, 12 or 16 in the low bits of a
/// little-endian 16-bit word, as V4L2's unpacked Bayer formats store them;
/// MIPI-packed formats, `RepackedFormat.isMIPIPacked`, pack 10 and 12 bits tighter).
public struct BayerMosaic: Equatable, Sendable {
    /// Column and row parity of the red samples.
    public let redColumn: Int, redRow: Int
    public let bits: Int

    public init(redColumn: Int, redRow: Int, bits: Int) {
        self.redColumn = redColumn
        self.redRow = redRow
        self.bits = bits
    }

    /// The largest sample value.
    public var maximum: Int { (1 << bits) - 1 }
    /// Bytes of a sample unpacked.
    public var bytesPerSample: Int { bits > 8 ? 2 : 1 }

    /// 0 red, 1 green, 2 blue: the color sampled at column `x`, row `y`.
    @inline(__always)
    public func channel(x: Int, y: Int) -> Int {
        let redColumn = (x & 1) == self.redColumn, redRow = (y & 1) == self.redRow
        return redColumn == redRow ? (redRow ? 0 : 2) : 1
    }

    /// Why a frame of this size cannot be demosaiced, nil when it can: the
    /// 2x2 blocks must be whole, and the 5x5 neighbourhood needs 4 samples a side.
    public static func sizeProblem(width: Int, height: Int) -> String? {
        guard width % 2 == 0, height % 2 == 0, width >= 4, height >= 4 else {
            return "a Bayer frame has an even width and height, at least 4x4 (not \(width)x\(height))"
        }
        return nil
    }
}
