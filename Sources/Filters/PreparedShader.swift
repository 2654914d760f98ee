import Foundation
import Messages
/// A `-D NAME[=VALUE]` definition.
public struct ShaderDefine: Equatable, Sendable {
    public var name: String
    public var value: String?

    public init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }

    /// Parses `NAME` or `NAME=VALUE`.
    public init(parsing text: String) throws {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0])
        guard let first = name.first, first.isLetter || first == "_", name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
              name.allSatisfy(\.isASCII) else {
            throw FilterError("-D \(text): \(name.isEmpty ? "no name" : "\"\(name)\" is not a macro name"); use NAME or NAME=VALUE with letters, digits and _")
        }
        guard !name.hasPrefix("GL_"), !name.contains("__"), name != "KAMERA" else {
            throw FilterError("-D \(text): \(name) is reserved (GL_ names, names with __, and KAMERA, which Kamera defines); choose another name")
        }
        self.init(name: name, value: parts.count > 1 ? String(parts[1]) : nil)
        if let value, value.contains("\n") { throw FilterError("-D \(name): the value holds a line break") }
    }
}

/// The text the driver compiles: a prolog for the shader's convention
/// (version, precision, `KAMERA` and the `-D` defines, the standard uniforms
/// it uses but does not declare), the user's lines, and for Shadertoy a
/// `main` that calls `mainImage`. Knows where each line came from.
public struct PreparedShader: Equatable, Sendable {
    public let convention: ShaderConvention
    /// 100 or 300.
    public let version: Int
    public let text: String
    public let origins: [ShaderLineOrigin]
    /// The files it was read from, the main one first.
    public let files: [String]
    /// glslViewer's buffer samplers the code reads (`u_buffer0`, `u_doubleBuffer1`...), comments left out.
    public let bufferSamplers: [String]
    /// The main file's path, for messages.
    public var name: String { files.first ?? "shader" }

    /// The uniforms each convention provides, with their types.
    static let shadertoyUniforms: [(String, String)] = [
        ("iResolution", "vec3"), ("iTime", "float"), ("iTimeDelta", "float"), ("iFrame", "int"),
        ("iFrameRate", "float"), ("iMouse", "vec4"), ("iDate", "vec4"), ("iChannel0", "sampler2D"),
        ("iChannel1", "sampler2D"), ("iChannel2", "sampler2D"), ("iChannel3", "sampler2D"),
        ("iChannelResolution", "vec3[4]"), ("iChannelTime", "float[4]"),
    ]
    static let glslViewerUniforms: [(String, String)] = [
        ("u_time", "float"), ("u_delta", "float"), ("u_frame", "int"), ("u_resolution", "vec2"), ("u_mouse", "vec2"),
        ("u_date", "vec4"), ("u_tex0", "sampler2D"), ("u_tex1", "sampler2D"), ("u_tex2", "sampler2D"), ("u_tex3", "sampler2D"),
        ("u_tex0Resolution", "vec2"), ("u_tex1Resolution", "vec2"), ("u_tex2Resolution", "vec2"), ("u_tex3Resolution", "vec2"),
    ]

    /// A convention uniform the code declares with another type (`uniform int iTime;`).
    static func contradiction(_ code: String, _ uniforms: [(String, String)]) -> (name: String, declared: String, expected: String)? {
        for (name, type) in uniforms {
            let expected = String(type.prefix { $0 != "[" })
            let pattern = "\\buniform\\s+(?:(?:lowp|mediump|highp)\\s+)?(\\w+)\\s+\(name)\\b"
            guard let regex = try? NSRegularExpression(pattern: pattern),
                  let match = regex.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)),
                  let range = Range(match.range(at: 1), in: code) else { continue }
            let declared = String(code[range])
            if declared != expected { return (name, declared, expected) }
        }
        return nil
    }

    /// - Parameters:
    ///   - glesMajor: the context's GLES version; Shadertoy sources (GLSL ES
    ///     3.00 there) compile as 1.00, with `texture` mapped to `texture2D`, on GLES 2.
    ///   - opaque: the Shadertoy image pass, whose alpha Shadertoy ignores; buffers keep theirs.
    public init(_ body: ShaderBody, defines: [ShaderDefine] = [], glesMajor: Int, opaque: Bool = true,
                convention forced: ShaderConvention? = nil) throws {
        let source = body.lines.joined(separator: "\n")
        let code = GLSLText.strippingComments(source)
        convention = forced ?? ShaderConvention.detect(source)
        if convention == .shadertoy, code.range(of: "\\bvoid\\s+main\\s*\\(", options: .regularExpression) != nil {
            throw FilterError("\(body.files.first ?? "shader"): defines both mainImage and main; a Shadertoy shader has only mainImage (Kamera adds the main that calls it)")
        }
        var version = body.version ?? (convention == .shadertoy && glesMajor >= 3 ? 300 : 100)
        if version == 300 && glesMajor < 3 {
            guard body.version == nil else {
                throw FilterError("\(body.files.first ?? "shader"): #version 300 es needs OpenGL ES 3, and this context is OpenGL ES \(glesMajor) (drop \(Setting.gles) 2, or write the shader in GLSL ES 1.00)")
            }
            version = 100
        }
        self.version = version
        files = body.files
        var prolog: [String] = []
        if version == 300 { prolog.append("#version 300 es") }
        prolog += ["#define KAMERA 1"]
        prolog += defines.map { "#define \($0.name)" + ($0.value.map { " \($0)" } ?? "") }
        prolog += ["#ifdef GL_FRAGMENT_PRECISION_HIGH", "precision highp float;", "#else", "precision mediump float;", "#endif"]
        var epilog: [String] = []
        bufferSamplers = convention == .glslViewer ? GLSLText.identifiers(in: code, matching: "u_(double)?[bB]uffer[0-9]+") : []
        let provided = convention == .shadertoy ? Self.shadertoyUniforms : convention == .glslViewer ? Self.glslViewerUniforms : []
        if let clash = Self.contradiction(code, provided) {
            throw FilterError("\(body.files.first ?? "shader"): declares `uniform \(clash.declared) \(clash.name)`, but the \(convention.rawValue) convention's \(clash.name) is a \(clash.expected); declare it as \(clash.expected), or leave the declaration out (Kamera adds it)")
        }
        switch convention {
        case .kamera:
            break
        case .shadertoy:
            prolog += Self.declarations(Self.shadertoyUniforms, missingFrom: code)
            if version == 100 {
                prolog.append("#define texture texture2D")
            } else {
                prolog.append("out vec4 kamera_FragColor;")
            }
            let output = version == 300 ? "kamera_FragColor" : "gl_FragColor"
            epilog = ["void main() {", "    vec4 color = vec4(0.0, 0.0, 0.0, 1.0);", "    mainImage(color, gl_FragCoord.xy);",
                      opaque ? "    \(output) = vec4(color.rgb, 1.0);" : "    \(output) = color;", "}"]
        case .glslViewer:
            var uniforms = Self.glslViewerUniforms
            for name in bufferSamplers { uniforms.append((name, "sampler2D")) }
            prolog += Self.declarations(uniforms, missingFrom: code)
            if GLSLText.mentions(code, "v_texcoord") && !GLSLText.declares(code, "v_texcoord", qualifiers: ["varying", "in"]) {
                prolog.append(version == 300 ? "in vec2 v_texcoord;" : "varying vec2 v_texcoord;")
            }
        }
        let prologOrigins = prolog.indices.map { ShaderLineOrigin(file: nil, line: $0 + 1) }
        let epilogOrigins = epilog.indices.map { ShaderLineOrigin(file: nil, line: prolog.count + $0 + 1) }
        text = (prolog + body.lines + epilog).joined(separator: "\n") + "\n"
        origins = prologOrigins + body.origins + epilogOrigins
    }

    /// `uniform TYPE NAME;` for each uniform the code uses without declaring it.
    private static func declarations(_ uniforms: [(String, String)], missingFrom code: String) -> [String] {
        uniforms.compactMap { name, type in
            guard GLSLText.mentions(code, name), !GLSLText.declares(code, name, qualifiers: ["uniform"]) else { return nil }
            if let bracket = type.firstIndex(of: "[") {
                return "uniform \(type[..<bracket]) \(name)\(type[bracket...]);"
            }
            return "uniform \(type) \(name);"
        }
    }

    /// The place of line `n` of `text` for an error message: `file:line`, or the prolog.
    public func place(ofLine n: Int) -> String {
        guard n >= 1, n <= origins.count else { return "\(name):\(n) (past the end)" }
        let origin = origins[n - 1]
        guard let file = origin.file else { return "\(name) (line \(origin.line) of Kamera's prolog for \(convention.rawValue) shaders)" }
        return "\(file):\(origin.line)"
    }
}
