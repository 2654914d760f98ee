import Foundation

/// Why a matrix JSON file is not what Kamera reads, in words, where a JSON
/// parser would only say "invalid" or would quietly take a value: NaN and
/// Infinity (not JSON), numbers beyond a float, nesting deeper than rows of
/// numbers, and a key given twice (a parser keeps one of them silently).
enum MatrixJSONCheck {
    /// The first problem found, or nil when the text is plain enough to parse.
    static func problem(in data: Data) -> String? {
        let bytes = [UInt8](data)
        var depth = 0, deepest = 0, i = 0
        var keys: [Int: Set<String>] = [:]
        var objectDepths: [Int] = []
        while i < bytes.count {
            let c = bytes[i]
            switch c {
            case UInt8(ascii: "\""):
                var j = i + 1
                while j < bytes.count && bytes[j] != UInt8(ascii: "\"") { j += bytes[j] == UInt8(ascii: "\\") ? 2 : 1 }
                let text = String(decoding: bytes[(i + 1)..<min(j, bytes.count)], as: UTF8.self)
                var k = j + 1
                while k < bytes.count && (bytes[k] == 0x20 || bytes[k] == 0x0A || bytes[k] == 0x0D || bytes[k] == 0x09) { k += 1 }
                if k < bytes.count && bytes[k] == UInt8(ascii: ":"), let object = objectDepths.last {
                    if keys[object, default: []].contains(text) { return "the key \"\(text)\" is given twice; give each key once" }
                    keys[object, default: []].insert(text)
                }
                i = j + 1
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = max(deepest, depth)
                if c == UInt8(ascii: "{") { objectDepths.append(depth); keys[depth] = [] }
                if depth > 4 { return "nested \(depth) deep; a matrix is a list of numbers or of rows of numbers" }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if c == UInt8(ascii: "}"), objectDepths.last == depth { objectDepths.removeLast() }
                depth -= 1
            case UInt8(ascii: "N"), UInt8(ascii: "I"):
                return "NaN and Infinity are not JSON numbers, and a matrix needs finite ones"
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var j = i
                while j < bytes.count, "0123456789+-.eE".utf8.contains(bytes[j]) { j += 1 }
                let token = String(decoding: bytes[i..<j], as: UTF8.self)
                if let value = Double(token), !Float(value).isFinite || !value.isFinite {
                    return "the number \(token) is beyond what a matrix holds (±3.4e38)"
                }
                i = j
                continue
            default: break
            }
            i += 1
        }
        return nil
    }
}
