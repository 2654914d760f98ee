/// The pixel layouts Kamera's frame uploader understands.
public enum PixelFormat: String, CaseIterable, Sendable {
    /// Packed 4:2:2, Y0 U Y1 V (V4L2 `YUYV`).
    case yuyv
    /// 4:2:0, a Y plane and an interleaved UV plane at half size (V4L2 `NV12`).
    case nv12
    /// 8-bit R, G, B, A.
    case rgba
    /// 8-bit B, G, R, A (V4L2 `AR24` in memory order).
    case bgra
    /// 8-bit R, G, B (V4L2 `RGB3`).
    case rgb24
    /// 8-bit luminance only (V4L2 `GREY`).
    case grey
    /// Raw Bayer samples of 8 bits, one byte a pixel, handed on undemosaiced
    /// for the frame uploader's demosaic shader; the frame's `bayer` says the
    /// pattern and how to develop it. Not a format a user names.
    case bayer8
    /// Raw Bayer samples of 10 to 16 bits in little-endian 16-bit words, as `bayer8`.
    case bayer16
    /// Raw Bayer samples packed MIPI CSI-2 style, as `bayer8`: four 10-bit
    /// samples in 5 bytes, or two 12-bit ones in 3 (`MIPIUnpacker` says how),
    /// handed on as the camera gave them; the demosaic shader unpacks each sample it reads.
    case bayer10p, bayer12p
    /// Packed 4:2:2 in the other byte orders (U Y0 V Y1, Y0 V Y1 U, V Y0 U Y1),
    /// handed on as the camera gave them for the frame uploader's conversion
    /// shader, which reads each order (`pairOrder`); the CPU's conversions read
    /// YUYV, into which `RepackedFormat` repacks them otherwise. Not a format a user names.
    case uyvy, yvyu, vyuy
    /// Semi-planar Y'CbCr in the other chroma orders and heights: NV21 (4:2:0,
    /// V before U), NV16 (4:2:2: a chroma row for each luma row) and NV61
    /// (both), handed on as the camera gave them for the conversion shader,
    /// which reads each (`chromaLayout`), as `uyvy` is. Not a format a user names.
    case nv21, nv16, nv61
    /// Planar Y'CbCr: a Y plane, then a U and a V plane (V first in YV12) at
    /// half width, half height for 4:2:0 (YU12, YV12) or full height for
    /// 4:2:2 (422P), handed on as the camera gave them for the conversion
    /// shader as `nv21` is. Not a format a user names.
    case yu12, yv12, yuv422p
    /// RGB in the other byte orders: B G R, and the 32-bit orders by their
    /// bytes in memory (x: unused, read as opaque): R G B X, B G R X (V4L2
    /// `XR24`), X B G R, A B G R, A R G B, X R G B; and RGB565 (V4L2 `RGBP`). Handed on as the camera gave
    /// them for a GPU that reads each order (`rgbBytes`) by texture swizzle,
    /// as `uyvy` is. Not formats a user names.
    case bgr24, rgbx, bgrx, xbgr, abgr, argb, xrgb, rgb565
    /// Gray in the low 10, 12 or 16 bits of little-endian 16-bit words (V4L2
    /// `Y10 `, `Y12 `, `Y16 `), handed on as the camera gave them for the GPU,
    /// which widens each word from its full depth (`grayBits`), as `uyvy` is.
    /// Not formats a user names.
    case y10, y12, y16

    public var name: String { rawValue }

    /// Parses a name as a user types it (`yuyv`, `NV12`, `rgb`, `gray`...).
    public init?(name: String) {
        switch name.lowercased() {
        case "yuyv", "yuy2", "yuyv422": self = .yuyv
        case "nv12": self = .nv12
        case "rgba", "rgba32", "abgr32": self = .rgba
        case "bgra", "bgr32", "bgra32", "ar24": self = .bgra
        case "rgb24", "rgb", "rgb3": self = .rgb24
        case "grey", "gray", "y8": self = .grey
        default: return nil
        }
    }

    /// The formats a user names (`--format`): all but those only handed on for the GPU.
    public static let named: [PixelFormat] = [.yuyv, .nv12, .rgba, .bgra, .rgb24, .grey]

    public static var validNames: String { named.map(\.rawValue).joined(separator: ", ") }

    public var isYUV: Bool { pairOrder != nil || chromaLayout != nil }

    /// Semi-planar (a Y plane, then one of interleaved chroma) and planar (a
    /// Y plane, then a plane for each of U and V, `planar`): whether V comes
    /// before U, and whether the chroma has a row for every luma row (4:2:2)
    /// rather than for every two (4:2:0); nil for the other layouts. Chroma is
    /// at half width in all of them.
    public var chromaLayout: (vFirst: Bool, fullHeight: Bool, planar: Bool)? {
        switch self {
        case .nv12: (false, false, false)
        case .nv21: (true, false, false)
        case .nv16: (false, true, false)
        case .nv61: (true, true, false)
        case .yu12: (false, false, true)
        case .yv12: (true, false, true)
        case .yuv422p: (false, true, true)
        default: nil
        }
    }

    /// Packed 4:2:2: where Y0, U (Cb), Y1 and V (Cr) sit in the 4 bytes of
    /// each pair of pixels; nil for the other layouts.
    public var pairOrder: (y0: Int, u: Int, y1: Int, v: Int)? {
        switch self {
        case .yuyv: (0, 1, 2, 3)
        case .uyvy: (1, 0, 3, 2)
        case .yvyu: (0, 3, 2, 1)
        case .vyuy: (1, 2, 3, 0)
        default: nil
        }
    }

    /// Byte-packed RGB: where R, G, B and A (nil: none, opaque) sit in each
    /// pixel's `size` bytes; nil for the other layouts.
    public var rgbBytes: (r: Int, g: Int, b: Int, a: Int?, size: Int)? {
        switch self {
        case .rgba: (0, 1, 2, 3, 4)
        case .bgra: (2, 1, 0, 3, 4)
        case .rgb24: (0, 1, 2, nil, 3)
        case .bgr24: (2, 1, 0, nil, 3)
        case .rgbx: (0, 1, 2, nil, 4)
        case .bgrx: (2, 1, 0, nil, 4)
        case .xbgr: (3, 2, 1, nil, 4)
        case .abgr: (3, 2, 1, 0, 4)
        case .argb: (1, 2, 3, 0, 4)
        case .xrgb: (1, 2, 3, nil, 4)
        default: nil
        }
    }

    /// The depth of gray in 16-bit words (10, 12, 16); nil for the other layouts.
    public var grayBits: Int? {
        switch self {
        case .y10: 10
        case .y12: 12
        case .y16: 16
        default: nil
        }
    }

    /// True for raw Bayer samples (`bayer8`, `bayer16`, `bayer10p`, `bayer12p`).
    public var isMosaic: Bool { self == .bayer8 || self == .bayer16 || mipiBits != nil }

    /// The depth of MIPI-packed raw Bayer (10, 12); nil for the other layouts.
    public var mipiBits: Int? {
        switch self {
        case .bayer10p: 10
        case .bayer12p: 12
        default: nil
        }
    }

    /// Samples in a MIPI-packed group (4 at 10 bits, 2 at 12): their high
    /// bytes, then one byte of their low bits; nil for the other layouts.
    public var mipiGroup: Int? { mipiBits.map { 8 / ($0 - 8) } }

    /// Bytes in a `width`-pixel row of MIPI-packed samples `bits` deep.
    public static func mipiRowBytes(width: Int, bits: Int) -> Int { (width * bits + 7) / 8 }

    /// The V4L2 four-character code of this layout.
    public var fourcc: String {
        switch self {
        case .yuyv: "YUYV"
        case .nv12: "NV12"
        case .rgba: "AB24"
        case .bgra: "AR24"
        case .rgb24: "RGB3"
        case .grey: "GREY"
        case .bayer8: "BA81"
        case .bayer16: "BYR2"
        case .bayer10p: "pBAA"
        case .bayer12p: "pBCC"
        default: RepackedFormat(rawValue: rawValue)!.fourcc  // the camera's format, handed on as it is
        }
    }

    /// The tight (unpadded) layout of each plane for a frame of the given size.
    public func planeLayouts(width: Int, height: Int) -> [(bytesPerRow: Int, rows: Int)] {
        switch self {
        case .yuyv: [(((width + 1) / 2) * 4, height)]
        case .nv12: [(width, height), (((width + 1) / 2) * 2, (height + 1) / 2)]
        case .rgba, .bgra: [(width * 4, height)]
        case .rgb24: [(width * 3, height)]
        case .grey, .bayer8: [(width, height)]
        case .bayer16: [(width * 2, height)]
        case .bayer10p, .bayer12p: [(Self.mipiRowBytes(width: width, bits: mipiBits!), height)]
        default: RepackedFormat(rawValue: rawValue)!.planeLayouts(width: width, height: height)  // the camera's format, handed on as it is
        }
    }

    /// Bytes in one tightly packed frame.
    public func frameSize(width: Int, height: Int) -> Int {
        planeLayouts(width: width, height: height).reduce(0) { $0 + $1.bytesPerRow * $1.rows }
    }
}
