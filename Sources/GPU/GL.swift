import CGLES

/// Small conveniences over the C GL API, whose constants import as Int32.
public enum GL {
    /// The first pending GL error as text, or nil.
    public static func error() -> String? {
        let e = glGetError()
        guard e != GLenum(GL_NO_ERROR) else { return nil }
        switch Int32(e) {
        case GL_INVALID_ENUM: return "GL_INVALID_ENUM"
        case GL_INVALID_VALUE: return "GL_INVALID_VALUE"
        case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION"
        case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY"
        case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION"
        default: return "GL error 0x\(String(e, radix: 16))"
        }
    }

    /// Waits until the GPU has done all the work asked of it (`glFinish`): for timings.
    public static func finish() { glFinish() }

    /// Throws if GL reported an error during `what`.
    public static func check(_ what: @autoclosure () -> String) throws {
        if let e = error() { throw GPUError("\(what()): \(e)") }
    }

    /// Creates a 2D texture with clamped edges and the given filter.
    public static func makeTexture(filter: Int32) -> GLuint {
        var name: GLuint = 0
        glGenTextures(1, &name)
        glBindTexture(GLenum(GL_TEXTURE_2D), name)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MIN_FILTER), filter)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_MAG_FILTER), filter)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_S), GL_CLAMP_TO_EDGE)
        glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(GL_TEXTURE_WRAP_T), GL_CLAMP_TO_EDGE)
        return name
    }

    /// The major version of the current context's OpenGL ES, from `GL_VERSION`
    /// ("OpenGL ES 3.2 Mesa ..."); 2 when it cannot be read.
    public static func majorVersion() -> Int {
        guard let text = glGetString(GLenum(GL_VERSION)) else { return 2 }
        let version = String(cString: UnsafeRawPointer(text).assumingMemoryBound(to: CChar.self))
        return version.split(separator: " ").lazy.compactMap { Int($0.prefix { $0.isNumber }) }.first ?? 2
    }

    public static func bindTexture(_ name: GLuint, unit: Int32 = 0) {
        glActiveTexture(GLenum(GL_TEXTURE0 + unit))
        glBindTexture(GLenum(GL_TEXTURE_2D), name)
    }
}
