import FuzzSupport
import KameraKit

/// User shader text, whatever its bytes: includes (resolved next to a file
/// in a scratch folder), `#version`, convention detection and the prolog,
/// and the `-D` and `--uniform` arguments. The first byte picks which.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    var input = FuzzBytes(UnsafeRawBufferPointer(start: data, count: count))
    let mode = input.byte()
    let text = String(decoding: input.rest, as: UTF8.self)
    switch mode % 3 {
    case 0:
        let path = input.rest.withUnsafeBytes { FuzzFile.write($0, suffix: ".frag") }
        guard let body = try? ShaderPreprocessor().expand(text, path: path) else { return 0 }
        precondition(body.lines.count == body.origins.count, "every line knows where it came from")
        precondition(!body.lines.contains { $0.unicodeScalars.contains("\n") || $0.unicodeScalars.contains("\r") }, "lines hold no line breaks")
        guard let shader = try? PreparedShader(body, glesMajor: mode & 4 == 0 ? 3 : 2) else { return 0 }
        let lines = shader.text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        precondition(lines == shader.origins.count, "the prepared text has an origin per line")
        for n in 0...(shader.origins.count + 1) { _ = shader.place(ofLine: n) }
    case 1:
        _ = try? ShaderDefine(parsing: text)
    default:
        _ = try? ShaderUniformValue(parsing: text)
    }
    return 0
}

runFuzzer(fuzz)
