import Capture
import Pixels
import XCTest

extension RawVideoSource {
    /// The last frame of a raw file a VM run saved (`--save-input`), which is
    /// the frame Kamera rendered last; the frame keeps its memory alive.
    static func lastFrame(of url: URL, format: PixelFormat, width: Int = 640, height: Int = 480) throws -> Frame {
        let source = try RawVideoSource(path: url.path, format: .native(format), width: width, height: height)
        var last: Frame?
        while let frame = try source.nextFrame() { last = frame }
        return try XCTUnwrap(last, "\(url.path) holds no whole frame")
    }
}
