import CFFmpeg
import Messages

/// A video codec `--codec` names, and the encoders of the installed FFmpeg
/// libraries that write it: software first (the default), then the
/// hardware ones, tried only when named (`--codec h264_vaapi`).
public enum VideoCodec: String, CaseIterable, Sendable {
    case h264, hevc, vp9, av1, mjpeg, ffv1

    /// Software encoders, best first.
    public var softwareEncoders: [String] {
        switch self {
        case .h264: ["libx264"]
        case .hevc: ["libx265"]
        case .vp9: ["libvpx-vp9"]
        case .av1: ["libsvtav1", "libaom-av1", "librav1e"]
        case .mjpeg: ["mjpeg"]
        case .ffv1: ["ffv1"]
        }
    }

    /// Hardware encoders a machine may offer.
    public var hardwareEncoders: [String] {
        switch self {
        case .h264: ["h264_vaapi", "h264_nvenc", "h264_qsv", "h264_v4l2m2m"]
        case .hevc: ["hevc_vaapi", "hevc_nvenc", "hevc_qsv", "hevc_v4l2m2m"]
        case .vp9: ["vp9_vaapi", "vp9_qsv"]
        case .av1: ["av1_nvenc", "av1_vaapi", "av1_qsv"]
        case .mjpeg: ["mjpeg_vaapi", "mjpeg_qsv"]
        case .ffv1: []
        }
    }

    /// The largest picture Kamera records: 35,651,584 pixels (8192x4352), the
    /// most any level of H.264, HEVC, VP9 or AV1 allows (so players decode
    /// it), which also bounds the encoder's memory.
    public static let maxPixels = 35_651_584
    /// The longest side Kamera records, VP9's and AV1's limit.
    public static let maxSide = 16_384

    /// Why `width` x `height` is not a size Kamera records, and what is; nil when it is one.
    public static func sizeProblem(width: Int, height: Int) -> String? {
        guard width * height > maxPixels || max(width, height) > maxSide else { return nil }
        return "\(width)x\(height) is larger than Kamera records (at most \(maxPixels) pixels a frame, such as 8192x4352, and \(maxSide) a side: the most any level of H.264, HEVC, VP9 or AV1 allows, which players decode); use a smaller \(Setting.size), or write PNG or Y4M frames"
    }

    /// True for encoders that need a device of their own (a GPU's, a SoC's).
    public static func isHardware(_ encoder: String) -> Bool { allCases.contains { $0.hardwareEncoders.contains(encoder) } }

    /// True for codecs that keep every pixel.
    public var isLossless: Bool { self == .ffv1 }

    /// The first software encoder the installed libraries have.
    public var installedEncoder: String? { softwareEncoders.first(where: Self.isInstalled) }

    /// True when the installed libraries have an encoder of this name.
    public static func isInstalled(_ encoder: String) -> Bool { avcodec_find_encoder_by_name(encoder) != nil }

    /// The codec an encoder name writes (`h264_nvenc` → h264).
    public static func codec(ofEncoder name: String) -> VideoCodec? {
        allCases.first { $0.softwareEncoders.contains(name) || $0.hardwareEncoders.contains(name) }
    }
}
