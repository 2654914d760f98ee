import Foundation

/// `--gop`: how far apart key frames are, in frames (`30`) or in seconds
/// (`2s`), as the user gave it; a live stream's viewers join at a key frame.
public enum KeyFrameInterval: Equatable, Sendable {
    case frames(Int)
    case seconds(Double)

    /// One a second, the default.
    public static let standard = KeyFrameInterval.seconds(1)

    /// `30` (frames) or `2s`, `0.5s` (seconds); nil for anything else.
    public init?(parsing text: String) {
        if text.hasSuffix("s") {
            guard let seconds = Double(text.dropLast()), seconds.isFinite, seconds > 0 else { return nil }
            self = .seconds(seconds)
        } else {
            guard let frames = Int(text) else { return nil }
            self = .frames(frames)
        }
    }

    /// Frames between key frames at `rate` frames a second (at least 1).
    public func frames(at rate: Double) -> Int {
        switch self {
        case .frames(let frames): frames
        case .seconds(let seconds): max(1, Int((seconds * rate).rounded()))
        }
    }

    /// As the user writes it.
    public var text: String {
        switch self {
        case .frames(let frames): "\(frames)"
        case .seconds(let seconds): String(format: "%gs", seconds)
        }
    }
}
