import Foundation
import Messages
import Pixels

/// A media server Kamera publishes to: `rtmp://HOST[:PORT]/APP/KEY` (FLV),
/// `srt://HOST:PORT[?streamid=...]` (MPEG-TS), `rtsp://HOST[:PORT]/PATH`
/// (RTP over the RTSP connection), with libavformat's muxer and options for each.
struct PublishTarget: Sendable {
    enum Kind: String, Sendable {
        case rtmp, srt, rtsp
    }

    let url: String
    let kind: Kind

    static let forms = "rtmp://HOST/APP/KEY, srt://HOST:PORT?streamid=NAME or rtsp://HOST:PORT/PATH"

    init(parsing text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw OutputError("\(excerpt(text)): not an address; Kamera publishes to \(Self.forms)")
        }
        guard let host = components.host, !host.isEmpty else {
            throw OutputError("\(excerpt(text)): no host in the address; give \(Self.forms)")
        }
        _ = host
        switch scheme {
        case "rtmp", "rtmps":
            let parts = components.path.split(separator: "/")
            guard parts.count >= 2 else {
                throw OutputError("\(excerpt(text)): an RTMP address names an application and a stream key after the host; give rtmp://HOST/APP/KEY, such as rtmp://127.0.0.1/live/cam")
            }
            kind = .rtmp
        case "srt":
            guard components.port != nil else {
                throw OutputError("\(excerpt(text)): an SRT address needs a port; give srt://HOST:PORT, such as srt://127.0.0.1:9000?streamid=cam")
            }
            kind = .srt
        case "rtsp":
            guard components.path.count > 1 else {
                throw OutputError("\(excerpt(text)): an RTSP address names a path after the host; give rtsp://HOST:PORT/PATH, such as rtsp://127.0.0.1:8554/cam")
            }
            kind = .rtsp
        default:
            throw OutputError("\(excerpt(text)): Kamera does not publish to \(excerpt(scheme, limit: 10)):// addresses; it publishes to \(Self.forms)")
        }
        url = text
    }

    /// libavformat's muxer for the protocol.
    var muxer: String {
        switch kind {
        case .rtmp: "flv"
        case .srt: "mpegts"
        case .rtsp: "rtsp"
        }
    }

    /// Options for the muxer and the protocol: a live stream has no duration or size to go back for; RTSP over TCP.
    var options: [(String, String)] {
        switch kind {
        case .rtmp: [("flvflags", "no_duration_filesize")]
        case .srt: [("flush_packets", "1")]
        case .rtsp: [("rtsp_transport", "tcp")]
        }
    }
}
