import Foundation
import XCTest

/// A stop never waits: on GPU work that does not end (the watchdog), on a
/// FIFO with no writer, and whichever terminating signal asks for it, the
/// terminal put back each time.
final class StopTests: KameraProcessTestCase {
    /// Far too much work per pixel: llvmpipe caps each loop at 65,535 turns, which at 4096x4096 is hours.
    let slowShader = """
        uniform float u_n;
        void mainImage(out vec4 o, in vec2 p) {
            float x = 0.0;
            for (float i = 0.0; i < u_n; i += 1.0) { for (float j = 0.0; j < u_n; j += 1.0) { x += sin(i * j + p.x); } }
            o = vec4(x);
        }
        """

    /// Reads `err` until `text` appears (the shader compiled: `-v`'s convention
    /// line comes just before the first frame), at most `seconds`, a bound that
    /// only catches a hang: a fixed sleep fell inside the compile on a slow
    /// machine (ThreadSanitizer's build took 5 s to its first frame). Returns what was read.
    private func waitFor(_ text: String, in err: Pipe, within seconds: Double) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var read = ""
        while !read.contains(text) && Date() < deadline {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            read += String(decoding: chunk, as: UTF8.self)
        }
        return read
    }

    /// Waits at most `seconds` (a bound that only catches a hang) for the end.
    private func finish(_ process: Process, _ err: Pipe, within seconds: Double) -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return stderr
    }

    func testCtrlCDuringAFrameThatNeverEndsStopsAfterTheGrace() throws {
        try Data(slowShader.utf8).write(to: run.folder.appendingPathComponent("slow.frag"))
        let (process, err) = try run.start(["shader", "slow.frag", "--uniform", "u_n=60000", "--size", "4096x4096", "-o", "slow.png", "-v"])
        let before = waitFor("convention", in: err, within: 120)
        XCTAssertTrue(before.contains("convention"), before)
        sleep(1)
        let stopped = Date()
        kill(process.processIdentifier, SIGINT)
        let stderr = before + finish(process, err, within: 60)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, stderr)
        XCTAssertEqual(process.terminationStatus, SIGINT, stderr)
        XCTAssertTrue(stderr.contains("the GPU did not finish frame 0 in 2 s"), stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(stopped), 1.5, "the frame in hand gets its grace")
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.path("slow.png")))
    }

    /// Ctrl-C while zxing-cpp reads a frame that takes it seconds (200 QR
    /// codes on 6400x2400): the run ends by SIGINT at once, not after the
    /// reads (they took 10–18 s before): the helper processes are killed and
    /// the frames not yet analysed are dropped.
    func testCtrlCUnderCodeDetectionDoesNotWaitForTheReader() throws {
        let made = try KameraProcess.shell("""
            qrencode -s 6 -m 4 -o qr.png KAMERA-STOP && \
            ffmpeg -v error -y -loop 1 -i qr.png -vf 'pad=320:240:(ow-iw)/2:(oh-ih)/2:white,tile=20x10' -frames:v 1 codes.png
            """, in: run.folder)
        XCTAssertEqual(made.status, 0, made.stderr)
        let (process, err) = try run.start(["render", "--input", "codes.png", "--crop", "none", "--frames", "20", "--detect", "codes",
                                            "--metadata", "m.jsonl", "-o", "/dev/null"])
        sleep(3)
        XCTAssertTrue(process.isRunning, "the reads of the first frames take longer than this")
        let stopped = Date()
        kill(process.processIdentifier, SIGINT)
        let stderr = finish(process, err, within: 60)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, stderr)
        XCTAssertEqual(process.terminationStatus, SIGINT, stderr)
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 8, "a stop waited on the code reader: \(stderr)")
    }

    /// A Ctrl-C that comes before `main` (raised by a preloaded library's
    /// constructor, while the program's libraries start) to a program
    /// started with SIGINT ignored, as a script's `cmd &` starts it, is not
    /// lost: the run ends by it instead of rendering its frames.
    func testASIGINTBeforeMainIsNotLost() throws {
        let shim = try PreloadShim.build(PreloadShim.interruptBeforeMain, named: "interrupt.so", in: run.folder)
        let result = try KameraProcess.shell("""
            trap '' INT
            LD_PRELOAD=\(shim) '\(KameraProcess.binary.path)' render --input-size 64x64 --frames 300 -o 'f-%d.png' -q
            echo "status $?"
            ls f-*.png 2>/dev/null | wc -l
            """, in: run.folder)
        let lines = result.output.split(separator: "\n")
        XCTAssertEqual(lines.first, "status 130", result.output + result.stderr)
        XCTAssertLessThan(Int(lines.last ?? "") ?? 300, 300, "it stopped before rendering every frame: \(result.output)")
    }

    func testFrameTimeoutEndsAnExportWithOneLine() throws {
        try Data(slowShader.utf8).write(to: run.folder.appendingPathComponent("slow.frag"))
        let (process, err) = try run.start(["shader", "slow.frag", "--uniform", "u_n=60000", "--size", "4096x4096", "--frame-timeout", "2", "-o", "slow.png"])
        let stderr = finish(process, err, within: 120)
        XCTAssertEqual(process.terminationReason, .exit, stderr)
        XCTAssertEqual(process.terminationStatus, 1, stderr)
        XCTAssertEqual(stderr.split(separator: "\n").count, 1, stderr)
        XCTAssertTrue(stderr.hasPrefix("kamera: error: the GPU did not finish frame 0 in 2 s"), stderr)
        XCTAssertTrue(stderr.contains("--frame-timeout 2"), stderr)
    }

    func testAFIFOWithNoWriterDoesNotHoldCtrlCBack() throws {
        XCTAssertEqual(mkfifo(run.path("in.y4m"), 0o600), 0)
        let (process, err) = try run.start(["render", "--input", "in.y4m", "-o", "x.png"])
        sleep(1)
        kill(process.processIdentifier, SIGINT)
        let stderr = finish(process, err, within: 30)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, "the first Ctrl-C ends it: \(stderr)")
        XCTAssertTrue(stderr.contains("in.y4m: stopped while waiting for a program to write to this FIFO"), stderr)
        // A golden picture or a still must be a file: refused before anything is rendered.
        XCTAssertEqual(mkfifo(run.path("golden.png"), 0o600), 0)
        try run.assertFails(["render", "--expect", "golden.png", "-o", "y.png"], mentioning: ["--expect golden.png", "regular PNG file"])
        try run.assertFails(["render", "--input", "golden.png"], mentioning: ["golden.png", "regular file"])
    }

    /// SIGHUP, SIGQUIT and SIGUSR1 stop `preview` as SIGTERM does: ended by that
    /// signal, no crash report, the terminal's modes as they were (in a pty).
    func testEveryTerminatingSignalStopsAndRestoresTheTerminal() throws {
        for signal in ["HUP", "QUIT", "USR1", "TERM"] {
            let script = "stty -g > before; kamera preview --duration 60 -o live.png 2> err-\(signal) & sleep 2; kill -\(signal) $!; wait $!; echo $? > status; stty -g > after"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qec", "PATH=\(KameraProcess.binary.deletingLastPathComponent().path):$PATH; " + script, "/dev/null"]
            process.currentDirectoryURL = run.folder
            process.standardInput = Pipe()
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(90)
            while process.isRunning && Date() < deadline { usleep(50_000) }
            XCTAssertFalse(process.isRunning, "SIG\(signal): the run did not end")
            if process.isRunning { process.terminate() }
            let read = { (name: String) in (try? String(contentsOf: self.run.folder.appendingPathComponent(name), encoding: .utf8)) ?? "" }
            let stderr = read("err-\(signal)")
            XCTAssertEqual(read("before"), read("after"), "SIG\(signal) left the terminal changed: \(stderr)")
            XCTAssertFalse(read("before").isEmpty)
            let number = ["HUP": SIGHUP, "QUIT": SIGQUIT, "USR1": SIGUSR1, "TERM": SIGTERM][signal]!
            XCTAssertEqual(read("status").trimmingCharacters(in: .whitespacesAndNewlines), "\(128 + number)", "SIG\(signal): \(stderr)")
            XCTAssertFalse(stderr.contains("crashed") || stderr.contains("Backtrace"), stderr)
            XCTAssertTrue(stderr.contains("previewed"), "SIG\(signal) stops like Ctrl-C, with the summary: \(stderr)")
        }
    }

    func testAnInterruptedShaderExportSaysSo() throws {
        try Data("void mainImage(out vec4 o, in vec2 p) { o = vec4(p.x / iResolution.x); }\n".utf8)
            .write(to: run.folder.appendingPathComponent("ok.frag"))
        let (process, err) = try run.start(["shader", "ok.frag", "--frames", "100000", "--size", "64x64", "-o", "f-%06d.png", "-v"])
        let before = waitFor("convention", in: err, within: 120)
        XCTAssertTrue(before.contains("convention"), before)
        sleep(1)
        kill(process.processIdentifier, SIGTERM)
        let stderr = before + finish(process, err, within: 30)
        XCTAssertTrue(stderr.contains("interrupted after"), stderr)
        XCTAssertFalse(stderr.contains("the input ended"), stderr)
    }

    /// The bench, between or inside its measurements: SIGTERM is passed on to
    /// the program being timed, and the bench ends by that signal at once,
    /// leaving no child and no scratch folder behind.
    func testTheBenchStopsOnSIGTERMWithWhatItStarted() throws {
        let (process, err) = try run.start(["bench", "--formats-only", "--format-sizes", "64x48", "--end-to-end-frames", "4", "--end-to-end-runs", "1000"])
        let before = waitFor(" run 2 of", in: err, within: 300)
        XCTAssertTrue(before.contains(" run 2 of"), before)
        kill(process.processIdentifier, SIGTERM)
        let stderr = before + finish(process, err, within: 30)
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, stderr)
        XCTAssertEqual(process.terminationStatus, SIGTERM, stderr)
        let scratch = "kamera-formats-\(process.processIdentifier)"
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/dev/shm/" + scratch), "the bench's scratch folder is removed")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { entry in
            guard Int(entry) != nil, let line = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(entry)/cmdline")) else { return false }
            return String(decoding: line, as: UTF8.self).contains(scratch)
        } ?? []
        XCTAssertEqual(left, [], "programs the bench started are still running")
    }

    /// The diff image of a failed `--expect` goes beside the golden when the
    /// output is a device or standard output, and the mismatch is told anyway.
    func testDiffImageNeverLandsBesideADevice() throws {
        XCTAssertEqual(try run.run(["render", "--size", "16x16", "-o", "golden.png"]).status, 0)
        for output in ["/dev/null", "-"] {
            let result = try run.run(["render", "--size", "16x16", "--filter", "sepia", "--expect", "golden.png", "-o", output])
            XCTAssertEqual(result.status, 1)
            XCTAssertTrue(result.stderr.contains("pixels differ") && result.stderr.contains("worst at"), result.stderr)
            XCTAssertTrue(result.stderr.contains("differences in golden-diff.png"), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.path("--diff.png")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/dev/null-diff.png"))
    }

    /// Macros nested so that the preprocessor expands them to 2^39 terms: the
    /// compile is tried first in a child with 3 GiB of address space, and the
    /// shader is refused in one line, the machine untouched.
    func testAShaderWhoseCompileWouldTakeTheMachineIsRefused() throws {
        // Under a sanitizer the child cannot limit its address space (the shadow memory maps
        // terabytes), so the expansion would run until the time limit with all the memory it wants.
        if dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil || dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil {
            throw XCTSkip("the memory limit is off under a sanitizer; the normal run checks it")
        }
        var lines = ["#define A0 x"]
        for i in 1..<40 { lines.append("#define A\(i) A\(i - 1)+A\(i - 1)") }
        lines.append("void mainImage(out vec4 o, in vec2 p) { float x = 1.0; o = vec4(A39); }")
        try Data(lines.joined(separator: "\n").utf8).write(to: run.folder.appendingPathComponent("bomb.frag"))
        try run.assertFails(["shader", "bomb.frag", "--size", "16x16", "-o", "b.png"], mentioning: ["bomb.frag", "the shader compiler needed more than 3 GiB"])
        try run.assertFails(["render", "--filter", "bomb.frag", "--size", "16x16", "-o", "b.png"], mentioning: ["bomb.frag", "3 GiB"])
    }
}
