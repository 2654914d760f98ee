import CPNG
import Glibc
import Messages
import Pixels

/// A still PNG or JPEG image as a source: every frame is the same picture,
/// stamped `rate` frames a second (as the test pattern is). A JPEG is turned
/// upright by its EXIF orientation.
public final class ImageSource: FrameSource {
    public let path: String
    private let buffer: FrameBuffer
    private var index: UInt64 = 0
    private let kind: String
    private let rate: Double

    /// JPEG stills larger than this are refused before they are read.
    public static let maxJPEGBytes = 256 << 20

    /// `allowDamaged`: a JPEG that decodes with a warning (cut short, a corrupt
    /// segment: part of the picture gray) is taken as it is, rather than refused.
    public init(path: String, rate: Double = 30, allowDamaged: Bool = false) throws {
        self.path = path
        self.rate = rate
        // A picture is read whole, from a file: a FIFO or device is refused before it is opened.
        var info = stat()
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFREG, (info.st_mode & S_IFMT) != S_IFDIR {
            throw CaptureError("\(path): a picture must be a regular file (this is a FIFO or a device); stream frames as .y4m or raw instead")
        }
        let reader = try FileReader(path: path)
        if try Self.isJPEG(reader) {
            kind = "jpeg"
            buffer = try Self.readJPEG(reader, allowDamaged: allowDamaged)
            return
        }
        kind = "png"
        reader.seek(to: 0)
        _ = try PNGStructure.check(reader)
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

    public var summary: String { "\(path) \(buffer.width)x\(buffer.height) \(kind)" }

    private static func isJPEG(_ reader: FileReader) throws -> Bool {
        var start = [UInt8](repeating: 0, count: 3)
        let count = start.withUnsafeMutableBytes { reader.read(into: $0) }
        return count == 3 && start == [0xFF, 0xD8, 0xFF]
    }

    /// The whole file in memory (bounded), decoded with libjpeg-turbo, turned upright.
    private static func readJPEG(_ reader: FileReader, allowDamaged: Bool) throws -> FrameBuffer {
        let path = reader.path
        guard reader.size <= maxJPEGBytes else {
            throw CaptureError("\(path): the JPEG is \(reader.size >> 20) MiB; Kamera reads JPEG stills of at most \(maxJPEGBytes >> 20) MiB")
        }
        reader.seek(to: 0)
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: reader.size, alignment: 1)
        defer { bytes.deallocate() }
        guard reader.read(into: bytes) == reader.size else { throw CaptureError("\(path): cannot read the whole file") }
        let jpeg = UnsafeRawBufferPointer(bytes)
        let decoder = try JPEGDecoder()
        let size: (width: Int, height: Int)
        do { size = try decoder.size(of: jpeg) } catch {
            throw CaptureError("\(path): damaged JPEG: its header cannot be read; give a .jpg or .png image")
        }
        guard size.width > 0, size.height > 0 else {
            throw CaptureError("\(path): damaged JPEG: its header gives no picture size; give a .jpg or .png image")
        }
        guard FrameLimits.allows(width: size.width, height: size.height) else {
            throw CaptureError("\(path): the image is \(size.width)x\(size.height), too large; Kamera reads images of \(FrameLimits.summary)")
        }
        let stored = FrameBuffer(format: .rgba, width: size.width, height: size.height)
        let warning: String?
        do { warning = try decoder.decode(jpeg, into: stored) } catch {
            throw CaptureError("\(path): damaged JPEG: \(error)")
        }
        if let warning, !allowDamaged {
            throw CaptureError("\(path): damaged JPEG (\(warning.trimmingCharacters(in: .whitespaces))): part of the picture would be missing; give a whole image, or \(Setting.allowDamaged) to use what is there")
        }
        let orientation = EXIFOrientation.read(jpeg: jpeg)
        guard orientation != .upright else { return stored }
        let upright = orientation.swapsSides
            ? FrameBuffer(format: .rgba, width: size.height, height: size.width)
            : FrameBuffer(format: .rgba, width: size.width, height: size.height)
        orientation.apply(from: stored, to: upright)
        return upright
    }

    /// Every frame is the same picture: only the count (and so the timestamps) moves on.
    public func skip(_ count: Int) throws -> Int {
        index += UInt64(max(count, 0))
        return count
    }

    public func nextFrame() throws -> Frame? {
        defer { index += 1 }
        return buffer.frame(sequence: index, timestamp: FrameLimits.timestamp(frame: index, rate: rate))
    }

    private static func message(_ image: inout png_image) -> String {
        let text = withUnsafeBytes(of: &image.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        png_image_free(&image)
        return text.isEmpty ? "not a PNG file" : text
    }
}
