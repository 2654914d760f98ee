import Output
import Pixels
import Render

/// A frame's luma as the analysers get it: one byte a pixel, rows tight, a
/// copy made for them (the frame's own memory goes back to its source).
public struct LumaImage {
    public let width: Int
    public let height: Int
    public let pixels: UnsafeBufferPointer<UInt8>
    /// How the codes map to light: limited range puts black at 16 and white at 235.
    public let range: YUVColorSpace.Range
    /// The frame's time in seconds (its metadata timestamp).
    public var time: Double
    /// Where the frame's pixels land on the output; nil for the cube.
    public var geometry: OutputGeometry?

    public init(width: Int, height: Int, pixels: UnsafeBufferPointer<UInt8>, range: YUVColorSpace.Range, time: Double = 0,
                geometry: OutputGeometry? = nil) {
        precondition(pixels.count >= width * height)
        (self.width, self.height, self.pixels, self.range, self.time, self.geometry) = (width, height, pixels, range, time, geometry)
    }
}

/// Work on the CPU copy of a frame, on the analysis thread (`FrameAnalysis`):
/// statistics, and detectors. A new analyser is one file holding it and its
/// `AnalyzerKind`, and one line in `AnalyzerRegistry.kinds`.
public protocol FrameAnalyzer: AnyObject {
    /// The key of its results in metadata: "luma".
    var name: String { get }
    /// What it finds in one frame; an error ends the run.
    func analyze(_ image: LumaImage) throws -> any AnalysisResult
}

/// An analyser users can name (`--analyze luma`).
public struct AnalyzerKind: Sendable {
    public let name: String
    public let summary: String
    public let make: @Sendable () -> FrameAnalyzer

    public init(name: String, summary: String, make: @escaping @Sendable () -> FrameAnalyzer) {
        (self.name, self.summary, self.make) = (name, summary, make)
    }
}

/// Every analyser users can name.
public enum AnalyzerRegistry {
    public static let kinds: [AnalyzerKind] = [LumaAnalyzer.kind]

    public static func kind(named name: String) -> AnalyzerKind? { kinds.first { $0.name == name } }

    public static var validNames: String { kinds.map(\.name).joined(separator: ", ") }

    /// The analysers named in `text` (comma-separated); throws naming the valid ones.
    public static func analyzers(_ names: [String]) throws -> [FrameAnalyzer] {
        var seen: [String] = []
        return try names.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { part in
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            guard let kind = kind(named: name) else {
                throw PipelineError("no analyser '\(excerpt(name))'; valid analysers: \(validNames)")
            }
            guard !seen.contains(name) else { throw PipelineError("the analyser \(name) is named twice; name each once") }
            seen.append(name)
            return kind.make()
        }
    }
}
