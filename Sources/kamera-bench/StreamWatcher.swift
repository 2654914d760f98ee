import Foundation
import Glibc
import Lifecycle

/// One client of an MJPEG stream (Kamera's or ustreamer's: both send
/// `Content-Length` and `X-Timestamp` in each part's header), on a thread of
/// its own, reading as fast as the server sends. For each part whole in the
/// measured window it keeps the latency: the clock when its last byte came,
/// less its `X-Timestamp`, on the clock the server chose (`clock`): Kamera's
/// is the driver's capture time on the monotonic clock, ustreamer's the
/// wall clock when it sends. A measuring client, not a parser: it looks for
/// the two header lines it needs and counts the body's bytes.
final class StreamWatcher: @unchecked Sendable {
    private let port: Int
    private let window: ClosedRange<Double>
    private let clock: clockid_t
    private let lock = Lock()
    private var latencies: [Double] = []
    private var failure: String?
    private var thread: JoinableThread?
    private var socket: Int32 = -1

    /// Reads `http://127.0.0.1:PORT/stream` until `window`'s end (monotonic seconds).
    init(port: Int, window: ClosedRange<Double>, clock: clockid_t) {
        (self.port, self.window, self.clock) = (port, window, clock)
        thread = JoinableThread(name: "kamera.bench.watcher") { [unowned self] in read() }
    }

    /// The latencies (seconds) of the parts read whole in the window, or why none could be read.
    func finish() -> (latencies: [Double], failure: String?) {
        thread?.join()
        thread = nil
        return lock.withLock { (latencies, failure) }
    }

    private func read() {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return fail("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return fail("connect to port \(port): \(String(cString: strerror(errno)))") }
        let request = Array("GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return fail("send: \(String(cString: strerror(errno)))") }
        var buffered: [UInt8] = []
        buffered.reserveCapacity(1 << 20)
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var state = State.response
        var found: [Double] = []
        found.reserveCapacity(4096)
        while MonotonicClock.seconds < window.upperBound, !StopSignal.isRequested {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count < 0 && (errno == EAGAIN || errno == EINTR) { continue }
            guard count > 0 else { return fail(count == 0 ? "the server closed the stream" : "recv: \(String(cString: strerror(errno)))", found) }
            let now = MonotonicClock.seconds, read = Self.seconds(clock)
            buffered.append(contentsOf: chunk[0..<count])
            var start = 0
            while start < buffered.count {
                if case .body(let remaining, let timestamp) = state {
                    let taken = min(remaining, buffered.count - start)
                    start += taken
                    if taken == remaining {
                        if window.contains(now) { found.append(read - timestamp) }
                        state = .part
                    } else {
                        state = .body(remaining: remaining - taken, timestamp: timestamp)
                    }
                    continue
                }
                guard let end = Self.find([13, 10, 13, 10], in: buffered[start...]) else {
                    if buffered.count - start > 64 << 10 { return fail("no end to a header in 64 KiB", found) }
                    break
                }
                let header = String(decoding: buffered[start..<end], as: UTF8.self)
                start = end + 4
                if case .response = state {
                    guard header.hasPrefix("HTTP/1.") && header.split(separator: " ").dropFirst().first == "200" else {
                        return fail("the server answered: \(header.split(separator: "\r\n").first ?? "")", found)
                    }
                    state = .part
                } else {
                    guard let length = Self.value("Content-Length", in: header).flatMap({ Int($0) }), length >= 0,
                          let timestamp = Self.value("X-Timestamp", in: header).flatMap({ Double($0) }) else {
                        return fail("a part without Content-Length and X-Timestamp: \(header.prefix(200))", found)
                    }
                    state = .body(remaining: length, timestamp: timestamp)
                }
            }
            buffered.removeFirst(start)
        }
        lock.withLock { latencies = found }
    }

    /// What the bytes that come next are.
    private enum State {
        case response
        /// A part's header (after the boundary line, which it includes).
        case part
        case body(remaining: Int, timestamp: Double)
    }

    private static func seconds(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func fail(_ why: String, _ found: [Double] = []) {
        lock.withLock {
            failure = why
            latencies = found
        }
    }

    /// Where `pattern` starts in `bytes` (an index of `bytes`), if it does.
    static func find<Bytes: RandomAccessCollection>(_ pattern: [UInt8], in bytes: Bytes) -> Bytes.Index? where Bytes.Element == UInt8, Bytes.Index == Int {
        guard bytes.count >= pattern.count else { return nil }
        var index = bytes.startIndex
        while index <= bytes.endIndex - pattern.count {
            if bytes[index] == pattern[0] && bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }

    /// A header line's value (`Name: value`), the name's case ignored.
    static func value(_ name: String, in header: String) -> String? {
        for line in header.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == name.lowercased() {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}
