import CommandLineSupport
import Foundation
import Pipeline

/// The console display: `kamera cube -o kms` and `kamera preview -o kms
/// --filter sepia` beside kmscube, each a whole process on the same card and
/// the connector's preferred mode. Each runs a short and a long count of
/// frames; the difference between the two gives the steady-state frame rate
/// and CPU time per frame, without start-up (EGL, shader compiles, mode set),
/// the same way for every program whatever it reports of itself.
struct DisplayBenchmark {
    var kamera: URL
    var shortRun = 30
    var longRun = 150

    /// kmscube adds its framebuffers with DRM_FORMAT_MOD_INVALID when GBM gives
    /// no modifier, which vkms refuses at the mode set; with this preloaded,
    /// GBM's buffers say "linear" (0), which is what they are there.
    static let modifierShim = """
        #include <stdint.h>
        struct gbm_bo;
        uint64_t gbm_bo_get_modifier(struct gbm_bo *bo) { (void)bo; return 0; }
        """

    struct Row {
        var name: String
        var fps: Double
        var cpuMilliseconds: Double
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
        var lines = ["Display (\(display.summary)), whole processes; the rate is the difference between a \(shortRun)-frame run and one of \(longRun) frames or more (after a warm-up run):",
                     "program                                    fps   CPU ms/frame   fps vs kmscube   CPU/frame vs kmscube"]
        var reference: Row?, textured: Row?
        do {
            // smooth: kmscube's default, colors per vertex (the target's reference);
            // rgba: a cube textured from a still RGBA image, closer to Kamera's work.
            let (rows, note) = try kmscube(card: display.card, driver: display.driver, modes: ["smooth", "rgba"])
            (reference, textured) = (rows[0], rows[1])
            for (i, row) in rows.enumerated() { lines.append(format(row, against: i == 0 ? nil : reference)) }
            if let note { lines.append("  " + note) }
        } catch {
            lines.append("kmscube: not measured: \(error)")
        }
        // The test pattern unpaced (--fps 1000), so that the display's vsync sets
        // the pace, as it does for kmscube.
        let common = ["-o", "kms", "--card", display.card, "--fps", "1000", "--quiet"]
        var kameraCube: Row?
        for (name, arguments) in [("kamera cube -o kms", ["cube"] + common),
                                  ("kamera cube -o kms --format rgba", ["cube", "--format", "rgba"] + common),
                                  ("kamera preview -o kms --filter sepia", ["preview", "--filter", "sepia"] + common)] {
            do {
                let row = try measure(name: name) { frames in
                    ChildProcess(executable: kamera.path, arguments: arguments + ["--frames", "\(frames)"])
                }
                if arguments == ["cube"] + common { kameraCube = row }
                lines.append(format(row, against: reference))
            } catch {
                lines.append("\(name): not measured: \(error)")
            }
        }
        if let kameraCube, let textured {
            lines.append(String(format: "kamera cube beside kmscube's textured cube (rgba): %.2fx its frame rate, %.2fx its CPU per frame",
                                kameraCube.fps / textured.fps, kameraCube.cpuMilliseconds / textured.cpuMilliseconds))
        }
        let (own, theirs) = Self.faceEdges(width: display.mode.width, height: display.mode.height)
        lines.append(String(format: "(a cube face seen head-on is %.0f px across in Kamera, %.0f px in kmscube: Kamera's cube covers %.2fx the pixels)",
                            own, theirs, (own * own) / (theirs * theirs)))
        lines.append("(the test pattern is a 1280x720 YUYV frame, turned into RGB each frame on the CPU with a software renderer (--yuv-conversion auto), at half size where the faces show it at under 1/sqrt(2) of its size; --format rgba is uploaded as it is)")
        return lines.joined(separator: "\n")
    }

    /// The edge of a face seen head-on, in pixels: Kamera's (`CubeRenderer.faceEdge`)
    /// and kmscube's (a frustum of ±2.8 by ±2.8·h/w at 6, the cube ±1 at 8, so
    /// its front face at 7: 2 · 6/7 / 5.6 of the width).
    static func faceEdges(width: Int, height: Int) -> (kamera: Double, kmscube: Double) {
        (Double(CubeRenderer.faceEdge(outputHeight: height)), 2 * 6.0 / 7 / 5.6 * Double(width))
    }

    private func format(_ row: Row, against reference: Row?) -> String {
        var text = row.name.padded(38) + String(format: " %8.1f %12.1f", row.fps, row.cpuMilliseconds)
        if let reference {
            text += String(format: "   %12.2fx   %18.2fx", row.fps / reference.fps, row.cpuMilliseconds / reference.cpuMilliseconds)
        }
        return text
    }

    private func kmscube(card: String, driver: String, modes: [String]) throws -> ([Row], String?) {
        guard let executable = Self.find("kmscube") else { throw BenchError("kmscube is not installed (apt-get install kmscube)") }
        var environment: [String: String] = [:]
        var note: String?, shim: URL?
        defer { if let shim { try? FileManager.default.removeItem(at: shim.deletingLastPathComponent()) } }
        if driver == "vkms" {
            shim = try buildShim()
            environment["LD_PRELOAD"] = shim?.path
            note = "kmscube as shipped cannot set the mode on vkms (it adds framebuffers with DRM_FORMAT_MOD_INVALID); it ran with an LD_PRELOAD shim, built by this bench, whose gbm_bo_get_modifier returns 0 (linear)"
        }
        let rows = try modes.map { mode in
            try measure(name: "kmscube (legacy, \(mode))") { frames in
                ChildProcess(executable: executable, arguments: ["-D", card, "-M", mode, "-c", "\(frames)"], environment: environment)
            }
        }
        return (rows, note)
    }

    /// Runs the program for the short and the long count, after a short run
    /// that warms the file cache (its start-up cost is not the program's own);
    /// the steady-state rate between the two. A fast program runs longer (the
    /// long count times 4, again and again) until the two runs differ by at
    /// least two seconds, so that start-up noise does not swamp the figure.
    private func measure(name: String, _ make: (Int) -> ChildProcess) throws -> Row {
        func run(_ frames: Int) throws -> ChildProcess.Result {
            let result = try make(frames).run()
            guard result.status == 0 else {
                let last = result.output.split(separator: "\n").last.map(String.init) ?? ""
                throw BenchError("exit status \(result.status) after \(frames) frames: \(TerminalText.oneLine(last))")
            }
            return result
        }
        _ = try run(shortRun)
        let short = try run(shortRun)
        var frames = longRun
        var long = try run(frames)
        while long.seconds - short.seconds < 2, frames < 100_000 {
            frames *= 4
            long = try run(frames)
        }
        let seconds = long.seconds - short.seconds
        guard seconds > 0 else { throw BenchError("the long run was not slower than the short one; the machine is too noisy to measure") }
        let counted = Double(frames - shortRun)
        return Row(name: name, fps: counted / seconds, cpuMilliseconds: max(long.cpuSeconds - short.cpuSeconds, 0) * 1000 / counted)
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

    private static func find(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
