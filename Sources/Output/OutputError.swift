/// A failure to write output, with a message meant for the user.
public struct OutputError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
