import CJPEG
import Capture
import Pixels
import XCTest

/// MJPEG decoding: a JPEG made here with libjpeg-turbo's encoder (quality 100,
/// 4:4:4) decodes back to the original within 6 of 255 (JPEG is lossy), with
/// trailing bytes after the image ignored; damaged data is an error, not a crash.
final class JPEGTests: XCTestCase {
    func encode(_ image: Image) throws -> [UInt8] {
        let handle = try XCTUnwrap(tjInitCompress())
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let result = image.pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(image.width), Int32(image.width * 4), Int32(image.height),
                        Int32(TJPF_RGBA.rawValue), &output, &size, Int32(TJSAMP_444.rawValue), 100, 0)
        }
        XCTAssertEqual(result, 0)
        defer { tjFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    func testDecodesToTheOriginalWithinJPEGLoss() throws {
        let image = sampleImage(width: 64, height: 48)
        let jpeg = try encode(image) + [UInt8](repeating: 0, count: 500)  // stale bytes after EOI, as v4l2loopback's first buffer
        let decoder = try JPEGDecoder()
        let target = FrameBuffer(format: .rgba, width: 64, height: 48)
        try jpeg.withUnsafeBytes { try decoder.decode($0, into: target) }
        let decoded = Image(width: 64, height: 48, pixels: Array(target.planes[0].bytes))
        XCTAssertClose(decoded, image, tolerance: 6, "JPEG round trip")
    }

    /// A JPEG still as `--input`: each EXIF orientation 1-8 is turned upright,
    /// against the EXIF table's mapping written out here (stored pixel at
    /// column c, row r of a W x H image → upright position), within JPEG loss.
    func testJPEGStillIsTurnedUprightByItsEXIFOrientation() throws {
        let upright = sampleImage(width: 48, height: 32)
        for orientation in 1...8 {
            let swaps = orientation >= 5
            let (w, h) = swaps ? (upright.height, upright.width) : (upright.width, upright.height)
            // The stored picture: the upright one seen through the orientation's inverse.
            var stored = Image(width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h * 4))
            for r in 0..<h {
                for c in 0..<w {
                    let (x, y): (Int, Int)
                    switch orientation {
                    case 1: (x, y) = (c, r)
                    case 2: (x, y) = (w - 1 - c, r)
                    case 3: (x, y) = (w - 1 - c, h - 1 - r)
                    case 4: (x, y) = (c, h - 1 - r)
                    case 5: (x, y) = (r, c)
                    case 6: (x, y) = (h - 1 - r, c)
                    case 7: (x, y) = (h - 1 - r, w - 1 - c)
                    default: (x, y) = (r, w - 1 - c)
                    }
                    for k in 0..<4 { stored.pixels[(r * w + c) * 4 + k] = upright.pixels[(y * upright.width + x) * 4 + k] }
                }
            }
            var jpeg = try encode(stored)
            let exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x22] + Array("Exif".utf8) + [0, 0, 0x49, 0x49, 0x2A, 0, 8, 0, 0, 0,
                                 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(orientation), 0, 0, 0, 0, 0, 0, 0]
            jpeg.insert(contentsOf: exif, at: 2)
            let path = NSTemporaryDirectory() + "kamera-exif-\(getpid())-\(orientation).jpg"
            try Data(jpeg).write(to: URL(fileURLWithPath: path))
            defer { unlink(path) }
            let source = try ImageSource(path: path)
            let frame = try XCTUnwrap(try source.nextFrame())
            XCTAssertEqual([frame.width, frame.height], [upright.width, upright.height], "orientation \(orientation)")
            let decoded = Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes))
            XCTAssertClose(decoded, upright, tolerance: 6, "EXIF orientation \(orientation)")
        }
    }

    func testDamagedJPEGIsAnError() throws {
        let decoder = try JPEGDecoder()
        let target = FrameBuffer(format: .rgba, width: 64, height: 48)
        XCTAssertThrowsError(try [UInt8](repeating: 7, count: 100).withUnsafeBytes { try decoder.decode($0, into: target) })
        let other = try encode(sampleImage(width: 32, height: 32))
        XCTAssertThrowsError(try other.withUnsafeBytes { try decoder.decode($0, into: target) }) {
            XCTAssertTrue("\($0)".contains("32x32, expected 64x48"), "\($0)")
        }
    }

    func testAutoFormatTakesMJPEGOnlyWhenNothingElseFits() throws {
        let formats = [
            CameraFormat(fourcc: "MJPG", description: "Motion-JPEG", sizes: [CameraSize(width: 1280, height: 720, rates: [30]),
                                                                            CameraSize(width: 640, height: 480, rates: [30])]),
            CameraFormat(fourcc: "YUYV", description: "YUYV 4:2:2", sizes: [CameraSize(width: 640, height: 480, rates: [30])]),
        ]
        XCTAssertEqual(try CameraMode.choose(CameraRequest(size: (640, 480)), from: formats, current: (640, 480)).fourcc, "YUYV")
        XCTAssertEqual(try CameraMode.choose(CameraRequest(size: (1280, 720)), from: formats, current: (640, 480)).fourcc, "MJPG")
        let forced = try CameraMode.choose(CameraRequest(format: .compressed(.mjpeg), size: (640, 480)), from: formats, current: (640, 480))
        XCTAssertEqual(forced.fourcc, "MJPG")
        XCTAssertEqual(forced.format, .rgba)
    }
}
