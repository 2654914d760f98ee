import CGLES
import Capture
import Foundation
import GPU
import Output

/// A PNG loaded once into a texture for a channel, bottom row first, as
/// Shadertoy and glslViewer present images.
final class ChannelImage {
    let texture: TextureView

    init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw HarnessError("channel image \(TerminalText.oneLine(path)): no such file; check the name")
        }
        let source = try ImageSource(path: path)
        guard let frame = try source.nextFrame() else { throw HarnessError("\(path): holds no image") }
        let (width, height) = (frame.width, frame.height)
        let rows = frame.planes[0]
        var flipped = [UInt8](repeating: 0, count: width * height * 4)
        flipped.withUnsafeMutableBytes { out in
            for y in 0..<height {
                let from = rows.bytes.baseAddress! + (height - 1 - y) * rows.bytesPerRow
                (out.baseAddress! + y * width * 4).copyMemory(from: from, byteCount: width * 4)
            }
        }
        let name = GL.makeTexture(filter: GL_LINEAR)
        glPixelStorei(GLenum(GL_UNPACK_ALIGNMENT), 1)
        flipped.withUnsafeBytes {
            glTexImage2D(GLenum(GL_TEXTURE_2D), 0, GL_RGBA, GLsizei(width), GLsizei(height), 0, GLenum(GL_RGBA), GLenum(GL_UNSIGNED_BYTE), $0.baseAddress)
        }
        try GL.check("uploading \(path)")
        texture = TextureView(name: name, width: width, height: height, region: .bottomUp)
    }

    deinit {
        var name = texture.name
        glDeleteTextures(1, &name)
    }
}
