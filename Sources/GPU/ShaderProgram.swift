import CGLES
import Shaders
import Foundation

/// A linked vertex + fragment shader. Compile errors name the shader file and
/// line, as a compiler would: `sepia.frag:12:5: error: ...`.
public final class ShaderProgram {
    public let id: GLuint
    /// Attribute locations bound before linking, shared by every program.
    public static let positionAttribute: GLuint = 0
    public static let texcoordAttribute: GLuint = 1

    public init(vertex: String, fragment: String, vertexName: String = "vertex shader",
                fragmentName: String = "fragment shader") throws {
        let vs = try Self.compile(GLenum(GL_VERTEX_SHADER), vertex, name: vertexName)
        defer { glDeleteShader(vs) }
        let fs = try Self.compile(GLenum(GL_FRAGMENT_SHADER), fragment, name: fragmentName)
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
    public convenience init(quadFragment fragment: String, name: String) throws {
        try self.init(vertex: ShaderSource.quadVertex, fragment: fragment, vertexName: "quad.vert", fragmentName: name)
    }

    deinit { glDeleteProgram(id) }

    public func use() { glUseProgram(id) }

    /// The location of a uniform, or -1 when the shader does not use it.
    public func location(_ name: String) -> GLint { glGetUniformLocation(id, name) }

    private static func compile(_ type: GLenum, _ source: String, name: String) throws -> GLuint {
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
            throw GPUError(formatLog(log, name: name))
        }
        return shader
    }

    /// Rewrites driver messages such as `0:12(5): error: ...` (Mesa) or
    /// `ERROR: 0:12: ...` into `name:12:5: error: ...`, one per line.
    public static func formatLog(_ log: String, name: String) -> String {
        let lines = log.split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let formatted = lines.map { line -> String in
            var rest = Substring(line)
            var severity = "error"
            if rest.hasPrefix("ERROR: ") { rest = rest.dropFirst(7) }
            if rest.hasPrefix("WARNING: ") { rest = rest.dropFirst(9); severity = "warning" }
            // "0:12(5): error: message" or "0:12: message"
            guard let colon = rest.firstIndex(of: ":"), rest[..<colon].allSatisfy(\.isNumber) else {
                return "\(name): \(line)"
            }
            rest = rest[rest.index(after: colon)...]
            let digits = rest.prefix { $0.isNumber }
            guard let lineNumber = Int(digits) else { return "\(name): \(line)" }
            rest = rest.dropFirst(digits.count)
            var column = ""
            if rest.hasPrefix("(") {
                let c = rest.dropFirst().prefix { $0.isNumber }
                column = ":\(c)"
                rest = rest.dropFirst(c.count + 2)
            }
            rest = rest.drop { $0 == ":" || $0 == " " }
            let message = rest.hasPrefix("error: ") || rest.hasPrefix("warning: ") ? String(rest) : "\(severity): \(rest)"
            return "\(name):\(lineNumber)\(column): \(message)"
        }
        return formatted.isEmpty ? "\(name): compile failed with no message from the driver" : formatted.joined(separator: "\n")
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
