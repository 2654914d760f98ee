import Filters
import GPU
import Pixels
import Render
import XCTest

/// YUYV and NV12 straight to planar 4:2:0 with a color matrix on the way
/// (`YUVToYUV420`, what a recording of a CPU-converted picture is fed):
/// within 1 of 255 of what converting the RGBA picture gives, and
/// within 2 of 255 of the standards' formulas.
final class PlanarConversionTests: XCTestCase {
    /// The rectangles: whole frames of even and odd sizes, and crops starting mid-pair and on an odd row.
    let cases: [(width: Int, height: Int, rect: (x: Int, y: Int, width: Int, height: Int))] = [
        (64, 36, (0, 0, 64, 36)), (63, 35, (0, 0, 63, 35)), (50, 32, (9, 0, 32, 32)), (41, 29, (3, 5, 30, 21)),
    ]

    let matrices: [(String, ColorMatrix?)] = {
        func matrix(_ filters: [String], _ intensity: Float = 1) -> ColorMatrix? {
            (try? FilterChain(parsing: filters, intensity: intensity))?.foldedMatrices.last
        }
        // contrast=4 is too strong for the packed tables: the wide ones.
        return [("none", nil), ("sepia", matrix(["sepia"])), ("sepia 0.7", matrix(["sepia"], 0.7)), ("invert", matrix(["invert"])),
                ("contrast=4", matrix(["contrast=4"]))]
    }()

    func testStraightTo420IsWithinOneOfTheRGBAPictureConverted() throws {
        let planar = YUVToYUV420(threads: 1), rgba = YUVToRGBA(threads: 1)
        var compared = 0, differing = 0
        for format in [PixelFormat.yuyv, .nv12] {
            for source in [YUVColorSpace.bt601Limited, YUVColorSpace(matrix: .bt709, range: .full)] {
                for target in [YUVColorSpace.bt601Limited, YUVColorSpace(matrix: .bt709, range: .limited), YUVColorSpace(matrix: .bt601, range: .full)] {
                    for (name, m) in matrices {
                        let transform = m?.rgbTransform
                        XCTAssertEqual(transform == nil, m == nil, name)
                        for c in cases {
                            let (frame, buffer) = randomFrame(format, width: c.width, height: c.height, colorSpace: source)
                            let r = c.rect
                            withExtendedLifetime(buffer) {
                                planar.convert(frame, x: r.x, y: r.y, width: r.width, height: r.height, transform: transform, to: target)
                                rgba.convert(frame, x: r.x, y: r.y, width: r.width, height: r.height, transform: transform)
                            }
                            let encoder = RGBAToYUV(chroma: .c420, colorSpace: target)
                            encoder.convert(UnsafeRawBufferPointer(rgba.pixels), width: r.width, height: r.height)
                            XCTAssertEqual(planar.planes.count, encoder.planes.count)
                            let differences = zip(planar.planes, encoder.planes).map { abs(Int($0) - Int($1)) }
                            compared += differences.count
                            differing += differences.filter { $0 > 0 }.count
                            XCTAssertLessThanOrEqual(differences.max() ?? 0, 1, "\(format) \(source) → \(target) \(name) \(c.width)x\(c.height) at \(r)")
                        }
                    }
                }
            }
        }
        print("YUV → 4:2:0 straight against through RGBA: \(differing) of \(compared) bytes differ, by 1")
    }

    /// Colors that the matrix pushes outside the RGB cube are clamped
    /// before they are encoded, as the RGBA picture clamps them: a frame of
    /// light gray that sepia pushes past white (its luma would be 7 levels
    /// higher unclamped) beside a mid gray that stays inside, both within 1.
    func testColorsOutsideTheCubeAreClampedBeforeEncoding() throws {
        let sepia = try XCTUnwrap(matrices[1].1?.rgbTransform)
        let buffer = FrameBuffer(format: .yuyv, width: 64, height: 32)
        let bytes = buffer.allBytes
        for i in stride(from: 0, to: bytes.count, by: 4) {
            // Left half: luma 200, no chroma: light gray; sepia pushes it past white. Right half: mid gray, inside.
            let left = (i / 2) % 64 < 32
            (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]) = left ? (200, 128, 200, 128) : (100, 128, 100, 128)
        }
        let frame = buffer.frame(sequence: 0, timestamp: 0, colorSpace: .bt601Limited)
        let planar = YUVToYUV420(threads: 1), rgba = YUVToRGBA(threads: 1)
        let target = YUVColorSpace(matrix: .bt709, range: .limited)
        withExtendedLifetime(buffer) {
            planar.convert(frame, x: 0, y: 0, width: 64, height: 32, transform: sepia, to: target)
            rgba.convert(frame, x: 0, y: 0, width: 64, height: 32, transform: sepia)
        }
        let encoder = RGBAToYUV(chroma: .c420, colorSpace: target)
        encoder.convert(UnsafeRawBufferPointer(rgba.pixels), width: 64, height: 32)
        let got = Array(planar.planes), want = Array(encoder.planes)
        XCTAssertEqual(rgba.pixels[0], 255, "sepia clamps the light gray's red")
        // Each plane's rows: (offset, width, rows); the left half of each row is clamped, the right half inside.
        for (offset, width, rows) in [(0, 64, 32), (64 * 32, 32, 16), (64 * 32 + 32 * 16, 32, 16)] {
            for row in 0..<rows {
                let start = offset + row * width, middle = start + width / 2, end = start + width
                let clamped: [Int] = zip(got[start..<middle], want[start..<middle]).map { abs(Int($0) - Int($1)) }
                XCTAssertLessThanOrEqual(clamped.max() ?? 0, 1, "plane at \(offset), row \(row): clamped")
                let inside: [Int] = zip(got[middle..<end], want[middle..<end]).map { abs(Int($0) - Int($1)) }
                XCTAssertLessThanOrEqual(inside.max() ?? 0, 1, "plane at \(offset), row \(row): inside")
            }
        }
    }

    /// Against the formulas: each pixel decoded with the matrix applied
    /// before clamping (`CPUReference.decode`), then encoded by BT.601/709,
    /// chroma from each 2x2 block's mean color. Within 2 of 255.
    func testStraightTo420AgainstTheFormulas() throws {
        let planar = YUVToYUV420(threads: 1)
        var worst = 0
        for format in [PixelFormat.yuyv, .nv12] {
            for target in [YUVColorSpace(matrix: .bt709, range: .limited), YUVColorSpace(matrix: .bt601, range: .full)] {
                for (name, m) in matrices {
                    for c in cases {
                        let (frame, buffer) = randomFrame(format, width: c.width, height: c.height)
                        let r = c.rect
                        withExtendedLifetime(buffer) {
                            _ = planar.convert(frame, x: r.x, y: r.y, width: r.width, height: r.height, transform: m?.rgbTransform, to: target)
                        }
                        let decoded = CPUReference.crop(CPUReference.decode(frame, folding: m), x: r.x, y: r.y, width: r.width, height: r.height)
                        let want = CPUReference.yuvPlanes(decoded, target, .c420)
                        let got = Array(planar.planes)
                        XCTAssertEqual(got.count, want.count)
                        let difference = zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 0
                        worst = max(worst, difference)
                        XCTAssertLessThanOrEqual(difference, 2, "\(format) → \(target) \(name) \(c.width)x\(c.height) at \(r)")
                    }
                }
            }
        }
        print("YUV → 4:2:0 with a matrix against the formulas: largest difference \(worst) of 255")
    }

    /// The fixed-point bulk of each row (`YUV420Fixed`, sixteen pixels at a
    /// time) against the floating-point map alone, on every byte of random
    /// frames, for every matrix (contrast=4 is beyond the fixed point's range:
    /// the float map does all of it, so the bytes are equal): within 1.
    func testFixedPointIsWithinOneOfTheFloatMap() throws {
        let fixed = YUVToYUV420(threads: 1), float = YUVToYUV420(threads: 1, fixedPoint: false)
        var compared = 0, differing = 0
        for format in [PixelFormat.yuyv, .nv12] {
            for (source, target) in [(YUVColorSpace.bt601Limited, YUVColorSpace(matrix: .bt709, range: .limited)),
                                     (YUVColorSpace(matrix: .bt709, range: .full), YUVColorSpace(matrix: .bt601, range: .full))] {
                for (name, m) in matrices {
                    let (frame, buffer) = randomFrame(format, width: 256, height: 64, colorSpace: source)
                    withExtendedLifetime(buffer) {
                        for converter in [fixed, float] {
                            converter.convert(frame, x: 0, y: 0, width: 256, height: 64, transform: m?.rgbTransform, to: target)
                        }
                    }
                    let differences = zip(fixed.planes, float.planes).map { abs(Int($0) - Int($1)) }
                    compared += differences.count
                    differing += differences.filter { $0 > 0 }.count
                    XCTAssertLessThanOrEqual(differences.max() ?? 0, 1, "\(format) → \(target) \(name)")
                    if name == "contrast=4" { XCTAssertEqual(differences.max(), 0, "\(name): the float map alone") }
                    if name == "sepia" { XCTAssertGreaterThan(differences.filter { $0 > 0 }.count, 0, "\(name): the fixed point did the bulk") }
                }
            }
        }
        print("YUV → 4:2:0, fixed point against floating point: \(differing) of \(compared) bytes differ, by 1")
    }

    /// Converted into a caller's memory (a recording's queue), the planes are
    /// the bytes the converter's own memory gets, and nothing past them is written.
    func testIntoTheCallersMemory() throws {
        let (frame, buffer) = randomFrame(.yuyv, width: 640, height: 360)
        let transform = try XCTUnwrap(matrices[1].1?.rgbTransform)
        let size = YUVToYUV420.frameSize(width: 301, height: 199)
        let destination = UnsafeMutableRawBufferPointer.allocate(byteCount: size + 64, alignment: 64)
        defer { destination.deallocate() }
        destination.initializeMemory(as: UInt8.self, repeating: 0xA5)
        let converter = YUVToYUV420(threads: 2)
        let (written, own) = withExtendedLifetime(buffer) { () -> (UnsafeRawBufferPointer, [UInt8]) in
            let written = converter.convert(frame, x: 101, y: 3, width: 301, height: 199, transform: transform, to: .bt601Limited, into: destination)
            converter.convert(frame, x: 101, y: 3, width: 301, height: 199, transform: transform, to: .bt601Limited)
            return (written, Array(converter.planes))
        }
        XCTAssertEqual(written.baseAddress, UnsafeRawPointer(destination.baseAddress))
        XCTAssertEqual(written.count, size)
        XCTAssertTrue(Array(written) == own, "the same planes")
        XCTAssertTrue(destination[size...].allSatisfy { $0 == 0xA5 }, "nothing written past the planes")
    }

    /// A picture large enough to be split between threads gives the same bytes as one thread.
    func testThreadsGiveTheSameBytes() throws {
        let (frame, buffer) = randomFrame(.yuyv, width: 640, height: 360)
        let transform = try XCTUnwrap(matrices[1].1?.rgbTransform)
        let one = YUVToYUV420(threads: 1), four = YUVToYUV420(threads: 4)
        withExtendedLifetime(buffer) {
            for converter in [one, four] {
                converter.convert(frame, x: 140, y: 0, width: 360, height: 360, transform: transform, to: .bt601Limited)
            }
        }
        XCTAssertTrue(Array(one.planes) == Array(four.planes))
    }

    /// In the renderer: a picture left in memory (a passthrough, after the
    /// first frame) hands out 4:2:0 planes within 1 of its RGBA converted, with
    /// no read-back; a drawn picture hands out none.
    func testTheRendererHandsOutPlanesOnlyForAPictureInMemory() throws {
        let (frame, buffer) = randomFrame(.yuyv, width: 96, height: 64)
        var settings = RenderSettings(crop: .square)
        settings.filters = try FilterChain(parsing: ["sepia"], intensity: 1)
        settings.yuvConversion = .cpu
        let space = YUVColorSpace(matrix: .bt709, range: .limited)
        let (first, planes, rgba, readBacks) = try withExtendedLifetime(buffer) {
            try GPUHarness.run { context -> (Bool, [UInt8]?, [UInt8], Int) in
                let renderer = try FrameRenderer(context: context, settings: settings)
                _ = try renderer.draw(frame, index: 0)
                let first = try renderer.readBackYUV420(space, into: nil) != nil
                let picture = try renderer.draw(frame, index: 1)
                guard case .inMemory = picture else { throw GPUError("the second frame was drawn") }
                let planes = try renderer.readBackYUV420(space, into: nil).map { Array($0) }
                return (first, planes, Array(try renderer.readBack()), renderer.readBacks)
            }
        }
        XCTAssertFalse(first, "the first frame is drawn: no planes")
        let encoder = RGBAToYUV(chroma: .c420, colorSpace: space)
        rgba.withUnsafeBytes { encoder.convert($0, width: 64, height: 64) }
        let want = Array(encoder.planes), got = try XCTUnwrap(planes, "the second frame hands out planes")
        XCTAssertEqual(got.count, want.count)
        XCTAssertLessThanOrEqual(zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 0, 1, "the planes are the RGBA picture's, within 1")
        XCTAssertEqual(readBacks, 0, "nothing was read back from the GPU after the first frame")
    }

    /// An offline run (`drawsFirstFrame` false) passes its first frame through too: nothing drawn, nothing read back.
    func testAnOfflineRunPassesItsFirstFrameThrough() throws {
        let (frame, buffer) = randomFrame(.yuyv, width: 96, height: 64)
        var settings = RenderSettings(crop: .square)
        settings.filters = try FilterChain(parsing: ["sepia"], intensity: 1)
        settings.yuvConversion = .cpu
        let (inMemory, planes, readBacks) = try withExtendedLifetime(buffer) {
            try GPUHarness.run { context -> (Bool, Bool, Int) in
                let renderer = try FrameRenderer(context: context, settings: settings)
                renderer.drawsFirstFrame = false
                guard case .inMemory = try renderer.draw(frame, index: 0) else { return (false, false, renderer.readBacks) }
                return (true, try renderer.readBackYUV420(.bt601Limited, into: nil) != nil, renderer.readBacks)
            }
        }
        XCTAssertTrue(inMemory, "the first frame is the conversion alone")
        XCTAssertTrue(planes, "its planes are handed out")
        XCTAssertEqual(readBacks, 0)
    }
}
