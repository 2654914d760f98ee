import Capture
import Foundation
import Pixels
import XCTest

/// `--serve`: the live picture over HTTP to real clients (curl, ffmpeg, raw
/// sockets from bash), on loopback, from a kamera process.
final class ServeTests: KameraProcessTestCase {
    /// One multipart part of the stream as a client reads it.
    struct Part {
        var headers: [String: String]
        var jpeg: Data
    }

    /// Splits what a client read from `/stream` into its parts, checking the framing as a client does; the last part may be cut off and is left out.
    static func parts(of data: Data) -> [Part] {
        let boundary = Data("--boundarydonotcross\r\n".utf8)
        var parts: [Part] = []
        var at = data.startIndex
        while let start = data.range(of: boundary, in: at..<data.endIndex) {
            guard let end = data.range(of: Data("\r\n\r\n".utf8), in: start.upperBound..<data.endIndex) else { break }
            var headers: [String: String] = [:]
            for line in String(decoding: data[start.upperBound..<end.lowerBound], as: UTF8.self).split(separator: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            guard let length = Int(headers["content-length"] ?? ""), end.upperBound + length <= data.endIndex else { break }
            parts.append(Part(headers: headers, jpeg: data[end.upperBound..<(end.upperBound + length)]))
            at = end.upperBound + length
        }
        return parts
    }

    func shell(_ script: String) throws -> KameraProcess.Result {
        try KameraProcess.shell(script, in: run.folder)
    }

    /// Mean and 99.9th percentile of the per-channel difference of two RGB(A) frames of one size.
    static func difference(_ a: Frame, _ b: Frame) throws -> (mean: Double, p999: Int) {
        XCTAssertEqual(a.width, b.width)
        XCTAssertEqual(a.height, b.height)
        let (sa, sb) = (a.format == .rgba ? 4 : 3, b.format == .rgba ? 4 : 3)
        var histogram = [Int](repeating: 0, count: 256)
        var sum = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                for c in 0..<3 {
                    let pa = Int(a.planes[0].bytes[y * a.planes[0].bytesPerRow + x * sa + c])
                    let pb = Int(b.planes[0].bytes[y * b.planes[0].bytesPerRow + x * sb + c])
                    histogram[abs(pa - pb)] += 1
                    sum += abs(pa - pb)
                }
            }
        }
        let count = a.width * a.height * 3
        var seen = 0
        for (d, n) in histogram.enumerated() {
            seen += n
            if Double(seen) >= Double(count) * 0.999 { return (Double(sum) / Double(count), d) }
        }
        return (Double(sum) / Double(count), 255)
    }

    /// The snapshot is the picture rendered: a still input with sepia served,
    /// compared per pixel with the PNG `snap` renders of it (JPEG at quality
    /// 92, 4:2:0: mean difference at most 2 levels, 99.9% within 24).
    func testTheSnapshotIsTheRenderedPicture() throws {
        let astronaut = FaceDetectionTests.media.appendingPathComponent("astronaut.png").path
        let reference = try run.run(["snap", "-i", astronaut, "--filter", "sepia", "-o", "ref.png"])
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let served = try ServedKamera(run, ["preview", "-i", astronaut, "--filter", "sepia", "--serve", "0", "--duration", "120"])
        let fetched = try shell("""
            curl -sS --max-time 20 -D head.txt -o snap.jpg \(served.url)/snapshot && \
            curl -sS --max-time 20 -o action.jpg '\(served.url)/?action=snapshot' && \
            curl -sS --max-time 20 -I \(served.url)/snapshot
            """)
        XCTAssertEqual(fetched.status, 0, fetched.stderr)
        XCTAssertTrue(fetched.output.contains("Content-Type: image/jpeg"), fetched.output)
        let head = try String(contentsOfFile: run.path("head.txt"), encoding: .utf8)
        XCTAssertTrue(head.hasPrefix("HTTP/1.1 200"), head)
        XCTAssertTrue(head.contains("X-Timestamp: "), head)
        let png = try XCTUnwrap(try ImageSource(path: run.path("ref.png")).nextFrame())
        for name in ["snap.jpg", "action.jpg"] {
            let jpeg = try XCTUnwrap(try ImageSource(path: run.path(name)).nextFrame())
            let (mean, p999) = try Self.difference(jpeg, png)
            XCTAssertLessThanOrEqual(mean, 2.0, "\(name): mean difference from the PNG render")
            XCTAssertLessThanOrEqual(p999, 24, "\(name): 99.9th percentile of the difference from the PNG render")
        }
        served.stop()
    }

    /// mjpg-streamer's clients read the stream unchanged: curl's bytes split
    /// into whole JPEG parts with increasing `X-Timestamp`s, and ffmpeg reads
    /// frames from `/?action=stream` and `/stream`.
    func testMJPEGClientsReadTheStream() throws {
        let served = try ServedKamera(run, ["preview", "--serve", "0", "--size", "320x240", "--duration", "120"])
        let read = try shell("""
            curl -sS --max-time 3 -D head.txt -o stream.bin '\(served.url)/?action=stream'; echo "curl $?"
            ffmpeg -v error -i '\(served.url)/?action=stream' -frames:v 10 -f image2 action-%02d.png && \
            ffmpeg -v error -f mpjpeg -i '\(served.url)/stream' -frames:v 5 -f image2 plain-%02d.png && \
            ffprobe -v error -show_entries stream=width,height -of csv=p=0 action-10.png
            """)
        XCTAssertTrue(read.output.contains("curl 28"), "curl ends on its --max-time, the stream still open: \(read.output) \(read.stderr)")
        XCTAssertTrue(read.output.contains("320,240"), "ffmpeg read 10 frames of 320x240: \(read.output) \(read.stderr)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: run.path("plain-05.png")), read.stderr)
        let head = try String(contentsOfFile: run.path("head.txt"), encoding: .utf8)
        XCTAssertTrue(head.contains("multipart/x-mixed-replace;boundary=boundarydonotcross"), head)
        // As mjpg-streamer and ustreamer answer: the parts straight on the socket, not in HTTP/1.1 chunks.
        XCTAssertTrue(head.hasPrefix("HTTP/1.0 200 OK\r\n"), head)
        XCTAssertFalse(head.lowercased().contains("transfer-encoding"), head)
        let parts = Self.parts(of: try Data(contentsOf: URL(fileURLWithPath: run.path("stream.bin"))))
        XCTAssertGreaterThanOrEqual(parts.count, 10, "parts in 3 s at 30 fps")
        let stamps = parts.compactMap { Double($0.headers["x-timestamp"] ?? "") }
        XCTAssertEqual(stamps.count, parts.count, "every part has an X-Timestamp")
        XCTAssertEqual(stamps, stamps.sorted(), "X-Timestamps increase")
        XCTAssertEqual(Set(stamps).count, stamps.count, "no frame is sent twice")
        let decoder = try JPEGDecoder()
        for part in parts {
            XCTAssertEqual(part.headers["content-type"], "image/jpeg")
            let size = try part.jpeg.withUnsafeBytes { try decoder.size(of: $0) }
            XCTAssertEqual(size.width, 320)
            XCTAssertEqual(size.height, 240)
        }
        served.stop()
    }

    /// 50 clients at once, one of them stalled (it sends its request and
    /// reads nothing): the 49 others each get the frames encoded while they
    /// watch (the best client at least 75% of those encoded over the whole
    /// window, which includes starting 49 curls; every client at least 90%
    /// of the best; rates relative to what the server encoded, so that a
    /// loaded machine or the thread sanitizer's build holds), memory grows by less
    /// than 64 MiB, and the stalled client is closed once it has taken no
    /// frame for 5 s (the server's stall time).
    func testFiftyClientsOneStalled() throws {
        // Stopped by SIGINT at the end; the duration only bounds a run the test lost.
        let served = try ServedKamera(run, ["preview", "--serve", "0", "--serve-fps", "15", "--duration", "600"])
        let port = served.port
        Thread.sleep(forTimeInterval: 1)
        let before = served.residentKiB
        var peak = before
        let done = DispatchSemaphore(value: 0)
        var result: KameraProcess.Result?
        DispatchQueue.global().async { [self] in
            result = try? shell("""
                exec 3<>/dev/tcp/127.0.0.1/\(port)
                printf 'GET /stream HTTP/1.1\\r\\nHost: kamera\\r\\n\\r\\n' >&3
                curl -sS --max-time 10 http://127.0.0.1:\(port)/state > start.json
                for i in $(seq 1 49); do curl -s --max-time 8 -o c$i.bin http://127.0.0.1:\(port)/stream & done
                wait
                curl -sS --max-time 10 http://127.0.0.1:\(port)/state > during.json
                # The stalled client is never read (reading it would end the stall); the server closes it once its
                # buffers are full and it has taken no frame for 5 s: how soon depends on the rate, so wait up to 120 s.
                start=$SECONDS
                until curl -sS --max-time 10 http://127.0.0.1:\(port)/state | grep -q '"stalled_closed": 1' || [ $((SECONDS - start)) -ge 120 ]; do sleep 0.5; done
                echo "stalled client closed after $((SECONDS - start)) more seconds"
                curl -sS --max-time 10 http://127.0.0.1:\(port)/state > after.json
                """)
            done.signal()
        }
        while done.wait(timeout: .now() + 0.2) == .timedOut { peak = max(peak, served.residentKiB) }
        let script = try XCTUnwrap(result)
        XCTAssertEqual(script.status, 0, script.stderr)
        let counts = try (1...49).map { try Self.parts(of: Data(contentsOf: URL(fileURLWithPath: run.path("c\($0).bin")))).count }
        let best = try XCTUnwrap(counts.max())
        func encoded(_ name: String) throws -> Int {
            let state = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run.path(name)))) as? [String: Any]
            return try XCTUnwrap(state?["frames"] as? Int, name)
        }
        let window = try encoded("during.json") - encoded("start.json")
        XCTAssertGreaterThan(window, 0, "frames encoded while the clients watched")
        XCTAssertGreaterThanOrEqual(Double(best), Double(window) * 0.75, "the best client got the frames encoded while it watched (\(window)): \(counts)")
        XCTAssertGreaterThanOrEqual(Double(try XCTUnwrap(counts.min())), Double(best) * 0.9, "every watching client keeps the rate: \(counts)")
        XCTAssertLessThan(peak - before, 64 * 1024, "memory grew from \(before) KiB to \(peak) KiB with 50 clients")
        let after = try String(contentsOfFile: run.path("after.json"), encoding: .utf8)
        XCTAssertTrue(after.contains("\"stalled_closed\": 1"), after)
        XCTAssertTrue(script.output.contains("stalled client closed"), script.output)
        print("50 clients: parts per watching client \(counts.min()!)...\(best); memory \(before) -> \(peak) KiB; \(script.output)\(after)")
        served.stop()
    }

    /// Bad requests from raw sockets while curl watches the stream: garbage,
    /// a 40 KB header, a slowloris that never ends its head, a path outside
    /// the endpoints, a POST, wrong credentials. Each is answered (400, 404,
    /// 405, 401) or closed (the slowloris within the server's 10 s), and the
    /// watching client gets frames all along.
    func testBadRequestsAreAnsweredOrClosed() throws {
        let served = try ServedKamera(run, ["preview", "--serve", "0", "--serve-fps", "10", "--auth", "viewer:secret", "--size", "320x240", "--duration", "120"])
        let script = try shell("""
            port=\(served.port)
            ask() { # ask NAME BYTES...: send the bytes, keep what comes back until the server closes (at most 15 s)
                local name=$1; shift
                exec 3<>/dev/tcp/127.0.0.1/$port
                # The server may close before it has read all (a header over its bound): a write into the closed socket must not end this script.
                (trap '' PIPE; printf "$@" >&3) 2>/dev/null
                timeout 15 cat <&3 > $name.txt; echo "$name: $? $(head -c 12 $name.txt)"
                exec 3<&-
            }
            curl -s --max-time 14 -u viewer:secret -o watch.bin http://127.0.0.1:$port/stream &
            start=$SECONDS
            exec 4<>/dev/tcp/127.0.0.1/$port
            printf 'GET /stream HTTP/1.1\\r\\nHost: k\\r\\nX-Slow: ' >&4
            ask garbage '\\x00\\xff\\x13garbage\\r\\n\\r\\n'
            ask huge "GET / HTTP/1.1\\r\\nHost: k\\r\\nX-Big: $(head -c 40000 /dev/zero | tr '\\0' a)\\r\\n\\r\\n"
            ask post 'POST /stream HTTP/1.1\\r\\nHost: k\\r\\nAuthorization: Basic dmlld2VyOnNlY3JldA==\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n'
            echo "nobody: $(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$port/state)"
            echo "wrong: $(curl -s -o /dev/null -w '%{http_code}' -u viewer:wrong http://127.0.0.1:$port/state)"
            echo "outside: $(curl -s -o /dev/null -w '%{http_code}' -u viewer:secret --path-as-is http://127.0.0.1:$port/../../etc/passwd)"
            echo "right: $(curl -s -o /dev/null -w '%{http_code}' -u viewer:secret http://127.0.0.1:$port/state)"
            timeout 30 cat <&4 > slow.txt; echo "slowloris closed after $((SECONDS - start)) s with $(wc -c < slow.txt) bytes"
            wait
            """)
        let out = script.output
        XCTAssertTrue(out.contains("garbage: 0 HTTP/1.1 400"), out)
        XCTAssertTrue(out.contains("huge: 0 HTTP/1.1 4") || out.contains("huge: 0 \n") || out.contains("huge: 1 \n"), "a 40 KB header is refused or closed: \(out)")
        XCTAssertTrue(out.contains("post: 0 HTTP/1.1 405"), out)
        XCTAssertTrue(out.contains("nobody: 401"), out)
        XCTAssertTrue(out.contains("wrong: 401"), out)
        XCTAssertTrue(out.contains("outside: 404"), out)
        XCTAssertTrue(out.contains("right: 200"), out)
        let slow = try XCTUnwrap(out.split(separator: "\n").first { $0.hasPrefix("slowloris closed after") })
        let seconds = try XCTUnwrap(Int(slow.split(separator: " ")[3]))
        XCTAssertTrue((9...14).contains(seconds), "a request head unfinished is closed after 10 s: \(slow)")
        XCTAssertTrue(slow.hasSuffix("with 0 bytes"), String(slow))
        let watched = Self.parts(of: try Data(contentsOf: URL(fileURLWithPath: run.path("watch.bin"))))
        XCTAssertGreaterThanOrEqual(watched.count, 14 * 10 / 2, "the watching client kept getting frames: \(watched.count) in 14 s at 10 fps")
        served.stop()
    }

    func testBadServeOptions() throws {
        try run.assertFails(["preview", "--serve", "eighty"], mentioning: ["--serve eighty", "give a port (8080)"])
        try run.assertFails(["preview", "--serve", "70000"], mentioning: ["--serve 70000", "1 to 65535"])
        try run.assertFails(["preview", "--serve", "0.0.0.0:8080"], mentioning: ["reachable from other machines", "--auth USER:PASSWORD"])
        try run.assertFails(["preview", "--serve", "8080", "--auth", "nocolon"], mentioning: ["--auth", "USER:PASSWORD"])
        try run.assertFails(["preview", "--serve", "8080", "--serve-fps", "0"], mentioning: ["--serve-fps 0.0 is out of range"])
        try run.assertFails(["preview", "--serve-fps", "10"], mentioning: ["--serve-fps is for the server", "--serve 8080"])
        try run.assertFails(["preview", "-o", "https://localhost:8443/"], mentioning: ["does not write to https:// addresses", "http://HOST:PORT", "rtmp://HOST/APP/KEY"])
        try run.assertFails(["preview", "--serve", "192.0.2.1:8080", "--auth", "a:b"], mentioning: ["no interface of this machine has that address"])
        // A port another program holds.
        let held = try ServedKamera(run, ["preview", "--serve", "0", "--duration", "120", "--size", "64x64"])
        try run.assertFails(["preview", "--serve", String(held.port), "--duration", "1"], mentioning: ["--serve http://127.0.0.1:\(held.port)/", "another program listens on that port", "--serve 8081"])
        held.stop()
    }

    /// `/events` carries the analysers' records as Server-Sent Events: each
    /// one a line of the same run's `--metadata` file, frame numbers increasing.
    func testEventsCarryTheAnalysersRecords() throws {
        let served = try ServedKamera(run, ["preview", "--serve", "0", "--size", "64x64", "--analyze", "luma", "--metadata", "out.jsonl", "--duration", "120"])
        let read = try shell("curl -sS -N --max-time 3 -D head.txt -o events.txt \(served.url)/events; echo \"curl $?\"")
        XCTAssertTrue(read.output.contains("curl 28"), read.output + read.stderr)
        served.stop()
        let head = try String(contentsOfFile: run.path("head.txt"), encoding: .utf8)
        XCTAssertTrue(head.contains("Content-Type: text/event-stream"), head)
        let metadata = Set(try String(contentsOfFile: run.path("out.jsonl"), encoding: .utf8).split(separator: "\n").map(String.init))
        let events = try String(contentsOfFile: run.path("events.txt"), encoding: .utf8).components(separatedBy: "\n\n").filter { !$0.isEmpty }
        XCTAssertGreaterThanOrEqual(events.count, 10, "records in 3 s")
        var last = -1
        for event in events {
            XCTAssertTrue(event.hasPrefix("data: "), event)
            let line = String(event.dropFirst(6))
            XCTAssertTrue(metadata.contains(line), "a line of out.jsonl: \(line)")
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let frame = try XCTUnwrap(record["frame"] as? Int)
            XCTAssertGreaterThan(frame, last)
            XCTAssertNotNil(record["luma"], line)
            last = frame
        }
    }

    /// `POST /record?action=start|stop` (the page's Record button) records
    /// into the next free `kamera-recording-NNNN.mp4` between the two, never
    /// over a file already there; `/state` names it while it lasts. A start
    /// while recording, an unknown action, a request without the control
    /// header or not a POST changes nothing.
    func testRecordingStartsAndStopsFromTheServer() throws {
        try Data("keep".utf8).write(to: URL(fileURLWithPath: run.path("kamera-recording-0001.mp4")))
        let served = try ServedKamera(run, ["preview", "--serve", "0", "--size", "160x160", "--filter", "sepia", "--duration", "120"])
        let script = try shell("""
            ctl() { echo "$1: $(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'X-Kamera-Control: 1' "\(served.url)/record?action=$1")"; }
            ctl start
            for i in $(seq 100); do curl -s \(served.url)/state > during.json; grep -q '"recording": "kamera' during.json && break; sleep 0.1; done
            sleep 2
            ctl start
            ctl stop
            for i in $(seq 100); do curl -s \(served.url)/state > after.json; grep -q '"recording": null' after.json && break; sleep 0.1; done
            ctl nonsense
            echo "no header: $(curl -s -o /dev/null -w '%{http_code}' -X POST "\(served.url)/record?action=start")"
            echo "get: $(curl -s -o /dev/null -w '%{http_code}' "\(served.url)/record?action=start")"
            """)
        let out = script.output
        for line in ["start: 202", "stop: 202", "nonsense: 400", "no header: 403", "get: 405"] {
            XCTAssertTrue(out.contains(line), "\(line): \(out)")
        }
        XCTAssertTrue(try String(contentsOfFile: run.path("during.json"), encoding: .utf8).contains(#""recording": "kamera-recording-0002.mp4""#))
        XCTAssertTrue(try String(contentsOfFile: run.path("after.json"), encoding: .utf8).contains(#""recording": null"#))
        XCTAssertNotNil(served.wait(for: "kamera-recording-0002.mp4: ", seconds: 30), "the recording's summary: \(served.stderr)")
        XCTAssertNotNil(served.wait(for: "already recording kamera-recording-0002.mp4", seconds: 5), served.stderr)
        served.stop()
        XCTAssertEqual(try String(contentsOfFile: run.path("kamera-recording-0001.mp4"), encoding: .utf8), "keep")
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.path("kamera-recording-0003.mp4")), "one recording made")
        let probe = try shell("ffprobe -v error -count_frames -show_entries stream=width,height,nb_read_frames -of csv=p=0 kamera-recording-0002.mp4")
        let fields = probe.output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        XCTAssertEqual(Array(fields.prefix(2)), [160, 160], probe.output + probe.stderr)
        // Two seconds and more between start and stop, at the preview's 30 fps (a loaded machine renders fewer).
        XCTAssertGreaterThanOrEqual(fields.last ?? 0, 20, probe.output)
    }
}
