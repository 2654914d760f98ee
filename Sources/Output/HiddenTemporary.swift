import Foundation
import Lifecycle

/// Hidden temporary names (`.NAME.kamera-NS-PID.tmp`, NS the PID namespace)
/// beside a file being replaced or written where `O_TMPFILE` is missing, and
/// the clean-up of those a killed run left behind.
enum HiddenTemporary {
    private static let marker = ".kamera-"
    private static let cleaned = Lock()
    nonisolated(unsafe) private static var folders: Set<String> = []

    /// This process's PID namespace, so that a process of another namespace
    /// (a container, a VM sharing the folder) is never taken for a dead one here.
    static let namespace: UInt64 = {
        var buffer = [CChar](repeating: 0, count: 64)
        let n = readlink("/proc/self/ns/pid", &buffer, buffer.count - 1)
        guard n > 0 else { return 0 }
        let text = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return UInt64(text.filter(\.isNumber)) ?? 0
    }()

    /// The hidden name beside `path` for this process.
    static func name(for path: String) -> String {
        let folder = OutputFile.folder(of: path)
        let base = String(decoding: (path.split(separator: "/").last ?? "out").utf8.prefix(180), as: UTF8.self)
        return (folder == "." ? "" : folder + "/") + "." + base + marker + "\(namespace)-\(getpid()).tmp"
    }

    /// Removes, once per folder and process, the hidden temporaries of runs
    /// that are gone: of this PID namespace when their process no longer
    /// exists, of another when they have not changed for ten minutes.
    static func removeStale(in folder: String) {
        let first = cleaned.withLock { folders.insert(folder).inserted }
        guard first, let dir = opendir(folder) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("."), name.hasSuffix(".tmp"), let range = name.range(of: marker, options: .backwards) else { continue }
            let owner = name[range.upperBound...].dropLast(4).split(separator: "-")
            guard owner.count == 2, let space = UInt64(owner[0]), let pid = Int32(owner[1]), pid > 0 else { continue }
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let gone = space == namespace
                ? pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
                : time(nil) - info.st_mtim.tv_sec > 600
            if gone { unlink(path) }
        }
    }
}
