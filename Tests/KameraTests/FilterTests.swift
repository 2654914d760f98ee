import Filters
import Render
import XCTest

/// Every preset, adjustment, intensity mix and chain rendered on the GPU and
/// compared per pixel with the CPU reference. Tolerance: 2 of 255 per channel.
final class FilterTests: XCTestCase {
    let input = sampleImage(width: 64, height: 48)
    let tolerance = 2

    func render(_ filters: [String], intensity: Float = 1, image: Image? = nil) throws -> (Image, Int) {
        let (frame, buffer) = (image ?? input).frame()
        let settings = RenderSettings(crop: .none, filters: try FilterChain(parsing: filters, intensity: intensity))
        return try withExtendedLifetime(buffer) {
            try GPUHarness.run { context in
                let renderer = try FrameRenderer(context: context, settings: settings)
                let pixels = try renderer.render(frame, index: 0)
                return (Image(width: frame.width, height: frame.height, pixels: Array(pixels)), renderer.lastPassCount)
            }
        }
    }

    func testEveryPresetMatchesCPUReference() throws {
        for preset in FilterPresets.presets {
            let (image, _) = try render([preset.name])
            XCTAssertClose(image, CPUReference.apply(preset.matrix, to: input), tolerance: tolerance, preset.name)
        }
    }

    func testPresetMatricesAreTheDocumentedOnes() {
        // GPUImage's sepia and the plain negative, written out independently.
        let sepia = FilterPresets.preset(named: "sepia")!.matrix
        XCTAssertEqual(sepia.r, SIMD4(0.3588, 0.7044, 0.1368, 0))
        XCTAssertEqual(sepia.g, SIMD4(0.2990, 0.5870, 0.1140, 0))
        XCTAssertEqual(sepia.b, SIMD4(0.2392, 0.4696, 0.0912, 0))
        let invert = FilterPresets.preset(named: "invert")!.matrix
        XCTAssertEqual(invert.apply(SIMD4(0.25, 0.5, 1, 1)), SIMD4(0.75, 0.5, 0, 1))
        let gray = FilterPresets.preset(named: "gray")!.matrix.apply(SIMD4(1, 0.5, 0, 1))
        XCTAssertEqual(gray.x, 0.299 + 0.5 * 0.587, accuracy: 1e-6)
        XCTAssertEqual(gray.x, gray.y)
        XCTAssertEqual(gray.y, gray.z)
    }

    func testIntensityMixesWithTheInput() throws {
        for t: Float in [0, 0.5] {
            let (image, _) = try render(["sepia"], intensity: t)
            // GPUImage mixes the unclamped matrix result with the input, then clamps.
            let reference = Image(width: input.width, height: input.height) { x, y in
                let c = input.color(x, y)
                return (1 - t) * c + t * ColorMatrix.sepia.apply(c)
            }
            XCTAssertClose(image, reference, tolerance: tolerance, "sepia at intensity \(t)")
        }
        let (none, _) = try render(["sepia"], intensity: 0)
        XCTAssertClose(none, input, tolerance: 1, "intensity 0 is the input")
    }

    func testAdjustmentsMatchCPUReference() throws {
        let cases: [(String, ColorMatrix)] = [
            ("brightness=0.2", ColorMatrix(r: SIMD4(1, 0, 0, 0), g: SIMD4(0, 1, 0, 0), b: SIMD4(0, 0, 1, 0), offset: SIMD4(0.2, 0.2, 0.2, 0))),
            ("contrast=1.5", ColorMatrix(r: SIMD4(1.5, 0, 0, 0), g: SIMD4(0, 1.5, 0, 0), b: SIMD4(0, 0, 1.5, 0), offset: SIMD4(-0.25, -0.25, -0.25, 0))),
            ("saturation=0", ColorMatrix(r: SIMD4(0.299, 0.587, 0.114, 0), g: SIMD4(0.299, 0.587, 0.114, 0), b: SIMD4(0.299, 0.587, 0.114, 0))),
            ("hue=0", .identity),
        ]
        for (filter, matrix) in cases {
            let (image, _) = try render([filter])
            XCTAssertClose(image, CPUReference.apply(matrix, to: input), tolerance: tolerance, filter)
        }
        // Hue rotation keeps luma and maps gray to gray; a full turn is the identity.
        let hue = ColorMatrix.hue(degrees: 120)
        let c = hue.apply(SIMD4(0.8, 0.3, 0.1, 1))
        XCTAssertEqual((c * ColorMatrix.lumaWeights).sum(), 0.299 * 0.8 + 0.587 * 0.3 + 0.114 * 0.1, accuracy: 1e-4)
        let g = hue.apply(SIMD4(0.4, 0.4, 0.4, 1))
        XCTAssertEqual(g.x, 0.4, accuracy: 1e-4); XCTAssertEqual(g.y, 0.4, accuracy: 1e-4); XCTAssertEqual(g.z, 0.4, accuracy: 1e-4)
        let (hued, _) = try render(["hue=75"])
        XCTAssertClose(hued, CPUReference.apply(.hue(degrees: 75), to: input), tolerance: tolerance, "hue=75")
    }

    func testCustomMatrixFromArgumentAndJSON() throws {
        let (image, _) = try render(["matrix=0,0,1,0,1,0,1,0,0"])
        let swap = ColorMatrix(rowMajor: [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1])
        XCTAssertClose(image, CPUReference.apply(swap, to: input), tolerance: tolerance, "3x3 matrix")

        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-matrix-\(getpid()).json")
        try #"{"matrix": [[0.5,0,0,0],[0,0.5,0,0],[0,0,0.5,0],[0,0,0,1]], "offset": [0.1, 0.2, 0.3, 0]}"#.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let (fromFile, _) = try render(["matrix=\(url.path)"])
        let half = ColorMatrix(rowMajor: [0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 1], offset: [0.1, 0.2, 0.3, 0])
        XCTAssertClose(fromFile, CPUReference.apply(half, to: input), tolerance: tolerance, "JSON matrix")
    }

    /// A chain of matrices is folded into one pass and renders the same as
    /// applying the matrices one by one (on an input where no step clips).
    func testFoldedChainMatchesOneByOneAndCostsNoExtraPass() throws {
        let mid = sampleImage(width: 64, height: 48, low: 0.25, high: 0.75)
        let chain = ["sepia", "contrast=1.2", "saturation=0.7", "brightness=-0.1"]
        let (folded, passes) = try render(chain, image: mid)
        XCTAssertEqual(passes, 1, "the folded matrix is applied by the final draw")
        XCTAssertEqual(try FilterChain(parsing: chain).foldedMatrices.count, 1)

        var oneByOne = mid
        for name in chain {
            guard let m = try FilterChain.parse(name).colorMatrix else { return XCTFail() }
            oneByOne = CPUReference.apply(m, to: oneByOne)
        }
        XCTAssertClose(folded, oneByOne, tolerance: tolerance, "folded chain vs CPU one by one")

        // The same chain as separate GPU passes (no rewrite) gives the same pixels.
        let (frame, buffer) = mid.frame()
        let settings = RenderSettings(crop: .none, filters: try FilterChain(parsing: chain))
        let separate = try withExtendedLifetime(buffer) {
            try GPUHarness.run { context -> (Image, Int) in
                let renderer = try FrameRenderer(context: context, settings: settings)
                renderer.rewrites = []
                let pixels = try renderer.render(frame, index: 0)
                return (Image(width: mid.width, height: mid.height, pixels: Array(pixels)), renderer.lastPassCount)
            }
        }
        XCTAssertEqual(separate.1, 5, "four matrix passes and the layout")
        XCTAssertClose(folded, separate.0, tolerance: tolerance, "folded vs one GPU pass per matrix")
    }

    func testPingPongChainWithPixellate() throws {
        let (image, passes) = try render(["sepia", "pixellate=8", "invert"])
        XCTAssertEqual(passes, 3, "sepia, pixellate, then invert in the final draw")
        let reference = CPUReference.apply(.invert, to: CPUReference.pixellate(CPUReference.apply(.sepia, to: input), block: 8))
        XCTAssertClose(image, reference, tolerance: tolerance, "sepia → pixellate → invert")
    }

    func testCustomFragmentShader() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-swap-\(getpid()).frag")
        try """
        precision mediump float;
        varying vec2 v_texcoord;
        uniform sampler2D u_texture;
        void main() { gl_FragColor = texture2D(u_texture, v_texcoord).gbra; }
        """.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let (image, _) = try render([url.path])
        let reference = Image(width: input.width, height: input.height) { x, y in
            let c = input.color(x, y)
            return SIMD4(c.y, c.z, c.x, c.w)
        }
        XCTAssertClose(image, reference, tolerance: tolerance, "custom .frag")
    }

    func testShaderCompileErrorPointsAtTheLine() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kamera-broken-\(getpid()).frag")
        try "precision mediump float;\nvarying vec2 v_texcoord;\nvoid main() {\n    gl_FragColor = vec4(undefined_name);\n}\n"
            .write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        XCTAssertThrowsError(try render([url.path])) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(url.path):4:"), "\(error)")
            XCTAssertTrue("\(error)".contains("undefined_name"), "\(error)")
        }
    }

    func testBadFilterArguments() {
        XCTAssertThrowsError(try FilterChain(parsing: ["sepiaa"])) { error in
            XCTAssertTrue("\(error)".contains("unknown filter 'sepiaa'"))
            for name in ["sepia", "mono", "invert", "contrast=V", "pixellate=N"] { XCTAssertTrue("\(error)".contains(name), name) }
        }
        XCTAssertThrowsError(try FilterChain(parsing: ["contrast=9"])) { XCTAssertTrue("\($0)".contains("from 0 to 4"), "\($0)") }
        XCTAssertThrowsError(try FilterChain(parsing: ["contrast"])) { XCTAssertTrue("\($0)".contains("needs a value")) }
        XCTAssertThrowsError(try FilterChain(parsing: ["matrix=1,2,3"])) { XCTAssertTrue("\($0)".contains("9, 12, 16 or 20")) }
        XCTAssertThrowsError(try FilterChain(parsing: ["sepia"], intensity: 2)) { XCTAssertTrue("\($0)".contains("from 0 to 1")) }
    }

    func testMatrixAlgebra() {
        let a = ColorMatrix.contrast(1.3), b = ColorMatrix.sepia
        let c = SIMD4<Float>(0.2, 0.5, 0.7, 1)
        let composed = a.then(b).apply(c), stepwise = b.apply(a.apply(c))
        for i in 0..<4 { XCTAssertEqual(composed[i], stepwise[i], accuracy: 1e-5) }
        let half = b.mixed(intensity: 0.5).apply(c), mix = 0.5 * c + 0.5 * b.apply(c)
        for i in 0..<4 { XCTAssertEqual(half[i], mix[i], accuracy: 1e-5) }
        let plan = RenderPlan(filters: try! FilterChain(parsing: ["none", "hue=0"])).rewritten(.all, .init())
        XCTAssertEqual(plan.steps.count, 2, "identity matrices are dropped: conversion and layout only")
    }
}
