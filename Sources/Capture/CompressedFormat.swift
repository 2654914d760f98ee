import Pixels

/// The compressed formats cameras stream, and the layout Kamera decodes each
/// into: Motion-JPEG to RGBA (libjpeg-turbo), H.264 and HEVC to NV12 (libavcodec).
public enum CompressedFormat: String, CaseIterable, Sendable {
    case mjpeg, h264, hevc

    /// The format of a V4L2 code (`MJPG`, `JPEG`, `H264`, `HEVC`), nil for an uncompressed one.
    public init?(v4l2Code: String) {
        switch v4l2Code {
        case "MJPG", "JPEG": self = .mjpeg
        case "H264": self = .h264
        case "HEVC": self = .hevc
        default: return nil
        }
    }

    /// Parses a name as a user types it: `mjpeg`, `mjpg`, `h264`, `avc`, `hevc`, `h265`.
    public init?(name: String) {
        switch name.lowercased() {
        case "mjpeg", "mjpg", "jpeg": self = .mjpeg
        case "h264", "h.264", "avc": self = .h264
        case "hevc", "h265", "h.265": self = .hevc
        default: return nil
        }
    }

    public static var validNames: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The layout frames are decoded into.
    public var decoded: PixelFormat { self == .mjpeg ? .rgba : .nv12 }

    /// The decoder for frames of this format.
    func decoder(width: Int, height: Int) throws -> FrameDecoder {
        switch self {
        case .mjpeg: try JPEGDecoder()
        case .h264, .hevc: try VideoStreamDecoder(self, width: width, height: height)
        }
    }
}

/// Turns one compressed frame a camera gave into a frame of its decoded layout.
protocol FrameDecoder: AnyObject {
    /// Decodes `data` into `target`; false when the decoder has no picture
    /// to give yet (a stream decoder before its first key frame). Throws for a damaged frame.
    func decodeFrame(_ data: UnsafeRawBufferPointer, into target: FrameBuffer) throws -> Bool
}

extension JPEGDecoder: FrameDecoder {
    func decodeFrame(_ data: UnsafeRawBufferPointer, into target: FrameBuffer) throws -> Bool {
        try decode(data, into: target)
        return true
    }
}
