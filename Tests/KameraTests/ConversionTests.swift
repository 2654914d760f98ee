import Capture
import Filters
import GPU
import Pixels
import Render
import XCTest

/// A YUV or RGB test frame of deterministic pseudo-random bytes (Y and chroma
/// kept in the legal range of `colorSpace`), for the conversion tests.
func randomFrame(_ format: PixelFormat, width: Int, height: Int, colorSpace: YUVColorSpace = .bt601Limited) -> (Frame, FrameBuffer) {
    let buffer = FrameBuffer(format: format, width: width, height: height)
    var seed: UInt32 = 99
    let bytes = buffer.allBytes
    for i in 0..<bytes.count {
        seed = seed &* 1_664_525 &+ 1_013_904_223
        let r = UInt8(seed >> 24)
        bytes[i] = format.isYUV && colorSpace.range == .limited ? 16 + r % 220 : r
    }
    return (buffer.frame(sequence: 0, timestamp: 0, colorSpace: colorSpace), buffer)
}

/// `YUVToRGBA`'s conversion of the rectangle `rect` (x, y, width, height) of
/// `frame`, as RGBA whatever `order` it was made in (BGRA's red and blue swapped back).
func cpuConverted(_ frame: Frame, rect: (Int, Int, Int, Int), transform: RGBTransform?, order: YUVToRGBA.ChannelOrder, halved: Bool) -> Image {
    let converter = YUVToRGBA()
    converter.convert(frame, x: rect.0, y: rect.1, width: rect.2, height: rect.3, transform: transform, order: order, halved: halved)
    var image = Image(width: converter.outputWidth, height: converter.outputHeight, pixels: Array(converter.pixels))
    if order == .bgra {
        for i in stride(from: 0, to: image.pixels.count, by: 4) { image.pixels.swapAt(i, i + 2) }
    }
    return image
}

/// YUV → RGB in the texture cache, by its shaders and by its CPU conversion
/// (`YUVToRGBA`, the default on llvmpipe), against the CPU reference built
/// from the BT.601/BT.709 formulas, and the direct uploads of the RGB formats.
/// Tolerance: 2 of 255 per channel.
final class ConversionTests: XCTestCase {
    let tolerance = 2

    func settings(crop: CropMode, _ conversion: FrameUploader.YUVConversion) -> RenderSettings {
        var settings = RenderSettings(crop: crop)
        settings.yuvConversion = conversion
        return settings
    }

    /// Cameras' other YUV layouts (UYVY, YVYU, VYUY, NV21, NV16, NV61, YU12, YV12, 422P) reach
    /// the cache as they are only for its shaders; asked to convert on the
    /// CPU, it takes the shaders for them anyway.
    func testYUVFormatsMatrixAndRangeAgainstCPUReference() throws {
        for format in [PixelFormat.yuyv, .nv12, .uyvy, .yvyu, .vyuy, .nv21, .nv16, .nv61, .yu12, .yv12, .yuv422p] {
            for matrix in YUVColorSpace.Matrix.allCases {
                for range in YUVColorSpace.Range.allCases {
                    for gles in [GLESVersion.gles2, .gles3] {
                        for conversion in [FrameUploader.YUVConversion.shader, .cpu] {
                            // Odd sizes too: a last YUYV pair and NV12 chroma block cut in half.
                            for (width, height) in [(64, 36), (63, 35)] {
                                let cs = YUVColorSpace(matrix: matrix, range: range)
                                let (frame, buffer) = randomFrame(format, width: width, height: height, colorSpace: cs)
                                let image = try withExtendedLifetime(buffer) {
                                    try GPUHarness.render(frame, settings: settings(crop: .none, conversion), gles: gles)
                                }
                                XCTAssertClose(image, CPUReference.decode(frame), tolerance: tolerance,
                                               "\(format) \(width)x\(height) \(cs) GLES \(gles.rawValue) \(conversion)")
                            }
                        }
                    }
                }
            }
        }
    }

    func testSquareCropOfYUVWithOddOffset() throws {
        for format in [PixelFormat.yuyv, .nv12] {
            for conversion in [FrameUploader.YUVConversion.shader, .cpu] {
                // 50x32: the square starts at x = 9, in the middle of a YUYV pair.
                let (frame, buffer) = randomFrame(format, width: 50, height: 32)
                let image = try withExtendedLifetime(buffer) { try GPUHarness.render(frame, settings: settings(crop: .square, conversion)) }
                let reference = CPUReference.crop(CPUReference.decode(frame), x: 9, y: 0, width: 32, height: 32)
                XCTAssertClose(image, reference, tolerance: tolerance, "\(format) square crop, \(conversion)")
            }
        }
    }

    /// On llvmpipe, `auto` converts on the CPU; the two ways agree within 1 of 255.
    func testAutoConvertsOnTheCPUWithASoftwareRendererAndAgreesWithTheShader() throws {
        let (frame, buffer) = randomFrame(.yuyv, width: 40, height: 30)
        let (onCPU, viaShader) = try withExtendedLifetime(buffer) {
            try GPUHarness.run { context -> (Bool, Int) in
                let renderer = try FrameRenderer(context: context, settings: RenderSettings(crop: .none))
                let auto = Image(width: 40, height: 30, pixels: Array(try renderer.render(frame, index: 0)))
                let usedCPU = renderer.uploader.convertsYUVOnCPU
                try renderer.update(self.settings(crop: .none, .shader))
                let shader = Image(width: 40, height: 30, pixels: Array(try renderer.render(frame, index: 1)))
                return (usedCPU, auto.maxDifference(shader).value)
            }
        }
        XCTAssertTrue(onCPU, "llvmpipe renders in software: auto converts on the CPU")
        XCTAssertLessThanOrEqual(viaShader, 1, "CPU and shader conversions differ by \(viaShader)/255")
    }

    /// The whole frame through `chain`, and whether its color matrix was
    /// folded into the conversion.
    func render(_ frame: Frame, _ chain: FilterChain, _ conversion: FrameUploader.YUVConversion) throws -> (Image, Bool) {
        var s = settings(crop: .none, conversion)
        s.filters = chain
        return try GPUHarness.run { context -> (Image, Bool) in
            let renderer = try FrameRenderer(context: context, settings: s)
            let pixels = try renderer.render(frame, index: 0)
            return (Image(width: frame.width, height: frame.height, pixels: Array(pixels)), renderer.matrixFolded)
        }
    }

    /// A lone color matrix is folded into the YUV conversion, on the CPU and
    /// in the conversion shader alike (no pass of its own): it applies to the
    /// color the YUV values encode, clamped once at the end. Against the CPU
    /// reference built that way, on random YUV (much of it outside the RGB
    /// cube). Contrast and brightness push values out of 0...1 too.
    func testColorMatrixFoldedIntoTheConversion() throws {
        for format in [PixelFormat.yuyv, .nv12] {
            // contrast=4 reaches beyond what the CPU's packed fields hold: its wide tables.
            for filters in [["sepia"], ["contrast=1.8", "brightness=0.1"], ["invert"], ["contrast=4"]] {
                let chain = try FilterChain(parsing: filters, intensity: filters == ["sepia"] ? 0.7 : 1)
                guard let m = chain.foldedMatrices.last, chain.foldedMatrices.count == 1 else { return XCTFail("\(filters): not one matrix") }
                for conversion in [FrameUploader.YUVConversion.shader, .cpu] {
                    let (frame, buffer) = randomFrame(format, width: 63, height: 35)
                    let (image, folded) = try withExtendedLifetime(buffer) { try render(frame, chain, conversion) }
                    XCTAssertTrue(folded, "\(filters) \(conversion)")
                    // Contrast also multiplies the conversion's own rounding (up to 2 of 255).
                    let scale = filters[0].hasPrefix("contrast=") ? Double(filters[0].dropFirst(9))! : 1
                    XCTAssertClose(image, CPUReference.decode(frame, folding: m), tolerance: Int((Double(tolerance) * scale).rounded(.up)),
                                   "\(format) \(filters) \(conversion)")
                }
            }
        }
    }

    /// A matrix too strong for fixed point (coefficients of 40,000, or five
    /// contrast=4 chained: 1024) is not folded: the final draw applies it,
    /// with no crash (a coefficient of 32,768 overflowed the 16.16 fields).
    func testMatrixTooStrongToFoldIsDrawn() throws {
        let (frame, buffer) = randomFrame(.yuyv, width: 40, height: 30)
        for filters in [["matrix=40000,0,0,0,1,0,0,0,1"], Array(repeating: "contrast=4", count: 5)] {
            let chain = try FilterChain(parsing: filters)
            guard let m = chain.foldedMatrices.last, chain.foldedMatrices.count == 1 else { return XCTFail("\(filters): not one matrix") }
            XCTAssertNil(m.rgbTransform, "\(filters)")
            for conversion in [FrameUploader.YUVConversion.shader, .cpu] {
                let (image, folded) = try withExtendedLifetime(buffer) { try render(frame, chain, conversion) }
                XCTAssertFalse(folded, "\(filters) \(conversion)")
                // Drawn after a conversion to 8 bits: the reference takes the same steps.
                // Such gains turn the conversion's rounding (1 of 255) at their threshold
                // into 0 or 255, so a few pixels there may differ; at most 3 %.
                let reference = CPUReference.apply(m, to: CPUReference.decode(frame))
                var off = 0
                for y in 0..<30 {
                    for x in 0..<40 where image.maxDifference(reference, x, y) > 2 { off += 1 }
                }
                XCTAssertLessThanOrEqual(off, 40 * 30 * 3 / 100, "\(filters) \(conversion): \(off) pixels differ")
            }
        }
    }

    /// Folded into the conversion, gray is the frame's own luma, even for
    /// saturated colors outside RGB, which clamping first would darken or
    /// lighten: checked on random YUV against (Y' - 16) * 255 / 219, and the
    /// frame has such colors (clamping first differs by more than 8 of 255).
    func testGrayOfAYUVFrameIsItsLuma() throws {
        let (frame, buffer) = randomFrame(.yuyv, width: 48, height: 32)
        for conversion in [FrameUploader.YUVConversion.shader, .cpu] {
            var s = settings(crop: .none, conversion)
            s.filters = try FilterChain(parsing: ["gray"])
            let image = try withExtendedLifetime(buffer) { try GPUHarness.render(frame, settings: s) }
            let luma = Image(width: 48, height: 32) { x, y in
                let l = Float(CPUReference.samples(frame, x, y).y) - 16
                return SIMD4(repeating: l / 219).clamped(lowerBound: .zero, upperBound: .one) + SIMD4(0, 0, 0, 1)
            }
            XCTAssertClose(image, luma, tolerance: 1, "gray is luma, \(conversion)")
        }
        let clampedFirst = CPUReference.apply(.gray, to: CPUReference.decode(frame))
        XCTAssertGreaterThan(clampedFirst.maxDifference(CPUReference.decode(frame, folding: .gray)).value, 8)
    }

    /// The CPU conversion at half size (a picture shown at half its size or
    /// less) against the reference: block means of Y', Cb and Cr, converted.
    /// Odd sizes and a crop starting mid-pair, with and without a folded color
    /// matrix, in both byte orders. Tolerance 2 (the means are rounded to 8 bits).
    func testHalvedCPUConversionAgainstCPUReference() throws {
        let sepia = try XCTUnwrap(ColorMatrix.sepia.rgbTransform)
        for format in [PixelFormat.yuyv, .nv12] {
            for (width, height, rect) in [(64, 36, (0, 0, 64, 36)), (63, 35, (0, 0, 63, 35)), (50, 32, (9, 0, 32, 32)), (41, 30, (3, 5, 33, 21))] {
                let (frame, buffer) = randomFrame(format, width: width, height: height)
                let reference = CPUReference.decodeHalved(frame, x: rect.0, y: rect.1, width: rect.2, height: rect.3)
                for transform in [nil, sepia] {
                    let expected = transform == nil ? reference
                        : CPUReference.decodeHalved(frame, x: rect.0, y: rect.1, width: rect.2, height: rect.3, folding: .sepia)
                    var rgba = Image(width: 0, height: 0, pixels: [])
                    for order in [YUVToRGBA.ChannelOrder.rgba, .bgra] {
                        let image = withExtendedLifetime(buffer) {
                            cpuConverted(frame, rect: rect, transform: transform, order: order, halved: true)
                        }
                        if order == .bgra {
                            XCTAssertEqual(image, rgba, "BGRA is RGBA with red and blue swapped")
                        } else {
                            rgba = image
                        }
                        XCTAssertClose(image, expected, tolerance: tolerance, "\(format) \(width)x\(height) rect \(rect) halved, \(transform == nil ? "plain" : "sepia") \(order)")
                    }
                }
            }
        }
    }

    /// The renderer converts at half size only when the picture is shown at
    /// less than 1/√2 of the crop and nothing but the final draw reads the
    /// texture; shown at exactly half size, the output is the halved reference.
    func testRendererHalvesTheConversionOnlyForPicturesShownSmall() throws {
        let (frame, buffer) = randomFrame(.yuyv, width: 64, height: 36)
        var half = settings(crop: .none, .cpu)
        half.outputSize = (32, 18)
        var threeQuarters = half
        threeQuarters.outputSize = (48, 27)
        var filtered = half
        filtered.filters = try FilterChain(parsing: ["pixellate=4"])
        var cube = settings(crop: .square, .cpu)
        cube.mode = .cube
        cube.outputSize = (40, 40)  // a face's edge of 19 pixels for a crop of 36
        let results = try withExtendedLifetime(buffer) {
            try GPUHarness.run { context -> [(Image, Bool)] in
                try [half, threeQuarters, filtered, cube].map { s in
                    let renderer = try FrameRenderer(context: context, settings: s)
                    let pixels = try renderer.render(frame, index: 0)
                    let size = renderer.lastOutputSize!
                    return (Image(width: size.width, height: size.height, pixels: Array(pixels)), renderer.uploader.lastConversionHalved)
                }
            }
        }
        XCTAssertEqual(results.map(\.1), [true, false, false, true], "halved: half size, 3/4 size, a filter pass, a small cube")
        XCTAssertClose(results[0].0, CPUReference.decodeHalved(frame, x: 0, y: 0, width: 64, height: 36), tolerance: tolerance,
                       "shown at half size")
    }

    /// With the CPU conversion and a 1:1 picture, the renderer skips upload,
    /// draw and read-back; what it returns is exactly what the draw gives.
    func testPassthroughEqualsTheDrawnPicture() throws {
        for format in [PixelFormat.yuyv, .nv12] {
            for (crop, filters) in [(CropMode.none, ["sepia"]), (.square, []), (.square, ["contrast=1.8"])] {
                let (frame, buffer) = randomFrame(format, width: 63, height: 35)
                var s = settings(crop: crop, .cpu)
                s.filters = try FilterChain(parsing: filters)
                let (skipped, drawn, passes) = try withExtendedLifetime(buffer) {
                    try GPUHarness.run { context -> ([UInt8], [UInt8], Int) in
                        let renderer = try FrameRenderer(context: context, settings: s)
                        _ = try renderer.render(frame, index: 0)  // the first frame is always drawn
                        let skipped = Array(try renderer.render(frame, index: 1))
                        let passes = renderer.lastPassCount
                        renderer.rewrites.remove(.passthrough)
                        return (skipped, Array(try renderer.render(frame, index: 0)), passes)
                    }
                }
                XCTAssertEqual(passes, 0, "\(format) \(crop) \(filters): no GPU pass")
                XCTAssertEqual(skipped, drawn, "\(format) \(crop) \(filters)")
            }
        }
    }

    /// RGB in every byte order, RGB565, GREY and 10- to 16-bit gray: the
    /// other orders read by texture swizzle on OpenGL ES 3 and by `swizzle.frag`
    /// on OpenGL ES 2, deep gray widened by `deep_gray.frag`; each against the
    /// source picture (RGB565: quantized to 5, 6 and 5 bits and widened here;
    /// gray: its BT.601 luma), within `tolerance`.
    func testDirectFormatsUploadUnchanged() throws {
        let source = sampleImage(width: 40, height: 30)
        for format in [PixelFormat.rgba, .bgra, .rgb24, .grey, .bgr24, .rgbx, .bgrx, .xbgr, .abgr, .argb, .xrgb, .rgb565, .y10, .y12, .y16] {
            let (rgba, keep) = source.frame()
            let buffer = FrameBuffer(format: format, width: 40, height: 30)
            FormatConverter.convert(rgba: keep, to: buffer, colorSpace: YUVColorSpace(matrix: .bt601, range: .full))
            let frame = buffer.frame(sequence: 0, timestamp: 0)
            _ = rgba
            for gles in [GLESVersion.gles2, .gles3] {
                // RGB24 and GREY would be cropped by the CPU on llvmpipe (`RGBCPUConversionTests`): uploads here.
                let image = try GPUHarness.render(frame, settings: settings(crop: .none, .shader), gles: gles)
                let reference: Image
                switch format {
                case .grey, .y10, .y12, .y16:
                    reference = Image(width: 40, height: 30) { x, y in
                        let c = source.color(x, y)
                        let l = 0.299 * c.x + 0.587 * c.y + 0.114 * c.z
                        return SIMD4(l, l, l, 1)
                    }
                case .rgb565:
                    reference = Image(width: 40, height: 30) { x, y in
                        let c = source.color(x, y)
                        func bits(_ v: Float, _ top: Float) -> Float { (v * top).rounded() / top }
                        return SIMD4(bits(c.x, 31), bits(c.y, 63), bits(c.z, 31), 1)
                    }
                default:
                    reference = source
                }
                XCTAssertClose(image, reference, tolerance: tolerance, "\(format) GLES \(gles.rawValue)")
            }
        }
    }

    /// Rows padded past the image (as V4L2 drivers may deliver) upload with
    /// GL_UNPACK_ROW_LENGTH on GLES 3 and row by row on GLES 2.
    func testPaddedRowsOnBothGLESVersions() throws {
        let (tight, buffer) = randomFrame(.yuyv, width: 32, height: 16)
        let padded = UnsafeMutableRawBufferPointer.allocate(byteCount: 96 * 16, alignment: 16)
        defer { padded.deallocate() }
        padded.initializeMemory(as: UInt8.self, repeating: 0xEE)
        for row in 0..<16 {
            let src = UnsafeRawBufferPointer(rebasing: buffer.planes[0].bytes[(row * 64)..<(row * 64 + 64)])
            UnsafeMutableRawBufferPointer(rebasing: padded[(row * 96)..<(row * 96 + 64)]).copyMemory(from: src)
        }
        var frame = tight
        frame.planes = [Plane(bytes: UnsafeRawBufferPointer(padded), bytesPerRow: 96)]
        for gles in [GLESVersion.gles2, .gles3] {
            let image = try GPUHarness.render(frame, settings: RenderSettings(crop: .none), gles: gles)
            XCTAssertClose(image, CPUReference.decode(tight), tolerance: tolerance, "padded YUYV GLES \(gles.rawValue)")
        }
        withExtendedLifetime(buffer) {}
    }

    func testTestPatternInEveryFormatLooksTheSame() throws {
        let rgba = try GPUHarness.render(TestPattern(width: 64, height: 48, format: .rgba).frame(at: 3),
                                         settings: RenderSettings(crop: .none))
        for format in [PixelFormat.yuyv, .nv12] {
            let pattern = TestPattern(width: 64, height: 48, format: format)
            let image = try GPUHarness.render(pattern.frame(at: 3), settings: RenderSettings(crop: .none))
            // 8-bit YUV round trip plus chroma subsampling: compare where the
            // 3x3 neighbourhood is uniform (not at bar, square or digit edges).
            var worst = 0, compared = 0
            for y in 1..<47 {
                for x in 1..<63 {
                    let center = rgba.pixel(x, y)
                    let uniform = (-1...1).allSatisfy { dy in (-1...1).allSatisfy { dx in rgba.pixel(x + dx, y + dy) == center } }
                    guard uniform else { continue }
                    let d = image.pixel(x, y) &- center
                    worst = max(worst, abs(d.x), abs(d.y), abs(d.z))
                    compared += 1
                }
            }
            XCTAssertGreaterThan(compared, 1000)
            XCTAssertLessThanOrEqual(worst, 4, "\(format) test pattern vs RGBA")
        }
    }

    func testBGRAWithoutTheUploadExtension() throws {
        let source = sampleImage(width: 24, height: 16)
        let (_, keep) = source.frame()
        let buffer = FrameBuffer(format: .bgra, width: 24, height: 16)
        FormatConverter.convert(rgba: keep, to: buffer, colorSpace: .bt601Limited)
        let frame = buffer.frame(sequence: 0, timestamp: 0)
        let image = try GPUHarness.run { context -> Image in
            let renderer = try FrameRenderer(context: context, settings: RenderSettings(crop: .none))
            renderer.uploader.uploadsBGRADirectly = false
            return Image(width: 24, height: 16, pixels: Array(try renderer.render(frame, index: 0)))
        }
        XCTAssertClose(image, source, tolerance: tolerance, "BGRA read in its order (texture swizzle)")
    }

    /// Switching filters and mode between frames keeps working on the same renderer.
    func testSwitchingSettingsWhileRunning() throws {
        let source = sampleImage(width: 32, height: 32)
        let (frame, buffer) = source.frame()
        let (sepia, invert, cube) = try withExtendedLifetime(buffer) {
            try GPUHarness.run { context -> (Image, Image, Image) in
                let renderer = try FrameRenderer(context: context, settings: RenderSettings(filters: try FilterChain(parsing: ["sepia"])))
                let a = Image(width: 32, height: 32, pixels: Array(try renderer.render(frame, index: 0)))
                try renderer.update(RenderSettings(filters: try FilterChain(parsing: ["invert"])))
                let b = Image(width: 32, height: 32, pixels: Array(try renderer.render(frame, index: 1)))
                try renderer.update(RenderSettings(mode: .cube))
                let c = Image(width: 32, height: 32, pixels: Array(try renderer.render(frame, index: 2)))
                return (a, b, c)
            }
        }
        XCTAssertClose(sepia, CPUReference.apply(.sepia, to: source), tolerance: tolerance, "before the switch")
        XCTAssertClose(invert, CPUReference.apply(.invert, to: source), tolerance: tolerance, "after the switch")
        XCTAssertEqual(cube.pixel(0, 0), SIMD4(51, 51, 51, 255), "cube background after switching mode")
    }
}
