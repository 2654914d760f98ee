/// How Y'CbCr values map to R'G'B': the matrix (BT.601 or BT.709) and the range.
public struct YUVColorSpace: Equatable, Sendable, CustomStringConvertible {
    public enum Matrix: String, CaseIterable, Sendable { case bt601, bt709 }
    public enum Range: String, CaseIterable, Sendable { case limited, full }

    public var matrix: Matrix
    public var range: Range

    public init(matrix: Matrix = .bt601, range: Range = .limited) {
        self.matrix = matrix
        self.range = range
    }

    public static let bt601Limited = YUVColorSpace(matrix: .bt601, range: .limited)

    public var description: String { "\(matrix.rawValue) \(range.rawValue)" }

    /// Luma weights (Kr, Kg, Kb).
    public var lumaWeights: (r: Float, g: Float, b: Float) {
        switch matrix {
        case .bt601: (0.299, 0.587, 0.114)
        case .bt709: (0.2126, 0.7152, 0.0722)
        }
    }

    /// Values subtracted from normalized (y, u, v) before `toRGB`.
    public var offset: SIMD3<Float> {
        SIMD3(range == .limited ? 16 / 255 : 0, 128 / 255, 128 / 255)
    }

    /// Column-major 3x3 matrix taking offset-removed normalized (y, u, v) to RGB,
    /// range scaling included.
    public var toRGB: [Float] {
        let (kr, kg, kb) = lumaWeights
        let ys: Float = range == .limited ? 255 / 219 : 1
        let cs: Float = range == .limited ? 255 / 224 : 1
        let crToR = 2 * (1 - kr), cbToB = 2 * (1 - kb)
        let cbToG = -2 * kb * (1 - kb) / kg, crToG = -2 * kr * (1 - kr) / kg
        return [ys, ys, ys,                   // column y
                0, cbToG * cs, cbToB * cs,    // column u
                crToR * cs, crToG * cs, 0]    // column v
    }

    /// Converts one 8-bit RGB pixel to 8-bit Y'CbCr (used to make YUV test frames).
    public func yuv(r: UInt8, g: UInt8, b: UInt8) -> (y: UInt8, u: UInt8, v: UInt8) {
        let (kr, kg, kb) = lumaWeights
        let rf = Float(r) / 255, gf = Float(g) / 255, bf = Float(b) / 255
        let y = kr * rf + kg * gf + kb * bf
        let cb = (bf - y) / (2 * (1 - kb)), cr = (rf - y) / (2 * (1 - kr))
        let (ys, cs, yo): (Float, Float, Float) = range == .limited ? (219, 224, 16) : (255, 255, 0)
        return (Self.byte(yo + ys * y), Self.byte(128 + cs * cb), Self.byte(128 + cs * cr))
    }

    private static func byte(_ v: Float) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
}
