import Messages
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
    /// The camera behind a live source (its controls, zoom and counters); nil for files and the test pattern.
    var camera: LiveCamera? { get }
    /// What a live source has captured and dropped so far; nil for files and the test pattern.
    var captureStatistics: CaptureStatistics? { get }
    /// Releases the device at once, before the source itself goes (a camera
    /// switch opens the next one only after); frames already taken stay readable.
    func stop()
}

/// What a live source has captured and dropped.
public struct CaptureStatistics: Sendable, CustomStringConvertible {
    public var framesCaptured: Int
    /// Frames dropped because the loop had not taken them when newer came.
    public var lateDrops: Int
    /// Frames the driver reported lost (gaps in its sequence numbers).
    public var driverDrops: Int
    /// Compressed frames that gave no picture: damaged ones, and those of a
    /// stream before its first key frame.
    public var undecoded: Int
    /// Frames a second, from the driver's timestamps; nil before two frames.
    public var measuredRate: Double?

    public init(framesCaptured: Int = 0, lateDrops: Int = 0, driverDrops: Int = 0, undecoded: Int = 0, measuredRate: Double? = nil) {
        (self.framesCaptured, self.lateDrops, self.driverDrops, self.undecoded, self.measuredRate) = (framesCaptured, lateDrops, driverDrops, undecoded, measuredRate)
    }

    /// "captured 180 frames, 2 dropped late, 0 by the driver, 5 not decoded"
    /// (the last only when there are any): for a run's summary and log.
    public var description: String {
        "captured \(framesCaptured) \(framesCaptured == 1 ? "frame" : "frames"), \(lateDrops) dropped late, \(driverDrops) by the driver"
            + (undecoded > 0 ? ", \(undecoded) not decoded" : "")
    }

    /// "late 2, driver 0, undecoded 5" (the last only when there are any): for the live status line.
    public var statusText: String {
        "late \(lateDrops), driver \(driverDrops)" + (undecoded > 0 ? ", undecoded \(undecoded)" : "")
    }
}

extension FrameSource {
    public var inventory: FrameInventory? { nil }
    public var camera: LiveCamera? { nil }
    public var captureStatistics: CaptureStatistics? { nil }
    public func stop() {}

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
public struct CaptureError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}
