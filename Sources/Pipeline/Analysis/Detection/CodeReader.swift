import Foundation
import Lifecycle
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

    /// Read row by row (bars), not as a matrix of modules.
    var isLinear: Bool {
        switch self {
        case .qr, .microqr, .aztec, .datamatrix, .pdf417, .maxicode: false
        default: true
        }
    }

    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Reads QR, Aztec, DataMatrix, EAN, UPC, Code 39/93/128 and the other codes
/// zxing-cpp knows from a luma image, through two `ZXingReader`s, each with
/// its helper process (Debian 12's zxing-cpp aborts on some pictures, and then
/// only that picture's codes are lost: `onLostPicture`), working at once on a
/// machine of two cores or more:
/// - the linear codes on the luma, where zxing-cpp sets each row's threshold
///   from that row's histogram;
/// - the matrix codes on the frame made black and white once
///   (`LocalThresholdBinarizer`), which every read below shares.
///
/// zxing-cpp 1.4 (Debian 12's) finds an Aztec code only when it holds the
/// middle of the image, and a DataMatrix code only when it crosses the middle
/// row. So after the whole frame, Aztec codes are read again in windows
/// centered on each bull's-eye `BullseyeFinder` sees (copied onto white where
/// the window leaves the frame), and DataMatrix codes in bands of the frame
/// centered on rows an eighth of its height apart: a DataMatrix code at least
/// that tall is read wherever it is. Used from one thread at a time (the
/// analysis thread), which reads one side while a thread of the reader's own
/// reads the other.
final class CodeReader {
    private let linear: Side?
    private let matrix: Side?
    private let aztec: Int32?
    private let dataMatrix: Int32?
    private let bullseyes = BullseyeFinder()
    private let binarizer = LocalThresholdBinarizer()
    /// The linear side on one thread, the matrix side on another.
    private let parallel: ParallelRows
    private let work = Work()
    /// Pictures whose reading zxing-cpp did not finish (it aborted or hung).
    private(set) var lostPictures = 0
    /// Told why, each time a picture is lost.
    var onLostPicture: ((String) -> Void)?
    /// The programs the helpers were started from (`ZXingReader.program`).
    var helperPrograms: [String] { [linear, matrix].compactMap { $0?.reader.program } }

    /// A reader and the formats it is given.
    private struct Side {
        let reader: ZXingReader
        let formats: Int32
    }

    init(formats: [CodeFormat], threads: Int? = nil) throws {
        func side(_ formats: [CodeFormat]) throws -> Side? {
            formats.isEmpty ? nil : Side(reader: try ZXingReader(), formats: formats.reduce(0) { $0 | $1.bit })
        }
        linear = try side(formats.filter(\.isLinear))
        matrix = try side(formats.filter { !$0.isLinear })
        aztec = formats.contains(.aztec) ? CodeFormat.aztec.bit : nil
        dataMatrix = formats.contains(.datamatrix) ? CodeFormat.datamatrix.bit : nil
        parallel = ParallelRows(threads: min(2, threads ?? sysconf(Int32(_SC_NPROCESSORS_ONLN))), name: "kamera.codes")
    }

    /// The largest window around a bull's-eye, a side of it.
    private static let windowSide = 2 * 512 + 1

    /// The codes in `image`, in source pixels.
    func read(_ image: LumaImage) throws -> [DetectedObject] {
        work.reader = self
        work.image = image
        defer { work.image = nil }
        if linear != nil && matrix != nil {
            parallel.run(count: 2, work)
        } else {
            work.work(rows: 0..<2)
        }
        let objects = try work.linear.get() + work.matrix.get()
        for why in (linear?.reader.takeLost() ?? []) + (matrix?.reader.takeLost() ?? []) {
            lostPictures += 1
            onLostPicture?(why)
        }
        return objects
    }

    /// Part 0 reads the linear codes, part 1 the matrix codes.
    private final class Work: RowWork {
        weak var reader: CodeReader?
        var image: LumaImage?
        var linear: Result<[DetectedObject], Error> = .success([])
        var matrix: Result<[DetectedObject], Error> = .success([])

        func work(rows: Range<Int>) {
            guard let reader, let image else { return }
            if rows.contains(0) { linear = Result { try reader.readLinear(image) } }
            if rows.contains(1) { matrix = Result { try reader.readMatrix(image) } }
        }
    }

    /// Linear codes are read twice: across, on every fourth row (a view of
    /// the frame, `rowGap`), and down, on the frame turned on its side (zxing-cpp
    /// then takes every fifth of a 720-row frame's 1280 columns, as its own
    /// `tryRotate` would). Every fourth row finds the same codes as every
    /// second (zxing-cpp's own choice at 720 rows) at a quarter of the cost:
    /// a code must still cross two of them, so be 8 rows tall. The frame is
    /// turned here, in tiles, rather than read down its columns in place: a
    /// fresh frame's columns miss the cache at every pixel.
    private static let rowGap = 4

    private func readLinear(_ image: LumaImage) throws -> [DetectedObject] {
        guard let linear else { return [] }
        let (w, h) = (image.width, image.height)
        let frame = try linear.reader.buffer(2 * w * h), turned = frame + w * h
        frame.update(from: image.pixels.baseAddress!, count: w * h)
        Self.transpose(image.pixels.baseAddress!, width: w, height: h, into: turned)
        let gap = h / Self.rowGap >= 32 ? Self.rowGap : 1
        var objects = try linear.reader.read(linear.formats, frame, width: w, height: h / gap, stride: w * gap, blackAndWhite: false) {
            (Double($0), Double($1 * gap))
        }
        let down = try linear.reader.read(linear.formats, turned, width: h, height: w, stride: h, blackAndWhite: false) {
            (Double($1), Double($0))
        }
        Self.add(down, to: &objects, same: Self.touch)
        return objects
    }

    /// `pixels` (`width` x `height`) turned on its side into `output`: its column x becomes row x.
    private static func transpose(_ pixels: UnsafePointer<UInt8>, width w: Int, height h: Int, into output: UnsafeMutablePointer<UInt8>) {
        let tile = 32
        for y0 in stride(from: 0, to: h, by: tile) {
            let y1 = min(h, y0 + tile)
            for x0 in stride(from: 0, to: w, by: tile) {
                for x in x0..<min(w, x0 + tile) {
                    let column = output + x * h
                    for y in y0..<y1 { column[y] = pixels[y * w + x] }
                }
            }
        }
    }

    /// Appends each of `found` that is not already in `objects`: the same
    /// type and value, with boxes that are `same`.
    private static func add(_ found: [DetectedObject], to objects: inout [DetectedObject], same: (PixelBox, PixelBox) -> Bool) {
        for object in found where !objects.contains(where: { $0.type == object.type && $0.value == object.value && same($0.bounds, object.bounds) }) {
            objects.append(object)
        }
    }

    /// Whether two boxes overlap or meet (a linear code's box may be a line).
    private static func touch(_ a: PixelBox, _ b: PixelBox) -> Bool {
        a.x <= b.x + b.width && b.x <= a.x + a.width && a.y <= b.y + b.height && b.y <= a.y + a.height
    }

    private func readMatrix(_ image: LumaImage) throws -> [DetectedObject] {
        guard let matrix else { return [] }
        let (w, h) = (image.width, image.height)
        // The frame goes once, black and white, into the memory the helper
        // reads, and the bull's-eye windows after it: every read below names a part of it.
        let room = w * h + (aztec == nil ? 0 : Self.windowSide * Self.windowSide)
        let frame = try matrix.reader.buffer(room)
        binarizer.binarize(image, into: frame)
        // Turned too for the whole frame only: PDF417 is read in rows; DataMatrix and Aztec codes are found at any angle.
        func read(_ formats: Int32, _ pixels: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, at origin: (x: Int, y: Int)) throws -> [DetectedObject] {
            try matrix.reader.read(formats, pixels, width: width, height: height, stride: stride, blackAndWhite: true,
                                   turnedToo: pixels == frame && formats & CodeFormat.pdf417.bit != 0) {
                (Double($0 + origin.x), Double($1 + origin.y))
            }
        }
        var objects = try read(matrix.formats, frame, width: w, height: h, stride: w, at: (0, 0))
        func add(_ found: [DetectedObject]) { Self.add(found, to: &objects) { $0.intersectionOverUnion($1) > 0.2 } }
        if let aztec {
            let window = frame + w * h
            for center in bullseyes.centers(in: frame, width: w, height: h) {
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
}
