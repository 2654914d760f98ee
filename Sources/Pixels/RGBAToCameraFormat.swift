/// Converts RGBA pictures into a layout cameras deliver and V4L2 readers take
/// (YUYV, NV12, I420, RGB24), tightly packed: what a virtual camera writes.
/// Y'CbCr by `RGBAToYUV` (chroma from the mean of the pixels it covers), then
/// interleaved as the layout has it. Buffers are made once per size.
public final class RGBAToCameraFormat {
    /// The layouts written: each with the names users give it (the first is
    /// the one Kamera says) and its V4L2 code.
    public static let layouts: [(format: PixelFormat, names: [String], fourcc: String)] = [
        (.yuyv, ["yuyv", "yuy2"], "YUYV"), (.nv12, ["nv12"], "NV12"), (.yu12, ["i420", "yu12"], "YU12"), (.rgb24, ["rgb24", "rgb3"], "RGB3"),
    ]
    public static let formats = layouts.map(\.format)
    /// The layouts' names for messages: "yuyv, nv12, i420 or rgb24".
    public static let names = layouts.dropLast().map { $0.names[0] }.joined(separator: ", ") + " or " + layouts.last!.names[0]

    /// The layout a user named (any case), nil when none is.
    public static func format(named name: String) -> PixelFormat? {
        layouts.first { $0.names.contains(name.lowercased()) }?.format
    }

    /// The name Kamera says for a layout it writes; the format's own name for others.
    public static func name(of format: PixelFormat) -> String {
        layouts.first { $0.format == format }?.names[0] ?? format.name
    }

    /// The V4L2 code of a layout it writes.
    public static func fourcc(of format: PixelFormat) -> String? {
        layouts.first { $0.format == format }?.fourcc
    }

    public let format: PixelFormat
    private let yuv: RGBAToYUV?
    /// The last picture converted, `frameSize` bytes.
    public private(set) var bytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)

    /// `format` must be one of `formats`; Y'CbCr in `colorSpace`.
    public init(_ format: PixelFormat, colorSpace: YUVColorSpace = .bt601Limited) {
        precondition(Self.formats.contains(format), "\(format) is not a layout RGBAToCameraFormat writes")
        self.format = format
        switch format {
        case .yuyv: yuv = RGBAToYUV(chroma: .c422, colorSpace: colorSpace)
        case .nv12, .yu12: yuv = RGBAToYUV(chroma: .c420, colorSpace: colorSpace)
        default: yuv = nil
        }
    }

    deinit { bytes.deallocate() }

    /// Bytes of one `width` x `height` picture; sizes must be even for the Y'CbCr layouts.
    public func frameSize(width: Int, height: Int) -> Int {
        format == .rgb24 ? width * height * 3 : yuv!.frameSize(width: width, height: height)
    }

    /// Converts `width` x `height` RGBA pixels (rows top first, tight) into `bytes`.
    public func convert(_ rgba: UnsafeRawBufferPointer, width: Int, height: Int) {
        precondition(width > 0 && height > 0 && rgba.count >= width * height * 4)
        precondition(format == .rgb24 || (width % 2 == 0 && height % 2 == 0), "Y'CbCr layouts take even sizes")
        let total = frameSize(width: width, height: height)
        if bytes.count != total {
            bytes.deallocate()
            bytes = .allocate(byteCount: total, alignment: 64)
        }
        let out = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard let yuv else {
            let source = rgba.baseAddress!.assumingMemoryBound(to: UInt8.self)
            for i in 0..<width * height {
                out[3 * i] = source[4 * i]
                out[3 * i + 1] = source[4 * i + 1]
                out[3 * i + 2] = source[4 * i + 2]
            }
            return
        }
        yuv.convert(rgba, width: width, height: height)
        let planes = UnsafeRawBufferPointer(yuv.planes)
        let luma = planes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let chroma = yuv.chromaSize(width: width, height: height)
        let cb = luma + width * height, cr = cb + chroma.width * chroma.height
        switch format {
        case .yu12:
            bytes.copyMemory(from: planes)
        case .nv12:
            out.update(from: luma, count: width * height)
            let uv = out + width * height
            for i in 0..<chroma.width * chroma.height {
                uv[2 * i] = cb[i]
                uv[2 * i + 1] = cr[i]
            }
        default:
            // YUYV: Y0 Cb Y1 Cr for each pair of pixels.
            for i in 0..<width * height / 2 {
                out[4 * i] = luma[2 * i]
                out[4 * i + 1] = cb[i]
                out[4 * i + 2] = luma[2 * i + 1]
                out[4 * i + 3] = cr[i]
            }
        }
    }
}
