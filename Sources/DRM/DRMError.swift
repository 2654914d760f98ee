import Messages
import Glibc

/// A failure of a DRM device, with a message meant for the user.
public struct DRMError: LibraryError {
    public let facts: Facts
    public init(facts: Facts) { self.facts = facts }

    static func reason(_ error: Int32) -> String { String(cString: strerror(error)) }
}
