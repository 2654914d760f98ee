import Analysis
import Analyzers
import CGLES
import Capture
import Foundation
import GPU
import Lifecycle
import Output
import Pipeline
import Pixels
import Render
import XCTest

/// The luma analyser against a CPU reference written from the definitions,
/// the analysis thread (every frame offline, skips counted live, the rate,
/// joining, errors), and the metadata as a user gets it from a file input.
final class AnalysisTests: KameraProcessTestCase {
    /// A picture with clipped ends, flat areas, edges and noise.
    static func luma(width: Int, height: Int, seed: UInt32 = 7) -> [UInt8] {
        var s = seed
        return (0..<width * height).map { i in
            let (x, y) = (i % width, i / width)
            s = s &* 1_664_525 &+ 1_013_904_223
            if x < width / 8 { return 0 }
            if x >= width - width / 8 { return 255 }
            if y < height / 4 { return UInt8(16 + (x * 200) / width) }
            return UInt8(truncatingIfNeeded: Int(s >> 24) % 180 + 40)
        }
    }

    func statistics(_ luma: [UInt8], width: Int, height: Int, range: YUVColorSpace.Range) -> LumaStatistics {
        luma.withUnsafeBufferPointer { LumaAnalyzer().statistics(LumaImage(width: width, height: height, pixels: $0, range: range)) }
    }

    func testLumaStatisticsMatchTheDefinitions() {
        for (width, height) in [(64, 48), (7, 5), (2, 2)] {
            let luma = Self.luma(width: width, height: height)
            for range in YUVColorSpace.Range.allCases {
                let got = statistics(luma, width: width, height: height, range: range)
                let want = LumaReference.statistics(luma, width: width, height: height, limited: range == .limited)
                XCTAssertEqual(got.mean, want.mean, accuracy: 1e-9, "\(width)x\(height) \(range)")
                XCTAssertEqual(got.clippedLow, want.clippedLow, accuracy: 1e-9)
                XCTAssertEqual(got.clippedHigh, want.clippedHigh, accuracy: 1e-9)
                XCTAssertEqual(got.focus, want.focus, accuracy: 1e-6 * max(1, want.focus))
                XCTAssertEqual(got.histogram.count, 16)
                for (a, b) in zip(got.histogram, want.histogram) { XCTAssertEqual(a, b, accuracy: 1e-12) }
            }
        }
        // A flat picture: nothing to focus on; a sharp checkerboard: a large Laplacian.
        let flat = [UInt8](repeating: 128, count: 100)
        XCTAssertEqual(statistics(flat, width: 10, height: 10, range: .full).focus, 0)
        let checker = (0..<100).map { i in UInt8((i % 10 + i / 10) % 2 == 0 ? 0 : 255) }
        XCTAssertEqual(statistics(checker, width: 10, height: 10, range: .full).focus, Double(4 * 4 * 255 * 255), accuracy: 1e-6)
    }

    /// An analyser that takes `delay` seconds a frame and counts its calls.
    final class SlowAnalyzer: FrameAnalyzer {
        let name = "slow"
        let delay: Double
        let lock = Lock()
        var frames: [Int] = []
        init(delay: Double) { self.delay = delay }
        struct Result: AnalysisResult { var json: String { "{}" } }
        func analyze(_ image: LumaImage) -> any AnalysisResult {
            usleep(useconds_t(delay * 1e6))
            lock.withLock { frames.append(Int(image.pixels[0])) }
            return Result()
        }
    }

    func frame(_ n: Int, time: Double, buffer: FrameBuffer) -> Frame {
        buffer.mutablePlane(0).initializeMemory(as: UInt8.self, repeating: UInt8(n))
        return buffer.frame(sequence: UInt64(n), timestamp: UInt64(time * 1e9))
    }

    func testOfflineRunsAnalyseEveryFrameAndLiveRunsSkipWithoutWaiting() throws {
        let buffer = FrameBuffer(format: .grey, width: 32, height: 16)
        let waiting = SlowAnalyzer(delay: 0.01)
        let offline = FrameAnalysis(analyzers: [waiting], whenBusy: .wait)
        var records: [Int] = []
        offline.onRecord = { records.append($0.frame) }
        for n in 0..<20 { try offline.offer(frame(n, time: Double(n) / 30, buffer: buffer), index: n) }
        try offline.finish()
        XCTAssertEqual(records, Array(0..<20), "every frame, in order")
        XCTAssertEqual(waiting.frames, Array(0..<20), "each frame's own bytes")
        XCTAssertEqual(offline.statistics.analysed, 20)

        // A slow analyser: a loop that waited for it would take 10 s over 40 frames,
        // and a loaded machine has 2 s of stalls before the counts below could fail.
        let slow = SlowAnalyzer(delay: 0.25)
        let live = FrameAnalysis(analyzers: [slow], whenBusy: .skip)
        let start = MonotonicClock.seconds
        for n in 0..<40 { try live.offer(frame(n, time: Double(n) / 1000, buffer: buffer), index: n) }
        let offering = MonotonicClock.seconds - start
        try live.finish()
        let s = live.statistics
        XCTAssertEqual(s.analysed + s.skippedBusy, 40, "every frame analysed or counted as skipped")
        XCTAssertGreaterThan(s.skippedBusy, 30, "the loop did not wait for a 250 ms analyser")
        XCTAssertLessThan(offering, 5.0, "40 offers took \(offering) s: waiting for each analysis would take 10 s")
        XCTAssertEqual(slow.frames.first, 0)
    }

    func testRateLimitsByFrameTimeAndRecordsArriveAsASequenceToo() async throws {
        let buffer = FrameBuffer(format: .grey, width: 8, height: 8)
        let analysis = FrameAnalysis(analyzers: [LumaAnalyzer()], whenBusy: .wait, rate: 10)
        let records = analysis.records
        for n in 0..<30 { try analysis.offer(frame(n, time: Double(n) / 30, buffer: buffer), index: n) }
        try analysis.finish()
        var frames: [Int] = []
        for await record in records { frames.append(record.frame) }
        XCTAssertEqual(frames, [0, 3, 6, 9, 12, 15, 18, 21, 24, 27], "one frame in three at 10 of 30 frames a second")
        XCTAssertEqual(analysis.statistics.skippedRate, 20)
    }

    func testAWriteFailureEndsTheRunAndTheThreadIsJoined() throws {
        struct Full: Error {}
        let buffer = FrameBuffer(format: .grey, width: 8, height: 8)
        let analysis = FrameAnalysis(analyzers: [LumaAnalyzer()], whenBusy: .wait)
        analysis.onRecord = { _ in throw Full() }
        try analysis.offer(frame(0, time: 0, buffer: buffer), index: 0)
        XCTAssertThrowsError(try analysis.finish()) { XCTAssertTrue($0 is Full) }
        analysis.stop()
        XCTAssertThrowsError(try analysis.offer(frame(1, time: 1, buffer: buffer), index: 1))
    }

    /// `--analyze luma --metadata` on a Y4M file, end to end: one line per
    /// frame, frame times, and the statistics of each frame's luma plane.
    func testMetadataLinesFromAFileInput() throws {
        let (width, height, frames) = (48, 32, 4)
        var file = Data("YUV4MPEG2 W\(width) H\(height) F25:1 C420jpeg\n".utf8)
        var lumas: [[UInt8]] = []
        for n in 0..<frames {
            let luma = Self.luma(width: width, height: height, seed: UInt32(n + 1))
            lumas.append(luma)
            file += Data("FRAME\n".utf8) + Data(luma) + Data(repeating: 128, count: 2 * (width / 2) * (height / 2))
        }
        try file.write(to: run.folder.appendingPathComponent("in.y4m"))
        let result = try run.run(["render", "--input", "in.y4m", "--frames", "\(frames)", "--filter", "blur=2", "--analyze", "luma",
                                  "--metadata", "meta.jsonl", "-o", "f-%d.png"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = try String(contentsOf: run.folder.appendingPathComponent("meta.jsonl"), encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, frames)
        for (n, line) in lines.enumerated() {
            let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            XCTAssertEqual(record["frame"] as? Int, n)
            XCTAssertEqual(record["sequence"] as? Int, n)
            XCTAssertEqual(record["timestamp"] as? Double ?? -1, Double(n) / 25, accuracy: 1e-6)
            let luma = try XCTUnwrap(record["luma"] as? [String: Any])
            let want = LumaReference.statistics(lumas[n], width: width, height: height, limited: true)
            XCTAssertEqual(luma["mean"] as? Double ?? -1, want.mean, accuracy: 0.0005)
            XCTAssertEqual(luma["clipped_low"] as? Double ?? -1, want.clippedLow, accuracy: 0.0005)
            XCTAssertEqual(luma["clipped_high"] as? Double ?? -1, want.clippedHigh, accuracy: 0.0005)
            XCTAssertEqual(luma["focus"] as? Double ?? -1, want.focus, accuracy: 0.005)
            XCTAssertEqual((luma["histogram"] as? [Double])?.count, 16)
        }
        // The same metadata on every run of a file; to standard output without --metadata.
        let again = try run.run(["render", "--input", "in.y4m", "--frames", "\(frames)", "--analyze", "luma", "-o", "g-%d.png"])
        XCTAssertEqual(again.output.split(separator: "\n"), lines)
        try run.assertFails(["render", "--metadata", "m.jsonl"], mentioning: ["--metadata", "--analyze luma"])
        try run.assertFails(["render", "--analyze", "faces"], mentioning: ["no analyser 'faces'", "luma"])
        try run.assertFails(["render", "--analyze", "luma", "-o", "-"], mentioning: ["-o - takes standard output", "--metadata FILE"])
    }

    /// A still image's frames, and raw frames, are stamped at the run's rate
    /// (`--fps`, 30 by default), as the test pattern's are: their metadata
    /// says when each frame is, and `--analyze-rate` takes one frame in so many
    /// (every frame was stamped 0, and only the first was analysed): at 10 fps
    /// frames 0, 2 and 4 of 6, at 20 fps frames 0 and 4.
    func testStillsAndRawFramesAreStampedAtTheRunsRate() throws {
        try Data(repeating: 90, count: 16 * 16 * 6).write(to: run.folder.appendingPathComponent("in.grey"))
        XCTAssertEqual(try run.run(["render", "--input", "in.grey", "--format", "grey", "--input-size", "16x16", "--frames", "1", "-o", "still.png"]).status, 0)
        for (input, fps) in [(["--input", "still.png"], "10"), (["--input", "in.grey", "--format", "grey", "--input-size", "16x16"], "20")] {
            let result = try run.run(["render"] + input + ["--fps", fps, "--frames", "6", "--analyze", "luma", "--analyze-rate", "5", "--metadata", "m.jsonl", "-o", "f-%d.png"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let records = try String(contentsOf: run.folder.appendingPathComponent("m.jsonl"), encoding: .utf8).split(separator: "\n").map {
                try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
            let rate = Double(fps)!, every = Int(rate / 5)
            XCTAssertEqual(records.map { $0["frame"] as? Int }, stride(from: 0, to: 6, by: every).map { $0 }, "\(input): one frame in \(every)")
            for record in records {
                let frame = try XCTUnwrap(record["frame"] as? Int)
                XCTAssertEqual(record["timestamp"] as? Double ?? -1, Double(frame) / rate, accuracy: 1e-6, "\(input)")
            }
        }
    }
}

/// Luma statistics from their definitions, in doubles.
enum LumaReference {
    static func statistics(_ luma: [UInt8], width: Int, height: Int, limited: Bool) -> LumaStatistics {
        let n = Double(luma.count)
        let mean = luma.reduce(0.0) { $0 + Double($1) } / n
        var histogram = [Double](repeating: 0, count: 16)
        for v in luma { histogram[Int(v) / 16] += 1 / n }
        let low = Double(luma.filter { Int($0) <= (limited ? 16 : 0) }.count) / n * 100
        let high = Double(luma.filter { Int($0) >= (limited ? 235 : 255) }.count) / n * 100
        var laplacians: [Double] = []
        if width >= 3 && height >= 3 {
            for y in 1..<height - 1 {
                for x in 1..<width - 1 {
                    func p(_ x: Int, _ y: Int) -> Double { Double(luma[y * width + x]) }
                    laplacians.append(4 * p(x, y) - p(x - 1, y) - p(x + 1, y) - p(x, y - 1) - p(x, y + 1))
                }
            }
        }
        let m = laplacians.isEmpty ? 0 : laplacians.reduce(0, +) / Double(laplacians.count)
        let variance = laplacians.isEmpty ? 0 : laplacians.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(laplacians.count)
        return LumaStatistics(mean: mean, histogram: histogram, clippedLow: low, clippedHigh: high, focus: variance)
    }
}

/// An overlay reading the analysers' results: a white bar along the top whose
/// width is the frame's mean luma over 255, as a meter on a kiosk would be.
final class LumaMeterOverlay: OverlayStage {
    let analysis: FrameAnalysis
    init(_ analysis: FrameAnalysis) { self.analysis = analysis }

    func draw(onto target: RenderTarget, _ frame: StageFrame) throws {
        guard let luma = analysis.record(for: frame.index)?.result(LumaStatistics.self) else { return }
        let width = Int((luma.mean / 255 * Double(target.width)).rounded())
        target.bind()
        glEnable(GLenum(GL_SCISSOR_TEST))
        glScissor(0, target.topRowFirst ? 0 : GLint(target.height - 2), GLsizei(width), 2)
        glClearColor(1, 1, 1, 1)
        glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
        glDisable(GLenum(GL_SCISSOR_TEST))
    }
}

final class AnalysisOverlayTests: KameraProcessTestCase {
    /// Offline, the overlay draws each frame's own result: frames of growing
    /// luma get bars of growing width, the same on every run.
    func testAnOverlayDrawsTheResultOfTheFrameItDraws() throws {
        let (width, height) = (64, 8)
        var file = Data("YUV4MPEG2 W\(width) H\(height) F25:1 C420jpeg XCOLORRANGE=FULL\n".utf8)
        let levels: [UInt8] = [32, 96, 160, 224]
        for level in levels {
            file += Data("FRAME\n".utf8) + Data(repeating: level, count: width * height) + Data(repeating: 128, count: 2 * (width / 2) * (height / 2))
        }
        let input = run.folder.appendingPathComponent("levels.y4m")
        try file.write(to: input)
        var description = RunDescription()
        description.source.input = input.path
        description.settings = RenderSettings(crop: .none)
        description.frames = levels.count
        description.analyzers = try AnalyzerRegistry.requests(named: ["luma"])
        description.metadata = run.folder.appendingPathComponent("m.jsonl").path
        description.outputs = [try OutputRequest(parsing: run.folder.appendingPathComponent("f-%d.png").path)]
        let builder = try RunBuilder(description)
        try RenderThread(name: "kamera.tests.meter").sync {
            let run = try builder.build()
            run.renderer.overlays = [LumaMeterOverlay(try XCTUnwrap(run.loop.analysis))]
            try run.loop.run(frames: levels.count)
        }
        for (i, level) in levels.enumerated() {
            let frame = try XCTUnwrap(try ImageSource(path: run.folder.appendingPathComponent("f-\(i).png").path).nextFrame())
            let row = Array(frame.planes[0].bytes.prefix(width * 4))
            let bar = (0..<width).filter { row[4 * $0] == 255 && row[4 * $0 + 1] == 255 && row[4 * $0 + 2] == 255 }.count
            XCTAssertEqual(bar, Int((Double(level) / 255 * Double(width)).rounded()), "frame \(i), luma \(level)")
        }
    }
}
