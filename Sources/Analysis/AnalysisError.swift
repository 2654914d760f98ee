/// A request for analysis that cannot be met, with a message meant for the user.
public struct AnalysisError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
