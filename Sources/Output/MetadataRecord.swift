import Foundation

/// What an analyser found in one frame, as one JSON object.
public protocol AnalysisResult: Sendable {
    /// The result as a JSON object, on one line, the same for the same frame on every run.
    var json: String { get }
}

/// The results of the analysers for one frame: the frame's number in the
/// run, its sequence number and timestamp from the source (the driver's for
/// a camera; for files and the test pattern, the frame's time at its rate).
public struct MetadataRecord: Sendable {
    /// The frame's number in the run, from 0 (the number in a PNG sequence's names).
    public var frame: Int
    /// The source's sequence number of the frame.
    public var sequence: UInt64
    /// Seconds: the driver's monotonic capture time for a camera, the frame's time for files and the test pattern.
    public var timestamp: Double
    /// Each analyser's name and result, in the order given.
    public var results: [(name: String, result: any AnalysisResult)]

    public init(frame: Int, sequence: UInt64, timestamp: Double, results: [(name: String, result: any AnalysisResult)] = []) {
        self.frame = frame
        self.sequence = sequence
        self.timestamp = timestamp
        self.results = results
    }

    /// One line of JSON: `{"frame": N, "sequence": N, "timestamp": S, "luma": {...}}`.
    public var json: String {
        var line = "{\"frame\": \(frame), \"sequence\": \(sequence), \"timestamp\": \(JSONNumber.format(timestamp, decimals: 6))"
        for (name, result) in results { line += ", \"\(name)\": \(result.json)" }
        return line + "}"
    }

    /// The result of the type asked for, when its analyser ran on this frame.
    public func result<Result: AnalysisResult>(_ type: Result.Type) -> Result? {
        results.lazy.compactMap { $0.result as? Result }.first
    }
}

/// Numbers in JSON as the metadata writes them: fixed decimals, no exponent, trailing zeros dropped.
public enum JSONNumber {
    public static func format(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "null" }
        var text = String(format: "%.\(decimals)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text == "-0" ? "0" : text
    }
}

/// Strings in JSON as the metadata writes them: quoted, with quotes,
/// backslashes and control characters escaped (a code's value is any bytes
/// its maker chose).
public enum JSONText {
    public static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
