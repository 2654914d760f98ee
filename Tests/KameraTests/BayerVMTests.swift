import Capture
import Foundation
import Pixels
import XCTest

/// Raw Bayer cameras, against vivid in the VM. Every Bayer format vivid
/// offers: `v4l2-ctl` saves raw frames of the still test pattern, and Kamera's
/// renders of the same camera in that format, on the CPU path and through the
/// demosaic shader, equal the test's own ISP (`BayerReference`) on the last of
/// them, within 2 of 255 (with the square crop for one of them). Then the
/// color check, on both paths: vivid's 75 % color bars through Kamera's
/// demosaic, auto white balance and curve land within ΔE2000 5 of the bars'
/// known colors. With no sensor in vivid's media graph, the black level is 0
/// and `-v` and `kamera devices --formats` say why. The VM must boot; if it cannot, the test fails.
final class BayerVMTests: XCTestCase {
    static let formats = RepackedFormat.allCases.filter { $0.mosaic != nil && !$0.isMIPIPacked }  // vivid has no packed ones
    static let (width, height) = (320, 180)
    /// vivid's values are already encoded for display, so no curve; no white balance, to compare with the reference.
    static let plain = "--gamma none --awb off"

    /// vivid's two cameras, each taking half the formats, side by side: the
    /// VM's two emulated cores then each run a process (every one spends
    /// seconds starting under emulation).
    static let cameras = ["/dev/video0", "/dev/video1"]

    /// The camera `format` is read from.
    static func camera(of format: RepackedFormat) -> String {
        cameras[formats.firstIndex(of: format)! % cameras.count]
    }

    /// What each camera runs, side by side; a run compared with a format's
    /// raw frames is made on that format's camera.
    static func runs(on camera: String) -> [String] {
        let size = "--input-size \(width)x\(height)"
        var runs = ["formats \(camera) " + formats.filter { Self.camera(of: $0) == camera }.map { "'\($0.fourcc)'" }.joined(separator: " ")]
        for format in [RepackedFormat.rggb8, .bggr10] where Self.camera(of: format) == camera {
            let f = format.fourcc
            runs.append("$K render -v --gpu gbm:/dev/dri/card0 --camera \(camera) --format \(f) \(size) --crop none \(plain) --frames 3 --yuv-conversion shader --upload dmabuf -o dm-\(f)-%d.png 2> dm-\(f).log")
        }
        if Self.camera(of: .rggb8) == camera {
            runs.append("$K render --camera \(camera) --format RGGB \(size) --crop square \(plain) --demosaic bilinear --frames 3 -o square-%d.png")
        }
        if camera == cameras[0] {
            runs.append("$K render -v --gpu gbm:/dev/dri/card0 --camera \(camera) --format RGGB \(size) \(plain) -o dm-cpu.png 2> dm-cpu.log")
            runs.append("$K render --camera \(camera) --format BG10 \(size) --crop none --gamma none --frames 5 -o bars-%d.png")
        } else {
            runs.append("$K render --camera \(camera) --format GB16 \(size) --crop none --gamma none --frames 5 --yuv-conversion shader -o bars-gpu-%d.png")
            runs.append("$K devices --formats \(camera) > formats.txt")
        }
        return runs
    }

    static var script: String {
        """
        set -u
        K="timeout -k 10 300 $KAMERA"
        # Raw frames and both paths' renders of each of the formats after the camera.
        formats() {
          local D=$1; shift
          v4l2-ctl -d $D --set-ctrl osd_text_mode=2 --set-parm=30
          for f in "$@"; do
            timeout 120 v4l2-ctl -d $D --set-fmt-video=width=\(width),height=\(height),pixelformat="$f" --stream-mmap --stream-count=3 --stream-to=b-$f.raw
            $K render -v --camera $D --format "$f" --input-size \(width)x\(height) --crop none \(plain) --frames 3 -o b-$f-%d.png 2> b-$f.log
            $K render -v --camera $D --format "$f" --input-size \(width)x\(height) --crop none \(plain) --frames 3 --yuv-conversion shader -o b-$f-gpu-%d.png 2> b-$f-gpu.log
          done
        }
        pids=""
        \(cameras.enumerated().map { index, camera in
            "( " + runs(on: camera).joined(separator: "\n  ") + "\n) > camera\(index).log 2>&1 &\npids=\"$pids $!\""
        }.joined(separator: "\n"))
        status=0
        for p in $pids; do wait $p || status=1; done
        cat camera*.log
        exit $status
        """
    }

    nonisolated(unsafe) static var run: VMScriptRun?

    static let steps = [VMStep("bayer", owner: "\(BayerVMTests.self)", script: script, vivid: VMStep.twoCameras)]

    override class func setUp() {
        run = VMBoot.cameras.run("bayer")
    }

    override class func tearDown() {
        run?.remove()
    }

    func folder() throws -> URL {
        try XCTUnwrap(Self.run).checkedFolder()
    }

    /// The samples of the last frame `v4l2-ctl` saved in `format`.
    func samples(_ format: RepackedFormat, in folder: URL) throws -> [Int] {
        let raw = try [UInt8](Data(contentsOf: folder.appendingPathComponent("b-\(format.fourcc).raw")))
        let size = format.frameSize(width: Self.width, height: Self.height)
        XCTAssertEqual(raw.count % size, 0, "\(format): whole frames in v4l2-ctl's file")
        let last = Array(raw[(raw.count / size - 1) * size..<raw.count / size * size])
        return format.mosaic!.bits > 8 ? (0..<last.count / 2).map { Int(last[2 * $0]) | Int(last[2 * $0 + 1]) << 8 } : last.map(Int.init)
    }

    func image(_ path: URL) throws -> Image {
        let frame = try XCTUnwrap(try ImageSource(path: path.path).nextFrame())
        return Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes))
    }

    func testBayerCamerasMatchTheReference() throws {
        let folder = try folder()
        let listing = try String(contentsOf: folder.appendingPathComponent("formats.txt"), encoding: .utf8)
        var settings = ISPSettings()
        (settings.gamma, settings.whiteBalance) = (.none, .off)
        for format in Self.formats {
            let log = try String(contentsOf: folder.appendingPathComponent("b-\(format.fourcc).log"), encoding: .utf8)
            XCTAssertTrue(log.contains("\(Self.width)x\(Self.height) \(format.fourcc)"), "\(format): \(log)")
            XCTAssertTrue(listing.contains("\(format.fourcc)") && listing.contains("demosaiced on the GPU, or to rgb24 on the CPU with a software renderer"), listing)
            XCTAssertTrue(listing.contains("raw Bayer black level 0 at 8 bits, 0 at 10 bits, 0 at 12 bits, 0 at 16 bits: no sensor feeds \(Self.cameras[1]) in /dev/media1 (vivid)"), listing)
            let gpuLog = try String(contentsOf: folder.appendingPathComponent("b-\(format.fourcc)-gpu.log"), encoding: .utf8)
            XCTAssertTrue(log.contains("demosaiced to rgb24 on the CPU"), "\(format): \(log)")
            XCTAssertTrue(gpuLog.contains("demosaiced on the GPU"), "\(format): \(gpuLog)")
            // vivid's media graphs (/dev/media0, /dev/media1) hold no sensor, so no black level is taken from one.
            let bits = format.mosaic!.bits
            let camera = Self.camera(of: format), media = "/dev/media\(Self.cameras.firstIndex(of: camera)!)"
            XCTAssertTrue(log.contains("black level 0 at \(bits) bits: no sensor feeds \(camera) in \(media) (vivid); --black-level N sets one"), "\(format): \(log)")
            let want = BayerReference.process(format, try samples(format, in: folder), width: Self.width, height: Self.height,
                                              settings: settings, gains: SIMD3(1, 1, 1))
            XCTAssertClose(try image(folder.appendingPathComponent("b-\(format.fourcc)-2.png")), want, tolerance: 2, "\(format), CPU")
            XCTAssertClose(try image(folder.appendingPathComponent("b-\(format.fourcc)-gpu-2.png")), want, tolerance: 2, "\(format), GPU")
            if format == .rggb8 {
                settings.demosaic = .bilinear
                let bilinear = BayerReference.process(format, try samples(format, in: folder), width: Self.width, height: Self.height,
                                                      settings: settings, gains: SIMD3(1, 1, 1))
                settings.demosaic = .malvar
                let x0 = (Self.width - Self.height) / 2
                let square = Image(width: Self.height, height: Self.height) { x, y in bilinear.color(x + x0, y) }
                XCTAssertClose(try image(folder.appendingPathComponent("square-2.png")), square, tolerance: 2, "\(format), square crop, bilinear")
            }
        }
    }

    /// Zero-copy: on EGL over GBM on vkms, 8-bit and 16-bit-word Bayer frames
    /// fill DRM-allocated buffers that the demosaic shader reads as they are,
    /// equal to the copy path and the reference; where the CPU demosaics, the log says why frames are copied.
    func testImportedBayerMatchesCopyAndReference() throws {
        let folder = try folder()
        var settings = ISPSettings()
        (settings.gamma, settings.whiteBalance) = (.none, .off)
        for format in [RepackedFormat.rggb8, .bggr10] {
            let log = try String(contentsOf: folder.appendingPathComponent("dm-\(format.fourcc).log"), encoding: .utf8)
            XCTAssertTrue(log.contains("upload: dmabuf (camera buffers: dma-buf from /dev/dri/card0)"), "\(format): \(log)")
            XCTAssertTrue(log.contains("demosaiced on the GPU"), "\(format): \(log)")
            let want = BayerReference.process(format, try samples(format, in: folder), width: Self.width, height: Self.height,
                                              settings: settings, gains: SIMD3(1, 1, 1))
            let imported = try image(folder.appendingPathComponent("dm-\(format.fourcc)-2.png"))
            XCTAssertClose(imported, want, tolerance: 2, "\(format), dma-buf vs reference")
            XCTAssertClose(imported, try image(folder.appendingPathComponent("b-\(format.fourcc)-gpu-2.png")), tolerance: 1, "\(format), dma-buf vs copy")
        }
        let cpu = try String(contentsOf: folder.appendingPathComponent("dm-cpu.log"), encoding: .utf8)
        XCTAssertTrue(cpu.contains("frames are copied: RGGB frames are converted on the CPU into memory of Kamera's own (raw Bayer is demosaiced on the CPU here, as on a software renderer or with --yuv-conversion cpu; --yuv-conversion shader demosaics on the GPU)"), cpu)
    }

    /// vivid's 75 % bars, left to right, in 8-bit sRGB.
    static let bars: [SIMD3<Double>] = [[191, 191, 191], [191, 191, 0], [0, 191, 191], [0, 191, 0], [191, 0, 191], [191, 0, 0], [0, 0, 191], [0, 0, 0]]

    func testColorBarsKeepTheirColors() throws {
        for name in ["bars-4.png", "bars-gpu-4.png"] {
            try checkBars(try image(try folder().appendingPathComponent(name)), name)
        }
    }

    func checkBars(_ picture: Image, _ name: String) throws {
        let barWidth = picture.width / Self.bars.count
        for (i, expected) in Self.bars.enumerated() {
            // The middle of each bar, away from the interpolation across its edges.
            var sum = SIMD3<Double>(0, 0, 0), count = 0.0
            for y in picture.height / 4..<picture.height * 3 / 4 {
                for x in i * barWidth + barWidth / 4..<(i + 1) * barWidth - barWidth / 4 {
                    let p = picture.pixel(x, y)
                    sum += SIMD3(Double(p.x), Double(p.y), Double(p.z))
                    count += 1
                }
            }
            let mean = sum / count
            let difference = ColorDifference.deltaE2000(ColorDifference.lab(srgb: mean / 255), ColorDifference.lab(srgb: expected / 255))
            print(name, String(format: "bar %d: mean (%.1f, %.1f, %.1f), want (%.0f, %.0f, %.0f), ΔE2000 %.2f", i, mean.x, mean.y, mean.z, expected.x, expected.y, expected.z, difference))
            XCTAssertLessThanOrEqual(difference, 5, "\(name) bar \(i): got \(mean), want \(expected)")
        }
    }
}
