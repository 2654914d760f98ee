import Glibc

/// The other processes that have a file open (from /proc/PID/fd), as
/// "name (pid N)", for messages about a busy camera or display card.
public enum FileHolders {
    public static func of(_ path: String) -> [(name: String, pid: Int32)] {
        guard let proc = opendir("/proc") else { return [] }
        defer { closedir(proc) }
        var found: [(String, Int32)] = []
        let me = getpid()
        while let entry = readdir(proc) {
            guard let pid = Int32(name(entry)), pid != me else { continue }
            guard let fds = opendir("/proc/\(pid)/fd") else { continue }
            defer { closedir(fds) }
            while let fd = readdir(fds) {
                var target = [CChar](repeating: 0, count: 256)
                let n = readlink("/proc/\(pid)/fd/\(name(fd))", &target, 255)
                guard n > 0, String(cString: target) == path else { continue }
                found.append((command(of: pid), pid))
                break
            }
        }
        return found
    }

    /// "kamera (pid 12), Xorg (pid 40)", or nil when nobody else has it open.
    public static func summary(of path: String) -> String? {
        let all = of(path)
        return all.isEmpty ? nil : all.map { "\($0.name) (pid \($0.pid))" }.joined(separator: ", ")
    }

    private static func command(of pid: Int32) -> String {
        guard let file = fopen("/proc/\(pid)/comm", "r") else { return "?" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, 64, file) != nil else { return "?" }
        var command = String(cString: buffer)
        if command.last == "\n" { command.removeLast() }
        return command
    }

    private static func name(_ entry: UnsafeMutablePointer<dirent>) -> String {
        withUnsafePointer(to: entry.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
    }
}
