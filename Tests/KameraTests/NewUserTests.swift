import Foundation
import Output
import XCTest

/// What a new user types first: the version, habits from other tools, and
/// the bounds of frame numbers, each answered in one line.
final class NewUserTests: KameraProcessTestCase {
    func testVersionOnEveryCommandAndAsACommand() throws {
        let version = try run.run(["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        let line = version.output.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(line.range(of: #"^\d+\.\d+\.\d+(\+g[0-9a-f]+(\.dirty)?)?$"#, options: .regularExpression) != nil, line)
        for arguments in [["version"], ["render", "--version"], ["preview", "--version"], ["cube", "--version"], ["shader", "--version"],
                          ["devices", "--version"], ["displays", "--version"], ["controls", "--version"]] {
            let result = try run.run(arguments)
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.output.trimmingCharacters(in: .whitespacesAndNewlines), line, "\(arguments)")
        }
        let verbose = try run.run(["render", "--size", "8x8", "-v", "-o", "v.png"])
        XCTAssertTrue(verbose.stderr.contains("kamera \(line)"), verbose.stderr)
    }

    func testOtherToolsHabitsAreAnsweredWithKamerasOption() throws {
        let answers: [([String], String)] = [
            (["render", "-vf", "hue=s=0"], "Kamera's is --filter"),
            (["render", "-s", "640x480"], "--size WxH"),
            (["preview", "-t", "5"], "--duration S"),
            (["cube", "-c", "100"], "--frames N"),
            (["render", "-D", "/dev/dri/card0"], "--card /dev/dri/cardN"),
            (["render", "--list-devices"], "kamera devices"),
            (["render", "--fullscreen"], "-o kms"),
            (["render", "--palette", "YUYV"], "--format NAME"),
        ]
        for (arguments, expected) in answers {
            try run.assertFails(arguments, mentioning: ["unknown option \(arguments[1])", expected])
        }
        // An answer does not point back at the command in use.
        try run.assertFails(["controls", "--list-ctrls"], mentioning: ["kamera controls does that without it: leave --list-ctrls out"])
    }

    /// Mistakes blamed where they belong: a mistyped command (not an option of
    /// the command it was read as), options before the command, raw input
    /// missing only its size; and ffmpeg's -y taken as the no-op it is.
    func testMistakesAreBlamedWhereTheyBelong() throws {
        try run.assertFails(["preveiw", "--duration", "1"], mentioning: ["'preveiw' is not a command; did you mean 'preview'"])
        try run.assertFails(["-v", "render"], mentioning: ["the command goes first, then its options: kamera render -v"])
        // ffmpeg's habit of -i for a camera: a camera there is, or one there is not, is pointed at --camera (the VM's RecordingVMTests has one).
        try run.assertFails(["render", "-i", "/dev/video57", "-o", "c.png"], mentioning: ["/dev/video57: no such camera; cameras are taken with --camera (kamera devices lists them)"])
        try Data(repeating: 128, count: 64).write(to: run.folder.appendingPathComponent("x.raw"))
        let raw = try run.run(["render", "--input", "x.raw", "--format", "yuyv", "-o", "r.png"])
        XCTAssertEqual(raw.status, 1)
        XCTAssertTrue(raw.stderr.contains("raw input needs --input-size WxH;"), raw.stderr)
        XCTAssertFalse(raw.stderr.contains("needs --format"), "--format was given: \(raw.stderr)")
        let quiet = try run.run(["preview", "--frames", "2", "--input-size", "32x32", "-q", "-o", "q.png"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "", "-q leaves out the summary too")
        // Two sources are composed, each checked: a missing one is named.
        try run.assertFails(["render", "--input", "a.png", "-i", "b.png", "-o", "two.png"], mentioning: ["a.png"])
        try run.assertFails(["render", "--input", "pattern:", "--device=/dev/video97", "-o", "two.png"], mentioning: ["/dev/video97"])
        try run.assertFails(["render", "--layout", "grid", "-o", "one.png"], mentioning: ["--layout, --pip-corner and --pip-size compose several sources"])
        let y = try run.run(["render", "-y", "--input-size", "16x16", "-o", "y.png"])
        XCTAssertEqual(y.status, 0, y.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: run.path("y.png")))
    }

    /// A live run's picture (`cube --frames 30 -o cube.png`, a `--help`
    /// example) ends holding the last frame shown, not the first: the last
    /// frame of a counted run is written whatever `--png-every` says.
    func testALiveRunsPictureEndsOnItsLastFrame() throws {
        let cube = try run.run(["cube", "--frames", "30", "--input-size", "64x48", "--size", "64x64", "-q", "-o", "cube.png"])
        XCTAssertEqual(cube.status, 0, cube.stderr)
        let frames = try run.run(["render", "--cube", "--frames", "30", "--input-size", "64x48", "--size", "64x64", "-q", "-o", "f-%02d.png"])
        XCTAssertEqual(frames.status, 0, frames.stderr)
        let sums = try KameraProcess.shell("for f in cube.png f-29.png f-00.png; do ffmpeg -v error -i $f -f rawvideo -pix_fmt rgba - | md5sum | cut -c1-32; done", in: run.folder)
        let lines = sums.output.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, sums.output + sums.stderr)
        XCTAssertEqual(lines.first, lines.dropFirst().first, "cube.png is frame 29")
        XCTAssertNotEqual(lines.first, lines.last, "not frame 0")
    }

    /// A live run ended by its duration (or q, or a stop signal) keeps the
    /// last frame shown too, not the last one its interval was due for:
    /// `cube --duration 1.5 --png-every 100` ends with the frame its summary
    /// counts last, as `render --cube` draws it. Before, it kept frame 0.
    func testALiveRunEndedByItsDurationKeepsItsLastFrame() throws {
        let cube = try run.run(["cube", "--duration", "1.5", "--png-every", "100", "--input-size", "64x48", "--size", "64x64", "-o", "cube.png", "-o", "cube.jpg"])
        XCTAssertEqual(cube.status, 0, cube.stderr)
        let counted = try XCTUnwrap(cube.stderr.range(of: #"previewed \d+ frames"#, options: .regularExpression).map { Int(cube.stderr[$0].split(separator: " ")[1])! }, cube.stderr)
        XCTAssertGreaterThan(counted, 1, cube.stderr)
        let frames = try run.run(["render", "--cube", "--frames", "\(counted)", "--input-size", "64x48", "--size", "64x64", "-q", "-o", "f-%03d.png"])
        XCTAssertEqual(frames.status, 0, frames.stderr)
        let last = String(format: "f-%03d.png", counted - 1)
        let sums = try KameraProcess.shell("for f in cube.png \(last) f-000.png; do ffmpeg -v error -i $f -f rawvideo -pix_fmt rgba - | md5sum | cut -c1-32; done", in: run.folder)
        let lines = sums.output.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, sums.output + sums.stderr)
        XCTAssertEqual(lines.first, lines.dropFirst().first, "cube.png is frame \(counted - 1)")
        XCTAssertNotEqual(lines.first, lines.last, "not frame 0")
        XCTAssertTrue(FileManager.default.fileExists(atPath: run.path("cube.jpg")), "the JPEG is written at the end too")
    }

    /// A JPEG cut short is refused in one line that says so (it decoded with
    /// its lower part gray), unless --allow-damaged; one cut in its header says that.
    func testADamagedJPEGIsRefusedUnlessAllowed() throws {
        let made = try KameraProcess.shell("""
            ffmpeg -v error -f lavfi -i testsrc2=s=320x240 -frames:v 1 whole.jpg && \
            head -c $(( $(stat -c %s whole.jpg) * 6 / 10 )) whole.jpg > cut.jpg && head -c 40 whole.jpg > header.jpg
            """, in: run.folder)
        XCTAssertEqual(made.status, 0, made.stderr)
        let whole = try run.run(["render", "--input", "whole.jpg", "-o", "whole.png"])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        try run.assertFails(["render", "--input", "cut.jpg", "-o", "a.png"], mentioning: ["cut.jpg: damaged JPEG", "--allow-damaged"])
        let allowed = try run.run(["render", "--input", "cut.jpg", "--allow-damaged", "-o", "b.png"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        try run.assertFails(["render", "--input", "header.jpg", "-o", "c.png"], mentioning: ["header.jpg: damaged JPEG"])
    }

    /// -i, -r/--resolution (fswebcam) and -d/--device (v4l2-ctl, fswebcam) are aliases.
    func testAliasesUsersTypeAreTaken() throws {
        let a = try run.run(["render", "-i", "in.raw", "--format", "grey", "-r", "4x2", "-o", "a.png"])
        XCTAssertTrue(a.stderr.contains("in.raw: no such file"), "-i is --input: \(a.stderr)")
        let b = try run.run(["render", "--resolution", "64x32", "--crop", "none", "-o", "b.png"])
        XCTAssertEqual(b.status, 0, b.stderr)
        let png = try Data(contentsOf: run.folder.appendingPathComponent("b.png"))
        XCTAssertEqual(Array(png[16..<24]), [0, 0, 0, 64, 0, 0, 0, 32], "--resolution is --input-size")
        let c = try run.run(["render", "-d", "/dev/kamera-no-such-camera", "-o", "c.png"])
        XCTAssertTrue(c.stderr.contains("/dev/kamera-no-such-camera"), "-d is --camera: \(c.stderr)")
        let d = try run.run(["devices", "--list-formats-ext", "-d", "/dev/kamera-no-such-camera"])
        XCTAssertEqual(d.status, 1)
        XCTAssertTrue(d.stderr.contains("/dev/kamera-no-such-camera"), d.stderr)
    }

    /// One bound for frame numbers, counts and durations; huge values are
    /// refused in one line (the test pattern once trapped on an overflow).
    func testFrameNumbersAndDurationsHaveOneBound() throws {
        try run.assertFails(["shader", "none.frag", "--frames", "4611686018427387904..4611686018427387904", "-o", "f-%d.png"],
                            mentioning: ["--frames", "1000000000"])
        try run.assertFails(["render", "--frames", "4611686018427387904", "-o", "f-%d.png"], mentioning: ["--frames", "1000000000"])
        try run.assertFails(["preview", "--duration", "1e308"], mentioning: ["--duration", "at most 1e9"])
        try run.assertFails(["shader", "none.frag", "--time", "999999999", "--fps", "1000"], mentioning: ["--time", "past the last frame"])
        // The test pattern at the last frame number: no trap.
        try Data("void mainImage(out vec4 o, in vec2 p) { o = texture(iChannel0, p / iResolution.xy); }\n".utf8)
            .write(to: run.folder.appendingPathComponent("ok.frag"))
        let last = try run.run(["shader", "ok.frag", "--frames", "999999999..999999999", "--size", "16x16", "-o", "f-%d.png"])
        XCTAssertEqual(last.status, 0, last.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: run.path("f-999999999.png")))
    }

    /// `--input` names what Kamera reads when it is given something else.
    func testUnreadFileTypesSayWhatIsRead() throws {
        try run.write("clip.mp4", [0, 0, 0, 0x18] + Array("ftypmp42".utf8))
        try run.assertFails(["render", "--input", "clip.mp4"], mentioning: ["does not read .mp4", ".jpg", ".y4m", "ffmpeg -i"])
        try run.write("frames.bin", [1, 2, 3])
        try run.assertFails(["render", "--input", "frames.bin"], mentioning: ["--format", ".png, .jpg/.jpeg and .y4m"])
        try FileManager.default.createSymbolicLink(atPath: run.path("loop-a"), withDestinationPath: "loop-b")
        try FileManager.default.createSymbolicLink(atPath: run.path("loop-b"), withDestinationPath: "loop-a")
        try run.assertFails(["render", "--input", "loop-a"], mentioning: ["loop of symbolic links"])
        try run.assertFails(["render", "--input", String(repeating: "a/", count: 2100) + "x.png"], mentioning: ["longer than the system allows"])
    }

    /// The smaller things a new user met: the first `f` changes the filter,
    /// `render --expect` behaves as `shader --expect`, a raw copy says what it
    /// holds, and a preview with no output says so.
    func testSmallerThingsANewUserMet() throws {
        let first = try run.run(["preview", "--duration", "1.5", "--input-size", "160x120", "-o", "live.png"], input: "f")
        XCTAssertTrue(first.stderr.contains("filter: sepia"), "the first f leaves none for sepia: \(first.stderr)")
        let next = try run.run(["preview", "--filter", "sepia", "--duration", "1.5", "--input-size", "160x120", "-o", "live.png"], input: "f")
        XCTAssertTrue(next.stderr.contains("filter: gray"), "f goes on from the preset given: \(next.stderr)")

        XCTAssertEqual(try run.run(["render", "--size", "8x8", "-o", "golden.png"]).status, 0)
        let check = try run.run(["render", "--size", "8x8", "--expect", "golden.png"])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stderr.contains("checked 1 frame(s) against golden.png: all within 0"), check.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.path("kamera.png")), "a check alone writes nothing")

        let raw = try run.run(["render", "--format", "yuyv", "--input-size", "32x16", "--frames", "2", "--save-input", "raw.yuv", "-o", "r-%d.png"])
        XCTAssertTrue(raw.stderr.contains("raw.yuv: 2 raw yuyv 32x16 frame(s), 1024 bytes each; read it back with --input raw.yuv --format yuyv --input-size 32x16"), raw.stderr)
        let replay = try run.run(["render", "--input", "raw.yuv", "--format", "yuyv", "--input-size", "32x16", "-o", "again.png"])
        XCTAssertEqual(replay.status, 0, replay.stderr)

        let nowhere = try run.run(["preview", "--frames", "3", "--input-size", "160x120"])
        XCTAssertTrue(nowhere.stderr.contains("no -o: the frames are rendered offscreen and shown nowhere; add -o kms"), nowhere.stderr)
        let late = try run.run(["preview", "--frames", "2", "--input-size", "160x120", "-o", "p.png"])
        XCTAssertFalse(late.stderr.contains(" 1 frames"), late.stderr)
    }

    /// The man page is made from the help screens: every option of every
    /// command is in it, and groff renders it without a warning.
    func testManPageHoldsEveryOptionAndRendersCleanly() throws {
        let script = ExamplesTests.repository.appendingPathComponent("scripts/make-manual.sh").path
        let page = run.path("kamera.1")
        let make = try KameraProcess.shell("'\(script)' '\(KameraProcess.binary.path)' > '\(page)'", in: run.folder)
        XCTAssertEqual(make.status, 0, make.stderr)
        let roff = try String(contentsOfFile: page, encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
        // Every command --help lists, snap and codecs among them.
        let section = try run.run(["--help"]).output.components(separatedBy: "SUBCOMMANDS:\n").last?.components(separatedBy: "\n\n").first ?? ""
        let listed = section.split(separator: "\n").filter { $0.hasPrefix("  ") && ($0.dropFirst(2).first?.isLowercase ?? false) }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        XCTAssertTrue(Set(["render", "preview", "snap", "codecs", "bench"]).isSubset(of: Set(listed)), "\(listed)")
        XCTAssertTrue(roff.contains("MP4") && roff.contains("JPEG"), "the NAME line names what Kamera writes")
        for command in listed {
            XCTAssertTrue(roff.contains(".SS \"kamera \(command)\""), command)
            let help = try run.run([command, "--help"]).output
            let options = help.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  -") else { return nil }
                return line.dropFirst(2).split(separator: " ").first.map { String($0).trimmingCharacters(in: CharacterSet(charactersIn: ",")) }
            }
            if ["render", "preview", "cube", "shader", "devices", "controls", "displays"].contains(command) { XCTAssertGreaterThan(options.count, 2, command) }
            for option in options { XCTAssertTrue(roff.contains(option), "kamera \(command) \(option) missing from the man page") }
        }
        let render = try KameraProcess.shell("LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l '\(page)' > /dev/null", in: run.folder)
        XCTAssertEqual(render.status, 0)
        let text = render.stderr
        XCTAssertEqual(text, "", "groff warnings")
    }

    /// Output goes to files, FIFOs, terminals and sinks such as /dev/null,
    /// never to a memory or block device (as root, a PNG written to /dev/mem
    /// corrupts the machine). Checked on nodes made here; nothing is written.
    func testMemoryAndBlockDevicesAreNoOutputs() throws {
        XCTAssertEqual(mknod(run.path("mem"), S_IFCHR | 0o600, dev_t(1 << 8 | 1)), 0, "mknod needs root, as the tests run")
        XCTAssertEqual(mknod(run.path("disk"), S_IFBLK | 0o600, dev_t(7 << 8)), 0)
        XCTAssertThrowsError(try OutputFile.check(run.path("mem"))) { XCTAssertTrue("\($0)".contains("is a memory device"), "\($0)") }
        XCTAssertThrowsError(try OutputFile.check(run.path("disk"))) { XCTAssertTrue("\($0)".contains("is a block device"), "\($0)") }
        XCTAssertNoThrow(try OutputFile.check("/dev/null"))
    }

    /// A whole-program error (static recursion) names the file without a line 0.
    func testWholeProgramErrorsNameTheFile() throws {
        try run.write("recursion.frag", Array("float f(float x);\nfloat g(float x) { return f(x); }\nfloat f(float x) { return g(x); }\nvoid mainImage(out vec4 o, in vec2 p) { o = vec4(f(p.x)); }\n".utf8))
        let result = try run.run(["shader", "recursion.frag", "-o", "r.png"])
        XCTAssertEqual(result.status, 1)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty)
        for line in lines { XCTAssertTrue(line.hasPrefix("recursion.frag: error: ") && line.contains("recursion"), String(line)) }
        XCTAssertFalse(result.stderr.contains(":0:"), result.stderr)
    }
}
