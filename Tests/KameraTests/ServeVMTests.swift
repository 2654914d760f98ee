import CommandLineSupport
import Foundation
import XCTest

/// `--serve` on the vivid camera, in the VM: curl reads the stream, and
/// each part's `X-Timestamp` is the driver's capture time (the monotonic
/// clock, between the read's start and end in uptime), increasing; the
/// display, a recording and the server at once. And the
/// live benches, short: the stream beside ustreamer, publishing beside ffmpeg.
final class ServeVMTests: XCTestCase {
    static let script = """
    K="$KAMERA"
    $K preview --camera /dev/video0 --input-size 640x480 --size 320x240 --serve 18080 --duration 60 2> serve.log &
    P=$!
    until grep -q "serving http://" serve.log 2>/dev/null || ! kill -0 $P 2>/dev/null; do sleep 0.1; done
    cut -d' ' -f1 /proc/uptime > before.txt
    curl -sS --max-time 4 -o stream.bin http://127.0.0.1:18080/stream; echo $? > curl.rc
    cut -d' ' -f1 /proc/uptime > after.txt
    kill -INT $P; wait $P; echo $? > serve.rc
    # The console display, a recording and the server at once, from the camera.
    $K preview -v --camera /dev/video0 --input-size 640x480 --size 320x240 -o kms -o rec.mp4 --serve 18081 --frames 150 > both.txt 2>&1 &
    P=$!
    # Read once frames flow (the display and the encoder take seconds to start in the emulated VM).
    until grep -q "rec [1-9]" both.txt 2>/dev/null || ! kill -0 $P 2>/dev/null; do sleep 0.1; done
    curl -sS --max-time 4 -o both.bin http://127.0.0.1:18081/stream; echo $? > both-curl.rc
    wait $P; echo "exit $?" >> both.txt
    ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 rec.mp4 > rec-frames.txt 2>&1
    """

    /// The stream bench, short: each program once, 2 s to 2 clients; the publish bench, 4 s each.
    static let benchScript = """
    $KAMERA bench --stream-only --stream-seconds 2 --stream-rounds 1 --stream-clients 2 > bench.txt 2>&1; echo "exit $?" >> bench.txt
    $KAMERA bench --publish-only --stream-seconds 4 --stream-rounds 1 > publish.txt 2>&1; echo "exit $?" >> publish.txt
    """

    /// A short file the step wrote (an exit status, a count, a time), without its newline.
    static func line(_ name: String, of run: VMScriptRun) throws -> String {
        try run.text(name).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let steps = [VMStep("serve", owner: "\(ServeVMTests.self)", script: script),
                        VMStep("serve-bench", owner: "\(ServeVMTests.self)", script: benchScript, timeout: 300)]

    /// `-o kms -o rec.mp4 --serve` together on the camera: every frame on the
    /// display (a page flip each) and nearly every one in the recording, the stream read meanwhile.
    func testTheDisplayARecordingAndTheServerAtOnce() throws {
        let run = VMBoot.cameras.run("serve")
        let folder = try run.checkedFolder()
        func text(_ name: String) throws -> String { try Self.line(name, of: run) }
        let log = (try? text("both.txt")) ?? ""
        XCTAssertTrue(log.contains("exit 0"), log)
        XCTAssertTrue(log.contains("previewed 150 frames"), log)
        XCTAssertTrue(log.contains("149 page flips completed"), log)
        XCTAssertEqual(try text("both-curl.rc"), "28", "curl read until its --max-time: \(log)")
        XCTAssertGreaterThanOrEqual(ServeTests.parts(of: try Data(contentsOf: folder.appendingPathComponent("both.bin"))).count, 10, log)
        // The recording's encoder drops frames it cannot keep up with (counted) rather than stall the loop.
        XCTAssertGreaterThanOrEqual(Int(try text("rec-frames.txt")) ?? 0, 140, "the frames recorded: \(log)")
    }

    /// `kamera bench --stream-only` measures Kamera's server, unfiltered and
    /// with sepia, beside ustreamer on the vivid camera: a row each, frames
    /// delivered to both clients, and the floor (libjpeg-turbo's encode).
    func testTheStreamBenchMeasuresKamerasServerBesideUstreamer() throws {
        let run = VMBoot.cameras.run("serve-bench")
        let folder = try run.checkedFolder()
        let report = try String(contentsOf: folder.appendingPathComponent("bench.txt"), encoding: .utf8)
        XCTAssertTrue(report.contains("exit 0"), report)
        XCTAssertFalse(report.contains("not measured"), report)
        for program in ["ustreamer", "kamera preview --serve", "kamera preview --serve --filter sepia"] {
            let row = try XCTUnwrap(report.split(separator: "\n").first { $0.hasPrefix(program.padded(40)) }, "no row for \(program): \(report)")
            // "   clients   fps/client (slowest)  ...": the numbers after the name.
            let numbers = row.dropFirst(40).split(whereSeparator: { " ()".contains($0) }).compactMap { Double($0) }
            XCTAssertGreaterThanOrEqual(numbers.count, 3, String(row))
            XCTAssertEqual(numbers.first, 2, "2 clients: \(row)")
            XCTAssertGreaterThan(numbers.dropFirst(2).first ?? 0, 0, "the slowest client got frames: \(row)")
            if program != "ustreamer" { XCTAssertTrue(row.contains("x "), "a ratio to ustreamer: \(row)") }
        }
        XCTAssertNotNil(report.range(of: #"floor: libjpeg-turbo encodes one 1280x720 RGBA frame at quality 80 \(4:2:0\) in [0-9.]+ ms"#, options: .regularExpression), report)
    }

    /// `kamera bench --publish-only` measures Kamera publishing to nginx-rtmp,
    /// unfiltered and with sepia, beside ffmpeg on the vivid camera: a row
    /// each, frames read back, and glass to glass where the reader showed a
    /// switch of the picture before the next (in the loaded VM a program can
    /// fall further behind than that: the row says so, and at least one row has a latency).
    func testThePublishBenchMeasuresKameraBesideFFmpeg() throws {
        let run = VMBoot.cameras.run("serve-bench")
        let folder = try run.checkedFolder()
        let report = try String(contentsOf: folder.appendingPathComponent("publish.txt"), encoding: .utf8)
        XCTAssertTrue(report.contains("exit 0"), report)
        XCTAssertFalse(report.contains("not measured") || report.contains("skipped"), report)
        let measured = try GlassToGlassRows.check(report, programs: ["ffmpeg -f v4l2 … libx264 -f flv", "kamera preview -o rtmp://", "kamera preview -o rtmp:// --filter sepia"])
        XCTAssertGreaterThan(measured, 0, report)
    }

    func testTheCameraIsServedWithTheDriversTimestamps() throws {
        let run = VMBoot.cameras.run("serve")
        let folder = try run.checkedFolder()
        func text(_ name: String) throws -> String { try Self.line(name, of: run) }
        let log = (try? text("serve.log")) ?? ""
        XCTAssertEqual(try text("curl.rc"), "28", "curl read until its --max-time: \(log)")
        XCTAssertEqual(try text("serve.rc"), "130", "ended by Ctrl-C: \(log)")
        let parts = ServeTests.parts(of: try Data(contentsOf: folder.appendingPathComponent("stream.bin")))
        XCTAssertGreaterThanOrEqual(parts.count, 10, "parts in 4 s: \(log)")
        let before = try XCTUnwrap(Double(try text("before.txt")))
        let after = try XCTUnwrap(Double(try text("after.txt")))
        var last = 0.0
        for part in parts {
            let stamp = try XCTUnwrap(Double(part.headers["x-timestamp"] ?? ""))
            XCTAssertGreaterThan(stamp, last, "increasing")
            // The first part may be a frame captured just before the read began.
            XCTAssertTrue(stamp >= before - 0.5 && stamp <= after + 0.01, "captured at \(stamp) s, the read between \(before) and \(after) s of uptime")
            last = stamp
        }
    }
}
