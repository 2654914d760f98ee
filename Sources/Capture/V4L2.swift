import CV4L2
import Glibc
import Pixels

/// Small helpers for talking to V4L2 devices.
enum V4L2 {
    /// Runs an ioctl on `value`; returns errno on failure, 0 on success.
    @discardableResult
    static func ioctl<T>(_ fd: Int32, _ request: UInt, _ value: inout T) -> Int32 {
        withUnsafeMutablePointer(to: &value) { kamera_ioctl(fd, request, $0) } == 0 ? 0 : errno
    }

    /// A fixed-size C char array (imported as a tuple) as a String.
    static func string<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    static func message(_ error: Int32) -> String { String(cString: strerror(error)) }
}

extension PixelFormat {
    /// The V4L2 four-character codes this layout is read from.
    public var v4l2Codes: [String] {
        switch self {
        case .yuyv: ["YUYV"]
        case .nv12: ["NV12"]
        case .rgba: ["AB24"]
        case .bgra: ["AR24"]
        case .rgb24: ["RGB3"]
        case .grey: ["GREY"]
        case .bayer8, .bayer16, .bayer10p, .bayer12p: []  // read as `RepackedFormat`s, which say the pattern
        default: []  // read as `RepackedFormat`s, handed on as they are only for the GPU
        }
    }

    /// The layout for a V4L2 four-character code, when Kamera reads it.
    public init?(v4l2Code: String) {
        guard let f = PixelFormat.allCases.first(where: { $0.v4l2Codes.contains(v4l2Code) }) else { return nil }
        self = f
    }

    /// Bytes per pixel moved per frame, to pick the cheapest format to upload.
    public var bytesPerPixel: Double {
        switch self {
        case .nv12, .nv21, .yu12, .yv12: 1.5
        case .nv16, .nv61, .yuv422p: 2
        case .yuyv, .uyvy, .yvyu, .vyuy: 2
        case .rgb24, .bgr24: 3
        case .rgba, .bgra, .rgbx, .bgrx, .xbgr, .abgr, .argb, .xrgb: 4
        case .grey, .bayer8: 1
        case .bayer16, .rgb565, .y10, .y12, .y16: 2
        case .bayer10p: 1.25
        case .bayer12p: 1.5
        }
    }
}
