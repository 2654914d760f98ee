/// The arithmetic of `YUVToYUV420` in single-precision floating point:
/// input Y'CbCr bytes to RGB levels through one affine map (the input's
/// matrix and range with a color matrix composed in), each channel clamped
/// to 0...255 as `YUVToRGBA` clamps it but not rounded to a whole level (so
/// nearer the formulas, and 13 % faster), then encoded with `YUVEncoding`'s
/// weights. No table and no branch: the row loop that uses it is vectorized
/// by the compiler (four pixels an instruction on SSE2), which the table
/// reads of the RGBA conversion prevent. Each result is rounded by adding
/// 1.5 x 2^23, which leaves the integer in the low bits of the float (exact
/// for 0...2^22).
struct YUV420Map: Equatable {
    let input: YUVColorSpace
    let transform: RGBTransform?
    let output: YUVColorSpace
    // RGB levels from (Y', Cb, Cr) bytes: the coefficient of each, then the constant.
    let ry: Float, ru: Float, rv: Float, rk: Float
    let gy: Float, gu: Float, gv: Float, gk: Float
    let by: Float, bu: Float, bv: Float, bk: Float
    // Y' from RGB bytes, and Cb, Cr from the sums of a 2x2 block's RGB bytes.
    let yr: Float, yg: Float, yb: Float, yk: Float
    let ur: Float, ug: Float, ub: Float, uk: Float
    let vr: Float, vg: Float, vb: Float, vk: Float

    private static let magic: Float = 12_582_912

    init(input: YUVColorSpace, transform: RGBTransform?, output: YUVColorSpace) {
        self.input = input
        self.transform = transform
        self.output = output
        let m = input.toRGB.map(Double.init), o = input.offset * 255
        let identity: [SIMD4<Float>] = [SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0)]
        let rows: [SIMD4<Double>] = (transform.map { [$0.rows.r, $0.rows.g, $0.rows.b] } ?? identity).map {
            SIMD4(Double($0.x), Double($0.y), Double($0.z), Double($0.w))
        }
        /// RGB levels, the matrix applied and nothing clamped, of input bytes.
        func rgb(_ y: Double, _ u: Double, _ v: Double) -> SIMD3<Double> {
            let l = y - Double(o.x), cu = u - Double(o.y), cv = v - Double(o.z)
            let c = SIMD3<Double>(m[0] * l + m[6] * cv, m[1] * l + m[4] * cu + m[7] * cv, m[2] * l + m[5] * cu)
            let mapped = rows.map { $0.x * c.x + $0.y * c.y + $0.z * c.z + $0.w * 255 }
            return SIMD3(mapped[0], mapped[1], mapped[2])
        }
        let base = rgb(0, 0, 0)
        let (cy, cu, cv) = (rgb(1, 0, 0) - base, rgb(0, 1, 0) - base, rgb(0, 0, 1) - base)
        (ry, ru, rv, rk) = (Float(cy.x), Float(cu.x), Float(cv.x), Float(base.x))
        (gy, gu, gv, gk) = (Float(cy.y), Float(cu.y), Float(cv.y), Float(base.y))
        (by, bu, bv, bk) = (Float(cy.z), Float(cu.z), Float(cv.z), Float(base.z))
        let e = YUVEncoding(output).weights
        (yr, yg, yb, yk) = (e.y.x, e.y.y, e.y.z, e.y.w)
        // A block's sums are four pixels'.
        (ur, ug, ub, uk) = (e.u.x / 4, e.u.y / 4, e.u.z / 4, e.u.w)
        (vr, vg, vb, vk) = (e.v.x / 4, e.v.y / 4, e.v.z / 4, e.v.w)
    }

    /// What the pixels sharing chroma (u, v) share: each channel's chroma terms and constant.
    @inline(__always) func terms(_ u: Float, _ v: Float) -> ChromaTerms {
        ChromaTerms(r: ru * u + rv * v + rk, g: gu * u + gv * v + gk, b: bu * u + bv * v + bk)
    }

    /// A pixel's RGB levels from its luma and its pair's terms.
    @inline(__always) func rgb(_ y: Float, _ t: ChromaTerms) -> RGBLevels {
        RGBLevels(r: Self.clamped(ry * y + t.r), g: Self.clamped(gy * y + t.g), b: Self.clamped(by * y + t.b))
    }

    @inline(__always) func luma(_ p: RGBLevels) -> UInt8 {
        Self.byte(yr * p.r + yg * p.g + yb * p.b + yk)
    }

    /// Cb and Cr of a 2x2 block's mean color.
    @inline(__always) func chroma(_ a: RGBLevels, _ b: RGBLevels, _ c: RGBLevels, _ d: RGBLevels) -> (UInt8, UInt8) {
        let r = (a.r + b.r) + (c.r + d.r), g = (a.g + b.g) + (c.g + d.g), bl = (a.b + b.b) + (c.b + d.b)
        return (Self.byte(ur * r + ug * g + ub * bl + uk), Self.byte(vr * r + vg * g + vb * bl + vk))
    }

    /// Written as the comparisons `maxps` and `minps` make.
    @inline(__always) private static func clamped(_ x: Float) -> Float {
        let low = x > 0 ? x : 0
        return low < 255 ? low : 255
    }

    /// `x` clamped to 0...255, rounded, as a byte.
    @inline(__always) private static func byte(_ x: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (clamped(x) + magic).bitPattern)
    }
}

/// The chroma terms of each channel for pixels sharing one Cb, Cr pair.
struct ChromaTerms {
    let r: Float, g: Float, b: Float
}

/// A pixel's red, green and blue levels, clamped to 0...255.
struct RGBLevels {
    let r: Float, g: Float, b: Float
}
