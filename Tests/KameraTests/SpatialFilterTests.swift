import Filters
import GPU
import Render
import XCTest

/// Blur, sharpen, convolution and region-limited filters rendered on the GPU
/// and compared per pixel with the CPU references (`CPUReference`), on a
/// picture of gradients and strong per-pixel noise (up to ±0.5). Tolerances,
/// per channel, of 255: 2 where the GPU computes what the reference does
/// (8-bit intermediate textures round twice); 3 for a blur worked at a
/// reduced size (a deviation of 2.5 or more: see `BlurStage`), whose halvings
/// and bilinear resampling approximate the kernel.
final class SpatialFilterTests: XCTestCase {
    let input = sampleImage(width: 96, height: 80)

    func render(_ filters: [String], image: Image? = nil, crop: CropMode = .none, rewrites: RenderPlan.Rewrites = .all) throws -> (Image, Int) {
        let (frame, buffer) = (image ?? input).frame()
        let settings = RenderSettings(crop: crop, filters: try FilterChain(parsing: filters))
        return try withExtendedLifetime(buffer) {
            try GPUHarness.run { context in
                let renderer = try FrameRenderer(context: context, settings: settings)
                renderer.rewrites = rewrites
                let pixels = try renderer.render(frame, index: 0)
                let size = renderer.outputSize(for: frame)
                return (Image(width: size.width, height: size.height, pixels: Array(pixels)), renderer.lastPassCount)
            }
        }
    }

    func testBlurMatchesTheGaussian() throws {
        // Full size up to a deviation of 4; from 4, one halving; from 8, two.
        // Full size below a deviation of 2.5; then a halving at 2.5, 5, 10 and 20.
        for (sigma, halvings) in [(Float(0.5), 0), (1.5, 0), (2.4, 0), (3, 1), (5, 2), (12, 3), (30, 4)] {
            let (image, passes) = try render(["blur=\(sigma)"])
            XCTAssertClose(image, CPUReference.blur(input, sigma: sigma), tolerance: halvings == 0 ? 2 : 3, "blur=\(sigma)")
            XCTAssertEqual(passes, halvings + 2 + 1, "blur=\(sigma): \(halvings) halvings, two blur passes and the layout")
        }
    }

    func testBlurEdgesClampAtTheCrop() throws {
        // A square crop of a wider RGBA picture: the blur must not read past the crop.
        let wide = sampleImage(width: 120, height: 64)
        let (image, _) = try render(["blur=2"], image: wide, crop: .square)
        let cropped = CPUReference.crop(wide, x: 28, y: 0, width: 64, height: 64)
        XCTAssertClose(image, CPUReference.blur(cropped, sigma: 2), tolerance: 2, "blur=2 on a square crop")
    }

    func testSharpenMatchesTheUnsharpMask() throws {
        // The blur's error is multiplied by the amount: 2 + amount times the blur's tolerance.
        for (amount, sigma) in [(Float(1), Float(1)), (1.5, 2), (0.5, 6)] {
            let tolerance = 2 + Int((amount * (sigma >= 4 ? 3 : 2)).rounded(.up))
            let (image, _) = try render(["sharpen=\(amount),\(sigma)"])
            XCTAssertClose(image, CPUReference.sharpen(input, amount: amount, sigma: sigma), tolerance: tolerance, "sharpen=\(amount),\(sigma)")
        }
        let (defaultSigma, _) = try render(["sharpen=1"])
        XCTAssertClose(defaultSigma, CPUReference.sharpen(input, amount: 1, sigma: 1), tolerance: 3, "sharpen=1 takes sigma 1")
    }

    func testConvolutionMatchesTheKernel() throws {
        let edges: [Float] = [-1, -1, -1, -1, 8, -1, -1, -1, -1]
        let sharpen: [Float] = [0, -1, 0, -1, 5, -1, 0, -1, 0]
        let box5 = [Float](repeating: 1, count: 25)
        let emboss5: [Float] = (0..<25).map { Float($0 % 5) - 2 + Float($0 / 5) - 2 }
        for (kernel, divisor, text) in [(edges, Float(1), "edges, sum 0"), (sharpen, 1, "sharpen, sum 1"), (box5, 25, "5x5 box, sum 25"),
                                        (emboss5, 4, "5x5 with divisor 4")] {
            let argument = "convolve=" + kernel.map { "\($0)" }.joined(separator: ",") + (text.contains("divisor") ? ",\(divisor)" : "")
            let (image, passes) = try render([argument])
            XCTAssertEqual(passes, 2, "\(text): one pass and the layout")
            XCTAssertClose(image, CPUReference.convolve(input, kernel: kernel, divisor: divisor), tolerance: 2, text)
        }
    }

    func testRegionLimitsAnyFilterAndLeavesTheRestExactlyAlone() throws {
        let (plain, _) = try render([])
        let cases: [(String, SIMD4<Float>, Float, Image)] = [
            ("sepia@10,8,30,20", SIMD4(10, 8, 40, 28), 0, CPUReference.apply(.sepia, to: input)),
            ("invert@20,10,50,40~6", SIMD4(20, 10, 70, 50), 6, CPUReference.apply(.invert, to: input)),
            ("blur=2@25%,25%,50%,50%", SIMD4(24, 20, 72, 60), 0, CPUReference.blur(input, sigma: 2)),
            ("pixellate=8@0,0,96,40~10", SIMD4(0, 0, 96, 40), 10, CPUReference.pixellate(input, block: 8)),
            // Inverted: filtered everywhere but the rectangle (less its soft edge).
            ("blur=2@!25%,25%,50%,50%", SIMD4(24, 20, 72, 60), 0, CPUReference.blur(input, sigma: 2)),
            ("sepia@!10,8,30,20~4", SIMD4(10, 8, 40, 28), 4, CPUReference.apply(.sepia, to: input)),
        ]
        for (filter, rect, feather, filtered) in cases {
            let inverted = filter.contains("@!")
            let (image, _) = try render([filter])
            let expected = inverted ? CPUReference.region(original: filtered, filtered: input, rect: rect, feather: feather)
                : CPUReference.region(original: input, filtered: filtered, rect: rect, feather: feather)
            XCTAssertClose(image, expected, tolerance: 2, filter)
            // Where the filter does not reach: exactly the unfiltered picture
            // (outside the rectangle; inverted, inside it past the soft edge).
            var untouched = 0
            for y in 0..<input.height {
                for x in 0..<input.width {
                    let cx = Float(x) + 0.5, cy = Float(y) + 0.5
                    let depth = min(cx - rect.x, rect.z - cx, cy - rect.y, rect.w - cy)
                    guard inverted ? depth >= max(feather, 0.5) : depth < 0 else { continue }
                    untouched += 1
                    if image.pixel(x, y) != plain.pixel(x, y) { return XCTFail("\(filter): pixel (\(x), \(y)) the filter must not reach changed") }
                }
            }
            XCTAssertGreaterThan(untouched, 200, filter)
        }
    }

    func testFilterArgumentsAreChecked() {
        let bad: [(String, String)] = [
            ("blur", "needs a value"), ("blur=0", "from 0.1 to 250"), ("blur=x", "must be a number"), ("blur=nan", "must be a number"),
            ("sharpen=11", "from 0 to 10"), ("sharpen=1,2,3", "AMOUNT or AMOUNT,SIGMA"), ("convolve=1,2,3", "give 9 (3x3) or 25"),
            ("convolve=0,0,0,0,1,0,0,0,0,0", "divisor is 0"), ("sepia@1,2,3", "four values"), ("sepia@1,2,0,4", "region is empty"),
            ("sepia@1,2,3,4~x", "soft edge"), ("sepia@1.5,2,3,4", "whole number of pixels"), ("sepia@101%,0,10,10", "percentage from 0% to 100%"),
            ("sepia@1,1,2,2@1,1,2,2", "one region"), ("pixellate=8@codes", "'@codes' is not a region; use pixellate=8@faces"),
            ("sepia@", "'@' is not a region"), ("sepia@!!1,2,3,4", "one '!' inverts a region"), ("blur=2@!", "'@!' is not a region"), ("sepia=1", "takes no value"), ("blurr=2", "unknown filter"),
        ]
        for (argument, message) in bad {
            XCTAssertThrowsError(try FilterChain(parsing: [argument]), argument) { error in
                XCTAssertTrue("\(error)".contains(message), "\(argument): \(error)")
                XCTAssertFalse("\(error)".contains("\n"), "\(argument): one line")
            }
        }
        // matrix=@FILE still names a file, not a region.
        XCTAssertThrowsError(try FilterChain(parsing: ["matrix=@missing.json"])) { XCTAssertTrue("\($0)".contains("no JSON file"), "\($0)") }
        XCTAssertEqual(try FilterChain(parsing: ["blur=2.50", "sepia@10,10,20%,20%~4"]).summary, "blur=2.5 → sepia@10,10,20%,20%~4")
        XCTAssertEqual(try FilterChain(parsing: ["blur=4@!faces~2"]).summary, "blur=4@!faces~2")
        XCTAssertTrue(try FilterChain(parsing: ["blur=4@!faces"]).followsFaces)
    }
}
