import CGLES
import GPU
import Shaders

/// Draws a texture onto the output as a preview: fitted, rotated and
/// mirrored per `PreviewLayout`, on black.
public final class PreviewRenderer {
    public var layout: PreviewLayout
    private let program: ShaderProgram
    private let quad = Quad()

    public init(layout: PreviewLayout = PreviewLayout()) throws {
        self.layout = layout
        program = try ShaderProgram(vertex: ShaderSource.quadVertex, fragment: ShaderSource.texture,
                                    vertexName: "quad.vert", fragmentName: "texture.frag")
        program.use()
        glUniform1i(program.location("u_texture"), 0)
    }

    /// Renders `texture` into `target`.
    public func render(_ texture: CameraTexture, into target: Framebuffer) {
        target.bind()
        glClearColor(0, 0, 0, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        program.use()
        GL.bindTexture(texture.name)
        let e = layout.extent(imageWidth: texture.pixelWidth, imageHeight: texture.pixelHeight,
                              outputWidth: target.width, outputHeight: target.height)
        let r = texture.region
        // Output corners in image order (y down); GL's viewport bottom holds the image's top row.
        func corner(_ x: Float, _ y: Float) -> SIMD4<Float> {
            let s = layout.sourcePoint(x: x, y: y)
            return SIMD4((2 * x - 1) * e.x, (2 * y - 1) * e.y, r.x + s.u * r.width, r.y + s.v * r.height)
        }
        quad.draw((corner(0, 0), corner(1, 0), corner(0, 1), corner(1, 1)))
    }
}
