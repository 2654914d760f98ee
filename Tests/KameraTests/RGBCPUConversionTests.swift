import Filters
import GPU
import Pixels
import Render
import XCTest

/// RGB24 and GREY frames through the CPU's conversion (`YUVToRGBA` on a
/// software renderer, or `--yuv-conversion cpu`): cropped into RGBA with a
/// color matrix folded in, at half size and as a mosaic, against a CPU
/// reference computed here in floating point (`clamp(M * rgb + k)`, rounded),
/// and against the shader path's picture. Tolerance: 1 of 255 for the
/// conversion (its fixed point rounds once), 2 for a halved picture (the
/// block means are rounded to 8 bits) and for the shader path.
final class RGBCPUConversionTests: XCTestCase {
    /// The frame's own colors: RGB24 as it is, GREY as R = G = B.
    func source(_ frame: Frame) -> Image {
        let plane = frame.planes[0]
        return Image(width: frame.width, height: frame.height) { x, y in
            if frame.format == .grey {
                let g = Float(plane.bytes[y * plane.bytesPerRow + x]) / 255
                return SIMD4(g, g, g, 1)
            }
            let i = y * plane.bytesPerRow + x * 3
            return SIMD4(Float(plane.bytes[i]), Float(plane.bytes[i + 1]), Float(plane.bytes[i + 2]), 255) / 255
        }
    }

    /// The rectangle's 2x2 block means (a last odd row or column counted twice), each channel rounded to 8 bits.
    func halved(_ image: Image, x: Int, y: Int, width: Int, height: Int) -> Image {
        Image(width: max(1, width / 2), height: max(1, height / 2)) { bx, by in
            var sum = SIMD4<Int>.zero
            for dy in 0..<2 {
                for dx in 0..<2 { sum &+= image.pixel(min(x + 2 * bx + dx, x + width - 1), min(y + 2 * by + dy, y + height - 1)) }
            }
            return SIMD4<Float>((sum &+ 2) / 4) / 255
        }
    }

    static let matrices: [[String]] = [[], ["sepia"], ["contrast=1.8", "brightness=0.1"], ["invert"], ["matrix=6,0,0,0,6,0,0,0,6"]]

    func testCroppedAndMatrixFoldedAgainstTheReference() throws {
        for format in [PixelFormat.rgb24, .grey] {
            for (width, height, rect) in [(64, 36, (0, 0, 64, 36)), (63, 35, (0, 0, 63, 35)), (50, 32, (9, 0, 32, 32)), (41, 30, (3, 5, 33, 21))] {
                let (frame, buffer) = randomFrame(format, width: width, height: height)
                let whole = source(frame)
                let cropped = CPUReference.crop(whole, x: rect.0, y: rect.1, width: rect.2, height: rect.3)
                for filters in Self.matrices {
                    let m = try FilterChain(parsing: filters).foldedMatrices.last ?? .identity
                    let transform = filters.isEmpty ? nil : try XCTUnwrap(m.rgbTransform, "\(filters)")
                    for order in [YUVToRGBA.ChannelOrder.rgba, .bgra] {
                        for halve in [false, true] {
                            let image = withExtendedLifetime(buffer) {
                                cpuConverted(frame, rect: rect, transform: transform, order: order, halved: halve)
                            }
                            let plain = halve ? halved(whole, x: rect.0, y: rect.1, width: rect.2, height: rect.3) : cropped
                            XCTAssertClose(image, CPUReference.apply(m, to: plain), tolerance: 1,
                                           "\(format) \(width)x\(height) rect \(rect) \(filters) \(order)\(halve ? " halved" : "")")
                        }
                    }
                }
            }
        }
    }

    /// Through the renderer: the CPU path folds the matrix (no pass drawn
    /// when the picture is the crop) and agrees with the shader path, which
    /// draws the matrix; a pixellate folded into the CPU conversion draws the
    /// same mosaic as `pixellate.frag`, whose blocks start at the crop's
    /// corner though the shader path's crop is a region of the whole frame's texture.
    func testTheRendererFoldsTheMatrixAndAgreesWithTheShaderPath() throws {
        for format in [PixelFormat.rgb24, .grey] {
            let (frame, buffer) = randomFrame(format, width: 63, height: 35)
            for filters in Self.matrices.dropLast() + [["pixellate=7", "sepia"], ["pixellate=16"]] {
                let chain = try FilterChain(parsing: filters)
                var pictures: [Image] = []
                for conversion in [FrameUploader.YUVConversion.cpu, .shader] {
                    var settings = RenderSettings(crop: .square)
                    settings.yuvConversion = conversion
                    settings.filters = chain
                    let (image, folded, passes) = try withExtendedLifetime(buffer) {
                        try GPUHarness.run { context -> (Image, Bool, Int) in
                            let renderer = try FrameRenderer(context: context, settings: settings)
                            _ = try renderer.render(frame, index: 0)  // the first frame is always drawn
                            let pixels = try renderer.render(frame, index: 1)
                            return (Image(width: 35, height: 35, pixels: Array(pixels)), renderer.matrixFolded, renderer.lastPassCount)
                        }
                    }
                    if conversion == .cpu {
                        XCTAssertEqual(folded, chain.foldedMatrices.count == 1, "\(format) \(filters): the matrix folded into the CPU conversion")
                        XCTAssertEqual(passes, 0, "\(format) \(filters): the conversion is the picture, no pass")
                    }
                    pictures.append(image)
                }
                XCTAssertClose(pictures[0], pictures[1], tolerance: 2, "\(format) \(filters): CPU against shader")
                let m = chain.foldedMatrices.last ?? .identity
                var expected = CPUReference.apply(m, to: CPUReference.crop(source(frame), x: 14, y: 0, width: 35, height: 35))
                if let block = filters.first?.split(separator: "=").last.flatMap({ Int($0) }), filters[0].hasPrefix("pixellate") {
                    expected = CPUReference.pixellate(expected, block: block)
                }
                XCTAssertClose(pictures[0], expected, tolerance: 1, "\(format) \(filters): CPU against the reference")
            }
        }
    }

    /// Rows padded past the picture (a camera's stride) are read by their stride.
    func testPaddedRows() throws {
        let (tight, buffer) = randomFrame(.rgb24, width: 30, height: 20)
        let stride = 30 * 3 + 26
        let padded = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * 20, alignment: 16)
        defer { padded.deallocate() }
        padded.initializeMemory(as: UInt8.self, repeating: 0xEE)
        for row in 0..<20 {
            let from = UnsafeRawBufferPointer(rebasing: buffer.planes[0].bytes[(row * 90)..<(row * 90 + 90)])
            UnsafeMutableRawBufferPointer(rebasing: padded[(row * stride)..<(row * stride + 90)]).copyMemory(from: from)
        }
        let frame = Frame(format: .rgb24, width: 30, height: 20, planes: [Plane(bytes: UnsafeRawBufferPointer(padded), bytesPerRow: stride)])
        let converter = YUVToRGBA()
        converter.convert(frame, x: 5, y: 0, width: 20, height: 20, transform: ColorMatrix.sepia.rgbTransform)
        let image = Image(width: 20, height: 20, pixels: Array(converter.pixels))
        let reference = withExtendedLifetime(buffer) { CPUReference.apply(.sepia, to: CPUReference.crop(source(tight), x: 5, y: 0, width: 20, height: 20)) }
        XCTAssertClose(image, reference, tolerance: 1, "padded RGB24 rows, sepia")
    }
}
