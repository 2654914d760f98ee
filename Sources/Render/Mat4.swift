import Foundation

/// A column-major 4x4 matrix for vertex transforms.
public struct Mat4: Equatable, Sendable {
    public var columns: (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)

    public init(_ c0: SIMD4<Float>, _ c1: SIMD4<Float>, _ c2: SIMD4<Float>, _ c3: SIMD4<Float>) {
        columns = (c0, c1, c2, c3)
    }

    public static let identity = Mat4(SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(0, 0, 0, 1))

    public static func == (a: Mat4, b: Mat4) -> Bool {
        a.columns.0 == b.columns.0 && a.columns.1 == b.columns.1 && a.columns.2 == b.columns.2 && a.columns.3 == b.columns.3
    }

    public static func * (a: Mat4, b: Mat4) -> Mat4 {
        Mat4(a * b.columns.0, a * b.columns.1, a * b.columns.2, a * b.columns.3)
    }

    public static func * (m: Mat4, v: SIMD4<Float>) -> SIMD4<Float> {
        m.columns.0 * v.x + m.columns.1 * v.y + m.columns.2 * v.z + m.columns.3 * v.w
    }

    public static func translation(_ x: Float, _ y: Float, _ z: Float) -> Mat4 {
        Mat4(SIMD4(1, 0, 0, 0), SIMD4(0, 1, 0, 0), SIMD4(0, 0, 1, 0), SIMD4(x, y, z, 1))
    }

    public static func scale(_ x: Float, _ y: Float, _ z: Float) -> Mat4 {
        Mat4(SIMD4(x, 0, 0, 0), SIMD4(0, y, 0, 0), SIMD4(0, 0, z, 0), SIMD4(0, 0, 0, 1))
    }

    /// Rotation by `degrees` around a unit axis (right-handed).
    public static func rotation(degrees: Float, axis: SIMD3<Float>) -> Mat4 {
        let a = degrees * .pi / 180
        let c = cosf(a), s = sinf(a), t = 1 - c
        let (x, y, z) = (axis.x, axis.y, axis.z)
        return Mat4(SIMD4(t * x * x + c, t * x * y + s * z, t * x * z - s * y, 0),
                    SIMD4(t * x * y - s * z, t * y * y + c, t * y * z + s * x, 0),
                    SIMD4(t * x * z + s * y, t * y * z - s * x, t * z * z + c, 0),
                    SIMD4(0, 0, 0, 1))
    }

    /// Perspective projection with a vertical field of view.
    public static func perspective(fovyDegrees: Float, aspect: Float, near: Float, far: Float) -> Mat4 {
        let f = 1 / tanf(fovyDegrees * .pi / 360)
        return Mat4(SIMD4(f / aspect, 0, 0, 0), SIMD4(0, f, 0, 0),
                    SIMD4(0, 0, (far + near) / (near - far), -1), SIMD4(0, 0, 2 * far * near / (near - far), 0))
    }

    /// Calls `body` with the 16 floats in column-major order.
    public func withFloats<R>(_ body: (UnsafePointer<Float>) -> R) -> R {
        var c = columns
        return withUnsafeBytes(of: &c) { body($0.baseAddress!.assumingMemoryBound(to: Float.self)) }
    }
}
