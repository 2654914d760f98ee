/// An affine map of RGB bytes, `out = clamp(M * rgb + k)`, in 16.16 fixed
/// point: a color matrix folded into the CPU's YUV conversion, so that a
/// software renderer need not run it as a floating-point shader pass.
public struct RGBTransform: Equatable, Sendable {
    public static func == (a: RGBTransform, b: RGBTransform) -> Bool {
        a.r == b.r && a.g == b.g && a.b == b.b
    }

    /// Per output channel: the coefficients of R, G and B, then the constant
    /// (in bytes) with the rounding half, all times 65536.
    public let r: SIMD4<Int32>
    public let g: SIMD4<Int32>
    public let b: SIMD4<Int32>
    /// The rows as given (colors in 0...1), for composing with other maps.
    public let rows: (r: SIMD4<Float>, g: SIMD4<Float>, b: SIMD4<Float>)

    /// Coefficients up to this size (and constants up to half of it) fit the
    /// 16.16 fields; a stronger matrix is not folded (nil) and is drawn instead.
    public static let largestCoefficient: Float = 128

    /// Rows of (coefficient of r, of g, of b, constant), colors in 0...1; nil
    /// when a coefficient is beyond `largestCoefficient` or not finite.
    public init?(r: SIMD4<Float>, g: SIMD4<Float>, b: SIMD4<Float>) {
        func fits(_ row: SIMD4<Float>) -> Bool {
            max(abs(row.x), abs(row.y), abs(row.z)) < Self.largestCoefficient && abs(row.w) < Self.largestCoefficient / 2
        }
        guard fits(r), fits(g), fits(b) else { return nil }
        func fixed(_ row: SIMD4<Float>) -> SIMD4<Int32> {
            SIMD4(Int32((row.x * 65536).rounded()), Int32((row.y * 65536).rounded()), Int32((row.z * 65536).rounded()),
                  Int32((row.w * 255 * 65536).rounded()) + 32768)
        }
        rows = (r, g, b)
        self.r = fixed(r)
        self.g = fixed(g)
        self.b = fixed(b)
    }
}
