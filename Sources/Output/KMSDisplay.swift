import Render
import DRM
import Foundation
import GPU
import Lifecycle

/// The kernel console's display as a frame sink: each rendered frame is
/// drawn full screen into a GBM scanout buffer and flipped to at vertical
/// blank, as kmscube does. A frame waits for the previous flip to complete
/// rather than queueing behind it. The console (CRTC and VT) comes back in
/// `finish()`, in `deinit`, and on a crash or a second Ctrl-C (`ConsoleGuard`).
/// Make it, use it and drop it on the thread that owns the context.
public final class KMSDisplay: FrameSink {
    public let card: DisplayCard
    public let choice: DisplayChoice
    public let modeSetter: ModeSetter
    private let console: ConsoleGuard
    private let surface: ScanoutSurface
    private let waiter: PageFlipWaiter
    /// A KMS framebuffer per GBM buffer, made on first sight and reused.
    private var framebuffers: [ScanoutBuffer: UInt32] = [:]
    private var shown: ScanoutBuffer?
    private var queued: ScanoutBuffer?
    private var modeSet = false
    private var finished = false

    /// Takes the display: checks it can (DRM master, a scanout surface of the
    /// mode's size) before anything on screen changes. `context` must be made
    /// on `card.node` (`GPUContext(card:)`).
    public init(context: GPUContext, card: DisplayCard, choice: DisplayChoice) throws {
        self.card = card
        self.choice = choice
        try card.becomeMaster()
        modeSetter = card.atomic ? try AtomicModeSetter(card: card, choice: choice) : LegacyModeSetter(card: card, choice: choice)
        console = try ConsoleGuard(card: card, choice: choice)
        surface = try ScanoutSurface(context: context, width: choice.mode.width, height: choice.mode.height)
        waiter = PageFlipWaiter(fd: card.node.fd)
        framebuffers.reserveCapacity(8)
    }

    deinit { restore() }

    /// Page flips completed so far (the mode set's first frame not counted).
    public var flips: Int { waiter.flips }

    /// "vkms /dev/dri/card0, Virtual-1 1024x768@60, atomic"
    public var summary: String {
        "\(card.node.driverName) \(card.path), \(choice.connector.name) \(choice.mode), \(modeSetter.name)\(surface.hasNativeFences && modeSetter.takesInFences ? " with fences" : "")"
    }

    /// The scanout surface: the renderer draws each frame's last pass onto it.
    public var screen: RenderTarget? { surface }

    public func consume(_ frame: RenderedFrame) throws {
        try waitForFlip()
        let (buffer, fence): (ScanoutBuffer, Int32?)
        switch frame.picture {
        case .drawn(let target) where target === surface:
            (buffer, fence) = try surface.present()
        case .drawn(let target as Framebuffer):
            (buffer, fence) = try surface.present(target)
        default:
            throw OutputError("the display shows frames drawn offscreen or on its own surface, not on another screen or from memory")
        }
        let id: UInt32
        do {
            id = try framebuffer(for: buffer)
        } catch {
            if let fence { close(fence) }
            surface.release(buffer)
            throw error
        }
        if !modeSet {
            if let fence { close(fence) }
            console.takeOver()
            try modeSetter.setMode(framebuffer: id)
            modeSet = true
            shown = buffer
            return
        }
        try modeSetter.requestFlip(framebuffer: id, inFence: modeSetter.takesInFences ? fence : nil, userData: waiter.userData)
        if !modeSetter.takesInFences, let fence { close(fence) }
        waiter.flipRequested()
        queued = buffer
    }

    /// Hears lines worth logging (the hold of the last frame).
    public var onNote: ((String) -> Void)?
    /// After the last frame, keep it on screen until a stop is requested.
    public var holdsLastFrame = false

    /// Waits for the last flip, then gives the console back.
    public func finish() throws {
        defer { restore() }
        if holdsLastFrame {
            onNote?("holding the last frame until stopped (Ctrl-C)")
            while !StopSignal.isRequested { usleep(20_000) }
        }
        try waitForFlip()
    }

    private func waitForFlip() throws {
        guard waiter.pending else { return }
        try waiter.wait()
        if let old = shown { surface.release(old) }
        shown = queued
        queued = nil
    }

    private func framebuffer(for buffer: ScanoutBuffer) throws -> UInt32 {
        if let id = framebuffers[buffer] { return id }
        let id = try card.addFramebuffer(width: buffer.width, height: buffer.height, format: buffer.format,
                                         handle: buffer.handle, pitch: buffer.pitch, offset: buffer.offset,
                                         modifier: buffer.modifier)
        framebuffers[buffer] = id
        return id
    }

    /// The console first, then Kamera's framebuffers: removing a framebuffer
    /// still on screen would blank the display instead.
    private func restore() {
        guard !finished else { return }
        finished = true
        surface.finishRendering()
        if waiter.pending { try? waiter.wait() }
        console.restore()
        for id in framebuffers.values { card.removeFramebuffer(id) }
        framebuffers.removeAll()
        for buffer in [shown, queued].compactMap({ $0 }) { surface.release(buffer) }
        shown = nil
        queued = nil
    }
}
