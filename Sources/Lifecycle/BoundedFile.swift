import Glibc

/// A small hand-written file (a shader, a color matrix, a run's
/// configuration) read whole, its size bounded before anything is
/// allocated: the size is taken from the open file itself, and at most
/// `limit` + 1 bytes are read, so a file that grows meanwhile is refused too.
/// A FIFO or a device is refused without blocking on it.
public enum BoundedFile {
    /// Why a file was not read; each caller says it in its own words.
    public enum Failure: Error, Equatable {
        /// It cannot be opened (ENOENT: there is no such file).
        case unopened(errno: Int32)
        /// A folder, FIFO, device or socket.
        case notRegular
        /// More than the limit; `bytes`: at least this many.
        case tooLarge(bytes: Int)
        case unreadable(errno: Int32)
    }

    public static func read(_ path: String, limit: Int) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return .failure(.unopened(errno: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.unreadable(errno: errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return .failure(.notRegular) }
        guard Int(info.st_size) <= limit else { return .failure(.tooLarge(bytes: Int(info.st_size))) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while true {
            if count == bytes.count {
                guard count <= limit else { return .failure(.tooLarge(bytes: count)) }
                bytes += [UInt8](repeating: 0, count: min(bytes.count, limit + 1 - bytes.count))
            }
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(.unreadable(errno: errno)) }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { return .failure(.tooLarge(bytes: count)) }
        bytes.removeLast(bytes.count - count)
        return .success(bytes)
    }
}
