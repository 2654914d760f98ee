import Foundation
import Messages
import Pixels

/// An ordered list of filters, as the user gave them (`--filter sepia --filter blur=2`).
public struct FilterChain: Equatable {
    public var filters: [any Filter]

    public init(_ filters: [any Filter] = []) { self.filters = filters }

    /// Parses each `--filter` argument; `intensity` (0...1) mixes every color
    /// matrix with its input, as GPUImage's color-matrix filter does.
    public init(parsing arguments: [String], intensity: Float = 1) throws {
        guard (0...1).contains(intensity) else {
            throw FilterError("intensity \(intensity) is out of range; use a value from 0 to 1")
        }
        filters = try arguments.map { try Self.parse($0, intensity: intensity) }
        if foldedMatrices.contains(where: { !$0.isFinite }) {
            throw FilterError("the color matrices of the chain multiply to values beyond a float's range; use smaller coefficients")
        }
    }

    public static func == (a: FilterChain, b: FilterChain) -> Bool {
        a.filters.count == b.filters.count && zip(a.filters, b.filters).allSatisfy { $0.isEqual(to: $1) }
    }

    public var summary: String { filters.isEmpty ? "none" : filters.map(\.name).joined(separator: " → ") }

    /// The filters with each run of consecutive color matrices multiplied
    /// into one (named by their names joined with `+`), a run that comes to
    /// the identity dropped. The product skips the clamp to 0...1 between
    /// matrices, as Core Image's extended-range working space does.
    public var folded: [any Filter] {
        var result: [any Filter] = []
        var run: [any Filter] = []
        func flush() {
            defer { run.removeAll() }
            guard let first = run.first?.colorMatrix else { return }
            let matrix = run.dropFirst().reduce(first) { $0.then($1.colorMatrix!) }
            if matrix.isIdentity { return }
            result.append(run.count == 1 ? run[0] : ColorMatrixFilter(name: run.map(\.name).joined(separator: "+"), matrix: matrix))
        }
        for filter in filters {
            if filter.colorMatrix != nil {
                run.append(filter)
                continue
            }
            flush()
            result.append(filter)
        }
        flush()
        return result
    }

    /// True when a filter follows the faces found in each frame (`@faces`).
    public var followsFaces: Bool { filters.contains { ($0 as? RegionFilter)?.region.followsFaces == true } }

    /// The matrix of each run of consecutive color matrices (see `folded`).
    public var foldedMatrices: [ColorMatrix] { folded.compactMap(\.colorMatrix) }

    /// One `--filter` argument: a registered name (`sepia`, `blur=5`), a
    /// `.frag` file, either followed by `@x,y,w,h[~F]` to limit it to a region.
    public static func parse(_ argument: String, intensity: Float = 1) throws -> any Filter {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if let (filterText, regionText) = RegionFilter.split(text) {
            if RegionFilter.split(filterText) != nil {
                throw FilterError("\(excerpt(text)): a filter takes one region; give the filter again for another")
            }
            let region = try FilterRegion(parsing: regionText, filter: filterText)
            return RegionFilter(try parse(filterText, intensity: intensity), region: region)
        }
        if text.hasSuffix(".frag") { return try CustomShaderFilter(path: text) }
        // `=@FILE` names a file (matrix=@colors.json); any other '@' starts a region.
        if let at = text.lastIndex(of: "@"), at > text.startIndex, text[text.index(before: at)] != "=" {
            let filter = excerpt(String(text[..<at]))
            throw FilterError("\(excerpt(text)): '@\(excerpt(String(text[text.index(after: at)...])))' is not a region; use \(filter)@faces (the faces \(Setting.detect) faces finds), \(filter)@faces~8 (a soft edge) or \(filter)@x,y,w,h (pixels or percent)")
        }
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0].lowercased()
        guard !name.isEmpty else {
            throw FilterError("a filter needs a name before any '='; valid filters: \(FilterRegistry.validNames)")
        }
        guard let kind = FilterRegistry.kind(named: name) else {
            throw FilterError("unknown filter '\(excerpt(text))'; valid filters: \(FilterRegistry.validNames)")
        }
        if parts.count == 1 && kind.takesValue {
            throw FilterError("filter '\(name)' needs a value: \(kind.usage) (\(kind.summary))")
        }
        if parts.count == 2 && !kind.takesValue {
            throw FilterError("filter '\(name)' takes no value; write it as \(name) (\(kind.summary))")
        }
        return try kind.make(parts.count == 2 ? parts[1] : nil, intensity)
    }
}
