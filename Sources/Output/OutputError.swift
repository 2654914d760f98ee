import Messages
/// A failure to write output, with a message meant for the user.
public struct OutputError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}
