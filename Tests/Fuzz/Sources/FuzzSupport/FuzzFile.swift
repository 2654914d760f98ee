import Glibc

/// The fuzz input as a file, for the sources that read files: one path per
/// process in /dev/shm (memory), rewritten for every input, and removed when
/// the process exits (libFuzzer ends a timed run with `exit`).
public enum FuzzFile {
    public static let path: String = {
        let folder = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        return "\(folder)/kamera-fuzz-\(getpid())"
    }()

    /// The names written so far, for `atexit`.
    private static var written: Set<String> = []

    /// Writes `bytes` to `path` (with `suffix` added) and returns that path.
    public static func write(_ bytes: UnsafeRawBufferPointer, suffix: String = "") -> String {
        let name = path + suffix
        if written.isEmpty {
            atexit { for name in FuzzFile.written { unlink(name) } }
        }
        written.insert(name)
        let fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        precondition(fd >= 0, "cannot write \(name)")
        var offset = 0
        while offset < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            precondition(n > 0)
            offset += n
        }
        close(fd)
        return name
    }
}

/// Reads little fields off the front of a fuzz input.
public struct FuzzBytes {
    private var bytes: ArraySlice<UInt8>

    public init(_ data: UnsafeRawBufferPointer) { bytes = ArraySlice(data) }

    public var isEmpty: Bool { bytes.isEmpty }

    public mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    public mutating func int64() -> Int64 {
        var value: Int64 = 0
        for _ in 0..<8 { value = value << 8 | Int64(byte()) }
        return value
    }

    /// Text up to the next newline (or the end).
    public mutating func line() -> String {
        let text = bytes.prefix { $0 != 0x0A }
        bytes = bytes.dropFirst(text.count + 1)
        return String(decoding: text, as: UTF8.self)
    }

    public var rest: [UInt8] { Array(bytes) }
}
