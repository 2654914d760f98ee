/// How several sources' pictures share one output (`--layout`): side by
/// side, a grid, or picture in picture. Each picture is fitted whole into its
/// cell, its aspect kept and centered (black bars where the aspects differ),
/// as OBS's and GStreamer's compositors place sources.
public enum CompositionLayout: Equatable, Sendable {
    /// One row, each cell the first picture's size.
    case side
    /// `columns` = the smallest whole number whose square holds them all, rows as needed, each cell the first picture's size.
    case grid
    /// The first picture fills the output; the others, `size` of its width
    /// wide, stacked from `corner` inward, `margin` of the width from its edges.
    case pip(corner: Corner, size: Double)

    public enum Corner: String, CaseIterable, Sendable {
        case topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
    }

    /// The sources a layout takes at most.
    public static let mostSources = 4
    /// A picture in picture's distance from the output's edges, as a share of its width.
    public static let pipMargin = 0.02

    /// The output's size for pictures whose first is `first`: `count` cells
    /// of its size for `side` and `grid`, its own for `pip`.
    public func outputSize(first: (width: Int, height: Int), count: Int) -> (width: Int, height: Int) {
        switch self {
        case .side:
            return (first.width * count, first.height)
        case .grid:
            let (columns, rows) = Self.grid(count)
            return (first.width * columns, first.height * rows)
        case .pip:
            return first
        }
    }

    /// Where each picture of `sizes` goes on a `width` x `height` output:
    /// left, top, width and height in pixels, top row 0.
    public func rectangles(for sizes: [(width: Int, height: Int)], width: Int, height: Int) -> [PixelBox] {
        guard !sizes.isEmpty else { return [] }
        switch self {
        case .side, .grid:
            let (columns, rows) = self == .side ? (sizes.count, 1) : Self.grid(sizes.count)
            return sizes.enumerated().map { i, size in
                let (column, row) = (i % columns, i / columns)
                let left = width * column / columns, top = height * row / rows
                let cell = PixelBox(x: left, y: top, width: width * (column + 1) / columns - left, height: height * (row + 1) / rows - top)
                return Self.fit(size, into: cell)
            }
        case .pip(let corner, let share):
            var boxes = [PixelBox(x: 0, y: 0, width: width, height: height)]
            boxes[0] = Self.fit(sizes[0], into: boxes[0])
            let margin = Int((Double(width) * Self.pipMargin).rounded())
            let insetWidth = max(2, Int((Double(width) * share).rounded()))
            var offset = margin
            for size in sizes.dropFirst() {
                let insetHeight = max(2, Int((Double(insetWidth) * Double(size.height) / Double(max(size.width, 1))).rounded()))
                let left = corner == .topLeft || corner == .bottomLeft ? margin : width - margin - insetWidth
                let top = corner == .topLeft || corner == .topRight ? offset : height - offset - insetHeight
                boxes.append(PixelBox(x: left, y: top, width: insetWidth, height: insetHeight))
                offset += insetHeight + margin
            }
            return boxes
        }
    }

    /// Columns and rows of a grid of `count`.
    static func grid(_ count: Int) -> (columns: Int, rows: Int) {
        var columns = 1
        while columns * columns < count { columns += 1 }
        return (columns, (count + columns - 1) / columns)
    }

    /// `size` scaled whole into `cell`, centered.
    static func fit(_ size: (width: Int, height: Int), into cell: PixelBox) -> PixelBox {
        guard size.width > 0, size.height > 0 else { return cell }
        let scale = min(Double(cell.width) / Double(size.width), Double(cell.height) / Double(size.height))
        let w = min(cell.width, Int((Double(size.width) * scale).rounded())), h = min(cell.height, Int((Double(size.height) * scale).rounded()))
        return PixelBox(x: cell.x + (cell.width - w) / 2, y: cell.y + (cell.height - h) / 2, width: w, height: h)
    }

    public var name: String {
        switch self {
        case .side: "side"
        case .grid: "grid"
        case .pip(let corner, let size): "pip (\(corner.rawValue), \(Int((size * 100).rounded()))%)"
        }
    }
}
