import CEGL
import CGBM
import CGLES
import Glibc
import Shaders

/// A GBM surface on the display card with an EGL window surface on it: each
/// presented frame lands in a GBM buffer object that KMS can scan out. The
/// surface is made current with the context for the whole run. The renderer
/// draws a frame's last pass straight onto it (`RenderTarget`), or a picture
/// drawn offscreen is copied onto it (`present(_:)`).
public final class ScanoutSurface: RenderTarget {
    public let width: Int
    public let height: Int
    private let context: GPUContext
    private let surface: OpaquePointer
    private let eglSurface: EGLSurface
    private let copier: TextureCopier
    /// True when the display offers sync file fences (EGL_ANDROID_native_fence_sync).
    public let hasNativeFences: Bool
    /// A software renderer (llvmpipe on kms_swrast) maps a scanout buffer
    /// for each frame it draws and unmaps it after, and the last unmap drops
    /// the mapping: every frame then faults the whole buffer back in, page by
    /// page (768 faults a frame at 1024x768). Holding one mapping of each
    /// buffer for the surface's life keeps theirs alive. A GPU draws into
    /// its own memory, so there the buffers are left unmapped.
    private var holdsMappings: Bool
    private var mappings: [OpaquePointer: UnsafeMutableRawPointer?] = [:]

    public init(context: GPUContext, width: Int, height: Int) throws {
        guard let device = context.gbmDevice, let card = context.card else {
            throw GPUError("a scanout surface needs a context made on the display card")
        }
        let format: UInt32 = 0x3432_5258  // XR24 (GBM_FORMAT_XRGB8888, a macro Swift does not import)
        guard let surface = gbm_surface_create(device, UInt32(width), UInt32(height), format,
                                               UInt32(GBM_BO_USE_SCANOUT.rawValue | GBM_BO_USE_RENDERING.rawValue)) else {
            throw GPUError("\(card.path): the driver cannot give GBM scanout buffers of \(width)x\(height) XRGB8888; this card cannot show Kamera's output")
        }
        let config = try Self.windowConfig(context.display, format: format)
        guard let eglSurface = eglCreatePlatformWindowSurface(context.display, config, UnsafeMutableRawPointer(surface), nil) else {
            gbm_surface_destroy(surface)
            throw GPUError("\(card.path): cannot make an EGL window surface on GBM (error 0x\(String(eglGetError(), radix: 16)))")
        }
        guard eglMakeCurrent(context.display, eglSurface, eglSurface, context.context) != 0 else {
            eglDestroySurface(context.display, eglSurface)
            gbm_surface_destroy(surface)
            throw GPUError("eglMakeCurrent with the scanout surface failed (error 0x\(String(eglGetError(), radix: 16)))")
        }
        self.context = context
        self.surface = surface
        self.eglSurface = eglSurface
        self.width = width
        self.height = height
        hasNativeFences = context.eglExtensions.contains("EGL_ANDROID_native_fence_sync")
        holdsMappings = context.rendersInSoftware
        mappings.reserveCapacity(4)
        copier = try context.copier()
    }

    deinit {
        glFinish()
        for (bo, data) in mappings { gbm_bo_unmap(bo, data) }
        eglMakeCurrent(context.display, nil, nil, context.context)
        eglDestroySurface(context.display, eglSurface)
        gbm_surface_destroy(surface)
    }

    /// The screen shows GL's last row at its top.
    public var topRowFirst: Bool { false }

    /// Binds the surface (GL's default framebuffer) for drawing straight onto the screen.
    public func bind() {
        glBindFramebuffer(GLenum(GL_FRAMEBUFFER), 0)
        glViewport(0, 0, GLsizei(width), GLsizei(height))
    }

    /// Draws `picture` as large as the surface holds it whole, centered on
    /// black (image top at the screen's top), and presents it: for pictures
    /// rendered offscreen at their own size, beside outputs that take them so.
    public func present(_ picture: Framebuffer) throws -> (buffer: ScanoutBuffer, fence: Int32?) {
        bind()
        glClearColor(0, 0, 0, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        let scale = min(Double(width) / Double(picture.width), Double(height) / Double(picture.height))
        let (w, h) = (Int((Double(picture.width) * scale).rounded()), Int((Double(picture.height) * scale).rounded()))
        glViewport(GLint((width - w) / 2), GLint((height - h) / 2), GLsizei(w), GLsizei(h))
        // The renderer keeps the image's top row at texture row 0.
        copier.draw(picture.asTexture, Quad.vertices(filling: TextureRegion.full.flippedVertically))
        return try present()
    }

    /// Swaps what was drawn into the surface since the last swap; returns the
    /// buffer object now holding it, locked until `release`, and a render
    /// fence when the display offers them.
    public func present() throws -> (buffer: ScanoutBuffer, fence: Int32?) {
        let fence = hasNativeFences ? kamera_egl_native_fence(context.display) : -1
        guard eglSwapBuffers(context.display, eglSurface) != 0 else {
            if fence >= 0 { close(fence) }
            throw GPUError("eglSwapBuffers failed (error 0x\(String(eglGetError(), radix: 16)))")
        }
        guard let bo = gbm_surface_lock_front_buffer(surface) else {
            if fence >= 0 { close(fence) }
            throw GPUError("GBM gave no front buffer after the swap")
        }
        if holdsMappings && mappings[bo] == nil { holdMapping(bo) }
        return (ScanoutBuffer(bo), fence >= 0 ? fence : nil)
    }

    /// Waits until the GPU has finished every drawing queued, so that no
    /// buffer is given back or unmapped while it is still being drawn into.
    public func finishRendering() {
        glFinish()
    }

    /// Gives a buffer back to the surface once the display no longer shows it.
    public func release(_ buffer: ScanoutBuffer) {
        gbm_surface_release_buffer(surface, buffer.bo)
    }

    /// A read mapping of `bo` kept until the surface goes; if the driver
    /// gives none, drawing goes on as before, without trying again.
    private func holdMapping(_ bo: OpaquePointer) {
        var stride: UInt32 = 0
        var data: UnsafeMutableRawPointer?
        guard gbm_bo_map(bo, 0, 0, gbm_bo_get_width(bo), gbm_bo_get_height(bo), UInt32(GBM_BO_TRANSFER_READ.rawValue),
                         &stride, &data) != nil else {
            holdsMappings = false
            return
        }
        mappings[bo] = data
    }

    private static func windowConfig(_ display: EGLDisplay, format: UInt32) throws -> EGLConfig {
        for config in GPUContext.rgbConfigs(display, surfaceType: EGLint(EGL_WINDOW_BIT), limit: 64) {
            var visual: EGLint = 0
            if eglGetConfigAttrib(display, config, EGLint(EGL_NATIVE_VISUAL_ID), &visual) != 0, UInt32(visual) == format {
                return config
            }
        }
        throw GPUError("no EGL config renders XRGB8888 for GBM scanout")
    }
}

/// A GBM buffer object the display can scan out, and what KMS needs to know of it.
public struct ScanoutBuffer: Hashable {
    let bo: OpaquePointer

    init(_ bo: OpaquePointer) { self.bo = bo }

    public var width: Int { Int(gbm_bo_get_width(bo)) }
    public var height: Int { Int(gbm_bo_get_height(bo)) }
    public var format: UInt32 { gbm_bo_get_format(bo) }
    public var handle: UInt32 { gbm_bo_get_handle(bo).u32 }
    public var pitch: UInt32 { gbm_bo_get_stride(bo) }
    public var offset: UInt32 { gbm_bo_get_offset(bo, 0) }
    /// nil when GBM reports `DRM_FORMAT_MOD_INVALID` (no explicit layout).
    public var modifier: UInt64? {
        let m = gbm_bo_get_modifier(bo)
        return m == 0x00ff_ffff_ffff_ffff ? nil : m
    }
}
