/// The layout a source's frames arrive in: one of Kamera's own, or one it
/// repacks into its own on the CPU.
public enum SourceFormat: Equatable, Sendable {
    case native(PixelFormat)
    case repacked(RepackedFormat)

    /// Parses a name as a user types it (see `PixelFormat(name:)` and `RepackedFormat(name:)`).
    public init?(name: String) {
        if let f = PixelFormat(name: name) {
            self = .native(f)
        } else if let f = RepackedFormat(name: name) {
            self = .repacked(f)
        } else {
            return nil
        }
    }

    public static var validNames: String { PixelFormat.validNames + ", " + RepackedFormat.validNames }

    public var name: String {
        switch self {
        case .native(let f): f.name
        case .repacked(let f): f.name
        }
    }

    /// The layout later stages get.
    public var native: PixelFormat {
        switch self {
        case .native(let f): f
        case .repacked(let f): f.native
        }
    }

    /// Bytes in one tightly packed frame as it arrives.
    public func frameSize(width: Int, height: Int) -> Int {
        switch self {
        case .native(let f): f.frameSize(width: width, height: height)
        case .repacked(let f): f.frameSize(width: width, height: height)
        }
    }
}
