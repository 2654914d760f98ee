import Messages

/// How JPEG stills are encoded: `--quality` and `--jpeg-subsampling`.
public struct JPEGSettings: Equatable, Sendable {
    /// 1–100.
    public var quality = 92
    public var subsampling = Subsampling.s420

    public enum Subsampling: String, CaseIterable, Sendable {
        case s420 = "420", s444 = "444"
    }

    public init() {}

    /// Refuses a quality outside 1–100.
    public func check() throws {
        guard (1...100).contains(quality) else { throw OutputError(.quality, "\(quality)", is: "out of range", "use 1 to 100 (default 92)") }
    }
}
