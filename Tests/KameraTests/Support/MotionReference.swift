@testable import Analysis
import Render

/// `MotionDetector` written again from its definition, plainly, for the
/// tests to compare with: block means by coordinates, the median by sorting,
/// the opening cell by cell from its definition, regions by union-find.
final class MotionReference {
    let settings: MotionDetector.Settings
    var reference: [Int]?
    var noise16 = -1
    var grid = (columns: 0, rows: 0, factor: 0)

    init(_ settings: MotionDetector.Settings = .init()) { self.settings = settings }

    func measure(_ luma: [UInt8], width: Int, height: Int) -> MotionMeasure {
        let factor = max(1, Int((Double(width) / Double(MotionDetector.gridWidth)).rounded(.up)))
        let (columns, rows) = (width / factor, height / factor)
        grid = (columns, rows, factor)
        var cells = [Int](repeating: 0, count: columns * rows)
        for cy in 0..<rows {
            for cx in 0..<columns {
                var sum = 0
                for y in 0..<factor { for x in 0..<factor { sum += Int(luma[(cy * factor + y) * width + cx * factor + x]) } }
                cells[cy * columns + cx] = Int((Double(sum) / Double(factor * factor)).rounded(.toNearestOrAwayFromZero))
            }
        }
        let kept: [Bool] = (0..<cells.count).map { i in
            guard let mask = settings.mask else { return true }
            let maskHeight = mask.count / settings.maskWidth
            // The mask's pixel under the cell's center.
            let x = (2 * (i % columns) + 1) * settings.maskWidth / (2 * columns), y = (2 * (i / columns) + 1) * maskHeight / (2 * rows)
            return !mask[min(y, maskHeight - 1) * settings.maskWidth + min(x, settings.maskWidth - 1)]
        }
        guard var reference, noise16 >= 0 else {
            reference = cells.map { $0 * 256 }
            noise16 = 0
            return MotionMeasure(changed: 0, region: 0, noise: 0, level: settings.minimumLevel, light: false, motion: false, box: nil)
        }
        let raw = cells.indices.map { cells[$0] - Int((Double(reference[$0]) / 256).rounded(.down) + ((reference[$0] & 255) >= 128 ? 1 : 0)) }
        let lowerMedian = { (values: [Int]) -> Int in values.isEmpty ? 0 : values.sorted()[(values.count + 1) / 2 - 1] }
        let offset = lowerMedian(cells.indices.filter { kept[$0] }.map { raw[$0] })
        let difference = raw.map { $0 - offset }
        let median = lowerMedian(cells.indices.filter { kept[$0] }.map { min(255, abs(difference[$0])) })
        noise16 += (median * 16 - noise16) / 8 // Swift's division truncates toward zero, as the detector's does
        let level = max(settings.minimumLevel, (noise16 * 9 / 2 + 15) / 16 + 2)
        let counted = kept.filter { $0 }.count
        let on = cells.indices.map { kept[$0] && abs(difference[$0]) > level }
        let rawShare = Double(on.filter { $0 }.count) * 100 / Double(counted)
        if rawShare > settings.lightShare || abs(offset) >= settings.lightLevel {
            self.reference = cells.map { $0 * 256 }
            return MotionMeasure(changed: rawShare, region: 0, noise: Double(noise16) / 16, level: level, light: true, motion: false, box: nil, offset: offset)
        }
        func around(_ i: Int) -> [Int] {
            let (x, y) = (i % columns, i / columns)
            var cells: [Int] = []
            for yy in y - 1...y + 1 where yy >= 0 && yy < rows {
                for xx in x - 1...x + 1 where xx >= 0 && xx < columns { cells.append(yy * columns + xx) }
            }
            return cells
        }
        let eroded = cells.indices.map { i in around(i).allSatisfy { on[$0] } }
        let opened = cells.indices.map { i in around(i).contains { eroded[$0] } }
        let openedCells = cells.indices.filter { opened[$0] }
        var parent = Array(cells.indices)
        func root(_ i: Int) -> Int { var i = i; while parent[i] != i { i = parent[i] }; return i }
        for i in openedCells { for j in around(i) where opened[j] { let (a, b) = (root(i), root(j)); if a != b { parent[max(a, b)] = min(a, b) } } }
        var groups: [Int: [Int]] = [:]
        for i in openedCells { groups[root(i), default: []].append(i) }
        // The largest; among equals the one whose first cell comes first, as the detector finds them in order.
        let largest = groups.values.max { a, b in a.count != b.count ? a.count < b.count : a.min()! > b.min()! }
        for i in cells.indices {
            let shift = opened[i] ? 7 : 4
            reference[i] += (cells[i] * 256 - reference[i]) >> shift
        }
        self.reference = reference
        let region = Double(largest?.count ?? 0) * 100 / Double(counted)
        let box = largest.map { group -> PixelBox in
            let xs = group.map { $0 % columns }, ys = group.map { $0 / columns }
            return PixelBox(x: xs.min()! * factor, y: ys.min()! * factor, width: (xs.max()! - xs.min()! + 1) * factor, height: (ys.max()! - ys.min()! + 1) * factor)
        }
        return MotionMeasure(changed: Double(openedCells.count) * 100 / Double(counted), region: region, noise: Double(noise16) / 16, level: level,
                             light: false, motion: region >= settings.threshold && (settings.maximum.map { region <= $0 } ?? true), box: box, offset: offset)
    }
}
