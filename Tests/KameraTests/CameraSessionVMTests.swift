import Capture
import Foundation
import GPU
import Pipeline
import Pixels
import Render
import XCTest

/// Switching camera and format while running, with two vivid cameras: the
/// context and the output framebuffer stay, the frames come from the new
/// camera and match the CPU reference, and the old camera is released.
/// Run on the host, the test runs itself inside the VM, which must boot.
final class CameraSessionVMTests: XCTestCase {
    func testSwitchingCameraKeepsContextAndOutput() throws {
        guard VMTests.insideVM else {
            return try VMTests.passedInsideVM("CameraSessionVMTests/testSwitchingCameraKeepsContextAndOutput")
        }
        try RenderThread(name: "kamera.tests.session").sync {
            let context = try GPUContext()
            let renderer = try FrameRenderer(context: context, settings: RenderSettings(crop: .none))
            var options = SourceOptions()
            options.camera = "/dev/video0"
            options.format = .native(.yuyv)
            options.inputSize = (640, 480)
            let session = try SourceSession(renderer: renderer, configuration: options)

            func renderNext() throws -> (Frame, Image, RenderTarget?) {
                let frame = try XCTUnwrap(try session.nextFrame())
                renderer.rewrites = []
                guard case .drawn(let target) = try renderer.draw(frame, index: 0) else { throw CaptureError("the frame was not drawn") }
                let pixels = try renderer.render(frame, index: 0)
                return (frame, Image(width: frame.width, height: frame.height, pixels: Array(pixels)), target)
            }
            let (first, firstImage, output) = try renderNext()
            XCTAssertEqual(first.width, 640)
            XCTAssertClose(firstImage, CPUReference.decode(first), tolerance: 2, "video0 YUYV")
            let firstDecoded = CPUReference.decode(first)

            session.beginConfiguration()
            session.configuration.camera = "/dev/video1"
            session.configuration.format = .native(.nv12)
            session.configuration.inputSize = (320, 180)
            try session.commitConfiguration()
            let (second, secondImage, sameOutput) = try renderNext()
            XCTAssertEqual(second.format, .nv12)
            XCTAssertEqual(second.width, 320)
            XCTAssertClose(secondImage, CPUReference.decode(second), tolerance: 2, "video1 NV12")
            XCTAssertTrue(session.renderer.context === context)
            XCTAssertTrue(sameOutput === output, "the output framebuffer is kept (resized)")
            XCTAssertTrue(session.source?.summary.hasPrefix("/dev/video1 320x180 NV12") ?? false, session.source?.summary ?? "none")

            // video0 was released: another source can open it now.
            XCTAssertNoThrow(try CameraSource(path: "/dev/video0"))
            XCTAssertEqual(CPUReference.decode(first), firstDecoded, "a frame held across the switch keeps its bytes")

            // A configuration that cannot start leaves the old one running.
            session.beginConfiguration()
            session.configuration.camera = "/dev/video9"
            XCTAssertThrowsError(try session.commitConfiguration())
            XCTAssertEqual(session.configuration.camera, "/dev/video1")
            XCTAssertNotNil(try session.nextFrame())

            // The `n` key: the next camera, wrapping around.
            XCTAssertEqual(try session.nextCamera(), "/dev/video0")
            let (third, _, _) = try renderNext()
            XCTAssertTrue(session.source?.summary.hasPrefix("/dev/video0") ?? false)
            XCTAssertEqual(third.format, .nv12)
        }
    }

    /// `kamera preview` with keys from a pipe: + ramps the zoom, space stops
    /// it, n switches to the second camera, f changes the filter, q quits.
    /// Each key goes when the log shows the previous one took effect (times
    /// under emulation vary too much for fixed sleeps); markers go in the log.
    /// It starts zoomed a little (slider 0.1, 1.15x), so its first frame is
    /// drawn on the GPU: at 1x the CPU conversion makes the picture and the GL
    /// context opens only at the first zoomed frame, which in the emulated VM
    /// took seconds (LLVM loaded, shaders compiled) while the ramp, which keeps
    /// real time, ran to its end: the test saw 1x, then 4x, and nothing between.
    static let keysScript = """
        keys=$(mktemp -u -p /dev/shm)   # 9p (the shared folder) cannot hold a FIFO
        mkfifo $keys
        "$KAMERA" preview --camera /dev/video0 --input-size 320x180 --zoom 0.1 --status-every 0.25 --png-every 0.5 -o live.png < $keys 2>> log.txt &
        P=$!
        exec 3> $keys
        from=1   # wait_for reads the log from this line on
        wait_for() {
          for i in $(seq 200); do tail -n +$from log.txt | grep -q "$1" && return 0; sleep 0.1; done
          echo "timed out waiting for $1" >> log.txt; kill $P
        }
        wait_for ' fps |'
        # A ramp, cancelled once it moved: $1 the key, $2 the factor that shows it moved.
        ramp() {
          from=$(( $(wc -l < log.txt) + 1 ))
          printf %s "$1" >&3
          wait_for "$2"
          printf ' ' >&3
          echo "MARK-CANCEL $1" >> log.txt
          sleep 1.5
        }
        ramp + 'zoom 1\\.[3-9]'
        # A stall of the emulated VM between the two keys can let the ramp reach its end (4x) before
        # the cancel lands, which then shows nothing: once more the other way, from 4x toward 1x.
        if grep ' fps |' log.txt | tail -n 1 | grep -q 'zoom 4\\.00x'; then ramp - 'zoom 3\\.[0-8]'; fi
        echo MARK-NEXT >> log.txt
        from=1
        printf n >&3
        wait_for 'camera: /dev/video1'
        printf f >&3
        wait_for 'filter: '
        printf q >&3
        wait $P; echo $? > rc.txt
        """

    static let steps = [VMStep("preview-keys", owner: "\(CameraSessionVMTests.self)", script: keysScript, vivid: VMStep.twoCameras)]

    func testPreviewKeys() throws {
        let run = VMBoot.cameras.run("preview-keys")
        defer { run.remove() }
        let folder = try run.checkedFolder()
        let png = folder.appendingPathComponent("live.png").path
        let log = try String(contentsOfFile: folder.appendingPathComponent("log.txt").path, encoding: .utf8)
        XCTAssertEqual(try String(contentsOfFile: folder.appendingPathComponent("rc.txt").path, encoding: .utf8), "0\n", log)
        XCTAssertFalse(log.contains("timed out"), log)
        let lines = log.split(separator: "\n").map(String.init)
        func zooms(_ lines: ArraySlice<String>) -> [Double] {
            lines.compactMap { line in
                guard line.contains(" fps |"), let range = line.range(of: "zoom ") else { return nil }
                return Double(line[range.upperBound...].prefix { $0 != "x" })
            }
        }
        let first = try XCTUnwrap(lines.firstIndex { $0.hasPrefix("MARK-CANCEL") }, log)
        // The last ramp's cancel: the + ramp's, or the - ramp's that followed one that ran to its end.
        let cancel = try XCTUnwrap(lines.lastIndex { $0.hasPrefix("MARK-CANCEL") }, log)
        let next = try XCTUnwrap(lines.firstIndex(of: "MARK-NEXT"), log)
        XCTAssertEqual(try XCTUnwrap(zooms(lines[..<first]).first, log), 1.15, accuracy: 0.005, "4^0.1, the slider's start: \(log)")
        // A status line may be in flight when the cancel lands: skip one.
        let held = zooms(lines[(cancel + 1)..<next]).dropFirst()
        let stopped = try XCTUnwrap(held.first, "no status line between cancel and switch: \(log)")
        let (moved, end) = lines[cancel] == "MARK-CANCEL +" ? (1.25, 4.0) : (3.9, 1.0)
        XCTAssertTrue(stopped > min(moved, end) && stopped < max(moved, end), "the ramp moved and stopped before its end (\(end)x): \(log)")
        XCTAssertTrue(held.allSatisfy { $0 == stopped }, "the factor stays after cancel: \(log)")
        let switched = try XCTUnwrap(lines.firstIndex { $0.contains("camera: /dev/video1 320x180") }, log)
        XCTAssertTrue(lines[switched...].contains { $0.contains("| /dev/video1 320x180") }, log)
        XCTAssertTrue(lines[switched...].contains { $0.hasPrefix("kamera: filter: ") }, log)
        XCTAssertTrue(lines.last?.hasPrefix("kamera: previewed ") ?? false, log)
        let image = try XCTUnwrap(try ImageSource(path: png).nextFrame())
        XCTAssertEqual(image.width, 180)
    }
}
