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

/// An analyser that finds things in the picture (faces, codes): its
/// results are `DetectedObjects`, which `DetectionOverlay` draws and
/// `CodeScanner` prints.
public protocol ObjectFinder: FrameAnalyzer {
    /// Hears, on the analysis thread, what is worth a warning (a picture whose codes were lost).
    var onNote: ((String) -> Void)? { get set }
}

/// What an analyser finds, for the checks that span a run's options:
/// filters that follow faces need faces found; printing codes needs codes.
public struct Findings: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let faces = Findings(rawValue: 1)
    public static let codes = Findings(rawValue: 2)
}

/// An analyser a run is asked for: what it finds, and how to make it when
/// the run is built (a detector loads its models then).
public struct AnalyzerRequest {
    /// Its kind's name: `luma`, `objects`.
    public let name: String
    /// What it finds in the picture; empty for statistics of the frame.
    public let finds: Findings
    public let make: () throws -> FrameAnalyzer

    public init(name: String, finds: Findings = [], make: @escaping () throws -> FrameAnalyzer) {
        (self.name, self.finds, self.make) = (name, finds, make)
    }
}

/// A kind of analyser: its name, a line for help, and how a request for it
/// is made from what it was asked to look for (`faces`, `codes=qr`; nothing
/// for statistics). A new analyser is one file holding it and its kind, and
/// one line in `AnalyzerRegistry.kinds`.
public struct AnalyzerKind: Sendable {
    public let name: String
    public let summary: String
    /// True when the kind needs to be told what to look for.
    public let takesValues: Bool
    /// The request, from its values; throws naming the values that work.
    public let request: @Sendable ([String]) throws -> AnalyzerRequest

    public init(name: String, summary: String, takesValues: Bool = false, request: @escaping @Sendable ([String]) throws -> AnalyzerRequest) {
        (self.name, self.summary, self.takesValues, self.request) = (name, summary, takesValues, request)
    }
}
