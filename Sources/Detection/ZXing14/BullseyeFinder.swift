/// Finds the centers of Aztec codes' bull's-eyes: concentric squares one
/// module wide, so a line through the center crosses nine runs of equal
/// length, dark, light, dark, ... dark, across and down. zxing-cpp 1.4 reads
/// an Aztec code only when it holds the middle of the image it is given;
/// `CodeReader` reads one again in a window centered on each of these.
/// It looks at the frame made black and white (`LocalThresholdBinarizer`:
/// 0 is dark), every other row, keeping only the last nine runs of a line.
struct BullseyeFinder {
    struct Center: Equatable {
        var x: Int, y: Int
        /// The module size in pixels (the runs' mean length).
        var module: Double
    }

    /// At most this many centers a frame, the strongest first; the rest are left.
    var limit = 8

    /// The bull's-eyes in the black-and-white picture at `pixels` (`width` x `height`, rows tight).
    func centers(in pixels: UnsafePointer<UInt8>, width w: Int, height h: Int) -> [Center] {
        var found: [Center] = []
        for y in stride(from: 0, to: h, by: 2) {
            let row = pixels + y * w
            var stop = false
            Self.scan(count: w, { row[$0] == 0 }, sameUntil: { Self.sameUntil(row, from: $0, count: w, dark: $1) }) { center, module in
                guard !stop else { return }
                // Down the column through the center: the same nine runs, centered on this row.
                let reach = Int(module * 7) + 2
                let top = max(0, y - reach), bottom = min(h, y + reach + 1)
                var nearest: (middle: Int, module: Double)?
                Self.scan(count: bottom - top, { pixels[(top + $0) * w + center] == 0 }) { middle, m in
                    if nearest == nil || abs(middle + top - y) < abs(nearest!.middle + top - y) { nearest = (middle, m) }
                }
                guard let (middle, m) = nearest, abs(middle + top - y) <= Int(module) + 1, abs(m - module) <= module * 0.5 else { return }
                let candidate = Center(x: center, y: y, module: (m + module) / 2)
                if !found.contains(where: { abs($0.x - candidate.x) <= Int(3 * module) && abs($0.y - candidate.y) <= Int(3 * module) }) {
                    found.append(candidate)
                    stop = found.count == limit
                }
            }
            if stop { break }
        }
        return found
    }

    /// The first pixel from `i` on in `row` that may differ from `dark`,
    /// eight at a time (a black-and-white row is mostly long runs).
    @inline(__always)
    private static func sameUntil(_ row: UnsafePointer<UInt8>, from i: Int, count: Int, dark: Bool) -> Int {
        let same: UInt64 = dark ? 0 : ~0
        var i = i
        while i + 8 <= count && UnsafeRawPointer(row + i).loadUnaligned(as: UInt64.self) == same { i += 8 }
        return i
    }

    /// Walks a line of `count` pixels (`dark(i)`; `sameUntil(i, dark)` may
    /// skip ahead over pixels all `dark`) and calls `found` with the
    /// middle and the mean run length of every nine runs from a dark one whose
    /// inner seven are each within half of their mean length of it and whose
    /// outer two (which the modules around the bull's-eye may lengthen) are at
    /// least half of it. In integers: seven times the mean is the inner runs' span.
    @inline(__always)
    private static func scan(count: Int, _ dark: (Int) -> Bool, sameUntil: (Int, Bool) -> Int = { i, _ in i },
                             _ found: (Int, Double) -> Void) {
        guard count > 0 else { return }
        // Where the last runs end, a ring of ten: run j covers end(j)..<end(j + 1). Runs
        // alternate, so the oldest of nine is dark exactly when the newest is.
        var ends = SIMD16<Int>()
        func end(_ j: Int) -> Int { ends[j % 10] }
        var runs = 0, current = dark(0)
        func close(at i: Int, wasDark: Bool) {
            runs += 1
            ends[runs % 10] = i
            guard runs >= 9, wasDark else { return }
            let first = runs - 9
            func length(_ j: Int) -> Int { end(first + j + 1) - end(first + j) }
            let span = end(first + 8) - end(first + 1)
            guard 2 * span >= 21, 14 * length(0) >= span, 14 * length(8) >= span else { return }
            for j in 1...7 where 2 * abs(7 * length(j) - span) > span { return }
            found(end(first + 4) + length(4) / 2, Double(span) / 7)
        }
        var i = 1
        while i < count {
            i = sameUntil(i, current)
            guard i < count else { break }
            let d = dark(i)
            if d != current {
                close(at: i, wasDark: current)
                current = d
            }
            i += 1
        }
        close(at: count, wasDark: current)
    }
}
