import CGLES
import Capture
import Foundation
import GPU
import Pixels
import Render
import XCTest

/// Raw Bayer frames through `BayerISP` against the test's own ISP
/// (`BayerReference`), which takes the demosaics from their weight tables:
/// every format and setting within 1 of 255 on each channel, edges included
/// (both mirror the frame the same way); white balance by gray world on a
/// flat gray field; `auto`'s smoothing; the demosaic shader (`bayer.frag`)
/// against the same reference; raw files through `kamera render` on both paths.
final class BayerTests: KameraProcessTestCase {
    static let bayerFormats = RepackedFormat.allCases.filter { $0.mosaic != nil && !$0.isMIPIPacked }
    static let packedFormats = RepackedFormat.allCases.filter(\.isMIPIPacked)

    /// Runs `BayerISP` on `samples` and returns its picture.
    func processed(_ format: RepackedFormat, _ samples: [Int], width: Int, height: Int, _ isp: BayerISP) -> Image {
        let bytes = BayerReference.bytes(format, samples)
        let target = FrameBuffer(format: .rgb24, width: width, height: height)
        bytes.withUnsafeBytes { raw in
            isp.process(Plane(bytes: raw, bytesPerRow: width * format.mosaic!.bytesPerSample), mosaic: format.mosaic!, into: target)
        }
        return BayerReference.image(target)
    }

    func testEveryFormatAndSettingMatchesTheReference() {
        var settings: [ISPSettings] = []
        for demosaic in ISPSettings.Demosaic.allCases {
            for (n, gamma) in [ISPSettings.Gamma.srgb, .none, .power(1.8), .power(4)].enumerated() {
                var s = ISPSettings()
                s.demosaic = demosaic
                s.gamma = gamma
                s.whiteBalance = n == 0 ? .gains(red: 1.6, green: 1, blue: 1.3) : .off
                s.colorMatrix = n == 1 ? [1.5, -0.3, -0.2, -0.2, 1.4, -0.2, 0, -0.5, 1.5] : nil
                settings.append(s)
            }
        }
        // Each half row (the even or the odd columns) goes eight pixels at a time: widths 4
        // (the smallest), 16 (one lane set to a half) and 18 (one more pixel to a half).
        for (width, height) in [(32, 20), (6, 4), (4, 4), (16, 4), (18, 6)] {
            let image = sampleImage(width: width, height: height)
            for (i, format) in Self.bayerFormats.enumerated() {
                for var s in settings {
                    let bits = format.mosaic!.bits
                    s.blackLevel = i % 2 == 0 ? 0 : 16 << (bits - 8)
                    let samples = BayerReference.samples(format, image, light: SIMD3(0.7, 1, 0.8), black: s.blackLevel ?? 0)
                    let gains: SIMD3<Double>
                    if case .gains(let r, let g, let b) = s.whiteBalance { gains = SIMD3(Double(r), Double(g), Double(b)) } else { gains = SIMD3(1, 1, 1) }
                    let want = BayerReference.process(format, samples, width: width, height: height, settings: s, gains: gains)
                    let got = processed(format, samples, width: width, height: height, BayerISP(settings: s))
                    XCTAssertClose(got, want, tolerance: 1, "\(format) \(width)x\(height) \(s)")
                }
            }
        }
    }

    /// Frames large enough to be split between threads (each keeping its own
    /// rows) match the reference as small ones do, and one thread's picture
    /// equals three's byte for byte, whose parts start on odd rows. Widths that
    /// are not a multiple of the eight pixels done at once are in both.
    func testFramesSplitBetweenThreadsMatchTheReference() {
        let (width, height) = (522, 262)
        XCTAssertGreaterThanOrEqual(width * height, BayerISP.splitPixels)
        let image = sampleImage(width: width, height: height)
        for (format, demosaic) in [(RepackedFormat.rggb8, ISPSettings.Demosaic.malvar), (.gbrg12, .bilinear)] {
            var s = ISPSettings()
            (s.demosaic, s.whiteBalance, s.colorMatrix) = (demosaic, .gains(red: 1.4, green: 1, blue: 1.2), [1.2, -0.1, -0.1, -0.1, 1.2, -0.1, 0, -0.2, 1.2])
            let samples = BayerReference.samples(format, image, light: SIMD3(0.7, 1, 0.8))
            let want = BayerReference.process(format, samples, width: width, height: height, settings: s, gains: SIMD3(1.4, 1, 1.2))
            let three = processed(format, samples, width: width, height: height, BayerISP(settings: s, threads: 3))
            XCTAssertClose(three, want, tolerance: 1, "\(format) \(demosaic)")
            let one = processed(format, samples, width: width, height: height, BayerISP(settings: s, threads: 1))
            XCTAssertEqual(one.pixels, three.pixels, "\(format) \(demosaic): one thread against three")
        }
    }

    /// One ISP given frames of changing sizes in turn (a camera switching
    /// modes, files of different sizes) matches the reference on each: its
    /// rows, windows and thread parts follow the frame.
    func testOneISPFollowsFramesOfChangingSize() {
        var s = ISPSettings()
        (s.whiteBalance, s.blackLevel) = (.gains(red: 1.5, green: 1, blue: 1.2), 64)
        let isp = BayerISP(settings: s, threads: 3)
        for (width, height) in [(266, 134), (10, 6), (350, 150), (4, 4), (266, 134)] {
            let image = sampleImage(width: width, height: height)
            let samples = BayerReference.samples(.bggr10, image, light: SIMD3(0.7, 1, 0.8), black: 64)
            let want = BayerReference.process(.bggr10, samples, width: width, height: height, settings: s, gains: SIMD3(1.5, 1, 1.2))
            XCTAssertClose(processed(.bggr10, samples, width: width, height: height, isp), want, tolerance: 1, "\(width)x\(height)")
        }
    }

    /// The frame a source hands on for the demosaic shader: `samples` copied
    /// raw by a `FrameRepacker` (`onGPU`), with the gains it worked out.
    func rawFrame(_ format: RepackedFormat, _ samples: [Int], width: Int, height: Int, _ settings: ISPSettings) -> (Frame, FrameBuffer) {
        var settings = settings
        settings.onGPU = true
        let repacker = FrameRepacker(format: format, isp: settings)
        let buffer = FrameBuffer(format: repacker.output, width: width, height: height)
        let bayer = BayerReference.bytes(format, samples).withUnsafeBytes { raw in
            repacker.repack([Plane(bytes: raw, bytesPerRow: format.planeLayouts(width: width, height: height)[0].bytesPerRow)], into: buffer)
        }
        var frame = buffer.frame(sequence: 0, timestamp: 0)
        frame.bayer = bayer
        return (frame, buffer)
    }

    /// The demosaic shader (`bayer.frag`, the GPU path) against the same
    /// reference, within 1 of 255, edges included: every format at both
    /// demosaics (MIPI-packed ones unpacked by the shader), every setting on
    /// two formats, GLES 2 and 3, the square crop (an offset of odd parity:
    /// the pattern must follow the frame, not the crop, and a packed group
    /// straddles the crop's edge), and gray world's gains worked out on the CPU as `BayerISP` does.
    func testTheDemosaicShaderMatchesTheReference() throws {
        var settings: [ISPSettings] = []
        for demosaic in ISPSettings.Demosaic.allCases {
            for (n, gamma) in [ISPSettings.Gamma.srgb, .none, .power(1.8), .power(4)].enumerated() {
                var s = ISPSettings()
                (s.demosaic, s.gamma) = (demosaic, gamma)
                s.whiteBalance = n == 0 ? .gains(red: 1.6, green: 1, blue: 1.3) : n == 3 ? .grayWorld : .off
                s.colorMatrix = n == 1 ? [1.5, -0.3, -0.2, -0.2, 1.4, -0.2, 0, -0.5, 1.5] : nil
                settings.append(s)
            }
        }
        let (width, height) = (36, 22)
        let image = sampleImage(width: width, height: height)
        var cases: [(RepackedFormat, ISPSettings, GLESVersion)] = []
        for (i, format) in (Self.bayerFormats + Self.packedFormats).enumerated() {
            cases += [(format, settings[i % 4], .gles2), (format, settings[4 + (i + 1) % 4], .gles3)]
        }
        for format in [RepackedFormat.grbg8, .rggb12] { cases += settings.map { (format, $0, .auto) } }
        for (i, (format, setting, gles)) in cases.enumerated() {
            var s = setting
            let bits = format.mosaic!.bits
            s.blackLevel = i % 3 == 0 ? 16 << (bits - 8) : 0
            let samples = BayerReference.samples(format, image, light: SIMD3(0.7, 1, 0.8), black: s.blackLevel ?? 0)
            let gains: SIMD3<Double>
            switch s.whiteBalance {
            case .gains(let r, let g, let b): gains = SIMD3(Double(r), Double(g), Double(b))
            case .grayWorld: gains = BayerReference.grayWorld(format, samples, width: width, height: height, black: s.blackLevel ?? 0)
            default: gains = SIMD3(1, 1, 1)
            }
            let want = BayerReference.process(format, samples, width: width, height: height, settings: s, gains: gains)
            let (frame, buffer) = rawFrame(format, samples, width: width, height: height, s)
            XCTAssertEqual(frame.format, format.isMIPIPacked ? (bits == 10 ? .bayer10p : .bayer12p) : bits > 8 ? .bayer16 : .bayer8)
            XCTAssertEqual(Double(try XCTUnwrap(frame.bayer).gains.x), gains.x, accuracy: 1e-3, "\(format) \(s.whiteBalance)")
            for crop in [CropMode.none, .square] where crop == .none || i % 5 == 0 {
                var render = RenderSettings(crop: crop)
                render.yuvConversion = .shader
                let got = try withExtendedLifetime(buffer) { try GPUHarness.render(frame, settings: render, gles: gles) }
                let x0 = crop == .none ? 0 : (width - height) / 2
                let wanted = Image(width: got.width, height: got.height) { x, y in want.color(x + x0, y) }
                XCTAssertClose(got, wanted, tolerance: 1, "\(format) crop \(crop) GLES \(gles) \(s)")
            }
        }
    }

    /// MIPI-packed raw files, every order at 10 and 12 bits: the packing is
    /// the test's own, and the render on both paths (the CPU unpacks, or the
    /// demosaic shader does) equals the reference within 1; on the GPU path
    /// `--save-input` keeps the packed bytes as they came. A width that breaks
    /// the 10-bit groups is refused; 12-bit pairs take a width of 34.
    func testMIPIPackedFilesUnpackToTheirSamples() throws {
        XCTAssertEqual(Self.packedFormats.count, 8)
        for format in Self.packedFormats {
            let (width, height) = (format.mosaic!.bits == 10 ? 36 : 34, 20)
            let image = sampleImage(width: width, height: height)
            let samples = BayerReference.samples(format, image, light: SIMD3(0.8, 1, 0.7), black: 64)
            let bytes = BayerReference.bytes(format, samples)
            XCTAssertEqual(bytes.count, format.frameSize(width: width, height: height), "\(format): packed size")
            let file = run.folder.appendingPathComponent("\(format).raw")
            try Data(bytes).write(to: file)
            var s = ISPSettings()
            (s.whiteBalance, s.blackLevel) = (.gains(red: 1.3, green: 1, blue: 1.5), 64)
            let want = BayerReference.process(format, samples, width: width, height: height, settings: s, gains: SIMD3(1.3, 1, 1.5))
            for conversion in ["cpu", "shader"] {
                let name = "\(format)-\(conversion)"
                let result = try run.run(["render", "--input", file.path, "--format", format.fourcc, "--input-size", "\(width)x\(height)",
                                          "--awb", "1.3,1,1.5", "--black-level", "64", "--crop", "none", "--yuv-conversion", conversion,
                                          "--save-input", "\(name).raw", "-o", "\(name).png", "--quiet"])
                XCTAssertEqual(result.status, 0, result.stderr)
                let frame = try XCTUnwrap(try ImageSource(path: run.path("\(name).png")).nextFrame())
                XCTAssertClose(Image(width: width, height: height, pixels: Array(frame.planes[0].bytes)), want, tolerance: 1, name)
                if conversion == "shader" {
                    let saved = try [UInt8](Data(contentsOf: URL(fileURLWithPath: run.path("\(name).raw"))))
                    XCTAssertEqual(saved, bytes, "\(name): the packed samples saved as they came")
                }
            }
        }
        try run.write("narrow.raw", [UInt8](repeating: 0, count: 34 * 5 / 4 * 20 + 10))
        try run.assertFails(["render", "--input", run.path("narrow.raw"), "--format", "pRAA", "--input-size", "34x20", "-o", "x.png"],
                            mentioning: ["narrow.raw", "multiple of 4", "34"])
        XCTAssertEqual(RepackedFormat(name: "pgAA"), .grbg10p, "V4L2's codes differ in case only")
        XCTAssertEqual(RepackedFormat(name: "pGAA"), .gbrg10p)
    }

    /// A MIPI-packed frame handed on raw: gray world's gains from its packed
    /// rows equal those of the same samples unpacked, and the analysers' luma
    /// (from the high 8 bits of each sample) is that of the unpacked frame within 1.
    func testMIPIPackedFramesGiveTheGainsAndLumaOfTheirSamples() {
        let (width, height) = (36, 22)
        let image = sampleImage(width: width, height: height)
        var s = ISPSettings()
        s.whiteBalance = .grayWorld
        for format in Self.packedFormats {
            let samples = BayerReference.samples(format, image, light: SIMD3(0.6, 1, 0.9), black: 0)
            let (packed, packedBuffer) = rawFrame(format, samples, width: width, height: height, s)
            let (unpacked, unpackedBuffer) = rawFrame(format.unpacked, samples, width: width, height: height, s)
            XCTAssertEqual(packed.bayer?.gains, unpacked.bayer?.gains, "\(format): gains")
            XCTAssertNotEqual(packed.bayer?.gains, SIMD3(1, 1, 1), "\(format): a tinted picture needs gains")
            var luma = [UInt8](repeating: 0, count: width * height), unpackedLuma = luma
            withExtendedLifetime((packedBuffer, unpackedBuffer)) {
                LumaCopy.copy(packed, into: &luma)
                LumaCopy.copy(unpacked, into: &unpackedLuma)
            }
            XCTAssertLessThanOrEqual(zip(luma, unpackedLuma).map { abs(Int($0) - Int($1)) }.max()!, 1, "\(format): luma")
            XCTAssertGreaterThan(Set(luma).count, 10, "\(format): luma of a picture")
        }
    }

    /// A MIPI-packed frame whose rows, a byte a texel, are wider than the
    /// GPU's textures while its pixels are not (as a 4056-pixel 12-bit sensor
    /// on a GPU of 4096) is unpacked on the CPU and demosaiced as 16-bit words:
    /// the picture equals the reference within 1, edges included, at 10 and 12
    /// bits; the reason (which also keeps such a camera on mapped buffers) is
    /// found from one group over the limit, not one group under.
    func testMIPIPackedRowsWiderThanTheGPUsTexturesAreUnpackedFirst() throws {
        let limit = try GPUHarness.run { _ -> Int in
            var size: GLint = 0
            glGetIntegerv(GLenum(GL_MAX_TEXTURE_SIZE), &size)
            return Int(size)
        }
        for format in [RepackedFormat.rggb12p, .bggr10p] {
            let bits = format.mosaic!.bits
            // The narrowest width of whole groups whose packed row is over the limit.
            let group = bits == 10 ? 4 : 2
            let width = (limit * 8 / bits / group + 1) * group, height = 4
            XCTAssertGreaterThan(format.planeLayouts(width: width, height: height)[0].bytesPerRow, limit)
            XCTAssertLessThanOrEqual(width, limit)
            XCTAssertNotNil(FrameUploader.packedRowProblem(width: width, bits: bits, textureLimit: limit))
            XCTAssertNil(FrameUploader.packedRowProblem(width: width - group, bits: bits, textureLimit: limit))
            let image = sampleImage(width: width, height: height)
            var s = ISPSettings()
            (s.whiteBalance, s.gamma) = (.gains(red: 1.3, green: 1, blue: 1.5), .none)
            let samples = BayerReference.samples(format, image, light: SIMD3(0.8, 1, 0.7), black: 0)
            let want = BayerReference.process(format, samples, width: width, height: height, settings: s, gains: SIMD3(1.3, 1, 1.5))
            let (frame, buffer) = rawFrame(format, samples, width: width, height: height, s)
            XCTAssertEqual(frame.format, bits == 10 ? .bayer10p : .bayer12p)
            var render = RenderSettings(crop: .none)
            render.yuvConversion = .shader
            let got = try withExtendedLifetime(buffer) { try GPUHarness.render(frame, settings: render) }
            XCTAssertEqual(got.width, width)
            XCTAssertClose(got, want, tolerance: 1, "\(format) \(width)x\(height), texture limit \(limit)")
        }
    }

    /// The demosaic interpolates: on a picture with no color edges it gives
    /// back the picture the mosaic was sampled from, within the 8-bit rounding.
    func testSmoothPicturesComeBackFromTheirMosaic() {
        let (width, height) = (48, 32)
        let image = Image(width: width, height: height) { x, y in
            SIMD4(0.2 + 0.6 * Float(x) / 47, 0.7 - 0.5 * Float(y) / 31, 0.3 + 0.2 * Float(x + y) / 78, 1)
        }
        for demosaic in ISPSettings.Demosaic.allCases {
            var s = ISPSettings()
            (s.demosaic, s.gamma, s.whiteBalance) = (demosaic, .none, .off)
            let got = processed(.grbg16, BayerReference.samples(.grbg16, image), width: width, height: height, BayerISP(settings: s))
            // Mirrored edges bend a gradient, so the inner part is compared.
            let inner = { (i: Image) in Image(width: width - 4, height: height - 4) { x, y in i.color(x + 2, y + 2) } }
            XCTAssertClose(inner(got), inner(image), tolerance: 1, "\(demosaic)")
        }
    }

    func testGrayWorldMakesAFlatGrayFieldGray() {
        let (width, height) = (40, 30)
        let gray = Image(width: width, height: height) { _, _ in SIMD4(0.45, 0.45, 0.45, 1) }
        let samples = BayerReference.samples(.rggb10, gray, light: SIMD3(0.55, 1, 0.75), black: 64)
        var s = ISPSettings()
        (s.whiteBalance, s.blackLevel) = (.grayWorld, 64)
        let isp = BayerISP(settings: s)
        let got = processed(.rggb10, samples, width: width, height: height, isp)
        var worst = 0
        for y in 0..<height { for x in 0..<width { let p = got.pixel(x, y); worst = max(worst, abs(p.x - p.y), abs(p.z - p.y)) } }
        XCTAssertLessThanOrEqual(worst, 2, "R, G and B of a gray field after gray world")
        let gains = BayerReference.grayWorld(.rggb10, samples, width: width, height: height, black: 64)
        XCTAssertEqual(Double(isp.lastGains.x), gains.x, accuracy: 1e-3)
        XCTAssertEqual(Double(isp.lastGains.z), gains.z, accuracy: 1e-3)
        XCTAssertEqual(gains.x, 1 / 0.55, accuracy: 0.02, "the cast undone")
        s.whiteBalance = .off
        let cast = processed(.rggb10, samples, width: width, height: height, BayerISP(settings: s)).pixel(20, 15)
        XCTAssertGreaterThan(cast.y - cast.x, 30, "without white balance the cast stays")
    }

    /// `auto` balances the first frame by its own statistics, then each frame
    /// by the frames before it, moving a quarter of the way to the new gains a frame.
    /// `auto` develops the first frame by its own statistics, and each later
    /// one by the frames before, smoothed; past the first frame, the statistics
    /// are gathered while the frame is processed, each row once, also when threads split it.
    func testAutoWhiteBalanceFollowsTheLightSmoothly() {
        for (width, height, format, threads) in [(16, 12, RepackedFormat.bggr8, 1), (522, 262, .grbg16, 3)] {
            // Colors that change down the frame, so a row counted twice or missed moves the gains.
            let picture = width < 100 ? Image(width: width, height: height) { _, _ in SIMD4(0.5, 0.5, 0.5, 1) }
                : Image(width: width, height: height) { x, y in
                    let (fx, fy) = (Float(x) / Float(width), Float(y) / Float(height))
                    return SIMD4(1 - 0.9 * fy, 0.1 + 0.9 * fy * fy, 0.3 + 0.4 * fx, 1)
                }
            let warm = BayerReference.samples(format, picture, light: SIMD3(1, 0.8, 0.5))
            let cool = BayerReference.samples(format, picture, light: SIMD3(0.5, 0.8, 1))
            let isp = BayerISP(settings: ISPSettings(), threads: threads)
            let name = "\(width)x\(height) \(format), \(threads) threads"
            _ = processed(format, warm, width: width, height: height, isp)
            let warmGains = BayerReference.grayWorld(format, warm, width: width, height: height, black: 0)
            let coolGains = BayerReference.grayWorld(format, cool, width: width, height: height, black: 0)
            XCTAssertEqual(Double(isp.lastGains.z), warmGains.z, accuracy: 1e-3, "the first frame by its own statistics, \(name)")
            _ = processed(format, cool, width: width, height: height, isp)
            XCTAssertEqual(Double(isp.lastGains.z), warmGains.z, accuracy: 1e-3, "the frame after the change by the frames before, \(name)")
            var expected = warmGains
            for frame in 0..<12 {
                _ = processed(format, cool, width: width, height: height, isp)
                expected += (coolGains - expected) * 0.25
                XCTAssertEqual(Double(isp.lastGains.x), expected.x, accuracy: 1e-4, "frame \(frame) after the change, \(name)")
                XCTAssertEqual(Double(isp.lastGains.z), expected.z, accuracy: 1e-4, "frame \(frame) after the change, \(name)")
            }
            XCTAssertEqual(Double(isp.lastGains.z), coolGains.z, accuracy: 0.1, "settled on the new light, \(name)")
        }
    }

    func testRawBayerFilesRenderTheISPsPicture() throws {
        let (width, height) = (64, 36)
        let image = sampleImage(width: width, height: height)
        for format in [RepackedFormat.rggb8, .gbrg10, .bggr16] {
            let samples = BayerReference.samples(format, image, light: SIMD3(0.6, 1, 0.8))
            let file = run.folder.appendingPathComponent("\(format).raw")
            try Data(BayerReference.bytes(format, samples)).write(to: file)
            var s = ISPSettings()
            s.whiteBalance = .grayWorld
            let gains = BayerReference.grayWorld(format, samples, width: width, height: height, black: 0)
            let want = BayerReference.process(format, samples, width: width, height: height, settings: s, gains: gains)
            for (crop, x0, side) in [("none", 0, width), ("square", (width - height) / 2, height)] {
                for conversion in ["cpu", "shader"] {
                    let result = try run.run(["render", "--input", file.path, "--format", format.fourcc, "--input-size", "\(width)x\(height)",
                                              "--awb", "gray-world", "--crop", crop, "--yuv-conversion", conversion,
                                              "-o", "\(format)-\(crop)-\(conversion).png", "-v"])
                    XCTAssertEqual(result.status, 0, result.stderr)
                    XCTAssertTrue(result.stderr.contains(conversion == "cpu" ? "demosaiced to rgb24 on the CPU" : "demosaiced on the GPU"), result.stderr)
                    let frame = try XCTUnwrap(try ImageSource(path: run.path("\(format)-\(crop)-\(conversion).png")).nextFrame())
                    let got = Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes))
                    let wanted = Image(width: side, height: crop == "none" ? height : side) { x, y in want.color(x + x0, y) }
                    XCTAssertClose(got, wanted, tolerance: 1, "\(format), crop \(crop), \(conversion)")
                }
            }
        }
    }

    /// The color difference the camera test's color check uses, on pairs from Sharma, Wu and Dalal's test data.
    func testColorDifferenceMatchesPublishedPairs() {
        let pairs: [(SIMD3<Double>, SIMD3<Double>, Double)] = [
            ([50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425),
            ([50, 0, 0], [50, -1, 2], 2.3669),
            ([50, 2.5, 0], [73, 25, -18], 27.1492),
            ([60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644),
        ]
        for (a, b, want) in pairs { XCTAssertEqual(ColorDifference.deltaE2000(a, b), want, accuracy: 1e-4, "\(a) \(b)") }
        XCTAssertEqual(ColorDifference.lab(srgb: SIMD3(1, 1, 1)).x, 100, accuracy: 0.01)
    }

    func testBadBayerInputIsRefusedInOneLine() throws {
        try run.write("odd.raw", [UInt8](repeating: 0, count: 63 * 36))
        try run.assertFails(["render", "--input", run.path("odd.raw"), "--format", "rggb8", "--input-size", "63x36", "-o", "x.png"],
                            mentioning: ["odd.raw", "even width and height", "63x36", "--input-size"])
        try run.write("short.raw", [UInt8](repeating: 0, count: 64 * 36 * 2 - 1))
        try run.assertFails(["render", "--input", run.path("short.raw"), "--format", "BG10", "--input-size", "64x36", "-o", "x.png"],
                            mentioning: ["short.raw", "less than one 64x36 bggr10 frame"])
        let raw = ["--input", run.path("odd.raw"), "--format", "bayer_rggb8", "--input-size", "62x36", "-o", "x.png"]
        try run.assertFails(["render"] + raw + ["--awb", "purple"], mentioning: ["--awb purple", "gray-world", "R,G,B"])
        try run.assertFails(["render"] + raw + ["--awb", "1,0,1"], mentioning: ["--awb 1,0,1", "above 0"])
        try run.assertFails(["render"] + raw + ["--gamma", "0"], mentioning: ["--gamma 0", "srgb, none", "from 1 to 4"])
        try run.assertFails(["render"] + raw + ["--ccm", "1,0,0,0,1,0,0,0"], mentioning: ["--ccm", "nine numbers"])
        try run.assertFails(["render"] + raw + ["--demosaic", "ahd"], mentioning: ["--demosaic ahd", "malvar or bilinear"])
        try run.assertFails(["render"] + raw + ["--black-level", "255"], mentioning: ["--black-level 255", "0 to 254", "8 bits"])
        try run.assertFails(["render", "--awb", "off", "-o", "x.png"], mentioning: ["--awb", "raw Bayer", "rggb8"])
    }
}
