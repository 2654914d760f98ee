/// How the image fills the output, as a preview layer's video gravity.
public enum FitMode: String, CaseIterable, Sendable {
    /// Whole image, aspect kept, black bars (resizeAspect).
    case contain
    /// Output filled, aspect kept, image cropped (resizeAspectFill).
    case cover
    /// Output filled, aspect ignored (resize).
    case stretch
}

/// Clockwise rotation of the image on the output.
public enum Rotation: Int, CaseIterable, Sendable {
    case none = 0, quarter = 90, half = 180, threeQuarters = 270
}

/// Where the preview quad goes and which texture coordinates its corners take,
/// for a given image size, output size, fit, rotation and mirroring. Pure math,
/// so it is tested without a GPU.
public struct PreviewLayout: Equatable, Sendable {
    public var fit: FitMode
    public var rotation: Rotation
    /// Flip left and right on the output (after rotation), as a front camera's preview.
    public var mirror: Bool

    public init(fit: FitMode = .contain, rotation: Rotation = .none, mirror: Bool = false) {
        self.fit = fit
        self.rotation = rotation
        self.mirror = mirror
    }

    /// True when the image's width runs up or down the output.
    private var turnsSideways: Bool { rotation == .quarter || rotation == .threeQuarters }

    /// The displayed size of a `width` x `height` image before scaling.
    public func rotatedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        turnsSideways ? (height, width) : (width, height)
    }

    /// The quad's extent in normalized device coordinates: half-width and half-height
    /// (1 = the whole output; above 1 overflows and is clipped, for `cover`).
    public func extent(imageWidth: Int, imageHeight: Int, outputWidth: Int, outputHeight: Int) -> (x: Float, y: Float) {
        let shown = rotatedSize(width: imageWidth, height: imageHeight)
        let sx = Float(outputWidth) / Float(shown.width), sy = Float(outputHeight) / Float(shown.height)
        let scale: Float
        switch fit {
        case .stretch: return (1, 1)
        case .contain: scale = min(sx, sy)
        case .cover: scale = max(sx, sy)
        }
        return (Float(shown.width) * scale / Float(outputWidth), Float(shown.height) * scale / Float(outputHeight))
    }

    /// True when a `width` x `height` image would be drawn onto such an output
    /// pixel for pixel: the draw can then be left out (passthrough).
    public func copiesPixelForPixel(imageWidth: Int, imageHeight: Int, outputWidth: Int, outputHeight: Int) -> Bool {
        rotation == .none && !mirror && imageWidth == outputWidth && imageHeight == outputHeight
    }

    /// Output pixels per image pixel, the smaller of the two axes: below 1 the
    /// image is shown smaller than it is.
    public func magnification(imageWidth: Int, imageHeight: Int, outputWidth: Int, outputHeight: Int) -> Float {
        let e = extent(imageWidth: imageWidth, imageHeight: imageHeight, outputWidth: outputWidth, outputHeight: outputHeight)
        let shown = (width: e.x * Float(outputWidth), height: e.y * Float(outputHeight))
        return min((turnsSideways ? shown.height : shown.width) / Float(imageWidth),
                   (turnsSideways ? shown.width : shown.height) / Float(imageHeight))
    }

    /// The image coordinate (0...1, y down) shown at output point (x, y) of the
    /// quad (0...1, y down).
    public func sourcePoint(x: Float, y: Float) -> (u: Float, v: Float) {
        let dx = mirror ? 1 - x : x
        switch rotation {
        case .none: return (dx, y)
        case .quarter: return (y, 1 - dx)
        case .half: return (1 - dx, 1 - y)
        case .threeQuarters: return (1 - y, dx)
        }
    }
}
