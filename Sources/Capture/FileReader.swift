import Glibc

/// Sequential reads from a file with stdio, with errors that name the file.
final class FileReader {
    let path: String
    private let file: UnsafeMutablePointer<FILE>

    init(path: String) throws {
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            throw CaptureError("\(path): is a directory, not a file")
        }
        guard let file = fopen(path, "rb") else {
            throw CaptureError("\(path): cannot open: \(String(cString: strerror(errno)))")
        }
        self.file = file
        self.path = path
    }

    deinit { fclose(file) }

    var size: Int {
        var info = stat()
        return fstat(fileno(file), &info) == 0 ? Int(info.st_size) : 0
    }

    /// Reads up to `buffer.count` bytes; returns how many were read.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return fread(base, 1, buffer.count, file)
    }

    /// Reads one line (without the newline), at most `limit` bytes; nil at end of file.
    func readLine(limit: Int = 1024) -> String? {
        var bytes: [UInt8] = []
        while bytes.count < limit {
            let c = fgetc(file)
            if c == EOF { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if c == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(UInt8(c))
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func rewind() { Glibc.rewind(file) }
}
