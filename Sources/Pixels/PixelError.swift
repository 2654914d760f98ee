/// A frame Kamera cannot take (a size beyond `FrameLimits`), with a message meant for the user.
public struct PixelError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
