import Capture
import Filters
import Output
import Render
import XCTest

/// The rotating cube against golden PNGs made by this renderer. Tolerance: at
/// most 0.5 % of pixels may differ by more than 3 of 255 (triangle edges
/// rasterize differently across Mesa versions and GPUs); the rest must match
/// within 3. Regenerate with KAMERA_UPDATE_GOLDEN=1 after an intended change.
final class CubeTests: XCTestCase {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    let frames = [0, 30, 75]

    func renderCube(frame index: Int, filters: [String] = []) throws -> Image {
        let pattern = TestPattern(width: 320, height: 180, format: .rgba)
        let settings = RenderSettings(filters: try FilterChain(parsing: filters), mode: .cube, outputSize: (160, 160), rate: 30)
        return try GPUHarness.render(pattern.frame(at: UInt64(index)), settings: settings, index: index)
    }

    func testCubeMatchesGoldenImages() throws {
        for index in frames {
            let image = try renderCube(frame: index)
            let path = Self.golden.appendingPathComponent("cube-\(index).png").path
            if ProcessInfo.processInfo.environment["KAMERA_UPDATE_GOLDEN"] == "1" {
                try image.pixels.withUnsafeBytes { try PNGWriter.write($0, width: image.width, height: image.height, to: path) }
                continue
            }
            let source = try ImageSource(path: path)
            let frame = try XCTUnwrap(source.nextFrame())
            let golden = Image(width: frame.width, height: frame.height, pixels: Array(frame.planes[0].bytes))
            XCTAssertEqual(golden.width, image.width)
            var off = 0
            for y in 0..<image.height {
                for x in 0..<image.width {
                    let d = image.pixel(x, y) &- golden.pixel(x, y)
                    if max(abs(d.x), abs(d.y), abs(d.z)) > 3 { off += 1 }
                }
            }
            XCTAssertLessThanOrEqual(off, image.width * image.height / 200, "cube frame \(index): \(off) pixels differ by more than 3")
        }
    }

    func testSameFrameRendersIdentically() throws {
        let a = try renderCube(frame: 42), b = try renderCube(frame: 42)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, try renderCube(frame: 43), "the cube turns from one frame to the next")
    }

    func testCubeSitsInTheMiddleOnTheBackground() throws {
        let image = try renderCube(frame: 0)
        for (x, y) in [(0, 0), (159, 0), (0, 159), (159, 159)] {
            XCTAssertEqual(image.pixel(x, y), SIMD4(51, 51, 51, 255), "background at (\(x), \(y))")
        }
        XCTAssertNotEqual(image.pixel(80, 80), SIMD4(51, 51, 51, 255), "the cube covers the center")
        let sepia = try renderCube(frame: 0, filters: ["sepia"])
        XCTAssertNotEqual(sepia.pixel(80, 80), image.pixel(80, 80), "filters apply to the cube's texture")
    }

    func testAngleDependsOnFrameAndRateOnly() throws {
        let cube = try GPUHarness.run { _ in try CubeRenderer(rate: 30) }
        XCTAssertEqual(cube.angles(frame: 30), SIMD3(60, 15, 19))
        cube.rate = 60
        XCTAssertEqual(cube.angles(frame: 60), SIMD3(60, 15, 19))
        _ = try GPUHarness.run { _ in withExtendedLifetime(cube) {} }
    }
}
