import CEGL
import CDRM
import CGBM
import CGLES
import DRM
import Glibc
import Logging
import Messages

/// An EGL display and OpenGL ES context with no window: rendering goes to
/// framebuffer objects. The context is current on the thread that created it
/// and must only be used there (see `RenderThread`).
public final class GPUContext {
    public let display: EGLDisplay
    public let context: EGLContext
    /// The platform actually used, e.g. "surfaceless" or "gbm:/dev/dri/renderD128".
    public let platform: String
    /// 2 or 3.
    public let glesMajorVersion: Int
    public let vendor: String
    public let renderer: String
    public let version: String
    public let glExtensions: Set<String>
    public let eglExtensions: Set<String>
    /// The GBM device under a GBM display (scanout surfaces are made on it).
    private(set) var gbmDevice: OpaquePointer?
    private var drmFD: Int32 = -1
    /// The card under a display made for scanout, kept open while the context lives.
    public let card: DRMNode?

    /// A context on `platform`; with `card`, on GBM over that card's open
    /// file instead, so that its buffers can be scanned out there (KMS).
    public init(platform: GPUPlatform = .auto, version: GLESVersion = .auto, logger: Logger? = nil, card: DRMNode? = nil) throws {
        let clientExtensions = Self.extensions(eglQueryString(nil, EGLint(EGL_EXTENSIONS)))
        var opened: (EGLDisplay, String)?
        var failures: [String] = []
        var gbm: OpaquePointer?
        var fd: Int32 = -1

        /// A GBM device and EGL display on the open DRM file `drm`; false (and
        /// nothing left made) when either cannot be had.
        func tryGBMDevice(on drm: Int32, name: String) -> Bool {
            gbm = gbm_create_device(drm)
            guard let device = gbm else { failures.append("\(name): gbm_create_device failed"); return false }
            if let d = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_GBM_KHR), UnsafeMutableRawPointer(device), nil) {
                opened = (d, name)
                return true
            }
            failures.append("\(name): no EGL display"); gbm_device_destroy(device); gbm = nil
            return false
        }
        func tryGBM(_ node: String) {
            fd = open(node, O_RDWR | O_CLOEXEC)
            guard fd >= 0 else { failures.append("gbm:\(node): \(String(cString: strerror(errno))); the DRM nodes are in /dev/dri (renderD128, card0)"); return }
            guard let version = drmGetVersion(fd) else {
                failures.append("gbm:\(node): not a DRM device; use a node in /dev/dri such as /dev/dri/renderD128 or /dev/dri/card0")
                close(fd); fd = -1; return
            }
            drmFreeVersion(version)
            if !tryGBMDevice(on: fd, name: "gbm:\(node)") { close(fd); fd = -1 }
        }
        func tryDevice() {
            guard clientExtensions.contains("EGL_EXT_platform_device") else {
                failures.append("device: EGL_EXT_platform_device not offered"); return
            }
            var devices = [EGLDeviceEXT?](repeating: nil, count: 8)
            var count: EGLint = 0
            guard kamera_eglQueryDevices(8, &devices, &count) != 0, count > 0, let device = devices[0] else {
                failures.append("device: no EGL devices"); return
            }
            if let d = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_DEVICE_EXT), device, nil) {
                opened = (d, "device")
            } else {
                failures.append("device: no EGL display")
            }
        }
        func trySurfaceless() {
            guard clientExtensions.contains("EGL_MESA_platform_surfaceless") else {
                failures.append("surfaceless: EGL_MESA_platform_surfaceless not offered"); return
            }
            if let d = eglGetPlatformDisplay(EGLenum(EGL_PLATFORM_SURFACELESS_MESA), nil, nil) {
                opened = (d, "surfaceless")
            } else {
                failures.append("surfaceless: no EGL display")
            }
        }

        // Mesa prints its loader's warnings itself while a display's card is opened and initialized
        // ("kmsro: driver missing"): caught there, where the run has started no thread yet. Elsewhere the
        // context may be opened mid-run (on the first frame that needs it), and stderr is left alone.
        var major: EGLint = 0, minor: EGLint = 0
        let (initialized, noise) = LibraryNoise.caught(if: card != nil) { () -> (display: EGLDisplay, platformName: String, ok: Bool)? in
            if let card {
                _ = tryGBMDevice(on: card.fd, name: "gbm:\(card.path)")
            } else {
                switch platform {
                case .gbm(let node): tryGBM(node)
                case .device: tryDevice()
                case .surfaceless: trySurfaceless()
                case .auto:
                    if let node = Self.firstRenderNode() { tryGBM(node) }
                    if opened == nil { tryDevice() }
                    if opened == nil { trySurfaceless() }
                }
            }
            guard let (display, platformName) = opened else { return nil }
            return (display, platformName, eglInitialize(display, &major, &minor) != 0)
        }
        for line in noise { logger?.info("EGL: \(line)") }
        guard let (display, platformName, ok) = initialized else {
            throw GPUError("\(Setting.gpu) \(platform): no EGL display: \(failures.joined(separator: "; "))")
        }
        guard ok else {
            throw GPUError("eglInitialize failed on \(platformName) (error 0x\(String(eglGetError(), radix: 16)))" + (noise.isEmpty ? "" : ": \(noise.joined(separator: "; "))"))
        }
        let displayExtensions = Self.extensions(eglQueryString(display, EGLint(EGL_EXTENSIONS)))
        guard displayExtensions.contains("EGL_KHR_surfaceless_context") else {
            throw GPUError("the EGL display on \(platformName) lacks EGL_KHR_surfaceless_context")
        }
        guard eglBindAPI(EGLenum(EGL_OPENGL_ES_API)) != 0 else { throw GPUError("eglBindAPI(OpenGL ES) failed") }

        let config = try Self.chooseConfig(display, extensions: displayExtensions)
        let wanted: [Int] = switch version { case .auto: [3, 2]; case .gles2: [2]; case .gles3: [3] }
        var created: (EGLContext, Int)?
        for v in wanted {
            let attributes: [EGLint] = [EGLint(EGL_CONTEXT_MAJOR_VERSION), EGLint(v), EGLint(EGL_NONE)]
            if let c = eglCreateContext(display, config, nil, attributes) { created = (c, v); break }
        }
        guard let (context, glesMajor) = created else {
            throw GPUError("cannot create an OpenGL ES \(wanted.map(String.init).joined(separator: " or ")) context on \(platformName) (error 0x\(String(eglGetError(), radix: 16)))")
        }
        guard eglMakeCurrent(display, nil, nil, context) != 0 else {
            throw GPUError("eglMakeCurrent failed (error 0x\(String(eglGetError(), radix: 16)))")
        }
        self.display = display
        self.context = context
        self.platform = platformName
        self.glesMajorVersion = glesMajor
        self.eglExtensions = displayExtensions
        self.gbmDevice = gbm
        self.drmFD = fd
        self.card = card
        vendor = Self.glString(GL_VENDOR)
        renderer = Self.glString(GL_RENDERER)
        self.version = Self.glString(GL_VERSION)
        glExtensions = Self.extensions(glGetString(GLenum(GL_EXTENSIONS)).map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) })
        logger?.info("EGL \(major).\(minor) platform \(platformName); GL vendor \(vendor), renderer \(renderer), version \(self.version)")
    }

    deinit {
        eglMakeCurrent(display, nil, nil, nil)
        eglDestroyContext(display, context)
        if let gbmDevice { gbm_device_destroy(gbmDevice) }
        if drmFD >= 0 { close(drmFD) }
    }

    /// Makes this context current on the calling thread.
    public func makeCurrent() throws {
        guard eglMakeCurrent(display, nil, nil, context) != 0 else {
            throw GPUError("eglMakeCurrent failed (error 0x\(String(eglGetError(), radix: 16)))")
        }
    }

    private var sharedCopier: TextureCopier?

    /// The plain texture program and quad every part of the renderer shares,
    /// made on first use; call on the thread that owns the context.
    public func copier() throws -> TextureCopier {
        let copier = try sharedCopier ?? TextureCopier()
        sharedCopier = copier
        return copier
    }

    public var summary: String { "\(platform), \(renderer), \(version)" }

    /// True for Mesa's software renderers (llvmpipe, softpipe), which draw
    /// with the CPU into ordinary memory.
    public var rendersInSoftware: Bool { ["llvmpipe", "softpipe"].contains { renderer.contains($0) } }

    private static func chooseConfig(_ display: EGLDisplay, extensions: Set<String>) throws -> EGLConfig? {
        if extensions.contains("EGL_KHR_no_config_context") { return nil }
        guard let config = rgbConfigs(display, surfaceType: 0, limit: 1).first else {
            throw GPUError("no EGL config with 8-bit RGB for OpenGL ES")
        }
        return config
    }

    /// Configs with 8-bit RGB that OpenGL ES renders to and that allow
    /// `surfaceType` (0: any, `EGL_WINDOW_BIT`: scanout), best first.
    static func rgbConfigs(_ display: EGLDisplay, surfaceType: EGLint, limit: Int) -> [EGLConfig] {
        let attributes: [EGLint] = [
            EGLint(EGL_SURFACE_TYPE), surfaceType,
            EGLint(EGL_RENDERABLE_TYPE), EGLint(EGL_OPENGL_ES2_BIT),
            EGLint(EGL_RED_SIZE), 8, EGLint(EGL_GREEN_SIZE), 8, EGLint(EGL_BLUE_SIZE), 8,
            EGLint(EGL_NONE),
        ]
        var configs = [EGLConfig?](repeating: nil, count: limit)
        var count: EGLint = 0
        guard eglChooseConfig(display, attributes, &configs, EGLint(limit), &count) != 0 else { return [] }
        return configs.prefix(Int(count)).compactMap { $0 }
    }

    static func firstRenderNode() -> String? {
        (128..<136).map { "/dev/dri/renderD\($0)" }.first { access($0, R_OK | W_OK) == 0 }
    }

    private static func extensions(_ string: UnsafePointer<CChar>?) -> Set<String> {
        guard let string else { return [] }
        return Set(String(cString: string).split(separator: " ").map(String.init))
    }

    private static func glString(_ name: Int32) -> String {
        guard let s = glGetString(GLenum(name)) else { return "unknown" }
        return String(cString: UnsafeRawPointer(s).assumingMemoryBound(to: CChar.self))
    }
}
