import Analysis
import CZXing
import Render

/// One zxing-cpp reader: its own helper process (`ZXingHelper`) and the
/// shared memory the helper reads pictures from. Used by one thread at a time.
final class ZXingReader {
    private let helper = ZXingHelper()
    /// Why each picture since the last `takeLost()` was lost (zxing-cpp aborted or hung on it).
    private var lost: [String] = []

    init() throws {
        helper.prestart()
    }

    /// The memory pictures are read from, at least `size` bytes; every
    /// picture given to `read` lies in it. Valid until a call with a larger size.
    func buffer(_ size: Int) throws -> UnsafeMutablePointer<UInt8> {
        try helper.reserve(size)
    }

    /// The program the helper was last started from ("" before one is started).
    var program: String { helper.program }

    /// The reasons pictures were lost since the last call, and forgets them.
    func takeLost() -> [String] {
        defer { lost.removeAll(keepingCapacity: true) }
        return lost
    }

    /// The codes of `formats` in the picture at `pixels` (luma, or black and
    /// white when `blackAndWhite`: 0 black; pixel x, y at `pixels[y * stride + x * pixelStride]`),
    /// also turned a quarter when `turnedToo`, or only mirrored left to right
    /// when `mirrored`, placed in frame pixels by `place` (from the picture's own pixels, mirrored or not).
    func read(_ formats: Int32, _ pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, pixelStride: Int = 1,
              blackAndWhite: Bool, turnedToo: Bool = false, mirrored: Bool = false,
              place: (_ x: Int, _ y: Int) -> (x: Double, y: Double)) throws -> [DetectedObject] {
        let options = (blackAndWhite ? Int32(KAMERA_ZXING_BLACK_AND_WHITE) : 0) | (turnedToo ? Int32(KAMERA_ZXING_TURNED_TOO) : 0)
            | (mirrored ? Int32(KAMERA_ZXING_MIRRORED) : 0)
        let offset = helper.buffer.map { pixels - UnsafePointer($0) } ?? -1
        var request = kamera_zxing_request(formats: formats, width: Int32(clamping: width), height: Int32(clamping: height),
                                           stride: Int32(clamping: stride), pixelStride: Int32(clamping: pixelStride), options: options,
                                           offset: Int64(offset), mapped: Int64(helper.size))
        guard helper.buffer != nil, kamera_zxing_request_fits(&request, Int64(helper.size)) != 0 else {
            throw AnalysisError("the code reader failed: a picture of \(width)x\(height) (\(stride) bytes a row) that is not inside the code reader's buffer, or is over \(KAMERA_ZXING_MAX_SIDE) pixels a side")
        }
        var found: [DetectedObject] = []
        do {
            try helper.read(request) { count, next in
                for _ in 0..<max(count, 0) {
                    let (numbers, text) = try next()
                    guard let format = CodeFormat.allCases.first(where: { $0.bit == numbers[0] }) else { continue }
                    let points = (0..<4).map { place(Int(numbers[1 + 2 * $0]), Int(numbers[2 + 2 * $0])) }
                    found.append(DetectedObject(type: format.rawValue, value: text, bounds: PixelBox(enclosing: points), corners: points))
                }
            }
        } catch let gone as ZXingHelper.Lost {
            lost.append(gone.reason)
            return []
        }
        return found
    }
}
