/// Puts framebuffers on screen: a mode set for the first, then page flips
/// that complete at vertical blank with an event (see `PageFlipWaiter`).
public protocol ModeSetter: AnyObject {
    /// "atomic" or "legacy".
    var name: String { get }
    /// Sets the mode with `framebuffer` shown; returns when it is on screen.
    func setMode(framebuffer: UInt32) throws
    /// Asks for `framebuffer` at the next vertical blank and returns at once;
    /// `inFence` (a sync file fd, taken over) makes the flip wait for rendering.
    func requestFlip(framebuffer: UInt32, inFence: Int32?, userData: UnsafeMutableRawPointer?) throws
    /// True when flips can wait on an in-fence.
    var takesInFences: Bool { get }
}
