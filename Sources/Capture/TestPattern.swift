import Pixels
/// The built-in test pattern: 75 % color bars over a gray ramp, a white square
/// that moves with the frame index, and the frame number on a black box at the
/// top, centered. Frame `n` always looks the same, so renders of it can be compared.
public final class TestPattern: FrameSource {
    public let width: Int
    public let height: Int
    public let format: PixelFormat
    public let colorSpace: YUVColorSpace
    /// Frames per second, used for timestamps.
    public let rate: Double
    private var index: UInt64 = 0
    private let background: [UInt8]
    private let rgba: FrameBuffer
    private let output: FrameBuffer
    /// The background in the output format, converted once: each frame then
    /// converts only the rectangles of its square and number.
    private let convertedBackground: [[UInt8]]

    public static let bars: [(UInt8, UInt8, UInt8)] = [
        (191, 191, 191), (191, 191, 0), (0, 191, 191), (0, 191, 0),
        (191, 0, 191), (191, 0, 0), (0, 0, 191), (0, 0, 0),
    ]

    public init(width: Int, height: Int, format: PixelFormat = .rgba,
                colorSpace: YUVColorSpace = .bt601Limited, rate: Double = 30) {
        self.width = width
        self.height = height
        self.format = format
        self.colorSpace = colorSpace
        self.rate = rate
        background = Self.drawBackground(width: width, height: height)
        rgba = FrameBuffer(format: .rgba, width: width, height: height)
        output = format == .rgba ? rgba : FrameBuffer(format: format, width: width, height: height)
        let pixels = rgba.mutablePlane(0)
        background.withUnsafeBytes { pixels.copyMemory(from: $0) }
        if format != .rgba { FormatConverter.convert(rgba: rgba, to: output, colorSpace: colorSpace) }
        convertedBackground = output.planes.map { Array($0.bytes) }
    }

    public var summary: String { "test pattern \(width)x\(height) \(format.name)" }

    public func nextFrame() throws -> Frame? {
        defer { index += 1 }
        return frame(at: index)
    }

    public func skip(_ count: Int) throws -> Int {
        index += UInt64(max(count, 0))
        return count
    }

    /// Frame `index` of the pattern (the memory is reused by the next call).
    public func frame(at index: UInt64) -> Frame {
        let pixels = rgba.mutablePlane(0)
        background.withUnsafeBytes { pixels.copyMemory(from: $0) }
        let square = drawMovingSquare(pixels, index: index)
        let number = drawNumber(pixels, index)
        if format != .rgba {
            for (plane, bytes) in convertedBackground.enumerated() {
                let target = output.mutablePlane(plane)
                bytes.withUnsafeBytes { target.copyMemory(from: $0) }
            }
            FormatConverter.convert(rgba: rgba, to: output, colorSpace: colorSpace, rows: square.rows, columns: square.columns)
            FormatConverter.convert(rgba: rgba, to: output, colorSpace: colorSpace, rows: number.rows, columns: number.columns)
        }
        let timestamp = FrameLimits.timestamp(frame: index, rate: rate)
        return output.frame(sequence: index, timestamp: timestamp, colorSpace: colorSpace)
    }

    /// Where the moving square's top-left corner is in frame `index`, and its edge.
    public func squarePosition(at index: UInt64) -> (x: Int, y: Int, size: Int) {
        let size = max(2, height / 6)
        let travel = max(1, width - size)
        let step = max(1, width / 60)
        // (index x step) mod travel without the product overflowing for any index.
        let x = Int((UInt64(travel / 2) + (index % UInt64(travel)) * UInt64(step)) % UInt64(travel))
        return (x, height * 2 / 3 - size / 2, size)
    }

    private static func drawBackground(width: Int, height: Int) -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        let barsBottom = height * 2 / 3
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                if y < barsBottom {
                    let bar = bars[min(bars.count - 1, x * bars.count / max(1, width))]
                    (pixels[i], pixels[i + 1], pixels[i + 2]) = bar
                } else {
                    let v = UInt8(x * 255 / max(1, width - 1))
                    (pixels[i], pixels[i + 1], pixels[i + 2]) = (v, v, v)
                }
            }
        }
        return pixels
    }

    private func fill(_ pixels: UnsafeMutableRawBufferPointer, x: Int, y: Int, w: Int, h: Int,
                      _ color: (UInt8, UInt8, UInt8)) {
        let x0 = max(0, x), y0 = max(0, y), x1 = min(width, x + w), y1 = min(height, y + h)
        guard x0 < x1, y0 < y1 else { return }
        for row in y0..<y1 {
            var i = (row * width + x0) * 4
            for _ in x0..<x1 {
                pixels[i] = color.0; pixels[i + 1] = color.1; pixels[i + 2] = color.2; pixels[i + 3] = 255
                i += 4
            }
        }
    }

    /// Draws the square; returns the rows and columns it covers.
    private func drawMovingSquare(_ pixels: UnsafeMutableRawBufferPointer, index: UInt64) -> (rows: Range<Int>, columns: Range<Int>) {
        let square = squarePosition(at: index)
        fill(pixels, x: square.x, y: square.y, w: square.size, h: square.size, (255, 255, 255))
        return (square.y..<(square.y + square.size), square.x..<(square.x + square.size))
    }

    /// Draws `index` in a 3x5 pixel font, scaled to about a twelfth of the
    /// height, on a black box; returns the rows and columns the box covers.
    private func drawNumber(_ pixels: UnsafeMutableRawBufferPointer, _ index: UInt64) -> (rows: Range<Int>, columns: Range<Int>) {
        let scale = max(1, height / 60)
        // The last eight digits at most, counted without an array (nothing allocated per frame).
        var count = 1
        while count < 8 && index / Self.powersOfTen[count] > 0 { count += 1 }
        let margin = scale * 2
        let boxW = margin * 2 + count * 4 * scale - scale, boxH = margin * 2 + 5 * scale
        let left = width / 2 - boxW / 2, top = height / 12
        fill(pixels, x: left, y: top, w: boxW, h: boxH, (0, 0, 0))
        for position in 0..<count {
            let glyph = Self.font[Int(index / Self.powersOfTen[count - 1 - position] % 10)]
            for row in 0..<5 {
                for col in 0..<3 where glyph[row] & (4 >> col) != 0 {
                    fill(pixels, x: left + margin + (position * 4 + col) * scale, y: top + margin + row * scale,
                         w: scale, h: scale, (255, 255, 255))
                }
            }
        }
        return (top..<(top + boxH), left..<(left + boxW))
    }

    private static let powersOfTen: [UInt64] = (0..<8).map { (0..<$0).reduce(1) { p, _ in p * 10 } }

    /// Digits 0-9, five rows of three bits each (bit 2 is the left column).
    private static let font: [[UInt8]] = [
        [7, 5, 5, 5, 7], [2, 6, 2, 2, 7], [7, 1, 7, 4, 7], [7, 1, 7, 1, 7], [5, 5, 7, 1, 1],
        [7, 4, 7, 1, 7], [7, 4, 7, 5, 7], [7, 1, 1, 1, 1], [7, 5, 7, 5, 7], [7, 5, 7, 1, 7],
    ]
}
