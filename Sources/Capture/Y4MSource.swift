/// A YUV4MPEG2 (`.y4m`) clip with 4:2:0 or 4:2:2 planar frames. The planes are
/// interleaved while reading into NV12 (4:2:0) or YUYV (4:2:2), the layouts the
/// texture cache converts on the GPU.
public final class Y4MSource: FrameSource {
    public let width: Int
    public let height: Int
    /// Frames per second from the header (`F30000:1001`), 30 when absent.
    public let rate: Double
    public let chroma: String
    private let reader: FileReader
    private let planar: UnsafeMutableRawBufferPointer
    private let buffer: FrameBuffer
    private let colorSpace: YUVColorSpace
    private var index: UInt64 = 0

    public init(path: String) throws {
        reader = try FileReader(path: path)
        guard let header = reader.readLine(), header.hasPrefix("YUV4MPEG2") else {
            throw CaptureError("\(path): not a YUV4MPEG2 file (the first line must start with \"YUV4MPEG2\")")
        }
        var width = 0, height = 0, rate = 30.0, chroma = "420jpeg", range = YUVColorSpace.Range.limited
        for field in header.split(separator: " ").dropFirst() {
            let value = String(field.dropFirst())
            switch field.first {
            case "W": width = Int(value) ?? 0
            case "H": height = Int(value) ?? 0
            case "C": chroma = value
            case "F":
                let parts = value.split(separator: ":").compactMap { Double($0) }
                if parts.count == 2, parts[1] > 0 { rate = parts[0] / parts[1] }
            case "X" where value == "COLORRANGE=FULL": range = .full
            default: break
            }
        }
        guard width > 0, height > 0 else {
            throw CaptureError("\(path): the YUV4MPEG2 header has no valid W and H")
        }
        let format: PixelFormat
        switch chroma {
        case "420", "420jpeg", "420paldv", "420mpeg2": format = .nv12
        case "422": format = .yuyv
        default:
            throw CaptureError("\(path): Y4M chroma C\(chroma) is not supported; use C420, C420jpeg, C420paldv, C420mpeg2 or C422")
        }
        self.width = width
        self.height = height
        self.rate = rate
        self.chroma = chroma
        colorSpace = YUVColorSpace(matrix: .bt601, range: range)
        buffer = FrameBuffer(format: format, width: width, height: height)
        let chromaWidth = (width + 1) / 2
        let chromaHeight = format == .nv12 ? (height + 1) / 2 : height
        planar = .allocate(byteCount: width * height + 2 * chromaWidth * chromaHeight, alignment: 64)
    }

    deinit { planar.deallocate() }

    public var summary: String { "\(reader.path) \(width)x\(height) C\(chroma) y4m" }

    public func nextFrame() throws -> Frame? {
        guard let marker = reader.readLine() else { return nil }
        guard marker.hasPrefix("FRAME") else {
            throw CaptureError("\(reader.path): frame \(index) does not start with FRAME (file damaged or truncated)")
        }
        let got = reader.read(into: planar)
        guard got == planar.count else {
            throw CaptureError("\(reader.path): frame \(index) is truncated (\(got) of \(planar.count) bytes)")
        }
        interleave()
        defer { index += 1 }
        let timestamp = UInt64(Double(index) / rate * 1_000_000_000)
        return buffer.frame(sequence: index, timestamp: timestamp, colorSpace: colorSpace)
    }

    private func interleave() {
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
