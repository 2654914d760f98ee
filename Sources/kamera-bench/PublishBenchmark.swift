import Capture
import CommandLineSupport
import Foundation
import Glibc
import Lifecycle

/// Publishing: `kamera preview -o rtmp://` (unfiltered and sepia) beside
/// `ffmpeg -f v4l2 … -c:v libx264 -preset veryfast -tune zerolatency -f flv`
/// on the same camera, size and rate, each a whole process, into nginx with
/// its RTMP module started here, read back over RTMP by ffmpeg. Or, with
/// `virtualCamera`, into a v4l2loopback device: `kamera preview -o /dev/videoN`
/// beside `ffmpeg -f v4l2 … -vf colorchannelmixer=(sepia) -f v4l2`, read back
/// by ffmpeg's v4l2 input. For each: the program's CPU seconds per minute,
/// the frames a second the reader decodes, and the latency glass to glass:
/// the camera's picture is switched between black and white (vivid's
/// `test_pattern` control) and the time runs from the switch to the first
/// frame the reader decodes on the other side.
struct PublishBenchmark {
    var kamera: URL
    var device = "/dev/video0"
    var width = 1280, height = 720
    var seconds = 20.0
    var warmUp = 3.0
    /// Seconds between two switches of the picture.
    var switchEvery = 2.0
    var rounds = 2
    var peers = true
    /// A v4l2loopback device to write instead of publishing to nginx.
    var virtualCamera: String?

    struct Row {
        var cpuPerMinute: Double
        var fps: Double
        var latencies: [Double]
        /// Switches the reader never showed before the next one (or the end): slower than `switchEvery`.
        var unseen = 0
    }

    private struct Program {
        let name: String
        let command: (String) -> ChildProcess
        var rows: [Row] = []
        var failure: String?
    }

    func run(progress: (String) -> Void) throws -> String {
        guard FileManager.default.fileExists(atPath: device) else {
            return "publish: skipped: no camera at \(device) (run the bench inside shared/vm/run-in-vm, where vivid gives one, or name one with --stream-device)"
        }
        let section = virtualCamera == nil ? "publish" : "virtual camera"
        guard let ffmpeg = DisplayBenchmark.find("ffmpeg") else { return "\(section): skipped: ffmpeg, the reader, is not installed (apt-get install ffmpeg)" }
        if let virtualCamera, !FileManager.default.fileExists(atPath: virtualCamera) {
            return "virtual camera: skipped: no v4l2loopback device at \(virtualCamera) (run-in-vm --loopback makes /dev/video10)"
        }
        let camera = try CameraDevice(path: device)
        guard let pattern = camera.controls().first(where: { $0.name == "test_pattern" }),
              let black = pattern.menu.first(where: { $0.name == "100% Black" })?.index,
              let white = pattern.menu.first(where: { $0.name == "100% White" })?.index else {
            return "publish: skipped: \(device) has no test_pattern control with 100% Black and 100% White (vivid's), which the latency is timed by"
        }
        let rate = camera.formats().first { $0.fourcc == "YUYV" }?.sizes.first { $0.width == width && $0.height == height }?.rates.max()
        guard let rate else { return "publish: skipped: \(device) gives no \(width)x\(height) YUYV" }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-bench-publish-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let nginx = virtualCamera == nil ? try NginxRTMP(in: folder) : nil
        try nginx?.start()
        defer { nginx?.stop() }

        var programs: [Program] = []
        let common = ["preview", "--camera", device, "--format", "yuyv", "--input-size", "\(width)x\(height)", "--crop", "none",
                      "--size", "\(width)x\(height)", "--fps", "max", "--quiet"]
        if virtualCamera != nil {
            if peers {
                programs.append(Program(name: "ffmpeg … colorchannelmixer -f v4l2") { output in
                    ChildProcess(executable: ffmpeg, arguments: ["-nostdin", "-v", "error", "-f", "v4l2", "-input_format", "yuyv422", "-video_size", "\(width)x\(height)",
                                                                 "-framerate", String(format: "%g", rate), "-i", device,
                                                                 "-vf", "colorchannelmixer=.393:.769:.189:0:.349:.686:.168:0:.272:.534:.131",
                                                                 "-pix_fmt", "yuyv422", "-f", "v4l2", output])
                })
            }
            programs.append(Program(name: "kamera -o /dev/videoN") { output in ChildProcess(executable: kamera.path, arguments: common + ["-o", output]) })
            programs.append(Program(name: "kamera -o /dev/videoN --filter sepia") { output in
                ChildProcess(executable: kamera.path, arguments: common + ["--filter", "sepia", "-o", output])
            })
        }
        if virtualCamera == nil && peers {
            programs.append(Program(name: "ffmpeg -f v4l2 … libx264 -f flv") { url in
                ChildProcess(executable: ffmpeg, arguments: ["-nostdin", "-v", "error", "-f", "v4l2", "-input_format", "yuyv422", "-video_size", "\(width)x\(height)",
                                                             "-framerate", String(format: "%g", rate), "-i", device, "-c:v", "libx264", "-preset", "veryfast",
                                                             "-tune", "zerolatency", "-bf", "0", "-g", "\(Int(rate.rounded()))", "-pix_fmt", "yuv420p", "-f", "flv", url])
            })
        }
        if virtualCamera == nil {
            programs.append(Program(name: "kamera preview -o rtmp://") { url in ChildProcess(executable: kamera.path, arguments: common + ["-o", url]) })
            programs.append(Program(name: "kamera preview -o rtmp:// --filter sepia") { url in
                ChildProcess(executable: kamera.path, arguments: common + ["--filter", "sepia", "-o", url])
            })
        }
        var run = 0
        for round in 1...rounds {
            for index in programs.indices where programs[index].failure == nil {
                try BenchStop.check()
                progress("round \(round), \(programs[index].name)")
                run += 1
                do {
                    _ = try camera.setControl(pattern, to: black)
                    let destination = virtualCamera ?? nginx?.rtmp("bench\(run)") ?? ""
                    defer {
                        // v4l2loopback 0.12 stays shut to the next writer after one that only wrote (ffmpeg's).
                        if let virtualCamera { VideoOutputDevice.reclaim(virtualCamera) }
                    }
                    programs[index].rows.append(try measure(programs[index], url: destination, ffmpeg: ffmpeg, camera: camera,
                                                            pattern: (pattern, black, white)))
                } catch let error as StopRequested {
                    throw error
                } catch {
                    programs[index].failure = "\(error)"
                }
            }
        }
        _ = try? camera.setControl(pattern, to: pattern.defaultValue)
        let what = virtualCamera.map { "Virtual camera (\(device), \(width)x\(height) YUYV at \(String(format: "%g", rate)) fps, into v4l2loopback at \($0) as YUYV, read back by ffmpeg's v4l2 input)" }
            ?? "Publish (\(device), \(width)x\(height) YUYV at \(String(format: "%g", rate)) fps, H.264 veryfast zerolatency, a key frame a second, into nginx-rtmp, read back over RTMP by ffmpeg)"
        var lines = [what + ", whole processes, \(Int(seconds)) s measured after \(Int(warmUp)) s; \(rounds) round\(rounds == 1 ? "" : "s"), "
                     + "the programs in turn: medians, ratios to ffmpeg within a round [lowest, highest]:",
                     "program".padded(42) + " CPU s/min  fps read  glass to glass ms median (max)   CPU vs ffmpeg"]
        let reference = programs.first { $0.name.hasPrefix("ffmpeg") && $0.failure == nil }
        for program in programs where program.failure == nil && !program.rows.isEmpty {
            let latencies = program.rows.flatMap(\.latencies).sorted()
            let unseen = program.rows.map(\.unseen).reduce(0, +)
            var line = program.name.padded(42) + String(format: " %9.1f  %8.1f", program.rows.map(\.cpuPerMinute).median ?? .nan, program.rows.map(\.fps).median ?? .nan)
            if let median = latencies.median, let highest = latencies.last {
                line += String(format: "  %11.0f (%6.0f)", median * 1000, highest * 1000)
            } else {
                let bound = "> \(Int(switchEvery * 1000))"
                line += "  " + String(repeating: " ", count: max(0, 11 - bound.count)) + bound + " (unseen)"
            }
            if let reference, reference.name != program.name {
                line += "          " + DisplayBenchmark.ratioText(DisplayBenchmark.pairedRatio(program.rows.map(\.cpuPerMinute), reference.rows.map(\.cpuPerMinute)))
            }
            if unseen > 0 { line += "  [\(unseen) of \(unseen + latencies.count) switches not seen within \(String(format: "%g", switchEvery)) s]" }
            lines.append(line)
        }
        for program in programs {
            if let failure = program.failure { lines.append("\(program.name): not measured: \(failure)") }
        }
        lines.append("(glass to glass: from the camera's picture switched between black and white every \(String(format: "%g", switchEvery)) s to the reader's first decoded frame "
                     + "on the other side; it includes up to a frame interval of the camera's, \(virtualCamera == nil ? "nginx" : "v4l2loopback"), and the reader's own decoding)")
        return lines.joined(separator: "\n")
    }

    /// One publisher into `url` with a reader on it: started, waited for until frames come back, measured, stopped.
    private func measure(_ program: Program, url: String, ffmpeg: String, camera: CameraDevice,
                         pattern: (control: CameraControl, black: Int64, white: Int64)) throws -> Row {
        let child = try program.command(url).start()
        defer {
            kill(child.pid, SIGINT)
            for _ in 0..<50 where StreamBenchmark.alive(child.pid) { usleep(100_000) }
            child.stop()
        }
        if virtualCamera != nil {
            // ffmpeg's v4l2 input refuses the device until a writer has set it up.
            let deadline = MonotonicClock.seconds + 60
            while !((try? CameraDevice(path: url).info(probingBusy: false))?.capabilities.contains("video-capture") ?? false) {
                try BenchStop.check()
                guard StreamBenchmark.alive(child.pid) else { throw BenchError("\(program.name) ended before it wrote a frame (run it by hand to see why)") }
                guard MonotonicClock.seconds < deadline else { throw BenchError("\(program.name) wrote no frame to \(url) within 60 s") }
                usleep(100_000)
            }
        }
        let reader = try LiveReader(ffmpeg: ffmpeg, input: virtualCamera == nil ? ["-i", url] : ["-f", "v4l2", "-i", url])
        defer { reader.stop() }
        let deadline = MonotonicClock.seconds + 60
        while reader.frameCount == 0 {
            try BenchStop.check()
            guard StreamBenchmark.alive(child.pid) else { throw BenchError("\(program.name) ended before the reader got a frame (run it by hand to see why)") }
            guard MonotonicClock.seconds < deadline else { throw BenchError("the reader got no frame of \(program.name) within 60 s") }
            usleep(100_000)
        }
        let start = MonotonicClock.seconds + warmUp
        while MonotonicClock.seconds < start { usleep(10_000); try BenchStop.check() }
        let cpuBefore = try StreamBenchmark.cpuSeconds(child.pid), framesBefore = reader.frameCount
        var switches: [(at: Double, bright: Bool)] = []
        var bright = false
        while MonotonicClock.seconds + switchEvery <= start + seconds {
            usleep(useconds_t(switchEvery * 1e6))
            try BenchStop.check()
            bright.toggle()
            try camera.setControl(pattern.control, to: bright ? pattern.white : pattern.black)
            switches.append((MonotonicClock.seconds, bright))
        }
        while MonotonicClock.seconds < start + seconds { usleep(10_000) }
        let cpuAfter = try StreamBenchmark.cpuSeconds(child.pid), framesAfter = reader.frameCount
        // The last switch's frames may still be on their way.
        usleep(useconds_t(min(switchEvery, 2) * 1e6))
        let frames = reader.frames
        var latencies: [Double] = [], unseen = 0
        for (index, change) in switches.enumerated() {
            let until = index + 1 < switches.count ? switches[index + 1].at : .infinity
            if let seen = frames.first(where: { $0.at > change.at && $0.at < until && ($0.mean > 128) == change.bright }) {
                latencies.append(seen.at - change.at)
            } else {
                unseen += 1
            }
        }
        return Row(cpuPerMinute: (cpuAfter - cpuBefore) / seconds * 60, fps: Double(framesAfter - framesBefore) / seconds, latencies: latencies, unseen: unseen)
    }
}

/// ffmpeg reading a live input (an RTMP stream, a V4L2 device) with as little
/// buffering as it allows, each frame scaled to 32x18 gray and piped here:
/// the monotonic time each arrived and its mean level.
final class LiveReader: @unchecked Sendable {
    private let process = Process()
    private let lock = Lock()
    private var received: [(at: Double, mean: Double)] = []
    private var thread: JoinableThread?
    static let frameBytes = 32 * 18

    /// `input`: ffmpeg's arguments for it, `-i` and the address included.
    init(ffmpeg: String, input: [String]) throws {
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-nostdin", "-v", "error", "-fflags", "nobuffer", "-flags", "low_delay", "-probesize", "32768", "-analyzeduration", "0",
                            ] + input + ["-vf", "scale=32:18,format=gray", "-fps_mode", "passthrough", "-f", "rawvideo", "-"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let handle = pipe.fileHandleForReading
        thread = JoinableThread(name: "kamera.bench.rtmp-reader") { [unowned self] in
            var frame = [UInt8](repeating: 0, count: Self.frameBytes)
            var filled = 0
            while true {
                let count = frame.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress! + filled, Self.frameBytes - filled) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return }
                filled += count
                guard filled == Self.frameBytes else { continue }
                filled = 0
                let mean = Double(frame.reduce(0) { $0 + Int($1) }) / Double(Self.frameBytes)
                let at = MonotonicClock.seconds
                lock.withLock { received.append((at, mean)) }
            }
        }
    }

    var frameCount: Int { lock.withLock { received.count } }
    var frames: [(at: Double, mean: Double)] { lock.withLock { received } }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        thread?.join()
        thread = nil
    }
}
