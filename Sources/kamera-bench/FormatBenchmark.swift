import Foundation
import Lifecycle
import Pixels

/// The formats Kamera repacks, as whole processes: a raw file of each (made
/// by ffmpeg from its test source with noise, or by swapping bytes of one
/// it makes where ffmpeg has no such format) → a PNG sequence in tmpfs,
/// Kamera beside ffmpeg and GStreamer (`videoconvert` or `bayer2rgb` on the
/// CPU, `glcolorconvert` on GL) reading the same file, and Kamera on the
/// native file of the same frames (the repack's cost end to end); and the
/// repack alone in memory. Runs alternate; medians.
struct FormatBenchmark {
    var kamera: URL
    var sizes: [(width: Int, height: Int)] = [(1280, 720), (1920, 1080)]
    var frames = 20
    var runs = 3
    var peers = true
    /// The formats to time by name (with the native formats they become); nil: all.
    var only: Set<String>? = nil

    /// ffmpeg's name of a format; nil where ffmpeg has none.
    static func ffmpegName(_ format: SourceFormat) -> String? {
        switch format {
        case .native(let f): ["yuyv": "yuyv422", "nv12": "nv12", "rgb24": "rgb24", "rgba": "rgba", "grey": "gray"][f.name]
        case .repacked(let f):
            if let bits = f.mosaic?.bits { bits == 8 ? "bayer_\(f.rawValue)" : bits == 16 ? "bayer_\(f.rawValue)le" : nil }
            else { [.uyvy: "uyvy422", .yvyu: "yvyu422", .nv21: "nv21", .yu12: "yuv420p", .yuv422p: "yuv422p", .bgr24: "bgr24",
                    .rgb565: "rgb565le", .y10: "gray10le", .y12: "gray12le", .y16: "gray16le",
                    .rgbx: "rgb0", .bgrx: "bgr0", .xbgr: "0bgr", .abgr: "abgr", .argb: "argb", .xrgb: "0rgb"][f] }
        }
    }

    /// GStreamer's name of a format (`rawvideoparse`'s, or for Bayer
    /// `bayer2rgb`'s); nil where GStreamer reads none. `gl`: what
    /// `glcolorconvert` converts (no YVYU, VYUY or Bayer).
    static func gstreamerName(_ format: SourceFormat, gl: Bool) -> String? {
        switch format {
        case .native(let f): return ["yuyv": "yuy2", "nv12": "nv12", "rgb24": "rgb", "rgba": "rgba", "grey": "gray8"][f.name]
        case .repacked(let f):
            if let mosaic = f.mosaic { return !gl && mosaic.bits == 8 && !f.isMIPIPacked ? String(f.rawValue.dropLast()) : nil }
            if gl && [.yvyu, .vyuy].contains(f) { return nil }
            return [.uyvy: "uyvy", .yvyu: "yvyu", .vyuy: "vyuy", .nv21: "nv21", .nv16: "nv16", .nv61: "nv61", .yu12: "i420", .yv12: "yv12",
                    .yuv422p: "y42b", .bgr24: "bgr", .rgb565: "rgb16", .y16: "gray16-le",
                    .rgbx: "rgbx", .bgrx: "bgrx", .xbgr: "xbgr", .abgr: "abgr", .argb: "argb", .xrgb: "xrgb"][f]
        }
    }

    /// The programs timed, each writing RGB PNGs with its defaults.
    static let programs = ["kamera", "ffmpeg", "gstreamer", "gstreamer-gl"]

    /// The Bayer formats measured: each depth once, each order once (the orders
    /// cost the same), and both MIPI packings.
    static let bayerFormats: [RepackedFormat] = [.rggb8, .grbg10, .gbrg12, .bggr16, .bggr10p, .rggb12p]

    /// The format whose file the file of a format ffmpeg lacks is made from (see `derive`).
    static func derived(_ format: RepackedFormat) -> String? {
        if format.mosaic != nil { return "rgb24" }
        return [.vyuy: "uyvy", .nv16: "yuyv", .nv61: "nv16", .yv12: "yu12"][format]
    }

    func run(progress: (String) -> Void = { _ in }) throws -> String {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let folder = (base as NSString).appendingPathComponent("kamera-formats-\(getpid())")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var lines = ["Formats, whole processes: \(frames) frames of ffmpeg's testsrc2 with noise, raw from tmpfs → PNG sequence in tmpfs; \(runs) runs each, alternated, median wall seconds;",
                     "repack: Kamera's repack of one frame in memory, median of 20 (ms); native: Kamera on the file of its native format made from the same frames.",
                     "format  size        repack ms   kamera s  native s  repack's share "
                        + Self.programs.dropFirst().map { String(repeating: " ", count: 14 - "\($0) s".count) + "\($0) s  " + "\($0)/kamera".padded(20) }.joined()]
        if peers && XvfbDisplay.shared.name == nil { lines.append("  gstreamer-gl: not measured: needs Xvfb (scripts/bench.sh installs it) or a DISPLAY") }
        for size in sizes {
            let (w, h) = size
            let natives: [PixelFormat] = [.yuyv, .nv12, .rgb24, .rgba, .grey]
            let formats: [SourceFormat] = natives.map { .native($0) }
                + (RepackedFormat.allCases.filter { $0.mosaic == nil } + Self.bayerFormats).map { .repacked($0) }
            var inputs: [String: String] = [:]
            for format in formats {
                let path = (folder as NSString).appendingPathComponent("in-\(w)x\(h).\(format.name)")
                if case .repacked(let f) = format, let source = Self.derived(f) {
                    try derive(f, from: try Data(contentsOf: URL(fileURLWithPath: inputs[source]!)), width: w, height: h).write(to: URL(fileURLWithPath: path))
                } else {
                    let made = try ChildProcess(executable: "/usr/bin/env", arguments: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                                                                                       "testsrc2=size=\(w)x\(h):rate=30", "-vf", "noise=alls=6:allf=t",
                                                                                       "-frames:v", "\(frames)", "-pix_fmt", Self.ffmpegName(format)!,
                                                                                       "-f", "rawvideo", path]).run()
                    guard made.status == 0 else { return "Formats: not measured: ffmpeg could not make the input (\(made.status == 127 ? "not installed" : made.output.prefix(120)))" }
                }
                inputs[format.name] = path
            }
            var seconds: [String: [Double]] = [:]
            var notes: [String: String] = [:]
            func job(_ program: String, _ format: SourceFormat) -> (line: [String], environment: [String: String])? {
                let input = inputs[format.name]!, out = (folder as NSString).appendingPathComponent("out")
                if program == "kamera" {
                    return ([kamera.path, "render", "--input", input, "--format", format.name, "--input-size", "\(w)x\(h)", "--crop", "none",
                             "--frames", "\(frames)", "-o", "\(out)/f-%03d.png", "--quiet"], [:])
                }
                guard peers, notes["\(program) \(format.name)"] == nil else { return nil }
                if program == "ffmpeg" {
                    guard let name = Self.ffmpegName(format) else { return nil }
                    return (["/usr/bin/env", "ffmpeg", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", name, "-s", "\(w)x\(h)", "-i", input,
                             "-pix_fmt", "rgb24", "\(out)/f-%03d.png"], [:])
                }
                let gl = program == "gstreamer-gl"
                guard let name = Self.gstreamerName(format, gl: gl) else { return nil }
                var environment: [String: String] = [:]
                if gl {
                    guard let display = XvfbDisplay.shared.name else { return nil }
                    environment = ["DISPLAY": display, "GST_GL_PLATFORM": "egl"]
                }
                let isMosaic: Bool = if case .repacked(let f) = format { f.mosaic != nil } else { false }
                let parse = isMosaic
                    ? ["filesrc", "location=\(input)", "blocksize=\(w * h)", "!", "video/x-bayer,format=\(name),width=\(w),height=\(h),framerate=30/1", "!", "bayer2rgb"]
                    : ["filesrc", "location=\(input)", "!", "rawvideoparse", "format=\(name)", "width=\(w)", "height=\(h)", "framerate=30/1"]
                let convert = gl ? ["glupload", "!", "glcolorconvert", "!", "gldownload", "!", "video/x-raw,format=RGBA", "!", "videoconvert"] : ["videoconvert"]
                return (["/usr/bin/env", "gst-launch-1.0", "-q"] + parse + ["!"] + convert
                        + ["!", "video/x-raw,format=RGB", "!", "pngenc", "!", "multifilesink", "location=\(out)/f-%03d.png"], environment)
            }
            let chosen = formats.filter { only?.contains($0.name) ?? true }
            let measured = formats.filter { f in chosen.contains { $0.name == f.name || $0.native.name == f.name } }
            for round in -1..<runs {
                for format in measured {
                    let start = (round + 1) % Self.programs.count
                    for program in Self.programs[start...] + Self.programs[..<start] {
                        guard let (line, environment) = job(program, format) else { continue }
                        progress("\(w)x\(h) \(format.name) \(program), run \(round + 2) of \(runs + 1)")
                        let out = (folder as NSString).appendingPathComponent("out")
                        try? FileManager.default.removeItem(atPath: out)
                        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                        let result = try ChildProcess(executable: line[0], arguments: Array(line.dropFirst()), environment: environment).run()
                        let written = (try? FileManager.default.contentsOfDirectory(atPath: out).count) ?? 0
                        guard result.status == 0, written == frames else {
                            let problem = result.status == 0 ? "wrote \(written) of \(frames) frames" : "failed (\(result.status)): \(result.output.prefix(160))"
                            lines.append("  \(program) \(format.name) \(w)x\(h) \(problem)")
                            if program != "kamera" { notes["\(program) \(format.name)"] = problem }
                            continue
                        }
                        if round >= 0 { seconds["\(program) \(format.name)", default: []].append(result.seconds) }
                    }
                }
            }
            func median(_ key: String) -> Double? { seconds[key]?.median }
            for format in measured {
                let own = median("kamera \(format.name)")
                var row = format.name.padded(8) + "\(w)x\(h)".padded(12)
                if case .repacked(let f) = format {
                    row += String(format: "%9.2f   ", try repackMilliseconds(f, input: inputs[format.name]!, width: w, height: h))
                } else {
                    row += "        –   "
                }
                row += own.map { String(format: "%8.2f  ", $0) } ?? "       –  "
                let native = median("kamera \(format.native.name)")
                row += native.map { String(format: "%8.2f  ", $0) } ?? "       –  "
                if case .repacked = format, let own, let native {
                    row += String(format: "%+13.0f %%  ", (own / native - 1) * 100)
                } else {
                    row += "             –  "
                }
                for peer in Self.programs.dropFirst() {
                    let seconds = median("\(peer) \(format.name)")
                    row += seconds.map { String(format: "%14.2f  ", $0) } ?? "             –  "
                    row += (own.flatMap { o in seconds.map { String(format: "%.2fx", $0 / o) } } ?? "–").padded(20)
                }
                lines.append(row)
            }
            if peers { lines.append(try withoutEncoder(input: inputs["yuyv"]!, width: w, height: h)) }
            lines.append(demosaicAgainstConversion(width: w, height: h))
            lines.append(try ConversionStageBenchmark(width: w, height: h).run())
        }
        lines.append("  (peer/kamera above 1: Kamera took less wall time; every program writes RGB PNGs with its default settings; gstreamer: videoconvert,")
        lines.append("   or bayer2rgb for 8-bit Bayer (no other depth), then pngenc; gstreamer-gl: glupload ! glcolorconvert ! gldownload (RGBA, then videoconvert to RGB) on Xvfb,")
        lines.append("   no YVYU, VYUY or Bayer; GStreamer 1.22 reads no Y10 or Y12; – : the program has no such format,")
        lines.append("   the file is made by swapping bytes of another: vyuy from uyvy, nv16 from yuyv, nv61 from nv16, yv12 from yu12; Bayer files are")
        lines.append("   the rgb24 frames sampled in the mosaic (bggr10p and rggb12p then MIPI-packed); Kamera demosaics them with its defaults (Malvar, auto white balance, sRGB curve), ffmpeg")
        lines.append("   (8- and 16-bit only) with its bilinear demosaic and nothing else; a Bayer format's native run is the rgb24 file)")
        return lines.joined(separator: "\n")
    }

    /// The YUYV file with no PNG encoder, to see the conversions alone: Kamera
    /// to Y4M 4:4:4 on /dev/null (it writes no raw RGB), ffmpeg to RGB24 into
    /// its null muxer, GStreamer's videoconvert to RGB into fakesink. Runs
    /// alternate; medians.
    func withoutEncoder(input: String, width w: Int, height h: Int) throws -> String {
        let jobs: [(name: String, line: [String])] = [
            ("kamera", [kamera.path, "render", "--input", input, "--format", "yuyv", "--input-size", "\(w)x\(h)", "--crop", "none",
                        "--frames", "\(frames)", "-o", "/dev/null", "--stream", "y4m", "--y4m-chroma", "444", "--quiet"]),
            ("ffmpeg", ["/usr/bin/env", "ffmpeg", "-nostdin", "-v", "error", "-f", "rawvideo", "-pix_fmt", "yuyv422", "-s", "\(w)x\(h)", "-i", input,
                        "-pix_fmt", "rgb24", "-f", "null", "-"]),
            ("gstreamer", ["/usr/bin/env", "gst-launch-1.0", "-q", "filesrc", "location=\(input)", "!", "rawvideoparse", "format=yuy2", "width=\(w)",
                           "height=\(h)", "framerate=30/1", "!", "videoconvert", "!", "video/x-raw,format=RGB", "!", "fakesink"]),
        ]
        var seconds: [String: [Double]] = [:], failed: [String: String] = [:]
        for round in -1..<runs {
            for k in jobs.indices {
                let job = jobs[(k + max(0, round)) % jobs.count]
                guard failed[job.name] == nil else { continue }
                let result = try ChildProcess(executable: job.line[0], arguments: Array(job.line.dropFirst())).run()
                guard result.status == 0 else { failed[job.name] = "failed (\(result.status))"; continue }
                if round >= 0 { seconds[job.name, default: []].append(result.seconds) }
            }
        }
        func median(_ name: String) -> Double? { seconds[name]?.median }
        let own = median("kamera")
        let parts = jobs.map { job in
            guard let t = median(job.name) else { return "\(job.name) \(failed[job.name] ?? "not measured")" }
            return String(format: "%@ %.2f s", job.name, t) + (job.name == "kamera" ? "" : own.map { String(format: " (%.2fx)", t / $0) } ?? "")
        }
        return "  without an encoder, yuyv \(w)x\(h), \(frames) frames (Kamera to Y4M 4:4:4 on /dev/null, ffmpeg to -f null, GStreamer videoconvert to fakesink): "
            + parts.joined(separator: ", ")
    }

    /// The file of `format` from one of `derived(format)`'s: U and V swapped,
    /// or (NV16 from YUYV) the luma and the chroma bytes each gathered in a plane.
    func derive(_ format: RepackedFormat, from data: Data, width: Int, height: Int) throws -> Data {
        var bytes = [UInt8](data)
        let size = format.frameSize(width: width, height: height)
        if let mosaic = format.mosaic {
            // Each site keeps its color of the RGB24 frames, widened to the depth by shifting.
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count / 3 * mosaic.bytesPerSample)
            var group: [Int] = []
            for i in 0..<bytes.count / 3 {
                let x = i % width, y = (i / width) % height
                let v = Int(bytes[i * 3 + mosaic.channel(x: x, y: y)])
                let wide = mosaic.bits == 16 ? v * 257 : v << (mosaic.bits - 8)
                if format.isMIPIPacked {
                    // MIPI CSI-2: the high 8 bits of 4 (10-bit) or 2 (12-bit) samples, then their low bits in one byte.
                    group.append(wide)
                    let lowBits = mosaic.bits - 8
                    guard group.count == 8 / lowBits else { continue }
                    out += group.map { UInt8($0 >> lowBits) }
                    out.append(UInt8(group.enumerated().reduce(0) { $0 | ($1.element & (1 << lowBits - 1)) << ($1.offset * lowBits) }))
                    group.removeAll(keepingCapacity: true)
                } else if mosaic.bits == 8 {
                    out.append(UInt8(v))
                } else {
                    out += [UInt8(wide & 255), UInt8(wide >> 8)]
                }
            }
            precondition(out.count == bytes.count / 3 / (width * height) * size, "\(format.name): \(out.count) bytes")
            return Data(out)
        }
        if format == .nv16 {
            precondition(width % 2 == 0, "an even width")
            return Data(stride(from: 0, to: bytes.count, by: size).flatMap { start in
                stride(from: start, to: start + size, by: 2).map { bytes[$0] } + stride(from: start + 1, to: start + size, by: 2).map { bytes[$0] }
            })
        }
        for start in stride(from: 0, to: bytes.count, by: size) {
            switch format {
            case .vyuy:
                for i in stride(from: start, to: start + size, by: 4) { bytes.swapAt(i, i + 2) }
            case .nv61:
                for i in stride(from: start + width * height, to: start + size, by: 2) { bytes.swapAt(i, i + 1) }
            case .yv12:
                let plane = ((width + 1) / 2) * ((height + 1) / 2), u = start + width * height
                for i in 0..<plane { bytes.swapAt(u + i, u + plane + i) }
            default:
                throw BenchError("\(format.name) is not made by swapping bytes")
            }
        }
        return Data(bytes)
    }

    /// The ISP on a random 8-bit mosaic beside the CPU's YUYV → RGBA conversion
    /// of a random frame of the same size (what a software renderer runs for a
    /// YUYV camera), in memory, on the same threads: 40 rounds, each timing the
    /// three once in turn, so a slower minute of a shared machine slows all
    /// three; medians of each, and the median of the rounds' ratios.
    func demosaicAgainstConversion(width: Int, height: Int) -> String {
        func time(_ body: () -> Void) -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
        }
        var generator = SystemRandomNumberGenerator()
        let mosaic = (0..<width * height).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let target = FrameBuffer(format: .rgb24, width: width, height: height)
        let yuyv = FrameBuffer(format: .yuyv, width: width, height: height)
        for i in 0..<yuyv.allBytes.count { yuyv.allBytes[i] = UInt8.random(in: 0...255, using: &generator) }
        let frame = yuyv.frame(sequence: 0, timestamp: 0)
        let converter = YUVToRGBA()
        let isps = ISPSettings.Demosaic.allCases.map { demosaic in
            var settings = ISPSettings()
            settings.demosaic = demosaic
            return (demosaic, BayerISP(settings: settings))
        }
        var ms: [String: [Double]] = [:]
        var ratios: [Double] = []
        mosaic.withUnsafeBytes { bytes in
            let plane = Plane(bytes: bytes, bytesPerRow: width)
            for round in 0...40 {
                var times: [String: Double] = [:]
                for (demosaic, isp) in isps {
                    times[demosaic.rawValue] = time { isp.process(plane, mosaic: RepackedFormat.rggb8.mosaic!, into: target) }
                }
                times["yuyv"] = time { converter.convert(frame, x: 0, y: 0, width: width, height: height) }
                guard round > 0 else { continue }  // the first round warms the caches and starts the threads
                for (key, value) in times { ms[key, default: []].append(value) }
                ratios.append(times["malvar"]! / times["yuyv"]!)
            }
        }
        return String(format: "  in memory at %dx%d: ISP with Malvar %.2f ms, with bilinear %.2f ms; the CPU's YUYV → RGBA conversion %.2f ms; Malvar/YUYV %.2fx (median of the rounds' ratios)",
                      width, height, median(ms["malvar"]!), median(ms["bilinear"]!), median(ms["yuyv"]!), median(ratios))
    }

    /// Kamera's repack of the first frame of `input`, in memory: median of 20, milliseconds.
    func repackMilliseconds(_ format: RepackedFormat, input: String, width: Int, height: Int) throws -> Double {
        let data = try Data(contentsOf: URL(fileURLWithPath: input))
        let target = FrameBuffer(format: format.native, width: width, height: height)
        let repacker = FrameRepacker(format: format)
        var times: [Double] = []
        data.withUnsafeBytes { bytes in
            let planes = format.planes(in: bytes, width: width, height: height)
            for _ in 0..<21 {
                let start = DispatchTime.now().uptimeNanoseconds
                repacker.repack(planes, into: target)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
        }
        return times.dropFirst().sorted()[times.count / 2 - 1]
    }
}
