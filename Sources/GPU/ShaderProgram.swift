import CGLES
import Shaders
import Foundation
import Lifecycle

/// A linked vertex + fragment shader. Compile errors name the shader file and
/// line, as a compiler would: `sepia.frag:12:5: error: ...`.
public final class ShaderProgram {
    public let id: GLuint
    /// Attribute locations bound before linking, shared by every program.
    public static let positionAttribute: GLuint = 0
    public static let texcoordAttribute: GLuint = 1

    /// `fragmentPlace` names the place of a line of `fragment` in errors (see `formatLog`).
    /// `defines`: lines (`#define V_FIRST`) put before both sources; errors
    /// still name the lines of the files.
    public init(vertex: String, fragment: String, vertexName: String = "vertex shader",
                fragmentName: String = "fragment shader", fragmentPlace: ((Int) -> String)? = nil, defines: String = "") throws {
        let watch = GPUWatchdog.begin(.compile)
        defer { GPUWatchdog.end(watch) }
        let shift = defines.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
        func place(_ name: String, _ inner: ((Int) -> String)?) -> ((Int) -> String)? {
            guard shift > 0 else { return inner }
            return { line in inner?(line - shift) ?? "\(name):\(line - shift)" }
        }
        let vs = try Self.compile(GLenum(GL_VERTEX_SHADER), defines + vertex, name: vertexName, place: place(vertexName, nil))
        defer { glDeleteShader(vs) }
        let fs = try Self.compile(GLenum(GL_FRAGMENT_SHADER), defines + fragment, name: fragmentName, place: place(fragmentName, fragmentPlace))
        defer { glDeleteShader(fs) }
        let program = glCreateProgram()
        glAttachShader(program, vs)
        glAttachShader(program, fs)
        glBindAttribLocation(program, Self.positionAttribute, "a_position")
        glBindAttribLocation(program, Self.texcoordAttribute, "a_texcoord")
        glLinkProgram(program)
        var linked: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &linked)
        guard linked != 0 else {
            let log = Self.log(program, glGetProgramiv, glGetProgramInfoLog)
            glDeleteProgram(program)
            throw GPUError("\(fragmentName): link error: \(log.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        id = program
        // Every shader samples its main texture from unit 0.
        glUseProgram(program)
        let texture = glGetUniformLocation(program, "u_texture")
        if texture >= 0 { glUniform1i(texture, 0) }
    }

    /// A fragment shader drawn on a `Quad` (with `quad.vert`).
    public convenience init(quadFragment fragment: String, name: String, defines: String = "") throws {
        try self.init(vertex: ShaderSource.quadVertex, fragment: fragment, vertexName: "quad.vert", fragmentName: name, defines: defines)
    }

    deinit { glDeleteProgram(id) }

    public func use() { glUseProgram(id) }

    /// The location of a uniform, or -1 when the shader does not use it.
    public func location(_ name: String) -> GLint { glGetUniformLocation(id, name) }

    private static func compile(_ type: GLenum, _ source: String, name: String, place: ((Int) -> String)? = nil) throws -> GLuint {
        let shader = glCreateShader(type)
        source.withCString { text in
            var pointer: UnsafePointer<GLchar>? = text
            glShaderSource(shader, 1, &pointer, nil)
        }
        glCompileShader(shader)
        var ok: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
        guard ok != 0 else {
            let log = Self.log(shader, glGetShaderiv, glGetShaderInfoLog)
            glDeleteShader(shader)
            throw GPUError(formatLog(log, name: name, place: place))
        }
        return shader
    }

    /// Rewrites driver messages such as `0:12(5): error: ...` (Mesa),
    /// `ERROR: 0:12: ...` (ANGLE, ARM, Qualcomm) or `0(12) : error C0000: ...`
    /// (NVIDIA) into `name:12:5: error: ...`, one per line. `place` turns a
    /// line of the compiled text into the place to print (for shaders put
    /// together from several files); by default `name:line`. With `place`,
    /// columns are left out: Mesa counts them after collapsing runs of
    /// spaces, so on indented lines they point left of the error.
    public static func formatLog(_ log: String, name: String, place: ((Int) -> String)? = nil) -> String {
        // Some drivers glue two messages on one line: split before each `0:LINE(COLUMN): `.
        let unglued = log.replacingOccurrences(of: "(?<=\\S)(?=\\d+:\\d+\\(\\d+\\): )", with: "\n", options: .regularExpression)
        let lines = unglued.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let formatted = lines.map { line -> String in
            guard let entry = LogEntry(line) else { return "\(name): \(line)" }
            // Line 0 is the whole program (static recursion, a link-time error): the file, no line.
            if entry.line == 0 { return "\(name): \(entry.severity): \(entry.message)" }
            let where_ = place?(entry.line) ?? "\(name):\(entry.line)"
            let column = place == nil ? entry.column.map { ":\($0)" } ?? "" : ""
            return "\(where_)\(column): \(entry.severity): \(entry.message)"
        }
        guard !formatted.isEmpty else { return "\(name): compile failed with no message from the driver" }
        // A shader can make thousands of errors; the first ones say what is wrong.
        let shown = 20
        guard formatted.count > shown else { return formatted.joined(separator: "\n") }
        return (formatted.prefix(shown) + ["\(name): \(formatted.count - shown) more errors not shown (\(formatted.count) in all)"]).joined(separator: "\n")
    }

    /// One message of a driver's compile log that names a line.
    struct LogEntry {
        var line: Int
        var column: Int?
        var severity: String
        var message: String

        init?(_ text: String) {
            var rest = Substring(text)
            severity = "error"
            if rest.hasPrefix("ERROR: ") { rest = rest.dropFirst(7) }
            if rest.hasPrefix("WARNING: ") { rest = rest.dropFirst(9); severity = "warning" }
            // The source string number, then ":LINE" (Mesa, ANGLE) or "(LINE)" (NVIDIA).
            let string = rest.prefix { $0.isNumber }
            guard !string.isEmpty else { return nil }
            rest = rest.dropFirst(string.count)
            let nvidia = rest.hasPrefix("(")
            guard rest.hasPrefix(":") || nvidia else { return nil }
            rest = rest.dropFirst()
            let digits = rest.prefix { $0.isNumber }
            guard let number = Int(digits) else { return nil }
            line = number
            rest = rest.dropFirst(digits.count)
            if nvidia {
                guard rest.hasPrefix(")") else { return nil }
                rest = rest.dropFirst()
            } else if rest.hasPrefix("(") {
                let c = rest.dropFirst().prefix { $0.isNumber }
                column = Int(c)
                rest = rest.dropFirst(c.count + 1)
                if rest.hasPrefix(")") { rest = rest.dropFirst() }
            }
            rest = rest.drop { $0 == ":" || $0 == " " }
            for word in ["error", "warning"] where rest.hasPrefix(word) {
                severity = word
                rest = rest.dropFirst(word.count)
                // NVIDIA's code ("error C0000:") and the colon after the word.
                if let colon = rest.firstIndex(of: ":"), rest[..<colon].allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " }) {
                    rest = rest[rest.index(after: colon)...]
                }
                rest = rest.drop { $0 == " " }
                break
            }
            message = String(rest)
        }
    }

    private static func log(
        _ object: GLuint,
        _ getiv: (GLuint, GLenum, UnsafeMutablePointer<GLint>?) -> Void,
        _ getLog: (GLuint, GLsizei, UnsafeMutablePointer<GLsizei>?, UnsafeMutablePointer<GLchar>?) -> Void
    ) -> String {
        var length: GLint = 0
        getiv(object, GLenum(GL_INFO_LOG_LENGTH), &length)
        guard length > 1 else { return "" }
        var buffer = [GLchar](repeating: 0, count: Int(length))
        getLog(object, length, nil, &buffer)
        return String(cString: buffer)
    }
}
