/// RGB bytes to Y'CbCr bytes in 16.16 fixed point, for one color space: the
/// arithmetic of `RGBAToYUV` and `YUVToYUV420`, written once so that the two
/// give the same bytes for the same colors.
struct YUVEncoding {
    let colorSpace: YUVColorSpace
    // Per 8-bit channel, times 65536; the constants carry the offset and the rounding half.
    private let yr: Int32, yg: Int32, yb: Int32, yk: Int32
    private let ur: Int32, ug: Int32, ub: Int32, uk: Int32
    private let vr: Int32, vg: Int32, vb: Int32, vk: Int32

    init(_ colorSpace: YUVColorSpace) {
        self.colorSpace = colorSpace
        let (kr, kg, kb) = colorSpace.lumaWeights
        let (ys, cs, yo): (Float, Float, Float) = colorSpace.range == .limited ? (219, 224, 16) : (255, 255, 0)
        func fixed(_ v: Float) -> Int32 { Int32((v * 65536).rounded()) }
        func constant(_ offset: Float) -> Int32 { Int32(offset * 65536) + 32768 }
        (yr, yg, yb, yk) = (fixed(kr * ys / 255), fixed(kg * ys / 255), fixed(kb * ys / 255), constant(yo))
        let cb = cs / 255 / (2 * (1 - kb)), cr = cs / 255 / (2 * (1 - kr))
        (ur, ug, ub, uk) = (fixed(-kr * cb), fixed(-kg * cb), fixed((1 - kb) * cb), constant(128))
        (vr, vg, vb, vk) = (fixed((1 - kr) * cr), fixed(-kg * cr), fixed(-kb * cr), constant(128))
    }

    /// The weights of R, G and B bytes and the constant (without the rounding
    /// half) for Y', Cb and Cr, as floats: the same numbers, for `YUV420Map`.
    var weights: (y: SIMD4<Float>, u: SIMD4<Float>, v: SIMD4<Float>) {
        func row(_ r: Int32, _ g: Int32, _ b: Int32, _ k: Int32) -> SIMD4<Float> {
            SIMD4(Float(r), Float(g), Float(b), Float(k - 32768)) / 65536
        }
        return (row(yr, yg, yb, yk), row(ur, ug, ub, uk), row(vr, vg, vb, vk))
    }

    /// Y' of one pixel. Unclamped: the weights are positive and sum to at
    /// most 65536 times the range's scale, so 0...255 in stays in 0...255 out.
    @inline(__always)
    func luma(_ r: Int32, _ g: Int32, _ b: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: (yr &* r &+ yg &* g &+ yb &* b &+ yk) >> 16)
    }

    @inline(__always)
    func luma(_ p: (Int32, Int32, Int32)) -> UInt8 { luma(p.0, p.1, p.2) }

    /// Cb and Cr of the mean of `1 << shift` pixels whose channels sum to `r`, `g`, `b`
    /// (shift 0: one pixel; 2: a 2x2 block), clamped (a full-range blue reaches 256).
    @inline(__always)
    func chroma(_ r: Int32, _ g: Int32, _ b: Int32, shift: Int32) -> (UInt8, UInt8) {
        let u = ((ur &* r &+ ug &* g &+ ub &* b) >> shift &+ uk) >> 16
        let v = ((vr &* r &+ vg &* g &+ vb &* b) >> shift &+ vk) >> 16
        return (UInt8(truncatingIfNeeded: clampByte(u)), UInt8(truncatingIfNeeded: clampByte(v)))
    }
}
