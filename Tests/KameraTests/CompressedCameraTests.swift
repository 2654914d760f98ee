import Capture
import Foundation
import Pixels
import XCTest

/// H.264 and HEVC camera frames, on this machine: the stream decoder against
/// ffmpeg's own decode of the same stream (the same libavcodec, so equal
/// bytes), garbage refused without a crash, and how modes are chosen.
/// The camera itself is `H264VMTests`, on v4l2loopback in the VM.
final class CompressedCameraTests: KameraProcessTestCase {
    /// Access units of an Annex B stream: each starts at an access unit delimiter (x264's `aud`).
    func accessUnits(_ stream: [UInt8]) -> [[UInt8]] {
        var starts: [Int] = []
        var i = 0
        while i + 4 < stream.count {
            if stream[i] == 0, stream[i + 1] == 0, stream[i + 2] == 1, stream[i + 3] & 0x1F == 9 {
                starts.append(i > 0 && stream[i - 1] == 0 ? i - 1 : i)
                i += 3
            }
            i += 1
        }
        return zip(starts, starts.dropFirst() + [stream.count]).map { Array(stream[$0..<$1]) }
    }

    func testH264FramesDecodeAsFFmpegDecodesThem() throws {
        let (width, height) = (96, 64)
        let clip = run.path("clip.h264"), reference = run.path("reference.nv12")
        let encode = try KameraProcess.shell("ffmpeg -nostdin -v error -f lavfi -i testsrc2=size=\(width)x\(height):rate=30 -frames:v 12 -c:v libx264 -pix_fmt yuv420p "
            + "-preset ultrafast -tune zerolatency -g 6 -x264-params aud=1:repeat-headers=1 -f h264 \(clip) "
            + "&& ffmpeg -nostdin -v error -i \(clip) -f rawvideo -pix_fmt nv12 \(reference)", in: run.folder)
        XCTAssertEqual(encode.status, 0, encode.stderr)
        let units = accessUnits(try [UInt8](Data(contentsOf: URL(fileURLWithPath: clip))))
        XCTAssertEqual(units.count, 12, "one access unit a frame")
        let want = try [UInt8](Data(contentsOf: URL(fileURLWithPath: reference)))
        let decoder = try VideoStreamDecoder(.h264, width: width, height: height)
        let target = FrameBuffer(format: .nv12, width: width, height: height)
        let frameSize = PixelFormat.nv12.frameSize(width: width, height: height)
        // The camera started mid-stream: the frames before the key frame at 6 give no picture.
        for (n, unit) in units.enumerated().dropFirst(3) {
            let got = try unit.withUnsafeBytes { try decoder.decodeFrame($0, into: target) }
            XCTAssertEqual(got, n >= 6, "frame \(n): a picture only from the key frame on")
            if got {
                XCTAssertEqual(Array(target.allBytes), Array(want[n * frameSize..<(n + 1) * frameSize]), "frame \(n) as ffmpeg decodes it")
            }
        }
        XCTAssertEqual(decoder.colorSpace, .bt601Limited)
    }

    func testGarbageIsRefusedWithoutACrash() throws {
        for format in [CompressedFormat.h264, .hevc] {
            let decoder = try VideoStreamDecoder(format, width: 64, height: 48)
            let target = FrameBuffer(format: .nv12, width: 64, height: 48)
            var seed: UInt32 = 7
            for length in [0, 1, 4, 100, 5000] {
                let bytes = (0..<max(length, 1)).map { _ -> UInt8 in seed = seed &* 1_664_525 &+ 1_013_904_223; return UInt8(seed >> 24) }
                // Throwing is fine; a picture from garbage is not expected, a crash is a failure.
                let got = try? bytes.withUnsafeBytes { try decoder.decodeFrame(UnsafeRawBufferPointer(rebasing: $0[0..<length]), into: target) }
                XCTAssertNotEqual(got, true, "\(format): \(length) random bytes gave a picture")
            }
        }
    }

    func testModesAndNames() throws {
        let formats = [
            CameraFormat(fourcc: "H264", description: "H.264", sizes: [CameraSize(width: 1920, height: 1080, rates: [30])]),
            CameraFormat(fourcc: "MJPG", description: "Motion-JPEG", sizes: [CameraSize(width: 1920, height: 1080, rates: [30])]),
            CameraFormat(fourcc: "YUYV", description: "YUYV 4:2:2", sizes: [CameraSize(width: 640, height: 480, rates: [30])]),
        ]
        XCTAssertEqual(try CameraMode.choose(CameraRequest(size: (1920, 1080)), from: formats, current: (640, 480)).fourcc, "MJPG",
                       "MJPEG before H.264 when both fit")
        let h264 = try CameraMode.choose(CameraRequest(format: .compressed(.h264), size: (1920, 1080)), from: formats, current: (640, 480))
        XCTAssertEqual(h264.fourcc, "H264")
        XCTAssertEqual(h264.format, .nv12)
        XCTAssertEqual(formats[0].pixelFormat, .nv12)
        XCTAssertEqual(CompressedFormat(name: "H265"), .hevc)
        XCTAssertEqual(CompressedFormat(v4l2Code: "JPEG"), .mjpeg)
        try run.assertFails(["render", "--format", "h264", "-o", "x.png"], mentioning: ["--format h264", "only for --camera"])
    }
}
