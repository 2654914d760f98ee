import Foundation
import Pixels

/// The hand-written text files filters read: shaders and matrices.
enum SmallFile {
    /// The largest shader or matrix file read: these are hand-written texts.
    static let limit = 1 << 20

    /// A file's bytes, refusing folders, missing files and files over `limit`.
    static func read(_ path: String) throws -> Data {
        var info = stat()
        guard stat(path, &info) == 0 else { throw FilterError("\(excerpt(path)): no such file; check the name") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw FilterError("\(excerpt(path)): not a regular file") }
        guard info.st_size <= limit else {
            throw FilterError("\(excerpt(path)): \(info.st_size) bytes is too large for a filter or shader file (at most 1 MiB)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FilterError("\(excerpt(path)): cannot read: \(String(cString: strerror(errno)))")
        }
        return data
    }
}
