import CommandLineSupport
import Foundation
import Lifecycle
import Output

/// What composing costs (`--layout`): the 1280x720 test pattern rendered
/// into a Y4M file in tmpfs, alone and with a second 1280x720 test pattern
/// in a corner (`pip`, 1280x720 out) or beside it (`side`, 2560x720 out),
/// as whole processes; beside ffmpeg making the same from two `testsrc2`
/// (`overlay` of one scaled to 30%, `hstack`). CPU per frame is the
/// difference between a short and a long run over the frames between, which
/// leaves the start (the GL context, the shaders) out; medians of the rounds.
struct CompositionBenchmark {
    let kamera: URL
    var frames = (short: 30, long: 150)
    var rounds = 3
    var peers = true

    struct Row {
        let name: String
        var cpuMilliseconds: [Double] = []
        var note: String?
    }

    func run(progress: (String) -> Void = { _ in }) throws -> String {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
        let folder = (base as NSString).appendingPathComponent("kamera-compose-\(getpid())")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = (folder as NSString).appendingPathComponent("out.y4m")
        let k = kamera.path
        let render = [k, "render", "--crop", "none", "--input-size", "1280x720", "-o", output, "-y", "-q"]
        let testsrc = ["-f", "lavfi", "-i", "testsrc2=s=1280x720:r=30"]
        var programs: [(String, (Int) -> [String])] = [
            ("kamera, one source", { render + ["--frames", "\($0)"] }),
            ("kamera --layout pip, two sources", { render + ["--frames", "\($0)", "--input", "pattern:", "--input", "pattern:", "--layout", "pip"] }),
            ("kamera --layout side, two sources", { render + ["--frames", "\($0)", "--input", "pattern:", "--input", "pattern:", "--layout", "side"] }),
        ]
        if peers {
            let ffmpeg = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
            programs += [
                ("ffmpeg, one source", { ffmpeg + testsrc + ["-frames:v", "\($0)", "-pix_fmt", "yuv420p", output] }),
                ("ffmpeg overlay, two sources", { ffmpeg + testsrc + testsrc + ["-filter_complex", "[1]scale=384:-2[p];[0][p]overlay=W-w-26:H-h-26",
                                                                                 "-frames:v", "\($0)", "-pix_fmt", "yuv420p", output] }),
                ("ffmpeg hstack, two sources", { ffmpeg + testsrc + testsrc + ["-filter_complex", "hstack", "-frames:v", "\($0)", "-pix_fmt", "yuv420p", output] }),
            ]
        }
        var rows = programs.map { Row(name: $0.0) }
        for round in 0..<rounds {
            for k in programs.indices {
                // Each round starts with another program.
                let i = (k + round) % programs.count
                guard rows[i].note == nil else { continue }
                progress("round \(round + 1) of \(rounds): \(rows[i].name)")
                var cpu: [Double] = []
                for count in [frames.short, frames.long] {
                    let line = programs[i].1(count)
                    let executable = line[0].hasPrefix("/") ? line[0] : "/usr/bin/env"
                    let result = try ChildProcess(executable: executable, arguments: line[0].hasPrefix("/") ? Array(line.dropFirst()) : line).run()
                    if result.status == 127 { rows[i].note = "not installed (scripts/bench.sh installs it)"; break }
                    guard result.status == 0 else {
                        rows[i].note = "failed with status \(result.status): \(TerminalText.oneLine(String(result.output.suffix(200))))"
                        break
                    }
                    cpu.append(result.cpuSeconds)
                }
                if cpu.count == 2 { rows[i].cpuMilliseconds.append(max(cpu[1] - cpu[0], 0) * 1000 / Double(frames.long - frames.short)) }
            }
        }
        return Self.text(rows, frames: frames, rounds: rounds)
    }

    static func text(_ rows: [Row], frames: (short: Int, long: Int), rounds: Int) -> String {
        let medians = rows.map { $0.cpuMilliseconds.isEmpty ? nil : $0.cpuMilliseconds.sorted().median }
        func extra(_ i: Int, over one: Int) -> Double? {
            guard let a = medians[i], let b = medians[one] else { return nil }
            return a - b
        }
        var lines = ["composition: 1280x720 test patterns → Y4M in tmpfs, CPU per frame between runs of \(frames.short) and \(frames.long) frames (medians of \(rounds) rounds)"]
        for (i, row) in rows.enumerated() {
            var line = row.name.padded(40)
            if let note = row.note {
                line += "not measured: \(note)"
            } else if let median = medians[i] {
                line += String(format: "%7.2f ms", median)
                let one = row.name.hasPrefix("kamera") ? 0 : rows.firstIndex { $0.name == "ffmpeg, one source" }
                if let one, one != i, let more = extra(i, over: one) { line += String(format: "   composing: %+.2f ms a frame", more) }
            }
            lines.append(line)
        }
        // Kamera's extra cost beside ffmpeg's for the same layout.
        let pairs = [("kamera --layout pip, two sources", "ffmpeg overlay, two sources"), ("kamera --layout side, two sources", "ffmpeg hstack, two sources")]
        for (own, peer) in pairs {
            guard let i = rows.firstIndex(where: { $0.name == own }), let j = rows.firstIndex(where: { $0.name == peer }),
                  let one = rows.firstIndex(where: { $0.name == "ffmpeg, one source" }) else { continue }
            guard let a = medians[i], let b = medians[j], b > 0 else {
                // The CPU clock counts in ticks: a short run of a cheap program can measure none.
                lines.append("\(own): no ratio to ffmpeg's CPU a frame (\(medians[j] == 0 ? "ffmpeg's too small to measure in runs this short; more --end-to-end-frames" : "not measured"))")
                continue
            }
            lines.append(String(format: "%@: %.2fx ffmpeg's CPU a frame (whole); composing adds %.2f ms to Kamera's one source, %.2f ms to ffmpeg's",
                                own, a / b, extra(i, over: 0) ?? .nan, extra(j, over: one) ?? .nan))
        }
        return lines.joined(separator: "\n")
    }
}
