import CFFmpeg

/// Where a video encoder's muxed bytes go: Kamera's own file (written
/// through its descriptor, cut into whole fragments), or a network address
/// libavformat connects to itself (`rtmp://`, `srt://`, `rtsp://`).
enum VideoDestination {
    case file(OutputFile, VideoContainer)
    /// The address, libavformat's muxer for it, options for the muxer and
    /// protocol, and the callback that ends a wait on the network.
    case network(url: String, muxer: String, options: [(String, String)], interrupt: AVIOInterruptCB)

    /// The name messages give it.
    var name: String {
        switch self {
        case .file(let file, _): file.path
        case .network(let url, _, _, _): url
        }
    }

    var file: OutputFile? {
        if case .file(let file, _) = self { return file }
        return nil
    }

    /// The container whose codecs it takes: a network stream takes MP4's (H.264 with AAC).
    var container: VideoContainer {
        if case .file(_, let container) = self { return container }
        return Self.networkContainer
    }

    /// The container whose codecs every network stream takes: H.264 with AAC (FLV, MPEG-TS and RTP all carry them).
    static let networkContainer = VideoContainer.mp4

    var muxer: String {
        switch self {
        case .file(_, let container): container.muxer
        case .network(_, let muxer, _, _): muxer
        }
    }
}
