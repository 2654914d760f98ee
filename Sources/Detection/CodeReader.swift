import Analysis
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
/// - the linear side reads the linear codes on the luma, where zxing-cpp sets
///   each row's threshold from that row's histogram;
/// - the matrix side makes the frame black and white once
///   (`LocalThresholdBinarizer`) and starts on the matrix reads of it
///   (`MatrixRead`). The linear side, done with its own, takes the matrix
///   reads still left, on its copy of that frame, so both finish together.
///   The codes found, and their order, are the same whichever side reads what.
///
/// After the whole frame come the reads that make up for what zxing-cpp 1.4
/// (Debian 12's) does not do (`ZXingCPP14Workarounds`: mirrored QR codes,
/// Aztec and DataMatrix codes away from the middle, QR codes in a grid).
/// While codes are in view, the reads take turns (`ReadTurns`). Used from
/// one thread at a time (the analysis thread), which reads one side while a
/// thread of the reader's own reads the other.
final class CodeReader {
    private let linear: Side?
    private let matrix: Side?
    /// The matrix reads of every frame, in the order their codes are listed.
    private let plan: [MatrixRead]
    private let zxing14: ZXingCPP14Workarounds
    /// The linear side on one thread, the matrix side on another.
    private let parallel: ParallelRows
    private let work = Work()
    private let handout = MatrixReadHandout()
    /// The formats the whole-frame read takes, in groups that take turns
    /// apart: QR codes (which it follows while they are in view), the other
    /// matrix codes, PDF417 (turned too, the most costly).
    private let wholeGroups: [Int32]
    /// The groups' formats this frame's two whole-frame reads take: those
    /// that found codes on the frame before, which they follow, and the
    /// others due (all of them while no code is in view). One read of
    /// zxing-cpp for many formats makes the picture's bits once for all
    /// (0.7 ms a read at 720p); two let the codes followed be read on one
    /// thread while the rest take their turn on the other.
    private var wholeFormats: [Int32] = [0, 0]
    /// Which reads each frame gets: the plan's, the linear reads across and
    /// down, then the whole-frame read's groups.
    private var turns: ReadTurns
    private var acrossRead: Int { plan.count }
    private var downRead: Int { plan.count + 1 }
    private func groupRead(_ group: Int) -> Int { plan.count + 2 + group }
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

    /// One read of the black-and-white frame.
    private enum MatrixRead {
        /// The whole frame, for `wholeFormats[part]`, also turned a quarter
        /// where they hold PDF417 (read in rows) or DataMatrix (then looked
        /// for from all four sides of the middle, not the left alone).
        case whole(part: Int)
        /// A read beyond the whole frame's for zxing-cpp 1.4.
        case zxing14(ZXingCPP14Workarounds.Read)
    }

    /// The codes found by the matrix reads that one side did, by their place in `plan`.
    private typealias MatrixFinds = [(read: Int, objects: [DetectedObject])]
    /// The linear codes found across the frame and down it.
    private typealias LinearFinds = (across: [DetectedObject], down: [DetectedObject])

    init(formats: [CodeFormat], threads: Int? = nil) throws {
        func side(_ formats: [CodeFormat]) throws -> Side? {
            formats.isEmpty ? nil : Side(reader: try ZXingReader(), formats: formats.reduce(0) { $0 | $1.bit })
        }
        linear = try side(formats.filter(\.isLinear))
        matrix = try side(formats.filter { !$0.isLinear })
        var plan: [MatrixRead] = []
        let qrCodes = formats.filter { $0 == .qr || $0 == .microqr }.reduce(0) { $0 | $1.bit }
        let others = formats.filter { !$0.isLinear && $0 != .qr && $0 != .microqr && $0 != .pdf417 }.reduce(0) { $0 | $1.bit }
        wholeGroups = [qrCodes, others, formats.contains(.pdf417) ? CodeFormat.pdf417.bit : 0].filter { $0 != 0 }
        if matrix != nil { plan += [.whole(part: 0), .whole(part: 1)] }
        zxing14 = ZXingCPP14Workarounds(formats: formats)
        plan += zxing14.reads.map { .zxing14($0) }
        self.plan = plan
        turns = ReadTurns(reads: plan.count + 2 + wholeGroups.count)
        parallel = ParallelRows(threads: min(2, threads ?? sysconf(Int32(_SC_NPROCESSORS_ONLN))), name: "kamera.codes")
    }

    /// The bytes a side's copy of the black-and-white frame takes, with the
    /// room the zxing-cpp 1.4 reads need after it.
    private func matrixRoom(width w: Int, height h: Int) -> Int {
        w * h + zxing14.room(width: w, height: h)
    }

    /// The codes in `image`, in source pixels.
    func read(_ image: LumaImage) throws -> [DetectedObject] {
        work.reader = self
        work.image = image
        defer { work.image = nil }
        zxing14.nextFrame()
        turns.nextFrame()
        wholeFormats[0] = 0
        wholeFormats[1] = 0
        for group in wholeGroups.indices where turns.due[groupRead(group)] {
            wholeFormats[turns.followed[groupRead(group)] ? 0 : 1] |= wholeGroups[group]
        }
        handout.start(reads: plan.count) { read in
            switch plan[read] {
            case .whole(let part): wholeFormats[part] != 0
            case .zxing14(let extra): zxing14.isDue(extra, turn: turns.due[read])
            }
        }
        if linear != nil && matrix != nil {
            parallel.run(count: 2, work)
        } else {
            work.work(rows: 0..<2)
        }
        var objects: [DetectedObject] = []
        for found in (try work.matrix.get() + work.helped.get()).sorted(by: { $0.read < $1.read }) {
            if case .whole = plan[found.read] {
                for group in wholeGroups.indices where found.objects.contains(where: { CodeFormat(rawValue: $0.type).map { wholeGroups[group] & $0.bit != 0 } ?? false }) {
                    turns.found(groupRead(group))
                }
            } else if !found.objects.isEmpty {
                turns.found(found.read)
            }
            let before = objects.count
            Self.add(found.objects, to: &objects) { $0.intersectionOverUnion($1) > 0.2 }
            if case .zxing14(let extra) = plan[found.read] { zxing14.made(extra, foundNew: objects.count > before) }
        }
        let linearFinds = try work.linear.get()
        if !linearFinds.across.isEmpty { turns.found(acrossRead) }
        if !linearFinds.down.isEmpty { turns.found(downRead) }
        var linearObjects = linearFinds.across
        Self.add(linearFinds.down, to: &linearObjects, same: Self.touch)
        objects = linearObjects + objects
        for why in (linear?.reader.takeLost() ?? []) + (matrix?.reader.takeLost() ?? []) {
            lostPictures += 1
            onLostPicture?(why)
        }
        return objects
    }

    /// Part 0 reads the linear codes, then helps with the matrix reads; part 1 does the matrix reads.
    private final class Work: RowWork {
        weak var reader: CodeReader?
        var image: LumaImage?
        var linear: Result<LinearFinds, Error> = .success(([], []))
        var helped: Result<MatrixFinds, Error> = .success([])
        var matrix: Result<MatrixFinds, Error> = .success([])

        func work(rows: Range<Int>) {
            guard let reader, let image else { return }
            // The matrix side first: on one thread, it does every matrix read,
            // and the linear side finds none left instead of waiting for the frame.
            if rows.contains(1) { matrix = Result { try reader.readMatrix(image) } }
            if rows.contains(0) {
                linear = Result { try reader.readLinear(image) }
                helped = Result { try reader.helpWithMatrixReads(image) }
            }
        }
    }

    /// Linear codes are read twice, on samples of the frame copied into the
    /// helper's memory: across, on every fourth row, and down, on every
    /// `columnGap`th column turned on its side: what zxing-cpp's own
    /// `tryRotate` reads of the frame turned (every fifth of 1280 columns).
    /// Every fourth row finds the same codes as every second (zxing-cpp's own
    /// choice at 720 rows) at a quarter of the cost: a code must still cross
    /// two of them, so be 8 rows tall. Only the rows and columns read are
    /// copied: turning the whole frame cost more than reading it.
    private struct LinearSamples {
        let rowGap: Int, rows: Int
        let columnGap: Int, columns: Int
        /// Bytes of the rows, then of the columns turned.
        let size: Int

        init(width w: Int, height h: Int) {
            rowGap = h / 4 >= 32 ? 4 : 1
            rows = h / rowGap
            columnGap = max(1, w >> 8)
            columns = (w + columnGap - 1) / columnGap
            size = rows * w + columns * h
        }
    }

    /// The linear side's memory: its samples, then its copy of the black-and-white frame.
    private func linearBuffer(_ linear: Side, _ samples: LinearSamples, width w: Int, height h: Int) throws -> UnsafeMutablePointer<UInt8> {
        try linear.reader.buffer(samples.size + (matrix == nil ? 0 : matrixRoom(width: w, height: h)))
    }

    /// The reads across and down, each on the frames it is due (`turns`).
    private func readLinear(_ image: LumaImage) throws -> LinearFinds {
        guard let linear else { return ([], []) }
        let (w, h) = (image.width, image.height)
        let samples = LinearSamples(width: w, height: h), pixels = image.pixels.baseAddress!
        let across = try linearBuffer(linear, samples, width: w, height: h), down = across + samples.rows * w
        var found: LinearFinds = ([], [])
        if turns.due[acrossRead] {
            for row in 0..<samples.rows {
                (across + row * w).update(from: pixels + row * samples.rowGap * w, count: w)
            }
            found.across = try linear.reader.read(linear.formats, across, width: w, height: samples.rows, stride: w, blackAndWhite: false) {
                (Double($0), Double($1 * samples.rowGap))
            }
        }
        if turns.due[downRead] {
            // Row by row, so that the frame is read once in order; the writes
            // spread over one cache line per column.
            for y in 0..<h {
                let row = pixels + y * w
                for column in 0..<samples.columns { down[column * h + y] = row[column * samples.columnGap] }
            }
            found.down = try linear.reader.read(linear.formats, down, width: h, height: samples.columns, stride: h, blackAndWhite: false) {
                (Double($1 * samples.columnGap), Double($0))
            }
        }
        return found
    }

    /// The matrix reads still left once the linear side is done, on its own
    /// copy of the black-and-white frame (each helper reads only its own memory).
    private func helpWithMatrixReads(_ image: LumaImage) throws -> MatrixFinds {
        guard let linear, let made = handout.frameIfReadsLeft() else { return [] }
        let (w, h) = (image.width, image.height), samples = LinearSamples(width: w, height: h)
        let copy = try linearBuffer(linear, samples, width: w, height: h) + samples.size
        copy.update(from: made, count: w * h)
        return try doMatrixReads(with: linear.reader, on: copy, width: w, height: h)
    }

    private func readMatrix(_ image: LumaImage) throws -> MatrixFinds {
        guard let matrix, handout.hasReads else {
            handout.made(nil)
            return []
        }
        let (w, h) = (image.width, image.height)
        let frame: UnsafeMutablePointer<UInt8>
        do {
            frame = try matrix.reader.buffer(matrixRoom(width: w, height: h))
        } catch {
            handout.made(nil)
            throw error
        }
        zxing14.binarizer.binarize(image, into: frame)
        handout.made(frame)
        return try doMatrixReads(with: matrix.reader, on: frame, width: w, height: h)
    }

    /// Takes the matrix reads left, one at a time, until none is.
    private func doMatrixReads(with reader: ZXingReader, on frame: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int) throws -> MatrixFinds {
        var finds: MatrixFinds = []
        while let next = handout.take() {
            finds.append((next, try read(plan[next], with: reader, on: frame, width: w, height: h)))
        }
        return finds
    }

    /// One matrix read, on a side's copy of the black-and-white frame (`width` x `height`, room for a window after it).
    private func read(_ read: MatrixRead, with reader: ZXingReader, on frame: UnsafeMutablePointer<UInt8>, width w: Int, height h: Int) throws -> [DetectedObject] {
        switch read {
        case .whole(let part):
            let formats = wholeFormats[part], turned = formats & (CodeFormat.pdf417.bit | CodeFormat.datamatrix.bit) != 0
            let found = try reader.read(formats, frame, width: w, height: h, stride: w, blackAndWhite: true, turnedToo: turned) { (Double($0), Double($1)) }
            return found + (formats & CodeFormat.qr.bit != 0 ? try zxing14.moreQRCodes(than: found, with: reader, on: frame, width: w, height: h) : [])
        case .zxing14(let extra):
            return try zxing14.read(extra, with: reader, on: frame, width: w, height: h)
        }
    }

    /// Appends each of `found` that is not already in `objects`: the same
    /// type and value, with boxes that are `same`.
    static func add(_ found: [DetectedObject], to objects: inout [DetectedObject], same: (PixelBox, PixelBox) -> Bool) {
        for object in found where !objects.contains(where: { $0.type == object.type && $0.value == object.value && same($0.bounds, object.bounds) }) {
            objects.append(object)
        }
    }

    /// Whether two boxes overlap or meet (a linear code's box may be a line).
    private static func touch(_ a: PixelBox, _ b: PixelBox) -> Bool {
        a.x <= b.x + b.width && b.x <= a.x + a.width && a.y <= b.y + b.height && b.y <= a.y + a.height
    }
}

/// The matrix reads of one frame, handed out in order to whichever side of
/// `CodeReader` asks next, and the black-and-white frame they read, once the
/// matrix side has made it.
private final class MatrixReadHandout {
    private let lock = ConditionLock()
    // Guarded by `lock`.
    /// This frame's reads, by their places in the plan.
    private var reads: [Int] = []
    private var next = 0
    private var frame: UnsafePointer<UInt8>?
    private var isMade = false

    /// A new frame: the reads of the plan's `reads` that are `due`.
    func start(reads: Int, due: (Int) -> Bool) {
        lock.withLock {
            self.reads.removeAll(keepingCapacity: true)
            for read in 0..<reads where due(read) { self.reads.append(read) }
            (next, frame, isMade) = (0, nil, false)
        }
    }

    /// From the matrix side: the black-and-white frame is made (nil: it could not be).
    func made(_ frame: UnsafePointer<UInt8>?) {
        lock.withLock {
            (self.frame, isMade) = (frame, true)
            lock.broadcast()
        }
    }

    /// Whether this frame has any read (while linear codes are followed, a frame may have none).
    var hasReads: Bool { lock.withLock { !reads.isEmpty } }

    /// The next read's place in the plan, nil when none is left.
    func take() -> Int? {
        lock.withLock {
            guard next < reads.count else { return nil }
            defer { next += 1 }
            return reads[next]
        }
    }

    /// The black-and-white frame once it is made, if reads are left; nil at
    /// once when none is (or the frame could not be made).
    func frameIfReadsLeft() -> UnsafePointer<UInt8>? {
        lock.withLock {
            while !isMade && next < reads.count { lock.wait() }
            return next < reads.count ? frame : nil
        }
    }
}
