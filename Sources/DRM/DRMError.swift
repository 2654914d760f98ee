import Glibc

/// A failure of a DRM device, with a message meant for the user.
public struct DRMError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }

    static func reason(_ error: Int32) -> String { String(cString: strerror(error)) }
}
