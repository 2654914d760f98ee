import CGLES
import GPU
import Shaders

/// Any filter limited to a rectangle (`sepia@100,50,320,240~8`): inside it
/// the filtered picture, outside it exactly the unfiltered one, with an
/// optional soft edge between (the mask-and-blend of CIBlendWithMask).
public struct RegionFilter: Filter {
    public let filter: any Filter
    public let region: FilterRegion

    public init(_ filter: any Filter, region: FilterRegion) {
        self.filter = filter
        self.region = region
    }

    public static func == (a: RegionFilter, b: RegionFilter) -> Bool {
        a.region == b.region && a.filter.isEqual(to: b.filter)
    }

    public var name: String { "\(filter.name)@\(region.text)" }

    public func makeStage() throws -> RenderStage { try RegionStage(inner: filter.makeStage(), region: region) }

    /// The filter's text and the region's when `text` ends in `@` and what
    /// reads as a region: values with commas, or only digits, `.`, `%` and
    /// `~`. `matrix=@m.json` names a file instead.
    static func split(_ text: String) -> (filter: String, region: String)? {
        guard let at = text.lastIndex(of: "@") else { return nil }
        let region = text[text.index(after: at)...]
        guard !region.isEmpty, region.contains(",") || region.allSatisfy({ $0.isNumber || ".%~ ".contains($0) }) else { return nil }
        return (String(text[..<at]), String(region))
    }
}

/// Draws the inner filter, then blends it into the picture through the rectangle.
final class RegionStage: RenderStage {
    private let inner: RenderStage
    private let region: FilterRegion
    private let program: ShaderProgram
    private let resolution: GLint
    private let rect: GLint
    private var scratch: Framebuffer?
    private var filteredCopy: Framebuffer?
    private var output: Framebuffer?
    private(set) var passes = 0

    init(inner: RenderStage, region: FilterRegion) throws {
        self.inner = inner
        self.region = region
        program = try ShaderProgram(quadFragment: ShaderSource.text(PackageResources.region_frag), name: "region.frag")
        program.use()
        glUniform1i(program.location("u_filtered"), 1)
        glUniform1f(program.location("u_feather"), region.feather)
        resolution = program.location("u_resolution")
        rect = program.location("u_rect")
    }

    func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView {
        // Whole, the picture and the filtered one share texture coordinates.
        let picture = try frame.copier.whole(input, scratch: &scratch)
        let filtered = try frame.copier.whole(inner.render(picture, frame), scratch: &filteredCopy)
        let (width, height) = (input.pixelWidth, input.pixelHeight)
        let target = try Framebuffer.reused(&output, width: width, height: height)
        target.bind()
        program.use()
        glUniform2f(resolution, Float(width), Float(height))
        let r = region.rectangle(width: width, height: height)
        glUniform4f(rect, r.x, r.y, r.z, r.w)
        GL.bindTexture(picture.name)
        GL.bindTexture(filtered.name, unit: 1)
        frame.copier.quad.draw(Quad.vertices(filling: .full))
        glActiveTexture(GLenum(GL_TEXTURE0))
        passes = inner.passes + 1 + (picture.name == input.name ? 0 : 1)
        return target.asTexture
    }
}
