import CGLES
import GPU
import Shaders

/// Mosaic: blocks of N x N pixels, each the color at its center (after CIPixellate).
public struct PixellateFilter: Filter {
    public let blockSize: Int

    public init(blockSize: Int) { self.blockSize = blockSize }

    public var name: String { "pixellate=\(blockSize)" }

    public func makeStage() throws -> RenderStage { try PixellateStage(blockSize: blockSize) }

    static let kind = FilterKind(name: "pixellate", usage: "pixellate=N", summary: "mosaic of N x N pixel blocks, each the color at its center (after CIPixellate)") { value, _ in
        guard let value, let n = Int(value.trimmingCharacters(in: .whitespaces)), (1...512).contains(n) else {
            throw FilterError("pixellate=\(value ?? ""): the block size must be a whole number of pixels from 1 to 512")
        }
        return PixellateFilter(blockSize: n)
    }
}

final class PixellateStage: RenderStage {
    private let program: ShaderProgram
    private let resolution: GLint
    private let block: GLint
    private let region: GLint
    private let blockSize: Int
    private var output: Framebuffer?

    init(blockSize: Int) throws {
        self.blockSize = blockSize
        program = try ShaderProgram(quadFragment: ShaderSource.text(PackageResources.pixellate_frag), name: "pixellate.frag")
        program.use()
        resolution = program.location("u_resolution")
        block = program.location("u_block")
        region = program.location("u_region")
        glUniform1f(block, Float(blockSize))
    }

    var passes: Int { 1 }

    func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView {
        let (width, height) = (input.pixelWidth, input.pixelHeight)
        let target = try Framebuffer.reused(&output, width: width, height: height)
        target.bind()
        program.use()
        glUniform2f(resolution, Float(width), Float(height))
        // A frame's crop is a region of its texture (the shader path's RGB frames): blocks start at the crop's corner.
        glUniform4f(region, input.region.x, input.region.y, input.region.width, input.region.height)
        GL.bindTexture(input.name)
        frame.copier.quad.draw(Quad.vertices(filling: input.region))
        return target.asTexture
    }
}
