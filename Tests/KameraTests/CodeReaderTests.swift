import Analysis
import Detection
import Foundation
import Lifecycle
import XCTest

/// How `--detect codes` reads a frame: the frame made black and white once
/// for the matrix codes (against a direct implementation of the same rule),
/// linear codes across and turned a quarter, two threads reading what one
/// reads, and zxing-cpp's helper program: the small one where it is
/// installed, Kamera itself where it is missing, broken or of another build.
final class CodeReaderTests: KameraProcessTestCase {
    private func sh(_ script: String) throws -> KameraProcess.Result {
        try KameraProcess.shell(script, in: run.folder)
    }

    /// The binarizer's rule, pixel by pixel: each 8x8 block's level (its mean
    /// when its pixels span more than 24 steps; else half its darkest, or its
    /// upper and left neighbours' weighted level when its darkest pixel is
    /// below that), each pixel black (0) when at or below the mean level of
    /// the 5x5 blocks around its own, clipped at the edges. Exact: integers throughout.
    private func reference(_ pixels: [UInt8], width w: Int, height h: Int) -> [UInt8] {
        let columns = (w + 7) / 8, rows = (h + 7) / 8
        var levels = [Int](repeating: 0, count: columns * rows)
        for by in 0..<rows {
            for bx in 0..<columns {
                var values: [Int] = []
                for y in (by * 8)..<min(h, by * 8 + 8) {
                    for x in (bx * 8)..<min(w, bx * 8 + 8) { values.append(Int(pixels[y * w + x])) }
                }
                let low = values.min()!, high = values.max()!
                var level = high - low > 24 ? values.reduce(0, +) / values.count : low / 2
                if high - low <= 24 && by > 0 && bx > 0 {
                    let around = (levels[(by - 1) * columns + bx] + 2 * levels[by * columns + bx - 1] + levels[(by - 1) * columns + bx - 1]) / 4
                    if low < around { level = around }
                }
                levels[by * columns + bx] = level
            }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let (bx, by) = (x / 8, y / 8)
                var total = 0, count = 0
                for j in max(0, by - 2)...min(rows - 1, by + 2) {
                    for i in max(0, bx - 2)...min(columns - 1, bx + 2) {
                        total += levels[j * columns + i]
                        count += 1
                    }
                }
                out[y * w + x] = Int(pixels[y * w + x]) > total / count ? 255 : 0
            }
        }
        return out
    }

    /// Odd sizes (partial blocks at the right and bottom, fewer than 5 blocks
    /// across), noise, flat light and dark areas, blocks either side of the
    /// flat limit, and hard edges: every pixel
    /// equal to the reference, and the same output from one binarizer reused
    /// across sizes (two of them of as many blocks in other shapes, which
    /// fuzzing found it once did not remake its arrays for).
    func testTheBinarizerFollowsItsRule() {
        var generator = SystemRandomNumberGenerator()
        let binarizer = LocalThresholdBinarizer()
        for (w, h) in [(37, 23), (101, 67), (8, 8), (3, 50), (640, 480), (37, 23), (64, 8), (8, 64), (1, 1)] {
            var pixels = (0..<(w * h)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for y in 0..<h {
                for x in 0..<w {
                    if x < w / 3 { pixels[y * w + x] = 230 &+ UInt8(x % 3) }  // flat light
                    if y > h / 2 && x > w / 2 { pixels[y * w + x] = 20 &+ UInt8(y % 4) }  // flat dark
                    if y < h / 4 && x > w / 2 { pixels[y * w + x] = (x / 5) % 2 == 0 ? 30 : 220 }  // bars
                    if y >= h / 4 && y <= h / 2 && x > w / 2 {  // spreads of 24 and 25, either side of flat
                        pixels[y * w + x] = (x + y) % 2 == 0 ? 100 : 124 &+ UInt8((x / 8) % 2)
                    }
                }
            }
            var out = [UInt8](repeating: 7, count: w * h)
            pixels.withUnsafeBufferPointer { buffer in
                out.withUnsafeMutableBufferPointer { binarizer.binarize(LumaImage(width: w, height: h, pixels: buffer, range: .full), into: $0.baseAddress!) }
            }
            let expected = reference(pixels, width: w, height: h)
            let wrong = zip(out, expected).filter { $0 != $1 }.count
            XCTAssertEqual(wrong, 0, "\(w)x\(h): \(wrong) pixels differ from the rule")
            XCTAssertTrue(out.allSatisfy { $0 == 0 || $0 == 255 }, "\(w)x\(h): every pixel black or white")
        }
    }

    /// A 1280x720 frame of ffmpeg's testsrc2 holding a QR code, a DataMatrix,
    /// an Aztec code, a Code 128 across and an EAN-13 turned a quarter (its
    /// bars lying down), as luma.
    private func codeFrame() throws -> [UInt8] {
        let made = try sh("""
            qrencode -s 4 -m 2 -o qr.png 'READER-QR' && \
            zint -b 71 --scale=4 --whitesp=2 --vwhitesp=2 -o dm.png -d 'READER-DM' && \
            zint -b 92 --scale=4 -o aztec.png -d 'READER-AZTEC' && \
            zint -b 20 --scale=2 --height=30 --whitesp=10 -o code128.png -d 'READER-128' && \
            zint -b 13 --scale=2 --whitesp=10 -o ean.png -d '590123412345' && \
            ffmpeg -v error -y -f lavfi -i testsrc2=s=1280x720 -i qr.png -i dm.png -i aztec.png -i code128.png -i ean.png -filter_complex \
              "[5]transpose=1[e];[0][1]overlay=1100:560[a];[a][2]overlay=700:40[b];[b][3]overlay=900:300[c];[c][4]overlay=150:560[d];[d][e]overlay=40:60,format=gray" \
              -frames:v 1 -f rawvideo frame.gray
            """)
        XCTAssertEqual(made.status, 0, made.stderr)
        return [UInt8](try Data(contentsOf: run.folder.appendingPathComponent("frame.gray")))
    }

    private func read(_ pixels: [UInt8], width: Int, threads: Int? = nil) throws -> (objects: [DetectedObject], programs: [String]) {
        let detector = try ObjectDetector(DetectionRequest(codeFormats: CodeFormat.allCases), codeThreads: threads)
        let found = try pixels.withUnsafeBufferPointer {
            try detector.analyze(LumaImage(width: width, height: pixels.count / width, pixels: $0, range: .full)) as? DetectedObjects
        }
        return (try XCTUnwrap(found).objects, detector.codeReaderPrograms)
    }

    /// Every code found, the turned EAN-13 where it was placed (its bars run
    /// across the frame now), and one thread finds exactly what two find.
    func testEveryCodeAcrossAndTurnedOnOneThreadAndTwo() throws {
        let frame = try codeFrame()
        let two = try read(frame, width: 1280, threads: 2)
        let one = try read(frame, width: 1280, threads: 1)
        XCTAssertEqual(Set(two.objects.map { "\($0.type) \($0.value ?? "")" }),
                       ["qr READER-QR", "datamatrix READER-DM", "aztec READER-AZTEC", "code128 READER-128", "ean13 5901234123457"])
        func described(_ objects: [DetectedObject]) -> [String] { objects.map { "\($0.type) \($0.value ?? "") \($0.bounds)" }.sorted() }
        XCTAssertEqual(described(one.objects), described(two.objects))
        // The EAN-13 image (with its 10-pixel margins, 232 pixels tall before the quarter turn) lies at x 40, y 60:
        // read down, its bounds span its length down the frame and sit inside its place across.
        let ean = try XCTUnwrap(two.objects.first { $0.type == "ean13" })
        XCTAssertGreaterThanOrEqual(ean.bounds.x, 40)
        XCTAssertLessThanOrEqual(ean.bounds.x + ean.bounds.width, 40 + 232)
        XCTAssertGreaterThanOrEqual(ean.bounds.y, 60)
        XCTAssertGreaterThan(ean.bounds.height, 150, "\(ean.bounds): the code's length runs down the frame")
    }

    /// The helper program: kamera-zxing-helper (built beside the tests); with
    /// $KAMERA_ZXING_HELPER naming a missing program, or one that greets in
    /// another protocol (a helper of another build), this executable itself,
    /// and the codes are read all the same.
    func testTheHelperProgramAndItsFallback() throws {
        let frame = try codeFrame()
        let installed = try read(frame, width: 1280)
        XCTAssertFalse(installed.programs.isEmpty)
        for program in installed.programs {
            XCTAssertEqual(URL(fileURLWithPath: program).lastPathComponent, "kamera-zxing-helper", program)
        }
        let script = run.folder.appendingPathComponent("stale-helper")
        try "#!/bin/sh\nprintf 'another build' >&3\nexec sleep 30\n".write(to: script, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(script.path, 0o755), 0)
        let itself = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        defer { unsetenv("KAMERA_ZXING_HELPER") }
        for chosen in [run.folder.appendingPathComponent("missing").path, script.path] {
            setenv("KAMERA_ZXING_HELPER", chosen, 1)
            let started = MonotonicClock.seconds
            let fallback = try read(frame, width: 1280)
            XCTAssertLessThan(MonotonicClock.seconds - started, 15, "\(chosen): passed over without waiting for it")
            XCTAssertEqual(fallback.programs, installed.programs.map { _ in itself }, chosen)
            XCTAssertEqual(Set(fallback.objects.map(\.type)), Set(installed.objects.map(\.type)), chosen)
        }
    }
}
