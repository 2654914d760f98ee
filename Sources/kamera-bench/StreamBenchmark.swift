import CommandLineSupport
import Foundation
import Glibc
import Lifecycle
import Output

/// The live picture over HTTP: `kamera preview --serve` beside ustreamer
/// (the anchor for MJPEG streaming), each a whole process on the same
/// camera, size, format and JPEG quality, to 1 and to 10 clients at once.
/// For each: the frames a second each client gets, the server's CPU seconds
/// per minute of streaming (/proc, the process and all its threads), and the
/// latency to the client holding the whole part from the part's
/// `X-Timestamp`: Kamera's is the driver's capture time; ustreamer's (4.9)
/// is the wall clock when it sends the part, so its figure leaves out the
/// capture, the queue and the encode, and is not compared. The programs
/// take turns round after round; each ratio to ustreamer is taken within a
/// round. And the floor: libjpeg-turbo's encode of one frame of that size.
struct StreamBenchmark {
    var kamera: URL
    var device = "/dev/video0"
    var width = 1280, height = 720
    var quality = 80
    /// Seconds of each measured window, after `warmUp` seconds of streaming.
    var seconds = 20.0
    var warmUp = 3.0
    var clientCounts = [1, 10]
    var rounds = 2
    var peers = true

    struct Row {
        var fps: Double
        var slowestFPS: Double
        var cpuPerMinute: Double
        var latencies: [Double]
    }

    private struct Program {
        let name: String
        /// The clock of its `X-Timestamp`, and what the latency it gives runs from.
        let clock: clockid_t
        let command: (Int) -> ChildProcess
        /// By client count: each round's row.
        var rows: [Int: [Row]] = [:]
        var failure: String?
    }

    func run(progress: (String) -> Void) throws -> String {
        guard FileManager.default.fileExists(atPath: device) else {
            return "stream: skipped: no camera at \(device) (run the bench inside shared/vm/run-in-vm, where vivid gives one, or name one with --stream-device)"
        }
        var programs: [Program] = []
        var notes: [String] = []
        if peers {
            if let ustreamer = DisplayBenchmark.find("ustreamer") {
                programs.append(Program(name: "ustreamer", clock: CLOCK_REALTIME) { port in
                    ChildProcess(executable: ustreamer, arguments: ["--device", device, "--resolution", "\(width)x\(height)", "--format", "YUYV",
                                                                    "--quality", "\(quality)", "--host", "127.0.0.1", "--port", "\(port)"])
                })
            } else {
                notes.append("ustreamer: not measured: it is not installed (apt-get install ustreamer)")
            }
        }
        let common = ["preview", "--camera", device, "--format", "yuyv", "--input-size", "\(width)x\(height)", "--crop", "none",
                      "--size", "\(width)x\(height)", "--fps", "max", "--quality", "\(quality)", "--quiet"]
        programs.append(Program(name: "kamera preview --serve", clock: CLOCK_MONOTONIC) { port in
            ChildProcess(executable: kamera.path, arguments: common + ["--serve", "\(port)"])
        })
        programs.append(Program(name: "kamera preview --serve --filter sepia", clock: CLOCK_MONOTONIC) { port in
            ChildProcess(executable: kamera.path, arguments: common + ["--filter", "sepia", "--serve", "\(port)"])
        })
        for round in 1...rounds {
            for clients in clientCounts {
                for index in programs.indices where programs[index].failure == nil {
                    try BenchStop.check()
                    progress("round \(round), \(programs[index].name), \(clients) client\(clients == 1 ? "" : "s")")
                    do {
                        programs[index].rows[clients, default: []].append(try measure(programs[index], clients: clients))
                    } catch let error as StopRequested {
                        throw error
                    } catch {
                        programs[index].failure = "\(error)"
                    }
                }
            }
        }
        let floor = try jpegFloor()
        var lines = ["Stream (\(device), \(width)x\(height) YUYV, JPEG quality \(quality)), whole processes, \(Int(seconds)) s measured after \(Int(warmUp)) s; "
                     + "\(rounds) round\(rounds == 1 ? "" : "s"), the programs in turn: medians, ratios to ustreamer within a round [lowest, highest]:",
                     "program".padded(40) + " clients  fps/client (slowest)  CPU s/min  latency ms median (p95)   fps vs ustreamer  CPU vs ustreamer"]
        let reference = programs.first { $0.name == "ustreamer" && $0.failure == nil }
        for clients in clientCounts {
            for program in programs where program.failure == nil {
                guard let rows = program.rows[clients], !rows.isEmpty else { continue }
                let all = rows.flatMap(\.latencies).sorted()
                var line = program.name.padded(40) + String(format: " %7d  %10.1f (%6.1f)  %9.1f  %10.1f (%6.1f)", clients,
                                                            rows.map(\.fps).median ?? .nan, rows.map(\.slowestFPS).median ?? .nan,
                                                            rows.map(\.cpuPerMinute).median ?? .nan,
                                                            (all.median ?? .nan) * 1000, Self.percentile(all, 0.95) * 1000)
                if let reference, reference.name != program.name, let theirs = reference.rows[clients] {
                    let fps = DisplayBenchmark.pairedRatio(rows.map(\.fps), theirs.map(\.fps))
                    let cpu = DisplayBenchmark.pairedRatio(rows.map(\.cpuPerMinute), theirs.map(\.cpuPerMinute))
                    line += "   " + DisplayBenchmark.ratioText(fps).padded(16) + "  " + DisplayBenchmark.ratioText(cpu).padded(16)
                }
                lines.append(line)
            }
        }
        for program in programs {
            if let failure = program.failure { lines.append("\(program.name): not measured: \(failure)") }
        }
        lines += notes
        lines.append(String(format: "floor: libjpeg-turbo encodes one %dx%d RGBA frame at quality %d (4:2:0) in %.2f ms on this machine (median of 30, in memory)",
                            width, height, quality, floor * 1000))
        for program in programs where program.failure == nil {
            guard let rows = program.rows[clientCounts[0]], let cpu = rows.map(\.cpuPerMinute).median, let fps = rows.map(\.fps).median, fps > 0 else { continue }
            let perFrame = cpu / 60 / fps
            lines.append(String(format: "  %@: %.2f ms of CPU per frame streamed to %d client%@, %.1fx the floor", program.name, perFrame * 1000,
                                clientCounts[0], clientCounts[0] == 1 ? "" : "s", perFrame / floor))
        }
        lines.append("(fps/client is each client's parts whole in the window over its length, the median client's and the slowest's; the latency runs to the part's last byte read "
                     + "from its X-Timestamp: Kamera's the driver's capture time, ustreamer's the wall clock when it sent the part, which leaves out its capture, queue and encode)")
        return lines.joined(separator: "\n")
    }

    /// One program streaming to `clients` clients: started, waited for until it serves, watched, stopped.
    private func measure(_ program: Program, clients: Int) throws -> Row {
        let port = try Self.freePort()
        let child = try program.command(port).start()
        defer {
            kill(child.pid, SIGINT)
            for _ in 0..<30 where Self.alive(child.pid) { usleep(100_000) }
            child.stop()
        }
        try waitUntilServing(port: port, child: child, name: program.name)
        let start = MonotonicClock.seconds + warmUp
        let window = start...(start + seconds)
        let watchers = (0..<clients).map { _ in StreamWatcher(port: port, window: window, clock: program.clock) }
        while MonotonicClock.seconds < start { usleep(10_000); try BenchStop.check() }
        let cpuBefore = try Self.cpuSeconds(child.pid)
        while MonotonicClock.seconds < window.upperBound { usleep(10_000) }
        let cpuAfter = try Self.cpuSeconds(child.pid)
        let results = watchers.map { $0.finish() }
        try BenchStop.check()
        if let failure = results.compactMap(\.failure).first { throw BenchError("a client: \(failure)") }
        let rates = results.map { Double($0.latencies.count) / seconds }.sorted()
        guard let slowest = rates.first, slowest > 0 else { throw BenchError("a client got no whole frame in \(Int(seconds)) s") }
        return Row(fps: rates.median ?? .nan, slowestFPS: slowest, cpuPerMinute: (cpuAfter - cpuBefore) / seconds * 60,
                   latencies: results.flatMap(\.latencies))
    }

    /// Polls `/stream`'s port until it accepts a connection (a slow start, the VM's, is not measured), at most 60 s.
    private func waitUntilServing(port: Int, child: RunningChild, name: String) throws {
        let deadline = MonotonicClock.seconds + 60
        while MonotonicClock.seconds < deadline {
            try BenchStop.check()
            guard Self.alive(child.pid) else { throw BenchError("\(name) ended before it served (run it by hand to see why)") }
            if Self.accepts(port: port) { return }
            usleep(100_000)
        }
        throw BenchError("\(name) did not serve on port \(port) within 60 s")
    }

    /// libjpeg-turbo's time for one frame of the test pattern at this size and quality, in memory.
    private func jpegFloor() throws -> Double {
        var settings = JPEGSettings()
        settings.quality = quality
        settings.subsampling = .s420
        let encoder = try JPEGEncoder(settings: settings)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 4
                // Bars and a ramp: a picture a camera could give, not a flat one that costs nothing.
                pixels[at] = UInt8((x * 7 / width) * 36 & 255)
                pixels[at + 1] = UInt8((x + y) & 255)
                pixels[at + 2] = UInt8((y * 255) / height)
                pixels[at + 3] = 255
            }
        }
        var times: [Double] = []
        try pixels.withUnsafeBytes { bytes in
            for _ in 0..<33 {
                let start = MonotonicClock.seconds
                _ = try encoder.encode(bytes, width: width, height: height, metadata: nil)
                times.append(MonotonicClock.seconds - start)
            }
        }
        return Array(times.dropFirst(3)).median ?? .nan
    }

    /// User and system CPU seconds of a process and its threads, from /proc.
    static func cpuSeconds(_ pid: pid_t) throws -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { throw BenchError("process \(pid) ended while it was measured") }
        // After the command's closing parenthesis: fields 3 on; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { throw BenchError("/proc/\(pid)/stat is not as expected") }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func alive(_ pid: pid_t) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { return false }
        return text[text.index(after: close)...].split(separator: " ").first != "Z"
    }

    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A loopback port no one listened on a moment ago (the system's choice for port 0), for a server started here or by a test.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("no free loopback port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded()))]
    }
}
