/// The whole conversion of `YUVToYUV420` (Y'CbCr in, a color matrix on the
/// RGB it encodes, Y'CbCr out in another color space) as one affine map of
/// the input bytes, for pixels whose color stays inside the RGB cube, where
/// nothing is clamped and the map is exactly affine. A pixel's Y' is then
/// `(y[Y] + u[Cb] + v[Cr]) >> 16`: one table read a pixel and two a pair of
/// pixels, where the exact path makes and encodes RGB. A 2x2 block's Cb and
/// Cr come from its sums of Y', Cb and Cr. It encodes the color before RGB
/// is rounded to bytes, so it lies within 1 level of the exact path.
struct LinearYUVMap {
    let input: YUVColorSpace
    let transform: RGBTransform?
    let output: YUVColorSpace
    /// Y' terms in 16.16, the constant and the rounding half in `y`.
    private let y: [Int32], u: [Int32], v: [Int32]
    /// Cb and Cr of a block from its sums (4 lumas, and each chroma sample
    /// counted for the pixels sharing it, 4 in all), in 16.16 with a shift of 2
    /// more; the constants carry the rounding half.
    let cb: (y: Int, u: Int, v: Int, k: Int)
    let cr: (y: Int, u: Int, v: Int, k: Int)

    init(input: YUVColorSpace, transform: RGBTransform?, output: YUVColorSpace) {
        self.input = input
        self.transform = transform
        self.output = output
        let m = input.toRGB.map(Double.init), o = input.offset * 255
        let identity: [SIMD4<Float>] = [SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0)]
        let rows: [SIMD4<Double>] = (transform.map { [$0.rows.r, $0.rows.g, $0.rows.b] } ?? identity).map {
            SIMD4(Double($0.x), Double($0.y), Double($0.z), Double($0.w))
        }
        let (kr, kg, kb) = output.lumaWeights
        let (kR, kG, kB) = (Double(kr), Double(kg), Double(kb))
        let (ys, cs, yo): (Double, Double, Double) = output.range == .limited ? (219, 224, 16) : (255, 255, 0)
        /// Output (Y', Cb, Cr) levels for input bytes, through RGB levels, as `PackedTables` composes them.
        func map(_ y: Double, _ u: Double, _ v: Double) -> SIMD3<Double> {
            let l = y - Double(o.x), cu = u - Double(o.y), cv = v - Double(o.z)
            let rgb = SIMD3<Double>(m[0] * l + m[6] * cv, m[1] * l + m[4] * cu + m[7] * cv, m[2] * l + m[5] * cu)
            let mapped: [Double] = rows.map { $0.x * rgb.x + $0.y * rgb.y + $0.z * rgb.z + $0.w * 255 }
            let luma: Double = kR * mapped[0] + kG * mapped[1] + kB * mapped[2]
            let outY: Double = yo + ys / 255 * luma
            let outU: Double = 128 + cs / 255 * (mapped[2] - luma) / (2 * (1 - kB))
            let outV: Double = 128 + cs / 255 * (mapped[0] - luma) / (2 * (1 - kR))
            return SIMD3(outY, outU, outV)
        }
        let base = map(0, 0, 0)
        let (ay, au, av) = (map(1, 0, 0) - base, map(0, 1, 0) - base, map(0, 0, 1) - base)
        func fixed(_ x: Double) -> Int32 { Int32((x * 65536).rounded()) }
        y = (0..<256).map { fixed(ay.x * Double($0) + base.x) + 32768 }
        u = (0..<256).map { fixed(au.x * Double($0)) }
        v = (0..<256).map { fixed(av.x * Double($0)) }
        func block(_ c: Int) -> (y: Int, u: Int, v: Int, k: Int) {
            (Int((ay[c] * 65536).rounded()), Int((au[c] * 65536).rounded()), Int((av[c] * 65536).rounded()),
             Int((base[c] * 4 * 65536).rounded()) + (1 << 17))
        }
        cb = block(1)
        cr = block(2)
    }

    func withTables<T>(_ body: (LinearYUVTables) -> T) -> T {
        y.withUnsafeBufferPointer { y in
            u.withUnsafeBufferPointer { u in
                v.withUnsafeBufferPointer { v in
                    body(LinearYUVTables(y: y.baseAddress!, u: u.baseAddress!, v: v.baseAddress!, cb: cb, cr: cr))
                }
            }
        }
    }
}

/// `LinearYUVMap`'s tables for the row loops.
struct LinearYUVTables {
    let y: UnsafePointer<Int32>
    let u: UnsafePointer<Int32>
    let v: UnsafePointer<Int32>
    let cb: (y: Int, u: Int, v: Int, k: Int)
    let cr: (y: Int, u: Int, v: Int, k: Int)

    /// Y' of a pixel of luma `l` whose pair's chroma terms are `c` (`chroma(u, v)`).
    @inline(__always) func luma(_ l: Int, _ c: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: clampByte((y[l] &+ c) >> 16))
    }

    @inline(__always) func chroma(_ u: Int, _ v: Int) -> Int32 { self.u[u] &+ self.v[v] }

    /// Cb and Cr of a block from its sums.
    @inline(__always) func blockChroma(luma: Int, u: Int, v: Int) -> (UInt8, UInt8) {
        let b = (cb.y &* luma &+ cb.u &* u &+ cb.v &* v &+ cb.k) >> 18
        let r = (cr.y &* luma &+ cr.u &* u &+ cr.v &* v &+ cr.k) >> 18
        return (UInt8(truncatingIfNeeded: clampByte(Int32(truncatingIfNeeded: b))),
                UInt8(truncatingIfNeeded: clampByte(Int32(truncatingIfNeeded: r))))
    }
}

extension PackedStage {
    /// The bias of each field of a packed RGB word (`PackedTables`), and the
    /// bits of each field that, once the bias is taken off, are set only when
    /// the channel is below 0 (a borrow sets them, and may set the next
    /// field's, which only sends the pixel the exact way) or above 255.
    static let fieldBias: UInt64 = 1 << 20 | 1 << 41 | 1 << 62
    static let outsideBits: UInt64 = 7 << 18 | 7 << 39 | 7 << 60

    /// True when the packed words' colors all lie inside the RGB cube.
    @inline(__always) static func inside(_ a: UInt64, _ b: UInt64, _ c: UInt64, _ d: UInt64) -> Bool {
        ((a &- fieldBias) | (b &- fieldBias) | (c &- fieldBias) | (d &- fieldBias)) & outsideBits == 0
    }

    /// The packed RGB word of a pixel of luma `l` whose pair's chroma word is `c`.
    @inline(__always) func word(_ l: Int, _ c: UInt64) -> UInt64 { y[l] &+ c }
}
