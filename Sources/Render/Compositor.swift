import CGLES
import GPU
import Lifecycle
import Pixels

/// Draws several sources' pictures into one (`--layout`), on the GPU: the
/// output cleared to black, each picture scaled into its place by the plain
/// texture program (bilinear; pixel for pixel where a picture keeps its
/// size). The composed picture is what every output takes. Allocates its
/// framebuffer once per size; use it on the render thread.
public final class Compositor: PixelSource {
    public let layout: CompositionLayout
    /// The output's size; nil: the layout's, from the first picture.
    public let size: (width: Int, height: Int)?
    private let copier: TextureCopier
    private var output: Framebuffer?
    private let pixels = ReadBackBuffer()
    private var composed = 0, read = -1
    /// The places of the last pictures, kept while their sizes and the output's stay.
    private var sizes: [(width: Int, height: Int)] = []
    private var boxes: [PixelBox] = []
    private var boxesFor = (width: 0, height: 0)

    public init(layout: CompositionLayout, size: (width: Int, height: Int)?) throws {
        self.layout = layout
        self.size = size
        copier = try TextureCopier()
    }

    /// Composes `pictures` (each a whole texture, top row first), the first
    /// deciding the output's size; returns where the composed picture is.
    public func compose(_ pictures: [TextureView]) throws -> RenderedPicture {
        guard let first = pictures.first else { throw GPUError("nothing to compose") }
        let (width, height) = size ?? layout.outputSize(first: (first.pixelWidth, first.pixelHeight), count: pictures.count)
        let same = sizes.count == pictures.count && boxesFor == (width, height)
            && zip(sizes, pictures).allSatisfy { $0.width == $1.pixelWidth && $0.height == $1.pixelHeight }
        if !same {
            sizes = pictures.map { ($0.pixelWidth, $0.pixelHeight) }
            boxes = layout.rectangles(for: sizes, width: width, height: height)
            boxesFor = (width, height)
        }
        let target = try Framebuffer.reused(&output, width: width, height: height)
        target.bind()
        glClearColor(0, 0, 0, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        for (picture, box) in zip(pictures, boxes) {
            // Offscreen, the picture's top row is GL's row 0: the box's top is its y.
            glViewport(GLint(box.x), GLint(box.y), GLsizei(box.width), GLsizei(box.height))
            copier.draw(picture, Quad.vertices(filling: picture.region))
        }
        glViewport(0, 0, GLsizei(width), GLsizei(height))
        try GL.check("composing \(pictures.count) pictures")
        composed += 1
        return .drawn(target)
    }

    /// The composed picture, RGBA, top row first; read once per picture.
    public func readBack() throws -> UnsafeRawBufferPointer {
        guard let output, composed > 0 else { throw GPUError("nothing has been composed yet to read back") }
        guard read != composed else { return pixels.bytes }
        let bytes = try pixels.read(output, what: "the composed picture")
        read = composed
        return bytes
    }
}
