/// How a recording is encoded: `--codec`, `--crf`, `--bitrate`, `--preset`,
/// `--gop`, `--faststart`, `--drop`, `--encoder-input`.
public struct VideoSettings: Equatable, Sendable {
    /// A codec (`h264`) or an encoder (`h264_nvenc`); nil: the container's default.
    public var codec: String?
    /// Constant quality, the encoder's scale (x264/x265 0–51, VP9/AV1 0–63); nil: the encoder's default (x264: 23).
    public var crf: Int?
    /// Bits a second, instead of constant quality.
    public var bitrate: Int?
    /// The encoder's speed preset (x264: ultrafast … veryslow); nil: `veryfast` for x264/x265 on live runs, the encoder's default otherwise.
    public var preset: String?
    /// Key frames every so many frames or seconds; nil: one a second.
    public var gop: KeyFrameInterval?
    /// MP4/MOV: one plain file, its index moved to the front at the end, instead of fragments.
    public var faststart = false
    /// When the encoder falls behind: wait (`never` drop) or drop the late frame; nil: drop on live sources, wait otherwise.
    public var drop: DropPolicy?
    /// `--audio-codec`: aac, opus or flac; nil: AAC in MP4/MOV, Opus in Matroska/WebM.
    public var audioCodec: String?
    /// Encoder threads; 0: the encoder chooses.
    public var threads = 0
    /// What the encoder is fed (`--encoder-input`).
    public var encoderInput = EncoderInput.auto
    /// The run goes at the pace of its source (a preview, a camera): encoders
    /// tuned for real time, holding no frames back for look-ahead.
    public var realTime = false
    /// `--strip`: no creation time or encoder names in the file.
    public var strip = false

    /// How a rendered picture reaches a 4:2:0 encoder.
    public enum EncoderInput: String, CaseIterable, Sendable {
        /// Planar 4:2:0 made straight from a YUV frame's bytes (the color
        /// matrix applied on the way) when the CPU's conversion is the whole
        /// picture; otherwise the RGBA picture, converted by swscale.
        case auto
        /// Always the RGBA picture, converted by swscale (to compare the paths).
        case rgba
    }

    public enum DropPolicy: String, CaseIterable, Sendable {
        case never, late
    }

    public init() {}

    /// The range `--crf` takes for `codec`.
    public static func crfRange(for codec: VideoCodec) -> ClosedRange<Int> {
        switch codec {
        case .h264, .hevc: 0...51
        case .vp9, .av1: 0...63
        case .mjpeg: 1...31
        case .ffv1: 0...0
        }
    }
}

extension VideoSettings {
    /// x264's and x265's speed presets, fastest first.
    public static let x26xPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    /// Why `preset` is not one of `encoder`'s, and what is, checked before
    /// the encoder is opened (the encoder's own refusal printed its own line
    /// and gave "Invalid argument"); nil when it is one.
    static func presetProblem(_ preset: String, encoder: String) -> (problem: String, remedy: String)? {
        func number(_ range: ClosedRange<Int>, _ what: String) -> (String, String)? {
            guard let value = Int(preset), range.contains(value) else {
                return ("not a preset of \(encoder)", "give its \(what), \(range.lowerBound) to \(range.upperBound)")
            }
            return nil
        }
        switch encoder {
        case "libx264", "libx265":
            return x26xPresets.contains(preset) ? nil : ("not a preset of \(encoder)", "use \(x26xPresets.joined(separator: ", "))")
        case "libvpx-vp9": return number(-8...8, "speed (cpu-used, higher is faster)")
        case "libaom-av1": return number(0...9, "speed (cpu-used, higher is faster)")
        case "libsvtav1": return number(-1...13, "preset (higher is faster)")
        case "librav1e": return number(0...10, "speed (higher is faster)")
        case "mjpeg", "ffv1": return ("not used by \(encoder)", "\(encoder) has no presets; leave it out")
        default: return nil
        }
    }
}
