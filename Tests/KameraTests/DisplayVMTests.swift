import Capture
import Foundation
import XCTest

/// `-o kms` on the VM's vkms display (run-in-vm): mode set and page flips,
/// atomic and legacy, the console (CRTC, plane and VT) back after every exit,
/// the documented errors, what is on screen, and a live camera. The console
/// state is vkms's debugfs `state` file, compared before and after; what is
/// on screen is captured by ffmpeg's kmsgrab from a second process.
final class DisplayVMTests: XCTestCase {
    /// The folder of the test's step.
    private var folder: URL!
    private var run: VMScriptRun?

    override func tearDown() {
        run?.remove()
    }

    /// Put before each step: `K` the kamera binary, `state NAME` saving the
    /// console state, `waitlog FILE TEXT` waiting for kamera's log to show a line
    /// (its frames are on screen then). Small test patterns: a debug build under TCG is slow.
    static let prelude = """
        K="$KAMERA"
        state() { sed 's/allocated by = .*/allocated by = OWNER/' /sys/kernel/debug/dri/0/state > "$1"; grep -o 'allocated by = .*' /sys/kernel/debug/dri/0/state > "$1.owners"; }
        # Reading vkms's debugfs state while Kamera starts crashed llvmpipe in the VM, so the
        # state is read only before and after a run.
        waitlog() { local j; for j in $(seq 900); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done; echo "timed out waiting for '$2' in $1"; }

        """

    static func step(_ name: String, _ script: String, files: [String: String] = [:], owner: String = "\(DisplayVMTests.self)",
                     prepare: ((URL) throws -> Void)? = nil) -> VMStep {
        VMStep("display-\(name)", owner: owner, script: prelude + script, files: files, prepare: prepare)
    }

    static let steps = [
        step("modeset", """
        state before
        $K preview -o kms --input-size 64x48 --frames 12 > atomic.txt 2>&1; echo "atomic exit $?" >> atomic.txt
        state after-atomic
        $K cube -o kms --legacy --input-size 64x48 --frames 12 > legacy.txt 2>&1; echo "legacy exit $?" >> legacy.txt
        state after-legacy
        $K preview -o kms -o live.png -o clip.y4m -o rec.mp4 --input-size 64x48 --size 32x32 --frames 6 --png-every 0.01 > several.txt 2>&1; echo "several exit $?" >> several.txt
        state after-several
        ffprobe -v error -count_frames -show_entries stream=width,height,nb_read_frames -of csv=p=0 rec.mp4 > rec.txt 2>&1
        # Detection beside the display: the loop never waits on the code reader, every frame is flipped.
        $K preview -o kms --input-size 64x48 --detect codes --duration 4 > detect.txt 2>&1; echo "detect exit $?" >> detect.txt
        """),
        step("signals", """
        state before
        for sig in INT TERM; do
          $K preview -o kms --input-size 64x48 --status-every 1 > $sig.txt 2>&1 &
          waitlog $sig.txt fps; kill -$sig $!; wait $!; echo "exit $?" >> $sig.txt
          state after-$sig
        done
        # A crash, as the kernel delivers one: SIGSEGV while frames are on screen.
        $K preview -o kms --input-size 64x48 --status-every 1 > crash.txt 2>&1 &
        waitlog crash.txt fps; kill -SEGV $!; wait $!; echo "exit $?" >> crash.txt
        state after-crash
        """),
        step("errors", """
        state before
        run() { name=$1; shift; $K "$@" > $name.txt 2>&1; echo "exit $?" >> $name.txt; state after-$name; }
        run card preview -o kms --card /dev/dri/card7 --frames 2
        run connector preview -o kms --connector HDMI-A-9 --frames 2
        run mode preview -o kms --mode 333x222 --frames 2
        run notcard preview -o kms --card /dev/null --frames 2
        CONN=$(modetest -M vkms -c | awk '/^Connectors:/{f=1;next} f&&$3=="connected"{print $1; exit}')
        sleep 30 | modetest -M vkms -s $CONN:1024x768 > /dev/null 2>&1 &
        for j in $(seq 300); do grep -q "allocated by = modetest" /sys/kernel/debug/dri/0/state && break; sleep 0.1; done
        state held
        run master preview -o kms --frames 2
        state after-master-held
        kill %1
        wait
        $K preview -o kms --duration 60 --quiet > first.txt 2>&1 &
        for j in $(seq 300); do grep -q "allocated by = kamera" /sys/kernel/debug/dri/0/state && break; sleep 0.1; done
        run twice preview -o kms --frames 2
        kill -TERM %1; wait
        """),
        // A still input, so that what is on screen does not move between frames, and
        // the offscreen renders it is compared with, made on the host.
        step("on-screen", """
        grab() {
          waitlog $1.txt "holding the last frame"
          ffmpeg -nostdin -v error -y -device /dev/dri/card0 -f kmsgrab -i - -vf hwdownload,format=bgr0 -frames:v 1 -update 1 $1.png
          kill -TERM %1; wait %1; echo "exit $?" >> $1.txt
        }
        $K preview -o kms --input input.png --filter sepia --frames 3 --hold -v > preview.txt 2>&1 &
        grab preview
        $K cube -o kms --input input.png --frames 1 --hold -v > cube.txt 2>&1 &
        grab cube
        # The s key: the frame on screen saved as a PNG (drawn again offscreen; JPEG is the default). The
        # keys' FIFO lives in the VM's own memory: mkfifo on the shared folder (9p)
        # failed with ENXIO after the runs above.
        mkfifo /dev/shm/keys
        $K preview -o kms --input input.png --filter sepia --snapshot-format png -v < /dev/shm/keys > snapshot.txt 2>&1 &
        exec 3> /dev/shm/keys
        waitlog snapshot.txt fps; printf s >&3
        waitlog snapshot.txt saved; printf q >&3
        wait %1; echo "exit $?" >> snapshot.txt
        """) { folder in
            let input = folder.appendingPathComponent("input.png").path
            for arguments in [["render", "--input-size", "320x240", "-o", input],
                              ["render", "--input", input, "--filter", "sepia", "--size", "1024x768", "-o", folder.appendingPathComponent("preview-ref.png").path],
                              ["render", "--input", input, "--cube", "--size", "1024x768", "-o", folder.appendingPathComponent("cube-ref.png").path]] {
                let process = Process()
                process.executableURL = CommandLineTests.binary
                process.arguments = arguments + ["--gpu", "surfaceless"]
                let result = try KameraProcess.collect(process)
                guard result.status == 0 else { throw CaptureError("kamera \(arguments.joined(separator: " ")): \(result.stderr)") }
            }
        },
        step("shader", """
        state before
        mkfifo /dev/shm/shader-keys
        $K shader halves.frag -o kms --input-size 64x48 --status-every 1 --hold -v < /dev/shm/shader-keys > shader.txt 2>&1 &
        exec 3> /dev/shm/shader-keys
        waitlog shader.txt fps
        printf ' ' >&3; waitlog shader.txt paused
        printf '\\033[C' >&3; waitlog shader.txt "frame step"
        printf r >&3; waitlog shader.txt "time 0"
        printf s >&3; waitlog shader.txt saved
        printf q >&3
        # Grabbed while the last frame is held: a buffer the program may draw into
        # again can be caught half drawn (kmsgrab reads the buffer, not the scanout).
        waitlog shader.txt "holding the last frame"
        ffmpeg -nostdin -v error -y -device /dev/dri/card0 -f kmsgrab -i - -vf hwdownload,format=bgr0 -frames:v 1 -update 1 grab.png
        kill -TERM %1; wait %1; echo "exit $?" >> shader.txt
        state after
        """, files: ["halves.frag": """
            void mainImage(out vec4 o, in vec2 p) {
                vec3 top = vec3(0.25, 0.5, 0.75), bottom = vec3(1.0, 0.5, 0.0);
                o = vec4(p.y > 0.5 * iResolution.y ? top : bottom, 1.0) + 0.0 * iTime;
            }
            """]),
        step("camera", """
        state before
        $K preview -o kms --camera /dev/video0 --filter sepia --frames 60 -v > camera.txt 2>&1; echo "exit $?" >> camera.txt
        state after
        """),
    ]

    /// Runs the test's step (`display-NAME` of the shared boot): its folder
    /// becomes `folder`; returns its log. A step that failed fails the test with its logs.
    private func vm(_ name: String) throws -> String {
        let run = VMBoot.cameras.run("display-\(name)")
        self.run = run
        folder = try run.checkedFolder()
        return try run.text("step.log")
    }

    private func text(_ name: String) -> String {
        (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? "(missing \(name))"
    }

    private func assertConsoleRestored(_ before: String, _ after: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(text(after), text(before), "\(what): the display state differs from before", file: file, line: line)
        XCTAssertTrue(text(after + ".owners").contains("[fbcon]"), "\(what): fbcon does not hold the plane: \(text(after + ".owners"))", file: file, line: line)
        XCTAssertFalse(text(after + ".owners").contains("kamera"), "\(what): a Kamera framebuffer is still on the display", file: file, line: line)
    }

    func testModesetFlipsAndCleanExitAtomicAndLegacy() throws {
        let log = try vm("modeset")
        // Several outputs at once: the display, a PNG kept current, a Y4M clip and a recording, all at the
        // picture's size (--size), shown letterboxed on the display. Before, they took the display's 1024x768.
        XCTAssertTrue(text("several.txt").contains("several exit 0"), text("several.txt"))
        XCTAssertTrue(text("several.txt").contains("5 page flips completed"), text("several.txt"))
        assertConsoleRestored("before", "after-several", "kms with a PNG, a Y4M clip and a recording")
        let png = try Data(contentsOf: folder.appendingPathComponent("live.png"))
        XCTAssertEqual(Array(png[16..<24]), [0, 0, 0, 32, 0, 0, 0, 32], "live.png is 32x32")
        let clip = try Data(contentsOf: folder.appendingPathComponent("clip.y4m"))
        XCTAssertTrue(clip.starts(with: Data("YUV4MPEG2 W32 H32 F30:1 ".utf8)), String(decoding: clip.prefix(60), as: UTF8.self))
        let frameBytes = 6 + 32 * 32 * 3 / 2
        XCTAssertEqual((clip.count - (clip.firstIndex(of: 10)! + 1)) / frameBytes, 6, "six frames")
        XCTAssertEqual(text("rec.txt").trimmingCharacters(in: .whitespacesAndNewlines), "32,32,6", "the recording is the picture")
        // Detection beside the display: frames keep coming and each is flipped.
        let detect = text("detect.txt")
        XCTAssertTrue(detect.contains("detect exit 0"), detect)
        let previewed = try XCTUnwrap(detect.range(of: #"previewed \d+ frames"#, options: .regularExpression).map { Int(detect[$0].split(separator: " ")[1])! }, detect)
        XCTAssertGreaterThanOrEqual(previewed, 3, detect)
        XCTAssertTrue(detect.contains("\(previewed - 1) page flips completed"), detect)
        for (name, backend) in [("atomic", "atomic"), ("legacy", "legacy")] {
            let out = text("\(name).txt")
            XCTAssertTrue(out.contains("\(name) exit 0"), "\(name) run failed:\n\(out)\n\(log.suffix(2000))")
            XCTAssertTrue(out.contains("previewed 12 frames"), out)
            XCTAssertTrue(out.contains("Virtual-1 1024x768@60, \(backend)"), out)
            // The first frame is the mode set; every later one is a completed flip.
            XCTAssertTrue(out.contains("11 page flips completed"), out)
            // Mesa's loader prints its own lines while the display opens ("kmsro: driver missing"): only with -v.
            XCTAssertFalse(out.contains("driver missing") || out.contains("failed to load"), out)
            assertConsoleRestored("before", "after-\(name)", name)
        }
    }

    func testSignalsAndACrashRestoreTheConsole() throws {
        _ = try vm("signals")
        XCTAssertTrue(text("INT.txt").contains("exit 130"), text("INT.txt"))
        XCTAssertTrue(text("TERM.txt").contains("exit 143"), text("TERM.txt"))
        // The crash is a SIGSEGV: 128 + 11.
        XCTAssertTrue(text("crash.txt").contains("exit 139"), text("crash.txt").suffix(1500).description)
        for name in ["INT", "TERM", "crash"] { assertConsoleRestored("before", "after-\(name)", name) }
    }

    func testErrorsLeaveTheConsoleAlone() throws {
        _ = try vm("errors")
        let cases = [("card", "/dev/dri/card7: no such device; the cards here are /dev/dri/card0"),
                     ("connector", "--connector HDMI-A-9: /dev/dri/card0 has no such connector; it has Virtual-1 (connected)"),
                     ("mode", "--mode 333x222: Virtual-1 does not offer it; it offers 1024x768@60"),
                     ("notcard", "/dev/null: not a DRM device"),
                     ("master", "another display server holds /dev/dri/card0 (modetest, pid "),
                     ("twice", "another Kamera (pid ")]
        for (name, message) in cases {
            let lines = text("\(name).txt").split(separator: "\n")
            XCTAssertEqual(lines.last, "exit 1", "\(name): \(lines)")
            XCTAssertEqual(lines.count, 2, "\(name): one line of error expected: \(lines)")
            XCTAssertTrue(lines.first?.contains("kamera: error: \(message)") == true, "\(name): \(lines)")
            if name != "master" && name != "twice" { assertConsoleRestored("before", "after-\(name)", name) }
        }
        XCTAssertEqual(text("after-master-held"), text("held"), "the display held by modetest changed")
    }

    /// What is scanned out is captured by ffmpeg's kmsgrab from a second process
    /// while Kamera holds its last frame on screen (`--hold`), and compared
    /// with `kamera render` of the same input and frame, offscreen; so is the
    /// PNG the s key saves while the frame is on screen.
    func testWhatIsOnScreenMatchesTheOffscreenRender() throws {
        let log = try vm("on-screen")
        XCTAssertTrue(text("snapshot.txt").contains("saved kamera-snapshot-0001.png"), text("snapshot.txt") + "\nVM log:\n" + log.suffix(2000))
        XCTAssertTrue(text("snapshot.txt").contains("exit 0"), text("snapshot.txt"))
        try FileManager.default.copyItem(at: folder.appendingPathComponent("kamera-snapshot-0001.png"),
                                         to: folder.appendingPathComponent("snapshot.png"))
        for name in ["preview", "cube", "snapshot"] {
            let shot = try image(folder.appendingPathComponent("\(name).png").path)
            let reference = try image(folder.appendingPathComponent("\(name == "cube" ? "cube" : "preview")-ref.png").path)
            // Stopped by SIGTERM while holding its last frame: it ends by that signal.
            if name != "snapshot" { XCTAssertTrue(text("\(name).txt").contains("exit 143"), "\(name): \(text("\(name).txt"))") }
            XCTAssertEqual(shot.width, 1024, "\(name): \(text("\(name).txt"))")
            XCTAssertEqual(shot.height, 768)
            guard shot.width == reference.width, shot.height == reference.height else { continue }
            var worst = 0
            for y in 0..<shot.height {
                for x in 0..<shot.width {
                    let d = shot.pixel(x, y) &- reference.pixel(x, y)
                    worst = max(worst, abs(d.x), abs(d.y), abs(d.z))
                }
            }
            print("\(name) (\(name == "snapshot" ? "the s key's PNG" : "kmsgrab's capture")): differs from the offscreen render by at most \(worst)/255")
            XCTAssertLessThanOrEqual(worst, 2, "\(name): the scanned-out picture differs from the offscreen render by \(worst)/255")
        }
    }

    /// `kamera shader -o kms`: a Shadertoy shader full screen, upright (its
    /// y grows upward, as on Shadertoy), on screen (kmsgrab) and in the s
    /// key's PNG; the keys pause, step and reset time; the console comes back.
    func testShaderHarnessOnTheConsole() throws {
        let log = try vm("shader")
        let out = text("shader.txt")
        // Stopped by SIGTERM while holding its last frame: it ends by that signal.
        XCTAssertTrue(out.contains("exit 143"), out + "\nVM log:\n" + log.suffix(2000))
        XCTAssertTrue(out.contains("saved kamera-snapshot-0001.png"), out)
        assertConsoleRestored("before", "after", "shader")
        for name in ["grab.png", "kamera-snapshot-0001.png"] {
            let picture = try image(folder.appendingPathComponent(name).path)
            XCTAssertEqual(picture.width, 1024, name)
            XCTAssertEqual(picture.height, 768, name)
            guard picture.width == 1024, picture.height == 768 else { continue }
            for (x, y) in [(0, 0), (1023, 383), (512, 100)] {
                XCTAssertEqual(picture.pixel(x, y), SIMD4(64, 128, 191, 255), "\(name): top half at (\(x), \(y))")
            }
            for (x, y) in [(0, 767), (1023, 384), (512, 700)] {
                XCTAssertEqual(picture.pixel(x, y), SIMD4(255, 128, 0, 255), "\(name): bottom half at (\(x), \(y))")
            }
        }
    }

    func testLiveCameraThroughSepiaToTheDisplay() throws {
        _ = try vm("camera")
        let out = text("camera.txt")
        XCTAssertTrue(out.contains("exit 0"), out)
        XCTAssertTrue(out.contains("previewed 60 frames"), out)
        XCTAssertTrue(out.contains("59 page flips completed"), out)
        XCTAssertTrue(out.range(of: #"camera captured \d+ frames, \d+ dropped late, \d+ by the driver"#, options: .regularExpression) != nil, out)
        print("live camera on vkms: \(out.split(separator: "\n").last { $0.contains("previewed") } ?? "")")
        assertConsoleRestored("before", "after", "camera")
    }

    /// A PNG's pixels as RGBA.
    private func image(_ path: String) throws -> Image {
        let frame = try XCTUnwrap(try ImageSource(path: path).nextFrame())
        let plane = frame.planes[0]
        let channels = plane.bytesPerRow / frame.width
        var pixels: [UInt8] = []
        pixels.reserveCapacity(frame.width * frame.height * 4)
        for y in 0..<frame.height {
            for x in 0..<frame.width {
                let i = y * plane.bytesPerRow + x * channels
                pixels += [plane.bytes[i], plane.bytes[i + 1], plane.bytes[i + 2], 255]
            }
        }
        return Image(width: frame.width, height: frame.height, pixels: pixels)
    }
}
