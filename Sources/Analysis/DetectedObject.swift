import Output
import Render

/// Something a detector found in a frame: a face, or a code and its value.
public struct DetectedObject: Sendable, Equatable {
    /// `face`, or the code's symbology: `qr`, `aztec`, `datamatrix`, `ean13`, `code128`, ...
    public var type: String
    /// A code's decoded text; nil for faces.
    public var value: String?
    /// In pixels of the source frame.
    public var bounds: PixelBox
    /// In pixels of the output (after crop, zoom, rotation and mirror); nil
    /// when the object is cropped away or the output is the cube.
    public var outputBounds: PixelBox?
    /// A code's corners in source pixels (top left, top right, bottom right,
    /// bottom left, as the code reads); empty for faces.
    public var corners: [(x: Double, y: Double)]
    /// `corners` on the output, for the overlay's outline (not in the JSON).
    public var outputCorners: [(x: Double, y: Double)] = []
    /// The same while the object stays in view (`ObjectTracker`).
    public var track = 0
    /// True on the first frame of its track.
    public var isNew = false

    public init(type: String, value: String? = nil, bounds: PixelBox, corners: [(x: Double, y: Double)] = []) {
        (self.type, self.value, self.bounds, self.corners) = (type, value, bounds, corners)
    }

    public static func == (a: DetectedObject, b: DetectedObject) -> Bool {
        a.type == b.type && a.value == b.value && a.bounds == b.bounds && a.outputBounds == b.outputBounds && a.track == b.track
            && a.corners.count == b.corners.count && zip(a.corners, b.corners).allSatisfy { $0.x == $1.x && $0.y == $1.y }
    }

    public var json: String {
        var text = "{\"type\": \(JSONText.quoted(type))"
        if let value { text += ", \"value\": \(JSONText.quoted(value))" }
        text += ", \"bounds\": \(bounds.json), \"output_bounds\": \(outputBounds?.json ?? "null")"
        if !corners.isEmpty {
            text += ", \"corners\": [" + corners.map { "[\(JSONNumber.format($0.x, decimals: 1)), \(JSONNumber.format($0.y, decimals: 1))]" }.joined(separator: ", ") + "]"
        }
        return text + ", \"track\": \(track)}"
    }
}

/// The objects found in one frame: the `objects` array of its metadata line.
public struct DetectedObjects: AnalysisResult {
    public var objects: [DetectedObject]

    public init(_ objects: [DetectedObject]) { self.objects = objects }

    public var json: String { "[" + objects.map(\.json).joined(separator: ", ") + "]" }

    /// The faces' boxes, in pixels of the source frame.
    public var faces: [PixelBox] { objects.filter { $0.type == "face" }.map(\.bounds) }
}
