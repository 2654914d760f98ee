import Messages
import Capture
import Foundation
import Pixels

/// Where frames come from, as the command line describes it, and the source it makes.
public struct SourceOptions: Equatable {
    /// A `.png`, `.y4m` or raw file; nil for the built-in test pattern.
    public var input: String?
    /// A V4L2 device such as `/dev/video0`, or `auto` for the first camera.
    public var camera: String?
    /// The capture rate for a camera.
    public var cameraRate: CameraRequest.Rate = .current
    /// The format of raw input, the camera or the test pattern; nil: the
    /// camera's cheapest, or YUYV for the test pattern.
    public var format: InputFormat?
    /// How raw Bayer frames are processed (see `BayerISP`).
    public var isp = ISPSettings()
    /// Which decoder a compressed camera format goes through.
    public var decoder = DecoderChoice.auto
    /// Frame size of raw input or of the test pattern.
    public var inputSize: (width: Int, height: Int)?
    public var colorSpace: YUVColorSpace
    public var rate: Double
    /// Take the rate from the file when it has one (a Y4M header's `F`):
    /// `SourceSession` then sets the renderer's rate from it.
    public var rateFromFile = false
    /// Take a damaged JPEG still (cut short: part of it gray) as it is.
    public var allowDamaged = false

    public init(input: String? = nil, format: InputFormat? = nil, inputSize: (width: Int, height: Int)? = nil,
                colorSpace: YUVColorSpace = .bt601Limited, rate: Double = 30) {
        self.input = input
        self.format = format
        self.inputSize = inputSize
        self.colorSpace = colorSpace
        self.rate = rate
    }

    public static func == (a: SourceOptions, b: SourceOptions) -> Bool {
        a.input == b.input && a.camera == b.camera && a.cameraRate == b.cameraRate && a.format == b.format && a.isp == b.isp && a.decoder == b.decoder && a.colorSpace == b.colorSpace && a.rate == b.rate && a.rateFromFile == b.rateFromFile && a.allowDamaged == b.allowDamaged
            && a.inputSize?.width == b.inputSize?.width && a.inputSize?.height == b.inputSize?.height
    }

    /// Makes the source. A camera asks `placement` where its buffers go (see
    /// `CameraBufferPlan`), and maps them without one; `convertsOnGPU` says
    /// whether raw Bayer is demosaiced by the GPU; `note` hears why a camera's
    /// frames will be copied rather than imported.
    public func makeSource(placement: CameraBufferPlacement? = nil, convertsOnGPU: Bool = false, note: (String) -> Void = { _ in }) throws -> FrameSource {
        // Raw Bayer is demosaiced where YUV is converted: in the frame uploader's shaders, which read the other
        // orders of packed 4:2:2, NV21, NV16, NV61 and planar YUV as they are, or on the CPU for a software renderer.
        var isp = self.isp
        isp.onGPU = convertsOnGPU
        if let camera {
            let path = camera == "auto" ? try Self.firstCamera() : camera
            var request = CameraRequest(format: format, size: inputSize, rate: cameraRate)
            request.isp = isp
            request.decoder = decoder
            let source: CameraSource
            do {
                source = try CameraSource(path: path, request: request) { mode in try placement?.memory(for: mode) ?? .mmap }
            } catch where placement?.mapsWhenRefused == true {
                // The camera would not take the shared buffers; mapped ones then.
                note("\(error); copying frames instead")
                source = try CameraSource(path: path, request: request)
            }
            if let reason = placement?.reason { note(reason) }
            if let black = source.sensorBlackLevel { note(black.reason) }
            if let why = source.decoderNote { note(why) }
            placement?.forgetBuffers()
            return CaptureQueue(camera: source)
        }
        guard let input else {
            let size = inputSize ?? (1280, 720)
            guard case .native(let pixels) = format ?? .native(.yuyv) else {
                throw CaptureError("\(Setting.format) \(format!.name) is for \(format!.raw == nil ? "cameras" : "raw files and cameras"); the test pattern takes \(PixelFormat.validNames)")
            }
            return TestPattern(width: size.width, height: size.height, format: pixels, colorSpace: colorSpace, rate: rate)
        }
        var info = stat()
        guard stat(input, &info) == 0 else {
            if errno == ENOENT && input.hasPrefix("/dev/video") {
                throw CaptureError("\(input): no such camera; cameras are taken with \(Setting.camera) (kamera devices lists them), files with \(Setting.input)")
            }
            throw CaptureError(Self.unreadable(input, errno: errno))
        }
        guard (info.st_mode & S_IFMT) != S_IFDIR else {
            throw CaptureError("\(input): is a folder; give a file: \(Self.readableFiles)")
        }
        // Character major 81: Video4Linux (a /dev/v4l/by-id link too).
        if (info.st_mode & S_IFMT) == S_IFCHR && ((UInt64(info.st_rdev) >> 8) & 0xfff) == 81 {
            throw CaptureError("\(input) is a camera, not a file; use \(Setting.camera) \(input)")
        }
        let type = fileExtension(input).lowercased()
        switch type {
        case "png", "jpg", "jpeg": return try ImageSource(path: input, rate: rate, allowDamaged: allowDamaged)
        case "y4m":
            return try Y4MSource(path: input)
        default:
            guard let format = format?.raw, let size = inputSize else {
                if Self.unreadTypes.contains(type) {
                    throw CaptureError("\(input): Kamera does not read .\(type) files; it reads \(Self.readableFiles) (ffmpeg -i \(input) -pix_fmt yuv420p clip.y4m converts one)")
                }
                // Name what is missing, not what was given.
                let missing = [self.format?.raw == nil ? "\(Setting.format) (\(SourceFormat.validNames))" : nil,
                               inputSize == nil ? "\(Setting.inputSize) WxH" : nil].compactMap { $0 }.joined(separator: " and ")
                throw CaptureError("\(input): raw input needs \(missing); Kamera reads \(Self.readableFiles)")
            }
            return try RawVideoSource(path: input, format: format, width: size.width, height: size.height, colorSpace: colorSpace, isp: isp, rate: rate)
        }
    }
}

extension SourceOptions {
    /// What `--input` takes, for the messages that refuse a file.
    static let readableFiles = ".png, .jpg/.jpeg and .y4m files, and raw frames with \(Setting.format) and \(Setting.inputSize)"

    /// Picture and video files a user may hand over that Kamera does not decode.
    static let unreadTypes: Set<String> = ["gif", "bmp", "webp", "tif", "tiff", "heic", "avif", "mp4", "mov", "mkv", "webm", "avi", "mjpeg", "mjpg", "h264", "264", "hevc", "265", "ts"]

    /// Why `stat(path)` failed, in words that say what to do.
    static func unreadable(_ path: String, errno code: Int32) -> String {
        switch code {
        case ELOOP: return "\(path): a loop of symbolic links; point the link at a file"
        case ENAMETOOLONG: return "\(excerpt(path)): the name is longer than the system allows (4096 bytes a path, 255 a name)"
        case EACCES: return "\(path): permission denied on a folder of the path"
        case ENOTDIR: return "\(path): a part of the path is a file, not a folder"
        default: return "\(path): no such file; check the name, or leave the input out for the test pattern"
        }
    }

    public static func firstCamera() throws -> String {
        guard let first = CameraDevice.list().first(where: { !$0.busy }) ?? CameraDevice.list().first else {
            throw CaptureError("no camera found (no /dev/videoN can capture video); use \(Setting.input) FILE or leave both out for the test pattern")
        }
        return first.path
    }
}

/// Parses `WxH` (`1280x720`) and the presets `vga`, `720p`, `1080p`; the
/// size limits are `FrameLimits`'.
public func parseSize(_ text: String) -> (width: Int, height: Int)? {
    switch text.lowercased() {
    case "vga": return (640, 480)
    case "720p": return (1280, 720)
    case "1080p": return (1920, 1080)
    default:
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let w = Int(parts[0]), let h = Int(parts[1]), w >= 1, h >= 1 else {
            return nil
        }
        return (w, h)
    }
}
