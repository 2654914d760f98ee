import Pixels
/// A YUV4MPEG2 (`.y4m`) clip with 4:2:0 or 4:2:2 planar frames. The planes are
/// interleaved while reading into NV12 (4:2:0) or YUYV (4:2:2), the layouts the
/// frame uploader converts on the GPU.
///
/// The header is validated before anything is allocated. A regular file is
/// scanned ahead (one seek per frame) so that a file too short for one frame
/// fails at once and a truncated or damaged frame is known before rendering.
public final class Y4MSource: FrameSource {
    public let header: Y4MHeader
    public var width: Int { header.width }
    public var height: Int { header.height }
    /// Frames per second from the header (`F30000:1001`), 30 when absent.
    public var rate: Double { header.rate }
    public var chroma: String { header.chroma }
    /// Whole frames in a regular file and what follows them; nil for pipes.
    public let inventory: FrameInventory?
    private let reader: FileReader
    private let planar: UnsafeMutableRawBufferPointer
    private let buffer: FrameBuffer
    private let colorSpace: YUVColorSpace
    private var index: UInt64 = 0

    public init(path: String) throws {
        reader = try FileReader(path: path)
        guard let (line, ended) = try reader.readLineAndEnd(what: "the YUV4MPEG2 header") else {
            throw CaptureError("\(path): is empty, not a YUV4MPEG2 file")
        }
        if !ended && line.hasPrefix("YUV4MPEG2") {
            throw CaptureError("\(path): the YUV4MPEG2 header is cut off: the file ends before its newline")
        }
        header = try Y4MHeader(parsing: line, name: path)
        colorSpace = YUVColorSpace(matrix: .bt601, range: header.range)
        if reader.isRegular {
            let inventory = try Self.scan(reader, frameBytes: header.frameBytes)
            if inventory.frames == 0 {
                throw CaptureError("\(path): \(inventory.damage ?? "holds no frames (a header and nothing after it)")")
            }
            self.inventory = inventory
        } else {
            inventory = nil
        }
        buffer = FrameBuffer(format: header.format, width: header.width, height: header.height)
        planar = .allocate(byteCount: header.frameBytes, alignment: 64)
    }

    deinit { planar.deallocate() }

    public var summary: String { "\(reader.path) \(width)x\(height) C\(chroma) y4m" }

    /// Walks the frames of a regular file by their `FRAME` lines without
    /// reading them, then goes back to the first.
    private static func scan(_ reader: FileReader, frameBytes: Int) throws -> FrameInventory {
        let start = reader.offset
        defer { reader.seek(to: start) }
        var frames = 0
        while true {
            let marker: String?
            do {
                marker = try reader.readLine(limit: Self.frameLineLimit, what: "the FRAME line of frame \(frames)")
            } catch {
                return FrameInventory(frames: frames, damage: "the FRAME line of frame \(frames) is longer than \(Self.frameLineLimit) bytes (file damaged)")
            }
            guard let marker else { return FrameInventory(frames: frames) }
            guard isFrameMarker(marker) else {
                return FrameInventory(frames: frames, damage: "frame \(frames) does not start with a FRAME line (file damaged)")
            }
            let data = reader.offset
            guard data + frameBytes <= reader.size else {
                return FrameInventory(frames: frames, damage: "frame \(frames) is truncated (\(reader.size - data) of \(frameBytes) bytes; check W, H and C in the header)")
            }
            reader.seek(to: data + frameBytes)
            frames += 1
        }
    }

    /// FRAME lines may carry parameters; a longer line is damage.
    static let frameLineLimit = 65536

    private static func isFrameMarker(_ line: String) -> Bool {
        line == "FRAME" || line.hasPrefix("FRAME ")
    }

    public func nextFrame() throws -> Frame? {
        guard let marker = try reader.readLine(limit: Self.frameLineLimit, what: "the FRAME line of frame \(index)") else { return nil }
        guard Self.isFrameMarker(marker) else {
            throw CaptureError("\(reader.path): frame \(index) does not start with a FRAME line (file damaged or truncated)")
        }
        let got = reader.read(into: planar)
        guard got == planar.count else {
            throw CaptureError("\(reader.path): frame \(index) is truncated (\(got) of \(planar.count) bytes; check W, H and C in the header)")
        }
        interleave()
        defer { index += 1 }
        return buffer.frame(sequence: index, timestamp: FrameLimits.timestamp(frame: index, rate: rate), colorSpace: colorSpace)
    }

    private func interleave() {
        let width = header.width, height = header.height
        let cw = (width + 1) / 2
        let ySize = width * height
        if buffer.format == .nv12 {
            let ch = (height + 1) / 2
            buffer.mutablePlane(0).copyMemory(from: UnsafeRawBufferPointer(rebasing: planar[0..<ySize]))
            let uv = buffer.mutablePlane(1)
            let u = ySize, v = ySize + cw * ch
            for i in 0..<(cw * ch) {
                uv[i * 2] = planar[u + i]
                uv[i * 2 + 1] = planar[v + i]
            }
        } else {
            let out = buffer.mutablePlane(0)
            let stride = buffer.planes[0].bytesPerRow
            let u = ySize, v = ySize + cw * height
            for y in 0..<height {
                for cx in 0..<cw {
                    let o = y * stride + cx * 4
                    let x = cx * 2
                    out[o] = planar[y * width + x]
                    out[o + 1] = planar[u + y * cw + cx]
                    out[o + 2] = planar[y * width + min(x + 1, width - 1)]
                    out[o + 3] = planar[v + y * cw + cx]
                }
            }
        }
    }
}
