import Foundation

/// How a fragment shader expects to be called, told from its source so that
/// shaders copied from other tools run unchanged.
public enum ShaderConvention: String, Equatable, Sendable {
    /// Kamera's own filters: `u_texture` sampled at `v_texcoord`, image top at v = 0.
    case kamera
    /// glslViewer and glslCanvas: `void main()`, `u_time`, `u_resolution`,
    /// `u_tex0`, `v_texcoord` with (0, 0) at the bottom-left.
    case glslViewer
    /// Shadertoy: `mainImage(out vec4, in vec2)`, `iTime`, `iResolution`, `iChannel0..3`.
    case shadertoy

    /// `mainImage` makes a Shadertoy shader; a shader that samples `u_texture`
    /// is Kamera's own; any other is glslViewer's (GL's usual bottom-up world).
    public static func detect(_ source: String) -> ShaderConvention {
        let code = GLSLText.strippingComments(source)
        if GLSLText.mentions(code, "mainImage") { return .shadertoy }
        if GLSLText.mentions(code, "u_texture") { return .kamera }
        return .glslViewer
    }

    /// True when the pass draws in GL's orientation, row 0 at the image's
    /// bottom, and expects its textures the same way.
    public var isBottomUp: Bool { self != .kamera }
}

/// Small searches over GLSL source text.
enum GLSLText {
    /// The source with `//` and `/* */` comments blanked out (newlines kept,
    /// so line numbers stay).
    static func strippingComments(_ source: String) -> String {
        var out = [UInt8]()
        let bytes = Array(source.utf8)
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n") { i += 1 }
            } else if bytes[i] == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                i += 2
                while i < bytes.count, !(bytes[i] == UInt8(ascii: "*") && i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "/")) {
                    out.append(bytes[i] == UInt8(ascii: "\n") ? bytes[i] : UInt8(ascii: " "))
                    i += 1
                }
                i += 2
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// True when `identifier` occurs in `code` as a whole word.
    static func mentions(_ code: String, _ identifier: String) -> Bool {
        code.range(of: "\\b\(identifier)\\b", options: .regularExpression) != nil
    }

    /// True when `code` declares `identifier` itself with `qualifier`
    /// (`uniform`, `varying` or `in`), e.g. `uniform sampler2D iChannel0;`.
    static func declares(_ code: String, _ identifier: String, qualifiers: [String]) -> Bool {
        qualifiers.contains { code.range(of: "\\b\($0)\\b[^;{}()]*\\b\(identifier)\\b", options: .regularExpression) != nil }
    }

    /// The identifiers in `code` that match `pattern` (a regular expression), each once, in order.
    static func identifiers(in code: String, matching pattern: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: "\\b\(pattern)\\b") else { return [] }
        var seen: [String] = []
        for match in regex.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
            if let r = Range(match.range, in: code), !seen.contains(String(code[r])) { seen.append(String(code[r])) }
        }
        return seen
    }
}
