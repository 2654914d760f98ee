import Foundation
import Lifecycle
import Pixels

/// Recording, as whole processes: camera-like raw frames (YUYV with sensor
/// noise, from tmpfs) → sepia → H.264 in MP4, FFV1 in Matroska, and JPEG
/// stills, Kamera beside ffmpeg (`colorchannelmixer` and the same encoder
/// settings) and GStreamer's GL elements into x264enc; and ffmpeg encoding the
/// same frames with no filter at all, the floor that the filter and the
/// read-back add to. Runs alternate; medians, frames a second, ratios.
struct RecordingBenchmark {
    var kamera: URL
    var width = 1280, height = 720
    var frames = 120
    var runs = 3
    var peers = true

    struct Job {
        var name: String
        var program: String
        var arguments: [String]
        /// The file or folder it writes, emptied before each run.
        var output: String
        var seconds: [Double] = []
        var note: String?
        var environment: [String: String] = [:]

        var median: Double? { seconds.median }
    }

    func jobs(input: String, folder: String) -> [Job] {
        let size = "\(width)x\(height)"
        let raw = ["-f", "rawvideo", "-pix_fmt", "yuyv422", "-s", size, "-r", "30", "-i", input]
        let sepia = EndToEndBenchmark.sepiaMixer
        let x264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-bf", "0", "-g", "30"]
        let kamera = [self.kamera.path, "render", "--input", input, "--format", "yuyv", "--input-size", size, "--crop", "none",
                      "--frames", "\(frames)", "--quiet"]
        func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
        var list = [
            Job(name: "h264 sepia", program: "kamera", arguments: kamera + ["--filter", "sepia", "-o", path("k.mp4"), "--preset", "veryfast", "--crf", "23"], output: path("k.mp4")),
            Job(name: "h264 sepia rgba", program: "kamera", arguments: kamera + ["--filter", "sepia", "-o", path("kr.mp4"), "--preset", "veryfast", "--crf", "23",
                                                                          "--encoder-input", "rgba"], output: path("kr.mp4")),
            Job(name: "h264 sepia", program: "ffmpeg", arguments: ["ffmpeg", "-nostdin", "-v", "error", "-y"] + raw + ["-vf", "format=rgba,\(sepia),format=yuv420p"] + x264
                + ["-movflags", "+frag_keyframe+empty_moov+default_base_moof", path("f.mp4")], output: path("f.mp4")),
            Job(name: "h264 encode only", program: "ffmpeg", arguments: ["ffmpeg", "-nostdin", "-v", "error", "-y"] + raw + ["-vf", "format=yuv420p"] + x264
                + ["-movflags", "+frag_keyframe+empty_moov+default_base_moof", path("e.mp4")], output: path("e.mp4")),
            // The floor of the target: x264 on the very pictures Kamera encodes
            // (its lossless sepia render made 4:2:0 BT.709 as Kamera makes it at
            // 720p, within 1 level), read from a Y4M file: the same bits to code.
            Job(name: "h264 same pictures", program: "ffmpeg", arguments: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path("same.y4m")] + x264
                + ["-movflags", "+frag_keyframe+empty_moov+default_base_moof", path("s.mp4")], output: path("s.mp4")),
            Job(name: "h264 sepia", program: "gstreamer-gl", arguments: ["gst-launch-1.0", "-q", "filesrc", "location=\(input)", "!", "rawvideoparse", "format=yuy2",
                                                                    "width=\(width)", "height=\(height)", "framerate=30/1", "!", "glupload", "!", "glcolorconvert", "!",
                                                                    "gleffects", "effect=sepia", "!", "gldownload", "!", "videoconvert", "!", "video/x-raw,format=I420", "!",
                                                                    "x264enc", "speed-preset=veryfast", "quantizer=23", "pass=quant", "bframes=0", "key-int-max=30", "!", "mp4mux", "fragment-duration=1000", "!",
                                                                    "filesink", "location=\(path("g.mp4"))"], output: path("g.mp4")),
            Job(name: "ffv1 sepia", program: "kamera", arguments: kamera + ["--filter", "sepia", "-o", path("k.mkv"), "--codec", "ffv1"], output: path("k.mkv")),
            Job(name: "ffv1 sepia", program: "ffmpeg", arguments: ["ffmpeg", "-nostdin", "-v", "error", "-y"] + raw + ["-vf", "format=rgba,\(sepia),format=bgr0",
                                                                    "-c:v", "ffv1", "-level", "3", "-slices", "4", "-slicecrc", "1", path("f.mkv")], output: path("f.mkv")),
            Job(name: "jpeg stills sepia", program: "kamera", arguments: kamera + ["--filter", "sepia", "-o", path("kj/f-%03d.jpg")], output: path("kj")),
            Job(name: "jpeg stills sepia", program: "ffmpeg", arguments: ["ffmpeg", "-nostdin", "-v", "error", "-y"] + raw + ["-vf", "format=rgba,\(sepia)", "-q:v", "2",
                                                                           path("fj/f-%03d.jpg")], output: path("fj")),
        ]
        if !peers { list.removeAll { $0.program != "kamera" } }
        return list
    }

    func run(progress: (String) -> Void = { _ in }) throws -> String {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let folder = (base as NSString).appendingPathComponent("kamera-rec-\(getpid())")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let input = (folder as NSString).appendingPathComponent("in.yuyv")
        try EndToEndBenchmark.writeFrames(to: input, width: width, height: height, format: .yuyv, frames: frames)
        var jobs = self.jobs(input: input, folder: folder)
        if let problem = try prepareSamePictures(input: input, folder: folder) {
            for i in jobs.indices where jobs[i].name == "h264 same pictures" { jobs[i].note = problem }
        }
        for i in jobs.indices where jobs[i].program == "gstreamer-gl" {
            guard let display = XvfbDisplay.shared.name else { jobs[i].note = "needs Xvfb or a DISPLAY for its GL elements"; continue }
            jobs[i].environment = ["DISPLAY": display, "GST_GL_PLATFORM": "egl"]
        }
        // One run each first, not counted; then rounds, each starting with another job.
        for round in -1..<runs {
            for k in jobs.indices {
                let i = (k + max(0, round)) % jobs.count
                guard jobs[i].note == nil else { continue }
                progress("\(jobs[i].program) \(jobs[i].name), run \(round + 2) of \(runs + 1)")
                try? FileManager.default.removeItem(atPath: jobs[i].output)
                if !jobs[i].output.contains(".") || jobs[i].output.hasSuffix("kj") || jobs[i].output.hasSuffix("fj") {
                    try FileManager.default.createDirectory(atPath: jobs[i].output, withIntermediateDirectories: true)
                }
                let line = jobs[i].arguments
                let executable = line[0].hasPrefix("/") ? line[0] : "/usr/bin/env"
                let arguments = line[0].hasPrefix("/") ? Array(line.dropFirst()) : line
                let result = try ChildProcess(executable: executable, arguments: arguments, environment: jobs[i].environment).run()
                if result.status == 127 { jobs[i].note = "not installed (scripts/bench.sh installs it)"; continue }
                guard result.status == 0 else {
                    jobs[i].note = "failed with status \(result.status): \(result.output.split(separator: "\n").last.map(String.init)?.prefix(120) ?? "")"
                    continue
                }
                if round >= 0 { jobs[i].seconds.append(result.seconds) }
            }
        }
        return report(jobs) + "\n" + PlanarConversionBenchmark(width: width, height: height).run() + "\n" + PlanarConversionBenchmark(width: 320, height: 240).run()
    }

    /// Writes `same.y4m`: Kamera's sepia frames, lossless (FFV1, RGB), made
    /// 4:2:0 in the color space Kamera's H.264 recording of them uses. Not
    /// timed. Nil when done, else why not.
    private func prepareSamePictures(input: String, folder: String) throws -> String? {
        let size = "\(width)x\(height)"
        let lossless = (folder as NSString).appendingPathComponent("same.mkv"), y4m = (folder as NSString).appendingPathComponent("same.y4m")
        defer { try? FileManager.default.removeItem(atPath: lossless) }
        let render = try ChildProcess(executable: kamera.path, arguments: ["render", "--input", input, "--format", "yuyv", "--input-size", size,
                                                                           "--crop", "none", "--frames", "\(frames)", "--quiet", "--filter", "sepia",
                                                                           "-o", lossless, "--codec", "ffv1"]).run()
        guard render.status == 0 else { return "Kamera's lossless render failed: \(render.output.prefix(120))" }
        let matrix = height >= 720 ? "bt709" : "bt601"
        let convert = try ChildProcess(executable: "/usr/bin/env", arguments: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", lossless, "-vf",
                                                                               "scale=out_color_matrix=\(matrix):out_range=tv:flags=accurate_rnd+full_chroma_int,format=yuv420p",
                                                                               "-strict", "-1", y4m]).run()
        guard convert.status == 0 else { return convert.status == 127 ? "not installed (scripts/bench.sh installs it)" : "ffmpeg could not make the Y4M file" }
        return nil
    }

    private func report(_ jobs: [Job]) -> String {
        var lines = ["Recording, whole processes: \(frames) frames \(width)x\(height) YUYV with sensor-like noise from tmpfs → sepia → file in tmpfs;",
                     "\(runs) runs each, alternated; median wall seconds (min–max) and frames a second:"]
        for job in jobs {
            let head = (job.name.padded(19) + job.program.padded(14))
            if let median = job.median {
                lines.append(head + String(format: "%6.2f s (%.2f–%.2f)  %6.1f fps", median, job.seconds.min()!, job.seconds.max()!, Double(frames) / median))
            } else {
                lines.append(head + "not measured: \(job.note ?? "no run")")
            }
        }
        func median(_ name: String, _ program: String) -> Double? { jobs.first { $0.name == name && $0.program == program }?.median }
        var ratios: [String] = []
        if let own = median("h264 sepia", "kamera") {
            if let peer = median("h264 sepia", "ffmpeg") { ratios.append(String(format: "H.264: ffmpeg/kamera %.2fx (target ≥ 1.0)", peer / own)) }
            if let peer = median("h264 sepia", "gstreamer-gl") { ratios.append(String(format: "gstreamer/kamera %.2fx", peer / own)) }
            if let floor = median("h264 same pictures", "ffmpeg") {
                ratios.append(String(format: "Kamera's whole job (decode, sepia, conversion, process start) over x264 alone on the same pictures: %+.0f %% (target < 10 %%)",
                                     (own / floor - 1) * 100))
            }
            if let floor = median("h264 encode only", "ffmpeg") {
                ratios.append(String(format: "over ffmpeg encoding the unfiltered frames (other pictures, other bits): %+.0f %%", (own / floor - 1) * 100))
            }
            if let rgba = median("h264 sepia rgba", "kamera") {
                ratios.append(String(format: "pixel paths: YUYV straight to 4:2:0 (auto) against the RGBA picture through swscale: %.2fx as fast", rgba / own))
            }
        }
        if let own = median("ffv1 sepia", "kamera"), let peer = median("ffv1 sepia", "ffmpeg") { ratios.append(String(format: "FFV1: ffmpeg/kamera %.2fx", peer / own)) }
        if let own = median("jpeg stills sepia", "kamera"), let peer = median("jpeg stills sepia", "ffmpeg") { ratios.append(String(format: "JPEG: ffmpeg/kamera %.2fx", peer / own)) }
        lines += ratios.map { "  " + $0 }
        lines.append("  (a ratio above 1: Kamera took less wall time; same encoder settings: libx264 veryfast, CRF 23, no B-frames, a key frame a second, fragmented MP4)")
        lines.append("Commands:")
        lines += jobs.map { "  \($0.program) (\($0.name)): \($0.arguments.joined(separator: " "))" }
        return lines.joined(separator: "\n")
    }
}
