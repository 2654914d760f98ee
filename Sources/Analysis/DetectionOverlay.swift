import Foundation
import GPU
import Render

/// `--overlay boxes|labels`: what `--detect` found, drawn over the laid-out
/// picture (the preview, and so the console and recordings): each face's box
/// in yellow, each code's outline through its corners in green, and with
/// `labels` the code's value above it, in the console's bitmap font: the
/// objects the frame loop put in `ShownObjects` for the frame. For the
/// cube, `OnPicture` draws them onto the picture before the layout instead,
/// so that they turn with the cube's faces.
public final class DetectionOverlay: OverlayStage {
    public enum Mode: String, CaseIterable, Sendable {
        case boxes, labels, none
    }

    private let shown: ShownObjects
    private let painter: OverlayPainter
    private let labels: Bool

    static let faceColor = SIMD4<Float>(1, 0.85, 0, 1)
    static let codeColor = SIMD4<Float>(0.1, 1, 0.3, 1)
    static let labelBackground = SIMD4<Float>(0, 0, 0, 0.6)
    /// Characters of a value shown; longer ones end in `…`.
    static let longestLabel = 40

    /// `font`: the labels' font; nil draws boxes only.
    public init(shown: ShownObjects, labels: Bool, font: ConsoleFont?) throws {
        self.shown = shown
        self.labels = labels && font != nil
        painter = try OverlayPainter(font: font)
    }

    public func draw(onto target: RenderTarget, _ frame: StageFrame) throws {
        guard let objects = objects(frame) else { return }
        draw(objects.map { ($0, $0.outputBounds, $0.outputCorners) }, onto: target)
    }

    /// The objects to draw over `frame`, nil for none.
    private func objects(_ frame: StageFrame) -> [DetectedObject]? {
        shown.objects.isEmpty ? nil : shown.objects
    }

    /// Each object at its box and corners in `target`'s pixels (no box: not shown).
    private func draw(_ placed: [(object: DetectedObject, box: PixelBox?, corners: [(x: Double, y: Double)])], onto target: RenderTarget) {
        // Lines and text grow with the picture: 2 pixels and 1x up to 720 lines.
        let scale = max(1, target.height / 720 + (target.height % 720 >= 360 ? 1 : 0))
        let width = Double(2 * scale)
        painter.begin(on: target)
        defer { painter.end() }
        for (object, shown, corners) in placed {
            guard let box = shown else { continue }
            let color = object.type == "face" ? Self.faceColor : Self.codeColor
            if corners.count == 4 {
                painter.polygon(corners, width: width, color: color)
            } else {
                let (x, y, w, h) = (Double(box.x), Double(box.y), Double(box.width), Double(box.height))
                painter.polygon([(x, y), (x + w, y), (x + w, y + h), (x, y + h)], width: width, color: color)
            }
            guard labels, let value = object.value else { continue }
            let text = Self.label(value)
            let size = painter.textSize(text, scale: scale)
            let pad = Double(2 * scale)
            // Above the box, or inside its top when the box touches the picture's top.
            let top = Double(box.y) - size.height - 2 * pad >= 0 ? Double(box.y) - size.height - 2 * pad : Double(box.y)
            let left = min(Double(box.x), max(0, Double(target.width) - size.width - 2 * pad))
            painter.fill(x: left, y: top, width: size.width + 2 * pad, height: size.height + 2 * pad, color: Self.labelBackground)
            painter.text(text, x: left + pad, y: top + pad, scale: scale, color: color)
        }
    }

    /// The same drawn onto the picture before the layout (the cube's faces),
    /// in the picture's pixels: the source crop scaled to its size.
    public final class OnPicture: RenderStage {
        private let overlay: DetectionOverlay
        private var output: Framebuffer?
        public private(set) var passes = 0

        public init(_ overlay: DetectionOverlay) { self.overlay = overlay }

        public func render(_ input: TextureView, _ frame: StageFrame) throws -> TextureView {
            guard let objects = overlay.objects(frame) else {
                passes = 0
                return input
            }
            let target = try Framebuffer.reused(&output, width: input.pixelWidth, height: input.pixelHeight)
            frame.copier.copy(input, into: target)
            let crop = frame.sourceCrop
            let sx = Double(target.width) / Double(max(1, crop.z)), sy = Double(target.height) / Double(max(1, crop.w))
            func place(_ x: Double, _ y: Double) -> (x: Double, y: Double) { ((x - Double(crop.x)) * sx, (y - Double(crop.y)) * sy) }
            overlay.draw(objects.map { object in
                let b = object.bounds
                let corners = [place(Double(b.x), Double(b.y)), place(Double(b.x + b.width), Double(b.y + b.height))]
                return (object, PixelBox(enclosing: corners), object.corners.map { place($0.x, $0.y) })
            }, onto: target)
            passes = 1
            return target.asTexture
        }
    }

    /// The value on one line, control characters as `?`, at most `longestLabel` characters.
    static func label(_ value: String) -> String {
        var scalars = value.unicodeScalars.map { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) ? "?" : $0 }
        if scalars.count > longestLabel { scalars = Array(scalars.prefix(longestLabel - 1)) + ["…"] }
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }
}
