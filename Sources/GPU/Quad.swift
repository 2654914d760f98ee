import CGLES

/// Four vertices (position x, y and texture coordinate u, v) drawn as a
/// triangle strip, in a vertex buffer created once. Corners go bottom-left,
/// bottom-right, top-left, top-right in GL's viewport.
public final class Quad {
    public typealias Vertices = (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
    private let buffer: GLuint
    private var current: [SIMD4<Float>] = []

    public init() {
        var b: GLuint = 0
        glGenBuffers(1, &b)
        buffer = b
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), b)
        glBufferData(GLenum(GL_ARRAY_BUFFER), 64, nil, GLenum(GL_DYNAMIC_DRAW))
        current.reserveCapacity(4)
    }

    deinit {
        var b = buffer
        glDeleteBuffers(1, &b)
    }

    /// A quad filling the viewport, showing `region` of a texture.
    public static func vertices(filling region: TextureRegion) -> Vertices {
        (SIMD4(-1, -1, region.x, region.y), SIMD4(1, -1, region.x + region.width, region.y),
         SIMD4(-1, 1, region.x, region.y + region.height), SIMD4(1, 1, region.x + region.width, region.y + region.height))
    }

    /// Draws with the bound program; uploads the vertices only when they changed.
    public func draw(_ vertices: Vertices) {
        glBindBuffer(GLenum(GL_ARRAY_BUFFER), buffer)
        if current.count != 4 || current[0] != vertices.0 || current[1] != vertices.1
            || current[2] != vertices.2 || current[3] != vertices.3 {
            var v = vertices
            withUnsafeBytes(of: &v) { glBufferSubData(GLenum(GL_ARRAY_BUFFER), 0, 64, $0.baseAddress) }
            current.removeAll(keepingCapacity: true)
            current.append(vertices.0); current.append(vertices.1); current.append(vertices.2); current.append(vertices.3)
        }
        let position = ShaderProgram.positionAttribute, texcoord = ShaderProgram.texcoordAttribute
        glEnableVertexAttribArray(position)
        glEnableVertexAttribArray(texcoord)
        glVertexAttribPointer(position, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 16, nil)
        glVertexAttribPointer(texcoord, 2, GLenum(GL_FLOAT), GLboolean(GL_FALSE), 16, UnsafeRawPointer(bitPattern: 8))
        glDrawArrays(GLenum(GL_TRIANGLE_STRIP), 0, 4)
    }
}
