import Analysis
import CProcess
import CZXing
import Glibc
import Lifecycle

/// zxing-cpp's helper process and what it reads from: a child started by
/// `ChildProcess` (kamera-zxing-helper where it is installed, else this
/// program again), the shared memory pictures lie in, and the socket
/// requests and replies cross (`kamera_zxing.h` defines both). A helper that
/// dies or hangs costs the picture in hand; the next read starts a new one.
/// Used by one thread at a time.
final class ZXingHelper {
    /// A read the helper did not answer: it died or hung on this picture.
    struct Lost: Error { var reason: String }

    /// zxing-cpp with tryHarder reads a 4K frame in well under a second; a helper that takes this long is stuck.
    static let replyTimeout: Int32 = 20_000
    static let maxBuffer = 1 << 30

    private var child: RunningChild?
    private var socket: Int32 = -1
    private var greeted = false
    private var memory: Int32 = -1
    private(set) var buffer: UnsafeMutablePointer<UInt8>?
    private(set) var size = 0
    /// The program the helper was last started from; "" before one is started.
    private(set) var program = ""
    private var reply = [UInt8](repeating: 0, count: 4096)

    deinit {
        stop()
        if let buffer { munmap(buffer, size) }
        if memory >= 0 { close(memory) }
    }

    /// Starts the installed helper now, so that it is ready by the first read
    /// (it loads while Kamera sets up the rest); nothing is reported here.
    func prestart() {
        guard child == nil, let installed = Self.installedHelper(), (try? makeMemory()) != nil else { return }
        try? start(installed)
    }

    /// The shared memory, grown to at least `size` bytes (in whole MiB).
    func reserve(_ wanted: Int) throws -> UnsafeMutablePointer<UInt8> {
        if let buffer, wanted <= size { return buffer }
        guard wanted <= Self.maxBuffer else {
            throw AnalysisError("the code reader's pictures would take \(wanted) bytes, over its \(Self.maxBuffer)-byte limit")
        }
        let rounded = (max(wanted, 1) + (1 << 20) - 1) & ~((1 << 20) - 1)
        try makeMemory()
        guard ftruncate(memory, off_t(rounded)) == 0,
              let mapped = mmap(nil, rounded, PROT_READ | PROT_WRITE, MAP_SHARED, memory, 0), mapped != MAP_FAILED else {
            throw AnalysisError("cannot make shared memory for the code reader's pictures: \(String(cString: strerror(errno)))")
        }
        if let buffer { munmap(buffer, size) }
        buffer = mapped.assumingMemoryBound(to: UInt8.self)
        size = rounded
        return buffer!
    }

    /// Sends `request` and hands the reply's numbers and bytes to `take`;
    /// throws `Lost` when the helper died, hung or said something else, and
    /// `StopRequested` at once when a stop is asked meanwhile (the helper is
    /// then killed: a stop never waits on zxing-cpp).
    func read(_ request: kamera_zxing_request, take: (_ count: Int32, _ next: () throws -> (numbers: [Int32], text: String)) throws -> Void) throws {
        do {
            try exchange(request, take: take)
        } catch let stop as StopRequested {
            self.stop()
            throw stop
        }
    }

    private func exchange(_ request: kamera_zxing_request, take: (_ count: Int32, _ next: () throws -> (numbers: [Int32], text: String)) throws -> Void) throws {
        if child == nil || !greeted { try startAnyHelper() }
        var request = request
        guard send(&request, MemoryLayout<kamera_zxing_request>.size) else { throw lost("closed") }
        guard try awaitReply() else { throw lost("took over \(Self.replyTimeout / 1000) s") }
        guard let count = number() else { throw lost("closed") }
        if count < 0 {
            guard let length = number(), length >= 0, length < 65536, let error = bytes(Int(length)) else { throw lost("closed") }
            throw AnalysisError("the code reader failed: \(String(decoding: error, as: UTF8.self))")
        }
        try take(count) {
            var numbers = [Int32](repeating: 0, count: 10)
            for i in 0..<10 { guard let n = self.number() else { throw self.lost("closed") }; numbers[i] = n }
            guard numbers[9] >= 0, numbers[9] <= 1 << 28, let text = self.bytes(Int(numbers[9])) else { throw self.lost("closed") }
            return (numbers, String(decoding: text, as: UTF8.self))
        }
    }

    private func makeMemory() throws {
        guard memory < 0 else { return }
        memory = kamera_memfd("kamera-zxing-pictures")
        guard memory >= 0 else { throw AnalysisError("cannot make shared memory for the code reader's pictures: \(String(cString: strerror(errno)))") }
    }

    /// The kamera-zxing-helper to start: $KAMERA_ZXING_HELPER when set, else
    /// the one beside this executable (a build folder) or in ../lib/kamera
    /// from it (an installed PREFIX/bin/kamera); nil if none.
    static func installedHelper() -> String? {
        if let chosen = getenv("KAMERA_ZXING_HELPER").map({ String(cString: $0) }), !chosen.isEmpty { return chosen }
        guard let this = thisProgram() else { return nil }
        let folder = String(this[...(this.lastIndex(of: "/") ?? this.startIndex)])
        return [folder + KAMERA_ZXING_HELPER_NAME, folder + "../lib/kamera/" + KAMERA_ZXING_HELPER_NAME].first { access($0, X_OK) == 0 }
    }

    private static func thisProgram() -> String? {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX))
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Starts the installed helper, else (or when that one does not start, or
    /// is of another build) this program itself as the helper; or waits for
    /// the hello of the one `prestart` started.
    private func startAnyHelper() throws {
        let prestarted = child != nil && !greeted
        if try prestarted && greets() { return }
        guard let this = Self.thisProgram() else {
            throw AnalysisError("cannot find this program (/proc/self/exe) to start zxing-cpp's helper process: \(String(cString: strerror(errno)))")
        }
        if !prestarted, let installed = Self.installedHelper() {
            if try (try? start(installed)) != nil && greets() { return }
        }
        try start(this)
        guard try greets() else { throw AnalysisError("zxing-cpp's helper process (\(this)) did not start") }
    }

    private func start(_ path: String) throws {
        try makeMemory()
        var ends: [Int32] = [-1, -1]
        guard kamera_socketpair(&ends) == 0 else {
            throw AnalysisError("cannot make a socket for zxing-cpp's helper process: \(String(cString: strerror(errno)))")
        }
        defer { close(ends[1]) }
        var process = ChildProcess(executable: path, arguments: [],
                                   environment: [KAMERA_ZXING_SERVER_VARIABLE: "1", "SWIFT_BACKTRACE": "enable=no"])
        process.name = KAMERA_ZXING_HELPER_NAME
        process.ownProcessGroup = true
        process.descriptors = [Int32(KAMERA_ZXING_SOCKET_DESCRIPTOR): ends[1], Int32(KAMERA_ZXING_PICTURES_DESCRIPTOR): memory]
        do {
            child = try process.start()
        } catch {
            close(ends[0])
            throw AnalysisError("cannot start zxing-cpp's helper process (\(path)): \(error)")
        }
        socket = ends[0]
        greeted = false
        program = path
    }

    private func stop() {
        child?.stop()
        child = nil
        if socket >= 0 { close(socket) }
        socket = -1
        greeted = false
    }

    /// Whether the helper just started says hello in this build's protocol.
    private func greets() throws -> Bool {
        var hello: [UInt32] = [0, 0, 0]
        greeted = try awaitReply() && hello.withUnsafeMutableBytes { receive($0.baseAddress!, 12) }
            && hello == [UInt32(KAMERA_ZXING_HELLO_MAGIC), UInt32(KAMERA_ZXING_PROTOCOL_VERSION), UInt32(MemoryLayout<kamera_zxing_request>.size)]
        if !greeted { stop() }
        return greeted
    }

    /// Why the helper is gone (it is reaped here), for the picture in hand.
    private func lost(_ doing: String) -> Lost {
        let status = child?.stop() ?? 0
        stop()
        let why: String
        switch RunningChild.describe(status) {
        case let ending? where ending.hasPrefix("signal"): why = "zxing-cpp stopped with \(ending)"
        case let ending?: why = "zxing-cpp's helper process exited (\(ending))"
        case nil: why = "zxing-cpp's helper process \(doing)"
        }
        return Lost(reason: why + " on this picture")
    }

    /// Whether the helper's next bytes came within `replyTimeout`; looks at
    /// the stop flag every 50 ms, and throws `StopRequested` once it is set.
    private func awaitReply() throws -> Bool {
        var entry = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let end = MonotonicClock.seconds + Double(Self.replyTimeout) / 1000
        while true {
            if StopSignal.isRequested { throw StopRequested() }
            let left = end - MonotonicClock.seconds
            guard left > 0 else { return false }
            let n = poll(&entry, 1, Int32(min(50, max(1, left * 1000))))
            if n < 0 && errno == EINTR { continue }
            if n != 0 { return n > 0 }
        }
    }

    private func send(_ bytes: UnsafeRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = Glibc.send(socket, bytes + done, count - done, KAMERA_MSG_NOSIGNAL)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    private func receive(_ bytes: UnsafeMutableRawPointer, _ count: Int) -> Bool {
        var done = 0
        while done < count {
            let n = recv(socket, bytes + done, count - done, 0)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    private func number() -> Int32? {
        var value: Int32 = 0
        return receive(&value, 4) ? value : nil
    }

    private func bytes(_ count: Int) -> [UInt8]? {
        if reply.count < count { reply = [UInt8](repeating: 0, count: count) }
        guard reply.withUnsafeMutableBytes({ receive($0.baseAddress!, count) }) else { return nil }
        return Array(reply[..<count])
    }
}
