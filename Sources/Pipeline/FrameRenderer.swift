import CGLES
import CLinux
import Filters
import GPU
import Output
import Pixels
import Render

/// The whole GPU chain for one frame, GPUImage style: texture cache → filter
/// passes → preview or cube → output framebuffer → pixels in memory.
/// Everything is allocated on first use and reused, so rendering frame after
/// frame of one size allocates nothing. Call it on the thread that owns the
/// context.
public final class FrameRenderer: PixelSource {
    public private(set) var settings: RenderSettings
    public let context: GPUContext
    public let cache: TextureCache
    private let filters: FilterRenderer
    /// Filter passes, and the chain's last color matrix, which the final draw applies.
    private var stages: [FilterStage]
    private var finalMatrix: ColorMatrix
    private var preview: PreviewRenderer?
    private var cube: CubeRenderer?
    private var output: Framebuffer?
    /// The last frame's filtered texture and index, for drawing its final
    /// pass again offscreen when it went to a screen and is then read back.
    private var lastFinalPass: (texture: CameraTexture, index: Int, matrix: ColorMatrix)?
    /// True while the output framebuffer holds an older frame than the last drawn.
    private var outputStale = false
    private var lastSize: (width: Int, height: Int)?
    private var pixels = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var framesDrawn = 0
    private var framesRead = -1

    public init(context: GPUContext, settings: RenderSettings) throws {
        self.context = context
        self.settings = settings
        cache = try TextureCache(context: context, crop: settings.crop)
        cache.upload = settings.upload
        cache.yuvConversion = settings.yuvConversion
        filters = try FilterRenderer()
        (stages, finalMatrix) = Self.split(settings.filters)
        switch settings.mode {
        case .preview(let layout): preview = try PreviewRenderer(layout: layout)
        case .cube: cube = try CubeRenderer(rate: settings.rate)
        }
    }

    deinit { pixels.deallocate() }

    /// The last frame's pixels when no draw was needed (see `allowsPassthrough`).
    private var passedThrough: UnsafeRawBufferPointer?

    /// With a software renderer, a YUV frame shown 1:1 (no filter pass, no
    /// rotation or mirror, output the size of the crop) and read back rather
    /// than shown needs no GPU work: the CPU's conversion (color matrix
    /// included) is the picture. True by default; tests turn it off to
    /// compare with the drawn picture.
    public var allowsPassthrough = true

    /// True when the last frame's color matrix was applied in the CPU's YUV
    /// conversion rather than by the final draw.
    public private(set) var matrixFolded = false

    /// Draws after the filters, e.g. the shader harness's passes.
    public var effect: FrameEffect?

    /// Render passes per frame in the last `render`: filter passes and the
    /// final draw (the YUV conversion pass is not counted).
    public private(set) var lastPassCount = 0

    /// The size of the last frame drawn, nil before the first.
    public var lastOutputSize: (width: Int, height: Int)? { lastSize }

    /// Render passes each frame will take: the filter passes and the final draw.
    public var passesPerFrame: Int { stages.count + 1 }

    /// Output size for a frame of the given size.
    public func outputSize(for frame: Frame) -> (width: Int, height: Int) {
        if let size = settings.outputSize { return size }
        // Zoom changes what is shown, not the output size.
        let rect = settings.crop.rectangle(width: frame.width, height: frame.height)
        return (rect.width, rect.height)
    }

    /// Renders `frame` (number `index` in the output) and returns its RGBA
    /// pixels, top row first; valid until the next call.
    @discardableResult
    public func render(_ frame: Frame, index: Int) throws -> UnsafeRawBufferPointer {
        try draw(frame, index: index)
        return try readBack()
    }

    /// The pixels of the last frame drawn, RGBA, top row first; read from the
    /// GPU once per frame however many callers ask, into a reused buffer.
    public func readBack() throws -> UnsafeRawBufferPointer {
        if let passedThrough { return passedThrough }
        guard let size = lastSize, let last = lastFinalPass else { throw GPUError("nothing has been rendered yet to read back") }
        if framesRead != framesDrawn {
            let target = try outputFramebuffer(size)
            if outputStale {
                // The frame went straight to a screen: draw its last pass again here.
                drawFinalPass(last.texture, index: last.index, matrix: last.matrix, into: target)
                outputStale = false
            }
            let size = target.width * target.height * 4
            if pixels.count != size {
                pixels.deallocate()
                pixels = .allocate(byteCount: size, alignment: 64)
            }
            target.readPixels(into: pixels)
            try GL.check("reading back the output")
            framesRead = framesDrawn
        }
        return UnsafeRawBufferPointer(pixels)
    }

    /// Renders `frame` into the output framebuffer without reading it back,
    /// or with `screen`, its last pass straight onto that screen (the output
    /// framebuffer is drawn only if the frame is then read back).
    @discardableResult
    public func draw(_ frame: Frame, index: Int, onto screen: RenderTarget? = nil) throws -> RenderTarget {
        let size = screen.map { ($0.width, $0.height) } ?? outputSize(for: frame)
        // A lone color matrix rides along with a CPU conversion (software
        // renderers), sparing a floating-point shader pass over every pixel.
        let fold = stages.isEmpty && effect == nil && finalMatrix != .identity ? finalMatrix.rgbTransform : nil
        passedThrough = nil
        // Never the first frame: it is drawn, so that llvmpipe compiles the
        // preview's shaders now rather than at the first zoom of a live run.
        if screen == nil, allowsPassthrough, framesDrawn > 0, stages.isEmpty, effect == nil, fold != nil || finalMatrix == .identity,
           let preview, preview.layout.rotation == .none, !preview.layout.mirror,
           cache.cropRectangle(for: frame).width == size.0, cache.cropRectangle(for: frame).height == size.1,
           let pixels = cache.convertedPixels(of: frame, transform: fold) {
            // The final draw would copy the CPU's conversion pixel for pixel:
            // keep its bytes and skip upload, draw and read-back.
            passedThrough = pixels
            matrixFolded = fold != nil
            lastFinalPass = nil
            lastSize = size
            lastPassCount = 0
            framesDrawn &+= 1
            framesRead = framesDrawn
            return try outputFramebuffer(size)
        }
        // Drawn straight to the output, a picture shown smaller than the crop
        // may be converted smaller; filter passes work at the crop's size.
        let magnification = stages.isEmpty && effect == nil ? finalMagnification(of: frame, onto: size) : 1
        let (texture, folded) = try cache.texture(for: frame, folding: fold, magnification: magnification)
        matrixFolded = folded
        let matrix = folded ? ColorMatrix.identity : finalMatrix
        var filtered = try filters.apply(stages, to: texture, frame: index, time: Float(Double(index) / settings.rate), frameRate: settings.rate)
        if let effect { filtered = try effect.apply(to: filtered, index: index, width: size.0, height: size.1) }
        let target: RenderTarget = try screen ?? outputFramebuffer(size)
        drawFinalPass(filtered, index: index, matrix: matrix, into: target)
        lastFinalPass = (filtered, index, matrix)
        lastSize = size
        outputStale = screen != nil
        lastPassCount = filters.lastPassCount + 1
        framesDrawn &+= 1
        if framesDrawn % 1024 == 0 {
            // The GL driver's threads allocate and free each frame; glibc keeps the
            // freed pages in per-thread arenas, and the resident size creeps up
            // (about 1 MiB per 10,000 frames) though nothing leaks. Hand them back.
            malloc_trim(0)
        }
        try GL.check("rendering frame \(index)")
        return target
    }

    /// Output pixels per pixel of the crop in the final draw: the preview's
    /// fitted scale, or a cube face's edge seen head-on over the crop's longer side.
    private func finalMagnification(of frame: Frame, onto size: (width: Int, height: Int)) -> Float {
        let rect = cache.cropRectangle(for: frame)
        if let preview {
            return preview.layout.magnification(imageWidth: rect.width, imageHeight: rect.height, outputWidth: size.width, outputHeight: size.height)
        }
        if cube != nil { return CubeRenderer.faceEdge(outputHeight: size.height) / Float(max(rect.width, rect.height)) }
        return 1
    }

    private func drawFinalPass(_ texture: CameraTexture, index: Int, matrix: ColorMatrix, into target: RenderTarget) {
        if let preview {
            preview.render(texture, into: target, matrix: matrix)
        } else if let cube {
            cube.render(texture, into: target, frame: index, matrix: matrix)
        }
    }

    /// The output framebuffer, made once and resized only when the size changes.
    private func outputFramebuffer(_ size: (width: Int, height: Int)) throws -> Framebuffer {
        let target = try output ?? Framebuffer(width: size.width, height: size.height)
        output = target
        try target.resize(width: size.width, height: size.height)
        return target
    }

    /// Switches crop, filters or mode between frames, keeping the context,
    /// the textures and the output (filter switching while running).
    public func update(_ settings: RenderSettings) throws {
        switch settings.mode {
        case .preview(let layout):
            let renderer = try preview ?? PreviewRenderer(layout: layout)
            renderer.layout = layout
            preview = renderer
            cube = nil
        case .cube:
            let renderer = try cube ?? CubeRenderer(rate: settings.rate)
            renderer.rate = settings.rate
            cube = renderer
            preview = nil
        }
        cache.crop = settings.crop
        cache.upload = settings.upload
        cache.yuvConversion = settings.yuvConversion
        (stages, finalMatrix) = Self.split(settings.filters)
        self.settings = settings
    }

    /// A trailing color matrix is drawn by the renderer itself, so a chain of
    /// color matrices (folded into one) costs no pass beyond the final draw.
    static func split(_ chain: FilterChain) -> ([FilterStage], ColorMatrix) {
        var stages = chain.stages
        if case .colorMatrix(let m) = stages.last {
            stages.removeLast()
            return (stages, m)
        }
        return (stages, .identity)
    }
}

/// A stage drawn after the filter chain and before the final layout pass:
/// the shader harness's buffers and image pass.
public protocol FrameEffect: AnyObject {
    /// Draws frame `index` from `texture` at `width` x `height` and returns the picture to show.
    func apply(to texture: CameraTexture, index: Int, width: Int, height: Int) throws -> CameraTexture
}
