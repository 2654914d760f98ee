import Messages
/// A GPU setup or rendering failure, with a message meant for the user.
public struct GPUError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }
}
