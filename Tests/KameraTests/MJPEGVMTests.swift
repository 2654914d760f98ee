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
    # Served: the camera's own JPEGs passed through while nothing changes the picture; encoded anew once a filter does.
    serve() {
      "$KAMERA" preview --camera /dev/video10 --format mjpeg --crop none --serve $2 --duration 120 $3 2> $1-serve.log &
      P=$!
      until grep -q "serving http://" $1-serve.log 2>/dev/null || ! kill -0 $P 2>/dev/null; do sleep 0.1; done
      curl -sS --max-time 30 -o $1.jpg http://127.0.0.1:$2/snapshot; echo $? > $1.rc
      curl -sS --max-time 5 -o $1-state.json http://127.0.0.1:$2/state
      kill -INT $P; wait $P
    }
    serve passed 18090
    serve encoded 18091 "--filter sepia"
    """)

    static let steps = [VMStep("mjpeg", owner: "\(MJPEGVMTests.self)", script: script, loopback: true, timeout: 300)]

    func testMJPEGCameraRendersItsDecodedFrames() throws {
        let run = VMBoot.loopback.run("mjpeg")
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

    /// `--serve` on the MJPEG camera at its own size, nothing changing the
    /// picture: the snapshot is one of the camera's JPEGs byte for byte (ffmpeg
    /// fed the clip's frames as they are), and `/state` counts every frame sent
    /// as passed through. With a filter, the frames are encoded anew: none passed through.
    func testServedMJPEGPassesTheCamerasJPEGsThrough() throws {
        let run = VMBoot.loopback.run("mjpeg")
        let folder = try run.checkedFolder()
        let clip = try Data(contentsOf: folder.appendingPathComponent("clip.mjpeg"))
        for (name, passed) in [("passed", true), ("encoded", false)] {
            let log = (try? run.text("\(name)-serve.log")) ?? ""
            XCTAssertEqual(try run.text("\(name).rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", log)
            let jpeg = try Data(contentsOf: folder.appendingPathComponent("\(name).jpg"))
            XCTAssertEqual(Array(jpeg.prefix(2)), [0xFF, 0xD8], "\(name): a JPEG")
            XCTAssertEqual(clip.range(of: jpeg) != nil, passed, "\(name): the snapshot is \(passed ? "" : "not ")one of the camera's JPEGs")
            let state = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("\(name)-state.json"))) as? [String: Any])
            let sent = try XCTUnwrap(state["frames"] as? Int), through = try XCTUnwrap(state["passed_through"] as? Int)
            XCTAssertGreaterThan(sent, 0, "\(name): \(state)")
            XCTAssertEqual(through, passed ? sent : 0, "\(name): \(state)")
        }
    }
}
