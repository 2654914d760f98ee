import CommandLineSupport
import Foundation

/// Prints `value` as the JSON that `--json` listings give scripts: indented, keys sorted.
func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
