import CGLES

/// An RGBA texture with a framebuffer object around it, created once and
/// reused; `resize` reallocates only when the size changes.
public final class Framebuffer: RenderTarget {
    public private(set) var width = 0
    public private(set) var height = 0
    public let texture: GLuint
    public let fbo: GLuint
    public let format: Format

    /// What a texel holds: 8-bit RGBA, or half floats (GLES 3 with
    /// `GL_EXT_color_buffer_half_float` or `_float`), for shader buffers.
    public enum Format: Sendable {
        case rgba8, rgba16f
    }

    public init(width: Int, height: Int, format: Format = .rgba8) throws {
        self.format = format
        texture = GL.makeTexture(filter: GL_LINEAR)
        var fbo: GLuint = 0
        glGenFramebuffers(1, &fbo)
        self.fbo = fbo
        try resize(width: width, height: height)
    }

    /// `framebuffer`, made on first use and resized to `width` x `height`:
    /// how a stage keeps the targets it draws into from frame to frame.
    public static func reused(_ framebuffer: inout Framebuffer?, width: Int, height: Int, format: Format = .rgba8) throws -> Framebuffer {
        let target = try framebuffer ?? Framebuffer(width: width, height: height, format: format)
        framebuffer = target
        try target.resize(width: width, height: height)
        return target
    }

    deinit {
        var t = texture, f = fbo
        glDeleteTextures(1, &t)
        glDeleteFramebuffers(1, &f)
    }

    public func resize(width: Int, height: Int) throws {
        guard width != self.width || height != self.height else { return }
        guard width > 0, height > 0 else { throw GPUError("framebuffer size \(width)x\(height) is empty") }
        var maxSize: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &maxSize)
        guard width <= maxSize, height <= maxSize else {
            throw GPUError("size \(width)x\(height) exceeds the GPU's limit of \(maxSize)x\(maxSize)")
        }
        self.width = width
        self.height = height
        glBindTexture(GLenum(GL_TEXTURE_2D), texture)
        switch format {
        case .rgba8:
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(width), GLsizei(height), 0,
                         GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), nil)
        case .rgba16f:
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA16F, GLsizei(width), GLsizei(height), 0,
                         GLenum(GL_RGBA), GLenum(GL_HALF_FLOAT), nil)
        }
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
        glFramebufferTexture2D(GLenum(GL_FRAMEBUFFER), GLenum(GL_COLOR_ATTACHMENT0), GLenum(GL_TEXTURE_2D), texture, 0)
        let status = glCheckFramebufferStatus(GLenum(GL_FRAMEBUFFER))
        guard status == GLenum(GL_FRAMEBUFFER_COMPLETE) else {
            throw GPUError("framebuffer \(width)x\(height) incomplete (status 0x\(String(status, radix: 16)))")
        }
        try GL.check("allocating a \(width)x\(height) framebuffer")
    }

    /// Kamera renders offscreen pictures with the image's top row at GL's row 0.
    public var topRowFirst: Bool { true }

    /// Binds the framebuffer and sets the viewport to cover it.
    public func bind() {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), fbo)
        glViewport(0, 0, GLsizei(width), GLsizei(height))
    }

    /// The framebuffer's texture as a whole-image `TextureView`.
    public var asTexture: TextureView {
        TextureView(name: texture, width: width, height: height, region: .full)
    }

    /// The texture of a pass drawn in GL's orientation (row 0 the image's bottom).
    public var asBottomUpTexture: TextureView {
        TextureView(name: texture, width: width, height: height, region: .bottomUp)
    }

    /// Reads the pixels back as RGBA, first row = image top (Kamera renders
    /// with texture row 0 at the bottom of GL's viewport, i.e. image top first).
    public func readPixels(into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count >= width * height * 4)
        bind()
        glPixelStorei(GLenum(GL_PACK_ALIGNMENT), 1)
        glReadPixels(0, 0, GLsizei(width), GLsizei(height), GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), buffer.baseAddress)
    }
}
