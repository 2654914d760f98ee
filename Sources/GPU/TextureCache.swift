import Capture
import CGLES
import Shaders

/// Turns frames into GL textures, the counterpart of `CVOpenGLESTextureCache`.
///
/// Textures are created once per format and size and refilled for each frame
/// with `glTexSubImage2D`, so steady state allocates nothing. The square crop
/// costs no CPU copy: RGBA, RGB24 and GREY frames are uploaded whole and the
/// crop is a texture region; YUYV and NV12 are converted to RGB by a fragment
/// shader that only covers the cropped rectangle.
public final class TextureCache {
    public var crop: CropMode
    /// Digital zoom: the crop is narrowed around its center by this factor (>= 1).
    public var zoom: Float = 1
    private let supportsRowLength: Bool
    /// Upload BGRA directly (GL_EXT_texture_format_BGRA8888); when false, BGRA is
    /// uploaded as RGBA and swapped by `bgra.frag`. Defaults to what the GPU offers.
    public var uploadsBGRADirectly: Bool {
        didSet { layout = nil }
    }
    private var planes: [GLuint] = []
    private var layout: (format: PixelFormat, width: Int, height: Int)?
    private let converted: Framebuffer
    private let quad = Quad()
    private var yuyvProgram: YUVProgram?
    private var nv12Program: YUVProgram?
    private var swizzleProgram: ShaderProgram?

    public init(context: GPUContext, crop: CropMode = .square) throws {
        self.crop = crop
        supportsRowLength = context.glesMajorVersion >= 3 || context.glExtensions.contains("GL_EXT_unpack_subimage")
        uploadsBGRADirectly = context.glExtensions.contains("GL_EXT_texture_format_BGRA8888")
        converted = try Framebuffer(width: 1, height: 1)
    }

    deinit { deletePlanes() }

    /// Uploads `frame` and returns the texture for the renderer. The texture is
    /// valid until the next call.
    public func texture(for frame: Frame) throws -> CameraTexture {
        guard frame.width > 0, frame.height > 0 else { throw GPUError("frame size \(frame.width)x\(frame.height) is empty") }
        try prepare(frame)
        let rect = crop.rectangle(width: frame.width, height: frame.height, zoom: zoom)
        let region = TextureRegion(x: Float(rect.x) / Float(frame.width), y: Float(rect.y) / Float(frame.height),
                                   width: Float(rect.width) / Float(frame.width), height: Float(rect.height) / Float(frame.height))
        switch frame.format {
        case .rgba, .rgb24, .grey:
            upload(frame, plane: 0, format: glFormat(frame.format), bytesPerPixel: frame.format == .rgba ? 4 : frame.format == .rgb24 ? 3 : 1,
                   width: frame.width, height: frame.height)
            return CameraTexture(name: planes[0], width: frame.width, height: frame.height, region: region)
        case .bgra:
            upload(frame, plane: 0, format: uploadsBGRADirectly ? GLenum(GL_BGRA_EXT) : GLenum(GL_RGBA), bytesPerPixel: 4,
                   width: frame.width, height: frame.height)
            if uploadsBGRADirectly {
                return CameraTexture(name: planes[0], width: frame.width, height: frame.height, region: region)
            }
            let program = try swizzleProgram ?? ShaderProgram(quadFragment: ShaderSource.bgra, name: "bgra.frag")
            swizzleProgram = program
            try converted.resize(width: rect.width, height: rect.height)
            converted.bind()
            program.use()
            GL.bindTexture(planes[0])
            quad.draw(Quad.vertices(filling: region))
            return converted.asTexture
        case .yuyv:
            upload(frame, plane: 0, format: GLenum(GL_RGBA), bytesPerPixel: 4, width: (frame.width + 1) / 2, height: frame.height)
            let program = try yuyvProgram ?? YUVProgram(fragment: ShaderSource.yuyv, name: "yuyv.frag")
            yuyvProgram = program
            return try convert(frame, program: program, rect: rect, region: region)
        case .nv12:
            upload(frame, plane: 0, format: GLenum(GL_LUMINANCE), bytesPerPixel: 1, width: frame.width, height: frame.height)
            upload(frame, plane: 1, format: GLenum(GL_LUMINANCE_ALPHA), bytesPerPixel: 2,
                   width: (frame.width + 1) / 2, height: (frame.height + 1) / 2)
            let program = try nv12Program ?? YUVProgram(fragment: ShaderSource.nv12, name: "nv12.frag")
            nv12Program = program
            return try convert(frame, program: program, rect: rect, region: region)
        }
    }

    private func convert(_ frame: Frame, program: YUVProgram, rect: (x: Int, y: Int, width: Int, height: Int),
                         region: TextureRegion) throws -> CameraTexture {
        try converted.resize(width: rect.width, height: rect.height)
        converted.bind()
        program.program.use()
        program.set(frame: frame)
        GL.bindTexture(planes[0], unit: 0)
        if planes.count > 1 { GL.bindTexture(planes[1], unit: 1) }
        quad.draw(Quad.vertices(filling: region))
        glActiveTexture(GLenum(GL_TEXTURE0))
        return converted.asTexture
    }

    /// Allocates plane textures when the frame's format or size differs from the last one.
    private func prepare(_ frame: Frame) throws {
        if let l = layout, l.format == frame.format, l.width == frame.width, l.height == frame.height { return }
        deletePlanes()
        let specs: [(format: GLenum, width: Int, height: Int)]
        switch frame.format {
        case .rgba: specs = [(GLenum(GL_RGBA), frame.width, frame.height)]
        case .bgra: specs = [(uploadsBGRADirectly ? GLenum(GL_BGRA_EXT) : GLenum(GL_RGBA), frame.width, frame.height)]
        case .rgb24: specs = [(GLenum(GL_RGB), frame.width, frame.height)]
        case .grey: specs = [(GLenum(GL_LUMINANCE), frame.width, frame.height)]
        case .yuyv: specs = [(GLenum(GL_RGBA), (frame.width + 1) / 2, frame.height)]
        case .nv12: specs = [(GLenum(GL_LUMINANCE), frame.width, frame.height),
                             (GLenum(GL_LUMINANCE_ALPHA), (frame.width + 1) / 2, (frame.height + 1) / 2)]
        }
        for spec in specs {
            let texture = GL.makeTexture(filter: frame.format.isYUV ? GL_NEAREST : GL_LINEAR)
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(spec.format), GLsizei(spec.width), GLsizei(spec.height), 0,
                         spec.format, GLenum(GL_UNSIGNED_BYTE), nil)
            planes.append(texture)
        }
        try GL.check("allocating textures for a \(frame.width)x\(frame.height) \(frame.format.name) frame")
        layout = (frame.format, frame.width, frame.height)
    }

    private func upload(_ frame: Frame, plane index: Int, format: GLenum, bytesPerPixel: Int, width: Int, height: Int) {
        let plane = frame.planes[index]
        glBindTexture(GLenum(GL_TEXTURE_2D), planes[index])
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        let tight = width * bytesPerPixel
        if plane.bytesPerRow == tight {
            glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(width), GLsizei(height), format,
                            GLenum(GL_UNSIGNED_BYTE), plane.bytes.baseAddress)
        } else if supportsRowLength {
            glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), GLint(plane.bytesPerRow / bytesPerPixel))
            glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(width), GLsizei(height), format,
                            GLenum(GL_UNSIGNED_BYTE), plane.bytes.baseAddress)
            glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        } else {
            for row in 0..<height {
                glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, GLint(row), GLsizei(width), 1, format,
                                GLenum(GL_UNSIGNED_BYTE), plane.bytes.baseAddress! + row * plane.bytesPerRow)
            }
        }
    }

    private func glFormat(_ format: PixelFormat) -> GLenum {
        switch format {
        case .rgb24: GLenum(GL_RGB)
        case .grey: GLenum(GL_LUMINANCE)
        default: GLenum(GL_RGBA)
        }
    }

    private func deletePlanes() {
        if !planes.isEmpty { glDeleteTextures(GLsizei(planes.count), planes) }
        planes.removeAll()
        layout = nil
    }
}

/// A YUV-to-RGB conversion program and its uniform locations.
final class YUVProgram {
    let program: ShaderProgram
    private let size: GLint
    private let matrix: GLint
    private let offset: GLint
    private var colorSpace: YUVColorSpace?
    private var frameSize = (0, 0)

    init(fragment: String, name: String) throws {
        program = try ShaderProgram(quadFragment: fragment, name: name)
        program.use()
        size = program.location("u_size")
        matrix = program.location("u_yuv_to_rgb")
        offset = program.location("u_yuv_offset")
        glUniform1i(program.location("u_chroma"), 1)
    }

    /// Sets the uniforms for `frame`; only those that changed are sent.
    func set(frame: Frame) {
        if frameSize != (frame.width, frame.height) {
            glUniform2f(size, Float(frame.width), Float(frame.height))
            frameSize = (frame.width, frame.height)
        }
        if colorSpace != frame.colorSpace {
            let m = frame.colorSpace.toRGB
            m.withUnsafeBufferPointer { glUniformMatrix3fv(matrix, 1, GLboolean(GL_FALSE), $0.baseAddress) }
            let o = frame.colorSpace.offset
            glUniform3f(offset, o.x, o.y, o.z)
            colorSpace = frame.colorSpace
        }
    }
}
