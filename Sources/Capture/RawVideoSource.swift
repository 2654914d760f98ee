import Pixels
/// Headerless frames of one format and size, back to back (`.yuv`, `.rgb`, ...).
public final class RawVideoSource: FrameSource {
    private let reader: FileReader
    private let buffer: FrameBuffer
    private let colorSpace: YUVColorSpace
    public let frameCount: Int
    private var index: UInt64 = 0

    public init(path: String, format: PixelFormat, width: Int, height: Int,
                colorSpace: YUVColorSpace = .bt601Limited) throws {
        try FrameLimits.check(width: width, height: height, "\(path): the frame size")
        reader = try FileReader(path: path)
        let frameSize = format.frameSize(width: width, height: height)
        let size = reader.size
        guard reader.isRegular else {
            throw CaptureError("\(path): raw frames must come from a regular file (its size tells the frame count); for a pipe use .y4m")
        }
        guard size >= frameSize else {
            throw CaptureError("\(path): \(size) bytes is less than one \(width)x\(height) \(format.name) frame (\(frameSize) bytes); check --format and --input-size")
        }
        guard size % frameSize == 0 else {
            throw CaptureError("\(path): \(size) bytes is not a whole number of \(width)x\(height) \(format.name) frames (\(frameSize) bytes each); check --format and --input-size")
        }
        frameCount = size / frameSize
        buffer = FrameBuffer(format: format, width: width, height: height)
        self.colorSpace = colorSpace
    }

    public var inventory: FrameInventory? { FrameInventory(frames: frameCount) }

    public var summary: String {
        "\(reader.path) \(buffer.width)x\(buffer.height) \(buffer.format.name), \(frameCount) frames"
    }

    public func nextFrame() throws -> Frame? {
        let got = reader.read(into: buffer.allBytes)
        if got == 0 { return nil }
        guard got == buffer.allBytes.count else {
            throw CaptureError("\(reader.path): frame \(index) is truncated (\(got) of \(buffer.allBytes.count) bytes)")
        }
        defer { index += 1 }
        return buffer.frame(sequence: index, timestamp: 0, colorSpace: colorSpace)
    }
}
