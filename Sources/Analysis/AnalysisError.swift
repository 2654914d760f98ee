import Messages
/// A request for analysis that cannot be met, with a message meant for the user.
public struct AnalysisError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}
