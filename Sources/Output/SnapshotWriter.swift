import Glibc

/// Saves single pictures under numbered names (`kamera-snapshot-0001.png`,
/// then 0002, …) in a folder, taking the first free number and never
/// overwriting a file, even one made meanwhile by another process.
public final class SnapshotWriter {
    public let folder: String
    public let prefix: String
    private let encoder = PNGEncoder()
    private var next = 1

    public init(folder: String = ".", prefix: String = "kamera-snapshot-") {
        self.folder = folder
        self.prefix = prefix
    }

    /// Writes the picture; returns the path it took.
    public func save(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int) throws -> String {
        let bytes = try encoder.encode(pixels, width: width, height: height)
        while next < 1_000_000 {
            let name = prefix + Self.number(next) + ".png"
            let path = folder == "." ? name : folder + "/" + name
            next += 1
            if access(path, F_OK) == 0 { continue }
            let file = try OutputFile(path: path)
            try file.write(bytes)
            if try file.commit(replacing: false) { return path }
        }
        throw OutputError("\(folder): no free snapshot name left from \(prefix)0001.png to \(prefix)999999.png; move some away")
    }

    /// `n` with at least four digits: 0001.
    private static func number(_ n: Int) -> String {
        let digits = String(n)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
