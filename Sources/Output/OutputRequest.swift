import Foundation
import Messages
import Pixels

/// What one `-o` names, told by its form as ffmpeg does (`SinkRegistry`):
/// a whole name (`kms`), a URL's scheme, a file's extension (`.png`, `.y4m`,
/// `.jpg`, `.mp4`, ...), `%d` for a numbered sequence, and `-` for standard
/// output. A FIFO or a device takes the stream's format unless its name says
/// otherwise. A name whose form no sink takes (a file name without an
/// extension among them) is refused with the forms that work.
public struct OutputRequest: Equatable, CustomStringConvertible {
    /// The name as given: a path, a pattern, a URL, `kms`.
    public let name: String
    /// The sink kind that writes it.
    public let kind: SinkKind.Type
    /// The path or numbered pattern, for outputs that are files or streams.
    public let pattern: OutputPattern?

    /// What a stream (`-`, a FIFO, a device) carries.
    public enum StreamFormat: String, CaseIterable, Sendable {
        case png, y4m
    }

    /// The forms `-o` takes, for messages.
    public static var forms: String {
        SinkRegistry.kinds.map { $0.forms.help }.joined(separator: ", ") + ", or - (standard output: PNG images, or Y4M with \(Setting.stream) y4m)"
    }

    public init(parsing text: String, stream: StreamFormat = .png) throws {
        name = text
        let kinds = SinkRegistry.kinds
        if let kind = kinds.first(where: { $0.forms.names.contains(text) }) {
            (self.kind, pattern) = (kind, nil)
            return
        }
        if let range = text.range(of: "://"), !text[..<range.lowerBound].contains("/") {
            let scheme = text[..<range.lowerBound].lowercased()
            guard let kind = kinds.first(where: { $0.forms.schemes.contains(scheme) }) else {
                throw OutputError("\(excerpt(text)): Kamera does not write to \(excerpt(scheme, limit: 10)):// addresses; it writes \(Self.forms)")
            }
            (self.kind, pattern) = (kind, nil)
            return
        }
        if Self.isVideoDevice(text), let kind = kinds.first(where: { $0.forms.videoDevices }) {
            // A V4L2 node, or a name of one (the sink says how to make it when it is missing).
            (self.kind, pattern) = (kind, nil)
            return
        }
        let pattern = try OutputPattern(text)
        self.pattern = pattern
        let ext = fileExtension(text).lowercased()
        if let kind = kinds.first(where: { $0.forms.extensions.contains(ext) }) {
            if pattern.isSequence && !kind.forms.sequences {
                throw OutputError("\(excerpt(text)): a \(kind.forms.name) is one file; leave %d out of its name")
            }
            self.kind = kind
        } else if Self.isStream(text), let kind = kinds.first(where: { $0.forms.stream == stream }) {
            // A FIFO or a device takes the stream's format, whatever its name.
            self.kind = kind
        } else if ext.isEmpty, Self.isFolder(text), let kind = kinds.first(where: { $0.forms.extensions.contains("png") }) {
            // A folder: the PNG writer's checks refuse it, naming a file in it.
            self.kind = kind
        } else if ext.isEmpty {
            // As ffmpeg: a name that says no format is not given one (`-o mjpeg` wrote a PNG named mjpeg).
            throw OutputError("\(excerpt(text)): the name has no extension, so it says no format; Kamera writes \(Self.forms)")
        } else {
            let video = ["avi", "h264", "264", "hevc", "ivf", "ts", "flv"].contains(ext)
            throw OutputError("\(excerpt(text)): Kamera does not write .\(excerpt(ext, limit: 10)) files; it writes \(Self.forms)"
                + (video ? "; for other containers, pipe Y4M to an encoder: \(Setting.output) - \(Setting.stream) y4m | ffmpeg -i - \(excerpt(text))" : ""))
        }
    }

    /// True when `text` names a folder (a PNG's checks then say so, and name a file in it).
    static func isFolder(_ text: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: text, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// True for `/dev/videoN`, and any character device of V4L2's (major 81).
    static func isVideoDevice(_ text: String) -> Bool {
        if text.hasPrefix("/dev/video"), !text.dropFirst(10).isEmpty, text.dropFirst(10).allSatisfy(\.isNumber) { return true }
        var info = stat()
        return stat(text, &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR && (info.st_rdev >> 8) & 0xFFF | (info.st_rdev >> 32) & ~0xFFF == 81
    }

    /// True for `-`, FIFOs and devices: written in place, frame after frame.
    static func isStream(_ text: String) -> Bool {
        if OutputFile.isStandardOutput(text) { return true }
        if (try? OutputFile.kind(of: text))?.isInPlace == true { return true }
        return false
    }

    /// True when this output is written by sinks of `kind`.
    public func isWritten(by kind: SinkKind.Type) -> Bool { self.kind == kind }

    /// True when the frames go to standard output.
    public var isStandardOutput: Bool { pattern != nil && OutputFile.isStandardOutput(name) }

    public var description: String { "\(kind.forms.name) \(name)" }

    public static func == (a: OutputRequest, b: OutputRequest) -> Bool {
        a.name == b.name && a.kind == b.kind && a.pattern == b.pattern
    }
}
