import Output
import Render

/// One analysed frame's motion (`MotionDetector`): the `motion` of its metadata line.
public struct MotionMeasure: AnalysisResult, Equatable {
    /// Percent of the picture changed, specks removed.
    public var changed: Double
    /// Percent of the picture its largest changed region covers.
    public var region: Double
    /// The noise level: the median difference from the reference, in luma codes.
    public var noise: Double
    /// The difference a cell needed to count as changed, in luma codes.
    public var level: Int
    /// True when the picture changed as a whole (light, not motion).
    public var light: Bool
    /// True when the region is within the thresholds.
    public var motion: Bool
    /// The largest region's box in pixels of the source frame; nil without one.
    public var box: PixelBox?
    /// The same on the output; nil when cropped away, for the cube, or without one.
    public var outputBox: PixelBox?
    /// The median difference taken off first (a brightness change over the whole picture), in luma codes.
    public var offset: Int

    public init(changed: Double, region: Double, noise: Double, level: Int, light: Bool, motion: Bool, box: PixelBox?,
                outputBox: PixelBox? = nil, offset: Int = 0) {
        (self.changed, self.region, self.noise, self.level, self.light, self.motion) = (changed, region, noise, level, light, motion)
        (self.box, self.outputBox, self.offset) = (box, outputBox, offset)
    }

    public var json: String {
        "{\"motion\": \(motion), \"changed\": \(JSONNumber.format(changed, decimals: 3)), \"region\": \(JSONNumber.format(region, decimals: 3)), "
            + "\"light\": \(light), \"noise\": \(JSONNumber.format(noise, decimals: 2)), \"level\": \(level), \"offset\": \(offset), "
            + "\"bounds\": \(box?.json ?? "null"), \"output_bounds\": \(outputBox?.json ?? "null")}"
    }
}
