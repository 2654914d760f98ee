import Capture
import Foundation
import GPU
import XCTest

/// The `kamera` binary as a user runs it: results on disk, and for bad input a
/// one-line error, a non-zero exit code and no output file left behind.
final class CommandLineTests: KameraProcessTestCase {
    var folder: URL { run.folder }

    static var binary: URL { KameraProcess.binary }

    func kamera(_ arguments: [String], input: String = "") throws -> KameraProcess.Result {
        try run.run(arguments, input: input)
    }

    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    func assertFails(_ arguments: [String], mentioning expected: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        try run.assertFails(arguments, mentioning: expected, file: file, line: line)
    }

    func testRendersTheTestPatternToPNG() throws {
        let result = try kamera(["render", "--filter", "sepia", "--size", "96x96", "-o", "out.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try files(), ["out.png"])
        let data = try Data(contentsOf: folder.appendingPathComponent("out.png"))
        XCTAssertEqual(Array(data.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        XCTAssertEqual(data[16..<24].map { $0 }, [0, 0, 0, 96, 0, 0, 0, 96], "IHDR width and height")
    }

    /// The live preview on the test pattern: status lines, a PNG kept current,
    /// and a clean stop at --duration or on the q key.
    func testPreviewRunsAndStops() throws {
        let timed = try kamera(["preview", "--input-size", "320x240", "--filter", "sepia", "--duration", "1.5",
                                "--status-every", "0.5", "-o", "live.png"])
        XCTAssertEqual(timed.status, 0, timed.stderr)
        let lines = timed.stderr.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains(" fps | preview | test pattern 320x240 yuyv | zoom 1.00x digital | filter sepia | upload copy") }, timed.stderr)
        let frames = try XCTUnwrap(Int(lines.last?.split(separator: " ")[2] ?? ""), timed.stderr)
        XCTAssertGreaterThan(frames, 2, timed.stderr)
        XCTAssertEqual(try files(), ["live.png"])
        XCTAssertEqual(try XCTUnwrap(try ImageSource(path: folder.appendingPathComponent("live.png").path).nextFrame()).width, 240)

        let start = Date()
        let quit = try kamera(["preview", "--input-size", "160x120"], input: "fq")
        XCTAssertEqual(quit.status, 0, quit.stderr)
        XCTAssertTrue(quit.stderr.contains("kamera: filter: sepia"), "the first f goes from none to sepia: \(quit.stderr)")
        XCTAssertLessThan(Date().timeIntervalSince(start), 120, "q quits")
        try assertFails(["preview", "-o", "live-%d.png"], mentioning: ["give a name without %d"])
        try assertFails(["cube", "--duration", "0"], mentioning: ["'0' is invalid for '--duration", "above 0"])
    }

    func testCubeSequence() throws {
        let result = try kamera(["render", "--cube", "--frames", "3", "--input-size", "160x120", "-o", "cube-%03d.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try files(), ["cube-000.png", "cube-001.png", "cube-002.png"])
    }

    func testListFilters() throws {
        let result = try kamera(["render", "--list-filters"])
        XCTAssertEqual(result.status, 0)
        for name in ["none", "sepia", "gray", "mono", "invert", "instant", "transfer", "chrome", "fade", "noir", "process", "tonal",
                     "brightness=V", "contrast=V", "saturation=V", "hue=V", "pixellate=N"] {
            XCTAssertTrue(result.output.contains("\n\(name) ") || result.output.hasPrefix("\(name) "), "\(name) missing")
        }
    }

    func testVerboseNamesThePlatformAndRenderer() throws {
        // A rotation is drawn: the context opens, and says what it is.
        let result = try kamera(["render", "-v", "--input-size", "64x48", "--rotate", "90", "-o", "v.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("platform"), result.stderr)
        XCTAssertTrue(result.stderr.contains("renderer"), result.stderr)
        guard DeferredGPUContext.expectsSoftwareRendering else { return }
        // The test pattern converted on the CPU and handed on whole: none is opened, and -v says so.
        let converted = try kamera(["render", "-v", "--input-size", "64x48", "-o", "c.png"])
        XCTAssertEqual(converted.status, 0, converted.stderr)
        XCTAssertTrue(converted.stderr.contains("GL context: opened when a frame needs the GPU"), converted.stderr)
        XCTAssertFalse(converted.stderr.contains("renderer"), converted.stderr)
    }

    func testBadInput() throws {
        try assertFails(["render", "--input", "missing.png", "-o", "out.png"], mentioning: ["missing.png", "no such file"])
        try Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3]).write(to: folder.appendingPathComponent("corrupt.png"))
        try assertFails(["render", "--input", "corrupt.png", "-o", "out.png"], mentioning: ["corrupt.png", "neither a PNG nor a JPEG picture"])
        try Data(Array("YUV4MPEG2 W64 H48 C420jpeg\nFRAME\n".utf8) + [UInt8](repeating: 0, count: 100))
            .write(to: folder.appendingPathComponent("short.y4m"))
        try assertFails(["render", "--input", "short.y4m", "-o", "out.png"], mentioning: ["short.y4m", "truncated"])
        try assertFails(["render", "--filter", "sepiaa", "-o", "out.png"], mentioning: ["sepiaa", "sepia", "mono", "invert", "contrast=V"])
        try assertFails(["render", "--size", "12xx", "-o", "out.png"], mentioning: ["--size 12xx", "WxH"])
        try assertFails(["render", "-o", "no/such/folder/out.png"], mentioning: ["no/such/folder", "does not exist"])
        try assertFails(["render", "--frames", "5", "-o", "out.png"], mentioning: ["%d"])
        try assertFails(["render", "--format", "mjpeg", "-o", "out.png"], mentioning: ["mjpeg", "yuyv", "nv12"])
        try assertFails(["render", "--format", "HSV3", "-o", "out.png"], mentioning: ["HSV3", "yuyv", "bggr10p", "with --camera", "libv4l"])
        try assertFails(["render", "--format", "nope12", "-o", "out.png"], mentioning: ["nope12", "yuyv"])
        XCTAssertFalse(try kamera(["render", "--format", "nope12", "-o", "out.png"]).stderr.contains("libv4l"), "not a V4L2 code")
        try assertFails(["render", "--gpu", "x11", "-o", "out.png"], mentioning: ["x11", "surfaceless"])
        try Data([1, 2, 3]).write(to: folder.appendingPathComponent("raw.yuv"))
        try assertFails(["render", "--input", "raw.yuv", "-o", "out.png"], mentioning: ["--format", "--input-size"])
    }

    func testUnwritableOutput() throws {
        let locked = folder.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: locked.path) }
        if getuid() == 0 {
            // root writes anywhere; a path under a regular file is unwritable for everyone.
            try Data().write(to: folder.appendingPathComponent("plain"))
            try assertFails(["render", "-o", "plain/out.png"], mentioning: ["plain/out.png"])
        } else {
            try assertFails(["render", "-o", "locked/out.png"], mentioning: ["locked", "not writable"])
        }
    }

    func testInterruptLeavesOnlyCompletePNGs() throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["render", "--cube", "--frames", "100000", "--input-size", "320x240", "-o", "f-%06d.png"]
        process.currentDirectoryURL = folder
        process.standardError = Pipe()
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while try files().filter({ $0.hasSuffix(".png") }).count < 3 && Date() < deadline { usleep(50_000) }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal, "a stop asked by SIGINT ends by SIGINT")
        XCTAssertEqual(process.terminationStatus, SIGINT)
        let written = try files()
        XCTAssertGreaterThanOrEqual(written.count, 3)
        XCTAssertTrue(written.allSatisfy { $0.hasSuffix(".png") }, "no temporary files: \(written)")
        for name in written {
            XCTAssertNoThrow(try ImageSource(path: folder.appendingPathComponent(name).path), name)
        }
    }

    /// A Y4M clip (4:2:0 and 4:2:2) and a raw YUYV file rendered by the binary
    /// match the CPU reference decode of the same frames (≤ 2 of 255).
    func testY4MAndRawInputsMatchCPUReference() throws {
        for (chroma, chromaHeight) in [("420jpeg", 8), ("422", 16)] {
            var bytes = Array("YUV4MPEG2 W24 H16 F30:1 C\(chroma)\n".utf8)
            var seed: UInt32 = 7
            for _ in 0..<2 {
                bytes += Array("FRAME\n".utf8)
                for i in 0..<(24 * 16 + 2 * 12 * chromaHeight) {
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    bytes.append(i < 24 * 16 ? 16 + UInt8(seed >> 24) % 220 : 16 + UInt8(seed >> 25) % 200)
                }
            }
            let clip = folder.appendingPathComponent("clip-\(chroma).y4m")
            try Data(bytes).write(to: clip)
            let result = try kamera(["render", "--input", clip.path, "--crop", "none", "--frames", "2", "-o", "y4m-\(chroma)-%d.png"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let source = try Y4MSource(path: clip.path)
            for i in 0..<2 {
                let reference = CPUReference.decode(try XCTUnwrap(source.nextFrame()))
                let frame = try XCTUnwrap(try ImageSource(path: folder.appendingPathComponent("y4m-\(chroma)-\(i).png").path).nextFrame())
                let image = Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes))
                XCTAssertClose(image, reference, tolerance: 2, "y4m C\(chroma) frame \(i)")
            }
        }
        let pattern = TestPattern(width: 32, height: 16, format: .yuyv)
        let frame = pattern.frame(at: 4)
        try Data(frame.planes[0].bytes).write(to: folder.appendingPathComponent("raw.yuv"))
        let result = try kamera(["render", "--input", "raw.yuv", "--format", "yuyv", "--input-size", "32x16", "-o", "raw.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let png = try XCTUnwrap(try ImageSource(path: folder.appendingPathComponent("raw.png").path).nextFrame())
        let image = Image(width: png.width, height: png.height, pixels: Array(png.planes[0].bytes))
        XCTAssertClose(image, CPUReference.crop(CPUReference.decode(frame), x: 8, y: 0, width: 16, height: 16), tolerance: 2, "raw yuyv, square crop")
    }
}
