/// RGB bytes to Y'CbCr bytes in 16.16 fixed point, for one color space: the
/// arithmetic of `RGBAToYUV` and `YUVToYUV420`, written once so that the two
/// give the same bytes for the same colors.
struct YUVEncoding {
    let colorSpace: YUVColorSpace
    /// Per 8-bit channel, times 65536; the constant carries the offset and the rounding half.
    private let y: SIMD4<Int32>, u: SIMD4<Int32>, v: SIMD4<Int32>

    init(_ colorSpace: YUVColorSpace) {
        self.colorSpace = colorSpace
        let (kr, kg, kb) = colorSpace.lumaWeights
        let (ys, cs, yo): (Float, Float, Float) = colorSpace.range == .limited ? (219, 224, 16) : (255, 255, 0)
        func row(_ r: Float, _ g: Float, _ b: Float, _ offset: Float) -> SIMD4<Int32> {
            SIMD4(Int32((r * 65536).rounded()), Int32((g * 65536).rounded()), Int32((b * 65536).rounded()), Int32(offset * 65536) + 32768)
        }
        y = row(kr * ys / 255, kg * ys / 255, kb * ys / 255, yo)
        let cb = cs / 255 / (2 * (1 - kb)), cr = cs / 255 / (2 * (1 - kr))
        u = row(-kr * cb, -kg * cb, (1 - kb) * cb, 128)
        v = row((1 - kr) * cr, -kg * cr, -kb * cr, 128)
    }

    @inline(__always)
    private static func apply(_ k: SIMD4<Int32>, _ r: Int32, _ g: Int32, _ b: Int32, _ shift: Int32) -> UInt8 {
        let value = (k.x &* r &+ k.y &* g &+ k.z &* b) >> shift &+ k.w
        return UInt8(truncatingIfNeeded: Swift.min(Swift.max(value >> 16, 0), 255))
    }

    /// Y' of one pixel.
    @inline(__always)
    func luma(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt8 { Self.apply(y, r, g, b, 0) }

    /// Cb and Cr of the mean of `1 << shift` pixels whose channels sum to `r`, `g`, `b`
    /// (shift 0: one pixel; 2: a 2x2 block).
    @inline(__always)
    func chroma(_ r: Int32, _ g: Int32, _ b: Int32, shift: Int32) -> (UInt8, UInt8) {
        (Self.apply(u, r, g, b, shift), Self.apply(v, r, g, b, shift))
    }
}
