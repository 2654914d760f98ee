import ArgumentParser
import Foundation
import Pipeline

/// Set by SIGINT/SIGTERM; the render loop stops after the frame in hand.
nonisolated(unsafe) var interrupted: sig_atomic_t = 0

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render frames of the preview or the cube to PNG, headless.",
        discussion: """
        With no --input it renders the built-in test pattern, so it works on any machine.
        Examples:
          kamera render -o out.png
          kamera render --filter sepia --filter contrast=1.3 --intensity 0.8 --size 720x720 -o out.png
          kamera render --cube --frames 60 -o frames/cube-%03d.png
          kamera render --input clip.y4m --crop none --fit cover --size 640x360 -o clip.png
          kamera render --input raw.yuv --format yuyv --input-size 1280x720 -o raw.png
        """)

    @Option(name: .shortAndLong, help: "Output PNG; use %d (or %03d) for a numbered sequence when --frames > 1.")
    var output = "kamera.png"

    @Option(help: "Input file: .png, .y4m (4:2:0 or 4:2:2), or raw frames with --format and --input-size. Default: the test pattern.")
    var input: String?

    @Option(help: "Camera to capture from: /dev/videoN, or auto for the first one (see `kamera devices`).")
    var camera: String?

    @Option(help: "Also write every rendered input frame, raw and tightly packed, to this file (replay it with --input).")
    var saveInput: String?

    @Option(help: "Pixel format of raw input, the camera (auto: the cheapest to upload; mjpeg too) or the test pattern: \(PixelFormat.validNames).")
    var format: String?

    @Option(help: "Frame size of raw input or of the test pattern: WxH, vga, 720p or 1080p (test pattern default 1280x720).")
    var inputSize: String?

    @Option(help: "Output size WxH (default: the size of the cropped frame).")
    var size: String?

    @Option(help: "Filter, repeatable to chain: a preset, NAME=VALUE, matrix=..., pixellate=N or FILE.frag (see --list-filters).")
    var filter: [String] = []

    @Option(help: "Mix of each color-matrix filter with its input, 0...1.")
    var intensity: Float = 1

    @Flag(help: "List the filters and exit.")
    var listFilters = false

    @Flag(help: "Render the rotating cube instead of the preview.")
    var cube = false

    @Option(help: "Number of frames to render.")
    var frames = 1

    @Option(help: "Frames per second: the camera's capture rate (N or max), and the rate of the cube's rotation and u_time (default 30, or the Y4M file's).")
    var fps: String?

    @Option(help: "Zoom slider 0...1: factor = maxZoom^V (maxZoom 4); the camera's zoom_absolute when it has one, else digital zoom by center crop.")
    var zoom: Double?

    @Option(help: "Crop: square (centered, side = the shorter edge) or none.")
    var crop = "square"

    @Option(help: "Fit in the output: contain, cover or stretch.")
    var fit = "contain"

    @Option(help: "Clockwise rotation: 0, 90, 180 or 270.")
    var rotate = 0

    @Flag(help: "Mirror left-right, as a front camera's preview.")
    var mirror = false

    @Option(help: "YUV matrix: bt601 or bt709.")
    var colorMatrix = "bt601"

    @Option(help: "YUV range: limited or full.")
    var range = "limited"

    @Option(help: "How camera frames reach the GPU: auto (dma-buf import when the GPU and camera allow, else copy), copy, or dmabuf.")
    var upload = "auto"

    @OptionGroup var gpuOptions: GPUOptions

    func run() throws {
        if listFilters {
            print(FilterPresets.listing)
            return
        }
        try reportingErrors {
            let logger = gpuOptions.makeLogger()
            let job = try makeJob()
            let platform = try gpuOptions.platform(), version = try gpuOptions.version()
            signal(SIGINT) { _ in interrupted = 1 }
            signal(SIGTERM) { _ in interrupted = 1 }
            let thread = RenderThread()
            let count = try thread.sync { () -> Int in
                let context = try GPUContext(platform: platform, version: version, logger: logger)
                let renderer = try FrameRenderer(context: context, settings: job.settings)
                let source = try job.source.makeSource(for: renderer) { logger.info("\($0)") }
                logger.info("source: \(source.summary); filters: \(job.settings.filters.summary); render passes per frame: \(renderer.passesPerFrame)")
                let zoomer = ZoomController(source: source)
                if let zoom {
                    zoomer.setSlider(zoom)
                    try zoomer.apply(to: renderer)
                    logger.info("zoom \(String(format: "%.2f", zoomer.currentFactor))x (\(zoomer.usesHardware ? "camera zoom_absolute" : "digital"))")
                }
                let saved = try job.saveInput.map { try RawFrameWriter(path: $0) }
                var rendered = 0
                while rendered < frames && interrupted == 0 {
                    guard let frame = try source.nextFrame() else { break }
                    try saved?.append(frame)
                    let pixels = try renderer.render(frame, index: rendered)
                    if rendered == 0, let queue = source as? CaptureQueue {
                        logger.info("upload: \(renderer.cache.lastPath) (camera buffers: \(queue.camera.memory))\(renderer.cache.lastPath == "copy" ? renderer.cache.copyReason.map { "; \($0)" } ?? "" : "")")
                    }
                    let size = renderer.outputSize(for: frame)
                    let path = job.output.path(for: rendered)
                    try PNGWriter.write(pixels, width: size.width, height: size.height, to: path)
                    logger.info("wrote \(path) (\(size.width)x\(size.height))")
                    rendered += 1
                }
                try saved?.finish()
                if let queue = source as? CaptureQueue {
                    let camera = queue.camera
                    let rate = camera.measuredRate.map { String(format: "%.2f", $0) } ?? "unknown"
                    logger.info("captured \(camera.framesCaptured) frames, \(queue.lateDrops) dropped late, \(camera.driverDrops) dropped by the driver, capture rate \(rate) fps, upload \(renderer.cache.lastPath)")
                }
                return rendered
            }
            if interrupted != 0 {
                throw UsageError("interrupted after \(count) frame(s); every PNG written is complete")
            }
            if count < frames {
                FileHandle.standardError.write(Data("kamera: the input ended after \(count) of \(frames) frames\n".utf8))
            }
        }
    }

    struct Job {
        var source: SourceOptions
        var settings: RenderSettings
        var output: OutputPattern
        var saveInput: String?
    }

    func makeJob() throws -> Job {
        var source = SourceOptions()
        source.input = input
        source.camera = camera
        if camera != nil && input != nil { throw UsageError("--camera and --input both given; choose one") }
        if let format, ["mjpeg", "mjpg"].contains(format.lowercased()) {
            guard camera != nil else { throw UsageError("--format \(format) is only for --camera; files and the test pattern use \(PixelFormat.validNames)") }
            source.compressed = true
        } else if let format, format != "auto" || camera == nil {
            guard let f = PixelFormat(name: format) else { throw UsageError("--format \(format) is not supported; use \(PixelFormat.validNames)") }
            source.format = f
        }
        if let inputSize {
            guard let s = parseSize(inputSize) else { throw UsageError("--input-size \(inputSize) is not a size; use WxH such as 1280x720, or vga, 720p, 1080p") }
            source.inputSize = s
        }
        guard let matrix = YUVColorSpace.Matrix(rawValue: colorMatrix) else { throw UsageError("--color-matrix \(colorMatrix) is not valid; use bt601 or bt709") }
        guard let yuvRange = YUVColorSpace.Range(rawValue: range) else { throw UsageError("--range \(range) is not valid; use limited or full") }
        source.colorSpace = YUVColorSpace(matrix: matrix, range: yuvRange)
        var requested: Double?
        if let fps {
            if fps == "max" {
                guard camera != nil else { throw UsageError("--fps max needs --camera") }
                source.cameraRate = .max
            } else {
                guard let value = Double(fps), value > 0, value <= 1000 else {
                    throw UsageError("--fps \(fps) is not valid; use a rate above 0 and up to 1000\(camera != nil ? ", or max" : "")")
                }
                requested = value
                if camera != nil { source.cameraRate = .fps(value) }
            }
        }
        let rate = requested ?? (input.flatMap { $0.lowercased().hasSuffix(".y4m") ? (try? Y4MSource(path: $0))?.rate : nil } ?? 30)
        source.rate = rate

        var settings = RenderSettings(rate: rate)
        guard let uploadMode = TextureCache.Upload(rawValue: upload) else { throw UsageError("--upload \(upload) is not valid; use auto, copy or dmabuf") }
        if uploadMode == .dmabuf && camera == nil { throw UsageError("--upload dmabuf needs --camera: only cameras share their buffers") }
        settings.upload = uploadMode
        guard let cropMode = CropMode(rawValue: crop) else { throw UsageError("--crop \(crop) is not valid; use square or none") }
        settings.crop = cropMode
        if let size {
            guard let s = parseSize(size) else { throw UsageError("--size \(size) is not a size; use WxH such as 720x720 (1 to 16384 each)") }
            settings.outputSize = s
        }
        settings.filters = try FilterChain(parsing: filter, intensity: intensity)
        guard let fitMode = FitMode(rawValue: fit) else { throw UsageError("--fit \(fit) is not valid; use contain, cover or stretch") }
        guard let rotation = Rotation(rawValue: rotate) else { throw UsageError("--rotate \(rotate) is not valid; use 0, 90, 180 or 270") }
        settings.mode = cube ? .cube : .preview(PreviewLayout(fit: fitMode, rotation: rotation, mirror: mirror))

        if let zoom, !(0...1).contains(zoom) { throw UsageError("--zoom \(zoom) is out of range; use a slider value from 0 (no zoom) to 1 (4x)") }
        guard frames >= 1 else { throw UsageError("--frames \(frames) must be at least 1") }
        let pattern = try OutputPattern(output)
        if frames > 1 && !pattern.isSequence {
            throw UsageError("-o \(output) names one file but --frames is \(frames); put %d in the name, e.g. frames/out-%03d.png")
        }
        try PNGWriter.checkFolder(of: pattern.path(for: 0))
        return Job(source: source, settings: settings, output: pattern, saveInput: saveInput)
    }
}
