/// The conversion (and a color matrix composed with it) as three tables of
/// 64-bit words, one for y, u and v, each word holding the three output
/// channels' terms as 21-bit fields (red at bit 0, green at 21, blue at 42):
/// 10 fraction bits and a bias of 1024 levels, so a field holds -1024 up to
/// 1024 levels. Adding the three words adds each channel's terms at once, and
/// while each channel's sum stays in range no carry crosses into the next field.
/// The field's integer part (11 bits) indexes a table clamping to 0...255.
/// Nil when the matrix's results may leave that range (`WideTables` then).
/// For RGB frames (`colorSpace` nil) the three tables are indexed by R, G
/// and B instead, and hold the matrix's terms alone.
struct PackedTables {
    let colorSpace: YUVColorSpace?
    let transform: RGBTransform?
    private let y: [UInt64], u: [UInt64], v: [UInt64]
    private let clamp: [UInt8]

    static let fractionBits = 10
    static let bias = 1024.0

    /// Output channel c = s0 R + s1 G + s2 B + k (levels): the rows of `transform` (identity when nil).
    private static func rows(_ transform: RGBTransform?) -> [SIMD4<Double>] {
        let identity: [SIMD4<Float>] = [SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0)]
        return (transform.map { [$0.rows.r, $0.rows.g, $0.rows.b] } ?? identity).map {
            SIMD4<Double>(Double($0.x), Double($0.y), Double($0.z), Double($0.w))
        }
    }

    /// The tables from R, G and B bytes: each channel's terms per byte value.
    init?(rgb transform: RGBTransform?) {
        let s = Self.rows(transform)
        let all = (0..<256).map { i in
            let v = Double(i)
            return (y: s.map { $0.x * v + $0.w * 255 }, u: s.map { $0.y * v }, v: s.map { $0.z * v })
        }
        self.init(nil, transform, terms: all)
    }

    init?(_ colorSpace: YUVColorSpace, _ transform: RGBTransform?) {
        let m = colorSpace.toRGB  // column-major: y, u, v columns
        let o = colorSpace.offset * 255
        // Output channel c = s0 R + s1 G + s2 B + k (levels), with the conversion's
        // R = L + m6 v', G = L + m4 u' + m7 v', B = L + m5 u'.
        let s = Self.rows(transform)
        func terms(_ i: Int) -> (y: [Double], u: [Double], v: [Double]) {
            let luma = Double(m[0]) * (Double(i) - Double(o.x)), uu = Double(i) - Double(o.y), vv = Double(i) - Double(o.z)
            return (s.map { ($0.x + $0.y + $0.z) * luma + $0.w * 255 },
                    s.map { ($0.y * Double(m[4]) + $0.z * Double(m[5])) * uu },
                    s.map { ($0.x * Double(m[6]) + $0.y * Double(m[7])) * vv })
        }
        self.init(colorSpace, transform, terms: (0..<256).map(terms))
    }

    /// The tables from each byte value's terms per output channel.
    private init?(_ colorSpace: YUVColorSpace?, _ transform: RGBTransform?, terms all: [(y: [Double], u: [Double], v: [Double])]) {
        self.colorSpace = colorSpace
        self.transform = transform
        // The largest sum a channel can reach, against what a field holds.
        for c in 0..<3 {
            let reach = all.map { abs($0.y[c]) }.max()! + all.map { abs($0.u[c]) }.max()! + all.map { abs($0.v[c]) }.max()!
            if reach >= Self.bias - 2 { return nil }
        }
        let one = Double(1 << Self.fractionBits)
        func pack(_ fields: [Double], offset: Double) -> UInt64 {
            var word: Int64 = 0
            for (c, value) in fields.enumerated() { word &+= Int64((value * one).rounded() + offset) << (21 * c) }
            return UInt64(bitPattern: word)
        }
        // The luma word carries the bias and the rounding half of each field.
        y = all.map { pack($0.y, offset: Self.bias * one + one / 2) }
        u = all.map { pack($0.u, offset: 0) }
        v = all.map { pack($0.v, offset: 0) }
        clamp = (0..<2048).map { UInt8(min(max($0 - Int(Self.bias), 0), 255)) }
    }

    func withStage<T>(_ body: (PackedStage) -> T) -> T {
        y.withUnsafeBufferPointer { y in
            u.withUnsafeBufferPointer { u in
                v.withUnsafeBufferPointer { v in
                    clamp.withUnsafeBufferPointer { clamp in
                        body(PackedStage(y: y.baseAddress!, u: u.baseAddress!, v: v.baseAddress!, clamp: clamp.baseAddress!))
                    }
                }
            }
        }
    }
}

/// Each term of `toRGB * ((y, u, v) / 255 - offset) * 255` in 16.16 fixed
/// point (the luma term with the rounding half), for matrices too strong for
/// `PackedTables`: `WideStage` applies the matrix in 64-bit arithmetic.
/// `chroma` holds four tables of 256: u → b, u → g, v → g, v → r.
struct WideTables {
    let colorSpace: YUVColorSpace
    let transform: RGBTransform
    private let y: [Int32]
    private let chroma: [Int32]

    init(_ colorSpace: YUVColorSpace, _ transform: RGBTransform) {
        self.colorSpace = colorSpace
        self.transform = transform
        let m = colorSpace.toRGB
        let o = colorSpace.offset * 255
        func fixed(_ v: Float) -> Int32 { Int32((v * 65536).rounded()) }
        y = (0..<256).map { fixed(m[0] * (Float($0) - o.x)) + 32768 }
        let u = (0..<256).map { Float($0) - o.y }, v = (0..<256).map { Float($0) - o.z }
        chroma = u.map { fixed(m[5] * $0) } + u.map { fixed(m[4] * $0) } + v.map { fixed(m[7] * $0) } + v.map { fixed(m[6] * $0) }
    }

    func withStage<T>(_ body: (WideStage) -> T) -> T {
        y.withUnsafeBufferPointer { y in
            chroma.withUnsafeBufferPointer { chroma in
                body(WideStage(y: y.baseAddress!, chroma: chroma.baseAddress!, transform: transform))
            }
        }
    }
}

/// The tables a conversion from Y'CbCr uses for the current color space and
/// matrix: the conversion alone, the two composed, or for a matrix too strong
/// for packed fields, wide ones. Made again only when either changes.
struct ConversionTables {
    private var plain: PackedTables?
    private var composed: PackedTables?
    private(set) var wide: WideTables?
    /// For RGB frames (`prepare(rgb:)`): the packed tables, or a matrix too strong for them.
    private var rgbPacked: PackedTables?
    private(set) var wideRGB: RGBTransform?

    mutating func prepare(_ colorSpace: YUVColorSpace, _ transform: RGBTransform?) {
        if plain?.colorSpace != colorSpace { plain = PackedTables(colorSpace, nil) }
        guard let transform else {
            (composed, wide) = (nil, nil)
            return
        }
        if let c = composed, c.colorSpace == colorSpace, c.transform == transform { return }
        if let w = wide, w.colorSpace == colorSpace, w.transform == transform { return }
        composed = PackedTables(colorSpace, transform)
        wide = composed == nil ? WideTables(colorSpace, transform) : nil
    }

    mutating func prepare(rgb transform: RGBTransform?) {
        if let p = rgbPacked, p.transform == transform { return }
        if let w = wideRGB, w == transform { return }
        rgbPacked = PackedTables(rgb: transform)
        wideRGB = rgbPacked == nil ? transform : nil
    }

    /// The packed tables in use, when the wide ones are not.
    var packed: PackedTables? { wide == nil ? composed ?? plain : nil }

    /// The packed tables for RGB frames, when the matrix is not too strong for them.
    var packedRGB: PackedTables? { wideRGB == nil ? rgbPacked : nil }
}
