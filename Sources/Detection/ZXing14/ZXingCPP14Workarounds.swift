import Analysis
import Render

/// What `CodeReader` does beyond one read of the frame because Debian 12's
/// zxing-cpp 1.4 does not do it, in one place, so that it can go when a newer
/// zxing-cpp is packaged. Each read here makes up for one gap of that version:
/// - **Mirrored QR codes** (`mirroredQR`): 1.4 reads no mirrored code (one
///   seen from behind a film or through a mirror, or every code of a camera
///   set to flip its picture). zxing-cpp 2.0 has `setTryInvert`/mirrored
///   reading in its hints.
/// - **Aztec codes off the middle** (`aztecWindows`): 1.4 finds an Aztec code
///   only when it holds the middle of the image. Windows centered on each
///   bull's-eye `BullseyeFinder` sees are read again (copied onto white
///   where a window leaves the frame). 2.0 finds them anywhere.
/// - **DataMatrix codes off the middle row** (`dataMatrixBand`): 1.4 finds a
///   DataMatrix code only when it crosses the middle row. Bands centered on
///   rows an eighth of the frame's height apart are read: a code at least
///   that tall is read wherever it is. 2.0 scans the whole image.
/// - **QR codes in a grid** (`moreQRCodes`): 1.4 tries at most 16 sets of
///   three finder patterns a picture, the most square first, so of 12 codes
///   in a 4x3 grid one was read. The frame is read again with the codes found
///   painted white, up to `qrPasses` times.
/// - **One black-and-white frame for all of these** (`binarizer`,
///   `LocalThresholdBinarizer`): zxing-cpp would binarize the frame again for
///   each read.
///
/// The rare reads (mirrored, grid) are made on the frames `OccasionalRead`
/// picks. To check a newer zxing-cpp: drop a read here and run
/// CodeReaderTests and CodeDetectionTests (a code mirrored, an Aztec code in
/// a corner, a DataMatrix code high in the frame, 12 QR codes in a grid), and
/// `kamera bench`'s detection rows before and after.
final class ZXingCPP14Workarounds {
    /// The zxing-cpp these reads exist for.
    static let libraryVersion = "1.4"

    /// A read of the black-and-white frame beyond the whole-frame reads.
    enum Read {
        /// The whole frame mirrored, for QR and Micro QR codes, on the frames
        /// `mirrorReads` picks, whether or not it is this read's turn.
        case mirroredQR(formats: Int32)
        /// A window on each Aztec bull's-eye.
        case aztecWindows
        /// The DataMatrix band centered on row `eighths` / 8 of the frame's height.
        case dataMatrixBand(eighths: Int)
    }

    /// The reads a reader of `formats` makes, in the order their codes are listed.
    let reads: [Read]
    /// Makes the frame black and white once for every matrix read.
    let binarizer = LocalThresholdBinarizer()
    private let readsQR: Bool
    private let bullseyes = BullseyeFinder()
    /// Used by whichever side does the whole-frame read; the sides' threads are joined between frames.
    private var qrRereads = OccasionalRead()
    /// The QR codes the whole-frame read found on the frame before (for `qrRereads`).
    private var previousQRValues: Set<String> = []
    private var mirrorReads = OccasionalRead()
    /// Whether this frame is read mirrored.
    private var mirrorIsDue = false

    init(formats: [CodeFormat]) {
        let qrCodes = formats.filter { $0 == .qr || $0 == .microqr }.reduce(0) { $0 | $1.bit }
        var reads: [Read] = []
        if qrCodes != 0 { reads.append(.mirroredQR(formats: qrCodes)) }
        if formats.contains(.aztec) { reads.append(.aztecWindows) }
        if formats.contains(.datamatrix) { reads += [1, 2, 3, 5, 6, 7].map { .dataMatrixBand(eighths: $0) } }
        self.reads = reads
        readsQR = formats.contains(.qr)
    }

    /// The largest window around a bull's-eye, a side of it.
    private static let windowSide = 2 * 512 + 1

    /// The bytes these reads need after a copy of the frame: a bull's-eye
    /// window, or a copy of the frame with the QR codes read painted out.
    func room(width w: Int, height h: Int) -> Int {
        let windows = reads.contains { if case .aztecWindows = $0 { true } else { false } } ? Self.windowSide * Self.windowSide : 0
        return max(windows, readsQR ? w * h : 0)
    }

    /// A new frame: whether it is read mirrored.
    func nextFrame() {
        mirrorIsDue = reads.contains { if case .mirroredQR = $0 { true } else { false } } && mirrorReads.isDue()
    }

    /// Whether `read` is made on this frame; `turn`: it is its turn (`ReadTurns`).
    func isDue(_ read: Read, turn: Bool) -> Bool {
        if case .mirroredQR = read { return mirrorIsDue }
        return turn
    }

    /// `read` was made; `foundNew`: it found codes the others did not (zxing-cpp
    /// reads some codes either way: the mirrored read is made again on the
    /// next frame only for codes the others did not read).
    func made(_ read: Read, foundNew: Bool) {
        if case .mirroredQR = read { mirrorReads.made(found: foundNew) }
    }

    /// One read, on a side's copy of the black-and-white frame (`width` x `height`, `room` after it).
    func read(_ read: Read, with reader: ZXingReader, on frame: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int) throws -> [DetectedObject] {
        switch read {
        case let .mirroredQR(formats):
            return try reader.read(formats, frame, width: w, height: h, stride: w, blackAndWhite: true, mirrored: true) { (Double($0), Double($1)) }
        case .aztecWindows:
            var found: [DetectedObject] = []
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
                found += try reader.read(CodeFormat.aztec.bit, window, width: side, height: side, stride: side, blackAndWhite: true) {
                    (Double($0 + x0), Double($1 + y0))
                }
            }
            return found
        case let .dataMatrixBand(eighths):
            guard h >= 16 else { return [] }
            let middle = h * eighths / 8, reach = min(middle, h - middle, h / 4)
            return try reader.read(CodeFormat.datamatrix.bit, frame + (middle - reach) * w, width: w, height: 2 * reach, stride: w, blackAndWhite: true) {
                (Double($0), Double($1 + middle - reach))
            }
        }
    }

    /// The most passes `moreQRCodes` makes: each finds at least one code more.
    static let qrPasses = 64

    /// The QR codes a whole-frame read that found `found` left out: while a
    /// read finds QR codes, the frame is read again for QR codes with those
    /// found painted white (in the room after the frame), on the frames
    /// `qrRereads` picks of those where QR codes were found.
    func moreQRCodes(than found: [DetectedObject], with reader: ZXingReader, on frame: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int) throws -> [DetectedObject] {
        var last = found.filter { $0.type == CodeFormat.qr.rawValue }
        let values = Set(last.compactMap(\.value))
        defer { previousQRValues = values }
        guard !values.isEmpty, qrRereads.isDue(wanted: values != previousQRValues) else { return [] }
        let copy = frame + w * h
        copy.update(from: frame, count: w * h)
        var known = found
        for _ in 0..<Self.qrPasses {
            // A module's margin and more: the corners are the code's outer corners, and a quiet zone is 4 modules.
            for code in last { whiten(code.corners, grownBy: 1.15, in: copy, width: w, height: h) }
            let before = known.count
            CodeReader.add(try reader.read(CodeFormat.qr.bit, copy, width: w, height: h, stride: w, blackAndWhite: true) { (Double($0), Double($1)) },
                           to: &known) { $0.intersectionOverUnion($1) > 0.2 }
            last = Array(known[before...])
            if last.isEmpty { break }
        }
        qrRereads.made(found: known.count > found.count)
        return Array(known[found.count...])
    }
}
