import CommandLineSupport
import Filters
import Foundation
import Pixels
import Pipeline
import Render

/// The sources of a run in the order the command line gives them
/// (`--camera`, `-d`, `--device`, `--input`, `-i`), each with the `--filter`s
/// after it up to the next source; filters before the first source are the
/// first's. Read from the arguments themselves: the parser keeps options,
/// not their order.
struct SourceArgument: Equatable {
    var camera: Bool
    var value: String
    var filters: [String] = []

    /// `--input pattern:` names the test pattern, for a layout that shows it beside other sources.
    static let testPattern = "pattern:"

    static func scan(_ arguments: [String]) -> [SourceArgument] {
        var sources: [SourceArgument] = [], early: [String] = []
        var i = 1
        while i < arguments.count {
            let argument = arguments[i]
            if argument == "--" { break }
            let parts = argument.hasPrefix("--") ? argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init) : [argument]
            let name = parts[0]
            let kind: Int? = ["--input", "-i"].contains(name) ? 0 : ["--camera", "-d", "--device"].contains(name) ? 1 : name == "--filter" ? 2 : nil
            guard let kind else {
                i += 1
                continue
            }
            let value: String
            if parts.count == 2 {
                value = parts[1]
            } else {
                i += 1
                guard i < arguments.count else { break }
                value = arguments[i]
            }
            if kind == 2 {
                if sources.isEmpty { early.append(value) } else { sources[sources.count - 1].filters.append(value) }
            } else {
                sources.append(SourceArgument(camera: kind == 1, value: value))
            }
            i += 1
        }
        if !sources.isEmpty { sources[0].filters = early + sources[0].filters }
        return sources
    }
}

extension PipelineOptions {
    /// The sources after the first, with their filters, when several are
    /// given; the first's filters replace `--filter`'s list in `settings`.
    func composition(_ arguments: [String], first: SourceOptions, settings: inout RenderSettings) throws
        -> (sources: [Composition.Source], layout: CompositionLayout)? {
        let given = SourceArgument.scan(arguments)
        guard given.count > 1 else {
            if layout != nil || pipCorner != nil || pipSize != nil {
                throw UsageError("--layout, --pip-corner and --pip-size compose several sources; add another --input or --camera")
            }
            return nil
        }
        guard given.count <= CompositionLayout.mostSources else {
            throw UsageError("\(given.count) sources given; a layout composes at most \(CompositionLayout.mostSources)")
        }
        if cube { throw UsageError("--cube draws one source; leave out the others, or --cube for a layout of several") }
        let layout = try compositionLayout()
        settings.filters = try FilterChain(parsing: given[0].filters, intensity: Float(intensity))
        let sources = try given.dropFirst().map { argument -> Composition.Source in
            let name = argument.camera ? "--camera" : "--input"
            if argument.value.isEmpty { throw UsageError("\(name) is empty; give \(argument.camera ? "a device such as /dev/video0" : "a file, or \(SourceArgument.testPattern) for the test pattern")") }
            var options = SourceOptions(input: argument.camera || argument.value == SourceArgument.testPattern ? nil : argument.value,
                                        colorSpace: first.colorSpace, rate: first.rate)
            options.allowDamaged = first.allowDamaged
            if argument.camera {
                options.camera = argument.value
                options.cameraRate = first.cameraRate
            }
            return Composition.Source(options: options, filters: try FilterChain(parsing: argument.filters, intensity: Float(intensity)))
        }
        return (sources, layout)
    }

    /// `--layout` (side by default), `--pip-corner` and `--pip-size`.
    func compositionLayout() throws -> CompositionLayout {
        switch (layout ?? "side").lowercased() {
        case "side", "grid":
            guard pipCorner == nil && pipSize == nil else { throw UsageError("--pip-corner and --pip-size place the picture in picture; add --layout pip") }
            return layout?.lowercased() == "grid" ? .grid : .side
        case "pip":
            let corner = pipCorner ?? "bottom-right"
            guard let place = CompositionLayout.Corner(rawValue: corner.lowercased()) else {
                throw UsageError("--pip-corner \(excerpt(corner)) is not valid; use \(CompositionLayout.Corner.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let text = (pipSize ?? "30%").trimmingCharacters(in: .whitespaces)
            let share = text.hasSuffix("%") ? Double(text.dropLast()).map { $0 / 100 } : Double(text)
            guard let share, share >= 0.05, share <= 0.9 else {
                throw UsageError("--pip-size \(excerpt(text)) is not valid; give a share of the output's width from 5% to 90%, such as 30% or 0.3")
            }
            return .pip(corner: place, size: share)
        default:
            throw UsageError("--layout \(excerpt(layout ?? "")) is not valid; use side, grid or pip")
        }
    }
}
