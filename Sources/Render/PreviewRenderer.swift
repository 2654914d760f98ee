import CGLES
import Filters
import GPU
import Shaders

/// Draws the picture onto the output as a preview: fitted, rotated and
/// mirrored per `PreviewLayout`, on black, through a color matrix.
public final class PreviewRenderer: LayoutStage {
    public var layout: PreviewLayout
    private let program: ShaderProgram
    private let colorMatrix: ColorMatrixUniforms

    public init(layout: PreviewLayout = PreviewLayout()) throws {
        self.layout = layout
        program = try ShaderProgram(quadFragment: ShaderSource.colorMatrix, name: "color_matrix.frag")
        colorMatrix = ColorMatrixUniforms(program)
    }

    public func magnification(width: Int, height: Int, outputWidth: Int, outputHeight: Int) -> Float {
        layout.magnification(imageWidth: width, imageHeight: height, outputWidth: outputWidth, outputHeight: outputHeight)
    }

    /// Without a color matrix, the plain texture draw: llvmpipe runs such a
    /// shader on its fast fixed-point path, at about half the cost.
    public func draw(_ texture: TextureView, matrix: ColorMatrix, into target: RenderTarget, _ frame: StageFrame) {
        target.bind()
        glClearColor(0, 0, 0, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        let vertices = vertices(for: texture, on: target)
        if matrix == .identity {
            frame.copier.draw(texture, vertices)
        } else {
            program.use()
            colorMatrix.set(matrix)
            GL.bindTexture(texture.name)
            frame.copier.quad.draw(vertices)
        }
    }

    /// The quad's corners: output place and texture coordinate of each.
    private func vertices(for texture: TextureView, on target: RenderTarget) -> Quad.Vertices {
        let e = layout.extent(imageWidth: texture.pixelWidth, imageHeight: texture.pixelHeight,
                              outputWidth: target.width, outputHeight: target.height)
        let r = texture.region
        // Output corners in image order (y down), placed per the target's row order.
        let down = -target.clipYScale
        func corner(_ x: Float, _ y: Float) -> SIMD4<Float> {
            let s = layout.sourcePoint(x: x, y: y)
            return SIMD4((2 * x - 1) * e.x, (2 * y - 1) * e.y * down, r.x + s.u * r.width, r.y + s.v * r.height)
        }
        return (corner(0, 0), corner(1, 0), corner(0, 1), corner(1, 1))
    }
}
