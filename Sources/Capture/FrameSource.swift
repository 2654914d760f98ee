/// Anything that produces frames: the test pattern, a file, a camera.
public protocol FrameSource: AnyObject {
    /// A short human description, e.g. "test pattern 1280x720 yuyv".
    var summary: String { get }
    /// The next frame, or nil when the stream has ended. The frame's memory is
    /// valid until the next call.
    func nextFrame() throws -> Frame?
}

/// A failure to read input, with a message meant for the user.
public struct CaptureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
