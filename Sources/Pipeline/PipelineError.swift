/// A failure of the frame loop, with a message meant for the user.
public struct PipelineError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
