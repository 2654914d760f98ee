import Capture
import Filters
import Foundation
import GPU
import Output
import Pipeline
import Pixels
import Render
import XCTest

/// `-o` by its form, several outputs at once, and Y4M output: the RGBA to
/// Y'CbCr conversion against the standards' formulas (within 1 of 255), Y4M
/// files and streams as a user runs them, and an encoder reading the stream.
final class OutputFormTests: KameraProcessTestCase {
    func testRGBAToYUVMatchesTheFormulas() {
        let image = sampleImage(width: 33, height: 21)
        for chroma in RGBAToYUV.Chroma.allCases {
            for matrix in YUVColorSpace.Matrix.allCases {
                for range in YUVColorSpace.Range.allCases {
                    let space = YUVColorSpace(matrix: matrix, range: range)
                    let converter = RGBAToYUV(chroma: chroma, colorSpace: space)
                    image.pixels.withUnsafeBytes { converter.convert($0, width: image.width, height: image.height) }
                    let got = Array(converter.planes), want = CPUReference.yuvPlanes(image, space, chroma)
                    XCTAssertEqual(got.count, want.count)
                    let worst = zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 0
                    XCTAssertLessThanOrEqual(worst, 1, "\(chroma) \(space)")
                }
            }
        }
    }

    func testOutputIsChosenByItsForm() throws {
        /// The kind that writes `text`, and the pattern it writes.
        func form(_ text: String, stream: OutputRequest.StreamFormat = .png) throws -> String {
            let request = try OutputRequest(parsing: text, stream: stream)
            return request.kind.forms.name + (request.pattern.map { " " + $0.pattern } ?? "")
        }
        XCTAssertEqual(try form("kms"), "display")
        XCTAssertTrue(try OutputRequest(parsing: "kms").isWritten(by: DisplaySink.self))
        XCTAssertEqual(try form("a.png"), "png a.png")
        XCTAssertTrue(try OutputRequest(parsing: "a.png").isWritten(by: PNGSink.self))
        XCTAssertEqual(try form("f/a-%03d.PNG"), "png f/a-%03d.PNG")
        XCTAssertEqual(try form("clip.y4m"), "y4m clip.y4m")
        XCTAssertEqual(try form("-"), "png -")
        XCTAssertEqual(try form("-", stream: .y4m), "y4m -")
        XCTAssertThrowsError(try form("noextension"), "a name that says no format is refused")
        let fifo = run.folder.appendingPathComponent("frames.fifo").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        XCTAssertEqual(try form(fifo, stream: .y4m), "y4m \(fifo)", "a FIFO takes the stream's format")
        XCTAssertEqual(try form("out.jpg"), "jpeg out.jpg")
        XCTAssertEqual(try form("shot-%02d.JPEG"), "jpeg shot-%02d.JPEG")
        for name in ["out.mp4", "out.MOV", "out.mkv", "out.webm"] {
            XCTAssertEqual(try form(name), "video \(name)")
            XCTAssertTrue(try OutputRequest(parsing: name).isWritten(by: VideoRecording.self))
        }
        XCTAssertThrowsError(try OutputRequest(parsing: "ftp://localhost/cam")) { error in
            XCTAssertTrue("\(error)".contains("does not write to ftp:// addresses; it writes NAME.png"), "\(error)")
        }
        for name in ["rtmp://127.0.0.1/live/cam", "srt://127.0.0.1:9000", "rtsp://127.0.0.1:8554/cam"] {
            XCTAssertTrue(try OutputRequest(parsing: name).isWritten(by: PublishSink.self), name)
        }
        XCTAssertTrue(try OutputRequest(parsing: "http://127.0.0.1:8080").isWritten(by: ServeSink.self))
        XCTAssertThrowsError(try OutputRequest(parsing: "out-%d.mp4")) { XCTAssertTrue("\($0)".contains("a video is one file"), "\($0)") }
        XCTAssertThrowsError(try OutputRequest(parsing: "out.gif")) { error in
            XCTAssertTrue("\(error)".contains("does not write .gif files; it writes NAME.png"), "\(error)")
            XCTAssertFalse("\(error)".contains("ffmpeg"), "\(error)")
        }
        XCTAssertThrowsError(try OutputRequest(parsing: "out.avi")) { XCTAssertTrue("\($0)".contains("an output - the stream format y4m | ffmpeg -i - out.avi"), "\($0)") }
        try run.assertFails(["render", "-o", "out.gif"], mentioning: ["-o out.gif", "NAME.y4m", "kms"])
        try run.assertFails(["render", "-o", "kms.avi"], mentioning: ["--stream y4m | ffmpeg"])
        // A name that says no format is refused, as ffmpeg refuses it, rather than written as a PNG under that name.
        for name in ["mjpeg", "snapshot"] {
            try run.assertFails(["render", "-o", name], mentioning: ["\(name): the name has no extension", "NAME.png"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: run.path(name)))
        }
        try run.assertFails(["render", "-o", "-", "-o", "-"], mentioning: ["-"])
        try run.assertFails(["render", "-o", "a.png", "-o", "a.png"], mentioning: ["a.png", "twice"])
        try run.assertFails(["render", "-o", "x.y4m", "--stream", "mkv"], mentioning: ["--stream mkv", "png or y4m"])
        try run.assertFails(["render", "-o", "x.y4m", "--y4m-chroma", "411"], mentioning: ["--y4m-chroma 411", "420, 422 or 444"])
    }

    /// Outputs of one render: a PNG sequence and a Y4M file (4:2:0, 4:2:2, 4:4:4),
    /// the Y4M planes exactly what the PNGs convert to.
    func testY4MFilesHoldWhatThePNGsShow() throws {
        let headers = ["420": "C420jpeg XYSCSS=420JPEG", "422": "C422 XYSCSS=422", "444": "C444 XYSCSS=444"]
        for chroma in ["420", "422", "444"] {
            let result = try run.run(["render", "--input-size", "64x48", "--crop", "none", "--filter", "sepia", "--range", "full", "--frames", "3",
                                      "-o", "f-\(chroma)-%d.png", "-o", "clip-\(chroma).y4m", "--y4m-chroma", chroma])
            XCTAssertEqual(result.status, 0, result.stderr)
            let data = try Data(contentsOf: run.folder.appendingPathComponent("clip-\(chroma).y4m"))
            let header = "YUV4MPEG2 W64 H48 F30:1 Ip A1:1 \(headers[chroma]!) XCOLORRANGE=FULL\n"
            XCTAssertEqual(String(decoding: data.prefix(header.utf8.count), as: UTF8.self), header)
            let converter = RGBAToYUV(chroma: RGBAToYUV.Chroma(rawValue: chroma)!, colorSpace: YUVColorSpace(matrix: .bt601, range: .full))
            let frameBytes = converter.frameSize(width: 64, height: 48)
            XCTAssertEqual(data.count, header.utf8.count + 3 * (6 + frameBytes))
            for i in 0..<3 {
                let png = try ImageSource(path: run.folder.appendingPathComponent("f-\(chroma)-\(i).png").path)
                let frame = try XCTUnwrap(try png.nextFrame())
                XCTAssertEqual(frame.format, .rgba)
                converter.convert(frame.planes[0].bytes, width: 64, height: 48)
                let start = header.utf8.count + i * (6 + frameBytes)
                XCTAssertEqual(String(decoding: data[start..<start + 6], as: UTF8.self), "FRAME\n")
                XCTAssertEqual(Array(data[start + 6..<start + 6 + frameBytes]), Array(converter.planes), "frame \(i) \(chroma)")
            }
        }
        // Kamera reads its own 4:2:0 file back.
        let source = try Y4MSource(path: run.folder.appendingPathComponent("clip-420.y4m").path)
        XCTAssertEqual(source.inventory?.frames, 3)
        XCTAssertEqual(source.rate, 30)
    }

    /// The README's pipe into an encoder: a Y4M stream on standard output that ffmpeg decodes frame for frame.
    func testY4MStreamPipesIntoAnEncoder() throws {
        let result = try run.run(["render", "--size", "64x64", "--frames", "5", "--fps", "25", "-o", "-", "--stream", "y4m"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.output.hasPrefix("YUV4MPEG2 W64 H64 F25:1 "), String(result.output.prefix(60)))
        let stream = run.folder.appendingPathComponent("stream.y4m")
        try result.stdout.write(to: stream)
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        ffmpeg.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-i", stream.path, "-f", "framecrc", "-"]
        let out = Pipe()
        ffmpeg.standardOutput = out
        try ffmpeg.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ffmpeg.waitUntilExit()
        XCTAssertEqual(ffmpeg.terminationStatus, 0)
        XCTAssertEqual(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count, 5, text)
    }

    /// Several sinks that take bytes: each frame is read back from the GPU once.
    func testEachFrameIsReadBackOnceWhateverTheOutputs() throws {
        var description = RunDescription()
        description.source.inputSize = (64, 48)
        description.settings = RenderSettings(crop: .none, filters: try FilterChain(parsing: ["blur=1"]))
        description.frames = 4
        description.outputs = [try OutputRequest(parsing: run.folder.path + "/a-%d.png"), try OutputRequest(parsing: run.folder.path + "/b-%d.png"),
                               try OutputRequest(parsing: run.folder.path + "/c.y4m")]
        let builder = try RunBuilder(description)
        let readBacks = try RenderThread(name: "kamera.tests.outputs").sync { () -> Int in
            let run = try builder.build()
            try run.loop.run(frames: 4)
            return run.renderer.readBacks
        }
        XCTAssertEqual(readBacks, 4)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: run.folder.path).sorted(),
                       ["a-0.png", "a-1.png", "a-2.png", "a-3.png", "b-0.png", "b-1.png", "b-2.png", "b-3.png", "c.y4m"])
    }
}
