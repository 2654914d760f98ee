import Foundation
import Lifecycle

/// Hidden temporary names (`.NAME.kamera-PID.tmp`) for filesystems without
/// `O_TMPFILE`, and the clean-up of those a killed run left behind.
enum HiddenTemporary {
    private static let marker = ".kamera-"
    private static let cleaned = Lock()
    nonisolated(unsafe) private static var folders: Set<String> = []

    /// The hidden name beside `path` for this process.
    static func name(for path: String) -> String {
        let folder = OutputFile.folder(of: path)
        let base = String(decoding: (path.split(separator: "/").last ?? "out").utf8.prefix(200), as: UTF8.self)
        return (folder == "." ? "" : folder + "/") + "." + base + marker + "\(getpid()).tmp"
    }

    /// Removes, once per folder and process, the hidden temporaries of runs
    /// that are gone: their process no longer exists and the file has not
    /// changed for a minute (a writer in another PID namespace keeps its file fresh).
    static func removeStale(in folder: String) {
        let first = cleaned.withLock { folders.insert(folder).inserted }
        guard first, let dir = opendir(folder) else { return }
        defer { closedir(dir) }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix("."), name.hasSuffix(".tmp"), let range = name.range(of: marker, options: .backwards),
                  let pid = Int32(name[range.upperBound...].dropLast(4)), pid > 0, pid != getpid() else { continue }
            guard kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, now.tv_sec - info.st_mtim.tv_sec > 60 else { continue }
            unlink(path)
        }
    }
}
