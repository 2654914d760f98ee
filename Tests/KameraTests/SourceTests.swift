import Capture
import GPU
import Output
import Pipeline
import Pixels
import XCTest

/// File sources, the test pattern, PNG output and argument parsing.
final class SourceTests: ScratchFolderTestCase {

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testY4M420BecomesNV12() throws {
        // 4x2 frame: Y 0...7, U 100 101, V 200 201.
        let frame: [UInt8] = Array(0..<8) + [100, 101] + [200, 201]
        let path = try write("a.y4m", Array("YUV4MPEG2 W4 H2 F25:1 C420jpeg\nFRAME\n".utf8) + frame + Array("FRAME\n".utf8) + frame)
        let source = try Y4MSource(path: path)
        XCTAssertEqual(source.rate, 25)
        let f = try XCTUnwrap(source.nextFrame())
        XCTAssertEqual(f.format, .nv12)
        XCTAssertEqual(Array(f.planes[0].bytes), Array(0..<8))
        XCTAssertEqual(Array(f.planes[1].bytes), [100, 200, 101, 201])
        XCTAssertNotNil(try source.nextFrame())
        XCTAssertNil(try source.nextFrame())
    }

    func testY4M422BecomesYUYV() throws {
        let frame: [UInt8] = Array(0..<8) + [100, 101, 102, 103] + [200, 201, 202, 203]
        let path = try write("b.y4m", Array("YUV4MPEG2 W4 H2 C422 XCOLORRANGE=FULL\nFRAME\n".utf8) + frame)
        let f = try XCTUnwrap(try Y4MSource(path: path).nextFrame())
        XCTAssertEqual(f.format, .yuyv)
        XCTAssertEqual(f.colorSpace.range, .full)
        XCTAssertEqual(Array(f.planes[0].bytes), [0, 100, 1, 200, 2, 101, 3, 201, 4, 102, 5, 202, 6, 103, 7, 203])
    }

    func testY4MErrors() throws {
        let truncated = try write("t.y4m", Array("YUV4MPEG2 W4 H2 C420\nFRAME\n".utf8) + [1, 2, 3])
        XCTAssertThrowsError(try Y4MSource(path: truncated).nextFrame()) { XCTAssertTrue("\($0)".contains("frame 0 is truncated (3 of 12 bytes"), "\($0)") }
        let chroma = try write("c.y4m", Array("YUV4MPEG2 W4 H2 C444\n".utf8))
        XCTAssertThrowsError(try Y4MSource(path: chroma)) { XCTAssertTrue("\($0)".contains("C444 is not supported"), "\($0)") }
        let bad = try write("n.y4m", Array("hello\n".utf8))
        XCTAssertThrowsError(try Y4MSource(path: bad)) { XCTAssertTrue("\($0)".contains("not a YUV4MPEG2 file"), "\($0)") }
    }

    /// FRAME lines may carry parameters; a long one is read, not taken for damage.
    func testY4MFrameParametersAreSkipped() throws {
        let frame = Array(("FRAME " + String(repeating: "Xparam=1 ", count: 300) + "\n").utf8) + [UInt8](repeating: 90, count: 12)
        let path = try write("p.y4m", Array("YUV4MPEG2 W4 H2 F25:1 C420jpeg\n".utf8) + frame + frame)
        let source = try Y4MSource(path: path)
        XCTAssertEqual(source.inventory, FrameInventory(frames: 2))
        XCTAssertEqual(source.rate, 25)
        XCTAssertEqual(try XCTUnwrap(source.nextFrame()).planes[0].bytes.first, 90)
        XCTAssertNotNil(try source.nextFrame())
        XCTAssertNil(try source.nextFrame())
    }

    func testRawFrames() throws {
        let path = try write("r.yuv", [UInt8](repeating: 7, count: 4 * 2 * 2 * 3))
        let source = try RawVideoSource(path: path, format: .yuyv, width: 4, height: 2)
        XCTAssertEqual(source.frameCount, 3)
        for _ in 0..<3 { XCTAssertEqual(try XCTUnwrap(source.nextFrame()).planes[0].bytes.count, 16) }
        XCTAssertNil(try source.nextFrame())
        XCTAssertThrowsError(try RawVideoSource(path: path, format: .rgba, width: 5, height: 1)) {
            XCTAssertTrue("\($0)".contains("not a whole number of 5x1 rgba frames"), "\($0)")
        }
    }

    func testPNGRoundTripAndCorruptPNG() throws {
        let image = sampleImage(width: 13, height: 7)
        let path = folder.appendingPathComponent("round.png").path
        try image.pixels.withUnsafeBytes { try PNGWriter.write($0, width: 13, height: 7, to: path) }
        let frame = try XCTUnwrap(try ImageSource(path: path).nextFrame())
        XCTAssertEqual(Array(frame.planes[0].bytes), image.pixels)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path), ["round.png"], "no temporary file left")

        let corrupt = try write("corrupt.png", Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(40)))
        XCTAssertThrowsError(try ImageSource(path: corrupt)) { XCTAssertTrue("\($0)".hasPrefix("\(corrupt): cannot read PNG"), "\($0)") }
    }

    /// The chunk walk is no stricter than libpng at the end: an IEND whose
    /// length field is damaged still ends the file.
    func testPNGWithADamagedIENDLengthReads() throws {
        let path = folder.appendingPathComponent("iend.png").path
        let image = sampleImage(width: 5, height: 3)
        try image.pixels.withUnsafeBytes { try PNGWriter.write($0, width: 5, height: 3, to: path) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count - 12] = 0x7F
        let damaged = try write("iend-damaged.png", bytes)
        let frame = try XCTUnwrap(try ImageSource(path: damaged).nextFrame())
        XCTAssertEqual(Array(frame.planes[0].bytes), image.pixels)
    }

    func testPNGWriterRefusesMissingFolder() {
        let path = folder.appendingPathComponent("missing/out.png").path
        XCTAssertThrowsError(try [UInt8](repeating: 0, count: 4).withUnsafeBytes { try PNGWriter.write($0, width: 1, height: 1, to: path) }) {
            XCTAssertTrue("\($0)".contains("does not exist"), "\($0)")
        }
    }

    func testTestPatternIsDeterministicAndMoves() {
        let a = TestPattern(width: 64, height: 48, format: .yuyv), b = TestPattern(width: 64, height: 48, format: .yuyv)
        let fa = Array(a.frame(at: 5).planes[0].bytes), fb = Array(b.frame(at: 5).planes[0].bytes)
        XCTAssertEqual(fa, fb)
        XCTAssertNotEqual(fa, Array(b.frame(at: 6).planes[0].bytes))
        XCTAssertNotEqual(a.squarePosition(at: 0).x, a.squarePosition(at: 1).x)
        let nv12 = TestPattern(width: 64, height: 48, format: .nv12).frame(at: 0)
        XCTAssertEqual(nv12.planes.count, 2)
        XCTAssertEqual(nv12.planes[1].bytes.count, 32 * 24 * 2)
    }

    /// Each frame converts only the square's and the number's rectangles; the
    /// result must equal converting the whole RGBA frame, in every format, at
    /// odd sizes, for numbers of one to eight digits and the square wrapping round.
    func testTestPatternEqualsAWholeFrameConversion() {
        for (width, height) in [(67, 51), (64, 48)] {
            let rgba = TestPattern(width: width, height: height, format: .rgba)
            for format in PixelFormat.named where format != .rgba {
                let pattern = TestPattern(width: width, height: height, format: format)
                for index: UInt64 in [0, 1, 9, 10, 61, 99, 12345, 99_999_999, 123_456_789] {
                    let source = FrameBuffer(format: .rgba, width: width, height: height)
                    source.mutablePlane(0).copyMemory(from: rgba.frame(at: index).planes[0].bytes)
                    let whole = FrameBuffer(format: format, width: width, height: height)
                    FormatConverter.convert(rgba: source, to: whole, colorSpace: pattern.colorSpace)
                    let frame = pattern.frame(at: index)
                    for plane in frame.planes.indices {
                        XCTAssertEqual(Array(frame.planes[plane].bytes), Array(whole.planes[plane].bytes),
                                       "\(format) \(width)x\(height) frame \(index) plane \(plane)")
                    }
                }
            }
        }
    }

    func testOutputPatterns() throws {
        XCTAssertEqual(try OutputPattern("frames/cube-%03d.png").path(for: 7), "frames/cube-007.png")
        XCTAssertEqual(try OutputPattern("f%d.png").path(for: 12), "f12.png")
        XCTAssertFalse(try OutputPattern("out.png").isSequence)
        XCTAssertThrowsError(try OutputPattern("a%d-%d.png"))
        XCTAssertThrowsError(try OutputPattern("a%s.png"))
    }

    func testSizesAndFormats() {
        XCTAssertTrue(parseSize("720x720")! == (720, 720))
        XCTAssertTrue(parseSize("720p")! == (1280, 720))
        XCTAssertNil(parseSize("720"))
        XCTAssertNil(parseSize("0x10"))
        XCTAssertEqual(PixelFormat(name: "YUYV"), .yuyv)
        XCTAssertNil(PixelFormat(name: "mjpeg"))
        XCTAssertEqual(GPUPlatform(argument: "gbm:/dev/dri/renderD129"), .gbm("/dev/dri/renderD129"))
        XCTAssertNil(GPUPlatform(argument: "x11"))
    }

    func testShaderLogFormatting() {
        XCTAssertEqual(ShaderProgram.formatLog("0:12(5): error: `foo' undeclared\n", name: "a.frag"), "a.frag:12:5: error: `foo' undeclared")
        XCTAssertEqual(ShaderProgram.formatLog("ERROR: 0:3: 'x' : syntax error", name: "b.frag"), "b.frag:3: error: 'x' : syntax error")
    }
}
