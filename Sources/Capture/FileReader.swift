import Glibc
import Lifecycle

/// Sequential reads from a file with stdio, with errors that name the file.
final class FileReader {
    let path: String
    private let file: UnsafeMutablePointer<FILE>
    /// True for a regular file: its size is known and it can be scanned ahead.
    let isRegular: Bool
    /// The size of a regular file; 0 for pipes and devices.
    let size: Int

    init(path: String) throws {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CaptureError("\(path): is a folder, not a file")
        }
        // Opened without blocking, so a FIFO with no writer yet cannot hold the
        // run in open(), out of reach of Ctrl-C; it is waited for below instead.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw CaptureError("\(path): cannot open: \(String(cString: strerror(errno)))")
        }
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO {
            do { try Self.waitForWriter(fd, path: path) } catch { close(fd); throw error }
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        guard let file = fdopen(fd, "rb") else {
            close(fd)
            throw CaptureError("\(path): cannot open: \(String(cString: strerror(errno)))")
        }
        self.file = file
        self.path = path
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            isRegular = true
            size = Int(info.st_size)
        } else {
            isRegular = false
            size = 0
        }
    }

    /// Waits for a FIFO's writer to send its first bytes, a tenth of a second
    /// at a time, so that a stop (Ctrl-C, SIGTERM) ends the wait.
    private static func waitForWriter(_ fd: Int32, path: String) throws {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            if StopSignal.isRequested { throw CaptureError("\(path): stopped while waiting for a program to write to this FIFO") }
            poller.revents = 0
            let ready = poll(&poller, 1, 100)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw CaptureError("\(path): cannot wait for the FIFO: \(String(cString: strerror(errno)))") }
        }
    }

    deinit { fclose(file) }

    /// Reads up to `buffer.count` bytes; returns how many were read.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return fread(base, 1, buffer.count, file)
    }

    /// Reads one line (without the newline); nil at end of file. A line
    /// longer than `limit` bytes is an error naming `what` it should be.
    func readLine(limit: Int = 1024, what: String) throws -> String? {
        try readLineAndEnd(limit: limit, what: what)?.line
    }

    /// `readLine`, and whether the line ended with a newline (not the end of the file).
    func readLineAndEnd(limit: Int = 1024, what: String) throws -> (line: String, ended: Bool)? {
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            let c = fgetc(file)
            if c == EOF { return bytes.isEmpty ? nil : (String(decoding: bytes, as: UTF8.self), false) }
            if c == 0x0A { return (String(decoding: bytes, as: UTF8.self), true) }
            bytes.append(UInt8(c))
        }
        throw CaptureError("\(path): \(what) is longer than \(limit) bytes (a damaged file, or not this format)")
    }

    /// The read position, in bytes from the start.
    var offset: Int { Int(ftello(file)) }

    /// Moves the read position to `offset` bytes from the start.
    func seek(to offset: Int) {
        fseeko(file, off_t(offset), SEEK_SET)
    }
}
