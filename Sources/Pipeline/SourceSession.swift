import Render
import Capture
import Lifecycle
import Pixels

/// A source feeding one renderer that can be reconfigured while it runs, as
/// `AVCaptureSession` with `beginConfiguration()`/`commitConfiguration()`:
/// switching camera, format, size or rate keeps the GL context, the textures
/// and the output framebuffer; only the source is replaced. Use it on the
/// thread that owns the renderer's context.
public final class SourceSession {
    public let renderer: FrameRenderer
    /// The options the running source was made from; change them between
    /// `beginConfiguration()` and `commitConfiguration()`.
    public var configuration: SourceOptions
    public private(set) var source: FrameSource?
    private var running: SourceOptions
    private var configuring = false
    private let note: (String) -> Void

    /// Starts `configuration`'s source for `renderer`; `note` hears why frames
    /// are copied rather than imported, as `SourceOptions.makeSource` says.
    public init(renderer: FrameRenderer, configuration: SourceOptions, note: @escaping (String) -> Void = { _ in }) throws {
        var configuration = configuration
        if configuration.camera == "auto" { configuration.camera = try SourceOptions.firstCamera() }
        self.renderer = renderer
        self.configuration = configuration
        self.running = configuration
        self.note = note
        source = try make(configuration)
    }

    /// `options`' source; a camera's buffers placed where this renderer's GPU
    /// can import them, and the renderer's rate taken from a Y4M file when asked.
    private func make(_ options: SourceOptions) throws -> FrameSource {
        let convertsOnGPU = !renderer.uploader.convertsYUVOnCPU
        let placement = options.camera != nil && renderer.settings.upload != .copy ? CameraBufferPlan(renderer: renderer, convertsOnGPU: convertsOnGPU) : nil
        let source = try options.makeSource(placement: placement, convertsOnGPU: convertsOnGPU, note: note)
        if options.rateFromFile, let file = source as? Y4MSource, renderer.settings.rate != file.rate {
            var settings = renderer.settings
            settings.rate = file.rate
            try renderer.update(settings)
        }
        return source
    }

    public func beginConfiguration() {
        configuring = true
    }

    /// Applies the changes made since `beginConfiguration()`: the old source is
    /// stopped and its device released before the new one opens. If the new
    /// one cannot start, the old configuration is restored and the error thrown.
    public func commitConfiguration() throws {
        guard configuring else { return }
        configuring = false
        if configuration.camera == "auto" { configuration.camera = try SourceOptions.firstCamera() }
        guard configuration != running else { return }
        // Release the device now, even if frames of the old source are still held.
        source?.stop()
        source = nil
        renderer.uploader.forgetImportedBuffers()
        do {
            source = try make(configuration)
            running = configuration
        } catch {
            configuration = running
            source = try? make(running)
            throw error
        }
    }

    /// Switches to the next camera that can capture, after the current one in
    /// `kamera devices` order, wrapping around; returns its path.
    @discardableResult
    public func nextCamera() throws -> String {
        let cameras = CameraDevice.list().filter { $0.capabilities.contains("video-capture") }.map(\.path)
        guard !cameras.isEmpty else { throw CaptureError("no camera found (no /dev/videoN can capture video)") }
        let current = running.camera.flatMap { cameras.firstIndex(of: $0) }
        let next = cameras[current.map { ($0 + 1) % cameras.count } ?? 0]
        beginConfiguration()
        configuration.camera = next
        configuration.input = nil
        try commitConfiguration()
        return next
    }

    /// The running source; throws when the last reconfiguration failed.
    public func runningSource() throws -> FrameSource {
        guard let source else { throw CaptureError("the camera session has no source: the last reconfiguration failed") }
        return source
    }

    /// The next frame of the running source.
    public func nextFrame() throws -> Frame? {
        try runningSource().nextFrame()
    }

    /// A camera's next frame, or nil when none came within `milliseconds`
    /// (or a stop signal came); other sources as `nextFrame()`.
    public func nextFrame(waiting milliseconds: Int) throws -> Frame? {
        if let queue = source as? CaptureQueue { return try queue.nextFrame(waiting: milliseconds) }
        return try runningSource().nextFrame()
    }

    /// Stops the source and releases its device (a camera that was lost), on
    /// a thread of its own: closing a camera whose driver is going away can
    /// wait in the kernel until it is gone, and the frames must go on meanwhile.
    public func release() {
        renderer.uploader.forgetImportedBuffers()
        guard let lost = source.map(Unchecked.init) else { return }
        source = nil
        releasing?.join()
        releasing = JoinableThread(name: "kamera.release") { lost.value.stop() }
    }

    /// Opens the running configuration's source again after `release()`,
    /// once the old one is closed.
    public func reopen() throws {
        release()
        releasing?.join()
        releasing = nil
        source = try make(running)
    }

    /// The source being released by `release()`; joined when the session goes.
    private var releasing: JoinableThread?

    /// A source handed to the releasing thread, which alone uses it from then on.
    private struct Unchecked: @unchecked Sendable {
        let value: FrameSource
        init(_ value: FrameSource) { self.value = value }
    }

    deinit { releasing?.join() }
}
