import CGLES
import Filters
import GPU
import Shaders

/// Draws a texture onto the output as a preview: fitted, rotated and
/// mirrored per `PreviewLayout`, on black, through a color matrix (the last
/// matrix of a filter chain costs no pass of its own).
public final class PreviewRenderer {
    public var layout: PreviewLayout
    private let program: ShaderProgram
    /// Without a color matrix, a plain texture draw: llvmpipe runs such a
    /// shader on its fast fixed-point path, at about half the cost.
    private let plain: ShaderProgram
    private let quad = Quad()
    private let colorMatrix: ColorMatrixUniforms

    public init(layout: PreviewLayout = PreviewLayout()) throws {
        self.layout = layout
        program = try ShaderProgram(quadFragment: ShaderSource.colorMatrix, name: "color_matrix.frag")
        plain = try ShaderProgram(quadFragment: ShaderSource.texture, name: "texture.frag")
        colorMatrix = ColorMatrixUniforms(program)
    }

    /// Renders `texture` into `target`, with `matrix` applied to every pixel.
    public func render(_ texture: CameraTexture, into target: RenderTarget, matrix: ColorMatrix = .identity) {
        target.bind()
        glClearColor(0, 0, 0, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        if matrix == .identity {
            plain.use()
        } else {
            program.use()
            colorMatrix.set(matrix)
        }
        GL.bindTexture(texture.name)
        let e = layout.extent(imageWidth: texture.pixelWidth, imageHeight: texture.pixelHeight,
                              outputWidth: target.width, outputHeight: target.height)
        let r = texture.region
        // Output corners in image order (y down), placed per the target's row order.
        let down = -target.clipYScale
        func corner(_ x: Float, _ y: Float) -> SIMD4<Float> {
            let s = layout.sourcePoint(x: x, y: y)
            return SIMD4((2 * x - 1) * e.x, (2 * y - 1) * e.y * down, r.x + s.u * r.width, r.y + s.v * r.height)
        }
        quad.draw((corner(0, 0), corner(1, 0), corner(0, 1), corner(1, 1)))
    }
}
