import Foundation
import Glibc

/// Notices saves of a set of files: inotify on their folders (editors often
/// save by writing a new file and renaming it over the old one, so watching
/// the file itself would lose it), or, where inotify is not offered, their
/// modification times polled. It only raises a flag; whoever owns the GL
/// context recompiles.
public final class FileWatcher {
    private var descriptor: Int32 = -1
    private var files: [String] = []
    private var stamps: [String: Stamp] = [:]
    /// The watched files' names in each watched folder, by inotify watch descriptor.
    private var watchedNames: [Int32: Set<String>] = [:]

    /// A file's modification time and size; `missing` while it does not exist (mid-rename).
    private struct Stamp: Equatable {
        var seconds = 0, nanoseconds = 0, size = -1
    }
    private var buffer = [UInt8](repeating: 0, count: 4096)
    /// True when inotify is in use, false when polling.
    public private(set) var usesInotify = false

    /// When true, any change in a watched folder counts, not only one to a
    /// watched file: after a save that named a file not there yet.
    public var anyChangeCounts = false
    /// The files whose change the last `takeChange` reported.
    public private(set) var changed: [String] = []

    public init(files: [String], folders: [String] = []) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        usesInotify = descriptor >= 0
        watch(files, folders: folders)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Watches these files from now on (after a reload, includes may change).
    public func watch(_ files: [String], folders extra: [String] = []) {
        self.files = files.map { ($0 as NSString).standardizingPath }
        stamps = [:]
        watchedNames = [:]
        for file in self.files { stamps[file] = Self.stamp(file) }
        guard descriptor >= 0 else { return }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_ATTRIB)
        let byFolder = Dictionary(grouping: self.files) { ($0 as NSString).deletingLastPathComponent }
        for folder in Set(byFolder.keys).union(extra) {
            let watch = inotify_add_watch(descriptor, folder.isEmpty ? "." : folder, mask)
            if watch < 0 { usesInotify = false; continue }
            // One folder named two ways ("." and its full path) is one watch.
            watchedNames[watch, default: []].formUnion(byFolder[folder, default: []].map { ($0 as NSString).lastPathComponent })
        }
    }

    /// A change seen and not yet taken.
    private var pending = false

    /// True once for each batch of changes to the watched files since the last call.
    public func takeChange() -> Bool {
        look()
        defer { pending = false; seen = [] }
        changed = seen
        return pending
    }

    private var seen: [String] = []

    /// Notes any change since the last look.
    private func look() {
        if descriptor >= 0 {
            // Drain the events; they only wake the wait: a change counts when a watched file's stamp moved.
            var events = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                if anyChangeCounts && Self.namesASource(buffer[0..<count], ignoring: watchedNames) { events = true }
            }
            if events { pending = true }
        }
        for file in files {
            let stamp = Self.stamp(file)
            if stamp != stamps[file] {
                stamps[file] = stamp
                pending = true
                if !seen.contains(file) { seen.append(file) }
            }
        }
    }

    /// Blocks until a watched file changes (the change stays to be taken),
    /// `stop()` says so, or `timeout` seconds pass.
    public func wait(timeout: Double, stop: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if stop() { return false }
            if descriptor >= 0 && usesInotify {
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, 100)
            } else {
                usleep(100_000)
            }
            look()
            if pending { return true }
        }
        return false
    }

    /// True when a batch of inotify events names a file that could be a
    /// shader source: not Kamera's own outputs (pictures, clips, metadata, unnamed temporaries)
    /// nor hidden files (its temporaries, editors' swap files). Without this,
    /// a PNG written beside a broken shader would count as the fix and the
    /// broken shader would be compiled, and its errors printed, without end.
    /// Events naming a watched file (`ignoring`, by watch descriptor) do not
    /// count here: its stamp says whether it changed. A save that renames a
    /// file into place and then closes it sends a last IN_CLOSE_WRITE after
    /// the rename; counted, it compiled the broken save a second time.
    static func namesASource(_ events: ArraySlice<UInt8>, ignoring watched: [Int32: Set<String>]) -> Bool {
        var offset = events.startIndex
        let header = MemoryLayout<inotify_event>.size
        /// The header's 32-bit field at `at` (host order, little-endian here).
        func field(_ at: Int) -> UInt32 { events[(offset + at)..<(offset + at + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        while offset + header <= events.endIndex {
            let watch = Int32(bitPattern: field(0))
            let length = Int(field(12))
            let nameBytes = events[(offset + header)..<min(events.endIndex, offset + header + length)].prefix { $0 != 0 }
            let name = String(decoding: nameBytes, as: UTF8.self)
            offset += header + length
            // "#INODE": a file made unnamed (O_TMPFILE) and linked in, as the PNG writer does.
            if name.isEmpty || name.hasPrefix(".") || name.hasPrefix("#") || name.hasSuffix("~") { continue }
            if watched[watch]?.contains(name) == true { continue }
            if ["png", "y4m", "jsonl", "json", "yuv", "tmp", "swp"].contains((name as NSString).pathExtension.lowercased()) { continue }
            return true
        }
        return false
    }

    private static func stamp(_ path: String) -> Stamp {
        var info = stat()
        guard stat(path, &info) == 0 else { return Stamp() }
        return Stamp(seconds: info.st_mtim.tv_sec, nanoseconds: info.st_mtim.tv_nsec, size: Int(info.st_size))
    }
}
