import Messages
/// A frame Kamera cannot take (a size beyond `FrameLimits`), with a message meant for the user.
public struct PixelError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}
