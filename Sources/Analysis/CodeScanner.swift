import Glibc
import Output

/// `--detect codes` on standard output, as a scanner: each code printed once
/// when it comes into view (`qr https://...`), as zbarcam reports a code held
/// in view once, not every frame; control characters in a value are escaped
/// so that a line is a code. With `once`, the first code's value alone, as it
/// reads, for scripts (`code=$(kamera ... --once)`), and the run ends.
public final class CodeScanner {
    public let once: Bool
    /// True once a code was printed.
    public private(set) var found = false

    public enum Outcome { case more, done }

    public init(once: Bool) { self.once = once }

    /// Prints the new codes of `record`, on the analysis thread; throws when
    /// standard output takes no more (a full disk, a closed pipe): the codes
    /// are the run's result, and a run that lost them must not succeed.
    public func take(_ record: MetadataRecord) throws -> Outcome {
        guard !(once && found), let objects = record.result(DetectedObjects.self) else { return found && once ? .done : .more }
        for object in objects.objects where object.isNew && object.type != "face" {
            let value = object.value ?? ""
            try print(once ? value + "\n" : "\(object.type) \(Self.escaped(value))\n")
            found = true
            if once { return .done }
        }
        return .more
    }

    private func print(_ line: String) throws {
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw OutputError("standard output: cannot write the codes read: \(n < 0 ? String(cString: strerror(errno)) : "nothing written")")
            }
            bytes = bytes.dropFirst(n)
        }
    }

    /// The value on one line: backslashes and control characters as escapes.
    static func escaped(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value): out += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
