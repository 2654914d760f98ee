/// `YUV420Map`'s arithmetic in 16-bit fixed point, eight pixels an
/// instruction (SSE2's `pmulhw`, `pmaxsw`, `pminsw`, `packuswb`, which the
/// compiler emits for these SIMD types), where the float map does four: for
/// sixteen pixels of two rows at a time, the bulk of a row. RGB levels are
/// kept times 16 and clamped there; Y', Cb and Cr times 64, rounded once at
/// the end. Each product is the high half of a 16x16-bit multiply of a value
/// scaled to at most 2^15 by a coefficient scaled to fit: within about 0.2 of
/// a level of the float map. Nil for a map whose coefficients or levels do not
/// fit (a matrix far stronger than any filter's): the float map does it all.
struct YUV420Fixed {
    typealias Lanes = SIMD8<Int16>

    // RGB times 16 from (Y', Cb, Cr) bytes times 128: coefficients times 2^13, constants times 16.
    // All of them less their middles: see `init`.
    private let ry: Lanes, ru: Lanes, rv: Lanes, rk: Lanes
    private let gy: Lanes, gu: Lanes, gv: Lanes, gk: Lanes
    private let by: Lanes, bu: Lanes, bv: Lanes, bk: Lanes
    // Y', Cb, Cr times 64 from RGB times 128 (a pixel's, or a 2x2 block's mean):
    // weights times 2^15; constants times 64, with the rounding half.
    private let yr: Lanes, yg: Lanes, yb: Lanes, yk: Lanes
    private let ur: Lanes, ug: Lanes, ub: Lanes, uk: Lanes
    private let vr: Lanes, vg: Lanes, vb: Lanes, vk: Lanes

    private static let half = Lanes(repeating: 2040)

    init?(_ map: YUV420Map) {
        let rows = [(map.ry, map.ru, map.rv, map.rk), (map.gy, map.gu, map.gv, map.gk), (map.by, map.bu, map.bv, map.bk)]
        // Every partial sum of a channel, times 16, must fit 16 bits.
        for (y, u, v, k) in rows where (abs(y) + abs(u) + abs(v)) * 255 + abs(k) > 1_900 || max(abs(y), abs(u), abs(v)) >= 3.99 {
            return nil
        }
        let weights = [(map.yr, map.yg, map.yb), (map.ur * 4, map.ug * 4, map.ub * 4), (map.vr * 4, map.vg * 4, map.vb * 4)]
        guard weights.allSatisfy({ max(abs($0.0), abs($0.1), abs($0.2)) < 0.99 }) else { return nil }
        func c(_ x: Float, _ scale: Float) -> Lanes { Lanes(repeating: Int16((x * scale).rounded())) }
        // Inputs and RGB are centered on zero (bytes less 128, levels less
        // 127.5), so no operand of a product is known to be positive, which
        // would keep the compiler from `pmulhw`; the constants take the shifts.
        // Each of the three products of a sum is rounded down by up to one unit: half a unit each back.
        func rgbConstant(_ y: Float, _ u: Float, _ v: Float, _ k: Float) -> Lanes {
            c((k + 128 * (y + u + v) - 127.5) * 16 + 1.5, 1)
        }
        func outputConstant(_ r: Float, _ g: Float, _ b: Float, _ k: Float) -> Lanes { c((k + 127.5 * (r + g + b)) * 64 + 32 + 1.5, 1) }
        (ry, ru, rv, rk) = (c(map.ry, 8192), c(map.ru, 8192), c(map.rv, 8192), rgbConstant(map.ry, map.ru, map.rv, map.rk))
        (gy, gu, gv, gk) = (c(map.gy, 8192), c(map.gu, 8192), c(map.gv, 8192), rgbConstant(map.gy, map.gu, map.gv, map.gk))
        (by, bu, bv, bk) = (c(map.by, 8192), c(map.bu, 8192), c(map.bv, 8192), rgbConstant(map.by, map.bu, map.bv, map.bk))
        (yr, yg, yb, yk) = (c(map.yr, 32768), c(map.yg, 32768), c(map.yb, 32768), outputConstant(map.yr, map.yg, map.yb, map.yk))
        let (u, v) = ((map.ur * 4, map.ug * 4, map.ub * 4), (map.vr * 4, map.vg * 4, map.vb * 4))
        (ur, ug, ub, uk) = (c(u.0, 32768), c(u.1, 32768), c(u.2, 32768), outputConstant(u.0, u.1, u.2, map.uk))
        (vr, vg, vb, vk) = (c(v.0, 32768), c(v.1, 32768), c(v.2, 32768), outputConstant(v.0, v.1, v.2, map.vk))
    }

    /// The high 16 bits of each lane's 32-bit product (`pmulhw`).
    @inline(__always) private static func high(_ a: Lanes, _ b: Lanes) -> Lanes {
        Lanes(truncatingIfNeeded: (SIMD8<Int32>(truncatingIfNeeded: a) &* SIMD8<Int32>(truncatingIfNeeded: b)) &>> 16)
    }

    /// Each pair's value in both of its pixels' lanes.
    @inline(__always) private static func doubled(_ pairs: SIMD4<Int16>) -> Lanes {
        var lanes = Lanes()
        lanes.evenHalf = pairs
        lanes.oddHalf = pairs
        return lanes
    }

    /// Bytes less 128, times 128.
    @inline(__always) private static func scaled(_ bytes: SIMD8<UInt8>) -> Lanes {
        (Lanes(truncatingIfNeeded: bytes) &- 128) &<< 7
    }

    /// Levels less 127.5, times 16, clamped to the levels 0...255.
    @inline(__always) private static func clamped(_ x: Lanes) -> Lanes {
        x.clamped(lowerBound: 0 &- half, upperBound: half)
    }

    /// One row's sixteen pixels: RGB levels less 127.5 times 16, clamped, in two halves of eight.
    @inline(__always) private func rgb(_ y: SIMD16<UInt8>, _ u: SIMD8<UInt8>, _ v: SIMD8<UInt8>)
        -> (r: (Lanes, Lanes), g: (Lanes, Lanes), b: (Lanes, Lanes)) {
        let us = Self.scaled(u), vs = Self.scaled(v)
        // What each pair's two pixels share, once a pair.
        let tr = Self.high(us, ru) &+ Self.high(vs, rv) &+ rk
        let tg = Self.high(us, gu) &+ Self.high(vs, gv) &+ gk
        let tb = Self.high(us, bu) &+ Self.high(vs, bv) &+ bk
        let y0 = Self.scaled(y.lowHalf), y1 = Self.scaled(y.highHalf)
        @inline(__always) func channel(_ k: Lanes, _ t: Lanes) -> (Lanes, Lanes) {
            (Self.clamped(Self.high(y0, k) &+ Self.doubled(t.lowHalf)), Self.clamped(Self.high(y1, k) &+ Self.doubled(t.highHalf)))
        }
        return (channel(ry, tr), channel(gy, tg), channel(by, tb))
    }

    /// Bytes of values times 64, rounded down (the rounding half is in the constants), saturated.
    @inline(__always) private static func bytes(_ a: Lanes, _ b: Lanes) -> SIMD16<UInt8> {
        let low = SIMD8<UInt8>(truncatingIfNeeded: (a &>> 6).clamped(lowerBound: Lanes(), upperBound: Lanes(repeating: 255)))
        let high = SIMD8<UInt8>(truncatingIfNeeded: (b &>> 6).clamped(lowerBound: Lanes(), upperBound: Lanes(repeating: 255)))
        return SIMD16(lowHalf: low, highHalf: high)
    }

    @inline(__always) private func luma(_ r: Lanes, _ g: Lanes, _ b: Lanes) -> Lanes {
        Self.high(r &<< 3, yr) &+ Self.high(g &<< 3, yg) &+ Self.high(b &<< 3, yb) &+ yk
    }

    /// Sixteen pixels of rows a and b from source column `s` (even): their
    /// Y' at `ya` and `yb`, and their eight blocks' Cb and Cr at `u` and `v`.
    @inline(__always)
    func sixteen<L: YUVLayout>(_: L.Type, a: UnsafePointer<UInt8>, ac: UnsafePointer<UInt8>, b: UnsafePointer<UInt8>, bc: UnsafePointer<UInt8>,
                               s: Int, ya: UnsafeMutablePointer<UInt8>, yb: UnsafeMutablePointer<UInt8>,
                               u: UnsafeMutablePointer<UInt8>, v: UnsafeMutablePointer<UInt8>) {
        let upper = L.sixteen(a, ac, s), lower = L.sixteen(b, bc, s)
        let top = rgb(upper.y, upper.u, upper.v), bottom = rgb(lower.y, lower.u, lower.v)
        UnsafeMutableRawPointer(ya).storeBytes(of: Self.bytes(luma(top.r.0, top.g.0, top.b.0), luma(top.r.1, top.g.1, top.b.1)), as: SIMD16<UInt8>.self)
        UnsafeMutableRawPointer(yb).storeBytes(of: Self.bytes(luma(bottom.r.0, bottom.g.0, bottom.b.0), luma(bottom.r.1, bottom.g.1, bottom.b.1)),
                                               as: SIMD16<UInt8>.self)
        /// A channel's eight 2x2 sums (times 16, at most 8160 either way), times 2: each block's mean times 128.
        @inline(__always) func blocks(_ t: (Lanes, Lanes), _ b: (Lanes, Lanes)) -> Lanes {
            let left = t.0 &+ b.0, right = t.1 &+ b.1
            return Lanes(lowHalf: left.evenHalf &+ left.oddHalf, highHalf: right.evenHalf &+ right.oddHalf) &<< 1
        }
        let r = blocks(top.r, bottom.r), g = blocks(top.g, bottom.g), bl = blocks(top.b, bottom.b)
        let cb = Self.high(r, ur) &+ Self.high(g, ug) &+ Self.high(bl, ub) &+ uk
        let cr = Self.high(r, vr) &+ Self.high(g, vg) &+ Self.high(bl, vb) &+ vk
        let chroma = Self.bytes(cb, cr)
        UnsafeMutableRawPointer(u).storeBytes(of: chroma.lowHalf, as: SIMD8<UInt8>.self)
        UnsafeMutableRawPointer(v).storeBytes(of: chroma.highHalf, as: SIMD8<UInt8>.self)
    }
}
