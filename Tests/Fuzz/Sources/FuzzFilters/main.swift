import FuzzSupport
import Pipeline

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
        for case .colorMatrix(let m) in chain.stages {
            precondition(m.isFinite, "a chain's folded matrix has finite coefficients")
        }
    } else {
        let path = input.rest.withUnsafeBytes { FuzzFile.write($0, suffix: ".json") }
        if let m = try? FilterChain.parseMatrix(path) {
            precondition(m.isFinite, "a parsed matrix has finite coefficients")
        }
    }
    return 0
}

runFuzzer(fuzz)
