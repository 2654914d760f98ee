import Messages
import Pixels

/// Where the live picture is served: `PORT`, `HOST:PORT` or `[IPv6]:PORT`,
/// as `--serve` or `-o http://HOST:PORT` give it. The host is 127.0.0.1
/// unless one is named: listening beyond loopback is asked for explicitly.
public struct ServeAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    /// 0 asks the system for a free port; the server says which.
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    public init(parsing given: String) throws {
        var text = Substring(given)
        if text.lowercased().hasPrefix("http://") { text = text.dropFirst(7) }
        if text.hasSuffix("/") { text = text.dropLast() }
        let example = "give a port (8080) or HOST:PORT (0.0.0.0:8080, [::]:8080)"
        var host = "127.0.0.1"
        var portText = text
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw OutputError(.serve, excerpt(given), is: "not an address", example)
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
        } else if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, host.count <= 253, host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:_".contains($0) }) else {
            throw OutputError(.serve, excerpt(given), is: "not an address", example)
        }
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw OutputError(.serve, excerpt(given), is: "not an address", "the port is a number from 1 to 65535 (0: any free port); \(example)")
        }
        self.host = host == "localhost" ? "127.0.0.1" : host
        self.port = port
    }

    /// True for addresses only this machine reaches.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    /// The address to open, with the port the server was given.
    public var description: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/" }
}
