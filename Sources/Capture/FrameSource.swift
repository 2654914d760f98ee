import Pixels
/// Anything that produces frames: the test pattern, a file, a camera.
public protocol FrameSource: AnyObject {
    /// A short human description, e.g. "test pattern 1280x720 yuyv".
    var summary: String { get }
    /// The next frame, or nil when the stream has ended. The frame's memory is
    /// valid until the next call.
    func nextFrame() throws -> Frame?
    /// What a file holds, when it is known before reading: nil for endless
    /// sources (cameras, the test pattern, an image) and for pipes.
    var inventory: FrameInventory? { get }
    /// Passes over `count` frames (to start an export at a later frame);
    /// returns how many there were before the stream ended.
    func skip(_ count: Int) throws -> Int
}

extension FrameSource {
    public var inventory: FrameInventory? { nil }

    public func skip(_ count: Int) throws -> Int {
        for done in 0..<count where try nextFrame() == nil { return done }
        return count
    }
}

/// The whole frames a file holds, and what is wrong after them.
public struct FrameInventory: Equatable, Sendable {
    public var frames: Int
    /// Why the file ends before its last frame is whole (e.g. "frame 3 is
    /// truncated"); nil when it ends cleanly.
    public var damage: String?

    public init(frames: Int, damage: String? = nil) {
        self.frames = frames
        self.damage = damage
    }
}

/// A failure to read input, with a message meant for the user.
public struct CaptureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
