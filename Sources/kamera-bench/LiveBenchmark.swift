import Capture
import CommandLineSupport
import Foundation
import Lifecycle
import Output
import Pipeline
import Pixels

/// The live preview keeping up with a camera's pace: `kamera preview` of the
/// test pattern paced at a camera's size and rate, sepia, the picture kept
/// current in a PNG, as a whole process for some seconds. A frame taken more
/// than one frame interval after it was due is one a camera would have
/// dropped (`LoopStatistics.lateFrames`). Then a raw Bayer camera at 1080p30:
/// the pattern's frames sampled in an RGGB mosaic, from a file paced the same
/// way, each developed by the ISP (on the CPU with a software renderer, in the
/// demosaic shader on a GPU). Target: none late at 1080p30 (RGB and Bayer) and 720p60.
struct LiveBenchmark {
    var kamera: URL
    var seconds = 10.0
    /// The last runs the luma analyser beside the loop: it must not make frames late.
    static let cases: [(width: Int, height: Int, fps: Int, analysed: Bool)] = [(1920, 1080, 30, false), (1280, 720, 60, false), (1280, 720, 30, false), (1280, 720, 30, true)]

    func run() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-bench-live-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var lines = [String(format: "Live preview (kamera preview, the test pattern paced as a camera, sepia, -o live.png every second), %.0f s each; target: no frame late:", seconds)]
        for c in Self.cases {
            let arguments = ["preview", "--input-size", "\(c.width)x\(c.height)", "--fps", "\(c.fps)", "--filter", "sepia",
                             "--duration", "\(seconds)", "-o", folder.appendingPathComponent("live.png").path, "--status-every", "3600"]
                + (c.analysed ? ["--analyze", "luma", "--metadata", folder.appendingPathComponent("luma.jsonl").path] : [])
            lines.append(try Self.preview(kamera, arguments, label: "  \(c.width)x\(c.height) at \(c.fps) fps\(c.analysed ? " + luma" : ""):".padded(31)))
        }
        let raw = folder.appendingPathComponent("rggb8.raw")
        try Self.writeBayerFrames(to: raw, width: 1920, height: 1080, count: Int(seconds * 30))
        let bayer = ["preview", "-i", raw.path, "--format", "rggb8", "--input-size", "1920x1080", "--fps", "30", "--filter", "sepia",
                     "--duration", "\(seconds)", "-o", folder.appendingPathComponent("live.png").path, "--status-every", "3600"]
        lines.append(try Self.preview(kamera, bayer, label: "  1920x1080 RGGB at 30 fps:".padded(31)))
        return lines.joined(separator: "\n")
    }

    /// `kamera ARGUMENTS` (a preview) as a whole process: its summary's rate,
    /// the frames late and the CPU it took, after `label`.
    /// Runs a preview and reads its summary line (so not --quiet, which leaves it out).
    static func preview(_ kamera: URL, _ arguments: [String], label: String) throws -> String {
        let result = try ChildProcess(executable: kamera.path, arguments: arguments).run()
        guard result.status == 0, let line = result.output.split(separator: "\n").last(where: { $0.contains("previewed") }),
              let late = lateFrames(in: String(line)) else {
            return label + " failed (exit \(result.status)): \(TerminalText.oneLine(result.output.split(separator: "\n").last.map(String.init) ?? ""))"
        }
        return label + String(format: " %@; %d late; CPU %.0f %% of one core", String(line.drop { $0 != " " }.dropFirst().prefix { $0 != ";" }),
                              late, result.cpuSeconds / result.seconds * 100)
    }

    /// `count` frames of the test pattern as an 8-bit RGGB sensor gives them, back to back.
    static func writeBayerFrames(to url: URL, width: Int, height: Int, count: Int) throws {
        let pattern = TestPattern(width: width, height: height, format: .rgba)
        let mosaic = RepackedFormat.rggb8.mosaic!
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw PipelineError("cannot write \(url.path)") }
        let file = try FileHandle(forWritingTo: url)
        defer { try? file.close() }
        var samples = [UInt8](repeating: 0, count: width * height)
        for index in 0..<count {
            let plane = pattern.frame(at: UInt64(index)).planes[0]
            for y in 0..<height {
                for x in 0..<width { samples[y * width + x] = plane.bytes[y * plane.bytesPerRow + x * 4 + mosaic.channel(x: x, y: y)] }
            }
            try file.write(contentsOf: samples)
        }
    }

    /// N from "...; N frames late (...)", or 1 from "...; 1 frame late (...)".
    static func lateFrames(in summary: String) -> Int? {
        guard let range = summary.range(of: " frames late") ?? summary.range(of: " frame late") else { return nil }
        return Int(summary[..<range.lowerBound].split(separator: " ").last ?? "")
    }
}
