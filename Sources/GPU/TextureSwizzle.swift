import CGLES

/// Which channel of a texel each of R, G, B and A reads (`GL_RED`...,
/// `GL_ONE`): texture swizzle, which OpenGL ES 3 has and OpenGL ES 2 lacks.
struct TextureSwizzle: Hashable {
    var r: Int32, g: Int32, b: Int32, a: Int32

    static let identity = TextureSwizzle(r: GL_RED, g: GL_GREEN, b: GL_BLUE, a: GL_ALPHA)
    /// (r, r, r, 1): one channel read as GL_LUMINANCE reads.
    static let gray = TextureSwizzle(r: GL_RED, g: GL_RED, b: GL_RED, a: GL_ONE)
    /// (r, r, r, g): two channels read as GL_LUMINANCE_ALPHA reads (the low and high bytes of 16-bit words).
    static let grayAlpha = TextureSwizzle(r: GL_RED, g: GL_RED, b: GL_RED, a: GL_GREEN)

    /// A pixel's R, G, B and A at these bytes of its texel (uploaded or
    /// imported with byte 0 as red); no A: opaque (a 3-byte GL_RGB texel's
    /// own alpha, so that RGB24 is the identity).
    /// Made for every frame: it allocates nothing.
    init(bytes: (r: Int, g: Int, b: Int, a: Int?, size: Int)) {
        // GL_RED, GL_GREEN, GL_BLUE and GL_ALPHA are consecutive.
        func channel(_ byte: Int) -> Int32 { GL_RED + Int32(byte) }
        (r, g, b, a) = (channel(bytes.r), channel(bytes.g), channel(bytes.b), bytes.a.map(channel) ?? (bytes.size == 3 ? GL_ALPHA : GL_ONE))
    }

    init(r: Int32, g: Int32, b: Int32, a: Int32) {
        (self.r, self.g, self.b, self.a) = (r, g, b, a)
    }

    /// Sets it on the bound texture.
    func apply() {
        for (parameter, source) in [(GL_TEXTURE_SWIZZLE_R, r), (GL_TEXTURE_SWIZZLE_G, g), (GL_TEXTURE_SWIZZLE_B, b), (GL_TEXTURE_SWIZZLE_A, a)] {
            glTexParameteri(GLenum(GL_TEXTURE_2D), GLenum(parameter), source)
        }
    }

    /// The same read as a GLSL expression of the texel `c`, for a pass where
    /// texture swizzle is missing: `vec4(c.b, c.g, c.r, 1.0)`.
    var glsl: String {
        func read(_ source: Int32) -> String {
            switch source {
            case GL_RED: "c.r"
            case GL_GREEN: "c.g"
            case GL_BLUE: "c.b"
            case GL_ALPHA: "c.a"
            case GL_ONE: "1.0"
            default: "0.0"
            }
        }
        return "vec4(\(read(r)), \(read(g)), \(read(b)), \(read(a)))"
    }
}
