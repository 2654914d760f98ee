import Foundation
import Pixels

/// What `-o` names, told by its form as ffmpeg does: `kms` the console's
/// display, `.png` names and `%d` patterns PNG, `.y4m` YUV4MPEG2, `-`
/// standard output (PNG images one after another, or Y4M with `--stream y4m`).
/// A FIFO or a device takes the stream's format (`--stream`) unless its name
/// ends in `.png` or `.y4m`; a new name without an extension, PNG.
/// `.mp4`, `.mov`, `.mkv` and `.webm` are video (`VideoRecording`), `.jpg`
/// and `.jpeg` JPEG stills. A name whose extension Kamera does not write is refused.
public enum OutputRequest: Equatable, Sendable {
    case display
    case png(OutputPattern)
    case y4m(OutputPattern)
    case jpeg(OutputPattern)
    /// A video file, its container told by the extension.
    case video(String)

    /// What a stream (`-`, a FIFO, a device) carries.
    public enum StreamFormat: String, CaseIterable, Sendable {
        case png, y4m
    }

    /// The forms `-o` takes, for messages.
    public static let forms = "NAME.png, a sequence NAME-%03d.png, NAME.jpg, NAME.y4m, a video NAME.mp4|.mov|.mkv|.webm, kms (the console's display), or - (standard output: PNG images, or Y4M with --stream y4m)"

    public init(parsing text: String, stream: StreamFormat = .png) throws {
        if text == "kms" {
            self = .display
            return
        }
        let pattern = try OutputPattern(text)
        let ext = fileExtension(text).lowercased()
        switch ext {
        case "png": self = .png(pattern)
        case "y4m": self = .y4m(pattern)
        case "jpg", "jpeg": self = .jpeg(pattern)
        case _ where VideoContainer(fileExtension: ext) != nil:
            if pattern.isSequence { throw OutputError("\(excerpt(text)): a video is one file; leave %d out of its name") }
            self = .video(text)
        case _ where Self.isStream(text):
            // A FIFO or a device takes the stream's format, whatever its name.
            self = stream == .y4m ? .y4m(pattern) : .png(pattern)
        case "":
            self = .png(pattern)
        default:
            let video = ["avi", "h264", "264", "hevc", "ivf", "ts", "flv"].contains(ext)
            throw OutputError("\(excerpt(text)): Kamera does not write .\(excerpt(ext, limit: 10)) files; it writes \(Self.forms)"
                + (video ? "; for other containers, pipe Y4M to an encoder: -o - --stream y4m | ffmpeg -i - \(excerpt(text))" : ""))
        }
    }

    /// True for `-`, FIFOs and devices: written in place, frame after frame.
    static func isStream(_ text: String) -> Bool {
        if OutputFile.isStandardOutput(text) { return true }
        if (try? OutputFile.kind(of: text))?.isInPlace == true { return true }
        return false
    }

    /// The path or pattern, or `kms`.
    public var name: String {
        switch self {
        case .display: "kms"
        case .png(let p), .y4m(let p), .jpeg(let p): p.pattern
        case .video(let path): path
        }
    }

    /// True when the frames go to standard output.
    public var isStandardOutput: Bool { OutputFile.isStandardOutput(name) }
}
