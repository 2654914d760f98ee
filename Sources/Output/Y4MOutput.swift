import Foundation
import Messages
import Pixels

/// YUV4MPEG2 output: each rendered frame as planar Y'CbCr, 4:2:0 (`C420jpeg`),
/// 4:2:2 (`C422`) or 4:4:4 (`C444`), with the run's frame rate and the color range asked
/// for (`XCOLORRANGE`), which any encoder reads (`ffmpeg -i -`, `x264
/// --demuxer y4m`). To one file (put in place when the run ends, holding
/// every whole frame written), to a numbered sequence of one-frame files, or
/// to a stream (standard output, a FIFO, a device), one frame a write.
public final class Y4MOutput {
    public let pattern: OutputPattern
    /// Frames per second in the header; set before the first frame.
    public var rate: Double
    private let converter: RGBAToYUV
    private var file: OutputFile?
    private var size: (width: Int, height: Int)?
    /// Header (first frame only), `FRAME\n` and the planes, written in one call.
    private var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    public private(set) var written = 0
    /// Hears each path once its frame is written.
    public var onWrite: ((String) -> Void)?
    /// The number in the name of frame 0 in a sequence.
    public var firstNumber = 0

    public init(_ pattern: OutputPattern, frames: Int = 1, rate: Double, colorSpace: YUVColorSpace = .bt601Limited,
                chroma: RGBAToYUV.Chroma = .c420) throws {
        self.pattern = pattern
        self.rate = rate
        converter = RGBAToYUV(chroma: chroma, colorSpace: colorSpace)
        try pattern.check(frames: frames)
    }

    deinit { buffer.deallocate() }

    private static let frameMarker = Array("FRAME\n".utf8)

    /// `F` of the header: the rate as a fraction (30:1, 30000:1001).
    public static func rateFraction(_ rate: Double) -> (numerator: Int, denominator: Int) {
        for denominator in [1, 1001, 1000, 100] {
            let n = rate * Double(denominator)
            if abs(n - n.rounded()) < 1e-6 * Double(denominator), n.rounded() >= 1 { return (Int(n.rounded()), denominator) }
        }
        return (max(1, Int((rate * 1_000_000).rounded())), 1_000_000)
    }

    /// The stream header for frames of `width` x `height`, its line end included.
    public func header(width: Int, height: Int) -> String {
        let (n, d) = Self.rateFraction(rate)
        let chroma = switch converter.chroma {
        case .c420: "C420jpeg XYSCSS=420JPEG"
        case .c422: "C422 XYSCSS=422"
        case .c444: "C444 XYSCSS=444"
        }
        return "YUV4MPEG2 W\(width) H\(height) F\(n):\(d) Ip A1:1 \(chroma) XCOLORRANGE=\(converter.colorSpace.range == .full ? "FULL" : "LIMITED")\n"
    }

    public func write(_ pixels: UnsafeRawBufferPointer, width: Int, height: Int, index: Int) throws {
        if let size, size != (width, height), !pattern.isSequence {
            throw OutputError("\(pattern.pattern): the frames changed size from \(size.width)x\(size.height) to \(width)x\(height); a Y4M stream holds one size (fix it with \(Setting.size))")
        }
        // Only a file's first frame carries the header.
        let head = file == nil ? Array(header(width: width, height: height).utf8) : []
        let total = head.count + Self.frameMarker.count + converter.frameSize(width: width, height: height)
        if buffer.count < total {
            buffer.deallocate()
            buffer = .allocate(byteCount: total, alignment: 64)
        }
        if !head.isEmpty { buffer.baseAddress!.copyMemory(from: head, byteCount: head.count) }
        Self.frameMarker.withUnsafeBytes { buffer.baseAddress!.advanced(by: head.count).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let at = head.count + Self.frameMarker.count
        converter.convert(pixels, width: width, height: height)
        UnsafeMutableRawBufferPointer(rebasing: buffer[at..<total]).copyMemory(from: UnsafeRawBufferPointer(converter.planes))
        let path = file == nil || onWrite != nil ? pattern.path(for: firstNumber + index) : pattern.pattern
        let target = try file ?? OutputFile(path: path, example: "clip.y4m")
        try target.write(UnsafeRawBufferPointer(rebasing: buffer[0..<total]))
        if pattern.isSequence {
            try target.commit()
        } else {
            file = target
            size = (width, height)
        }
        written += 1
        onWrite?(path)
    }

    /// Puts the file holding every frame written in place (a sequence's are already).
    public func finish() throws {
        try file?.commit()
        file = nil
    }

    /// What has been written, for a message after a failure.
    public var writtenSummary: String {
        let count = written == 1 ? "1 frame was" : "\(written) frames were"
        return pattern.isSequence ? "\(count) written before it, each file complete" : "\(count) written to \(pattern.pattern) before it, each whole"
    }
}
