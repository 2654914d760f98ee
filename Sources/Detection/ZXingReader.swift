import Analysis
import CZXing
import Render

/// One zxing-cpp reader (`CZXing`), with its own helper process and the
/// shared memory the helper reads pictures from. Used by one thread at a time.
final class ZXingReader {
    private let reader: OpaquePointer
    /// Why each picture since the last `takeLost()` was lost (zxing-cpp aborted or hung on it).
    private var lost: [String] = []

    init() throws {
        guard let reader = kamera_zxing_new() else { throw AnalysisError("out of memory making the code reader") }
        self.reader = reader
        kamera_zxing_prestart(reader)
    }

    deinit { kamera_zxing_free(reader) }

    /// The memory pictures are read from, at least `size` bytes; every
    /// picture given to `read` lies in it. Valid until a call with a larger size.
    func buffer(_ size: Int) throws -> UnsafeMutablePointer<UInt8> {
        guard let buffer = kamera_zxing_buffer(reader, size) else { throw failure() }
        return buffer
    }

    /// The program the helper was last started from ("" before one is started).
    var program: String { String(cString: kamera_zxing_program(reader)) }

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
        let count = kamera_zxing_read(reader, formats, pixels, Int32(width), Int32(height), Int32(stride), Int32(pixelStride), options)
        if count == -2 {
            lost.append(String(cString: kamera_zxing_error(reader)))
            return []
        }
        guard count >= 0 else { throw failure() }
        var corners = [Int32](repeating: 0, count: 8)
        return (0..<count).compactMap { i in
            let bit = kamera_zxing_format(reader, i)
            guard let format = CodeFormat.allCases.first(where: { $0.bit == bit }) else { return nil }
            var length = 0
            let text = kamera_zxing_text(reader, i, &length)
            let value = text.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: length), as: UTF8.self) } ?? ""
            kamera_zxing_corners(reader, i, &corners)
            let points = (0..<4).map { place(Int(corners[2 * $0]), Int(corners[2 * $0 + 1])) }
            return DetectedObject(type: format.rawValue, value: value, bounds: PixelBox(enclosing: points), corners: points)
        }
    }

    private func failure() -> AnalysisError {
        AnalysisError("the code reader failed: \(String(cString: kamera_zxing_error(reader)))")
    }
}
