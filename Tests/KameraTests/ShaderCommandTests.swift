import Capture
import Foundation
import XCTest

/// `kamera shader` as a user runs it: frame-exact exports, golden checks and
/// their diff images, compiler-style errors, uniform listings, and --watch
/// recompiling on save while keeping the last good shader.
final class ShaderCommandTests: KameraProcessTestCase {
    static let wave = """
        void mainImage(out vec4 fragColor, in vec2 fragCoord) {
            vec2 uv = fragCoord / iResolution.xy;
            vec3 cam = texture(iChannel0, uv + vec2(0.05 * sin(uv.y * 20.0 + iTime * 3.0), 0.0)).rgb;
            fragColor = vec4(cam * (0.6 + 0.4 * sin(iTime + uv.x * 6.0)), 1.0);
        }
        """

    func writeShader(_ name: String, _ text: String) throws {
        try text.write(toFile: run.path(name), atomically: true, encoding: .utf8)
    }

    func image(_ name: String) throws -> Image {
        let source = try ImageSource(path: run.path(name))
        let frame = try XCTUnwrap(try source.nextFrame())
        return Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes.prefix(frame.width * frame.height * 4)))
    }

    func testExportsAreFrameExactAndGoldenChecksPassOrFail() throws {
        try writeShader("wave.frag", Self.wave)
        // A still input, so that only the shader's time differs between frames.
        var result = try run.run(["render", "--size", "96x64", "-o", "in.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let common = ["--input", "in.png", "--size", "96x64"]
        result = try run.run(["shader", "wave.frag", "--frames", "2..4", "--fps", "30", "-o", "f-%04d.png"] + common)
        XCTAssertEqual(result.status, 0, result.stderr)
        // Frame 3 at 30 fps is t = 0.1 s exactly, in another process too.
        result = try run.run(["shader", "wave.frag", "--time", "0.1", "-o", "still.png"] + common)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(try image("still.png") == image("f-0003.png"), "--time 0.1 is frame 3 at 30 fps")
        XCTAssertFalse(try image("f-0002.png") == image("f-0003.png"), "time moves between frames")
        // The whole sequence checks against itself; a later start does not.
        result = try run.run(["shader", "wave.frag", "--frames", "2..4", "--expect", "f-%04d.png"] + common)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("checked 3 frame(s)"), result.stderr)
        result = try run.run(["shader", "wave.frag", "--time", "0.5", "--expect", "still.png", "--tolerance", "2"] + common)
        XCTAssertEqual(result.status, 1, result.stderr)
        let line = result.stderr.trimmingCharacters(in: .newlines)
        XCTAssertFalse(line.contains("\n"), "one line: \(line)")
        XCTAssertTrue(line.contains("pixels differ by more than 2; worst at ("), line)
        XCTAssertTrue(line.contains("still-diff.png"), line)
        // The diff image marks exactly the pixels counted, in red.
        let counted = try XCTUnwrap(Int(line.components(separatedBy: "still.png: ")[1].prefix { $0.isNumber }))
        let diff = try image("still-diff.png")
        let red = (0..<(diff.width * diff.height)).filter { i in diff.pixels[i * 4] >= 128 && diff.pixels[i * 4 + 1] == 0 && diff.pixels[i * 4 + 2] == 0 }.count
        XCTAssertEqual(red, counted)
        XCTAssertGreaterThan(counted, 0)
    }

    /// The README's CI recipe on the shipped example: a Shadertoy shader with an
    /// include, checked against its golden image (made on llvmpipe; tolerance 2
    /// for other drivers' rounding).
    func testExampleShaderMatchesItsGolden() throws {
        let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Examples/Shaders")
        let result = try run.run(["shader", examples.appendingPathComponent("ripple.frag").path, "--time", "1.5", "--size", "240x240",
                                  "--expect", examples.appendingPathComponent("ripple-1.5s.png").path, "--tolerance", "2", "-o", "ripple.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: run.path("ripple.png")))
    }

    /// `--fit` shapes the frame in channel 0 when the output's shape is not
    /// the frame's: bars for contain, cropped for cover, stretched for
    /// stretch. The shader passes channel 0 through, so the output is the
    /// preview's own layout of the same frame, which `render` draws.
    func testFitShapesTheFrameTheShaderSees() throws {
        try writeShader("pass.frag", "void mainImage(out vec4 o, in vec2 p) { o = texture(iChannel0, p / iResolution.xy); }\n")
        var pictures: [String: Image] = [:]
        for fit in ["contain", "cover", "stretch"] {
            XCTAssertEqual(try run.run(["shader", "pass.frag", "--size", "96x48", "--fit", fit, "-o", "\(fit).png"]).status, 0)
            XCTAssertEqual(try run.run(["render", "--size", "96x48", "--fit", fit, "-o", "ref-\(fit).png"]).status, 0)
            let (got, want) = (try image("\(fit).png"), try image("ref-\(fit).png"))
            pictures[fit] = got
            // The shader samples the frame once at each pixel's centre, the layout through its own quad:
            // sharp edges of the pattern may land a texel apart, so 2/255 holds on all but a few edge pixels.
            let far = stride(from: 0, to: got.pixels.count, by: 4).filter { i in (0..<3).contains { abs(Int(got.pixels[i + $0]) - Int(want.pixels[i + $0])) > 2 } }
            XCTAssertLessThan(Double(far.count) / Double(got.pixels.count / 4), 0.03, "shader --fit \(fit) against render's layout: \(far.count) pixels over 2/255")
        }
        XCTAssertEqual(pictures["contain"]?.pixel(2, 24), SIMD4(0, 0, 0, 255), "contain leaves bars at the sides")
        XCTAssertNotEqual(pictures["contain"]?.pixels, pictures["cover"]?.pixels)
        XCTAssertNotEqual(pictures["cover"]?.pixels, pictures["stretch"]?.pixels)
    }

    func testRenderExpectUsesTheSameCheck() throws {
        XCTAssertEqual(try run.run(["render", "--filter", "sepia", "-o", "golden.png"]).status, 0)
        var result = try run.run(["render", "--filter", "sepia", "-o", "again.png", "--expect", "golden.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        result = try run.run(["render", "--filter", "gray", "-o", "gray.png", "--expect", "golden.png", "--tolerance", "3"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("golden.png: ") && result.stderr.contains("gray-diff.png"), result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: run.path("gray-diff.png")))
    }

    /// Frame N shows input frame N (the test pattern moves), whichever range renders it.
    func testFrameNIsTheSameWhereverTheRangeStarts() throws {
        try writeShader("pass.frag", "void mainImage(out vec4 o, in vec2 p) { o = texture(iChannel0, p / iResolution.xy); }\n")
        for arguments in [["--frames", "0..3", "-o", "a-%d.png"], ["--frames", "3..3", "-o", "b-%d.png"], ["--time", "0.1", "-o", "c.png"]] {
            let result = try run.run(["shader", "pass.frag", "--input-size", "96x64", "--fps", "30"] + arguments)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
        XCTAssertTrue(try image("a-3.png") == image("b-3.png"), "--frames 3..3 starts the input at frame 3")
        XCTAssertTrue(try image("a-3.png") == image("c.png"), "--time 0.1 at 30 fps is frame 3, input included")
        XCTAssertFalse(try image("a-2.png") == image("a-3.png"), "the test pattern moves")
    }

    /// Found by a new user: a 30,000-term expression crashed Mesa's compiler on
    /// an 8 MiB render-thread stack.
    func testALongExpressionCompiles() throws {
        let terms = Array(repeating: "0.00001", count: 40_000).joined(separator: "+")
        try writeShader("long.frag", "void mainImage(out vec4 o, in vec2 p) { o = vec4(\(terms)); }\n")
        let result = try run.run(["shader", "long.frag", "--size", "8x8", "-o", "long.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try image("long.png").pixel(0, 0), SIMD4(102, 102, 102, 255), "0.4 everywhere")
    }

    func testByteOrderMarkIsSkipped() throws {
        try ("\u{FEFF}void mainImage(out vec4 o, in vec2 p) { o = vec4(0.0, 1.0, 0.0, 1.0); }\n").write(toFile: run.path("bom.frag"), atomically: true, encoding: .utf8)
        let result = try run.run(["shader", "bom.frag", "--size", "4x4", "-o", "bom.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try image("bom.png").pixel(0, 0), SIMD4(0, 255, 0, 255))
    }

    func testCompileErrorsPrintOneFileLineMessagePerLine() throws {
        try writeShader("broken.frag", "void mainImage(out vec4 o, in vec2 p) {\n    o = vec4(1.0);\n    o.r = undefined_a;\n    o.g = undefined_b;\n}\n")
        let result = try run.run(["shader", "broken.frag", "-o", "x.png"])
        XCTAssertEqual(result.status, 1)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.hasPrefix("broken.frag:3:") && $0.contains("undefined_a") }, result.stderr)
        XCTAssertTrue(lines.contains { $0.hasPrefix("broken.frag:4:") && $0.contains("undefined_b") }, result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.path("x.png")), "no picture from a shader that does not compile")
    }

    func testListUniformsSaysWhereValuesComeFrom() throws {
        try writeShader("u.frag", "uniform vec3 u_tint;\nuniform float u_unset;\nvoid mainImage(out vec4 o, in vec2 p) { o = vec4(u_tint * u_unset + iTime, 1.0) + texture(iChannel0, p / iResolution.xy); }\n")
        let result = try run.run(["shader", "u.frag", "--uniform", "u_tint=1,0,0", "--list-uniforms"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        XCTAssertTrue(lines.contains("u_tint vec3 --uniform"), result.output)
        XCTAssertTrue(lines.contains { $0.hasPrefix("u_unset float not set") }, result.output)
        XCTAssertTrue(lines.contains { $0.hasPrefix("iChannel0 sampler2D channel 0: the frame") }, result.output)
        XCTAssertTrue(lines.contains { $0.hasPrefix("iTime float seconds") }, result.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.path("kamera.png")))
    }

    /// Saves recompile; a broken save prints its error and keeps the last
    /// good shader running; fixing it resumes. Each save is written by rename,
    /// as editors do.
    func testWatchRecompilesOnSaveAndSurvivesABrokenSave() throws {
        func solid(_ rgb: String) -> String { "void mainImage(out vec4 o, in vec2 p) { o = vec4(\(rgb), 1.0); }\n" }
        try writeShader("live.frag", solid("1.0, 0.0, 0.0"))
        let process = Process()
        process.executableURL = KameraProcess.binary
        process.arguments = ["shader", "live.frag", "--watch", "--size", "32x32", "-o", "live.png"]
        process.currentDirectoryURL = run.folder
        let input = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        let lock = NSLock()
        var stderr = ""
        errors.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            lock.lock(); stderr += text; lock.unlock()
        }
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            errors.fileHandleForReading.readabilityHandler = nil
        }
        // Generous limits: they only catch a hang on a loaded machine.
        func waitFor(_ what: String, _ condition: () -> Bool) {
            let deadline = Date().addingTimeInterval(120)
            while !condition() && Date() < deadline { usleep(50_000) }
            XCTAssertTrue(condition(), "timed out waiting for \(what); stderr: \(lock.withLock { stderr })")
        }
        func firstPixel() -> SIMD4<Int>? { (try? image("live.png"))?.pixel(0, 0) }
        waitFor("the first picture") { firstPixel() == SIMD4(255, 0, 0, 255) }
        try writeShader("live.frag", solid("0.0, 1.0, 0.0"))
        waitFor("the picture after a save") { firstPixel() == SIMD4(0, 255, 0, 255) }
        try writeShader("live.frag", "void mainImage(out vec4 o, in vec2 p) {\n    o = vec4(oops);\n}\n")
        waitFor("the compile error") { lock.withLock { stderr.contains("live.frag:2:") && stderr.contains("oops") } }
        XCTAssertTrue(process.isRunning, "a broken save must not end the run")
        // The PNG written beside the shader is no save: the error shows once, then it waits.
        Thread.sleep(forTimeInterval: 2)
        let printed = lock.withLock { stderr.components(separatedBy: "still running the last shader").count - 1 }
        XCTAssertEqual(printed, 1, "a broken save prints its errors once, then waits; stderr: \(lock.withLock { stderr })")
        XCTAssertEqual(firstPixel(), SIMD4(0, 255, 0, 255), "the last good shader's picture stays")
        try writeShader("live.frag", solid("0.0, 0.0, 1.0"))
        waitFor("the picture after the fix") { firstPixel() == SIMD4(0, 0, 255, 255) }
        // A save naming an include not written yet; writing it is enough.
        try writeShader("live.frag", "#include \"later.glsl\"\nvoid mainImage(out vec4 o, in vec2 p) { o = vec4(LATER, 1.0); }\n")
        waitFor("the missing include's error") { lock.withLock { stderr.contains("later.glsl") } }
        try writeShader("later.glsl", "#define LATER vec3(1.0, 1.0, 0.0)\n")
        waitFor("the picture once the include exists") { firstPixel() == SIMD4(255, 255, 0, 255) }
        process.interrupt()
        waitFor("the exit after Ctrl-C") { !process.isRunning }
    }
}
