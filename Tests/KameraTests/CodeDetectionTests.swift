import Analysis
import Detection
import Foundation
import Render
import XCTest

/// `--detect codes`: codes made by independent encoders (Debian's zint and
/// qrencode), placed at known places in a frame by ffmpeg, read back with
/// their values and bounds, through the output geometry, tracked over
/// frames, and printed as a scanner prints them.
final class CodeDetectionTests: KameraProcessTestCase {
    private func sh(_ script: String) throws -> KameraProcess.Result {
        try KameraProcess.shell("K='\(KameraProcess.binary.path)'\n" + script, in: run.folder)
    }

    /// The JSON lines of a metadata file.
    private func lines(_ name: String) throws -> [[String: Any]] {
        let text = try String(contentsOf: run.folder.appendingPathComponent(name), encoding: .utf8)
        return try text.split(separator: "\n").map { try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    private func objects(_ line: [String: Any]) throws -> [[String: Any]] {
        try XCTUnwrap(line["objects"] as? [[String: Any]], "\(line)")
    }

    private func box(_ value: Any?) throws -> PixelBox {
        let b = try XCTUnwrap(value as? [String: Int], "\(String(describing: value))")
        return PixelBox(x: b["x"]!, y: b["y"]!, width: b["width"]!, height: b["height"]!)
    }

    private func assertClose(_ a: PixelBox, _ b: PixelBox, within pixels: Int, _ message: String, line: UInt = #line) {
        let worst = [abs(a.x - b.x), abs(a.y - b.y), abs(a.width - b.width), abs(a.height - b.height)].max()!
        XCTAssertLessThanOrEqual(worst, pixels, "\(message): \(a) against \(b)", line: line)
    }

    /// The box of the dark pixels of an image file (a code's bars or modules, without its quiet zone).
    private func darkBox(_ name: String) throws -> PixelBox {
        let size = try sh("ffprobe -v error -show_entries stream=width,height -of csv=p=0 \(name) && ffmpeg -v error -y -i \(name) -f rawvideo -pix_fmt gray \(name).gray")
        let wh = try XCTUnwrap(size.output.split(separator: "\n").first?.split(separator: ",").compactMap { Int($0) }, size.stderr)
        let gray = try Data(contentsOf: run.folder.appendingPathComponent("\(name).gray"))
        var (left, top, right, bottom) = (Int.max, Int.max, -1, -1)
        for y in 0..<wh[1] {
            for x in 0..<wh[0] where gray[y * wh[0] + x] < 128 {
                (left, top, right, bottom) = (min(left, x), min(top, y), max(right, x), max(bottom, y))
            }
        }
        return PixelBox(x: left, y: top, width: right - left + 1, height: bottom - top + 1)
    }

    /// Each symbology, made by zint or qrencode, on a white 640x480 frame at
    /// (200, 120), away from the middle (where zxing-cpp 1.4 alone finds Aztec
    /// and DataMatrix codes): `value` is read, and the code's bounds lie within
    /// 3 pixels of its dark modules.
    func testEachCodeIsReadWhereItWasPlaced() throws {
        let cases: [(type: String, value: String, make: String)] = [
            ("qr", "https://kamera.example/ticket/7", "qrencode -s 5 -m 0 -o code.png 'https://kamera.example/ticket/7'"),
            ("aztec", "AZTEC KAMERA 42", "zint -b 92 --scale=3 --whitesp=0 --vwhitesp=0 -o code.png -d 'AZTEC KAMERA 42'"),
            ("datamatrix", "DM-0042", "zint -b 71 --scale=4 --whitesp=0 --vwhitesp=0 -o code.png -d 'DM-0042'"),
            ("ean13", "4006381333931", "zint -b 13 --scale=2 --whitesp=0 --notext -o code.png -d '400638133393'"),
            ("code128", "KAMERA-128", "zint -b 20 --scale=1 --whitesp=0 --notext -o code.png -d 'KAMERA-128'"),
        ]
        for (type, value, make) in cases {
            let result = try sh("""
                \(make) && \
                ffmpeg -v error -y -f lavfi -i color=white:s=640x480 -i code.png -filter_complex "[1]format=rgb24[c];[0][c]overlay=200:120,format=rgb24" -frames:v 1 frame.png && \
                $K render --input frame.png --crop none --detect codes --metadata m.jsonl
                """)
            XCTAssertEqual(result.status, 0, "\(type): \(result.stderr)")
            XCTAssertEqual(result.output, "\(type) \(value)\n", "\(type): the scanner's line")
            let dark = try darkBox("code.png")
            let placed = PixelBox(x: 200 + dark.x, y: 120 + dark.y, width: dark.width, height: dark.height)
            let found = try objects(try XCTUnwrap(try lines("m.jsonl").first))
            XCTAssertEqual(found.count, 1, "\(type): \(found)")
            guard let object = found.first else { continue }
            XCTAssertEqual(object["type"] as? String, type)
            XCTAssertEqual(object["value"] as? String, value)
            XCTAssertEqual(object["track"] as? Int, 1)
            XCTAssertEqual((object["corners"] as? [[Double]])?.count, 4, type)
            let bounds = try box(object["bounds"])
            if type == "ean13" || type == "code128" {
                // A linear code's position is the span of the lines it was read on: its bars' width, some of their height.
                assertClose(PixelBox(x: bounds.x, y: 0, width: bounds.width, height: 0), PixelBox(x: placed.x, y: 0, width: placed.width, height: 0),
                            within: 3, type)
                XCTAssertTrue(bounds.y >= placed.y - 3 && bounds.y + bounds.height <= placed.y + placed.height + 3, "\(type): \(bounds) within \(placed)")
            } else {
                assertClose(bounds, placed, within: 3, type)
            }
            // With --crop none and the frame's own size, the output is the frame.
            XCTAssertEqual(try box(object["output_bounds"]), bounds, type)
        }
    }

    /// Twelve QR codes of one size in a 4x3 grid, lined up, the last shown
    /// from frame 5 of 10: each is read in every frame that shows it, at its
    /// place. (zxing-cpp 1.4 alone read one of them: the grid's finder
    /// patterns make more candidate codes than it tries.)
    func testEveryCodeOfAGridIsRead() throws {
        var make = "", inputs = "", chain = "[0]null[t0]"
        var placed: [String: PixelBox] = [:]
        for i in 0..<12 {
            let value = "GRID-\(i)", (x, y) = (10 + 160 * (i % 4), 10 + 160 * (i / 4))
            make += "qrencode -s 4 -m 0 -o c\(i).png '\(value)' && "
            inputs += " -i c\(i).png"
            chain += ";[\(i + 1)]format=rgb24[c\(i)];[t\(i)][c\(i)]overlay=\(x):\(y)\(i == 11 ? ":enable='gte(n,5)'" : "")[t\(i + 1)]"
            placed[value] = PixelBox(x: x, y: y, width: 84, height: 84)
        }
        let result = try sh("""
            \(make) ffmpeg -v error -y -f lavfi -i color=white:s=640x480:r=30\(inputs) -filter_complex "\(chain);[t12]format=yuv420p" -frames:v 10 grid.y4m && \
            $K render --input grid.y4m --frames 10 --crop none --detect codes --metadata m.jsonl
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected: [String] = placed.keys.sorted().map { "qr " + $0 }
        XCTAssertEqual(result.output.split(separator: "\n").map(String.init).sorted(), expected, "every code printed once")
        let records = try lines("m.jsonl")
        XCTAssertEqual(records.count, 10)
        for (n, record) in records.enumerated() {
            let found = try objects(record)
            XCTAssertEqual(found.count, n < 5 ? 11 : 12, "frame \(n): \(found.compactMap { $0["value"] as? String }.sorted())")
            for object in found {
                let value = try XCTUnwrap(object["value"] as? String)
                assertClose(try box(object["bounds"]), try XCTUnwrap(placed[value], value), within: 3, "frame \(n): \(value)")
            }
        }
    }

    /// A mirrored QR code (seen from behind a film, or from a camera set to
    /// flip its picture) is read, at its place: on a still at once; in a clip
    /// where it comes into view at frame 3, within the 8 frames between two
    /// mirrored reads, and then on every frame. A mirrored Micro QR code too.
    func testAMirroredCodeIsRead() throws {
        let result = try sh("""
            qrencode -s 5 -m 0 -o code.png 'SEEN-FROM-BEHIND' && ffmpeg -v error -y -i code.png -vf hflip,format=rgb24 mirrored.png && \
            ffmpeg -v error -y -f lavfi -i color=white:s=640x480 -i mirrored.png -filter_complex "[1]format=rgb24[c];[0][c]overlay=200:120,format=rgb24" -frames:v 1 frame.png && \
            $K render --input frame.png --crop none --detect codes --metadata still.jsonl && \
            ffmpeg -v error -y -f lavfi -i color=white:s=640x480:r=30 -i mirrored.png -filter_complex "[1]format=rgb24[c];[0][c]overlay=200:120:enable='gte(n,3)',format=yuv420p" -frames:v 20 clip.y4m && \
            $K render --input clip.y4m --frames 20 --crop none --detect codes --metadata clip.jsonl && \
            zint -b 97 --scale=6 -o micro.png -d 'MICRO-BEHIND' && \
            ffmpeg -v error -y -f lavfi -i color=white:s=640x480 -i micro.png -filter_complex "[1]hflip,format=rgb24[c];[0][c]overlay=300:200,format=rgb24" -frames:v 1 micro-frame.png && \
            $K render --input micro-frame.png --crop none --detect codes
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.output, "qr SEEN-FROM-BEHIND\nqr SEEN-FROM-BEHIND\nmicroqr MICRO-BEHIND\n", "each run prints it once")
        let dark = try darkBox("mirrored.png")
        let placed = PixelBox(x: 200 + dark.x, y: 120 + dark.y, width: dark.width, height: dark.height)
        let still = try objects(try XCTUnwrap(try lines("still.jsonl").first))
        XCTAssertEqual(still.count, 1, "\(still)")
        if let object = still.first {
            XCTAssertEqual(object["value"] as? String, "SEEN-FROM-BEHIND")
            assertClose(try box(object["bounds"]), placed, within: 3, "mirrored")
        }
        let frames = try lines("clip.jsonl").map { try objects($0).count }
        XCTAssertEqual(frames.count, 20)
        let first = try XCTUnwrap(frames.firstIndex(of: 1), "\(frames)")
        XCTAssertTrue((3...10).contains(first), "first read at frame \(first): \(frames)")
        XCTAssertEqual(Array(frames[first...]), Array(repeating: 1, count: 20 - first), "every frame after: \(frames)")
        XCTAssertEqual(frames[..<first].reduce(0, +), 0, "\(frames)")
    }

    /// While a QR code is in view the other reads take turns: a DataMatrix
    /// code that comes into view beside it at frame 5 is read within 4
    /// frames and then on every frame; with no code in view before it, on
    /// frame 5 itself. The QR code is read on every frame.
    func testACodeComingIntoViewBesideAnotherIsReadWithinFourFrames() throws {
        let result = try sh("""
            qrencode -s 4 -m 0 -o a.png 'HELD' && zint -b 71 --scale=4 --whitesp=0 --vwhitesp=0 -o b.png -d 'COMING' && \
            ffmpeg -v error -y -f lavfi -i color=white:s=480x270:r=30 -i a.png -i b.png \
              -filter_complex "[1]format=rgb24[a];[2]format=rgb24[b];[0][a]overlay=30:40[t];[t][b]overlay=340:150:enable='gte(n,5)',format=yuv420p" -frames:v 16 beside.y4m && \
            ffmpeg -v error -y -f lavfi -i color=white:s=480x270:r=30 -i b.png \
              -filter_complex "[1]format=rgb24[b];[0][b]overlay=340:150:enable='gte(n,5)',format=yuv420p" -frames:v 16 alone.y4m && \
            $K render --input beside.y4m --crop none --frames 16 --detect codes --metadata beside.jsonl && \
            $K render --input alone.y4m --crop none --frames 16 --detect codes --metadata alone.jsonl
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        func frames(_ name: String, _ value: String) throws -> [Int] {
            try lines(name).enumerated().filter { try objects($0.element).contains { $0["value"] as? String == value } }.map(\.offset)
        }
        XCTAssertEqual(try frames("beside.jsonl", "HELD"), Array(0..<16), "the QR code in every frame")
        let beside = try frames("beside.jsonl", "COMING")
        let first = try XCTUnwrap(beside.first, "the DataMatrix code is read")
        XCTAssertTrue((5...8).contains(first), "first read at frame \(first): \(beside)")
        XCTAssertEqual(beside, Array(first..<16), "then in every frame")
        XCTAssertEqual(try frames("alone.jsonl", "COMING"), Array(5..<16), "alone: from the frame it comes into view")
    }

    /// A code away for half a second keeps its track and is printed once; one
    /// away for a second and a half is new again: a second track, printed
    /// again. With a slow analyser (`--detect-rate 3.5`: frames 0.3 s apart),
    /// a code away for 1.1 s, missed three times, keeps its track too: it is
    /// found 1.2 s after it was last seen, but missed for 0.9 s only.
    func testACodeAwayForAMomentKeepsItsTrack() throws {
        let result = try sh("""
            qrencode -s 4 -m 2 -o a.png 'AWAY' && \
            ffmpeg -v error -y -f lavfi -i color=white:s=320x240:r=30 -i a.png \
              -filter_complex "[1]format=rgb24[a];[0][a]overlay=100:60:enable='lt(n,5)+between(n,20,24)+gte(n,70)',format=yuv420p" -frames:v 75 clip.y4m && \
            $K render --input clip.y4m --crop none --frames 75 --detect codes --metadata m.jsonl && \
            ffmpeg -v error -y -f lavfi -i color=white:s=320x240:r=30 -i a.png \
              -filter_complex "[1]format=rgb24[a];[0][a]overlay=100:60:enable='lt(n,12)+gte(n,45)',format=yuv420p" -frames:v 60 slow.y4m && \
            $K render --input slow.y4m --crop none --frames 60 --detect codes --detect-rate 3.5 --metadata slow.jsonl
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.output, "qr AWAY\nqr AWAY\nqr AWAY\n", "printed when it first comes, again after a second and a half away, and once in the slow run")
        let slow = try lines("slow.jsonl").map { try objects($0).compactMap { $0["track"] as? Int } }
        XCTAssertEqual(slow, [[1], [1], [], [], [], [1], [1]], "frames 0, 9, ... 54: missed at 0.6, 0.9 and 1.2 s, one track")
        var tracks: [Int: Int] = [:]
        for (n, line) in try lines("m.jsonl").enumerated() {
            for object in try objects(line) { tracks[n] = object["track"] as? Int }
        }
        XCTAssertEqual(tracks.keys.sorted(), Array(0..<5) + Array(20..<25) + Array(70..<75), "read in every frame that shows it")
        XCTAssertEqual(Set((0..<5).compactMap { tracks[$0] } + (20..<25).compactMap { tracks[$0] }), [1], "half a second away: one track")
        XCTAssertEqual(Set((70..<75).compactMap { tracks[$0] }), [2], "a second and a half away: a new track")
    }

    /// A frame without a code gives no object; `--once` then exits 1 saying so.
    func testNoCodeNoObject() throws {
        let result = try sh("""
            $K render --detect codes --metadata m.jsonl
            $K render --detect codes --once; echo "exit $?"
            """)
        XCTAssertEqual(try objects(try XCTUnwrap(try lines("m.jsonl").first)).count, 0)
        XCTAssertTrue(result.output.hasSuffix("exit 1\n"), result.output)
        XCTAssertTrue(result.stderr.contains("no code found in 1 frame(s) of test pattern"), result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.folder.path).sorted(), ["m.jsonl"], "--detect alone writes no picture")
    }

    /// `output_bounds` follow the square crop, `--rotate 90` and `--mirror`:
    /// the code is read again from the rendered picture, where output_bounds said.
    func testOutputBoundsFollowTheGeometry() throws {
        for geometry in ["", "--rotate 90", "--mirror", "--rotate 270 --mirror", "--rotate 180 --size 240x240"] {
            // A mirrored code is not a code: the picture is flipped back to be read, and the box with it.
            let mirrored = geometry.contains("--mirror")
            let result = try sh("""
                qrencode -s 6 -m 0 -o code.png 'GEOMETRY' && \
                ffmpeg -v error -y -f lavfi -i color=white:s=640x480 -i code.png -filter_complex "[1]format=rgb24[c];[0][c]overlay=130:70,format=rgb24" -frames:v 1 frame.png && \
                $K render --input frame.png \(geometry) --detect codes --metadata source.jsonl -o out.png && \
                ffmpeg -v error -y -i out.png -vf \(mirrored ? "hflip" : "null"),format=rgb24 shown.png && \
                $K render --input shown.png --crop none --detect codes --metadata output.jsonl
                """)
            XCTAssertEqual(result.status, 0, "\(geometry): \(result.stderr)")
            let source = try objects(try XCTUnwrap(try lines("source.jsonl").first)), shown = try objects(try XCTUnwrap(try lines("output.jsonl").first))
            XCTAssertEqual(source.count, 1, geometry)
            XCTAssertEqual(shown.count, 1, geometry)
            guard let a = source.first, let b = shown.first else { continue }
            assertClose(try box(a["bounds"]), PixelBox(x: 130, y: 70, width: 126, height: 126), within: 2, "\(geometry): source bounds")
            var read = try box(b["bounds"])
            if mirrored { read.x = 480 - read.x - read.width }
            // Where the rendered picture shows it (a 240x240 output halves it: within a few pixels more).
            assertClose(try box(a["output_bounds"]), read, within: geometry.contains("240") ? 3 : 2, "\(geometry): output bounds")
        }
    }

    /// A code moving across 30 frames keeps its track; a second code, still,
    /// has another; each is printed once.
    func testTracksFollowAMovingCode() throws {
        let result = try sh("""
            qrencode -s 4 -m 0 -o a.png 'MOVING' && zint -b 71 --scale=4 --whitesp=0 --vwhitesp=0 -o b.png -d 'STILL' && \
            ffmpeg -v error -y -f lavfi -i color=white:s=480x270:r=30 -i a.png -i b.png \
              -filter_complex "[1]format=rgb24[a];[2]format=rgb24[b];[0][a]overlay=x='20+n*6':y=40[t];[t][b]overlay=360:160,format=yuv420p" -frames:v 30 clip.y4m && \
            $K render --input clip.y4m --crop none --frames 30 --detect codes --metadata m.jsonl
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.output.split(separator: "\n").sorted(), ["datamatrix STILL", "qr MOVING"], "each code printed once")
        var tracks: [String: Set<Int>] = [:]
        var xs: [Int] = []
        for line in try lines("m.jsonl") {
            for object in try objects(line) {
                let value = try XCTUnwrap(object["value"] as? String)
                tracks[value, default: []].insert(try XCTUnwrap(object["track"] as? Int))
                if value == "MOVING" { xs.append(try box(object["bounds"]).x) }
            }
        }
        XCTAssertEqual(xs.count, 30, "the moving code is read in every frame")
        for (i, x) in xs.enumerated() { XCTAssertEqual(x, (xs.first ?? 0) + 6 * i, accuracy: 2, "frame \(i): 6 pixels a frame") }
        XCTAssertEqual(tracks["MOVING"]?.count, 1, "\(tracks)")
        XCTAssertEqual(tracks["STILL"]?.count, 1, "\(tracks)")
        XCTAssertNotEqual(tracks["MOVING"], tracks["STILL"])
    }

    /// A value with control characters stays one line on the scanner's
    /// output, each escaped (two hex digits for those without a letter, so
    /// that `\x01B` cannot be read as `\x1b`); `--once` prints it as it reads.
    func testControlCharactersInAValueAreEscaped() throws {
        let make = #"printf 'A\001B\033C\nD\\E\tF' | qrencode -8 -s 4 -m 4 -o c.png"#
        let scanned = try sh("\(make) && $K render --input c.png --detect codes")
        XCTAssertEqual(scanned.status, 0, scanned.stderr)
        XCTAssertEqual(scanned.output, #"qr A\x01B\x1bC\nD\\E\tF"# + "\n")
        let once = try sh("$K render --input c.png --detect codes --once")
        XCTAssertEqual(once.status, 0, once.stderr)
        XCTAssertEqual(once.output, "A\u{01}B\u{1b}C\nD\\E\tF\n")
    }

    /// `--once` prints the value alone, as it reads, and exits 0; a run of
    /// more frames ends there, without a note that the input ended early.
    func testOncePrintsTheValueAlone() throws {
        for frames in ["", " --frames 100", " --frames 100 --fps 10"] {
            let result = try sh("""
                code=$($K render --input \(ExamplesTests.repository.path)/Examples/Media/ticket.png\(frames) --detect codes --once) && echo "[$code]"
                """)
            XCTAssertEqual(result.status, 0, "\(frames): \(result.stderr)")
            XCTAssertEqual(result.output, "[KAMERA-TICKET-0042]\n", frames)
            XCTAssertEqual(result.stderr, "", frames)
        }
        let shader = try sh("$K shader \(ExamplesTests.repository.path)/Examples/Shaders/warm.frag --input \(ExamplesTests.repository.path)/Examples/Media/ticket.png --frames 100 -o f-%d.png --detect codes --once")
        XCTAssertEqual(shader.status, 0, shader.stderr)
        XCTAssertEqual(shader.output, "KAMERA-TICKET-0042\n")
        XCTAssertEqual(shader.stderr, "")
    }

    /// The codes are the run's result: when standard output takes none of
    /// them (a full disk), the run fails and says so, as `--metadata -` does.
    func testCodesThatCannotBeWrittenFailTheRun() throws {
        for once in ["", " --once"] {
            let result = try sh("""
                $K render --input \(ExamplesTests.repository.path)/Examples/Media/ticket.png --detect codes\(once) > /dev/full
                """)
            XCTAssertEqual(result.status, 1, once)
            XCTAssertEqual(result.stderr, "kamera: error: standard output: cannot write the codes read: No space left on device\n", once)
        }
    }

    /// Debian 12's zxing-cpp aborts (an assertion) on this 50x35 picture,
    /// found by fuzzing. The reader runs zxing-cpp in a helper process, so
    /// the run goes on: that picture's codes are lost with a warning, and the
    /// next picture is read by a new helper.
    func testAPictureThatAbortsZXingCostsOnlyThatPicture() throws {
        let fuzzInput = try Data(contentsOf: ExamplesTests.repository.appendingPathComponent("Tests/Fuzz/Corpus/FuzzCodes/microqr-finder-aborts-zxing"))
        let width = Int(fuzzInput[0]) + 1
        let aborting = [UInt8](fuzzInput.dropFirst().prefix(width * ((fuzzInput.count - 1) / width)))
        XCTAssertEqual([width, aborting.count / width], [50, 35])
        try Data(aborting).write(to: run.folder.appendingPathComponent("aborting.gray"))
        let made = try sh("""
            qrencode -s 4 -o qr.png 'AFTER-THE-ABORT' && ffmpeg -v error -y -i qr.png -f rawvideo -pix_fmt gray qr.gray && \
            ffprobe -v error -show_entries stream=width -of csv=p=0 qr.png
            """)
        let qrSide = try XCTUnwrap(Int(made.output.trimmingCharacters(in: .whitespacesAndNewlines)), made.stderr)
        let qr = [UInt8](try Data(contentsOf: run.folder.appendingPathComponent("qr.gray")))

        let detector = try ObjectDetector(DetectionRequest(codeFormats: CodeFormat.allCases))
        var notes: [String] = []
        detector.onNote = { notes.append($0) }
        func read(_ pixels: [UInt8], width: Int) throws -> [String] {
            let found = try pixels.withUnsafeBufferPointer { buffer in
                try detector.analyze(LumaImage(width: width, height: pixels.count / width, pixels: buffer, range: .full)) as? DetectedObjects
            }
            return try XCTUnwrap(found).objects.map { "\($0.type) \($0.value ?? "")" }
        }
        XCTAssertEqual(try read(qr, width: qrSide), ["qr AFTER-THE-ABORT"])
        XCTAssertEqual(try read(aborting, width: width), [])
        XCTAssertEqual(detector.lostPictures, 1)
        XCTAssertEqual(notes.count, 1, "\(notes)")
        XCTAssertTrue(notes.first?.contains("zxing-cpp stopped with signal 6 (Aborted) on this picture") == true, "\(notes)")
        XCTAssertEqual(try read(qr, width: qrSide), ["qr AFTER-THE-ABORT"], "a new helper reads the next picture")
        XCTAssertEqual(detector.lostPictures, 1)

        // The same picture as a file given to kamera: exit 0, its metadata line, one warning.
        let result = try sh("""
            ffmpeg -v error -y -f rawvideo -pix_fmt gray -s 50x35 -i aborting.gray aborting.png && \
            $K render --input aborting.png --crop none --detect codes --metadata m.jsonl
            """)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try objects(try XCTUnwrap(try lines("m.jsonl").first)).count, 0)
        XCTAssertEqual(result.stderr, "kamera: warning: --detect codes: zxing-cpp stopped with signal 6 (Aborted) on this picture; "
                       + "its codes are skipped, and the next picture is read by a new zxing-cpp\n")
    }

    func testDetectionRequests() throws {
        XCTAssertEqual(try DetectionRequest(parsing: ["codes"]).codeFormats, CodeFormat.allCases)
        XCTAssertEqual(try DetectionRequest(parsing: ["codes=qr,aztec"]).codeFormats, [.qr, .aztec])
        XCTAssertEqual(try DetectionRequest(parsing: ["codes=qr,ean13", "faces"]), DetectionRequest(codeFormats: [.qr, .ean13], faces: true))
        XCTAssertEqual(try DetectionRequest(parsing: ["faces,codes=code128"]), DetectionRequest(codeFormats: [.code128], faces: true))
        XCTAssertEqual(try DetectionRequest(parsing: ["faces"]).faceModel, .haar)
        XCTAssertEqual(try DetectionRequest(parsing: ["codes=qr,faces=haar"]), DetectionRequest(codeFormats: [.qr], faces: true, faceModel: .haar))
        XCTAssertThrowsError(try DetectionRequest(parsing: ["faces=nosuch"]))
        XCTAssertThrowsError(try DetectionRequest(parsing: ["cats"]))
        XCTAssertThrowsError(try DetectionRequest(parsing: ["codes=qr,nosuch"]))
        XCTAssertThrowsError(try DetectionRequest(parsing: [""]))
    }

    /// Bad detection options: one line naming what would work, exit 1, nothing left.
    func testBadDetectionInputs() throws {
        let cases: [(String, String)] = [
            ("--detect cats", "--detect cats is not something Kamera detects; use faces, faces=MODEL (haar, lbp), codes, codes=FORMAT"),
            ("--detect faces=dlib", "--detect faces=dlib: no such face model; models: haar, lbp"),
            ("--detect codes=qr,bogus", "--detect codes=bogus: no such code format; formats: qr, microqr, aztec"),
            ("--once", "--once prints the first code read; add --detect codes"),
            ("--detect-rate 5", "--detect-rate is for detection; add --detect codes"),
            ("--detect codes --detect-rate 0", "--detect-rate 0 is out of range; give frames a second, more than 0 and at most 1000"),
            ("--analyze luma --analyze-rate 2000", "--analyze-rate 2000 is out of range; give frames a second, more than 0 and at most 1000"),
            ("--detect codes --detect-rate 5 --analyze luma --analyze-rate 10", "--detect-rate 5.0 and --analyze-rate 10.0 differ"),
            ("--detect codes --once --metadata -", "--once prints the code on standard output, which the metadata takes"),
            ("--detect codes --once -o - ", "--once prints the code on standard output, which the frames take"),
            ("--detect faces,", "--detect has an empty item"),
            ("--detect codes=qr,,ean13", "--detect has an empty item"),
            ("--detect faces --filter pixellate=8@facesX", "pixellate=8@facesX: not a region; use pixellate=8@faces"),
            // preview without -o says it shows nothing, once the run starts: an error is still the only line.
            ("--detect faces --detect-rate 0 --preview", "--detect-rate 0 is out of range"),
            ("--filter pixellate=8@faces --preview", "@faces filters the faces found in each frame; add --detect faces"),
        ]
        for (arguments, expected) in cases {
            let command = arguments.hasSuffix("--preview") ? "preview --duration 1 " + arguments.dropLast(9) : "render " + arguments
            let result = try sh("$K \(command)")
            XCTAssertEqual(result.status, 1, arguments)
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, "\(arguments): \(result.stderr)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.folder.path), [], arguments)
        }
    }

    func testGeometryMapsSourcePointsOntoTheOutput() {
        let crop = PixelBox(x: 80, y: 0, width: 480, height: 480)
        func map(_ layout: PreviewLayout, _ box: PixelBox, size: Int = 480) -> PixelBox? {
            OutputGeometry(crop: crop, outputWidth: size, outputHeight: size, layout: layout).outputBox(box)
        }
        let box = PixelBox(x: 100, y: 50, width: 126, height: 126)
        XCTAssertEqual(map(PreviewLayout(), box), PixelBox(x: 20, y: 50, width: 126, height: 126))
        XCTAssertEqual(map(PreviewLayout(rotation: .quarter), box), PixelBox(x: 480 - 176, y: 20, width: 126, height: 126))
        XCTAssertEqual(map(PreviewLayout(rotation: .half), box), PixelBox(x: 480 - 146, y: 480 - 176, width: 126, height: 126))
        XCTAssertEqual(map(PreviewLayout(mirror: true), box), PixelBox(x: 480 - 146, y: 50, width: 126, height: 126))
        XCTAssertEqual(map(PreviewLayout(), box, size: 240), PixelBox(x: 10, y: 25, width: 63, height: 63))
        XCTAssertNil(map(PreviewLayout(), PixelBox(x: 0, y: 0, width: 60, height: 60)), "cropped away")
        XCTAssertEqual(map(PreviewLayout(), PixelBox(x: 60, y: 0, width: 40, height: 40)), PixelBox(x: 0, y: 0, width: 20, height: 40), "cut to the output")
    }
}
