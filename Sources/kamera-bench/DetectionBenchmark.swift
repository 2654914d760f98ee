import Analysis
import CommandLineSupport
import Detection
import Foundation
import Lifecycle
import Output
import Pipeline

/// Detection as whole processes: Y4M clips at 640x480 and 1280x720 (ffmpeg's
/// testsrc2 with the astronaut of Tests/Media and a QR code on it), each run
/// with and without detection, so that the difference over the frames is
/// what detection costs a frame (faces with each of `FaceModel`'s cascades);
/// GStreamer's `facedetect` (OpenCV, given each of the same cascades; its eye, nose and mouth cascades are not in Debian's opencv-data,
/// so it looks for faces alone), `zxing` and `zbar` elements on the same
/// frames beside the same pipeline without them; and the live preview at 720p30 with and without
/// `--detect faces,codes` (frames late); and, given scikit-image's LFW
/// subset, how many faces each cascade finds (`FaceSetBenchmark`). Runs alternate; medians.
struct DetectionBenchmark {
    var kamera: URL
    /// Where astronaut.png is (the repository's Tests/Media).
    var media: URL
    var frames = 60
    var runs = 3
    var peers = true
    var liveSeconds = 6.0
    /// scikit-image's LFW subset, for `FaceSetBenchmark`; nil to leave it out.
    var faceSet: URL?

    struct Job {
        var size: String
        var name: String
        var program: String
        var arguments: [String]
        /// The job whose time is taken off: the same frames without detection.
        var base: String?
        var seconds: [Double] = []
        /// CPU seconds (user and system) of the same runs.
        var cpu: [Double] = []
        var note: String?

        var median: Double? { seconds.median }
        var medianCPU: Double? { cpu.median }
    }

    static let sizes = ["640x480", "1280x720"]

    /// `clip(size)`: the frames with the face and the code; `codeless(size)`: the same without the code.
    func jobs(clip: (String) -> String, codeless: (String) -> String) -> [Job] {
        var list: [Job] = []
        for size in Self.sizes {
            let input = clip(size)
            func kamera(_ input: String) -> [String] {
                [self.kamera.path, "render", "--input", input, "--crop", "none", "--frames", "\(frames)", "-o", "/dev/null", "--stream", "y4m", "--quiet"]
            }
            list.append(Job(size: size, name: "no detection", program: "kamera", arguments: kamera(input)))
            // codes=qr: what GStreamer's zxing element finds in these frames (one QR code, at its first try).
            for kind in ["faces", "faces=lbp", "codes", "codes=qr"] {
                list.append(Job(size: size, name: kind, program: "kamera", arguments: kamera(input) + ["--detect", kind, "--metadata", "/dev/null"], base: "no detection"))
            }
            // Without a code the zxing element tries every format too, as a scanner does on most frames of a live camera.
            list.append(Job(size: size, name: "no detection, no code", program: "kamera", arguments: kamera(codeless(size))))
            list.append(Job(size: size, name: "codes, no code", program: "kamera", arguments: kamera(codeless(size)) + ["--detect", "codes", "--metadata", "/dev/null"],
                            base: "no detection, no code"))
            guard peers else { continue }
            func gst(_ input: String) -> [String] { ["gst-launch-1.0", "-q", "filesrc", "location=\(input)", "!", "y4mdec", "!", "videoconvert", "!"] }
            list.append(Job(size: size, name: "no detection, no code", program: "gstreamer", arguments: gst(codeless(size)) + ["fakesink"]))
            list.append(Job(size: size, name: "codes (zxing), no code", program: "gstreamer", arguments: gst(codeless(size)) + ["zxing", "!", "fakesink"],
                            base: "no detection, no code"))
            // try-rotate: zxing-cpp reads the frame turned too (linear codes and PDF417 held sideways), as Kamera does.
            list.append(Job(size: size, name: "codes (zxing, turned too), no code", program: "gstreamer",
                            arguments: gst(codeless(size)) + ["zxing", "try-rotate=true", "!", "fakesink"], base: "no detection, no code"))
            let gst = gst(input)
            list.append(Job(size: size, name: "no detection", program: "gstreamer", arguments: gst + ["fakesink"]))
            // facedetect given each of Kamera's cascades, its smallest face and its scale steps (facedetect's own are 1.25 apart).
            for model in FaceModel.allCases {
                list.append(Job(size: size, name: "faces (\(model))", program: "gstreamer",
                                arguments: gst + ["facedetect", "display=false", "profile=\(model.cascade)",
                                                  "min-size-width=24", "min-size-height=24", "scale-factor=1.2", "!", "fakesink"],
                                base: "no detection"))
            }
            list.append(Job(size: size, name: "codes (zxing)", program: "gstreamer", arguments: gst + ["zxing", "!", "fakesink"], base: "no detection"))
            list.append(Job(size: size, name: "codes (zxing, turned too)", program: "gstreamer", arguments: gst + ["zxing", "try-rotate=true", "!", "fakesink"],
                            base: "no detection"))
            list.append(Job(size: size, name: "codes (zbar)", program: "gstreamer", arguments: gst + ["zbar", "!", "fakesink"], base: "no detection"))
        }
        return list
    }

    func run(progress: (String) -> Void = { _ in }) throws -> String {
        let face = media.appendingPathComponent("astronaut.png").path
        guard FileManager.default.fileExists(atPath: face) else {
            throw UsageError("--detection-media \(media.path) holds no astronaut.png; give the repository's Tests/Media")
        }
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let folder = (base as NSString).appendingPathComponent("kamera-detect-\(getpid())")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
        // The face at a third of the frame's height, a QR code beside it (and a clip without it); the live clip is long enough to preview.
        let clips = Self.sizes.flatMap { [($0, frames, "clip-\($0).y4m", true), ($0, frames, "codeless-\($0).y4m", false)] }
        for (size, count, name, code) in clips + [("1280x720", Int(liveSeconds * 30) + 30, "live.y4m", true)] {
            let height = Int(size.split(separator: "x")[1])!
            let codeInput = code ? " -i \(path("code.png"))" : ""
            let placeCode = code ? "[2]format=rgb24[c];[0][f]overlay=20:\(height / 6)[t];[t][c]overlay=W-w-20:H-h-20" : "[0][f]overlay=20:\(height / 6)"
            let script = """
                qrencode -s \(max(3, height / 160)) -m 2 -o \(path("code.png")) 'KAMERA-BENCH-0001' && \
                ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=\(size):r=30 -i '\(face)'\(codeInput) \
                  -filter_complex "[1]scale=-1:\(height * 2 / 3)[f];\(placeCode),format=yuv420p" \
                  -frames:v \(count) \(path(name))
                """
            let made = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script]).run()
            guard made.status == 0 else { throw UsageError("making the detection clips needs ffmpeg and qrencode (scripts/bench.sh installs them): \(TerminalText.oneLine(made.output))") }
        }
        var jobs = self.jobs(clip: { path("clip-\($0).y4m") }, codeless: { path("codeless-\($0).y4m") })
        for round in -1..<runs {
            for k in jobs.indices {
                let i = (k + max(0, round)) % jobs.count
                guard jobs[i].note == nil else { continue }
                progress("\(jobs[i].program) \(jobs[i].size) \(jobs[i].name), run \(round + 2) of \(runs + 1)")
                let line = jobs[i].arguments
                let executable = line[0].hasPrefix("/") ? line[0] : "/usr/bin/env"
                let result = try ChildProcess(executable: executable, arguments: line[0].hasPrefix("/") ? Array(line.dropFirst()) : line).run()
                if result.status == 127 { jobs[i].note = "not installed (scripts/bench.sh installs it)"; continue }
                guard result.status == 0 else {
                    jobs[i].note = "failed with status \(result.status): \(TerminalText.oneLine(result.output.split(separator: "\n").last.map(String.init) ?? ""))"
                    continue
                }
                if round >= 0 {
                    jobs[i].seconds.append(result.seconds)
                    jobs[i].cpu.append(result.cpuSeconds)
                }
            }
        }
        var lines = ["Detection, whole processes: \(frames) frames of testsrc2 with a face and a QR code (\"no code\": the same frames without it; Y4M in tmpfs), \(runs) runs each, alternated;",
                     "milliseconds a frame = (median with detection - median without) / frames, wall and CPU; frames a second the detector sustains:"]
        for job in jobs where job.base != nil {
            let head = "  \(job.size) \(job.program) \(job.name)".padded(40)
            let reference = jobs.first { $0.size == job.size && $0.program == job.program && $0.name == job.base }
            guard let own = job.median, let without = reference?.median, let ownCPU = job.medianCPU, let withoutCPU = reference?.medianCPU else {
                lines.append(head + "not measured: \(job.note ?? "no run")")
                continue
            }
            let ms = max(0, own - without) / Double(frames) * 1000, cpu = max(0, ownCPU - withoutCPU) / Double(frames) * 1000
            lines.append(head + String(format: "%6.1f ms  %6.1f fps  CPU %6.1f ms  (%.2f s with, %.2f s without)", ms, ms > 0 ? 1000 / ms : .infinity, cpu, own, without))
        }
        for size in Self.sizes {
            for (kind, peer) in [("faces", "faces (haar)"), ("faces=lbp", "faces (lbp)"), ("codes", "codes (zxing)"), ("codes=qr", "codes (zxing)"),
                                 ("codes", "codes (zxing, turned too)"),
                                 ("codes, no code", "codes (zxing), no code"), ("codes, no code", "codes (zxing, turned too), no code"), ("codes", "codes (zbar)")] {
                func ms(_ program: String, _ name: String, _ value: (Job) -> Double?) -> Double? {
                    guard let job = jobs.first(where: { $0.size == size && $0.program == program && $0.name == name }), let own = value(job),
                          let without = jobs.first(where: { $0.size == size && $0.program == program && $0.name == job.base }).flatMap(value) else { return nil }
                    return max(0.001, own - without) / Double(frames) * 1000
                }
                if let own = ms("kamera", kind, \.median), let other = ms("gstreamer", peer, \.median),
                   let ownCPU = ms("kamera", kind, \.medianCPU), let otherCPU = ms("gstreamer", peer, \.medianCPU) {
                    lines.append(String(format: "  %@ %@: GStreamer %@ / Kamera %.2fx wall, %.2fx CPU (a ratio above 1: Kamera detects faster)",
                                        size, kind, peer, other / own, otherCPU / ownCPU))
                }
            }
        }
        if let faceSet { lines += try FaceSetBenchmark(kamera: kamera, set: faceSet).run(in: folder) }
        lines.append("Live preview at 720p30 (the clip paced at its rate, -o live.png every second), \(Int(liveSeconds)) s:")
        for detect in [false, true] {
            let arguments = ["preview", "--input", path("live.y4m"), "--duration", "\(liveSeconds)", "-o", path("live.png"), "--status-every", "3600"]
                + (detect ? ["--detect", "faces,codes", "--metadata", "/dev/null"] : [])
            lines.append(try LiveBenchmark.preview(kamera, arguments, label: "  \(detect ? "with --detect faces,codes" : "without detection"):".padded(32)))
        }
        lines.append("Targets: faces at 15 analysed frames a second or more at 720p, codes at 30 or more, at least GStreamer's elements' rate, no frame late with detection on.")
        return lines.joined(separator: "\n")
    }
}
