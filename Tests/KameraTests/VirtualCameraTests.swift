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

    /// `--persistent` and `--fallback-image` are for a camera's run; a still
    /// that cannot be read is one line before any camera is opened.
    func testPersistenceIsForCamerasAndItsStillIsChecked() throws {
        try run.assertFails(["preview", "--persistent", "--duration", "1"], mentioning: ["--persistent keeps a camera's run going", "add --camera"])
        try run.assertFails(["preview", "--fallback-image", "still.png", "--duration", "1"], mentioning: ["--fallback-image still.png", "needs --camera"])
        try run.assertFails(["preview", "--camera", "/dev/video97", "--fallback-image", "missing.png"], mentioning: ["missing.png: cannot open"])
        try Data((0..<100).map { UInt8($0) }).write(to: run.folder.appendingPathComponent("bad.png"))
        try run.assertFails(["preview", "--camera", "/dev/video97", "--fallback-image", "bad.png"], mentioning: ["bad.png: neither a PNG nor a JPEG"])
        try run.assertFails(["preview", "--camera", "/dev/video97", "--fallback-image", "bad.png", "--no-persistent"],
                            mentioning: ["--fallback-image bad.png is shown while a camera is lost", "--persistent"])
    }
}
