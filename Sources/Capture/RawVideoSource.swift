import Messages
import Pixels
/// Headerless frames of one format and size, back to back (`.yuv`, `.rgb`, ...).
/// A format Kamera repacks (`RepackedFormat`) is read whole and repacked into
/// its native layout (raw Bayer: demosaiced by the ISP `isp` describes).
/// Frames are stamped `rate` a second.
public final class RawVideoSource: FrameSource {
    private let reader: FileReader
    private let buffer: FrameBuffer
    private let repacking: (repacker: FrameRepacker, bytes: UnsafeMutableRawBufferPointer, planes: [Plane])?
    private let colorSpace: YUVColorSpace
    private let rate: Double
    public let frameCount: Int
    private var index: UInt64 = 0

    public convenience init(path: String, format: PixelFormat, width: Int, height: Int,
                            colorSpace: YUVColorSpace = .bt601Limited, rate: Double = 30) throws {
        try self.init(path: path, format: .native(format), width: width, height: height, colorSpace: colorSpace, rate: rate)
    }

    public init(path: String, format: SourceFormat, width: Int, height: Int,
                colorSpace: YUVColorSpace = .bt601Limited, isp: ISPSettings = ISPSettings(), rate: Double = 30) throws {
        self.rate = rate
        try FrameLimits.check(width: width, height: height, "\(path): the frame size")
        if case .repacked(let wire) = format, let problem = wire.sizeProblem(width: width, height: height) {
            throw CaptureError("\(path): \(problem); check \(Setting.inputSize)")
        }
        reader = try FileReader(path: path)
        let frameSize = format.frameSize(width: width, height: height)
        let size = reader.size
        guard reader.isRegular else {
            throw CaptureError("\(path): raw frames must come from a regular file (its size tells the frame count); for a pipe use .y4m")
        }
        guard size >= frameSize else {
            throw CaptureError("\(path): \(size) bytes is less than one \(width)x\(height) \(format.name) frame (\(frameSize) bytes); check \(Setting.format) and \(Setting.inputSize)")
        }
        guard size % frameSize == 0 else {
            throw CaptureError("\(path): \(size) bytes is not a whole number of \(width)x\(height) \(format.name) frames (\(frameSize) bytes each); check \(Setting.format) and \(Setting.inputSize)")
        }
        frameCount = size / frameSize
        if case .repacked(let wire) = format {
            let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: frameSize, alignment: 64)
            let repacker = FrameRepacker(format: wire, isp: isp)
            repacking = (repacker, bytes, wire.planes(in: UnsafeRawBufferPointer(bytes), width: width, height: height))
            buffer = FrameBuffer(format: repacker.output, width: width, height: height)
        } else {
            repacking = nil
            buffer = FrameBuffer(format: format.native, width: width, height: height)
        }
        self.colorSpace = colorSpace
    }

    deinit { repacking?.bytes.deallocate() }

    public var inventory: FrameInventory? { FrameInventory(frames: frameCount) }

    public var summary: String {
        "\(reader.path) \(buffer.width)x\(buffer.height) \(repacking.map { "\($0.repacker.format.name), \($0.repacker.path)" } ?? buffer.format.name), \(frameCount) frames"
    }

    public func nextFrame() throws -> Frame? {
        let target = repacking?.bytes ?? buffer.allBytes
        let got = reader.read(into: target)
        if got == 0 { return nil }
        guard got == target.count else {
            throw CaptureError("\(reader.path): frame \(index) is truncated (\(got) of \(target.count) bytes)")
        }
        let bayer = repacking.flatMap { $0.repacker.repack($0.planes, into: buffer) }
        defer { index += 1 }
        var frame = buffer.frame(sequence: index, timestamp: FrameLimits.timestamp(frame: index, rate: rate), colorSpace: colorSpace)
        frame.bayer = bayer
        return frame
    }
}
