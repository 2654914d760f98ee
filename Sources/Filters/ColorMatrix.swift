import Foundation
import Pixels

/// An affine color transform: `out = M * (r, g, b, a) + offset`, on values in 0...1.
///
/// Intensity is folded into the matrix (`mixed(intensity:)`) rather than kept
/// as a shader uniform, so that a chain of matrices can be folded into one
/// matrix on the CPU and rendered in one pass.
public struct ColorMatrix: Equatable, Sendable {
    /// Rows of M: `out.r = dot(r, in) + offset.x`, and so on.
    public var r: SIMD4<Float>
    public var g: SIMD4<Float>
    public var b: SIMD4<Float>
    public var a: SIMD4<Float>
    public var offset: SIMD4<Float>

    public init(r: SIMD4<Float>, g: SIMD4<Float>, b: SIMD4<Float>, a: SIMD4<Float> = SIMD4(0, 0, 0, 1),
                offset: SIMD4<Float> = .zero) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
        self.offset = offset
    }

    /// From 16 row-major values (and an optional 4-value offset).
    public init(rowMajor m: [Float], offset: [Float] = [0, 0, 0, 0]) {
        precondition(m.count == 16 && offset.count == 4)
        self.init(r: SIMD4(m[0], m[1], m[2], m[3]), g: SIMD4(m[4], m[5], m[6], m[7]),
                  b: SIMD4(m[8], m[9], m[10], m[11]), a: SIMD4(m[12], m[13], m[14], m[15]),
                  offset: SIMD4(offset[0], offset[1], offset[2], offset[3]))
    }

    public static let identity = ColorMatrix(r: SIMD4(1, 0, 0, 0), g: SIMD4(0, 1, 0, 0), b: SIMD4(0, 0, 1, 0))

    public var rows: [SIMD4<Float>] { [r, g, b, a] }

    /// The matrix as a map of RGB bytes for an opaque input (the alpha
    /// column joins the constant), or nil when it changes alpha or is too
    /// strong for fixed point (see `RGBTransform.largestCoefficient`).
    public var rgbTransform: RGBTransform? {
        guard a == SIMD4(0, 0, 0, 1), offset.w == 0 else { return nil }
        func row(_ m: SIMD4<Float>, _ k: Float) -> SIMD4<Float> { SIMD4(m.x, m.y, m.z, m.w + k) }
        return RGBTransform(r: row(r, offset.x), g: row(g, offset.y), b: row(b, offset.z))
    }

    /// Applies the matrix to one color (no clamping).
    public func apply(_ c: SIMD4<Float>) -> SIMD4<Float> {
        SIMD4((r * c).sum(), (g * c).sum(), (b * c).sum(), (a * c).sum()) + offset
    }

    /// This matrix followed by `next`: `next(self(x))`.
    public func then(_ next: ColorMatrix) -> ColorMatrix {
        func row(_ n: SIMD4<Float>) -> SIMD4<Float> { n.x * r + n.y * g + n.z * b + n.w * a }
        return ColorMatrix(r: row(next.r), g: row(next.g), b: row(next.b), a: row(next.a),
                           offset: next.apply(offset))
    }

    /// The mix `(1 - t) * x + t * self(x)`, as GPUImage's color-matrix intensity.
    public func mixed(intensity t: Float) -> ColorMatrix {
        let i = ColorMatrix.identity
        return ColorMatrix(r: i.r + t * (r - i.r), g: i.g + t * (g - i.g), b: i.b + t * (b - i.b),
                           a: i.a + t * (a - i.a), offset: t * offset)
    }

    /// Column-major 4x4 values for `glUniformMatrix4fv`.
    public var columnMajor: [Float] {
        [r.x, g.x, b.x, a.x, r.y, g.y, b.y, a.y, r.z, g.z, b.z, a.z, r.w, g.w, b.w, a.w]
    }

    /// True when no coefficient is infinite or NaN.
    public var isFinite: Bool {
        (rows + [offset]).allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite && $0.w.isFinite }
    }

    /// True when every coefficient is within 1e-6 of the identity's.
    public var isIdentity: Bool {
        let i = ColorMatrix.identity
        let differences: [SIMD4<Float>] = [r - i.r, g - i.g, b - i.b, a - i.a, offset]
        let largest = differences.map { Swift.max(abs($0.x), abs($0.y), abs($0.z), abs($0.w)) }.max() ?? 0
        return largest < 1e-6
    }
}

extension ColorMatrix {
    /// BT.601 luma weights, the weights of a camera's Y plane.
    public static let lumaWeights = SIMD4<Float>(0.299, 0.587, 0.114, 0)

    /// Adds `amount` to R, G and B.
    public static func brightness(_ amount: Float) -> ColorMatrix {
        var m = identity
        m.offset = SIMD4(amount, amount, amount, 0)
        return m
    }

    /// Scales the distance from mid-gray by `factor` (1 = unchanged).
    public static func contrast(_ factor: Float) -> ColorMatrix {
        let o = 0.5 * (1 - factor)
        return ColorMatrix(r: SIMD4(factor, 0, 0, 0), g: SIMD4(0, factor, 0, 0), b: SIMD4(0, 0, factor, 0),
                           offset: SIMD4(o, o, o, 0))
    }

    /// Moves colors toward (< 1) or away from (> 1) their luma; 0 is gray.
    public static func saturation(_ s: Float) -> ColorMatrix {
        let l = lumaWeights * (1 - s)
        return ColorMatrix(r: l + SIMD4(s, 0, 0, 0), g: l + SIMD4(0, s, 0, 0), b: l + SIMD4(0, 0, s, 0))
    }

    /// Rotates hue by `degrees` around the gray axis: a rotation of the I/Q
    /// chroma plane of YIQ (BT.601 luma), so luma and grays are unchanged.
    public static func hue(degrees: Float) -> ColorMatrix {
        let a = degrees * .pi / 180
        let c = cosf(a), s = sinf(a)
        let toYIQ: [SIMD3<Float>] = [SIMD3(0.299, 0.587, 0.114), SIMD3(0.596, -0.274, -0.322), SIMD3(0.211, -0.523, 0.312)]
        let rotation: [SIMD3<Float>] = [SIMD3(1, 0, 0), SIMD3(0, c, -s), SIMD3(0, s, c)]
        let m = multiply(inverse(toYIQ), multiply(rotation, toYIQ))
        return ColorMatrix(r: SIMD4(m[0], 0), g: SIMD4(m[1], 0), b: SIMD4(m[2], 0))
    }

    private static func multiply(_ x: [SIMD3<Float>], _ y: [SIMD3<Float>]) -> [SIMD3<Float>] {
        x.map { row in row.x * y[0] + row.y * y[1] + row.z * y[2] }
    }

    private static func inverse(_ m: [SIMD3<Float>]) -> [SIMD3<Float>] {
        let (a, b, c) = (m[0], m[1], m[2])
        let cofactors = [SIMD3(b.y * c.z - b.z * c.y, a.z * c.y - a.y * c.z, a.y * b.z - a.z * b.y),
                         SIMD3(b.z * c.x - b.x * c.z, a.x * c.z - a.z * c.x, a.z * b.x - a.x * b.z),
                         SIMD3(b.x * c.y - b.y * c.x, a.y * c.x - a.x * c.y, a.x * b.y - a.y * b.x)]
        let determinant = a.x * cofactors[0].x + a.y * cofactors[1].x + a.z * cofactors[2].x
        return cofactors.map { $0 / determinant }
    }

    /// Multiplies R, G and B by the given factors.
    public static func tint(_ red: Float, _ green: Float, _ blue: Float) -> ColorMatrix {
        ColorMatrix(r: SIMD4(red, 0, 0, 0), g: SIMD4(0, green, 0, 0), b: SIMD4(0, 0, blue, 0))
    }

    /// Luma only, in all three channels.
    public static let gray = ColorMatrix(r: lumaWeights, g: lumaWeights, b: lumaWeights)

    /// GPUImage's sepia tone matrix.
    public static let sepia = ColorMatrix(r: SIMD4(0.3588, 0.7044, 0.1368, 0), g: SIMD4(0.2990, 0.5870, 0.1140, 0),
                                          b: SIMD4(0.2392, 0.4696, 0.0912, 0))

    /// The negative: `1 - c` for R, G and B.
    public static let invert = ColorMatrix(r: SIMD4(-1, 0, 0, 0), g: SIMD4(0, -1, 0, 0), b: SIMD4(0, 0, -1, 0),
                                           offset: SIMD4(1, 1, 1, 0))
}
