import GPU
import Render
import XCTest

/// Crop, fit, rotation and mirroring: every pixel of a source whose color
/// encodes its own position must land where the transform says.
final class GeometryTests: XCTestCase {
    /// Pixel (x, y) has red = 16x + 8, green = 16y + 8: each pixel is unique.
    func positionImage(width: Int, height: Int) -> Image {
        Image(width: width, height: height) { x, y in SIMD4(Float(16 * x + 8) / 255, Float(16 * y + 8) / 255, 0.5, 1) }
    }

    func render(_ image: Image, crop: CropMode = .none, layout: PreviewLayout = PreviewLayout(),
                size: (Int, Int)? = nil) throws -> Image {
        let (frame, buffer) = image.frame()
        return try withExtendedLifetime(buffer) {
            try GPUHarness.render(frame, settings: RenderSettings(crop: crop, mode: .preview(layout), outputSize: size.map { ($0.0, $0.1) }))
        }
    }

    /// Asserts output(x, y) == source(map(x, y)) for every output pixel where `map` is not nil, black elsewhere.
    func assertMapping(_ output: Image, _ source: Image, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                       _ map: (Int, Int) -> (Int, Int)?) {
        var bad = 0
        for y in 0..<output.height {
            for x in 0..<output.width {
                let want = map(x, y).map { source.pixel($0.0, $0.1) } ?? SIMD4(0, 0, 0, 255)
                let got = output.pixel(x, y)
                let d = got &- want
                if max(abs(d.x), abs(d.y), abs(d.z), abs(d.w)) > 1 {
                    if bad == 0 { XCTFail("\(what): pixel (\(x), \(y)) is \(got), want \(want)", file: file, line: line) }
                    bad += 1
                }
            }
        }
        XCTAssertEqual(bad, 0, "\(what): \(bad) pixels misplaced", file: file, line: line)
    }

    func testSquareCropTakesTheCenter() throws {
        let source = positionImage(width: 16, height: 8)
        let out = try render(source, crop: .square)
        XCTAssertEqual(out.width, 8); XCTAssertEqual(out.height, 8)
        assertMapping(out, source, "square crop") { x, y in (x + 4, y) }
        let tall = positionImage(width: 6, height: 10)
        let outTall = try render(tall, crop: .square)
        XCTAssertEqual(outTall.width, 6); XCTAssertEqual(outTall.height, 6)
        assertMapping(outTall, tall, "square crop of a tall frame") { x, y in (x, y + 2) }
    }

    func testRotationsAndMirror() throws {
        let s = positionImage(width: 8, height: 8)
        let cases: [(Rotation, Bool, (Int, Int) -> (Int, Int))] = [
            (.none, false, { x, y in (x, y) }),
            (.quarter, false, { x, y in (y, 7 - x) }),
            (.half, false, { x, y in (7 - x, 7 - y) }),
            (.threeQuarters, false, { x, y in (7 - y, x) }),
            (.none, true, { x, y in (7 - x, y) }),
            (.quarter, true, { x, y in (y, x) }),
        ]
        for (rotation, mirror, map) in cases {
            let out = try render(s, layout: PreviewLayout(rotation: rotation, mirror: mirror))
            assertMapping(out, s, "rotate \(rotation.rawValue) mirror \(mirror)", map)
        }
    }

    func testContainLetterboxes() throws {
        let s = positionImage(width: 16, height: 8)
        let out = try render(s, layout: PreviewLayout(fit: .contain), size: (16, 16))
        assertMapping(out, s, "contain 16x8 in 16x16") { x, y in (4..<12).contains(y) ? (x, y - 4) : nil }
        // Rotated a quarter turn, the 16x8 image stands 8 wide and 16 tall: pillarbox.
        let rotated = try render(s, layout: PreviewLayout(fit: .contain, rotation: .quarter), size: (16, 16))
        assertMapping(rotated, s, "contain rotated") { x, y in (4..<12).contains(x) ? (y, 7 - (x - 4)) : nil }
    }

    func testCoverCropsAndStretchFills() throws {
        let s = positionImage(width: 16, height: 8)
        let cover = try render(s, layout: PreviewLayout(fit: .cover), size: (8, 8))
        assertMapping(cover, s, "cover 16x8 in 8x8") { x, y in (x + 4, y) }
        // Stretch 16x8 to 8x8 halves x: output pixel x samples between source 2x and 2x+1.
        let stretch = try render(s, layout: PreviewLayout(fit: .stretch), size: (8, 8))
        for y in 0..<8 {
            for x in 0..<8 {
                let want = (s.color(2 * x, y) + s.color(2 * x + 1, y)) / 2
                let got = stretch.color(x, y)
                XCTAssertEqual(got.x, want.x, accuracy: 2 / 255, "stretch (\(x), \(y))")
                XCTAssertEqual(got.y, want.y, accuracy: 2 / 255, "stretch (\(x), \(y))")
            }
        }
    }

    func testLayoutMath() {
        let contain = PreviewLayout(fit: .contain)
        XCTAssertEqual(contain.extent(imageWidth: 1280, imageHeight: 720, outputWidth: 720, outputHeight: 720).y, 0.5625, accuracy: 1e-6)
        let cover = PreviewLayout(fit: .cover)
        XCTAssertEqual(cover.extent(imageWidth: 1280, imageHeight: 720, outputWidth: 720, outputHeight: 720).x, 1280.0 / 720.0, accuracy: 1e-5)
        XCTAssertTrue(PreviewLayout(rotation: .quarter).rotatedSize(width: 4, height: 3) == (3, 4))
        let crop = CropMode.square.rectangle(width: 1280, height: 720)
        XCTAssertTrue(crop == (280, 0, 720, 720))
        let zoomed = CropMode.square.rectangle(width: 1280, height: 720, zoom: 2)
        XCTAssertTrue(zoomed == (460, 180, 360, 360))
    }

    func testDigitalZoomShowsTheCenter() throws {
        let s = positionImage(width: 16, height: 16)
        let (frame, buffer) = s.frame()
        let out = try withExtendedLifetime(buffer) {
            try GPUHarness.run { context -> Image in
                let renderer = try FrameRenderer(context: context, settings: RenderSettings(crop: .square, outputSize: (8, 8)))
                renderer.uploader.zoom = 2
                let pixels = try renderer.render(frame, index: 0)
                return Image(width: 8, height: 8, pixels: Array(pixels))
            }
        }
        assertMapping(out, s, "zoom 2") { x, y in (x + 4, y + 4) }
    }
}
