import Glibc

/// A GL context opened the first time something needs it. A run whose
/// frames are converted on the CPU and handed on whole never draws, and then
/// never loads the GL driver: on Mesa's llvmpipe that is LLVM itself, about a
/// third of a short render's start. Open it on the thread that will own it.
public final class DeferredGPUContext {
    private let make: () throws -> GPUContext
    private let expectsSoftware: Bool
    /// The context, once opened.
    public private(set) var opened: GPUContext?

    /// A context `make` opens when first asked for; until then
    /// `rendersInSoftware` says `expectsSoftware`.
    public init(expectsSoftware: Bool, opening make: @escaping () throws -> GPUContext) {
        self.make = make
        self.expectsSoftware = expectsSoftware
    }

    /// A context already open.
    public init(_ context: GPUContext) {
        make = { context }
        expectsSoftware = context.rendersInSoftware
        opened = context
    }

    /// The context, opened now if it was not.
    public func open() throws -> GPUContext {
        if let opened { return opened }
        let context = try make()
        opened = context
        return context
    }

    /// Whether the renderer draws in software: the context's own answer once
    /// it is open, the expectation before.
    public var rendersInSoftware: Bool { opened?.rendersInSoftware ?? expectsSoftware }

    /// Whether `GPUContext(platform: .auto)` would find a software renderer
    /// on this machine, told without loading the GL driver: Mesa's llvmpipe
    /// is what it finds where no GPU can be reached (no DRM render node open
    /// to this user, no NVIDIA device), or where `LIBGL_ALWAYS_SOFTWARE` asks
    /// for it. A GPU that EGL reaches some other way is then not used for
    /// conversion until the context opens; the pictures are the same.
    public static var expectsSoftwareRendering: Bool {
        if let forced = getenv("LIBGL_ALWAYS_SOFTWARE").map({ String(cString: $0) }), !["", "0", "false"].contains(forced) { return true }
        return GPUContext.firstRenderNode() == nil && access("/dev/nvidiactl", F_OK) != 0
    }
}
