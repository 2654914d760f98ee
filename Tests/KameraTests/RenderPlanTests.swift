import CGLES
import Filters
import GPU
import Pixels
import Render
import XCTest

/// The frame's plan and its rewrites: what each rewrite does to the list of
/// steps, and that every rewrite renders the same pixels as the list it
/// replaced (within 2 of 255 per channel: the rewritten list rounds to 8 bits
/// fewer times), the overlay slot, and reading back a frame drawn on a screen.
final class RenderPlanTests: XCTestCase {
    /// In-range colors, so that no step of an unrewritten list clips.
    let mid = sampleImage(width: 64, height: 48, low: 0.2, high: 0.8)

    func describe(_ plan: RenderPlan) -> [String] {
        plan.steps.map { step in
            switch step {
            case .conversion(let m, let mosaic): (m == .identity ? "conversion" : "conversion+matrix") + (mosaic > 1 ? "+mosaic \(mosaic)" : "")
            case .filter(let f): f.name
            case .custom(let n): "custom \(n)"
            case .layout(let m): m == .identity ? "layout" : "layout+matrix"
            case .overlay(let n): "overlay \(n)"
            }
        }
    }

    func testRewritesOfTheList() throws {
        let chain = try FilterChain(parsing: ["sepia", "contrast=1.2", "blur=2", "invert", "hue=10"])
        let plan = RenderPlan(filters: chain, customStages: 1, overlays: 1)
        XCTAssertEqual(describe(plan), ["conversion", "sepia", "contrast=1.2", "blur=2", "invert", "hue=10", "custom 0", "layout", "overlay 0"])
        var yuv = RenderPlan.Conditions()
        yuv.conversionTakesMatrix = true
        XCTAssertEqual(describe(plan.rewritten(.all, yuv)), ["conversion", "sepia+contrast=1.2", "blur=2", "invert+hue=10", "custom 0", "layout", "overlay 0"])
        let plain = RenderPlan(filters: try FilterChain(parsing: ["blur=2", "sepia"]))
        XCTAssertEqual(describe(plain.rewritten(.all, yuv)), ["conversion", "blur=2", "layout+matrix"])
        XCTAssertEqual(describe(plain.rewritten([.foldMatrices], yuv)), ["conversion", "blur=2", "sepia", "layout"])
        let lone = RenderPlan(filters: try FilterChain(parsing: ["sepia", "contrast=1.1"]))
        XCTAssertEqual(describe(lone.rewritten(.all, yuv)), ["conversion+matrix", "layout"])
        XCTAssertEqual(describe(lone.rewritten(.all, RenderPlan.Conditions())), ["conversion", "layout+matrix"], "an RGB frame's conversion takes no matrix")
        var passing = yuv
        (passing.convertsToMemory, passing.layoutCopies, passing.mayPassThrough) = (true, true, true)
        XCTAssertEqual(describe(lone.rewritten(.all, passing)), ["conversion+matrix"], "the conversion is the picture")
        XCTAssertEqual(describe(RenderPlan(filters: FilterChain(), overlays: 1).rewritten(.all, passing)), ["conversion", "layout", "overlay 0"],
                       "an overlay needs the layout drawn")
        XCTAssertEqual(describe(RenderPlan(filters: try FilterChain(parsing: ["pixellate=8", "sepia"])).rewritten(.all, passing)),
                       ["conversion+matrix+mosaic 8"], "a pixellate and a matrix done by the conversion")
        XCTAssertEqual(describe(RenderPlan(filters: try FilterChain(parsing: ["pixellate=8"])).rewritten(.all, yuv)),
                       ["conversion", "pixellate=8", "layout"], "a GPU conversion cannot make a mosaic")
        let strong = RenderPlan(filters: try FilterChain(parsing: ["matrix=200,0,0,0,1,0,0,0,1"]))
        XCTAssertEqual(describe(strong.rewritten(.all, passing)), ["conversion", "layout+matrix"], "too strong for the fixed-point conversion")
    }

    /// Renders `image` (as `format`) with `filters`, by the plan rewritten by `rewrites`.
    func render(_ filters: [String], format: PixelFormat = .rgba, conversion: FrameUploader.YUVConversion = .auto,
                rewrites: RenderPlan.Rewrites) throws -> (Image, [String]) {
        let buffer = FrameBuffer(format: format, width: mid.width, height: mid.height)
        let (rgba, source) = mid.frame()
        FormatConverter.convert(rgba: source, to: buffer, colorSpace: .bt601Limited)
        let frame = format == .rgba ? rgba : buffer.frame(sequence: 0, timestamp: 0)
        var settings = RenderSettings(crop: .none, filters: try FilterChain(parsing: filters))
        settings.yuvConversion = conversion
        let (width, height) = (mid.width, mid.height)
        return try withExtendedLifetime((buffer, source)) {
            try GPUHarness.run { context in
                let renderer = try FrameRenderer(context: context, settings: settings)
                renderer.rewrites = rewrites
                _ = try renderer.render(frame, index: 0)
                let pixels = try renderer.render(frame, index: 1)
                return (Image(width: width, height: height, pixels: Array(pixels)), self.describe(renderer.lastPlan!))
            }
        }
    }

    func testEveryRewriteRendersTheSamePixels() throws {
        let cases: [(RenderPlan.Rewrites, [String], PixelFormat, [FrameUploader.YUVConversion])] = [
            (.foldMatrices, ["sepia", "contrast=1.2", "saturation=0.8", "blur=1"], .rgba, [.auto]),
            (.matrixIntoLayout, ["blur=1", "sepia"], .rgba, [.auto]),
            (.matrixIntoConversion, ["sepia"], .yuyv, [.cpu, .shader]),
            (.matrixIntoConversion, ["contrast=1.3", "hue=30"], .nv12, [.cpu, .shader]),
            (.passthrough, ["sepia"], .nv12, [.cpu]),
            (.mosaicIntoConversion, ["pixellate=7", "sepia"], .yuyv, [.cpu]),
            (.mosaicIntoConversion, ["pixellate=16"], .nv12, [.cpu]),
        ]
        for (rewrite, filters, format, conversions) in cases {
            for conversion in conversions {
                let (with, plan) = try render(filters, format: format, conversion: conversion, rewrites: .all)
                let (without, unrewritten) = try render(filters, format: format, conversion: conversion, rewrites: RenderPlan.Rewrites.all.subtracting(rewrite))
                XCTAssertNotEqual(plan, unrewritten, "\(rewrite) \(filters): the rewrite changed the list")
                XCTAssertClose(with, without, tolerance: 2, "\(rewrite) \(filters) \(format) \(conversion): \(plan) vs \(unrewritten)")
            }
        }
    }

    /// A solid rectangle drawn over the laid-out picture.
    final class BoxOverlay: OverlayStage {
        func draw(onto target: RenderTarget, _ frame: StageFrame) throws {
            target.bind()
            glEnable(GLenum(GL_SCISSOR_TEST))
            // Rows from the image's top: on an offscreen target GL's row 0 is the top.
            glScissor(4, target.topRowFirst ? 2 : GLint(target.height - 2 - 6), 10, 6)
            glClearColor(1, 0, 1, 1)
            glClear(GLbitfield(GL_COLOR_BUFFER_BIT))
            glDisable(GLenum(GL_SCISSOR_TEST))
        }
    }

    func testOverlaysDrawOverTheLayoutAndAScreenReadsBackTheSame() throws {
        let buffer = FrameBuffer(format: .yuyv, width: mid.width, height: mid.height)
        let (_, source) = mid.frame()
        FormatConverter.convert(rgba: source, to: buffer, colorSpace: .bt601Limited)
        let frame = buffer.frame(sequence: 0, timestamp: 0)
        let (width, height) = (mid.width, mid.height)
        let (offscreen, onScreen, plan) = try GPUHarness.run { context -> (Image, Image, [String]) in
            let renderer = try FrameRenderer(context: context, settings: RenderSettings(crop: .none, filters: try FilterChain(parsing: ["sepia"])))
            renderer.overlays = [BoxOverlay()]
            _ = try renderer.render(frame, index: 0)
            let offscreen = Image(width: width, height: height, pixels: Array(try renderer.render(frame, index: 1)))
            let plan = self.describe(renderer.lastPlan!)
            // Another framebuffer standing in for a screen: read back, the frame is drawn again offscreen.
            let screen = try Framebuffer(width: width, height: height)
            _ = try renderer.draw(frame, index: 2, onto: screen)
            return (offscreen, Image(width: width, height: height, pixels: Array(try renderer.readBack())), plan)
        }
        XCTAssertEqual(plan, ["conversion+matrix", "layout", "overlay 0"])
        let sepia = CPUReference.apply(.sepia, to: CPUReference.decode(frame))
        let reference = Image(width: mid.width, height: mid.height) { x, y in
            (4..<14).contains(x) && (2..<8).contains(y) ? SIMD4(1, 0, 1, 1) : sepia.color(x, y)
        }
        XCTAssertClose(offscreen, reference, tolerance: 2, "sepia with a box over it")
        XCTAssertEqual(onScreen, offscreen, "drawn on a screen, then read back")
        withExtendedLifetime((buffer, source)) {}
    }
}
