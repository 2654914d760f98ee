import CommandLineSupport
import DRM
import Foundation
import Lifecycle
import Output
import Pipeline
import Render

/// The console display: `kamera cube -o kms` and `kamera preview -o kms
/// --filter sepia` beside kmscube, each a whole process on the same card and
/// the connector's preferred mode. Each runs a short and a long count of
/// frames; the difference between the two gives the steady-state frame rate
/// and CPU time per frame, without start-up (EGL, shader compiles, mode set),
/// the same way for every program whatever it reports of itself. The programs
/// take turns, round after round, so that a machine slowing down over minutes
/// weighs on all of them alike; each ratio to kmscube is taken within a round.
struct DisplayBenchmark {
    var kamera: URL
    var shortRun = 30
    var longRun = 150
    var rounds = 3
    /// With `--no-peers`, Kamera's programs alone: kmscube is not run.
    var peers = true

    /// kmscube adds its framebuffers with DRM_FORMAT_MOD_INVALID when GBM gives
    /// no modifier, which vkms refuses at the mode set; with this preloaded,
    /// GBM's buffers say "linear" (0), which is what they are there.
    static let modifierShim = """
        #include <stdint.h>
        struct gbm_bo;
        uint64_t gbm_bo_get_modifier(struct gbm_bo *bo) { (void)bo; return 0; }
        """

    struct Row {
        var fps: Double
        var cpuMilliseconds: Double
    }

    /// The programs the report compares by name: kmscube's two cubes, the
    /// reference and the textured one, and Kamera's cube.
    private static let smoothKmscube = "kmscube (legacy, smooth)"
    private static let texturedKmscube = "kmscube (legacy, rgba)"
    private static let kameraCube = "kamera cube -o kms"

    /// A program measured: how to run it for a count of frames, and its rows so far.
    private struct Program {
        let name: String
        let make: (Int) -> ChildProcess
        var rows: [Row] = []
        /// The long run's count, settled in the first round.
        var frames: Int?
        var failure: Error?

        init(_ name: String, _ make: @escaping (Int) -> ChildProcess) {
            self.name = name
            self.make = make
        }
    }

    /// The report, or a line saying why it was skipped.
    func run() -> String {
        let display: (card: String, driver: String, summary: String, mode: DisplayMode)
        do {
            // Opened only to read it, and closed before any program starts: the
            // first process holding a card becomes its DRM master.
            let card = try DisplayCard.firstConnected()
            let choice = try card.choose(connector: nil, mode: nil)
            display = (card.path, card.node.driverName, "\(card.node.driverName) \(card.path), \(choice.connector.name) \(choice.mode)", choice.mode)
        } catch {
            return "display: skipped: \(error) (run the bench on a text console, or inside shared/vm/run-in-vm)"
        }
        var lines = ["Display (\(display.summary)), whole processes; the rate is the difference between a \(shortRun)-frame run and one of \(longRun) frames or more (after a warm-up run); "
                     + (rounds > 1 ? "\(rounds) rounds, the programs in turn: medians, each ratio the median of the rounds' ratios [lowest, highest]:" : "one round:"),
                     "program".padded(38) + "      fps CPU ms/frame   " + "fps vs kmscube".padded(20) + " CPU/frame vs kmscube"]
        var programs: [Program] = []
        var kmscubeNote: String?
        var shim: URL?
        defer { if let shim { try? FileManager.default.removeItem(at: shim.deletingLastPathComponent()) } }
        do {
            guard peers else { throw BenchError("skipped, as --no-peers asks") }
            guard let executable = Self.find("kmscube") else { throw BenchError("kmscube is not installed (apt-get install kmscube)") }
            var environment: [String: String] = [:]
            if display.driver == "vkms" {
                shim = try buildShim()
                environment["LD_PRELOAD"] = shim?.path
                kmscubeNote = "kmscube as shipped cannot set the mode on vkms (it adds framebuffers with DRM_FORMAT_MOD_INVALID); it ran with an LD_PRELOAD shim, built by this bench, whose gbm_bo_get_modifier returns 0 (linear)"
            }
            // smooth: kmscube's default, colors per vertex (the target's reference);
            // rgba: a cube textured from a still RGBA image, closer to Kamera's work.
            for (name, mode) in [(Self.smoothKmscube, "smooth"), (Self.texturedKmscube, "rgba")] {
                programs.append(Program(name) { frames in
                    ChildProcess(executable: executable, arguments: ["-D", display.card, "-M", mode, "-c", "\(frames)"], environment: environment)
                })
            }
        } catch {
            lines.append("kmscube: not measured: \(error)")
        }
        // The test pattern unpaced (--fps 1000), so that the display's vsync sets
        // the pace, as it does for kmscube.
        let common = ["-o", "kms", "--card", display.card, "--fps", "1000", "--quiet"]
        for (name, arguments) in [(Self.kameraCube, ["cube"] + common),
                                  ("kamera cube -o kms --format rgba", ["cube", "--format", "rgba"] + common),
                                  ("kamera preview -o kms --filter sepia", ["preview", "--filter", "sepia"] + common)] {
            programs.append(Program(name) { frames in
                ChildProcess(executable: kamera.path, arguments: arguments + ["--frames", "\(frames)"])
            })
        }
        for _ in 0..<rounds {
            for i in programs.indices where programs[i].failure == nil {
                do {
                    programs[i].rows.append(try measure(&programs[i]))
                } catch {
                    programs[i].failure = error
                }
            }
        }
        func measured(_ name: String) -> Program? { programs.first { $0.name == name && $0.failure == nil } }
        let reference = measured(Self.smoothKmscube)
        for program in programs {
            if let failure = program.failure {
                lines.append("\(program.name): not measured: \(failure)")
            } else {
                lines.append(format(program, against: program.name == reference?.name ? nil : reference))
            }
            if program.name == Self.texturedKmscube, let kmscubeNote { lines.append("  " + kmscubeNote) }
        }
        if let cube = measured(Self.kameraCube), let textured = measured(Self.texturedKmscube) {
            let (fps, cpu) = Self.ratios(of: cube, to: textured)
            lines.append("kamera cube beside kmscube's textured cube (rgba): \(fps) its frame rate, \(cpu) its CPU per frame")
        }
        let (own, theirs) = Self.faceEdges(width: display.mode.width, height: display.mode.height)
        lines.append(String(format: "(a cube face seen head-on is %.0f px across in Kamera, %.0f px in kmscube: Kamera's cube covers %.2fx the pixels)",
                            own, theirs, (own * own) / (theirs * theirs)))
        lines.append("(the test pattern is a 1280x720 YUYV frame, turned into RGB each frame on the CPU with a software renderer (--yuv-conversion auto), at half size where the faces show it at under 1/sqrt(2) of its size; --format rgba is uploaded as it is)")
        return lines.joined(separator: "\n")
    }

    /// The ratios of `values` to `references` round by round: their median,
    /// lowest and highest. Rounds one of the two lacks are left out.
    static func pairedRatio(_ values: [Double], _ references: [Double]) -> (median: Double, low: Double, high: Double) {
        let ratios = zip(values, references).map { $0 / $1 }
        guard !ratios.isEmpty else { return (.nan, .nan, .nan) }
        return (ratios.median!, ratios.min()!, ratios.max()!)
    }

    /// "0.53x", with " [0.48, 0.60]" when there was more than one round.
    static func ratioText(_ ratio: (median: Double, low: Double, high: Double)) -> String {
        String(format: "%.2fx", ratio.median) + (ratio.low == ratio.high ? "" : String(format: " [%.2f, %.2f]", ratio.low, ratio.high))
    }

    /// The edge of a face seen head-on, in pixels: Kamera's (`CubeRenderer.faceEdge`)
    /// and kmscube's (a frustum of ±2.8 by ±2.8·h/w at 6, the cube ±1 at 8, so
    /// its front face at 7: 2 · 6/7 / 5.6 of the width).
    static func faceEdges(width: Int, height: Int) -> (kamera: Double, kmscube: Double) {
        (Double(CubeRenderer.faceEdge(outputHeight: height)), 2 * 6.0 / 7 / 5.6 * Double(width))
    }

    private func format(_ program: Program, against reference: Program?) -> String {
        var text = program.name.padded(38) + String(format: " %8.1f %12.1f", program.rows.map(\.fps).median!,
                                                     program.rows.map(\.cpuMilliseconds).median!)
        if let reference {
            let (fps, cpu) = Self.ratios(of: program, to: reference)
            text += "   " + fps.padded(20) + " " + cpu
        }
        return text
    }

    /// `program`'s frame rate and CPU per frame as ratios to `reference`'s, round by round.
    private static func ratios(of program: Program, to reference: Program) -> (fps: String, cpu: String) {
        (ratioText(pairedRatio(program.rows.map(\.fps), reference.rows.map(\.fps))),
         ratioText(pairedRatio(program.rows.map(\.cpuMilliseconds), reference.rows.map(\.cpuMilliseconds))))
    }

    /// One round of `program`: a short and a long run, the steady-state rate
    /// between the two. The first round starts with a short run that warms the
    /// file cache (its start-up cost is not the program's own) and settles the
    /// long count: a fast program runs longer (the long count times 4, again
    /// and again) until the two runs differ by at least two seconds, so that
    /// start-up noise does not swamp the figure.
    private func measure(_ program: inout Program) throws -> Row {
        func run(_ frames: Int) throws -> ChildProcess.Result {
            let result = try program.make(frames).run()
            guard result.status == 0 else {
                let last = result.output.split(separator: "\n").last.map(String.init) ?? ""
                throw BenchError("exit status \(result.status) after \(frames) frames: \(TerminalText.oneLine(last))")
            }
            return result
        }
        if program.frames == nil { _ = try run(shortRun) }
        let short = try run(shortRun)
        var frames = program.frames ?? longRun
        var long = try run(frames)
        while program.frames == nil, long.seconds - short.seconds < 2, frames < 100_000 {
            frames *= 4
            long = try run(frames)
        }
        program.frames = frames
        let seconds = long.seconds - short.seconds
        guard seconds > 0 else { throw BenchError("the long run was not slower than the short one; the machine is too noisy to measure") }
        let counted = Double(frames - shortRun)
        return Row(fps: counted / seconds, cpuMilliseconds: max(long.cpuSeconds - short.cpuSeconds, 0) * 1000 / counted)
    }

    /// The shim built into a temporary folder with the system's C compiler.
    private func buildShim() throws -> URL {
        guard let compiler = Self.find("cc") ?? Self.find("gcc") ?? Self.find("clang") else {
            throw BenchError("no C compiler (cc) to build the gbm_bo_get_modifier shim that kmscube needs on vkms")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-bench-shim-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = folder.appendingPathComponent("modifier-shim.c"), library = folder.appendingPathComponent("modifier-shim.so")
        try Self.modifierShim.write(to: source, atomically: true, encoding: .utf8)
        let result = try ChildProcess(executable: compiler, arguments: ["-shared", "-fPIC", "-O2", "-o", library.path, source.path]).run()
        guard result.status == 0 else { throw BenchError("building the kmscube shim failed: \(TerminalText.oneLine(result.output))") }
        return library
    }

    /// The program's path on PATH, if it is installed.
    static func find(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
