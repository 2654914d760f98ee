import CGLES
import GPU
import Shaders

/// Any filter limited to a rectangle (`sepia@100,50,320,240~8`) or to the
/// faces found in the frame (`pixellate=16@faces~8`, the documents'
/// CIPixellate through a mask at each face): inside the filtered picture,
/// outside exactly the unfiltered one, with an optional soft edge between
/// (the mask-and-blend of CIBlendWithMask); inverted (`blur=8@!faces`), the
/// other way round.
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
        var region = text[text.index(after: at)...]
        if region.hasPrefix("!") { region = region.dropFirst() }
        guard !region.isEmpty, region.contains(",") || region.allSatisfy({ $0.isNumber || ".%~ ".contains($0) })
                || region.lowercased().hasPrefix("faces") else { return nil }
        return (String(text[..<at]), String(text[text.index(after: at)...]))
    }
}

/// Draws the inner filter, then blends it into the picture through the
/// rectangles (at most `RegionStage.most`; a frame without a face is left as
/// it is, or, inverted, filtered whole).
final class RegionStage: RenderStage {
    /// Rectangles a frame blends through at most (the shader's array).
    static let most = 16
    private let inner: RenderStage
    private let region: FilterRegion
    private let program: ShaderProgram
    private let resolution: GLint
    private let rects: GLint
    private let count: GLint
    private var scratch: Framebuffer?
    private var filteredCopy: Framebuffer?
    private var output: Framebuffer?
    private var corners = [GLfloat](repeating: 0, count: 4 * RegionStage.most)
    private(set) var passes = 0

    init(inner: RenderStage, region: FilterRegion) throws {
        self.inner = inner
        self.region = region
        program = try ShaderProgram(quadFragment: ShaderSource.text(PackageResources.region_frag), name: "region.frag")
        program.use()
        glUniform1i(program.location("u_filtered"), 1)
        glUniform1f(program.location("u_feather"), region.feather)
        glUniform1i(program.location("u_inverted"), region.inverted ? 1 : 0)
        resolution = program.location("u_resolution")
        rects = program.location("u_rects")
        count = program.location("u_count")
    }

    func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView {
        let (width, height) = (input.pixelWidth, input.pixelHeight)
        // Left, top, right, bottom in pixels of the picture.
        var n = 0
        if region.followsFaces {
            for face in frame.faces.prefix(Self.most) {
                for (i, v) in [face.x * Float(width), face.y * Float(height), face.z * Float(width), face.w * Float(height)].enumerated() {
                    corners[4 * n + i] = v
                }
                n += 1
            }
            guard n > 0 || region.inverted else {
                passes = 0
                return input
            }
        } else {
            let r = region.rectangle(width: width, height: height)
            (corners[0], corners[1], corners[2], corners[3]) = (r.x, r.y, r.z, r.w)
            n = 1
        }
        // Whole, the picture and the filtered one share texture coordinates.
        let picture = try frame.copier.whole(input, scratch: &scratch)
        let filtered = try frame.copier.whole(inner.render(picture, frame), scratch: &filteredCopy)
        let target = try Framebuffer.reused(&output, width: width, height: height)
        target.bind()
        program.use()
        glUniform2f(resolution, Float(width), Float(height))
        glUniform4fv(rects, GLsizei(n), corners)
        glUniform1i(count, GLint(n))
        GL.bindTexture(picture.name)
        GL.bindTexture(filtered.name, unit: 1)
        frame.copier.quad.draw(Quad.vertices(filling: .full))
        glActiveTexture(GLenum(GL_TEXTURE0))
        passes = inner.passes + 1 + (picture.name == input.name ? 0 : 1)
        return target.asTexture
    }
}
