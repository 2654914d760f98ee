import Foundation
import Pixels

/// An ordered list of filters, as the user gave them (`--filter sepia --filter contrast=1.3`).
public struct FilterChain: Equatable {
    public var filters: [Filter]

    public init(_ filters: [Filter] = []) { self.filters = filters }

    /// Parses each `--filter` argument; `intensity` (0...1) mixes every color
    /// matrix with its input, as GPUImage's color-matrix filter does.
    public init(parsing arguments: [String], intensity: Float = 1) throws {
        guard (0...1).contains(intensity) else {
            throw FilterError("intensity \(intensity) is out of range; use a value from 0 to 1")
        }
        filters = try arguments.map { try Self.parse($0, intensity: intensity) }
        for case .colorMatrix(let m) in stages where !m.isFinite {
            throw FilterError("the color matrices of the chain multiply to values beyond a float's range; use smaller coefficients")
        }
    }

    /// The render passes: runs of consecutive color matrices folded into one
    /// matrix each (a chain of N matrices costs one pass); identity matrices dropped.
    ///
    /// Folding skips the clamp to 0...1 between matrices, as Core Image's
    /// extended-range working space does, so a folded chain keeps detail that
    /// per-pass clamping would lose.
    public var stages: [FilterStage] {
        var stages: [FilterStage] = []
        var pending: ColorMatrix?
        func flush() {
            if let m = pending, !m.isIdentity { stages.append(.colorMatrix(m)) }
            pending = nil
        }
        for filter in filters {
            switch filter {
            case .colorMatrix(_, let m): pending = (pending ?? .identity).then(m)
            case .pixellate(let n): flush(); stages.append(.pixellate(blockSize: n))
            case .shader(let s): flush(); stages.append(.shader(s))
            }
        }
        flush()
        return stages
    }

    public var summary: String { filters.isEmpty ? "none" : filters.map(\.name).joined(separator: " → ") }

    public static func parse(_ argument: String, intensity: Float = 1) throws -> Filter {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if text.hasSuffix(".frag") { return .shader(try loadShader(text)) }
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0].lowercased()
        guard !name.isEmpty else {
            throw FilterError("a filter needs a name before any '='; valid filters: \(FilterPresets.validNames)")
        }
        if parts.count == 1 {
            if let preset = FilterPresets.preset(named: name) {
                return .colorMatrix(name, preset.matrix.mixed(intensity: intensity))
            }
            if FilterPresets.adjustment(named: name) != nil || name == "pixellate" || name == "matrix" {
                throw FilterError("filter '\(name)' needs a value, e.g. \(name)=\(name == "matrix" ? "FILE.json" : name == "hue" ? "30" : name == "pixellate" ? "8" : "1.2")")
            }
            throw FilterError("unknown filter '\(excerpt(text))'; valid filters: \(FilterPresets.validNames)")
        }
        let value = parts[1]
        if let adjustment = FilterPresets.adjustment(named: name) {
            guard let v = Float(value), adjustment.range.contains(v) else {
                throw FilterError("\(name)=\(excerpt(value)): the value must be a number from \(adjustment.range.lowerBound) to \(adjustment.range.upperBound) (\(adjustment.summary))")
            }
            return .colorMatrix("\(name)=\(value)", adjustment.make(v).mixed(intensity: intensity))
        }
        switch name {
        case "pixellate":
            guard let n = Int(value), (1...512).contains(n) else {
                throw FilterError("pixellate=\(excerpt(value)): the block size must be a whole number of pixels from 1 to 512")
            }
            return .pixellate(blockSize: n)
        case "matrix":
            return .colorMatrix("matrix", try parseMatrix(value).mixed(intensity: intensity))
        default:
            throw FilterError("unknown filter '\(excerpt(text))'; valid filters: \(FilterPresets.validNames)")
        }
    }

    /// A matrix from comma-separated numbers or from a JSON file
    /// (`{"matrix": [[...], ...], "offset": [...]}` or a flat `"matrix": [...]`).
    public static func parseMatrix(_ value: String) throws -> ColorMatrix {
        let numbers = value.split(separator: ",", omittingEmptySubsequences: false).map { Float($0.trimmingCharacters(in: .whitespaces)) }
        if !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) {
            return try matrix(from: numbers.map { $0! }, offset: nil, source: "matrix=\(excerpt(value))")
        }
        let path = value.hasPrefix("@") ? String(value.dropFirst()) : value
        guard FileManager.default.fileExists(atPath: path) else {
            throw FilterError("matrix=\(excerpt(value)): not a list of 9, 12, 16 or 20 comma-separated numbers, and no JSON file '\(excerpt(path))' exists")
        }
        let data = try readSmallFile(path)
        guard let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let m = json["matrix"] as? [Any] else {
            throw FilterError("\(path): expected JSON like {\"matrix\": [[1,0,0,0],[0,1,0,0],[0,0,1,0],[0,0,0,1]], \"offset\": [0,0,0,0]}")
        }
        let rows = m.compactMap { $0 as? [Any] }
        if !rows.isEmpty {
            // Rows: 3 of 3 or 4 numbers, or 4 of 4 or 5, all the same length.
            let shapes = [[3, 3], [3, 4], [4, 4], [4, 5]]
            guard rows.count == m.count, shapes.contains([rows.count, rows[0].count]), rows.allSatisfy({ $0.count == rows[0].count }) else {
                throw FilterError("\(path): the matrix rows must be 3 rows of 3 or 4 numbers, or 4 rows of 4 or 5, all the same length")
            }
        }
        let flat = m.flatMap { ($0 as? [Any]) ?? [$0] }.map { ($0 as? NSNumber)?.floatValue }
        let offset = (json["offset"] as? [Any])?.map { ($0 as? NSNumber)?.floatValue }
        guard flat.allSatisfy({ $0 != nil }), offset?.allSatisfy({ $0 != nil }) ?? true else {
            throw FilterError("\(path): the matrix and offset must hold numbers only")
        }
        return try matrix(from: flat.map { $0! }, offset: offset?.map { $0! }, source: path)
    }

    private static func matrix(from n: [Float], offset: [Float]?, source: String) throws -> ColorMatrix {
        guard (n + (offset ?? [])).allSatisfy(\.isFinite) else {
            throw FilterError("\(source): every number must be finite (no nan or inf, nothing beyond ±3.4e38)")
        }
        if let offset, offset.count != 3 && offset.count != 4 {
            throw FilterError("\(source): the offset needs 3 or 4 numbers, got \(offset.count)")
        }
        var o = offset ?? []
        while o.count < 4 { o.append(0) }
        switch n.count {
        case 9:
            return ColorMatrix(rowMajor: [n[0], n[1], n[2], 0, n[3], n[4], n[5], 0, n[6], n[7], n[8], 0, 0, 0, 0, 1], offset: o)
        case 12:
            return ColorMatrix(rowMajor: [n[0], n[1], n[2], 0, n[4], n[5], n[6], 0, n[8], n[9], n[10], 0, 0, 0, 0, 1],
                               offset: [n[3], n[7], n[11], 0])
        case 16:
            return ColorMatrix(rowMajor: n, offset: o)
        case 20:
            return ColorMatrix(rowMajor: [n[0], n[1], n[2], n[3], n[5], n[6], n[7], n[8], n[10], n[11], n[12], n[13], n[15], n[16], n[17], n[18]],
                               offset: [n[4], n[9], n[14], n[19]])
        default:
            throw FilterError("\(source): a matrix needs 9, 12, 16 or 20 numbers, got \(n.count)")
        }
    }

    private static func loadShader(_ path: String) throws -> CustomShader {
        CustomShader(path: path, body: try ShaderPreprocessor().load(path))
    }

    /// The largest shader or matrix file read: these are hand-written texts.
    static let fileLimit = 1 << 20

    /// A file's bytes, refusing folders, missing files and files over `fileLimit`.
    static func readSmallFile(_ path: String) throws -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FilterError("\(excerpt(path)): no such file; check the name") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw FilterError("\(excerpt(path)): not a regular file") }
        guard info.st_size <= fileLimit else {
            throw FilterError("\(excerpt(path)): \(info.st_size) bytes is too large for a filter or shader file (at most 1 MiB)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FilterError("\(excerpt(path)): cannot read: \(String(cString: strerror(errno)))")
        }
        return data
    }
}
