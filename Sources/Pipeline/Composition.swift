import Capture
import Filters
import GPU
import Pixels
import Render

/// The sources after the first (`--camera A --camera B`, several `--input`),
/// each drawn by a renderer of its own with its own filters, and the
/// compositor that lays them out with the first (`--layout`). The run goes at
/// the first source's rate: each of its frames takes the newest frame each
/// other camera has (none new: its last picture again) and the next frame of
/// each other file or test pattern (one that ended: its last picture).
public final class Composition {
    /// One source after the first, as the command line gave it.
    public struct Source {
        public var options: SourceOptions
        public var filters: FilterChain

        public init(options: SourceOptions, filters: FilterChain) {
            (self.options, self.filters) = (options, filters)
        }
    }

    final class Drawn {
        let session: SourceSession
        let renderer: FrameRenderer
        var ended = false
        init(session: SourceSession, renderer: FrameRenderer) { (self.session, self.renderer) = (session, renderer) }
    }

    public let compositor: Compositor
    let others: [Drawn]
    private var textures: [TextureView] = []

    /// Opens each source, on the thread that owns `primary`'s context; each
    /// drawn like the first (crop, fit, rotation) but with its own filters.
    init(sources: [Source], layout: CompositionLayout, size: (width: Int, height: Int)?, primary: FrameRenderer,
         note: @escaping (String) -> Void) throws {
        let context = try primary.openContext()
        compositor = try Compositor(layout: layout, size: size)
        others = try sources.map { source in
            var settings = primary.settings
            settings.filters = source.filters
            settings.outputSize = nil
            if source.options.camera == nil { settings.upload = .auto }
            let renderer = try FrameRenderer(context: context, settings: settings)
            renderer.drawsEveryFrame = true
            let session = try SourceSession(renderer: renderer, configuration: source.options, note: note)
            return Drawn(session: session, renderer: renderer)
        }
        textures.reserveCapacity(others.count + 1)
    }

    /// The sources, for the log.
    var summary: String { others.compactMap { $0.session.source?.summary }.joined(separator: ", ") }

    /// Draws each other source's next frame and composes them with the
    /// first's picture (drawn offscreen); frame `index` of the run.
    func compose(primary picture: RenderedPicture, index: Int) throws -> RenderedPicture {
        guard case .drawn(let target) = picture, let first = target as? Framebuffer else {
            throw PipelineError("the first source's picture was not drawn offscreen, so it cannot be composed")
        }
        textures.removeAll(keepingCapacity: true)
        textures.append(first.asTexture)
        for other in others {
            if other.renderer.lastPicture == nil {
                // Its first picture, waited for: every source has its place from the first frame on.
                guard let frame = try other.session.nextFrame() else {
                    throw PipelineError("\(other.session.source?.summary ?? "a source"): holds no frames")
                }
                _ = try other.renderer.draw(frame, index: index)
            } else if !other.ended {
                if let frame = try other.session.nextFrame(waiting: 0) {
                    _ = try other.renderer.draw(frame, index: index)
                } else if other.session.source?.camera == nil {
                    // A file that ended keeps its last picture.
                    other.ended = true
                }
            }
            guard case .drawn(let drawn)? = other.renderer.lastPicture, let texture = (drawn as? Framebuffer)?.asTexture else { continue }
            textures.append(texture)
        }
        return try compositor.compose(textures)
    }

    /// Stops every other source.
    func stop() {
        for other in others { other.session.release() }
    }
}
