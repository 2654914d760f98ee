import Foundation
import Pixels

extension ColorMatrix {
    /// A matrix from comma-separated numbers or from a JSON file
    /// (`{"matrix": [[...], ...], "offset": [...]}` or a flat `"matrix": [...]`).
    public init(parsing value: String) throws {
        let numbers = value.split(separator: ",", omittingEmptySubsequences: false).map { Float($0.trimmingCharacters(in: .whitespaces)) }
        if !numbers.isEmpty, numbers.allSatisfy({ $0 != nil }) {
            self = try Self.matrix(from: numbers.map { $0! }, offset: nil, source: "matrix=\(excerpt(value))")
            return
        }
        let path = value.hasPrefix("@") ? String(value.dropFirst()) : value
        guard FileManager.default.fileExists(atPath: path) else {
            throw FilterError("matrix=\(excerpt(value)): not a list of 9, 12, 16 or 20 comma-separated numbers, and no JSON file '\(excerpt(path))' exists")
        }
        let data = try SmallFile.read(path)
        if let problem = MatrixJSONCheck.problem(in: data) { throw FilterError("\(path): \(problem)") }
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
        self = try Self.matrix(from: flat.map { $0! }, offset: offset?.map { $0! }, source: path)
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

}
