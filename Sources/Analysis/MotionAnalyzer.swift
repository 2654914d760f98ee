import Output
import Render

/// `--analyze motion` (also `--detect motion`): each analysed frame's motion
/// (`MotionDetector`), its box placed on the output.
public final class MotionAnalyzer: FrameAnalyzer {
    public let name = "motion"
    public let detector: MotionDetector

    public init(_ settings: MotionDetector.Settings = .init()) {
        detector = MotionDetector(settings)
    }

    public static let kind = AnalyzerKind(name: "motion", summary: "what moved: the share of the picture changed against a slowly following reference, its largest region's box") { _ in
        AnalyzerRequest(name: "motion") { MotionAnalyzer() }
    }

    public func analyze(_ image: LumaImage) -> any AnalysisResult {
        var measure = detector.measure(image)
        if let box = measure.box, let geometry = image.geometry { measure.outputBox = geometry.outputBox(box) }
        return measure
    }
}
