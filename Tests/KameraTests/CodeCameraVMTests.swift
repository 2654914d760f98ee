import Foundation
import XCTest

/// A code held in front of a live camera: v4l2loopback in the VM, fed by
/// ffmpeg with a clip (encoded once, as the MJPEG test does) in which a QR
/// code appears after half a second and stays for three and a half, in a
/// loop. The VM must boot; if it cannot, the test fails.
///
/// The loop is long against the gap: in the VM a debug build analyses a frame
/// every 0.5-1 s, slower on a loaded machine, and the analysed frames can fall
/// into step with the loop (seen: one a second against a 2 s loop, every other
/// one in the gap). With a loop only two analysed frames long, every one could
/// fall in the gap: three misses in a row over more than a second, and the
/// tracker rightly ends the track.
final class CodeCameraVMTests: XCTestCase {
    static let script = """
    qrencode -s 6 -m 2 -o code.png 'LIVE-TICKET-7'
    ffmpeg -nostdin -loglevel error -f lavfi -i color=gray:s=640x480:r=30 -i code.png \
      -filter_complex "[1]format=rgb24[c];[0][c]overlay=240:140:enable='gte(n,15)',format=yuvj420p" -frames:v 120 -c:v mjpeg -q:v 3 clip.mjpeg
    """ + VMScriptRun.loopbackCamera(
        feed: "ffmpeg -nostdin -loglevel error -re -stream_loop -1 -f mjpeg -framerate 30 -i clip.mjpeg -c:v copy -f v4l2 /dev/video10 2> feed.log",
        then: """
    cut -d' ' -f1 /proc/uptime > before.txt
    "$KAMERA" render -v --camera /dev/video10 --format mjpeg --frames 90 --crop none --detect codes --metadata live.jsonl > scanner.txt 2> render.log
    echo $? > render.rc
    cut -d' ' -f1 /proc/uptime > after.txt
    code=$(timeout 120 "$KAMERA" preview --camera /dev/video10 --format mjpeg --detect codes --once 2> once.log)
    echo "$?:$code" > once.txt
    """)

    static let steps = [VMStep("codes", owner: "\(CodeCameraVMTests.self)", script: script, loopback: true, timeout: 400)]

    func testACodeInFrontOfTheCameraIsReadOnceAndOnceEnds() throws {
        let run = VMBoot.loopback.run("codes")
        defer { run.remove() }
        let folder = try run.checkedFolder()
        func text(_ name: String) throws -> String { try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8) }
        let renderLog = try text("render.log"), onceLog = try text("once.log"), feedLog = try text("feed.log")
        XCTAssertEqual(try text("render.rc").trimmingCharacters(in: .whitespacesAndNewlines), "0", renderLog + "\nffmpeg feeding the camera:\n" + feedLog)
        let before = Double(try text("before.txt").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        let after = Double(try text("after.txt").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        var stamps: [Double] = [], read = 0, seen = ""
        for line in try text("live.jsonl").split(separator: "\n") {
            let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            stamps.append(try XCTUnwrap(json["timestamp"] as? Double))
            let objects = try XCTUnwrap(json["objects"] as? [[String: Any]])
            read += objects.filter { $0["value"] as? String == "LIVE-TICKET-7" && $0["track"] as? Int == 1 }.count
            // "12.34s: 1 2" (the tracks seen in the frame at 12.34 s), for a failure's message.
            seen += String(format: "%.2fs:", stamps.last ?? 0) + objects.map { " \($0["track"] as? Int ?? 0)" }.joined() + "\n"
        }
        XCTAssertEqual(try text("scanner.txt"), "qr LIVE-TICKET-7\n",
                       "printed once while it stays in view (it leaves for half a second each loop); analysed frames:\n\(seen)")
        XCTAssertGreaterThan(stamps.count, 5, "frames analysed")
        XCTAssertGreaterThan(read, 3, "the code read in the frames that show it, always track 1")
        // The driver's timestamps: CLOCK_MONOTONIC, inside the run, increasing.
        XCTAssertEqual(stamps, stamps.sorted())
        XCTAssertGreaterThanOrEqual(stamps.first ?? 0, before - 1)
        XCTAssertLessThanOrEqual(stamps.last ?? 0, after + 1)
        XCTAssertEqual(try text("once.txt"), "0:LIVE-TICKET-7\n", onceLog)
    }
}
