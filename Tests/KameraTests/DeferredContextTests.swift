import Analysis
import Detection
import Filters
import Foundation
import GPU
import Output
import Pipeline
import Render
import XCTest

/// The GL context opened only when a frame needs the GPU: an offline run
/// whose frames are converted on the CPU and handed on whole never loads the
/// GL driver, and writes the same bytes as a run that opened it first.
final class DeferredContextTests: ScratchFolderTestCase {
    func testTheExpectationAgreesWithTheContextOpened() throws {
        let software = try GPUHarness.run { $0.rendersInSoftware }
        XCTAssertEqual(DeferredGPUContext.expectsSoftwareRendering, software,
                       "told without EGL, the renderer is \(software ? "software" : "a GPU") when opened")
    }

    func testARunConvertedOnTheCPUNeverOpensTheContext() throws {
        try XCTSkipUnless(DeferredGPUContext.expectsSoftwareRendering, "this machine's GL is a GPU: frames are converted there, and the context opens")
        let deferred = try render(filters: ["sepia"], platform: .auto, to: "deferred.y4m")
        XCTAssertFalse(deferred.opened, "no frame needed the GPU")
        XCTAssertEqual(deferred.readBacks, 0)
        let opened = try render(filters: ["sepia"], platform: .surfaceless, to: "opened.y4m")
        XCTAssertTrue(opened.opened, "a platform asked for is opened at once")
        XCTAssertEqual(frames(in: deferred.bytes), 3)
        XCTAssertEqual(deferred.bytes, opened.bytes, "the same frames either way")
    }

    func testADeferredRunOpensTheContextForAFrameThatIsDrawn() throws {
        try XCTSkipUnless(DeferredGPUContext.expectsSoftwareRendering, "this machine's GL is a GPU: the context opens at once")
        // A blur is a pass of its own: the conversion is no longer the whole picture.
        let deferred = try render(filters: ["sepia", "blur=1"], platform: .auto, to: "deferred.y4m")
        XCTAssertTrue(deferred.opened)
        XCTAssertEqual(deferred.readBacks, 3)
        let opened = try render(filters: ["sepia", "blur=1"], platform: .surfaceless, to: "opened.y4m")
        XCTAssertEqual(deferred.bytes, opened.bytes)
    }

    /// Detection works on the frame's luma on the CPU: an offline run that
    /// draws nothing over the frames keeps the context closed, and one that
    /// draws boxes opens it, as its overlay is drawn on the GPU.
    func testDetectionOpensTheContextOnlyToDrawBoxes() throws {
        try XCTSkipUnless(DeferredGPUContext.expectsSoftwareRendering, "this machine's GL is a GPU: the context opens at once")
        let plain = try render(filters: [], platform: .auto, to: "codes.y4m", detection: DetectionRequest(codeFormats: [.qr]), overlay: nil)
        XCTAssertFalse(plain.opened, "no overlay: detection alone needs no GPU")
        XCTAssertEqual(frames(in: plain.bytes), 3)
        let boxes = try render(filters: [], platform: .auto, to: "boxes.y4m", detection: DetectionRequest(codeFormats: [.qr]), overlay: .boxes)
        XCTAssertTrue(boxes.opened, "the boxes are drawn on the GPU")
        XCTAssertEqual(frames(in: boxes.bytes), 3)
    }

    private func frames(in y4m: Data) -> Int {
        String(decoding: y4m, as: UTF8.self).components(separatedBy: "FRAME").count - 1
    }

    /// Three 96x64 frames of the test pattern (YUYV) through `filters` into a Y4M file.
    private func render(filters: [String], platform: GPUPlatform, to name: String, detection: DetectionRequest? = nil,
                        overlay: DetectionOverlay.Mode? = nil) throws -> (opened: Bool, readBacks: Int, bytes: Data) {
        var description = RunDescription()
        description.source.inputSize = (96, 64)
        description.settings = RenderSettings(crop: .none, filters: try FilterChain(parsing: filters))
        description.platform = platform
        description.frames = 3
        if let detection { description.analyzers = [AnalyzerRequest(name: "objects", finds: detection.finds) { try ObjectDetector(detection) }] }
        description.overlay = overlay
        let path = folder.appendingPathComponent(name).path
        description.outputs = [try OutputRequest(parsing: path)]
        let builder = try RunBuilder(description)
        let (opened, readBacks) = try RenderThread(name: "kamera.tests.deferred").sync { () -> (Bool, Int) in
            let run = try builder.build()
            try run.loop.run(frames: 3)
            return (run.renderer.context != nil, run.renderer.readBacks)
        }
        return (opened, readBacks, try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
