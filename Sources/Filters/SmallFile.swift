import Foundation
import Lifecycle
import Pixels

/// The hand-written text files filters read: shaders and matrices.
enum SmallFile {
    /// The largest shader or matrix file read: these are hand-written texts.
    static let limit = 1 << 20

    /// A file's bytes, refusing folders, missing files and files over `limit`.
    static func read(_ path: String) throws -> Data {
        switch BoundedFile.read(path, limit: limit) {
        case .success(let bytes): return Data(bytes)
        case .failure(.unopened(let code)) where code == ENOENT || code == ENOTDIR:
            throw FilterError("\(excerpt(path)): no such file; check the name")
        case .failure(.unopened(let code)), .failure(.unreadable(let code)):
            throw FilterError("\(excerpt(path)): cannot read: \(String(cString: strerror(code)))")
        case .failure(.notRegular):
            throw FilterError("\(excerpt(path)): not a regular file")
        case .failure(.tooLarge(let bytes)):
            throw FilterError("\(excerpt(path)): \(bytes) bytes is too large for a filter or shader file (at most 1 MiB)")
        }
    }
}
