import CDRM
import CLinux
import Glibc
import Lifecycle

/// What the console showed before Kamera took the display: the CRTC's
/// framebuffer and mode, and the virtual terminal's text mode. `restore()`
/// puts both back; it runs on every exit path: the end of a run, an error,
/// a second Ctrl-C, and a crash (SIGSEGV, SIGILL, SIGABRT, …), through
/// signal handlers that do nothing but two ioctls. SIGKILL cannot be caught:
/// see the README for what to do then.
public final class ConsoleGuard {
    private let card: DisplayCard
    private var restored = true

    /// Read before the first mode set: what the CRTC shows now.
    public init(card: DisplayCard, choice: DisplayChoice) throws {
        self.card = card
        guard let crtc = drmModeGetCrtc(card.node.fd, choice.crtcID) else {
            throw DRMError("\(card.path): cannot read CRTC \(choice.crtcID): \(DRMError.reason(errno))")
        }
        defer { drmModeFreeCrtc(crtc) }
        let saved = Self.saved
        saved.pointee.drmFD = card.node.fd
        saved.pointee.connector = choice.connector.currentCRTC == choice.crtcID ? choice.connector.id : 0
        var request = drm_mode_crtc()
        request.crtc_id = choice.crtcID
        request.fb_id = crtc.pointee.buffer_id
        request.x = crtc.pointee.x
        request.y = crtc.pointee.y
        request.mode_valid = UInt32(crtc.pointee.mode_valid)
        withUnsafeMutableBytes(of: &request.mode) { target in
            withUnsafeBytes(of: crtc.pointee.mode) { target.copyMemory(from: $0) }
        }
        saved.pointee.crtc = request
        saved.pointee.vtFD = -1
    }

    deinit { restore() }

    /// Takes the console: the VT goes to graphics mode (no text, no cursor
    /// drawn over the picture) and the crash handlers are armed.
    public func takeOver() {
        let saved = Self.saved
        (saved.pointee.vtFD, saved.pointee.vtMode) = Self.virtualTerminal() ?? (-1, 0)
        restored = false
        Self.armed = true
        StopSignal.restoreOnForcedExit(calling: Self.emergencyRestore)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            ConsoleGuard.emergencyRestore()
            signal(number, SIG_DFL)
            raise(number)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        for number in Self.crashSignals { sigaction(number, &action, nil) }
        if saved.pointee.vtFD >= 0 { _ = kamera_vt_set_mode(saved.pointee.vtFD, KAMERA_KD_GRAPHICS) }
    }

    /// Puts the CRTC and the VT back as they were; later calls do nothing.
    public func restore() {
        guard !restored else { return }
        restored = true
        Self.emergencyRestore()
        StopSignal.restoreOnForcedExit(calling: nil)
        for number in Self.crashSignals { signal(number, SIG_DFL) }
        let vt = Self.saved.pointee.vtFD
        if vt > STDIN_FILENO { close(vt) }
        Self.saved.pointee.vtFD = -1
    }

    /// Standard input when it is a virtual terminal, else the foreground one
    /// (/dev/tty0, root only), with its mode; nil when there is none.
    private static func virtualTerminal() -> (fd: Int32, mode: Int32)? {
        let mode = kamera_vt_get_mode(STDIN_FILENO)
        if mode >= 0 { return (STDIN_FILENO, Int32(mode)) }
        let console = open("/dev/tty0", O_RDWR | O_CLOEXEC)
        guard console >= 0 else { return nil }
        let consoleMode = kamera_vt_get_mode(console)
        if consoleMode >= 0 { return (console, Int32(consoleMode)) }
        close(console)
        return nil
    }

    /// True when the VT was switched to graphics mode.
    public var ownsTerminal: Bool { Self.saved.pointee.vtFD >= 0 }

    private static let crashSignals = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]

    private struct Saved {
        var drmFD: Int32 = -1
        var connector: UInt32 = 0
        var crtc = drm_mode_crtc()
        var vtFD: Int32 = -1
        var vtMode: Int32 = 0
    }

    // Plain memory the signal handlers read: no allocation, no locks there.
    nonisolated(unsafe) private static let saved: UnsafeMutablePointer<Saved> = {
        let pointer = UnsafeMutablePointer<Saved>.allocate(capacity: 1)
        pointer.initialize(to: Saved())
        return pointer
    }()
    nonisolated(unsafe) private static var armed = false

    /// Two ioctls, safe in a signal handler: the saved CRTC state, then the VT's mode.
    private static let emergencyRestore: @convention(c) () -> Void = {
        guard ConsoleGuard.armed else { return }
        ConsoleGuard.armed = false
        let saved = ConsoleGuard.saved
        let connector = UnsafeMutableRawPointer(saved) + MemoryLayout<Saved>.offset(of: \Saved.connector)!
        let fb = saved.pointee.crtc.fb_id
        saved.pointee.crtc.set_connectors_ptr = UInt64(UInt(bitPattern: connector))
        saved.pointee.crtc.count_connectors = saved.pointee.connector == 0 || fb == 0 ? 0 : 1
        if fb == 0 { saved.pointee.crtc.mode_valid = 0 }
        let crtc = UnsafeMutableRawPointer(saved) + MemoryLayout<Saved>.offset(of: \Saved.crtc)!
        _ = kamera_drm_set_crtc(saved.pointee.drmFD, crtc.assumingMemoryBound(to: drm_mode_crtc.self))
        if saved.pointee.vtFD >= 0 { _ = kamera_vt_set_mode(saved.pointee.vtFD, saved.pointee.vtMode) }
    }
}
