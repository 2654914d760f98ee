/// Converts RGBA pictures to planar Y'CbCr on the CPU, in 16.16 fixed point:
/// 4:2:0 (each chroma sample from the mean of its 2x2 block's R, G and B),
/// 4:2:2 (of its pair's) or 4:4:4, BT.601 or BT.709, limited or full range.
/// What a Y4M output writes, and a virtual camera packs.
/// The planes are made once per size and reused.
public final class RGBAToYUV {
    public enum Chroma: String, CaseIterable, Sendable {
        /// Chroma at half width and height: what encoders take by default.
        case c420 = "420"
        /// Chroma at half width, every row: what YUYV carries.
        case c422 = "422"
        /// Chroma for every pixel.
        case c444 = "444"
    }

    public let chroma: Chroma
    public let colorSpace: YUVColorSpace
    /// Y', then Cb, then Cr, each plane tightly packed.
    public private(set) var planes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var size = (width: 0, height: 0)
    private let encoding: YUVEncoding

    public init(chroma: Chroma = .c420, colorSpace: YUVColorSpace = .bt601Limited) {
        self.chroma = chroma
        self.colorSpace = colorSpace
        encoding = YUVEncoding(colorSpace)
    }

    deinit { planes.deallocate() }

    /// The size of a chroma plane of a `width` x `height` picture.
    public func chromaSize(width: Int, height: Int) -> (width: Int, height: Int) {
        switch chroma {
        case .c420: ((width + 1) / 2, (height + 1) / 2)
        case .c422: ((width + 1) / 2, height)
        case .c444: (width, height)
        }
    }

    /// Bytes of all three planes.
    public func frameSize(width: Int, height: Int) -> Int {
        let c = chromaSize(width: width, height: height)
        return width * height + 2 * c.width * c.height
    }

    /// Converts `width` x `height` RGBA pixels (rows top first, tight) into `planes`.
    public func convert(_ rgba: UnsafeRawBufferPointer, width: Int, height: Int) {
        precondition(width > 0 && height > 0 && rgba.count >= width * height * 4)
        let total = frameSize(width: width, height: height)
        if planes.count != total {
            planes.deallocate()
            planes = .allocate(byteCount: total, alignment: 64)
        }
        size = (width, height)
        let source = rgba.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let luma = planes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let c = chromaSize(width: width, height: height)
        let cb = luma + width * height, cr = cb + c.width * c.height
        let encoding = self.encoding
        for row in 0..<height {
            let line = source + row * width * 4, out = luma + row * width
            for x in 0..<width {
                let p = line + 4 * x
                out[x] = encoding.luma(Int32(p[0]), Int32(p[1]), Int32(p[2]))
            }
        }
        if chroma == .c444 {
            for i in 0..<width * height {
                let p = source + 4 * i
                let (r, g, b) = (Int32(p[0]), Int32(p[1]), Int32(p[2]))
                (cb[i], cr[i]) = encoding.chroma(r, g, b, shift: 0)
            }
            return
        }
        if chroma == .c422 {
            for row in 0..<height {
                let line = source + row * width * 4
                for x in 0..<c.width {
                    // The pair's sum; the coefficients then take a half (shift 1).
                    let a = line + 8 * x, b = line + 4 * min(2 * x + 1, width - 1)
                    let r = Int32(a[0]) &+ Int32(b[0]), g = Int32(a[1]) &+ Int32(b[1]), bl = Int32(a[2]) &+ Int32(b[2])
                    (cb[row * c.width + x], cr[row * c.width + x]) = encoding.chroma(r, g, bl, shift: 1)
                }
            }
            return
        }
        for row in 0..<c.height {
            let top = source + 2 * row * width * 4, bottom = source + min(2 * row + 1, height - 1) * width * 4
            for x in 0..<c.width {
                let x0 = 2 * x, x1 = min(2 * x + 1, width - 1)
                // The sum of the block's four pixels; the coefficients then take a quarter (shift 2).
                let a = top + 4 * x0, b = top + 4 * x1, c0 = bottom + 4 * x0, d = bottom + 4 * x1
                let r = Int32(a[0]) &+ Int32(b[0]) &+ Int32(c0[0]) &+ Int32(d[0])
                let g = Int32(a[1]) &+ Int32(b[1]) &+ Int32(c0[1]) &+ Int32(d[1])
                let bl = Int32(a[2]) &+ Int32(b[2]) &+ Int32(c0[2]) &+ Int32(d[2])
                (cb[row * c.width + x], cr[row * c.width + x]) = encoding.chroma(r, g, bl, shift: 2)
            }
        }
    }
}
