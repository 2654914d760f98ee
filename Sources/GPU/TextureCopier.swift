import CGLES
import Shaders

/// Draws a region of a texture over a whole target, unchanged but for
/// scaling: the plain texture program and a quad, made once per context and
/// shared by the frame uploader, the stages, the layout and the display.
public final class TextureCopier {
    public let program: ShaderProgram
    public let quad = Quad()

    public init() throws {
        program = try ShaderProgram(quadFragment: ShaderSource.texture, name: "texture.frag")
    }

    /// Draws `region` of `texture` (its own region by default) over all of `target`.
    public func copy(_ texture: TextureView, region: TextureRegion? = nil, into target: RenderTarget) {
        target.bind()
        draw(texture, Quad.vertices(filling: region ?? texture.region))
    }

    /// Draws `texture` with the plain program on the bound target, at `vertices`.
    public func draw(_ texture: TextureView, _ vertices: Quad.Vertices) {
        program.use()
        GL.bindTexture(texture.name)
        quad.draw(vertices)
    }

    /// `texture` as a whole texture with row 0 at the picture's bottom (GL's
    /// own orientation, which glslViewer and Shadertoy passes sample in):
    /// itself when it is one, else copied so into `scratch`.
    public func bottomUp(_ texture: TextureView, scratch: inout Framebuffer?) throws -> TextureView {
        guard texture.region != .bottomUp else { return texture }
        let target = try Framebuffer.reused(&scratch, width: texture.pixelWidth, height: texture.pixelHeight)
        copy(texture, region: texture.region.flippedVertically, into: target)
        return target.asBottomUpTexture
    }

    /// `texture` as a whole texture (region `.full`) of one texel a pixel:
    /// itself when it is one, else copied into `scratch` (made or resized as
    /// needed). A filter that samples neighbours reads such a copy, so that
    /// its edges clamp at the picture's edges rather than reading past a
    /// crop, and its distances are in the picture's pixels.
    public func whole(_ texture: TextureView, scratch: inout Framebuffer?) throws -> TextureView {
        guard texture.region != .full || texture.isReduced else { return texture }
        let target = try Framebuffer.reused(&scratch, width: texture.pixelWidth, height: texture.pixelHeight)
        copy(texture, into: target)
        return target.asTexture
    }
}
