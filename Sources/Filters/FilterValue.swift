import Pixels

/// Reading the numbers after a filter's `=`, with errors that say what would work.
enum FilterValue {
    /// One number in `range`; `meaning` says what it is ("the blur's sigma in pixels").
    static func number(_ text: String?, filter: String, range: ClosedRange<Float>, meaning: String) throws -> Float {
        guard let text, let value = Float(text.trimmingCharacters(in: .whitespaces)), value.isFinite, range.contains(value) else {
            throw FilterError("\(filter)=\(excerpt(text ?? "")): \(meaning) must be a number from \(format(range.lowerBound)) to \(format(range.upperBound))")
        }
        return value
    }

    /// Comma-separated numbers, every one finite.
    static func numbers(_ text: String, filter: String, expected: String) throws -> [Float] {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        let values = parts.map { Float($0) }
        guard !parts.isEmpty, values.allSatisfy({ $0 != nil && $0!.isFinite }) else {
            throw FilterError("\(filter)=\(excerpt(text)): expected \(expected)")
        }
        return values.map { $0! }
    }

    /// `value` without a trailing ".0".
    static func format(_ value: Float) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : "\(value)"
    }
}
