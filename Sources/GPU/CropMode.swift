/// Which part of the frame the frame uploader hands on.
public enum CropMode: String, CaseIterable, Sendable {
    /// The centered square of side min(width, height), as CubeKamera's
    /// height x height texture.
    case square
    /// The whole frame.
    case none

    /// The cropped rectangle in whole pixels, further narrowed around the center
    /// by a digital `zoom` factor (1 = no zoom).
    public func rectangle(width: Int, height: Int, zoom: Float = 1) -> (x: Int, y: Int, width: Int, height: Int) {
        var w = width, h = height
        if self == .square { w = min(width, height); h = w }
        let z = max(1, zoom)
        w = max(1, Int((Float(w) / z).rounded()))
        h = max(1, Int((Float(h) / z).rounded()))
        return ((width - w) / 2, (height - h) / 2, w, h)
    }
}
