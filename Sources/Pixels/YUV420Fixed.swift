/// `YUV420Map`'s arithmetic in 16-bit fixed point, eight pixels an
/// instruction (SSE2's `pmulhw`, `pmaxsw`, `pminsw`, `packuswb`, which the
/// compiler emits for these SIMD types), where the float map does four: for
/// sixteen pixels of two rows at a time, the bulk of a row. RGB levels are
/// kept times 16 and clamped there; Y', Cb and Cr times 64, rounded once at
/// the end. Each product is the high half of a 16x16-bit multiply of a value
/// scaled to at most 2^15 by a coefficient scaled to fit: within about 0.2 of
/// a level of the float map. Nil for a map whose coefficients or levels do not
/// fit (a matrix far stronger than any filter's): the float map does it all.
///
/// Chroma stays interleaved, a pair's U in one lane and its V in the next
/// (as YUYV and NV12 hold it, and as Cb and Cr come out), with coefficients
/// alternating to match; what a pair shares is added across its two lanes
/// with shifts of 32-bit lanes. No shuffles: SSE2 has few, and the compiler's
/// lane-by-lane stand-ins cost more than the arithmetic.
struct YUV420Fixed {
    typealias Lanes = SIMD8<Int16>

    // RGB times 16 from (Y', Cb, Cr) bytes times 128: coefficients times 2^13
    // (U's and V's alternating), constants times 16.
    private let ry: Lanes, ruv: Lanes, rk: Lanes
    private let gy: Lanes, guv: Lanes, gk: Lanes
    private let by: Lanes, buv: Lanes, bk: Lanes
    // Y' times 64 from a pixel's RGB times 128, and Cb, Cr (alternating) from
    // a 2x2 block's mean RGB times 128: weights times 2^15; constants times 64,
    // with the rounding half.
    private let yr: Lanes, yg: Lanes, yb: Lanes, yk: Lanes
    private let cr: Lanes, cg: Lanes, cb: Lanes, ck: Lanes

    init?(_ map: YUV420Map) {
        let rows = [(map.ry, map.ru, map.rv, map.rk), (map.gy, map.gu, map.gv, map.gk), (map.by, map.bu, map.bv, map.bk)]
        // Every partial sum of a channel, times 16, must fit 16 bits.
        for (y, u, v, k) in rows where (abs(y) + abs(u) + abs(v)) * 255 + abs(k) > 1_900 || max(abs(y), abs(u), abs(v)) >= 3.99 {
            return nil
        }
        let u = (map.ur * 4, map.ug * 4, map.ub * 4), v = (map.vr * 4, map.vg * 4, map.vb * 4)
        guard [(map.yr, map.yg, map.yb), u, v].allSatisfy({ max(abs($0.0), abs($0.1), abs($0.2)) < 0.99 }) else { return nil }
        func c(_ x: Float, _ scale: Float) -> Int16 { Int16((x * scale).rounded()) }
        func lanes(_ x: Float, _ scale: Float) -> Lanes { Lanes(repeating: c(x, scale)) }
        func alternating(_ a: Int16, _ b: Int16) -> Lanes { Lanes(a, b, a, b, a, b, a, b) }
        // Inputs and RGB are centered on zero (bytes less 128, levels less
        // 127.5), so no operand of a product is known to be positive, which
        // would keep the compiler from `pmulhw`; the constants take the shifts.
        // Each of the three products of a sum is rounded down by up to one unit: half a unit each back.
        func rgbConstant(_ y: Float, _ u: Float, _ v: Float, _ k: Float) -> Lanes {
            lanes((k + 128 * (y + u + v) - 127.5) * 16 + 1.5, 1)
        }
        func outputConstant(_ r: Float, _ g: Float, _ b: Float, _ k: Float) -> Int16 { c((k + 127.5 * (r + g + b)) * 64 + 32 + 1.5, 1) }
        (ry, ruv, rk) = (lanes(map.ry, 8192), alternating(c(map.ru, 8192), c(map.rv, 8192)), rgbConstant(map.ry, map.ru, map.rv, map.rk))
        (gy, guv, gk) = (lanes(map.gy, 8192), alternating(c(map.gu, 8192), c(map.gv, 8192)), rgbConstant(map.gy, map.gu, map.gv, map.gk))
        (by, buv, bk) = (lanes(map.by, 8192), alternating(c(map.bu, 8192), c(map.bv, 8192)), rgbConstant(map.by, map.bu, map.bv, map.bk))
        (yr, yg, yb) = (lanes(map.yr, 32768), lanes(map.yg, 32768), lanes(map.yb, 32768))
        yk = Lanes(repeating: outputConstant(map.yr, map.yg, map.yb, map.yk))
        (cr, cg, cb) = (alternating(c(u.0, 32768), c(v.0, 32768)), alternating(c(u.1, 32768), c(v.1, 32768)), alternating(c(u.2, 32768), c(v.2, 32768)))
        ck = alternating(outputConstant(u.0, u.1, u.2, map.uk), outputConstant(v.0, v.1, v.2, map.vk))
    }

    /// The high 16 bits of each lane's 32-bit product (`pmulhw`).
    @inline(__always) private static func high(_ a: Lanes, _ b: Lanes) -> Lanes {
        Lanes(truncatingIfNeeded: (SIMD8<Int32>(truncatingIfNeeded: a) &* SIMD8<Int32>(truncatingIfNeeded: b)) &>> 16)
    }

    /// Each pair of lanes' sum, in both of them: added lane by lane rather
    /// than rotated, which SSE2 cannot do and the compiler would do a lane at a time.
    @inline(__always) private static func pairSums(_ x: Lanes) -> Lanes {
        let words = unsafeBitCast(x, to: SIMD4<UInt32>.self)
        return x &+ unsafeBitCast(words &<< 16, to: Lanes.self) &+ unsafeBitCast(words &>> 16, to: Lanes.self)
    }

    /// Bytes less 128, times 128.
    @inline(__always) private static func scaled(_ bytes: Lanes) -> Lanes {
        (bytes &- 128) &<< 7
    }

    /// Levels less 127.5, times 16, clamped to the levels 0...255.
    @inline(__always) private static func clamped(_ x: Lanes) -> Lanes {
        // A literal, not a static: a static's lazy initializer would be called in the loop.
        x.clamped(lowerBound: Lanes(repeating: -2040), upperBound: Lanes(repeating: 2040))
    }

    /// Eight pixels of a row: RGB levels less 127.5 times 16, clamped.
    @inline(__always) private func rgb(_ pixels: (y: Lanes, uv: Lanes)) -> (r: Lanes, g: Lanes, b: Lanes) {
        let y = Self.scaled(pixels.y), uv = Self.scaled(pixels.uv)
        @inline(__always) func channel(_ ky: Lanes, _ kuv: Lanes, _ k: Lanes) -> Lanes {
            Self.clamped(Self.high(y, ky) &+ Self.pairSums(Self.high(uv, kuv)) &+ k)
        }
        return (channel(ry, ruv, rk), channel(gy, guv, gk), channel(by, buv, bk))
    }

    /// Y' times 64 of eight pixels.
    @inline(__always) private func luma(_ p: (r: Lanes, g: Lanes, b: Lanes)) -> Lanes {
        Self.high(p.r &<< 3, yr) &+ Self.high(p.g &<< 3, yg) &+ Self.high(p.b &<< 3, yb) &+ yk
    }

    /// Cb and Cr times 64, alternating, of the four 2x2 blocks of eight pixels in two rows.
    @inline(__always) private func chroma(_ top: (r: Lanes, g: Lanes, b: Lanes), _ bottom: (r: Lanes, g: Lanes, b: Lanes)) -> Lanes {
        // Each block's sum (times 16, at most 8160 either way) in both its lanes, times 2: its mean times 128.
        @inline(__always) func mean(_ a: Lanes, _ b: Lanes) -> Lanes { Self.pairSums(a &+ b) &<< 1 }
        return Self.high(mean(top.r, bottom.r), cr) &+ Self.high(mean(top.g, bottom.g), cg) &+ Self.high(mean(top.b, bottom.b), cb) &+ ck
    }

    /// Bytes of values times 64, rounded down (the rounding half is in the constants), saturated.
    @inline(__always) private static func bytes(_ a: Lanes, _ b: Lanes) -> SIMD16<UInt8> {
        let low = SIMD8<UInt8>(truncatingIfNeeded: (a &>> 6).clamped(lowerBound: Lanes(), upperBound: Lanes(repeating: 255)))
        let high = SIMD8<UInt8>(truncatingIfNeeded: (b &>> 6).clamped(lowerBound: Lanes(), upperBound: Lanes(repeating: 255)))
        return SIMD16(lowHalf: low, highHalf: high)
    }

    /// Sixteen pixels of rows a and b from source column `s` (even): their
    /// Y' at `ya` and `yb`, and their eight blocks' Cb and Cr at `u` and `v`.
    @inline(__always)
    func sixteen<L: YUVLayout>(_: L.Type, a: UnsafePointer<UInt8>, ac: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>, bc: UnsafePointer<UInt8>,
                               s: Int, ya: UnsafeMutablePointer<UInt8>, yb: UnsafeMutablePointer<UInt8>,
                               u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>) {
        let top = (rgb(L.eight(a, ac, s)), rgb(L.eight(a, ac, s &+ 8))), bottom = (rgb(L.eight(b, bc, s)), rgb(L.eight(b, bc, s &+ 8)))
        UnsafeMutableRawPointer(ya).storeBytes(of: Self.bytes(luma(top.0), luma(top.1)), as: SIMD16<UInt8>.self)
        UnsafeMutableRawPointer(yb).storeBytes(of: Self.bytes(luma(bottom.0), luma(bottom.1)), as: SIMD16<UInt8>.self)
        // Each block's Cb and Cr side by side: the even bytes are Cb, the odd ones Cr.
        let interleaved = Self.bytes(chroma(top.0, bottom.0), chroma(top.1, bottom.1))
        UnsafeMutableRawPointer(u).storeBytes(of: interleaved.evenHalf, as: SIMD8<UInt8>.self)
        UnsafeMutableRawPointer(v).storeBytes(of: interleaved.oddHalf, as: SIMD8<UInt8>.self)
    }
}
