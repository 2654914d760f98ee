import Foundation
import Pipeline
import XCTest

/// Switching camera and format while running, with two vivid cameras: the
/// context and the output framebuffer stay, the frames come from the new
/// camera and match the CPU reference, and the old camera is released.
/// Run on the host, the test runs itself inside the VM, which must boot.
final class CameraSessionVMTests: XCTestCase {
    func testSwitchingCameraKeepsContextAndOutput() throws {
        guard VMTests.insideVM else {
            return try VMTests.runInsideVM("CameraSessionVMTests/testSwitchingCameraKeepsContextAndOutput",
                                           vmArguments: ["--vivid", "n_devs=2 node_types=0x1,0x1"])
        }
        try RenderThread(name: "kamera.tests.session").sync {
            let context = try GPUContext()
            let renderer = try FrameRenderer(context: context, settings: RenderSettings(crop: .none))
            var options = SourceOptions()
            options.camera = "/dev/video0"
            options.format = .yuyv
            options.inputSize = (640, 480)
            let session = try CameraSession(renderer: renderer, configuration: options)

            func renderNext() throws -> (Frame, Image, Framebuffer) {
                let frame = try XCTUnwrap(try session.nextFrame())
                let target = try renderer.draw(frame, index: 0)
                let pixels = try renderer.render(frame, index: 0)
                return (frame, Image(width: frame.width, height: frame.height, pixels: Array(pixels)), target)
            }
            let (first, firstImage, output) = try renderNext()
            XCTAssertEqual(first.width, 640)
            XCTAssertClose(firstImage, CPUReference.decode(first), tolerance: 2, "video0 YUYV")
            let firstDecoded = CPUReference.decode(first)

            session.beginConfiguration()
            session.configuration.camera = "/dev/video1"
            session.configuration.format = .nv12
            session.configuration.inputSize = (320, 180)
            try session.commitConfiguration()
            let (second, secondImage, sameOutput) = try renderNext()
            XCTAssertEqual(second.format, .nv12)
            XCTAssertEqual(second.width, 320)
            XCTAssertClose(secondImage, CPUReference.decode(second), tolerance: 2, "video1 NV12")
            XCTAssertTrue(session.renderer.context === context)
            XCTAssertTrue(sameOutput === output, "the output framebuffer is kept (resized)")
            XCTAssertTrue(session.source?.summary.hasPrefix("/dev/video1 320x180 NV12") ?? false, session.source?.summary ?? "none")

            // video0 was released: another source can open it now.
            XCTAssertNoThrow(try CameraSource(path: "/dev/video0"))
            XCTAssertEqual(CPUReference.decode(first), firstDecoded, "a frame held across the switch keeps its bytes")

            // A configuration that cannot start leaves the old one running.
            session.beginConfiguration()
            session.configuration.camera = "/dev/video9"
            XCTAssertThrowsError(try session.commitConfiguration())
            XCTAssertEqual(session.configuration.camera, "/dev/video1")
            XCTAssertNotNil(try session.nextFrame())

            // The `n` key: the next camera, wrapping around.
            XCTAssertEqual(try session.nextCamera(), "/dev/video0")
            let (third, _, _) = try renderNext()
            XCTAssertTrue(session.source?.summary.hasPrefix("/dev/video0") ?? false)
            XCTAssertEqual(third.format, .nv12)
        }
    }
}
