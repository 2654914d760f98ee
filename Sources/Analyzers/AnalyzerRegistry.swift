import Analysis
import Detection
import Foundation
import Pixels

/// Every kind of analyser a run can be asked for, statistics and detectors alike.
public enum AnalyzerRegistry {
    public static let kinds: [AnalyzerKind] = [
        LumaAnalyzer.kind,
        MotionAnalyzer.kind,
        ObjectDetector.kind,
    ]

    public static func kind(named name: String) -> AnalyzerKind? { kinds.first { $0.name == name } }

    /// The kinds named without values (`luma`), for messages.
    public static var validNames: String { kinds.filter { !$0.takesValues }.map(\.name).joined(separator: ", ") }

    /// The analysers named in `names` (each comma-separated) that need no
    /// values; throws naming the valid ones.
    public static func requests(named names: [String]) throws -> [AnalyzerRequest] {
        var seen: [String] = []
        return try names.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { part in
            let name = part.trimmingCharacters(in: .whitespaces).lowercased()
            guard let kind = kind(named: name), !kind.takesValues else {
                throw AnalysisError("no analyser '\(excerpt(name))'; valid analysers: \(validNames)")
            }
            guard !seen.contains(name) else { throw AnalysisError("the analyser \(name) is named twice; name each once") }
            seen.append(name)
            return try kind.request([])
        }
    }
}
