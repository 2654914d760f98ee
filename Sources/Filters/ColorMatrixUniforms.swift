import CGLES
import GPU

/// The `u_matrix` and `u_offset` uniforms of a program built on
/// `color_matrix.frag`; values are sent only when they change.
public final class ColorMatrixUniforms {
    private let matrix: GLint
    private let offset: GLint
    private var current: ColorMatrix?

    public init(_ program: ShaderProgram) {
        matrix = program.location("u_matrix")
        offset = program.location("u_offset")
    }

    /// Sets `m` on the program, which must be in use.
    public func set(_ m: ColorMatrix) {
        guard current != m else { return }
        m.columnMajor.withUnsafeBufferPointer { glUniformMatrix4fv(matrix, 1, GLboolean(GL_FALSE), $0.baseAddress) }
        glUniform4f(offset, m.offset.x, m.offset.y, m.offset.z, m.offset.w)
        current = m
    }
}
