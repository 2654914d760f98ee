import Capture
import Foundation
import XCTest

/// An MJPEG camera: v4l2loopback in the VM, fed by ffmpeg with JPEG frames,
/// as most USB webcams deliver 720p. The VM must boot; if it cannot, the test fails.
/// The frames are encoded once and then sent as they are: encoding live took
/// most of a virtual core under TCG, and once (a CI run) the camera went 3 s
/// without a frame.
final class MJPEGVMTests: XCTestCase {
    static let script = """
    ffmpeg -nostdin -loglevel error -f lavfi -i testsrc2=size=640x480:rate=30 -frames:v 30 -c:v mjpeg -q:v 5 clip.mjpeg
    """ + VMScriptRun.loopbackCamera(
        feed: "ffmpeg -nostdin -loglevel error -re -stream_loop -1 -f mjpeg -framerate 30 -i clip.mjpeg -c:v copy -f v4l2 /dev/video10",
        then: """
    "$KAMERA" devices --formats /dev/video10 > formats.txt
    "$KAMERA" render -v --camera /dev/video10 --format mjpeg --frames 5 --crop none --save-input mjpeg.raw -o mjpeg-%d.png 2> mjpeg.log
    echo $? > mjpeg.rc
    """)

    static let steps = [VMStep("mjpeg", owner: "\(MJPEGVMTests.self)", script: script, loopback: true, timeout: 300)]

    func testMJPEGCameraRendersItsDecodedFrames() throws {
        let run = VMBoot.loopback.run("mjpeg")
        defer { run.remove() }
        let folder = try run.checkedFolder()

        func text(_ name: String) throws -> String { try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) }
        let formats = try text("formats.txt")
        XCTAssertTrue(formats.contains("MJPG"), formats)
        let kameraLog = try text("mjpeg.log")
        XCTAssertEqual(try text("mjpeg.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", kameraLog)
        XCTAssertTrue(kameraLog.contains("/dev/video10 640x480 MJPG"), kameraLog)

        XCTAssertEqual(try RawVideoSource(path: folder.appendingPathComponent("mjpeg.raw").path, format: .rgba, width: 640, height: 480).frameCount, 5)
        let frame = try RawVideoSource.lastFrame(of: folder.appendingPathComponent("mjpeg.raw"), format: .rgba)
        let decoded = Image(width: 640, height: 480, pixels: Array(frame.planes[0].bytes))
        // testsrc2 is colorful: the decoded frame must not be flat.
        let reds = Set(stride(from: 0, to: decoded.pixels.count, by: 4 * 97).map { decoded.pixels[$0] })
        XCTAssertGreaterThan(reds.count, 20, "decoded frame looks flat")
        let png = try XCTUnwrap(try ImageSource(path: folder.appendingPathComponent("mjpeg-4.png").path).nextFrame())
        XCTAssertClose(Image(width: png.width, height: png.height, pixels: Array(png.planes[0].bytes)), decoded, tolerance: 2, "MJPEG frame")
    }
}
