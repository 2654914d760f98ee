/// A container `-o NAME.EXT` names, the codecs it holds and what it promises
/// when the run is killed.
public enum VideoContainer: String, CaseIterable, Sendable {
    case mp4, mov, mkv, webm

    /// By file extension (`.MP4` too).
    public init?(fileExtension: String) {
        self.init(rawValue: fileExtension.lowercased())
    }

    /// libavformat's muxer.
    var muxer: String {
        switch self {
        case .mp4: "mp4"
        case .mov: "mov"
        case .mkv: "matroska"
        case .webm: "webm"
        }
    }

    /// The codecs it can hold, its default first.
    public var codecs: [VideoCodec] {
        switch self {
        case .mp4: [.h264, .hevc, .vp9, .av1, .mjpeg]
        case .mov: [.h264, .hevc, .mjpeg, .ffv1]
        case .mkv: [.h264, .hevc, .vp9, .av1, .mjpeg, .ffv1]
        case .webm: [.vp9, .av1]
        }
    }

    public var defaultCodec: VideoCodec { codecs[0] }

    /// True for the ISO family (MP4, MOV), written fragmented unless `--faststart`.
    var isISO: Bool { self == .mp4 || self == .mov }

    /// The containers, for messages: `mp4, mov, mkv, webm`.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
