import CGLES
import Messages
import Pixels
import Shaders

/// Turns frames into GL textures: upload (copy), dma-buf import, and the
/// conversions of YUV and Bayer layouts to RGB; the counterpart of
/// `CVOpenGLESTextureCache`.
///
/// Textures are created once per format and size and refilled for each frame
/// with `glTexSubImage2D`, so steady state allocates nothing; how each plane
/// of each layout becomes a texture is one table, `PlaneTexture`. The square
/// crop costs no CPU copy: RGB and GREY frames are uploaded whole and the crop
/// is a texture region (RGB in other byte orders read in their order by
/// texture swizzle, or by `swizzle.frag` on OpenGL ES 2); YUV is converted to
/// RGB by a fragment shader that only covers the cropped rectangle
/// (`yuyv.frag` for packed 4:2:2 in any byte order, `nv12.frag` for
/// semi-planar and planar layouts), 10- to 16-bit gray is widened by one
/// (`deep_gray.frag`), and raw Bayer frames (`bayer8`, `bayer16`, `bayer10p`, `bayer12p`) are
/// demosaiced by one (`bayer.frag`). Sources hand the layouts that are not
/// Kamera's own on only when this uploader does not convert YUV on the CPU.
///
/// Frames whose planes are dma-bufs (a camera with `CameraMemory.drm` or
/// `.exported`) are imported as EGLImages instead of copied, when `upload`
/// allows and the display offers `EGL_EXT_image_dma_buf_import`. The first
/// imported frame is checked against the copy path; if they differ or the
/// import fails, the uploader copies from then on and says why in `copyReason`.
public final class FrameUploader {
    /// How frames reach the GPU.
    public enum Upload: String, CaseIterable, Sendable {
        /// Import dma-buf frames when possible, copy otherwise.
        case auto
        /// Always copy (`glTexSubImage2D`).
        case copy
        /// Import dma-buf frames; failing that is an error.
        case dmabuf
    }

    public var upload: Upload = .auto

    /// Where copied YUV frames become RGB.
    public enum YUVConversion: String, CaseIterable, Sendable {
        /// On the CPU with a software renderer (llvmpipe, softpipe), else in a shader.
        case auto
        /// A conversion pass on the GPU (`yuyv.frag`, `nv12.frag`).
        case shader
        /// On the CPU (`YUVToRGBA`), uploading RGBA of the cropped size; RGB24
        /// and GREY frames are cropped into RGBA there too. Frames in layouts
        /// it does not read (UYVY...) still take the shader.
        case cpu
    }

    public var yuvConversion: YUVConversion = .auto
    /// True when the renderer is software, where a CPU conversion is cheaper than a pass.
    public var rendersInSoftware: Bool { context.rendersInSoftware }
    private let context: DeferredGPUContext
    private let cpuConverter = YUVToRGBA()
    private lazy var planarConverter = YUVToYUV420()
    private var convertedUpload: (texture: GLuint, width: Int, height: Int, format: GLenum)?
    /// True when the last frame was converted at half size (see `texture(for:folding:magnification:)`).
    public private(set) var lastConversionHalved = false
    /// How a frame reached the GPU.
    public enum UploadPath: String, Sendable {
        /// Its bytes copied into a texture (`glTexSubImage2D`), converted on the CPU or not.
        case copy
        /// Its dma-buf imported as an EGLImage, no copy.
        case dmabuf
    }

    /// The path the last frame took.
    public private(set) var lastPath = UploadPath.copy
    /// Why dma-buf frames are copied rather than imported, once that is decided.
    public private(set) var copyReason: String?
    private var importVerified = false
    private var scratch: Framebuffer?

    public var crop: CropMode
    /// Digital zoom: the crop is narrowed around its center by this factor (>= 1).
    public var zoom: Float = 1

    /// What the uploader holds on the GPU and knows of it, made with the first
    /// texture: a frame converted to memory and handed on needs none of it.
    private struct Device {
        let glesMajorVersion: Int
        let supportsRowLength: Bool
        /// GL_MAX_TEXTURE_SIZE.
        let maxTextureSize: Int
        let offersBGRA: Bool
        let converted: Framebuffer
        let copier: TextureCopier
        let importer: DMABufImporter?
        let quad: Quad
    }
    private var device: Device?
    private var bgraChoice: Bool?

    /// Upload BGRA directly (GL_EXT_texture_format_BGRA8888); when false, BGRA is
    /// uploaded as RGBA and read in its order as the other byte orders are
    /// (texture swizzle, or `swizzle.frag` on OpenGL ES 2). Defaults to what the GPU offers.
    public var uploadsBGRADirectly: Bool {
        get { bgraChoice ?? device?.offersBGRA ?? false }
        set { bgraChoice = newValue; layout = nil }
    }
    private var planes: [GLuint] = []
    /// How each of `planes` is uploaded and read, for the layout they were allocated for.
    private var planeTextures: [PlaneTexture] = []
    private var layout: (format: PixelFormat, width: Int, height: Int)?
    /// `yuyv.frag` or `nv12.frag` for each YUV layout.
    private var yuvPrograms: [PixelFormat: YUVProgram] = [:]
    /// `swizzle.frag` for each byte order read by a pass.
    private var swizzlePrograms: [TextureSwizzle: ShaderProgram] = [:]
    /// `deep_gray.frag` for each depth.
    private var deepGrayPrograms: [Int: ShaderProgram] = [:]
    private var bayerPrograms: [BayerProgram.Key: BayerProgram] = [:]
    /// MIPI-packed frames too wide for this GPU's textures, unpacked (`narrowed`).
    private var unpackedMIPI: FrameBuffer?

    /// An uploader on `context`, current on the calling thread.
    public convenience init(context: GPUContext, crop: CropMode = .square) throws {
        self.init(context: DeferredGPUContext(context), crop: crop)
        _ = try opened()
    }

    /// An uploader whose GPU side is made with its first texture, on the context
    /// `context` opens then.
    public init(context: DeferredGPUContext, crop: CropMode = .square) {
        self.context = context
        self.crop = crop
    }

    deinit {
        deletePlanes()
        if var texture = convertedUpload?.texture { glDeleteTextures(1, &texture) }
    }

    /// The GPU side, made on first use.
    private func opened() throws -> Device {
        if let device { return device }
        let context = try context.open()
        var maxSize: GLint = 0
        glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &maxSize)
        let made = Device(glesMajorVersion: context.glesMajorVersion, supportsRowLength: context.glesMajorVersion >= 3 || context.glExtensions.contains("GL_EXT_unpack_subimage"),
                          maxTextureSize: Int(maxSize), offersBGRA: context.glExtensions.contains("GL_EXT_texture_format_BGRA8888"),
                          converted: try Framebuffer(width: 1, height: 1), copier: try context.copier(), importer: DMABufImporter(context: context), quad: Quad())
        if made.importer == nil {
            copyReason = "the EGL display (\(context.platform)) does not offer EGL_EXT_image_dma_buf_import with GL_OES_EGL_image"
        }
        device = made
        return made
    }

    /// Whether copied YUV frames are converted on the CPU, per `yuvConversion`.
    public var convertsYUVOnCPU: Bool {
        yuvConversion == .cpu || (yuvConversion == .auto && rendersInSoftware)
    }

    /// Whether dma-buf frames can be imported at all (the GPU side is made to tell).
    public var canImportDMABuf: Bool {
        get throws { try opened().importer != nil }
    }

    /// The widest and tallest texture this GPU takes (GL_MAX_TEXTURE_SIZE).
    public var textureLimit: Int {
        get throws { try opened().maxTextureSize }
    }

    /// Why `width`-pixel rows of MIPI-packed Bayer (`bits` deep) are unpacked
    /// on the CPU rather than read by the demosaic shader, nil when they are
    /// not: a byte a texel, they are wider than this GPU's textures.
    public static func packedRowProblem(width: Int, bits: Int, textureLimit: Int) -> String? {
        let bytes = PixelFormat.mipiRowBytes(width: width, bits: bits)
        guard bytes > textureLimit, width <= textureLimit else { return nil }
        return "a \(width)-pixel row of \(bits)-bit MIPI-packed Bayer is \(bytes) bytes, above this GPU's texture limit of \(textureLimit), so it is unpacked on the CPU"
    }

    /// Whether frames of `format` are imported (a DRM format for each plane,
    /// `PlaneTexture.imported`), and whether that takes texture swizzle, which
    /// OpenGL ES 2 lacks: GREY, semi-planar and planar YUV and raw Bayer are
    /// imported as one- or two-channel (R8, GR88) textures read as the copy
    /// path's luminance textures, and RGB in other byte orders as R G B A read
    /// in their order. Allocates nothing.
    static func importability(of format: PixelFormat) -> (imported: Bool, swizzled: Bool) {
        var swizzled = false
        for index in 0..<PlaneTexture.count(of: format) {
            guard let imported = PlaneTexture(plane: index, of: format, width: 2, height: 2).imported else { return (false, false) }
            swizzled = swizzled || imported.swizzle != .identity
        }
        return (true, swizzled)
    }

    /// Why a frame of `format` is copied rather than imported on a context of
    /// `glesMajorVersion`, nil when it can be imported. `fourcc`: the frames'
    /// code as their source names it (a camera's `BG10` for `bayer16`).
    public static func notImported(_ format: PixelFormat, glesMajorVersion: Int, fourcc: String? = nil) -> String? {
        // Asked for every imported frame: the answer for an imported one is found without allocating.
        let (imported, swizzled) = importability(of: format)
        if imported && (glesMajorVersion >= 3 || !swizzled) { return nil }
        if imported {
            return "\(fourcc ?? format.fourcc) frames are imported only with OpenGL ES 3 (texture swizzle), and the context is OpenGL ES \(glesMajorVersion)"
        }
        let formats = PixelFormat.allCases.filter { let i = importability(of: $0); return i.imported && (glesMajorVersion >= 3 || !i.swizzled) }
        let names = formats.filter { !$0.isMosaic }.map { String($0.fourcc.filter { $0 != " " }) } + (formats.contains(.bayer8) ? ["raw Bayer (8-bit, in 16-bit words or MIPI-packed)"] : [])
        return "\(fourcc ?? format.fourcc) frames are not imported (\(names.joined(separator: ", ")) are)"
    }

    /// Drops imported buffers; call it when the source changes, as its
    /// descriptors may be reused for other buffers. The copy packed Bayer
    /// rows too wide for the GPU were unpacked into goes too (24 MB at 4056x3040).
    public func forgetImportedBuffers() {
        unpackedMIPI = nil
        device?.importer?.forget()
        importVerified = false
        if device?.importer != nil { copyReason = nil }
    }

    /// Uploads `frame` and returns the texture for the renderer. The texture is
    /// valid until the next call.
    public func texture(for frame: Frame) throws -> TextureView {
        try texture(for: frame, folding: nil).texture
    }

    /// The crop rectangle of `frame` in pixels, at the current crop and zoom.
    public func cropRectangle(for frame: Frame) -> (x: Int, y: Int, width: Int, height: Int) {
        crop.rectangle(width: frame.width, height: frame.height, zoom: zoom)
    }

    /// Whether a copied frame of `format` is converted on the CPU.
    private func convertsOnCPU(_ format: PixelFormat) -> Bool {
        convertsYUVOnCPU && YUVToRGBA.formats.contains(format)
    }

    /// True when `frame` is converted on the CPU, so `convertedPixels` can hand its bytes over.
    public func convertsToMemory(_ frame: Frame) -> Bool {
        convertsOnCPU(frame.format) && upload != .dmabuf && (upload == .copy || frame.planes[0].dmabuf == nil)
            && frame.width > 0 && frame.height > 0
    }

    /// The cropped frame as RGBA bytes (rows top first, `width * 4` a row)
    /// when this uploader converts it on the CPU, with `transform` applied, and
    /// without uploading it: for a renderer whose draw would only copy it.
    /// Nil when the frame would reach the GPU another way. Valid until the next
    /// call. `mosaic`: see `texture(for:folding:magnification:mosaic:)`.
    public func convertedPixels(of frame: Frame, transform: RGBTransform?, mosaic: Int = 1) -> UnsafeRawBufferPointer? {
        guard convertsToMemory(frame) else { return nil }
        let rect = cropRectangle(for: frame)
        cpuConverter.convert(frame, x: rect.x, y: rect.y, width: rect.width, height: rect.height, transform: transform, mosaic: mosaic)
        lastPath = .copy
        return UnsafeRawBufferPointer(cpuConverter.pixels)
    }

    /// The cropped frame as planar 4:2:0 Y'CbCr in `colorSpace` (Y', Cb, Cr,
    /// each tight), `transform` applied, straight from its YUV bytes with no
    /// RGB picture between (`YUVToYUV420`): within 1 level of converting
    /// `convertedPixels` to 4:2:0. Nil when the frame would reach the GPU
    /// another way. Valid until the next call. `destination`: where to write
    /// them (`YUVToYUV420.frameSize` bytes at least), rather than into the uploader's own memory.
    public func convertedYUV420(of frame: Frame, transform: RGBTransform?, colorSpace: YUVColorSpace,
                                into destination: UnsafeMutableRawBufferPointer? = nil) -> UnsafeRawBufferPointer? {
        guard convertsToMemory(frame), frame.format.isYUV else { return nil }
        let rect = cropRectangle(for: frame)
        lastPath = .copy
        return planarConverter.convert(frame, x: rect.x, y: rect.y, width: rect.width, height: rect.height, transform: transform, to: colorSpace,
                                       into: destination)
    }

    /// Uploads `frame`; where it is a YUV frame, or an RGB24 or GREY one the
    /// CPU converts, `transform` (a color matrix) is applied in its conversion
    /// (on the CPU or in the conversion shader, to the color the YUV values
    /// encode, before it is clamped to 0...1) and `folded` is true: the
    /// renderer then draws without it. Other frames' textures hold their own colors.
    ///
    /// `magnification` is the number of output pixels each pixel of the crop
    /// will cover (the smaller along the two axes), when the renderer draws
    /// the texture straight to the output. Where it is below 1/√2, a CPU
    /// conversion is done at half size, each texel the mean of a 2x2 block:
    /// the mipmap level a GPU would sample (`GL_LINEAR_MIPMAP_NEAREST`), at a
    /// quarter of the conversion, upload and texture reads.
    ///
    /// A `mosaic` above 1 makes a frame converted on the CPU (`convertsToMemory`)
    /// a mosaic of blocks that size, each the color of its center pixel, as
    /// `pixellate=N` draws: one pixel a block is gpu.converted. Other frames ignore it.
    public func texture(for frame: Frame, folding transform: RGBTransform?,
                        magnification: Float = 1, mosaic: Int = 1) throws -> (texture: TextureView, folded: Bool) {
        guard frame.width > 0, frame.height > 0 else { throw GPUError("frame size \(frame.width)x\(frame.height) is empty") }
        let gpu = try opened()
        let frame = try narrowed(frame, on: gpu)
        lastConversionHalved = false
        let rect = crop.rectangle(width: frame.width, height: frame.height, zoom: zoom)
        let region = TextureRegion(x: Float(rect.x) / Float(frame.width), y: Float(rect.y) / Float(frame.height),
                                   width: Float(rect.width) / Float(frame.width), height: Float(rect.height) / Float(frame.height))
        let folds = transform != nil && frame.format.isYUV
        if upload != .copy, frame.planes[0].dmabuf != nil {
            if let imported = try importedTexture(for: frame, on: gpu, rect: rect, region: region, transform: transform) {
                lastPath = .dmabuf
                return (imported, folds)
            }
        } else if upload == .dmabuf {
            throw GPUError(.upload, "dmabuf", because: "the \(frame.format.name) frame is not in a dma-buf (only V4L2 cameras share their buffers)", "copy it instead")
        }
        lastPath = .copy
        if convertsOnCPU(frame.format) {
            let halved = mosaic == 1 && magnification < Self.halvingMagnification && rect.width > 1 && rect.height > 1
            lastConversionHalved = halved
            // The CPU's conversion applies the matrix to RGB frames too.
            return (try convertedOnCPU(frame, on: gpu, rect: rect, transform: transform, halved: halved, mosaic: mosaic), transform != nil)
        }
        return (try copiedTexture(for: frame, on: gpu, rect: rect, region: region, transform: transform), folds)
    }

    /// `frame`, or when it is MIPI-packed Bayer whose rows (a byte a texel) are
    /// wider than this GPU's textures while its pixels are not (a 4056-pixel
    /// 12-bit row is 6084 bytes), its samples unpacked on the CPU into 16-bit
    /// words (a texel a sample) in a buffer kept between frames, and copied.
    private func narrowed(_ frame: Frame, on gpu: Device) throws -> Frame {
        // Checked without allocating: this runs for every frame.
        guard let bits = frame.format.mipiBits, PixelFormat.mipiRowBytes(width: frame.width, bits: bits) > gpu.maxTextureSize,
              frame.width <= gpu.maxTextureSize, frame.height <= gpu.maxTextureSize else { return frame }
        if let problem = frame.bayer?.format.sizeProblem(width: frame.width, height: frame.height) { throw GPUError(problem) }
        if upload == .dmabuf || (frame.planes[0].dmabuf != nil && copyReason == nil) {
            let why = Self.packedRowProblem(width: frame.width, bits: bits, textureLimit: gpu.maxTextureSize)!
            if upload == .dmabuf { throw GPUError(.upload, "dmabuf", because: "\(why) and copied", "copying the frames would work") }
            copyReason = why
        }
        if unpackedMIPI?.width != frame.width || unpackedMIPI?.height != frame.height {
            unpackedMIPI = FrameBuffer(format: .bayer16, width: frame.width, height: frame.height)
        }
        return MIPIUnpacker.unpacked(frame, into: unpackedMIPI!)
    }

    /// Below this magnification a GPU's mipmapping samples the next level.
    static let halvingMagnification = Float(0.5).squareRoot()

    /// The texture for `frame` by upload: `glTexSubImage2D` into reused
    /// textures; YUV through a conversion pass applying `transform`.
    private func copiedTexture(for frame: Frame, on gpu: Device, rect: (x: Int, y: Int, width: Int, height: Int), region: TextureRegion,
                               transform: RGBTransform?) throws -> TextureView {
        try prepare(frame, on: gpu)
        for index in planes.indices { upload(frame, on: gpu, plane: index, as: planeTextures[index]) }
        if frame.format.isYUV {
            return try convert(frame, on: gpu, program: yuvProgram(frame.format), planes: planes[0], planes.count > 1 ? planes[1] : 0,
                               planes.count > 2 ? planes[2] : 0, rect: rect, region: region, transform: transform)
        }
        if frame.format.isMosaic { return try demosaic(frame, texture: planes[0], on: gpu, rect: rect, region: region) }
        if let bits = frame.format.grayBits { return try widened(planes[0], bits: bits, on: gpu, rect: rect, region: region) }
        let order = planeTextures[0].order
        if order != .identity && gpu.glesMajorVersion < 3 {
            let program = try swizzlePrograms[order] ?? ShaderProgram(quadFragment: ShaderSource.swizzle, name: "swizzle.frag",
                                                                      defines: "#define SWIZZLE(c) \(order.glsl)\n")
            swizzlePrograms[order] = program
            return try drawn(planes[0], by: program, on: gpu, rect: rect, region: region)
        }
        return TextureView(name: planes[0], width: frame.width, height: frame.height, region: region)
    }

    /// 10- to 16-bit gray in `texture` (uploaded or imported) widened to one value by `deep_gray.frag`.
    private func widened(_ texture: GLuint, bits: Int, on gpu: Device, rect: (x: Int, y: Int, width: Int, height: Int),
                         region: TextureRegion) throws -> TextureView {
        let program = try deepGrayPrograms[bits] ?? ShaderProgram(quadFragment: ShaderSource.deepGray, name: "deep_gray.frag",
                                                                   defines: "#define TOP \((1 << bits) - 1).0\n")
        deepGrayPrograms[bits] = program
        return try drawn(texture, by: program, on: gpu, rect: rect, region: region)
    }

    /// `texture` drawn by a quad pass `program` over the crop only: RGB in
    /// another byte order reordered on OpenGL ES 2 (no texture swizzle), deep gray widened.
    private func drawn(_ texture: GLuint, by program: ShaderProgram, on gpu: Device, rect: (x: Int, y: Int, width: Int, height: Int),
                       region: TextureRegion) throws -> TextureView {
        try gpu.converted.resize(width: rect.width, height: rect.height)
        gpu.converted.bind()
        program.use()
        GL.bindTexture(texture)
        gpu.quad.draw(Quad.vertices(filling: region))
        return gpu.converted.asTexture
    }

    /// A raw Bayer frame in `texture` (uploaded or imported) developed by the demosaic pass, over the crop only.
    private func demosaic(_ frame: Frame, texture: GLuint, on gpu: Device, rect: (x: Int, y: Int, width: Int, height: Int),
                          region: TextureRegion) throws -> TextureView {
        guard let bayer = frame.bayer else { throw GPUError("a raw \(frame.format.name) frame came without its Bayer pattern") }
        if let problem = bayer.format.sizeProblem(width: frame.width, height: frame.height) { throw GPUError(problem) }
        let method = bayer.settings.demosaic
        let key = BayerProgram.Key(demosaic: method, packed: frame.format.mipiBits != nil)
        let program = try bayerPrograms[key] ?? BayerProgram(key)
        bayerPrograms[key] = program
        try gpu.converted.resize(width: rect.width, height: rect.height)
        gpu.converted.bind()
        program.program.use()
        program.set(frame: frame, bayer: bayer)
        GL.bindTexture(texture)
        gpu.quad.draw(Quad.vertices(filling: region))
        return gpu.converted.asTexture
    }

    /// The cropped rectangle converted on the CPU (at half size when
    /// `halved`) and uploaded into a texture of its size, made once per size.
    /// BGRA where the GPU takes it: llvmpipe draws a BGRA texture onto its
    /// BGRA/XRGB screen on a fixed-point path, several times faster than RGBA.
    private func convertedOnCPU(_ frame: Frame, on gpu: Device, rect: (x: Int, y: Int, width: Int, height: Int), transform: RGBTransform?,
                                halved: Bool, mosaic: Int) throws -> TextureView {
        let size = YUVToRGBA.outputSize(width: rect.width, height: rect.height, halved: halved)
        let format = uploadsBGRADirectly ? GLenum(GL_BGRA_EXT) : GLenum(GL_RGBA)
        cpuConverter.convert(frame, x: rect.x, y: rect.y, width: rect.width, height: rect.height, transform: transform,
                             order: uploadsBGRADirectly ? .bgra : .rgba, halved: halved, mosaic: mosaic)
        if let t = convertedUpload, t.width == size.width, t.height == size.height, t.format == format {
            glBindTexture(GLenum(GL_TEXTURE_2D), t.texture)
        } else {
            for side in [size.width, size.height] where side > gpu.maxTextureSize {
                throw GPUError("a \(size.width)x\(size.height) image is above this GPU's texture limit of \(gpu.maxTextureSize)x\(gpu.maxTextureSize); use a smaller input")
            }
            if var old = convertedUpload?.texture { glDeleteTextures(1, &old) }
            let texture = GL.makeTexture(filter: GL_LINEAR)
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(format), GLsizei(size.width), GLsizei(size.height), 0,
                         format, GLenum(GL_UNSIGNED_BYTE), nil)
            convertedUpload = (texture, size.width, size.height, format)
            try GL.check("allocating a \(size.width)x\(size.height) texture for converted frames")
        }
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 4)
        glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, GLsizei(size.width), GLsizei(size.height), format,
                        GLenum(GL_UNSIGNED_BYTE), cpuConverter.pixels.baseAddress)
        return TextureView(name: convertedUpload!.texture, width: size.width, height: size.height, region: .full)
    }

    /// The conversion program for a YUV `format`: `yuyv.frag` with its texels'
    /// channels swizzled to read Y0, U, Y1, V for packed 4:2:2, `nv12.frag`
    /// told the chroma order and height, and whether U and V have planes of their own.
    private func yuvProgram(_ format: PixelFormat) throws -> YUVProgram {
        if let program = yuvPrograms[format] { return program }
        let program: YUVProgram
        if let order = format.pairOrder {
            let channels = Array("rgba"), swizzle = String([order.y0, order.u, order.y1, order.v].map { channels[$0] })
            program = try YUVProgram(fragment: ShaderSource.yuyv, name: "yuyv.frag (\(format.fourcc))", defines: "#define PAIR_ORDER \(swizzle)\n")
        } else {
            let chroma = format.chromaLayout!
            program = try YUVProgram(fragment: ShaderSource.nv12, name: "nv12.frag (\(format.fourcc))",
                                     defines: (chroma.vFirst ? "#define V_FIRST\n" : "") + (chroma.fullHeight ? "#define FULL_HEIGHT_CHROMA\n" : "")
                                        + (chroma.planar ? "#define PLANAR\n" : ""))
        }
        yuvPrograms[format] = program
        return program
    }

    /// `chroma`: 0 for packed 4:2:2; `chroma2`: the V (YU12) or U (YV12) plane of planar frames.
    private func convert(_ frame: Frame, on gpu: Device, program: YUVProgram, planes luma: GLuint, _ chroma: GLuint, _ chroma2: GLuint = 0,
                         rect: (x: Int, y: Int, width: Int, height: Int), region: TextureRegion,
                         transform: RGBTransform?) throws -> TextureView {
        try gpu.converted.resize(width: rect.width, height: rect.height)
        gpu.converted.bind()
        program.program.use()
        program.set(frame: frame, transform: transform)
        GL.bindTexture(luma, unit: 0)
        if chroma != 0 { GL.bindTexture(chroma, unit: 1) }
        if chroma2 != 0 { GL.bindTexture(chroma2, unit: 2) }
        gpu.quad.draw(Quad.vertices(filling: region))
        glActiveTexture(GLenum(GL_TEXTURE0))
        return gpu.converted.asTexture
    }

    /// How plane `index` of a frame is imported (`PlaneTexture.imported`).
    /// Nil when the plane is not in a dma-buf or the format is not imported.
    /// Called each frame: it allocates nothing.
    private func importLayout(for frame: Frame, plane index: Int) -> (plane: DMABufPlane, layout: DMABufImporter.Layout)? {
        guard index < frame.planes.count, let dmabuf = frame.planes[index].dmabuf else { return nil }
        let texture = PlaneTexture(plane: index, of: frame.format, width: frame.width, height: frame.height)
        guard let imported = texture.imported else { return nil }
        return (dmabuf, DMABufImporter.Layout(fourcc: FourCC.code(imported.fourcc), width: texture.width, height: texture.height,
                                              pitch: frame.planes[index].bytesPerRow, offset: dmabuf.offset, filter: texture.filter,
                                              swizzle: imported.swizzle))
    }

    /// The texture for `frame` by dma-buf import, or nil when it is to be copied.
    private func importedTexture(for frame: Frame, on gpu: Device, rect: (x: Int, y: Int, width: Int, height: Int),
                                 region: TextureRegion, transform: RGBTransform?) throws -> TextureView? {
        func fallBack(_ reason: String) throws -> TextureView? {
            if upload == .dmabuf { throw GPUError(.upload, "dmabuf", because: "\(reason)") }
            if copyReason == nil { copyReason = reason }
            return nil
        }
        // Decided once per source: after a failure, copy without trying again.
        if !importVerified, let copyReason { return try fallBack(copyReason) }
        guard let importer = gpu.importer else { return try fallBack("no dma-buf import") }
        if let why = Self.notImported(frame.format, glesMajorVersion: gpu.glesMajorVersion) { return try fallBack(why) }
        // Semi-planar frames import their chroma plane as a second texture, planar ones their U and V as a second and third.
        let count = PlaneTexture.count(of: frame.format)
        guard let first = importLayout(for: frame, plane: 0), let second = count > 1 ? importLayout(for: frame, plane: 1) : first,
              let third = count > 2 ? importLayout(for: frame, plane: 2) : first else {
            return try fallBack("the frame's planes are not all in dma-bufs")
        }
        // The imported texture, converted where the format needs a pass.
        func draw() throws -> TextureView {
            let texture = try importer.texture(for: first.plane, layout: first.layout)
            if frame.format.isYUV {
                let chroma = count > 1 ? try importer.texture(for: second.plane, layout: second.layout) : 0
                let chroma2 = count > 2 ? try importer.texture(for: third.plane, layout: third.layout) : 0
                return try convert(frame, on: gpu, program: yuvProgram(frame.format), planes: texture, chroma, chroma2,
                                   rect: rect, region: region, transform: transform)
            }
            if frame.format.isMosaic { return try demosaic(frame, texture: texture, on: gpu, rect: rect, region: region) }
            if let bits = frame.format.grayBits { return try widened(texture, bits: bits, on: gpu, rect: rect, region: region) }
            return TextureView(name: texture, width: frame.width, height: frame.height, region: region)
        }
        let result: TextureView
        do {
            result = try draw()
        } catch {
            return try fallBack("\(error)")
        }
        if !importVerified {
            // Check the import against the copy path once: a driver that imports
            // but reads the wrong bytes must not go unnoticed.
            let imported = try pixels(of: result, on: gpu)
            let copied = try pixels(of: copiedTexture(for: frame, on: gpu, rect: rect, region: region, transform: transform), on: gpu)
            let differing = stride(from: 0, to: min(imported.count, copied.count), by: 4).filter { i in
                (i..<i + 4).contains { abs(Int(imported[$0]) - Int(copied[$0])) > 1 }
            }.count
            guard differing == 0 else {
                return try fallBack("the imported dma-buf frame differs from the copied one in \(differing) pixels")
            }
            importVerified = true
            copyReason = nil
            // The copy drew into the same target (a pass's); draw the imported frame again.
            return try draw()
        }
        return result
    }

    /// The region of `texture` as RGBA bytes, drawn into a scratch framebuffer.
    private func pixels(of texture: TextureView, on gpu: Device) throws -> [UInt8] {
        let target = try Framebuffer.reused(&scratch, width: texture.pixelWidth, height: texture.pixelHeight)
        gpu.copier.copy(texture, into: target)
        var bytes = [UInt8](repeating: 0, count: target.width * target.height * 4)
        bytes.withUnsafeMutableBytes { target.readPixels(into: $0) }
        try GL.check("reading back a frame to compare the dma-buf and copy paths")
        return bytes
    }

    /// Allocates plane textures when the frame's format or size differs from the last one.
    private func prepare(_ frame: Frame, on gpu: Device) throws {
        if let l = layout, l.format == frame.format, l.width == frame.width, l.height == frame.height { return }
        deletePlanes()
        let specs = (0..<PlaneTexture.count(of: frame.format)).map {
            PlaneTexture(plane: $0, of: frame.format, width: frame.width, height: frame.height, bgraDirect: uploadsBGRADirectly)
        }
        if let spec = specs.first(where: { $0.width > gpu.maxTextureSize || $0.height > gpu.maxTextureSize }) {
            throw GPUError("a \(frame.width)x\(frame.height) \(frame.bayer?.format.fourcc ?? frame.format.fourcc) frame needs a \(spec.width)x\(spec.height) texture, above this GPU's limit of \(gpu.maxTextureSize)x\(gpu.maxTextureSize); use a smaller input")
        }
        for spec in specs {
            planes.append(GL.makeTexture(filter: spec.filter))
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GLint(spec.format), GLsizei(spec.width), GLsizei(spec.height), 0, spec.format, spec.type, nil)
            if spec.order != .identity && gpu.glesMajorVersion >= 3 { spec.order.apply() }
        }
        planeTextures = specs
        try GL.check("allocating textures for a \(frame.width)x\(frame.height) \(frame.format.fourcc) frame")
        layout = (frame.format, frame.width, frame.height)
    }

    /// Plane `index` of `frame` into its texture, rows padded or not.
    private func upload(_ frame: Frame, on gpu: Device, plane index: Int, as texture: PlaneTexture) {
        let plane = frame.planes[index]
        let (format, type, width, height) = (texture.format, texture.type, GLsizei(texture.width), GLsizei(texture.height))
        glBindTexture(GLenum(GL_TEXTURE_2D), planes[index])
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        if plane.bytesPerRow == texture.width * texture.bytesPerTexel {
            glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, width, height, format, type, plane.bytes.baseAddress)
        } else if gpu.supportsRowLength && plane.bytesPerRow % texture.bytesPerTexel == 0 {
            glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), GLint(plane.bytesPerRow / texture.bytesPerTexel))
            glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, 0, width, height, format, type, plane.bytes.baseAddress)
            glPixelStorei(GLenum(GL_UNPACK_ROW_LENGTH), 0)
        } else {
            for row in 0..<Int(height) {
                glTexSubImage2D(GLenum(GL_TEXTURE_2D), 0, 0, GLint(row), width, 1, format, type, plane.bytes.baseAddress! + row * plane.bytesPerRow)
            }
        }
    }

    private func deletePlanes() {
        if !planes.isEmpty { glDeleteTextures(GLsizei(planes.count), planes) }
        planes.removeAll()
        planeTextures.removeAll()
        layout = nil
    }
}

/// A YUV-to-RGB conversion program and its uniform locations.
final class YUVProgram {
    let program: ShaderProgram
    private let size: GLint
    private let matrix: GLint
    private let offset: GLint
    private let rgbOffset: GLint
    private var colorSpace: YUVColorSpace?
    private var transform: RGBTransform?
    private var frameSize = (0, 0)

    /// `defines`: lines put before both shaders' sources, choosing the layout they read.
    init(fragment: String, name: String, defines: String = "") throws {
        program = try ShaderProgram(vertex: ShaderSource.yuvVertex, fragment: fragment, vertexName: "yuv.vert", fragmentName: name, defines: defines)
        program.use()
        size = program.location("u_size")
        matrix = program.location("u_yuv_to_rgb")
        offset = program.location("u_yuv_offset")
        rgbOffset = program.location("u_rgb_offset")
        glUniform1i(program.location("u_chroma"), 1)
        glUniform1i(program.location("u_chroma2"), 2)
    }

    /// Sets the uniforms for `frame`, with `transform` composed into the
    /// conversion matrix; only those that changed are sent.
    func set(frame: Frame, transform: RGBTransform?) {
        if frameSize != (frame.width, frame.height) {
            glUniform2f(size, Float(frame.width), Float(frame.height))
            frameSize = (frame.width, frame.height)
        }
        if colorSpace != frame.colorSpace || self.transform != transform {
            let (m, k) = Self.compose(frame.colorSpace.toRGB, transform)
            m.withUnsafeBufferPointer { glUniformMatrix3fv(matrix, 1, GLboolean(GL_FALSE), $0.baseAddress) }
            let o = frame.colorSpace.offset
            glUniform3f(offset, o.x, o.y, o.z)
            glUniform3f(rgbOffset, k.x, k.y, k.z)
            (colorSpace, self.transform) = (frame.colorSpace, transform)
        }
    }

    /// The matrix `transform · toRGB` (column-major, as `toRGB`) and the
    /// transform's constant: one affine map from offset-removed YUV to RGB.
    static func compose(_ toRGB: [Float], _ transform: RGBTransform?) -> (matrix: [Float], offset: SIMD3<Float>) {
        guard let transform else { return (toRGB, .zero) }
        let rows = [transform.rows.r, transform.rows.g, transform.rows.b]
        var m = [Float](repeating: 0, count: 9)
        for column in 0..<3 {
            for row in 0..<3 {
                m[column * 3 + row] = (0..<3).reduce(0) { $0 + rows[row][$1] * toRGB[column * 3 + $1] }
            }
        }
        return (m, SIMD3(rows[0].w, rows[1].w, rows[2].w))
    }
}
