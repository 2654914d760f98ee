import Render
import Capture
import CommandLineSupport
import Foundation
import Lifecycle
import Output
import Pipeline
import Pixels

/// The job users run, as whole processes: raw frames from a file in tmpfs →
/// sepia (or the cube) → a PNG sequence in tmpfs, Kamera beside ffmpeg and
/// GStreamer's GL elements, each run several times in alternation; medians,
/// min–max and the ratio per pair. Wall time includes starting up, decoding,
/// encoding and writing: what an in-memory figure can hide.
struct EndToEndBenchmark {
    var kamera: URL
    var sizes: [(width: Int, height: Int)]
    var formats: [PixelFormat]
    var frames = 60
    var runs = 5
    var workloads: [Workload] = [.sepia, .cube]
    /// The programs run: Kamera alone with `--no-peers`.
    var programs: [Program] = Program.allCases

    enum Workload: String, Codable, CaseIterable {
        case sepia, cube, blur, sharpen, convolve, pixellate

        /// The filters beyond color matrices, each beside ffmpeg's equivalent.
        static let filters: [Workload] = [.blur, .sharpen, .convolve, .pixellate]

        /// Kamera's `--filter`, or nil for the cube.
        var kameraFilter: String? {
            switch self {
            case .sepia: "sepia"
            case .cube: nil
            case .blur: "blur=5"
            case .sharpen: "sharpen=1"
            case .convolve: "convolve=0,-1,0,-1,5,-1,0,-1,0"
            case .pixellate: "pixellate=16"
            }
        }

        /// ffmpeg's filter graph for the same job, nil where it has none (the cube).
        var ffmpegFilter: String? {
            switch self {
            case .sepia: "format=rgba,\(EndToEndBenchmark.sepiaMixer)"
            case .cube: nil
            case .blur: "gblur=sigma=5"
            case .sharpen: "unsharp=5:5:1.0"
            case .convolve: "convolution=" + Array(repeating: "0 -1 0 -1 5 -1 0 -1 0", count: 4).joined(separator: ":")
            case .pixellate: "pixelize=w=16:h=16"
            }
        }
    }

    enum Program: String, Codable, CaseIterable {
        case kamera, ffmpeg, gstreamer = "gstreamer-gl"
    }

    struct Measurement: Codable {
        var program: Program
        var command: String
        /// Wall seconds of each counted run, in order.
        var seconds: [Double] = []
        var median: Double?
        var min: Double?
        var max: Double?
        /// Why there is no figure: not installed, failed.
        var note: String?
        /// Bytes of PNG the last run wrote: a faster encoder may write larger files.
        var bytes: Int?
    }

    struct Case: Codable {
        var workload: Workload
        var width: Int
        var height: Int
        var format: String
        var frames: Int
        var measurements: [Measurement]
        /// Peer's median wall time over Kamera's: above 1, Kamera is faster.
        var kameraSpeedup: [String: Double]
    }

    struct Report: Codable {
        var job: String
        var runs: Int
        var cases: [Case]
        var machine: String
    }

    static let sepiaMixer = "colorchannelmixer=.3588:.7044:.1368:0:.2990:.5870:.1140:0:.2392:.4696:.0912"

    /// The command line of `program` for a case; nil when it has no such job.
    func command(_ program: Program, workload: Workload, width: Int, height: Int, format: PixelFormat,
                 input: String, output: String) -> [String]? {
        let size = "\(width)x\(height)"
        switch program {
        case .kamera:
            return [kamera.path, "render", "--input", input, "--format", format.name, "--input-size", size, "--crop", "none"]
                + (workload.kameraFilter.map { ["--filter", $0] } ?? ["--cube"])
                + ["--frames", "\(frames)", "-o", "\(output)/f-%03d.png", "--quiet"]
        case .ffmpeg:
            // ffmpeg's own path: its filters on the YUV frames where they take them, RGB PNGs.
            guard let filter = workload.ffmpegFilter else { return nil }
            return ["ffmpeg", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", format == .yuyv ? "yuyv422" : "nv12",
                    "-s", size, "-i", input, "-vf", filter, "\(output)/f-%03d.png"]
        case .gstreamer:
            guard workload == .sepia || workload == .cube else { return nil }
            return ["gst-launch-1.0", "-q", "filesrc", "location=\(input)", "!", "rawvideoparse",
                    "format=\(format == .yuyv ? "yuy2" : "nv12")", "width=\(width)", "height=\(height)", "framerate=30/1",
                    "!", "glupload", "!", "glcolorconvert", "!"] + (workload == .sepia ? ["gleffects", "effect=sepia"] : ["glfiltercube"])
                + ["!", "gldownload", "!", "video/x-raw,format=RGBA", "!", "pngenc", "!", "multifilesink", "location=\(output)/f-%03d.png"]
        }
    }

    func run(progress: (String) -> Void = { _ in }) throws -> Report {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let folder = (base as NSString).appendingPathComponent("kamera-e2e-\(getpid())")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = (folder as NSString).appendingPathComponent("out")
        var cases: [Case] = []
        for size in sizes {
            for format in formats {
                let input = (folder as NSString).appendingPathComponent("in-\(size.width)x\(size.height).\(format.name)")
                try Self.writeFrames(to: input, width: size.width, height: size.height, format: format, frames: frames)
                for workload in workloads {
                    progress("\(workload.rawValue) \(size.width)x\(size.height) \(format.name)")
                    cases.append(try measure(workload, size: size, format: format, input: input, output: output))
                }
                try? FileManager.default.removeItem(atPath: input)
            }
        }
        let machine = "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(Self.cpuModel())"
        return Report(job: "\(frames) frames of the test pattern with sensor-like noise, from a raw file in tmpfs → BT.601 → sepia (or the cube) → PNG sequence in tmpfs",
                      runs: runs, cases: cases, machine: machine)
    }

    private func measure(_ workload: Workload, size: (width: Int, height: Int), format: PixelFormat, input: String, output: String) throws -> Case {
        var jobs: [(Program, [String])] = []
        for program in programs {
            if let line = command(program, workload: workload, width: size.width, height: size.height, format: format, input: input, output: output) {
                jobs.append((program, line))
            }
        }
        var measurements = jobs.map { Measurement(program: $0.0, command: $0.1.joined(separator: " ")) }
        // A run each first, not counted: the file cache, the shader caches, and whether it works at all.
        for (i, job) in jobs.enumerated() {
            measurements[i].note = try once(job.0, job.1, output: output).note
        }
        for round in 0..<runs {
            // Alternate, and start each round with another program, so no one always follows the same neighbour.
            for k in 0..<jobs.count {
                let i = (k + round) % jobs.count
                guard measurements[i].note == nil else { continue }
                let result = try once(jobs[i].0, jobs[i].1, output: output)
                if let note = result.note { measurements[i].note = note; continue }
                measurements[i].seconds.append(result.seconds)
                measurements[i].bytes = result.bytes
            }
        }
        for i in measurements.indices where measurements[i].note == nil && !measurements[i].seconds.isEmpty {
            let sorted = measurements[i].seconds.sorted()
            measurements[i].median = sorted.median
            measurements[i].min = sorted.first
            measurements[i].max = sorted.last
        }
        var speedup: [String: Double] = [:]
        if let own = measurements.first(where: { $0.program == .kamera })?.median {
            for m in measurements where m.program != .kamera {
                if let median = m.median { speedup[m.program.rawValue] = median / own }
            }
        }
        return Case(workload: workload, width: size.width, height: size.height, format: format.name, frames: frames,
                    measurements: measurements, kameraSpeedup: speedup)
    }

    /// One run into an emptied output folder: its wall time, or why it has none.
    private func once(_ program: Program, _ line: [String], output: String) throws -> (seconds: Double, note: String?, bytes: Int) {
        try? FileManager.default.removeItem(atPath: output)
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        var environment: [String: String] = [:]
        if program == .gstreamer {
            guard let display = XvfbDisplay.shared.name else { return (0, "needs Xvfb (apt-get install xvfb) or a DISPLAY for its GL elements", 0) }
            environment["DISPLAY"] = display
            environment["GST_GL_PLATFORM"] = "egl"
            if ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] == nil { environment["XDG_RUNTIME_DIR"] = NSTemporaryDirectory() }
        }
        // Through env, so that a program that is not installed exits with 127.
        let executable = line[0].hasPrefix("/") ? line[0] : "/usr/bin/env"
        let arguments = line[0].hasPrefix("/") ? Array(line.dropFirst()) : line
        let result = try ChildProcess(executable: executable, arguments: arguments, environment: environment).run()
        if result.status == 127 { return (0, "not installed (scripts/bench.sh installs it)", 0) }
        guard result.status == 0 else {
            let text = result.output.split(separator: "\n").last.map(String.init) ?? ""
            return (0, "failed with status \(result.status): \(TerminalText.oneLine(text).prefix(120))", 0)
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
        guard names.count == frames else { return (0, "wrote \(names.count) PNGs, not \(frames)", 0) }
        let bytes = names.reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: (output as NSString).appendingPathComponent(name))[.size] as? Int) ?? 0)
        }
        return (result.seconds, nil, bytes)
    }

    /// `frames` moving test-pattern frames, back to back, with sensor-like
    /// noise (luma ±4): a clean synthetic picture compresses far better than
    /// a camera's, and would favour row filters no camera picture gains from.
    static func writeFrames(to path: String, width: Int, height: Int, format: PixelFormat, frames: Int) throws {
        let pattern = TestPattern(width: width, height: height, format: format)
        guard let handle = FileHandle(forWritingAtPath: path) ?? {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }() else { throw BenchError("cannot write \(path)") }
        defer { try? handle.close() }
        var seed: UInt32 = 2024
        for i in 0..<frames {
            for (index, plane) in pattern.frame(at: UInt64(i)).planes.enumerated() {
                var bytes = [UInt8](plane.bytes)
                // Luma: every byte of NV12's first plane, every other byte of YUYV.
                if index == 0 {
                    let step = format == .yuyv ? 2 : 1
                    for j in stride(from: 0, to: bytes.count, by: step) {
                        seed = seed &* 1_664_525 &+ 1_013_904_223
                        bytes[j] = UInt8(clamping: Int(bytes[j]) + Int(seed >> 29) - 4)
                    }
                }
                handle.write(Data(bytes))
            }
        }
    }

    static func cpuModel() -> String {
        let text = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("model name") }
        return line.map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
    }

    /// The report as a table, with the exact command lines.
    static func text(_ report: Report) -> String {
        var lines = ["End to end, whole processes (\(report.job)); \(report.runs) runs each, alternated; median wall seconds (min–max), and megabytes of PNG written:",
                     "job       size        format  " + Program.allCases.map { ($0.rawValue + " s, MB").padded(26) }.joined() + "ffmpeg/kamera  gstreamer/kamera"]
        for c in report.cases {
            var row = c.workload.rawValue.padded(9) + " " + "\(c.width)x\(c.height)".padded(11) + " " + c.format.padded(8)
            for program in Program.allCases {
                guard let m = c.measurements.first(where: { $0.program == program }) else { row += "-".padded(26); continue }
                if let median = m.median, let lo = m.min, let hi = m.max {
                    row += (String(format: "%.2f (%.2f–%.2f)", median, lo, hi) + (m.bytes.map { String(format: " %.0fM", Double($0) / 1e6) } ?? "")).padded(26)
                } else {
                    row += "n/a".padded(26)
                }
            }
            for peer in [Program.ffmpeg, .gstreamer] {
                row += (c.kameraSpeedup[peer.rawValue].map { String(format: "%.2fx", $0) } ?? "-").padded(peer == .ffmpeg ? 15 : 16)
            }
            lines.append(row)
        }
        lines.append("(a ratio above 1: Kamera took less wall time; targets: ≥ 1.0x ffmpeg for every filter, ≥ 3x GStreamer for sepia, ≥ 2x GStreamer's glfiltercube)")
        var notes: [String] = []
        for c in report.cases {
            for m in c.measurements {
                if let note = m.note, !notes.contains("\(m.program.rawValue): \(note)") { notes.append("\(m.program.rawValue): \(note)") }
            }
        }
        lines += notes.map { "  not measured: " + $0 }
        if let first = report.cases.first {
            lines.append("Commands (\(first.workload.rawValue), \(first.width)x\(first.height) \(first.format); the others differ only in size, format and the cube):")
            lines += first.measurements.map { "  \($0.program.rawValue): \($0.command)" }
            if let cube = report.cases.first(where: { $0.workload == .cube }) {
                lines += cube.measurements.filter { $0.program != .kamera }.map { "  \($0.program.rawValue) (cube): \($0.command)" }
            }
            for workload in Workload.filters {
                guard report.cases.contains(where: { $0.workload == workload }) else { continue }
                lines.append("  \(workload.rawValue): kamera --filter \(workload.kameraFilter ?? ""), ffmpeg -vf \(workload.ffmpegFilter ?? "")")
            }
        }
        lines.append("Machine: \(report.machine)")
        return lines.joined(separator: "\n")
    }
}
