import Capture
import Foundation
import Pixels
import XCTest

/// Cameras in the formats Kamera repacks, against vivid in the VM: for each,
/// `v4l2-ctl` saves raw frames of vivid's still test pattern, and Kamera's
/// render of the same camera in the same format equals the CPU reference of
/// the last one, laid out here by index into a native frame and decoded by the
/// formulas (tolerance 2 of 255). The YUV layouts, RGB orders and RGB565 are
/// also rendered by the GPU as the camera gave them, from mapped buffers and
/// imported as dma-bufs (GBM on vkms). The VM must boot; if it cannot, the test fails.
final class RepackVMTests: XCTestCase {
    static let formats: [RepackedFormat] = [.uyvy, .yvyu, .vyuy, .nv21, .nv16, .nv61, .yu12, .yv12, .yuv422p, .bgr24, .rgb565, .y16, .rgbx, .bgrx, .xbgr, .abgr, .argb, .xrgb]
    static let (width, height) = (320, 180)
    /// The formats the GPU reads as vivid gives them.
    static let onGPU: [RepackedFormat] = [.uyvy, .yvyu, .vyuy, .nv21, .nv16, .nv61, .yu12, .yv12, .yuv422p, .bgr24, .rgb565, .y16, .rgbx, .bgrx, .xbgr, .abgr, .argb, .xrgb]

    /// One boot, vivid's two cameras side by side (the VM's two emulated
    /// cores each run a process; every one spends seconds starting under
    /// emulation). On the first, for each format `v4l2-ctl` saves three frames
    /// as w-$f.raw ($f: the code without spaces) and Kamera renders it on the
    /// CPU path; on the second, it is saved as g-$f.raw and rendered by the GPU
    /// as vivid gives it, imported from DRM dumb buffers (BGR3 copied), and the
    /// YUV layouts of `mappedToo` from mapped buffers too.
    static var script: String {
        """
        set -u
        K="timeout -k 10 300 $KAMERA"
        W=\(width)x\(height)
        # Three frames of $code from camera $D, saved as $1-$f.raw.
        save() {
          timeout 120 v4l2-ctl -d $D --set-fmt-video=width=\(width),height=\(height),pixelformat="$code" --stream-mmap --stream-count=3 --stream-to=$1-$f.raw
        }
        for D in /dev/video0 /dev/video1; do v4l2-ctl -d $D --set-ctrl osd_text_mode=2,alpha_component=255 --set-parm=30; done
        ( D=/dev/video0
          for code in \(formats.map { "'\($0.fourcc)'" }.joined(separator: " ")); do
            f=$(echo "$code" | tr -d ' ')
            save w
            $K render -v --camera $D --format "$code" --input-size $W --crop none --frames 3 -o w-$f-%d.png 2> w-$f.log
          done
          $K render -v --gpu gbm:/dev/dri/card0 --camera $D --format UYVY --input-size $W -o dm-cpu.png 2> dm-cpu.log
          $K render -v --gpu gbm:/dev/dri/card0 --camera $D --format XB24 --input-size $W -o dm-cpu-rgb.png 2> dm-cpu-rgb.log
          $K devices --formats $D > formats.txt
        ) > first.log 2>&1 &
        first=$!
        ( D=/dev/video1
          for code in \(onGPU.map { "'\($0.fourcc)'" }.joined(separator: " ")); do
            f=$(echo "$code" | tr -d ' ')
            save g
            case $f in \(mappedToo.map(\.fourcc).joined(separator: "|")))
              $K render -v --camera $D --format $f --input-size $W --crop none --frames 3 --yuv-conversion shader -o gpu-$f-%d.png 2> gpu-$f.log ;;
            esac
            upload=dmabuf; [ $f = BGR3 ] && upload=auto
            $K render -v --gpu gbm:/dev/dri/card0 --camera $D --format $f --input-size $W --crop none --frames 3 --yuv-conversion shader --upload $upload -o dm-$f-%d.png 2> dm-$f.log
          done
        ) > second.log 2>&1 &
        second=$!
        status=0
        for p in $first $second; do wait $p || status=1; done
        cat first.log second.log
        exit $status
        """
    }

    /// The formats also rendered from mapped buffers: one of each YUV layout
    /// (packed, semi-planar, planar). The others are rendered imported only,
    /// whose first frame Kamera checks against the copy path (as `upload:
    /// dmabuf` in the log says), and through the shaders from raw files in
    /// `RepackTests`: each run costs CI seconds in the emulated VM.
    static let mappedToo: [RepackedFormat] = [.uyvy, .nv21, .yu12]

    /// The runs the GPU test checks for `format`.
    static func gpuRuns(_ format: RepackedFormat) -> [String] {
        mappedToo.contains(format) ? ["gpu", "dm"] : ["dm"]
    }

    nonisolated(unsafe) static var run: VMScriptRun?

    static let steps = [VMStep("repack", owner: "\(RepackVMTests.self)", script: script, vivid: VMStep.twoCameras)]

    override class func setUp() {
        run = VMBoot.cameras.run("repack")
    }

    override class func tearDown() {
        run?.remove()
    }

    /// The folder the VM run wrote; throws (the test fails, the others go on) when it failed.
    func folder() throws -> URL {
        try XCTUnwrap(Self.run).checkedFolder()
    }

    /// The last frame `v4l2-ctl` saved of `format`, as the reference picture.
    func reference(_ format: RepackedFormat, _ raw: [UInt8]) throws -> Image {
        let (w, h) = (Self.width, Self.height), size = format.frameSize(width: w, height: h)
        XCTAssertEqual(raw.count % size, 0, "\(format): whole frames in v4l2-ctl's file")
        let b = Array(raw[(raw.count / size - 1) * size..<raw.count / size * size])
        func word(_ i: Int) -> Int { Int(b[2 * i]) | Int(b[2 * i + 1]) << 8 }
        switch format {
        case .bgr24:
            return Image(width: w, height: h) { x, y in SIMD4(Float(b[(y * w + x) * 3 + 2]), Float(b[(y * w + x) * 3 + 1]), Float(b[(y * w + x) * 3]), 255) / 255 }
        case .rgb565:
            return Image(width: w, height: h) { x, y in
                let v = word(y * w + x)
                return SIMD4(Float(v >> 11) / 31, Float((v >> 5) & 63) / 63, Float(v & 31) / 31, 1)
            }
        case .y16:
            return Image(width: w, height: h) { x, y in let g = Float(word(y * w + x)) / 65535; return SIMD4(g, g, g, 1) }
        case .rgbx, .bgrx, .xbgr, .abgr, .argb, .xrgb:
            // Where R, G and B sit in each pixel's 4 bytes; opaque: vivid's alpha_component is set to 255 for the
            // A formats, and vivid writes 0 into the X byte (an X read as alpha would make the picture transparent).
            let at = [RepackedFormat.rgbx: [0, 1, 2], .bgrx: [2, 1, 0], .xbgr: [3, 2, 1], .abgr: [3, 2, 1], .argb: [1, 2, 3], .xrgb: [1, 2, 3]][format]!
            return Image(width: w, height: h) { x, y in
                let o = (y * w + x) * 4
                return SIMD4(Float(b[o + at[0]]), Float(b[o + at[1]]), Float(b[o + at[2]]), 255) / 255
            }
        default:
            // Y', Cb, Cr of each pixel by where the format keeps them, into a YUYV frame.
            let native = FrameBuffer(format: .yuyv, width: w, height: h)
            let out = native.allBytes
            for y in 0..<h {
                for pair in 0..<w / 2 {
                    let (y0, y1, u, v): (Int, Int, Int, Int)
                    let luma = y * w + 2 * pair, chroma420 = w * h + (y / 2) * w + 2 * pair, chroma422 = w * h + y * w + 2 * pair
                    let quarter = w * h / 4, planar = w * h + (y / 2) * (w / 2) + pair
                    switch format {
                    case .uyvy: (u, y0, v, y1) = (y * w * 2 + 4 * pair, y * w * 2 + 4 * pair + 1, y * w * 2 + 4 * pair + 2, y * w * 2 + 4 * pair + 3)
                    case .yvyu: (y0, v, y1, u) = (y * w * 2 + 4 * pair, y * w * 2 + 4 * pair + 1, y * w * 2 + 4 * pair + 2, y * w * 2 + 4 * pair + 3)
                    case .vyuy: (v, y0, u, y1) = (y * w * 2 + 4 * pair, y * w * 2 + 4 * pair + 1, y * w * 2 + 4 * pair + 2, y * w * 2 + 4 * pair + 3)
                    case .nv21: (y0, y1, v, u) = (luma, luma + 1, chroma420, chroma420 + 1)
                    case .nv16: (y0, y1, u, v) = (luma, luma + 1, chroma422, chroma422 + 1)
                    case .nv61: (y0, y1, v, u) = (luma, luma + 1, chroma422, chroma422 + 1)
                    case .yu12: (y0, y1, u, v) = (luma, luma + 1, planar, planar + quarter)
                    case .yv12: (y0, y1, v, u) = (luma, luma + 1, planar, planar + quarter)
                    case .yuv422p: (y0, y1, u, v) = (luma, luma + 1, w * h + y * (w / 2) + pair, w * h + w * h / 2 + y * (w / 2) + pair)
                    default: fatalError("not a YUV format")
                    }
                    let o = y * w * 2 + 4 * pair
                    (out[o], out[o + 1], out[o + 2], out[o + 3]) = (b[y0], b[u], b[y1], b[v])
                }
            }
            return CPUReference.decode(native.frame(sequence: 0, timestamp: 0))
        }
    }

    func testCamerasInRepackedFormatsMatchTheReference() throws {
        let folder = try folder()
        let listing = try String(contentsOf: folder.appendingPathComponent("formats.txt"), encoding: .utf8)
        for format in Self.formats {
            let name = format.fourcc.filter { $0 != " " }
            let log = try String(contentsOf: folder.appendingPathComponent("w-\(name).log"), encoding: .utf8)
            XCTAssertTrue(log.contains("\(Self.width)x\(Self.height) \(format.fourcc)"), "\(format): \(log)")
            XCTAssertTrue(listing.contains("\(format.fourcc)") && listing.contains("repacked to \(format.native.name) on the CPU"), listing)
            let raw = try [UInt8](Data(contentsOf: folder.appendingPathComponent("w-\(name).raw")))
            let frame = try XCTUnwrap(try ImageSource(path: folder.appendingPathComponent("w-\(name)-2.png").path).nextFrame())
            let image = Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes))
            XCTAssertClose(image, try reference(format, raw), tolerance: 2, "\(format)")
        }
    }

    /// The other orders of packed 4:2:2, semi-planar and planar YUV, and RGB
    /// in other byte orders and RGB565, through the GPU as vivid gave them:
    /// from mapped buffers, and imported (zero-copy), each against the same
    /// reference. BGR24 is copied: EGL imports no 24-bit RGB here.
    func testOtherLayoutsOnTheGPUMatchTheReference() throws {
        let folder = try folder()
        let listing = try String(contentsOf: folder.appendingPathComponent("formats.txt"), encoding: .utf8)
        for format in Self.onGPU {
            let name = format.fourcc.filter { $0 != " " }
            XCTAssertTrue(listing.contains("\(format.fourcc)") && listing.contains("converted on the GPU as it is, or repacked to \(format.native.name) on the CPU with a software renderer"), listing)
            let raw = try [UInt8](Data(contentsOf: folder.appendingPathComponent("g-\(name).raw")))
            let want = try reference(format, raw)
            for run in Self.gpuRuns(format) {
                let log = try String(contentsOf: folder.appendingPathComponent("\(run)-\(name).log"), encoding: .utf8)
                XCTAssertTrue(log.contains("converted on the GPU as it is"), "\(format) \(run): \(log)")
                if run == "dm" && format == .bgr24 {
                    XCTAssertTrue(log.contains("frames are copied: BGR3 frames are not imported (YUYV, NV12, AB24, AR24, GREY, UYVY"), "\(format): \(log)")
                } else if run == "dm" {
                    XCTAssertTrue(log.contains("upload: dmabuf (camera buffers: dma-buf from /dev/dri/card0)"), "\(format): \(log)")
                }
                let frame = try XCTUnwrap(try ImageSource(path: folder.appendingPathComponent("\(run)-\(name)-2.png").path).nextFrame())
                let image = Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes))
                XCTAssertClose(image, want, tolerance: 2, "\(format) \(run)")
            }
        }
        let cpu = try String(contentsOf: folder.appendingPathComponent("dm-cpu.log"), encoding: .utf8)
        XCTAssertTrue(cpu.contains("frames are copied: UYVY frames are converted on the CPU into memory of Kamera's own (YUV is converted on the CPU here, as on a software renderer or with --yuv-conversion cpu; --yuv-conversion shader converts UYVY on the GPU as it is)"), cpu)
        let rgb = try String(contentsOf: folder.appendingPathComponent("dm-cpu-rgb.log"), encoding: .utf8)
        XCTAssertTrue(rgb.contains("frames are copied: XB24 frames are converted on the CPU into memory of Kamera's own (other formats are repacked on the CPU where YUV is converted there, as on a software renderer or with --yuv-conversion cpu; --yuv-conversion shader reads XB24 on the GPU as it is)"), rgb)
    }
}
