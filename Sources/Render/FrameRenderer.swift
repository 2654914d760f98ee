import CLinux
import Lifecycle
import Filters
import GPU

import Pixels
import Render

/// The whole GPU chain for one frame, GPUImage style: the steps of a
/// `RenderPlan` (texture uploader → filter stages → the program's own stages →
/// preview or cube → overlays) drawn into the output framebuffer or onto a
/// screen, and the pixels in memory. Everything is allocated on first use and
/// reused, so rendering frame after frame of one size allocates nothing.
/// Call it on the thread that owns the context.
public final class FrameRenderer: PixelSource {
    public private(set) var settings: RenderSettings
    private let gpu: DeferredGPUContext
    public let uploader: FrameUploader
    /// What drawing takes beyond the uploader, made when a frame is first drawn.
    private var drawing: (copier: TextureCopier, layout: LayoutStage)?
    private var output: Framebuffer?
    /// The plan as asked for, and as rewritten for the last frame's conditions,
    /// with the stage drawing each filter step.
    private var requested: RenderPlan
    private var prepared: (conditions: RenderPlan.Conditions, plan: RenderPlan, stages: [RenderStage?])?
    private var filterStages: [(filter: any Filter, stage: RenderStage)] = []
    /// The last frame's picture, and what its layout drew from (to draw it
    /// again offscreen when it went to a screen and is then read back).
    private var picture: RenderedPicture?
    private var lastLayout: (texture: TextureView, matrix: ColorMatrix, frame: StageFrame, from: Int)?
    /// A picture in memory: the frame and what its CPU conversion applies, done
    /// when a sink asks for it (as RGBA, or as 4:2:0 planes without RGBA between).
    private var inMemory: (frame: Frame, transform: RGBTransform?, mosaic: Int, rgba: UnsafeRawBufferPointer?)?
    private let pixels = ReadBackBuffer()
    private var framesDrawn = 0
    /// The output number of the last frame drawn, for the watchdog's message.
    private var lastIndex = 0
    private var framesRead = -1

    /// Draws the run's first frame even where it could pass through, which
    /// compiles the drawing shaders before a live run gets going: else a
    /// preview compiles them at its first zoom, a stall of seconds on a slow
    /// software renderer. Offline runs need not (about 20 ms of a run's start on llvmpipe).
    public var drawsFirstFrame = true

    /// Draws every frame on the GPU, never handing one over in memory: a
    /// display shows what was drawn.
    public var drawsEveryFrame = false

    /// A renderer on `context`, current on the calling thread.
    public convenience init(context: GPUContext, settings: RenderSettings) throws {
        self.init(context: DeferredGPUContext(context), settings: settings)
        _ = try drawingParts()
    }

    /// A renderer whose context is opened when a frame is first drawn or
    /// uploaded: never, in a run whose every frame is converted on the CPU and handed on whole.
    public init(context: DeferredGPUContext, settings: RenderSettings) {
        gpu = context
        self.settings = settings
        uploader = FrameUploader(context: context, crop: settings.crop)
        uploader.upload = settings.upload
        uploader.yuvConversion = settings.yuvConversion
        requested = RenderPlan(filters: settings.filters)
    }

    /// The GL context, once opened.
    public var context: GPUContext? { gpu.opened }

    /// The GL context, opened now if it was not; on the thread that owns it.
    public func openContext() throws -> GPUContext { try gpu.open() }

    /// The rewrites the plan may take; all by default. Tests turn each off to
    /// compare the pictures.
    public var rewrites = RenderPlan.Rewrites.all {
        didSet { prepared = nil }
    }

    /// Stages drawn after the filters and before the layout: the shader harness's passes.
    public var customStages: [RenderStage] = [] {
        didSet { replan() }
    }

    /// The faces found in the frame drawn next (`--detect faces`), in source
    /// pixels: what `@faces` filters draw through. The frame loop sets them
    /// before each frame from the analysis; nil: no filter follows faces.
    public var faces: [PixelBox]?

    /// Stages drawn over the laid-out picture.
    public var overlays: [OverlayStage] = [] {
        didSet { replan() }
    }

    /// Where the last frame's picture is; nil before the first.
    public var lastPicture: RenderedPicture? { picture }

    /// The plan the last frame was drawn by.
    public var lastPlan: RenderPlan? { prepared?.plan }

    /// True when the last frame's color matrix was applied in its conversion.
    public private(set) var matrixFolded = false

    /// Render passes in the last frame: stage passes and the layout (the YUV
    /// conversion pass is not counted); 0 when the conversion was the picture.
    public private(set) var lastPassCount = 0

    /// Frames read back from the GPU so far: at most one a frame, however many sinks take its bytes.
    public private(set) var readBacks = 0

    /// The size of the last frame drawn, nil before the first.
    public private(set) var lastOutputSize: (width: Int, height: Int)?

    /// True when the last frame's picture is the input frame as it came: the
    /// whole frame at its own size, converted and nothing else (no filter,
    /// matrix, zoom, crop or overlay), so the camera's own JPEG of it shows the same.
    public private(set) var pictureIsInput = false

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

    /// Draws `frame` by the plan: into the output framebuffer, or with
    /// `screen`, its layout and overlays straight onto that screen.
    @discardableResult
    public func draw(_ frame: Frame, index: Int, onto screen: RenderTarget? = nil) throws -> RenderedPicture {
        let watch = GPUWatchdog.begin(.frame, frame: index)
        defer { GPUWatchdog.end(watch) }
        let size = screen.map { ($0.width, $0.height) } ?? outputSize(for: frame)
        let crop = uploader.cropRectangle(for: frame)
        var conditions = RenderPlan.Conditions()
        conditions.convertsToMemory = uploader.convertsToMemory(frame)
        // The CPU's conversion applies a matrix to any frame it converts, a shader only to YUV.
        conditions.conversionTakesMatrix = frame.format.isYUV || conditions.convertsToMemory
        conditions.layoutCopies = settings.mode.copiesPixelForPixel(width: crop.width, height: crop.height, outputWidth: size.0, outputHeight: size.1)
        conditions.mayPassThrough = screen == nil && !drawsEveryFrame && (framesDrawn > 0 || !drawsFirstFrame)
        let (plan, stages) = try prepare(for: conditions)
        let fold = plan.conversionMatrix == .identity ? nil : plan.conversionMatrix.rgbTransform
        lastOutputSize = size
        pictureIsInput = screen == nil && conditions.layoutCopies && crop == (0, 0, frame.width, frame.height)
            && size == (frame.width, frame.height) && plan.steps.allSatisfy { step in
                switch step {
                case .conversion(let matrix, let mosaic): matrix == .identity && mosaic == 1
                case .layout(let matrix): matrix == .identity
                case .filter, .custom, .overlay: false
                }
            }
        framesDrawn &+= 1
        lastIndex = index
        lastLayout = nil
        inMemory = nil
        let mosaic = plan.conversionMosaic
        if plan.steps.count == 1 && conditions.convertsToMemory {
            // The conversion is the picture: no upload, draw or read-back.
            matrixFolded = fold != nil
            lastPassCount = 0
            inMemory = (frame, fold, mosaic, nil)
            picture = .inMemory(width: size.0, height: size.1)
            framesRead = framesDrawn
            return picture!
        }
        let (copier, layout) = try drawingParts()
        var stageFrame = StageFrame(index: index, time: Double(index) / settings.rate, frameRate: settings.rate,
                                    outputWidth: size.0, outputHeight: size.1, copier: copier)
        stageFrame.sourceCrop = SIMD4(crop.x, crop.y, crop.width, crop.height)
        if let faces {
            let (x, y, w, h) = (Float(crop.x), Float(crop.y), Float(crop.width), Float(crop.height))
            stageFrame.faces = faces.map {
                SIMD4((Float($0.x) - x) / w, (Float($0.y) - y) / h, (Float($0.x + $0.width) - x) / w, (Float($0.y + $0.height) - y) / h)
            }
        }
        // Drawn straight by the layout, a picture shown smaller than the crop may be converted smaller.
        let magnification = plan.layoutFollowsConversion && mosaic == 1
            ? layout.magnification(width: crop.width, height: crop.height, outputWidth: size.0, outputHeight: size.1) : 1
        let (converted, folded) = try uploader.texture(for: frame, folding: fold, magnification: magnification, mosaic: mosaic)
        matrixFolded = folded
        var texture = converted
        let target: RenderTarget = try screen ?? outputFramebuffer(size)
        lastPassCount = 0
        for (i, step) in plan.steps.enumerated() {
            switch step {
            case .conversion:
                break
            case .filter:
                texture = try stages[i]!.render(texture, stageFrame)
                lastPassCount += stages[i]!.passes
            case .custom(let n):
                texture = try customStages[n].render(texture, stageFrame)
                lastPassCount += customStages[n].passes
            case .layout(let m):
                layout.draw(texture, matrix: m, into: target, stageFrame)
                lastLayout = (texture, m, stageFrame, i)
                lastPassCount += 1
            case .overlay(let n):
                try overlays[n].draw(onto: target, stageFrame)
            }
        }
        picture = .drawn(target)
        if framesDrawn % 1024 == 0 {
            // The GL driver's threads allocate and free each frame; glibc keeps the
            // freed pages in per-thread arenas, and the resident size creeps up
            // (about 1 MiB per 10,000 frames) though nothing leaks. Hand them back.
            malloc_trim(0)
        }
        try GL.check("rendering frame \(index)")
        return picture!
    }

    /// The pixels of the last frame drawn, RGBA, top row first; read from the
    /// GPU once per frame however many callers ask, into a reused buffer.
    public func readBack() throws -> UnsafeRawBufferPointer {
        let watch = GPUWatchdog.begin(.frame, frame: lastIndex)
        defer { GPUWatchdog.end(watch) }
        switch picture {
        case nil:
            throw GPUError("nothing has been rendered yet to read back")
        case .inMemory?:
            guard let pending = inMemory else { throw GPUError("the frame in memory is gone") }
            if let rgba = pending.rgba { return rgba }
            guard let rgba = uploader.convertedPixels(of: pending.frame, transform: pending.transform, mosaic: pending.mosaic) else {
                throw GPUError("the frame in memory could not be converted")
            }
            inMemory?.rgba = rgba
            return rgba
        case .drawn(let target)?:
            guard framesRead != framesDrawn else { return pixels.bytes }
            let output = try outputFramebuffer((target.width, target.height))
            if target !== output {
                // A screen cannot be read back: draw the layout and overlays again, offscreen.
                try redrawLayout(into: output)
            }
            let read = try pixels.read(output, what: "the output")
            framesRead = framesDrawn
            readBacks += 1
            return read
        }
    }

    /// The last picture as planar 4:2:0 in `colorSpace`, straight from the
    /// frame's YUV bytes, when it is a picture in memory without a mosaic;
    /// nil otherwise (the caller converts `readBack()`). Written into `destination` when given.
    public func readBackYUV420(_ colorSpace: YUVColorSpace, into destination: UnsafeMutableRawBufferPointer?) throws -> UnsafeRawBufferPointer? {
        guard case .inMemory? = picture, let pending = inMemory, pending.mosaic == 1 else { return nil }
        let watch = GPUWatchdog.begin(.frame, frame: lastIndex)
        defer { GPUWatchdog.end(watch) }
        return uploader.convertedYUV420(of: pending.frame, transform: pending.transform, colorSpace: colorSpace, into: destination)
    }

    private func redrawLayout(into target: Framebuffer) throws {
        guard let last = lastLayout, let plan = prepared?.plan, let layout = drawing?.layout else { return }
        layout.draw(last.texture, matrix: last.matrix, into: target, last.frame)
        for step in plan.steps[(last.from + 1)...] {
            if case .overlay(let n) = step { try overlays[n].draw(onto: target, last.frame) }
        }
    }

    /// The plan rewritten for `conditions`, and its stages: made again only
    /// when the conditions or the settings change.
    private func prepare(for conditions: RenderPlan.Conditions) throws -> (RenderPlan, [RenderStage?]) {
        if let prepared, prepared.conditions == conditions { return (prepared.plan, prepared.stages) }
        let plan = requested.rewritten(rewrites, conditions)
        var kept: [(filter: any Filter, stage: RenderStage)] = []
        func stage(for filter: any Filter) throws -> RenderStage {
            let made = (filterStages + kept).first { $0.filter.isEqual(to: filter) }?.stage
            if made == nil { _ = try gpu.open() }
            let stage = try made ?? filter.makeStage()
            if !kept.contains(where: { $0.stage === stage }) { kept.append((filter, stage)) }
            return stage
        }
        let stages = try plan.steps.map { step -> RenderStage? in
            switch step {
            case .filter(let filter): return try stage(for: filter)
            default: return nil
            }
        }
        filterStages = kept
        prepared = (conditions, plan, stages)
        return (plan, stages)
    }

    private func replan() {
        requested = RenderPlan(filters: settings.filters, customStages: customStages.count, overlays: overlays.count)
        prepared = nil
    }

    /// The output framebuffer, made once and resized only when the size changes.
    private func outputFramebuffer(_ size: (width: Int, height: Int)) throws -> Framebuffer {
        try Framebuffer.reused(&output, width: size.width, height: size.height)
    }

    /// The copier and the layout, made on the context (opened now if need be) the first time.
    private func drawingParts() throws -> (copier: TextureCopier, layout: LayoutStage) {
        if let drawing { return drawing }
        let copier = try gpu.open().copier()
        let made = (copier: copier, layout: try Self.makeLayout(settings))
        drawing = made
        return made
    }

    private static func makeLayout(_ settings: RenderSettings) throws -> LayoutStage {
        switch settings.mode {
        case .preview(let layout): try PreviewRenderer(layout: layout)
        case .cube: try CubeRenderer(rate: settings.rate)
        }
    }

    /// Switches crop, filters or mode between frames, keeping the context,
    /// the textures, the compiled stages and the output (filter switching while running).
    public func update(_ settings: RenderSettings) throws {
        switch (settings.mode, drawing?.layout) {
        case (_, nil):
            break  // made from the settings at the first draw
        case (.preview(let new), let preview as PreviewRenderer):
            preview.layout = new
        case (.cube, let cube as CubeRenderer):
            cube.rate = settings.rate
        default:
            drawing?.layout = try Self.makeLayout(settings)
        }
        uploader.crop = settings.crop
        uploader.upload = settings.upload
        uploader.yuvConversion = settings.yuvConversion
        self.settings = settings
        replan()
    }
}
