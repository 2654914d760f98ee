import FuzzSupport
import KameraKit

/// Filter arguments and matrices: the first byte picks text (`--filter`
/// lines, an intensity) or JSON (`matrix=FILE.json`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    var input = FuzzBytes(UnsafeRawBufferPointer(start: data, count: count))
    let mode = input.byte()
    if mode & 1 == 0 {
        let intensity = Float(input.byte()) / 200
        let arguments = String(decoding: input.rest, as: UTF8.self).split(separator: "\n").map(String.init)
        guard let chain = try? FilterChain(parsing: arguments, intensity: intensity) else { return 0 }
        for m in chain.foldedMatrices {
            precondition(m.isFinite, "a chain's folded matrix has finite coefficients")
        }
        // A filter's name parses back (shaders and matrices name files or drop their numbers).
        for filter in chain.filters where !filter.name.contains(".frag") && !filter.name.hasPrefix("matrix") {
            precondition((try? FilterChain.parse(filter.name, intensity: 1)) != nil, "\(filter.name) parses again")
        }
    } else {
        let path = input.rest.withUnsafeBytes { FuzzFile.write($0, suffix: ".json") }
        if let m = try? ColorMatrix(parsing: path) {
            precondition(m.isFinite, "a parsed matrix has finite coefficients")
        }
    }
    return 0
}

runFuzzer(fuzz)
