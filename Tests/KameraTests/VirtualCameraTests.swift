import Foundation
import Output
import Pixels
import XCTest

/// The virtual camera (`-o /dev/videoN`) on the host, where no v4l2loopback
/// exists: each layout it writes against the per-pixel CPU reference, and
/// what a user who names a device that is not there, or a format it does not
/// take, is told. Writing to v4l2loopback and reading back: VirtualCameraVMTests.
final class VirtualCameraTests: KameraProcessTestCase {
    /// The bytes for YUYV, NV12, I420 and RGB24 against `FormatConverter`
    /// (each pixel's Y'CbCr by the formulas, chroma the mean of the samples it
    /// covers), BT.601 limited range: within 1 of 255 for Y'CbCr (the one
    /// averages colors, the other averages rounded samples), exact for RGB.
    func testEachLayoutMatchesTheCPUReference() {
        let image = sampleImage(width: 34, height: 22)
        let source = FrameBuffer(format: .rgba, width: image.width, height: image.height)
        source.allBytes.copyBytes(from: image.pixels)
        for format in RGBAToCameraFormat.formats {
            let converter = RGBAToCameraFormat(format)
            image.pixels.withUnsafeBytes { converter.convert($0, width: image.width, height: image.height) }
            let reference = FrameBuffer(format: format, width: image.width, height: image.height)
            FormatConverter.convert(rgba: source, to: reference, colorSpace: .bt601Limited)
            let got = Array(converter.bytes), want = Array(reference.allBytes)
            XCTAssertEqual(got.count, converter.frameSize(width: image.width, height: image.height), "\(format)")
            XCTAssertEqual(got.count, want.count, "\(format): the layout's size")
            let worst = zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 99
            XCTAssertLessThanOrEqual(worst, format == .rgb24 ? 0 : 1, "\(format)")
        }
    }

    /// A device that is not there names v4l2loopback and how to load it; a
    /// format the virtual camera does not write names those it does. Nothing is written.
    func testMissingDevicesAndFormatsAreOneLine() throws {
        try run.assertFails(["render", "-o", "/dev/video97"], mentioning: ["/dev/video97: no such device", "modprobe v4l2loopback", "exclusive_caps=1"])
        try run.assertFails(["render", "-o", "/dev/video97", "--v4l2-format", "mjpeg"], mentioning: ["--v4l2-format mjpeg is not valid", "yuyv, nv12, i420 or rgb24"])
        // Other devices are streams, as before: PNGs to /dev/null.
        let result = try run.run(["render", "--frames", "2", "-o", "/dev/null"])
        XCTAssertEqual(result.status, 0, result.stderr)
    }
}
