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
            Self.scan(count: w, { row[$0] == 0 }) { center, module in
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

    /// Walks a line of `count` pixels (`dark(i)`) and calls `found` with the
    /// middle and the mean run length of every nine runs from a dark one whose
    /// inner seven are each within half of their mean length of it and whose
    /// outer two (which the modules around the bull's-eye may lengthen) are at
    /// least half of it.
    @inline(__always)
    private static func scan(count: Int, _ dark: (Int) -> Bool, _ found: (Int, Double) -> Void) {
        guard count > 0 else { return }
        // Where the last runs end, a ring of ten: run j covers end(j)..<end(j + 1). Runs
        // alternate, so the oldest of nine is dark exactly when the newest is.
        var ends = SIMD16<Int>()
        func end(_ j: Int) -> Int { ends[j % 10] }
        func setEnd(_ j: Int, _ value: Int) { ends[j % 10] = value }
        var runs = 0, current = dark(0)
        func close(at i: Int, wasDark: Bool) {
            runs += 1
            setEnd(runs, i)
            guard runs >= 9, wasDark else { return }
            let first = runs - 9
            func length(_ j: Int) -> Int { end(first + j + 1) - end(first + j) }
            let mean = Double(end(first + 8) - end(first + 1)) / 7
            guard mean >= 1.5, Double(length(0)) >= mean * 0.5, Double(length(8)) >= mean * 0.5 else { return }
            for j in 1...7 where abs(Double(length(j)) - mean) > mean * 0.5 { return }
            found(end(first + 4) + length(4) / 2, mean)
        }
        for i in 1..<count {
            let d = dark(i)
            if d != current {
                close(at: i, wasDark: current)
                current = d
            }
        }
        close(at: count, wasDark: current)
    }
}
