import CPNG
import Pixels

/// A still PNG image as a source: every frame is the same picture.
public final class ImageSource: FrameSource {
    public let path: String
    private let buffer: FrameBuffer
    private var index: UInt64 = 0

    public init(path: String) throws {
        self.path = path
        _ = try PNGStructure.check(try FileReader(path: path))
        var image = png_image()
        image.version = kamera_png_image_version
        guard png_image_begin_read_from_file(&image, path) != 0 else {
            throw CaptureError("\(path): cannot read PNG: \(Self.message(&image)); the file is damaged or not a PNG")
        }
        image.format = kamera_png_format_rgba
        let width = Int(image.width), height = Int(image.height)
        guard FrameLimits.allows(width: width, height: height) else {
            png_image_free(&image)
            throw CaptureError("\(path): the image is \(width)x\(height), too large; Kamera reads images of \(FrameLimits.summary)")
        }
        buffer = FrameBuffer(format: .rgba, width: width, height: height)
        let ok = png_image_finish_read(&image, nil, buffer.allBytes.baseAddress, Int32(width * 4), nil)
        guard ok != 0 else {
            throw CaptureError("\(path): cannot read PNG: \(Self.message(&image)); the file is damaged")
        }
    }

    public var summary: String { "\(path) \(buffer.width)x\(buffer.height) png" }

    /// Every frame is the same picture: nothing to pass over.
    public func skip(_ count: Int) throws -> Int { count }

    public func nextFrame() throws -> Frame? {
        defer { index += 1 }
        return buffer.frame(sequence: index, timestamp: 0)
    }

    private static func message(_ image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        png_image_free(&image)
        return text.isEmpty ? "not a PNG file" : text
    }
}
