import Foundation
@testable import kamera_bench
import XCTest

/// `-o rtmp://`, `srt://`, `rtsp://`: the picture published to real servers
/// started by the test (nginx with its RTMP module, ffmpeg listening), read
/// back by ffmpeg.
final class PublishTests: KameraProcessTestCase {
    func shell(_ script: String) throws -> KameraProcess.Result {
        try KameraProcess.shell(script, in: run.folder)
    }

    /// PSNR in dB of `frame` against `reference` (ffmpeg's psnr filter), nil when ffmpeg says none.
    func psnr(_ frame: String, _ reference: String) throws -> Double? {
        let result = try shell("ffmpeg -v info -nostats -i \(frame) -i \(reference) -lavfi psnr -f null - 2>&1 | grep -o 'average:[0-9.inf]*'")
        return Double(result.output.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "average:", with: ""))
    }

    /// Published to nginx-rtmp and read back through RTMP and through nginx's
    /// HLS: H.264 of the size rendered, no B-frames, a frame within 30 dB
    /// PSNR of the PNG render; nginx stopped mid-run and started again:
    /// Kamera says it lost the server, goes on previewing at its rate, and
    /// publishes again once the server is back.
    func testPublishesToNginxRTMPAndItsHLS() throws {
        let nginx = try NginxRTMP(in: run.folder)
        try nginx.start()
        let astronaut = FaceDetectionTests.media.appendingPathComponent("astronaut.png").path
        let reference = try run.run(["snap", "-i", astronaut, "--filter", "sepia", "--size", "320x320", "-o", "ref.png"])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let live = try ServedKamera(run, ["preview", "-i", astronaut, "--filter", "sepia", "--size", "320x320", "-o", nginx.rtmp("cam"), "--duration", "300"],
                                    ready: "publishing 320x320 H.264 to \(nginx.rtmp("cam"))")
        let read = try shell("""
            ffmpeg -v error -i \(nginx.rtmp("cam")) -frames:v 20 -f image2 rtmp-%02d.png && \
            ffprobe -v error -select_streams v -show_entries stream=codec_name,width,height,has_b_frames -of csv=p=0 \(nginx.rtmp("cam")) && \
            for i in $(seq 1 100); do [ -s nginx/hls/cam.m3u8 ] && grep -q ts nginx/hls/cam.m3u8 && break; sleep 0.2; done && \
            ffmpeg -v error -i \(nginx.hls("cam")) -frames:v 10 -f image2 hls-%02d.png && echo "hls read"
            """)
        XCTAssertEqual(read.status, 0, read.stderr + live.stderr)
        XCTAssertTrue(read.output.contains("h264,320,320,0"), "H.264 320x320 without B-frames: \(read.output)")
        XCTAssertTrue(read.output.contains("hls read"), read.stderr)
        for frame in ["rtmp-20.png", "hls-10.png"] {
            let db = try XCTUnwrap(try psnr(frame, "ref.png"), "\(frame) was read")
            XCTAssertGreaterThanOrEqual(db, 30, "\(frame) against the PNG render")
        }

        nginx.stop()
        XCTAssertNotNil(live.wait(for: "lost \(nginx.rtmp("cam"))", seconds: 30), "Kamera says it lost the server: \(live.stderr)")
        Thread.sleep(forTimeInterval: 2)
        try nginx.start()
        XCTAssertNotNil(live.wait(for: "publishing to \(nginx.rtmp("cam")) again", seconds: 30), "Kamera publishes again: \(live.stderr)")
        let again = try shell("ffmpeg -v error -i \(nginx.rtmp("cam")) -frames:v 10 -f image2 again-%02d.png && echo read again")
        XCTAssertTrue(again.output.contains("read again"), again.stderr)
        live.stop()
        let summary = try XCTUnwrap(live.stderr.split(separator: "\n").last { $0.contains("previewed") }, live.stderr)
        let fps = try XCTUnwrap(summary.split(separator: "(").dropFirst().first.flatMap { Double($0.split(separator: " ")[0]) }, String(summary))
        XCTAssertGreaterThan(fps, 25, "the preview kept its 30 fps while the server was away: \(summary)")
        XCTAssertEqual(live.stderr.components(separatedBy: "lost \(nginx.rtmp("cam"))").count, 2, "the loss is said once: \(live.stderr)")
        nginx.stop()
    }

    /// SRT to ffmpeg listening in caller-listener mode, and RTSP to ffmpeg
    /// listening (`-rtsp_flags listen`): each listener reads 20 frames of the size published.
    func testPublishesOverSRTAndRTSP() throws {
        for (name, listen, publish) in [
            ("srt", "srt://127.0.0.1:PORT?mode=listener", "srt://127.0.0.1:PORT?streamid=cam"),
            ("rtsp", "-rtsp_flags listen -i rtsp://127.0.0.1:PORT/cam", "rtsp://127.0.0.1:PORT/cam"),
        ] {
            let port = String(try StreamBenchmark.freePort())
            let input = listen.replacingOccurrences(of: "PORT", with: port)
            let result = try shell("""
                timeout 60 ffmpeg -v error \(name == "srt" ? "-i '\(input)'" : input) -frames:v 20 -f image2 \(name)-%02d.png &
                listener=$!
                sleep 1
                timeout 60 $KAMERA preview --size 320x240 -o '\(publish.replacingOccurrences(of: "PORT", with: port))' --duration 8 2> \(name)-kamera.txt
                wait $listener; echo "listener $?"
                ffprobe -v error -show_entries stream=width,height -of csv=p=0 \(name)-20.png
                """.replacingOccurrences(of: "$KAMERA", with: KameraProcess.binary.path))
            XCTAssertTrue(result.output.contains("listener 0"), "\(name): \(result.output) \(result.stderr)")
            XCTAssertTrue(result.output.contains("320,240"), "\(name): 20 frames of 320x240 read: \(result.output)")
            let said = try String(contentsOfFile: run.path("\(name)-kamera.txt"), encoding: .utf8)
            XCTAssertTrue(said.contains("publishing 320x240 H.264 to \(name)://"), said)
        }
    }

    /// Bad addresses are refused in one line naming what works; a server that
    /// is not there does not end the run, and is said once.
    func testBadAddressesAndAnAbsentServer() throws {
        try run.assertFails(["preview", "-o", "rtmp://"], mentioning: ["rtmp://", "rtmp://HOST/APP/KEY"])
        try run.assertFails(["preview", "-o", "rtmp://127.0.0.1/live"], mentioning: ["application and a stream key", "rtmp://127.0.0.1/live/cam"])
        try run.assertFails(["preview", "-o", "srt://127.0.0.1"], mentioning: ["needs a port", "srt://HOST:PORT"])
        try run.assertFails(["preview", "-o", "rtsp://127.0.0.1:8554"], mentioning: ["names a path", "rtsp://HOST:PORT/PATH"])
        try run.assertFails(["preview", "-o", "rtmp://127.0.0.1/live/cam", "--codec", "vp9"], mentioning: ["--codec vp9", "publish H.264"])
        try run.assertFails(["preview", "-o", "rtmp://127.0.0.1/live/cam", "--audio-codec", "aac"], mentioning: ["--audio-codec", "add --audio DEVICE"])
        let port = try StreamBenchmark.freePort()
        let absent = try run.run(["preview", "--size", "64x64", "-o", "rtmp://127.0.0.1:\(port)/live/cam", "--duration", "4"])
        XCTAssertEqual(absent.status, 0, absent.stderr)
        XCTAssertEqual(absent.stderr.components(separatedBy: "cannot connect").count, 2, "said once: \(absent.stderr)")
        XCTAssertTrue(absent.stderr.contains("the run goes on, trying again"), absent.stderr)
        // The whole 4 s previewed (a loaded machine may skip a late frame or two).
        XCTAssertNotNil(absent.stderr.range(of: #"previewed (1[01][0-9]|120) frames in [4-9]\.[0-9] s"#, options: .regularExpression), absent.stderr)
    }
}
