/// Paints the quadrilateral through `corners` (in order around it, convex),
/// grown by `grown` about its middle, white (255) in a `width` x `height`
/// picture of one byte a pixel: a code that was read, so that a read of the
/// picture again finds only the others.
func whiten(_ corners: [(x: Double, y: Double)], grownBy grown: Double, in picture: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
    guard corners.count >= 3 else { return }
    let middle = (x: corners.map(\.x).reduce(0, +) / Double(corners.count), y: corners.map(\.y).reduce(0, +) / Double(corners.count))
    let points = corners.map { (x: middle.x + ($0.x - middle.x) * grown, y: middle.y + ($0.y - middle.y) * grown) }
    let top = max(0, Int(points.map(\.y).min()!.rounded(.down))), bottom = min(height, Int(points.map(\.y).max()!.rounded(.up)) + 1)
    guard top < bottom else { return }
    for y in top..<bottom {
        // Where the row's middle line crosses the edges: for a convex shape, the row's span is between the outermost two.
        let rowY = Double(y) + 0.5
        var left = Double.infinity, right = -Double.infinity
        for (i, a) in points.enumerated() {
            let b = points[(i + 1) % points.count]
            guard (a.y <= rowY && rowY <= b.y) || (b.y <= rowY && rowY <= a.y) else { continue }
            let x = a.y == b.y ? min(a.x, b.x) : a.x + (rowY - a.y) / (b.y - a.y) * (b.x - a.x)
            let x2 = a.y == b.y ? max(a.x, b.x) : x
            (left, right) = (min(left, x), max(right, x2))
        }
        guard left <= right else { continue }
        let from = max(0, Int(left.rounded(.down))), to = min(width, Int(right.rounded(.up)) + 1)
        if from < to { (picture + y * width + from).update(repeating: 255, count: to - from) }
    }
}
