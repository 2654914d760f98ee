import Messages
import Pixels

/// The compressed formats cameras stream, and the layout Kamera decodes each
/// into: Motion-JPEG to RGBA (libjpeg-turbo), H.264 and HEVC to NV12
/// (libavcodec, or a V4L2 hardware decoder), FWHT (the kernel's test codec,
/// vicodec's) to NV12 by a V4L2 decoder only.
public enum CompressedFormat: String, CaseIterable, Sendable {
    case mjpeg, h264, hevc, fwht

    /// The format of a V4L2 code (`MJPG`, `JPEG`, `H264`, `HEVC`, `FWHT`), nil for an uncompressed one.
    public init?(v4l2Code: String) {
        switch v4l2Code {
        case "MJPG", "JPEG": self = .mjpeg
        case "H264": self = .h264
        case "HEVC": self = .hevc
        case "FWHT": self = .fwht
        default: return nil
        }
    }

    /// Parses a name as a user types it: `mjpeg`, `mjpg`, `h264`, `avc`, `hevc`, `h265`, `fwht`.
    public init?(name: String) {
        switch name.lowercased() {
        case "mjpeg", "mjpg", "jpeg": self = .mjpeg
        case "h264", "h.264", "avc": self = .h264
        case "hevc", "h265", "h.265": self = .hevc
        case "fwht": self = .fwht
        default: return nil
        }
    }

    public static var validNames: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// The layout frames are decoded into.
    public var decoded: PixelFormat { self == .mjpeg ? .rgba : .nv12 }

    /// True when Kamera decodes it on the CPU; FWHT needs a V4L2 decoder.
    public var decodesOnCPU: Bool { self != .fwht }

    /// The V4L2 codes a memory-to-memory decoder of this format takes; none
    /// for Motion-JPEG, whose hardware decoders give YUV where Kamera's own decoder gives RGBA.
    public var v4l2Codes: [String] {
        switch self {
        case .mjpeg: []
        case .h264: ["H264"]
        case .hevc: ["HEVC"]
        case .fwht: ["FWHT"]
        }
    }

    /// The decoder `choice` gives for frames of this format of `width`x`height`,
    /// each at most `frameBytes` long, and what `-v` says about it.
    func decoder(_ choice: DecoderChoice, width: Int, height: Int, frameBytes: Int) throws -> (FrameDecoder, note: String?) {
        func cpu() throws -> FrameDecoder { try cpuDecoder(width: width, height: height) }
        let device: V4L2DecoderDevice
        switch choice {
        case .cpu: return (try cpu(), nil)
        case .auto:
            guard let found = V4L2DecoderDevice.find(decoding: self) else {
                if decodesOnCPU { return (try cpu(), nil) }
                throw CaptureError("fwht frames need a V4L2 decoder and this machine has none (no /dev/videoN decodes FWHT; vicodec is one)")
            }
            device = found
        case .v4l2(let path):
            guard !v4l2Codes.isEmpty else {
                throw CaptureError("\(Setting.decoder) \(path ?? "v4l2"): Kamera takes V4L2 decoders for \(Self.allCases.filter { !$0.v4l2Codes.isEmpty }.map(\.rawValue).joined(separator: ", ")), not \(rawValue); use \(Setting.decoder) cpu or auto")
            }
            if let path {
                guard let at = V4L2DecoderDevice.at(path, decoding: self) else {
                    let found = V4L2DecoderDevice.find(decoding: self).map { "; \($0) does" } ?? "; this machine has none that does"
                    throw CaptureError(.decoder, "\(path)", is: "not a V4L2 decoder of \(v4l2Codes[0])\(found)")
                }
                device = at
            } else {
                guard let found = V4L2DecoderDevice.find(decoding: self) else {
                    throw CaptureError("\(Setting.decoder) v4l2: no /dev/videoN decodes \(v4l2Codes[0])\(decodesOnCPU ? "; use \(Setting.decoder) cpu or auto" : "")")
                }
                device = found
            }
        }
        do {
            return (try V4L2Decoder(self, width: width, height: height, frameBytes: frameBytes, device: device), nil)
        } catch where choice == .auto && decodesOnCPU {
            return (try cpu(), "\(error); decoding \(rawValue) on the CPU instead")
        }
    }
}

extension CompressedFormat {
    /// Kamera's own decoder of this format: libjpeg-turbo, libavcodec.
    func cpuDecoder(width: Int, height: Int) throws -> FrameDecoder {
        switch self {
        case .mjpeg: try JPEGDecoder()
        case .h264, .hevc: try VideoStreamDecoder(self, width: width, height: height)
        case .fwht: throw CaptureError("fwht frames need a V4L2 decoder (vicodec) and Kamera decodes them on no other; \(Setting.decoder) auto finds one")
        }
    }
}

/// A decoder that cannot go on (it would not set up its pictures, or stopped
/// giving them): not a damaged frame, so the camera source stops, or under
/// `--decoder auto` goes on with the CPU's decoder.
struct DecoderFailure: Error, CustomStringConvertible {
    let error: CaptureError
    var description: String { error.description }
}

/// Turns one compressed frame a camera gave into a frame of its decoded layout.
protocol FrameDecoder: AnyObject {
    /// Decodes `data` into `target`; false when the decoder has no picture
    /// to give yet (a stream decoder before its first key frame). Throws for a damaged
    /// frame, and `DecoderFailure` when the decoder cannot go on.
    func decodeFrame(_ data: UnsafeRawBufferPointer, into target: FrameBuffer) throws -> Bool
    /// How to read the decoded frames' Y'CbCr when the stream or the decoder says; nil: the camera's.
    var colorSpace: YUVColorSpace? { get }
}

extension FrameDecoder {
    var colorSpace: YUVColorSpace? { nil }
}

extension JPEGDecoder: FrameDecoder {
    func decodeFrame(_ data: UnsafeRawBufferPointer, into target: FrameBuffer) throws -> Bool {
        try decode(data, into: target)
        return true
    }
}
