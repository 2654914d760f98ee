import CommandLineSupport
import ArgumentParser
import Capture
import Filters
import Foundation
import GPU
import Output
import Pipeline
import Pixels
import Render

/// The options every rendering command shares: where frames come from, how
/// they reach the GPU and what is drawn.
struct PipelineOptions: ParsableArguments {
    @Option(name: [.long, .customShort("i")], parsing: .unconditional,
            help: "Input file: .png, .jpg (turned upright by its EXIF orientation), .y4m (4:2:0 or 4:2:2), or raw frames with --format and --input-size. Default: the test pattern.", completion: Completions.anyFile)
    var input: String?

    @Flag(help: "Take a damaged JPEG --input (cut short: part of the picture gray) as it is, rather than refusing it.")
    var allowDamaged = false

    @Option(name: [.long, .customShort("d"), .customLong("device")], parsing: .unconditional,
            help: "Camera to capture from: /dev/videoN, or auto for the first one (see `kamera devices`); -d and --device as in v4l2-ctl and fswebcam.", completion: Completions.camera)
    var camera: String?

    @Option(parsing: .unconditional, help: "Pixel format of raw input, the camera (auto: the cheapest to upload; mjpeg, h264, hevc and fwht too, see --decoder) or the test pattern: \(PixelFormat.validNames); raw input and cameras also \(RepackedFormat.validNames) (V4L2 codes such as UYVY, YU12 or RGGB and ffmpeg's names too), repacked on the CPU (raw Bayer: demosaiced on the GPU or the CPU, see Raw Bayer).", completion: Completions.format)
    var format: String?

    @Option(name: [.long, .customShort("r"), .customLong("resolution")], parsing: .unconditional,
            help: "Frame size of the camera, raw input or the test pattern: WxH, vga, 720p or 1080p (test pattern default 1280x720); -r and --resolution as in fswebcam.")
    var inputSize: String?

    @Option(parsing: .unconditional, help: "Output size WxH (default: the size of the cropped frame).")
    var size: String?

    @Option(parsing: .unconditionalSingleValue, help: "Filter, repeatable to chain: a preset, NAME=VALUE, matrix=..., pixellate=N or FILE.frag (see --list-filters).", completion: Completions.filter)
    var filter: [String] = []

    @Option(parsing: .unconditional, help: "Mix of each color-matrix filter with its input, 0...1.",
            transform: ArgumentValue.real("a number from 0 to 1"))
    var intensity: Double = 1

    @Option(parsing: .unconditional, help: "How several sources (--camera or --input given more than once, pattern: naming the test pattern) share the picture: side (in a row), grid, or pip (the first fills it, the others small in a corner); each --filter applies to the source before it. The run goes at the first source's rate.", completion: .list(["side", "grid", "pip"]))
    var layout: String?

    @Option(parsing: .unconditional, help: "Where --layout pip puts the small pictures: top-left, top-right, bottom-left or bottom-right (default).", completion: .list(CompositionLayout.Corner.allCases.map(\.rawValue)))
    var pipCorner: String?

    @Option(parsing: .unconditional, help: "How wide --layout pip's small pictures are: a share of the output's width, 30% (default) or 0.3.")
    var pipSize: String?

    @Flag(help: "Render the rotating cube instead of the preview.")
    var cube = false

    @Option(parsing: .unconditional, help: "Frames per second: the camera's capture rate (N or max), and the rate of the cube's rotation and u_time (default 30, or the Y4M file's).")
    var fps: String?

    @Option(parsing: .unconditional, help: "Zoom slider 0...1: factor = maxZoom^V (maxZoom 4); the camera's zoom_absolute when it has one, else digital zoom by center crop.")
    var zoom: String?

    @Option(parsing: .unconditional, help: "Crop: square (centered, side = the shorter edge) or none.", completion: .list(["square", "none"]))
    var crop = "square"

    @Option(parsing: .unconditional, help: "Fit in the output: contain, cover or stretch.", completion: .list(["contain", "cover", "stretch"]))
    var fit = "contain"

    @Option(parsing: .unconditional, help: "Clockwise rotation: 0, 90, 180 or 270.",
            completion: .list(["0", "90", "180", "270"]),
            transform: ArgumentValue.integer("0, 90, 180 or 270"))
    var rotate = 0

    @Flag(help: "Mirror left-right, as a front camera's preview.")
    var mirror = false

    @Option(parsing: .unconditional, help: "YUV matrix: bt601 or bt709.", completion: .list(["bt601", "bt709"]))
    var colorMatrix = "bt601"

    @Option(parsing: .unconditional, help: "YUV range: limited or full.", completion: .list(["limited", "full"]))
    var range = "limited"

    @Option(parsing: .unconditional, help: "How camera frames reach the GPU: auto (dma-buf import when the GPU and camera allow, else copy; YUV that the CPU converts is copied), copy, or dmabuf.", completion: .list(["auto", "copy", "dmabuf"]))
    var upload = "auto"

    @Option(parsing: .unconditional, help: "Decoder of a compressed camera format: auto (a V4L2 hardware decoder when the machine has one for the format, else the CPU), cpu (libavcodec, libjpeg-turbo), v4l2 (the first V4L2 decoder of the format), or a decoder's /dev/videoN. MJPEG is always decoded on the CPU; fwht only by a V4L2 decoder.", completion: .list(["auto", "cpu", "v4l2"]))
    var decoder = "auto"

    @Option(parsing: .unconditional, help: "Where YUV frames become RGB, raw Bayer is demosaiced, and RGB and gray frames are cropped (a color matrix applied there too): auto (on the CPU with a software renderer such as llvmpipe, where it is cheaper than a GPU pass; else on the GPU), cpu, or shader.", completion: .list(["auto", "cpu", "shader"]))
    var yuvConversion = "auto"

    @OptionGroup(title: "Raw Bayer")
    var isp: ISPOptions

    /// The source and the render settings the options describe.
    func makePipeline() throws -> (source: SourceOptions, settings: RenderSettings) {
        // Several sources are composed (`composition`): the first is the run's own.
        let given = SourceArgument.scan(CommandLine.arguments)
        var (input, camera) = (self.input, self.camera)
        if given.count > 1 { (input, camera) = given[0].camera ? (nil, given[0].value) : (given[0].value, nil) }
        if input == SourceArgument.testPattern { input = nil }
        var source = SourceOptions()
        source.input = input
        source.allowDamaged = allowDamaged
        source.camera = camera
        if given.count < 2 && camera != nil && input != nil {
            throw UsageError("--camera and --input both given; give each source its own, and --layout for how they share the picture")
        }
        if camera == "" { throw UsageError("--camera is empty; give a device such as /dev/video0, or auto") }
        if input == "" { throw UsageError("--input is empty; give a file, or leave --input out for the test pattern") }
        if let input, ["png", "y4m"].contains(fileExtension(input).lowercased()) {
            let given = [format.map { _ in "--format" }, inputSize.map { _ in "--input-size" }].compactMap { $0 }
            guard given.isEmpty else {
                throw UsageError("\(given.joined(separator: " and ")) \(given.count > 1 ? "are" : "is") for raw input and the test pattern; \(excerpt(input)) gives its own; leave \(given.count > 1 ? "them" : "it") out")
            }
        }
        if let format, format != "auto" || camera == nil {
            guard let parsed = InputFormat(name: format, camera: camera != nil) else {
                if camera == nil, CompressedFormat(name: format) != nil {
                    throw UsageError("--format \(excerpt(format)) is only for --camera; files and the test pattern use \(PixelFormat.validNames)")
                }
                let cameraOnly = camera == nil && InputFormat(name: format, camera: true) != nil ? "; with --camera, other V4L2 codes (HSV3, Y16-BE) go through libv4l" : ""
                throw UsageError("--format \(excerpt(format)) is not supported; use \(PixelFormat.validNames), or for raw files also \(RepackedFormat.validNames)\(cameraOnly)")
            }
            source.format = parsed
        }
        guard let decoderChoice = DecoderChoice(name: decoder) else {
            throw UsageError("--decoder \(excerpt(decoder)) is not valid; use \(DecoderChoice.validNames)")
        }
        if decoderChoice != .auto && camera == nil { throw UsageError("--decoder is for cameras that stream compressed frames (--camera with --format mjpeg, h264, hevc or fwht)") }
        source.decoder = decoderChoice
        source.isp = try isp.settings(bits: source.format?.mosaic?.bits)
        if isp.given && camera == nil && source.format?.mosaic == nil {
            throw UsageError("--demosaic, --black-level, --awb, --ccm and --gamma are for raw Bayer frames: a camera, or raw input with --format rggb8, bggr10, ... (\(RepackedFormat.allCases.filter { $0.mosaic != nil }.count) Bayer formats)")
        }
        if let inputSize {
            source.inputSize = try SizeArgument.parse(inputSize, option: "--input-size", example: "1280x720, or vga, 720p, 1080p")
        }
        guard let matrix = YUVColorSpace.Matrix(rawValue: colorMatrix) else { throw UsageError("--color-matrix \(excerpt(colorMatrix)) is not valid; use bt601 or bt709") }
        guard let yuvRange = YUVColorSpace.Range(rawValue: range) else { throw UsageError("--range \(excerpt(range)) is not valid; use limited or full") }
        source.colorSpace = YUVColorSpace(matrix: matrix, range: yuvRange)
        var requested: Double?
        if let fps {
            if fps == "max" {
                guard camera != nil else { throw UsageError("--fps max needs --camera") }
                source.cameraRate = .max
            } else {
                guard let value = Double(fps), FrameLimits.rates.contains(value) else {
                    throw UsageError("--fps \(excerpt(fps)) is not valid; use a rate \(FrameLimits.rateSummary)\(camera != nil ? ", or max" : "")")
                }
                requested = value
                if camera != nil { source.cameraRate = .fps(value) }
            }
        }
        let rate = requested ?? 30
        source.rate = rate
        source.rateFromFile = requested == nil

        var settings = RenderSettings(rate: rate)
        guard let uploadMode = FrameUploader.Upload(rawValue: upload) else { throw UsageError("--upload \(excerpt(upload)) is not valid; use auto, copy or dmabuf") }
        if uploadMode == .dmabuf && camera == nil { throw UsageError("--upload dmabuf needs --camera: only cameras share their buffers") }
        settings.upload = uploadMode
        guard let conversion = FrameUploader.YUVConversion(rawValue: yuvConversion) else {
            throw UsageError("--yuv-conversion \(excerpt(yuvConversion)) is not valid; use auto, cpu or shader")
        }
        settings.yuvConversion = conversion
        guard let cropMode = CropMode(rawValue: crop) else { throw UsageError("--crop \(excerpt(crop)) is not valid; use square or none") }
        settings.crop = cropMode
        if let size {
            settings.outputSize = try SizeArgument.parse(size, option: "--size", example: "720x720")
        }
        guard (0...1).contains(intensity) else { throw UsageError("--intensity \(intensity) is out of range; use a value from 0 to 1") }
        settings.filters = try FilterChain(parsing: filter, intensity: Float(intensity))
        if intensity != 1 && !settings.filters.filters.contains(where: { $0.colorMatrix != nil }) {
            throw UsageError("--intensity mixes a color-matrix filter with its input, and none is given; add one, such as --filter sepia")
        }
        let fitMode = try self.fitMode()
        guard let rotation = Rotation(rawValue: rotate) else { throw UsageError("--rotate \(rotate) is not valid; use 0, 90, 180 or 270") }
        settings.mode = cube ? .cube : .preview(PreviewLayout(fit: fitMode, rotation: rotation, mirror: mirror))
        _ = try zoomSlider()

        return (source, settings)
    }

    /// The --zoom slider value, checked.
    /// `--fit` as the layout takes it.
    func fitMode() throws -> FitMode {
        guard let mode = FitMode(rawValue: fit) else { throw UsageError("--fit \(excerpt(fit)) is not valid; use contain, cover or stretch") }
        return mode
    }

    func zoomSlider() throws -> Double? {
        guard let zoom else { return nil }
        guard let value = Double(zoom), (0...1).contains(value) else {
            throw UsageError("--zoom \(excerpt(zoom)) is out of range; use a slider value from 0 (no zoom) to 1 (4x)")
        }
        return value
    }
}
