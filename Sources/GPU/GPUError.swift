/// A GPU setup or rendering failure, with a message meant for the user.
public struct GPUError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
