import Foundation
import XCTest

/// `--serve` on the vivid camera, in the VM: curl reads the stream, and
/// each part's `X-Timestamp` is the driver's capture time (the monotonic
/// clock, between the read's start and end in uptime), increasing.
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
    """

    static let steps = [VMStep("serve", owner: "\(ServeVMTests.self)", script: script)]

    func testTheCameraIsServedWithTheDriversTimestamps() throws {
        let run = VMBoot.cameras.run("serve")
        defer { run.remove() }
        let folder = try run.checkedFolder()
        func text(_ name: String) throws -> String {
            try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
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
