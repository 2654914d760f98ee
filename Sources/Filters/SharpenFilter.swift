import CGLES
import GPU
import Shaders

/// Unsharp mask: `picture + amount * (picture - blur(picture, sigma))`,
/// clamped (ffmpeg's unsharp, Core Image's CIUnsharpMask).
public struct SharpenFilter: Filter {
    public let amount: Float
    public let sigma: Float

    public init(amount: Float, sigma: Float = 1) {
        self.amount = amount
        self.sigma = sigma
    }

    public var name: String { "sharpen=\(FilterValue.format(amount)),\(FilterValue.format(sigma))" }

    public func makeStage() throws -> RenderStage { try SharpenStage(amount: amount, sigma: sigma) }

    static let kind = FilterKind(name: "sharpen", usage: "sharpen=AMOUNT[,SIGMA]",
                                 summary: "unsharp mask: adds AMOUNT (0...10) times the detail finer than a blur of SIGMA pixels (default 1; after CIUnsharpMask)") { value, _ in
        let parts = (value ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 2 else { throw FilterError("sharpen=\(value ?? ""): give AMOUNT or AMOUNT,SIGMA, e.g. sharpen=1 or sharpen=1.5,2") }
        let amount = try FilterValue.number(parts[0], filter: "sharpen", range: 0...10, meaning: "the amount")
        let sigma = parts.count > 1 ? try FilterValue.number(parts[1], filter: "sharpen", range: BlurFilter.range, meaning: "the blur's standard deviation in pixels") : 1
        return SharpenFilter(amount: amount, sigma: sigma)
    }
}

final class SharpenStage: RenderStage {
    private let blur: BlurStage
    private let program: ShaderProgram
    private let blurredRegion: GLint
    private var scratch: Framebuffer?
    private var output: Framebuffer?
    private(set) var passes = 0

    init(amount: Float, sigma: Float) throws {
        blur = BlurStage(sigma: sigma)
        program = try ShaderProgram(quadFragment: ShaderSource.text(PackageResources.sharpen_frag), name: "sharpen.frag")
        program.use()
        glUniform1i(program.location("u_blurred"), 1)
        glUniform1f(program.location("u_amount"), amount)
        blurredRegion = program.location("u_blurred_region")
    }

    func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView {
        let picture = try frame.copier.whole(input, scratch: &scratch)
        let blurred = try blur.render(picture, frame)
        let target = try Framebuffer.reused(&output, width: input.pixelWidth, height: input.pixelHeight)
        target.bind()
        program.use()
        let r = blurred.region
        glUniform4f(blurredRegion, r.x, r.y, r.width, r.height)
        GL.bindTexture(picture.name)
        GL.bindTexture(blurred.name, unit: 1)
        frame.copier.quad.draw(Quad.vertices(filling: .full))
        glActiveTexture(GLenum(GL_TEXTURE0))
        passes = blur.passes + 1 + (picture.name == input.name ? 0 : 1)
        return target.asTexture
    }
}
