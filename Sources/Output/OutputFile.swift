import CLinux
import Foundation
import Lifecycle
import Messages

/// One output file being written, such that nobody ever sees it half-written
/// and a run that dies leaves nothing behind:
/// - a regular file (or a new name) is written as an unnamed file in the
///   target's folder (`O_TMPFILE`) and linked into place by `commit()`; where
///   the filesystem has no `O_TMPFILE`, under a hidden temporary name
///   (`HiddenTemporary`) renamed into place, and such names left by a killed
///   run are removed by the next run that writes to the folder;
/// - a character or block device or a FIFO is written in place, never
///   replaced (`-o /dev/null`, a pipe another program reads);
/// - `-` is standard output;
/// - `/dev/stdout` (and `/dev/fd/1`, `/proc/self/fd/1`) is standard output,
///   as `-` is; another descriptor the shell gave (`/dev/stderr`, `/dev/fd/N`:
///   a redirection such as `3>out.jsonl`, or `>(program)`) is written in
///   place through that descriptor, where the shell left it;
/// - a symbolic link is followed: its target is replaced, the link kept.
public final class OutputFile {
    /// The name as the user gave it.
    public let path: String
    /// True for standard output, devices and FIFOs: written in place, and
    /// able to take several images one after another.
    public let isStream: Bool
    private var fd: Int32
    /// A pipe or FIFO: an image goes in once the reader has taken the last,
    /// so a stop request is answered even when the reader has stopped reading.
    private let isPipe: Bool
    private let target: String
    private var temporary: String?
    private var committed = false
    /// Already under its name (`publish()`): `commit()` only makes it durable.
    private var published = false
    /// Bytes of whole writes in a file (`write(_:)`).
    private var wholeLength: Int64 = 0

    /// The open file, for writers that write, and seek, themselves (libavformat through `kamera_avio_for_fd`).
    public var descriptor: Int32 { fd }

    /// Opens `path` for writing. Nothing is visible under its name before
    /// `commit()`. `example`: a name of the kind written, for the message
    /// when `path` is a folder.
    public init(path: String, example: String = "frame.png") throws {
        self.path = path
        let kind = try Self.kind(of: path, example: example)
        switch kind {
        case .standardOutput:
            guard isatty(STDOUT_FILENO) == 0 else {
                throw OutputError("\(path): standard output is a terminal; send it to a program or a file (kamera ... \(Setting.output) - | display), or give a file name")
            }
            fd = STDOUT_FILENO
            target = "-"
            isStream = true
            isPipe = Self.isPipe(fd)
        case .descriptor(let number):
            fd = fcntl(number, F_DUPFD_CLOEXEC, STDERR_FILENO + 1)
            guard fd >= 0 else { throw OutputError("\(path): cannot write: \(Self.reason(errno))") }
            target = path
            isStream = true
            isPipe = Self.isPipe(fd)
        case .inPlace(let resolved):
            fd = try Self.openInPlace(resolved, as: path)
            target = resolved
            isStream = true
            isPipe = Self.isPipe(fd)
        case .file(let resolved):
            target = resolved
            isStream = false
            isPipe = false
            try Self.checkFolder(of: resolved, as: path)
            let folder = Self.folder(of: resolved)
            HiddenTemporary.removeStale(in: folder)
            fd = Self.canLinkUnnamedFiles ? open(folder, KAMERA_O_TMPFILE | O_WRONLY | O_CLOEXEC, 0o666) : -1
            if fd < 0 {
                guard !Self.canLinkUnnamedFiles || [EOPNOTSUPP, EISDIR, EINVAL].contains(errno) else {
                    throw OutputError("\(path): cannot write: \(Self.reason(errno))")
                }
                let name = HiddenTemporary.name(for: resolved)
                fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
                guard fd >= 0 else { throw OutputError("\(path): cannot write: \(Self.reason(errno))") }
                temporary = name
            }
        }
    }

    deinit {
        if !committed { discard() }
    }

    /// Appends `bytes` (one image). To a pipe or FIFO, an image is sent only
    /// once the reader has taken the one before (the buffer is enlarged to
    /// hold a whole image, up to the system's limit), so it goes in without
    /// blocking, and a stop request while the reader is not taking data ends
    /// the write with nothing of the image sent: the reader only ever gets
    /// whole images. An image larger than any pipe buffer is sent in pieces;
    /// a stop then cuts it off, and the error says so.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if isPipe, try waitForRoom(bytes.count) { return try writeAll(bytes, pieces: false) }
        do {
            try writeAll(bytes, pieces: isPipe)
            wholeLength += Int64(bytes.count)
        } catch {
            // A file holds whole writes only (a frame, a line): what part of this one went in is taken back.
            if !isStream { _ = ftruncate(fd, off_t(wholeLength)) }
            throw error
        }
    }

    /// Waits until the pipe is empty and can take `count` bytes at once;
    /// false when its buffer cannot be made that large. (An empty pipe, not
    /// merely enough free bytes: small writes each hold a page of the buffer,
    /// so free bytes do not tell whether a write would block.)
    private func waitForRoom(_ count: Int) throws -> Bool {
        let capacity = Int(kamera_pipe_reserve(fd, Int32(clamping: count)))
        guard capacity >= count else { return false }
        while true {
            let unread = Int(kamera_pipe_unread(fd))
            guard unread >= 0 else { return false }
            if unread == 0 { return true }
            // A pipe whose reader is gone reports an error condition, and its
            // unread bytes stay there forever.
            var poller = pollfd(fd: fd, events: 0, revents: 0)
            if poll(&poller, 1, 0) > 0, poller.revents & Int16(POLLERR) != 0 {
                throw OutputError("\(path): cannot write: the program reading it closed the pipe")
            }
            if StopSignal.isRequested {
                throw OutputError("\(path): stopped while the program reading it was not taking more; nothing of the next image was sent")
            }
            usleep(5_000)
        }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer, pieces: Bool) throws {
        var offset = 0
        while offset < bytes.count {
            var count = bytes.count - offset
            if pieces {
                var poller = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                guard poll(&poller, 1, 100) > 0 else {
                    if StopSignal.isRequested {
                        throw OutputError("\(path): stopped while the program reading it was not taking more; the next image, larger than a pipe can hold, was cut off after \(offset) of \(bytes.count) bytes")
                    }
                    continue
                }
                count = min(count, Int(PIPE_BUF))  // fits in the room poll saw: never blocks
            }
            let n = Glibc.write(fd, bytes.baseAddress! + offset, count)
            if n < 0 {
                if errno == EINTR { continue }
                let reason = errno == EPIPE ? "the program reading it closed the pipe" : Self.reason(errno)
                throw OutputError("\(path): cannot write: \(reason)")
            }
            offset += n
        }
    }

    /// Puts the finished file in place under its name (streams: nothing to do
    /// but close). After a failure nothing is left behind. With `replacing`
    /// false, a file already there is kept and false returned (snapshots
    /// never overwrite).
    @discardableResult
    public func commit(replacing: Bool = true) throws -> Bool {
        guard !committed else { return true }
        committed = true
        defer { closeFile() }
        guard !isStream else { return true }
        if published {
            guard fsync(fd) == 0 else { throw OutputError("\(path): cannot write: \(Self.reason(errno))") }
            return true
        }
        // On disk before it has a name: a crash of the machine leaves the old file or the new one.
        guard fsync(fd) == 0 else {
            let reason = Self.reason(errno)
            discard()
            throw OutputError("\(path): cannot write: \(reason)")
        }
        return try place(replacing: replacing)
    }

    /// Gives the file its name: a hidden temporary renamed (or linked, not
    /// replacing); an unnamed file linked straight to a free name, or to
    /// replace a file, linked to a hidden name renamed over the old one.
    /// False when not replacing and the name is taken.
    private func place(replacing: Bool) throws -> Bool {
        if let temporary {
            let placed = replacing ? rename(temporary, target) == 0 : link(temporary, target) == 0
            let error = errno
            if !placed || !replacing { unlink(temporary) }
            if placed { return true }
            if !replacing && error == EEXIST { return false }
            throw OutputError("\(path): cannot write: \(Self.reason(error))")
        }
        let source = "/proc/self/fd/\(fd)"
        if linkat(AT_FDCWD, source, AT_FDCWD, target, AT_SYMLINK_FOLLOW) == 0 { return true }
        guard errno == EEXIST else { throw OutputError("\(path): cannot write: \(Self.reason(errno))") }
        if !replacing { return false }
        let name = HiddenTemporary.name(for: target)
        guard linkat(AT_FDCWD, source, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 else {
            throw OutputError("\(path): cannot write: \(Self.reason(errno))")
        }
        guard rename(name, target) == 0 else {
            let reason = Self.reason(errno)
            unlink(name)
            throw OutputError("\(path): cannot write: \(reason)")
        }
        return true
    }

    /// Drops what was written: the file never appears (once published, it stays as it is).
    public func discard() {
        committed = true
        if let temporary, !published { unlink(temporary) }
        closeFile()
    }

    /// Puts the file under its name now, replacing what was there, while
    /// writing goes on: for a recording that plays at every moment (fragmented
    /// MP4, Matroska), so that a run killed outright leaves what it recorded.
    public func publish() throws {
        guard !isStream, !published, !committed else { return }
        _ = try place(replacing: true)
        temporary = nil
        published = true
    }

    /// Under its name already (`publish()`).
    public var isPublished: Bool { published }

    /// Cuts a file written by its descriptor back to its first `length`
    /// bytes (its last whole part, after a failed write); streams are left.
    public func truncate(to length: Int64) throws {
        guard !isStream, fd >= 0 else { return }
        guard ftruncate(fd, off_t(length)) == 0 else { throw OutputError("\(path): cannot cut back to its whole part: \(Self.reason(errno))") }
        wholeLength = length
    }

    private func closeFile() {
        if fd > STDERR_FILENO { close(fd) }
        fd = -1
    }

    /// Opens a device or FIFO for writing. A FIFO is opened without waiting
    /// and tried again until a program reads it, so a stop request is answered
    /// meanwhile; then it is made blocking again.
    private static func openInPlace(_ path: String, as given: String) throws -> Int32 {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO else {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw OutputError("\(given): cannot write: \(reason(errno))") }
            return fd
        }
        while true {
            let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                return fd
            }
            guard errno == ENXIO || errno == EINTR else { throw OutputError("\(given): cannot write: \(reason(errno))") }
            if StopSignal.isRequested { throw OutputError("\(given): stopped while waiting for a program to read the FIFO") }
            usleep(20_000)
        }
    }

    private static func isPipe(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && [S_IFIFO, S_IFSOCK].contains(info.st_mode & S_IFMT)
    }

    /// Unnamed files are linked through /proc/self/fd, which must be mounted.
    private static let canLinkUnnamedFiles = access("/proc/self/fd", X_OK) == 0

    enum Kind: Equatable {
        case standardOutput
        /// One of the process's open descriptors, by its number.
        case descriptor(Int32)
        /// A device or FIFO, at its resolved path.
        case inPlace(String)
        /// A regular file or a new name, at its resolved path.
        case file(String)

        /// The descriptor written, for standard output and the shell's.
        var openDescriptor: Int32? {
            switch self {
            case .standardOutput: STDOUT_FILENO
            case .descriptor(let number): number
            case .inPlace, .file: nil
            }
        }

        /// Written where it is, image after image, never replaced.
        var isInPlace: Bool {
            switch self {
            case .descriptor, .inPlace: true
            case .standardOutput, .file: false
            }
        }
    }

    /// The descriptor that `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N` names, open or not.
    private static func descriptorNumber(in path: String) -> Int32? {
        switch path {
        case "/dev/stdout": return STDOUT_FILENO
        case "/dev/stderr": return STDERR_FILENO
        default:
            guard let prefix = ["/dev/fd/", "/proc/self/fd/"].first(where: path.hasPrefix) else { return nil }
            return Int32(path.dropFirst(prefix.count)).flatMap { $0 >= 0 ? $0 : nil }
        }
    }

    /// True for `-` and the names of descriptor 1 (`/dev/stdout`): standard output.
    public static func isStandardOutput(_ path: String) -> Bool {
        path == "-" || descriptorNumber(in: path) == STDOUT_FILENO
    }

    /// What writing to `path` means, symbolic links followed.
    static func kind(of path: String, example: String = "frame.png") throws -> Kind {
        if isStandardOutput(path) { return .standardOutput }
        guard !path.isEmpty else {
            throw OutputError("the output name is empty; give a file name such as out.png, or - for standard output")
        }
        if let number = descriptorNumber(in: path) {
            // Kamera's own descriptors (its camera, the code reader's helper) are close-on-exec; the shell's are not.
            let flags = fcntl(number, F_GETFD)
            guard flags >= 0, number <= STDERR_FILENO || flags & FD_CLOEXEC == 0 else {
                throw OutputError("\(path): descriptor \(number) is not open; open it in the shell (kamera ... \(path) \(number)>out.jsonl) or give a file name")
            }
            var info = stat()
            guard fstat(number, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else {
                throw OutputError("\(path): is a folder; give a file name such as \(example)")
            }
            guard fcntl(number, F_GETFL) & O_ACCMODE != O_RDONLY else {
                throw OutputError("\(path): descriptor \(number) is open for reading only; open it for writing in the shell (\(number)>out.jsonl) or give a file name")
            }
            return .descriptor(number)
        }
        var info = stat()
        var resolved = path
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
            guard stat(path, &info) == 0, let real = realpath(path, nil) else {
                throw OutputError("\(path): is a symbolic link to a missing file; give the file itself")
            }
            resolved = String(cString: real)
            free(real)
        }
        guard stat(resolved, &info) == 0 else { return .file(resolved) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(resolved)
        case S_IFIFO: return .inPlace(resolved)
        case S_IFBLK:
            throw OutputError("\(path): is a block device (a disk); Kamera writes to files, FIFOs, terminals and character devices such as /dev/null")
        case S_IFCHR:
            // Memory devices (major 1) other than the sinks null, zero and full: writing there as root corrupts the machine.
            let rdev = UInt64(info.st_rdev)
            let major = ((rdev >> 8) & 0xfff) | ((rdev >> 32) & ~0xfff), minor = (rdev & 0xff) | ((rdev >> 12) & ~0xff)
            if major == 1 && ![3, 5, 7].contains(minor) {
                throw OutputError("\(path): is a memory device; Kamera writes to files, FIFOs, terminals and sinks such as /dev/null")
            }
            return .inPlace(resolved)
        case S_IFDIR: throw OutputError("\(path): is a folder; give a file name such as \(path.hasSuffix("/") ? path : path + "/")\(example)")
        default: throw OutputError("\(path): is a socket; give a file, a FIFO, a device or - for standard output")
        }
    }

    /// Fails early, with a clear message, when `path` cannot be written:
    /// its folder missing or read-only, or the path a folder. Special files
    /// and `-` pass.
    public static func check(_ path: String, example: String = "frame.png") throws {
        if case .file(let resolved) = try kind(of: path, example: example) { try checkFolder(of: resolved, as: path) }
    }

    /// True when `a` and `b` would write the same regular file.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        if let p = (try? kind(of: a))?.openDescriptor, let q = (try? kind(of: b))?.openDescriptor {
            var first = stat(), second = stat()
            return fstat(p, &first) == 0 && fstat(q, &second) == 0 && first.st_dev == second.st_dev && first.st_ino == second.st_ino
        }
        guard case .file(let x)? = try? kind(of: a), case .file(let y)? = try? kind(of: b) else { return false }
        var first = stat(), second = stat()
        if stat(x, &first) == 0, stat(y, &second) == 0 { return first.st_dev == second.st_dev && first.st_ino == second.st_ino }
        func absolute(_ path: String) -> String {
            (path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path) as String
        }
        return (absolute(x) as NSString).standardizingPath == (absolute(y) as NSString).standardizingPath
    }

    private static func checkFolder(of path: String, as given: String) throws {
        let dir = folder(of: path)
        var info = stat()
        guard stat(dir, &info) == 0 else {
            throw OutputError("\(given): the folder '\(dir)' does not exist; create it first")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw OutputError("\(given): '\(dir)' is not a folder; give a path in an existing folder")
        }
        guard access(dir, W_OK) == 0 else {
            throw OutputError("\(given): the folder '\(dir)' is not writable")
        }
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard !name.isEmpty else { throw OutputError("\(given): names a folder; give a file name such as \(given)frame.png") }
        guard name.utf8.count <= Int(NAME_MAX) else {
            throw OutputError("\(given): the file name is \(name.utf8.count) bytes long; the limit is \(NAME_MAX)")
        }
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    static func reason(_ error: Int32) -> String { String(cString: strerror(error)) }
}
