import Render

/// Motion in a camera's picture, as Motion and rpicam-apps' `motion_detect`
/// find it, on the frame's luma: the frame shrunk to a grid of at most 160
/// cells across (each the mean of its block, which also evens out the
/// sensor's noise), its difference from a reference that follows the scene
/// slowly, less the difference's median (a brightness change over the whole
/// picture moves every cell alike), cells changed by more than the noise
/// allows, specks removed (an erosion, then a dilation), and the largest
/// connected region of what is left. A picture whose median moved by
/// `lightLevel` codes or more, or changed over more than `lightShare` of it
/// at once, saw light change (a lamp, the sun, auto-exposure), not motion:
/// the reference takes the new picture. Every buffer is made once per size:
/// a frame allocates nothing.
public final class MotionDetector {
    public struct Settings: Equatable, Sendable {
        /// Motion when its largest region covers at least this percent of the picture.
        public var threshold = 1.5
        /// And at most this percent (nil: no limit).
        public var maximum: Double?
        /// Percent of the picture changed at once that counts as light, not motion.
        public var lightShare = 50.0
        /// A change of the whole picture's median by this many luma codes counts as light.
        public var lightLevel = 12
        /// The smallest difference a cell must have to count as changed, in luma codes.
        public var minimumLevel = 4
        /// Cells the mask leaves out (true: ignored), `maskWidth` across, scaled to the grid.
        public var mask: [Bool]?
        public var maskWidth = 0

        public init(threshold: Double = 1.5, maximum: Double? = nil) {
            (self.threshold, self.maximum) = (threshold, maximum)
        }
    }

    /// The grid is at most this many cells across.
    public static let gridWidth = 160
    /// How fast the reference follows: by 1/2^shift of the difference a frame,
    /// slowly where the picture changed, so that a moving object is not taken in.
    static let stillShift: Int32 = 4, changedShift: Int32 = 7

    public let settings: Settings
    private(set) var factor = 0, columns = 0, rows = 0
    private var frameWidth = 0, frameHeight = 0
    /// The grid of this frame, the reference (codes times 256), the
    /// difference after the median, the changed cells before and after the specks went.
    private(set) var grid: [Int32] = []
    private(set) var reference: [Int32] = []
    private var difference: [Int32] = []
    private var changed: [UInt8] = [], opened: [UInt8] = [], scratch: [UInt8] = []
    private var ignored: [Bool] = []
    private var counted = 0
    private var histogram = [Int](repeating: 0, count: 511)
    private var stack: [Int32] = []
    private var labels: [Int32] = []
    /// The noise level: the median absolute difference, in 16ths of a code, followed from frame to frame.
    private(set) var noise16: Int32 = -1

    public init(_ settings: Settings = Settings()) {
        self.settings = settings
    }

    /// One frame's measure; the first frame of a size is the reference and has no motion.
    public func measure(_ image: LumaImage) -> MotionMeasure {
        if image.width != frameWidth || image.height != frameHeight { resize(width: image.width, height: image.height) }
        shrink(image)
        if noise16 < 0 {
            for i in 0..<grid.count { reference[i] = grid[i] << 8 }
            noise16 = 0
            return MotionMeasure(changed: 0, region: 0, noise: 0, level: settings.minimumLevel, light: false, motion: false, box: nil)
        }
        let offset = differences()
        let median = medianAbsolute()
        noise16 += (median * 16 - noise16) / 8
        // Three times the noise's spread (the median absolute difference is 0.67 of a deviation) and a margin.
        let level = max(settings.minimumLevel, Int((noise16 * 3 * 3 / 2 + 15) / 16) + 2)
        var raw = 0
        for i in 0..<difference.count {
            let on: UInt8 = !ignored[i] && abs(difference[i]) > Int32(level) ? 1 : 0
            changed[i] = on
            raw += Int(on)
        }
        let rawShare = counted > 0 ? Double(raw) * 100 / Double(counted) : 0
        if rawShare > settings.lightShare || abs(Int(offset)) >= settings.lightLevel {
            for i in 0..<grid.count { reference[i] = grid[i] << 8 }
            return MotionMeasure(changed: rawShare, region: 0, noise: Double(noise16) / 16, level: level, light: true, motion: false, box: nil,
                                 offset: Int(offset))
        }
        Self.neighbourhood(changed, into: &scratch, columns: columns, rows: rows, all: true)
        Self.neighbourhood(scratch, into: &opened, columns: columns, rows: rows, all: false)
        let (total, largest, cells) = regions()
        for i in 0..<grid.count {
            let shift = opened[i] != 0 ? Self.changedShift : Self.stillShift
            reference[i] += ((grid[i] << 8) - reference[i]) >> shift
        }
        let share = counted > 0 ? Double(total) * 100 / Double(counted) : 0
        let region = counted > 0 ? Double(cells) * 100 / Double(counted) : 0
        let motion = region >= settings.threshold && settings.maximum.map { region <= $0 } ?? true
        let box = largest.map { PixelBox(x: $0.x * factor, y: $0.y * factor, width: $0.width * factor, height: $0.height * factor) }
        return MotionMeasure(changed: share, region: region, noise: Double(noise16) / 16, level: level, light: false, motion: motion, box: box,
                             offset: Int(offset))
    }

    private func resize(width: Int, height: Int) {
        (frameWidth, frameHeight) = (width, height)
        factor = max(1, (width + Self.gridWidth - 1) / Self.gridWidth)
        (columns, rows) = (max(1, width / factor), max(1, height / factor))
        let n = columns * rows
        grid = [Int32](repeating: 0, count: n)
        reference = grid
        difference = grid
        labels = grid
        stack = [Int32](repeating: 0, count: n)
        changed = [UInt8](repeating: 0, count: n)
        opened = changed
        scratch = changed
        ignored = (0..<n).map { i in
            guard let mask = settings.mask, settings.maskWidth > 0 else { return false }
            let maskHeight = mask.count / settings.maskWidth
            let (x, y) = (i % columns, i / columns)
            return mask[min(maskHeight - 1, (y * 2 + 1) * maskHeight / (rows * 2)) * settings.maskWidth + min(settings.maskWidth - 1, (x * 2 + 1) * settings.maskWidth / (columns * 2))]
        }
        counted = ignored.filter { !$0 }.count
        noise16 = -1
    }

    /// Each cell the rounded mean of its factor x factor block.
    private func shrink(_ image: LumaImage) {
        let p = image.pixels.baseAddress!
        let area = Int32(factor * factor)
        grid.withUnsafeMutableBufferPointer { grid in
            for cy in 0..<rows {
                for cx in 0..<columns {
                    var sum: Int32 = 0
                    for y in cy * factor..<(cy + 1) * factor {
                        let row = p + y * image.width + cx * factor
                        for x in 0..<factor { sum &+= Int32(row[x]) }
                    }
                    grid[cy * columns + cx] = (sum + area / 2) / area
                }
            }
        }
    }

    /// The differences from the reference, less their median over the cells
    /// the mask keeps; returns that median.
    private func differences() -> Int32 {
        for i in 0..<histogram.count { histogram[i] = 0 }
        for i in 0..<grid.count {
            let d = grid[i] - ((reference[i] + 128) >> 8)
            difference[i] = d
            if !ignored[i] { histogram[Int(d) + 255] += 1 }
        }
        let offset = Int32(Self.median(histogram, count: counted)) - 255
        for i in 0..<difference.count { difference[i] -= offset }
        return offset
    }

    /// The median of the differences' magnitudes over the cells the mask keeps.
    private func medianAbsolute() -> Int32 {
        for i in 0..<256 { histogram[i] = 0 }
        for i in 0..<difference.count where !ignored[i] { histogram[min(255, Int(abs(difference[i])))] += 1 }
        return Int32(Self.median(histogram[0..<256], count: counted))
    }

    /// The lower median of `count` values counted by `bins`.
    static func median<C: Collection>(_ bins: C, count: Int) -> Int where C.Element == Int, C.Index == Int {
        guard count > 0 else { return 0 }
        var seen = 0
        for i in bins.indices {
            seen += bins[i]
            if seen * 2 >= count { return i - bins.startIndex }
        }
        return bins.count - 1
    }

    /// Calls `body` with the index of each cell of the 3x3 around x, y on the grid (itself too).
    @inline(__always)
    static func forEachNeighbour(_ x: Int, _ y: Int, columns: Int, rows: Int, _ body: (Int) -> Void) {
        for yy in max(0, y - 1)...min(rows - 1, y + 1) {
            for xx in max(0, x - 1)...min(columns - 1, x + 1) { body(yy * columns + xx) }
        }
    }

    /// `all`: on when every cell of the 3x3 around is on (erosion; cells
    /// beyond the edge do not count); else when any is (dilation).
    static func neighbourhood(_ from: [UInt8], into to: inout [UInt8], columns: Int, rows: Int, all: Bool) {
        for y in 0..<rows {
            for x in 0..<columns {
                var any = false, every = true
                forEachNeighbour(x, y, columns: columns, rows: rows) { j in
                    let on = from[j] != 0
                    any = any || on
                    every = every && on
                }
                to[y * columns + x] = (all ? every : any) ? 1 : 0
            }
        }
    }

    /// The cells on after the specks went, and the largest 8-connected
    /// region: its box on the grid and its cells (the first found wins a tie).
    private func regions() -> (total: Int, largest: PixelBox?, cells: Int) {
        for i in 0..<labels.count { labels[i] = 0 }
        var total = 0, best = 0, bestBox: PixelBox?
        var label: Int32 = 0
        for start in 0..<opened.count where opened[start] != 0 && labels[start] == 0 {
            label += 1
            labels[start] = label
            stack[0] = Int32(start)
            var top = 1, cells = 0
            var (left, right, up, down) = (columns, -1, rows, -1)
            while top > 0 {
                top -= 1
                let i = Int(stack[top])
                cells += 1
                let (x, y) = (i % columns, i / columns)
                (left, right, up, down) = (min(left, x), max(right, x), min(up, y), max(down, y))
                Self.forEachNeighbour(x, y, columns: columns, rows: rows) { j in
                    if opened[j] != 0 && labels[j] == 0 {
                        labels[j] = label
                        stack[top] = Int32(j)
                        top += 1
                    }
                }
            }
            total += cells
            if cells > best {
                best = cells
                bestBox = PixelBox(x: left, y: up, width: right - left + 1, height: down - up + 1)
            }
        }
        return (total, bestBox, best)
    }
}
