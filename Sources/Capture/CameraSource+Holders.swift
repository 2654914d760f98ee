import Glibc

extension CameraSource {
    /// The processes that have `path` open, e.g. "kamera (pid 123)", when /proc tells.
    public static func holders(of path: String) -> String? {
        guard let proc = opendir("/proc") else { return nil }
        defer { closedir(proc) }
        var found: [String] = []
        let me = getpid()
        while let entry = readdir(proc) {
            guard let pid = Int32(V4L2.string(entry.pointee.d_name)), pid != me else { continue }
            guard let fds = opendir("/proc/\(pid)/fd") else { continue }
            defer { closedir(fds) }
            while let fd = readdir(fds) {
                var target = [CChar](repeating: 0, count: 256)
                let n = readlink("/proc/\(pid)/fd/\(V4L2.string(fd.pointee.d_name))", &target, 255)
                guard n > 0, String(cString: target) == path else { continue }
                let comm = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
                found.append("\(comm) (pid \(pid))")
                break
            }
        }
        return found.isEmpty ? nil : found.joined(separator: ", ")
    }
}
