/// A rectangle in pixels, y down.
public struct PixelBox: Equatable, Sendable {
    public var x: Int, y: Int, width: Int, height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The smallest box holding `points`.
    public init(enclosing points: [(x: Double, y: Double)]) {
        // Snapped to a millionth first, so that an edge at 99.9999999 stays at 100.
        let xs = points.map { ($0.x * 1e6).rounded() / 1e6 }, ys = points.map { ($0.y * 1e6).rounded() / 1e6 }
        let left = Int(xs.min()!.rounded(.down)), top = Int(ys.min()!.rounded(.down))
        self.init(x: left, y: top, width: Int(xs.max()!.rounded(.up)) - left, height: Int(ys.max()!.rounded(.up)) - top)
    }

    public var area: Int { max(0, width) * max(0, height) }

    /// The area both boxes cover over the area either covers (0 when apart).
    public func intersectionOverUnion(_ other: PixelBox) -> Double {
        let w = min(x + width, other.x + other.width) - max(x, other.x)
        let h = min(y + height, other.y + other.height) - max(y, other.y)
        guard w > 0, h > 0 else { return 0 }
        let both = w * h
        return Double(both) / Double(area + other.area - both)
    }

    /// `{"x": .., "y": .., "width": .., "height": ..}`.
    public var json: String { "{\"x\": \(x), \"y\": \(y), \"width\": \(width), \"height\": \(height)}" }
}

/// Where a point of the source frame lands on the output: through the crop
/// (with the zoom), then the preview layout's fit, rotation and mirror. What
/// metadata's `output_bounds` and the overlays use.
public struct OutputGeometry: Equatable, Sendable {
    /// The part of the source frame shown, in its pixels.
    public var crop: PixelBox
    public var outputWidth: Int
    public var outputHeight: Int
    public var layout: PreviewLayout

    public init(crop: PixelBox, outputWidth: Int, outputHeight: Int, layout: PreviewLayout) {
        (self.crop, self.outputWidth, self.outputHeight, self.layout) = (crop, outputWidth, outputHeight, layout)
    }

    /// The output point showing source point (`x`, `y`), in output pixels
    /// (outside the output when the point is cropped away).
    public func outputPoint(x: Double, y: Double) -> (x: Double, y: Double) {
        let u = (x - Double(crop.x)) / Double(crop.width), v = (y - Double(crop.y)) / Double(crop.height)
        // The quad point whose texture coordinate is (u, v): `PreviewLayout.sourcePoint` undone.
        let dx: Double, qy: Double
        switch layout.rotation {
        case .none: (dx, qy) = (u, v)
        case .quarter: (dx, qy) = (1 - v, u)
        case .half: (dx, qy) = (1 - u, 1 - v)
        case .threeQuarters: (dx, qy) = (v, 1 - u)
        }
        let qx = layout.mirror ? 1 - dx : dx
        let e = layout.extent(imageWidth: crop.width, imageHeight: crop.height, outputWidth: outputWidth, outputHeight: outputHeight)
        let w = Double(outputWidth), h = Double(outputHeight)
        return (w * (1 - Double(e.x)) / 2 + qx * w * Double(e.x), h * (1 - Double(e.y)) / 2 + qy * h * Double(e.y))
    }

    /// The output box showing source box `box`, cut to the output; nil when none of it is shown.
    public func outputBox(_ box: PixelBox) -> PixelBox? {
        let corners = [(box.x, box.y), (box.x + box.width, box.y), (box.x, box.y + box.height), (box.x + box.width, box.y + box.height)]
        let shown = PixelBox(enclosing: corners.map { outputPoint(x: Double($0.0), y: Double($0.1)) })
        let left = max(0, shown.x), top = max(0, shown.y)
        let right = min(outputWidth, shown.x + shown.width), bottom = min(outputHeight, shown.y + shown.height)
        guard right > left, bottom > top else { return nil }
        return PixelBox(x: left, y: top, width: right - left, height: bottom - top)
    }
}
