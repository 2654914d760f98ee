import Messages
/// A failure of the frame loop, with a message meant for the user.
public struct PipelineError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}
