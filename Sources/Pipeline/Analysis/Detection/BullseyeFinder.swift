/// Finds the centers of Aztec codes' bull's-eyes: concentric squares one
/// module wide, so a line through the center crosses nine runs of equal
/// length, dark, light, dark, ... dark, across and down. zxing-cpp 1.4 reads
/// an Aztec code only when it holds the middle of the image it is given;
/// `CodeReader` reads one again in a window centered on each of these.
struct BullseyeFinder {
    struct Center: Equatable {
        var x: Int, y: Int
        /// The module size in pixels (the runs' mean length).
        var module: Double
    }

    /// At most this many centers a frame, the strongest first; the rest are left.
    var limit = 8

    func centers(in image: LumaImage) -> [Center] {
        var found: [Center] = []
        let w = image.width, h = image.height
        let pixels = image.pixels
        do {
            var runs: [(dark: Bool, start: Int, length: Int)] = []
            runs.reserveCapacity(w / 2)
            for y in stride(from: 0, to: h, by: 2) {
                Self.runs(count: w, into: &runs) { pixels[y * w + $0] }
                for (center, module) in Self.patterns(runs) {
                    // Down the column through the center: the same nine runs, centered on this row.
                    var column: [(dark: Bool, start: Int, length: Int)] = []
                    let reach = Int(module * 7) + 2
                    let top = max(0, y - reach), bottom = min(h, y + reach + 1)
                    Self.runs(count: bottom - top, into: &column) { pixels[(top + $0) * w + center] }
                    guard let (middle, m) = Self.patterns(column).min(by: { abs($0.0 + top - y) < abs($1.0 + top - y) }),
                          abs(middle + top - y) <= Int(module) + 1, abs(m - module) <= module * 0.5 else { continue }
                    let candidate = Center(x: center, y: y, module: (m + module) / 2)
                    if !found.contains(where: { abs($0.x - candidate.x) <= Int(3 * module) && abs($0.y - candidate.y) <= Int(3 * module) }) {
                        found.append(candidate)
                        if found.count == limit { return found }
                    }
                }
            }
        }
        return found
    }

    /// The runs of dark and light along a line of `count` pixels; dark is
    /// below the middle of the darkest and lightest pixel of the 32 pixels around.
    private static func runs(count: Int, into runs: inout [(dark: Bool, start: Int, length: Int)], _ pixel: (Int) -> UInt8) {
        runs.removeAll(keepingCapacity: true)
        var blockStart = -1, threshold = 0, flat = true
        for i in 0..<count {
            if i / 32 != blockStart {
                blockStart = i / 32
                var lo = 255, hi = 0
                for j in max(0, i - 16)..<min(count, i + 48) {
                    let v = Int(pixel(j))
                    lo = min(lo, v)
                    hi = max(hi, v)
                }
                threshold = (lo + hi) / 2
                flat = hi - lo < 48
            }
            let dark = !flat && Int(pixel(i)) < threshold
            if let last = runs.last, last.dark == dark {
                runs[runs.count - 1].length += 1
            } else {
                runs.append((dark, i, 1))
            }
        }
    }

    /// Nine runs from a dark one, the inner seven each within half of their
    /// mean length of it, the outer two (which the modules around the
    /// bull's-eye may lengthen) at least half of it: the middle of the fifth
    /// (the bull's-eye's center) and the mean.
    private static func patterns(_ runs: [(dark: Bool, start: Int, length: Int)]) -> [(Int, Double)] {
        guard runs.count >= 9 else { return [] }
        var out: [(Int, Double)] = []
        for i in 0...(runs.count - 9) where runs[i].dark {
            let inner = runs[(i + 1)..<(i + 8)].map(\.length)
            let mean = Double(inner.reduce(0, +)) / 7
            guard mean >= 1.5, inner.allSatisfy({ abs(Double($0) - mean) <= mean * 0.5 }),
                  Double(runs[i].length) >= mean * 0.5, Double(runs[i + 8].length) >= mean * 0.5 else { continue }
            out.append((runs[i + 4].start + runs[i + 4].length / 2, mean))
        }
        return out
    }
}
