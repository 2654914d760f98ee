import Foundation
import XCTest

/// `kamera bench`'s end-to-end section: whole processes, every program run the
/// asked number of times, medians and ratios that follow from the runs, and
/// peers that are missing named as such, never silently dropped.
final class BenchTests: KameraProcessTestCase {
    func testEndToEndSectionMeasuresWholeProcessesAndReportsJSON() throws {
        let result = try run.run(["bench", "--end-to-end-only", "--sizes", "96x64", "--formats", "yuyv,nv12",
                                  "--end-to-end-runs", "2", "--end-to-end-frames", "3", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.output)
        let cases = try XCTUnwrap(report["cases"] as? [[String: Any]])
        XCTAssertEqual(cases.count, 4, "sepia and cube for each format")
        for c in cases {
            let workload = try XCTUnwrap(c["workload"] as? String)
            let measurements = try XCTUnwrap(c["measurements"] as? [[String: Any]])
            let programs = measurements.compactMap { $0["program"] as? String }
            XCTAssertEqual(programs, workload == "sepia" ? ["kamera", "ffmpeg", "gstreamer-gl"] : ["kamera", "gstreamer-gl"])
            let speedup = c["kameraSpeedup"] as? [String: Double] ?? [:]
            var kameraMedian: Double?
            for m in measurements {
                let program = m["program"] as? String ?? "?"
                let seconds = m["seconds"] as? [Double] ?? []
                if let note = m["note"] as? String {
                    XCTAssertNotEqual(program, "kamera", "Kamera itself failed: \(note)")
                    XCTAssertFalse(note.isEmpty)
                    XCTAssertNil(speedup[program], "no ratio for a peer not measured")
                    continue
                }
                XCTAssertEqual(seconds.count, 2, "\(program): every counted run")
                let median = try XCTUnwrap(m["median"] as? Double)
                XCTAssertEqual(median, (seconds[0] + seconds[1]) / 2, accuracy: 1e-9)
                XCTAssertEqual(m["min"] as? Double, seconds.min())
                XCTAssertEqual(m["max"] as? Double, seconds.max())
                if program == "kamera" {
                    kameraMedian = median
                    let command = m["command"] as? String ?? ""
                    XCTAssertTrue(command.contains(" render ") && command.contains(workload == "sepia" ? "--filter sepia" : "--cube"), command)
                } else if let own = kameraMedian {
                    XCTAssertEqual(try XCTUnwrap(speedup[program]), median / own, accuracy: 1e-9)
                }
            }
        }
    }

    /// `--no-peers` runs Kamera alone: no ffmpeg, no GStreamer.
    func testNoPeersRunsKameraAlone() throws {
        let result = try run.run(["bench", "--end-to-end-only", "--no-peers", "--sizes", "96x64", "--formats", "yuyv",
                                  "--end-to-end-runs", "1", "--end-to-end-frames", "2", "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], result.output)
        for c in try XCTUnwrap(report["cases"] as? [[String: Any]]) {
            let programs = (c["measurements"] as? [[String: Any]] ?? []).compactMap { $0["program"] as? String }
            XCTAssertEqual(programs, ["kamera"])
        }
    }

    /// The detection section runs Kamera with and without each detector, and
    /// the preview with detection, and reports every line (peers left out here).
    func testDetectionSectionReportsEveryDetectorAndThePreview() throws {
        let result = try run.run(["bench", "--detection-only", "--no-peers", "--end-to-end-runs", "1", "--end-to-end-frames", "4",
                                  "--detection-media", FaceDetectionTests.media.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        for size in ["640x480", "1280x720"] {
            for kind in ["faces", "faces=lbp", "codes", "codes=qr"] {
                let line = result.output.split(separator: "\n").first { $0.contains("\(size) kamera \(kind) ") }
                XCTAssertNotNil(line?.range(of: #"\d+\.\d ms"#, options: .regularExpression), "\(size) \(kind): \(result.output)")
            }
        }
        XCTAssertTrue(result.output.contains("with --detect faces,codes:     previewed"), result.output)
        XCTAssertFalse(result.output.contains("gstreamer"), "--no-peers: Kamera alone")
    }

    /// The composition section: Kamera alone and composing two test patterns
    /// (pip, side) beside ffmpeg's overlay and hstack, a CPU figure for each,
    /// what composing adds, and Kamera's ratio to ffmpeg for each layout.
    func testCompositionSectionMeasuresEachLayoutBesideFFmpeg() throws {
        let result = try run.run(["bench", "--composition-only", "--end-to-end-runs", "1", "--end-to-end-frames", "20"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let text = String(decoding: result.stdout, as: UTF8.self)
        let lines = text.split(separator: "\n").map(String.init)
        for name in ["kamera, one source", "kamera --layout pip, two sources", "kamera --layout side, two sources",
                     "ffmpeg, one source", "ffmpeg overlay, two sources", "ffmpeg hstack, two sources"] {
            let line = try XCTUnwrap(lines.first { $0.hasPrefix(name) }, "no row for \(name): \(text)")
            XCTAssertNotNil(line.range(of: #"\d+\.\d\d ms"#, options: .regularExpression), line)
            if name.contains("two sources") { XCTAssertTrue(line.contains("composing: "), line) }
        }
        // A ratio for each layout, or, where ffmpeg's CPU in runs this short was below the clock's tick, why there is none.
        for layout in ["pip", "side"] {
            XCTAssertEqual(lines.filter { $0.hasPrefix("kamera --layout \(layout), two sources: ") && ($0.contains("x ffmpeg's CPU a frame") || $0.contains("no ratio to ffmpeg")) }.count, 1, text)
        }
    }
}
