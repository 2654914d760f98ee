import CZXing
import Render

/// The codes zxing-cpp reads, by the names `--detect codes=...` and the
/// metadata use, with zxing's format bits.
public enum CodeFormat: String, CaseIterable, Sendable {
    case qr, microqr, aztec, datamatrix, pdf417, maxicode, ean8, ean13, upca, upce, code39, code93, code128, itf, codabar, databar
    case databarExpanded = "databar-expanded"

    var bit: Int32 {
        switch self {
        case .aztec: 1 << 0
        case .codabar: 1 << 1
        case .code39: 1 << 2
        case .code93: 1 << 3
        case .code128: 1 << 4
        case .databar: 1 << 5
        case .databarExpanded: 1 << 6
        case .datamatrix: 1 << 7
        case .ean8: 1 << 8
        case .ean13: 1 << 9
        case .itf: 1 << 10
        case .maxicode: 1 << 11
        case .pdf417: 1 << 12
        case .qr: 1 << 13
        case .upca: 1 << 14
        case .upce: 1 << 15
        case .microqr: 1 << 16
        }
    }

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Reads QR, Aztec, DataMatrix, EAN, UPC, Code 39/93/128 and the other codes
/// zxing-cpp knows from a luma image, through its C shim (`CZXing`), which
/// runs zxing-cpp in a helper process: Debian 12's build aborts on some
/// pictures, and then only that picture's codes are lost (`onLostPicture`).
///
/// zxing-cpp 1.4 (Debian 12's) finds an Aztec code only when it holds the
/// middle of the image, and a DataMatrix code only when it crosses the middle
/// row. So after the whole frame, Aztec codes are read again in windows
/// centered on each bull's-eye `BullseyeFinder` sees (copied onto white where
/// the window leaves the frame), and DataMatrix codes in bands of the frame
/// centered on rows an eighth of its height apart: a DataMatrix code at least
/// that tall is read wherever it is. One reader per thread.
final class CodeReader {
    private let reader: OpaquePointer
    private let formats: Int32
    private let aztec: Int32?
    private let dataMatrix: Int32?
    private let bullseyes = BullseyeFinder()
    /// Pictures whose reading zxing-cpp did not finish (it aborted or hung).
    private(set) var lostPictures = 0
    /// Told why, each time a picture is lost.
    var onLostPicture: ((String) -> Void)?

    init(formats: [CodeFormat]) throws {
        guard let reader = kamera_zxing_new() else { throw PipelineError("out of memory making the code reader") }
        self.reader = reader
        self.formats = formats.reduce(0) { $0 | $1.bit }
        aztec = formats.contains(.aztec) ? CodeFormat.aztec.bit : nil
        dataMatrix = formats.contains(.datamatrix) ? CodeFormat.datamatrix.bit : nil
    }

    deinit { kamera_zxing_free(reader) }

    /// The largest window around a bull's-eye, a side of it.
    private static let windowSide = 2 * 512 + 1

    /// The codes in `image`, in source pixels.
    func read(_ image: LumaImage) throws -> [DetectedObject] {
        let (w, h) = (image.width, image.height)
        // The frame goes once into the memory zxing-cpp's helper reads, and the
        // bull's-eye windows after it: every read below names a part of it.
        let room = w * h + (aztec == nil ? 0 : Self.windowSide * Self.windowSide)
        guard let frame = kamera_zxing_buffer(reader, room) else { throw failure() }
        frame.update(from: image.pixels.baseAddress!, count: w * h)
        var objects = try read(formats, frame, width: w, height: h, stride: w, at: (0, 0))
        func add(_ found: [DetectedObject]) {
            for object in found where !objects.contains(where: { $0.type == object.type && $0.value == object.value
                                                                 && $0.bounds.intersectionOverUnion(object.bounds) > 0.2 }) {
                objects.append(object)
            }
        }
        if let aztec {
            let window = frame + w * h
            for center in bullseyes.centers(in: image) {
                // Up to 80 modules each way: the largest Aztec code is 151 modules across.
                let half = min(Int(center.module * 80), 512), side = 2 * half + 1
                window.update(repeating: 255, count: side * side)
                let x0 = center.x - half, y0 = center.y - half
                let left = max(0, x0), right = min(w, x0 + side)
                for y in max(0, y0)..<min(h, y0 + side) {
                    (window + (y - y0) * side + (left - x0)).update(from: frame + y * w + left, count: right - left)
                }
                add(try read(aztec, window, width: side, height: side, stride: side, at: (x0, y0)))
            }
        }
        if let dataMatrix, h >= 16 {
            for k in [1, 2, 3, 5, 6, 7] {
                let middle = h * k / 8, reach = min(middle, h - middle, h / 4)
                add(try read(dataMatrix, frame + (middle - reach) * w, width: w, height: 2 * reach, stride: w, at: (0, middle - reach)))
            }
        }
        return objects
    }

    private func failure() -> PipelineError {
        PipelineError("the code reader failed: \(String(cString: kamera_zxing_error(reader)))")
    }

    /// The codes of `formats` in the image at `pixels`, moved by `origin` into frame pixels.
    private func read(_ formats: Int32, _ pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int,
                      at origin: (x: Int, y: Int)) throws -> [DetectedObject] {
        let count = kamera_zxing_read(reader, formats, pixels, Int32(width), Int32(height), Int32(stride))
        if count == -2 {
            lostPictures += 1
            onLostPicture?(String(cString: kamera_zxing_error(reader)))
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
            let points = (0..<4).map { (x: Double(Int(corners[2 * $0]) + origin.x), y: Double(Int(corners[2 * $0 + 1]) + origin.y)) }
            return DetectedObject(type: format.rawValue, value: value, bounds: PixelBox(enclosing: points), corners: points)
        }
    }
}
