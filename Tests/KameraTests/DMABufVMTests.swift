import DRM
import Foundation
import GPU
import Messages
import Pixels
import Render
import XCTest

/// The texture cache's dma-buf import and its check against the copy path,
/// with buffers allocated on vkms and EGL on GBM over it. Run on the host, the
/// test runs itself inside the VM (this test binary, filtered to this test);
/// the VM must boot, or it fails.
final class DMABufVMTests: XCTestCase {
    func testImportIsCheckedAgainstTheCopyPath() throws {
        guard VMTests.insideVM else { return try VMTests.passedInsideVM("DMABufVMTests/testImportIsCheckedAgainstTheCopyPath") }
        let thread = RenderThread(name: "kamera.tests.gbm")
        try thread.sync {
            let context = try GPUContext(platform: .gbm("/dev/dri/card0"))
            let node = try DRMNode(path: "/dev/dri/card0")
            let width = 64, height = 48, stride = width * 2
            let buffer = try DumbBuffer(device: node, size: stride * height)
            var random = SystemRandomNumberGenerator()
            for i in 0..<stride * height { buffer.bytes[i] = UInt8.random(in: 16...240, using: &random) }
            let shared = Frame(format: .yuyv, width: width, height: height,
                               planes: [Plane(bytes: UnsafeRawBufferPointer(buffer.bytes), bytesPerRow: stride,
                                              dmabuf: DMABufPlane(fd: buffer.fd, offset: 0))])
            let reference = CPUReference.crop(CPUReference.decode(shared), x: 8, y: 0, width: 48, height: 48)

            // The import reads what the CPU sees.
            var settings = RenderSettings()
            settings.upload = .dmabuf
            let renderer = try FrameRenderer(context: context, settings: settings)
            let pixels = try renderer.render(shared, index: 0)
            XCTAssertEqual(renderer.uploader.lastPath, .dmabuf)
            XCTAssertNil(renderer.uploader.copyReason)
            XCTAssertClose(Image(width: 48, height: 48, pixels: Array(pixels)), reference, tolerance: 2, "imported YUYV")

            // A frame whose dma-buf holds other bytes than its mapped planes: the
            // check sees the difference; auto copies from then on, dmabuf refuses.
            let other = UnsafeMutableRawBufferPointer.allocate(byteCount: stride * height, alignment: 64)
            defer { other.deallocate() }
            for i in 0..<other.count { other[i] = 255 &- buffer.bytes[i] }
            var lying = shared
            lying.planes[0].bytes = UnsafeRawBufferPointer(other)
            let auto = try FrameRenderer(context: context, settings: RenderSettings())
            let copied = try auto.render(lying, index: 0)
            XCTAssertEqual(auto.uploader.lastPath, .copy)
            XCTAssertTrue(auto.uploader.copyReason?.contains("differs from the copied one") ?? false, auto.uploader.copyReason ?? "no reason")
            XCTAssertClose(Image(width: 48, height: 48, pixels: Array(copied)),
                           CPUReference.crop(CPUReference.decode(lying), x: 8, y: 0, width: 48, height: 48), tolerance: 2, "copied YUYV")
            try auto.render(lying, index: 1)
            XCTAssertEqual(auto.uploader.lastPath, .copy, "no second try after the check failed")
            let forced = try FrameRenderer(context: context, settings: settings)
            XCTAssertThrowsError(try forced.render(lying, index: 0)) { error in
                XCTAssertTrue("\(error)".contains("\(Setting.upload) dmabuf: the imported dma-buf frame differs"), "\(error)")
            }
        }
    }
}
