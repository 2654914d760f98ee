import Messages

/// How the live picture is served: `--serve-fps`, `--auth` and the bounds
/// that keep one client from costing the others.
public struct ServeSettings: Sendable {
    /// At most this many frames a second are encoded for the clients; nil: every rendered frame.
    public var fps: Double?
    /// HTTP Basic credentials every request must carry; nil: none asked.
    public var credentials: Credentials?
    /// Connections held at once; more are closed as they come.
    public var maxConnections = 100
    /// A stream client that has taken no frame for this long is closed.
    public var stallSeconds = 5.0
    /// A connection that has not sent a whole request head this long after
    /// it opened (or after its last answer) is closed.
    public var requestSeconds = 10.0
    /// Bytes a request (its line, headers and body) may take.
    public var maxRequestBytes = 16 * 1024
    /// The filter presets the page offers, and the one shown at the start.
    public var filters: [String] = []
    public var filter = "none"

    public init() {}

    public struct Credentials: Sendable, Equatable {
        public var user: String
        public var password: String

        /// `USER:PASSWORD`, as curl's `-u` takes it.
        public init(parsing text: String) throws {
            guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex else {
                throw OutputError(.auth, is: "not USER:PASSWORD", "give both, such as \(Setting.auth) viewer:secret")
            }
            guard text.utf8.count <= 256, !text.contains(where: { $0.isNewline }) else {
                throw OutputError(.auth, is: "too long or on several lines", "give USER:PASSWORD on one line, at most 256 bytes")
            }
            user = String(text[..<colon])
            password = String(text[text.index(after: colon)...])
        }
    }

    /// Refuses a rate outside what a stream can carry.
    public func check() throws {
        if let fps, !(fps > 0 && fps <= 1000) {
            throw OutputError(.serveFPS, "\(fps)", is: "out of range", "give frames a second, more than 0 and at most 1000")
        }
    }
}
