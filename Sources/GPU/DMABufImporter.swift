import CEGL
import CGLES
import Pixels

/// Turns dma-buf planes into GL textures without copying
/// (`EGL_EXT_image_dma_buf_import` + `GL_OES_EGL_image`). One EGLImage and
/// texture per plane of a buffer, made on first sight and reused for every
/// later frame in that buffer.
final class DMABufImporter {
    /// What a plane is imported as: the DRM format and its size in texels.
    struct Layout: Equatable {
        var fourcc: UInt32
        var width: Int
        var height: Int
        var pitch: Int
        var offset: Int
        /// GL_LINEAR for a picture sampled as it is, GL_NEAREST for packed samples a shader unpacks.
        var filter: Int32
        /// How channels are read, by texture swizzle (OpenGL ES 3).
        var swizzle = TextureSwizzle.identity
    }

    private let display: EGLDisplay
    private var images: [DMABufPlane: (layout: Layout, image: EGLImage, texture: GLuint)] = [:]

    init?(context: GPUContext) {
        guard context.eglExtensions.contains("EGL_EXT_image_dma_buf_import"),
              context.glExtensions.contains("GL_OES_EGL_image") else { return nil }
        display = context.display
    }

    deinit { forget() }

    /// The texture showing `plane` as `layout` says; the same texture as last
    /// time for a buffer seen before.
    func texture(for plane: DMABufPlane, layout: Layout) throws -> GLuint {
        if let known = images[plane], known.layout == layout { return known.texture }
        if let stale = images.removeValue(forKey: plane) { release(stale.image, stale.texture) }
        let attributes: [EGLAttrib] = [
            EGLAttrib(EGL_WIDTH), EGLAttrib(layout.width), EGLAttrib(EGL_HEIGHT), EGLAttrib(layout.height),
            EGLAttrib(EGL_LINUX_DRM_FOURCC_EXT), EGLAttrib(layout.fourcc),
            EGLAttrib(EGL_DMA_BUF_PLANE0_FD_EXT), EGLAttrib(plane.fd),
            EGLAttrib(EGL_DMA_BUF_PLANE0_OFFSET_EXT), EGLAttrib(layout.offset),
            EGLAttrib(EGL_DMA_BUF_PLANE0_PITCH_EXT), EGLAttrib(layout.pitch),
            EGLAttrib(EGL_NONE),
        ]
        guard let image = eglCreateImage(display, nil, EGLenum(EGL_LINUX_DMA_BUF_EXT), nil, attributes) else {
            throw GPUError("eglCreateImage of a \(layout.width)x\(layout.height) \(FourCC.text(layout.fourcc)) dma-buf failed (EGL error 0x\(String(eglGetError(), radix: 16)))")
        }
        let texture = GL.makeTexture(filter: layout.filter)
        guard kamera_glEGLImageTargetTexture2DOES(UInt32(GL_TEXTURE_2D), image) != 0 else {
            release(image, texture)
            throw GPUError("glEGLImageTargetTexture2DOES is missing")
        }
        if layout.swizzle != .identity { layout.swizzle.apply() }
        if let e = GL.error() {
            release(image, texture)
            throw GPUError("binding a \(FourCC.text(layout.fourcc)) dma-buf to a texture failed: \(e)")
        }
        images[plane] = (layout, image, texture)
        return texture
    }

    /// Drops every image, e.g. when the source changes and descriptors may be reused.
    func forget() {
        for entry in images.values { release(entry.image, entry.texture) }
        images.removeAll()
    }

    private func release(_ image: EGLImage, _ texture: GLuint) {
        var name = texture
        glDeleteTextures(1, &name)
        eglDestroyImage(display, image)
    }
}
